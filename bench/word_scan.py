#!/usr/bin/env python3
"""Time the two ways of finding which code files mention the words memories name, on real trees.

usage: word_scan.py TREE... [--runs N]

For each TREE (a checkout), the staleness check runs once (caches in a temporary folder) to learn the
words it asks the code about (``CodeIndex.files_mentioning``); then every code file is read into memory
and the words are looked for both ways ``lorekeeper.refs.index.whole_words`` can: RE2's set of patterns
(its automaton built as it reads, as in a cold check) and listing every identifier. Prints the words,
files, megabytes and the seconds of each (median of N runs, default 1), and whether both agree.
``RE2_MAX_WORDS`` is set from these figures.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "server"))

from lorekeeper.analysis.staleness.cache import check_cached  # noqa: E402
from lorekeeper.refs import index  # noqa: E402
from lorekeeper.workspace import Workspace  # noqa: E402


def asked_words(tree: str) -> tuple[list[dict[bytes, str]], list[str]]:
    """The word sets a cold check scans code files for, and the code files."""
    asked: list[dict[bytes, str]] = []
    files: list[str] = []
    real_finder, real_mentioning = index.whole_words, index.CodeIndex.files_mentioning

    def finder(words: dict[bytes, str]):  # type: ignore[no-untyped-def]
        asked.append(dict(words))
        return real_finder(words)

    def mentioning(self: index.CodeIndex, names: set[str]) -> dict[str, list[str]]:
        if not files:
            files.extend(sorted(self.code_files))
        return real_mentioning(self, names)

    index.whole_words, index.CodeIndex.files_mentioning = finder, mentioning  # type: ignore[method-assign]
    saved = os.environ.get("LORE_CACHE_DIR")
    try:
        with tempfile.TemporaryDirectory() as cache:
            os.environ["LORE_CACHE_DIR"] = cache  # a cold check (the tree's own .lore/cache aside)
            check_cached(Workspace(tree))
    finally:
        index.whole_words, index.CodeIndex.files_mentioning = real_finder, real_mentioning  # type: ignore[method-assign]
        if saved is None:
            os.environ.pop("LORE_CACHE_DIR", None)
        else:
            os.environ["LORE_CACHE_DIR"] = saved
    return asked, files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="+")
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    if index.re2 is None:
        sys.exit("RE2 is not installed (the `fast` extra); nothing to compare")
    print("| tree | words | code files | MB | RE2 s | identifiers s | same |")
    print("|---|---|---|---|---|---|---|")
    for tree in args.trees:
        tree = os.path.abspath(tree)
        asked, files = asked_words(tree)
        datas = []
        for path in files:
            try:
                with open(os.path.join(tree, path), "rb") as fh:
                    datas.append(fh.read())
            except OSError:
                pass
        for words in asked:
            keys = set(words)

            def identifiers(data: bytes) -> set[str]:
                return {words[m] for m in keys.intersection(index._IDENTIFIER.findall(data))}  # noqa: B023

            re2_times, id_times, same = [], [], True
            for _ in range(args.runs):
                names = [w for w in words if index._IDENTIFIER.fullmatch(w)]
                saved = index.RE2_MAX_WORDS
                index.RE2_MAX_WORDS = len(names) + 1  # RE2 however many words
                try:
                    scan = index.whole_words(words)  # a fresh automaton: built as it reads
                finally:
                    index.RE2_MAX_WORDS = saved
                start = time.perf_counter()
                by_re2 = [scan(d) for d in datas]
                re2_times.append(time.perf_counter() - start)
                start = time.perf_counter()
                listed = [identifiers(d) for d in datas]
                id_times.append(time.perf_counter() - start)
                same = same and by_re2 == listed
            print(f"| {os.path.basename(tree)} | {len(words)} | {len(datas)} | {sum(map(len, datas)) / 1e6:.1f} "
                  f"| {statistics.median(re2_times):.2f} | {statistics.median(id_times):.2f} | {same} |")


if __name__ == "__main__":
    main()
