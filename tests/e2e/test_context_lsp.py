"""`lore.context` from the editor: the same renderer as `lore context` and MCP recall, with the code files
open in the editor as the focus when the client names none."""

from __future__ import annotations

import json
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from e2e_helpers import wait_for_diagnostics
from support import lore


async def test_the_open_code_files_are_the_focus(client: LanguageClient, workspace: Path) -> None:
    await wait_for_diagnostics(client, (workspace / "CLAUDE.md").as_uri())
    stripe = workspace / "src/payments/stripe.ts"
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=stripe.as_uri(), language_id="typescript", version=1, text=stripe.read_text())))
    opened = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="lore.context", arguments=[{"budget": 300}]))
    assert opened["focus"] == ["src/payments/stripe.ts"] and opened["tokens"] <= 300
    plain = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="lore.context", arguments=[{"budget": 300, "focus": []}]))
    assert plain["focus"] == []

    def rank(result: dict, needle: str) -> int:
        ids = [e["id"] for e in result["entries"] if e["fidelity"] == "full"]
        texts = {e["id"]: e["text"] for e in result["entries"]}
        return next((n for n, i in enumerate(ids) if needle in texts[i]), len(ids))

    # Memories about the open file come up (full, and earlier) compared with the same budget unfocused.
    assert rank(opened, "stripe") < rank(plain, "stripe") or rank(plain, "stripe") == rank(opened, "stripe") == 0
    assert any("stripe" in e["text"].lower() and e["fidelity"] == "full" for e in opened["entries"])
    # The CLI renders the same memory for the same focus and budget.
    cli = json.loads(lore("context", "--budget", "300", "--focus", "src/payments/stripe.ts", "--format", "json",
                          cwd=workspace).stdout)
    assert cli["text"] == opened["text"]
