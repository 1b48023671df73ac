"""Tags given to entries stored without any (content type, languages, tools named), and the lent model's
client: the same budget and refusals as the HTTP client, whoever answers."""

from __future__ import annotations

import pytest

from lorekeeper.analysis.llm.bridge import Answer, BridgeClient, BridgeError
from lorekeeper.analysis.llm.client import Budget, BudgetExceeded, LLMError
from lorekeeper.facts.tagging import auto_tags, content_type, languages, tools
from lorekeeper.infra.tokens import count_tokens


@pytest.mark.parametrize(("text", "kind"), [
    ("The build fails with ENOENT when node_modules is missing.", "error"),
    ("We chose SQLite instead of Postgres for the CLI cache.", "decision"),
    ("Never call the payments API from a view.", "caveat"),
    ("Always format with black before committing.", "convention"),
    ("Run `make dev` to start the stack.", "how-to"),
    ("The logo is blue.", None),
])
def test_content_type(text: str, kind: str | None) -> None:
    assert content_type(text) == kind


def test_languages_come_from_paths_in_refs_and_text() -> None:
    assert languages("See src/app/main.ts and the handler in api/views.py.", ["lib/x.rs"]) == ["python", "rust", "typescript"]
    assert languages("Version 1.2 of the spec, e.g. the README.") == []  # numbers and e.g. are not files


def test_tools_named_as_words_not_inside_other_words() -> None:
    assert tools("Use Docker compose and Postgres 16; cache in Redis.") == ["docker", "postgres", "redis"]
    assert tools("Redistribute the load") == []
    # Everyday words count only in code style or capitalised: "make sure" is not Make.
    assert tools("make sure the flask of coffee is full") == []
    assert tools("Run `make test` before pushing; Flask serves the API.") == ["flask", "make"]


def test_auto_tags_in_a_stable_order() -> None:
    tags = auto_tags("Never call Stripe directly from views.py; go through `charge`.", ["src/pay.py"])
    assert tags == ["caveat", "python", "stripe"]
    assert auto_tags("The logo is blue.") == []


def _bridge(answers: list[Answer | BridgeError], budget: Budget) -> tuple[BridgeClient, list[tuple[int, bool]]]:
    seen: list[tuple[int, bool]] = []

    def ask(messages: list[dict[str, str]], max_tokens: int, json_mode: bool) -> Answer:
        seen.append((max_tokens, json_mode))
        answer = answers.pop(0)
        if isinstance(answer, BridgeError):
            raise answer
        return answer

    return BridgeClient(ask, "editor", budget, count_tokens), seen


def test_the_bridge_counts_tokens_and_names_the_model_from_its_answer() -> None:
    client, seen = _bridge([Answer("ok then", "copilot/gpt")], Budget(1000, 5))
    assert client.chat([{"role": "user", "content": "hello there"}], 50) == "ok then"
    assert seen == [(50, True)] and client.model == "copilot/gpt"
    usage = client.budget.usage
    assert usage.calls == 1 and usage.completion_tokens == count_tokens("ok then") and usage.prompt_tokens > 0


def test_the_bridge_never_asks_past_the_budget() -> None:
    client, seen = _bridge([Answer("a", "m")] * 3, Budget(1000, 1))
    client.chat([{"role": "user", "content": "x"}], 10)
    with pytest.raises(BudgetExceeded):
        client.chat([{"role": "user", "content": "x"}], 10)
    too_big, seen_big = _bridge([Answer("a", "m")], Budget(20, 5))
    with pytest.raises(BudgetExceeded):
        too_big.chat([{"role": "user", "content": "x"}], 50)  # the longest answer allowed would not fit
    assert len(seen) == 1 and seen_big == []


def test_a_refusal_or_an_overlong_answer_is_an_llm_error() -> None:
    client, _ = _bridge([BridgeError("declined", "the user said no")], Budget(1000, 5))
    with pytest.raises(LLMError) as refused:
        client.chat([{"role": "user", "content": "x"}], 10)
    assert refused.value.reason == "peer-declined"
    long, _ = _bridge([Answer("word " * 50, "m")], Budget(1000, 5))
    with pytest.raises(LLMError) as overlong:
        long.chat([{"role": "user", "content": "x"}], 10)
    assert overlong.value.reason == "too-long"
