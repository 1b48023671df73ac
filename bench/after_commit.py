#!/usr/bin/env python3
"""Time `lore check-stale` after a commit, the check a developer waits for many times a day.

usage: after_commit.py TREE... [--lore PATH] [--runs N]

Each TREE (a checkout) is cloned to a temporary folder (`git clone --shared --no-checkout`: its objects
are read from TREE, nothing in TREE changes) and its files copied there (a checkout from a partial clone
may lack a blob git would need to check out). There, with a fresh user-level cache (LORE_CACHE_DIR): one cold check,
then the median of N runs (default 3) of each of: a warm check (nothing changed); a check after an
empty commit (HEAD moved, no file changed); a check after a commit that adds a line to one instruction
file. Prints the seconds of each, and whether the last check's output equals a check's from no cache.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time

GIT_ENV = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.com"}
AGENT_FILES = ("AGENTS.md", "CLAUDE.md", ".github/copilot-instructions.md", "GEMINI.md", ".cursorrules", ".clinerules")


def check(lore: str, tree: str, cache: str) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run([lore, "check-stale"], cwd=tree, env={**os.environ, "LORE_CACHE_DIR": cache},
                          capture_output=True, text=True, check=False)
    return time.perf_counter() - start, proc.stdout


def git(tree: str, *args: str, env: dict[str, str] | None = None) -> str:
    return subprocess.run(["git", "-C", tree, *args], env={**os.environ, **GIT_ENV, **(env or {})}, check=True,
                          capture_output=True, text=True).stdout.strip()


def commit(tree: str, message: str, path: str | None = None) -> None:
    """Commit nothing, or the file ``path`` as it is, with git's plumbing: a tree built from HEAD's with
    ``--missing-ok`` (a checkout of a partial clone lacks some blobs, which `git commit` refuses)."""
    new_tree = git(tree, "rev-parse", "HEAD^{tree}")
    if path:
        blob = git(tree, "hash-object", "-w", "--", path)
        index = {"GIT_INDEX_FILE": os.path.join(tree, ".git", "bench-index")}
        git(tree, "read-tree", "HEAD", env=index)
        git(tree, "update-index", "--add", "--cacheinfo", f"100644,{blob},{path}", env=index)
        new_tree = git(tree, "write-tree", "--missing-ok", env=index)
    sha = git(tree, "commit-tree", new_tree, "-p", "HEAD", "-m", message)
    git(tree, "update-ref", "HEAD", sha)
    git(tree, "reset", "-q")  # the index from HEAD (trees only)


def main() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="+")
    parser.add_argument("--lore", default=os.path.join(here, "..", ".venv", "bin", "lore"))
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    lore = os.path.abspath(args.lore)
    print("| tree | commits | cold | warm | after an empty commit | after a commit to an agent file | as from no cache |")
    print("|---|---|---|---|---|---|---|")
    for tree in args.trees:
        tree = os.path.abspath(tree)
        work = tempfile.mkdtemp(prefix="lore-after-commit-")
        try:
            clone = os.path.join(work, os.path.basename(tree))
            subprocess.run(["git", "clone", "-q", "--shared", "--no-checkout", tree, clone], check=True,
                           capture_output=True)
            shutil.copytree(tree, clone, symlinks=True, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".git"))
            git(clone, "reset", "-q")  # the index from HEAD (trees only), the files as copied
            commits = git(clone, "rev-list", "--count", "HEAD")
            agent = next((f for f in AGENT_FILES if os.path.isfile(os.path.join(clone, f))), None)
            cache = os.path.join(work, "cache")
            cold, _ = check(lore, clone, cache)
            warm = [check(lore, clone, cache)[0] for _ in range(args.runs)]
            empty, edited = [], []
            for run in range(args.runs):
                commit(clone, f"empty {run}")
                empty.append(check(lore, clone, cache)[0])
                if agent:
                    with open(os.path.join(clone, agent), "a", encoding="utf-8") as fh:
                        fh.write(f"\n- A line added by the benchmark ({run}).\n")
                    commit(clone, f"edit {run}", agent)
                    edited.append(check(lore, clone, cache)[0])
            _, carried = check(lore, clone, cache)
            _, fresh = check(lore, clone, os.path.join(work, "fresh"))
            after_edit = f"{statistics.median(edited):.2f} s ({agent})" if edited else "-"
            print(f"| {os.path.basename(tree)} | {commits} | {cold:.2f} s | {statistics.median(warm):.2f} s "
                  f"| {statistics.median(empty):.2f} s | {after_edit} | {carried == fresh} |", flush=True)
        finally:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
