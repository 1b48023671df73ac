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
from collections.abc import Callable, Generator, Sequence
from contextlib import contextmanager
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


@contextmanager
def collection_paused() -> Generator[None]:
    """The garbage collector off for a batch that builds what lives on (a check, a plan): collecting
    meanwhile walks a heap that only grows, for little (it cost 15-30% of a check or plan at 10k+ entries).
    Restored as it was on leaving."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


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
             workers: int | None = None, here: bool = False) -> list[R]:
    """``[fn(x) for x in items]``, over :func:`worker_count` forked processes when that is more than one
    (``workers`` forces a number: tests). ``fn`` need not be picklable; its results must be. Where ``fn``
    raises in a worker, this process computes that span again, so the error is the serial path's.

    ``here``: this process is one of them (one fork fewer, and its results are not sent back). Suited to a
    few even shares (check-stale's halves); over many small items, computing here while the pool's thread
    takes the workers' results in made a plan at 120k entries ~10% slower, so by default this process waits."""
    count = worker_count(len(items), min_items) if workers is None else workers
    if count <= 1 or not items:
        return [fn(item) for item in items]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    size = -(-len(items) // (count * 4))  # a few spans a process: a busy core does not hold up the rest
    spans = [(start, min(start + size, len(items))) for start in range(0, len(items), size)]
    _shared.update(fn=fn, items=items)
    parts: list[list[R] | _Failed | None] = [None] * len(spans)

    def compute(k: int) -> None:
        start, end = spans[k]
        parts[k] = [fn(item) for item in items[start:end]]

    try:
        # A worker lives for one call: collecting would only walk (and copy) the heap it inherited.
        with ProcessPoolExecutor(count - 1 if here else count, mp_context=multiprocessing.get_context("fork"),
                                 initializer=gc.disable) as pool:
            futures = [pool.submit(_run, span) for span in (spans[:-1] if here else spans)]
            try:
                if here:
                    # The last span, then those no worker has started, from the end (a queued future can
                    # still be cancelled); the workers take them from the front.
                    compute(len(spans) - 1)
                    for k in range(len(futures) - 1, -1, -1):
                        if futures[k].cancel():
                            compute(k)
                for k, future in enumerate(futures):
                    if parts[k] is None:
                        parts[k] = future.result()
            except BaseException:
                pool.shutdown(wait=True, cancel_futures=True)
                raise
    finally:
        _shared.clear()
    out: list[R] = []
    for (start, end), part in zip(spans, parts, strict=True):
        out.extend([fn(item) for item in items[start:end]] if isinstance(part, _Failed) else part or [])
    return out
