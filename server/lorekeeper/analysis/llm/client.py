# pyright: standard
"""A bounded client for any OpenAI-compatible chat-completions endpoint (Ollama, llama.cpp server, vLLM,
LM Studio, hosted APIs), on the standard library alone.

Bounded three ways: a **budget** of tokens (prompt and completion together) and of calls per run, checked
before every request (a request that could go over it is never sent); a **deadline** per request that
covers connecting, sending and reading the whole answer (a server that trickles bytes is cut off); and
**retries** with backoff for 429/5xx, connection errors and timeouts, honouring ``Retry-After`` up to
``max_wait``. The API key is sent in the ``Authorization`` header and nowhere else: not in errors, logs
or ``repr``.

Accounting: every request sent counts as a call and its prompt tokens count as spent (a hosted API bills
them even when the answer is lost); the completion counts what the server reports (``usage``), else the
answer's tokens as the project counts them."""

from __future__ import annotations

import email.utils
import http.client
import json
import logging
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import urlsplit

log = logging.getLogger(__name__)

MAX_RESPONSE = 4 * 1024 * 1024
_RETRY_STATUS = frozenset({429, 500, 502, 503, 504})
_PER_MESSAGE = 4  # tokens of a message's framing (role, separators)


class LLMError(Exception):
    """A call that produced no usable answer; ``reason`` is a short word: timeout, rate-limited,
    http-<status>, connection, malformed, budget, too-long."""

    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason


class BudgetExceeded(LLMError):
    def __init__(self, message: str):
        super().__init__("budget", message)


@dataclass
class Usage:
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class Budget:
    """At most ``max_tokens`` tokens (prompt + completion) and ``max_calls`` requests in one run."""

    def __init__(self, max_tokens: int, max_calls: int):
        self.max_tokens = max_tokens
        self.max_calls = max_calls
        self.usage = Usage()

    @property
    def remaining(self) -> int:
        return max(0, self.max_tokens - self.usage.tokens)

    def reserve(self, prompt_tokens: int, max_completion: int) -> None:
        """Refuse a request that could go over the budget (its prompt plus the longest answer allowed)."""
        if self.usage.calls >= self.max_calls:
            raise BudgetExceeded(f"{self.max_calls} calls made, the most one run may make")
        if prompt_tokens + max_completion > self.remaining:
            raise BudgetExceeded(f"a call of up to {prompt_tokens + max_completion} tokens does not fit in the "
                                 f"{self.remaining} left of this run's {self.max_tokens}")

    def record(self, prompt_tokens: int, completion_tokens: int) -> None:
        self.usage.prompt_tokens += prompt_tokens
        self.usage.completion_tokens += completion_tokens


class Chat(Protocol):
    """What the LLM stage asks of a model, whoever lends it: :class:`ChatClient` (an HTTP endpoint) or
    :class:`.bridge.BridgeClient` (the editor's model, the MCP client's)."""

    model: str
    budget: Budget

    def chat(self, messages: list[dict[str, str]], max_tokens: int, json_mode: bool = True) -> str: ...


