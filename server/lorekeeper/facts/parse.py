# pyright: standard
"""The verifier's reading of a memory: a text reduced to its clauses, each a run of tokens (stems of
the words that carry the fact, and its literals: numbers with units, versions with operators, paths,
code spans, environment variables), with the predicate located and the negation noted
(:func:`parse`). Every judge of "same fact" (:mod:`.verify`, :mod:`.updates`, the semantic and LLM
guards) reads texts through this one parser."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import NamedTuple

import snowballstemmer

_STEMMER = snowballstemmer.stemmer("english")


@cache
def stem(word: str) -> str:
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
#: Function words that say how many: kept, in one spelling each.
_QUANTIFIERS = {"all": "all", "every": "all", "each": "all", "some": "some"}
#: Function words that are also the names of tools ("make sure" / "run make"), and the verbs after which
#: they are the tool.
_TOOL_NAMES = frozenset(("make", "just"))
_TOOL_VERBS = frozenset("run runs running use uses using with via call invoke".split())
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
WEAK_PREFERENCE_MARKERS = frozenset("over than".split())
PREFERENCE_VERBS = frozenset("prefer favor favour choose pick better worse faster slower".split())
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
#: The words :func:`lex` reads otherwise than as a plain word (every case of its loop but the last).
_SPECIAL_WORDS = NEGATIONS | frozenset(_NUMBER_WORDS) | CLAUSE_WORDS | FUNCTION_WORDS | {"on", "off", "=", ":"}
_UNITS = {"ms": "ms", "millisecond": "ms", "milliseconds": "ms", "s": "s", "sec": "s", "secs": "s", "second": "s",
          "seconds": "s", "min": "min", "mins": "min", "minute": "min", "minutes": "min", "h": "h", "hr": "h",
          "hrs": "h", "hour": "h", "hours": "h", "d": "d", "day": "d", "days": "d", "week": "w", "weeks": "w",
          "%": "%", "percent": "%", "kb": "kb", "mb": "mb", "gb": "gb", "tb": "tb", "px": "px", "rem": "rem",
          "em": "em", "x": "x", "k": "k"}
CODE_EXTENSIONS = ("ts tsx js jsx mjs cjs py go rs java kt rb php cs json jsonc yaml yml toml ini cfg md mdx mdc txt sh"
                    " sql prisma css scss html lock env local example sample").split()

_LITERAL_CODE = r"(?P<code>`[^`]+`)"
#: A file name starts with a word character (after "UTC+2", "-.env" is no name; ".env" is one).
#: A path, a file name or a dashed name may be tried from each ``-`` or ``.`` of a run such as ``a-b-c``:
#: each of its parts (a name, a path's segment) is read to at most 255 characters (the longest file name
#: common file systems allow), a file name or a dashed name to at most 16 dots or dashes, so that a start
#: that fails costs a bounded read, not the rest of the run. (Possessive: a part stops only where the next
#: separator must stand.)
LITERAL_OTHER = (
    r"(?P<url>\b(?:https?|ftp|ssh|git)://[^\s`)]+)"
    r"|(?P<tz>\b(?:UTC|GMT)\s*[+-]\s*\d{1,2}(?::?\d{2})?)"
    r"|(?P<path>(?<![\w@])(?:\.{1,2}/)?[\w.-]{1,255}+(?:/[\w.-]{1,255}+)+/?|(?<![\w.])\.[A-Za-z0-9][\w.-]*"
    r"|\b(?=\w)[\w-]{1,255}+(?:\.[\w-]{1,255}+){0,16}\.(?:" + "|".join(CODE_EXTENSIONS) + r")\b)"
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
LITERAL = re.compile(_LITERAL_CODE + "|" + LITERAL_OTHER)
#: :data:`LITERAL` for scanning a text: the same matches, found ~5x faster. Python's engine tries every
#: alternative at every position; this pattern tries the literals other than code only where one can
#: start. None starts inside a word (each begins with ``\b``, a look-behind refusing a word character, or
#: a character that is not one; a match ``\b`` allows at a ``-`` after a word also matches from that
#: word's start, which comes first), nor at a plain word (lower-case letters, or one capital and
#: lower-case letters) followed by a space, the end, a closing mark or a sentence's full stop: each
#: alternative starting with a letter needs a capital after a lower-case letter, two capitals (``UTC``,
#: an environment name) or a ``_ - . / :`` after the letters. A code span may start anywhere: after the
#: code spans are masked, a backtick left alone after a word can still pair with a later one.
LITERAL_SCAN = re.compile(_LITERAL_CODE + r"|(?<!\w)(?!(?:[a-z]+|[A-Z][a-z]*)(?:[\s,;!?)\]}\"'(]|\.(?:\s|\Z)|\Z))(?:"
                           + LITERAL_OTHER + ")")
#: A necessary condition for any match of :data:`LITERAL` (each of its alternatives needs one of
#: these: a backtick, ``://``, a path's ``/``, ``_``, an operator's character, a digit, a dot before a
#: name or an extension, a lower-case letter before an upper-case one): a text with none skips it.
MAY_HOLD_LITERAL = re.compile(r"[`:/_?|&=\-]|\d|\.[A-Za-z0-9_]|[a-z][A-Z]")
_CODE_SPAN = re.compile(r"(?P<code>`[^`]+`)")
#: A fenced block, its marks on lines of their own; and a fence's marks left alone (a block not closed).
_FENCED = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})[^\n`]*\n(?P<body>.*?)^[ \t]*(?P=fence)[ \t]*$", re.M | re.S)
_FENCE = re.compile(r"(?:`{3,}|~{3,})[\w+-]*")
#: A word: Latin letters (with an apostrophe's ending, in capitals too: "DON'T"); a literal or code word
#: :func:`lex` masked; a run of letters of another script (Chinese, Japanese, Cyrillic…), which the parser
#: does not read but which must not vanish: "**實施日期**: 2024-01-15" and "**完成日期**: 2024-01-15" name two
#: dates, not one fact twice.
_WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?|\x00[\ue000-\uf8ff]\x00|\x02\x03?[A-Za-z]+\x02|[=:]"
                   r"|(?:(?![A-Za-z\u00c0-\u024f])[^\W\d_])+")
_BOUNDARY = re.compile(r"[,;!?()\[\]{}—–]|\.(?:\s|$)|\s-\s")
#: Emphasis, a heading's marks, a list item's bullet (with the blank lines before it: at most 255
#: whitespace characters, possessive, read from each line's start), strike-through.
MARKUP = re.compile(r"(\*\*|__|(?<!\w)[*_](?=\w)|(?<=\w)[*_](?!\w)|^#+\s|^\s{0,255}+(?:[-*+]|\d+[.)])\s+|~~)", re.M)
#: A necessary condition for any match of :data:`MARKUP` (one of its characters, or a digit before a
#: list number's ``.`` or ``)``): a text with none skips it.
MAY_HOLD_MARKUP = re.compile(r"[*_#~+\-]|\d[.)]")
ANTONYM_STEMS = {frozenset((stem(a), stem(b))) for a, b in _ANTONYMS}


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


#: One word or literal of a clause as :func:`lex` reads it: (text, literal kind, previous word, as
#: written, exact form of a code word). The kind ``"\x01"`` marks where the predicate starts (no token).
_Item = tuple[str, str | None, str, str, str]


@lru_cache(maxsize=65536)
def parse(text: str) -> Statement:
    """Reduce a memory's text to a :class:`Statement` (cached: the same text is parsed once)."""
    groups, negated, guard = lex(text)
    clauses = [_with_roles(group) for group in groups]
    key, flat = keys_of([[t.text for t in clause] for clause in clauses], negated, guard)
    return Statement(text, tuple(clauses), negated, key, flat)


