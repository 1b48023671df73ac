# pyright: standard
"""The verifier of "same fact": the one judge every compaction stage asks before two memories become
one, and the one that recognises a contradiction.

Two statements are the **same fact** when they differ only in case, punctuation, Markdown, function
words ("the", "must", "always"), inflection ("runs"/"run") and the order of their clauses — each
clause keeping its own word order, so a reversal ("orders publishes events that inventory consumes")
is not the same. Every literal must match exactly: numbers with their unit and sign (``10s``, ``-1``,
``UTC+2``), number words, versions with their operator (``^18.3.1`` is not ``~18.3.1``), operators
(``??``, ``||``), paths and dotfiles, environment variables, code spans and commands, identifiers. A
negation on one side only is a different fact.

A **conflict** is inferred only when everything matches but one value or the polarity: the same
statement with another number, version, tool or setting in its predicate ("Tests run with Jest" /
"... Vitest", "Timeout is 10s" / "... 30s", "Use X" / "Do not use X", "enabled" / "disabled"). A
difference in the subject ("Port 3000 must be free" / "Port 5432 must be free", "free tier" / "paid
tier", "orders" / "payments") is a different fact, not a conflict: both stay. Conflicts are reported for
review and never acted on here.

The verifier is deterministic and needs no model; later stages (embeddings, an LLM) propose pairs and
this module decides (:func:`compare`)."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from functools import cache, lru_cache
from typing import Literal, NamedTuple, Protocol

import snowballstemmer

from ..infra.workers import fork_map
from .vocabulary import roles_of

Verdict = Literal["same", "conflict", "different"]

_STEMMER = snowballstemmer.stemmer("english")


@cache
def _stem(word: str) -> str:
    """Snowball's English stem, memoised: a store's vocabulary is small and stemming is slow in Python."""
    return _STEMMER.stemWord(word)

#: Words that carry no fact of their own (articles, auxiliaries, modals, pronouns, prepositions,
#: emphasis). Relation words that start a clause are not here: they keep their clause's meaning.
FUNCTION_WORDS = frozenset(
    "a an the this these those it its they them their there we our us you your i me my he she his her one's"
    " is are was were be been being am do does did done have has had having will would shall should must may"
    " might can could ought to of for in on at by with from into onto as than very really also just only"
    " always please make sure and or both either each every all any some per via using our own here"
    " currently now today still already".split()
)
#: Words that open a clause (kept, as the clause's first word).
CLAUSE_WORDS = frozenset("before after instead rather unless if when whenever while until because since so then that"
                         " which who whose where but otherwise except".split())
NEGATIONS = frozenset("not no never don't dont doesn't doesnt isn't isnt aren't arent won't wont can't cant cannot"
                      " mustn't mustnt shouldn't shouldnt avoid without nor neither didn't didnt wasn't weren't"
                      " n't".split())
#: Words after which a differing word is a value of the statement (not its scope).
VALUE_MARKERS = frozenset("with using via use uses used prefer prefers preferred is are be was = : default defaults"
                          " set pin pinned switch switched migrate migrated move moved run runs on".split())
#: Words that say which of two things is preferred: a swap across them reverses the preference.
#: "over" and "than" only do so next to a verb of preference ("prefer X over Y"; not "calls B over gRPC").
PREFERENCE_MARKERS = frozenset("instead rather".split())
_WEAK_PREFERENCE_MARKERS = frozenset("over than".split())
_PREFERENCE_VERBS = frozenset("prefer favor favour choose pick better worse faster slower".split())
_ANTONYMS = [("enabled", "disabled"), ("enable", "disable"), ("on", "off"), ("true", "false"), ("yes", "no"),
             ("max", "min"), ("maximum", "minimum"), ("allow", "deny"), ("allowed", "denied"), ("allow", "block"),
             ("allowlist", "blocklist"), ("whitelist", "blacklist"), ("before", "after"), ("sync", "async"),
             ("synchronous", "asynchronous"), ("public", "private"), ("read", "write"), ("readonly", "writable"),
             ("upper", "lower"), ("uppercase", "lowercase"), ("first", "last"), ("include", "exclude"),
             ("required", "optional"), ("strict", "loose"), ("local", "remote"), ("inbound", "outbound"),
             ("ascending", "descending"), ("increase", "decrease"), ("start", "stop"), ("open", "close"),
             ("lazy", "eager"), ("inner", "outer"), ("above", "below"), ("more", "less"), ("higher", "lower"),
             ("add", "remove"), ("accept", "reject"), ("mutable", "immutable"), ("blocking", "nonblocking"),
             ("leading", "trailing"), ("tabs", "spaces"), ("single", "double"), ("light", "dark"),
             ("positive", "negative"), ("manual", "automatic"), ("manually", "automatically"), ("fails", "succeeds"),
             ("failing", "passing"), ("sequential", "parallel"), ("serial", "parallel"), ("online", "offline"),
             ("forbidden", "allowed"), ("forbid", "allow"), ("mandatory", "optional")]
#: Function words that end a clause's subject ("X is ...", "X must ...", "key: value").
_PREDICATE_FUNCTION_WORDS = frozenset("is are was were be been am must should can could will would shall may might"
                                      " do does did have has had = :".split())
_COPULAS = frozenset("is are was were be been stays remains turned switched set left".split())
#: Nouns a number names rather than measures ("port 3000 must be free", "step 3 runs migrations").
IDENTIFIER_NOUNS = frozenset("port step stage phase ticket issue pr pull item task rule migration line page chapter"
                             " section room attempt case test job level tier id number no # v code error status http"
                             " node shard replica region zone partition queue worker tag commit build release note adr rfc"
                             " incident sprint milestone".split())
#: Verbs that start an imperative ("Use pnpm", "Run tests with ...") or end a subject ("X runs Y").
_PREDICATE_WORDS = frozenset(
    "is are was were be must should can will need needs require requires use uses run runs go goes live lives call"
    " calls publish publishes consume consumes has have get gets take takes set sets pin keep keeps prefer put add"
    " avoid install start stop deploy build test write read import export configure enable disable store stores"
    " cache caches log logs lint format commit push merge create creates return returns send sends handle handles"
    " expose exposes listen listens point points wrap wraps validate validates emit emits retry retries time"
    " times page pages skip skips default defaults contain contains hold holds depend depends mock mocks stub"
    " rely relies generate generates load loads sit sits belong belongs reach reaches target targets".split()
)
_NUMBER_WORDS = {"zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6",
                 "seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12",
                 "single": "1", "dozen": "12", "hundred": "100", "thousand": "1000"}
#: The words :func:`_lex` reads otherwise than as a plain word (every case of its loop but the last).
_SPECIAL_WORDS = NEGATIONS | frozenset(_NUMBER_WORDS) | CLAUSE_WORDS | FUNCTION_WORDS | {"on", "off", "=", ":"}
_UNITS = {"ms": "ms", "millisecond": "ms", "milliseconds": "ms", "s": "s", "sec": "s", "secs": "s", "second": "s",
          "seconds": "s", "min": "min", "mins": "min", "minute": "min", "minutes": "min", "h": "h", "hr": "h",
          "hrs": "h", "hour": "h", "hours": "h", "d": "d", "day": "d", "days": "d", "week": "w", "weeks": "w",
          "%": "%", "percent": "%", "kb": "kb", "mb": "mb", "gb": "gb", "tb": "tb", "px": "px", "rem": "rem",
          "em": "em", "x": "x", "k": "k"}
_CODE_EXTENSIONS = ("ts tsx js jsx mjs cjs py go rs java kt rb php cs json jsonc yaml yml toml ini cfg md mdx mdc txt sh"
                    " sql prisma css scss html lock env local example sample").split()

_LITERAL_CODE = r"(?P<code>`[^`]+`)"
#: A path, a file name or a dashed name may be tried from each ``-`` or ``.`` of a run such as ``a-b-c``:
#: each of its parts (a name, a path's segment) is read to at most 255 characters (the longest file name
#: common file systems allow), a file name or a dashed name to at most 16 dots or dashes, so that a start
#: that fails costs a bounded read, not the rest of the run. (Possessive: a part stops only where the next
#: separator must stand.)
_LITERAL_OTHER = (
    r"(?P<url>\b(?:https?|ftp|ssh|git)://[^\s`)]+)"
    r"|(?P<tz>\b(?:UTC|GMT)\s*[+-]\s*\d{1,2}(?::?\d{2})?)"
    r"|(?P<path>(?<![\w@])(?:\.{1,2}/)?[\w.-]{1,255}+(?:/[\w.-]{1,255}+)+/?|(?<![\w.])\.[A-Za-z0-9][\w.-]*"
    r"|\b[\w-]{1,255}+(?:\.[\w-]{1,255}+){0,16}\.(?:" + "|".join(_CODE_EXTENSIONS) + r")\b)"
    r"|(?P<env>\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b)"
    r"|(?P<time>(?<![\w.:])\d{1,2}:\d{2}(?::\d{2})?(?![\w:]))"
    r"|(?P<number>(?<![\w.])(?:[<>]=?|[=!]=|~|\^)?\s?v?[-+]?\d+(?:[.,]\d+)*"
    r"(?:\s?(?i:/\s?(?:min|s|sec|h|hour|day|req)|ms|milliseconds?|secs?|seconds?|mins?|minutes?|hrs?|hours?|days?"
    r"|weeks?|percent|kib|mib|gib|kb|mb|gb|tb|px|rem|em|x|k|s|h|d)\b|%)?(?![\w]|\.\d))"
    r"|(?P<ident>\b[a-z][a-z0-9]*[A-Z]\w*\b|\b[A-Za-z]\w*_\w+\b|\b[A-Za-z]\w{0,254}+(?:-\w{1,255}+){0,16}-v?\d+\b"
    r"|\b[a-z][a-z0-9]*-(?:svc|service|api|worker|job|queue|app|db|server|client|bot|cli|gateway|bucket)\b"
    r"|\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(\))?)"
    r"|(?P<op>(?<!\S)(?:\?\?|\|\||&&|===|!==|==|!=|>=|<=|=>|->)(?!\S))"
)
_LITERAL = re.compile(_LITERAL_CODE + "|" + _LITERAL_OTHER)
#: :data:`_LITERAL` for scanning a text: the same matches, found ~5x faster. Python's engine tries every
#: alternative at every position; this pattern tries the literals other than code only where one can
#: start. None starts inside a word (each begins with ``\b``, a look-behind refusing a word character, or
#: a character that is not one; a match ``\b`` allows at a ``-`` after a word also matches from that
#: word's start, which comes first), nor at a plain word (lower-case letters, or one capital and
#: lower-case letters) followed by a space, the end, a closing mark or a sentence's full stop: each
#: alternative starting with a letter needs a capital after a lower-case letter, two capitals (``UTC``,
#: an environment name) or a ``_ - . / :`` after the letters. A code span may start anywhere: after the
#: code spans are masked, a backtick left alone after a word can still pair with a later one.
_LITERAL_SCAN = re.compile(_LITERAL_CODE + r"|(?<!\w)(?!(?:[a-z]+|[A-Z][a-z]*)(?:[\s,;!?)\]}\"'(]|\.(?:\s|\Z)|\Z))(?:"
                           + _LITERAL_OTHER + ")")
#: A necessary condition for any match of :data:`_LITERAL` (each of its alternatives needs one of
#: these: a backtick, ``://``, a path's ``/``, ``_``, an operator's character, a digit, a dot before a
#: name or an extension, a lower-case letter before an upper-case one): a text with none skips it.
_MAY_HOLD_LITERAL = re.compile(r"[`:/_?|&=\-]|\d|\.[A-Za-z0-9_]|[a-z][A-Z]")
_CODE_SPAN = re.compile(r"(?P<code>`[^`]+`)")
_WORD = re.compile(r"[A-Za-z]+(?:'[a-z]+)?|\x00[\ue000-\uf8ff]\x00|\x02\x03?[A-Za-z]+\x02|[=:]")
_BOUNDARY = re.compile(r"[,;!?()\[\]{}—–]|\.(?:\s|$)|\s-\s")
#: Emphasis, a heading's marks, a list item's bullet (with the blank lines before it: at most 255
#: whitespace characters, possessive, read from each line's start), strike-through.
_MARKUP = re.compile(r"(\*\*|__|(?<!\w)[*_](?=\w)|(?<=\w)[*_](?!\w)|^#+\s|^\s{0,255}+(?:[-*+]|\d+[.)])\s+|~~)", re.M)
#: A necessary condition for any match of :data:`_MARKUP` (one of its characters, or a digit before a
#: list number's ``.`` or ``)``): a text with none skips it.
_MAY_HOLD_MARKUP = re.compile(r"[*_#~+\-]|\d[.)]")
_ANTONYM_STEMS = {frozenset((_stem(a), _stem(b))) for a, b in _ANTONYMS}


class Token(NamedTuple):
    text: str  # canonical: a stem, or a literal as written (numbers canonicalised)
    literal: str | None  # the literal kind (code, path, number...), None for a word
    subject: bool  # before the clause's predicate
    after: str  # the word written just before it (for value markers)
    shown: str = ""  # as written
    code: str = ""  # a word written as code (`stage`): its exact form, which must match another code word's


@dataclass(frozen=True)
class Statement:
    """A text reduced to what must match for two texts to state the same fact."""

    text: str
    clauses: tuple[tuple[Token, ...], ...]
    negated: bool
    key: str = field(compare=False)  # clauses in a canonical order: clause order never counts
    flat: str = field(compare=False, default="")  # the words in their written order: punctuation never counts

    @property
    def code_words(self) -> dict[str, list[str]]:
        """The words written as code, by stem: each stem's exact forms."""
        found: dict[str, list[str]] = {}
        for token in self.tokens:
            if token.code:
                found.setdefault(token.text, []).append(token.code)
        return {stem: sorted(forms) for stem, forms in found.items()}

    @property
    def tokens(self) -> list[Token]:
        return [t for clause in self.clauses for t in clause]

    @property
    def literals(self) -> Counter[str]:
        return Counter(t.text for t in self.tokens if t.literal)


