"""A scripted OpenAI-compatible chat server on 127.0.0.1, for tests: each request gets the next reply of
the script (or what a function returns), and every request is recorded (path, headers, JSON body)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    content: str | None = None  # the assistant's text, wrapped in a chat completion
    status: int = 200
    body: bytes | None = None  # a raw body instead (malformed answers)
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds before answering
    trickle: float = 0.0  # > 0: the body goes out a byte at a time, this long apart
    trickle_headers: float = 0.0  # > 0: the status line and headers go out a byte at a time, this long apart
    usage: dict[str, int] | None = None


class ScriptedLLM:
    def __init__(self, replies: list[Reply] | Callable[[dict[str, Any]], Reply]):
        self.replies = replies
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> ScriptedLLM:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _next(self, request: dict[str, Any]) -> Reply:
        with self._lock:
            self.requests.append(request)
            if callable(self.replies):
                return self.replies(request)
            return self.replies.pop(0) if self.replies else Reply(status=500, body=b'{"error": "script exhausted"}')

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = None
                reply = outer._next({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                                     "json": body})
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.body is not None:
                    data = reply.body
                else:
                    text = reply.content or ""
                    usage = reply.usage or {"prompt_tokens": len(raw) // 4, "completion_tokens": max(1, len(text) // 4)}
                    data = json.dumps({"id": "chatcmpl-test", "object": "chat.completion", "model": "test",
                                       "choices": [{"index": 0, "finish_reason": "stop",
                                                    "message": {"role": "assistant", "content": text}}],
                                       "usage": {**usage, "total_tokens": sum(usage.values())}}).encode()
                try:
                    if reply.trickle_headers:
                        head = (f"HTTP/1.1 {reply.status} OK\r\nContent-Type: application/json\r\n"
                                f"Content-Length: {len(data)}\r\n" + "".join(f"X-Pad-{i}: {'x' * 20}\r\n" for i in range(20))
                                + "\r\n").encode()
                        for i in range(len(head)):
                            self.wfile.write(head[i : i + 1])
                            self.wfile.flush()
                            time.sleep(reply.trickle_headers)
                        self.wfile.write(data)
                        return
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for key, value in reply.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    if reply.trickle:
                        for i in range(len(data)):
                            self.wfile.write(data[i : i + 1])
                            self.wfile.flush()
                            time.sleep(reply.trickle)
                    else:
                        self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

        return Handler


#: The environment that configures a model (none is, in a test, until one is used).
MODEL_ENV = ("LORE_LLM_BASE_URL", "LORE_LLM_MODEL", "LORE_LLM_API_KEY")


def use_model(server: ScriptedLLM, monkeypatch: Any, key: str | None = None) -> None:
    """Configure ``server`` as the model ``test-model`` (with ``key``, if any) for the rest of the test."""
    monkeypatch.setenv("LORE_LLM_BASE_URL", server.url)
    monkeypatch.setenv("LORE_LLM_MODEL", "test-model")
    if key is not None:
        monkeypatch.setenv("LORE_LLM_API_KEY", key)
