"""Helpers shared by the end-to-end tests."""

from __future__ import annotations

import asyncio

from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities


def pulls(client: LanguageClient) -> bool:
    """Whether the impersonated client pulls diagnostics (LSP 3.17) instead of receiving them."""
    caps = client.capabilities.text_document if client.capabilities else None
    return bool(caps and caps.diagnostic)


async def current_diagnostics(client: LanguageClient, uri: str):
    if pulls(client):
        report = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
            text_document=types.TextDocumentIdentifier(uri=uri)))
        return list(report.items)
    return client.diagnostics.get(uri)


def settled(diagnostics) -> bool:
    """Some diagnostics, and none of what the working tree said before history was read (the first
    check's first step, which offers no fix): what a test of the verdicts waits for by default."""
    return bool(diagnostics) and not any("history is being read" in d.message for d in diagnostics)


async def wait_for_diagnostics(client: LanguageClient, uri: str, predicate=settled, attempts: int = 300):
    """Wait until the diagnostics of ``uri`` — pushed, or pulled for clients that pull — satisfy
    ``predicate`` (by default :func:`settled`); return them. Up to 30 s: a server's first check takes about a second on a quiet machine,
    but the suite runs over every core, and a busy machine has made it take more than the 8 s this
    waited before (the wait costs nothing when the diagnostics come)."""
    found = None
    for _ in range(attempts):
        found = await current_diagnostics(client, uri)
        if found is not None and predicate(found):
            return found
        await asyncio.sleep(0.1)
    raise AssertionError(f"no matching diagnostics for {uri}: {found}")


async def open_folder(client: LanguageClient, root, client_name: str = "visual-studio-code",
                      options: dict | None = None) -> None:
    """Initialize a session on the folder ``root`` as ``client_name`` would, answering the requests every
    session sends (lens refreshes, watcher registration) the way editors do."""

    @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def code_lens_refresh(client: LanguageClient, params: None):
        return None

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register_capability(client: LanguageClient, params: types.RegistrationParams):
        return None

    uri = root.as_uri()
    await client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities(client_name), root_uri=uri,
        workspace_folders=[types.WorkspaceFolder(uri=uri, name=root.name)], initialization_options=options))
