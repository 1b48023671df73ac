# pyright: standard
"""The faithfulness guard: a model's text becomes memory only when it says what its sources say, all of
it, and nothing else.

A text written by a model from a batch of entries is accepted when

- every **literal** in it (number, version, path, code span, environment variable, identifier, URL) is
  one the sources wrote, read by the same verifier that decides "same fact" (:mod:`..compaction.verify`),
  matched as a whole (`.env` is not in `.env.example`), and every run of digits in it appears in a source
  ("100" is not "120", "v2" is not "v3");
- every **name** (a capitalised word inside a sentence: a product, a service, a person) appears in a
  source;
- every **sentence** is made of the sources' words (all but a fifth, or all but one in a short one), and
  every **clause** of it (cut at ; : — parentheses and ", and/but/so/because/which ...") is traceable:
  most of its content words are one source's words; each number in it comes from a source sentence it
  shares a word with (not a title's "15", not a list step's "3."); it is not one of the source clauses
  with one value changed (the verifier's conflict: "Auth uses Auth0" for "Auth uses Clerk") or two
  things exchanged ("on in production and off in staging"); a clause that opens with a name written as
  code keeps the company the sources give that name;
- **negation** is kept clause by clause: a negation governs the words from it to the next comma or
  negation ("never run X in parallel, both bind port 5433" negates running, not binding). A plain clause
  may not state plainly what its closest source clause negates, nor a word the sources only ever negate;
  a negated clause may not negate what its source states plainly; nothing is negated that no source
  negates ("instead of Jest" may say what a source replaced);
- every **source** is kept (a fusion, :func:`check`): its literals and names are all in the text, most of
  its content words are, each negated fact of it is negated in the text, and each "only", "except" and
  "unless" of it stays.

A **summary** (:func:`check_summary`) is held to every rule but the last: it drops detail, and the
original stays beside it.

Otherwise the answer is rejected with the first reason found, and the deterministic result stands. The
guard is deterministic and needs no model: it judges the model, never the other way round."""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher

from ...facts.parse import CLAUSE_WORDS, FUNCTION_WORDS, parse
from ...facts.parse import stem as _snowball
from ...facts.verify import compare

#: Share of a clause's content words that one source must hold, and of a sentence's that all sources
#: together must.
SENTENCE_BEST = 0.5
SENTENCE_UNION = 0.8
#: A sentence of at most this many content words may have one the sources do not write ("caught" for
#: "catches" is one unknown word of five, which the share above would refuse).
SHORT_SENTENCE = 5
#: Share of a source's content words the text must keep.
SOURCE_KEPT = 0.6

_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_DIGITS = re.compile(r"\d+(?:[.,:]\d+)*")
#: A sentence ends at . ! ? before a capital, a code span or a quote, or before a lower-case name such as
#: electron-builder (not after "e.g."); or at a line break.
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"'(*\[])|(?<=[a-z0-9]{2}[.!?])\s+(?=[a-z][a-z0-9]*[-_][a-z])|\n+")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_NAME = re.compile(r"(?<![\w`./-])[A-Z][A-Za-z0-9]*[a-z0-9][A-Za-z0-9]*(?![\w`/-])")
_WORDS = re.compile(r"[A-Za-z][A-Za-z0-9']*")
#: A number written on its own ("15 minutes", "1,900"): not a digit inside a name (1Password), a date
#: (2024-03) or a code span.
_NUMBER = re.compile(r"(?<![\w.:/-])(?>\d+(?:[.,:]\d+)*)(?!\w|[-/.]\w)")
_ABBREVIATION = re.compile(r"(?i)e\.g|i\.e|etc|vs")
#: Where a sentence breaks into clauses: ; : — parentheses, a spaced dash, and a comma before a
#: conjunction. Code spans and URLs are skipped whole (their colons and parentheses are not breaks).
#: Whitespace before a break is read only from where it starts, and possessively: a run of it is read
#: once (from any of its characters the outcome is the same).
_CLAUSE_BREAK = re.compile(r"`[^`\n]*`|\b(?:https?|ftp|ssh|git)://\S+"
                           r"|(?P<cut>(?:(?<!\s)\s++)?[;—–()]\s*|:\s+|(?<!\s)\s++-\s+"
                           r"|,\s+(?=(?:and|but|so|because|since|which|who|whereas|while)\b))")
