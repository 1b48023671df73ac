"""Native JSON entries: reading, defaults, round trips that keep what the file had, and bad input."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime

from lorekeeper.core.model import Severity
from lorekeeper.store.native import key_lines
from support import Tree, git


def test_reads_fields_and_defaults(tree: Tree) -> None:
    tree.entry("a.json", {"id": "a1", "content": "Use pnpm", "tags": ["tooling"], "supersedes": "old",
                          "refs": [{"path": "package.json", "symbol": "scripts.test"}, "src/app.py:main"],
                          "created": "2026-03-01T10:00:00Z"})
    store = tree.store()
    assert store.findings == []
    [entry] = store.entries
    assert entry.category == "conventions"  # LeanSpec default
    assert entry.supersedes == ["old"]
    assert [(r.path, r.symbol) for r in entry.refs] == [("package.json", "scripts.test"), ("src/app.py", "main")]
    assert entry.created == datetime(2026, 3, 1, 10, tzinfo=UTC)
    assert entry.created_from == "field"


def test_created_defaults_to_the_commit_that_added_the_file(tree: Tree) -> None:
    git(tree.root, "init", "-q")
    tree.entry("x.json", {"id": "x", "content": "No created field"})
    git(tree.root, "add", "-A")
    git(tree.root, "commit", "-q", "-m", "add", date="2026-02-03T04:05:06Z")
    [entry] = tree.store().entries
    assert entry.created == datetime(2026, 2, 3, 4, 5, 6, tzinfo=UTC)
    assert entry.created_from == "git"


def test_created_falls_back_to_mtime_outside_git(tree: Tree) -> None:
    path = tree.entry("x.json", {"id": "x", "content": "No created field"})
    os.utime(path, (1_700_000_000, 1_700_000_000))
    [entry] = tree.store().entries
    assert entry.created == datetime.fromtimestamp(1_700_000_000, tz=UTC)
    assert entry.created_from == "mtime"


def test_rewrite_keeps_unknown_fields_key_order_and_style(tree: Tree) -> None:
    original = {"content": "Café menus use UTF-8", "id": "k", "x-team": {"owner": "ops"}, "tags": ["a"],
                "category": "decisions", "weird": [1, 2, 3]}
    path = tree.entry("k.json", original, indent=4)
    before = path.read_bytes()
    store = tree.store()
    [entry] = store.entries
    assert store.change_for(entry, {}).after == before  # a no-op rewrite is byte-identical
    change = store.change_for(entry, {"tags": ["a", "b"], "merged_into": "z"})
    text = change.after.decode()
    rewritten = json.loads(text)
    assert list(rewritten) == [*original, "merged_into"]  # order kept, new key last
    assert rewritten["x-team"] == {"owner": "ops"} and rewritten["weird"] == [1, 2, 3]
    assert rewritten["tags"] == ["a", "b"]
    assert '\n    "id": "k"' in text  # four-space indentation kept
    assert "Café" in text  # non-ASCII kept literal, as the file had it


def test_key_lines_finds_top_level_keys_only() -> None:
    text = '{\n  "id": "a",\n  "nested": {"content": 1},\n  "content": "x \\" y",\n  "tags": []\n}\n'
    lines = key_lines(text)
    assert lines["id"][0] == 2
    assert lines["content"][0] == 4
    assert lines["tags"][0] == 5


def test_invalid_json_gives_line_and_others_still_load(tree: Tree) -> None:
    tree.entry("good.json", {"id": "g", "content": "fine"})
    tree.entry("bad.json", '{\n  "id": "b",\n  "content": "oops"\n  "tags": []\n}\n')
    store = tree.store()
    assert [e.id for e in store.entries] == ["g"]
    [finding] = store.findings
    assert finding.kind == "invalid-json" and finding.severity == Severity.error
    assert finding.source == ".lore/memory/entries/bad.json" and finding.line == 4
    assert "Expecting ',' delimiter" in finding.message


def test_wrong_types_are_reported_at_their_line(tree: Tree) -> None:
    tree.entry("t.json", '{\n  "id": "t",\n  "content": "x",\n  "tags": "not-a-list",\n  "confidence": "high"\n}\n')
    tree.entry("c.json", '{\n  "id": "c",\n  "content": 42\n}\n')
    tree.entry("n.json", '{\n  "content": "no id"\n}\n')
    tree.entry("e.json", '{"id": "e", "content": "   "}')
    tree.entry("arr.json", '[1, 2]')
    store = tree.store()
    assert [e.id for e in store.entries] == ["t"]
    [entry] = store.entries
    assert entry.tags == [] and entry.confidence is None  # bad optional fields ignored ...
    assert entry.raw["tags"] == "not-a-list"  # ... but kept in the file's data
    by = {(f.source.rsplit("/", 1)[-1], f.field): f for f in store.findings}
    assert by[("t.json", "tags")].line == 4 and by[("t.json", "tags")].severity == Severity.warning
    assert "must be a list" in by[("t.json", "tags")].message
    assert by[("t.json", "confidence")].line == 5
    assert by[("c.json", "content")].severity == Severity.error and by[("c.json", "content")].line == 3
    assert "must be a string" in by[("c.json", "content")].message
    assert by[("n.json", None)].kind == "missing-field" and "no 'id'" in by[("n.json", None)].message
    assert "empty" in by[("e.json", "content")].message
    assert by[("arr.json", None)].kind == "invalid-entry"


def test_huge_and_binary_files_are_refused_without_parsing(tree: Tree) -> None:
    big = tree.entry("big.json", "")
    with big.open("wb") as handle:
        handle.write(b'{"id": "big", "content": "')
        handle.write(b"a" * (50 * 1024 * 1024))
        handle.write(b'"}')
    tree.entry("junk.json", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + os.urandom(256))
    tree.entry("latin1.json", '{"id": "l", "content": "caf\xe9"}'.encode("latin-1"))
    tree.entry("ok.json", {"id": "ok", "content": "still loads"})
    store = tree.store()
    assert [e.id for e in store.entries] == ["ok"]
    kinds = {f.source.rsplit("/", 1)[-1]: f for f in store.findings}
    assert kinds["big.json"].kind == "file-too-large" and "50.0 MB" in kinds["big.json"].message
    assert kinds["junk.json"].kind == "binary-file"
    assert kinds["latin1.json"].kind == "not-utf8" and kinds["latin1.json"].line == 1


def test_refs_leaving_the_workspace_are_refused(tree: Tree, tmp_path) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("top secret")
    (tree.root / "src").mkdir()
    os.symlink(outside, tree.root / "src" / "link.txt")
    os.symlink(tmp_path, tree.root / "up")
    tree.entry("r.json", '{\n  "id": "r",\n  "content": "refs",\n  "refs": [\n'
               '    {"path": "../../etc/passwd"},\n    {"path": "/etc/passwd"},\n    "src/link.txt",\n'
               '    {"path": "up/secret.txt"},\n    {"path": "~/.ssh/id_rsa"},\n    {"path": "src"}\n  ]\n}\n')
    store = tree.store()
    [entry] = store.entries
    refused = {r.path: r.rejected for r in entry.refs}
    assert refused["src"] is None
    for bad in ("../../etc/passwd", "/etc/passwd", "src/link.txt", "up/secret.txt", "~/.ssh/id_rsa"):
        assert refused[bad], bad
    findings = [f for f in store.findings if f.kind == "ref-outside-root"]
    assert {f.ref for f in findings} == {"../../etc/passwd", "/etc/passwd", "src/link.txt", "up/secret.txt", "~/.ssh/id_rsa"}
    assert all(f.line == 4 and f.severity == Severity.error and f.entry == "r" for f in findings)
    assert "symlink" in next(f.message for f in findings if f.ref == "src/link.txt")


def test_entry_file_symlinked_outside_is_never_read(tree: Tree, tmp_path) -> None:
    outside = tmp_path / "planted.json"
    outside.write_text(json.dumps({"id": "planted", "content": "read from outside the root"}))
    os.symlink(outside, tree.root / ".lore" / "memory" / "entries" / "planted.json")
    store = tree.store()
    assert store.entries == []
    [finding] = store.findings
    assert finding.kind == "file-outside-root" and "never read" in finding.message


def test_duplicate_ids_are_reported(tree: Tree) -> None:
    tree.entry("1.json", {"id": "same", "content": "one"})
    tree.entry("2.json", {"id": "same", "content": "two"})
    store = tree.store()
    assert len(store.entries) == 2
    [finding] = store.findings
    assert finding.kind == "duplicate-id" and finding.source.endswith("2.json")
    assert len(store.find("same")) == 2


def test_a_field_follows_the_same_rules_from_a_file_and_in_the_engine(tree: Tree) -> None:
    """The entry's fields are declared once (model.Entry); the file reader derives its checks from them."""
    import pydantic
    import pytest

    from lorekeeper.core.model import DERIVED_FIELDS, Entry, Location

    tree.entry("n.json", {"id": 12, "content": "Numbered", "created": "2026-03-01", "confidence": 1.5,
                          "supersedes": "old", "access_count": -1, "format": "mif", "section": "x"})
    store = tree.store()
    [entry] = store.entries
    assert (entry.id, entry.created, entry.supersedes) == ("12", datetime(2026, 3, 1, tzinfo=UTC), ["old"])
    assert entry.confidence is None and entry.access_count is None
    assert entry.format == "entry" and entry.section is None  # derived: a file's field of that name is not read
    messages = {f.field: f.message for f in store.findings}
    assert set(messages) == {"confidence", "access_count"}
    assert "must be a number from 0 to 1" in messages["confidence"]
    assert "must be 0 or more" in messages["access_count"]

    built = Entry(id=12, content="x", created=datetime(2026, 3, 1), location=Location(path="a"))  # pyright: ignore[reportArgumentType]
    assert built.id == "12" and built.created == datetime(2026, 3, 1, tzinfo=UTC)
    with pytest.raises(pydantic.ValidationError, match="must be a number from 0 to 1"):
        Entry(id="e", content="x", confidence=1.5, location=Location(path="a"))
    assert {"format", "location", "raw"} <= DERIVED_FIELDS < set(Entry.model_fields)