@dataclass(frozen=True)
class Comparison:
    verdict: Verdict
    reason: str
    old: str | None = None  # the differing values, for a conflict
    new: str | None = None


def _canonical_literal(kind: str, raw: str) -> str:
    if kind == "code":
        return "`" + " ".join(raw.strip("`").split()) + "`"
    if kind == "number":
        compact = raw.replace(" ", "").lower()
        match = re.match(r"^([<>=!~^]*)(v?[-+]?[\d.,]+)(.*)$", compact)
        if not match:
            return compact
        op, number, unit = match.groups()
        number = number.lstrip("v")
        unit = unit.lstrip("/")
        per = "/" if "/" in compact[len(op) + len(number):] else ""
        unit = _UNITS.get(unit.lower(), unit.lower())
        return f"{op}{number.replace(',', '')}{per}{unit}"
    if kind == "tz":
        return raw.replace(" ", "").upper()
    if kind in ("path", "url"):
        return raw.rstrip("/").removeprefix("./")
    if kind == "ident":
        return raw.removesuffix("()")
    return raw


#: One word or literal of a clause as :func:`_lex` reads it: (text, literal kind, previous word, as
#: written, exact form of a code word). The kind ``"\x01"`` marks where the predicate starts (no token).
_Item = tuple[str, str | None, str, str, str]


