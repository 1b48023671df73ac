"""The semantic stage: paraphrases merge, coexisting facts and updates never do, vectors are cached by
content hash and model so a warm run never loads the model.

The guard's tests need no model (a cosine is given); the stage's tests load the bundled
all-MiniLM-L6-v2 (a few seconds: marked slow)."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import textwrap
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from lorekeeper.analysis.compaction import CompactionConfig, enabled, plan_compaction
from lorekeeper.analysis.compaction.rules import Planner
from lorekeeper.analysis.compaction.semantic import semantic_fuse
from lorekeeper.analysis.semantic import neighbours, vouch
from lorekeeper.analysis.semantic import vectors as vectors_module
from lorekeeper.analysis.semantic.vectors import cached_neighbours, vectors_for
from lorekeeper.app.context import render_context
from lorekeeper.facts.subjects import named_apart, related
from lorekeeper.workspace import Workspace
from support import Tree, lore

NOW = datetime(2026, 11, 1, 12, tzinfo=UTC)

PARAPHRASES = [
    ("Always use pnpm", "Package management must use pnpm, not npm or yarn", 0.57),
    ("The e2e tests need Docker running", "Docker must be running for the e2e tests", 0.97),
    ("The nightly job rebuilds the search index.", "The search index is rebuilt by the nightly job.", 0.95),
    ("Never commit `.env` files.", "Committing `.env` files is forbidden.", 0.86),
    ("`scripts/bootstrap.sh` creates the local `.env` from `.env.example`.",
     "The local `.env` is created from `.env.example` by `scripts/bootstrap.sh`.", 0.95),
    ("Run `pnpm install` after pulling lockfile changes.", "Execute `pnpm install` after pulling lockfile changes.", 0.99),
    # the same code word and number on both sides: further apart in words, still one fact
    ("The on-call engineer must acknowledge a page within 5 minutes.", "Whoever is on call has 5 minutes to ack a page.",
     0.69),
    # a restriction on both sides ("restricted to")
    ("Only release managers can push tags matching `v*`.", "Pushing `v*` tags is restricted to release managers.", 0.95),
    # a name written as code on one side, as a word on the other (awesome-claude-code's agent files)
    ("`complex-projects/` - Multi-service projects with detailed architecture",
     "**complex-projects**: Multi-service projects with detailed architecture", 0.95),
    # names side by side with slashes are a list of names, not a path (real_pairs.jsonl r076)
    ("**Tech Stack**: React/TypeScript/Tailwind + Express/TypeScript/PostgreSQL",
     "**Tech Stack**: React/TypeScript/Tailwind frontend, Express/TypeScript backend, PostgreSQL database", 0.93),
    # a rule that denies in every clause denies (not: four negations, an even count, affirm)
    ("**Never commit secrets.** Not in code, not in configs, not in tests.", "NEVER commit secrets to the repository",
     0.8),
    # a file name in a code span is one word ("requirements.lock" parts no clause): both deny the same way
    ("Do not add a new Python dependency without updating `requirements.lock`.",
     "Adding a new Python dependency without updating `requirements.lock` is not allowed.", 0.97),
    # "non-root" denies as "not root" does (heldout.jsonl h130)
    ("The `web` container runs as non-root user 10001.", "UID 10001, not root, is the user the `web` container process runs as.",
     0.81),
    # what only says a list gives examples ("e.g.", "…") is no item of it (heldout2.jsonl r009)
    ("**Never push domain-specific variant logic into theme files** (annotation types, transport types, …).",
     "NEVER push domain-specific variant logic (e.g., annotation types, transport types) into theme files.", 0.86),
    # one name written two ways (heldout3.jsonl t029, t024): a script run with or without `run`, a call with
    # or without its parentheses, and a folder named again that a path both write holds
    ("`pnpm lint:fix` - Fix linting issues", "`pnpm run lint:fix` - Fix linting issues", 0.98),
    ("**ALWAYS** use `testReactResource()` from `./test/__helpers`",
     "**ALWAYS** import `testReactResource` from `./test/__helpers` (note the `test/` prefix)", 0.91),
    # a number and a word joined, and apart (t002); "need" says what "require" does (t001)
    ("Formatter: Biome (tabs for code, 2-space for JSON)", "Biome (tabs for code, 2 spaces for JSON)", 0.90),
    ("Adapter tests require Docker containers running (`docker compose up -d`)",
     "Adapter tests need Docker: `docker compose up -d`", 0.96),
    # heldout4.jsonl, read after it was first measured: names given only as examples, left out (u008); a word
    # written in capitals for stress names nothing (u021); "established" / "existing" (u024); the two sides
    # of an "and" in the other order (u027)
    ("Start the text after `type(scope):` with a lowercase letter, unless the first word is a proper noun (e.g. "
     "`Azure`, `GitHub`, `OpenAI`) or a named entity (class, function, method, parameter, or variable name).",
     "Start the text after `type(scope):` with a lowercase letter unless it begins with a proper noun or named code "
     "entity.", 0.85),
    ("When receiving the first user message, you MUST read README.md in full.", "Read README.md in full.", 0.8),
    ("6. Follow established patterns and maintain consistency.", "Follow existing patterns and maintain consistency",
     0.78),
    ("load.go                        crush.json and crushrc loading and validation",
     "load.go                        crushrc and crush.json loading and validation", 1.0),
    # heldout5.jsonl, read after it was first measured: the same words in the same order, denied in other
    # words (v019); a number joined to its unit written short (v026)
    ("Never modify files under `docs/v*/`. Those are frozen release snapshots",
     "2. Do not modify files under `docs/v*/`. Those are frozen release snapshots", 0.92),
    ("Limit subject line to 50 characters", "50-char subject line limit", 0.9),
]
NEVER = [
    ("Max line length is 100", "Max line length is 120", 0.99),
    # jemdzem's CLAUDE.md: two commands of one tool (MiniLM: 0.75); and in code spans
    ("uv run ruff check .", "uv run ruff format .", 0.75),
    ("Commit with `git commit -s` often.", "Push with `git push` often.", 0.85),
    ("Run unit tests with pytest -q", "Run integration tests with pytest -m integration", 0.80),
    ("Staging uses Let's Encrypt certificates managed by cert-manager.",
     "Production uses Let's Encrypt certificates managed by cert-manager.", 0.93),
    ("Integration tests for the payments module hit the Stripe test-mode API.",
     "Integration tests for the billing module hit the Stripe test-mode API.", 0.94),
    ("The API gateway calls the auth service.", "The auth service calls the API gateway.", 0.97),
    ("Frontend unit tests live next to the source file as `*.test.ts`.",
     "Backend unit tests live next to the source file as `*.test.ts`.", 0.95),
    ("Use npm", "Don't use npm, use pnpm", 0.8),
    ("Use npm for scripts", "Do not use npm, not even for scripts", 0.9),
    ("The `web` container runs as root.", "The `web` container runs as non-root.", 0.9),
    # real updates and a rule and its mirror of heldout3.jsonl, merged before these were read: a status
    # flipped, an item dropped from a list written with commas, two directions of one arrow
    ("`packages/types/` - Shared TypeScript type definitions (active)",
     "`packages/types/` - Shared TypeScript type definitions - this is deprecated, never modify this package", 0.77),
    ("In practice this means: do not draft or post PR titles, PR descriptions, issues, review replies, discussion "
     "comments, or changelog entries. If your operator asks you to, decline.",
     "In practice this means: do not draft or post PR titles, PR descriptions, issues, review replies or discussion "
     "comments. If your operator asks you to, decline.", 0.98),
    ("Migration → Runtime imports: denied", "Runtime → Migration imports: denied (artifacts are consumed out-of-band)", 0.79),
    ("Lint the packages (core, cli, etc.).", "Lint the packages (core, cli, web, etc.).", 0.95),
    ("Feature flags are enabled in staging.", "Feature flags are disabled in staging.", 0.95),
    ("The E2E suite runs on Chromium only.", "The E2E suite runs on chromium, firefox and webkit.", 0.8),
    # a list that grew, a status that changed: updates (real pairs of public repositories' memory)
    ("npm run quality:check    # Complete quality verification (lint + type + format + test)",
     "npm run quality:check    # Complete quality verification (lint + type + format + calisthenics + test)", 0.96),
    ("Status endpoints will allow clients to poll application progress",
     "Status endpoints allow clients to poll application progress (implemented)", 0.98),
    # the same name, two steps that mirror each other
    ("In e2e setup, create the org before the user.", "In e2e teardown, delete the user before the org.", 0.70),
    # one name of a list swapped for another
    ("State lives in React/Redux stores.", "State lives in React/MobX stores.", 0.95),
    # sharing a number is not enough when they are far apart in words
    ("Retries back off for 5 seconds.", "The cache holds 5 entries per user.", 0.40),
    # one name written two ways is one name; two names are not: npm runs only its own commands without
    # `run`, a folder inside another is not the other, a number of spaces is a number
    ("Check with `npm run lint:fix`.", "Check with `npm lint:fix`.", 0.97),
    ("Tests live in `src/tests/`.", "Tests live in `tests/`.", 0.95),
    ("Use 2-space indentation.", "Use 4 spaces for indentation.", 0.93),
    ("Call `reset()` in teardown.", "Call `resetAll()` in teardown.", 0.95),
    # real updates of heldout4.jsonl, merged when it was first measured: one more item joined with "and",
    # one command whose comment says another thing
    ("load.go                        crush.json loading and validation",
     "load.go                        crush.json and crushrc loading and validation", 0.95),
    ("npm run release:minor    # New features", "npm run release:minor    # API breaking changes", 0.79),
    # examples swapped for others are other names; "no X without Y" forbids what "X without Y" states
    ("Start with a lowercase letter unless the word is a proper noun (e.g. `Azure`).",
     "Start with a lowercase letter unless the word is a proper noun (e.g. `Google`).", 0.95),
    ("No releases without a changelog entry.", "Releases ship without a changelog entry.", 0.9),
    # heldout5.jsonl's updates and a coexisting pair, merged when it was first measured: another amount of
    # the same number, one flag given another value
    ("3. Add at least one method with `start: true`.", "3. Add exactly one method with `start: true`.", 0.98),
    ("uv run --group test pytest tests/path/to/test.py",
     "uv run --group test-optional pytest tests/path/to/test.py  # with optional deps", 0.88),
    ("Use 2-space indentation.", "Use 2 spacers.", 0.95),
    # the same file named in code on both sides: one still denies what the other states
    ("Update `requirements.lock` when adding a dependency.",
     "Do not update `requirements.lock` when adding a dependency.", 0.90),
]


@pytest.mark.parametrize(("a", "b", "cosine"), PARAPHRASES)
def test_the_guard_vouches_for_paraphrases(a: str, b: str, cosine: float) -> None:
    assert vouch(a, b, cosine, 0.75).ok


@pytest.mark.parametrize(("a", "b", "cosine"), NEVER)
def test_the_guard_never_vouches_for_another_fact_however_close(a: str, b: str, cosine: float) -> None:
    assert not vouch(a, b, cosine, 0.75).ok
    assert not vouch(b, a, cosine, 0.75).ok


def test_a_text_written_in_another_script_is_never_vouched_for() -> None:
    # 0x-zeros/web3-tycoon: .cursorrules (Chinese) against CLAUDE.md (English); the Latin names they share
    # bring MiniLM, which reads English, close
    verdict = vouch("**Frontend**: Cocos Creator 3.8.7 with TypeScript + Voxel rendering system",
                    "TypeScript 代码：遵循 Cocos Creator 开发规范", 0.95, 0.75)
    assert not verdict.ok and "another script" in verdict.reason
    assert vouch("Always use pnpm for packages", "Use pnpm for every package, always", 0.95, 0.75).ok


def test_the_newer_text_that_says_more_is_kept() -> None:
    verdict = vouch("Always use pnpm", "Package management must use pnpm, not npm or yarn", 0.57, 0.75)
    assert verdict.keeper == "b"


def test_a_newer_text_that_drops_a_name_is_an_update_not_a_duplicate() -> None:
    assert vouch("Tests need Docker running.", "Tests need Docker running on the host.", 0.9, 0.75).keeper == "b"
    # a name joined to one both write is an item more, in either order (heldout4.jsonl u043)
    grown = vouch("Tests need Docker running.", "Tests need Docker and Redis running.", 0.95, 0.75)
    assert not grown.ok and "redis" in grown.reason
    dropped = vouch("Tests need Docker and Redis running.", "Tests need Docker running.", 0.95, 0.75)
    assert not dropped.ok and "redis" in dropped.reason


def test_an_abbreviation_written_with_dots_names_nothing() -> None:
    # cline's CLAUDE.md and its .clinerules: "e.g." on one side only is no name the other drops
    older = "Adding enums (e.g. `ClineSay`) → also update `src/shared/proto-conversions/cline-message.ts`."
    newer = ("**Adding new enum values** (like a new `ClineSay` type) requires updating conversion mappings in "
             "`src/shared/proto-conversions/cline-message.ts`")
    assert vouch(older, newer, 0.92, 0.75).ok
    assert not vouch(older, newer.replace("`ClineSay`", "`ClineAsk`"), 0.92, 0.75).ok  # names still count


def test_a_list_items_number_and_its_bold_label_are_no_names_it_states() -> None:
    # nftbk's memory bank: progress.md's numbered roadmap items, restated in techContext.md
    assert vouch("2. ⬜ **IPFS Gateway Improvements**: Add gateway rotation and fallbacks",
                 "- Adding IPFS gateway rotation and fallbacks", 0.92, 0.75).ok
    assert vouch("5. **Structured Logging**: Using tracing for flexible and contextual logging",
                 "- **tracing**: Structured, contextual logging", 0.94, 0.75).ok
    # a number inside the text is still one it states
    assert not vouch("1. Run the suite with 2 workers", "- Run the suite with 4 workers", 0.95, 0.75).ok


def test_neighbours_come_from_a_blocked_product_and_respect_the_threshold() -> None:
    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(50, 16)).astype(np.float32)
    vectors[10] = vectors[3] + 0.01
    vectors[40] = vectors[3] + 0.02
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    found = neighbours(vectors, 0.99, k=4, block=7)  # blocks that do not divide the rows
    assert {(i, j) for i, j, _ in found} == {(3, 10), (3, 40), (10, 40)}
    assert all(s >= 0.99 for _, _, s in found)


class CountingEmbedder:
    model_id = "test:counting"

    def __init__(self) -> None:
        self.seen: list[str] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.seen += texts
        rows = [np.frombuffer(bytes(t.encode()[:8].ljust(8, b"_")), dtype=np.uint8).astype(np.float32) + 1
                for t in texts]
        matrix = np.stack(rows)
        return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def test_vectors_are_cached_by_content_and_model(tree: Tree) -> None:
    ws = Workspace(tree.root)
    first = CountingEmbedder()
    vectors = vectors_for(ws, ["alpha fact", "beta fact"], first.model_id, lambda: first)
    assert first.seen == ["alpha fact", "beta fact"] and vectors.shape == (2, 8)
    again = CountingEmbedder()  # a restart: a new model object, the cache file read back
    assert np.allclose(vectors_for(ws, ["beta fact", "alpha fact"], again.model_id, lambda: again), vectors[::-1], atol=1e-3)
    assert again.seen == []
    changed = CountingEmbedder()
    vectors_for(ws, ["alpha fact", "beta fact, edited"], changed.model_id, lambda: changed)
    assert changed.seen == ["beta fact, edited"], "only the changed text is embedded again"
    other = CountingEmbedder()
    other.model_id = "test:another-model"
    vectors_for(ws, ["alpha fact"], other.model_id, lambda: other)
    assert other.seen == ["alpha fact"], "another model never reads this model's vectors"


def test_vectors_asked_for_by_one_caller_survive_another_callers_rewrite(tree: Tree, monkeypatch: pytest.MonkeyPatch
                                                                         ) -> None:
    """The entries, the instruction lines and their sentences are asked for in separate calls: each call
    that embeds something rewrites the file, and must not drop what the others will ask for again (a warm
    check would load the model every time)."""
    ws = Workspace(tree.root)
    vectors_for(ws, ["an entry", "another entry"], "test:counting", CountingEmbedder)
    vectors_for(ws, ["a line of CLAUDE.md", "One sentence. Another one."], "test:counting", CountingEmbedder)
    warm = CountingEmbedder()
    vectors_for(ws, ["an entry", "another entry"], warm.model_id, lambda: warm)
    vectors_for(ws, ["a line of CLAUDE.md", "One sentence. Another one."], warm.model_id, lambda: warm)
    assert warm.seen == []
    # past the bound, only the texts asked for stay
    monkeypatch.setattr(vectors_module, "KEEP", 2)
    vectors_for(ws, ["a third caller's text"], "test:counting", CountingEmbedder)
    cold = CountingEmbedder()
    vectors_for(ws, ["an entry"], cold.model_id, lambda: cold)
    assert cold.seen == ["an entry"]


def test_a_workspace_without_lore_reads_its_vectors_back_from_the_user_cache(tree: Tree) -> None:
    shutil.rmtree(tree.root / ".lore")  # instruction files only: the caches live in the user's cache folder
    ws = Workspace(tree.root)
    assert not ws.cache_dir.is_relative_to(tree.root)
    texts = ["alpha fact", "beta fact"]
    vectors = vectors_for(ws, texts, "test:counting", CountingEmbedder)
    found = cached_neighbours(ws, "test:counting", texts, vectors, -1.0)
    again = CountingEmbedder()
    assert np.allclose(vectors_for(Workspace(tree.root), texts, again.model_id, lambda: again), vectors, atol=1e-3)
    assert again.seen == [], "a warm run never loads the model"
    kept = next(ws.cache_dir.glob("neighbours-*.npz"))
    with np.load(kept) as data:  # the same key with another score: read back, not computed again
        buffer = io.BytesIO()
        np.savez(buffer, key=data["key"], i=data["i"], j=data["j"], score=np.full(len(data["score"]), 0.5))
    kept.write_bytes(buffer.getvalue())
    assert found and cached_neighbours(Workspace(tree.root), "test:counting", texts, vectors, -1.0) == [
        (i, j, 0.5) for i, j, _ in found]
    assert not (tree.root / ".lore").exists()


def test_a_damaged_vector_cache_is_ignored(tree: Tree) -> None:
    ws = Workspace(tree.root)
    vectors_for(ws, ["alpha fact"], "test:counting", CountingEmbedder)
    for path in (ws.cache_dir).glob("vectors-*.npz"):
        path.write_bytes(b"PK\x03\x04 not a zip")
    model = CountingEmbedder()
    vectors_for(ws, ["alpha fact"], model.model_id, lambda: model)
    assert model.seen == ["alpha fact"]


def _store(tree: Tree, pairs: list[tuple[str, str, float]]) -> dict[str, tuple[str, str]]:
    ids: dict[str, tuple[str, str]] = {}
    for n, (a, b, _) in enumerate(pairs):
        tree.entry(f"p{n}a.json", {"id": f"p{n}a", "content": a, "category": "conventions",
                                   "created": f"2026-01-{n + 1:02d}T10:00:00Z"})
        tree.entry(f"p{n}b.json", {"id": f"p{n}b", "content": b, "category": "tooling" if n % 2 else "conventions",
                                   "created": f"2026-02-{n + 1:02d}T10:00:00Z"})
        ids[a] = (f"p{n}a", f"p{n}b")
    return ids


@pytest.mark.slow
def test_semantic_compaction_merges_paraphrases_and_nothing_else(tree: Tree) -> None:
    _store(tree, [*PARAPHRASES[:2], *NEVER[:2]])
    config = CompactionConfig().with_overrides(semantic_dedup=True)
    plain = plan_compaction(tree.store(), CompactionConfig(), now=NOW)
    assert not any(op.op == "merge" for op in plain.operations), "stage 1 alone merges none of them"
    plan = plan_compaction(tree.store(), config, now=NOW)
    merged = sorted(tuple(sorted([*op.sources, op.result["id"]])) for op in plan.operations if op.op == "semantic")
    assert merged == [("p0a", "p0b"), ("p1a", "p1b")]
    pnpm = next(op for op in plan.operations if "p0a" in op.sources or op.result["id"] == "p0a")
    assert pnpm.result["id"] == "p0b", "the text that says more is kept"
    assert any(c["kind"] == "contradiction" for c in plan.conflicts), "100 / 120 is a conflict, not a merge"


@pytest.mark.slow
def test_where_neither_says_more_the_newer_wording_is_kept(tree: Tree) -> None:
    """The held-out entries store (bench/real_memory): "Using `CI=1` makes sure that the tests don't
    automatically run in watch mode" merged the newer "The test script already sets `CI=1` …" into itself,
    the longer text, and the current value went out of view. Where the guard finds that neither says more,
    the newer wording is kept; the older stays in its merged_into record."""
    older = "UID 10001, not root, is the user the `web` container process runs as."
    newer = "The `web` container runs as non-root user 10001."
    _store(tree, [(older, newer, 0.81)])
    plan = plan_compaction(tree.store(), CompactionConfig().with_overrides(semantic_dedup=True), now=NOW)
    merges = [op for op in plan.operations if op.op == "semantic"]
    assert [(op.sources, op.result["id"]) for op in merges] == [(["p0a"], "p0b")]


@pytest.mark.slow
def test_a_warm_run_never_loads_the_model(tree: Tree) -> None:
    _store(tree, PARAPHRASES[:2])
    script = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        from lorekeeper.analysis.compaction import CompactionConfig, plan_compaction, plan_id
        from lorekeeper.facts import open_memory
        from lorekeeper.workspace import Workspace
        from datetime import datetime, UTC
        plan = plan_compaction(open_memory(Workspace(Path({str(tree.root)!r}))),
                               CompactionConfig().with_overrides(semantic_dedup=True), now=datetime(2026, 11, 1, tzinfo=UTC))
        loaded = any(name in sys.modules for name in ("torch", "safetensors", "lorekeeper.analysis.semantic.bert"))
        print(sum(op.op == "semantic" for op in plan.operations), loaded, plan_id(plan), "torch" in sys.modules)
    """)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    cold = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
    assert cold.stdout.split()[:2] == ["2", "True"]
    assert cold.stdout.split()[3] == "False", "two texts are embedded with numpy, not torch"
    warm = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
    assert warm.stdout.split()[:2] == ["2", "False"], warm.stderr
    assert warm.stdout.split()[2] == cold.stdout.split()[2], "the plan previewed cold is the plan applied warm"
    assert json.loads((tree.root / ".lore/cache/vouches.json").read_text())["pairs"], "the guard's verdicts are kept"
    tree.entry("p1b.json", {"id": "p1b", "content": "Docker must be up for the e2e tests", "category": "tooling",
                            "created": "2026-02-02T10:00:00Z"})
    edited = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
    assert edited.stdout.split()[1] == "True", "a changed text is embedded again"


