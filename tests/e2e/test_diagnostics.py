"""Diagnostics: published for every memory file on start, republished for dependants of a changed file."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from e2e_helpers import pulls, wait_for_diagnostics


async def test_stale_memories_appear_on_start(client: LanguageClient, workspace: Path) -> None:
    claude = (workspace / "CLAUDE.md").as_uri()
    diagnostics = await wait_for_diagnostics(client, claude)
    by_code = {d.code: d for d in diagnostics}
    script = next(d for d in diagnostics if d.code == "stale-script" and "test:e2e" in d.message)
    assert script.source == "lorekeeper" and script.severity == types.DiagnosticSeverity.Error
    line = (workspace / "CLAUDE.md").read_text().splitlines()[9]
    start, end = script.range.start.character, script.range.end.character
    assert script.range.start.line == 9 and line[start:end] == "`pnpm test:e2e`"  # the reference, not the bullet
    assert script.message.startswith('script "test:e2e" is not defined in package.json (removed in ')
    assert script.message.endswith("on 2026-09-14)")  # the commit's subject is the hover's
    assert script.code_description.href.endswith("staleness.md#finding-kinds")
    moved = by_code["moved-path"]
    assert moved.data["fix"] == {"action": "replace-ref", "old": "src/lib/logger.ts", "new": "src/lib/log.ts"}
    entry = (workspace / ".lore/memory/entries/20260612T081500Z-b6c7d8e9f0a1.json").as_uri()
    [symbol] = await wait_for_diagnostics(client, entry)
    assert symbol.code == "stale-symbol"
    assert symbol.message.startswith("b6c7d8e9f0a1 “Refunds must use the payment intent")  # readable in Problems
    text = (workspace / ".lore/memory/entries/20260612T081500Z-b6c7d8e9f0a1.json").read_text().splitlines()
    assert text[symbol.range.start.line][symbol.range.start.character:].startswith('"Refunds must use')


async def test_duplicates_point_at_every_other_copy(client: LanguageClient, workspace: Path) -> None:
    dup = (workspace / ".lore/memory/entries/20260716T130500Z-8f7e6d5c4b3a.json").as_uri()
    diagnostics = await wait_for_diagnostics(client, dup, lambda ds: any(d.code == "duplicate" for d in ds))
    duplicate = next(d for d in diagnostics if d.code == "duplicate")
    [related] = duplicate.related_information
    # The copy with a reference is kept (the more complete one), though it is the older.
    assert related.location.uri.endswith("20260715T130000Z-6d5c4b3a2f1e.json") and related.message == "kept copy"


async def test_pulling_clients_get_every_memory_file_in_one_workspace_report(client: LanguageClient,
                                                                           workspace: Path) -> None:
    await wait_for_diagnostics(client, (workspace / "CLAUDE.md").as_uri())
    if not pulls(client):
        # pushed, one notification per memory file with findings (the duplicates' come with the search that
        # follows the first check: waited for, within 10 s)
        for _ in range(100):
            if len(client.diagnostics) >= 8:
                break
            await asyncio.sleep(0.1)
        assert len(client.diagnostics) >= 8
        return
    report = await client.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(previous_result_ids=[]))
    files = {item.uri.rsplit("/", 1)[-1] for item in report.items}
    assert {"CLAUDE.md", "copilot-instructions.md", "testing.mdc", "AGENTS.md"} <= files
    assert not client.diagnostics  # nothing pushed to a client that pulls


async def test_a_code_change_republishes_the_dependent_memories(client: LanguageClient, workspace: Path) -> None:
    claude = (workspace / "CLAUDE.md").as_uri()
    await wait_for_diagnostics(client, claude, lambda ds: any(d.code == "stale-script" for d in ds))
    pkg_path = workspace / "package.json"
    pkg = json.loads(pkg_path.read_text())
    pkg["scripts"]["test:e2e"] = "playwright test"
    pkg_path.write_text(json.dumps(pkg, indent=2) + "\n")
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=pkg_path.as_uri(), type=types.FileChangeType.Changed)]))
    if getattr(client, "client_name", "") == "neovim":  # no watcher registration: the save is the signal
        client.text_document_did_save(types.DidSaveTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=pkg_path.as_uri())))
    diagnostics = await wait_for_diagnostics(
        client, claude, lambda ds: not any(d.code == "stale-script" and "test:e2e" in d.message for d in ds))
    assert any(d.code == "moved-path" for d in diagnostics)  # the others stay


async def test_fixing_a_memory_clears_its_diagnostics(client: LanguageClient, workspace: Path) -> None:
    path = workspace / ".lore/memory/entries/20260612T081500Z-b6c7d8e9f0a1.json"
    uri = path.as_uri()
    await wait_for_diagnostics(client, uri)
    data = json.loads(path.read_text())
    data["refs"] = [{"path": "src/payments/stripe.ts", "symbol": "StripeClient.createCharge"}]
    path.write_text(json.dumps(data, indent=2) + "\n")
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=uri, type=types.FileChangeType.Changed)]))
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    await wait_for_diagnostics(client, uri, lambda ds: len(ds) == 0)


async def test_a_memory_file_deleted_under_the_server(client: LanguageClient, workspace: Path) -> None:
    path = workspace / ".lore/memory/entries/20260612T081500Z-b6c7d8e9f0a1.json"
    uri = path.as_uri()
    await wait_for_diagnostics(client, uri)
    path.unlink()
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=uri, type=types.FileChangeType.Deleted)]))
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    await wait_for_diagnostics(client, uri, lambda ds: len(ds) == 0)
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=3, character=3)))
    assert hover is None  # and the server keeps serving
    assert await wait_for_diagnostics(client, (workspace / "CLAUDE.md").as_uri())


async def test_one_hostile_file_is_one_diagnostic_and_the_rest_still_works(client: LanguageClient, workspace: Path) -> None:
    claude = (workspace / "CLAUDE.md").as_uri()
    await wait_for_diagnostics(client, claude)
    deep = workspace / ".lore/memory/entries/deep.json"
    deep.write_text('{"id": "deep", "content": "x", "extra": ' + "[" * 5000 + "]" * 5000 + "}")
    fifo = workspace / ".lore/memory/entries/fifo.json"
    import os

    os.mkfifo(fifo)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=p.as_uri(), type=types.FileChangeType.Created) for p in (deep, fifo)]))
    [bad] = await wait_for_diagnostics(client, deep.as_uri(), lambda ds: any(d.code == "invalid-json" for d in ds))
    assert "nested too deeply" in bad.message
    [pipe] = await wait_for_diagnostics(client, fifo.as_uri(), lambda ds: any(d.code == "not-a-file" for d in ds))
    assert "not a regular file" in pipe.message
    assert any(d.code == "stale-script" for d in await wait_for_diagnostics(client, claude))


async def test_an_alias_bomb_and_an_impossible_date_are_one_diagnostic_each(client: LanguageClient, workspace: Path) -> None:
    claude = (workspace / "CLAUDE.md").as_uri()
    await wait_for_diagnostics(client, claude)
    laughs = "".join(f"{k}: &a{i} [{', '.join(['lol'] * 9 if i == 0 else [f'*a{i - 1}'] * 9)}]\n"
                     for i, k in enumerate("xyzwvutsr"))
    bomb = workspace / "bomb.memory.md"
    bomb.write_text(f"---\nid: bomb\ntitle: t\n{laughs}code_refs:\n  - file: a.ts\n    extra: *a8\n---\nBoom.\n")
    dated = workspace / "dated.memory.md"
    dated.write_text("---\nid: dated\nreviewed: 2026-02-30\n---\nChecked.\n")
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=p.as_uri(), type=types.FileChangeType.Created) for p in (bomb, dated)]))
    [exploded] = await wait_for_diagnostics(client, bomb.as_uri(), lambda ds: any(d.code == "invalid-mif" for d in ds))
    assert "aliases make field 'code_refs'" in exploded.message and exploded.range.start.line == 12
    [impossible] = await wait_for_diagnostics(client, dated.as_uri(), lambda ds: any(d.code == "invalid-mif" for d in ds))
    assert "'2026-02-30' is not a real date" in impossible.message and impossible.range.start.line == 2
    assert any(d.code == "stale-script" for d in await wait_for_diagnostics(client, claude))
