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
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from functools import lru_cache
from typing import Literal, NamedTuple

import snowballstemmer

Verdict = Literal["same", "conflict", "different"]

_STEMMER = snowballstemmer.stemmer("english")


@lru_cache(maxsize=None)
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
PREFERENCE_MARKERS = frozenset("instead rather over than from".split())
_ANTONYMS = [("enabled", "disabled"), ("enable", "disable"), ("on", "off"), ("true", "false"), ("yes", "no"),
             ("max", "min"), ("maximum", "minimum"), ("allow", "deny"), ("allowed", "denied"), ("allow", "block"),
             ("allowlist", "blocklist"), ("whitelist", "blacklist"), ("before", "after"), ("sync", "async"),
             ("synchronous", "asynchronous"), ("public", "private"), ("read", "write"), ("readonly", "writable"),
             ("upper", "lower"), ("uppercase", "lowercase"), ("first", "last"), ("include", "exclude"),
             ("required", "optional"), ("strict", "loose"), ("local", "remote"), ("inbound", "outbound"),
             ("ascending", "descending"), ("increase", "decrease"), ("start", "stop"), ("open", "close"),
             ("lazy", "eager"), ("inner", "outer"), ("above", "below"), ("more", "less"), ("higher", "lower"),
             ("add", "remove"), ("accept", "reject"), ("mutable", "immutable"), ("blocking", "nonblocking"),
             ("leading", "trailing"), ("tabs", "spaces"), ("single", "double"), ("light", "dark")]
#: Function words that end a clause's subject ("X is ...", "X must ...", "key: value").
_PREDICATE_FUNCTION_WORDS = frozenset("is are was were be been am must should can could will would shall may might"
                                      " do does did have has had = :".split())
#: Nouns a number names rather than measures ("port 3000 must be free", "step 3 runs migrations").
IDENTIFIER_NOUNS = frozenset("port step stage phase ticket issue pr pull item task rule migration line page chapter"
                             " section room attempt case test job level tier id number no # v".split())
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
_UNITS = {"ms": "ms", "millisecond": "ms", "milliseconds": "ms", "s": "s", "sec": "s", "secs": "s", "second": "s",
          "seconds": "s", "min": "min", "mins": "min", "minute": "min", "minutes": "min", "h": "h", "hr": "h",
          "hrs": "h", "hour": "h", "hours": "h", "d": "d", "day": "d", "days": "d", "week": "w", "weeks": "w",
          "%": "%", "percent": "%", "kb": "kb", "mb": "mb", "gb": "gb", "tb": "tb", "px": "px", "rem": "rem",
          "em": "em", "x": "x", "k": "k"}
_CODE_EXTENSIONS = ("ts tsx js jsx mjs cjs py go rs java kt rb php cs json jsonc yaml yml toml ini cfg md mdx mdc txt sh"
                    " sql prisma css scss html lock env local example sample").split()

_LITERAL = re.compile(
    r"(?P<code>`[^`]+`)"
    r"|(?P<url>\b(?:https?|ftp|ssh|git)://[^\s`)]+)"
    r"|(?P<tz>\b(?:UTC|GMT)\s*[+-]\s*\d{1,2}(?::?\d{2})?)"
    r"|(?P<path>(?<![\w@])(?:\.{1,2}/)?[\w.-]+(?:/[\w.-]+)+/?|(?<![\w.])\.[A-Za-z0-9][\w.-]*"
    r"|\b[\w-]+\.(?:" + "|".join(_CODE_EXTENSIONS) + r")\b)"
    r"|(?P<env>\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b)"
    r"|(?P<number>(?<![\w.])(?:[<>]=?|[=!]=|~|\^)?\s?v?[-+]?\d+(?:[.,]\d+)*"
    r"(?:\s?(?:/\s?(?:min|s|sec|h|hour|day|req)|ms|milliseconds?|secs?|seconds?|mins?|minutes?|hrs?|hours?|days?"
    r"|weeks?|%|percent|kb|mb|gb|tb|px|rem|em|x|k|s|h|d)\b)?(?![\w]|\.\d))"
    r"|(?P<ident>\b[a-z][a-z0-9]*[A-Z]\w*\b|\b[A-Za-z]\w*_\w+\b|\b[A-Za-z][\w]*(?:-[\w]+)*-v?\d+\b"
    r"|\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(\))?)"
    r"|(?P<op>(?<!\S)(?:\?\?|\|\||&&|===|!==|==|!=|>=|<=|=>|->)(?!\S))",
)
_CODE_SPAN = re.compile(r"(?P<code>`[^`]+`)")
_WORD = re.compile(r"[A-Za-z]+(?:'[a-z]+)?|\x00[\ue000-\uf8ff]\x00|[=:]")
_BOUNDARY = re.compile(r"[,;!?()\[\]{}—–]|\.(?:\s|$)|\s-\s")
_MARKUP = re.compile(r"(\*\*|__|(?<!\w)[*_](?=\w)|(?<=\w)[*_](?!\w)|^#+\s|^\s*(?:[-*+]|\d+[.)])\s+|~~)", re.M)
_ANTONYM_STEMS = {frozenset((_stem(a), _stem(b))) for a, b in _ANTONYMS}


