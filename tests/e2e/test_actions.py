"""Code actions and commands: each edit goes through the engine and the journal."""

from __future__ import annotations

import json
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from e2e_helpers import wait_for_diagnostics


async def actions(client: LanguageClient, path: Path, line: int) -> list[types.CodeAction]:
    result = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=path.as_uri()),
        range=types.Range(start=types.Position(line=line, character=0), end=types.Position(line=line, character=0)),
        context=types.CodeActionContext(diagnostics=client.diagnostics.get(path.as_uri(), []))))
    return list(result or [])


async def run(client: LanguageClient, action: types.CodeAction):
    assert action.command is not None
    return await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command=action.command.command, arguments=action.command.arguments))


async def test_update_reference_on_a_moved_file(client: LanguageClient, workspace: Path) -> None:
    claude = workspace / "CLAUDE.md"
    await wait_for_diagnostics(client, claude.as_uri())
    found = await actions(client, claude, 15)
    titles = [a.title for a in found]
    assert "Update reference to src/lib/log.ts" in titles and "Mark as still valid" in titles
    assert "Archive this memory" not in titles  # instruction files keep their text
    result = await run(client, next(a for a in found if a.title.startswith("Update reference")))
    assert result["operation"]
    assert "`src/lib/log.ts`" in claude.read_text().splitlines()[15]
    await wait_for_diagnostics(client, claude.as_uri(), lambda ds: not any(d.code == "moved-path" for d in ds))


async def test_merge_with_the_other_copy(client: LanguageClient, workspace: Path) -> None:
    # The copy with a reference is the more complete one: it survives, whichever is newer.
    dup = workspace / ".lore/memory/entries/20260716T130500Z-8f7e6d5c4b3a.json"
    keeper = workspace / ".lore/memory/entries/20260715T130000Z-6d5c4b3a2f1e.json"
    await wait_for_diagnostics(client, dup.as_uri())
    found = await actions(client, dup, 3)
    merge = next(a for a in found if a.title == "Merge with 6d5c4b3a2f1e")
    assert merge.kind == types.CodeActionKind.QuickFix and merge.is_preferred
    await run(client, merge)
    assert json.loads(dup.read_text())["merged_into"] == "6d5c4b3a2f1e"
    await wait_for_diagnostics(client, dup.as_uri(), lambda ds: len(ds) == 0)
    log = await client.workspace_execute_command_async(types.ExecuteCommandParams(command="lore.showLog"))
    assert log["operations"][0]["op"] == "merge"
    undone = await client.workspace_execute_command_async(types.ExecuteCommandParams(command="lore.undo"))
    assert undone["undone"] == [log["operations"][0]["id"]]
    assert "merged_into" not in json.loads(dup.read_text())
    assert json.loads(keeper.read_text())["tags"] == ["typescript"]


async def test_archive_and_mark_valid(client: LanguageClient, workspace: Path) -> None:
    entry = workspace / ".lore/memory/entries/20260612T081500Z-b6c7d8e9f0a1.json"
    await wait_for_diagnostics(client, entry.as_uri())
    found = {a.title: a for a in await actions(client, entry, 3)}
    await run(client, found["Mark as still valid"])
    data = json.loads(entry.read_text())
    assert data["verified"].endswith("Z") and data["fingerprints"]
    await run(client, found["Archive this memory"])
    assert json.loads(entry.read_text())["archived"] is True
    await wait_for_diagnostics(client, entry.as_uri(), lambda ds: len(ds) == 0)



async def test_archiving_an_instruction_bullet_is_refused_with_a_message(client: LanguageClient, workspace: Path) -> None:
    claude = workspace / "CLAUDE.md"
    await wait_for_diagnostics(client, claude.as_uri())
    before = claude.read_bytes()
    result = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="lore.archive", arguments=["CLAUDE.md:16"]))
    assert result["operation"] is None and "instruction-file entries" in result["reason"]
    assert client.messages[-1].type == types.MessageType.Warning and "instruction-file" in client.messages[-1].message
    assert claude.read_bytes() == before

def _memory_bytes(workspace: Path) -> dict[str, bytes]:
    return {str(p.relative_to(workspace)): p.read_bytes() for p in (workspace / ".lore/memory").rglob("*")
            if p.is_file() and "/log/" not in str(p)}


