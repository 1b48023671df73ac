"""The editor lends its language model: with ``editorModel`` in the initialization options the server offers
the "llm" stage and, when a compaction asks for it, sends ``lorekeeper/chat`` to the client. The client here
is pytest-lsp answering as the VS Code extension would (scripted answers): a faithful answer becomes the
fused entry; after an unfaithful one, or a refusal, nothing is fused (the deterministic list would cost more
tokens than the entries); nothing of the workspace but the batch is sent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from e2e_helpers import open_folder
from support import LORE, Tree

FACTS = {"t1": "Run tests with `pnpm test` before pushing.", "t2": "Use Vitest for unit tests, not Jest.",
         "t3": "The CI timeout is 30 minutes."}
GOOD = "Run tests with `pnpm test` before pushing; unit tests use Vitest, not Jest. The CI timeout is 30 minutes."


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("LORE_LLM_BASE_URL", "LORE_LLM_MODEL", "LORE_LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    tree = Tree(tmp_path / "ws")
    for n, (entry_id, text) in enumerate(FACTS.items()):
        tree.entry(f"{entry_id}.json", {"id": entry_id, "category": "conventions", "content": text, "tags": ["testing"],
                                        "created": f"2026-0{n + 1}-01T00:00:00Z"})
    tree.write("src/app.py", "SECRET_CODE = 1\n")  # code that must never reach the model
    return tree.root


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[str(LORE), "serve"]), params=[True, False],
                    ids=["editor-model", "no-editor-model"])
async def client(lsp_client: LanguageClient, request: Any, workspace: Path):
    lsp_client.chats = []  # type: ignore[attr-defined]
    lsp_client.script = []  # type: ignore[attr-defined]  # answers, in order: a dict result or an Exception

    @lsp_client.feature("lorekeeper/chat")
    def chat(client: LanguageClient, params: Any):
        client.chats.append(params)  # type: ignore[attr-defined]
        answer = client.script.pop(0)  # type: ignore[attr-defined]
        if isinstance(answer, Exception):
            raise answer
        return answer

    await open_folder(lsp_client, workspace, "visual-studio-code", {"editorModel": request.param})
    lsp_client.editor_model = request.param  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


async def _command(client: LanguageClient, name: str, *args: Any) -> Any:
    return await client.workspace_execute_command_async(types.ExecuteCommandParams(command=name, arguments=list(args)))


def _fuse(plan: dict[str, Any]) -> dict[str, Any]:
    [op] = [op for op in plan["operations"] if op["op"] == "fuse"]
    return op["result"]


def _content(params: Any, index: int) -> str:
    messages = params["messages"] if isinstance(params, dict) else params.messages
    message = messages[index]
    return message["content"] if isinstance(message, dict) else message.content


async def test_the_editor_model_writes_the_fused_entry_when_lent(client: LanguageClient, workspace: Path) -> None:
    status = await _command(client, "lore.status")
    if not client.editor_model:  # type: ignore[attr-defined]
        assert status["stages"] == ["rules"]
        refused = await _command(client, "lore.compact", {"dryRun": True, "llm": True})
        assert refused["applied"] is False and "no model" in refused["reason"]
        assert client.chats == []  # type: ignore[attr-defined]
        return
    assert status["stages"] == ["rules", "llm"]
    client.script.append({"text": json.dumps({"ids": list(FACTS), "text": GOOD}), "model": "copilot/gpt-test"})  # type: ignore[attr-defined]
    plan = await _command(client, "lore.compact", {"dryRun": True, "llm": True})
    fused = _fuse(plan)
    assert fused["content"] == GOOD and fused["written_by"] == "llm:editor:copilot/gpt-test"
    assert plan["llm"]["calls"] == 1 and plan["llm"]["accepted"] and plan["llm"]["rejected"] == []
    [sent] = client.chats  # type: ignore[attr-defined]
    payload = json.loads(_content(sent, 1))
    assert payload["entries"] == [{"id": k, "text": v} for k, v in FACTS.items()]
    assert "SECRET_CODE" not in json.dumps(sent if isinstance(sent, dict) else str(sent))
    # Applying the previewed plan uses the kept answer: no second question to the editor.
    done = await _command(client, "lore.compact", {"plan": plan["plan"], "llm": True})
    assert done["applied"] is True, done["reason"]
    assert len(client.chats) == 1  # type: ignore[attr-defined]
    written = [json.loads(p.read_text()) for p in (workspace / ".lore/memory/entries").glob("*.json")]
    assert any(e.get("content") == GOOD and e.get("written_by") == "llm:editor:copilot/gpt-test" for e in written)


async def test_an_unfaithful_answer_fuses_nothing(client: LanguageClient) -> None:
    if not client.editor_model:  # type: ignore[attr-defined]
        pytest.skip("the editor lends no model")
    client.script.append({"text": json.dumps({"ids": list(FACTS), "text": GOOD.replace("30", "45")}), "model": "m"})  # type: ignore[attr-defined]
    plan = await _command(client, "lore.compact", {"dryRun": True, "llm": True})
    assert [op for op in plan["operations"] if op["op"] == "fuse"] == []
    assert "45" in plan["llm"]["rejected"][0]["reason"]


async def test_a_refusal_stops_the_stage_and_fuses_nothing(client: LanguageClient) -> None:
    if not client.editor_model:  # type: ignore[attr-defined]
        pytest.skip("the editor lends no model")
    from pygls.exceptions import JsonRpcException

    client.script.append(JsonRpcException(code=-32001, message="declined: the user did not allow it"))  # type: ignore[attr-defined]
    # The refusal is this client's answer (sent as a JSON-RPC error), not a fault pytest-lsp should report.
    client.report_server_error = lambda *args, **kwargs: None  # type: ignore[method-assign]
    plan = await _command(client, "lore.compact", {"dryRun": True, "llm": True})
    assert [op for op in plan["operations"] if op["op"] == "fuse"] == []
    assert plan["llm"]["stopped"].startswith("the model did not answer")
    assert "declined" in plan["llm"]["rejected"][0]["reason"]
