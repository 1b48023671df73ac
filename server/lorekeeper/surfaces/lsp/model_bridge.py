"""The editor's language model, lent to the LLM stage: the server sends ``lorekeeper/chat`` to its client
(the VS Code extension answers through ``vscode.lm``, with the consent VS Code asks for) and waits for the
text. Only when the client said it can (``editorModel`` in its initialization options) and only while a
compaction asked for the model runs.

Request ``lorekeeper/chat``: ``{"messages": [{"role", "content"}], "maxTokens", "json", "purpose"}``;
result ``{"text", "model"}``; errors carry a reason first (``disabled``, ``no-model``, ``declined``,
``blocked``, ``not-found``, ``failed: ...``)."""

from __future__ import annotations

import asyncio
import concurrent.futures
from typing import TYPE_CHECKING, Any

from ...analysis.llm import endpoint
from ...analysis.llm.bridge import Answer, Ask, BridgeError

if TYPE_CHECKING:
    from .server import LoreServer

CHAT_REQUEST = "lorekeeper/chat"
#: How long one answer of the editor's model may take (seconds); the user may also be asked for consent.
CHAT_TIMEOUT = 180.0
_REASONS = ("disabled", "no-model", "declined", "blocked", "not-found", "failed")


def llm_source(ls: LoreServer) -> str | None:
    """Where the "llm" stage's model comes from: ``endpoint`` (configured for the workspace), ``editor``
    (the editor lends its own; whether it has one, only the editor knows), or ``None``."""
    if ls.ws is not None and endpoint(ls.ws.config_files)[0] is not None:
        return "endpoint"
    return "editor" if ls.ws is not None and ls.settings.editorModel else None


def stages(ls: LoreServer) -> list[str]:
    """The compaction stages this server offers: the rules always; the language model when one is
    configured for the workspace or the editor lends its own."""

    out = ["rules"]
    if ls.ws is not None and (ls.settings.editorModel or endpoint(ls.ws.config_files)[0] is not None):
        out.append("llm")
    return out


def _field(result: Any, name: str) -> Any:
    if isinstance(result, dict):
        return result.get(name)  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    return getattr(result, name, None)


def editor_model(ls: LoreServer, loop: asyncio.AbstractEventLoop, purpose: str = "compact memory") -> tuple[Ask, str]:
    """The LLM stage's ``lent`` model: ``ask`` blocks a worker thread until the client answers on ``loop``."""

    def ask(messages: list[dict[str, str]], max_tokens: int, json_mode: bool) -> Answer:
        params = {"messages": messages, "maxTokens": max_tokens, "json": json_mode, "purpose": purpose}
        async def send() -> Any:
            return await ls.protocol.send_request_async(CHAT_REQUEST, params)

        future = asyncio.run_coroutine_threadsafe(send(), loop)
        try:
            result: Any = future.result(timeout=CHAT_TIMEOUT)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise BridgeError("timeout", f"the editor's model did not answer within {CHAT_TIMEOUT:.0f} s") from None
        except Exception as exc:  # a JSON-RPC error from the client, or the connection went away
            message = str(getattr(exc, "message", None) or exc)
            reason = next((r for r in _REASONS if message.startswith(r)), "failed")
            raise BridgeError(reason, f"the editor's model gave no answer ({message[:200]})") from None
        text = _field(result, "text")
        if not isinstance(text, str):
            raise BridgeError("failed", "the editor answered without text")
        model = _field(result, "model")
        return Answer(text=text, model=f"editor:{model}" if isinstance(model, str) and model else "editor")

    return ask, "editor"
