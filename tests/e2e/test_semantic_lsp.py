"""The semantic stage under the editor's duplicate diagnostics and merge quick fix (``semanticDedup`` on):
the same engine as ``lore compact --semantic``. Loads the local embedding model in the server's check
thread (a few seconds): marked slow."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient
from test_actions import actions, run

from e2e_helpers import wait_for_diagnostics
from example_workspace import make, refactor

pytestmark = pytest.mark.slow

ENTRIES = {
    "pnpm-old.json": {"id": "pnpm-old", "content": "Always use pnpm", "category": "conventions",
                      "created": "2026-01-01T10:00:00Z"},
    "len-old.json": {"id": "len-old", "content": "Max line length is 100", "created": "2026-01-01T10:00:00Z"},
    "len-new.json": {"id": "len-new", "content": "Max line length is 120", "created": "2026-02-01T10:00:00Z"},
}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    work = make(tmp_path / "acme-shop")
    refactor(work)
    for name, data in ENTRIES.items():
        (work / ".lore/memory/entries" / name).write_text(json.dumps(data, indent=2) + "\n")
    (work / ".lore/config.toml").write_text("[compaction]\nsemanticDedup = true\n")
    return work


async def test_a_paraphrase_of_an_instruction_bullet_is_a_near_duplicate_with_a_merge_quick_fix(
        client: LanguageClient, workspace: Path) -> None:
    # CLAUDE.md:8 says "Use pnpm, never npm or yarn.": the entry says it in other words, in another
    # category and format. The bullet says more: it is kept and never edited; the entry merges into it.
    claude = (workspace / "CLAUDE.md").read_bytes()
    old = workspace / ".lore/memory/entries/pnpm-old.json"
    # The first check loads the embedding model: 8-23 s on a quiet machine, more beside another test
    # worker, and in a fresh clone nothing is cached yet.
    found = await wait_for_diagnostics(client, old.as_uri(), lambda ds: any(d.code == "near-duplicate" for d in ds),
                                       attempts=900)
    near = next(d for d in found if d.code == "near-duplicate")
    assert "states the same fact in other words as CLAUDE.md:8" in near.message
    fixes = await actions(client, old, near.range.start.line)
    await run(client, next(a for a in fixes if a.title == "Merge with CLAUDE.md:8"))
    assert json.loads(old.read_text())["merged_into"] == "CLAUDE.md:8"
    assert (workspace / "CLAUDE.md").read_bytes() == claude
    for side in ("old", "new"):
        path = workspace / f".lore/memory/entries/len-{side}.json"
        codes = {d.code for d in await wait_for_diagnostics(client, path.as_uri())}
        assert "near-duplicate" not in codes and "contradiction" in codes, "100 / 120 is a conflict, never a merge"
    log = await client.workspace_execute_command_async(types.ExecuteCommandParams(command="lore.showLog"))
    assert log["operations"][0]["op"] == "merge"
