"""What a run learns that holds until the files change is kept for the next run (editor starts and
`lore check-stale` on large repositories): which asked-about words each code file mentions, kept by the
file's size and time; when each memory file was added, kept by the commit checked out. A kept answer is
the answer a fresh run gives; what a run does not need (when each file was added, for a check) it does
not ask."""

from __future__ import annotations

import os

from lorekeeper.analysis.staleness.cache import check_cached
from lorekeeper.core.model import PENDING, Finding
from lorekeeper.facts import open_memory
from lorekeeper.refs.index import CodeIndex
from lorekeeper.store import Store
from lorekeeper.surfaces.lsp.hover import provenance
from lorekeeper.surfaces.lsp.server import LoreServer
from lorekeeper.workspace import ADDED_TIMES_FILE, Workspace
from support import Tree, commit


def test_the_files_mentioning_a_word_are_read_once_until_they_change(tree: Tree) -> None:
    tree.write("src/pay.py", "def charge():\n    return StripeClient()\n")
    tree.write("src/other.py", "def refund():\n    return 1\n")
    tree.write("src/third.py", "x = charge\n")
    ws = Workspace(tree.root)
    first = CodeIndex(ws)
    assert first.files_mentioning({"charge", "StripeClient.charge"}) == {
        "charge": ["src/pay.py", "src/third.py"], "StripeClient.charge": ["src/pay.py"]}
    first.save()

    read: list[str] = []
    second = CodeIndex(Workspace(tree.root))
    real = second.read
    second.read = lambda path: read.append(path) or real(path)  # type: ignore[method-assign]
    assert second.files_mentioning({"charge"}) == {"charge": ["src/pay.py", "src/third.py"]}
    assert read == []  # every file as it was: answered from the kept words
    # a word not asked before: every file is read for it
    assert second.files_mentioning({"refund"}) == {"refund": ["src/other.py"]} and sorted(read) == [
        "src/other.py", "src/pay.py", "src/third.py"]
    second.save()

    tree.write("src/other.py", "def refund():\n    return charge()\n")  # changed: read again
    stamp = os.stat(tree.root / "src/other.py").st_mtime_ns + 10**9
    os.utime(tree.root / "src/other.py", ns=(stamp, stamp))
    read.clear()
    third = CodeIndex(Workspace(tree.root))
    real3 = third.read
    third.read = lambda path: read.append(path) or real3(path)  # type: ignore[method-assign]
    assert third.files_mentioning({"charge", "refund"}) == {
        "charge": ["src/other.py", "src/pay.py", "src/third.py"], "refund": ["src/other.py"]}
    assert read == ["src/other.py"]


def test_when_memory_files_were_added_is_kept_for_the_commit_checked_out(tree: Tree) -> None:
    tree.write("AGENTS.md", "- Run `make test`.\n")
    commit(tree, "one", date="2026-01-01T10:00:00Z")
    ws = Workspace(tree.root)
    added = ws.added_in("AGENTS.md")
    assert added is not None and added[0].isoformat().startswith("2026-01-01")
    assert (ws.cache_dir / ADDED_TIMES_FILE).is_file()
    assert Workspace(tree.root).added_in("AGENTS.md") == added  # read back as it was

    tree.write("CLAUDE.md", "- Use pnpm.\n")
    commit(tree, "two", date="2026-02-01T10:00:00Z")  # another commit: asked again
    later = Workspace(tree.root)
    assert later.added_in("AGENTS.md") == added
    new = later.added_in("CLAUDE.md")
    assert new is not None and new[0].isoformat().startswith("2026-02-01")


