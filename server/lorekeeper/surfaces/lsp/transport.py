# pyright: standard
"""The server's stdio transport: LSP framing that survives a misbehaving client.

pygls reads a ``Content-Length`` header line by line; a header it cannot parse (``Content-Length: abc``)
or a length a few bytes off leaves it reading bodies as headers, and the connection is lost for good.
This reader keeps what it has read in a buffer and, whenever a frame turns out to be malformed, answers
with a JSON-RPC parse error and looks for the next ``Content-Length:`` header from just after the bad
one — so the next well-formed message is read whatever came before it.

It also answers what the protocol requires and pygls leaves unanswered: a request whose params do not
fit the method (``InvalidParams``, with the request's id), a request before ``initialize``
(``ServerNotInitialized``), and a request after ``shutdown`` (``InvalidRequest``)."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import sys
import threading
from typing import Any, BinaryIO

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.io_ import StdoutWriter

log = logging.getLogger("lorekeeper.lsp")

_HEADER = re.compile(rb"Content-Length:[ \t]*([^\r\n]*)\r\n", re.I)
_END_OF_HEADERS = b"\r\n\r\n"
#: A frame larger than this is refused (and skipped): no client sends one, and it would be held in memory.
MAX_FRAME = 64 * 1024 * 1024


class Framer:
    """Splits a byte stream into message bodies, resynchronising after a malformed frame."""

    def __init__(self) -> None:
        self.buffer = bytearray()

    def feed(self, data: bytes) -> None:
        self.buffer += data

    def next(self) -> tuple[str, bytes | None]:
        """``("body", BYTES)`` for a frame, ``("bad", None)`` for a malformed one (already skipped), or
        ``("more", None)`` when more input is needed."""
        match = _HEADER.search(self.buffer)
        if match is None:
            # Keep only a tail that could be the start of a header.
            keep = max(0, len(self.buffer) - 64)
            if keep:
                del self.buffer[:keep]
            return "more", None
        if match.start():
            log.warning("skipped %d bytes before a Content-Length header", match.start())
            del self.buffer[: match.start()]
            return self.next()
        end = self.buffer.find(_END_OF_HEADERS, 0)
        if end < 0:
            return "more", None
        value = match.group(1).strip()
        if not value.isdigit() or int(value) > MAX_FRAME:
            log.warning("malformed Content-Length %r: looking for the next message", value[:40])
            del self.buffer[:1]  # from just after the bad header's first byte
            return "bad", None
        length = int(value)
        start = end + len(_END_OF_HEADERS)
        if len(self.buffer) < start + length:
            return "more", None
        body = bytes(self.buffer[start : start + length])
        try:
            json.loads(body)
        except (ValueError, RecursionError):
            # The length was off, or the body is not JSON: try again from just after this header, so a
            # next message inside (or right after) what was read as this body is found.
            log.warning("a message body of %d bytes is not JSON: looking for the next message", length)
            del self.buffer[:1]
            return "bad", None
        del self.buffer[: start + length]
        return "body", body


def _error(code: types.ErrorCodes | int, message: str) -> types.ResponseError:
    return types.ResponseError(code=int(code), message=message)


def dispatch(server: Any, body: bytes, state: dict[str, bool]) -> None:
    """Hand one well-formed body to pygls, answering the requests it would leave unanswered."""
    protocol = server.protocol
    data = json.loads(body)
    request_id = data.get("id") if isinstance(data, dict) else None
    method = data.get("method") if isinstance(data, dict) else None
    is_request = request_id is not None and isinstance(method, str)
    if not isinstance(data, dict) or data.get("jsonrpc") != "2.0":
        protocol._send_response(request_id, None, _error(types.ErrorCodes.InvalidRequest, "not a JSON-RPC 2.0 message"))
        return
    if getattr(protocol, "_shutdown", False) and method != "exit":
        if is_request:
            protocol._send_response(request_id, None, _error(types.ErrorCodes.InvalidRequest,
                                                             "the server is shutting down: only 'exit' is accepted"))
        return
    if not state["initialized"] and method not in ("initialize", "exit") and isinstance(method, str):
        if is_request:
            protocol._send_response(request_id, None, _error(types.ErrorCodes.ServerNotInitialized,
                                                             "the server is not initialized yet"))
        return
    try:
        message = json.loads(body, object_hook=protocol.structure_message)
    except JsonRpcInvalidParams:
        if is_request:
            protocol._send_response(request_id, None, _error(types.ErrorCodes.InvalidParams,
                                                             f"invalid params for {method}"))
        return
    except JsonRpcException as exc:
        if is_request:
            protocol._send_response(request_id, None, exc.to_response_error())
        return
    if method == "initialize":
        state["initialized"] = True
    protocol.handle_message(message)


async def run(server: Any, stdin: BinaryIO, stop: threading.Event) -> None:
    loop = asyncio.get_running_loop()
    framer = Framer()
    state = {"initialized": False}
    read = getattr(stdin, "read1", stdin.read)
    while not stop.is_set():
        data = await loop.run_in_executor(server.thread_pool, read, 65536)
        if not data:
            break
        framer.feed(data)
        while True:
            kind, body = framer.next()
            if kind == "more":
                break
            if kind == "bad":
                server.protocol._send_response(None, None, _error(types.ErrorCodes.ParseError,
                                                                  "a malformed message was skipped"))
                continue
            if body is None:
                continue
            try:
                dispatch(server, body, state)
            except Exception:  # one bad message never stops the server
                log.exception("message not handled")


def start_io(server: Any, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
    """pygls' ``start_io`` with this transport."""
    server._stop_event = stop = threading.Event()
    server.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
    try:
        asyncio.run(run(server, stdin or sys.stdin.buffer, stop))
    except BrokenPipeError:
        log.error("the connection to the client is lost; shutting down")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()
