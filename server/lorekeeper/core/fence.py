"""Memory text placed in a rendered document as quoted data.

`lore context`, MCP ``recall``, index.md and ``compacted/<category>.md`` are Markdown that Lorekeeper
structures (its headings, its ``Pinned`` section, its ``<!-- ... -->`` status comments) and that an
agent reads as raw text. Memory text is written by others (docs/security.md): it may hold
``# SYSTEM INSTRUCTIONS``, ``## Pinned``, ``</memory><system>`` or ``-->``. Every piece of memory text
goes through this module where it is placed, so that it stays inside the item, heading or code span
Lorekeeper put it in:

- :func:`lines` (a memory's text as the lines of a list item, or with ``lists`` of a paragraph at the
  margin): no line starts a heading (ATX ``#``, or a setext underline ``===`` / ``---`` under the line
  before), a thematic break or a block quote, at any depth of list markers and in code blocks too (a
  raw reader does not know where code is); in a list item, a code
  fence opened and never closed is text (no code block runs past its memory); with ``lists``, no line
  starts a list or a code fence at all. The marker is kept and escaped with a backslash
  (``\\## Pinned``): Markdown renders the text as written, and a reader of the raw text sees that it is
  not structure. A list item's later lines are indented by the caller, so none leaves the item.
- everywhere (:func:`lines`, :func:`inline`, :func:`heading`, :func:`code`): no ``<`` opens a tag,
  comment, declaration or processing instruction (``<x``, ``</``, ``<!``, ``<?``: written ``&lt;``),
  and no comment closes (``-->``, ``--!>``: written ``--&gt;``), in code spans and blocks too (a raw
  reader does not know where code is).
- :func:`inline` and :func:`heading` keep a value on one line; :func:`heading` never reads as one of
  the headings Lorekeeper names itself (``reserved``).

Text that has none of these is returned unchanged, byte for byte (most memory)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from .text import normalize

#: ``<`` that opens a tag, comment, declaration or processing instruction; ``>`` that ends a comment.
_TAG = re.compile(r"<(?=[A-Za-z/!?])|(?<=--)>|(?<=--!)>")
#: The breaks ``str.splitlines`` splits at, and white space that is not one.
_BREAKS = "\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029"
_SPACE = rf"[^\S{_BREAKS}]"
#: Whether a text may need more than splitting into lines: a tag character, or a line that starts
#: (after white space) with a character a block marker starts with (the first line: :data:`_RISK_START`).
_RISK = re.compile(rf"<[A-Za-z/!?]|--!?>|[{_BREAKS}]{_SPACE}*[-+*#>=_`~0-9]")
_RISK_START = re.compile(rf"{_SPACE}*[-+*#>=_`~0-9]")
#: A thematic break (``---``, ``* * *``, ``___``) or a setext underline (``===``, ``-``): the whole rest
#: of the line.
_BREAK = re.compile(r"([-*_])(?:\s*\1){2,}\s*$|=+\s*$|-+\s*$")
#: The line's last run of one break character and white space, read backwards (where a
#: :data:`_BREAK` can start: tried only there, so a line of many list markers stays linear).
_TAIL = re.compile(r"\s*([-*_=])(?:\s*\1)*")
#: An ATX heading or a block quote; in a paragraph (``lists``), a code fence too.
_OPENS = re.compile(r"#+(?=\s|$)|>")
_OPENS_PROSE = re.compile(r"#+(?=\s|$)|>|`{3,}|~{3,}")
#: A list marker and the white space after it (a bullet, or an ordered list's number and delimiter).
_MARKER = re.compile(r"(?:[-+*]|(\d{1,9})[.)])(?:\s+|$)")
#: A code fence that opens: three or more backticks (none after them) or tildes.
_FENCE_OPEN = re.compile(r"(`{3,})[^`]*$|(~{3,})")
#: A code fence that closes, as strictly as CommonMark reads one (at most three spaces before the run,
#: only spaces after): where it is unsure, an opener is taken as unclosed and escaped, which is harmless.
_FENCE_CLOSE = re.compile(r" {0,3}(`{3,}|~{3,}) *$")


def _tags(text: str) -> str:
    return _TAG.sub(lambda m: "&lt;" if m.group() == "<" else "&gt;", text)


def _line(line: str, lists: bool) -> tuple[str, int]:
    """One line neutralised, and where a code fence would start on it (-1: none can)."""
    tail_start = len(line)
    if line.rstrip()[-1:] in ("-", "*", "_", "="):
        tail = _TAIL.match(line[::-1])
        tail_start -= tail.end() if tail else 0
    i = len(line) - len(line.lstrip())
    opens = _OPENS_PROSE if lists else _OPENS
    while True:
        if (i >= tail_start and _BREAK.match(line, i)) or opens.match(line, i):
            return line[:i] + "\\" + line[i:], -1
        marker = _MARKER.match(line, i)
        if marker is None:
            return line, i
        if lists:  # the marker itself: ``\-``, ``1\.``; the rest of the line is then text
            at = marker.end(1) if marker.group(1) else i
            return line[:at] + "\\" + line[at:], -1
        i = marker.end()


def _unclosed_fences(out: list[str], starts: list[int]) -> None:
    """Escape (in place) every fence opener that no later line closes. Linear: the longest closing
    run of each character after each line is known from the end."""
    n = len(out)
    after: list[tuple[int, int]] = [(0, 0)] * (n + 1)  # (backticks, tildes) closing after line i
    for i in range(n - 1, -1, -1):
        close = _FENCE_CLOSE.match(out[i])
        ticks, tildes = after[i + 1]
        if close:
            run = close.group(1)
            ticks, tildes = (max(ticks, len(run)), tildes) if run[0] == "`" else (ticks, max(tildes, len(run)))
        after[i] = (ticks, tildes)
    i = 0
    while i < n:
        opener = _FENCE_OPEN.match(out[i], starts[i]) if starts[i] >= 0 else None
        i += 1
        if opener is None:
            continue
        run = opener.group(1) or opener.group(2)
        if after[i][0 if run[0] == "`" else 1] < len(run):  # never closed: text, not a fence
            at = starts[i - 1]
            out[i - 1] = out[i - 1][:at] + "\\" + out[i - 1][at:]
            continue
        while i < n:  # inside the block, through the first line that closes it
            close = _FENCE_CLOSE.match(out[i])
            i += 1
            if close and close.group(1)[0] == run[0] and len(close.group(1)) >= len(run):
                break


def lines(text: str, *, lists: bool = False) -> list[str]:
    """``text`` split into lines (at every break ``str.splitlines`` knows), each neutralised: no line
    starts a heading, a thematic break or a block quote (with ``lists``, nor a list or a code fence),
    no fence opens that does not close, no tag opens and no comment closes anywhere."""
    if not (_RISK_START.match(text) or _RISK.search(text)):
        return text.splitlines()
    if "<" in text or "--" in text:
        text = _tags(text)
    out: list[str] = []
    starts: list[int] = []
    for raw in text.splitlines():
        line, start = _line(raw, lists)
        out.append(line)
        starts.append(start)
    if "```" in text or "~~~" in text:
        _unclosed_fences(out, starts)
    return out


def inline(text: str) -> str:
    """``text`` on one line (every run of white space one space), with no tag and no comment end: for
    a value placed in Lorekeeper's own line (an id, a category, a reason)."""
    return _tags(" ".join(text.split()))


def code(text: str) -> str:
    """``text`` as one inline code span (:func:`inline`, then delimited by more backticks than it holds)."""
    value = inline(text)
    longest = max((len(m) for m in re.findall(r"`+", value)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if value.startswith("`") or value.endswith("`") else ""
    return f"{fence}{pad}{value}{pad}{fence}"


def heading(text: str, reserved: Iterable[str] = ()) -> str:
    """``text`` as the text of a heading Lorekeeper writes (after ``## ``): :func:`inline`, a closing
    ``#`` run escaped (it would be dropped), and ``category: `` before a value that reads as one of the
    ``reserved`` titles (a category named "Pinned" is not the Pinned section)."""
    value = inline(text)
    if value.endswith("#"):
        value = value.rstrip("#") + "\\" + value[len(value.rstrip("#")):]
    own = {normalize(title) for title in reserved}
    return f"category: {value}" if own and normalize(value) in own else value