@pytest.mark.slow
def test_the_cli_flag_and_the_config_toggle(tree: Tree) -> None:
    _store(tree, PARAPHRASES[:1])
    result = lore("compact", "--dry-run", "--json", "--only", "dedup", cwd=tree.root)
    assert not [op for op in json.loads(result.stdout)["operations"] if op["op"] == "semantic"]
    result = lore("compact", "--semantic", "--dry-run", "--json", "--only", "dedup", cwd=tree.root)
    assert [op["op"] for op in json.loads(result.stdout)["operations"]] == ["semantic"]
    tree.write(".lore/config.toml", "[compaction]\nsemanticDedup = true\n")
    result = lore("compact", "--dry-run", "--json", cwd=tree.root)
    assert "semantic" in [op["op"] for op in json.loads(result.stdout)["operations"]]


def test_add_warns_of_the_same_fact_in_another_format_without_a_model(tree: Tree) -> None:
    tree.write("CLAUDE.md", "# Rules\n\n- Money is integer cents.\n")
    result = lore("add", "Money is always integer cents", "--json", cwd=tree.root)
    data = json.loads(result.stdout)
    assert data["status"] == "added"
    assert [(d["id"], d["reason"]) for d in data["likely_duplicates"]] == [("CLAUDE.md:3", "states the same fact")]
    plain = lore("add", "Invoices are numbered per year", cwd=tree.root)
    assert "likely duplicate" not in plain.stderr


