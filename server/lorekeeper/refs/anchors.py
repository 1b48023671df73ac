"""Heading anchors of Markdown files, as GitHub makes them (and most renderers follow): the heading's
text without its Markdown, lower-cased, punctuation removed, spaces made hyphens, a repeated anchor
numbered (``setup``, ``setup-1``). Explicit anchors count too: ``{#custom-id}`` after a heading and HTML
``id``/``name`` attributes."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from ..core.text import ATX_HEADING, Fences

_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_CUSTOM_ID = re.compile(r"\s*\{#([\w.:-]+)\}\s*$")
_HTML_ID = re.compile(r"""<[a-zA-Z][^>]*?\b(?:id|name)\s*=\s*["']([^"']+)["']""")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_TAG = re.compile(r"<[^>]+>")
_MARKS = re.compile(r"[`*~]|(?<!\w)_+|_+(?!\w)")


def slug(heading: str) -> str:
    """A heading's anchor, without the number a repeat gets."""
    text = _TAG.sub("", _LINK.sub(r"\1", heading))
    text = _MARKS.sub("", text).strip().lower()
    kept = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LNM")
    return kept.replace(" ", "-")


@lru_cache(maxsize=256)
def anchors(text: str) -> frozenset[str]:
    """Every anchor a link into this Markdown text may name (lower case)."""
    found: set[str] = set()
    seen: dict[str, int] = {}

    def add(heading: str) -> None:
        custom = _CUSTOM_ID.search(heading)
        if custom:  # its own anchor where the renderer reads it (MkDocs, Pandoc); GitHub slugs it whole
            found.update((custom.group(1).lower(), slug(heading)))
            heading = heading[: custom.start()]
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")

    lines = text.splitlines()
    fences = Fences()
    start = 0
    if lines and lines[0].strip() == "---":  # front matter
        start = next((i + 1 for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), 0)
    previous = ""
    for line in lines[start:]:
        if fences.code(line):
            previous = ""
            continue
        if "=" in line or "id" in line or "name" in line:
            found.update(m.group(1).lower() for m in _HTML_ID.finditer(line))
        atx = ATX_HEADING.match(line)
        if atx:
            add(atx.group(2) or "")
            previous = ""
            continue
        setext = _SETEXT.match(line)
        if setext and previous.strip() and not previous.lstrip().startswith(("-", "*", "+", ">", "|")):
            add(previous.strip())
            previous = ""
            continue
        previous = line
    return frozenset(found)
