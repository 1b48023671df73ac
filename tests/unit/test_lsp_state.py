"""The language server's state, without a client: one snapshot that writers replace whole (the newest
state wins, however checks overlap), settings validated key by key, and quick fixes built from the data
a diagnostic carries."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from lsprotocol import types

from lorekeeper.core.model import CompressFix, MergeFix, ReplaceRefFix, SupersedeFix, VerifyFix
from lorekeeper.facts import open_memory
from lorekeeper.surfaces.lsp import server as server_module
from lorekeeper.surfaces.lsp.code_actions import quick_fixes, received_data
from lorekeeper.surfaces.lsp.diagnostics import DiagnosticData
from lorekeeper.surfaces.lsp.server import LoreServer
from lorekeeper.surfaces.lsp.settings import Settings, layer
from support import Tree, commit


def _entry(tree: Tree, n: int) -> Path:
    return tree.entry(f"e{n:03d}.json", {"id": f"e{n:03d}", "content": f"Fact number {n} about the build: step {n} runs first.",
                                          "category": "pattern"})


def test_overlapping_checks_the_newest_state_wins(tree: Tree, monkeypatch: pytest.MonkeyPatch) -> None:
    """The start-up check is slower than two quick saves that add entries: whatever order the checks
    finish in, the server ends with every entry on disk, and requests never wait meanwhile."""
    for n in range(34):
        _entry(tree, n)
    opened: list[int] = []
    reading = threading.Event()

    def slow_first_open(ws, dates=True):  # the real store, read now; the first check then dawdles
        store = open_memory(ws, dates=dates)
        opened.append(len(store.entries))
        if len(opened) == 1:
            reading.set()
            time.sleep(0.8)
        return store

    monkeypatch.setattr(server_module, "open_memory", slow_first_open)
    ls = LoreServer()
    ls.open_workspace(str(tree.root))
    startup = threading.Thread(target=ls.full_check)
    startup.start()
    assert reading.wait(5)
    saves = []
    for n in (34, 35):  # two quick saves while the start-up check still runs
        path = _entry(tree, n)
        save = threading.Thread(target=ls.refresh, args=({tree.root.joinpath(path).relative_to(tree.root).as_posix()},))
        save.start()
        saves.append(save)
        asked = time.monotonic()
        assert ls.snapshot is None and ls.entries_at((tree.root / "x").as_uri()) == []  # answered at once
        assert time.monotonic() - asked < 0.1
    for thread in (startup, *saves):
        thread.join(10)
    snapshot = ls.snapshot
    assert snapshot is not None
    assert sorted(snapshot.by_id) == [f"e{n:03d}" for n in range(36)]  # the newest state: every entry on disk
    assert opened[0] == 34 and opened[-1] == 36
    # The two saves were asked for while the start-up check ran: one check after it answers both.
    assert len(opened) == 2 and snapshot.generation == 2


def test_a_check_asked_for_after_the_last_one_began_runs_again(tree: Tree) -> None:
    _entry(tree, 1)
    ls = LoreServer()
    ls.open_workspace(str(tree.root))
    ls.full_check()
    first = ls.snapshot
    _entry(tree, 2)
    ls.refresh({".lore/memory/entries/e002.json"})
    assert ls.snapshot is not first and ls.snapshot.generation == first.generation + 1
    assert set(ls.snapshot.by_id) == {"e001", "e002"}
    assert set(first.by_id) == {"e001"}  # a snapshot never changes once published


def test_a_code_change_publishes_a_new_snapshot_with_the_same_store(tree: Tree) -> None:
    tree.write("src/app.py", "def main():\n    return 1\n")
    tree.entry("a.json", {"id": "a", "content": "The entry point is `main` in `src/app.py`.",
                          "refs": [{"path": "src/app.py", "symbol": "main"}]})
    ls = LoreServer()
    ls.open_workspace(str(tree.root))
    ls.full_check()
    before = ls.snapshot
    assert not before.findings_of_entry("a")
    tree.write("src/app.py", "def start():\n    return 1\n")
    changed = ls.refresh({"src/app.py"}, structural=False)
    after = ls.snapshot
    assert after.store is before.store and after.generation == before.generation + 1
    assert [f.kind for f in after.findings_of_entry("a")] == ["unresolved-symbol"]  # no history: it may never have been
    assert [f.kind for f in changed[".lore/memory/entries/a.json"]] == [f.kind for f in after.findings_of_entry("a")]
    assert not before.findings_of_entry("a")  # the old snapshot kept its findings


def test_a_recheck_updates_the_snapshot_as_a_full_rebuild_would(tree: Tree) -> None:
    """After a save, only the re-checked entries' findings are rebuilt; the snapshot must equal one built
    from scratch (findings in order, by file, by entry), with memory findings kept beside them."""
    from lorekeeper.surfaces.lsp.state import Snapshot

    tree.write("src/app.py", "def main():\n    return 1\n\n\ndef helper():\n    return 2\n")
    tree.write("src/other.py", "def gone_soon():\n    return 3\n")
    tree.entry("a.json", {"id": "a", "content": "The entry point is `main` in `src/app.py`.",
                          "refs": [{"path": "src/app.py", "symbol": "main"}]})
    tree.entry("b.json", {"id": "b", "content": "`helper` in `src/app.py` returns two.",
                          "refs": [{"path": "src/app.py", "symbol": "helper"}]})
    tree.entry("c.json", {"id": "c", "content": "`gone_soon` lives in `src/other.py`.",
                          "refs": [{"path": "src/other.py", "symbol": "gone_soon"}]})
    tree.entry("d.json", {"id": "d", "content": "The entry point is `main` in `src/app.py`.",  # a duplicate of a
                          "refs": [{"path": "src/app.py", "symbol": "main"}]})
    tree.write("CLAUDE.md", "# Notes\n\n- Start at `main()` in `src/app.py`.\n- `helper()` in `src/app.py` returns two.\n")
    commit(tree, "initial")  # the bullets' baseline: their blame
    tree.write("src/other.py", "def renamed():\n    return 3\n")  # c is stale from the first check on
    ls = LoreServer()
    ls.open_workspace(str(tree.root))
    ls.full_check()
    assert ls.snapshot.memory_findings  # the duplicate: a memory finding beside the staleness ones

    def same_as_rebuilt() -> None:
        now = ls.snapshot
        rebuilt = Snapshot.build(now.generation, now.ws, now.store, ls.checker, now.config, now.memory_findings)
        assert now.findings == rebuilt.findings
        assert now.by_file == rebuilt.by_file and now.by_entry == rebuilt.by_entry

    a, b, c, d = (f".lore/memory/entries/{n}.json" for n in "abcd")
    steps = (("def start():\n    return 1\n\n\ndef helper():\n    return 2\n", {a, c, d, "CLAUDE.md:3"}),
             ("def start():\n    return 1\n", {a, b, c, d, "CLAUDE.md:3", "CLAUDE.md:4"}),
             ("def main():\n    return 1\n\n\ndef helper():\n    return 2\n", {c}))
    for text, stale in steps:
        tree.write("src/app.py", text)
        ls.refresh({"src/app.py"}, structural=False)
        found = {f.source if f.source != "CLAUDE.md" else f"CLAUDE.md:{f.line}" for f in ls.snapshot.findings
                 if f.kind == "stale-symbol"}
        assert found == stale
        same_as_rebuilt()
    tree.write("src/other.py", "def gone_soon():\n    return 3\n")
    ls.refresh({"src/other.py"}, structural=False)
    assert not [f for f in ls.snapshot.findings if f.kind == "stale-symbol"]
    same_as_rebuilt()


def test_own_output_never_triggers_a_check_and_rules_files_reload_the_store(tree: Tree) -> None:
    from lorekeeper.workspace import Workspace

    ws = Workspace(tree.root)
    for own in (".lore/cache/x.json", ".lore/memory/log/2026.jsonl", ".lore/memory/index.md", ".lore/memory/compacted/a.md"):
        assert ws.is_own_output(own) and not ws.reloads_store(own), own
    for memory in (".cursor/rules/tooling.md", ".github/instructions/ts.instructions.md", "CLAUDE.md",
                   ".lore/memory/entries/a.json", ".lore/config.toml"):
        assert ws.reloads_store(memory) and not ws.is_own_output(memory), memory
    assert not ws.reloads_store("src/app.py")


# -- settings ------------------------------------------------------------------------------------

def test_settings_are_validated_key_by_key() -> None:
    settings, problems = layer(Settings(), {"debounceMs": "fast", "budget": 500, "codeLensInCode": 1,
                                            "server.path": "/usr/bin/lore"})
    assert settings.budget == 500 and settings.debounceMs == 50 and settings.codeLensInCode is False
    assert problems == ["debounceMs='fast' (expected int)", "codeLensInCode=1 (expected bool)"]
    settings, problems = layer(settings, {"debounceMs": -5, "budget": True, "docsUrl": "https://d.example/"})
    assert settings.debounceMs == 50 and settings.budget == 500 and settings.docsUrl == "https://d.example/"
    assert problems[0].startswith("debounceMs=-5 (expected input should be greater than or equal to 0")
    assert problems[1] == "budget=True (expected int)"
    assert layer(settings, {"docsUrl": ""})[0].docsUrl is None


# -- quick fixes from diagnostic data ------------------------------------------------------------

def _titles(actions: list[types.CodeAction]) -> list[tuple[str, str, list]]:
    return [(a.title, a.command.command, a.command.arguments) for a in actions if a.command]


def test_every_fix_kind_has_a_quick_fix() -> None:
    data = [
        DiagnosticData(kind="duplicate", entry="a", fix=MergeFix(entry="a", into="b"), editable=True),
        DiagnosticData(kind="contradiction", entry="a", fix=SupersedeFix(entry="a", by="c"), editable=True),
        DiagnosticData(kind="moved-path", entry="a", ref="src/x.ts", fix=ReplaceRefFix(old="src/x.ts", new="src/y.ts"),
                       editable=True),
        DiagnosticData(kind="verbose-entry", entry="a", fix=CompressFix(entry="a"), editable=True),
        DiagnosticData(kind="changed-since-verified", entry="d", fix=VerifyFix(entry="d"), editable=False),
    ]
    assert _titles(quick_fixes(data)) == [
        ("Merge with b", "lore.merge", ["a", "b"]),
        ("Keep the newer (c)", "lore.keepNewer", ["c", "a"]),
        ("Both are true (stop reporting this pair)", "lore.keepBoth", ["c", "a"]),
        ("Update reference to src/y.ts", "lore.applyFix", ["a", {"action": "replace-ref", "old": "src/x.ts", "new": "src/y.ts"}]),
        ("Summarise this memory (its text stays)", "lore.compress", ["a"]),
        ("Mark as still valid", "lore.verify", ["a"]),
        ("Archive this memory", "lore.archive", ["a"]),
        ("Mark as still valid", "lore.verify", ["d"]),  # an instruction file: verify, never archive
    ]


def test_instruction_file_entries_get_no_rewrite_of_their_text() -> None:
    data = [DiagnosticData(kind="duplicate", entry="i", fix=MergeFix(entry="a", into="b"), editable=False),
            DiagnosticData(kind="verbose-entry", entry="i", fix=CompressFix(entry="i"), editable=False),
            DiagnosticData(kind="stale-path", entry="i", ref="gone/", editable=False)]
    assert _titles(quick_fixes(data)) == [("Mark as still valid", "lore.verify", ["i"])]


def _diagnostic(line: int, data, source: str = "lorekeeper") -> types.Diagnostic:
    return types.Diagnostic(range=types.Range(start=types.Position(line=line, character=2), end=types.Position(line=line, character=9)),
                            message="m", source=source, data=data)


def test_received_data_is_validated_and_limited_to_the_cursor() -> None:
    at = types.Range(start=types.Position(line=4, character=0), end=types.Position(line=4, character=0))
    good = {"kind": "moved-path", "entry": "x", "fix": {"action": "replace-ref", "old": "a", "new": "b"}, "editable": True}
    sent = [
        _diagnostic(4, good),
        _diagnostic(9, {**good, "entry": "y"}),  # another bullet further down
        _diagnostic(9, {**good, "entry": "z"}),  # another line, but the entry at the cursor
        _diagnostic(4, {**good, "fix": {"action": "rm -rf", "old": "a"}}),  # not a fix we know
        _diagnostic(4, "not an object"),
        _diagnostic(4, good, source="eslint"),
    ]
    found = received_data(sent, {"z"}, at)
    assert [(d.entry, d.fix.new) for d in found] == [("x", "b"), ("z", "b")]


async def test_no_command_blocks_the_event_loop_while_a_long_check_runs(tree: Tree) -> None:
    """A check holds the writer lock for seconds on a large store. A command that arrives meanwhile waits
    for it on the writer thread, never on the event loop: hover (which reads the snapshot) keeps
    answering. (Command handlers once took the lock on the loop thread, freezing every request.)"""
    import asyncio

    from lorekeeper.surfaces.lsp.main import create_server

    for n in range(3):
        _entry(tree, n)
    ls = create_server()
    ls.protocol.client_capabilities = types.ClientCapabilities()
    ls.open_workspace(str(tree.root))
    ls.full_check()
    release = threading.Event()
    holding = threading.Event()

    def long_check() -> None:
        with ls.lock:
            holding.set()
            release.wait(10)

    checker = threading.Thread(target=long_check)
    checker.start()
    assert holding.wait(5)
    try:
        keep = ls.protocol.fm.commands["lore.keepNewer"]
        task = asyncio.ensure_future(keep("e000", "e001"))  # (pygls passes the server itself)
        loop = asyncio.get_running_loop()
        for _ in range(5):  # the loop stays free: each turn comes back at once
            started = loop.time()
            await asyncio.sleep(0.02)
            assert loop.time() - started < 0.5
            assert ls.entry_by_id("e000") is not None  # what hover reads
        assert not task.done()  # the command waits for the check, off the loop
    finally:
        release.set()
        checker.join()
    result = await asyncio.wait_for(task, 30)
    assert result["operation"] is not None
    assert "e001" not in {e.id for e in ls.store.live()}
