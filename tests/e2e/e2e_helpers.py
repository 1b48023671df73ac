"""Helpers shared by the end-to-end tests."""

from __future__ import annotations

import asyncio

from pytest_lsp import LanguageClient


async def wait_for_diagnostics(client: LanguageClient, uri: str, predicate=lambda d: bool(d), attempts: int = 80):
    """Wait until the diagnostics published for ``uri`` satisfy ``predicate``; return them."""
    for _ in range(attempts):
        if uri in client.diagnostics and predicate(client.diagnostics[uri]):
            return client.diagnostics[uri]
        await asyncio.sleep(0.1)
    raise AssertionError(f"no matching diagnostics for {uri}: {client.diagnostics.get(uri)}")