@pytest.mark.slow
def test_add_warns_of_the_same_fact_in_other_words(tree: Tree) -> None:
    tree.write(".lore/config.toml", "[compaction]\nsemanticDedup = true\n")
    assert lore("add", "The e2e tests need Docker running", cwd=tree.root).returncode == 0
    result = lore("add", "Docker must be running for the e2e tests", cwd=tree.root)
    assert result.returncode == 0 and "added" in result.stdout
    assert "likely duplicate: states the same fact in other words" in result.stderr
    other = lore("add", "Max line length is 120", "--json", cwd=tree.root)
    assert json.loads(other.stdout)["likely_duplicates"] == []


def test_the_toggle_is_read_from_leanspec_and_lore_config(tree: Tree) -> None:
    assert not Workspace(tree.root).compaction.semantic_dedup
    tree.write(".lean-spec/config.json", json.dumps({"memory": {"compaction": {"semanticDedup": True,
                                                                              "semanticThreshold": 0.8}}}))
    config = Workspace(tree.root).compaction
    assert config.semantic_dedup and config.semantic_threshold == 0.8 and "semantic" in enabled(config)
    tree.write(".lore/config.toml", "[compaction]\nsemantic_dedup = false\nsemantic_threshold = 2\n")
    config = Workspace(tree.root).compaction
    assert not config.semantic_dedup and config.semantic_threshold == 0.8  # 2 is refused, with a problem
    assert any("semantic_threshold" in p for p in config.problems)


