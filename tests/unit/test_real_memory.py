"""Compaction and findings on memory people and agents wrote: small fixtures cut from public repositories'
own agent files and their history (bench/real_memory holds the whole stores and their truth). Facts of
different projects are never merged or in conflict; a command and a longer command of the same tool
are not opposites; struck-through or resolved items are history; search queries are not settings; a fact
stated in several instruction files is a finding naming every copy, whose fix removes all but one copy
(journaled, undone byte for byte); a fused entry is never longer than its sources; index.md and `lore
context` name the instruction files whose facts they do not repeat."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime

import pytest

from lorekeeper.analysis.compaction import CompactionConfig, plan_compaction
from lorekeeper.analysis.diagnose import memory_findings
from lorekeeper.analysis.repeats import repeat_findings, repeats
from lorekeeper.core.model import Finding
from lorekeeper.facts import open_memory
from lorekeeper.facts.near import near
from lorekeeper.facts.scope import apart, is_history
from lorekeeper.facts.subjects import related
from lorekeeper.facts.verify import compare
from lorekeeper.workspace import Workspace
from support import Tree, commit, files, lore

NOW = datetime(2026, 11, 1, 12, tzinfo=UTC)


def write_all(tree: Tree, files: dict[str, str]) -> None:
    for path, text in files.items():
        tree.write(path, text)


def plan(tree: Tree, **settings):
    store = tree.store()
    return plan_compaction(store, CompactionConfig().with_overrides(**settings), now=NOW), store


def entry(tree: Tree, entry_id: str, text: str, created: str, project: str | None = None) -> None:
    tree.entry(f"{entry_id}.json", {"id": entry_id, "content": text, "created": created,
                                    "tags": [f"project:{project}"] if project else []})


# -- scope -----------------------------------------------------------------------------------------

def test_entries_of_different_projects_are_never_merged_or_in_conflict(tree: Tree) -> None:
    # bullets of four projects' AGENTS.md/CLAUDE.md, dated by the commits that wrote them
    entry(tree, "sim_tests", "Run tests: `uv run pytest`", "2025-05-25T04:58:07Z", "simulacra")
    entry(tree, "flanks_tests", "Run tests: `uv run pytest`", "2025-12-26T23:04:23Z", "flanks-python")
    entry(tree, "tg_py312", "Python 3.12+.", "2026-01-27T15:22:41Z", "telegram-bot")
    entry(tree, "terence_py313", "Python 3.13+", "2026-02-15T10:15:20Z", "terence-python")
    entry(tree, "sim_black", "Format code with Black and Flake8 conventions.", "2025-04-16T04:35:40Z", "simulacra")
    entry(tree, "terence_ruff", "Handled entirely by Ruff — do not manually enforce formatting rules.",
          "2026-02-15T10:15:20Z", "terence-python")
    p, store = plan(tree)
    assert [op for op in p.operations if op.op in ("dedup", "merge", "fuse")] == []
    assert p.conflicts == []
    findings = memory_findings(store, CompactionConfig())
    assert [f for f in findings if f.kind in ("duplicate", "near-duplicate", "contradiction")] == []


def test_within_one_project_an_update_is_still_a_conflict(tree: Tree) -> None:
    entry(tree, "tg_py313", "Python 3.13+, async-first design, and type hints everywhere.", "2026-02-04T19:33:40Z",
          "telegram-bot")
    entry(tree, "tg_py314", "Python 3.14+, async-first design, and type hints everywhere.", "2026-08-09T05:44:56Z",
          "telegram-bot")
    p, _ = plan(tree)
    [conflict] = p.conflicts
    assert conflict["entries"] == ["tg_py314", "tg_py313"]  # newer first


@pytest.mark.parametrize(("older", "newer"), [
    ("Run tests with `make test`.", "Run tests with `make test-quiet`."),
    ("Lint and format with `make lint`.", "Lint and format with `make lint-quiet`."),
    ("**Run dev server:** `python main.py` or `uvicorn main:app --reload`", "**Run dev server:** `fastapi dev app/main.py`"),
    ("`make publish` - Build wheel and publish to PyPI", "`uv build --wheel && uv publish` - Build wheel and publish to PyPI"),
    ("Repository methods are `@staticmethod` and receive `db: AsyncSession` as first argument",
     "Repository methods are `@classmethod` and receive `cls` + `db: AsyncSession` as first argument"),
])
def test_the_same_sentence_around_another_command_is_an_update(tree: Tree, older: str, newer: str) -> None:
    entry(tree, "old", older, "2025-05-25T04:58:07Z", "simulacra")
    entry(tree, "new", newer, "2025-11-06T06:41:02Z", "simulacra")
    p, _ = plan(tree)
    [conflict] = p.conflicts
    assert conflict["entries"] == ["new", "old"] and "the same sentence with other code" in conflict["reason"]


def test_an_entry_a_newer_one_states_word_for_word_goes_into_it(tree: Tree) -> None:
    # same-project bullets of bench/real_memory's updates-entries store, dated by their commits
    entry(tree, "tests1", "Run tests: `uv run pytest`", "2025-05-25T04:58:07Z", "simulacra")
    entry(tree, "tests2", "Run tests with `uv run pytest` after making significant changes.", "2025-10-28T05:20:35Z",
          "simulacra")
    entry(tree, "dir1", "Projects live in `projects/`", "2026-02-15T10:15:20Z", "terence-python")
    entry(tree, "dir2", "Projects live in `projects/`, each with its own `pyproject.toml` and `Dockerfile`",
          "2026-02-22T08:13:20Z", "terence-python")
    # the newer says less: it may have dropped something on purpose, both stay
    entry(tree, "uv1", "Manage dependencies with `uv` and run all python commands with `uv run`",
          "2025-10-28T05:20:35Z", "simulacra")
    entry(tree, "uv2", "Run all Python commands with `uv run`.", "2025-12-24T20:29:48Z", "simulacra")
    # another project's copy is its own fact
    entry(tree, "other", "Run tests: `uv run pytest`", "2025-12-26T23:04:23Z", "flanks-python")
    p, store = plan(tree)
    merged = sorted((op.sources[0], op.result["id"]) for op in p.operations if op.op == "merge")
    assert merged == [("dir1", "dir2"), ("tests1", "tests2")]
    findings = memory_findings(store, CompactionConfig())
    found = {(f.entry, f.kind) for f in findings}
    assert {("dir1", "near-duplicate"), ("tests1", "near-duplicate")} <= found
    assert not {e for e, kind in found if kind == "near-duplicate"} & {"uv1", "other"}
    # the newer that says less is reported, with the older it repeats, and no fix: which stays is the team's
    [part] = [f for f in findings if f.entry == "uv2"]
    assert part.kind == "near-duplicate" and part.fix is None and "says part of what the older uv1" in part.message
    assert [r["entry"] for r in part.related] == ["uv1"]


def test_an_entry_relabelled_is_a_near_duplicate_of_the_older_with_no_fix(tree: Tree) -> None:
    """bench/real_memory's updates-entries store (bio-architect): the same rule under another label; neither
    says only what the other does, so nothing merges, and the newer is reported with the older."""
    entry(tree, "py", "**Python**: Use `uv` for package management. Virtual environment at `.venv`.",
          "2026-01-23T17:14:14Z", "bio-architect")
    entry(tree, "pm", "**Package Management**: Use `uv` for package management. Virtual environment at `.venv`.",
          "2026-01-27T16:09:39Z", "bio-architect")
    # a change told in passing is no restatement of the value it replaced
    entry(tree, "port1", "The API server listens on port 8080.", "2026-01-02T10:00:00Z", "bio-architect")
    entry(tree, "port2", "The API server listens on PORT, default 3000 (changed from 8080 for the Heroku move).",
          "2026-03-02T10:00:00Z", "bio-architect")
    # an older version an entry says it supersedes is an update already recorded, not a restatement
    entry(tree, "ex1", "The email sender times out after 90 seconds when a customer exports legacy data.",
          "2026-01-02T10:00:00Z", "bio-architect")
    tree.entry("ex2.json", {"id": "ex2", "content": "The email sender times out after 90 seconds when a customer "
                            "exports data.", "created": "2026-02-02T10:00:00Z", "tags": ["project:bio-architect"],
                            "supersedes": ["ex1"]})
    entry(tree, "ex3", "After 90 seconds when a customer exports data the email sender times out.",
          "2026-01-20T10:00:00Z", "bio-architect")
    p, store = plan(tree)
    assert [op for op in p.operations if op.op in ("dedup", "merge")] == []
    alike = [f for f in memory_findings(store, CompactionConfig()) if "in nearly its words" in f.message
             and not f.entry.startswith("ex")]
    assert [(f.entry, f.kind, f.fix, [r["entry"] for r in f.related]) for f in alike] == [
        ("pm", "near-duplicate", None, ["py"])]
    reworded = {(f.entry, f.related[0]["entry"]) for f in memory_findings(store, CompactionConfig())
                if "in nearly its words" in f.message and f.entry.startswith("ex")}
    assert reworded == {("ex2", "ex3")}  # the same words in another order: the same fact; ex1 is replaced


@pytest.mark.parametrize(("older", "newer"), [
    # commands written bare: another flag or script is another command
    ("just release 0.2.0   # bump version, commit, and tag", "just start-release 0.2.0   # bump version, commit, tag, and push"),
    ("uv run ruff check .", "uv run ruff check --fix ."),
    # a list item added inside the text changes the list (HD220/project-wiz CLAUDE.md)
    ("npm run quality:check    # Complete quality verification (lint + type + format + test)",
     "npm run quality:check    # Complete quality verification (lint + type + format + calisthenics + test)"),
    # the same words in another order: another fact
    ("The `billing` service calls `accounts` over gRPC.", "The `accounts` service calls `billing` over gRPC."),
    # planned, then done
    ("Status endpoints will allow clients to poll application progress",
     "Status endpoints allow clients to poll application progress (implemented in the API)"),
    ("GET /applications/{application_id}/status", "GET /v1/applications/{application_id}/status"),
    ("Use `black` for formatting.", "Do not use `black` for formatting."),
    ("Use `pip` to install packages.", "Use `uv` instead of `pip` to install packages."),
])
def test_a_longer_newer_text_that_changes_the_shorter_is_no_copy_of_it(tree: Tree, older: str, newer: str) -> None:
    entry(tree, "old", older, "2025-05-25T04:58:07Z")
    entry(tree, "new", newer, "2025-11-06T06:41:02Z")
    p, _ = plan(tree)
    assert [op for op in p.operations if op.op in ("dedup", "merge")] == []


def test_a_save_in_the_editor_finds_a_near_copy_again(tree: Tree) -> None:
    from lorekeeper.analysis.compaction.search import SearchMemo
    from lorekeeper.analysis.diagnose import duplicate_findings

    entry(tree, "tests1", "Run tests: `uv run pytest`", "2025-05-25T04:58:07Z")
    entry(tree, "tests2", "Run tests with `uv run pytest` after making significant changes.", "2025-10-28T05:20:35Z")
    entry(tree, "lint", "Lint with `uv run ruff check`.", "2025-10-28T05:20:35Z")
    memo = SearchMemo()
    store = tree.store()

    def near_copies(changed: str | None = None) -> set[str | None]:
        nonlocal store
        if changed is not None:  # as the server reads a save: the one file again, the rest shared
            patched = store.reloaded({f".lore/memory/entries/{changed}.json"})
            assert patched is not None and patched.changes_since(store.serial) is not None
            store = patched
        found = duplicate_findings(store, CompactionConfig(), search=memo, save=False)
        return {f.entry for f in found if f.kind == "near-duplicate"}

    assert near_copies() == {"tests1"}
    entry(tree, "lint", "Lint with `uv run ruff check` before each commit.", "2025-10-28T05:20:35Z")
    assert near_copies("lint") == {"tests1"}
    entry(tree, "tests2", "Run tests with `uv run pytest -x`.", "2025-10-28T05:20:35Z")  # no longer states it
    assert near_copies("tests2") == set()
    entry(tree, "tests2", "Run tests with `uv run pytest` after making significant changes.", "2025-10-28T05:20:35Z")
    assert near_copies("tests2") == {"tests1"}


@pytest.mark.parametrize(("older", "newer", "reason"), [
    # telegram-bot: an entry's list of three facts, one of them the version AGENTS.md states newer
    ("Python 3.13+, async-first design, and type hints everywhere.", "Target Python 3.14 or newer.",
     "another version of python (3.13 / 3.14)"),
    ("Python 3.12+.", "Target Python 3.14 or newer.", "another version of python (3.12 / 3.14)"),
    # a version named on the way to another subject is not the project's
    ("Python 3.12+.", "Keep the supported `numba` lower bound in `pyproject.toml` and pass Python 3.14 explicitly "
     "during deployment sync.", None),
    # a scope may be the whole list's
    ("Python 3.11+, pandas, and numpy for the notebooks", "Python 3.13 for the API server", None),
])
def test_a_version_is_compared_with_the_version_it_may_replace(older: str, newer: str, reason: str | None) -> None:
    from lorekeeper.facts.updates import disagreement

    found = disagreement(older, newer)
    assert (found.reason if found else None) == reason


def test_a_line_another_agent_file_states_newer_is_a_conflict_on_the_older_line(tree: Tree) -> None:
    from support import commit

    # the issue's example: CLAUDE.md names ESLint for `npm run lint`, AGENTS.md (written later) Biome
    tree.write("CLAUDE.md", "# CLAUDE.md\n\n## Commands\n\n- `npm run lint` # ESLint validation\n")
    commit(tree, "claude", date="2025-06-01T12:00:00Z")
    tree.write("AGENTS.md", "# AGENTS.md\n\n## Commands\n\n- `npm run lint` (Biome lint/format)\n")
    commit(tree, "agents", date="2026-01-10T12:00:00Z")
    findings = [f for f in memory_findings(tree.store(), CompactionConfig()) if f.kind == "contradiction"]
    assert {(f.source, f.line) for f in findings} == {("CLAUDE.md", 5), ("AGENTS.md", 5)}
    older = next(f for f in findings if f.source == "CLAUDE.md")
    assert "disagrees with the newer" in older.message and "js linter (eslint / biome)" in older.message


def test_nested_agent_files_and_project_tags_are_scopes() -> None:
    from lorekeeper.core.model import Entry

    def unit(path: str, tags: list[str] | None = None, fmt: str = "instruction") -> Entry:
        return Entry.model_validate({"id": f"{path}:1", "content": "x", "format": fmt, "tags": tags or [],
                                     "location": {"path": path, "start_line": 1, "end_line": 1}})

    assert apart(unit("AGENTS.md"), unit("scripts/discovery/AGENTS.md"))  # the nested file overrides for its folder
    assert not apart(unit("CLAUDE.md"), unit(".github/copilot-instructions.md"))
    assert not apart(unit("memory-bank/progress.md"), unit("memory-bank/activeContext.md"))
    assert apart(unit("e.json", ["project:api"], "entry"), unit("f.json", ["project:web"], "entry"))
    assert not apart(unit("e.json", ["project:api"], "entry"), unit("f.json", [], "entry"))


def test_one_label_under_two_headings_of_a_file_is_two_facts(tree: Tree) -> None:
    tree.write("CLAUDE.md", "# CLAUDE.md\n\n## Architecture\n\n### Backend (Node.js/Express/TypeScript)\n\n"
               "- **Entry point**: `server/src/index.ts`\n\n### Frontend (React 18/TypeScript/Vite)\n\n"
               "- **Entry point**: `src/main.tsx`\n")
    p, _ = plan(tree)
    assert p.conflicts == []


def test_a_command_and_a_longer_command_of_the_same_tool_are_not_opposites(tree: Tree) -> None:
    entry(tree, "uv", "Always use `uv run` to execute commands (not `python` directly)", "2025-06-01T00:00:00Z")
    entry(tree, "prod", "Production server: `uv run litestar run`", "2025-07-01T00:00:00Z")
    p, _ = plan(tree)
    assert p.conflicts == []


def test_a_struck_through_resolved_item_is_history_not_a_claim(tree: Tree) -> None:
    tree.write("memory-bank/activeContext.md", "# Active Context\n\n## Recent Changes\n\n3. **Content Processing**:\n"
               "   - Enhanced media type detection\n"
               '   - Fixed issue with file extension detection for filenames containing dots (e.g., "faux.parenting")\n')
    tree.write("memory-bank/progress.md", "# Progress\n\n## Known Issues\n\n"
               '4. ~~**File Extension Detection**: Files with names containing dots (e.g., "faux.parenting") were not '
               "getting proper media type detection.~~\n"
               "   - ✅ Fixed: Now always detecting media type from content and applying the correct extension regardless "
               "of the original filename\n")
    p, store = plan(tree)
    assert p.conflicts == []
    assert [f for f in memory_findings(store, CompactionConfig()) if f.kind == "contradiction"] == []


@pytest.mark.parametrize(("text", "history"), [
    ('4. ~~**File Extension Detection**: Files with names containing dots were not getting proper detection.~~', True),
    ("- ~~Use Jest~~ (replaced)", True),
    ("- [x] Move the CI to GitHub Actions", True),
    ("- ✅ Fixed: the retry loop no longer spins", True),
    ("Resolved: staging uses us-east-1", True),
    ("Use ~~Jest~~ Vitest for unit tests, with coverage through c8 on every pull request", False),
    ("Fixed issue with file extension detection for filenames containing dots", False),
    ("Run `pnpm test` before pushing", False),
])
def test_history_is_told_from_current_claims(text: str, history: bool) -> None:
    assert is_history(text) is history


def test_search_queries_are_not_settings(tree: Tree) -> None:
    tree.write("CLAUDE.md", "# Finding examples\n\n"
               "- `filename:CLAUDE.md language:TypeScript`\n"
               "- `filename:CLAUDE.md user:microsoft` - Enterprise AI and infrastructure\n"
               "- **Infrastructure**: `filename:CLAUDE.md user:docker OR user:kubernetes`\n")
    p, _ = plan(tree)
    assert p.conflicts == []


# -- fusion ----------------------------------------------------------------------------------------

def test_fusion_never_grows_memory_nor_lists_an_update_as_an_equal(tree: Tree) -> None:
    for n, (text, created) in enumerate([
            ("Write for Python 3.11-3.13", "2025-03-01T00:00:00Z"), ("Target Python 3.12-3.13", "2025-09-01T00:00:00Z"),
            ("just release 0.2.0", "2025-10-01T00:00:00Z"), ("just start-release 0.2.0", "2026-01-10T00:00:00Z")]):
        tree.entry(f"u{n}.json", {"id": f"u{n}", "content": text, "created": created, "tags": ["tokentoss"],
                                  "category": "commands"})
    p, _ = plan(tree)
    assert [op for op in p.operations if op.op == "fuse"] == []
    assert p.tokens_after <= p.tokens_before


# -- facts repeated across instruction files --------------------------------------------------------

MEMORY_BANK = {
    "memory-bank/activeContext.md": "# Active Context\n\n## Next Steps\n\n- IPFS gateway rotation and fallbacks\n"
                                    "- Resumable downloads for interrupted backups\n- Support for additional blockchains "
                                    "(Solana, Flow, etc.)\n",
    "memory-bank/progress.md": "# Progress\n\n## What's Left\n\n- ⬜ IPFS gateway rotation and fallbacks\n"
                               "- ⬜ Resumable downloads for interrupted backups\n\n## Known Issues\n\n"
                               "- Rate limits from some IPFS gateways\n",
}


def test_a_fact_in_two_memory_bank_files_is_one_finding_per_extra_copy(tree: Tree) -> None:
    write_all(tree, MEMORY_BANK)
    store = tree.store()
    found = {(f.source, f.line): f for f in memory_findings(store, CompactionConfig()) if f.kind.endswith("duplicate")}
    # the planned items carry a status (⬜): those copies say more and are kept
    assert set(found) == {("memory-bank/activeContext.md", 5), ("memory-bank/activeContext.md", 6)}
    finding = found[("memory-bank/activeContext.md", 6)]
    assert finding.kind == "duplicate" and "memory-bank/progress.md:6" in finding.message
    assert finding.fix is not None and finding.fix.action == "remove-repeat"
    assert [(r["source"], r["line"]) for r in finding.related] == [("memory-bank/progress.md", 6)]


AGENT_FILES = {
    "CLAUDE.md": "# CLAUDE.md\n\n## Static Site\n\n- **Location**: `docs/` folder (served via GitHub Pages)\n"
                 "- **Technology**: Jekyll with custom dark theme\n"
                 "- `docs/_layouts/default.html`: Base HTML layout with header, footer, navigation\n"
                 "- `docs/_config.yml`: Jekyll configuration\n",
    ".github/copilot-instructions.md": "# Copilot\n\n## Static Site\n\n- **Location**: `docs/` folder (served via GitHub Pages)\n"
                                       "- **Technology**: Jekyll with custom dark theme\n"
                                       "- `docs/_layouts/default.html`: Base HTML layout\n\n"
                                       "## Environment\n\n"
                                       "- `REDIS_URL` - Redis cache connection (optional in dev; caching is skipped if unavailable)\n"
                                       "- `REDIS_JOBS_URL` - Redis for BullMQ jobs (optional in dev; job queue disabled if "
                                       "unavailable)\n",
}


def test_agent_files_that_repeat_each_other_are_found_and_the_fuller_copy_is_kept(tree: Tree) -> None:
    write_all(tree, AGENT_FILES)
    found = repeats(tree.store().entries)
    pairs = {(r.kept.location.path, r.kept.location.start_line, c.location.path, c.location.start_line, r.exact)
             for r in found for c in r.copies}
    assert pairs == {("CLAUDE.md", 5, ".github/copilot-instructions.md", 5, True),
                     ("CLAUDE.md", 6, ".github/copilot-instructions.md", 6, True),
                     ("CLAUDE.md", 7, ".github/copilot-instructions.md", 7, False)}  # the shorter copy goes
    # the team names its source: AGENTS.md-first order is replaced by theirs; the fuller copy still stays
    chosen = repeats(tree.store().entries, [".github/copilot-instructions.md"])
    assert {r.kept.location.path for r in chosen} == {".github/copilot-instructions.md"}


@pytest.mark.parametrize(("a", "b"), [
    ("- `REDIS_URL` - Redis cache connection (optional in dev; caching is skipped if unavailable)",
     "- `REDIS_JOBS_URL` - Redis for BullMQ jobs (optional in dev; job queue disabled if unavailable)"),
    ("- `npm run format` - Prettier (write)", "- `npm run format:check` - Prettier (check only)"),
    ("- `cd server && npm run migrate:up` - Run pending migrations", "- `cd server && npm run migrate:down` - Rollback last migration"),
    ("- `npm run test:coverage` - Vitest with coverage", "- `npm run test:all` - Vitest + Playwright"),
    ("- `pytest`: Run tests", "- `pytest --cov`: Run tests with coverage"),
    ("- **ALWAYS** link to original source", "- Source repository link and original CLAUDE.md link"),
    ("- **Monitoring**: New Relic APM", "- `NEW_RELIC_LICENSE_KEY` - APM monitoring"),
    ("- Run make setup before the first build", "- Run just setup before the first build"),
    ("- All GPU nodes run the training jobs", "- Some GPU nodes run the training jobs"),
    ("- Migrations run before the new pods start", "- Migrations run after the new pods start"),
    # written word for word in the other, which turns it around
    ("- Use pnpm for packages", "- Do not use pnpm for packages"),
    ("- Run the linter on CI", "- Run the linter on CI only before a release"),
    # langfuse's vendored vercel-react-best-practices AGENTS.md: the same words, the steps the other way round
    ("**Correct: batch writes, then read once**", "**Correct: batch reads, then writes**"),
    # a change told in passing (the example workspace's port)
    ("The API server listens on port 8080.", "The API server listens on PORT, default 3000 (changed from 8080 for the Heroku move)."),
    # a file in code is not the word it abbreviates: `.env` is a file, "environment" the process's
    ("- Keep secrets in `.env`", "- Keep secrets in the environment"),
    # web3-tycoon's CLAUDE.md: a line in Chinese shares only the names it writes in Latin letters
    ("检查 Cocos Creator 3.8.7 安装路径", "Cocos Creator 3.8.7 client with voxel rendering system is the primary deliverable"),
])
def test_near_misses_are_not_repeats(a: str, b: str) -> None:
    assert not near(a, b) and not near(b, a)


@pytest.mark.parametrize(("a", "b"), [
    ("- `docs/_layouts/default.html`: Base HTML layout with header, footer, navigation",
     "- `docs/_layouts/default.html`: Base HTML layout"),
    ("- **Rate Limiting**: Many RPC providers and content hosts impose rate limits",
     "- Many RPC providers and content hosts impose rate limits"),
    ("- Adding IPFS gateway rotation and fallbacks", "- IPFS gateway rotation and fallbacks"),
    # a path both name, and few words of their own (awesome-claude-md's CLAUDE.md and copilot-instructions)
    ("- `docs/_config.yml`: Jekyll configuration (baseurl, title, theme settings)", "- `docs/_config.yml`: Jekyll configuration"),
    ("- `docs/index.html`: Main page with all examples as filterable cards", "- `docs/index.html`: Main page with all examples"),
    # the shorter written word for word in the longer (nftbk's activeContext.md and projectbrief.md)
    ("   - Ethereum-based chains (Ethereum, Zora, Base, Arbitrum)",
     "   - Back up NFTs from Ethereum-based chains (Ethereum, Zora, Base, Arbitrum)"),
    # a label in bold in one file, a folder in code in the other (awesome-claude-md's CLAUDE.md and
    # copilot-instructions): as many words either way round
    ("- **complex-projects**: Multi-service projects with detailed architecture",
     "- `complex-projects/` - Multi-service projects with detailed architecture"),
    # a word and its short form (awesome-claude-md's AGENTS.md and CLAUDE.md)
    ("- **NEVER** copy CLAUDE.md files into repo", "- **Never copy** `CLAUDE.md` files directly into this repository"),
])
def test_near_repeats_are_found(a: str, b: str) -> None:
    assert near(a, b) and near(b, a)


def test_lore_repeats_previews_applies_and_undo_restores_every_byte(tree: Tree) -> None:
    write_all(tree, AGENT_FILES)
    before = files(tree.root)
    preview = lore("repeats", cwd=tree.root)
    assert preview.returncode == 0, preview.stderr
    assert "-- **Technology**: Jekyll with custom dark theme" in preview.stdout and "3 copies would go" in preview.stdout
    assert files(tree.root) == before  # a preview writes nothing
    applied = lore("repeats", "--apply", "--json", cwd=tree.root)
    data = json.loads(applied.stdout)
    assert data["removable"] == 3 and data["applied"]
    copilot = (tree.root / ".github/copilot-instructions.md").read_text()
    assert "Jekyll with custom dark theme" not in copilot and "`REDIS_JOBS_URL`" in copilot
    assert "\n\n\n" not in copilot  # no blank lines left doubled
    assert (tree.root / "CLAUDE.md").read_text() == AGENT_FILES["CLAUDE.md"]
    assert json.loads(lore("repeats", "--json", cwd=tree.root).stdout)["repeats"] == []
    undone = lore("undo", "--last", cwd=tree.root)
    assert undone.returncode == 0, undone.stderr
    assert files(tree.root, journal=False) == {p: d for p, d in before.items() if "/log/" not in p.as_posix()}


def test_memory_bank_items_that_repeat_in_words_but_not_in_place_stay(tree: Tree) -> None:
    """Seven public memory banks, judged copy by copy: 199 of 681 copies `lore repeats` would remove were
    another fact where they stand. Each kind, with their texts (LegalEase, module-rewards, Vssyl,
    TYPE_SAFETY_PROJECT_SUMMARY's phases, a phase's title over its list); one true repeat still goes."""
    write_all(tree, {
        "memory-bank/activeContext.md": "# Active Context\n\n## Under Development\n\n- Key information extraction\n"
                                        "- Slovak legal citation formatting for the summaries\n\n## Upcoming\n\n"
                                        "- Performance optimization\n\n## Notes\n\n"
                                        "- Phase 2: Function parameter `any` arrays, 59 files, 7 interfaces\n"
                                        "- See [projectbrief.md](./projectbrief.md) for project vision and requirements.\n"
                                        "- Deploy with `make deploy` from the repository root.\n",
        "memory-bank/progress.md": "# Progress\n\n## Completed Features\n\n- [x] Key information extraction\n\n"
                                   "## Known Issues\n\n- Performance optimization\n\n## Phases\n\n"
                                   "- Phase 2: Function parameter `any` arrays, 59 files, 7 interfaces\n"
                                   "  - Improved: all AI engines typed\n\n## Links\n\n"
                                   "- See [projectbrief.md](./projectbrief.md) for project vision and requirements.\n\n"
                                   "## Deploying\n\n- Deploy with `make deploy` from the repository root.\n",
        "memory-bank/chatProductContext.md": "# Chat\n\n## Requirements\n\n- Responsive design for desktop and mobile\n",
        "memory-bank/TYPE_SAFETY_SUMMARY.md": "# Type safety\n\n**Phase 4**: Prisma JSON compatibility with `Prisma.InputJsonValue` ✅\n"
                                              "- Fixed: `permissionService`, `ssoService`\n",
        "memory-bank/techContext.md": "# Tech\n\n## Types\n\n- ✅ Phase 4: Prisma JSON compatibility with `Prisma.InputJsonValue`\n",
        "memory-bank/driveProductContext.md": "# Drive\n\n## Requirements\n\n- Responsive design for desktop and mobile\n",
    })
    found = json.loads(lore("repeats", "--json", cwd=tree.root).stdout)
    why = {c["path"] + ":" + c["text"][:20]: c["stays_because"] for r in found["repeats"] for c in r["copies"]}
    assert why["memory-bank/progress.md:Key information extr"] == "another status than the kept one's (done, planned, in progress)"
    assert why["memory-bank/progress.md:Performance optimiza"] == "too short to say what it is about apart from its heading"
    assert why["memory-bank/progress.md:Phase 2: Function pa"] == "a list item with items nested under it"
    assert why["memory-bank/progress.md:See [projectbrief.md"] == "a pointer to another file"
    assert why["memory-bank/driveProductContext.md:Responsive design fo"].startswith("in a file about another part")
    assert why["memory-bank/TYPE_SAFETY_SUMMARY.md:**Phase 4**: Prisma "] == "the title of the list right under it"
    assert why["memory-bank/progress.md:Deploy with `make de"] is None  # the same fact: it goes
    assert found["removable"] == 1


def test_lore_repeats_says_when_a_removal_would_leave_a_file_empty(tree: Tree) -> None:
    write_all(tree, {"AGENTS.md": "# Agents\n\n## Testing\n\n- Run the tests with `make test` before every commit.\n"
                                  "- Use tabs in Go files.\n",
                     ".github/copilot-instructions.md": "# Copilot\n\n- Run the tests with `make test` before every commit.\n"})
    preview = lore("repeats", cwd=tree.root)
    assert ".github/copilot-instructions.md would be left empty: every fact it held is stated elsewhere" in preview.stdout
    assert json.loads(lore("repeats", "--json", cwd=tree.root).stdout)["emptied"] == [".github/copilot-instructions.md"]
    applied = lore("repeats", "--apply", cwd=tree.root)
    assert ".github/copilot-instructions.md is left empty" in applied.stdout
    assert (tree.root / ".github/copilot-instructions.md").read_text().strip() == ""
    assert json.loads(lore("repeats", "--json", cwd=tree.root).stdout)["emptied"] == []


# awesome-claude-md's CLAUDE.md and copilot-instructions.md: a section copied with its labels and its
# command block; one label's list has an item that says less in the copy ("required" dropped)
SECTIONS = {
    "CLAUDE.md": "# CLAUDE.md\n\n### Automated Discovery\n"
                 "- **Modular Architecture**: Discovery system is split into focused modules:\n"
                 "  - `scripts/discovery/loader.py`: Loads existing repositories to avoid duplicates\n"
                 "  - `scripts/discovery/searcher.py`: Searches GitHub for CLAUDE.md files\n"
                 "- **Community Review**: Creates issues with ranked candidates for manual review\n\n"
                 "### Quality Standards\n"
                 "Our selection prioritizes **content quality and educational value over popularity metrics**:\n\n"
                 "#### Primary Criteria (70% weight)\n"
                 "1. **Content Depth** - Comprehensive architecture, workflows, and context\n"
                 "2. **Educational Value** - Demonstrates unique patterns and best practices\n\n"
                 "### Adding New Examples to the Site\n"
                 "When adding new examples to `scenarios/`, also update `docs/index.html`:\n"
                 "1. Add a new `<div class=\"example-card\">` in the appropriate category section\n"
                 "2. Include required data attributes: `data-category`, `data-language`, `data-title`\n\n"
                 "### Local Development\n```bash\ncd docs\nbundle install  # First time only\n"
                 "bundle exec jekyll serve\n```\n",
    ".github/copilot-instructions.md": "# Copilot\n\n### Automated Discovery\n"
                 "- **Modular Architecture**: Discovery system is split into focused modules:\n"
                 "  - `scripts/discovery/loader.py`: Loads existing repositories to avoid duplicates\n"
                 "  - `scripts/discovery/searcher.py`: Searches GitHub for CLAUDE.md files\n"
                 "- **Quality Evaluation**: Automatic scoring based on repository metrics and content\n\n"
                 "### Repository Selection Criteria\n"
                 "Our selection prioritizes **content quality and educational value over popularity metrics**:\n\n"
                 "#### Primary Criteria (70% weight)\n"
                 "1. **Content Depth** - Comprehensive architecture, workflows, and context\n"
                 "2. **Educational Value** - Demonstrates unique patterns and best practices\n\n"
                 "### Adding New Examples to the Site\n"
                 "When adding new examples to `scenarios/`, also update `docs/index.html`:\n"
                 "1. Add a new `<div class=\"example-card\">` in the appropriate category section\n"
                 "2. Include data attributes: `data-category`, `data-language`, `data-title`\n\n"
                 "### Local Development\n```bash\ncd docs\nbundle install  # First time only\n"
                 "bundle exec jekyll serve\n```\n",
}


def test_a_copied_section_repeats_with_its_labels_and_its_code_block(tree: Tree) -> None:
    write_all(tree, SECTIONS)
    found = {(c.location.start_line, r.kept.location.start_line): r for r in repeats(tree.store().entries)
             for c in r.copies if c.location.path == ".github/copilot-instructions.md"}
    # the nested list's label, the paragraph that introduces a subsection, and the command block
    assert {(4, 4), (10, 10), (22, 22)} <= set(found), sorted(found)
    assert [e.location.start_line for e in found[4, 4].under] == [5, 6]  # not the sibling "Quality Evaluation"
    assert [e.location.start_line for e in found[10, 10].under] == [13, 14]
    # "Include data attributes" says less than "Include required data attributes": its label stays, as
    # does the bullet that introduces nothing nested
    assert (17, 17) not in found and (7, 7) not in found
    messages = {f.line: f.message for f in repeat_findings(tree.store().entries)
                if f.source == ".github/copilot-instructions.md" and f.kind == "duplicate"}
    assert "the 2 line(s) it introduces repeat too: it goes with them" in messages[4], messages
    # the label whose list says less is still the same sentence in both files: a repeat, by hand
    [label] = [f for f in repeat_findings(tree.store().entries) if f.source == ".github/copilot-instructions.md"
               and f.line == 17]
    assert (label.kind, label.fix, label.message) == (
        "duplicate", None, "repeats CLAUDE.md:17, but the lines each introduces differ: bring them together by hand")


def test_a_label_of_a_code_block_or_a_short_label_is_no_repeat_of_its_own(tree: Tree) -> None:
    # a skill copied for several agents (wardrobe-react-native): what the label introduces is code, and
    # "Run these commands:" says nothing by itself
    block = "**Incorrect (O(n log n) - sort to find latest):**\n\n```ts\nconst latest = items.sort()[0]\n```\n\n"
    write_all(tree, {"CLAUDE.md": block + "Run these commands:\n- `npm test`\n",
                     "AGENTS.md": block.replace("items", "rows") + "Run these commands:\n- `npm run lint`\n"})
    assert not [f for f in repeat_findings(tree.store().entries) if "introduces differ" in f.message]


def test_a_label_removed_as_a_repeat_takes_its_list_along(tree: Tree) -> None:
    write_all(tree, SECTIONS)
    applied = lore("repeats", "--apply", "--json", cwd=tree.root)
    assert applied.returncode == 0, applied.stderr
    copilot = (tree.root / ".github/copilot-instructions.md").read_text()
    assert "Modular Architecture" not in copilot and "loader.py" not in copilot
    assert "**Quality Evaluation**" in copilot  # said only here
    assert "Our selection prioritizes" not in copilot and "bundle exec jekyll serve" not in copilot
    # the label whose list says less stays with its list
    assert "When adding new examples to `scenarios/`" in copilot and "Include data attributes" in copilot
    assert (tree.root / "CLAUDE.md").read_text() == SECTIONS["CLAUDE.md"]


def test_a_list_of_commands_written_as_a_block_elsewhere_is_one_finding_with_no_fix(tree: Tree) -> None:
    # awesome-claude-md: CLAUDE.md lists the commands, AGENTS.md has them as one block
    tree.write("CLAUDE.md", "# CLAUDE.md\n\n## Commands\n\n- `pytest`: Run tests\n"
                            "- `pytest --cov`: Run tests with coverage\n- **Lint**: `ruff check .`\n"
                            "- Never use bare `except:`\n- `npm run dev` - Start the app\n")
    tree.write("AGENTS.md", "# AGENTS.md\n\n```bash\n# Testing\npytest                     # All tests\n"
                            "pytest --cov               # With coverage\n```\n\n"
                            "```python\ntry:\n    run()\nexcept:\n    pass\n```\n\n```sh\nnpm run dev\n```\n")
    [finding] = [f for f in repeat_findings(tree.store().entries) if f.source == "AGENTS.md"]
    assert (finding.kind, finding.line, finding.fix) == ("near-duplicate", 3, None)
    assert [(r["source"], r["line"]) for r in finding.related] == [("CLAUDE.md", 5), ("CLAUDE.md", 6)]
    assert "its commands are listed as items too (CLAUDE.md:5, CLAUDE.md:6)" in finding.message
    # a block of Python is no list of commands; one command named once is no list
    assert not [f for f in repeat_findings(tree.store().entries) if f.source == "AGENTS.md" and f.line > 3]


def test_the_label_written_the_same_before_each_form_is_named_with_them(tree: Tree) -> None:
    # awesome-claude-md: CLAUDE.md's list and copilot-instructions.md's block under one label
    label = "Target repositories from key opinion leaders and expert organizations:\n"
    tree.write("CLAUDE.md", "# CLAUDE.md\n\n### KOL Search\n" + label +
               "- `filename:CLAUDE.md user:anthropics` - AI experts and Claude creators\n"
               "- `filename:CLAUDE.md user:pydantic` - Python validation library experts\n")
    tree.write(".github/copilot-instructions.md", "# Copilot\n\n#### KOL Search\n" + label +
               "```\nfilename:CLAUDE.md user:anthropics       # AI experts and Claude creators\n"
               "filename:CLAUDE.md user:pydantic         # Python validation library experts\n```\n")
    [finding] = [f for f in repeat_findings(tree.store().entries) if f.source == ".github/copilot-instructions.md"]
    assert (finding.kind, finding.line, finding.fix) == ("near-duplicate", 5, None)
    assert [(r["source"], r["line"], r["message"]) for r in finding.related] == [
        ("CLAUDE.md", 5, "the same command, as a list item"), ("CLAUDE.md", 6, "the same command, as a list item"),
        (".github/copilot-instructions.md", 4, "the same label, before each form"),
        ("CLAUDE.md", 4, "the same label, before each form")]
    # another label before the block: only the commands are named
    tree.write(".github/copilot-instructions.md", "# Copilot\n\n#### KOL Search\nRun these searches:\n"
               "```\nfilename:CLAUDE.md user:anthropics\nfilename:CLAUDE.md user:pydantic\n```\n")
    [finding] = [f for f in repeat_findings(tree.store().entries) if f.source == ".github/copilot-instructions.md"]
    assert [r["line"] for r in finding.related] == [5, 6]


def test_a_shorter_copy_whose_every_sentence_the_longer_states_is_a_repeat(tree: Tree) -> None:
    # deadonfilm: copilot-instructions.md restates CLAUDE.md's rules, shorter; the longer's other
    # sentences ("Don't use `aria-hidden` …", "Exception: …") do not make the shorter say another thing
    tree.write("CLAUDE.md", "# CLAUDE.md\n\n## Rules\n\n"
               "- **Accessibility**: All text must meet WCAG AA contrast ratios (4.5:1 normal, 3:1 large). Icon-only "
               "links/buttons need `aria-label`. Touch targets minimum 44x44px. Don't use `aria-hidden` as the only "
               "content in a cell\n"
               "- **External links**: All links to external domains must use `target=\"_blank\" rel=\"nofollow noopener "
               "noreferrer\"`. Exception: editorially verified source links (`sourceReliable: true`) may drop `nofollow`\n")
    tree.write(".github/copilot-instructions.md", "# Copilot\n\n## Rules\n\n"
               "- **Accessibility**: all text must meet WCAG AA contrast ratios (4.5:1 normal, 3:1 large); icon-only "
               "buttons need `aria-label`; minimum 44x44px touch targets\n"
               "- **External links**: all links to external domains must use `target=\"_blank\" rel=\"nofollow noopener "
               "noreferrer\"`\n")
    # one file describing two fields under two headings: "Updated by" of each is its own fact
    tree.write("memory-bank/techContext.md", "# Fields\n\n## death_manner\n\n- **Updated by**: Re-enrichment runs\n\n"
               "## death_sources\n\n- **Updated by**: Re-enrichment; admin review/approval\n")
    pairs = {(r.kept.location.path, r.kept.location.start_line, c.location.path, c.location.start_line)
             for r in repeats(tree.store().entries) for c in r.copies}
    assert pairs == {("CLAUDE.md", 5, ".github/copilot-instructions.md", 5),
                     ("CLAUDE.md", 6, ".github/copilot-instructions.md", 6)}


# -- the index names where the facts it does not repeat are -----------------------------------------

def test_an_instruction_only_memory_gets_no_index_with_nothing_to_say(tree: Tree) -> None:
    write_all(tree, AGENT_FILES)
    p, _ = plan(tree)
    assert ".lore/memory/index.md" not in p.views and not p.views  # agents load those files as they are
    ran = lore("compact", cwd=tree.root)
    assert ran.returncode == 0 and "no index.md to write" in ran.stdout
    assert not (tree.root / ".lore/memory/index.md").exists()
    # the context says where the facts are
    context = lore("context", "--budget", str(CompactionConfig().budget), cwd=tree.root).stdout
    assert "## Instruction files" in context and "CLAUDE.md" in context and ".github/copilot-instructions.md" in context


def test_undoing_a_compaction_leaves_no_empty_folder(tree: Tree) -> None:
    entry(tree, "a", "Run tests with `make test`.", "2025-05-25T04:58:07Z")
    entry(tree, "b", "Run tests with `make test`.", "2025-06-25T04:58:07Z")
    before = files(tree.root, journal=False)
    assert lore("compact", cwd=tree.root).returncode == 0
    assert (tree.root / ".lore/memory/compacted").is_dir()
    assert lore("undo", "--last", cwd=tree.root).returncode == 0
    assert not (tree.root / ".lore/memory/compacted").exists()
    assert files(tree.root, journal=False) == before


PARAPHRASED = {
    "CLAUDE.md": "# CLAUDE.md\n\n## Code quality\n\n"
                 "- These must remain JS/CJS for tooling compatibility: `eslint.config.js`, `postcss.config.js`, "
                 "`tailwind.config.js`, `server/migrations/*.cjs`, `server/newrelic.cjs`\n"
                 "- Prefer early returns over deep nesting (guard clauses at top of function)\n"
                 "- Different platforms use varying metadata schemas\n",
    ".github/copilot-instructions.md": "# Copilot\n\n## Rules\n\n"
                                       "- Must remain JS/CJS: `eslint.config.js`, `postcss.config.js`, `tailwind.config.js`, "
                                       "`server/migrations/*.cjs`, `server/newrelic.cjs`\n"
                                       "- **Early returns** over deep nesting — guard clauses at top of function\n"
                                       "- **Metadata Formats**: Handling different metadata schemas across platforms\n",
    "memory-bank/activeContext.md": "# Active Context\n\n## Current\n\n"
                                    "- Currently, tokens are processed sequentially rather than concurrently\n",
    "memory-bank/techContext.md": "# Tech\n\n## Planned\n\n- Implementing concurrent token processing for performance\n",
}


@pytest.mark.slow
def test_repeats_in_other_words_are_found_with_the_semantic_stage_and_never_removed_by_it(tree: Tree) -> None:
    write_all(tree, PARAPHRASED)
    def pairs(*args: str) -> set[tuple[str, int, str, int, bool]]:
        found = json.loads(lore("repeats", *args, "--json", cwd=tree.root).stdout)
        return {(r["kept"]["path"], r["kept"]["line"], c["path"], c["line"], c["removable"])
                for r in found["repeats"] for c in r["copies"]}

    # the rules alone find the early-returns rule (nearly the same words) and the JS/CJS one (the same
    # files; the CLAUDE.md copy says more: kept, the shorter copy goes), not the metadata schemas
    assert pairs() == {("CLAUDE.md", 5, ".github/copilot-instructions.md", 5, True),
                       ("CLAUDE.md", 6, ".github/copilot-instructions.md", 6, True)}
    found = pairs("--semantic")
    # nftbk's memory bank states the metadata schemas in other words (the copilot copy says more: it stays
    # to be merged by hand); "processed sequentially rather than concurrently" is never the plan to
    # process concurrently
    assert {(p[0], p[2]) for p in found if p[1] == 7 and p[3] == 7 and not p[4]} == {
        ("CLAUDE.md", ".github/copilot-instructions.md")}
    assert not [p for p in found if p[0].startswith("memory-bank") or p[2].startswith("memory-bank")]


def test_the_editors_first_check_shows_what_needs_no_model_before_it_embeds(tree: Tree) -> None:
    """With the semantic stage on and no vector cached, the language server's first check publishes the
    repeats the rules find before it embeds the texts, then every repeat; with the vectors cached, the
    search is made once. The last answer is the same either way."""
    from lorekeeper.surfaces.lsp.server import LoreServer

    write_all(tree, {**PARAPHRASED, ".lore/config.toml": "[compaction]\nsemantic_dedup = true\n"})

    def first_check() -> tuple[list[str], list[set[tuple[str, int]]], set[tuple[str, int]]]:
        ls = LoreServer()
        ls.open_workspace(str(tree.root))
        steps: list[str] = []
        shown: list[set[tuple[str, int]]] = []

        def repeated(findings: list[Finding]) -> set[tuple[str, int]]:
            return {(f.source, f.line) for f in findings if f.kind in ("duplicate", "near-duplicate")}

        final = ls.full_check(lambda message, percent: steps.append(message),
                              lambda findings: shown.append(repeated(findings)))
        return steps, shown, repeated(final)

    rules = {(".github/copilot-instructions.md", 5), (".github/copilot-instructions.md", 6)}  # early returns, JS/CJS
    in_other_words = (".github/copilot-instructions.md", 7)  # the metadata schemas: the semantic stage's
    steps, shown, final = first_check()
    assert shown[-1] == rules and in_other_words in final and rules < final, (shown, final)
    assert any(step.startswith("embedding ") for step in steps), steps
    warm_steps, warm_shown, warm_final = first_check()
    assert warm_final == final
    assert not any(step.startswith("embedding ") for step in warm_steps), warm_steps
    assert not any(rules <= found for found in warm_shown), "with every vector cached, one search, at the end"


@pytest.mark.slow
def test_a_line_that_restates_one_sentence_of_a_longer_one_is_found_in_other_words(tree: Tree) -> None:
    """deadonfilm: CLAUDE.md's testing rule is three sentences; copilot-instructions states two of them as
    items of their own, each in other words (too far from the whole rule to be found by it)."""
    write_all(tree, {
        "CLAUDE.md": "# CLAUDE.md\n\n## Code quality\n\n"
                     "- **Testing**: Ship tests with new code in the same commit. Assert payload contents, not just "
                     "that functions were called. Mock data types must match real SQL output types\n",
        ".github/copilot-instructions.md": "# Copilot\n\n## Testing\n\n"
                                           "- **Ship tests with code** — in the same commit, never deferred\n"
                                           "- **Assert deeply** — verify payload shape and values, not just that "
                                           "functions were called\n"
                                           "- **Mock data must match real SQL types** — if SQL casts to string, mock "
                                           "with strings\n"
                                           "- **Test all paths**: happy path, error handling, edge cases, branching "
                                           "logic\n",
    })

    def copies(*args: str) -> set[tuple[str, int, int, bool]]:
        found = json.loads(lore("repeats", *args, "--json", cwd=tree.root).stdout)["repeats"]
        return {(c["path"], c["line"], r["kept"]["line"], c["removable"]) for r in found for c in r["copies"]}

    assert copies() == set()
    # each item says more than the sentence it restates (its example, its "never deferred"): named, kept;
    # "never deferred" denies where the sentence does not, so that item is not taken for it; the paths to
    # test are said nowhere else
    assert copies("--semantic") == {(".github/copilot-instructions.md", 6, 5, False),
                                    (".github/copilot-instructions.md", 7, 5, False)}


# nftbk's memory bank (a roadmap item in four files, one of them twice) and cline's overview (a topic
# named in a list under one heading, described under another)
SCOPED = {
    "memory-bank/progress.md": "# Progress\n\n## What Works\n\n- ⬜ IPFS gateway rotation and fallbacks\n\n"
                               "## Next Steps\n\n1. ⬜ **IPFS Gateway Improvements**: Add gateway rotation and fallbacks\n",
    "memory-bank/activeContext.md": "# Active Context\n\n## Next\n\n- IPFS gateway rotation and fallbacks\n",
    "memory-bank/techContext.md": "# Tech\n\n## Planned\n\n- Adding IPFS gateway rotation and fallbacks\n",
    ".clinerules/overview.md": "# Overview\n\n## State\n\nThe StateManager stores:\n- API configurations\n- MCP servers\n\n"
                              "## MCP\n\n- **MCP Marketplace**: Online catalog of available MCP servers\n"
                              "- **API Configuration**: User settings for API keys and endpoints\n",
}


@pytest.mark.slow
def test_in_other_words_only_statements_of_one_scope_and_every_copy_of_a_repeated_line(tree: Tree) -> None:
    write_all(tree, SCOPED)
    found = json.loads(lore("repeats", "--semantic", "--json", cwd=tree.root).stdout)["repeats"]
    named = [{(x["path"], x["line"]) for x in (r["kept"], *r["copies"], *r.get("also", []))} for r in found]
    # the roadmap item: the numbered one says most and is kept; the identical line under another heading
    # of its file is named with its copy
    assert {("memory-bank/progress.md", 9), ("memory-bank/activeContext.md", 5), ("memory-bank/techContext.md", 5),
            ("memory-bank/progress.md", 5)} in named, named
    # a fragment in a list is no restatement of a sentence under another heading
    assert not [n for n in named if (".clinerules/overview.md", 7) in n or (".clinerules/overview.md", 8) in n]


def test_a_line_near_a_copy_is_named_with_its_repeat(tree: Tree) -> None:
    """nftbk's memory bank: the brief's line is kept, the active context's goes, and the progress item
    that states the active context's words with a status is named with them (never removed for them)."""
    write_all(tree, {
        "memory-bank/projectbrief.md": "# Brief\n\n## Goals\n\n- Back up NFTs from Ethereum-based chains (Ethereum, Zora, "
                                       "Base, Arbitrum)\n",
        "memory-bank/activeContext.md": "# Active Context\n\n## Focus\n\n- Ethereum-based chains (Ethereum, Zora, Base, "
                                        "Arbitrum)\n",
        "memory-bank/progress.md": "# Progress\n\n## Done\n\n- ✅ Ethereum-based chain support (Ethereum, Zora, Base, "
                                   "Arbitrum)\n",
    })
    found = json.loads(lore("repeats", "--json", cwd=tree.root).stdout)["repeats"]
    assert len(found) == 1, found
    repeat = found[0]
    assert repeat["kept"]["path"] == "memory-bank/projectbrief.md"
    assert [(c["path"], c["removable"]) for c in repeat["copies"]] == [("memory-bank/activeContext.md", True)]
    assert [a["path"] for a in repeat.get("also", [])] == ["memory-bank/progress.md"]


