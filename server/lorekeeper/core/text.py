"""Text normalisation and tokenisation shared by dedup and search."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from functools import lru_cache
from itertools import chain

#: Markdown markup (`` ` * _ ~ > # [ ] ( ) | ``) and every other punctuation mark: ``_`` is the one
#: markup character ``\w`` counts as a word character.
_MARKUP = re.compile(r"[^\w\s]|_")
#: :data:`_MARKUP` for ASCII text, as a translation table (every ASCII character ``\w`` and ``\s`` do not
#: match, and ``_``, becomes a space).
_ASCII_MARKUP = {c: " " for c in range(128) if _MARKUP.fullmatch(chr(c))}
#: The ASCII half of :func:`normalize` as one byte table: upper case to lower, :data:`_ASCII_MARKUP` and
#: the separators ``str.split`` counts as white space but ``bytes.split`` does not (``\x1c``-``\x1f``)
#: to a space. ``bytes.translate`` and ``bytes.split`` run ~2.6x faster than their ``str`` forms.
_ASCII_NORMAL = bytes(32 if c in _ASCII_MARKUP or 0x1C <= c <= 0x1F else ord(chr(c).lower()) for c in range(128)) + bytes(range(128, 256))
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"[A-Za-z0-9_]+(?:[.\-/][A-Za-z0-9_]+)*")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")

#: Entries of the caches that hold what is derived from one memory text (small values): big enough
#: that a large store's passes over every entry hit them (an LRU smaller than the store misses on
#: every entry of every pass).
TEXT_CACHE = 1 << 18

@lru_cache(maxsize=TEXT_CACHE)  # a plan asks for each text's several times
def text_key(text: str) -> str:
    """A text's key in the caches that remember what was derived from it (24 hex digits)."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


STOPWORDS = frozenset(
    "a an and are as at be by for from has have in is it its of on or that the this to was were will with"
    " we you our your should must".split()
)


class CaseBlind:
    """Whether a text holds a match of a pattern in any letter case (``re.IGNORECASE``), answered ~3x
    faster for ASCII text, most memories: there the pattern, written in lower case, is searched
    case-sensitively in the lower-cased text. An ASCII character matches a lower-case literal or class
    in any case exactly when its lower case does (the other characters that fold to an ASCII letter,
    the Kelvin sign, the long s, are not ASCII), and lower-casing ASCII moves no position. Python's
    engine skips a case-sensitive alternative at C speed when its first character differs; a
    case-blind one it tries in full at every word."""

    def __init__(self, pattern: str) -> None:
        if pattern != pattern.lower():  # an upper-case letter or escape (\S, \W) would change its meaning
            raise ValueError(f"a case-blind pattern is written in lower case: {pattern!r}")
        self.pattern = pattern
        self._blind = re.compile(pattern, re.IGNORECASE)
        self._lower = re.compile(pattern)

    def occurs(self, text: str) -> bool:
        if text.isascii():
            return self._lower.search(text.lower()) is not None
        return self._blind.search(text) is not None


def normalize(text: str) -> str:
    """The form two statements of the same fact share exactly: case, whitespace, punctuation and
    Markdown markup removed ("Always use **pnpm**." == "always use pnpm")."""
    if text.isascii():  # the same words, ~6x faster: NFKC changes no ASCII, casefold is lower (as bytes)
        return b" ".join(text.encode().translate(_ASCII_NORMAL).split()).decode()
    text = unicodedata.normalize("NFKC", text).casefold()
    return _SPACE.sub(" ", _MARKUP.sub(" ", text)).strip()


def terms(text: str) -> list[str]:
    """Search terms: lower-cased words, with compound identifiers also split into their parts
    (``StripeClient.create_charge`` gives ``stripeclient.create_charge``, ``stripeclient``, ``stripe``,
    ``client``, ``create_charge``, ``create``, ``charge``). Stopwords are dropped."""
    return list(chain.from_iterable(map(_word_terms, _WORD.findall(text))))  # each word's terms, at C speed


_PARTS = re.compile(r"[.\-/]")