_NEGATED = re.compile(r"\b(?P<neg>not|no|never|without|avoid|don't|doesn't|dont|doesnt|instead of|rather than)\s+"
                      r"(?:(?:use|run|call|the|a|an|be|been|being|get|got|ever|to)\s+)*(?P<code>`?)(?P<word>[A-Za-z][\w.-]*)(?P<more> ?)",
                      re.IGNORECASE)
#: Negations that say what is replaced rather than forbidden: "Vitest instead of Jest" may stand where
#: the source says "switched from Jest to Vitest".
_REPLACING = frozenset(("instead of", "rather than"))
#: Words that bound a fact's scope: a fusion that drops one widens the fact ("only in production").
_SCOPE_WORDS = ("only", "except", "unless")
#: Past forms a stemmer cannot bring back to their verb.
_IRREGULAR = {
    "caught": "catch", "chose": "choose", "chosen": "choose", "ran": "run", "wrote": "write", "written": "write",
    "built": "build", "rebuilt": "rebuild", "kept": "keep", "went": "go", "gone": "go", "took": "take",
    "taken": "take", "made": "make", "held": "hold", "found": "find", "sent": "send", "broke": "break",
    "broken": "break", "grew": "grow", "grown": "grow", "paid": "pay", "said": "say", "shown": "show",
    "thought": "think", "told": "tell", "began": "begin", "begun": "begin", "gave": "give", "given": "give",
    "knew": "know", "known": "know", "saw": "see", "seen": "see", "became": "become", "came": "come",
    "got": "get", "gotten": "get", "hidden": "hide", "lost": "lose", "meant": "mean", "stuck": "stick",
    "threw": "throw", "thrown": "throw", "fed": "feed", "felt": "feel", "forgot": "forget", "forgotten": "forget",
    "froze": "freeze", "frozen": "freeze", "heard": "hear", "sold": "sell", "bought": "buy", "brought": "bring",
    "dealt": "deal", "drew": "draw", "drawn": "draw", "drove": "drive", "driven": "drive", "spoke": "speak",
    "spoken": "speak", "taught": "teach", "understood": "understand", "withdrew": "withdraw", "woke": "wake",
    "rewrote": "rewrite", "rewritten": "rewrite", "undid": "undo", "undone": "undo", "overrode": "override",
    "overridden": "override", "fell": "fall", "fallen": "fall", "rose": "rise", "risen": "rise", "shook": "shake",
    "sped": "speed", "spent": "spend", "stood": "stand", "struck": "strike", "swept": "sweep", "won": "win",
}
_CLAUSE_STEMS = frozenset(_snowball(w) for w in CLAUSE_WORDS)
_IRREGULAR_STEMS = {_snowball(past): _snowball(verb) for past, verb in _IRREGULAR.items()}


@dataclass(frozen=True)
class Faithfulness:
    ok: bool
    reason: str = ""


@dataclass(frozen=True)
class _Clause:
    """A clause of a source: its text, content words, polarity, the words it negates, and its sentence."""

    text: str
    words: frozenset[str]
    plain: frozenset[str]  # words outside any negation's scope
    scoped: frozenset[str]  # words inside one ("never run X in parallel, ...": run, parallel)
    heads: frozenset[str]  # the first word of each negation's scope (run)
    negates: frozenset[str]
    sentence: str

    @property
    def negated(self) -> bool:
        return bool(self.scoped)


def _content(text: str) -> set[str]:
    """The stems of the words that carry the fact (function words, markers and literals left out; an
    irregular past brought back to its verb)."""
    return {_IRREGULAR_STEMS.get(t.text, t.text) for t in parse(text).tokens
            if t.literal is None and t.text and t.text.isalpha()}


def _literals(text: str) -> set[str]:
    """The literals of a text as the verifier reads them (a URL without the punctuation that ends its
    sentence)."""
    found = set()
    for t in parse(text).tokens:
        if t.literal in (None, "\x01"):
            continue
        if not _ABBREVIATION.fullmatch(t.text):
            found.add(t.text.rstrip(".,;:!?") if t.literal == "url" else t.text)
    return found


def _names(text: str) -> set[str]:
    """Capitalised words inside a sentence (a tool, a product, a service), lower-cased."""
    return {m.group(0).lower() for sentence in sentences(text) for m in _NAME.finditer(sentence) if m.start() > 0}