@lru_cache(maxsize=65536)
def parse(text: str) -> Statement:
    """Reduce a memory's text to a :class:`Statement` (cached: the same text is parsed once)."""
    groups, negated, guard = _lex(text)
    clauses = [_with_roles(group) for group in groups]
    key, flat = _keys([[t.text for t in clause] for clause in clauses], negated, guard)
    return Statement(text, tuple(clauses), negated, key, flat)


def _keys(clauses: list[list[str]], negated: bool, guard: str) -> tuple[str, str]:
    """A statement's key (clauses in a canonical order) and flat key (its words in their written
    order), from its clauses' token texts."""
    mark = "!" if negated else ""
    key = mark + " | ".join(sorted(" ".join(clause) for clause in clauses)) + guard
    flat = mark + " ".join(text for clause in clauses for text in clause) + guard
    return key, flat


def _lex(text: str) -> tuple[list[list[_Item]], bool, str]:
    """What :func:`parse` reads in a text: its clauses (each a non-empty list of items), whether it is
    negated, and its guard (the digit runs it writes)."""
    clean = unicodedata.normalize("NFKC", text)
    literals: list[tuple[str, str]] = []

    def stash(match: re.Match[str]) -> str:
        kind = match.lastgroup or "code"
        raw = match.group(0)
        if kind == "code" and re.fullmatch(r"`[A-Za-z]+`", raw):
            # `pnpm`, `Docker`: the word itself, marked up. It equals the plain word, but two code words
            # must match as written (`stage` is not `staging`): see :func:`compatible`.
            return f" \x02{raw.strip('`')}\x02 "
        if kind == "code" and re.fullmatch(r"`[A-Za-z]+(?: [A-Za-z]+)+`", raw):
            # `cargo insta review`: words written as code, each matched as written (see above)
            return " " + " ".join(f"\x02\x03{word}\x02" for word in raw.strip("`").split()) + " "
        if kind == "code":
            inner = _LITERAL.fullmatch(raw.strip("`").strip())
            if inner and inner.lastgroup not in (None, "code", "op"):
                kind, raw = inner.lastgroup, inner.group(0)  # `packages/ui` is the path packages/ui
        literals.append((kind, _canonical_literal(kind, raw)))
        return f" \x00{chr(0xE000 + len(literals) - 1)}\x00 "  # no digit, no word character: nothing re-reads it

    masked = _CODE_SPAN.sub(stash, clean)  # code first: Markdown inside a code span is code
    if _MAY_HOLD_MARKUP.search(masked):
        masked = _MARKUP.sub(" ", masked)
    if _MAY_HOLD_LITERAL.search(masked):
        masked = _LITERAL_SCAN.sub(stash, masked)
    negated = False
    clauses: list[list[_Item]] = []
    for sentence in _BOUNDARY.split(masked):
        words = _WORD.findall(sentence)
        current: list[_Item] = []
        previous = ""
        groups: list[list[_Item]] = [current]
        marked: set[int] = set()  # clauses whose predicate start is marked
        for raw in words:
            low = raw.lower()
            if low not in _SPECIAL_WORDS and raw[0] not in "\x00\x02" and not low.endswith("n't"):
                current.append((_stem(low), None, previous, raw, ""))  # a plain word: the last case below
                previous = low
                continue
            if raw.startswith("\x00"):
                kind, value = literals[ord(raw[1]) - 0xE000]
                current.append((value, kind, previous, value, ""))
                previous = value
                continue
            if raw.startswith("\x02"):
                # the exact form, marked "\x03" when the word is part of a command (`bundle install`)
                code = raw.strip("\x02")
                word = code.lstrip("\x03")
                current.append((_stem(word.lower()), None, previous, word, code))
                previous = word.lower()
                continue
            if low in NEGATIONS or low.endswith("n't"):
                negated = not negated if low != "nor" else negated
                previous = low
                continue
            if low in _NUMBER_WORDS and low not in ("one",) or (low == "one" and _counts_something(words, raw)):
                current.append((_NUMBER_WORDS[low], "number", previous, raw, ""))
                previous = low
                continue
            if low in CLAUSE_WORDS:
                current = [(low, None, previous, raw, "")]
                groups.append(current)
                previous = low
                continue
            if low in ("on", "off") and previous in _COPULAS:
                current.append((low, None, previous, raw, ""))  # "the flag is on": a value, not a preposition
                previous = low
                continue
            if low in FUNCTION_WORDS or low in ("=", ":"):
                if low in _PREDICATE_FUNCTION_WORDS and id(current) not in marked:
                    current.append(("", "\x01", previous, "", ""))  # where the predicate starts
                    marked.add(id(current))
                previous = low
                continue
            current.append((_stem(low), None, previous, raw, ""))
            previous = low
        clauses.extend(group for group in groups if group)
    # A guard that does not depend on the tokenizer above: every digit run, with the sign or operator
    # written before it, must match too ("100." is not "120."; "^18" is not "~18").
    digits = sorted(_RAW_NUMBER.findall(text))
    guard = " #" + " ".join(digits) if digits else ""
    return clauses, negated, guard