def test_a_check_reads_memory_without_asking_when_its_files_were_added(tree: Tree) -> None:
    """When git added each instruction file (a walk of the whole history, seconds on a large repository)
    dates memories for duplicates, conflicts and hover, not for references: `lore check-stale` and the
    editor's first findings do without it. A store read so is dated afterwards as a full load dates it."""
    tree.write("AGENTS.md", "# Rules\n\n- Run `scripts/gone.sh` before a release.\n- Use pnpm.\n")
    tree.write("scripts/gone.sh", "echo\n")
    commit(tree, "one", date="2026-01-01T10:00:00Z")
    (tree.root / "scripts/gone.sh").unlink()
    commit(tree, "two", date="2026-02-01T10:00:00Z")

    ws = Workspace(tree.root)
    report = check_cached(ws, fork=False)
    assert [(f.source, f.line, f.severity.value) for f in report.findings] == [("AGENTS.md", 3, "error")]
    assert not (ws.cache_dir / ADDED_TIMES_FILE).exists()  # git was not asked when AGENTS.md was added

    store = Store(ws, dates=False)
    store.load()
    assert {(e.created, e.created_from) for e in store.entries} == {(None, PENDING)}
    assert not (ws.cache_dir / ADDED_TIMES_FILE).exists()

    dated = store.dated()
    full = open_memory(Workspace(tree.root))
    assert [(e.id, e.content, e.created, e.created_from) for e in dated.entries] == [
        (e.id, e.content, e.created, e.created_from) for e in full.entries]
    assert {e.created_from for e in dated.entries} == {"git"}
    assert {e.created.isoformat()[:10] for e in dated.entries if e.created} == {"2026-01-01"}
    changed = dated.changes_since(store.serial)  # the store a save would patch: the dated entries named
    assert changed is not None and [e.id for e in changed[1]] == [e.id for e in store.entries]
    assert dated.dated() is dated and store.entries[0].created is None  # (the first store is left as it was)


def test_the_editor_shows_its_first_findings_before_the_files_are_dated(tree: Tree) -> None:
    """The language server's first check publishes what the references say from a store read without the
    files' dates (their `git log` runs beside it), and its last snapshot from the dated store."""
    tree.write("CLAUDE.md", "- Run `scripts/gone.sh` first.\n")
    tree.write("scripts/gone.sh", "echo\n")
    commit(tree, "one", date="2026-01-01T10:00:00Z")
    (tree.root / "scripts/gone.sh").unlink()
    commit(tree, "two", date="2026-02-01T10:00:00Z")
    ls = LoreServer()
    ls.open_workspace(str(tree.root))
    seen: list[tuple[tuple[str, ...], list[str]]] = []
    hovers: list[str] = []

    def early(findings: list[Finding]) -> None:
        assert ls.snapshot is not None
        seen.append((tuple(e.created_from for e in ls.snapshot.store.entries),
                     [f.kind for f in findings if f.source == "CLAUDE.md"]))
        hovers.append(provenance(ls, ls.snapshot.store.entries[0]))

    found = ls.full_check(early=early)
    # the working tree's answer, then history's (the file was deleted), each from the store not yet dated
    assert seen == [((PENDING,), ["unresolved-path"]), ((PENDING,), ["stale-path"])]
    assert [f.kind for f in found if f.source == "CLAUDE.md"] == ["stale-path"]
    assert ls.snapshot is not None and ls.checker is not None
    entry = ls.snapshot.store.entries[0]
    assert (entry.created_from, entry.created and entry.created.isoformat()[:10]) == ("git", "2026-01-01")
    assert ls.checker.store is ls.snapshot.store  # a save patches the store the checker goes on from
    # hover says the date is coming, not that it is unknown; then gives it
    assert "created: its file's date is still being read from git" in hovers[0]
    assert "created 2026-01-01 (from git)" in provenance(ls, entry)


def test_a_store_with_nothing_to_date_reads_its_saves_dated(tree: Tree) -> None:
    """An instruction file with no unit yet: nothing to date, and a bullet saved into it afterwards is read
    with its file's date (as a fresh load reads it), not left waiting for one."""
    tree.write("CLAUDE.md", "# Notes\n")
    commit(tree, "one", date="2026-01-01T10:00:00Z")
    store = Store(Workspace(tree.root), dates=False)
    store.load()
    assert store.entries == [] and store.dated() is store
    tree.write("CLAUDE.md", "# Notes\n\n- Use pnpm.\n")
    saved = store.reloaded({"CLAUDE.md"})
    assert saved is not None
    assert [(e.content, e.created_from) for e in saved.entries] == [("Use pnpm.", "git")]
