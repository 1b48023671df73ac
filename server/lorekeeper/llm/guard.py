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


def check(text: str, sources: list[str]) -> Faithfulness:
    """Whether ``text`` says what ``sources`` say, all of it and nothing else (see the module's doc)."""
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
        near = [src for src, s in zip(sources, stems, strict=True) if len(words & s) / len(words) >= SENTENCE_BEST]
        if all(parse(src).negated != negated for src in near) and not any(
                parse(part).negated == negated for src in near for part in sentences(src)):
            return Faithfulness(False, f"“{_short(sentence)}” {'negates' if negated else 'drops the negation of'} its source")
    source_negated = set().union(*(_negated(s) for s in sources))
    text_negated = _negated(text)
    for word in sorted(text_negated - source_negated):
        return Faithfulness(False, f"“{word}” is negated in the answer, in no source")
    text_words = {w.lower() for w in _WORDS.findall(text)}
    for word in sorted((source_negated & text_words) - text_negated):
        return Faithfulness(False, f"the answer drops the negation of “{word}”")
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


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