#: A digit run with the signs written before it. Its signs are read from where a run of them starts, and
#: possessively (the digit must follow them all): a run of signs without a digit is read once.
_RAW_NUMBER = re.compile(r"(?<![<>=!~^+\-])[<>=!~^+\-]*+\d+(?:[.,:]\d+)*")


def _counts_something(words: list[str], raw: str) -> bool:
    """"one" as a number ("one approval") rather than a pronoun ("the one that...")."""
    i = words.index(raw)
    nxt = words[i + 1].lower() if i + 1 < len(words) else ""
    return bool(nxt) and nxt not in FUNCTION_WORDS and nxt not in CLAUSE_WORDS and not nxt.startswith("\x00")


def _with_roles(group: list[_Item]) -> tuple[Token, ...]:
    """Mark each token of a clause as subject (before its predicate) or not. An imperative (the clause
    opens with a verb) has no subject, unless a predicate function word follows ("Read timeout is 5s":
    "read" names the subject there)."""
    first_predicate = None
    for i, (text, kind, _, _, _) in enumerate(group):
        if kind == "\x01" or (kind is None and (text in _PREDICATE_STEMS or text in CLAUSE_WORDS)):
            first_predicate = i
            break
    if first_predicate == 0 and group[0][1] is None and group[0][0] not in CLAUSE_WORDS:
        marker = next((i for i, item in enumerate(group) if item[1] == "\x01"), None)
        if marker is not None:
            first_predicate = marker
    if first_predicate is None:
        first_predicate = len(group)
    return tuple(Token(text, kind, i < first_predicate, after, shown, code)
                 for i, (text, kind, after, shown, code) in enumerate(group) if kind != "\x01")


