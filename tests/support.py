"""Test helpers: tiny workspaces built in tmp_path, git, and the real `lore` entry point."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from lorekeeper.facts import open_memory
from lorekeeper.store import Journal, Store
from lorekeeper.workspace import Workspace

LORE = Path(sys.executable).parent / "lore"
REPO = Path(__file__).resolve().parent.parent


class Tree:
    """A workspace under construction."""

    def __init__(self, root: Path):
        self.root = root
        (root / ".lore" / "memory" / "entries").mkdir(parents=True)

    def write(self, relpath: str, content: str | bytes) -> Path:
        path = self.root / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        return path

    def entry(self, name: str, data: dict[str, Any] | str | bytes, indent: int | None = 2) -> Path:
        text = data if isinstance(data, (str, bytes)) else json.dumps(data, indent=indent, ensure_ascii=False) + "\n"
        return self.write(f".lore/memory/entries/{name}", text)

    def store(self) -> Store:
        return open_memory(Workspace(self.root))

    def journal(self, command: str | None = None) -> Journal:
        return Journal(Workspace(self.root), command=command, argv=["lore", "test"])


def files(root: Path, journal: bool = True) -> dict[Path, bytes]:
    """Every file under ``root`` with its bytes, but the git-ignored caches of ``.lore/cache`` (any run may
    warm them, a dry run too) and, with ``journal=False``, the journal."""
    return {p: p.read_bytes() for p in root.rglob("*")
            if p.is_file() and "/.lore/cache/" not in p.as_posix() and (journal or "/log/" not in p.as_posix())}


def git(root: Path, *args: str, date: str | None = None) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.com"}
    if date:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = date
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True, env=env).stdout


def commit(tree: Tree, message: str, date: str = "2026-03-01T12:00:00Z") -> str:
    """Commit everything in the tree (initialising the repository first); the short id of the commit."""
    if not (tree.root / ".git").exists():
        git(tree.root, "init", "-q", "-b", "main")
    git(tree.root, "add", "-A")
    git(tree.root, "commit", "-q", "-m", message, date=date)
    return git(tree.root, "rev-parse", "--short=7", "HEAD").strip()


def lore(*args: str, cwd: Path, check_json: bool = False, env: dict[str, str] | None = None
         ) -> subprocess.CompletedProcess[str]:
    """Run the installed `lore` console script (``env``: variables added to this process's)."""
    env = {**os.environ, "NO_COLOR": "1", "LORE_AGENT": "tester", **(env or {})}
    proc = subprocess.run([str(LORE), *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=120)
    if check_json:
        json.loads(proc.stdout)
    return proc
