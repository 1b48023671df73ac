"""Where things are inside memory files, as 0-based (line, character) spans: the ``content`` value of a
JSON entry, the body of a MIF file, the lines of an instruction-file entry. Used by every surface that
points into files (diagnostics, hover, code lens)."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from ..core.model import Entry, Finding
from ..core.text import editor_lines
from ..infra.safeio import read_text
from .mif import MifDocument
from .native import key_lines

Span = tuple[int, int, int, int]  # start line, start character, end line, end character (0-based)


def _lines(root: Path, relpath: str) -> list[str]:
    try:
        return editor_lines(read_text(root / relpath, root=root, encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError):
        return []


def line_span(lines: list[str], line: int, end_line: int | None = None) -> Span:
    """Whole lines ``line..end_line`` (1-based), without leading indentation."""
    end_line = end_line or line
    if not lines:
        return (max(0, line - 1), 0, max(0, end_line - 1), 0)
    first = min(max(line, 1), len(lines)) - 1
    last = max(first, min(max(end_line, line), len(lines)) - 1)
    indent = len(lines[first]) - len(lines[first].lstrip())
    return (first, indent, last, len(lines[last]))


_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def entry_span(root: Path, entry: Entry, lines: list[str] | None = None) -> Span:
    """The part of the file that holds the entry's text."""
    lines = lines if lines is not None else _lines(root, entry.location.path)
    loc = entry.location
    if entry.format == "instruction":
        return line_span(lines, loc.start_line, loc.end_line)
    if entry.format == "entry":
        return _content_span(tuple(lines)) or line_span(lines, 1)
    body = _body_line(tuple(lines))
    last = len(lines)
    while last > body and not lines[last - 1].strip():
        last -= 1
    return line_span(lines, body, max(body, last))


# (Each of a file's findings asks where its entry's text is: the file is read for it once, not once for
# each finding.)
@lru_cache(maxsize=4)
def _content_span(lines: tuple[str, ...]) -> Span | None:
    """Where a JSON entry file writes its ``content`` string."""
    found = key_lines("\n".join(lines)).get("content")
    if found and found[0] <= len(lines):
        row = lines[found[0] - 1]
        colon = row.find(":", found[1])
        start = row.find('"', colon + 1) if colon >= 0 else -1
        if start >= 0:
            # The string value alone: a one-line file writes other fields after it (not a whole
            # string on this line: up to the line's end).
            value = _JSON_STRING.match(row, start)
            end = value.end() if value else len(row.rstrip().rstrip(","))
            return (found[0] - 1, start, found[0] - 1, max(end, start + 1))
    return None


@lru_cache(maxsize=4)
def _body_line(lines: tuple[str, ...]) -> int:
    """The 1-based line where a MIF file's body starts."""
    try:
        return MifDocument.parse("\n".join(lines) + "\n").body_line
    except ValueError:
        return 1


def finding_span(root: Path, finding: Finding, entry: Entry | None, lines: list[str] | None = None) -> Span:
    """Where a finding points: its field's line for schema problems, else the entry's text."""
    lines = lines if lines is not None else _lines(root, finding.source)
    if entry is not None and not finding.field:
        return entry_span(root, entry, lines)
    line = finding.line or 1
    span = line_span(lines, line)
    if finding.column and not finding.field:
        return (span[0], max(0, finding.column - 1), span[2], span[3])
    return span
