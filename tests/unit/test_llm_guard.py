"""The faithfulness guard: a model's text stands only when it says what its sources say, all of it and
nothing else. Each case is an answer a model could plausibly give for the same three sources."""

from __future__ import annotations

import pytest

from lorekeeper.analysis.llm.guard import check, check_keywords, check_summary

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
    ("Run tests with `pnpm test` before pushing; unit tests use Jest. The CI timeout is 30 minutes.",
     "drops the negation"),
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


# Each rule below is distilled from a real model answer (tests/data/llm/guard.jsonl); `lore`'s measure of
# the whole set is scripts/guard_measure.py.

@pytest.mark.parametrize(("text", "sources"), [
    # traceability per clause: a fused "A, B, and C" sentence draws on three sources
    ("Prefer early returns over nested ifs, keep functions under 40 lines, and don't add comments that "
     "restate the code.",
     ["Prefer early returns over nested ifs.", "Keep functions under 40 lines.",
      "Do not add comments that restate the code."]),
    # a negation governs up to the next comma: "both bind port 5433" is not negated
    ("Integration tests must never run in parallel with the dev server, since both bind port 5433.",
     ["Never run integration tests in parallel with the dev server, both bind port 5433."]),
    # the passive of a negated verb, "be" not taken for the negated word
    ("Server state lives in TanStack Query and must not be copied into Zustand.",
     ["Server state lives in TanStack Query; don't copy it into Zustand."]),
    # a negated clause next to a plain one, of two sources
    ("Use the shared `logger` in server code, never `console.log`; every log line includes the `requestId`.",
     ["Use the shared `logger` in server code, never `console.log`.", "Every log line includes the `requestId`."]),
    # a short sentence with an irregular past ("caught" / "catches")
    ("Transactional email goes through Postmark. In development, Mailpit catches emails.",
     ["Transactional email goes through Postmark.", "In development, emails are caught by Mailpit."]),
    # a URL before a comma; `.env.example` kept alongside `.env`
    ("The web app runs on http://localhost:3000, and the API on port 4000; never commit `.env`, only "
     "`.env.example`.",
     ["The web app runs on http://localhost:3000 and the API on port 4000.",
      "Never commit `.env`; commit only `.env.example`."]),
    # a negated fact joined to the plain one it limits (not the verifier's "opposite")
    ("Deploys go through `make deploy`, never on Fridays.", ["Never deploy on Fridays.", "Deploys go through `make deploy`."]),
    # two numbers, each beside the words of its own source
    ("Logs are kept for 30 days and metrics for 90 days.", ["Logs are kept for 30 days.", "Metrics are kept for 90 days."]),
    # "e.g." is no literal the answer must copy
    ("React component files are PascalCase (`UserCard.tsx`).", ["React components are PascalCase files, e.g. `UserCard.tsx`."]),
])
def test_faithful_fusions_stand(text: str, sources: list[str]) -> None:
    verdict = check(text, sources)
    assert verdict.ok, verdict.reason


@pytest.mark.parametrize(("summary", "source"), [
    # double negation in one clause: each negation has its own scope
    ("The certificate was not managed by cert-manager and was never renewed.",
     "The certificate was not managed by cert-manager, so it was never renewed."),
    # a stemmed negated word ("renamed" / "rename")
    ("Avro events only get optional fields, never renamed or removed.",
     "Events are in Avro; only add optional fields, never rename or remove one."),
    # "instead of" says what was replaced, which the source says otherwise
    ("Unit tests use Vitest instead of Jest.", "Unit tests use Vitest since the switch from Jest."),
    # "no difference" for "no measurable difference"
    ("Changing `maxTotalHits` made no difference.", "Raising `maxTotalHits` or lowering it made no measurable difference."),
    # a number of the sentence the clause draws on, a date that is no number of its own
    ("Since 2024-03 the suite runs in about 50 seconds.", "Since 2024-03:\n- The suite runs in about 50 seconds."),
])
def test_faithful_summaries_stand(summary: str, source: str) -> None:
    verdict = check_summary(summary, [source], 500)
    assert verdict.ok, verdict.reason