@lru_cache(maxsize=1 << 16)
def _word_terms(word: str) -> tuple[str, ...]:
    """The terms of one word (:func:`terms`); words repeat across a store, so each is split once."""
    pieces = {word}
    for part in _PARTS.split(word):
        pieces.add(part)
        for sub in part.split("_"):
            pieces.add(sub)
            pieces.update(_CAMEL.findall(sub))
    out: list[str] = []
    for piece in sorted(pieces, key=lambda p: (-len(p), p)):
        low = piece.lower().strip("_")
        if low and low not in STOPWORDS and (len(low) > 1 or low.isdigit()):
            out.append(low)
    return tuple(out)


def editor_lines(text: str, keepends: bool = False) -> list[str]:
    """``text`` split into lines as editors (and the LSP) count them: at ``\n``, ``\r\n`` and ``\r`` only
    — not at U+2028, U+0085, form feed and the other breaks ``str.splitlines`` also splits at, which
    would put every later line one too low. Like ``splitlines``, no empty line after a final newline."""
    out: list[str] = []
    start = 0
    for match in _LINE_BREAK.finditer(text):
        out.append(text[start : match.end()] if keepends else text[start : match.start()])
        start = match.end()
    if start < len(text):
        out.append(text[start:])
    return out


_SUMMARY_MARKER = re.compile(r"^(\s*(?:#+|[-*+]|\d+[.)]))\s+")


def summarize(text: str, limit: int) -> str:
    """A deterministic summary: the leading sentences (headings and list markers dropped, list items
    joined by "; ") that fit in ``limit`` characters. A marker is followed by a space: "**Bold**" keeps
    its asterisks."""
    words: list[str] = []
    item_before = False
    for raw in text.splitlines():
        marker = _SUMMARY_MARKER.match(raw)
        line = raw[marker.end():].strip() if marker else raw.strip()
        if not line or line.startswith("```"):
            continue
        item = bool(marker) and not marker.group(1).lstrip().startswith("#")
        if words:
            words.append("; " if item and item_before and not words[-1].endswith((".", ";", ":", "!", "?")) else " ")
        words.append(line)
        item_before = item
    flat = "".join(words)
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1]
    end = max(cut.rfind(". "), cut.rfind("; "))
    return (cut[: end + 1] if end > limit // 2 else cut.rsplit(" ", 1)[0]) + "…"


_FENCE_MARK = re.compile(r" {0,3}(`{3,}|~{3,})")


#: An ATX heading line (``## Setup``, ``#``): group 1 its marks, group 2 its text.
ATX_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")


class Fences:
    """Where fenced code runs in Markdown read line by line: :meth:`code` says whether a line is a fence or
    inside one (a fence closes at a bare run of its character at least as long as the one that opened it)."""

    def __init__(self) -> None:
        self.open: str | None = None

    def code(self, line: str) -> bool:
        opened = _FENCE_MARK.match(line)
        if opened:
            mark = opened.group(1)
            if self.open is None:
                self.open = mark
            elif mark[0] == self.open[0] and len(mark) >= len(self.open) and line.strip() == mark:
                self.open = None
            return True
        return self.open is not None


_LATIN_WORD = re.compile(r"[A-Za-z\u00c0-\u024f]+")


@lru_cache(maxsize=TEXT_CACHE)  # asked of both texts of every pair compared
def other_script(text: str) -> bool:
    """Whether a text is written mostly in another script than Latin ("TypeScript 代码：遵循 Cocos Creator
    开发规范"): what reads English words (the embedding model, the stems :mod:`..facts.near` compares) sees
    only the few names such a text writes in Latin letters, which make it look close to any English text
    that names them. Letters of another script count one each (a Chinese character is about a word),
    against the words in Latin letters."""
    if text.isascii():
        return False
    other = sum(1 for c in text if c.isalpha() and not ("a" <= c.lower() <= "z" or "\u00c0" <= c <= "\u024f"))
    return other >= 3 and other >= len(_LATIN_WORD.findall(text))