async def test_compact_asks_then_applies_the_whole_plan_itself(client: LanguageClient, workspace: Path) -> None:
    claude = workspace / "CLAUDE.md"
    await wait_for_diagnostics(client, claude.as_uri())
    found = await actions(client, claude, 15)
    compact = next(a for a in found if a.title == "Compact memory…")
    assert compact.kind == "source.lorekeeper.compact"
    result = await run(client, compact)
    # The server asked (with the preview shown where the client shows documents) and, told "Apply",
    # wrote every file itself: the client never gets an edit it could apply in part.
    [question] = client.questions
    assert "apply 2 compaction operation(s)" in question.message
    assert client.applied_edits == []
    preview = workspace / ".lore/cache/compaction-preview.md"
    assert "## 1. supersede 9a8b7c6d5e4f by 4e5f6a7b8c9d" in preview.read_text()
    if getattr(client, "client_name", "") == "visual-studio-code":  # declares window.showDocument
        assert [d.uri for d in client.shown_documents] == [preview.as_uri()]
        [reports] = [r for t, r in client.progress_reports.items()
                     if str(t).startswith("lorekeeper-") and r and r[0].title != "Lorekeeper"]  # not the first check's
        assert reports[0].kind == "begin" and reports[0].title == "Compacting memory" and reports[-1].kind == "end"
    assert result["applied"] is True and [o["op"] for o in result["operations"]] == ["supersede", "dedup"]
    old = json.loads((workspace / ".lore/memory/entries/20260503T120000Z-9a8b7c6d5e4f.json").read_text())
    assert old["superseded_by"] == "4e5f6a7b8c9d" and (workspace / ".lore/memory/index.md").is_file()
    log = await client.workspace_execute_command_async(types.ExecuteCommandParams(command="lore.showLog"))
    assert [o["op"] for o in log["operations"][:3]] == ["views", "dedup", "supersede"]
    undone = await client.workspace_execute_command_async(types.ExecuteCommandParams(command="lore.undo"))
    assert len(undone["undone"]) == 3 and "superseded_by" not in json.loads(
        (workspace / ".lore/memory/entries/20260503T120000Z-9a8b7c6d5e4f.json").read_text())


async def test_compact_cancelled_writes_nothing(client: LanguageClient, workspace: Path) -> None:
    await wait_for_diagnostics(client, (workspace / "CLAUDE.md").as_uri())
    client.answer = "Cancel"
    before = _memory_bytes(workspace)
    result = await client.workspace_execute_command_async(types.ExecuteCommandParams(command="lore.compact"))
    assert result["applied"] is False and result["reason"] == "cancelled"
    assert _memory_bytes(workspace) == before
    wrong = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="lore.compact", arguments=["notadict"]))
    assert wrong["applied"] is False and _memory_bytes(workspace) == before


async def test_compact_applies_exactly_the_previewed_plan(client: LanguageClient, workspace: Path) -> None:
    await wait_for_diagnostics(client, (workspace / "CLAUDE.md").as_uri())
    dry = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="lore.compact", arguments=[{"dryRun": True}]))
    assert dry["preview"].startswith(f"# Compaction preview: 2 operation(s), plan {dry['plan']}")
    entry = workspace / ".lore/memory/entries/20260716T130500Z-8f7e6d5c4b3a.json"
    data = json.loads(entry.read_text())
    entry.write_text(json.dumps({**data, "tags": ["edited"]}, indent=2) + "\n")  # memory changes after the preview
    before = _memory_bytes(workspace)
    stale = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="lore.compact", arguments=[{"plan": dry["plan"]}]))
    assert stale["applied"] is False and f"changed since plan {dry['plan']} was previewed" in stale["reason"]
    assert _memory_bytes(workspace) == before and client.questions == []
    fresh = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="lore.compact", arguments=[{"dryRun": True}]))
    done = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="lore.compact", arguments=[{"plan": fresh["plan"]}]))
    assert done["applied"] is True and json.loads(entry.read_text())["merged_into"] == "6d5c4b3a2f1e"


LONG = "Handlers return JSON with an RFC 7807 problem-details body on every error path, never HTML."