@pytest.mark.parametrize(("older", "newer", "why"), [
    ("**Initialize database:** `uv run alembic upgrade head`", "**Apply migrations:** `uv run alembic upgrade head`",
     "another label"),
    # liangjiayu/fastapi-template: the tool and the command that applies its migrations are two facts
    ("**Migrations:** Alembic", "**Apply migrations:** `uv run alembic upgrade head`", "another label"),
    ("just release 0.2.0   # bump version, commit, and tag", "just start-release 0.2.0   # bump version, commit, tag, and push",
     "another target of just"),
    ("uv run ruff check .", "uv run ruff check --fix .", "another command"),
    # jemdzem: two commands of one tool; cline's overview: two labels each with a word of its own, before
    # other words; mcp-web: a short phrase with one word swapped
    ("uv run ruff check .", "uv run ruff format .", "another command of ruff"),
    ("**MCP Connections**: Manages connections to external MCP servers",
     "**MCP Tools & Resources**: Capabilities exposed by connected servers", "another label"),
    ("Task format validation", "Task format specification", "another thing of the same kind"),
    # PrefectHQ/prefect's ui-v2/src/components/AGENTS.md: `Form` is not the "form" of "wrap form fields"
    ("Use `Form` component from `@/components/ui/form` to wrap forms",
     "Use `FormField` component from `@/components/ui/form` to wrap form fields", "each names something"),
    # the issue's near-miss: the parse keeps "before" and "after" out of the words it compares
    ("Run database migrations before deploying the new pods.", "Run database migrations after deploying the new pods.",
     "another order (before / after)"),
    # trpc's .cursor/rules: the new pattern of one package, both patterns of another
    ("Uses newer TanStack React Query provider pattern",
     "Supports both legacy React Query and TanStack React Query patterns", "another thing of the same kind"),
    # the held-out entries store (bench/real_memory, updates-heldout): openai-agents-js moved its skills
    # from `.codex/` to `.agents/` (`.agents/` is no part of `AGENTS.md`), and its ExecPlans from the root
    # to `plans/` (`plans/` is not `PLANS.md`); treemon's script has two subcommands
    ("You can skip `$code-change-verification` for docs-only or repo-meta changes (for example, `docs/`, `.codex/`, "
     "`README.md`, `AGENTS.md`, `.github/`), unless a user explicitly asks to run the full verification stack.",
     "You can skip `$code-change-verification` for docs-only or repo-meta changes (for example, `docs/`, `.agents/`, "
     "`README.md`, `AGENTS.md`, `.github/`), unless a user explicitly asks to run the full verification stack.",
     "the same words but another name (`.codex/` / `.agents/`)"),
    ("When writing complex features or significant refactors, use an ExecPlan (as described in PLANS.md) from design to "
     "implementation. Store each ExecPlan file in the repository root (top level) with a descriptive name.",
     "When writing complex features or significant refactors, use an ExecPlan (as described in PLANS.md) from design to "
     "implementation. Store each ExecPlan file under `plans/` with a descriptive name, and create the directory if it "
     "does not exist.", "the newer text names `plans/`"),
    (".\\treemon.ps1 deploy                                        # build + replace production with this checkout",
     '.\\treemon.ps1 dev "Q:\\code\\AITestAgent"                     # dev mode (path optional; omit to use global config roots)',
     "another command of ./treemon.ps1 (deploy / dev)"),
])
def test_the_semantic_guard_never_vouches_for_another_command_or_purpose(older: str, newer: str, why: str) -> None:
    from lorekeeper.facts.semantic_guard import vouch

    verdict = vouch(older, newer, 0.95, CompactionConfig().semantic_threshold)
    assert not verdict.ok and verdict.reason.startswith(why)