def keys_of(clauses: list[list[str]], negated: bool, guard: str) -> tuple[str, str]:
    """A statement's key (clauses in a canonical order) and flat key (its words in their written
    order), from its clauses' token texts."""
    mark = "!" if negated else ""
    key = mark + " | ".join(sorted(" ".join(clause) for clause in clauses)) + guard
    flat = mark + " ".join(text for clause in clauses for text in clause) + guard
    return key, flat


def lex(text: str) -> tuple[list[list[_Item]], bool, str]:
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
            inner = LITERAL.fullmatch(raw.strip("`").strip())
            if inner and inner.lastgroup not in (None, "code", "op"):
                kind, raw = inner.lastgroup, inner.group(0)  # `packages/ui` is the path packages/ui
        literals.append((kind, _canonical_literal(kind, raw)))
        return f" \x00{chr(0xE000 + len(literals) - 1)}\x00 "  # no digit, no word character: nothing re-reads it

    if ("```" in clean or "~~~" in clean) and not _FENCE.match(clean.lstrip()):
        # a fenced block in prose (a list item: "**Milestone Checkpoint:**" then the checklist) is one piece
        # of code; a fence's marks delimit it and pair with no other backtick. (A code block read alone is
        # read as it always was: its commands are compared in :mod:`.updates`.)
        def block(match: re.Match[str]) -> str:
            literals.append(("code", _canonical_literal("code", match.group("body"))))
            return f" \x00{chr(0xE000 + len(literals) - 1)}\x00 "

        clean = _FENCE.sub(" ", _FENCED.sub(block, clean))
    masked = _CODE_SPAN.sub(stash, clean)  # code first: Markdown inside a code span is code
    if MAY_HOLD_MARKUP.search(masked):
        masked = MARKUP.sub(" ", masked)
    if MAY_HOLD_LITERAL.search(masked):
        masked = LITERAL_SCAN.sub(stash, masked)
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
                current.append((stem(low), None, previous, raw, ""))  # a plain word: the last case below
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
                current.append((stem(word.lower()), None, previous, word, code))
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
            if low in _QUANTIFIERS:  # "All GPU nodes" is not "Some GPU nodes" ("each" and "every" are "all")
                current.append((_QUANTIFIERS[low], None, previous, raw, ""))
                previous = low
                continue
            if low in _TOOL_NAMES and previous in _TOOL_VERBS:  # "run make setup" is not "run just setup"
                current.append((low, None, previous, raw, ""))
                previous = low
                continue
            if low in FUNCTION_WORDS or low in ("=", ":"):
                if low in _PREDICATE_FUNCTION_WORDS and id(current) not in marked:
                    current.append(("", "\x01", previous, "", ""))  # where the predicate starts
                    marked.add(id(current))
                previous = low
                continue
            current.append((stem(low), None, previous, raw, ""))
            previous = low
        clauses.extend(group for group in groups if group)
    # A guard that does not depend on the tokenizer above: every digit run, with the sign or operator
    # written before it, must match too ("100." is not "120."; "^18" is not "~18").
    digits = sorted(RAW_NUMBER.findall(text))
    guard = " #" + " ".join(digits) if digits else ""
    return clauses, negated, guard


