"""A model lent by whoever runs Lorekeeper: the editor (a custom LSP request the VS Code extension answers
through ``vscode.lm``) or the MCP client (MCP sampling). Both look like :class:`.client.ChatClient` to the
LLM stage: ``chat(messages, max_tokens, json_mode)`` under the same :class:`.client.Budget`, so the stage,
the guard and the budgets are the same whoever answers.

The surface supplies ``ask``: a blocking function that sends the messages to its peer and returns the
answer's text and the model's name, raising :class:`BridgeError` (with a short reason) when the peer
refuses or fails. The stage runs in a worker thread; ``ask`` waits on the surface's event loop."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from .client import Budget, LLMError

log = logging.getLogger(__name__)

_PER_MESSAGE = 4  # tokens of a message's framing, as the HTTP client counts them


class BridgeError(Exception):
    """The peer gave no answer. ``reason``: disabled, no-model, declined, blocked, not-found, timeout,
    unsupported or failed."""

    def __init__(self, reason: str, message: str = ""):
        super().__init__(message or reason)
        self.reason = reason


@dataclass(frozen=True)
class Answer:
    text: str
    model: str


#: ``ask(messages, max_tokens, json_mode) -> Answer``; blocking; raises BridgeError.
Ask = Callable[[list[dict[str, str]], int, bool], Answer]


class BridgeClient:
    """A model reached through the surface's peer, bounded by the run's budget like any other."""

    def __init__(self, ask: Ask, name: str, budget: Budget, count_tokens: Callable[[str], int]):
        self._ask = ask
        #: Who lends the model ("editor" or "mcp-client"), until an answer names the model itself.
        self.model = name
        self.base_url = f"{name}:"
        self.budget = budget
        self.count_tokens = count_tokens

    def __repr__(self) -> str:
        return f"BridgeClient({self.model!r})"

    def chat(self, messages: list[dict[str, str]], max_tokens: int, json_mode: bool = True) -> str:
        prompt = sum(self.count_tokens(m.get("content", "")) + _PER_MESSAGE for m in messages)
        self.budget.reserve(prompt, max_tokens)
        self.budget.usage.calls += 1
        self.budget.record(prompt, 0)  # sent: the peer's model has read it, answered or not
        try:
            answer = self._ask(messages, max_tokens, json_mode)
        except BridgeError as exc:
            # The peer's words only: the request's content is never part of an error.
            raise LLMError(exc.reason if exc.reason in ("timeout",) else f"peer-{exc.reason}", str(exc)) from None
        completion = self.count_tokens(answer.text)
        self.budget.record(0, completion)
        if answer.model:
            self.model = answer.model
        if completion > max_tokens:
            raise LLMError("too-long", f"the answer has {completion} tokens, more than the {max_tokens} asked for")
        return answer.text