async def test_fuse_a_topic_cluster(client: LanguageClient, workspace: Path) -> None:
    entries = workspace / ".lore/memory/entries"
    short = ["Validate bodies with zod.", "Log request ids.", "Errors use problem details."]
    for i, text in enumerate(short):
        (entries / f"api{i}.json").write_text(json.dumps({"id": f"api{i}", "content": text, "tags": ["api"],
                                                         "category": "conventions", "created": f"2026-10-0{i + 1}T00:00:00Z"}))
    await client.workspace_execute_command_async(types.ExecuteCommandParams(command="lore.checkStale"))
    # a list of three short facts would cost more tokens than they do: no fusion is offered
    assert not [a for a in await actions(client, entries / "api1.json", 0) if a.title.startswith("Fuse")]
    for i in (3, 4):  # a long fact written twice: listed once, the list saves tokens
        (entries / f"api{i}.json").write_text(json.dumps({"id": f"api{i}", "content": LONG, "tags": ["api"],
                                                         "category": "conventions", "created": f"2026-10-0{i + 1}T00:00:00Z"}))
    await client.workspace_execute_command_async(types.ExecuteCommandParams(command="lore.checkStale"))
    found = await actions(client, entries / "api1.json", 0)
    fuse = next(a for a in found if a.title.startswith("Fuse"))
    assert fuse.title == "Fuse 5 entries about api"
    result = await run(client, fuse)
    assert result["operation"]
    fused = [json.loads(p.read_text()) for p in entries.glob("*.json") if json.loads(p.read_text()).get("source") == "compaction"]
    assert len(fused) == 1 and fused[0]["source_entries"] == ["api0", "api1", "api2", "api3", "api4"]
    assert fused[0]["content"] == ("api (conventions):\n- Validate bodies with zod.\n- Log request ids.\n"
                                   f"- Errors use problem details.\n- {LONG}")
    assert json.loads((entries / "api2.json").read_text())["merged_into"] == fused[0]["id"]


async def test_a_long_memory_offers_a_summary_and_keeps_its_text(client: LanguageClient, workspace: Path) -> None:
    entry = workspace / ".lore/memory/entries/long.json"
    text = "\n".join(f"Step {i} of the release checklist: confirm with the on-call lead." for i in range(120))
    entry.write_text(json.dumps({"id": "long", "content": text, "category": "runbook", "created": "2026-10-01T00:00:00Z"}))
    await client.workspace_execute_command_async(types.ExecuteCommandParams(command="lore.checkStale"))
    found = await wait_for_diagnostics(client, entry.as_uri(), lambda ds: any(d.code == "verbose-entry" for d in ds))
    assert found[0].data["fix"] == {"action": "compress", "entry": "long"}
    summarise = next(a for a in await actions(client, entry, 0) if a.command and a.command.command == "lore.compress")
    assert summarise.title == "Summarise this memory (its text stays)"
    assert (await run(client, summarise))["operation"]
    written = json.loads(entry.read_text())
    assert written["content"] == text and 0 < len(written["summary"]) <= 500 and written["compressed_at"]
    await wait_for_diagnostics(client, entry.as_uri(), lambda ds: not any(d.code == "verbose-entry" for d in ds))


async def test_status_and_entry_at_for_editor_extensions(client: LanguageClient, workspace: Path) -> None:
    await wait_for_diagnostics(client, (workspace / "CLAUDE.md").as_uri())
    status = await client.workspace_execute_command_async(types.ExecuteCommandParams(command="lore.status"))
    assert status["budget"] == 2000 and status["stages"] == ["rules"]
    assert 250 < status["tokens"] < 400 and status["stale"] == 10
    # One definition of the figures, whichever surface asks: the CLI says the same.
    from support import lore

    cli = json.loads(lore("status", "--json", cwd=workspace).stdout)["tokens"]
    assert status["tokensByScope"] == cli and status["tokens"] == cli["entries"]
    assert status["tokensText"] == f"{cli['entries']} tokens in entries, {cli['instructions']} in instruction files"
    entry = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="lore.entryAt", arguments=[(workspace / "CLAUDE.md").as_uri(), 15]))
    assert entry == "CLAUDE.md:16"


async def test_a_conflict_offers_keep_the_newer_and_both_are_true(client: LanguageClient, workspace: Path) -> None:
    entries = workspace / ".lore/memory/entries"
    older, newer = entries / "zz-older.json", entries / "zz-newer.json"
    older.write_text(json.dumps({"id": "zz-older", "content": "Bundle the widget with webpack.",
                                 "created": "2026-01-02T00:00:00Z"}, indent=2) + "\n")
    newer.write_text(json.dumps({"id": "zz-newer", "content": "We moved the widget from webpack to Vite.",
                                 "created": "2026-06-02T00:00:00Z"}, indent=2) + "\n")
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=p.as_uri(), type=types.FileChangeType.Created) for p in (older, newer)]))
    diagnostics = await wait_for_diagnostics(client, older.as_uri(),
                                             lambda ds: any(d.code == "contradiction" for d in ds))
    assert any("webpack" in d.message for d in diagnostics if d.code == "contradiction")
    found = await actions(client, older, 2)
    titles = [a.title for a in found]
    assert "Keep the newer (zz-newer)" in titles
    both = next(a for a in found if a.title.startswith("Both are true"))
    result = await run(client, both)
    assert result["operation"]
    assert json.loads(newer.read_text())["coexists_with"] == ["zz-older"]
    await wait_for_diagnostics(client, older.as_uri(), lambda ds: not any(d.code == "contradiction" for d in ds))


