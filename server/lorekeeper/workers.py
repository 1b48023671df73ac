"""Work spread over the cores with forked processes, where that is safe and worth it.

Forking copies the parent's memory (the workspace's file list, git's answers, the loaded store), so a
worker starts with what the parent already knows. It is done only on Linux (where fork is the way
processes start and is cheap), only in a process that said it may (the ``lore`` command line: a
server's threads may hold locks a child would inherit held), and only for batches large enough to
repay the start of the workers."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")


def cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def count(items: int, minimum: int) -> int:
    """How many processes share ``items`` pieces of work: one per core (at most 8; ``LORE_WORKERS``
    overrides), one below ``minimum`` items, one where forking is not safe or not how processes start."""
    try:
        wanted = int(os.environ.get("LORE_WORKERS", "0"))
    except ValueError:
        wanted = 0
    if wanted <= 0:
        wanted = 1 if items < minimum else min(8, cores())
    if sys.platform != "linux" or not _allowed:
        return 1
    return max(1, min(wanted, items))


_allowed = False


def allow_fork() -> None:
    """Let this process fork workers (called by the command line, never by a server)."""
    global _allowed
    _allowed = True


#: What forked workers inherit (set just before the pool starts, cleared after).
_shared: dict[str, Any] = {}


def _run(share: Sequence[Any]) -> Any:
    return _shared["fn"](share)


def fork_map(fn: Callable[[Sequence[T]], R], items: Sequence[T], workers: int) -> list[R]:
    """``[fn(share) for share in shares]`` over ``workers`` forked processes, ``items`` split into one
    contiguous share each (in order). ``fn`` may be a closure: workers inherit it; only the shares'
    results travel back (pickled). ``workers <= 1``: in this process."""
    if workers <= 1 or len(items) < 2:
        return [fn(items)]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    size = -(-len(items) // workers)
    shares = [items[i : i + size] for i in range(0, len(items), size)]
    _shared["fn"] = fn
    try:
        with ProcessPoolExecutor(len(shares), mp_context=multiprocessing.get_context("fork")) as pool:
            return list(pool.map(_run, shares))
    finally:
        _shared.clear()
