"""Hover: a memory's provenance and the state of its references."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from e2e_helpers import wait_for_diagnostics


async def hover(client: LanguageClient, path: Path, line: int) -> str:
    result = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=path.as_uri()), position=types.Position(line=line, character=3)))
    assert result is not None
    return result.contents.value


async def test_entry_provenance_and_references(client: LanguageClient, workspace: Path) -> None:
    path = workspace / ".lore/memory/entries/20260612T081500Z-b6c7d8e9f0a1.json"
    await wait_for_diagnostics(client, path.as_uri())
    text = await hover(client, path, 3)
    assert text.startswith("**Memory `b6c7d8e9f0a1`** · pitfalls · entry file")
    assert "by **cursor**, created 2026-06-12" in text and "never verified" in text
    assert "tags payments, stripe" in text
    assert "- `src/payments/stripe.ts`: **holds**" in text
    assert "- `src/payments/stripe.ts:StripeClient.refund`: **gone** — `StripeClient.refund` is no longer defined" in text


async def test_instruction_bullet_and_merge_links(client: LanguageClient, workspace: Path) -> None:
    claude = workspace / "CLAUDE.md"
    await wait_for_diagnostics(client, claude.as_uri())
    text = await hover(client, claude, 15)  # "- Log through `logger` from `src/lib/logger.ts`..."
    # The verdicts come before the files' dates (asked of git beside the check): until then hover says so
    for _ in range(300):
        if "created: its file's date is still being read from git" not in text:
            break
        await asyncio.sleep(0.1)
        text = await hover(client, claude, 15)
    assert text.startswith("**Memory `CLAUDE.md:16`** · instructions · instruction file")
    assert "created 2026-04-01 (from git)" in text
    assert "`src/lib/logger.ts`: **moved** — `src/lib/logger.ts` was moved to `src/lib/log.ts`" in text
    assert "`logger`: **holds**" in text
    blank = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=claude.as_uri()), position=types.Position(line=1, character=0)))
    assert blank is None
