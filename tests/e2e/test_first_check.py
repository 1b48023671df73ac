"""The first check of a large store takes seconds: the client sees its progress, and a memory written
while it runs is checked right after it (never lost to the check that was already reading)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from lorekeeper.facts import open_memory
from lorekeeper.workspace import Workspace
from support import LORE

EXTRA = 2000  # entries next to the example's: a first check that lasts long enough to write during it


@pytest.fixture
def big(workspace: Path) -> Path:
    entries = workspace / ".lore" / "memory" / "entries"
    for n in range(EXTRA):
        (entries / f"20260301T000000Z-bulk{n:05d}.json").write_text(json.dumps({
            "id": f"bulk{n:05d}", "category": "conventions",
            "content": f"Handlers of area {n} log through `logger` and return typed errors (case {n}).",
            "refs": [{"path": "src/lib/log.ts", "symbol": "logger"}]}))
    return workspace


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[str(LORE), "serve"]))
async def watcher(lsp_client: LanguageClient, big: Path):
    capabilities = types.ClientCapabilities(
        window=types.WindowClientCapabilities(work_done_progress=True),
        workspace=types.WorkspaceClientCapabilities(
            did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(dynamic_registration=False)))
    await lsp_client.initialize_session(types.InitializeParams(capabilities=capabilities, root_uri=big.as_uri()))
    yield
    await lsp_client.shutdown_session()


async def _until(condition, seconds: float = 60.0) -> None:
    for _ in range(int(seconds / 0.02)):
        if condition():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("timed out")


def _timeline(client: LanguageClient) -> list[tuple[str, str | None]]:
    """The progress the client was shown (pytest-lsp keeps it by token), as (kind, message)."""
    return [(value.kind, value.message) for values in client.progress_reports.values() for value in values]


async def test_a_memory_written_during_the_first_check_is_checked_right_after(watcher: LanguageClient, big: Path) -> None:
    # Written and reported once the first check has read the store (it counts the memories it read):
    # that check cannot have seen it.
    await _until(lambda: any("checking the references" in (m or "") for _, m in _timeline(watcher)))
    late = big / ".lore" / "memory" / "entries" / "20261101T000000Z-late00000001.json"
    late.write_text(json.dumps({"id": "late00000001", "content": "Old helpers live in src/legacy/helpers.ts.",
                                "refs": [{"path": "src/legacy/helpers.ts"}]}))
    watcher.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
        changes=[types.FileEvent(uri=late.as_uri(), type=types.FileChangeType.Created)]))
    assert not any(kind == "end" for kind, _ in _timeline(watcher)), "the first check ended before the write: inconclusive"

    await _until(lambda: any(kind == "end" for kind, _ in _timeline(watcher)))
    # a path that never existed
    await _until(lambda: any(d.code == "unresolved-path" for d in watcher.diagnostics.get(late.as_uri(), [])))
    # The progress named its phases, and ended with the count the status bar shows.
    timeline = _timeline(watcher)
    messages = [message for kind, message in timeline if message]
    assert any("reading memory files" in m for m in messages), messages
    before = len(open_memory(Workspace(big)).entries) - 1  # every memory but the late one
    assert before > EXTRA and f"checking the references of {before} memories" in messages, messages
    assert timeline[-1][0] == "end" and "stale memories" in (timeline[-1][1] or "")


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[str(LORE), "serve"]))
async def plain(lsp_client: LanguageClient, big: Path):
    await lsp_client.initialize_session(types.InitializeParams(capabilities=types.ClientCapabilities(),
                                                               root_uri=big.as_uri()))
    yield
    await lsp_client.shutdown_session()


async def test_stale_memories_are_shown_before_the_duplicate_search_ends(plain: LanguageClient, big: Path) -> None:
    """What the references say is final once they are checked: it is pushed then, and the duplicate and
    conflict findings (a search over every memory) follow in a second push of the files they change."""
    seen: list[set[str]] = []

    def codes() -> set[str]:
        return {str(d.code) for found in list(plain.diagnostics.values()) for d in found}

    for _ in range(3000):  # (the pushes, as the client holds them, every 20 ms)
        now = codes()
        if now and (not seen or seen[-1] != now):
            seen.append(now)
        if now & {"duplicate", "near-duplicate", "contradiction"}:
            break
        await asyncio.sleep(0.02)
    searched = {"duplicate", "near-duplicate", "contradiction"}
    before = [codes for codes in seen if not codes & searched]
    assert before and {"stale-script", "moved-path"} <= before[-1]  # every stale memory, before any duplicate
    assert seen[-1] & searched and before[-1] <= seen[-1]


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[str(LORE), "serve"]))
async def puller(lsp_client: LanguageClient, big: Path):
    capabilities = types.ClientCapabilities(
        text_document=types.TextDocumentClientCapabilities(diagnostic=types.DiagnosticClientCapabilities()),
        workspace=types.WorkspaceClientCapabilities(diagnostics=types.DiagnosticWorkspaceClientCapabilities(
            refresh_support=True)))
    await lsp_client.initialize_session(types.InitializeParams(capabilities=capabilities, root_uri=big.as_uri()))
    yield
    await lsp_client.shutdown_session()


async def test_a_pulling_client_is_answered_before_history_is_read(puller: LanguageClient) -> None:
    """A client that takes refreshes (VS Code) is answered once the references were looked up in the
    working tree (the files memories name that are not there, as information); pulling again, as the
    refreshes the server then sends ask it to, brings what history says, then the duplicates and conflicts."""
    def codes(report) -> set[str]:
        return {str(d.code) for item in report.items for d in getattr(item, "items", [])}

    def messages(report) -> list[str]:
        return [d.message for item in report.items for d in getattr(item, "items", [])]

    searched = {"duplicate", "near-duplicate", "contradiction"}
    first = await puller.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(previous_result_ids=[]))
    assert codes(first) & {"unresolved-path", "stale-path", "moved-path"} and not codes(first) & searched
    pulls = [first]
    for _ in range(300):
        pulls.append(await puller.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(previous_result_ids=[])))
        if codes(pulls[-1]) & searched:
            break
        await asyncio.sleep(0.1)
    assert codes(pulls[-1]) & searched and {"stale-script", "moved-path"} <= codes(pulls[-1])
    # nothing the working tree said stays once history spoke
    assert not any("history is being read" in m for m in messages(pulls[-1]))


class _Recorded(dict):
    """A client's diagnostics by URI, which also keeps every push in order: (uri, diagnostics)."""

    def __init__(self) -> None:
        super().__init__()
        self.pushes: list[tuple[str, list[types.Diagnostic]]] = []

    def __setitem__(self, uri: str, diagnostics) -> None:
        self.pushes.append((uri, list(diagnostics)))
        super().__setitem__(uri, diagnostics)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[str(LORE), "serve"]))
