"""The OpenAI-compatible client against a scripted server on 127.0.0.1: answers, retries with
Retry-After, deadlines that hold against a slow stream, budgets never exceeded, and a key that never
leaves the Authorization header."""

from __future__ import annotations

import logging
import time

import pytest

from llm_server import Reply, ScriptedLLM
from lorekeeper.analysis.llm.client import Budget, BudgetExceeded, ChatClient, LLMError

KEY = "sk-test-SECRET-123"
MESSAGES = [{"role": "system", "content": "Answer in JSON."}, {"role": "user", "content": "Say hi."}]


def tokens(text: str) -> int:
    return max(1, len(text) // 4)


def client(server: ScriptedLLM, key: str | None = KEY, budget: Budget | None = None, **kw) -> tuple[ChatClient, list[float]]:
    slept: list[float] = []
    return ChatClient(server.url, "test-model", key, budget or Budget(100_000, 100), tokens, sleep=slept.append,
                      **kw), slept


def test_an_answer_and_what_was_sent() -> None:
    with ScriptedLLM([Reply('{"text": "hi"}', usage={"prompt_tokens": 30, "completion_tokens": 5})]) as server:
        chat, _ = client(server)
        assert chat.chat(MESSAGES, 200) == '{"text": "hi"}'
    [request] = server.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["authorization"] == f"Bearer {KEY}"
    body = request["json"]
    assert (body["model"], body["messages"], body["max_tokens"], body["temperature"]) == ("test-model", MESSAGES, 200, 0)
    assert body["response_format"] == {"type": "json_object"}
    assert (chat.budget.usage.calls, chat.budget.usage.prompt_tokens, chat.budget.usage.completion_tokens) == (1, 30, 5)


def test_no_key_no_authorization_header() -> None:
    with ScriptedLLM([Reply("{}")]) as server:
        client(server, key=None)[0].chat(MESSAGES, 50)
    assert "authorization" not in server.requests[0]["headers"]


@pytest.mark.parametrize("reply", [Reply(body=b"{not json"), Reply(body=b'{"choices": []}'),
                                   Reply(body=b'{"choices": [{"message": {"content": 7}}]}')])
def test_malformed_answers(reply: Reply) -> None:
    with ScriptedLLM([reply]) as server, pytest.raises(LLMError) as caught:
        client(server)[0].chat(MESSAGES, 50)
    assert caught.value.reason == "malformed"


def test_429_with_retry_after_is_honoured() -> None:
    with ScriptedLLM([Reply(status=429, body=b"{}", headers={"Retry-After": "2"}), Reply("{}")]) as server:
        chat, slept = client(server)
        assert chat.chat(MESSAGES, 50) == "{}"
    assert slept == [2.0] and len(server.requests) == 2 and chat.budget.usage.calls == 2


def test_retry_after_longer_than_allowed_gives_up_at_once() -> None:
    with ScriptedLLM([Reply(status=429, body=b"{}", headers={"Retry-After": "3600"}), Reply("{}")]) as server:
        chat, slept = client(server, max_wait=30)
        with pytest.raises(LLMError) as caught:
            chat.chat(MESSAGES, 50)
    assert caught.value.reason == "rate-limited" and slept == [] and len(server.requests) == 1


def test_server_errors_back_off_then_succeed_or_give_up() -> None:
    with ScriptedLLM([Reply(status=503, body=b"{}"), Reply(status=502, body=b"{}"), Reply("{}")]) as server:
        chat, slept = client(server, retries=2)
        assert chat.chat(MESSAGES, 50) == "{}"
    assert slept == [1.0, 2.0]
    with ScriptedLLM([Reply(status=400, body=b'{"error": "bad"}'), Reply("{}")]) as server:
        with pytest.raises(LLMError) as caught:
            client(server)[0].chat(MESSAGES, 50)
    assert caught.value.reason == "http-400" and len(server.requests) == 1


@pytest.mark.parametrize("reply", [Reply("{}", delay=3.0), Reply("x" * 3000, trickle=0.01),
                                   Reply("{}", trickle_headers=0.01)], ids=["silent", "trickled-body", "trickled-headers"])
def test_the_deadline_covers_the_whole_answer(reply: Reply) -> None:
    """A server that never answers in time, and one that sends its answer (or its status line and headers)
    a byte at a time — each byte well within the timeout, the whole far past it — are cut off at the
    deadline."""
    with ScriptedLLM([reply]) as server:
        chat, _ = client(server, timeout=0.5, retries=0)
        start = time.monotonic()
        with pytest.raises(LLMError) as caught:
            chat.chat(MESSAGES, 2000)
        assert time.monotonic() - start < 1.5
    assert caught.value.reason == "timeout"


def test_budgets_are_never_exceeded() -> None:
    with ScriptedLLM([]) as server:
        chat, _ = client(server, budget=Budget(max_tokens=100, max_calls=5))
        with pytest.raises(BudgetExceeded):
            chat.chat(MESSAGES, 200)  # the answer alone could take 200 tokens
    assert server.requests == []
    usage = {"prompt_tokens": 20, "completion_tokens": 10}
    with ScriptedLLM(lambda request: Reply("{}", usage=usage)) as server:
        chat, _ = client(server, budget=Budget(max_tokens=100, max_calls=5))
        made = 0
        with pytest.raises(BudgetExceeded):
            while True:
                chat.chat(MESSAGES, 30)
                made += 1
                assert chat.budget.usage.tokens <= 100
    # Each call reserves its prompt (12) and the longest answer (30): after two (60 used) a third does not fit.
    assert made == 2 and len(server.requests) == 2
    with ScriptedLLM(lambda request: Reply("{}", usage={"prompt_tokens": 1, "completion_tokens": 1})) as server:
        chat, _ = client(server, budget=Budget(max_tokens=10_000, max_calls=2))
        chat.chat(MESSAGES, 10)
        chat.chat(MESSAGES, 10)
        with pytest.raises(BudgetExceeded):
            chat.chat(MESSAGES, 10)
    assert len(server.requests) == 2


def test_an_answer_longer_than_asked_is_refused() -> None:
    with ScriptedLLM([Reply("{}", usage={"prompt_tokens": 5, "completion_tokens": 500})]) as server:
        with pytest.raises(LLMError) as caught:
            client(server)[0].chat(MESSAGES, 50)
    assert caught.value.reason == "too-long"


def test_the_key_never_appears_in_errors_logs_or_repr(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    echo = f'{{"error": "invalid api key {KEY}"}}'.encode()
    with ScriptedLLM([Reply(status=401, body=echo), Reply(status=429, body=echo, headers={"Retry-After": "1"}),
                      Reply(status=500, body=echo)]) as server:
        chat, _ = client(server, retries=1)
        with pytest.raises(LLMError) as first:
            chat.chat(MESSAGES, 50)
        with pytest.raises(LLMError) as second:
            chat.chat(MESSAGES, 50)
    assert server.requests[0]["headers"]["authorization"] == f"Bearer {KEY}"  # sent where it belongs
    for text in (str(first.value), str(second.value), repr(chat), caplog.text):
        assert KEY not in text and "SECRET" not in text
    assert "***" in str(first.value)


def test_only_http_endpoints() -> None:
    with pytest.raises(ValueError):
        ChatClient("file:///etc/passwd", "m", None, Budget(10, 1), tokens)