class ChatClient:
    """One endpoint and model, with the run's budget."""

    def __init__(self, base_url: str, model: str, api_key: str | None, budget: Budget,
                 count_tokens: Callable[[str], int], *, timeout: float = 60.0, retries: int = 2,
                 max_wait: float = 30.0, sleep: Callable[[float], None] = time.sleep):
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("the LLM base URL must be an http:// or https:// URL")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self._key = api_key
        self.budget = budget
        self.count_tokens = count_tokens
        self.timeout = timeout
        self.retries = retries
        self.max_wait = max_wait
        self.sleep = sleep

    def __repr__(self) -> str:
        return f"ChatClient({self.base_url!r}, model={self.model!r}, key={'set' if self._key else 'none'})"

    def chat(self, messages: list[dict[str, str]], max_tokens: int, json_mode: bool = True) -> str:
        """The assistant's answer (its message content) to ``messages``."""
        body: dict[str, Any] = {"model": self.model, "messages": messages, "max_tokens": max_tokens,
                                "temperature": 0, "stream": False}
        if json_mode:
            body["response_format"] = {"type": "json_object"}
        data = json.dumps(body).encode("utf-8")
        prompt = sum(self.count_tokens(m.get("content", "")) + _PER_MESSAGE for m in messages)
        attempt = 0
        while True:
            self.budget.reserve(prompt, max_tokens)
            self.budget.usage.calls += 1
            try:
                status, headers, raw = self._post(data)
            except LLMError as exc:
                self.budget.record(prompt, 0)
                if exc.reason in ("timeout", "connection") and attempt < self.retries:
                    self._wait(self._backoff(attempt))
                    attempt += 1
                    continue
                raise
            if status in _RETRY_STATUS:
                self.budget.record(prompt, 0)
                wait = _retry_after(headers.get("retry-after")) if status in (429, 503) else None
                if wait is not None and wait > self.max_wait:
                    raise LLMError("rate-limited", f"the model's server asks to wait {wait:.0f} s (more than "
                                                   f"{self.max_wait:.0f} s): not retried")
                if attempt >= self.retries:
                    reason = "rate-limited" if status == 429 else f"http-{status}"
                    raise LLMError(reason, f"the model's server answered {status} {self._excerpt(raw)}")
                self._wait(wait if wait is not None else self._backoff(attempt))
                attempt += 1
                continue
            if status != 200:
                self.budget.record(prompt, 0)
                raise LLMError(f"http-{status}", f"the model's server answered {status} {self._excerpt(raw)}")
            return self._content(raw, prompt, max_tokens)

    # -- internals -------------------------------------------------------------------------------

    def _content(self, raw: bytes, prompt: int, max_tokens: int) -> str:
        try:
            answer = json.loads(raw)
            content = answer["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            self.budget.record(prompt, 0)
            raise LLMError("malformed", f"the model's server sent no chat completion {self._excerpt(raw)}") from None
        if not isinstance(content, str):
            self.budget.record(prompt, 0)
            raise LLMError("malformed", "the chat completion has no text content")
        usage = answer.get("usage") if isinstance(answer, dict) else None
        reported = usage if isinstance(usage, dict) else {}
        used_prompt = reported.get("prompt_tokens")
        used_completion = reported.get("completion_tokens")
        used_prompt = used_prompt if isinstance(used_prompt, int) and used_prompt >= 0 else prompt
        used_completion = (used_completion if isinstance(used_completion, int) and used_completion >= 0
                           else self.count_tokens(content))
        self.budget.record(used_prompt, used_completion)
        if used_completion > max_tokens:
            raise LLMError("too-long", f"the answer has {used_completion} tokens, more than the {max_tokens} asked for")
        return content

    def _post(self, data: bytes) -> tuple[int, dict[str, str], bytes]:
        """One request under one deadline for all of it; (status, lower-cased headers, body)."""
        parts = urlsplit(self.base_url)
        deadline = time.monotonic() + self.timeout
        connection_type = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        connection = connection_type(parts.hostname or "", parts.port, timeout=self.timeout)
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        # The socket's timeout bounds each read; the watchdog bounds them all (a server that trickles its
        # status line and headers would otherwise get a full timeout per byte): at the deadline it shuts
        # the socket, and whatever read is waiting ends.
        watchdog = threading.Timer(self.timeout, _shut, (connection,))
        watchdog.daemon = True
        watchdog.start()
        try:
            connection.request("POST", f"{parts.path.rstrip('/')}/chat/completions", body=data, headers=headers)
            connection.sock.settimeout(max(0.01, deadline - time.monotonic()))  # pyright: ignore[reportOptionalMemberAccess]
            response = connection.getresponse()
            chunks: list[bytes] = []
            size = 0
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError
                if connection.sock is not None:
                    connection.sock.settimeout(left)
                chunk = response.read1(65536)
                if not chunk:
                    if time.monotonic() >= deadline:
                        raise TimeoutError  # the watchdog ended the read: the answer is cut short
                    break
                size += len(chunk)
                if size > MAX_RESPONSE:
                    raise LLMError("malformed", f"the answer is larger than {MAX_RESPONSE // 1024 // 1024} MB")
                chunks.append(chunk)
            return response.status, {k.lower(): v for k, v in response.getheaders()}, b"".join(chunks)
        except TimeoutError:
            raise LLMError("timeout", f"the model did not answer within {self.timeout:.0f} s") from None
        except (OSError, http.client.HTTPException) as exc:
            if time.monotonic() >= deadline:  # the watchdog shut the socket
                raise LLMError("timeout", f"the model did not answer within {self.timeout:.0f} s") from None
            raise LLMError("connection", f"the model's server could not be reached ({type(exc).__name__})") from None
        finally:
            watchdog.cancel()
            connection.close()

    def _backoff(self, attempt: int) -> float:
        return min(self.max_wait, float(2**attempt))

    def _wait(self, seconds: float) -> None:
        log.info("llm: waiting %.1f s before asking again", seconds)
        self.sleep(seconds)

    def _excerpt(self, raw: bytes) -> str:
        text = raw[:4000].decode("utf-8", "replace")
        if self._key:
            text = text.replace(self._key, "***")
        text = " ".join(text.split())[:200]
        return f"({text})" if text else ""


def _shut(connection: http.client.HTTPConnection) -> None:
    """End whatever read or write is waiting on the connection's socket (the deadline passed)."""
    sock = connection.sock
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass  # already closed


def _retry_after(value: str | None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (seconds, or an HTTP date)."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