def test_a_compressed_text_keeps_its_bold_and_its_list_items_apart() -> None:
    from lorekeeper.core.text import summarize

    bold = "- **Critical Design Decision**: " + "Originals stay on disk; every write is journaled. " * 20
    assert summarize(bold, 120).startswith("**Critical Design Decision**: Originals stay")
    listed = "api (conventions):\n- Handlers return JSON.\n- Validate bodies with zod\n- Log request ids\n"
    assert summarize(listed, 200) == "api (conventions): Handlers return JSON. Validate bodies with zod; Log request ids"


def test_status_does_not_ask_for_a_compaction_that_has_nothing_left_to_do(tree: Tree) -> None:
    tree.write(".lore/config.toml", "[context]\nbudget = 100\n")
    for n in range(6):
        entry(tree, f"e{n}", f"Service number {n} listens on its own documented port and logs to stdout as JSON.",
              "2026-01-01T00:00:00Z")
    assert "reached: run `lore compact`" in lore("status", cwd=tree.root).stdout
    assert lore("compact", cwd=tree.root).returncode == 0
    status = lore("status", cwd=tree.root).stdout
    assert "run `lore compact`" not in status and "compacted since the last change" in status
    data = json.loads(lore("status", "--json", cwd=tree.root).stdout)
    assert data["context"]["auto_compact"]["compacted_since_change"] is True
    entry(tree, "new", "A new fact written after the compaction, long enough to count for something.",
          "2026-11-01T00:00:00Z")
    later = (tree.root / ".lore/memory/entries/new.json").stat().st_mtime + 60  # a minute after the compaction
    os.utime(tree.root / ".lore/memory/entries/new.json", (later, later))
    assert "reached: run `lore compact`" in lore("status", cwd=tree.root).stdout


