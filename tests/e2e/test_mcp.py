"""`lore mcp` end to end, driven by the MCP SDK's own stdio client: the agent's workflow (store -> recall ->
compact(dry_run) -> check_stale), writes journaled and undoable like the CLI's, errors said to the agent,
and the LLM stage answered by the client's model through MCP sampling (scripted here)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from support import LORE, Tree, commit, lore

FACTS = {"t1": "Run tests with `pnpm test` before pushing.", "t2": "Use Vitest for unit tests, not Jest.",
         "t3": "The CI timeout is 30 minutes."}
GOOD = "Run tests with `pnpm test` before pushing; unit tests use Vitest, not Jest. The CI timeout is 30 minutes."

Sampler = Callable[[types.CreateMessageRequestParams], str]


@asynccontextmanager
async def connect(root: Path, sample: Sampler | None = None, name: str = "test-agent") -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(command=str(LORE), args=["--root", str(root), "mcp"])
    callback = None
    if sample is not None:
        async def callback(ctx: Any, request: types.CreateMessageRequestParams) -> types.CreateMessageResult:
            return types.CreateMessageResult(role="assistant", model="client-model",
                                             content=types.TextContent(type="text", text=sample(request)))

    async with stdio_client(params) as (read, write), ClientSession(
            read, write, sampling_callback=callback, client_info=types.Implementation(name=name, version="1")) as session:
        await session.initialize()
        yield session


async def call(session: ClientSession, tool: str, **args: Any) -> Any:
    result = await session.call_tool(tool, args)
    text = result.content[0].text if result.content and isinstance(result.content[0], types.TextContent) else ""
    if result.is_error:
        raise AssertionError(f"{tool}: {text}")
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


async def error_of(session: ClientSession, tool: str, **args: Any) -> str:
    result = await session.call_tool(tool, args)
    assert result.is_error, f"{tool} should have failed"
    content = result.content[0]
    assert isinstance(content, types.TextContent)
    return content.text


@pytest.fixture
def project(tree: Tree) -> Tree:
    tree.write("src/pay.py", "def charge(amount):\n    return amount\n\n\ndef refund(amount):\n    return -amount\n")
    tree.write("package.json", json.dumps({"scripts": {"test": "vitest"}}))
    commit(tree, "the code")
    return tree


async def test_the_agent_workflow_store_recall_compact_check_stale(project: Tree) -> None:
    root = project.root
    async with connect(root) as session:
        init_tools = {t.name for t in (await session.list_tools()).tools}
        assert {"recall", "store", "query", "status", "compact", "check_stale", "verify", "pin", "unpin", "forget",
                "update", "list", "bulk_store", "export", "configure", "log"} <= init_tools
        stored = await call(session, "store", content="Payments go through `charge` in src/pay.py; never call Stripe directly.",
                            category="pitfalls", refs=["src/pay.py:charge"])
        assert stored["status"] == "stored"
        assert {"caveat", "python", "stripe"} <= set(stored["tags"])  # tagged from the text and the ref
        again = await call(session, "store", content="Payments go through `charge` in src/pay.py; never call Stripe directly.")
        assert again == {"status": "skipped", "reason": "duplicate", "duplicate_of": stored["id"]}
        bulk = await call(session, "bulk_store", entries=[{"content": "Refunds go through `refund` in src/pay.py.",
                                                           "refs": ["src/pay.py:refund"]},
                                                          {"content": "Release notes live in CHANGELOG.md."}])
        assert [r["status"] for r in bulk["results"]] == ["stored", "stored"]
        recalled = await call(session, "recall", focus=["src/pay.py"])
        assert "never call Stripe directly" in recalled and "`refund`" in recalled
        as_json = await call(session, "recall", focus=["src/pay.py"], format="json")
        assert as_json["tokens"] <= as_json["budget"]
        # recall and `lore context` render the same memory for the same focus and budget
        cli = lore("context", "--budget", str(as_json["budget"]), "--focus", "src/pay.py", cwd=root)
        assert cli.stdout == recalled and as_json["text"] == recalled
        assert {e["id"] for e in as_json["entries"]} >= {stored["id"]}
        plan = await call(session, "compact")  # dry_run is the default
        assert plan["dry_run"] is True and plan["preview"].startswith("# Compaction preview")
        clean = await call(session, "check_stale")
        assert clean["counts"]["error"] == 0
        verified = await call(session, "verify", ids=[r["id"] for r in bulk["results"]])
        assert len(verified["verified"]) == 2 and verified["journal"]
    # The code changes under the memory: the refund function is renamed away.
    (root / "src/pay.py").write_text("def charge(amount):\n    return amount\n")
    commit(project, "drop refunds", date="2030-04-01T12:00:00Z")  # after the memory was verified
    refund_id = bulk["results"][0]["id"]
    async with connect(root) as session:
        stale = await call(session, "check_stale")
        about = [f for f in stale["findings"] if f.get("entry") == refund_id]
        assert any(f["severity"] == "error" and "refund" in f["message"] for f in about), about
        assert not any(f.get("entry") == stored["id"] and f["severity"] == "error" for f in stale["findings"])
        log = await call(session, "log", limit=10)
        assert [row["argv"] for row in log["operations"][:3]] == ["mcp verify", "mcp bulk_store", "mcp bulk_store"]
    # The CLI sees what the agent stored, and undoes it like its own.
    listed = json.loads(lore("list", "--json", cwd=root).stdout)
    assert listed["count"] == 3 and all(e["source"] == "mcp" for e in listed["entries"])
    assert lore("undo", "--last", cwd=root).returncode == 0  # the verify
    assert lore("undo", "--last", cwd=root).returncode == 0  # the bulk store
    assert json.loads(lore("list", "--json", cwd=root).stdout)["count"] == 1


async def test_pin_forget_update_list_export_configure(project: Tree) -> None:
    root = project.root
    for n, (entry_id, text) in enumerate(FACTS.items()):
        project.entry(f"{entry_id}.json", {"id": entry_id, "category": "conventions", "content": text,
                                           "created": f"2026-0{n + 1}-01T00:00:00Z"})
    async with connect(root, name="claude-code") as session:
        page = await call(session, "list", limit=2)
        assert [e["id"] for e in page["entries"]] == ["t3", "t2"] and page["next_offset"] == 2  # newest first
        last = await call(session, "list", offset=2, limit=2)
        assert [e["id"] for e in last["entries"]] == ["t1"] and last["next_offset"] is None
        assert (await call(session, "pin", id="t1"))["changed"] is True
        assert (await call(session, "pin", id="t1"))["changed"] is False
        assert json.loads((root / ".lore/memory/entries/t1.json").read_text())["pinned"] is True
        assert (await call(session, "unpin", id="t1"))["changed"] is True
        assert "pinned" not in json.loads((root / ".lore/memory/entries/t1.json").read_text())
        summary = await call(session, "update", id="t3", summary="CI: 30 min timeout.")
        assert summary["summary"] == "CI: 30 min timeout."
        exported = await call(session, "export", summaries=True)
        assert {e["id"]: e["content"] for e in exported["entries"]}["t3"] == "CI: 30 min timeout."
        forgotten = await call(session, "forget", id="t2", reason="we moved to Jest")
        assert forgotten["archived"] is True
        assert json.loads((root / ".lore/memory/entries/t2.json").read_text())["content"] == FACTS["t2"]  # kept on disk
        assert "t2" not in {e["id"] for e in (await call(session, "list"))["entries"]}
        configured = await call(session, "configure")
        assert configured["budget"] == 8000  # this client's default (its name, from the handshake)
        configured = await call(session, "configure", budget=1500)
        assert configured["budget"] == 1500
        assert "no entry 'nope'" in await error_of(session, "pin", id="nope")
        assert "leaves the workspace" in await error_of(session, "store", content="x", refs=["../../etc/passwd"])
        assert "not shorter" in await error_of(session, "update", id="t1", summary=FACTS["t1"] + " And more words.")
    # Each tool call is one command in the journal: undo --last reverses the forget's archive.
    assert lore("undo", "--last", cwd=root).returncode == 0
    assert "archived" not in json.loads((root / ".lore/memory/entries/t2.json").read_text())


async def test_compact_with_the_client_model_through_sampling(project: Tree) -> None:
    root = project.root
    for n, (entry_id, text) in enumerate(FACTS.items()):
        project.entry(f"{entry_id}.json", {"id": entry_id, "category": "conventions", "content": text, "tags": ["testing"],
                                           "created": f"2026-0{n + 1}-01T00:00:00Z"})
    asked: list[types.CreateMessageRequestParams] = []

    def faithful(request: types.CreateMessageRequestParams) -> str:
        asked.append(request)
        return json.dumps({"ids": list(FACTS), "text": GOOD})

    async with connect(root, faithful) as session:
        plan = await call(session, "compact", llm=True)
        [fuse] = [op for op in plan["operations"] if op["op"] == "fuse"]
        assert fuse["result"]["content"] == GOOD and fuse["result"]["written_by"] == "llm:mcp:client-model"
        assert plan["llm"]["calls"] == 1 and plan["llm"]["rejected"] == []
        [request] = asked
        sent = json.loads(request.messages[0].content.text)  # type: ignore[union-attr]
        assert sent["entries"] == [{"id": k, "text": v} for k, v in FACTS.items()]
        assert "src/pay.py" not in json.dumps(request.model_dump(mode="json"))  # the batch, nothing of the code
        applied = await call(session, "compact", dry_run=False, llm=True, plan=plan["plan"])
        assert applied["dry_run"] is False and len(asked) == 1  # the previewed answer, not a second question
    written = [json.loads(p.read_text()) for p in (root / ".lore/memory/entries").glob("*.json")]
    assert any(e.get("content") == GOOD for e in written)


async def test_an_invented_fact_from_the_client_model_is_rejected(project: Tree) -> None:
    root = project.root
    for n, (entry_id, text) in enumerate(FACTS.items()):
        project.entry(f"{entry_id}.json", {"id": entry_id, "category": "conventions", "content": text, "tags": ["testing"],
                                           "created": f"2026-0{n + 1}-01T00:00:00Z"})
    async with connect(root, lambda _: json.dumps({"ids": list(FACTS), "text": GOOD + " Deploy with Kubernetes."})) as session:
        plan = await call(session, "compact", llm=True)
    # the deterministic list costs more than the entries: refused the model's text, nothing is fused
    assert [op for op in plan["operations"] if op["op"] == "fuse"] == []
    assert "no source" in plan["llm"]["rejected"][0]["reason"]


async def test_without_sampling_or_endpoint_the_deterministic_plan_stands(project: Tree) -> None:
    root = project.root
    for n, (entry_id, text) in enumerate(FACTS.items()):
        project.entry(f"{entry_id}.json", {"id": entry_id, "category": "conventions", "content": text, "tags": ["testing"],
                                           "created": f"2026-0{n + 1}-01T00:00:00Z"})
    async with connect(root) as session:
        plan = await call(session, "compact", llm=True)
    assert any("no model to ask" in p for p in plan["problems"])
    assert [op for op in plan["operations"] if op["op"] == "fuse"] == []  # a list would be longer than the entries


async def test_auto_compaction_past_the_threshold(project: Tree) -> None:
    root = project.root
    for n in range(3):  # one fact written three times (by hand): the rules merge the copies
        project.entry(f"d{n}.json", {"id": f"d{n}", "category": "conventions", "content": FACTS["t1"],
                                     "created": f"2026-0{n + 1}-01T00:00:00Z"})
    project.write(".lore/config.toml", "[context]\nauto_compact_threshold = 0.2\n")
    async with connect(root) as session:
        await call(session, "configure", budget=100)  # the store's ~40 tokens pass 20% of it
        first = await call(session, "store", content="Release notes live in CHANGELOG.md.")
        ran = first["auto_compaction"]
        assert ran["operations"] >= 1 and ran["journal"]
        second = await call(session, "store", content="Tags follow semver.")
        assert "auto_compaction" not in second  # not again before 20 more entries
        log = await call(session, "log", limit=5)
    assert "mcp auto-compact" in {row["argv"] for row in log["operations"]}
    merged = [json.loads((root / f".lore/memory/entries/d{n}.json").read_text()).get("merged_into") for n in range(3)]
    assert merged.count(None) == 1
    async with connect(root) as session:
        await call(session, "configure", budget=100, auto_compact_threshold=0)
        third = await call(session, "store", content="The staging database is reset nightly.")
    assert "auto_compaction" not in third or third["auto_compaction"] is None
