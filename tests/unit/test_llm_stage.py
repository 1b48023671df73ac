"""The LLM stage of `lore compact --llm` against a scripted model on 127.0.0.1: a faithful answer becomes
the fused entry's text with its provenance; an answer that invents, drops, names entries outside the
batch or is not JSON is rejected and, the deterministic list being longer than its entries, nothing is fused; budgets hold; --dry-run writes
nothing; the key appears in no file and no output; without a model everything still works."""

from __future__ import annotations

import json

import pytest

from llm_server import Reply, ScriptedLLM
from support import Tree, files, lore

KEY = "sk-test-SECRET-456"
FACTS = {"t1": "Run tests with `pnpm test` before pushing.", "t2": "Use Vitest for unit tests, not Jest.",
         "t3": "The CI timeout is 30 minutes."}
GOOD = "Run tests with `pnpm test` before pushing; unit tests use Vitest, not Jest. The CI timeout is 30 minutes."


@pytest.fixture
def ws(tree: Tree, monkeypatch: pytest.MonkeyPatch) -> Tree:
    for n, (entry_id, text) in enumerate(FACTS.items()):
        tree.entry(f"{entry_id}.json", {"id": entry_id, "category": "conventions", "content": text, "tags": ["testing"],
                                        "created": f"2026-0{n + 1}-01T00:00:00Z"})
    for name in ("LORE_LLM_BASE_URL", "LORE_LLM_MODEL", "LORE_LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    return tree


def _use(server: ScriptedLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LORE_LLM_BASE_URL", server.url)
    monkeypatch.setenv("LORE_LLM_MODEL", "test-model")
    monkeypatch.setenv("LORE_LLM_API_KEY", KEY)


def _fuse(plan: dict) -> dict:
    [op] = [op for op in plan["operations"] if op["op"] == "fuse"]
    return op


def _answer(ids: list[str], text: str) -> Reply:
    return Reply(json.dumps({"ids": ids, "text": text}))


def test_a_faithful_answer_becomes_the_fused_entry(ws: Tree, monkeypatch: pytest.MonkeyPatch) -> None:
    before = files(ws.root)
    with ScriptedLLM([_answer(list(FACTS), GOOD)]) as server:
        _use(server, monkeypatch)
        proc = lore("compact", "--llm", "--dry-run", "--json", cwd=ws.root)
    assert proc.returncode == 0, proc.stderr
    plan = json.loads(proc.stdout)
    fused = _fuse(plan)["result"]
    assert fused["content"] == GOOD and fused["written_by"] == "llm:test-model"
    assert fused["source"] == "compaction" and sorted(fused["source_entries"]) == sorted(FACTS)
    assert plan["llm"]["calls"] == 1 and len(plan["llm"]["accepted"]) == 1 and plan["llm"]["rejected"] == []
    assert files(ws.root, journal=True) == before  # --dry-run wrote nothing (not even the cache)
    sent = server.requests[0]["json"]["messages"][1]["content"]
    assert json.loads(sent)["entries"] == [{"id": k, "text": v} for k, v in FACTS.items()]  # the batch, nothing else


@pytest.mark.parametrize(("reply", "reason"), [
    (_answer(list(FACTS), GOOD.replace("30", "45")), "45"),
    (_answer(list(FACTS), GOOD + " Deploy on Fridays with Kubernetes."), "is in no source"),
    (_answer([*FACTS, "../../etc/passwd"], GOOD), "not in the batch"),
    (_answer(["t1", "t2"], GOOD), "leaves out"),
    (Reply("Sure! Here is the merged entry: " + GOOD), "not the JSON"),
    (Reply(json.dumps({"ids": list(FACTS), "text": GOOD, "delete": ["t1"]})), "not the JSON"),
])
def test_an_unfaithful_answer_is_rejected_and_the_list_stands(ws: Tree, monkeypatch: pytest.MonkeyPatch,
                                                               reply: Reply, reason: str) -> None:
    with ScriptedLLM([reply]) as server:
        _use(server, monkeypatch)
        proc = lore("compact", "--llm", "--dry-run", "--json", cwd=ws.root)
    plan = json.loads(proc.stdout)
    # The deterministic list costs more tokens than the entries: without the model's shorter text, nothing is fused.
    assert [op for op in plan["operations"] if op["op"] == "fuse"] == []
    [rejected] = plan["llm"]["rejected"]
    assert reason.lower() in rejected["reason"].lower() and sorted(rejected["sources"]) == sorted(FACTS)


def test_applying_journals_the_rejection_and_the_key_is_nowhere(ws: Tree, monkeypatch: pytest.MonkeyPatch) -> None:
    with ScriptedLLM([_answer(list(FACTS), GOOD.replace("30", "45"))]) as server:
        _use(server, monkeypatch)
        proc = lore("compact", "--llm", cwd=ws.root)
    assert proc.returncode == 0, proc.stderr
    assert server.requests[0]["headers"]["authorization"] == f"Bearer {KEY}"
    log = lore("log", "--json", cwd=ws.root)
    ops = [r["op"] for r in json.loads(log.stdout)["operations"]]
    assert "llm-rejected" in ops and "fuse" not in ops  # no list longer than its entries is written
    for path, data in files(ws.root, journal=True).items():
        assert KEY.encode() not in data, path
    for path in (ws.root / ".lore").rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path
    assert KEY not in proc.stdout + proc.stderr + log.stdout


def test_a_kept_answer_is_not_asked_again(ws: Tree, monkeypatch: pytest.MonkeyPatch) -> None:
    """The preview keeps the answer (.lore/cache): applying the previewed plan asks nothing and writes it."""
    with ScriptedLLM(lambda request: _answer(list(FACTS), GOOD)) as server:
        _use(server, monkeypatch)
        first = json.loads(lore("compact", "--llm", "--only", "fuse", "--dry-run", "--json", cwd=ws.root).stdout)
        applied = lore("compact", "--llm", "--only", "fuse", "--plan", first["plan"], "--json", cwd=ws.root)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert len(server.requests) == 1 and json.loads(applied.stdout)["llm"]["cached"] == 1
    fused = _fuse(first)["result"]["id"]
    written = json.loads(next((ws.root / ".lore/memory/entries").glob(f"*{fused}.json")).read_text())
    assert written["content"] == GOOD and written["written_by"] == "llm:test-model"


def test_the_budget_stops_the_stage_before_any_call(ws: Tree, monkeypatch: pytest.MonkeyPatch) -> None:
    (ws.root / ".lore").mkdir(exist_ok=True)
    (ws.root / ".lore" / "config.toml").write_text("[llm]\nmax_tokens = 50\n")
    with ScriptedLLM([_answer(list(FACTS), GOOD)]) as server:
        _use(server, monkeypatch)
        plan = json.loads(lore("compact", "--llm", "--dry-run", "--json", cwd=ws.root).stdout)
    assert server.requests == []
    assert "budget" in plan["llm"]["stopped"] and plan["llm"]["tokens"] == 0
    assert [op for op in plan["operations"] if op["op"] == "fuse"] == []


def test_without_a_model_the_deterministic_plan_stands(ws: Tree) -> None:
    plain = json.loads(lore("compact", "--dry-run", "--json", cwd=ws.root).stdout)
    proc = lore("compact", "--llm", "--dry-run", "--json", cwd=ws.root)
    assert proc.returncode == 0 and "no model is configured" in proc.stderr
    assert json.loads(proc.stdout)["plan"] == plain["plan"]


def test_a_repository_may_not_send_memory_to_a_remote_endpoint(ws: Tree) -> None:
    (ws.root / ".lore").mkdir(exist_ok=True)
    (ws.root / ".lore" / "config.toml").write_text('[llm]\nbase_url = "https://llm.example.com/v1"\nmodel = "m"\n'
                                                    'api_key_env = "HOME"\n')
    proc = lore("compact", "--llm", "--dry-run", "--json", cwd=ws.root)
    assert proc.returncode == 0 and "not on this machine" in proc.stderr and "LORE_LLM_BASE_URL" in proc.stderr
    assert json.loads(proc.stdout)["llm"] is None
