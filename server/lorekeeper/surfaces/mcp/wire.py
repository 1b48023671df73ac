"""The stdio wire of ``lore mcp``: every request gets an answer, even one the protocol library cannot read.

The SDK's stdio transport drops a line it cannot parse (the client then waits until its deadline). Here:

- a line that is not JSON is answered with a JSON-RPC *parse error* (-32700, id null);
- JSON that is not a JSON-RPC message is answered with *invalid request* (-32600, with its id when it has
  one);
- a string holding half of a surrogate pair (what JavaScript's ``slice`` makes of an emoji, sent as a
  ``\\ud83d`` escape) is read with that half replaced by U+FFFD, and the request goes on: the text is
  stored as the client sent it, less the half character no file can hold.

Invariant: nothing here prints; stdout is the protocol's channel."""

from __future__ import annotations

import json
import logging
import re
from typing import Any

import anyio
import mcp_types as types
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

log = logging.getLogger(__name__)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _whole(value: Any) -> Any:
    """``value`` (parsed JSON) with every lone surrogate in its strings replaced by U+FFFD."""
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_whole(v) for v in value]  # pyright: ignore[reportUnknownVariableType]
    if isinstance(value, dict):
        return {_whole(k): _whole(v) for k, v in value.items()}  # pyright: ignore[reportUnknownVariableType]
    return value


def _error(code: int, message: str, request_id: object = None) -> SessionMessage:
    answer_id = request_id if isinstance(request_id, (str, int)) and not isinstance(request_id, bool) else None
    return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=answer_id,
                                             error=types.ErrorData(code=code, message=message)))


def recover(exc: Exception) -> SessionMessage:
    """What to do with a line the transport could not read: the message it holds once its half characters
    are replaced, or the error that answers it."""
    if not isinstance(exc, ValidationError):
        return _error(PARSE_ERROR, f"Parse error: {type(exc).__name__}")
    errors = exc.errors()
    raw = errors[0].get("input") if errors else None
    if isinstance(raw, (str, bytes)) and errors[0].get("type") == "json_invalid":
        try:
            parsed = json.loads(raw)  # Python reads a lone surrogate escape; the SDK's parser does not
        except (ValueError, RecursionError):
            return _error(PARSE_ERROR, "Parse error: the line is not JSON")
        try:
            return SessionMessage(types.jsonrpc_message_adapter.validate_python(_whole(parsed), by_name=False))
        except ValidationError:
            raw = parsed
    request_id: object = None
    if isinstance(raw, dict):
        fields: dict[object, object] = raw  # pyright: ignore[reportUnknownVariableType] - parsed JSON: anything
        request_id = fields.get("id")
    return _error(INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message", request_id)


async def serve_stdio(server: MCPServer) -> None:
    """Run ``server`` over stdio, answering what the SDK's transport would drop (see the module)."""
    async with stdio_server() as (read_stream, write_stream):
        send, receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)

        async def sift() -> None:
            async with send:
                async for item in read_stream:
                    if isinstance(item, Exception):
                        mended = recover(item)
                        if isinstance(mended.message, types.JSONRPCError):
                            log.info("answered an unreadable message: %s", mended.message.error.message)
                            await write_stream.send(mended)
                            continue
                        item = mended
                    await send.send(item)

        lowlevel = server._lowlevel_server  # pyright: ignore[reportPrivateUsage] - run_stdio_async does the same
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(sift)
            await lowlevel.run(receive, write_stream, lowlevel.create_initialization_options())
            tasks.cancel_scope.cancel()