# -- a Markdown example holding fenced code --------------------------------------------------------

_COPILOT = """### Documentation Structure
When creating README.md files, follow this pattern:
```markdown
# Analysis: [Project Name]

### [Technique Name]
```[language]
[Code example]
```
[Explanation]
```

#### Manual Search Queries
```
filename:CLAUDE.md "## Architecture"
```

## Discovery
- `scripts/discovery/loader.py`: Loads existing repositories to avoid duplicates
"""


def test_a_markdown_example_with_fenced_code_inside_ends_where_its_author_ended_it(tree: Tree) -> None:
    # josix/awesome-claude-md's .github/copilot-instructions.md: CommonMark ends the example at the inner
    # bare fence, and the rest of the file reads inside out (its bullets as code, its queries as prose)
    from lorekeeper.store.instructions import parse_instructions

    units = [(start, end, kind) for start, end, kind, _, _ in parse_instructions(_COPILOT, "x.md")]
    assert (3, 11, "code") in units and (14, 16, "code") in units and (19, 19, "bullet") in units
    assert not any(kind == "paragraph" and start == 15 for start, _, kind in units)
    # an example in another language, or whose inner fences do not pair up, is read as CommonMark reads it
    plain = _COPILOT.replace("```markdown", "```text")
    assert (3, 9, "code") in [(s, e, k) for s, e, k, _, _ in parse_instructions(plain, "x.md")]
    tree.write(".github/copilot-instructions.md", _COPILOT)
    tree.write("CLAUDE.md", "# Claude\n\n- `scripts/discovery/loader.py`: Loads existing repositories to avoid duplicates\n")
    [repeat] = repeats(tree.store().live())
    assert {repeat.kept.id, *(c.id for c in repeat.copies)} == {"CLAUDE.md:3", ".github/copilot-instructions.md:19"}


