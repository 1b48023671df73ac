#!/usr/bin/env python3
"""Time the language server's first check of real repositories, cold and warm.

usage: first_check.py TREE... [--lore PATH] [--runs N]

For each TREE (a checkout), `lore serve` is started in it as an editor starts it (stdlib LSP client:
real_memory/lspdiag.py) and read until its first check ends: the seconds from the start to the first
published diagnostics and to the end of the check. "cold": the tree's `.lore/cache` and a fresh user-level
cache (LORE_CACHE_DIR) before each run; "warm": the run after, with the caches it left. The median of
N runs (default 1) is printed, with the number of diagnostics (the same cold and warm).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "real_memory"))
from lspdiag import run  # noqa: E402 - the client sits beside the real-memory scorer


def main() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="+")
    parser.add_argument("--lore", default=os.path.join(here, "..", ".venv", "bin", "lore"))
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    print("| tree | cold: first diagnostics / check done | warm: first / done | diagnostics |")
    print("|---|---|---|---|")
    for tree in args.trees:
        tree = os.path.abspath(tree)
        cold: list[tuple[float, float]] = []
        warm: list[tuple[float, float]] = []
        count = 0
        for _ in range(args.runs):
            with tempfile.TemporaryDirectory(prefix="lore-first-check-") as cache:
                shutil.rmtree(os.path.join(tree, ".lore", "cache"), ignore_errors=True)
                env = dict(os.environ, LORE_CACHE_DIR=cache, HF_HUB_OFFLINE="1")
                for times in (cold, warm):
                    stats: dict[str, float] = {}
                    found = run(tree, args.lore, quiet=1.0, timeout=300, env=env, stats=stats)
                    count = sum(len(v) for v in found.values())
                    times.append((stats.get("first", -1.0), stats.get("checked", -1.0)))
        print(f"| {os.path.basename(tree)} | {_median(cold)} | {_median(warm)} | {count} |", flush=True)


def _median(times: list[tuple[float, float]]) -> str:
    first = statistics.median(t[0] for t in times)
    done = statistics.median(t[1] for t in times)
    return f"{first:.1f} / {done:.1f} s" if first >= 0 else f"none / {done:.1f} s"


if __name__ == "__main__":
    main()
