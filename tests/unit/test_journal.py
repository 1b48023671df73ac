"""The journal: operations recorded one file each, undo restoring exact bytes, refusals, --last."""

from __future__ import annotations

import json

import pytest

from lorekeeper.store import FileChange, Operation, Refused
from lorekeeper.store.journal import UnknownOperation
from support import Tree


def _entry_bytes(tree: Tree, name: str) -> bytes:
    return (tree.root / ".lore/memory/entries" / name).read_bytes()


def test_add_is_journaled_and_undo_removes_the_file(tree: Tree) -> None:
    store = tree.store()
    result = store.add("Deploys happen from main only", journal=tree.journal(), tags=["ci"])
    assert result.path and (tree.root / result.path).is_file()
    log_files = list((tree.root / ".lore/memory/log").glob("*.json"))
    assert [p.stem for p in log_files] == [result.record.id]
    record = json.loads(log_files[0].read_text())
    assert record["op"] == "add" and record["files"][0]["before"] is None
    assert "Deploys happen from main only" in record["files"][0]["after"]["text"]

    undo = tree.journal().undo(result.record.id)
    assert not (tree.root / result.path).exists()
    assert undo.undoes == result.record.id
    assert tree.store().entries == []


def test_undo_restores_byte_identical_files_and_can_be_undone(tree: Tree) -> None:
    original = '{\n    "id": "u",\n    "content": "x",\n    "zz-unknown": [1, {"a": null}]\n}'  # no final newline
    tree.entry("u.json", original)
    store = tree.store()
    [entry] = store.entries
    op = store.update(entry, {"merged_into": "v", "tags": ["t"]}, journal=tree.journal(), op="merge", reason="test")
    assert json.loads(_entry_bytes(tree, "u.json"))["merged_into"] == "v"
    changed = _entry_bytes(tree, "u.json")

    undo = tree.journal().undo(op.id)
    assert _entry_bytes(tree, "u.json") == original.encode()
    redo = tree.journal().undo(undo.id)  # undoing the undo re-applies the change
    assert _entry_bytes(tree, "u.json") == changed
    with pytest.raises(Refused, match="already undone"):
        tree.journal().undo(undo.id)
    tree.journal().undo(redo.id)
    assert _entry_bytes(tree, "u.json") == original.encode()


def test_undo_refuses_when_the_file_changed_since(tree: Tree) -> None:
    tree.entry("c.json", {"id": "c", "content": "first"})
    store = tree.store()
    op = store.update(store.entries[0], {"content": "second"}, journal=tree.journal(), op="update", reason="t")
    path = tree.root / ".lore/memory/entries/c.json"
    path.write_text('{"id": "c", "content": "edited by hand"}')
    with pytest.raises(Refused, match="changed after operation"):
        tree.journal().undo(op.id)
    assert "edited by hand" in path.read_text()  # nothing was overwritten
    forced = tree.journal().undo(op.id, force=True)
    assert json.loads(path.read_text())["content"] == "first"
    tree.journal().undo(forced.id)  # the hand edit was journaled and comes back
    assert "edited by hand" in path.read_text()


def test_apply_refuses_a_store_that_changed_between_plan_and_apply(tree: Tree) -> None:
    tree.entry("p.json", {"id": "p", "content": "planned"})
    store = tree.store()
    change = store.change_for(store.entries[0], {"content": "new"})
    path = tree.root / ".lore/memory/entries/p.json"
    path.write_text('{"id": "p", "content": "concurrent edit"}')
    with pytest.raises(Refused, match="changed since the change was planned"):
        tree.journal().apply(Operation(op="update", reason="t", changes=[change]))
    assert "concurrent edit" in path.read_text()
    assert not list((tree.root / ".lore/memory/log").glob("*.json"))


def test_a_failed_write_rolls_back_and_leaves_no_record(tree: Tree) -> None:
    tree.entry("a.json", {"id": "a", "content": "one"})
    tree.write(".lore/memory/compacted", "a plain file where the second change needs a folder")
    before = _entry_bytes(tree, "a.json")
    changes = [FileChange(".lore/memory/entries/a.json", before, b'{"id": "a", "content": "two"}\n'),
               FileChange(".lore/memory/compacted/x.md", None, b"# x\n")]
    with pytest.raises(Refused, match="is not a folder"):
        tree.journal().apply(Operation(op="update", reason="t", changes=changes))
    assert _entry_bytes(tree, "a.json") == before  # the first write was put back
    assert not list((tree.root / ".lore/memory/log").glob("*.json"))  # and the record removed


