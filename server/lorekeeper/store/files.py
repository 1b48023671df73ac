"""Reading memory files defensively and writing them atomically."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from ..core.model import Finding, Severity
from ..infra.safeio import NotRegularFile, TooLarge, atomic_delete, atomic_write, read_bytes_stat

__all__ = ["TextFile", "atomic_delete", "atomic_write", "read_text_file"]


@dataclass
class TextFile:
    """A memory file's text with its exact bytes (so a rewrite can keep line endings)."""

    data: bytes
    text: str

    @property
    def newline(self) -> str:
        return "\r\n" if b"\r\n" in self.data else "\n"


def read_text_file(path: Path | str, relpath: str, max_bytes: int, *, follow: bool = True,
                   digests: dict[str, bytes] | None = None,
                   stats: dict[str, list[int]] | None = None) -> tuple[TextFile | None, Finding | None]:
    """Read a memory file as UTF-8 text, or explain why not: too large, binary, not UTF-8, unreadable.
    ``digests``, when given, gets the SHA-256 of the bytes read, under ``relpath``; ``stats`` the file's
    modification time (ns) and size as read.

    The caller has already made sure ``path`` lies inside the workspace (or, ``follow=False``, that it
    was a regular file in a folder inside it: a symlink found there now is refused)."""
    try:
        # a regular file only: a FIFO or a device is refused, never waited on
        data, info = read_bytes_stat(path, max_bytes, follow=follow)
    except NotRegularFile:
        return None, _problem("not-a-file", "not a regular file (a FIFO, a device or a folder); skipped", relpath)
    except TooLarge as exc:
        return None, _problem("file-too-large", f"file is {_human(exc.size)}, over the {_human(max_bytes)} limit for a "
                              "memory file; skipped (raise store.max_file_bytes in .lore/config.toml to read it)", relpath)
    except FileNotFoundError as exc:
        return None, _problem("unreadable-file", f"cannot read: {_dangling(path) or exc.strerror or exc}", relpath)
    except OSError as exc:
        return None, _problem("unreadable-file", f"cannot read: {exc.strerror or exc}", relpath)
    if digests is not None:
        digests[relpath] = hashlib.sha256(data).digest()
    if stats is not None:
        stats[relpath] = [info.st_mtime_ns, info.st_size]
    if b"\x00" in data[:8192]:
        return None, _problem("binary-file", "file holds binary data (NUL bytes), not text; skipped", relpath)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return None, _problem("not-utf8", f"byte {exc.start} is not valid UTF-8; skipped", relpath, line)
    return TextFile(data=data, text=text), None


def _dangling(path: Path | str) -> str | None:
    """What to say of a link that leads nowhere (dyad's CLAUDE.md links to "AGENTS.md" and a newline, which
    no file is named): its target, as written; ``None`` when ``path`` is no link."""
    try:
        target = os.readlink(path)
    except OSError:
        return None
    end = " (the name ends with a line break)" if target != target.rstrip("\r\n") else ""
    return f"a link to {target!r}{end}, which does not exist; an agent that loads this file reads nothing"


def _problem(kind: str, message: str, relpath: str, line: int = 1) -> Finding:
    return Finding(kind=kind, severity=Severity.error, message=message, source=relpath, line=line)


def _human(size: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size} B"