def _negated(text: str, replacing: bool = True) -> set[str]:
    """The stems of the words a negation governs ("not Jest", "never npm", "must not be copied": copy),
    lower-cased; ``replacing=False`` leaves out what "instead of" and "rather than" govern."""
    return {_stem_word(m.group("word").lower().rstrip(".-")) for m in _NEGATED.finditer(text)
            if m.group("word").lower() not in FUNCTION_WORDS and not (m.group("code") and m.group("more"))
            and (replacing or " ".join(m.group("neg").lower().split()) not in _REPLACING)}


def _stem_word(word: str) -> str:
    """A word's stem, a dotted or dashed name (``os.path``) kept whole."""
    if not word.isalpha():
        return word
    stem = _stem(word)
    return _IRREGULAR_STEMS.get(stem, stem)


def _contains(haystack: str, needle: str) -> bool:
    """Whether ``needle`` is written in ``haystack`` as a whole: `.env` is not in `.env.example`, 3 is not
    in 30."""
    pattern = r"(?<![\w])(?<![\w][.\-/])" + re.escape(needle) + r"(?![\w])(?![.\-/][\w])"
    return re.search(pattern, haystack) is not None


def sentences(text: str) -> list[str]:
    """The sentences and list items of a text, without their bullets."""
    parts = (_BULLET.sub("", p).strip() for p in _SENTENCE.split(text))
    return [p for p in parts if p]


_LEADING_CONJUNCTION = re.compile(r"^(?:and|but|or)\s+", re.IGNORECASE)


def clauses(sentence: str) -> list[str]:
    """The clauses of a sentence (see :data:`_CLAUSE_BREAK`)."""
    out: list[str] = []
    start = 0
    for match in _CLAUSE_BREAK.finditer(sentence):
        if match.group("cut") is None:
            continue
        out.append(sentence[start:match.start()])
        start = match.end()
    out.append(sentence[start:])
    cut = (_LEADING_CONJUNCTION.sub("", c.strip(" ,.")) for c in out)
    return [c for c in cut if c]


def _source_clauses(sources: list[str]) -> list[_Clause]:
    found: list[_Clause] = []
    for source in sources:
        for sentence in sentences(source):
            for clause in clauses(sentence):
                plain, scoped, heads = _polarity(clause)
                found.append(_Clause(clause, frozenset(_content(clause)), frozenset(plain), frozenset(scoped),
                                     frozenset(heads), frozenset(_negated(clause)), sentence))
    return found


_NEGATION = re.compile(r"\b(?:not|no|never|without|avoid|nor|cannot|neither|\w+n't)\b", re.IGNORECASE)
_SCOPE_END = re.compile(r"[,;:()—–]|\s-\s")


def _polarity(clause: str) -> tuple[set[str], set[str], set[str]]:
    """A clause's words outside any negation, those a negation governs (from the negation to the next
    comma or the next negation: "Never run `pnpm test:int` in parallel, both bind port 5433": run and
    parallel, not bind and port), and the first word of each negation's scope (run). Words that open a
    clause ("since", "because") are no part of a scope."""
    scopes: list[str] = []
    rest: list[str] = []
    start = 0
    masked = _CODE_SPAN.sub(lambda m: "`" + "x" * len(m.group(1)) + "`", clause)  # a code span's `:` ends nothing
    stop_at = -1  # the first scope end at or after the last negation read (the clause's length: none)
    for match in _NEGATION.finditer(masked):
        if match.start() < start:
            continue
        rest.append(clause[start:match.start()])
        # Searched from the negation's end, not in a copy of the rest of the clause; a scope end found
        # for an earlier negation stands for the later ones before it (a clause is read once).
        if stop_at < match.end():
            stop = _SCOPE_END.search(masked, match.end())
            stop_at = stop.start() if stop else len(masked)
        following = _NEGATION.search(masked, match.end())
        end = min(stop_at, following.start() if following else len(masked))
        scopes.append(clause[match.end():end])
        start = end
    rest.append(clause[start:])
    scoped: set[str] = set()
    heads: set[str] = set()
    for scope in scopes:
        tokens = [t.text for t in parse(scope).tokens if t.literal is None and t.text.isalpha()
                  and t.text not in _CLAUSE_STEMS]
        scoped.update(_IRREGULAR_STEMS.get(t, t) for t in tokens)
        heads.update(_IRREGULAR_STEMS.get(t, t) for t in tokens[:1])
    if scopes and not scoped:
        scoped = {"\x00"}  # a negation of literals alone ("not `os.path`") still negates the clause
    return set().union(*(_content(r) for r in rest)), scoped, heads