async def test_the_editors_undo_after_a_quick_fix_is_learnt_by_the_journal(client: LanguageClient, workspace: Path) -> None:
    dup = workspace / ".lore/memory/entries/20260716T130500Z-8f7e6d5c4b3a.json"
    keeper = workspace / ".lore/memory/entries/20260715T130000Z-6d5c4b3a2f1e.json"
    await wait_for_diagnostics(client, dup.as_uri())
    before = {dup: dup.read_bytes(), keeper: keeper.read_bytes()}
    found = await actions(client, dup, 3)
    await run(client, next(a for a in found if a.title == "Merge with 6d5c4b3a2f1e"))
    assert json.loads(dup.read_text())["merged_into"] == "6d5c4b3a2f1e"
    for path, data in before.items():  # Ctrl+Z in both files, then save: the editor writes the old text
        path.write_bytes(data)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=p.as_uri(), type=types.FileChangeType.Changed) for p in before]))
    await wait_for_diagnostics(client, dup.as_uri(), lambda ds: any(d.code == "duplicate" for d in ds))
    log = await client.workspace_execute_command_async(types.ExecuteCommandParams(command="lore.showLog"))
    newest, merge = log["operations"][:2]
    assert newest["op"] == "undo" and "reverted outside Lorekeeper" in newest["reason"]
    assert merge["op"] == "merge" and merge["undone_by"] == newest["id"]
    undone = await client.workspace_execute_command_async(types.ExecuteCommandParams(command="lore.undo"))
    assert undone == {"undone": []}  # nothing left to undo, and no refusal over a change already gone
    assert {p: p.read_bytes() for p in before} == before


async def test_fix_all_updates_every_memory_naming_a_moved_file(client: LanguageClient, workspace: Path) -> None:
    claude = workspace / "CLAUDE.md"
    await wait_for_diagnostics(client, claude.as_uri())
    found = await actions(client, claude, 15)
    fix_all = next(a for a in found if a.title.startswith("Update every reference to src/lib/logger.ts"))
    assert fix_all.title.endswith("(2 memories)")
    result = await run(client, fix_all)
    assert result["operation"] and result["memories"] == 2
    assert "src/lib/logger.ts" not in claude.read_text()
    assert not [p for p in (workspace / ".lore/memory/entries").glob("*.json") if "src/lib/logger.ts" in p.read_text()]
    assert "src/lib/logger.ts → src/lib/log.ts in 2 memories" in client.messages[-1].message
    log = await client.workspace_execute_command_async(types.ExecuteCommandParams(command="lore.showLog"))
    assert log["operations"][0]["op"] == "update-ref" and len(log["operations"][0]["files"]) == 2
    await wait_for_diagnostics(client, claude.as_uri(), lambda ds: not any(d.code == "moved-path" for d in ds))


async def test_a_line_another_instruction_file_states_offers_remove_this_repeat(client: LanguageClient,
                                                                                workspace: Path) -> None:
    copilot = workspace / ".github/copilot-instructions.md"
    copilot.parent.mkdir(exist_ok=True)
    text = "# Copilot\n\n- Money is always integer cents (`totalCents`), never floats.\n- Keep pull requests small.\n"
    copilot.write_text(text)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=copilot.as_uri(), type=types.FileChangeType.Created)]))
    diagnostics = await wait_for_diagnostics(client, copilot.as_uri(), lambda ds: any(d.code == "duplicate" for d in ds))
    [repeat] = [d for d in diagnostics if d.code == "duplicate"]
    assert repeat.range.start.line == 2 and "CLAUDE.md:" in repeat.message
    assert repeat.severity == types.DiagnosticSeverity.Information
    found = await actions(client, copilot, 2)
    remove = next(a for a in found if a.title.startswith("Remove this repeat"))
    assert "kept in CLAUDE.md:" in remove.title
    result = await run(client, remove)
    assert result["operation"]
    assert copilot.read_text() == "# Copilot\n\n- Keep pull requests small.\n"
    assert "Money is always integer cents" in (workspace / "CLAUDE.md").read_text()
    await wait_for_diagnostics(client, copilot.as_uri(), lambda ds: not any(d.code == "duplicate" for d in ds))
    undone = await client.workspace_execute_command_async(types.ExecuteCommandParams(command="lore.undo"))
    assert undone["undone"] == [result["operation"]] and copilot.read_text() == text
