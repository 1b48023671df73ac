"""End-to-end fixtures: the real `lore serve` over stdio, driven by pytest-lsp impersonating VS Code and
Neovim, on a copy of the example workspace after a refactor made some memories stale."""

from __future__ import annotations

import sys
import typing
from pathlib import Path

import pytest
import pytest_lsp

from support import LORE, REPO

sys.path.insert(0, str(REPO / "scripts"))
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from example_workspace import make, refactor  # noqa: E402

CLIENTS = ["visual-studio-code", "neovim"]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    work = make(tmp_path / "acme-shop")
    refactor(work)
    return work


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[str(LORE), "serve"]), params=CLIENTS)
async def client(lsp_client: LanguageClient, request, workspace: Path):
    lsp_client.applied_edits = []  # type: ignore[attr-defined]
    lsp_client.questions = []  # type: ignore[attr-defined]
    lsp_client.answer = "Apply"  # type: ignore[attr-defined]  # what the user clicks when the server asks

    @lsp_client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
    def show_message_request(client: LanguageClient, params: types.ShowMessageRequestParams):
        client.questions.append(params)  # type: ignore[attr-defined]
        return next((a for a in params.actions or [] if a.title == client.answer), None)  # type: ignore[attr-defined]

    @lsp_client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply_edit(client: LanguageClient, params: types.ApplyWorkspaceEditParams):
        client.applied_edits.append(params)  # type: ignore[attr-defined]
        return types.ApplyWorkspaceEditResult(applied=True)

    lsp_client.lens_refreshes = 0  # type: ignore[attr-defined]

    @lsp_client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def code_lens_refresh(client: LanguageClient, params: None):
        client.lens_refreshes += 1  # type: ignore[attr-defined]
        return None

    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register_capability(client: LanguageClient, params: types.RegistrationParams):
        return None

    # lsprotocol reads any object with a "command" key as a Command, so a CodeAction that carries a
    # command would arrive mangled; real clients tell them apart by the key's type, and so does this.
    def command_or_action(obj, _):
        kind = types.Command if isinstance(obj.get("command"), str) else types.CodeAction
        return lsp_client.protocol._converter.structure(obj, kind)

    lsp_client.protocol._converter.register_structure_hook(
        typing.Union[types.Command, types.CodeAction], command_or_action)  # noqa: UP007 - the key lsprotocol uses

    uri = workspace.as_uri()
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities(request.param),
        root_uri=uri,
        workspace_folders=[types.WorkspaceFolder(uri=uri, name="acme-shop")],
    ))
    lsp_client.client_name = request.param  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()