async def recorder(lsp_client: LanguageClient, workspace: Path):
    lsp_client.diagnostics = _Recorded()  # (what pytest-lsp's handler of the pushes writes to)
    await lsp_client.initialize_session(types.InitializeParams(capabilities=types.ClientCapabilities(),
                                                               root_uri=workspace.as_uri()))
    yield
    await lsp_client.shutdown_session()


async def test_the_working_tree_is_shown_before_history_is_read(recorder: LanguageClient, workspace: Path) -> None:
    """The first push of a memory file says which files it names are not there (information: history is
    being read), and the next says what history found: moved, with the fix."""
    claude = (workspace / "CLAUDE.md").as_uri()
    pushes = recorder.diagnostics.pushes  # type: ignore[attr-defined]
    await _until(lambda: any(d.code == "moved-path" for uri, found in pushes if uri == claude for d in found))
    mine = [[(d.range.start.line + 1, d.code, d.severity, d.message) for d in found] for uri, found in pushes if uri == claude]
    first = mine[0]
    assert (11, "unresolved-path", types.DiagnosticSeverity.Information,
            "file 'scripts/seed.ts' is not in the working tree (its history is being read)") in first
    assert (16, "unresolved-path", types.DiagnosticSeverity.Information,
            "file 'src/lib/logger.ts' is not in the working tree (its history is being read)") in first
    assert not any(severity == types.DiagnosticSeverity.Error for *_, severity, _ in first)
    final = next(p for p in mine if any(code == "moved-path" for _, code, *_ in p))
    assert any(line == 16 and code == "moved-path" and severity == types.DiagnosticSeverity.Error
               for line, code, severity, _ in final)
    assert not any("history is being read" in message for *_, message in final)