def check(text: str, sources: list[str], keep_all: bool = True) -> Faithfulness:
    """Whether ``text`` says what ``sources`` say, all of it and nothing else (see the module's doc).
    ``keep_all=False`` is the summary mode (:func:`check_summary`): a summary drops detail, so the rules
    that keep every source's facts do not apply; everything it does say is held to the other rules."""
    if not text.strip():
        return Faithfulness(False, "the answer is empty")
    if not sources:
        return Faithfulness(False, "there is no source to check the answer against")
    joined = "\n".join(sources)
    lowered = joined.lower()
    source_literals = set().union(*(_literals(s) for s in sources))
    for literal in sorted(_literals(text)):
        if literal not in source_literals and not _contains(lowered, literal.strip("`").lower()):
            return Faithfulness(False, f"`{literal.strip('`')}` is in no source")
    for span in _CODE_SPAN.findall(text):
        if span.strip() and span.strip() not in joined:
            return Faithfulness(False, f"`{_short(span.strip())}` is in no source")
    source_digits = set(_DIGITS.findall(joined))
    for number in _DIGITS.findall(text):
        if number not in source_digits:
            return Faithfulness(False, f"the number {number} is in no source")
    source_words = {w.lower() for w in _WORDS.findall(joined)}
    stems = [_content(s) for s in sources]
    every = set().union(*stems)
    parts = _source_clauses(sources)
    for sentence in sentences(text):
        for match in _NAME.finditer(sentence):
            if match.start() > 0 and match.group(0).lower() not in source_words:
                return Faithfulness(False, f"the name {match.group(0)} is in no source")
        words = _content(sentence)
        unknown = words - every
        allowed = 1 if 3 <= len(words) <= SHORT_SENTENCE else len(words) * (1 - SENTENCE_UNION)
        if len(words) >= 2 and len(unknown) > allowed:
            return Faithfulness(False, f"“{_short(sentence)}” is not traceable to a source")
        for clause in clauses(sentence):
            reason = _clause_reason(clause, stems, parts, keep_all)
            if reason:
                return Faithfulness(False, reason)
    source_negated = set().union(*(_negated(s) for s in sources), *(p.scoped for p in parts))
    for word in sorted(_negated(text, replacing=False) - source_negated):
        return Faithfulness(False, f"“{word}” is negated in the answer, in no source")
    if not keep_all:
        return Faithfulness(True)
    return _kept(text, sources, stems, parts)


