#!/usr/bin/env python3
"""List the conflicts `lore compact` finds among a repository's instruction files, with both texts, to be
read by hand.

usage: instruction_conflicts.py TREE... [--lore PATH] [--out FILE]

For each TREE (a checkout), `lore compact --dry-run --json` gives the conflicts and `lore list --json`
the texts; nothing is written in the tree (a tree without `.lore/` keeps its caches in the user's cache
folder). Prints a Markdown list, one item per conflict: the reason, then the newer and the older memory
with where each is and its text (700 characters at most), and at the end the number of conflicts per
tree. This is how the false conflicts on public repositories in docs/performance.md were counted: each
item read and judged "the same subject in the same scope, and they disagree" or not.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from typing import Any


def _json(lore: str, tree: str, *args: str) -> dict[str, Any] | None:
    done = subprocess.run([lore, *args, "--json"], cwd=tree, capture_output=True, text=True, check=False)
    try:
        return json.loads(done.stdout)
    except ValueError:
        print(f"{tree}: `lore {' '.join(args)}` gave no JSON: {done.stderr.strip()[-300:]}", file=sys.stderr)
        return None


def main() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="+")
    parser.add_argument("--lore", default=os.path.join(here, "..", ".venv", "bin", "lore"))
    parser.add_argument("--out", help="write the list here instead of printing it")
    args = parser.parse_args()
    lines: list[str] = []
    counts: list[tuple[str, int]] = []
    for tree in args.trees:
        name = os.path.basename(os.path.normpath(tree))
        plan = _json(args.lore, tree, "compact", "--dry-run")
        listed = _json(args.lore, tree, "list") if plan and plan.get("conflicts") else {"entries": []}
        if plan is None or listed is None:
            continue
        conflicts = plan.get("conflicts", [])
        counts.append((name, len(conflicts)))
        texts = {entry["id"]: entry for entry in listed.get("entries", [])}
        for conflict in conflicts:
            lines.append(f"### {name}: {conflict.get('reason', '')}")
            for side, entry_id in zip(("newer", "older"), conflict.get("entries", []), strict=False):
                content = " ".join(str(texts.get(entry_id, {}).get("content", "?")).split())
                lines.append(f"- {side} `{entry_id}`: {content[:700]}")
            lines.append("")
    lines.append("| tree | conflicts |")
    lines.append("|---|---|")
    lines += [f"| {name} | {n} |" for name, n in counts]
    lines.append(f"| all {len(counts)} | {sum(n for _, n in counts)} |")
    text = "\n".join(lines) + "\n"
    if args.out:
        with open(args.out, "w", encoding="utf-8") as out:
            out.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
