"""The server reads memory from disk, never from an editor's buffers: it asks for no document changes and
keeps no document's text, so a huge file opened, or a burst of edits a client sends anyway, costs it
neither memory nor time, and hover keeps answering."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from e2e_helpers import wait_for_diagnostics


def resident_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


async def test_huge_documents_and_a_burst_of_edits_are_not_kept(client: LanguageClient, workspace: Path) -> None:
    claude = workspace / "CLAUDE.md"
    await wait_for_diagnostics(client, claude.as_uri())
    pid = client._server.pid  # type: ignore[union-attr]  # the real `lore serve` process
    text = "- a line of notes that nobody reads\n" * 600_000  # ~21 MB
    resident = []
    for n in range(6):
        uri = (workspace / f"notes-{n}.md").as_uri()
        client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="markdown", version=1, text=text)))
        for version in range(2, 5):  # a client that sends changes though none were asked for
            client.text_document_did_change(types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangePartial(
                    range=types.Range(start=types.Position(line=599_999, character=0),
                                      end=types.Position(line=599_999, character=0)), text="- one more line\n")]))
        result = await asyncio.wait_for(client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=claude.as_uri()), position=types.Position(line=15, character=3))), 30)
        assert result is not None and "CLAUDE.md:16" in result.contents.value
        resident.append(resident_mb(pid))
    # Reading a message costs what it costs (the first one grows the heap once); keeping four more
    # documents' text would cost ~90 MB more.
    assert resident[-1] - resident[1] < 20, f"the server grew from {resident[1]:.0f} to {resident[-1]:.0f} MB"