#: A digit run with the signs written before it. Its signs are read from where a run of them starts, and
#: possessively (the digit must follow them all): a run of signs without a digit is read once.
RAW_NUMBER = re.compile(r"(?<![<>=!~^+\-])[<>=!~^+\-]*+\d+(?:[.,:]\d+)*")


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


_PREDICATE_STEMS = frozenset(stem(w) for w in _PREDICATE_WORDS)
PREFERENCE_STEMS = frozenset(stem(w) for w in PREFERENCE_VERBS)
REQUIREMENT_STEMS = frozenset(stem(w) for w in "require need support minimum maximum default use target pin"
                               " recommend expect version".split())


@lru_cache(maxsize=1)
def antonyms() -> frozenset[tuple[str, str]]:
    """Pairs of opposite words, as stems, in both orders."""
    return frozenset((a, b) for pair in ANTONYM_STEMS for a in pair for b in pair if a != b)


ENV_NAME = re.compile(r"`?[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+`?")
PATH_NAME = re.compile(r"`?(?:[\w.-]*/[\w./-]*|\.?[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{1,6})`?")


def literal_kind(token: Token) -> str | None:
    """A literal's kind, a code span classified by what it holds (an env var, a path, code)."""
    if token.literal == "code":
        if ENV_NAME.fullmatch(token.text):
            return "env"
        if PATH_NAME.fullmatch(token.text):
            return "path"
    return token.literal