def _marimo_example(title: str, imports: str) -> str:
    """One of marimo's examples: a tag of the author's own around a fence holding a cell (the examples
    differ only in their imports, which is what made their code near-match when read as prose)."""
    return f'<example title="{title}">\n```\n\n@app.cell\ndef _():\n{imports}    return\n\n```\n</example>\n'


#: marimo's docs/_static/CLAUDE.md: examples wrapped in tags of the author's own, each a fence inside
_TAGGED = ("# Marimo notebook assistant\n\n"
           + _marimo_example("Data explorer", "    import marimo as mo\n    import polars as pl\n") + "\n"
           + _marimo_example("Run Button Example", "    import marimo as mo\n") + "\n"
           + "<rules>\n- For plotly: return the figure object directly\n</rules>\n\n<div>\nWritten in HTML\n</div>\n")


def test_a_fence_after_a_tag_of_the_authors_own_is_code_and_rules_between_tags_are_read(tree: Tree) -> None:
    # CommonMark reads `<example …>` as an HTML block up to the next blank line: the fence after it is
    # none, and the code after that reads as prose that near-matches the other examples' code
    from lorekeeper.store.instructions import parse_instructions

    units = [(start, end, kind) for start, end, kind, _, _ in parse_instructions(_TAGGED, "CLAUDE.md")]
    assert (4, 12, "code") in units and (16, 23, "code") in units
    assert (27, 27, "bullet") in units  # the rule written between <rules> and </rules>
    assert not any(kind == "paragraph" for _, _, kind in units)  # no code read as prose, HTML left as HTML
    tree.write("CLAUDE.md", _TAGGED)
    assert repeats(tree.store().live()) == []


def test_copies_the_kept_line_does_not_state_alike_are_a_repeat_of_their_own(tree: Tree) -> None:
    # 0xmichalis/nftbk's memory bank: the fullest line (progress.md:6, it says more) is kept for the one
    # line that states it the same; the two identical lines are still one repeat, not lost with the rest
    tree.write("memory-bank/activeContext.md", "# Active\n\n## Next Steps\n\n- IPFS gateway rotation and fallbacks\n")
    tree.write("memory-bank/progress.md", "# Progress\n\n## Left\n\n- ⬜ IPFS gateway rotation and fallbacks\n"
                                          "2. ⬜ **IPFS Gateway Improvements**: Add gateway rotation and fallbacks\n")
    tree.write("memory-bank/techContext.md", "# Tech\n\n## Future\n\n- Adding IPFS gateway rotation and fallbacks\n")
    groups = [{r.kept.id, *(c.id for c in r.copies)} for r in repeats(tree.store().live())]
    assert any({"memory-bank/activeContext.md:5", "memory-bank/progress.md:5"} <= g for g in groups), groups


def test_a_fact_told_in_two_repeats_names_every_place_it_is_in(tree: Tree) -> None:
    # nftbk's memory bank: one planned item in three files, two wordings
    tree.write("memory-bank/progress.md", "# Progress\n\n- ⬜ IPFS gateway rotation and fallbacks\n\n"
               "## Next\n\n2. ⬜ **IPFS Gateway Improvements**: Add gateway rotation and fallbacks\n")
    tree.write("memory-bank/activeContext.md", "# Active\n\n- IPFS gateway rotation and fallbacks\n")
    tree.write("memory-bank/techContext.md", "# Tech\n\n- Adding IPFS gateway rotation and fallbacks\n")
    found = repeats(tree.store().entries)
    places = {(r.kept.location.path, r.kept.location.start_line): {(e.location.path, e.location.start_line)
                                                                   for e in (*r.copies, *r.also)} for r in found}
    every = {("memory-bank/progress.md", 3), ("memory-bank/progress.md", 7), ("memory-bank/activeContext.md", 3),
             ("memory-bank/techContext.md", 3)}
    assert len(found) == 2 and all(kept | others == every for kept, others in
                                   (({k}, v) for k, v in places.items()))
    # only the direct copies may be removed for their kept one
    for r in found:
        assert not {e.id for e in r.copies} & {e.id for e in r.also}


def test_a_line_repeated_under_another_heading_of_its_file_is_reported_but_stays(tree: Tree) -> None:
    """microsoft/vscode-copilot-chat's copilot-instructions.md describes `telemetry/` under src/extension/
    and again under src/platform/: the same words, two folders. Reported, never removed."""
    line = "- **`telemetry/`**: Analytics and usage tracking\n"
    write_all(tree, {".github/copilot-instructions.md": "# Layout\n\n## src/extension/\n\n" + line + "- **`chat/`**: the chat view\n"
                     "\n## src/platform/\n\n" + line + "- **`auth/`**: sign-in\n"})
    findings = [f for f in repeat_findings(open_memory(Workspace(tree.root)).entries) if f.kind == "duplicate"]
    assert [(f.line, f.fix) for f in findings] == [(10, None)]
    assert "under another heading, which may need it too" in findings[0].message
    before = (tree.root / ".github/copilot-instructions.md").read_bytes()
    shown = lore("repeats", "--apply", cwd=tree.root)
    assert "stays: under another heading of the same file" in shown.stdout
    assert (tree.root / ".github/copilot-instructions.md").read_bytes() == before


def test_an_item_of_a_list_whose_label_says_something_of_it_stays(tree: Tree) -> None:
    """ihub-apps: "**Auto-Reloads (No Restart):**" then "- `contents/config/groups.json` (groups and
    permissions)"; CLAUDE.md names the file alone. Removing the item would lose that it reloads. Under a
    label that names a topic ("**Core Files:**") the item may go."""
    write_all(tree, {
        "CLAUDE.md": "# Files\n\n- **`contents/config/groups.json`**: groups and permissions\n"
                     "- **`server.js`**: Main Express server with clustering support\n",
        ".github/copilot-instructions.md": "# Config\n\n## Hot reload\n\n**Requires Restart:**\n"
                                           "- `contents/config/platform.json` (core settings)\n\n"
                                           "**Auto-Reloads (No Restart):**\n"
                                           "- `contents/config/groups.json` (groups and permissions)\n\n"
                                           "## Server\n\n**Core Files:**\n"
                                           "- `server.js` - Main Express server with clustering support\n"})
    findings = {f.line: f for f in repeat_findings(open_memory(Workspace(tree.root)).entries)
                if f.source == ".github/copilot-instructions.md"}
    assert set(findings) == {9, 14}
    assert findings[9].fix is None and "the list under “**Auto-Reloads (No Restart):**”" in findings[9].message
    assert findings[14].fix is not None
    shown = lore("repeats", cwd=tree.root).stdout
    assert "stays: an item of a list whose label says something of it" in shown
    # a label that gives a status: planned there, a fact here
    write_all(tree, {"CLAUDE.md": "# Files\n\n- Resumable downloads for interrupted backups\n",
                     ".github/copilot-instructions.md": "# Backups\n\n**Planned:**\n"
                                                        "- Resumable downloads for interrupted backups\n"})
    [finding] = [f for f in repeat_findings(open_memory(Workspace(tree.root)).entries)
                 if f.source == ".github/copilot-instructions.md"]
    assert finding.fix is None and "“**Planned:**”" in finding.message