TESTING = ["Run unit tests with pytest -q", "Integration tests need Docker running", "Use factory_boy for test fixtures",
           "Mark slow tests with @pytest.mark.slow", "Keep each unit test under one second"]
OTHERS = ["Deploy with `make deploy` after review", "Money is integer cents", "The API timeout is 30s",
          "Log through the logger module, never print", "Postgres migrations live in db/migrations"]


@pytest.mark.slow
def test_a_cluster_of_related_conventions_is_fused_each_fact_once(tree: Tree) -> None:
    for n, text in enumerate([*TESTING, *OTHERS]):
        tree.entry(f"c{n}.json", {"id": f"c{n}", "content": text, "category": "conventions",
                                  "created": f"2026-03-{n + 1:02d}T10:00:00Z"})
    tree.entry("dup.json", {"id": "dup", "content": "Run unit tests with pytest -q", "category": "conventions",
                            "created": "2026-04-01T10:00:00Z"})
    plain = plan_compaction(tree.store(), CompactionConfig(), now=NOW)
    assert not [op for op in plain.operations if op.op == "fuse"], "no tag: stage 1 cannot group them"
    config = CompactionConfig().with_overrides(semantic_dedup=True)
    plan = plan_compaction(tree.store(), config, now=NOW)
    assert not [op for op in plan.operations if op.op == "fuse"], "a list longer than its entries is not made"
    # The cluster, as the LLM stage is offered it to write shorter (it is made only if the model's text is).
    store = tree.store()
    planner = Planner(store.entries, config, NOW, by_id=store.by_id(), live=store.live())
    planner.ws, planner.fuse_drafts = store.ws, True
    semantic_fuse(planner, ".lore/memory/entries")
    fused = [op for op in planner.operations if op.op == "fuse"]
    assert len(fused) == 1
    sources = set(fused[0].sources)
    assert {"c1", "c2", "c3", "c4"} <= sources and not sources & {f"c{n}" for n in range(5, 10)}
    content = fused[0].new_entry["content"]
    for text in TESTING:
        assert content.count(text) == 1, text
    assert fused[0].new_entry["source_entries"] == fused[0].sources
    assert content.startswith("test (conventions):")


