"""The editor honours the auto-compaction threshold ([context] auto_compact_threshold of the budget): once
memory passes it and the rules have something to compact, the user is asked once whether to compact;
"Preview compaction" shows the plan and asks again before writing; nothing is written otherwise; "Not now"
is remembered for that plan; at 0, or with nothing to compact, nobody is asked."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from e2e_helpers import open_folder
from support import LORE, Tree, files

SAME = "Run tests with `pnpm test` before pushing."


DIFFERENT = ["Run tests with `pnpm test` before pushing.", "The CI timeout is 30 minutes.",
             "Release notes live in CHANGELOG.md."]


@pytest.fixture
def workspace(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    tree = Tree(tmp_path / "ws")
    threshold, texts = getattr(request, "param", (0.9, [SAME] * 3))  # by default one fact three times: copies to merge
    for n, text in enumerate(texts):
        tree.entry(f"t{n}.json", {"id": f"t{n}", "category": f"c{n}", "content": text,
                                  "created": f"2026-0{n + 1}-01T00:00:00Z"})
    tree.write(".lore/config.toml", f"[context]\nauto_compact_threshold = {threshold}\n")
    return tree.root


@pytest.fixture
def answers(request: pytest.FixtureRequest) -> list[str]:
    """The buttons the user clicks, in order (none: every question is dismissed)."""
    return list(getattr(request, "param", []))


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[str(LORE), "serve"]))
async def client(lsp_client: LanguageClient, workspace: Path, answers: list[str]):
    lsp_client.questions = []  # type: ignore[attr-defined]
    lsp_client.answers = answers  # type: ignore[attr-defined]

    @lsp_client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
    def ask(client: LanguageClient, params: types.ShowMessageRequestParams):
        client.questions.append(params.message)  # type: ignore[attr-defined]
        title = client.answers.pop(0) if client.answers else None  # type: ignore[attr-defined]
        return next((a for a in params.actions or [] if a.title == title), None)

    await open_folder(lsp_client, workspace, "visual-studio-code", {"budget": 20})
    yield
    await lsp_client.shutdown_session()


async def _questions(client: Any, count: int) -> list[str]:
    for _ in range(100):
        if len(client.questions) >= count:
            break
        await asyncio.sleep(0.05)
    return client.questions


async def test_over_the_threshold_the_user_is_asked_once_and_nothing_is_written_unasked(
        client: LanguageClient, workspace: Path) -> None:
    before = files(workspace)
    [question] = await _questions(client, 1)
    assert "over 90% of its 20-token budget, and the rules can compact it" in question
    await asyncio.sleep(0.3)
    assert client.questions == [question]  # type: ignore[attr-defined]  # once, not at every check
    assert files(workspace) == before  # "Not now" (no answer) writes nothing


@pytest.mark.parametrize("workspace", [(0, [SAME] * 3), (0.9, DIFFERENT)], indirect=True, ids=["zero", "nothing-to-do"])
async def test_at_zero_or_with_nothing_to_compact_nobody_is_asked(client: LanguageClient, workspace: Path) -> None:
    await client.workspace_execute_command_async(types.ExecuteCommandParams(command="lore.checkStale"))
    await asyncio.sleep(0.5)
    assert client.questions == []  # type: ignore[attr-defined]


@pytest.mark.parametrize("answers", [["Preview compaction", "Apply"]], indirect=True)
async def test_preview_then_apply_compacts(client: LanguageClient, workspace: Path, answers: list[str]) -> None:
    questions = await _questions(client, 2)
    assert questions[1].startswith("Lorekeeper: apply 1 compaction operation(s)?")  # one dedup of three copies
    for _ in range(100):
        merged = [json.loads((workspace / f".lore/memory/entries/t{n}.json").read_text()).get("merged_into") for n in range(3)]
        if merged.count(None) == 1:
            break
        await asyncio.sleep(0.05)
    assert merged.count(None) == 1 and len({m for m in merged if m}) == 1  # two copies merged into the third


@pytest.mark.parametrize("answers", [["Not now"]], indirect=True)
async def test_not_now_is_remembered_for_that_plan(client: LanguageClient, workspace: Path, answers: list[str]) -> None:
    await _questions(client, 1)
    declined = workspace / ".lore/cache/compaction-declined.json"
    for _ in range(100):
        if declined.exists():
            break
        await asyncio.sleep(0.05)
    assert json.loads(declined.read_text())["plan"]  # the next session does not ask about this plan again
