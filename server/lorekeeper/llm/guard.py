# pyright: standard
"""The faithfulness guard: a model's text becomes memory only when it says what its sources say, all of
it, and nothing else.

A text written by a model from a batch of entries is accepted when

- every **literal** in it (number, version, path, code span, environment variable, identifier, URL) is
  one the sources wrote, read by the same verifier that decides "same fact" (:mod:`..compaction.verify`),
  and every run of digits in it appears in a source ("100" is not "120", "v2" is not "v3");
- every **name** (a capitalised word inside a sentence: a product, a service, a person) appears in a
  source;
- every **sentence** is traceable to a source: most of its content words are one source's words, and
  nearly all of them are the sources' words; a sentence that negates where its source does not (or the
  reverse) is not traceable;
- every **source** is kept: its literals are all in the text, and most of its content words are.

A **summary** (:func:`check_summary`) is held to every rule but the last — it drops detail, and the
original stays beside it — and, clause by clause, to the polarity of the source clauses it draws on.

Otherwise the answer is rejected with the first reason found, and the deterministic result stands. The
guard is deterministic and needs no model: it judges the model, never the other way round."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..compaction.verify import parse

#: Share of a sentence's content words that one source must hold, and that all sources together must.
SENTENCE_BEST = 0.5
SENTENCE_UNION = 0.8
#: Share of a source's content words the text must keep.
SOURCE_KEPT = 0.6

_CLAUSES = re.compile(r";\s*|,\s+(?:and|but)\s+")
_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_DIGITS = re.compile(r"\d+(?:[.,:]\d+)*")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"'(*\[])|\n+")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_NAME = re.compile(r"(?<![\w`./-])[A-Z][A-Za-z0-9]*[a-z0-9][A-Za-z0-9]*(?![\w`/-])")
_WORDS = re.compile(r"[A-Za-z][A-Za-z0-9']*")
_NEGATED = re.compile(r"\b(?:not|no|never|without|avoid|don't|doesn't|dont|doesnt|instead of|rather than)\s+(?:use\s+|run\s+|call\s+|the\s+|a\s+|an\s+)?`?([A-Za-z][\w.-]*)",
                      re.IGNORECASE)


@dataclass(frozen=True)
class Faithfulness:
    ok: bool
    reason: str = ""


def _content(text: str) -> set[str]:
    """The stems of the words that carry the fact (function words, markers and literals left out)."""
    return {t.text for t in parse(text).tokens if t.literal is None and t.text and t.text.isalpha()}


def _literals(text: str) -> set[str]:
    return {t.text for t in parse(text).tokens if t.literal not in (None, "\x01")}


def _names(text: str) -> set[str]:
    """Capitalised words inside a sentence (a tool, a product, a service), lower-cased."""
    return {m.group(0).lower() for sentence in sentences(text) for m in _NAME.finditer(sentence) if m.start() > 0}


def _negated(text: str) -> set[str]:
    """The words a negation governs ("not Jest", "never npm", "instead of yarn"), lower-cased."""
    return {m.group(1).lower().rstrip(".-") for m in _NEGATED.finditer(text)}


def sentences(text: str) -> list[str]:
    """The sentences and list items of a text, without their bullets."""
    parts = (_BULLET.sub("", p).strip() for p in _SENTENCE.split(text))
    return [p for p in parts if p]


def check(text: str, sources: list[str], keep_all: bool = True) -> Faithfulness:
    """Whether ``text`` says what ``sources`` say, all of it and nothing else (see the module's doc).
    ``keep_all=False`` is the summary mode (:func:`check_summary`): a summary drops detail, so the last
    rule — every source kept — does not apply; everything it does say is held to the other rules."""
    if not text.strip():
        return Faithfulness(False, "the answer is empty")
    if not sources:
        return Faithfulness(False, "there is no source to check the answer against")
    joined = "\n".join(sources)
    lowered = joined.lower()
    source_literals = set().union(*(_literals(s) for s in sources))
    for literal in sorted(_literals(text)):
        if literal not in source_literals and literal.strip("`").lower() not in lowered:
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
    for sentence in sentences(text):
        for match in _NAME.finditer(sentence):
            if match.start() > 0 and match.group(0).lower() not in source_words:
                return Faithfulness(False, f"the name {match.group(0)} is in no source")
        words = _content(sentence)
        if len(words) < 2:
            continue
        best = max(len(words & s) / len(words) for s in stems)
        if best < SENTENCE_BEST or len(words & every) / len(words) < SENTENCE_UNION:
            return Faithfulness(False, f"“{_short(sentence)}” is not traceable to a source")
        negated = parse(sentence).negated
        if not keep_all:
            for clause in _CLAUSES.split(sentence):
                clause_words = _content(clause)
                clause_negated = parse(clause).negated
                if len(clause_words) >= 2 and not _same_polarity(clause_words, clause_negated, sources):
                    return Faithfulness(False, f"“{_short(clause)}” {'negates' if clause_negated else 'drops the negation of'} "
                                               "its source")
        near = [src for src, s in zip(sources, stems, strict=True) if len(words & s) / len(words) >= SENTENCE_BEST]
        if all(parse(src).negated != negated for src in near) and not any(
                parse(part).negated == negated for src in near for part in sentences(src)):
            return Faithfulness(False, f"“{_short(sentence)}” {'negates' if negated else 'drops the negation of'} its source")
    source_negated = set().union(*(_negated(s) for s in sources))
    text_negated = _negated(text)
    for word in sorted(text_negated - source_negated):
        return Faithfulness(False, f"“{word}” is negated in the answer, in no source")
    text_words = {w.lower() for w in _WORDS.findall(text)}
    dropped = (source_negated & text_words) - text_negated
    if not keep_all:
        # A summary may leave a negated fact out and keep another sentence of the source that uses the
        # word plainly ("Deploys go through `make deploy`" / "Never deploy on Fridays"); it may not turn
        # a word the sources only ever negate into a plain one.
        clauses = [c for part in sentences(joined) for c in _CLAUSES.split(part)]
        plain = {w.lower() for c in clauses for w in _WORDS.findall(c) if w.lower() not in _negated(c)}
        dropped -= plain
    for word in sorted(dropped):
        return Faithfulness(False, f"the answer drops the negation of “{word}”")
    if not keep_all:
        return Faithfulness(True)
    kept = _content(text)
    written = _literals(text)
    lowered_text = text.lower()
    for source, words in zip(sources, stems, strict=True):
        missing = [lit for lit in sorted(_literals(source)) if lit not in written and lit.strip("`").lower() not in lowered_text]
        if missing:
            return Faithfulness(False, f"`{missing[0].strip('`')}` of “{_short(source)}” is left out")
        lost = sorted(_names(source) - text_words)
        if lost:
            return Faithfulness(False, f"the name “{lost[0]}” of “{_short(source)}” is left out")
        if words and len(words & kept) / len(words) < SOURCE_KEPT:
            return Faithfulness(False, f"the fact “{_short(source)}” is left out")
    return Faithfulness(True)


def _same_polarity(words: set[str], negated: bool, sources: list[str]) -> bool:
    """Whether a clause (its content words, its polarity) agrees with the source clauses it draws on: one
    of those sharing two or more of its words, and at least half as many as the closest, has its
    polarity ("Deploy on Fridays" draws on "Never deploy on Fridays" alone, and is refused)."""
    parts = [clause for source in sources for sentence in sentences(source) for clause in _CLAUSES.split(sentence)]
    shared = [(len(words & _content(part)), part) for part in parts]
    best = max((n for n, _ in shared), default=0)
    near = [part for n, part in shared if n >= 2 and 2 * n >= best]
    return not near or any(parse(part).negated == negated for part in near)


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
    from ..compaction.verify import _stem as stem  # pyright: ignore[reportPrivateUsage]  # noqa: PLC0415

    return stem(word.strip(".-/@#+"))


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