def test_a_repository_never_chooses_the_model_to_load(tree: Tree, monkeypatch: pytest.MonkeyPatch) -> None:
    """Weights can carry code, and .lore/config.toml comes with every branch: the model is the bundled
    one unless the user's environment names another."""
    monkeypatch.delenv("LORE_SEMANTIC_MODEL", raising=False)
    tree.write("evil/model/config.json", "{}")
    tree.write(".lore/config.toml", '[compaction]\nsemantic_dedup = true\nsemantic_model = "evil/model"\n')
    config = Workspace(tree.root).compaction
    assert config.semantic_model == "all-MiniLM-L6-v2"
    assert any("semantic_model 'evil/model' ignored" in p and "LORE_SEMANTIC_MODEL" in p for p in config.problems)
    result = lore("compact", "--dry-run", "--only", "dedup", cwd=tree.root)
    assert "semantic_model 'evil/model' ignored" in result.stderr
    monkeypatch.setenv("LORE_SEMANTIC_MODEL", str(tree.root / "no-such-model"))
    assert Workspace(tree.root).compaction.semantic_model == str(tree.root / "no-such-model")
    tree.entry("a.json", {"id": "a", "content": "Always use pnpm"})
    tree.entry("b.json", {"id": "b", "content": "Package management must use pnpm, not npm or yarn"})
    refused = lore("compact", "--dry-run", "--semantic", cwd=tree.root)
    assert refused.returncode != 0 and "LORE_SEMANTIC_MODEL" in refused.stderr and "no such folder" in refused.stderr


