"""`lore mcp` end to end, driven by the MCP SDK's own stdio client: the agent's workflow (store -> recall ->
compact(dry_run) -> check_stale), writes journaled and undoable like the CLI's, errors said to the agent,
and the LLM stage answered by the client's model through MCP sampling (scripted here)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
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
        # it runs after the answer (never on the request's path); status says what it did
        assert first["status"] == "stored" and first["auto_compaction"]["scheduled"] is True
        ran = None
        for _ in range(200):
            ran = (await call(session, "status"))["last_auto_compaction"]
            if ran is not None:
                break
            await anyio.sleep(0.05)
        assert ran is not None and ran["ran"] is True and ran["operations"] >= 1 and ran["journal"]
        assert ran["tokens_after"] <= ran["tokens_before"]  # never leaves memory larger
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


# -- a careful API: what clients nobody here wrote send -------------------------------------------

def raw_session(root: Path, *args: str):
    """``lore mcp`` driven line by line (raw JSON-RPC), initialised; returns (process, send, receive)."""
    import subprocess

    proc = subprocess.Popen([str(LORE), *args, "mcp"] if args else [str(LORE), "--root", str(root), "mcp"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=root)
    assert proc.stdin is not None and proc.stdout is not None

    def send(line: str) -> None:
        assert proc.stdin is not None
        proc.stdin.write((line + "\n").encode("utf-8"))
        proc.stdin.flush()

    def receive() -> dict[str, Any]:
        import select

        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], 30)
        assert ready, "no answer within 30 s"  # the client would wait to its deadline
        return json.loads(proc.stdout.readline())

    send(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}))
    assert receive()["id"] == 0
    send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    return proc, send, receive


def test_every_line_gets_an_answer_and_half_an_emoji_is_stored_whole(project: Tree) -> None:
    proc, send, receive = raw_session(project.root)
    try:
        send('{"jsonrpc":"2.0","id":7,"method":"tools/ca')  # cut off mid-line
        assert receive() == {"jsonrpc": "2.0", "id": None,
                             "error": {"code": -32700, "message": "Parse error: the line is not JSON"}}
        send('{"id": 8, "hello": "there"}')  # JSON, not JSON-RPC
        assert receive()["error"]["code"] == -32600  # answered (its id: the next test)
        # JavaScript's slice cut an emoji in half: JSON.stringify sends the lone half as an escape
        send('{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"store","arguments":'
             '{"content":"Deploys go out with the rocket \\ud83d script in scripts/deploy.sh."}}}')
        answer = receive()
        assert answer["id"] == 9 and not answer["result"].get("isError")
        stored = json.loads(answer["result"]["content"][0]["text"])
        entry = json.loads((project.root / stored["path"]).read_text(encoding="utf-8"))
        assert entry["content"] == "Deploys go out with the rocket \ufffd script in scripts/deploy.sh."
    finally:
        proc.kill()
        proc.wait()


def test_a_request_gets_an_answer_with_its_id_when_it_is_not_json_rpc(project: Tree) -> None:
    proc, send, receive = raw_session(project.root)
    try:
        send('{"id": 8, "hello": "there"}')
        assert receive() == {"jsonrpc": "2.0", "id": 8, "error": {
            "code": -32600, "message": "Invalid Request: not a JSON-RPC 2.0 message"}}
    finally:
        proc.kill()
        proc.wait()


async def test_arguments_are_strict_and_the_schema_says_every_limit(project: Tree) -> None:
    project.entry("a.json", {"id": "a", "content": FACTS["t1"], "created": "2026-01-01T00:00:00Z"})
    project.entry("b.json", {"id": "b", "content": FACTS["t1"], "created": "2026-02-01T00:00:00Z"})
    before = {p.name: p.read_bytes() for p in (project.root / ".lore/memory/entries").iterdir()}
    async with connect(project.root) as session:
        for args, says in [({"dry_run": "false"}, "valid boolean"), ({"dry_run": "no"}, "valid boolean"),
                           ({"dry_run": False}, "only after it was previewed"), ({"dry_run": True, "plan_id": "x"},
                                                                                  "Extra inputs are not permitted")]:
            assert says in await error_of(session, "compact", **args)
        assert "valid integer" in await error_of(session, "list", limit="5")
        assert "at most 80 characters" in await error_of(session, "store", content="A fact.", category="c" * 81)
        assert "at most 2000 characters" in await error_of(session, "forget", id="a", reason="x" * 2001)
        assert "at most 50 items" in await error_of(session, "recall", focus=[f"f{i}" for i in range(51)])
        tools = {t.name: t for t in (await session.list_tools()).tools}
    assert {p.name: p.read_bytes() for p in (project.root / ".lore/memory/entries").iterdir()} == before
    for tool in tools.values():
        schema = tool.input_schema
        assert schema.get("additionalProperties") is False, tool.name
        for name, prop in schema.get("properties", {}).items():
            assert prop.get("description"), f"{tool.name}.{name} has no description"
        assert tool.annotations is not None and tool.annotations.read_only_hint is not None, tool.name
    assert {n for n, t in tools.items() if t.annotations and t.annotations.read_only_hint} == {
        "recall", "query", "status", "check_stale", "list", "export", "log", "loads"}
    assert {n for n, t in tools.items() if t.annotations and t.annotations.destructive_hint} == {
        "compact", "forget", "update"}
    assert tools["store"].input_schema["properties"]["tags"]["maxItems"] == 20


async def test_a_plan_is_applied_only_on_the_memory_it_was_previewed_on(tmp_path: Path) -> None:
    roots = []
    for name in ("one", "two"):
        tree = Tree(tmp_path / name)
        for n in range(2):  # the same memory in two workspaces
            tree.entry(f"d{n}.json", {"id": f"d{n}", "content": FACTS["t1"], "created": f"2026-0{n + 1}-01T00:00:00Z"})
        roots.append(tree)
    ids = []
    for tree in roots:
        async with connect(tree.root) as session:
            ids.append((await call(session, "compact"))["plan"])
    assert ids[0] != ids[1]  # a plan id names the memory it was planned on, not only what it does
    one = roots[0]
    one.entry("other.json", {"id": "other", "content": "The CI timeout is 30 minutes.", "created": "2026-05-01T00:00:00Z"})
    async with connect(one.root) as session:
        refused = await error_of(session, "compact", dry_run=False, plan=ids[0])  # an unrelated change since
        assert "memory changed since plan" in refused
        fresh = (await call(session, "compact"))["plan"]
        applied = await call(session, "compact", dry_run=False, plan=fresh)
    assert applied["dry_run"] is False and applied["journal"]


async def test_large_answers_are_bounded_and_paged(project: Tree) -> None:
    from lorekeeper.infra.tokens import count_tokens

    for n in range(120):
        project.entry(f"e{n:03}.json", {"id": f"e{n:03}", "category": "patterns", "created": "2026-03-01T00:00:00Z",
                                        "content": f"Service {n} keeps its retry budget in config/retry-{n}.toml; "
                                                   + "the budget resets hourly and is shared by every worker. " * 6})
    async with connect(project.root) as session:
        seen, offset, pages = set(), 0, 0
        while offset is not None:
            result = await session.call_tool("export", {"offset": offset, "max_tokens": 2000})
            text = result.content[0].text
            assert count_tokens(text) <= 2400  # the page fits (its JSON framing aside)
            page = json.loads(text)
            seen |= {e["id"] for e in page["entries"]}
            offset, pages = page["next_offset"], pages + 1
        assert len(seen) == page["total"] >= 120 and pages > 3
        preview = await session.call_tool("compact", {"max_tokens": 1000})
        assert count_tokens(preview.content[0].text) <= 1400


async def test_status_counts_the_stale_memories_check_stale_reports(project: Tree) -> None:
    project.write("CLAUDE.md", "# Notes\n\n- Payments: `charge` in `src/pay.py` is the only way to take money.\n")
    commit(project, "notes", date="2026-03-02T12:00:00Z")
    (project.root / "src/pay.py").unlink()
    commit(project, "payments moved out", date="2026-03-03T12:00:00Z")
    async with connect(project.root) as session:
        stale = await call(session, "check_stale")
        status = await call(session, "status")
    assert stale["counts"]["error"] >= 1
    assert status["stale_findings"] == stale["counts"] and status["context"]["stale"] >= 1


async def test_outside_any_workspace_every_tool_says_why(tmp_path: Path) -> None:
    lonely = tmp_path / "lonely"
    lonely.mkdir()
    params = StdioServerParameters(command=str(LORE), args=["mcp"], cwd=str(lonely))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        text = await error_of(session, "status")
    assert "no Lorekeeper workspace found" in text and "--from" in text


async def test_an_agent_asks_what_it_loads(tree: Tree) -> None:
    tree.write("CLAUDE.md", "- Read @docs/setup.md\n")
    tree.write("docs/setup.md", "- Setup\n")
    tree.write("AGENTS.md", "- Root rules\n")
    tree.write("pkg/AGENTS.md", "- Package rules\n")
    tree.write(".cursor/rules/go.mdc", "---\nglobs: pkg/**/*.go\n---\n- Go rules\n")
    tree.write("pkg/main.go", "package main\n")
    async with connect(tree.root) as session:
        answer = await call(session, "loads", path="pkg/main.go", agents=["claude", "codex", "cursor"], cwd="pkg")
        assert "valid" in await error_of(session, "loads", path="x", agents=["vim"])
        assert "leaves the workspace" in await error_of(session, "loads", path="../x.go")
    by_agent = {a["agent"]: a for a in answer["agents"]}
    assert [f["path"] for f in by_agent["claude"]["files"]] == ["CLAUDE.md", "docs/setup.md"]
    assert [f["path"] for f in by_agent["codex"]["files"]] == ["AGENTS.md", "pkg/AGENTS.md"]
    assert [(f["path"], f["how"]) for f in by_agent["cursor"]["files"]] == [(".cursor/rules/go.mdc", "glob"), ("AGENTS.md", "always")]