@pytest.mark.parametrize(("text", "sources", "reason"), [
    # a swapped value (the verifier's conflict with the source clause)
    ("Auth uses Auth0; session tokens are verified in `middleware.ts`.",
     ["Auth uses Clerk; we decided against Auth0.", "Session tokens are verified in `middleware.ts`."], "contradicts"),
    # two things exchanged in one clause
    ("Flags default to on in production and off in staging; remove a flag after rollout.",
     ["Flags default to off in production and on in staging.", "Remove a flag after rollout."], "exchanges"),
    ("The monorepo has `apps/web` and `apps/api`; `apps/web` must not import from `apps/api`.",
     ["The monorepo has `apps/web` and `apps/api`.", "`apps/api` must not import from `apps/web`."], "exchanges"),
    # two numbers of two sources exchanged
    ("Logs are kept for 90 days and metrics for 30 days.", ["Logs are kept for 30 days.", "Metrics are kept for 90 days."],
     "belongs to another fact"),
    # the subject of a negated fact joined to a plain one
    ("Product and cart pages are cached for 10 minutes; checkout responses are never cached.",
     ["Product pages are cached for 10 minutes.", "Cart and checkout responses are never cached."], "negation"),
    # "only" dropped
    ("`DATABASE_URL` points to the local Postgres; set `REDIS_URL` in production.",
     ["`DATABASE_URL` points to the local Postgres.", "Set `REDIS_URL` only in production."], "only"),
    # a whole negated fact dropped, its literal still written elsewhere
    ("Secrets are in the vault; `.env.example` lists every variable.",
     ["Secrets are in the vault; never commit `.env` files.", "`.env.example` lists every variable."], "left out"),
    ("Server state lives in TanStack Query; Zustand holds UI state.",
     ["Server state lives in TanStack Query; don't copy it into Zustand.", "Zustand holds UI state."],
     "negated fact"),
    # a negation turned into an exception
    ("Argo CD syncs `prod` from `deploy/prod/`; apply manifests by hand in emergencies.",
     ["Never apply manifests to `prod` by hand; Argo CD syncs them from `deploy/prod/`."], "negation"),
])
def test_unfaithful_fusions_are_rejected(text: str, sources: list[str], reason: str) -> None:
    verdict = check(text, sources)
    assert not verdict.ok and reason in verdict.reason, verdict.reason


TRIAGE = ("On-call triage (first 15 minutes)\n\n1. Acknowledge the page within 5 minutes, or it escalates.\n"
          "2. Post a status update within 20 minutes.\n3. Do not restart databases alone.")


@pytest.mark.parametrize(("summary", "source", "reason"), [
    # a number from the title, not from the fact
    ("Acknowledge the page within 15 minutes, or it escalates.", TRIAGE, "another fact"),
    # a number the source writes only as a list step
    ("Acknowledge the page within 3 minutes, or it escalates.", TRIAGE, "in no source"),
    # a word the source only negates, stated plainly
    ("The certificate was issued by hand; a weekly job renews certificates expiring within 21 days.",
     "The certificate was issued by hand, so it was never renewed.\n- A weekly job lists certificates expiring "
     "within 21 days.", "negation of “renew”"),
    # a subject written as code taken into another sentence's fact
    ("`notifications` consumes it and reserves stock; `inventory` sends the emails.",
     "- `inventory` consumes `order.paid` and reserves stock.\n- `notifications` consumes `order.paid` and "
     "sends the emails.", "belongs to another fact"),
    # the negated side swapped
    ("Branch from main, not from the latest release tag.", "Branch from the latest release tag, not from main.",
     "negation"),
])
def test_unfaithful_summaries_are_rejected(summary: str, source: str, reason: str) -> None:
    verdict = check_summary(summary, [source], 500)
    assert not verdict.ok and reason in verdict.reason, verdict.reason