def test_a_crafted_vector_cache_is_refused_not_expanded(tree: Tree) -> None:
    """A compressed member (a zip bomb) or a pickle in a cache archive is never loaded: the vectors are
    computed again."""
    import io
    import zipfile

    ws = Workspace(tree.root)
    vectors_for(ws, ["alpha fact"], "test:counting", CountingEmbedder)
    (path,) = ws.cache_dir.glob("vectors-*.npz")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("keys.npy", b"\x00" * 10_000_000)  # expands 10,000 times
    path.write_bytes(buffer.getvalue())
    model = CountingEmbedder()
    vectors_for(ws, ["alpha fact"], model.model_id, lambda: model)
    assert model.seen == ["alpha fact"]
    buffer = io.BytesIO()
    np.savez(buffer, keys=np.array([{"a": 1}], dtype=object), vectors=np.zeros((1, 8)), model=np.array("test:counting"))
    path.write_bytes(buffer.getvalue())
    again = CountingEmbedder()
    vectors_for(ws, ["alpha fact"], again.model_id, lambda: again)
    assert again.seen == ["alpha fact"], "an object array (a pickle) is never unpickled"


@pytest.mark.slow
def test_an_entry_that_says_more_than_a_bullet_is_never_merged_into_it(tree: Tree) -> None:
    """A bullet is never edited, so an entry merges into it only when the bullet says at least as much:
    "need" is in the entry alone, so both stay; "Always use pnpm" says no more than the bullet and merges."""
    tree.write("CLAUDE.md", "# Rules\n\n- Docker must be running for the e2e tests.\n- Use pnpm, never npm or yarn.\n")
    tree.entry("a.json", {"id": "a", "content": "The e2e tests need Docker running", "created": "2026-01-01T10:00:00Z"})
    tree.entry("b.json", {"id": "b", "content": "Always use pnpm", "created": "2026-01-01T10:00:00Z"})
    plan = plan_compaction(tree.store(), CompactionConfig().with_overrides(semantic_dedup=True), now=NOW)
    merged = [(op.sources, op.result["id"]) for op in plan.operations if op.op == "semantic"]
    assert merged == [(["b"], "CLAUDE.md:4")]


