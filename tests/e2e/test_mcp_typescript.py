"""`lore mcp` driven by a client other than the Python SDK: the MCP TypeScript SDK in Node
(tests/e2e/mcp_ts/client.mjs), as Cursor, VS Code and the Inspector speak to it. The requests a new user's
client sent: half an emoji cut by JavaScript's slice, a boolean written as a string, an apply with no
previewed plan, an argument the tool does not declare, a 1 MB reason; then the preview-then-apply
workflow and paging through export. scripts/test installs the SDK (npm) before pytest runs."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from support import LORE, Tree

HERE = Path(__file__).parent / "mcp_ts"

pytestmark = pytest.mark.skipif(
    shutil.which("node") is None or not (HERE / "node_modules/@modelcontextprotocol/sdk").is_dir(),
    reason="the MCP TypeScript SDK is not installed (scripts/test installs it with npm)")


def test_the_typescript_sdk_client_gets_careful_answers(tree: Tree) -> None:
    for n in range(30):
        tree.entry(f"e{n:02}.json", {"id": f"e{n:02}", "created": f"2026-03-{n % 28 + 1:02}T00:00:00Z",
                                     "content": f"Service {n} keeps its retry budget in config/retry-{n}.toml; the "
                                                "budget resets hourly and is shared by every worker."})
    proc = subprocess.run(["node", str(HERE / "client.mjs"), str(LORE), str(tree.root)], capture_output=True,
                          text=True, timeout=180, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout)

    tools = out["tools"]
    assert all(t["additionalProperties"] is False and not t["undescribed"] for t in tools.values()), tools
    assert {n for n, t in tools.items() if (t["annotations"] or {}).get("readOnlyHint")} == {
        "recall", "query", "status", "check_stale", "list", "export", "log", "loads"}

    assert not out["halfEmoji"]["isError"]
    stored = json.loads(out["halfEmoji"]["text"])
    content = json.loads((tree.root / stored["path"]).read_text(encoding="utf-8"))["content"]
    assert content == "Deploys go out with the rocket \ufffd script in scripts/deploy.sh."

    assert out["stringFalse"]["isError"] and "valid boolean" in out["stringFalse"]["text"]
    assert out["noPlan"]["isError"] and "only after it was previewed" in out["noPlan"]["text"]
    assert out["unknownArgument"]["isError"] and "Extra inputs are not permitted" in out["unknownArgument"]["text"]
    assert out["bigReason"]["isError"] and "at most 2000 characters" in out["bigReason"]["text"]

    preview, applied = json.loads(out["preview"]["text"]), json.loads(out["applied"]["text"])
    assert preview["dry_run"] is True and applied["dry_run"] is False and applied["plan"] == preview["plan"]

    pages = out["pages"]
    seen = [i for page in pages for i in page["ids"]]
    assert len(pages) > 2 and len(seen) == len(set(seen)) == pages[0]["total"] == 31  # every entry once
    assert "rocket" in out["recall"]["text"]
    assert out["status"]["live"] == 31
