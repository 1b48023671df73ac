"""``lore mcp``: the MCP server (stdio), the third surface. It only translates: every tool reads and writes
through the same engine, store and journal as the CLI and the language server (see :mod:`.server`)."""

from __future__ import annotations

from pathlib import Path

import anyio

from ...infra.workers import allow_fork
from .server import build_server
from .wire import serve_stdio


def serve(root: Path | None, problem: str = "") -> None:
    """Serve the workspace at ``root`` over stdio until the client closes the connection; with no root,
    every tool answers ``problem`` (why there is no workspace)."""

    allow_fork(False)  # a server runs threads: it never forks workers (the command line may have allowed it)
    anyio.run(serve_stdio, build_server(root, problem))
