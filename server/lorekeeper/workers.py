"""Work over every memory of a large store, spread over forked worker processes.

:func:`fork_map` is ``[fn(x) for x in items]``, with the same result in the same order, computed by
worker processes when there are many items. The workers are forked (Linux): they inherit the parent's
state, so only the results travel back. Few items, another system, or a process that did not say it
may fork (:func:`allow_fork`: the ``lore`` command line does; the language and MCP servers never do,
since a fork would copy their threads' locks mid-use) compute it here, serially."""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

#: Below this many items, one process does the work: starting workers costs more than it saves.
PARALLEL_MIN = 4000


def worker_count(items: int, min_items: int = PARALLEL_MIN) -> int:
    """How many processes share ``items`` items: one per core (at most 8; ``LORE_WORKERS`` overrides),
    and one below ``min_items``, where fork is not how processes start, or in a process that did not
    call :func:`allow_fork`."""
    try:
        wanted = int(os.environ.get("LORE_WORKERS", "0"))
    except ValueError:
        wanted = 0
    if wanted <= 0:
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
        wanted = 1 if items < min_items else min(8, cores)
    if sys.platform != "linux" or not _allowed:
        return 1
    return max(1, min(wanted, items))


_allowed = False


def allow_fork(allowed: bool = True) -> None:
    """Let this process fork workers (the command line and the benchmarks), or forbid it (the language
    and MCP servers, on start: their threads may hold locks a child would inherit held)."""
    global _allowed
    _allowed = allowed


#: What the forked workers inherit: the function and its items (set just before the pool starts).
_shared: dict[str, Any] = {}


class _Failed:
    """What a worker sends back for a span where ``fn`` raised: the parent computes that span itself."""


def _run(span: tuple[int, int]) -> list[Any] | _Failed:
    fn, items = _shared["fn"], _shared["items"]
    try:
        return [fn(item) for item in items[span[0] : span[1]]]
    except Exception:  # noqa: BLE001 - raised again by the parent, as the serial path raises it
        return _Failed()


def fork_map(fn: Callable[[T], R], items: Sequence[T], *, min_items: int = PARALLEL_MIN,
             workers: int | None = None) -> list[R]:
    """``[fn(x) for x in items]``, over :func:`worker_count` forked processes when that is more than one
    (``workers`` forces a number: tests). ``fn`` need not be picklable; its results must be. Where ``fn``
    raises in a worker, this process computes that span again, so the error is the serial path's."""
    count = worker_count(len(items), min_items) if workers is None else workers
    if count <= 1 or not items:
        return [fn(item) for item in items]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    size = -(-len(items) // (count * 4))  # a few spans a worker: a busy core does not hold up the rest
    spans = [(start, min(start + size, len(items))) for start in range(0, len(items), size)]
    _shared.update(fn=fn, items=items)
    try:
        # A worker lives for one call: collecting would only walk (and copy) the heap it inherited.
        with ProcessPoolExecutor(count, mp_context=multiprocessing.get_context("fork"), initializer=gc.disable) as pool:
            parts = list(pool.map(_run, spans))
    finally:
        _shared.clear()
    out: list[R] = []
    for (start, end), part in zip(spans, parts, strict=True):
        out.extend([fn(item) for item in items[start:end]] if isinstance(part, _Failed) else part)
    return out