def test_a_bold_title_over_an_example_is_no_repeat_of_a_sentence(tree: Tree) -> None:
    """langfuse's vercel-react-best-practices/AGENTS.md: "**Correct: no flicker, no hydration mismatch**"
    titles the correct example; the sentence after it ends "No flickering, no hydration mismatch." Removing
    the title would leave the example untitled among wrong ones."""
    write_all(tree, {"AGENTS.md": "# Rules\n\n## Hydration\n\n**Correct: no flicker, no hydration mismatch**\n\n"
                     "```tsx\n<ThemeWrapper />\n```\n\n"
                     "The inline script executes synchronously before showing the element, ensuring the DOM "
                     "already has the correct value. No flickering, no hydration mismatch.\n"})
    assert repeats(open_memory(Workspace(tree.root)).entries) == []
    # without the example under it, the bold line is a sentence like any other
    write_all(tree, {"AGENTS.md": "# Rules\n\n## Hydration\n\n**Correct: no flicker, no hydration mismatch**\n\n"
                     "The inline script executes synchronously before showing the element, ensuring the DOM "
                     "already has the correct value. No flickering, no hydration mismatch.\n"})
    assert len(repeats(open_memory(Workspace(tree.root)).entries)) == 1


_BEADS_AGENTS = """\
# Agent Instructions

## Workflow

1. **Check ready work**: `bd ready --json`
2. **Claim your task atomically**: `bd update <id> --claim`
3. **Work on it**: Implement, test, document

## Priorities

- `0` - Critical (security, data loss, broken builds)
- `1` - High (major features, important bugs)

## Interactive commands

**DO NOT use `bd edit`** - it opens an interactive editor ($EDITOR) which AI agents cannot use.
"""

_BEADS_NESTED = """\
# bd

## Workflow

1. **Check ready work** with the dashboard
2. **Claim task**: `bd update <id> --claim`
3. **Work on it**: Implement, test, document
4. **Complete**: `bd close <id> --reason "Done"`

### Priorities

- `0` - Critical (security, data loss, broken builds)
- `1` - High (major features, important bugs)

## Agent Warning: Interactive Commands

**DO NOT use `bd edit`** - it opens an interactive editor ($EDITOR) which AI agents cannot use.

Use `bd update` with flags instead:
"""


def test_a_removal_leaves_every_procedure_whole_and_no_empty_section(tree: Tree) -> None:
    """gastownhall/beads: cmd/bd/AGENTS.md repeats steps 2 and 3 of the root's workflow (its steps 1 and
    4 are its own), the root's priorities, and "**DO NOT use `bd edit`** …" right above "Use `bd update`
    with flags instead:". Steps stay (the procedure would read 1, 4); the warning stays (the next line
    says "instead" of it); the priorities go, and so does the heading they leave empty."""
    write_all(tree, {"AGENTS.md": _BEADS_AGENTS, "cmd/bd/AGENTS.md": _BEADS_NESTED})
    findings = {f.line: f for f in repeat_findings(open_memory(Workspace(tree.root)).entries)
                if f.source == "cmd/bd/AGENTS.md"}
    assert set(findings) == {6, 7, 12, 13, 17}
    assert all(findings[n].fix is None and "a step of a numbered list" in findings[n].message for n in (6, 7))
    assert findings[17].fix is None and "refers back to it" in findings[17].message
    assert findings[12].fix is not None and findings[13].fix is not None
    shown = lore("repeats", "--apply", cwd=tree.root)
    assert "stays: a step of a numbered list whose other steps stay" in shown.stdout
    assert "stays: the paragraph after it refers back to it" in shown.stdout
    after = (tree.root / "cmd/bd/AGENTS.md").read_text()
    assert "### Priorities" not in after and "`0` - Critical" not in after
    assert after == _BEADS_NESTED.replace("### Priorities\n\n- `0` - Critical (security, data loss, broken builds)\n"
                                          "- `1` - High (major features, important bugs)\n\n", "")
    lore("undo", "--last", cwd=tree.root)
    assert (tree.root / "cmd/bd/AGENTS.md").read_text() == _BEADS_NESTED


def test_lists_under_two_titles_of_one_file_are_two_scopes(tree: Tree) -> None:
    """microsoft/vscode-copilot-chat's chatSessions/claude/AGENTS.md lists what "**ClaudeAgentManager**" and
    "**ClaudeCodeSession**" do; documenso's .cursorrules has "Toast usage" and "Translations", each over its
    own list. Items of two such lists are about two things: never a conflict or a pair in other words,
    and a line both write the same stays in each."""
    write_all(tree, {"AGENTS.md": "# Claude\n\n## Key Components\n\n**ClaudeAgentManager**\n"
                     "- Entry point for handling chat requests from VS Code\n- Logs every request\n\n"
                     "**ClaudeCodeSession**\n- Manages a queue of incoming requests from VS Code Chat\n"
                     "- Logs every request\n\nToast usage\n\n"
                     "- Use the t`string` macro from @lingui/react/macro to display toast messages\n\nTranslations\n\n"
                     "- Use the t`string` macro from @lingui/react/macro to display translations in typescript code\n"})
    units = {e.location.start_line: e for e in open_memory(Workspace(tree.root)).entries}
    assert units[6].raw["intro"] == "**ClaudeAgentManager**" and units[15].raw["intro"] == "Toast usage"
    assert apart(units[6], units[10]) and apart(units[15], units[19]) and not apart(units[6], units[7])
    [repeat] = repeats(units.values())
    assert (repeat.kept.location.start_line, repeat.copies[0].location.start_line) == (7, 11)
    findings = [f for f in repeat_findings(units.values()) if f.kind == "duplicate"]
    assert [f.fix for f in findings] == [None]


def test_a_label_left_introducing_nothing_goes_with_what_it_introduced(tree: Tree) -> None:
    """intrafind/ihub-apps: copilot-instructions.md shows the client's folders under "**Organization:**"
    as the tree CLAUDE.md draws too; once the tree goes, the label would introduce "**Key Patterns:**"."""
    tree_block = "```\nclient/src/\n├── features/          # Feature modules (apps, auth, chat, admin)\n" \
                 "└── utils/             # Client utilities\n```\n"
    write_all(tree, {"CLAUDE.md": "# ihub\n\n## Client\n\n" + tree_block,
                     ".github/copilot-instructions.md": "# ihub\n\n## Client Architecture\n\n**Organization:**\n"
                     + tree_block + "\n**Key Patterns:**\n- Context API for global state\n"})
    lore("repeats", "--apply", cwd=tree.root)
    assert (tree.root / ".github/copilot-instructions.md").read_text() == (
        "# ihub\n\n## Client Architecture\n\n**Key Patterns:**\n- Context API for global state\n")
    # agno-agi/agno's .cursorrules titles its list "Core Rules", every one of which AGENTS.md states
    rules = "- NEVER create agents in loops - reuse them for performance\n- PostgreSQL in production, SQLite for dev only\n"
    write_all(tree, {"AGENTS.md": "# Agno\n\n## Rules\n\n" + rules,
                     ".cursorrules": "You are an expert in Python.\n\nCore Rules\n" + rules + "\nDocumentation:\n- Keep it short\n"})
    lore("repeats", "--apply", cwd=tree.root)
    assert (tree.root / ".cursorrules").read_text() == "You are an expert in Python.\n\nDocumentation:\n- Keep it short\n"
    # a rule written in bold over the list is a rule of its own: it stays when the list goes
    write_all(tree, {".cursorrules": "You are an expert in Python.\n\n**Follow the rules of this team carefully.**\n"
                     + rules + "\nDocumentation:\n- Keep it short\n"})
    lore("repeats", "--apply", cwd=tree.root)
    assert (tree.root / ".cursorrules").read_text() == ("You are an expert in Python.\n\n**Follow the rules of this team "
                                                        "carefully.**\n\nDocumentation:\n- Keep it short\n")


def test_a_nested_item_under_another_item_is_no_repeat(tree: Tree) -> None:
    """oxc's apps/oxfmt/AGENTS.md says "Build with `pnpm build`" under the JS/Rust CLI and again under the
    Node.js API: each completes its own item. A line the root file states stays a repeat of it."""
    write_all(tree, {"AGENTS.md": "# oxfmt\n\n"
                     "- JS/Rust hybrid CLI using `napi-rs`\n"
                     "  - Entry point: `src-js/cli.ts` which uses `run_cli()` from `src/main_napi.rs`\n"
                     "  - Build with `pnpm build`\n"
                     "- Pure Rust CLI\n"
                     "  - Build with `cargo build --no-default-features`\n"
                     "- Node.js API using napi-rs\n"
                     "  - Entry point: `src-js/index.ts` which uses `format()` from `src/main_napi.rs`\n"
                     "  - Build with `pnpm build`\n"
                     "\nWhen making changes, consider the impact on all paths.\n",
                     "CLAUDE.md": "# Notes\n\nWhen making changes, consider the impact on all paths.\n"})
    found = repeats(open_memory(Workspace(tree.root)).entries)
    assert [(r.kept.location.start_line, [c.location.start_line for c in r.copies]) for r in found] == [(12, [3])]


def test_a_right_and_a_wrong_example_are_no_repeat(tree: Tree) -> None:
    """home-assistant/frontend's copilot-instructions: the right example and the wrong one differ in case
    alone; removing the wrong one would lose what the rule warns against."""
    write_all(tree, {".github/copilot-instructions.md": (
        "# Style\n\n#### Language Standards\n\n"
        "- **Use sentence case everywhere**: Titles, headings, buttons, labels, UI elements\n"
        "  - ✅ \"Create new automation\"\n  - ❌ \"Create New Automation\"\n"
        "  - ✅ \"Device settings\"\n  - ❌ \"Device Settings\"\n")})
    assert repeats(open_memory(Workspace(tree.root)).entries) == []
    assert "no fact is stated twice" in lore("repeats", cwd=tree.root).stdout


def test_two_lines_side_by_side_are_read_together_not_repeated(tree: Tree) -> None:
    """cline's writing guide: a pair of titles to compare ("How I do X" / "How You Can do X", then "Between
    these two titles, ...") and a title and the same title made specific: written side by side to be read
    together. Neither is a repeat, with the semantic stage or without; the same words twice in a row are."""
    write_all(tree, {".clinerules/workflows/writing-documentation.md": (
        "# Writing documentation\n\n## Titles\n\n"
        "Frame it from the reader's perspective with \"How you can do something.\"\n\n"
        "- \"How I do X\"\n- \"How You Can do X\"\n\n"
        "Between these two titles, it's obvious which one resonates more emotionally.\n\n"
        "- How to set up Braintrust\n- How to set up Braintrust in 5 minutes\n\n"
        "## Setup\n\n- Restart VSCode after installing.\n- Restart VSCode after installing.\n")})
    for args in ((), ("--semantic",)):
        found = json.loads(lore("repeats", *args, "--json", cwd=tree.root).stdout)
        assert [(r["kept"]["line"], [c["line"] for c in r["copies"]]) for r in found["repeats"]] == [(17, [18])], args


def test_a_rule_for_one_thing_does_not_repeat_the_same_rule_for_another(tree: Tree) -> None:
    """stacklok/toolhive: CLAUDE.md's commit guidelines say "Do NOT use Conventional Commits", its PR rules
    "PR titles must NOT use conventional commit prefixes": the same words, about commits and PR titles."""
    write_all(tree, {
        "CLAUDE.md": "# ToolHive\n\n## Commit Guidelines\n\n- Imperative mood, capitalize subject, no trailing period\n"
                     "- Do NOT use Conventional Commits (`feat:`, `fix:`, `chore:`, etc.)\n",
        ".claude/rules/pr-creation.md": "# PR Creation Rules\n\n## Style guidelines\n\n"
                                        "- Keep the PR title under 70 characters, imperative mood, no trailing period.\n"
                                        "- PR titles must NOT use conventional commit prefixes (`feat:`, `fix:`, "
                                        "`chore:`, etc.).\n"})
    assert repeats(open_memory(Workspace(tree.root)).entries) == []
    # a subject that names no part of the project says what the bare rule does
    assert near("- The project must use pnpm for packages", "- Use pnpm for packages")


def test_a_list_the_next_paragraph_refers_back_to_stays_whole(tree: Tree) -> None:
    """jlowin/fastmcp: a Cursor rule lists the four MCP object types AGENTS.md lists, then says "While these
    have slightly different semantics …": without the list the paragraph speaks of nothing."""
    mdc = ("---\ndescription: \nglobs: \nalwaysApply: true\n---\nThere are four major MCP object types:\n\n"
           "- Tools (src/tools/)\n- Resources (src/resources/)\n- Resource Templates (src/resources/)\n"
           "- Prompts (src/prompts)\n\nWhile these have slightly different semantics and implementations, changes "
           "that affect any one will need to be applied to all others.\n")
    write_all(tree, {
        "AGENTS.md": "# FastMCP\n\n## Core MCP Objects\n\nWhen modifying MCP functionality, changes typically need to "
                     "be applied across all object types:\n\n- **Tools** (`src/tools/`)\n- **Resources** "
                     "(`src/resources/`)\n- **Resource Templates** (`src/resources/`)\n- **Prompts** (`src/prompts/`)\n",
        ".cursor/rules/core-mcp-objects.mdc": mdc})
    found = json.loads(lore("repeats", "--json", cwd=tree.root).stdout)
    copies = [c for r in found["repeats"] for c in r["copies"]]
    assert len(copies) == 4 and found["removable"] == 0
    assert {c["stays_because"] for c in copies} == {"the paragraph after it refers back to it"}
    shown = lore("repeats", "--apply", cwd=tree.root).stdout
    assert "4 stay where their file needs them" in shown and "read only them" not in shown
    assert (tree.root / ".cursor/rules/core-mcp-objects.mdc").read_text() == mdc


# -- conflicts in instruction files as public repositories write them -------------------------------