def _clause_reason(clause: str, stems: list[set[str]], parts: list[_Clause], fusion: bool) -> str:
    """Why a clause of the answer is not faithful to the source clauses it draws on ("" when it is)."""
    words = _content(clause)
    for number in _NUMBER.findall(_CODE_SPAN.sub(" ", clause)):
        # A number must come from a sentence that shares a word with the clause: not a 15 from a title,
        # nor a list step's 3.
        homes = [p for p in parts if _contains(p.sentence, number)]
        if not homes:
            return f"the number {number} is in no source (but as a list step or inside a name)"
        if words and not any(words & _content(p.sentence) for p in homes):
            return f"the number {number} of “{_short(clause)}” comes from another fact of the source"
        if not fusion:
            continue  # a summary gathers numbers from all over a long source
        # In a fusion, the part of the clause a number stands in ("metrics for 30 days" of "logs are kept
        # for 90 days and metrics for 30 days") must draw most on a sentence that writes it.
        segment = next((part for part in _SEGMENT.split(clause) if _contains(part, number)), "")
        near = _content(segment)
        overlaps = [(len(near & _content(p.sentence)), p.sentence) for p in parts]
        closest = max((n for n, _ in overlaps), default=0)
        if closest and not any(_contains(text, number) for n, text in overlaps if n == closest):
            return f"the number {number} of “{_short(segment)}” belongs to another fact of the source"
    shared = [(len(words & p.words), p) for p in parts]
    best = max((n for n, _ in shared), default=0)
    tops = [p for n, p in shared if n == best and n > 0]
    for top in tops:
        # A clause that is one of the sources' clauses with one thing changed: the verifier judges it
        # ("Auth uses Auth0" for "Auth uses Clerk"), and two things exchanged are another fact.
        if _swapped(clause, top.text):
            return f"“{_short(clause)}” exchanges two things of “{_short(top.text, 40)}”"
    if tops and len(words ^ tops[0].words) <= 1 and bool(_polarity(clause)[1]) == tops[0].negated and not any(compare(p.text, clause).verdict == "same" for p in tops):
        verdict = compare(tops[0].text, clause)
        if verdict.verdict == "conflict" and not verdict.reason.startswith("the same statement, one negated"):
            return f"“{_short(clause)}” contradicts “{_short(tops[0].text, 40)}” ({verdict.reason})"
    subject = _subject(clause)
    if subject:
        # A clause's subject must keep the company the sources give it: "`notifications` consumes it and
        # reserves stock" takes the subject of one sentence and the words of another.
        rest = words - {_stem_word(subject.lower())}
        homes = [len(rest & _content(p.sentence)) for p in parts if _contains(p.sentence.lower(), subject.lower())]
        closest = max((len(rest & _content(p.sentence)) for p in parts), default=0)
        if homes and closest >= 2 and 2 * max(homes) < closest:
            return f"“{subject}” in “{_short(clause)}” belongs to another fact of the source"
    if len(words) < 2:
        return ""
    if max(len(words & s) / len(words) for s in stems) < SENTENCE_BEST:
        return f"“{_short(clause)}” is not traceable to a source"
    plain, scoped, _ = _polarity(clause)
    near = [p for n, p in shared if n >= 2 and 2 * n >= best]
    for p in near:
        # A plain clause that states both what a source clause states plainly and what it negates drops
        # the negation ("Product and cart pages are cached" from "Cart ... responses are never cached"),
        # unless another source clause states them together plainly.
        common = plain & p.words
        if plain & (p.heads - p.plain) and (plain & p.plain or not p.plain) and not any(
                common <= q.plain for q in parts):
            return f"“{_short(clause)}” drops the negation of “{_short(p.text, 40)}”"
        if scoped & p.plain and not any((scoped & p.plain) <= q.scoped for q in parts):
            return f"“{_short(clause)}” negates “{_short(p.text, 40)}”"
    for word in sorted(plain - set().union(*(p.plain for p in parts)) if not scoped else ()):
        # a plain clause that says what the sources only ever negate ("a weekly job renews ..." where the
        # source says "it was never renewed"); a negated clause may put the word before its negation
        if any(word in p.negates for p in parts):
            return f"“{_short(clause)}” drops the negation of “{word}”"
    return ""


#: The parts of a clause a number belongs to: cut at commas and at "and" / "or".
_SEGMENT = re.compile(r",\s+|(?<!\s)\s++(?:and|or)\s+")  # (whitespace read from where it starts: see _CLAUSE_BREAK)
_CODE_WORD = re.compile(r"`([A-Za-z][\w-]*)`")


def _subject(clause: str) -> str:
    """The name a clause opens with, written as code (`inventory` consumes ...), or ""."""
    match = re.match(r"`([A-Za-z][\w-]*)`", clause)
    return match.group(1) if match else ""


_TOKEN = re.compile(r"`[^`]+`|[\w./@#-]+")
_LIST_WORDS = frozenset(("and", "or", "nor", "&"))


def _swapped(clause: str, source: str) -> bool:
    """Whether ``clause`` is ``source`` with two of its words exchanged, in two places that are not one
    list ("off in production and on in staging" / "on in production and off in staging"; `apps/api`
    must not import from `apps/web` / the reverse)."""
    a = [t.lower() for t in _TOKEN.findall(source)]
    b = [t.lower() for t in _TOKEN.findall(clause)]
    replaced = [(a[i1], b[j1], i1) for op, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
                if op == "replace" and i2 - i1 == 1 and j2 - j1 == 1]
    for n, (old, new, at) in enumerate(replaced):
        for old2, new2, at2 in replaced[n + 1:]:
            if old == new2 and new == old2 and any(t not in _LIST_WORDS for t in a[at + 1:at2]):
                return True
    return False


