"""A repository nobody initialised is never written to: opening it (the editor, a check, a context) keeps
Lorekeeper's caches in the user's cache folder; a workspace with `.lore/` keeps them in `.lore/cache`."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from lorekeeper.analysis.staleness.cache import check_cached
from lorekeeper.app.context import render_context
from lorekeeper.facts import open_memory
from lorekeeper.infra import userlevel
from lorekeeper.workspace import Workspace
from support import Tree, commit, files, lore


def test_a_repository_without_lore_is_not_written_to(tree: Tree) -> None:
    shutil.rmtree(tree.root / ".lore")  # a repository nobody ran `lore init` in
    tree.write("CLAUDE.md", "# Notes\n\n- Payments go through `src/pay.py`.\n")
    tree.write("src/pay.py", "def charge(): ...\n")
    commit(tree, "a repository")
    def tree_files() -> dict[Path, bytes]:  # what the repository holds (git's own folder aside)
        return {p: data for p, data in files(tree.root, journal=False).items() if "/.git/" not in p.as_posix()}

    before = tree_files()
    ws = Workspace(tree.root)
    report = check_cached(ws, fork=False)
    render_context(ws, open_memory(ws), budget=500)
    assert lore("check-stale", cwd=tree.root).returncode == 0
    assert lore("context", cwd=tree.root).returncode == 0
    assert tree_files() == before and not (tree.root / ".lore").exists()
    cache = userlevel.workspace_cache(tree.root)
    assert ws.cache_dir == cache and cache.is_dir() and (cache / "stale.json").is_file()
    assert str(cache).startswith(os.environ["LORE_CACHE_DIR"])
    # the second check reads what the first kept there
    assert check_cached(Workspace(tree.root), fork=False).reused == report.checked


def test_an_initialised_workspace_keeps_its_caches_in_lore_cache(tree: Tree) -> None:
    tree.entry("a.json", {"id": "a", "content": "Payments go through `src/pay.py`.", "created": "2026-01-01T00:00:00Z"})
    ws = Workspace(tree.root)
    check_cached(ws, fork=False)
    assert ws.cache_dir == tree.root / ".lore" / "cache" and (tree.root / ".lore/cache/stale.json").is_file()


def test_two_clones_of_one_name_do_not_share_a_cache(tmp_path: Path) -> None:
    one, two = tmp_path / "a" / "shop", tmp_path / "b" / "shop"
    one.mkdir(parents=True)
    two.mkdir(parents=True)
    assert userlevel.workspace_cache(one) != userlevel.workspace_cache(two)
    assert userlevel.workspace_cache(one).name.startswith("shop-")