@pytest.mark.parametrize(("older", "newer"), [
    # documenso: the same advice, one file writing "instead of", the other "vs"
    ("When using Lucide icons, prefer the longhand names, for example HomeIcon instead of Home",
     "Use Lucide icons with longhand names (HomeIcon vs Home)"),
    # trigger.dev: both deny the same import ("never" / "NOT")
    ("Are you importing from `@trigger.dev/sdk` (NOT `@trigger.dev/sdk/v3`)? If not, STOP and FIX.",
     "Always import from `@trigger.dev/sdk`, never `@trigger.dev/sdk/v3`."),
    # trigger.dev: both say the V1 path is gone
    ("v3 (engine V1: MarQS + Graphile worker) is end-of-life and its execution code has been removed. There is no "
     "V1 execution path: a `RunEngineVersion` `V1` branch only rejects or finalizes gracefully.",
     "There is no `V1` execution path anymore. If you find a `RunEngineVersion` branch, the `V1` arm should only "
     "reject or finalize gracefully, never run V1 work."),
    # trigger.dev: "do NOT use `pnpm add`" and "instead of using `pnpm add`" agree
    ("**Adding dependencies:** Edit `package.json` directly instead of using `pnpm add`, then run `pnpm i` from the "
     "repo root.",
     "**Edit the package.json directly** — do NOT use `pnpm add` as it can cause issues in the monorepo."),
    # typespec: `main` retired for hotfix PRs is not the `main` of a path, nor the branch checked out
    ("For **hotfix releases**, the PR targets the corresponding `release/*` branch (e.g., `release/v0.60`) instead "
     "of `main`",
     "The source files for the generated client under test are located in "
     "`generator/http-client-generator-test/src/main/java/<package>`."),
    ("For **hotfix releases**, the PR targets the corresponding `release/*` branch (e.g., `release/v0.60`) instead "
     "of `main`", 'Checkout "main" branch, pull the latest changes.'),
    # inspector: "rather than" an action, a phrase around a name, "there is no `gh` flag": no value retired
    ("it is a **parent whose last sub-issue closed** — the work shipped across its children rather than through one "
     "PR of its own.",
     "**A dependency bump must land in every install that declares it.** v2 is not a workspace — each client "
     "has its own `node_modules`; one PR bumps every manifest."),
    ("Declare it at the root, and alias it to the **repo root** in `vitest.shared.mts` rather than to "
     "`<client>/node_modules` like that file's other pins.",
     "Dependencies reached only through root-owned code are declared at the root and aliased to the **repo root** "
     "in `vitest.shared.mts` — not to `<client>/node_modules` like the other pins there."),
    ("Set the label at **create time** — `gh issue create --label v2 ...` — never by backfilling later.",
     "Closing keywords only cross-reference here. (There is no `gh` flag for manual linking — `gh pr edit` has no "
     "`--add-issue`.)"),
    # inspector: both deny `src/theme/`, whatever other negations each writes
    ("Element components MUST import from `@mantine/core`, NOT from `src/theme/`. The theme layer is applied "
     "transparently by the provider — elements do not need to know about `Theme<Name>` constants.",
     "Element components import from `@mantine/core`, **not** from `src/theme/` — the theme layer is applied "
     "transparently by the provider."),
    # toolhive: "10 files changed (excluding tests)" and "Include issue references" speak of two things
    ("**Summary**: You MUST explain (1) WHY the change is needed and (2) WHAT changed. Include issue references "
     "(`Closes #NNN` or `Fixes #NNN`) when a related issue exists; remove the `Fixes #` line if there is none.",
     "Max **400 lines** of code changes, **10 files** changed (excluding tests/docs/generated)"),
])
def test_instruction_lines_that_agree_or_speak_of_other_things_do_not_disagree(older: str, newer: str) -> None:
    from lorekeeper.facts.updates import disagreement

    assert disagreement(older, newer) is None
    assert disagreement(newer, older) is None


@pytest.mark.parametrize(("older", "newer", "reason"), [
    ("Bump the version with `npm version patch`.", "Use `pnpm changeset` instead of `npm version patch`.",
     "the newer says: `npm version patch` → `pnpm changeset`"),
    ("Write tests with Jest.", "Prefer Vitest rather than Jest from now on.", "the newer says: Jest → Vitest"),
    ("Run `make lint && make type` after changes.", "`make lint` was removed.", "the newer says: `make lint` removed"),
    ("Build with `setup.py`.", "There is no `setup.py` any longer.", "the newer says: `setup.py` removed"),
    ("Use `unsafe` in `crates/codec` for the SIMD paths.", "`crates/codec` must contain no `unsafe` code.",
     "the opposite about crates/codec, unsafe"),
])
def test_a_change_said_outright_still_retires_what_an_older_line_states(older: str, newer: str, reason: str) -> None:
    from lorekeeper.facts.updates import disagreement

    found = disagreement(older, newer)
    assert found is not None and found.reason == reason


def test_two_lines_of_one_instruction_file_are_never_a_conflict(tree: Tree) -> None:
    """construct-cli's AGENTS.md gives each agent's rules path, one line under the other; inspector's, that the
    root has no aggregate test script and, in the same section, each client's test command. Between two files
    the same lines would be compared; within one, they are parts of one document."""
    tree.write("AGENTS.md", "# AGENTS.md\n\n## Agents\n\n- Rules path: `~/.kilocode/rules/AGENTS.md`\n"
               "- Rules path: `~/.config/crush/AGENTS.md`\n\n## Testing\n\n- Run tests with `make test`.\n"
               "- Run tests with `make test-quiet`.\n")
    p, store = plan(tree)
    assert p.conflicts == []
    assert [f for f in memory_findings(store, CompactionConfig()) if f.kind == "contradiction"] == []
    tree.write("CLAUDE.md", "# CLAUDE.md\n\n## Testing\n\n- Run tests with `make test`.\n")
    tree.write("AGENTS.md", "# AGENTS.md\n\n## Testing\n\n- Run tests with `make test-quiet`.\n")
    p, _ = plan(tree)
    assert len(p.conflicts) == 1, "in two files, the same lines disagree"


def test_an_item_under_a_label_that_turns_it_is_no_side_of_a_conflict(tree: Tree) -> None:
    """ihub-apps: its React guidelines list "Use inline styles instead of Tailwind" under "❌ **Don't:**";
    CLAUDE.md says to use Tailwind. They agree."""
    tree.write(".github/instructions/react-components.instructions.md",
               "---\napplyTo: \"client/src/**/*.{jsx,tsx}\"\n---\n\n# React Component Guidelines\n\n"
               "## What NOT to Do\n\n❌ **Don't:**\n- Create class components\n- Use inline styles instead of Tailwind\n")
    tree.write("CLAUDE.md", "# CLAUDE.md\n\n## Styling\n\n- Use Tailwind CSS for styling\n")
    p, store = plan(tree)
    assert p.conflicts == []
    assert [f for f in memory_findings(store, CompactionConfig()) if f.kind == "contradiction"] == []


def test_the_examples_of_one_setting_after_another_are_no_conflict(tree: Tree) -> None:
    """GamBlick's (Korean) GEMINI.md gives an example for each environment variable, one after another:
    read alone, only their code differs ("another value"). Within its file they are one document; across
    two files, examples of different variables are no conflict either."""
    def example(*names: tuple[str, str]) -> str:
        return "".join(f"* `{name}`:\n  * 예시: `export {name}=\"{value}\"`\n" for name, value in names)

    tree.write(".gemini/GEMINI.md", "# GEMINI.md\n\n## 인증\n\n" + example(
        ("GOOGLE_API_KEY", "YOUR_GOOGLE_API_KEY"), ("OTLP_GOOGLE_CLOUD_PROJECT", "YOUR_PROJECT_ID")))
    tree.write("AGENTS.md", "# AGENTS.md\n\n## 인증\n\n" + example(
        ("GOOGLE_CLOUD_PROJECT", "YOUR_PROJECT_ID"), ("GOOGLE_CLOUD_LOCATION", "YOUR_PROJECT_LOCATION")))
    commit(tree, "instructions")
    p, store = plan(tree)
    assert p.conflicts == []
    assert [f for f in memory_findings(store, CompactionConfig()) if f.kind == "contradiction"] == []


# -- memory banks: what a blind reading of twelve repositories' proposals showed ---------------------

def _stays(tree: Tree) -> dict[tuple[str, int], str | None]:
    """Every copy ``lore repeats`` names, by file and line, with why it stays (``None``: it would go)."""
    found = json.loads(lore("repeats", "--json", cwd=tree.root).stdout)["repeats"]
    return {(c["path"], c["line"]): c["stays_because"] for r in found for c in r["copies"]}


def test_words_of_another_script_keep_two_labels_apart(tree: Tree) -> None:
    """7Spade/Twilight-Hub's memory bank: a style guide gives buttons and input boxes the same radius, a
    progress report and a completion report the same date. The Chinese labels say what each line is
    about; read as their Latin literals alone, each pair was one fact, and one line of it would go."""
    write_all(tree, {
        "memory-bank/style-guide.md": "# 樣式指南\n\n## 邊框圓角\n\n- **按鈕**: `rounded-md` (6px)\n- **卡片**: `rounded-lg` (8px)\n"
                                      "- **輸入框**: `rounded-md` (6px)\n",
        "memory-bank/progress.md": "# 項目實施進度報告\n\n## 項目概述\n\n- **實施日期**: 2024-01-15\n",
        "memory-bank/completed-work.md": "# 已完成工作記錄\n\n## 項目概述\n\n- **完成日期**: 2024-01-15\n"})
    assert repeats(open_memory(Workspace(tree.root)).entries) == []
    # the same words in the same script are still one fact
    tree.write("memory-bank/tasks.md", "# 任務\n\n## 概述\n\n- **實施日期**: 2024-01-15\n")
    assert _stays(tree) == {("memory-bank/tasks.md", 5): None}


def test_a_memory_bank_item_takes_its_status_from_the_heading_that_gives_one(tree: Tree) -> None:
    """270aldo/ngx.agents: "Implementing advanced caching strategies" is current work (under "## Current
    Work Focus > ### 2. Vertex AI Client Optimization"), "Advanced caching strategies implementation" is
    still to build (under "## What's Left to Build > ### Core Infrastructure Completion"). A file's own
    title ("# Active Context") gives none: what was added recently is what works now."""
    write_all(tree, {
        "memory-bank/activeContext.md": "# Active Context\n\n## Current Work Focus\n\n### 2. Vertex AI Client Optimization\n\n"
                                        "- Implementing advanced caching strategies\n\n## Recent Changes\n\n"
                                        "- Added support for partial state updates\n",
        "memory-bank/progress.md": "# Progress\n\n## What's Left to Build\n\n### Core Infrastructure Completion\n\n"
                                   "- Advanced caching strategies implementation\n\n## What Works\n\n"
                                   "- Support for partial state updates\n"})
    assert _stays(tree) == {
        ("memory-bank/progress.md", 7): "another status than the kept one's (done, planned, in progress)",
        # added recently and working now: both done, one fact
        ("memory-bank/progress.md", 11): None}


def test_the_same_item_of_another_milestone_or_another_list_stays(tree: Tree) -> None:
    """1amageek/Buffett: AGENTS.md and memory-bank/projectbrief.md hold the same plan with two milestones
    swapped, so the same item is milestone 3's in one and milestone 2's in the other. 270aldo/ngx.agents:
    "Complete migration of all components" is the State Manager's and "… for all dependent components" the
    Intent Analyzer's, each list under a title after a status mark."""
    write_all(tree, {
        "AGENTS.md": "# 仕様書\n\n## マイルストーン\n\n### マイルストーン3: チャート描画\n\n"
                     "* `SymbolView` や `MultiChartView` により複数銘柄の同時表示に対応\n",
        "memory-bank/projectbrief.md": "# 仕様書\n\n## マイルストーン\n\n### マイルストーン2: チャート描画\n\n"
                                       "* `SymbolView` や `MultiChartView` により複数銘柄の同時表示に対応\n",
        "memory-bank/progress.md": "# Progress\n\n## What's Left to Build\n\n"
                                   "🔄 **State Manager Enhancement (40% Remaining)**\n- Advanced caching mechanisms\n"
                                   "- Complete migration of all components\n\n"
                                   "🔄 **Intent Analyzer Improvement (45% Remaining)**\n- Advanced context awareness\n"
                                   "- Complete migration of all components\n"})
    stays = _stays(tree)
    assert stays[("memory-bank/projectbrief.md", 7)].startswith("under a heading of another number"), stays
    assert stays[("memory-bank/progress.md", 11)] == "under another heading of the same file", stays


def test_an_item_nested_in_another_thing_stays(tree: Tree) -> None:
    """A1doranM/passivbot: "Handle exchange-specific API quirks" is what the exchange adapters do, "Handles
    exchange-specific quirks" what the ccxt library does; "Evolutionary algorithm for parameter
    optimization" is the optimization module's in both files (its items share a word), and may go."""
    write_all(tree, {
        "memory-bank/systemPatterns.md": "# System Patterns\n\n## Core Components\n\n"
                                         "4. **Exchange Adapters** (exchanges/*.py)\n   - Provide uniform interface to different exchanges\n"
                                         "   - Handle exchange-specific API quirks\n"
                                         "6. **Optimization Module** (optimize.py)\n"
                                         "   - Implements evolutionary algorithms for parameter optimization\n",
        "memory-bank/techContext.md": "# Tech Context\n\n## Python Libraries\n\n"
                                      "2. **ccxt**\n   - Cryptocurrency exchange integration\n   - Handles exchange-specific quirks\n"
                                      "3. **Optimization System**\n   - Evolutionary algorithm for parameter optimization\n"})
    stays = _stays(tree)
    assert stays.get(("memory-bank/techContext.md", 7)) == "nested in another item than the kept one", stays
    assert ("memory-bank/techContext.md", 9) in stays and stays[("memory-bank/techContext.md", 9)] is None, stays


