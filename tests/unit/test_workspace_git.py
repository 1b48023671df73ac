"""The workspace's questions to git and to ignore files: when a memory file was added (one ``git log``
limited to the memory files, which must answer as the whole history does) and which files git would
not ignore (the same with pathspec's pure-Python matcher as with the compiled one it picks)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pathspec
import pytest

from lorekeeper import workspace as workspace_module
from lorekeeper.workspace import Workspace
from support import Tree, git


def _commit(tree: Tree, message: str, date: str) -> None:
    git(tree.root, "add", "-A")
    git(tree.root, "commit", "-q", "-m", message, date=date)


def test_added_in_answers_for_memory_files_as_the_whole_history_does(tree: Tree) -> None:
    git(tree.root, "init", "-q", "-b", "main")
    tree.write("src/app.py", "def main(): pass\n")
    tree.write("CLAUDE.md", "- Run `pytest`\n")
    tree.entry("a.json", {"id": "a", "content": "First"})
    _commit(tree, "start", "2026-01-01T00:00:00Z")
    # A memory file added on a branch merged later: a log limited to paths must still find that commit.
    git(tree.root, "checkout", "-q", "-b", "side")
    tree.write("docs/AGENTS.md", "- Use `make docs`\n")
    tree.entry("b.json", {"id": "b", "content": "Second"})
    tree.entry("c.json", {"id": "c", "content": "Added on both branches"})
    _commit(tree, "side", "2026-03-15T00:00:00Z")
    git(tree.root, "checkout", "-q", "main")
    tree.write("src/other.py", "x = 1\n")
    tree.entry("c.json", {"id": "c", "content": "Added on both branches"})  # the same bytes, later
    _commit(tree, "main moves on", "2026-03-01T00:00:00Z")
    git(tree.root, "merge", "-q", "--no-ff", "-m", "merge side", "side", date="2026-04-01T00:00:00Z")
    tree.write("notes.memory.md", "---\nid: n\n---\nA note\n")
    _commit(tree, "note", "2026-05-01T00:00:00Z")

    whole = workspace_module._git_add_times(tree.root)  # pyright: ignore[reportPrivateUsage]
    ws = Workspace(tree.root)
    for path in ["CLAUDE.md", "docs/AGENTS.md", ".lore/memory/entries/a.json", ".lore/memory/entries/b.json",
                 ".lore/memory/entries/c.json", "notes.memory.md"]:
        assert ws.added_in(path) == whole[path], path
    assert ws.added_in("docs/AGENTS.md")[0] == datetime(2026, 3, 15, tzinfo=UTC)  # type: ignore[index]
    # Added on both branches: the older add, on main. (A log limited to paths simplifies history: the
    # merge holds the side branch's memory folder, so only that branch would be followed.)
    assert ws.added_in(".lore/memory/entries/c.json")[0] == datetime(2026, 3, 1, tzinfo=UTC)  # type: ignore[index]
    # Only the memory files were asked about at first; a code file is asked about on its own.
    assert "src/app.py" not in (ws._git_times or {})  # pyright: ignore[reportPrivateUsage]
    assert ws.added_in("src/app.py") == whole["src/app.py"]
    assert ws.added_in("src/missing.py") is None


def test_added_in_outside_git_knows_nothing(tree: Tree) -> None:
    tree.write("CLAUDE.md", "- Run `pytest`\n")
    assert Workspace(tree.root).added_in("CLAUDE.md") is None


def test_the_file_list_is_the_same_whichever_matcher_pathspec_uses(tree: Tree, monkeypatch: pytest.MonkeyPatch) -> None:
    tree.write(".gitignore", "*.log\nbuild/\n!build/keep.txt\n/top-only.txt\n**/cache/**\ndocs/*.tmp\n# comment\n\\#hash.txt\n")
    tree.write("src/.gitignore", "generated_*\n!generated_but_kept.py\n*.py[cod]\n")
    tree.write(".git/info/exclude", "local-only/\n")
    for path in ["a.log", "keep.py", "build/x.o", "build/keep.txt", "top-only.txt", "sub/top-only.txt",
                 "deep/cache/x.json", "docs/a.tmp", "docs/inner/a.tmp", "#hash.txt", "src/generated_a.py",
                 "src/generated_but_kept.py", "src/m.pyc", "src/m.py", "local-only/x", "node_modules/p/index.js",
                 "src/deeper/generated_b.py", "CLAUDE.md"]:
        tree.write(path, "x\n")
    original = pathspec.GitIgnoreSpec.from_lines
    listed: dict[str, tuple[list[str], list[bool]]] = {}
    probes = ["a.log", "build/", "build/keep.txt", "src/generated_c.py", "src/x.pyc", "deep/cache/", "keep.py"]
    for backend in ("simple", None):  # None: the best pathspec finds (google-re2 when installed)
        monkeypatch.setattr(pathspec.GitIgnoreSpec, "from_lines", classmethod(
            lambda cls, lines, _b=backend: original.__func__(cls, lines, backend=_b)))  # type: ignore[attr-defined]
        ws = Workspace(tree.root)
        listed[str(backend)] = (ws.rel_files(), [ws.ignored(p) for p in probes])
    assert listed["simple"] == listed["None"]
    files, _ = listed["simple"]
    assert "build/keep.txt" not in files  # git does not re-include a file of an excluded folder
    assert {"keep.py", "src/generated_but_kept.py", "src/m.py", "sub/top-only.txt"} <= set(files)
    assert not {"#hash.txt", "a.log", "top-only.txt", "deep/cache/x.json", "docs/a.tmp", "src/generated_a.py", "src/m.pyc",
                "local-only/x", "src/deeper/generated_b.py"} & set(files)


def test_git_agrees_with_the_file_list(tree: Tree) -> None:
    """What git itself lists (tracked and untracked, ignored left out) is what the walker lists."""
    tree.write(".gitignore", "*.log\nbuild/\n**/cache/**\n")
    tree.write("src/.gitignore", "generated_*\n!generated_but_kept.py\n")
    for path in ["a.log", "keep.py", "build/x.o", "deep/cache/x.json", "src/generated_a.py",
                 "src/generated_but_kept.py", "src/m.py"]:
        tree.write(path, "x\n")
    git(tree.root, "init", "-q")
    by_git = set(git(tree.root, "ls-files", "--cached", "--others", "--exclude-standard").split())
    assert set(Workspace(tree.root).rel_files()) == by_git


def test_blame_asked_in_the_background_is_waited_for_once(tree: Tree) -> None:
    """prefetch asks git in the background; blame() and dirty() wait for those answers (one git run
    each), and settle() leaves nothing in flight."""
    from lorekeeper.refs.history import GitHistory

    git(tree.root, "init", "-q", "-b", "main")
    tree.write("CLAUDE.md", "- Run `pytest`\n- Use `make lint`\n")
    tree.write("AGENTS.md", "- Read `docs/`\n")
    _commit(tree, "start", "2026-01-01T00:00:00Z")
    tree.write("CLAUDE.md", "- Run `pytest`\n- Use `make lint`\n- New line\n")  # uncommitted

    runs: list[tuple[str, ...]] = []

    class Counting(GitHistory):
        def _run(self, *args: str, **kwargs: object) -> str | None:  # type: ignore[override]
            runs.append(args)
            return super()._run(*args, **kwargs)  # type: ignore[arg-type]

    history = Counting(tree.root, tree.root / ".lore" / "cache")
    history.prefetch(["CLAUDE.md", "AGENTS.md"])
    lines = history.blame("CLAUDE.md")
    assert history.dirty() == {"CLAUDE.md"}
    history.settle()
    assert not history._inflight  # pyright: ignore[reportPrivateUsage]
    fresh = GitHistory(tree.root, tree.root / ".lore" / "nocache").blame("CLAUDE.md")
    assert lines == fresh and lines is not None and len(lines) == 3 and lines[2] == "0" * 40
    assert sum(1 for a in runs if a[0] == "blame") == 2 and sum(1 for a in runs if a[0] == "status") == 1
    assert history.blame("AGENTS.md") is not None and sum(1 for a in runs if a[0] == "blame") == 2  # cached


def test_a_code_file_the_walk_saw_is_read_without_resolution_and_never_through_a_new_link(tree: Tree, tmp_path: Path) -> None:
    """The walk's regular files are read with O_NOFOLLOW (no per-file resolution); a file swapped for a
    symlink out of the workspace after the walk is not read through, and a link inside still is."""
    import os

    from lorekeeper.refs.index import CodeIndex

    outside = tmp_path / "secret.py"
    outside.write_text("SECRET = 1\n")
    tree.write("app.py", "def main(): pass\n")
    tree.write("src/lib.py", "def helper(): pass\n")
    tree.write("src/real.py", "def real(): pass\n")
    ws = Workspace(tree.root)
    index = CodeIndex(ws)
    assert {"app.py", "src/lib.py", "src/real.py"} <= set(ws.rel_files())
    assert ws.listed_plain("app.py") and ws.listed_plain("src/lib.py")
    assert index.read("app.py") == b"def main(): pass\n"
    (tree.root / "src/lib.py").unlink()
    os.symlink(outside, tree.root / "src/lib.py")  # swapped after the walk: leads out
    assert index.read("src/lib.py") is None
    (tree.root / "app.py").unlink()
    os.symlink(tree.root / "src/real.py", tree.root / "app.py")  # swapped for a link inside the root
    assert index.read("app.py") == b"def real(): pass\n"


def test_refs_judged_after_the_walk_are_refused_as_without_it(tree: Tree, tmp_path: Path) -> None:
    """check_inside skips resolving a regular file the walk saw; every other ref is resolved as before: the
    store refuses the same refs whether the tree was walked before loading (check-stale) or not."""
    import os

    from lorekeeper.store import Store

    (tmp_path / "secret.py").write_text("SECRET = 1\n")
    tree.write("src/app.py", "def main(): pass\n")
    os.symlink(tmp_path / "secret.py", tree.root / "src/out.py")  # a link out, there before the walk
    os.symlink(tree.root / "src/app.py", tree.root / "src/alias.py")  # a link inside
    refs = ["src/app.py", "src/out.py", "src/alias.py", "../secret.py", "src/../src/app.py", "src/missing.py"]
    tree.entry("a.json", {"id": "a", "content": "refs", "refs": refs})

    def rejected(walked: bool) -> list[str]:
        ws = Workspace(tree.root)
        if walked:
            ws.rel_files()
            assert ws.listed_plain("src/app.py") and not ws.listed_plain("src/out.py")
        store = Store(ws)
        store.load()
        return [r.path for r in store.by_id()["a"].refs if r.rejected]

    assert rejected(walked=True) == rejected(walked=False) == ["src/out.py", "../secret.py"]


def test_an_index_told_of_edits_answers_as_a_fresh_index(tree: Tree) -> None:
    """``CodeIndex.forget`` (a save in the editor) re-reads the words of the files edited in place: who
    mentions a name, and where a qualified name is defined (qualifier in the text or in the module
    path), is then what a new index finds, in the same order (the first file is the one fingerprinted)."""
    from lorekeeper.refs.index import CodeIndex

    tree.write("a/jobs.py", "class Service:\n    def run(self): pass\n")
    tree.write("b/jobs.py", "def run(): pass\n")
    tree.write("c/service.py", "def run(): pass\n")
    tree.write("d/other.py", "def run(): pass\n")
    names = {"run", "Service.run", "service.run", "Worker.run"}
    index = CodeIndex(Workspace(tree.root))
    before = index.files_mentioning(names)
    assert before["Service.run"] == ["a/jobs.py"] and before["service.run"] == ["c/service.py"]
    assert before["run"] == ["a/jobs.py", "b/jobs.py", "c/service.py", "d/other.py"]
    assert before["Worker.run"] == []
    tree.write("a/jobs.py", "class Worker:\n    def run(self): pass\n")  # moved to another class
    tree.write("d/other.py", "class Service:\n    def run(self): pass\n")
    index.forget(["a/jobs.py", "d/other.py"])
    fresh = CodeIndex(Workspace(tree.root))
    assert index.files_mentioning(names) == fresh.files_mentioning(names)
    assert index.files_mentioning(names)["Worker.run"] == ["a/jobs.py"]
    assert index.where_defined("Service.run") == fresh.where_defined("Service.run") == ["d/other.py"]
    assert index.where_defined("run") == fresh.where_defined("run")


def test_the_commit_before_a_time_after_head_is_head_without_asking_git(tree: Tree) -> None:
    """An uncommitted entry's time is its file's, which each save moves past HEAD: the newest commit at or
    before it is HEAD, answered without running git; earlier times are git's answer."""
    from lorekeeper.refs.history import GitHistory

    git(tree.root, "init", "-q", "-b", "main")
    tree.write("a.txt", "1\n")
    _commit(tree, "first", "2026-01-01T00:00:00Z")
    first = git(tree.root, "rev-parse", "HEAD").strip()
    tree.write("a.txt", "2\n")
    _commit(tree, "second", "2026-02-01T00:00:00Z")
    head = git(tree.root, "rev-parse", "HEAD").strip()
    runs: list[tuple[str, ...]] = []

    class Counting(GitHistory):
        def _run(self, *args: str, **kwargs: object) -> str | None:  # type: ignore[override]
            runs.append(args)
            return super()._run(*args, **kwargs)  # type: ignore[arg-type]

    history = Counting(tree.root, None)
    assert history.commit_before("2026-01-15T00:00:00+00:00") == first
    assert history.commit_before("2025-12-31T23:59:59+00:00") is None
    asked = sum(1 for a in runs if a[0] == "rev-list")
    assert asked == 2
    for when in ("2026-02-01T00:00:00+00:00", "2026-02-01T01:00:00.250000+01:00", "2026-11-24T10:00:00.123456+00:00"):
        assert history.commit_before(when) == head == git(tree.root, "rev-list", "-1", f"--before={when}", "HEAD").strip()
    assert history.commit_before("2026-01-31T23:00:00-02:00") == head  # 01:00 on Feb 1st (UTC)
    assert sum(1 for a in runs if a[0] == "rev-list") == asked
    assert history.commit_before("2026-01-31T23:59:59+00:00") == first  # a second before HEAD: git is asked
    assert sum(1 for a in runs if a[0] == "rev-list") == asked + 1


