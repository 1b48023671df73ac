"""What a run learns that holds until the files change is kept for the next run (editor starts and
`lore check-stale` on large repositories): which asked-about words each code file mentions, kept by the
file's size and time; when each memory file was added, kept by the commit checked out. A kept answer is
the answer a fresh run gives."""

from __future__ import annotations

import os

from lorekeeper.refs.index import CodeIndex
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
