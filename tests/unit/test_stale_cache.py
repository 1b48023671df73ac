"""Warm check-stale: cached verdicts are reused only while nothing they depend on changed."""

from __future__ import annotations

from lorekeeper.stale_cache import check_cached
from lorekeeper.workspace import Workspace
from support import Tree, git


def setup(tree: Tree) -> None:
    tree.write("a.py", "def alpha(): pass\n")
    tree.write("b.py", "def beta(): pass\n")
    tree.entry("a.json", {"id": "a", "content": "alpha", "refs": ["a.py:alpha"]})
    tree.entry("b.json", {"id": "b", "content": "beta", "refs": ["b.py:beta"]})
    tree.write("CLAUDE.md", "- Config lives in `conf/app.toml`.\n- Call `beta_helper` for retries.\n")
    git(tree.root, "init", "-q")
    git(tree.root, "add", "-A")
    git(tree.root, "commit", "-q", "-m", "initial")


def run(tree: Tree):
    return check_cached(Workspace(tree.root))


def test_warm_run_reuses_everything_and_finds_the_same(tree: Tree) -> None:
    setup(tree)
    cold = run(tree)
    warm = run(tree)
    assert cold.reused == 0 and cold.checked == 4
    assert warm.reused == warm.checked == 4 and warm.checker is None
    assert [f.model_dump() for f in warm.findings] == [f.model_dump() for f in cold.findings]


def test_a_changed_dependency_rechecks_only_its_memory_file(tree: Tree) -> None:
    setup(tree)
    run(tree)
    tree.write("b.py", "def gamma(): pass\n")
    report = run(tree)
    # b.json depends on b.py; CLAUDE.md names a symbol defined nowhere, so it depends on every code file.
    assert report.checker is not None and sorted(report.checker.checked) == ["CLAUDE.md:1", "CLAUDE.md:2", "b"]
    assert report.reused == 1  # a.json
    assert [(f.entry, f.kind) for f in report.findings] == [("b", "stale-symbol"), ("CLAUDE.md:1", "unresolved-path")]


def test_a_path_that_appears_clears_its_finding(tree: Tree) -> None:
    setup(tree)
    assert [f.kind for f in run(tree).findings] == ["unresolved-path"]
    tree.write("conf/app.toml", "debug = false\n")
    assert run(tree).findings == []


def test_a_new_definition_anywhere_revisits_symbol_lookups(tree: Tree) -> None:
    tree.write("old.py", "def beta_helper(): pass\n")
    setup(tree)
    (tree.root / "old.py").unlink()
    git(tree.root, "commit", "-qam", "drop helper")
    assert [f.kind for f in run(tree).findings] == ["unresolved-path", "stale-symbol"]
    tree.write("new.py", "def beta_helper(): return 1\n")
    assert [f.kind for f in run(tree).findings] == ["unresolved-path"]


def test_a_new_commit_voids_the_cache(tree: Tree) -> None:
    setup(tree)
    run(tree)
    tree.write("c.py", "x = 1\n")
    git(tree.root, "add", "-A")
    git(tree.root, "commit", "-q", "-m", "more")
    assert run(tree).reused == 0