_PREDICATE_STEMS = frozenset(_stem(w) for w in _PREDICATE_WORDS)
_PREFERENCE_STEMS = frozenset(_stem(w) for w in _PREFERENCE_VERBS)
_REQUIREMENT_STEMS = frozenset(_stem(w) for w in "require need support minimum maximum default use target pin"
                               " recommend expect version".split())


def same_fact(a: str, b: str) -> bool:
    return compare(a, b).verdict == "same"


def compatible(a: str, b: str) -> bool:
    """Whether the words both texts write as code match exactly (`stage` is not `staging`, though both
    stem alike); a word written as code on one side only is the plain word."""
    ca, cb = _summary(a)[3], _summary(b)[3]
    if not ca or not cb:
        return True
    da, db = dict(ca), dict(cb)
    return all(da[stem] == db[stem] for stem in da.keys() & db.keys())


def compare(a: str, b: str) -> Comparison:
    """Whether two texts state the same fact, conflict (everything but one value or the polarity
    matches), or are different facts. Symmetric in its verdict; ``old``/``new`` follow ``a``/``b``."""
    verdict = next((v for m in _memories if (v := m.verdict(a, b)) is not None), None) or _compare(a, b)
    for memory in _memories:
        memory.learn_verdict(a, b, verdict)
    return verdict


