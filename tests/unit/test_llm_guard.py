"""The faithfulness guard: a model's text stands only when it says what its sources say, all of it and
nothing else. Each case is an answer a model could plausibly give for the same three sources."""

from __future__ import annotations

import pytest

from lorekeeper.llm.guard import check, check_keywords, check_summary

SOURCES = ["Run tests with `pnpm test` before pushing.", "Use Vitest for unit tests, not Jest.",
           "The CI timeout is 30 minutes."]


@pytest.mark.parametrize("text", [
    "Run tests with `pnpm test` before pushing; unit tests use Vitest, not Jest. The CI timeout is 30 minutes.",
    "- Run tests with `pnpm test` before pushing.\n- Use Vitest for unit tests, not Jest.\n- The CI timeout is 30 minutes.",
    "Before pushing, run tests with `pnpm test`. Unit tests: use Vitest, not Jest. The CI timeout is 30 minutes.",
])
def test_faithful_answers_stand(text: str) -> None:
    verdict = check(text, SOURCES)
    assert verdict.ok, verdict.reason


@pytest.mark.parametrize(("text", "reason"), [
    # a number, a version, a path or a command no source wrote
    ("Run tests with `pnpm test` before pushing; unit tests use Vitest, not Jest. The CI timeout is 45 minutes.", "45"),
    ("Run tests with `pnpm test:unit` before pushing; unit tests use Vitest, not Jest. The CI timeout is 30 minutes.",
     "pnpm test:unit"),
    ("Run tests with `pnpm test` before pushing; unit tests use Vitest 2, not Jest. The CI timeout is 30 minutes.",
     "`2` is in no source"),
    # a fact, a name or a sentence no source states
    ("Run tests with `pnpm test` before pushing; unit tests use Vitest, not Jest. The CI timeout is 30 minutes. "
     "Deploy with Kubernetes.", "Kubernetes"),
    ("Run tests with `pnpm test` before pushing; unit tests use Vitest, not Jest. The CI timeout is 30 minutes. "
     "Coverage reports are uploaded after every merge.", "not traceable"),
    # a polarity flipped or dropped
    ("Never run tests with `pnpm test` before pushing. Use Vitest for unit tests, not Jest. The CI timeout is "
     "30 minutes.", "negat"),
    ("Run tests with `pnpm test` before pushing; unit tests use Jest, not Vitest. The CI timeout is 30 minutes.",
     "negat"),
    ("Run tests with `pnpm test` before pushing; unit tests use Jest. The CI timeout is 30 minutes.", "negation of “jest”"),
    ("Run tests with `pnpm test` before pushing; unit tests use the usual runner. The CI timeout is 30 minutes.",
     "not traceable"),
    # a fact left out
    ("Run tests with `pnpm test` before pushing; unit tests use Vitest, not Jest.", "left out"),
    ("", "empty"),
])
def test_unfaithful_answers_are_rejected_with_a_reason(text: str, reason: str) -> None:
    verdict = check(text, SOURCES)
    assert not verdict.ok
    assert reason.lower() in verdict.reason.lower()


LONG_SOURCE = ("Deploys go through `make deploy` from the release branch; never deploy on Fridays.\n"
               "The staging cluster runs in eu-west-1, not us-east-1.\nRollbacks use `make rollback`.")


@pytest.mark.parametrize("summary", [
    "Deploys go through `make deploy` from the release branch; never deploy on Fridays.",
    "Deploys go through `make deploy` from the release branch. Rollbacks use `make rollback`.",  # detail dropped
    "Staging runs in eu-west-1, not us-east-1; rollbacks use `make rollback`.",
])
def test_a_summary_may_drop_detail(summary: str) -> None:
    verdict = check_summary(summary, [LONG_SOURCE], 500)
    assert verdict.ok, verdict.reason


@pytest.mark.parametrize(("summary", "reason"), [
    ("Deploys go through `make deploy` from the release branch; deploy on Fridays.", "negation"),
    ("Never deploy from the release branch.", "negates"),
    ("Rollbacks use `helm rollback`.", "helm rollback"),
    ("The staging cluster runs in eu-west-2.", "eu-west-2"),
    ("Deploys need a sign-off from the Security team.", "Security"),
    ("Deploys go through `make deploy`. " * 20, "more than 500"),
])
def test_a_summary_invents_nothing_and_flips_no_negation(summary: str, reason: str) -> None:
    verdict = check_summary(summary, [LONG_SOURCE], 500)
    assert not verdict.ok and reason.lower() in verdict.reason.lower()


def test_keywords_are_words_of_the_source() -> None:
    assert check_keywords(["Deploy", "rollbacks", "release branch", "deploy"], [LONG_SOURCE]) == (
        ["Deploy", "rollbacks", "release branch"], "")
    assert "no word of the source" in check_keywords(["kubernetes"], [LONG_SOURCE])[1]
    assert "not a short phrase" in check_keywords(["deploy from the release branch"], [LONG_SOURCE])[1]
    assert "more than" in check_keywords([f"deploy{i}" for i in range(11)], [LONG_SOURCE])[1]