class Token(NamedTuple):
    text: str  # canonical: a stem, or a literal as written (numbers canonicalised)
    literal: str | None  # the literal kind (code, path, number...), None for a word
    subject: bool  # before the clause's predicate
    after: str  # the word written just before it (for value markers)
    shown: str = ""  # as written


@dataclass(frozen=True)
class Statement:
    """A text reduced to what must match for two texts to state the same fact."""

    text: str
    clauses: tuple[tuple[Token, ...], ...]
    negated: bool
    key: str = field(compare=False)

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
        unit = _UNITS.get(unit, unit)
        return f"{op}{number.replace(',', '')}{per}{unit}"
    if kind == "tz":
        return raw.replace(" ", "").upper()
    if kind in ("path", "url"):
        return raw.rstrip("/").removeprefix("./")
    if kind == "ident":
        return raw.removesuffix("()")
    return raw


@lru_cache(maxsize=65536)
def parse(text: str) -> Statement:
    """Reduce a memory's text to a :class:`Statement` (cached: the same text is parsed once)."""
    clean = unicodedata.normalize("NFKC", text)
    literals: list[tuple[str, str]] = []

    def stash(match: re.Match[str]) -> str:
        kind = match.lastgroup or "code"
        raw = match.group(0)
        if kind == "code" and re.fullmatch(r"`[a-z]+`", raw):
            return f" {raw.strip('`')} "  # `pnpm`, `logger`: the word itself, marked up
        literals.append((kind, _canonical_literal(kind, raw)))
        return f" \x00{chr(0xE000 + len(literals) - 1)}\x00 "  # no digit, no word character: nothing re-reads it

    masked = _CODE_SPAN.sub(stash, clean)  # code first: Markdown inside a code span is code
    masked = _LITERAL.sub(stash, _MARKUP.sub(" ", masked))
    negated = False
    clauses: list[tuple[Token, ...]] = []
    for sentence in _BOUNDARY.split(masked):
        words = [w for w in _WORD.findall(sentence)]
        current: list[tuple[str, str | None, str, str]] = []  # (text, literal kind, previous word, as written)
        previous = ""
        groups: list[list[tuple[str, str | None, str, str]]] = [current]
        marked: set[int] = set()  # clauses whose predicate start is marked
        for raw in words:
            low = raw.lower()
            if raw.startswith("\x00"):
                kind, value = literals[ord(raw[1]) - 0xE000]
                current.append((value, kind, previous, value))
                previous = value
                continue
            if low in NEGATIONS or low.endswith("n't"):
                negated = not negated if low != "nor" else negated
                previous = low
                continue
            if low in _NUMBER_WORDS and low not in ("one",) or (low == "one" and _counts_something(words, raw)):
                current.append((_NUMBER_WORDS[low], "number", previous, raw))
                previous = low
                continue
            if low in CLAUSE_WORDS:
                current = [(low, None, previous, raw)]
                groups.append(current)
                previous = low
                continue
            if low in FUNCTION_WORDS or low in ("=", ":"):
                if low in _PREDICATE_FUNCTION_WORDS and id(current) not in marked:
                    current.append(("", "\x01", previous, ""))  # where the predicate starts
                    marked.add(id(current))
                previous = low
                continue
            current.append((_stem(low), None, previous, raw))
            previous = low
        for group in groups:
            if group:
                clauses.append(_with_roles(group, words))
    key_clauses = sorted(" ".join(t.text for t in clause) for clause in clauses)
    # A guard that does not depend on the tokenizer above: every digit run, with the sign or operator
    # written before it, must match too ("100." is not "120."; "^18" is not "~18").
    digits = sorted(_RAW_NUMBER.findall(text))
    key = ("!" if negated else "") + " | ".join(key_clauses) + (" #" + " ".join(digits) if digits else "")
    return Statement(text, tuple(clauses), negated, key)


_RAW_NUMBER = re.compile(r"[<>=!~^+\-]*\d+(?:[.,:]\d+)*")


def _counts_something(words: list[str], raw: str) -> bool:
    """"one" as a number ("one approval") rather than a pronoun ("the one that...")."""
    i = words.index(raw)
    nxt = words[i + 1].lower() if i + 1 < len(words) else ""
    return bool(nxt) and nxt not in FUNCTION_WORDS and nxt not in CLAUSE_WORDS and not nxt.startswith("\x00")


