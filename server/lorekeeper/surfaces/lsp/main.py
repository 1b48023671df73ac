"""The language server assembled: every feature registered on one :class:`~.server.LoreServer`, and
``lore serve``'s entry point. The only module that knows every feature: the server's state does not
import them, and they import the state."""

from __future__ import annotations

import logging
import os
from typing import Any

from ...infra.workers import allow_fork
from . import code_actions, commands, diagnostics, hover, lens, lifecycle
from .server import LoreServer


def after_check(ls: LoreServer, findings: Any) -> None:
    """After a re-check the server scheduled itself (a save, a file event): publish, say what crash
    recovery did, offer compaction when memory passed its threshold."""
    diagnostics.publish(ls, findings)
    ls.tell_recoveries()
    commands.suggest_compaction(ls)


def create_server() -> LoreServer:
    """A server with every feature registered."""
    server = LoreServer()
    for feature in (lifecycle, diagnostics, hover, code_actions, commands, lens):
        feature.register(server)
    server.after_check = after_check
    return server


def main(tcp: str | None = None) -> None:
    """Run the server over stdio (or TCP ``HOST:PORT``); logs go to stderr."""
    logging.basicConfig(level=os.environ.get("LORE_LOG_LEVEL", "WARNING"), format="%(name)s: %(message)s")
    # A client cancels requests the server has already answered: routine, not worth a line in the
    # editor's output at every start.
    logging.getLogger("pygls.protocol.json_rpc").addFilter(
        lambda record: "Cancel notification for unknown message id" not in record.getMessage())
    allow_fork(False)  # a server runs threads: it never forks workers (the command line may have allowed it)
    server = create_server()
    if tcp:
        host, _, port = tcp.rpartition(":")
        server.start_tcp(host or "127.0.0.1", int(port))
    else:
        from .transport import start_io  # (the transport only when serving over stdio)

        start_io(server)
