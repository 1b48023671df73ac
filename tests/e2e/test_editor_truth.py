"""What the editor shows is true now: a file whose problems went away is cleared even when it is not open
(VS Code keeps a workspace report until it gets another for that file); a staged `git mv` is a move, not
a deletion; a commit re-checks, with nothing else happening. Driven by pytest-lsp with VS Code's
capabilities: its workspace pull sends the result ids of the reports it holds."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from e2e_helpers import open_folder, wait_for_diagnostics
from support import LORE, Tree, commit, git

LOGGER = "".join(f"export function log{n}(message: string) {{\n  console.log('{n}', message);\n}}\n\n" for n in range(8))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    tree = Tree(tmp_path / "shop")
    tree.write("src/logger.ts", LOGGER)
    tree.write("src/old/retry.ts", "export const retries = 3;\n")
    tree.write("CLAUDE.md", "# Shop\n\n- Logging goes through `src/logger.ts`; never call console directly.\n")
    tree.write("AGENTS.md", "# Shop\n\n- Retries are configured in `src/old/retry.ts`.\n")
    commit(tree, "the shop", date="2026-03-01T12:00:00Z")
    return tree.root


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[str(LORE), "serve"]))
async def client(lsp_client: LanguageClient, repo: Path):
    await open_folder(lsp_client, repo, "visual-studio-code")
    yield
    await lsp_client.shutdown_session()


def changed(client: LanguageClient, root: Path, *events: tuple[str, types.FileChangeType]) -> None:
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=(root / path).as_uri(), type=kind) for path, kind in events]))


async def workspace_report(client: LanguageClient, previous: dict[str, str]) -> dict[str, types.WorkspaceDocumentDiagnosticReport]:
    report = await client.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(
        previous_result_ids=[types.PreviousResultId(uri=uri, value=value) for uri, value in previous.items()]))
    return {item.uri: item for item in report.items}


def messages(diagnostics) -> str:
    return " | ".join(d.message for d in diagnostics)


async def test_a_file_whose_problems_went_away_is_cleared_though_it_is_not_open(client: LanguageClient,
                                                                                 repo: Path) -> None:
    agents = (repo / "AGENTS.md").as_uri()
    (repo / "src/old/retry.ts").unlink()
    git(repo, "commit", "-qam", "retries move to the platform", date="2026-04-01T12:00:00Z")
    changed(client, repo, ("src/old/retry.ts", types.FileChangeType.Deleted), (".git/HEAD", types.FileChangeType.Changed))
    await wait_for_diagnostics(client, agents, lambda d: "retry.ts" in messages(d))
    first = await workspace_report(client, {})
    assert isinstance(first[agents], types.WorkspaceFullDocumentDiagnosticReport) and first[agents].items
    held = {uri: item.result_id for uri, item in first.items() if item.result_id}
    assert agents in held  # the client keeps this id and sends it back with its next pull

    # the folder comes back: the only finding of AGENTS.md goes away; the file is not open in the editor
    (repo / "src/old").mkdir(exist_ok=True)
    (repo / "src/old/retry.ts").write_text("export const retries = 3;\n")
    changed(client, repo, ("src/old/retry.ts", types.FileChangeType.Created))
    await wait_for_diagnostics(client, agents, lambda d: not d)
    second = await workspace_report(client, held)
    assert isinstance(second[agents], types.WorkspaceFullDocumentDiagnosticReport) and not second[agents].items
    # a file whose findings did not change is reported unchanged, by its id
    third = await workspace_report(client, {uri: item.result_id for uri, item in second.items() if item.result_id})
    assert all(isinstance(item, types.WorkspaceUnchangedDocumentDiagnosticReport) for item in third.values())


async def test_a_staged_move_is_a_move_and_a_commit_re_checks(client: LanguageClient, repo: Path) -> None:
    claude = (repo / "CLAUDE.md").as_uri()
    assert claude not in await workspace_report(client, {})  # nothing to say once the first check is done
    # mid-refactor: the file is moved in the editor and edited (git knows nothing yet)
    (repo / "src/logger.ts").rename(repo / "src/log.ts")
    (repo / "src/log.ts").write_text(LOGGER.replace("log0(message: string)", "log0(message: string, level = 'info')"))
    changed(client, repo, ("src/logger.ts", types.FileChangeType.Deleted), ("src/log.ts", types.FileChangeType.Created))
    found = await wait_for_diagnostics(client, claude, lambda d: "logger.ts" in messages(d))
    assert "deleted in the working tree" in messages(found)
    # `git add -A`: the index holds a rename (edited after the move: git's rename detection still sees it)
    git(repo, "add", "-A")
    changed(client, repo, (".git/index", types.FileChangeType.Changed))
    found = await wait_for_diagnostics(client, claude, lambda d: "moved to 'src/log.ts'" in messages(d))
    assert "not committed yet" in messages(found)
    # the commit, and nothing else: HEAD moves, the finding names the commit that moved it
    git(repo, "commit", "-qm", "rename the logger", date="2026-04-02T12:00:00Z")
    changed(client, repo, (".git/HEAD", types.FileChangeType.Changed),
            (".git/refs/heads/main", types.FileChangeType.Changed))
    found = await wait_for_diagnostics(client, claude, lambda d: "not committed yet" not in messages(d))
    assert "moved to 'src/log.ts' in " in messages(found) and "on 2026-04-02" in messages(found)  # the commit
    assert "`" not in messages(found)  # plain text: code quoted as compilers quote it