def compare_all(pairs: list[tuple[str, str]]) -> list[Comparison]:
    """:func:`compare` of each pair, in order; the verdicts no memory holds are computed over worker
    processes when there are many (:func:`.workers.fork_map`), then learnt here, as :func:`compare` does."""
    memories = list(_memories)
    held: list[tuple[Comparison | None, Memory | None]] = []  # the verdict, and the memory that gave it
    for a, b in pairs:
        for memory in memories:
            found = memory.verdict(a, b)
            if found is not None:
                held.append((found, memory))
                break
        else:
            held.append((None, None))
    computed = iter(fork_map(lambda pair: _compare(*pair), [pair for pair, (v, _) in zip(pairs, held, strict=True)
                                                             if v is None], min_items=_PARALLEL_PAIRS))
    out: list[Comparison] = []
    for (a, b), (found, source) in zip(pairs, held, strict=True):
        verdict = found if found is not None else next(computed)
        for memory in memories:
            if memory is not source:  # a memory knows the verdicts it gave
                memory.learn_verdict(a, b, verdict)
        out.append(verdict)
    return out


#: From this many pairs to compare, worker processes share them (a pair costs ~10 times a summary).
_PARALLEL_PAIRS = 500


def _compare(a: str, b: str) -> Comparison:
    sa, sb = parse(a), parse(b)
    if sa.key == sb.key or sa.flat == sb.flat:
        if compatible(a, b):
            return Comparison("same", "the same words and literals")
        ca, cb = sa.code_words, sb.code_words
        stem = next(s for s in sorted(ca.keys() & cb.keys()) if ca[s] != cb[s])
        old, new = "/".join(ca[stem]), "/".join(cb[stem])
        if any(t.subject for t in sa.tokens if t.code and t.text == stem):
            return Comparison("different", f"about another subject (`{old}` / `{new}`)")
        return Comparison("conflict", f"another value (`{old}` / `{new}`)", old, new)
    flat_a, flat_b = _ordered(sa), _ordered(sb)
    texts_a, texts_b = [t.text for t in flat_a], [t.text for t in flat_b]
    if sa.negated != sb.negated:
        if sorted(texts_a) == sorted(texts_b):
            return Comparison("conflict", "the same statement, one negated", "not" if sa.negated else "",
                              "not" if sb.negated else "")
        return _in_other_words(a, b) or Comparison("different", "other words, and one is negated")
    changes = [op for op in SequenceMatcher(None, texts_a, texts_b, autojunk=False).get_opcodes() if op[0] != "equal"]
    if len(changes) == 1 and changes[0][0] == "replace" and changes[0][2] - changes[0][1] == 1 \
            and changes[0][4] - changes[0][3] == 1:
        ta, tb = flat_a[changes[0][1]], flat_b[changes[0][3]]
        return _one_difference(ta, tb, flat_a)
    if Counter(texts_a) == Counter(texts_b):
        if _states_preference(flat_a):
            return Comparison("conflict", "the same words with the preference reversed")
        return Comparison("different", "the same words in other roles (a reversal is another fact)")
    return _in_other_words(a, b) or Comparison("different", "other words or literals")


def _in_other_words(older: str, newer: str) -> Comparison | None:
    """An update written as another sentence (see :mod:`.updates`)."""
    from .updates import disagreement

    found = disagreement(older, newer)
    return Comparison("conflict", found.reason, found.old, found.new) if found else None


@lru_cache(maxsize=1)
def antonyms() -> frozenset[tuple[str, str]]:
    """Pairs of opposite words, as stems, in both orders."""
    return frozenset((a, b) for pair in _ANTONYM_STEMS for a in pair for b in pair if a != b)


def _states_preference(tokens: list[Token]) -> bool:
    if any(t.text in PREFERENCE_MARKERS or t.after in PREFERENCE_MARKERS for t in tokens):
        return True
    weak = any(t.after in _WEAK_PREFERENCE_MARKERS for t in tokens)
    return weak and any(t.text in _PREFERENCE_STEMS or t.after in _PREFERENCE_VERBS for t in tokens)


def _ordered(statement: Statement) -> list[Token]:
    """Tokens with clauses in a canonical order, so that clause order alone never counts as a change."""
    clauses = sorted(statement.clauses, key=lambda c: " ".join(t.text for t in c))
    return [t for clause in clauses for t in clause]


_DIGITS = re.compile(r"[-+]?\d+(?:\.\d+)*")