def _kept(text: str, sources: list[str], stems: list[set[str]], parts: list[_Clause]) -> Faithfulness:
    """A fusion keeps every fact: each source's literals, names, most of its words, what it negates (as a
    negation) and the words that bound its scope."""
    kept = _content(text)
    written = _literals(text)
    lowered_text = text.lower()
    text_words = {w.lower() for w in _WORDS.findall(text)}
    for source, words in zip(sources, stems, strict=True):
        missing = [lit for lit in sorted(_literals(source))
                   if lit not in written and not _contains(lowered_text, lit.strip("`").lower())]
        if missing:
            return Faithfulness(False, f"`{missing[0].strip('`')}` of “{_short(source)}” is left out")
        lost = sorted(_names(source) - text_words)
        if lost:
            return Faithfulness(False, f"the name “{lost[0]}” of “{_short(source)}” is left out")
        if words and len(words & kept) / len(words) < SOURCE_KEPT:
            return Faithfulness(False, f"the fact “{_short(source)}” is left out")
    answer = [(c, _content(c), parse(c).negated) for s in sentences(text) for c in clauses(s)]
    text_negated = _negated(text)
    for part in parts:
        if part.negated and part.words:
            # The negated fact is kept when what it negates is negated in the answer, or when a negated
            # clause of the answer holds most of its words ("do not add sleeps to fix it" / "don't fix it
            # with sleeps").
            if not part.negates & text_negated and not any(
                    negated and 2 * len(part.words & words) >= len(part.words) for _, words, negated in answer):
                return Faithfulness(False, f"the negated fact “{_short(part.text)}” is left out")
        for scope in _SCOPE_WORDS:
            if re.search(rf"\b{scope}\b", part.text, re.IGNORECASE) and not any(
                    re.search(rf"\b{scope}\b", c, re.IGNORECASE) and words & part.words for c, words, _ in answer):
                return Faithfulness(False, f"the answer drops “{scope}” of “{_short(part.text)}”")
    # A word the sources only ever negate may stand only in a negated clause ("Use Jest" where a source
    # says "not Jest"; "Integration tests must never run ..." for "Never run integration tests ...").
    only_negated = set().union(*(p.negates for p in parts)) - set().union(*(p.plain for p in parts))
    for clause, _, _ in answer:
        for word in sorted(only_negated & {_stem_word(w.lower()) for w in _WORDS.findall(clause)} - text_negated):
            if not _polarity(clause)[1]:
                return Faithfulness(False, f"the answer drops the negation of “{word}”")
    return Faithfulness(True)


def check_summary(summary: str, sources: list[str], limit: int) -> Faithfulness:
    """Whether ``summary`` may stand for ``sources`` (an entry, or the entries a learning consolidates):
    at most ``limit`` characters; every sentence traceable to the sources; every literal, number and name
    in it one the sources wrote; no negation added or dropped. Unlike :func:`check`, it need not keep
    every fact: a summary drops detail, and the original text stays beside it."""
    if len(summary) > limit:
        return Faithfulness(False, f"the summary has {len(summary)} characters, more than {limit}")
    return check(summary, sources, keep_all=False)


#: Most keywords a summary carries, and the longest one.
MAX_KEYWORDS = 10
MAX_KEYWORD_CHARS = 40
_KEYWORD = re.compile(r"[A-Za-z0-9][\w.+#/@-]*")


def check_keywords(keywords: list[str], sources: list[str]) -> tuple[list[str], str]:
    """The keywords cleaned (trimmed, de-duplicated, in order) and ``""``; or ``[]`` and why they cannot
    stand: more than :data:`MAX_KEYWORDS`, one longer than :data:`MAX_KEYWORD_CHARS` or of more than
    three words, or a word of one that is no word of the sources (a word's stem counts: "tests" for
    "testing")."""
    if len(keywords) > MAX_KEYWORDS:
        return [], f"{len(keywords)} keywords, more than {MAX_KEYWORDS}"
    joined = "\n".join(sources)
    words = {w.lower() for w in _KEYWORD.findall(joined)}
    stems = {_stem(w) for w in words}
    out: list[str] = []
    for raw in keywords:
        keyword = " ".join(raw.split())
        parts = [w.lower() for w in _KEYWORD.findall(keyword)]
        if not keyword or len(keyword) > MAX_KEYWORD_CHARS or not parts or len(parts) > 3:
            return [], f"the keyword “{_short(keyword)}” is not a short phrase"
        for part in parts:
            if part not in words and _stem(part) not in stems:
                return [], f"the keyword “{_short(keyword)}” is no word of the source"
        if keyword.lower() not in (k.lower() for k in out):
            out.append(keyword)
    return out, ""


def _stem(word: str) -> str:
    return _snowball(word.strip(".-/@#+"))


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