def _dated_store(tree: Tree, projects: tuple[str, str] = ("tm", "tm")) -> None:
    """treemon's client, told again in other words (the held-out entries store, bench/real_memory), among
    other memories of the project."""
    texts = [("poll15", "Client polls `IWorktreeApi.getWorktrees` every 15 seconds", "2026-03-11T09:00:00Z", projects[0]),
             ("poll1", "Client polls every 1s; data updates stream in as each worktree completes", "2026-03-13T09:00:00Z",
              projects[1]),
             ("uv", "Use **uv** (not pip/pipx/poetry).", "2026-01-01T00:00:00Z", "tm"),
             ("e2e", "E2E tests use Playwright + NUnit against live data", "2026-03-11T09:00:00Z", "tm"),
             ("fs", "**NEVER use `let mutable`** — all bindings must be immutable", "2026-02-01T00:00:00Z", "tm")]
    for entry_id, text, created, project in texts:
        tree.entry(f"{entry_id}.json", {"id": entry_id, "content": text, "created": created, "category": "architecture",
                                        "tags": [f"project:{project}"]})


def _renderings(tree: Tree) -> dict[str, str]:
    ws = Workspace(tree.root)
    store = tree.store()
    plan = plan_compaction(store, ws.compaction, now=NOW)
    out = {path.rsplit("/", 1)[-1]: text for path, text in plan.views.items()}
    out["lore context"] = render_context(ws, store, budget=2000, now=NOW, remember=False).text
    return out


