"""The LLM stage's other operations against a scripted model on 127.0.0.1: summaries for `lore gc
--compress --llm` and consolidated learnings, confirmation of semantic merges, the narrative index, and
staleness judgement (`lore check-stale --llm`). Each shows that a good answer is used with its provenance,
that a bad one is refused and the deterministic result stands, that budgets hold, that --dry-run writes
nothing, and that the key is in no file and no output."""

from __future__ import annotations

import json
import os
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from llm_server import MODEL_ENV, Reply, ScriptedLLM, use_model
from lorekeeper.analysis.compaction import summarize
from lorekeeper.analysis.compaction.rules import Planner
from lorekeeper.analysis.llm.client import Budget, ChatClient
from lorekeeper.analysis.llm.stage import LLMStage
from lorekeeper.core.settings.compaction import CompactionConfig as Config
from lorekeeper.infra.tokens import count_tokens
from lorekeeper.workspace import Workspace
from support import LORE, Tree, commit, files, lore

KEY = "sk-test-SECRET-789"
LONG = ("Deploys go through `make deploy` from the release branch.\nThe staging cluster runs in eu-west-1.\n"
        "Never deploy on Fridays.\nRollbacks use `make rollback`.\nThe on-call rotation is kept in PagerDuty.\n"
        "Release notes live in docs/releases.md.")
SUMMARY = "Deploys go through `make deploy` from the release branch; never deploy on Fridays. Rollbacks use `make rollback`."


@pytest.fixture(autouse=True)
def _no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in MODEL_ENV:
        monkeypatch.delenv(name, raising=False)


