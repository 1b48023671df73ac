"""A model's staleness verdict, kept by `lore check-stale --llm`, shows in the editor as a diagnostic on the
memory — without the server asking the model again (the scripted model is gone by the time it starts)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from e2e_helpers import open_folder, wait_for_diagnostics
from llm_server import Reply, ScriptedLLM
from support import LORE, Tree, commit, lore

CODE_BEFORE = "def retry_delay(attempt):\n    return 2 ** attempt\n"
CODE_AFTER = "def retry_delay(attempt):\n    return min(30, 5 * attempt)\n"
MEMORY = "Retries back off exponentially: `retry_delay` in src/net.py doubles the wait each attempt."
VERDICT = {"id": "r1", "verdict": "stale", "stale_reason": "`retry_delay` now returns min(30, 5 * attempt), a linear wait."}


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    tree = Tree(tmp_path / "ws")
    tree.write("src/net.py", CODE_BEFORE)
    tree.entry("r1.json", {"id": "r1", "category": "architecture", "content": MEMORY,
                           "refs": [{"path": "src/net.py", "symbol": "retry_delay"}]})
    commit(tree, "code")
    assert lore("verify", "r1", cwd=tree.root).returncode == 0
    tree.write("src/net.py", CODE_AFTER)
    commit(tree, "change the backoff", date="2030-04-01T12:00:00Z")
    for name in ("LORE_LLM_BASE_URL", "LORE_LLM_MODEL", "LORE_LLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    with ScriptedLLM([Reply(json.dumps(VERDICT))]) as server:
        # In the repository's config (a local endpoint is allowed there): the server reads it too.
        tree.write(".lore/config.toml", f'[llm]\nbase_url = "{server.url}"\nmodel = "test-model"\n')
        judged = lore("check-stale", "--llm", "--json", cwd=tree.root)
    assert any(f["kind"] == "llm-stale" for f in json.loads(judged.stdout)["findings"]), judged.stderr
    return tree.root  # the server below starts with the same endpoint configured, and nobody answers there


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[str(LORE), "serve"]))
async def client(lsp_client: LanguageClient, workspace: Path):
    await open_folder(lsp_client, workspace, "neovim")
    yield
    await lsp_client.shutdown_session()


async def test_a_kept_stale_verdict_is_a_diagnostic(client: LanguageClient, workspace: Path) -> None:
    entry = workspace / ".lore/memory/entries/r1.json"
    found = await wait_for_diagnostics(client, entry.as_uri(), lambda ds: any(d.code == "llm-stale" for d in ds))
    [judged] = [d for d in found if d.code == "llm-stale"]
    assert judged.severity == types.DiagnosticSeverity.Warning
    assert "judged this memory stale" in judged.message and "linear" in judged.message