def test_undo_last_reverses_the_latest_command_newest_first(tree: Tree) -> None:
    tree.entry("a.json", {"id": "a", "content": "A"})
    tree.entry("b.json", {"id": "b", "content": "B"})
    early = tree.store().add("An earlier fact", journal=tree.journal("cmd-early"))
    store = tree.store()
    a, b = store.find("a")[0], store.find("b")[0]
    journal = tree.journal("cmd-late")
    first = store.update(a, {"merged_into": "b"}, journal=journal, op="merge", reason="a into b")
    second = store.update(b, {"source_entries": ["a"]}, journal=journal, op="merge", reason="record source")

    last = tree.journal().last_command()
    assert [r.id for r in last] == [second.id, first.id]
    for record in last:
        tree.journal().undo(record.id)
    assert "merged_into" not in json.loads(_entry_bytes(tree, "a.json"))
    assert "source_entries" not in json.loads(_entry_bytes(tree, "b.json"))
    # The next --last skips the undo command and the undone one, reaching the earlier add.
    assert [r.id for r in tree.journal().last_command()] == [early.record.id]


def test_find_by_prefix_or_suffix_and_unknown(tree: Tree) -> None:
    result = tree.store().add("Something", journal=tree.journal())
    op_id = result.record.id
    journal = tree.journal()
    assert journal.find(op_id.rsplit("-", 1)[1]).id == op_id
    assert journal.find(op_id[:11]).id == op_id
    with pytest.raises(UnknownOperation):
        journal.find("nope")


def test_unreadable_journal_record_is_a_finding_not_a_crash(tree: Tree) -> None:
    tree.store().add("Something", journal=tree.journal())
    (tree.root / ".lore/memory/log/zz-broken.json").write_text("{not json")
    records, problems = tree.journal().records()
    assert len(records) == 1
    assert problems[0].kind == "invalid-journal-record" and problems[0].source.endswith("zz-broken.json")


def test_an_operation_reverted_outside_is_recorded_and_undo_does_not_refuse(tree: Tree) -> None:
    # A quick fix merged u into v (two files); the editor's Ctrl+Z then put u back, byte for byte.
    tree.entry("u.json", {"id": "u", "content": "Use pnpm.", "tags": ["a"]})
    tree.entry("v.json", {"id": "v", "content": "use PNPM", "tags": ["b"]})
    from lorekeeper.analysis.compaction.actions import merge_into

    store = tree.store()
    by_id = store.by_id()
    u_before = _entry_bytes(tree, "u.json")
    record = merge_into(store, by_id["u"], by_id["v"], tree.journal(), "test")
    assert [c.path.rsplit("/", 1)[1] for c in record.changes] == ["u.json", "v.json"]
    (tree.root / ".lore/memory/entries/u.json").write_bytes(u_before)  # the editor's undo, saved
    journal = tree.journal()
    assert journal.reconcile({".lore/memory/entries/u.json"}) == []  # v still holds the merge: not reverted
    undo = journal.undo_last()  # completes what the editor began, instead of refusing
    assert undo is not None and [c.path.rsplit("/", 1)[1] for c in undo.changes] == ["v.json"]
    assert json.loads(_entry_bytes(tree, "v.json"))["tags"] == ["b"]

    # A one-file operation reverted by hand is recorded as undone; undo --last then has nothing to do.
    [entry] = [e for e in tree.store().entries if e.id == "u"]
    op = tree.store().update(entry, {"pinned": True}, journal=tree.journal(), op="pin", reason="test")
    (tree.root / ".lore/memory/entries/u.json").write_bytes(u_before)
    [seen] = tree.journal().reconcile({".lore/memory/entries/u.json"})
    assert seen.undoes == op.id and seen.changes == [] and "reverted outside Lorekeeper" in seen.reason
    assert tree.journal().reconcile({".lore/memory/entries/u.json"}) == []  # once
    assert tree.journal().undo_last() is None
