"""Settings: initializationOptions, then workspace/configuration; invalid values fall back with one message."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from e2e_helpers import wait_for_diagnostics
from support import LORE


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[str(LORE), "serve"]))
async def configured(lsp_client: LanguageClient, workspace: Path):
    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register_capability(client: LanguageClient, params: types.RegistrationParams):
        return None

    @lsp_client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def code_lens_refresh(client: LanguageClient, params: None):
        return None

    lsp_client.set_configuration({"codeLensInCode": True, "debounceMs": 50}, section="lorekeeper")
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=workspace.as_uri(),
        initialization_options={"lorekeeper": {"debounceMs": "fast", "budget": 900, "unknown": 1}}))
    yield
    await lsp_client.shutdown_session()


async def test_invalid_values_fall_back_with_one_message(configured: LanguageClient, workspace: Path) -> None:
    client = configured
    await wait_for_diagnostics(client, (workspace / "CLAUDE.md").as_uri())
    warnings = [m.message for m in client.messages if m.type == types.MessageType.Warning]
    assert warnings == ["Lorekeeper: ignored invalid settings, using defaults: debounceMs='fast' (expected int)"]


async def test_configuration_turns_on_code_lens_in_code_files(configured: LanguageClient, workspace: Path) -> None:
    client = configured
    await wait_for_diagnostics(client, (workspace / "CLAUDE.md").as_uri())
    for _ in range(50):  # workspace/configuration is pulled after the first check
        lenses = await client.text_document_code_lens_async(types.CodeLensParams(
            text_document=types.TextDocumentIdentifier(uri=(workspace / "src/payments/stripe.ts").as_uri())))
        if lenses:
            break
        await asyncio.sleep(0.1)
    assert [lens.command.title for lens in lenses] == ["5 memories reference this file"]


async def test_severity_per_family_and_kind_and_lenses_off(configured: LanguageClient, workspace: Path) -> None:
    client = configured
    claude = (workspace / "CLAUDE.md").as_uri()
    before = await wait_for_diagnostics(client, claude)
    assert any(d.severity == types.DiagnosticSeverity.Error and d.code == "stale-script" for d in before)
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(
        text_document=types.TextDocumentIdentifier(uri=claude)))
    assert lenses  # memories with references or problems carry one
    # staleness as warnings, stale scripts off altogether, and no lenses in memory files
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"lorekeeper": {
        "severity": {"staleness": "warning", "stale-script": "off"}, "codeLensInMemory": False, "codeLensInCode": True}}))
    after = await wait_for_diagnostics(client, claude, lambda d: not any(x.code == "stale-script" for x in d))
    assert after and all(d.severity != types.DiagnosticSeverity.Error for d in after if d.code.startswith(("stale-", "moved-")))
    assert any(d.code == "moved-path" and d.severity == types.DiagnosticSeverity.Warning for d in after)
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(
        text_document=types.TextDocumentIdentifier(uri=claude)))
    assert not lenses
    # a value the setting does not know is ignored, with one message naming it
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"lorekeeper": {
        "severity": {"staleness": "loud"}}}))
    for _ in range(50):
        warnings = [m.message for m in client.messages if m.type == types.MessageType.Warning and "severity" in m.message]
        if warnings:
            break
        await asyncio.sleep(0.1)
    assert warnings and "severity=" in warnings[0]