@pytest.mark.slow
def test_an_update_told_in_other_words_is_dated_under_the_newer_by_meaning(tree: Tree) -> None:
    """No rule relates the two (another interval, said in other words); with the semantic stage configured
    the model puts them nearest each other, and every rendering shows the older dated under the newer. A
    relation is no verdict ("older", not "was"); without the stage both are shown as they are."""
    _dated_store(tree)
    older, newer = "Client polls `IWorktreeApi.getWorktrees` every 15 seconds", "Client polls every 1s; data updates stream in as each worktree completes"
    assert related(older, newer) is None
    plain = _renderings(tree)
    assert "older," not in plain["architecture.md"] + plain["index.md"]
    tree.write(".lore/config.toml", "[compaction]\nsemantic_dedup = true\n")
    shown = _renderings(tree)
    for name in ("architecture.md", "index.md", "lore context"):
        assert f"- {newer}\n  - older, 2026-03-11: {older}\n" in shown[name], name
        assert "- Use **uv** (not pip/pipx/poetry).\n" in shown[name], "what is near nothing stays as it is"
        assert "was, until" not in shown[name]
    body = shown["index.md"].split("# Project memory", 1)[1]
    assert body == shown["lore context"].split("# Project memory", 1)[1], "index.md is lore context's text"


@pytest.mark.slow
def test_memories_of_two_projects_are_never_dated_against_each_other_by_meaning(tree: Tree) -> None:
    _dated_store(tree, projects=("treemon", "other"))
    tree.write(".lore/config.toml", "[compaction]\nsemantic_dedup = true\n")
    shown = _renderings(tree)
    assert "older," not in shown["architecture.md"] + shown["index.md"] + shown["lore context"]


@pytest.mark.parametrize(("a", "b", "apart"), [
    # the updates-entries store: two labels, two commands of one tool (each the other's nearest by meaning)
    ("Run tests: `poetry run pytest`", "Type checking: `poetry run mypy`", True),
    ("Lint: `uv run ruff check`", "Format: `uv run ruff format`", True),
    ("`mise run test:unit` - Run unit tests only", "`mise run test:e2e` - Run end-to-end tests only", True),
    ("Lint: `uv run ruff check`", "Lint (auto-fix): `uv run ruff check --fix`", True),
    ("Service 1 handles auth", "Service 2 handles auth", True),  # numbered things
    # two settings, two scopes, one setting set for two things (the realistic stores of tests/data)
    ("FastCDC maximum chunk size is 8 MiB.", "FastCDC average (target) chunk size is 1 MiB.", True),
    ("Guest checkout stays ON in staging (`FEATURE_GUEST_CHECKOUT=true`) so QA can keep testing it.",
     "Guest checkout is enabled in production (`FEATURE_GUEST_CHECKOUT=true`).", True),
    ("api uses `connection_limit=10` in its DATABASE_URL.",
     "worker uses `connection_limit=5` in its DATABASE_URL (matches BullMQ concurrency).", True),
    ("Access tokens (JWT) expire after 15 minutes.",
     "Access JWTs only last 5 minutes now; the silent refresh takes care of renewing them.", False),
    # one label narrowed by the other, one command, or no form that names a subject: meaning may join them
    ("**NEVER use loops** — use recursion", "**NEVER use loops to build values** — use recursion", False),
    ("`make lint` runs ruff", "Run `make lint` before pushing", False),
    ("Client polls `IWorktreeApi.getWorktrees` every 15 seconds",
     "Client polls every 1s; data updates stream in as each worktree completes", False),
])
def test_what_their_form_names_apart_meaning_never_relates(a: str, b: str, apart: bool) -> None:
    assert named_apart(a, b) is apart


@pytest.mark.slow
def test_the_context_dates_by_meaning_only_what_is_embedded_and_never_waits_for_the_model(tree: Tree) -> None:
    """`lore context` and MCP recall read the vectors `lore compact` (or the editor, or `lore add`) left:
    before any, they date nothing by meaning rather than load the model; after, what index.md dates."""
    _dated_store(tree)
    tree.write(".lore/config.toml", "[compaction]\nsemantic_dedup = true\n")
    ws = Workspace(tree.root)
    before = render_context(ws, tree.store(), budget=2000, now=NOW, remember=False).text
    assert "older," not in before
    assert not list((ws.cache_dir).glob("vectors-*")), "nothing was embedded"
    shown = _renderings(tree)  # lore compact's views, then the context
    assert list((ws.cache_dir).glob("vectors-*")), "lore compact embedded them"
    assert "  - older, 2026-03-11: Client polls `IWorktreeApi.getWorktrees` every 15 seconds\n" in shown["lore context"]