def _use(server: ScriptedLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    use_model(server, monkeypatch, KEY)


def _no_key_anywhere(root: Path, *outputs: str) -> None:
    for path in root.rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path
    for text in outputs:
        assert KEY not in text


def _stage(server: ScriptedLLM, ws: Workspace | None = None, budget: Budget | None = None, batch: int = 10) -> LLMStage:
    client = ChatClient(server.url, "test-model", KEY, budget or Budget(100_000, 50), count_tokens, retries=0)
    return LLMStage(client, "test-model", server.url, batch, 800, ws)


# -- summaries (gc --compress) -------------------------------------------------------------------------

@pytest.fixture
def long_entry(tree: Tree) -> Tree:
    tree.entry("d1.json", {"id": "d1", "category": "operations", "content": LONG, "created": "2026-01-01T00:00:00Z"})
    tree.write(".lore/config.toml", "[compaction]\ncompress_lines = 3\n")
    return tree


def _compress(plan: dict[str, Any]) -> dict[str, Any]:
    [op] = [op for op in plan["operations"] if op["op"] == "compress"]
    return op


def test_gc_compress_llm_writes_a_checked_summary_with_keywords(long_entry: Tree, monkeypatch: pytest.MonkeyPatch) -> None:
    answer = json.dumps({"id": "d1", "summary": SUMMARY, "keywords": ["deploy", "rollbacks", "release branch"]})
    before = files(long_entry.root)
    with ScriptedLLM(lambda request: Reply(answer)) as server:
        _use(server, monkeypatch)
        preview = lore("gc", "--compress-only", "--llm", "--dry-run", "--json", cwd=long_entry.root)
        assert preview.returncode == 0, preview.stderr
        assert files(long_entry.root) == before  # --dry-run wrote nothing
        plan = json.loads(preview.stdout)
        assert plan["llm"]["calls"] == 1 and plan["llm"]["accepted"] == [{"op": "compress", "sources": ["d1"], "id": "d1"}]
        assert _compress(plan)["stage"] == "llm:test-model"
        sent = json.loads(server.requests[0]["json"]["messages"][1]["content"])
        assert sent == {"id": "d1", "category": "operations", "limit": 500, "text": LONG}  # the entry, nothing else
        applied = lore("gc", "--compress-only", "--llm", cwd=long_entry.root)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert len(server.requests) == 1  # the previewed answer was kept, not asked again
    written = json.loads((long_entry.root / ".lore/memory/entries/d1.json").read_text())
    assert written["content"] == LONG  # the original stays
    assert written["summary"] == SUMMARY and written["keywords"] == ["deploy", "rollbacks", "release branch"]
    assert written["summary_by"] == "llm:test-model" and written["compressed_at"]
    log = json.loads(lore("log", "--json", cwd=long_entry.root).stdout)["operations"]
    assert [r["stage"] for r in log if r["op"] == "compress"] == ["llm:test-model"]
    text_log = lore("log", cwd=long_entry.root).stdout
    assert "compress [llm:test-model]" in text_log and "views [rules]" in text_log
    _no_key_anywhere(long_entry.root, preview.stdout, preview.stderr, applied.stdout, applied.stderr, text_log)


@pytest.mark.parametrize(("answer", "reason"), [
    ({"id": "d1", "summary": SUMMARY.replace("`make rollback`", "`helm rollback`"), "keywords": []}, "helm rollback"),
    ({"id": "d1", "summary": "The staging cluster runs in eu-west-2.", "keywords": []}, "eu-west-2"),
    ({"id": "d1", "summary": "Deploys go through `make deploy`; deploy on Fridays.", "keywords": []}, "negation"),
    ({"id": "d1", "summary": "Deploys need approval from the Security team.", "keywords": []}, "Security"),
    ({"id": "d1", "summary": SUMMARY, "keywords": ["kubernetes"]}, "kubernetes"),
    ({"id": "d1", "summary": SUMMARY + " " + SUMMARY * 5, "keywords": []}, "more than 500"),
    ({"id": "d2", "summary": SUMMARY, "keywords": []}, "another entry"),
    ({"id": "d1", "summary": SUMMARY, "keywords": [], "delete": True}, "not the JSON"),
])
def test_a_refused_summary_leaves_the_deterministic_one(long_entry: Tree, monkeypatch: pytest.MonkeyPatch,
                                                       answer: dict[str, Any], reason: str) -> None:
    with ScriptedLLM([Reply(json.dumps(answer))]) as server:
        _use(server, monkeypatch)
        proc = lore("gc", "--compress-only", "--llm", "--dry-run", "--json", cwd=long_entry.root)
    plan = json.loads(proc.stdout)
    op = _compress(plan)
    assert op["stage"] == "rules" and "llm" not in op["reason"]
    [rejected] = plan["llm"]["rejected"]
    assert rejected["op"] == "compress" and reason.lower() in rejected["reason"].lower()
    # The deterministic summary is what the plan writes: the diff of a dry run shows it.
    diff = lore("gc", "--compress-only", "--llm", "--dry-run", cwd=long_entry.root).stdout
    assert json.dumps(summarize(LONG, 500))[1:-1][:60] in diff and "keywords" not in diff


def test_a_consolidated_learning_gets_a_summary(tree: Tree, monkeypatch: pytest.MonkeyPatch) -> None:
    facts = {"c1": "Staging deploys use `make deploy-staging`.", "c2": "Staging runs in eu-west-1, not us-east-1."}
    for entry_id, text in facts.items():
        tree.entry(f"{entry_id}.json", {"id": entry_id, "category": "operations", "content": text, "tags": ["staging"],
                                       "created": "2025-01-01T00:00:00Z"})
    tree.write(".lore/config.toml", "[compaction]\nconsolidate = true\nconsolidate_unread = true\n")
    summary = "Staging deploys use `make deploy-staging` and run in eu-west-1, not us-east-1."

    def reply(request: dict[str, Any]) -> Reply:
        sent = json.loads(request["json"]["messages"][1]["content"])
        return Reply(json.dumps({"id": sent["id"], "summary": summary, "keywords": ["staging"]}))

    with ScriptedLLM(reply) as server:
        _use(server, monkeypatch)
        proc = lore("compact", "--only", "consolidate", "--llm", "--json", cwd=tree.root)
    assert proc.returncode == 0, proc.stderr
    [op] = [op for op in json.loads(proc.stdout)["operations"] if op["op"] == "consolidate"]
    learning = json.loads(next((tree.root / ".lore/memory/entries").glob(f"*{op['result']['id']}.json")).read_text())
    assert learning["summary"] == summary and learning["keywords"] == ["staging"] and learning["summary_by"] == "llm:test-model"
    assert all(text in learning["content"] for text in facts.values())  # every fact still listed
    sent = json.loads(server.requests[0]["json"]["messages"][1]["content"])
    assert sorted(e["id"] for e in sent["entries"]) == sorted(facts)


# -- semantic-dedup confirmation -----------------------------------------------------------------------

def _planner_with_merges(tree: Tree) -> Planner:
    """A plan holding two merges the semantic stage would propose (planned directly: no embedding model)."""
    texts = {"a1": "Use pnpm to install dependencies.", "a2": "Dependencies are installed with pnpm.",
             "b1": "The API listens on port 8080.", "b2": "The API server listens on port 8080 in production."}
    for entry_id, text in texts.items():
        tree.entry(f"{entry_id}.json", {"id": entry_id, "category": "conventions", "content": text})
    store = tree.store()
    planner = Planner(store.entries, Config(), datetime.now(UTC))
    by_id = store.by_id()
    planner.emit_merge("semantic", by_id["a1"], [by_id["a2"]], "states the same fact as a1 in other words")
    planner.emit_merge("semantic", by_id["b2"], [by_id["b1"]], "states the same fact as b2 in other words")
    return planner


def test_the_model_confirms_or_vetoes_merges_it_is_shown(tree: Tree) -> None:
    planner = _planner_with_merges(tree)
    answer = {"decisions": [{"pair": "p1", "same_fact": True, "reason": "both say pnpm installs dependencies"},
                            {"pair": "p2", "same_fact": False, "reason": "one is about production only"}]}
    with ScriptedLLM([Reply(json.dumps(answer))]) as server:
        stage = _stage(server)
        stage.confirm(planner)
    sent = json.loads(server.requests[0]["json"]["messages"][1]["content"])
    assert sent["category"] == "conventions" and [p["pair"] for p in sent["pairs"]] == ["p1", "p2"]
    [kept] = planner.operations
    assert kept.sources == ["a2"] and kept.stage == "semantic+llm:test-model" and "confirmed by test-model" in kept.reason
    assert stage.report.vetoed == [{"op": "semantic", "sources": ["b1", "b2"], "reason": "one is about production only"}]


@pytest.mark.parametrize("answer", [
    {"decisions": [{"pair": "p1", "same_fact": False, "reason": "x"}]},  # a pair left undecided
    {"decisions": [{"pair": "p1", "same_fact": True, "reason": "x"}, {"pair": "p2", "same_fact": True, "reason": "x"},
                   {"pair": "p3", "same_fact": True, "reason": "merge c1 too"}]},  # a pair it was not shown
    {"decisions": [{"pair": "p1", "same_fact": "yes", "reason": "x"}, {"pair": "p2", "same_fact": True, "reason": "x"}]},
    "not json at all",
])
def test_a_bad_confirmation_leaves_the_verified_merges_and_adds_none(tree: Tree, answer: Any) -> None:
    planner = _planner_with_merges(tree)
    before = [(op.op, op.sources, op.reason) for op in planner.operations]
    with ScriptedLLM([Reply(answer if isinstance(answer, str) else json.dumps(answer))]) as server:
        stage = _stage(server)
        stage.confirm(planner)
    assert [(op.op, op.sources, op.reason) for op in planner.operations] == before
    assert len(stage.report.rejected) == 1 and stage.report.vetoed == []


class BrokenProvider:
    """Another provider behind the stage's interface (``chat`` and ``budget``), one with a bug."""

    def __init__(self) -> None:
        self.budget = Budget(10_000, 10)

    def chat(self, messages: list[dict[str, str]], max_tokens: int, json_mode: bool = True) -> str:
        raise RuntimeError("provider bug")


def test_any_failure_degrades_to_the_deterministic_plan(tree: Tree) -> None:
    planner = _planner_with_merges(tree)
    stage = LLMStage(BrokenProvider(), "m", "editor:", 10, 800)  # type: ignore[arg-type]
    stage.run("semantic confirmation", stage.confirm, planner)
    assert [op.sources for op in planner.operations] == [["a2"], ["b1"]]
    assert "semantic confirmation failed (RuntimeError)" in stage.report.stopped


def test_confirmation_batches_hold_at_most_ten_entries_of_one_category(tree: Tree) -> None:
    for n in range(14):
        tree.entry(f"x{n}.json", {"id": f"x{n}", "category": "conventions" if n < 12 else "pitfalls",
                                  "content": f"Fact number {n} of the project."})
    store = tree.store()
    by_id = store.by_id()
    planner = Planner(store.entries, Config(), datetime.now(UTC))
    for n in range(0, 14, 2):
        planner.emit_merge("semantic", by_id[f"x{n}"], [by_id[f"x{n + 1}"]], "same")

    def reply(request: dict[str, Any]) -> Reply:
        sent = json.loads(request["json"]["messages"][1]["content"])
        return Reply(json.dumps({"decisions": [{"pair": p["pair"], "same_fact": True, "reason": "same"} for p in sent["pairs"]]}))

    with ScriptedLLM(reply) as server:
        _stage(server).confirm(planner)
    batches = [json.loads(r["json"]["messages"][1]["content"]) for r in server.requests]
    assert [len(b["pairs"]) for b in batches] == [5, 1, 1]
    for batch in batches:
        ids = {i for p in batch["pairs"] for i in (p["a"]["id"], p["b"]["id"])}
        assert len(ids) <= 10 and len({by_id[i].category for i in ids}) == 1


# -- narrative index -----------------------------------------------------------------------------------

SECTIONS = {
    "conventions": [("t1", "Run tests with `pnpm test` before pushing."), ("t2", "Use Vitest for unit tests, not Jest.")],
    "operations": [("o1", "The CI timeout is 30 minutes.")],
}


def test_narrate_keeps_accepted_prose_and_leaves_refused_categories_to_bullets() -> None:
    def reply(request: dict[str, Any]) -> Reply:
        sent = json.loads(request["json"]["messages"][1]["content"])
        if sent["category"] == "conventions":
            return Reply(json.dumps({"category": "conventions",
                                     "text": "Run tests with `pnpm test` before pushing, and use Vitest for unit tests, not Jest."}))
        return Reply(json.dumps({"category": "operations", "text": "The CI timeout is 45 minutes."}))

    with ScriptedLLM(reply) as server:
        stage = _stage(server)
        prose = stage.narrate(SECTIONS, budget_tokens=200)
    assert list(prose) == ["conventions"] and "Vitest" in prose["conventions"]
    assert stage.report.narrated == ["conventions"]
    [rejected] = stage.report.rejected
    assert rejected["op"] == "narrate" and "45" in rejected["reason"] and rejected["sources"] == ["o1"]
    budgets = {json.loads(r["json"]["messages"][1]["content"])["category"]:
               json.loads(r["json"]["messages"][1]["content"])["budget_tokens"] for r in server.requests}
    assert sum(budgets.values()) <= 200 and budgets["conventions"] > budgets["operations"]


def test_narrate_refuses_prose_over_its_share_or_that_drops_a_fact() -> None:
    answers = [{"category": "conventions", "text": "Run tests with `pnpm test` before pushing."},  # Vitest dropped
               {"category": "operations", "text": "The CI timeout is 30 minutes."}]
    with ScriptedLLM([Reply(json.dumps(a)) for a in answers]) as server:
        stage = _stage(server)
        assert stage.narrate(SECTIONS, budget_tokens=200) == {"operations": "The CI timeout is 30 minutes."}
    with ScriptedLLM([Reply(json.dumps(a)) for a in answers]) as server:
        stage = _stage(server)
        assert stage.narrate(SECTIONS, budget_tokens=6) == {}  # 6 tokens cannot hold any of it
    assert all("more than the" in r["reason"] or "left out" in r["reason"] for r in stage.report.rejected)


def test_one_budget_for_every_operation_of_a_run() -> None:
    usage = {"prompt_tokens": 150, "completion_tokens": 30}
    with ScriptedLLM(lambda request: Reply(json.dumps({"category": "x", "text": "x"}), usage=usage)) as server:
        budget = Budget(max_tokens=1100, max_calls=50)
        stage = _stage(server, budget=budget)
        stage.narrate(SECTIONS, budget_tokens=200)
        stage.narrate(SECTIONS, budget_tokens=200)
    # Each call reserves its prompt (~190) and the 800 answer tokens allowed: after the first (180 spent)
    # no other fits in 1100, whichever operation asks.
    assert len(server.requests) == 1 and budget.usage.tokens <= 1100 and "budget" in stage.report.stopped


# -- staleness judgement -------------------------------------------------------------------------------

CODE_BEFORE = "def retry_delay(attempt):\n    return 2 ** attempt\n\n\nSECRET_MARKER = 'other code'\n"
CODE_AFTER = "def retry_delay(attempt):\n    return min(30, 5 * attempt)\n\n\nSECRET_MARKER = 'other code'\n"
MEMORY = "Retries back off exponentially: `retry_delay` in src/net.py doubles the wait each attempt."


@pytest.fixture
def changed(tree: Tree) -> Tree:
    tree.write("src/net.py", CODE_BEFORE)
    tree.write(".env", "API_TOKEN=do-not-send\n")
    tree.entry("r1.json", {"id": "r1", "category": "architecture", "content": MEMORY,
                           "refs": [{"path": "src/net.py", "symbol": "retry_delay"}, {"path": ".env"}]})
    commit(tree, "code")
    assert lore("verify", "r1", cwd=tree.root).returncode == 0
    tree.write("src/net.py", CODE_AFTER)
    tree.write(".env", "API_TOKEN=still-do-not-send\n")
    commit(tree, "change the backoff", date="2026-04-01T12:00:00Z")
    return tree


def test_check_stale_llm_turns_a_stale_verdict_into_a_finding(changed: Tree, monkeypatch: pytest.MonkeyPatch) -> None:
    verdict = {"id": "r1", "verdict": "stale", "stale_reason": "`retry_delay` now returns min(30, 5 * attempt), a linear wait."}
    with ScriptedLLM([Reply(json.dumps(verdict))]) as server:
        _use(server, monkeypatch)
        proc = lore("check-stale", "--llm", "--json", cwd=changed.root)
        review = subprocess.run([str(LORE), "review"], cwd=changed.root, input="s\n", capture_output=True, text=True,
                                env={**os.environ, "NO_COLOR": "1"}, timeout=120)
        marked = lore("check-stale", "--llm", "--mark", cwd=changed.root)  # the kept verdict: no second request
        # Without --llm, the verdict kept from the earlier run is shown again, without asking.
        again = json.loads(lore("check-stale", "--json", cwd=changed.root).stdout)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    [judged] = [f for f in data["findings"] if f["kind"] == "llm-stale"]
    assert judged["severity"] == "warning" and judged["entry"] == "r1"
    assert judged["message"].startswith("the model test-model judged this memory stale: ") and "linear" in judged["message"]
    assert data["llm"]["calls"] == 1 and data["llm"]["verdicts"][0]["verdict"] == "stale"
    [request] = server.requests
    sent = json.loads(request["json"]["messages"][1]["content"])
    assert sent["memory"] == {"id": "r1", "text": MEMORY}
    excerpts = "\n".join(c["excerpt"] for c in sent["changes"])
    assert "min(30, 5 * attempt)" in excerpts  # the symbol's body as it is now ...
    assert "SECRET_MARKER" not in excerpts and "do-not-send" not in json.dumps(request["json"])  # ... and nothing else
    # --mark records it (journaled, with the stage), and the entry file says so.
    assert marked.returncode == 0, marked.stderr
    entry = json.loads((changed.root / ".lore/memory/entries/r1.json").read_text())
    assert entry["stale_reason"].startswith("the model test-model judged this memory stale")
    [flag] = [r for r in json.loads(lore("log", "--json", cwd=changed.root).stdout)["operations"] if r["op"] == "flag-stale"]
    assert flag["stage"] == "llm:test-model"
    assert any(f["kind"] == "llm-stale" for f in again["findings"]) and "llm" not in again
    assert "judged this memory stale" in review.stdout and "linear" in review.stdout  # review shows the kept verdict
    _no_key_anywhere(changed.root, proc.stdout, proc.stderr, marked.stdout, marked.stderr)


@pytest.mark.parametrize(("verdict", "rejected"), [
    ({"id": "r1", "verdict": "holds", "stale_reason": ""}, ""),
    ({"id": "r1", "verdict": "unsure", "stale_reason": ""}, ""),
    ({"id": "r1", "verdict": "stale", "stale_reason": ""}, "without a reason"),
    ({"id": "r1", "verdict": "stale", "stale_reason": "`backoff_seconds` replaced it in src/http.py."}, "backoff_seconds"),
    ({"id": "other", "verdict": "stale", "stale_reason": "the wait changed"}, "another memory"),
    ({"id": "r1", "verdict": "obsolete", "stale_reason": "x"}, "not the JSON"),
])
def test_other_verdicts_add_no_finding(changed: Tree, monkeypatch: pytest.MonkeyPatch, verdict: dict[str, str],
                                       rejected: str) -> None:
    with ScriptedLLM([Reply(json.dumps(verdict))]) as server:
        _use(server, monkeypatch)
        data = json.loads(lore("check-stale", "--llm", "--json", cwd=changed.root).stdout)
    assert not any(f["kind"] == "llm-stale" for f in data["findings"])
    assert any(f["kind"] == "changed-since-verified" for f in data["findings"])  # the checker's finding stands
    if rejected:
        assert rejected.lower() in data["llm"]["rejected"][0]["reason"].lower()
    else:
        assert data["llm"]["verdicts"] == [{"id": "r1", "verdict": verdict["verdict"], "reason": ""}]


def test_staleness_check_off_asks_nothing(changed: Tree, monkeypatch: pytest.MonkeyPatch) -> None:
    changed.write(".lean-spec/config.json", json.dumps({"memory": {"compaction": {"stalenessCheck": False}}}))
    with ScriptedLLM([]) as server:
        _use(server, monkeypatch)
        proc = lore("check-stale", "--llm", "--json", cwd=changed.root)
    assert server.requests == [] and "stalenessCheck is off" in proc.stderr


def test_the_toggles_are_read_from_both_configuration_files(tree: Tree) -> None:
    tree.write(".lean-spec/config.json", json.dumps({"memory": {"compaction": {
        "llmAssisted": True, "semanticDedup": True, "entryFusion": False, "stalenessCheck": False, "narrativeIndex": True}}}))
    config = Workspace(tree.root).compaction
    assert (config.llm_assisted, config.semantic_dedup, config.entry_fusion, config.staleness_check,
            config.narrative_index) == (True, True, False, False, True)
    tree.write(".lore/config.toml", "[compaction]\nstaleness_check = true\nnarrative_index = false\n")
    config = Workspace(tree.root).compaction
    assert (config.staleness_check, config.narrative_index) == (True, False)


def test_log_shows_each_operations_stage(tree: Tree) -> None:
    """A record says which stage made it; one written before stages were kept is told by its op."""
    from lorekeeper.store import Operation

    journal = tree.journal()
    old = journal.record(Operation(op="semantic", reason="states the same fact", changes=[], entries=["a"]))
    journal.record(Operation(op="fuse", reason="fused", changes=[], entries=["b"], stage="llm:m"))
    journal.record(Operation(op="add", reason="new entry", changes=[], entries=["c"]))
    assert "stage" not in json.loads(old.path.read_text())
    rows = json.loads(lore("log", "--json", cwd=tree.root).stdout)["operations"]
    assert {r["op"]: r["stage"] for r in rows} == {"semantic": "semantic", "fuse": "llm:m", "add": ""}


# -- the narrative index in index.md -----------------------------------------------------------------------

PROSE = "Run tests with `pnpm test` before pushing, and use Vitest for unit tests, not Jest."


@pytest.mark.parametrize(("prose", "kept"), [(PROSE, True), (PROSE.replace(", and use Vitest for unit tests, not Jest", ""), False)],
                         ids=["faithful", "drops-a-fact"])
def test_index_md_reads_as_prose_where_the_guard_accepts_it(tree: Tree, monkeypatch: pytest.MonkeyPatch,
                                                            prose: str, kept: bool) -> None:
    tree.entry("c1.json", {"id": "c1", "category": "conventions", "content": "Run tests with `pnpm test` before pushing.",
                           "created": "2026-01-01T00:00:00Z"})
    tree.entry("c2.json", {"id": "c2", "category": "conventions", "content": "Use Vitest for unit tests, not Jest.",
                           "created": "2026-01-02T00:00:00Z"})
    tree.write(".lore/config.toml", "[compaction]\nnarrative_index = true\nentry_fusion = false\n")

    def reply(request: dict[str, Any]) -> Reply:
        sent = json.loads(request["json"]["messages"][1]["content"])
        return Reply(json.dumps({"category": sent["category"], "text": prose}))

    with ScriptedLLM(reply) as server:
        _use(server, monkeypatch)
        proc = lore("compact", "--llm", "--only", "views", "--json", cwd=tree.root)
    assert proc.returncode == 0, proc.stderr
    index = (tree.root / ".lore/memory/index.md").read_text()
    section = index[index.index("## conventions"):]
    if kept:
        assert PROSE in section and "- Run tests" not in section and "- Use Vitest" not in section
        assert json.loads(proc.stdout)["llm"]["narrated"] == ["conventions"]
    else:
        assert "- Run tests with `pnpm test` before pushing." in section
        assert "- Use Vitest for unit tests, not Jest." in section
    stated = int(index.split("<!-- ")[2].split("/")[0])  # the index states its own size, within the budget
    assert stated == count_tokens(index) <= 2000
    _no_key_anywhere(tree.root, proc.stdout, proc.stderr)