def _one_difference(ta: Token, tb: Token, context: list[Token]) -> Comparison:
    pair = f"{_show(ta)} / {_show(tb)}"
    conflict = Comparison("conflict", f"another value ({pair})", _show(ta), _show(tb))
    numbers = ta.literal in ("number", "tz", "time") and tb.literal in ("number", "tz", "time")
    if _shared_tool_role(ta, tb):
        return Comparison("conflict", f"another tool for the same job ({pair})", _show(ta), _show(tb))
    if ta.code.startswith("\x03") or tb.code.startswith("\x03"):
        return Comparison("different", f"another command ({pair})")  # `bundle install` / `yarn install`
    if ta.subject or tb.subject:
        # A number in the subject is a value when it is a version ("Python 3.11 is required") or the
        # statement is about what is required or used ("Node 18 is the minimum"); otherwise it names
        # one of several things ("Node 3 in the cluster has a small disk", "HTTP 429 responses ...").
        version = any("." in t.text or t.text[:1] in "^~<>=" for t in (ta, tb))
        about_use = any(t.text in _REQUIREMENT_STEMS for t in context if not t.subject)
        if numbers and ta.after not in IDENTIFIER_NOUNS and (version or about_use):
            return conflict
        return Comparison("different", f"about another subject ({pair})")
    kind_a, kind_b = _literal_kind(ta), _literal_kind(tb)
    if kind_a in _NAMES or kind_b in _NAMES:
        if ta.after in IDENTIFIER_NOUNS or tb.after in IDENTIFIER_NOUNS:
            return Comparison("different", f"another item ({pair})")  # "pushed tag `2.14.22`"
        if ta.after in _COPULA_VALUE and tb.after in _COPULA_VALUE and kind_a == kind_b:
            return conflict  # "The session cookie is named `acme_sid`" / "... `__Host-acme_sid`"
        if kind_a == kind_b == "code" and _LETTERS.sub("", ta.text) == _LETTERS.sub("", tb.text):
            return conflict  # `z-index: -1` / `z-index: 1`; `^2.4.0` / `~2.4.0`; `["-created_at"]`
        parts_a, parts_b = _name_parts(ta.text), _name_parts(tb.text)
        siblings = kind_a == "path" and bool(parts_a - parts_b and parts_b - parts_a)
        if kind_a == kind_b and parts_a & parts_b and not siblings:
            # The same kind of name in the predicate, one the other plus or minus a part: where one
            # setting is read from or lives ("reads the URL from `REDIS_URL`" / "`CACHE_REDIS_URL`";
            # "aliases are in `tsconfig.json`" / "`tsconfig.base.json`"). Two siblings
            # (`src/api/config.ts` / `src/web/config.ts`) are two things.
            if kind_a == "env" or (kind_a == "path" and ta.after in _PLACE_WORDS):
                return conflict
        if kind_a == kind_b == "code" and ta.after in _MEANS_WORDS and tb.after in _MEANS_WORDS:
            return conflict  # "Run the Go tests with `go test ./...`" / "... with `gotestsum -- ./...`"
        return Comparison("different", f"names another thing ({pair})")
    if ta.literal or tb.literal:
        if numbers and ta.after in IDENTIFIER_NOUNS and tb.after in IDENTIFIER_NOUNS and ta.after not in ("port",):
            return Comparison("different", f"another item ({pair})")
        return conflict
    if frozenset((ta.text, tb.text)) in _ANTONYM_STEMS:
        return Comparison("conflict", f"the opposite ({pair})", _show(ta), _show(tb))
    if (ta.after in VALUE_MARKERS or tb.after in VALUE_MARKERS) and _names_something(ta) and _names_something(tb):
        return Comparison("conflict", f"another choice ({pair})", _show(ta), _show(tb))
    return Comparison("different", f"one other word ({pair})")


_NAMES = ("code", "path", "url", "ident", "env")
#: Words right before the one value a subject has ("the class is `db.t4g.medium`", "named `acme_sid`").
_COPULA_VALUE = frozenset("is are was were = : named called".split())
_LETTERS = re.compile(r"[^A-Za-z]")
#: Words before a place (a file, a folder) where something is defined or kept.
_PLACE_WORDS = frozenset("in from at under into inside within to".split())
#: Words before the means by which something is done.
_MEANS_WORDS = frozenset("with using via by through".split())
_ENV_NAME = re.compile(r"`?[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+`?")
_PATH_NAME = re.compile(r"`?(?:[\w.-]*/[\w./-]*|\.?[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{1,6})`?")


def _literal_kind(token: Token) -> str | None:
    """A literal's kind, a code span classified by what it holds (an env var, a path, code)."""
    if token.literal == "code":
        if _ENV_NAME.fullmatch(token.text):
            return "env"
        if _PATH_NAME.fullmatch(token.text):
            return "path"
    return token.literal


def _name_parts(text: str) -> set[str]:
    """The words a name is made of (``CACHE_REDIS_URL``: cache, redis, url; ``tsconfig.base.json``:
    tsconfig, base), without extensions and single letters."""
    parts = re.split(r"[^A-Za-z0-9]+", text.strip("`").lower())
    return {p for p in parts if len(p) > 1 and p not in _EXTENSIONS}


_EXTENSIONS = frozenset(_CODE_EXTENSIONS) | {"src", "lib"}


