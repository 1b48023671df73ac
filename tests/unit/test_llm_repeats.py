"""Facts instruction files state twice in words the semantic guard does not vouch for, judged by a configured
model (`lore repeats --llm`), against a scripted model on 127.0.0.1: only pairs nothing tells apart are
asked (never `REDIS_URL` against `REDIS_JOBS_URL`, whatever the model would say), each with where its lines
are; what the model judges one fact is named with its judge and never removed for its word; each verdict is
kept by pair, so later runs, `lore validate` and the editor show it without asking again; without a model
nothing changes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from llm_server import MODEL_ENV, Reply, ScriptedLLM, use_model
from lorekeeper.analysis.diagnose import memory_findings
from lorekeeper.analysis.llm.client import Budget, ChatClient
from lorekeeper.analysis.llm.stage import LLMStage
from lorekeeper.app.compact import settings
from lorekeeper.facts import open_memory
from lorekeeper.facts.semantic_guard import refusal
from lorekeeper.infra.tokens import count_tokens
from lorekeeper.workspace import Workspace
from support import Tree, lore


@pytest.fixture(autouse=True)
def _no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in MODEL_ENV:
        monkeypatch.delenv(name, raising=False)


def _decide(same: bool) -> Any:
    """A model that answers every pair of a request the same way."""
    def reply(request: dict[str, Any]) -> Reply:
        pairs = json.loads(request["json"]["messages"][-1]["content"]).get("pairs")
        if pairs is None:
            return Reply("{}")  # (another operation of the stage: refused, its deterministic result stands)
        return Reply(json.dumps({"decisions": [{"pair": p["pair"], "same_fact": same, "reason": "stand-in"} for p in pairs]}))
    return reply


def _asked(server: ScriptedLLM) -> list[tuple[str, str]]:
    return [(p["a"]["text"], p["b"]["text"]) for r in server.requests
            for p in json.loads(r["json"]["messages"][-1]["content"]).get("pairs", [])]


# -- what no judge may overrule ---------------------------------------------------------------------------

@pytest.mark.parametrize(("a", "b", "why"), [
    # deadonfilm: two Redis instances, one variable each
    ("`REDIS_URL` - Redis cache connection (optional in dev; caching is skipped if unavailable)",
     "`REDIS_JOBS_URL` - Redis for BullMQ jobs (optional in dev; job queue disabled if unavailable)", "each names"),
    # one command for two purposes
    ("**Initialize database:** `uv run alembic upgrade head`", "**Apply migrations:** `uv run alembic upgrade head`",
     "another label"),
    ("Run ruff check before each commit", "Run ruff check --fix before each commit", "another command (--fix)"),
    ("⬜ Progress tracking for long-running backups", "✅ Progress tracking for long-running backups was added", "planned"),
    ("Run the smoke tests only on main", "Run the smoke tests on main", "restricts"),
    ("Never commit generated files to the repository", "Commit generated files to the repository", "negated"),
    # a negation reaches the list after it (openai-agents-python's AGENTS.md)
    ("It must never push, open or edit a pull request, create a release, or mutate any other GitHub state.",
     "Commit with concise, imperative messages; keep commits small and focused, then open a pull request.",
     "one negates what the other states"),
])
def test_what_tells_two_lines_apart_is_never_a_models_to_overrule(a: str, b: str, why: str) -> None:
    reason = refusal(a, b)
    assert reason and why in reason, reason


@pytest.mark.parametrize(("a", "b"), [
    # nftbk: one thing labelled by what it is and by its name
    ("**Async Runtime**: Using Tokio for asynchronous operations to handle concurrent downloads efficiently.",
     "**tokio**: Async runtime for handling concurrent operations"),
    ("Use TOML for configuration files", "Support for configuration via TOML files"),
    ("**Database**: PostgreSQL 16 via `pg` (raw SQL, no ORM). Connection: `DATABASE_URL`",
     "`DATABASE_URL` - PostgreSQL connection string"),
])
def test_a_pair_in_other_words_is_left_to_the_judge(a: str, b: str) -> None:
    assert refusal(a, b) == ""


# -- the stage: batches, verdicts kept a pair at a time ----------------------------------------------------

PAIRS = [("Use TOML for configuration files", "Support for configuration via TOML files", "CLAUDE.md", "AGENTS.md"),
         ("Retry mechanisms for rate-limited API calls", "Implement backoff for rate-limited API calls", "a.md", "b.md"),
         ("Content verification mechanisms", "Content integrity verification", "a.md, under “Next”", "b.md")]


def _stage(server: ScriptedLLM, ws: Workspace, batch: int = 4, ask: bool = True) -> LLMStage:
    client = ChatClient(server.url, "test-model", None, Budget(100_000, 50), count_tokens, retries=0) if ask else None
    return LLMStage(client, "test-model", server.url, batch, 800, ws)


def test_pairs_are_asked_in_batches_with_where_each_line_is_and_each_verdict_is_kept(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    answers = iter([[True, False], [True]])

    def reply(request: dict[str, Any]) -> Reply:
        pairs = json.loads(request["json"]["messages"][-1]["content"])["pairs"]
        return Reply(json.dumps({"decisions": [{"pair": p["pair"], "same_fact": s, "reason": "r"}
                                               for p, s in zip(pairs, next(answers), strict=True)]}))

    with ScriptedLLM(reply) as server:
        stage = _stage(server, ws)
        assert stage.same_facts(PAIRS) == ["llm:test-model", None, "llm:test-model"]
        stage.save()
        sent = [json.loads(r["json"]["messages"][-1]["content"]) for r in server.requests]
        assert [len(s["pairs"]) for s in sent] == [2, 1]  # half a batch of entries: two lines a pair
        assert sent[0]["pairs"][0] == {"pair": "p1", "a": {"text": PAIRS[0][0], "where": "CLAUDE.md"},
                                       "b": {"text": PAIRS[0][1], "where": "AGENTS.md"}}
        assert stage.report.vetoed == [{"op": "same-fact", "sources": list(PAIRS[1][:2]), "reason": "r"}]
        # the same pairs in another order and beside a new one: only the new one is asked
        again = _stage(server, ws)
        new = ("Summary statistics after backup completion", "Report totals once a backup is done", "a.md", "b.md")
        answers = iter([[False]])
        assert again.same_facts([PAIRS[2], new, PAIRS[0]]) == ["llm:test-model", None, "llm:test-model"]
        assert len(server.requests) == 3 and again.report.cached == 2
        again.save()
        # a stage that may not ask (the editor's) answers from the verdicts kept, and asks nothing
        kept = _stage(server, ws, ask=False)
        assert kept.same_facts([PAIRS[1], PAIRS[0], ("never", "asked", "x", "y")]) == [None, "llm:test-model", None]
        assert len(server.requests) == 3


@pytest.mark.parametrize("answer", ['{"decisions": [{"pair": "p1", "same_fact": "yes"}]}', '{"decisions": []}', "not json"])
def test_a_bad_answer_judges_nothing(tmp_path: Path, answer: str) -> None:
    with ScriptedLLM([Reply(answer)]) as server:
        stage = _stage(server, Workspace(tmp_path), batch=2)
        assert stage.same_facts(PAIRS[:1]) == [None]
    assert stage.report.rejected and not stage.report.accepted


# -- lore repeats --llm, then validate: deadonfilm's CLAUDE.md --------------------------------------------

DEADONFILM = ("# CLAUDE.md\n\n## Tech Stack\n\n"
              "- **Database**: PostgreSQL 16 via `pg` (raw SQL, no ORM). Connection: `DATABASE_URL`\n"
              "- **Caching**: Redis 7 via `ioredis`. Connection: `REDIS_URL`\n"
              "- **Job queue**: BullMQ on separate Redis instance. Connection: `REDIS_JOBS_URL`\n\n"
              "## Environment Variables\n\n"
              "- `DATABASE_URL` - PostgreSQL connection string\n"
              "- `REDIS_URL` - Redis cache connection (optional in dev; caching is skipped if unavailable)\n"
              "- `REDIS_JOBS_URL` - Redis for BullMQ jobs (optional in dev; job queue disabled if unavailable)\n")


def _copies(out: str) -> set[tuple[int, int, bool, str | None]]:
    found = json.loads(out)["repeats"]
    return {(r["kept"]["line"], c["line"], c["removable"], c["judged_by"]) for r in found for c in r["copies"]}


@pytest.mark.slow
def test_lore_repeats_llm_names_what_the_model_judges_one_fact_and_never_removes_it(
        tree: Tree, monkeypatch: pytest.MonkeyPatch) -> None:
    tree.write("CLAUDE.md", DEADONFILM)
    plain = lore("repeats", "--semantic", "--json", cwd=tree.root)
    assert plain.returncode == 0, plain.stderr
    assert _copies(plain.stdout) == set()  # the guard vouches for none of them (two headings of one file)
    unset = lore("repeats", "--llm", "--json", cwd=tree.root)  # no model configured: the guard alone, and said
    assert unset.returncode == 0 and _copies(unset.stdout) == set() and "llm" not in json.loads(unset.stdout)
    assert "no model is configured" in unset.stderr and "the guard alone decides" in unset.stderr
    with ScriptedLLM(_decide(True)) as server:
        use_model(server, monkeypatch)
        judged = lore("repeats", "--llm", "--json", cwd=tree.root)
        asked = _asked(server)
        requests = len(server.requests)
        applied = lore("repeats", "--llm", "--apply", cwd=tree.root)  # the kept verdicts: nothing asked again
        kept = lore("repeats", "--semantic", cwd=tree.root)  # without --llm: the kept verdicts, said to be the model's
        # with the semantic stage on, the editor's findings show them from the kept verdicts
        tree.write(".lore/config.toml", "[compaction]\nsemantic_dedup = true\n")
        ws = Workspace(tree.root)
        shown = memory_findings(open_memory(ws), settings(ws))
        assert len(server.requests) == requests
    assert judged.returncode == 0, judged.stderr
    # each Tech Stack line and the variable it names: the same fact to a model that says yes to everything...
    assert _copies(judged.stdout) == {(5, 11, False, "llm:test-model"), (6, 12, False, "llm:test-model"),
                                      (7, 13, False, "llm:test-model")}, judged.stdout
    # ... which is never asked about two variables, nor told a line without where it is
    flat = [" ".join(p) for p in asked]
    assert not [p for p in flat if "`REDIS_URL`" in p and "`REDIS_JOBS_URL`" in p], asked
    assert all(r["json"]["messages"][-1]["content"].count("\"where\": \"CLAUDE.md, under") == 2 * len(
        json.loads(r["json"]["messages"][-1]["content"])["pairs"]) for r in server.requests)
    data = json.loads(judged.stdout)
    assert data["llm"]["model"] == "test-model" and data["llm"]["calls"] == requests
    # never removed for the model's word
    assert applied.returncode == 0 and (tree.root / "CLAUDE.md").read_text() == DEADONFILM
    assert "removed: 0 copies" in applied.stdout
    assert kept.stdout.count("as judged by test-model") == 3, kept.stdout
    near = [f for f in shown if f.kind == "near-duplicate"]
    assert {f.line for f in near} == {11, 12, 13}, near
    assert all("as judged by test-model (no rule tells them apart)" in f.message and f.fix is None for f in near)
    # without a model configured, nothing of it is shown
    monkeypatch.delenv("LORE_LLM_BASE_URL")
    assert not [f for f in memory_findings(open_memory(ws), settings(ws)) if f.kind == "near-duplicate"]


# -- entries: merges a model offers, never plans --------------------------------------------------------------

ENTRIES = {  # cline's memory (tests/data/compaction/real_pairs.jsonl r023): one fact twice; and two of one kind
    "p1": ("`@clinebot/agents` uses `@clinebot/llms` handlers for model calls.", "2026-02-01T00:00:00Z"),
    "p2": ("**Agents** use `@clinebot/llms` for model interactions.", "2026-08-09T00:00:00Z"),
    "m1": ("Run database migrations before deploying the new pods.", "2026-03-01T00:00:00Z"),
    "m2": ("Run database migrations after deploying the new pods.", "2026-04-01T00:00:00Z"),
}


@pytest.mark.slow
def test_a_merge_a_model_judges_is_offered_never_planned(tree: Tree, monkeypatch: pytest.MonkeyPatch) -> None:
    for entry_id, (text, created) in ENTRIES.items():  # (two a category: none is fused)
        tree.entry(f"{entry_id}.json", {"id": entry_id, "category": "architecture" if entry_id[0] == "p" else "operations",
                                        "content": text, "created": created, "tags": ["project:cline"]})
    with ScriptedLLM(_decide(True)) as server:
        use_model(server, monkeypatch)
        planned = lore("compact", "--semantic", "--llm", "--dry-run", "--json", cwd=tree.root)
        text = lore("compact", "--semantic", "--llm", "--dry-run", cwd=tree.root)
        asked = _asked(server)
        tree.write(".lore/config.toml", "[compaction]\nsemantic_dedup = true\n")
        ws = Workspace(tree.root)
        requests = len(server.requests)
        shown = memory_findings(open_memory(ws), settings(ws))
        assert len(server.requests) == requests  # the editor asks nothing: the kept verdicts
    assert planned.returncode == 0, planned.stderr
    data = json.loads(planned.stdout)
    # the guard vouches for neither pair; a model that says yes to everything is asked about the first only
    assert not [op for op in data["operations"] if {"p1", "p2"} <= set(op["sources"]) | {(op.get("result") or {}).get("id")}]
    # the one that says more is kept: the older, which names the package
    assert [(o["entry"], o["into"], o["by"]) for o in data["llm"]["offered"]] == [("p2", "p1", "llm:test-model")]
    assert not [p for p in asked if {ENTRIES["m1"][0], ENTRIES["m2"][0]} == set(p)], asked
    assert "llm offers: merging p2 into p1" in text.stdout and "not planned" in text.stdout
    # (the second run answers from the kept verdict: nothing asked, the offer the same)
    assert "1 kept from an earlier run; 0 accepted" in text.stdout, text.stdout
    assert [a for a in data["llm"]["accepted"] if a["op"] == "same-fact"] and data["llm"]["calls"] >= 1
    [offer] = [f for f in shown if f.entry == "p2" and f.kind == "near-duplicate"]
    assert "as judged by test-model (no rule says so)" in offer.message
    assert offer.fix is not None and offer.fix.model_dump() == {"action": "merge", "entry": "p2", "into": "p1"}


def test_pairs_judged_two_facts_are_no_vetoed_merge_in_the_journal(tmp_path: Path) -> None:
    """A pair of lines the model judged two facts had nothing planned: the journal's `llm-vetoed` record
    (merges the model refused) does not list it, nor name its texts as entries."""
    from lorekeeper.analysis.llm import journal_operations

    with ScriptedLLM(_decide(False)) as server:
        stage = _stage(server, Workspace(tmp_path))
        assert stage.same_facts(PAIRS[:1]) == [None]
    assert stage.report.vetoed and journal_operations(stage) == []
    stage.report.vetoed.append({"op": "semantic", "sources": ["a1", "a2"], "reason": "one is about staging"})
    [record] = journal_operations(stage)
    assert record.op == "llm-vetoed" and record.entries == ["a1", "a2"]
