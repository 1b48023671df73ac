"""The store's lock: commands that write memory take turns (ten concurrent `lore add` of one fact write
one entry), and the language server's writes wait for a CLI command's and the other way round.

An advisory ``flock`` on ``<store>/log/.lock``, held for the whole of a batch (and of `add`'s
check-then-write); re-entrant within a process. On a platform without ``fcntl`` it does nothing."""

from __future__ import annotations

import os
import threading
from collections.abc import Generator
from contextlib import contextmanager

from ..infra.safeio import ensure_dir
from ..workspace import Workspace

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

_held: dict[tuple[str, int], tuple[int, int]] = {}  # (lock path, thread) -> (fd, depth)
_guard = threading.RLock()


@contextmanager
def store_lock(ws: Workspace) -> Generator[None]:
    """Hold the store's lock (waiting for another process that holds it)."""
    if fcntl is None:
        yield
        return
    folder = ensure_dir(ws.log_dir, ws.root)
    key = (str(folder / ".lock"), threading.get_ident())
    with _guard:
        held = _held.get(key)
        if held is not None:
            _held[key] = (held[0], held[1] + 1)
    if held is not None:  # this thread holds it already
        try:
            yield
        finally:
            with _guard:
                fd, depth = _held[key]
                _held[key] = (fd, depth - 1)
        return
    # Another thread of this process takes its own open file: flock makes it wait like another process.
    fd = os.open(key[0], os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0), 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with _guard:
            _held[key] = (fd, 1)
        try:
            yield
        finally:
            with _guard:
                del _held[key]
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
