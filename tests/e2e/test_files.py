"""File operations and pull diagnostics: renames offer to update memories; pulling clients get reports."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from e2e_helpers import wait_for_diagnostics


async def test_renaming_a_file_offers_to_update_its_memories(client: LanguageClient, workspace: Path) -> None:
    claude = workspace / "CLAUDE.md"
    await wait_for_diagnostics(client, claude.as_uri())
    old, new = workspace / "src/db/schema.ts", workspace / "src/db/tables.ts"
    edit = await client.workspace_will_rename_files_async(types.RenameFilesParams(files=[
        types.FileRename(old_uri=old.as_uri(), new_uri=new.as_uri())]))
    assert edit is not None
    texts = {c.text_document.uri.rsplit("/", 1)[-1]: c.edits[0].new_text for c in edit.document_changes}
    assert "`src/db/tables.ts`" in texts["copilot-instructions.md"]
    assert '"path": "src/db/tables.ts"' in texts["20260420T083000Z-c2e4f6a8b0d1.json"]
    assert "the schema lives in src/db/tables.ts." in texts["20260420T083000Z-c2e4f6a8b0d1.json"]
    unrelated = await client.workspace_will_rename_files_async(types.RenameFilesParams(files=[
        types.FileRename(old_uri=(workspace / "tsconfig.base.json").as_uri(), new_uri=(workspace / "x.json").as_uri())]))
    assert unrelated is None
    # The user ticks only the JSON entry's edit: the journal records that file, nothing it did not write.
    entry = workspace / ".lore/memory/entries/20260420T083000Z-c2e4f6a8b0d1.json"
    entry.write_text(texts[entry.name])
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=entry.as_uri(), type=types.FileChangeType.Changed)]))
    for _ in range(50):
        log = await client.workspace_execute_command_async(types.ExecuteCommandParams(command="lore.showLog"))
        if log["operations"]:
            break
        await asyncio.sleep(0.1)
    [record] = log["operations"]
    assert record["op"] == "update-ref" and record["files"] == [".lore/memory/entries/" + entry.name]


async def test_code_lens_on_entries(client: LanguageClient, workspace: Path) -> None:
    entry = workspace / ".lore/memory/entries/20260418T102233Z-5c07b9e1aa19.json"
    await wait_for_diagnostics(client, (workspace / "CLAUDE.md").as_uri())
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(
        text_document=types.TextDocumentIdentifier(uri=entry.as_uri())))
    assert [lens.command.title for lens in lenses] == ["2 references · not verified"]
    assert lenses[0].command.command == "lore.describe"
    claude = await client.text_document_code_lens_async(types.CodeLensParams(
        text_document=types.TextDocumentIdentifier(uri=(workspace / "CLAUDE.md").as_uri())))
    by_line = {lens.range.start.line + 1: lens.command.title for lens in claude}
    assert sorted(by_line) == [1, 8, 9, 10, 11, 16, 17, 18, 22, 23], by_line  # no reference, no problem: no lens
    assert by_line[10] == "2 references · not verified · 1 problem"
    assert by_line[17] == "1 reference · not verified"
    # At the top: which agents load the file (the workspace has a CLAUDE.md and copilot-instructions).
    assert by_line[1] == "Loaded by Claude Code, GitHub Copilot (VS Code)"
    assert claude[0].command.command == "lore.loadsOf"
    roles = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="lore.loadsOf", arguments=claude[0].command.arguments))
    assert "- Claude Code: always — the repository's CLAUDE.md, loaded at start" in roles["text"]
    assert "- Codex: not a file it reads" in roles["text"]
    loads = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="lore.loads", arguments=[(workspace / "src/db/schema.ts").as_uri(), {"agents": ["claude", "copilot"]}]))
    assert loads["path"] == "src/db/schema.ts" and [a["agent"] for a in loads["agents"]] == ["claude", "copilot"]
    assert loads["text"].startswith("# What agents load for `src/db/schema.ts`")
    assert [f["path"] for f in loads["agents"][0]["files"]] == ["CLAUDE.md"]
    # A lens click says what it summarises; it changes nothing.
    described = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="lore.describe", arguments=[claude[1].command.arguments[0]]))
    assert described["text"].startswith("Memory CLAUDE.md:") and client.messages[-1].message == described["text"]
    assert not (workspace / ".lore/memory/verified.json").exists()
    # Verified from the palette: the lens and the hover show the date (verified.json for a bullet). A
    # client that asked for lenses while the check ran is told to ask again (VS Code does not otherwise).
    refreshes = client.lens_refreshes  # type: ignore[attr-defined]
    await client.workspace_execute_command_async(types.ExecuteCommandParams(command="lore.verify",
                                                                             arguments=["CLAUDE.md:17"]))
    claude = await client.text_document_code_lens_async(types.CodeLensParams(
        text_document=types.TextDocumentIdentifier(uri=(workspace / "CLAUDE.md").as_uri())))
    today = __import__("datetime").datetime.now(__import__("datetime").timezone.utc).strftime("%Y-%m-%d")
    assert {lens.range.start.line + 1: lens.command.title for lens in claude}[17] == f"1 reference · verified {today}"
    lens_refresh = client.capabilities.workspace.code_lens  # type: ignore[union-attr]
    assert client.lens_refreshes > refreshes or not (lens_refresh and lens_refresh.refresh_support)  # type: ignore[attr-defined]
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=(workspace / "CLAUDE.md").as_uri()),
        position=types.Position(line=16, character=3)))
    assert f"verified {today}" in hover.contents.value and "never verified" not in hover.contents.value


async def test_unknown_and_foreign_documents_are_answered_quietly(client: LanguageClient, workspace: Path) -> None:
    await wait_for_diagnostics(client, (workspace / "CLAUDE.md").as_uri())
    for uri in ("untitled:Untitled-1", "file:///etc/passwd", (workspace / "missing.md").as_uri()):
        hover = await client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=0, character=0)))
        assert hover is None
        lenses = await client.text_document_code_lens_async(types.CodeLensParams(
            text_document=types.TextDocumentIdentifier(uri=uri)))
        assert not lenses


@pytest.mark.parametrize("relpath", [".cursor/rules/tooling.md", ".github/instructions/tooling.instructions.md"])
async def test_saving_a_rules_file_updates_diagnostics(client: LanguageClient, workspace: Path, relpath: str) -> None:
    """Cursor rules and Copilot path instructions are memory files like CLAUDE.md: creating one, then
    saving it again, reloads its entries (whether the client reports saves or watched-file events)."""
    await wait_for_diagnostics(client, (workspace / "CLAUDE.md").as_uri())
    rules = workspace / relpath
    rules.parent.mkdir(parents=True, exist_ok=True)

    def saved(text: str, change: types.FileChangeType) -> None:
        rules.write_text(text)
        client.text_document_did_save(types.DidSaveTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=rules.as_uri())))
        client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
            types.FileEvent(uri=rules.as_uri(), type=change)]))

    entry = workspace / ".lore/memory/entries/20260412T091502Z-3f9a1c2b7d40.json"
    saved("- Always use pnpm; npm and yarn break the lockfile.\n", types.FileChangeType.Created)  # an entry says so too
    found = await wait_for_diagnostics(client, entry.as_uri(), lambda ds: any(d.code == "duplicate" for d in ds))
    duplicate = next(d for d in found if d.code == "duplicate")
    assert any(r.location.uri == rules.as_uri() for r in duplicate.related_information)
    saved("- Run the linter before every commit.\n", types.FileChangeType.Changed)
    await wait_for_diagnostics(client, entry.as_uri(), lambda ds: not any(d.code == "duplicate" for d in ds))
