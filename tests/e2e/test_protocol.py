"""The transport under a hostile or broken client, spoken to byte by byte (no LSP client library):
malformed framing is answered with a parse error and the next message is read; bad params, requests
before initialize and after shutdown get the error responses the protocol requires."""

from __future__ import annotations

import json
import os
import select
import subprocess
import time
from pathlib import Path

from support import LORE


def frame(message: dict, length: int | None = None) -> bytes:
    body = json.dumps(message).encode()
    return f"Content-Length: {len(body) if length is None else length}\r\n\r\n".encode() + body


class Raw:
    def __init__(self, root: Path):
        self.proc = subprocess.Popen([str(LORE), "serve"], cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self.pending = b""

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def messages(self, until_id: int | None = None, timeout: float = 15.0) -> list[dict]:
        """Messages received until one with ``until_id`` (or the timeout)."""
        out: list[dict] = []
        end = time.time() + timeout
        assert self.proc.stdout is not None
        while time.time() < end:
            while b"\r\n\r\n" in self.pending:
                head, rest = self.pending.split(b"\r\n\r\n", 1)
                length = int(head.split(b"Content-Length: ")[1].split(b"\r\n")[0])
                if len(rest) < length:
                    break
                out.append(json.loads(rest[:length]))
                self.pending = rest[length:]
                if until_id is not None and out[-1].get("id") == until_id:
                    return out
            ready, _, _ = select.select([self.proc.stdout], [], [], 0.2)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 65536)
                if not chunk:
                    break
                self.pending += chunk
        return out

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait(10)


def status(msg_id: int) -> dict:
    return {"jsonrpc": "2.0", "id": msg_id, "method": "workspace/executeCommand", "params": {"command": "lore.status"}}


def test_a_broken_client_gets_errors_and_never_desynchronises_the_server(tree) -> None:
    tree.write("CLAUDE.md", "- Use pnpm.\n")
    raw = Raw(tree.root)
    try:
        raw.send(frame({"jsonrpc": "2.0", "id": 1, "method": "textDocument/hover", "params": {
            "textDocument": {"uri": "file:///x"}, "position": {"line": 0, "character": 0}}}))
        [early] = raw.messages(until_id=1)
        assert early["error"]["code"] == -32002  # ServerNotInitialized
        raw.send(frame({"jsonrpc": "2.0", "id": 2, "method": "initialize",
                        "params": {"processId": None, "rootUri": tree.root.as_uri(), "capabilities": {}}}))
        assert "capabilities" in raw.messages(until_id=2)[-1]["result"]
        raw.send(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))

        raw.send(b"Content-Length: abc\r\n\r\n" + json.dumps(status(3)).encode())  # not a number
        raw.send(frame(status(4)))
        got = raw.messages(until_id=4)
        assert any(m.get("error", {}).get("code") == -32700 for m in got) and got[-1]["result"]["budget"] == 2000
        raw.send(frame(status(5), length=40))  # a few bytes short
        raw.send(frame(status(6)))
        assert raw.messages(until_id=6)[-1]["result"]["budget"] == 2000
        body = json.dumps(status(7)).encode()
        raw.send(f"Content-Length: {len(body) + 5}\r\n\r\n".encode() + body)  # a few bytes long
        raw.send(frame(status(9)))
        got = raw.messages(until_id=9)
        assert got[-1]["result"]["budget"] == 2000 and not [m for m in got if m.get("id") == 7]

        raw.send(frame({"jsonrpc": "2.0", "id": 10, "method": "textDocument/hover", "params": {"nonsense": 1}}))
        assert raw.messages(until_id=10)[-1]["error"]["code"] == -32602  # InvalidParams
        raw.send(frame({"jsonrpc": "2.0", "id": 11, "method": "workspace/executeCommand",
                        "params": {"command": "lore.compact", "arguments": ["notadict"]}}))
        assert raw.messages(until_id=11)[-1]["result"]["applied"] is False
        assert not (tree.root / ".lore/memory/index.md").exists()

        raw.send(frame({"jsonrpc": "2.0", "id": 12, "method": "shutdown"}))
        raw.messages(until_id=12)
        raw.send(frame(status(13)))
        assert raw.messages(until_id=13)[-1]["error"]["code"] == -32600  # InvalidRequest after shutdown
        raw.send(frame({"jsonrpc": "2.0", "method": "exit"}))
        assert raw.proc.wait(10) is not None
    finally:
        raw.close()
