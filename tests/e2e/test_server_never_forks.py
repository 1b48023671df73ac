"""`lore serve` runs threads, so it never splits work over forked processes, even where the command
line would (LORE_WORKERS set, a store with many pairs to compare): a fork there once copied a lock
held by another thread and the first diagnostics never came."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from support import LORE


@pytest.fixture
def crowded(workspace: Path) -> Path:
    entries = workspace / ".lore" / "memory" / "entries"
    for n in range(120):  # near-duplicates: many pairs for the verifier, the work that was forked
        (entries / f"20260301T000000Z-near{n:04d}.json").write_text(json.dumps({
            "id": f"near{n:04d}", "category": "conventions",
            "content": f"The billing service retries webhook calls up to {n % 7 + 2} times before giving up."}))
    return workspace


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[str(LORE), "serve"],
                                              server_env={**os.environ, "LORE_WORKERS": "2"}))
async def client(lsp_client: LanguageClient, crowded: Path):
    await lsp_client.initialize_session(types.InitializeParams(capabilities=types.ClientCapabilities(),
                                                               root_uri=crowded.as_uri()))
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio(loop_scope="function")
async def test_the_server_publishes_with_workers_asked_for(client: LanguageClient) -> None:
    for _ in range(int(30 / 0.05)):
        if client.diagnostics:
            break
        await asyncio.sleep(0.05)
    assert client.diagnostics, "no diagnostics within 30 s"
