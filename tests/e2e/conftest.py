"""End-to-end fixtures: the real `lore serve` over stdio, driven by pytest-lsp impersonating VS Code and
Neovim, on a copy of the example workspace after a refactor made some memories stale."""

from __future__ import annotations

import json
import re
import typing
import shutil
from pathlib import Path

import pytest
import pytest_lsp
from support import LORE, REPO, git
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

CLIENTS = ["visual-studio-code", "neovim"]


def refactor(work: Path) -> None:
    """The refactor of scripts/try: e2e suite and seed script gone, logger renamed, refunds moved out."""
    pkg = json.loads((work / "package.json").read_text())
    for script in ("test:e2e", "db:seed"):
        del pkg["scripts"][script]
    (work / "package.json").write_text(json.dumps(pkg, indent=2) + "\n")
    stripe = work / "src/payments/stripe.ts"
    stripe.write_text(re.sub(r"\n  async refund\(.*?\n  }\n", "\n", stripe.read_text(), flags=re.S))
    git(work, "mv", "src/lib/logger.ts", "src/lib/log.ts")
    server = work / "src/server.ts"
    server.write_text(server.read_text().replace("./lib/logger.js", "./lib/log.js"))
    git(work, "rm", "-rq", "e2e", "scripts/seed.ts")
    git(work, "commit", "-qam", "Refactor", date="2026-09-14T16:30:00Z")


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    work = tmp_path / "acme-shop"
    shutil.copytree(REPO / "examples" / "acme-shop", work)
    git(work, "init", "-q", "-b", "main")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "initial import", date="2026-04-01T10:00:00Z")
    refactor(work)
    return work


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[str(LORE), "serve"]), params=CLIENTS)
async def client(lsp_client: LanguageClient, request, workspace: Path):
    lsp_client.applied_edits = []  # type: ignore[attr-defined]

    @lsp_client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply_edit(client: LanguageClient, params: types.ApplyWorkspaceEditParams):
        client.applied_edits.append(params)  # type: ignore[attr-defined]
        return types.ApplyWorkspaceEditResult(applied=True)

    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register_capability(client: LanguageClient, params: types.RegistrationParams):
        return None

    # lsprotocol reads any object with a "command" key as a Command, so a CodeAction that carries a
    # command would arrive mangled; real clients tell them apart by the key's type, and so does this.
    def command_or_action(obj, _):
        kind = types.Command if isinstance(obj.get("command"), str) else types.CodeAction
        return lsp_client.protocol._converter.structure(obj, kind)

    lsp_client.protocol._converter.register_structure_hook(
        typing.Union[types.Command, types.CodeAction], command_or_action)

    uri = workspace.as_uri()
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities(request.param),
        root_uri=uri,
        workspace_folders=[types.WorkspaceFolder(uri=uri, name="acme-shop")],
    ))
    lsp_client.client_name = request.param  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()
