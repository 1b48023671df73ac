"""Text from memory files, shown to a person: control characters made visible.

Memory content and fields come from others. Printed raw, an escape sequence can clear the screen, set
the terminal's title, hide text or forge a link (``ESC [ 2 J``, OSC 0 and OSC 8), and a bidirectional
override (U+202E) can make a line read differently from what it holds. Every such character is shown
as its escape (``\\x1b``, ``\\u202e``); tabs and newlines stay."""

from __future__ import annotations

import re

#: C0 controls but tab and newline, DEL, C1 controls, and the bidirectional embeddings, overrides and
#: isolates (and the marks that steer them).
_INVISIBLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\u061c]")


def visible(text: str) -> str:
    """``text`` with every control character written as its escape."""
    return _INVISIBLE.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}",
                          text)
