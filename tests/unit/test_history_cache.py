"""The history cache after HEAD moves. Git's answers are kept for the commit checked out; after a commit
or a pull, what still holds is kept (answers about a given commit; blames and logs of paths no commit
since touched) and the rest asked again, so that the check gives what it gives from an empty cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from lorekeeper.analysis.staleness.cache import check_cached
from lorekeeper.refs import history as history_module
from lorekeeper.refs.history import GitHistory, still_true
from lorekeeper.workspace import Workspace
from support import Tree, commit, git

A = "a" * 40
B = "b" * 40


def _cache() -> dict[str, object]:
    return {
        "version": 4, "head": A, "before": {"2026-01-01T00:00:00+00:00": B},
        "commits": {A: [A, "2026-01-02T00:00:00+00:00", "two"]},
        "blame": {"AGENTS.md\x00h1": [A], "src/app.py\x00h2": [B], "app/[id]/page.tsx\x00h3": [B]},
        "logs": {
            f"{B}\x00--diff-filter=D\x00--no-renames\x00-1\x00\x00src/app.py": [],
            f"{B}\x00--diff-filter=DR\x00--no-renames\x00\x00docs/": [],
            f"{B}\x00-S\x00run_app\x00--no-renames\x00\x00src/app.py\x00src/main.py": [],
            f"{B}\x00--diff-filter=D\x00\x00lib/*.py": [],
            "HEAD~1\x00--diff-filter=D\x00\x00AGENTS.md": [],
            f"entered\x00`npm run dev`\x00AGENTS.md\x00{B}": [[B, []]],
            f"entered\x00`npm test`\x00AGENTS.md\x00{'0' * 40}": [],
        },
        "greps": {f"{B}\x00*.py\x00\x00run_app": {"run_app": ["src/app.py"]}},
        "renames": {B: {"old.py": "new.py"}},
        "exists": {f"{B}\x00src/app.py": "blob", "HEAD\x00src/app.py": "blob"},
    }


def test_what_names_its_commit_is_kept_and_what_asks_of_head_only_where_nothing_changed() -> None:
    kept = still_true(_cache(), {"src/main.py", "docs/guide/intro.md"})
    assert kept["commits"] == _cache()["commits"]
    assert kept["greps"] == _cache()["greps"] and kept["renames"] == _cache()["renames"]
    assert list(kept["exists"]) == [f"{B}\x00src/app.py"]  # ("HEAD" is another commit now)
    assert "before" not in kept  # the newest commit before a time: asked again
    # Blames of files no commit since touched; not a path git would read as a glob.
    assert list(kept["blame"]) == ["AGENTS.md\x00h1", "src/app.py\x00h2"]
    assert sorted(kept["logs"]) == sorted([
        f"{B}\x00--diff-filter=D\x00--no-renames\x00-1\x00\x00src/app.py",  # untouched
        f"entered\x00`npm run dev`\x00AGENTS.md\x00{B}",  # up to a given commit: fixed
    ])  # docs/ (a file inside it changed), -S over src/main.py (changed), a glob, from no fixed commit: asked again

    # HEAD is not a descendant of the cached one (a checkout elsewhere): only what names its commit.
    elsewhere = still_true(_cache(), None)
    assert elsewhere["blame"] == {}
    assert list(elsewhere["logs"]) == [f"entered\x00`npm run dev`\x00AGENTS.md\x00{B}"]
    assert elsewhere["greps"] == _cache()["greps"]


def _lines(ws_root: Path) -> list[str]:
    report = check_cached(Workspace(ws_root))
    return sorted(f"{f.source}:{f.line} {f.kind} {f.message}" for f in report.findings)


def test_after_commits_the_check_from_the_kept_cache_is_the_check_from_none(tree: Tree) -> None:
    tree.write("src/app.py", "def run_app():\n    pass\n")
    tree.write("src/tools.py", "def helper():\n    pass\n")
    tree.write("docs/guide.md", "# Guide\n")
    tree.write("AGENTS.md", "- Start with `run_app()` in `src/app.py`.\n- Helpers: `src/tools.py`.\n"
                            "- Read `docs/guide.md`.\n")
    commit(tree, "one", date="2026-01-01T10:00:00Z")
    ws = Workspace(tree.root)
    assert _lines(tree.root) == []
    cache = ws.cache_dir
    assert list(cache.glob("history-*.json"))

    # A commit that leaves memory and the named files alone: blames and logs carried over.
    tree.write("README.md", "hello\n")
    commit(tree, "two", date="2026-01-02T10:00:00Z")
    history = GitHistory(tree.root, cache)
    asked: list[str] = []
    run = history._run  # pyright: ignore[reportPrivateUsage]
    history._run = lambda *args, **kw: asked.append(args[0]) or run(*args, **kw)  # type: ignore[method-assign]
    assert history.blame("AGENTS.md") is not None
    assert "blame" not in asked  # kept from the commit before

    # Commits that delete and move what memory names: found, as from an empty cache.
    assert _lines(tree.root) == []
    git(tree.root, "rm", "-q", "src/tools.py")
    commit(tree, "drop tools", date="2026-01-03T10:00:00Z")
    git(tree.root, "mv", "docs/guide.md", "docs/handbook.md")
    commit(tree, "rename guide", date="2026-01-04T10:00:00Z")
    carried = _lines(tree.root)
    for old in cache.glob("*.json"):
        old.unlink()
    fresh = _lines(tree.root)
    assert carried == fresh
    assert any("src/tools.py" in line and "drop tools" in line for line in carried), carried
    assert any("docs/handbook.md" in line for line in carried), carried


def test_a_history_cache_grown_too_large_is_not_carried_to_the_next_commit(tree: Tree,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    tree.write("src/app.py", "def run_app():\n    pass\n")
    tree.write("AGENTS.md", "- Start with `run_app()` in `src/app.py`.\n")
    commit(tree, "one", date="2026-01-01T10:00:00Z")
    cache = Workspace(tree.root).cache_dir
    assert _lines(tree.root) == []
    git(tree.root, "commit", "-q", "--allow-empty", "-m", "two")
    monkeypatch.setattr(history_module, "CARRY_MAX_BYTES", 10)
    history = GitHistory(tree.root, cache)
    asked: list[str] = []
    run = history._run  # pyright: ignore[reportPrivateUsage]
    history._run = lambda *args, **kw: asked.append(args[0]) or run(*args, **kw)  # type: ignore[method-assign]
    assert history.blame("AGENTS.md") is not None
    assert "blame" in asked and "merge-base" not in asked
