"""Compaction you can trust: the verifier on the exact texts that were wrongly merged or superseded,
conflicts as findings, an index that never states an old value as current, stable and idempotent
plans, and undo in one pass."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lorekeeper.analysis.compaction import CompactionConfig, apply_plan, plan_compaction
from lorekeeper.analysis.diagnose import memory_findings
from lorekeeper.core import fence
from lorekeeper.facts.verify import compare
from lorekeeper.store import Journal
from lorekeeper.workspace import Workspace
from support import REPO, Tree, files

NOW = datetime(2026, 11, 1, 12, tzinfo=UTC)


def ago(days: float) -> str:
    return (NOW - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")


def plan(tree: Tree, **settings):
    config = CompactionConfig().with_overrides(**settings)
    store = tree.store()
    return plan_compaction(store, config, now=NOW), store


# Each pair: older text, newer text, what the verifier must say. From the report that found them merged
# or superseded wrongly, and the contradictions it found missed.
PAIRS = [
    ("Pin react to ^18.3.1", "Pin react to ~18.3.1", "conflict"),
    ("Use `??` instead of `||` for defaults", "Use `||` instead of `??` for defaults", "conflict"),
    ("Set `z-index: -1` on the backdrop", "Set `z-index: 1` on the backdrop", "conflict"),
    ("Server time zone is UTC+2", "Server time zone is UTC-2", "conflict"),
    ("The web service pool size is 10", "The worker service pool size is 10", "different"),
    ("The mobile app uses Expo Router", "The web app uses Expo Router", "different"),
    ("Sessions are cached in Postgres", "Sessions are cached in Redis", "different"),
    ("Max pool size is 20", "Min pool size is 20", "different"),
    ("Secrets go in `.env`", "Secrets go in `.env.local`", "different"),
    ("Run `pnpm lint` before pushing", "Run `pnpm typecheck` before pushing", "different"),
    ("The orders service publishes events that the inventory service consumes",
     "The inventory service publishes events that the orders service consumes", "different"),
    ("Request timeout is 10s", "Request timeout is 30s", "conflict"),
    ("Cache TTL is 300s", "Cache TTL is 60s", "conflict"),
    ("PRs need two approvals", "PRs need one approval", "conflict"),
    ("The beta flag is enabled in staging", "The beta flag is disabled in staging", "conflict"),
    # Not merged (the point); two task runners for the one first step disagree: for review.
    ("Run `make setup` first", "Run `just setup` first", "conflict"),
    ("Port 3000 must be free before running e2e", "Port 5432 must be free before running e2e", "different"),
    ("Free tier is limited to 100 requests/min", "Paid tier is limited to 1000 requests/min", "different"),
    ("Always run deploy-exports-v3 before the migration", "Always run deploy-imports-v3 before the migration",
     "different"),
    ("exports tests must not sleep", "imports tests must not sleep", "different"),
    ("The exports service listens on port 8081", "The imports service listens on port 8082", "different"),
    ("Python 3.11 is required", "Python 3.12 is required", "conflict"),
    ("Tests run with Jest", "Tests run with Vitest", "conflict"),
    ("Set DATABASE_URL for the API", "Set DB_URL for the API", "conflict"),
    ("The dev server runs on port 3000", "The dev server runs on port 3001", "conflict"),
    ("Manage dependencies with Poetry", "Manage dependencies with uv", "conflict"),
    ("Line length is 100.", "Line length is 120.", "conflict"),
    ("Always use pnpm.", "always use **pnpm**", "same"),
    ("Run the linter before committing any code.", "Before committing any code, run the linter!", "same"),
    ("Tests are running with vitest", "Tests run with Vitest.", "same"),
    ("Use pnpm", "Do not use pnpm", "conflict"),
    ("Step 3 runs migrations", "Step 4 runs migrations", "different"),
]


@pytest.mark.parametrize(("older", "newer", "verdict"), PAIRS)
def test_the_verifier_on_the_texts_that_were_merged_wrongly(older: str, newer: str, verdict: str) -> None:
    assert compare(older, newer).verdict == verdict
    assert compare(newer, older).verdict == verdict  # symmetric


@pytest.mark.parametrize(("older", "newer", "verdict"), PAIRS)
def test_no_pair_that_differs_is_merged_or_superseded(tree: Tree, older: str, newer: str, verdict: str) -> None:
    tree.entry("a.json", {"id": "a", "content": older, "created": ago(30), "tags": ["t"]})
    tree.entry("b.json", {"id": "b", "content": newer, "created": ago(1), "tags": ["t"]})
    p, _ = plan(tree, fuse=False)
    merged = [op for op in p.operations if op.op in ("dedup", "merge", "supersede")]
    assert bool(merged) == (verdict == "same")
    conflicts = [c["entries"] for c in p.conflicts if c["kind"] == "contradiction"]
    assert conflicts == ([["b", "a"]] if verdict == "conflict" else [])


def test_a_conflict_is_a_finding_and_keeping_the_newer_is_journaled(tree: Tree) -> None:
    tree.entry("a.json", {"id": "a", "content": "The dev server runs on port 3000", "created": ago(30)})
    tree.entry("b.json", {"id": "b", "content": "The dev server runs on port 3001", "created": ago(1)})
    store = tree.store()
    found = [f for f in memory_findings(store, CompactionConfig()) if f.kind == "contradiction"]
    assert {f.entry for f in found} == {"a", "b"}
    assert all(f.fix.model_dump() == {"action": "supersede", "entry": "a", "by": "b"} for f in found)
    from lorekeeper.analysis.compaction.actions import keep_one

    by_id = store.by_id()
    keep_one(store, by_id["b"], by_id["a"], tree.journal())
    assert json.loads((tree.root / ".lore/memory/entries/a.json").read_text())["superseded_by"] == "b"
    assert [f for f in memory_findings(tree.store(), CompactionConfig()) if f.kind == "contradiction"] == []


def test_review_offers_to_keep_the_newer(tree: Tree) -> None:
    tree.entry("a.json", {"id": "a", "content": "Tests run with Jest", "created": ago(30)})
    tree.entry("b.json", {"id": "b", "content": "Tests run with Vitest", "created": ago(1)})
    env = {**os.environ, "NO_COLOR": "1"}
    proc = subprocess.run([sys.executable, "-m", "lorekeeper.surfaces.cli", "review"], cwd=tree.root, input="n\n",
                          capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "conflict 1/1" in proc.stdout and "kept b" in proc.stdout
    assert json.loads((tree.root / ".lore/memory/entries/a.json").read_text())["superseded_by"] == "b"


def test_the_index_states_no_old_or_contested_value_as_current(tree: Tree) -> None:
    tree.write("CLAUDE.md", "- Always use pnpm.\n")
    tree.entry("pnpm.json", {"id": "pnpm", "content": "always use PNPM", "created": ago(100)})
    tree.entry("n18.json", {"id": "n18", "content": "Use Node 18 for the API.", "created": ago(200), "category": "decisions"})
    tree.entry("n20.json", {"id": "n20", "content": "Use Node 20 for the API.", "created": ago(20), "category": "decisions",
                            "supersedes": ["n18"]})
    tree.entry("j.json", {"id": "j", "content": "Tests run with Jest", "created": ago(90), "category": "conventions"})
    tree.entry("v.json", {"id": "v", "content": "Tests run with Vitest", "created": ago(10), "category": "conventions"})
    tree.entry("pin.json", {"id": "pin", "content": "NEVER run prisma migrate reset", "created": ago(300),
                            "category": "pitfalls", "pinned": True})
    tree.write(".lore/memory/mif/m.memory.md", "---\nid: m\ncreated: 2026-05-01T00:00:00Z\n---\n\n# Fastify over Express\n\n"
                                               "Chosen for schema validation.\n")
    p, _ = plan(tree)
    index = p.views[".lore/memory/index.md"]
    sections = [line for line in index.splitlines() if line.startswith("## ")]
    assert sections[0] == "## Pinned" and "NEVER run prisma migrate reset" in index.split("## Pinned")[1].split("##")[0]
    assert "Node 18" not in index and "Use Node 20 for the API." in index  # superseded: gone from the index
    # the newer of two that disagree is current, the older shown under it with the date it held until
    assert f"- Tests run with Vitest\n  - was, until {ago(10)[:10]}: with Jest\n" in index
    assert "## Not settled" not in index and index.count("Tests run with Vitest") == index.count("with Jest") == 1
    assert "**Fastify over Express** — Chosen for schema validation." in index  # MIF title as a title
    assert "pnpm" not in index.lower()  # CLAUDE.md says it; the agent loads CLAUDE.md anyway
    assert all(index.split(s, 1)[1].lstrip("\n").startswith("- ") or index.split(s, 1)[1].lstrip("\n").startswith("These")
               for s in sections)  # no empty section


def test_compacted_lists_every_live_fact_once_and_compressed_ones_as_summary_and_path(tree: Tree) -> None:
    long_text = "# Runbook\n" + "\n".join(f"Step {i}: restart worker {i} and check its queue." for i in range(150))
    tree.entry("long.json", {"id": "long", "content": long_text, "created": ago(45), "category": "ops"})
    tree.entry("short.json", {"id": "short", "content": "Queues drain in under a minute.", "created": ago(2),
                              "category": "ops"})
    p, store = plan(tree)
    compacted = p.views[".lore/memory/compacted/ops.md"]
    assert "(full text: `.lore/memory/entries/long.json`)" in compacted
    assert "Step 149" not in compacted and compacted.count("Queues drain in under a minute.") == 1
    assert p.tokens["compacted"][1] < 600


def test_consolidation_lists_every_fact_newest_first_and_leaves_conflicts_out(tree: Tree) -> None:
    texts = [("Deploys freeze on Fridays.", 400), ("Deploy previews expire after 7 days.", 300),
             ("Deploy previews expire after 14 days.", 200), ("Rollbacks use the previous image.", 250)]
    for i, (text, days) in enumerate(texts):
        tree.entry(f"d{i}.json", {"id": f"d{i}", "content": text, "tags": ["deploy"], "category": "patterns",
                                  "created": ago(days), "access_count": 0})
    p, _ = plan(tree, consolidate=True, fuse=False)
    [op] = [o for o in p.operations if o.op == "consolidate"]
    assert sorted(op.sources) == ["d0", "d3"]  # d1 / d2 disagree: not folded into a learning
    body = op.result["content"].splitlines()[1:]
    assert body == ["- Rollbacks use the previous image.", "- Deploys freeze on Fridays."]  # newest first, all of them
    assert "more" not in op.result["content"]


def test_a_second_run_plans_nothing_and_dry_run_ids_are_the_ids_applied(tree: Tree) -> None:
    for i, text in enumerate(["Handlers return JSON.", "Validate bodies with zod.", "Errors use problem details.",
                              "handlers return json"]):
        tree.entry(f"f{i}.json", {"id": f"f{i}", "content": text, "tags": ["api"], "created": ago(10 - i)})
    tree.entry("c.json", {"id": "c", "content": "A consolidated learning.", "tags": ["api"], "source": "compaction",
                          "created": ago(5)})
    # (consolidation makes a new entry: fusing these would cost more tokens than the entries, so it is not made)
    settings = {"consolidate": True, "consolidate_age_days": 1, "consolidate_unread": True}
    dry, store = plan(tree, **settings)
    planned_ids = [op.result["id"] for op in dry.operations if op.new_entry]
    apply_plan(dry, store, tree.journal())
    written = {json.loads(p.read_text())["id"] for p in (tree.root / ".lore/memory/entries").glob("*.json")}
    assert planned_ids and set(planned_ids) <= written
    again, _ = plan(tree, **settings)
    assert again.operations == [] and again.conflicts == []
    assert all((tree.root / path).read_text() == text for path, text in again.views.items())
    assert json.loads((tree.root / ".lore/memory/entries/c.json").read_text()).get("merged_into") is None


def test_an_instruction_survivor_that_changes_revives_what_was_merged_into_it(tree: Tree) -> None:
    claude = tree.write("CLAUDE.md", "# Rules\n\n- Money is integer cents.\n")
    tree.entry("m.json", {"id": "m", "content": "money is INTEGER cents", "created": ago(1)})
    p, store = plan(tree)
    apply_plan(p, store, tree.journal())
    assert json.loads((tree.root / ".lore/memory/entries/m.json").read_text())["merged_into"] == "CLAUDE.md:3"
    claude.write_text("# Rules\n\n- Keep PRs small.\n\n- Money is integer cents.\n")  # the bullet moved
    assert not [f for f in tree.store().findings if f.kind == "orphaned-merge"]
    claude.write_text("# Rules\n\n- Money is a decimal string.\n")  # the bullet changed
    store = tree.store()
    [finding] = [f for f in store.findings if f.kind == "orphaned-merge"]
    assert finding.entry == "m" and "m" in {e.id for e in store.live()}


def test_a_link_to_a_missing_entry_is_an_error_and_the_entry_stays_visible(tree: Tree) -> None:
    tree.entry("a.json", {"id": "a", "content": "Use pnpm.", "merged_into": "ghost"})
    store = tree.store()
    [finding] = [f for f in store.findings if f.kind == "dangling-link"]
    assert finding.severity.value == "error" and [e.id for e in store.live()] == ["a"]


def test_undo_reads_the_journal_once_and_reverses_the_command_as_one(tree: Tree) -> None:
    for i in range(30):
        tree.entry(f"e{i}.json", {"id": f"e{i}", "content": f"Fact {i} about the cache", "created": ago(i + 1)})
        tree.entry(f"d{i}.json", {"id": f"d{i}", "content": f"fact {i} about the CACHE!", "created": ago(i + 40)})
    snapshot = files(tree.root)
    p, store = plan(tree, fuse=False)
    records = apply_plan(p, store, tree.journal("compact"))
    assert len(records) == 31  # 30 dedups and the views
    journal = Journal(Workspace(tree.root))
    undo = journal.undo_last()
    assert journal.reads == len(records)  # each record file read once, whatever the number of operations
    assert undo is not None and sorted(undo.undone) == sorted(r.id for r in records)
    assert files(tree.root, journal=False) == snapshot
    assert Journal(Workspace(tree.root)).undo_last() is None  # undone already: nothing left


# -- property: over random stores, nothing is lost and nothing old is stated as current ----------------

_SUBJECTS = ["the API", "the worker", "the billing job", "the search index", "the web app"]
_VALUES = ["10s", "30s", "3000", "3001", "Jest", "Vitest", "Postgres", "Redis"]


@st.composite
def stores(draw):
    entries = []
    n = draw(st.integers(min_value=2, max_value=14))
    for i in range(n):
        subject = draw(st.sampled_from(_SUBJECTS))
        value = draw(st.sampled_from(_VALUES))
        style = draw(st.sampled_from(["plain", "upper", "punct"]))
        text = f"{subject} uses {value}"
        text = text.upper() if style == "upper" else text + "!" if style == "punct" else text
        entry = {"id": f"e{i}", "content": text, "created": ago(100 - i), "tags": [draw(st.sampled_from(["a", "b"]))],
                 "category": draw(st.sampled_from(["conventions", "decisions"]))}
        if i and draw(st.booleans()) and draw(st.booleans()):
            entry["supersedes"] = [f"e{draw(st.integers(min_value=0, max_value=i - 1))}"]
        entries.append(entry)
    return entries


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(entries=stores())
def test_every_live_fact_survives_and_no_superseded_value_is_in_the_index(tmp_path_factory, entries) -> None:
    from lorekeeper.analysis.context.timeline import replaced_part
    from lorekeeper.facts.verify import fact_key

    root = tmp_path_factory.mktemp("store")
    tree = Tree(root)
    for entry in entries:
        tree.entry(f"{entry['id']}.json", entry)
    p, store = plan(tree, consolidate=True, consolidate_unread=True, consolidate_age_days=1, budget=4000)
    apply_plan(p, store, tree.journal())
    compacted = "".join((root / ".lore/memory/compacted").glob("*.md").__next__().parent.joinpath(f).read_text()
                        for f in os.listdir(root / ".lore/memory/compacted"))
    index = (root / ".lore/memory/index.md").read_text()
    superseded = {t for e in entries for t in e.get("supersedes", [])}
    by_id = {e["id"]: e for e in entries}
    for entry in entries:
        if entry["id"] in superseded:
            continue
        # The fact is in compacted/: as written, or as the text of an entry that states the same fact, or
        # (an older value) as the words its replacement took the place of, dated, under it.
        key = fact_key(entry["content"])

        def shown(text: str) -> bool:
            return text in compacted or any(
                (part := replaced_part(text, newer["content"])) is not None and f": {part}\n" in compacted
                and newer["content"] in compacted for newer in entries)

        assert any(fact_key(other["content"]) == key and shown(other["content"]) for other in entries), entry
    for old in superseded:
        text = by_id[old]["content"]
        if not any(fact_key(e["content"]) == fact_key(text) for e in entries if e["id"] not in superseded):
            assert text not in index


# -- realistic stores (tests/data/compaction/stores, written the way agents write) ------------------

_STORES = sorted(p for p in (REPO / "tests/data/compaction/stores").glob("*.json") if not p.name.endswith(".truth.json"))


@pytest.mark.parametrize("path", _STORES, ids=lambda p: p.stem)
def test_a_realistic_store_keeps_every_current_fact_and_flags_only_updates(tmp_path, path: Path) -> None:
    entries = json.loads(path.read_text(encoding="utf-8"))
    truth = json.loads(path.with_name(path.stem + ".truth.json").read_text(encoding="utf-8"))
    tree = Tree(tmp_path)
    for entry in entries:
        tree.entry(f"{entry['id']}.json", entry)
    p, store = plan(tree)
    apply_plan(p, store, tree.journal())
    memory = tmp_path / ".lore/memory"
    compacted = " ".join("".join(f.read_text() for f in sorted((memory / "compacted").glob("*.md"))).split())
    index = (memory / "index.md").read_text()
    by_id = {e["id"]: e for e in entries}

    def shown(entry_id: str) -> str:  # the text as the views quote it (`cmd/<svc>` reads `cmd/&lt;svc>`)
        return " ".join(" ".join(fence.lines(by_id[entry_id]["content"])).split())

    for fact in truth["facts"]:
        if fact.get("current", True):
            assert any(shown(i) in compacted for i in fact["entries"]), fact["text"]
    updates = {frozenset((u["old"], u["new"])) for u in truth["superseded"]}
    chained = {i for u in truth["superseded"] for i in (u["old"], u["new"])}
    for conflict in (c for c in p.conflicts if c["kind"] == "contradiction"):
        assert frozenset(conflict["entries"]) in updates or set(conflict["entries"]) <= chained, conflict["message"]
    flat_index = " ".join(index.split())
    for update in truth["superseded"]:
        if update["linked"]:  # an explicit supersedes: the old text is nowhere in the index
            assert shown(update["old"]) not in flat_index


# -- the defects measured on the labelled data, with their texts ---------------------------------------

@pytest.mark.parametrize(("older", "newer", "verdict"), [
    # a word written as code is matched as written, never stemmed
    ("Sentry environment for staging is `stage`", "Sentry environment for staging is `staging`", "conflict"),
    # backticks or none around a word or a path, a comma or none: the same fact
    ("Dependencies are managed with `poetry`, not pip.", "Dependencies are managed with poetry, not pip.", "same"),
    ("Shared UI components live in `packages/ui`.", "shared ui components live in packages/ui", "same"),
    ("Before releasing, bump the version in `Cargo.toml`.", "Before releasing bump the version in `Cargo.toml`", "same"),
    # units in capitals, on/off, operators and signs inside code
    ("Celery workers are capped at 512MB RSS each.", "Celery workers are capped at 1GB RSS each.", "conflict"),
    ("`FEATURE_BULK_EXPORT` is on in production.", "`FEATURE_BULK_EXPORT` is off in production.", "conflict"),
    ("Declare `@acme/ui` as `^2.4.0` in every app.", "Declare `@acme/ui` as `~2.4.0` in every app.", "conflict"),
    ("Default ordering is `ordering = [\"created_at\"]`.", "Default ordering is `ordering = [\"-created_at\"]`.",
     "conflict"),
    # a synonym is not a value; a voice change with "from" or "over" is not a reversal
    ("The staging database is wiped every Sunday at 03:00 UTC.",
     "The staging database is erased every Sunday at 03:00 UTC.", "different"),
    ("`scripts/bootstrap.sh` creates the local `.env` from `.env.example`.",
     "The local `.env` is created from `.env.example` by `scripts/bootstrap.sh`.", "different"),
    ("The `billing` service calls `accounts` over gRPC.", "The `accounts` service calls `billing` over gRPC.",
     "different"),
    # a phrase moved whole across a comma, or two items of a list swapped across "and": the same fact;
    # never a phrase moved across a word that orders, nor the things on each side of a verb
    ("In staging, seed the database with `make seed`.", "Seed the database with `make seed` in staging.", "same"),
    ("Releases need a signed tag and an approved changelog.", "Releases need an approved changelog and a signed tag.",
     "same"),
    ("The worker reads from `jobs` and writes to `results`.", "The worker writes to `results` and reads from `jobs`.",
     "same"),
    ("Run the linter and then the tests.", "Run the tests and then the linter.", "different"),
    ("Seed the database before starting the API.", "Start the API before seeding the database.", "different"),
    ("Requests flow `gateway` -> `api` -> `db`.", "Requests flow `db` -> `api` -> `gateway`.", "different"),
    ("The mobile app syncs drafts to the server.", "The server syncs drafts to the mobile app.", "different"),
    # a number that names one of several things
    ("Node 3 in the Elasticsearch cluster has a smaller disk.", "Node 5 in the Elasticsearch cluster has a smaller disk.",
     "different"),
    ("Read timeout for the payments client is 5s.", "Write timeout for the payments client is 5s.", "different"),
    ("Script created and pushed tag `2.14.22`.", "Script created and pushed tag `2.14.23`.", "different"),
    ("Config for the api lives in `src/api/config.ts`.", "Config for the api lives in `src/web/config.ts`.",
     "different"),
])
def test_the_verifier_on_the_labelled_defects(older: str, newer: str, verdict: str) -> None:
    assert compare(older, newer).verdict == verdict
    assert compare(newer, older).verdict == verdict


@pytest.mark.parametrize(("older", "newer", "why"), [
    ("Manage dependencies with Poetry", "We migrated from Poetry to uv; use `uv sync`", "Poetry → uv"),
    ("Log verbosity is controlled by `LOG_LEVEL`.", "`LOG_LEVEL` was renamed to `APP_LOG_LEVEL`.", "LOG_LEVEL"),
    ("Run `make lint` to run all linters.", "`make lint` was removed; run `pre-commit run --all-files` instead.",
     "make lint"),
    ("Use `moment` for date formatting in the dashboard.", "Do not use `moment` in the dashboard any more.", "moment"),
    ("Package metadata for the SDK lives in `setup.py`.", "The SDK declares its metadata in `pyproject.toml`; "
                                                          "there is no `setup.py`.", "setup.py"),
    ("Format Python with black.", "`ruff format` is the only Python formatter here.", "black / ruff"),
    ("Use Node 18 for the API", "The API now requires Node 20", "18 / 20"),
    ("API rejects uploads over 10 MB (`MAX_UPLOAD_MB=10`).", "Upload limit raised to 25 MB (`MAX_UPLOAD_MB=25`).",
     "max_upload_mb"),
    ("Web-app sessions expire after 30 minutes of inactivity.",
     "Idle users are now logged out of the web app after 2 hours.", "30min / 2h"),
])
def test_an_update_in_other_words_is_a_conflict(older: str, newer: str, why: str) -> None:
    found = compare(older, newer)
    assert found.verdict == "conflict" and why in found.reason, found


@pytest.mark.parametrize(("older", "newer"), [
    ("CI uses Node 20 for the frontend build.", "CI uses Node 18 for the legacy Lambda functions."),
    ("The Django backend runs on Python 3.12.", "The Airflow DAGs run on Python 3.10."),
    ("FastCDC maximum chunk size is 8 MiB.", "Raised the FastCDC average chunk size to 2 MiB."),
    ("Storefront (apps/web) dev server: port 3000.", "Moved the API dev server to port 4000."),
    ("Guest checkout stays ON in staging (`FEATURE_GUEST_CHECKOUT=true`).",
     "Turned guest checkout OFF in production (`FEATURE_GUEST_CHECKOUT=false`)."),
    ("Unit tests run with Vitest.", "E2E tests now run with Playwright."),
    ("Don't use Jest snapshots.", "We migrated from Jest to Vitest."),
    ("Services serve gRPC on :8081.", "Raised the default gRPC deadline to 5s; billing calls took 2-3s."),
    ("Temporary note 17: the mobile api times out after 3 seconds. (this sprint only)",
     "Temporary note 13: the webhook relay times out after 9 seconds. (this sprint only)"),
])
def test_what_looks_like_an_update_but_is_about_another_thing_is_not_a_conflict(older: str, newer: str) -> None:
    assert compare(older, newer).verdict == "different"


def test_both_are_true_silences_a_conflict_for_good(tree: Tree) -> None:
    tree.entry("a.json", {"id": "a", "content": "Tests run with Jest", "created": ago(30)})
    tree.entry("b.json", {"id": "b", "content": "Tests run with Vitest", "created": ago(1)})
    store = tree.store()
    assert [c["entries"] for c in plan(tree)[0].conflicts] == [["b", "a"]]
    from lorekeeper.analysis.compaction.actions import keep_both

    by_id = store.by_id()
    record = keep_both(store, by_id["b"], by_id["a"], tree.journal())
    assert json.loads((tree.root / ".lore/memory/entries/b.json").read_text())["coexists_with"] == ["a"]
    p, store = plan(tree)
    assert p.conflicts == [] and {e.id for e in store.live()} == {"a", "b"}
    assert "Tests run with Jest" in p.views[".lore/memory/index.md"].split("## Not settled")[0]
    Journal(Workspace(tree.root)).undo(record.id)
    assert [c["entries"] for c in plan(tree)[0].conflicts] == [["b", "a"]]


def test_review_says_both_are_true(tree: Tree) -> None:
    tree.entry("a.json", {"id": "a", "content": "Lint with ESLint", "created": ago(30)})
    tree.entry("b.json", {"id": "b", "content": "Lint with Biome", "created": ago(1)})
    env = {**os.environ, "NO_COLOR": "1"}
    proc = subprocess.run([sys.executable, "-m", "lorekeeper.surfaces.cli", "review"], cwd=tree.root, input="b\n",
                          capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "not reported again" in proc.stdout
    assert json.loads((tree.root / ".lore/memory/entries/b.json").read_text())["coexists_with"] == ["a"]


def test_add_never_takes_a_changed_literal_for_a_copy(tree: Tree) -> None:
    from support import lore

    assert lore("add", "Pin react to ^18.3.1", cwd=tree.root).returncode == 0
    second = lore("add", "Pin react to ~18.3.1", "--json", cwd=tree.root)
    assert json.loads(second.stdout)["status"] != "skipped"
    third = lore("add", "pin react to ^18.3.1.", "--json", cwd=tree.root)
    assert json.loads(third.stdout)["status"] == "skipped"
    assert len(list((tree.root / ".lore/memory/entries").glob("*.json"))) == 2


def test_words_written_as_a_command_match_the_plain_words_but_commands_stay_apart() -> None:
    assert compare("Review changes with `cargo insta review`.", "review changes with cargo insta review").verdict == "same"
    assert compare("After pulling, run `bundle install`.", "After pulling, run `yarn install`.").verdict == "different"
    assert compare("Run `make setup` first", "Run `just setup` first").verdict == "conflict"