def _names_something(token: Token) -> bool:
    """A word that names a thing (a tool, a product, a proper name) rather than describing an action:
    written as code, capitalised inside a sentence, or a known tool. "Tests run with Jest" / "...
    Vitest" name two tools; "the database is wiped" / "... erased" say one thing twice."""
    if token.code or token.literal:
        return True
    shown = token.shown or token.text
    if shown[:1].isupper() and token.after:
        return True
    return bool(roles_of(shown))


def _shared_tool_role(ta: Token, tb: Token) -> bool:
    """Two different tools that do the same job (a command counts as the tool that runs it)."""
    names = []
    for token in ta, tb:
        words = (token.code or token.shown or token.text).strip("`\x03").split()
        names.append(words[0].lower() if words else "")
    return names[0] != names[1] and bool(roles_of(names[0]) & roles_of(names[1]))


def _show(token: Token) -> str:
    return token.shown or token.text


#: What grouping needs of a text: its key, its size, its flat key, its words written as code.
Summary = tuple[str, int, str, tuple[tuple[str, tuple[str, ...]], ...]]



class Memory(Protocol):
    """Where summaries and verdicts of earlier runs are found, and new ones are kept (see
    :mod:`.remembered`). :func:`compare_all` does not tell a memory a verdict it gave."""

    def summary(self, text: str) -> Summary | None: ...
    def verdict(self, a: str, b: str) -> Comparison | None: ...
    def learn_summary(self, text: str, summary: Summary) -> None: ...
    def learn_verdict(self, a: str, b: str, verdict: Comparison) -> None: ...


_memories: list[Memory] = []


def attach(memory: Memory) -> None:
    _memories.append(memory)


def detach(memory: Memory) -> None:
    _memories[:] = [m for m in _memories if m is not memory]


class _Prepared:
    """Summaries computed ahead of their use (:func:`prepared`): a memory that learns nothing."""

    def __init__(self, found: dict[str, Summary]) -> None:
        self.found = found

    def summary(self, text: str) -> Summary | None:
        return self.found.get(text)

    def verdict(self, a: str, b: str) -> Comparison | None:
        return None

    def learn_summary(self, text: str, summary: Summary) -> None:
        return None

    def learn_verdict(self, a: str, b: str, verdict: Comparison) -> None:
        return None


@contextmanager
def prepared(texts: Iterable[str]) -> Iterator[None]:
    """While the block runs, the summaries of ``texts`` are at hand: those no memory holds are computed
    at once, over worker processes for a large store (:func:`.workers.fork_map`), and the others read
    once. Asked first, they are what :func:`_summary` would compute or find, so nothing else changes."""
    found: dict[str, Summary] = {}
    wanted: list[str] = []
    memories = list(_memories)
    for text in dict.fromkeys(texts):
        for memory in memories:
            summary = memory.summary(text)
            if summary is not None:
                found[text] = summary
                break
        else:
            wanted.append(text)
    found.update(zip(wanted, fork_map(_summarize, wanted), strict=True))
    memory = _Prepared(found)
    _memories.insert(0, memory)
    try:
        yield
    finally:
        detach(memory)


@lru_cache(maxsize=1 << 18)
def _summary(text: str) -> Summary:
    """What grouping needs of a text, small enough to keep for every entry of a large store."""
    summary = next((s for m in _memories if (s := m.summary(text)) is not None), None)
    if summary is None:
        summary = _summarize(text)
    for memory in _memories:
        memory.learn_summary(text, summary)
    return summary


def _summarize(text: str) -> Summary:
    """The summary of :func:`parse`'s statement (its key, size, flat key and code words), computed from
    what :func:`_lex` reads without building the tokens: grouping needs no roles."""
    groups, negated, guard = _lex(text)
    clauses = [[item for item in group if item[1] != "\x01"] for group in groups]  # as _with_roles keeps them
    key, flat = _keys([[item[0] for item in clause] for clause in clauses], negated, guard)
    forms: dict[str, list[str]] = {}  # as Statement.code_words
    for clause in clauses:
        for item in clause:
            if item[4]:
                forms.setdefault(item[0], []).append(item[4])
    code = tuple((stem, tuple(sorted(found))) for stem, found in sorted(forms.items()))
    return key, sum(len(clause) for clause in clauses), flat, code


def fact_keys(text: str) -> tuple[str, str]:
    """Both keys of a text: two texts that share either one state the same fact, provided the words
    they write as code match (:func:`compatible`). The first ignores clause order, the second
    punctuation ("Before releasing, bump..." / "Before releasing bump...")."""
    key, _, flat, _ = _summary(text)
    return key, flat


def fact_key(text: str) -> str:
    """A key two texts share exactly when they state the same fact (see :func:`compare`). Keys are
    small and cached on their own, so a large store is parsed once."""
    return _summary(text)[0]


def fact_size(text: str) -> int:
    """How many words and literals carry the text's fact (a longer same-fact text is more complete)."""
    return _summary(text)[1]
