"""The VS Code extension attaches to exactly the files the server reads as memory and calls the server's
commands by their names: its copy of both lists (client-vscode/src/generated.ts, package.json's
activation events) is what scripts/generate-extension-lists writes from the server's own lists."""

from __future__ import annotations

import subprocess
import sys

from lorekeeper.surfaces.lsp.main import create_server
from lorekeeper.surfaces.lsp.names import Command
from support import REPO


def test_the_extension_lists_are_the_servers() -> None:
    proc = subprocess.run([sys.executable, str(REPO / "scripts" / "extension_lists.py")], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_every_command_in_the_table_is_registered_and_no_other() -> None:
    server = create_server()
    assert set(server.protocol.fm.commands) == {c.value for c in Command}