def test_a_line_ending_with_an_east_asian_colon_goes_with_the_block_it_introduces(tree: Tree) -> None:
    """7Spade/Twilight-Hub: a QA report says "所有文檔中的依賴方向描述完全一致：" (every document describes the
    dependency direction the same way:) over the diagram systemPatterns.md draws. Removing the diagram
    alone would leave the line introducing nothing; it goes with it, as a line ending with ":" does."""
    diagram = "```\napp/ (頁面層)\n    ↓\nlib/ (工具層)\n```\n"
    write_all(tree, {"memory-bank/systemPatterns.md": "# 系統模式文檔\n\n## 組件架構\n\n" + diagram,
                     "memory-bank/finalQaReport.md": "# QA\n\n## 依賴方向\n\n所有文檔中的依賴方向描述完全一致：\n" + diagram
                     + "\n## 結論\n\n- 無需修正\n"})
    lore("repeats", "--apply", cwd=tree.root)
    assert (tree.root / "memory-bank/finalQaReport.md").read_text() == "# QA\n\n## 結論\n\n- 無需修正\n"


@pytest.mark.slow
def test_in_one_memory_bank_a_line_in_other_words_with_its_own_context_is_no_repeat(tree: Tree) -> None:
    """270aldo/ngx.agents: the plan's "Migration to an optimized A2A server" and progress's "Complete
    integration with optimized A2A server" are close to the model and name the same server, and are two
    facts; a memory bank speaks of a few topics in every file. The same pair across two agents' files is
    named (CLAUDE.md restating copilot's rule for its own agent, as deadonfilm's do)."""
    write_all(tree, {"memory-bank/projectbrief.md": "# Project Brief\n\n## Key Goals\n\n1. Migration to an optimized A2A server\n",
                     "memory-bank/progress.md": "# Progress\n\n## What's Left to Build\n\n"
                                                "- Complete integration with optimized A2A server\n"})
    found = json.loads(lore("repeats", "--semantic", "--json", cwd=tree.root).stdout)["repeats"]
    assert found == []


def test_a_task_lists_open_box_is_a_status(tree: Tree) -> None:
    """ADRE9/StreakSphere: progress.md's "- [ ] …" is still to do; the same words in systemPatterns.md are
    the pattern. Removing the open item would say nothing is left to do."""
    write_all(tree, {"memory-bank/progress.md": "# Progress\n\n## Testing\n\n"
                                                "- [ ] Unit testing setup with Jest and React Native Testing Library\n",
                     "memory-bank/systemPatterns.md": "# System Patterns\n\n## Testing\n\n"
                                                      "- Unit testing setup with Jest and React Native Testing Library\n"})
    assert _stays(tree) == {("memory-bank/progress.md", 5):
                            "another status than the kept one's (done, planned, in progress)"}
    [unit] = [e for e in open_memory(Workspace(tree.root)).entries if e.location.path == "memory-bank/progress.md"
              and e.source == "bullet"]
    assert unit.content == "Unit testing setup with Jest and React Native Testing Library" and unit.raw["box"] == " "


# -- conflicts in memory banks and rules folders: each kind of the 46 wrong ones read there ----------

def test_a_version_written_more_precisely_or_a_count_is_no_other_version() -> None:
    """7Spade/Twilight-Hub: "Next.js 15" and "Next.js: 15.3.3" name one release line; "**React 組件**: 2 個"
    counts React components and gives React no version. Another release is still another version."""
    from lorekeeper.facts.updates import disagreement, versions_in

    assert disagreement("**框架**: Next.js 15 (App Router)", "Next.js: 15.3.3 ✓") is None
    assert versions_in("- **React 組件**: 2 個") == {} and versions_in("React: 18.3.1 ✓") == {"react": "18.3.1"}
    assert disagreement("Use Python 3.12", "Use Python 3.13") is not None


def test_the_size_of_a_change_is_no_value_and_a_thing_removed_from_one_place_is_not_gone() -> None:
    """Twilight-Hub's rules: "(~40% reduction)" of mode transitions and "(~70% token reduction)" of the
    initial loading are two changes. 0xBigBoss/vibe-station: "Removed `home-manager` from `nix-env`
    installation in Dockerfile" keeps home-manager (managed declaratively since)."""
    from lorekeeper.facts.updates import changes_in, disagreement, quantities_in

    assert disagreement("1. Reduced token usage during mode transitions (~40% reduction)",
                        "1. **Reduced Initial Loading**: Only essential rules loaded at start (~70% token reduction)") is None
    assert quantities_in("Reduced bundle size by 30%") == {} and quantities_in("Cache hit rate is 80%") == {"percent": {"80%"}}
    assert disagreement("Implemented a clean approach to manage `home-manager` purely declaratively",
                        "Removed `home-manager` from `nix-env` installation in Dockerfile") is None
    # removed from the place the other names, or from the project, it is gone there
    assert disagreement("Use `moment` in the dashboard for dates", "We got rid of `moment` from the dashboard.")
    assert disagreement("Use `lodash` helpers", "Removed `lodash` from the project")
    assert [c.old for c in changes_in("Removed `home-manager` from `nix-env` installation")] == ["`home-manager`"]


def test_items_a_heading_or_a_mark_says_not_to_do_and_steps_a_copy_holds_are_no_sides(tree: Tree) -> None:
    """ADTrauts/block-on-block: "1. **Hardcode localhost** in production code" under "### ❌ NEVER Do
    These:" and "- ❌ Root-level `.md` files" under "**DON'T create:**" say what the rules summary says
    never to do. Twilight-Hub keeps a copy of its rules folder: steps 6 and 7 ("If pass, load: …") are
    in both, in another order."""
    write_all(tree, {
        ".cursor/rules/RULES_SUMMARY.md": "# Rules\n\n## URLs\n\n- **NEVER hardcode localhost** in production code\n\n"
                                          "## Docs\n\n- **NEVER create root-level `.md` files** (except README.md)\n",
        ".cursor/rules/coding-standards.mdc": "# Standards\n\n### ❌ NEVER Do These:\n\n"
                                              "1. **Hardcode localhost** in production code\n"
                                              "2. **Use `any` types** (use proper TypeScript types)\n",
        ".cursor/rules/memory-bank.mdc": "# Memory Bank\n\n## Files\n\n**DON'T create:**\n"
                                         "- ❌ Root-level `.md` files (except README.md which exists)\n",
        ".cursor/rules/guide.mdc": "# Guide\n\n## Order\n\n6. If pass, load: `isolation_rules/visual-maps/van-qa-utils/reports`\n"
                                   "7. If pass, load: `isolation_rules/visual-maps/van-qa-utils/mode-transitions`\n",
        "docs/copy/.cursor/rules/guide.mdc": "# Guide\n\n## Order\n\n"
                                             "6. If pass, load: `isolation_rules/visual-maps/van-qa-utils/mode-transitions`\n"
                                             "7. If pass, load: `isolation_rules/visual-maps/van-qa-utils/reports`\n"})
    p, _ = plan(tree)
    assert p.conflicts == []


def test_a_fenced_block_in_a_list_item_is_one_piece_of_code(tree: Tree) -> None:
    """Twilight-Hub's "* **Milestone Checkpoint:**" items hold a fenced checklist each; read as code spans
    paired across the fences, the parser's own marks showed in what a conflict said. A block is one
    piece of code: two checkpoints that differ only in it are another value; a rules folder and its copy
    that each hold both are no conflict."""

    plan_ = ("**Milestone Checkpoint:**\n```\n✓ L3 FEATURE PLANNING CHECKPOINT\n"
             "- Detailed requirements documented in tasks.md? [YES/NO]\n```")
    creative = ("**Milestone Checkpoint:**\n```\n✓ L3 CREATIVE PHASES CHECKPOINT\n"
                "- Design decisions documented in respective `memory-bank/creative-*.md` files? [YES/NO]\n```")
    verdict = compare(plan_, creative)
    assert verdict.old.startswith("`✓ L3 FEATURE PLANNING") and "\x00" not in verdict.reason + verdict.old + verdict.new
    item = lambda text: "* " + text.replace("\n", "\n  ") + "\n"  # noqa: E731
    write_all(tree, {".cursor/rules/workflow-level3.mdc": "# Level 3\n\n## Plan\n\n" + item(plan_) + "\n## Creative\n\n" + item(creative),
                     "docs/copy/.cursor/rules/workflow-level3.mdc": "# Level 3\n\n## Creative\n\n" + item(creative)
                     + "\n## Plan\n\n" + item(plan_)})
    p, _ = plan(tree)
    assert p.conflicts == []


@pytest.mark.parametrize(("older", "newer", "verdict"), [
    # memos's CLAUDE.md (the held-out entries store): the CI's Node.js, in a text that names its package manager
    ("**frontend-tests.yml:** Node 22, pnpm 10, lint + build", "**frontend-tests.yml:** Node 24, pnpm 10, lint + build",
     "conflict"),
    ("Use Node 18", "Use Node 20", "conflict"),
    ("Requires Node 18", "Requires Node 20", "conflict"),
    # machines of a cluster: two things
    ("Node 3 in the cluster has a small disk", "Node 4 in the cluster has a small disk", "different"),
    ("Drain node 3 before upgrading", "Drain node 4 before upgrading", "different"),
    ("Use node 3", "Use node 4", "different"),
    ("Node 12 of the cluster is down", "Node 14 of the cluster is down", "different"),
])
def test_a_release_of_node_is_a_value_and_a_machine_of_a_cluster_a_thing(older: str, newer: str, verdict: str) -> None:
    assert compare(older, newer).verdict == verdict


@pytest.mark.parametrize(("older", "newer"), [
    # deepagents moved its Makefile into libs/; treemon narrowed its rule on loops (the held-out entries store)
    ("make bench-all", "make -C libs bench-all"),
    ("**NEVER use loops** — use recursion or higher-order functions (`List.map`, `List.filter`, `List.fold`, "
     "`Array.map`, `Seq.map`, etc.)",
     "**NEVER use loops to build or accumulate values** — use recursion or higher-order functions (`List.map`, "
     "`List.filter`, `List.fold`, `Array.map`, `Seq.map`, etc.). Iterating *purely* for side effects (`for ... do` or "
     "`List.iter`) is fine; keep transformation and effects separate."),
])
def test_a_command_with_options_and_a_narrowed_rule_are_dated_under_the_newer(older: str, newer: str) -> None:
    assert related(older, newer) in ("command", "label")


@pytest.mark.parametrize(("older", "newer", "why"), [
    # the MCP python-sdk's AGENTS.md on its branches and README (the held-out entries store): each a
    # statement about the code span it opens with, restated when v2 became the stable line
    ("`main` is currently the V2 rework.",
     "`main` is the current stable line (v2); releases are cut from it (see", "opening"),
    ("`v1.x` is the release branch for the current stable line. Backport PRs target",
     "`v1.x` is the maintenance branch for the previous major. Backport PRs", "opening"),
    ("`README.md` is frozen at v1 (a pre-commit hook rejects edits). Edit",
     "`README.md` documents v2. The v1 README lives on the `v1.x` branch.", "opening"),
    # pi-mono's AGENTS.md: its release scripts renamed, each said to do what it did
    ("npm run version:minor    # For new features", "npm run release:minor    # New features", "purpose"),
])
def test_a_statement_about_one_code_span_and_a_renamed_script_are_dated_under_the_newer(older: str, newer: str,
                                                                                         why: str) -> None:
    assert related(older, newer) == why


def test_lists_of_code_spans_and_commands_said_to_do_other_things_stay_apart() -> None:
    # two models' fields in Vssyl's memory bank, each opening with `id`
    assert related("`id`, `name` (mirrors tab), `color`, `type: LOCAL|EXTERNAL|RESOURCE|SUBSCRIPTION`",
                   "`id`, `calendarId`, `title`, `description`, `location`, `onlineMeetingLink`") is None
    # pi-mono's two release scripts side by side
    assert related("npm run release:minor    # API breaking changes",
                   "npm run release:patch    # Fixes and additions") is None
    assert related("`main` is the default branch", "`mainline` is the default branch") is None
    # two tasks of a task runner, two endpoints: the words of two code spans are no lead (mise's AGENTS.md,
    # the held-out entries store; moonx-farm's memory bank)
    assert related("`mise run test:unit` - Run unit tests only", "`mise run test:e2e` - Run end-to-end tests only") is None
    assert related("`GET /api/v1/orders` - List user orders", "`GET /api/v1/orders/active` - Active orders only") is None
    assert related("`mise run lint` - run linting", "`mise run lint` runs the linting commands") == "command"
    # one sentence, its task renamed (mise, 2025-07-20 / 2025-09-12): still dated
    assert related("The configuration system supports multiple file formats and environment-specific configs. Changes "
                   "to settings require updating `settings.toml` and running `mise run render:settings`.",
                   "The configuration system supports multiple file formats and environment-specific configs. Changes "
                   "to settings require updating `settings.toml` and running `mise run render:schema`.") is not None


def test_two_labels_one_a_part_of_the_other_with_other_words_stay_apart() -> None:
    assert related("**Testing**: use pytest for unit tests", "**Testing UI**: use playwright for UI tests") is None
    assert related("make lint", "make -C libs test") is None
