#!/usr/bin/env python3
"""List what the editor shows on each of a set of checkouts, with the line each finding is on, to be read
by hand.

usage: editor_findings.py TREE... [--lore PATH] [--severity LEVELS] [--kinds K,K] [--out FILE]

For each TREE, `lore serve` is started as an editor would start it (bench/real_memory/lspdiag.py, a
stdlib LSP client), and every published diagnostic is kept; nothing is written in the tree (a tree
without `.lore/` keeps its caches in the user's cache folder). Prints one item per diagnostic of the
chosen severities (LSP numbers: 1 error, 2 warning, 3 information, 4 hint; default `3`) and kinds: the
tree, `path:line`, the kind, the message, and the text of that line; then the count of every
(kind, severity) over all trees. This is how docs/performance.md's figures for the information the editor
shows on public repositories were counted: each item read and judged "the memory is wrong, or worth a
look" or not.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "real_memory"))
from lspdiag import run  # noqa: E402


def _line(tree: str, path: str, number: int) -> str:
    try:
        with open(os.path.join(tree, path), encoding="utf-8", errors="replace") as fh:
            for k, text in enumerate(fh, 1):
                if k == number:
                    return text.strip()
    except OSError:
        pass
    return ""


def main() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="+")
    parser.add_argument("--lore", default=os.path.join(here, "..", ".venv", "bin", "lore"))
    parser.add_argument("--severity", default="3", help="LSP severities to list, e.g. 1,2 (default 3)")
    parser.add_argument("--kinds", help="only these kinds (comma-separated)")
    parser.add_argument("--out", help="write the list here instead of printing it")
    args = parser.parse_args()
    levels = {int(x) for x in args.severity.split(",")}
    kinds = set(args.kinds.split(",")) if args.kinds else None
    out = open(args.out, "w", encoding="utf-8") if args.out else sys.stdout  # noqa: SIM115
    counts: collections.Counter[tuple[str, int]] = collections.Counter()
    for tree in args.trees:
        try:
            found = run(tree, args.lore, quiet=2.0, timeout=300)
        except Exception as error:  # noqa: BLE001 (one tree that fails is said and skipped)
            print(f"{tree}: {error}", file=sys.stderr)
            continue
        name = os.path.basename(os.path.abspath(tree))
        for path, diagnostics in sorted(found.items()):
            for d in sorted(diagnostics, key=lambda d: d["range"]["start"]["line"]):
                kind, severity = str(d.get("code") or ""), int(d.get("severity") or 0)
                counts[(kind, severity)] += 1
                if severity in levels and (kinds is None or kind in kinds):
                    number = d["range"]["start"]["line"] + 1
                    print(f"- {name} {path}:{number} [{kind}] {d['message'][:400]}\n"
                          f"  | {_line(tree, path, number)[:300]}", file=out)
        out.flush()
    print("\n" + "\n".join(f"{kind} (severity {severity}): {n}" for (kind, severity), n in sorted(counts.items())),
          file=out)
    if args.out:
        out.close()


if __name__ == "__main__":
    main()