def test_after_a_commit_only_the_new_commits_are_asked_when_memory_files_were_added(tree: Tree) -> None:
    """The add times are kept for the commit checked out. After HEAD moves forward (a commit, a pull),
    the commits since are asked, not the whole history again; a file deleted and added back since keeps
    its first add, as the whole history says. After a checkout elsewhere, the whole history is asked."""
    git(tree.root, "init", "-q", "-b", "main")
    tree.write("CLAUDE.md", "- Run `pytest`\n")
    tree.write("src/app.py", "x = 1\n")
    _commit(tree, "start", "2026-01-01T00:00:00Z")
    first = Workspace(tree.root).added_in("CLAUDE.md")
    assert first is not None and first[0] == datetime(2026, 1, 1, tzinfo=UTC)
    kept = Workspace(tree.root).cache_dir / workspace_module.ADDED_TIMES_FILE
    recorded = json.loads(kept.read_text())
    # Mark the kept answer: a run that walks the whole history again would not give it back.
    recorded["times"]["CLAUDE.md"][0] = "2025-06-01T00:00:00+00:00"
    kept.write_text(json.dumps(recorded))

    (tree.root / "CLAUDE.md").unlink()
    _commit(tree, "drop", "2026-02-01T00:00:00Z")
    tree.write("CLAUDE.md", "- Run `pytest -q`\n")
    _commit(tree, "back", "2026-03-01T00:00:00Z")
    moved = Workspace(tree.root).added_in("CLAUDE.md")
    assert moved is not None and moved[0] == datetime(2025, 6, 1, tzinfo=UTC)  # kept, not asked again
    assert json.loads(kept.read_text())["head"] == git(tree.root, "rev-parse", "HEAD").strip()

    # The whole history gives the first add (the kept one, unmarked), not the add back.
    assert workspace_module._git_add_times(tree.root)["CLAUDE.md"][0] == datetime(2026, 1, 1, tzinfo=UTC)  # pyright: ignore[reportPrivateUsage]

    git(tree.root, "checkout", "-q", "HEAD~2")  # not a descendant of the kept commit: asked again
    again = Workspace(tree.root).added_in("CLAUDE.md")
    assert again is not None and again[0] == datetime(2026, 1, 1, tzinfo=UTC)