def _with_roles(group: list[tuple[str, str | None, str, str]], words: list[str]) -> tuple[Token, ...]:
    """Mark each token of a clause as subject (before its predicate) or not. An imperative (the clause
    opens with a verb) has no subject."""
    first_predicate = None
    for i, (text, kind, _, _) in enumerate(group):
        if kind == "\x01" or (kind is None and (text in _PREDICATE_STEMS or text in CLAUSE_WORDS)):
            first_predicate = i
            break
    if first_predicate is None:
        first_predicate = len(group)
    return tuple(Token(text, kind, i < first_predicate, after, shown)
                 for i, (text, kind, after, shown) in enumerate(group) if kind != "\x01")


_PREDICATE_STEMS = frozenset(_stem(w) for w in _PREDICATE_WORDS)


def same_fact(a: str, b: str) -> bool:
    return compare(a, b).verdict == "same"


def compare(a: str, b: str) -> Comparison:
    """Whether two texts state the same fact, conflict (everything but one value or the polarity
    matches), or are different facts. Symmetric in its verdict; ``old``/``new`` follow ``a``/``b``."""
    sa, sb = parse(a), parse(b)
    if sa.key == sb.key:
        return Comparison("same", "the same words and literals")
    flat_a, flat_b = _ordered(sa), _ordered(sb)
    texts_a, texts_b = [t.text for t in flat_a], [t.text for t in flat_b]
    if sa.negated != sb.negated:
        if sorted(texts_a) == sorted(texts_b):
            return Comparison("conflict", "the same statement, one negated", "not" if sa.negated else "",
                              "not" if sb.negated else "")
        return Comparison("different", "other words, and one is negated")
    changes = [op for op in SequenceMatcher(None, texts_a, texts_b, autojunk=False).get_opcodes() if op[0] != "equal"]
    if len(changes) == 1 and changes[0][0] == "replace" and changes[0][2] - changes[0][1] == 1 \
            and changes[0][4] - changes[0][3] == 1:
        ta, tb = flat_a[changes[0][1]], flat_b[changes[0][3]]
        return _one_difference(ta, tb)
    if Counter(texts_a) == Counter(texts_b):
        if any(t.text in PREFERENCE_MARKERS or t.after in PREFERENCE_MARKERS for t in flat_a):
            return Comparison("conflict", "the same words with the preference reversed")
        return Comparison("different", "the same words in other roles (a reversal is another fact)")
    return Comparison("different", "other words or literals")


def _ordered(statement: Statement) -> list[Token]:
    """Tokens with clauses in a canonical order, so that clause order alone never counts as a change."""
    clauses = sorted(statement.clauses, key=lambda c: " ".join(t.text for t in c))
    return [t for clause in clauses for t in clause]


_DIGITS = re.compile(r"[-+]?\d+(?:\.\d+)*")


def _one_difference(ta: Token, tb: Token) -> Comparison:
    pair = f"{_show(ta)} / {_show(tb)}"
    numbers = ta.literal in ("number", "tz") and tb.literal in ("number", "tz")
    if ta.subject or tb.subject:
        if numbers and ta.after not in IDENTIFIER_NOUNS:
            return Comparison("conflict", f"another value ({pair})", _show(ta), _show(tb))  # "Python 3.11 is required"
        return Comparison("different", f"about another subject ({pair})")
    if ta.literal == tb.literal == "code" and _DIGITS.sub("0", ta.text) == _DIGITS.sub("0", tb.text):
        return Comparison("conflict", f"another value ({pair})", _show(ta), _show(tb))  # `z-index: -1` / `z-index: 1`
    if ta.literal in ("code", "path", "url", "ident") or tb.literal in ("code", "path", "url", "ident"):
        return Comparison("different", f"names another thing ({pair})")
    if ta.literal or tb.literal:
        if numbers and ta.after in IDENTIFIER_NOUNS and tb.after in IDENTIFIER_NOUNS and ta.after not in ("port",):
            return Comparison("different", f"another item ({pair})")
        return Comparison("conflict", f"another value ({pair})", _show(ta), _show(tb))
    if frozenset((ta.text, tb.text)) in _ANTONYM_STEMS:
        return Comparison("conflict", f"the opposite ({pair})", _show(ta), _show(tb))
    if ta.after in VALUE_MARKERS or tb.after in VALUE_MARKERS:
        return Comparison("conflict", f"another choice ({pair})", _show(ta), _show(tb))
    return Comparison("different", f"one other word ({pair})")


def _show(token: Token) -> str:
    return token.shown or token.text


@lru_cache(maxsize=1 << 18)
def _summary(text: str) -> tuple[str, int]:
    statement = parse(text)
    return statement.key, len(statement.tokens)


def fact_key(text: str) -> str:
    """A key two texts share exactly when they state the same fact (see :func:`compare`). Keys are
    small and cached on their own, so a large store is parsed once."""
    return _summary(text)[0]


def fact_size(text: str) -> int:
    """How many words and literals carry the text's fact (a longer same-fact text is more complete)."""
    return _summary(text)[1]
