"""Stage 1 compaction: each operation, the views, undo, no-loss, and the refusal on concurrent change."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta

import pytest

from lorekeeper.analysis.compaction import CompactionConfig, apply_plan, enabled, parse_duration, plan_compaction, render_diff
from lorekeeper.store import Refused
from lorekeeper.workspace import Workspace
from support import Tree, files

NOW = datetime(2026, 11, 1, 12, tzinfo=UTC)


def ago(days: float) -> str:
    return (NOW - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")


def plan(tree: Tree, only=None, **settings):
    config = CompactionConfig().with_overrides(**settings)
    store = tree.store()
    return plan_compaction(store, config, only=only, now=NOW), store


def entry_file(tree: Tree, name: str) -> dict:
    return json.loads((tree.root / ".lore/memory/entries" / name).read_text())


def ops(p) -> list[tuple[str, list[str]]]:
    return [(op.op, op.sources) for op in p.operations]


def test_dedup_keeps_the_newest(tree: Tree) -> None:
    tree.entry("a.json", {"id": "a", "content": "Always use **pnpm**.", "created": ago(30)})
    tree.entry("b.json", {"id": "b", "content": "always use pnpm", "created": ago(5)})
    tree.entry("c.json", {"id": "c", "content": "Always   use `pnpm`!", "created": ago(10)})
    tree.entry("d.json", {"id": "d", "content": "Use yarn", "created": ago(10)})
    p, store = plan(tree, only=["dedup"])
    assert ops(p) == [("dedup", ["a", "c"])]
    assert p.operations[0].result["id"] == "b"
    apply_plan(p, store, tree.journal())
    assert entry_file(tree, "a.json")["merged_into"] == "b" and entry_file(tree, "c.json")["merged_into"] == "b"
    assert "merged_into" not in entry_file(tree, "b.json")


def test_dedup_against_an_instruction_file_never_edits_it(tree: Tree) -> None:
    claude = tree.write("CLAUDE.md", "- Money is integer cents.\n")
    tree.entry("m.json", {"id": "m", "content": "money is INTEGER cents", "created": ago(1)})
    before = claude.read_bytes()
    p, store = plan(tree, only=["dedup"])
    assert ops(p) == [("dedup", ["m"])] and p.operations[0].result["id"] == "CLAUDE.md:1"
    apply_plan(p, store, tree.journal())
    assert entry_file(tree, "m.json")["merged_into"] == "CLAUDE.md:1"
    assert claude.read_bytes() == before


def test_merge_same_facts_and_report_conflicts_without_acting_on_them(tree: Tree) -> None:
    facts = {
        "p1": ("Run the linter before committing any code.", 20),
        "p2": ("Before committing any code, run the linter!", 3),
        "n1": ("The ruff line length is 100 characters.", 30),
        "n2": ("The ruff line length is 120 characters.", 2),
        "x1": ("Config for the api lives in `src/api/config.ts`.", 9),
        "x2": ("Config for the api lives in `src/web/config.ts`.", 8),
        "g1": ("Use the staging database for integration tests.", 7),
        "g2": ("Don't use the staging database for integration tests.", 6),
    }
    for key, (text, days) in facts.items():
        tree.entry(f"{key}.json", {"id": key, "content": text, "created": ago(days)})
    p, store = plan(tree, only=["merge"])
    assert ops(p) == [("merge", ["p1"])]  # only the same fact in other words becomes one
    kinds = {tuple(c["entries"]): c["kind"] for c in p.conflicts}
    assert kinds == {("n2", "n1"): "contradiction", ("g2", "g1"): "contradiction"}
    lengths = next(c for c in p.conflicts if c["entries"] == ["n2", "n1"])
    assert (lengths["old"], lengths["new"]) == ("100", "120")
    apply_plan(p, store, tree.journal())
    assert entry_file(tree, "p1.json")["merged_into"] == "p2"
    # Both sides of a conflict stay live and unchanged until someone decides.
    assert {"n1", "n2", "g1", "g2", "x1", "x2"} <= {e.id for e in tree.store().live()}
    assert "superseded_by" not in entry_file(tree, "n1.json")


def test_supersede_follows_chains_ignores_dangling_and_reports_cycles(tree: Tree) -> None:
    tree.entry("a.json", {"id": "A", "content": "Deploy with Argo.", "supersedes": ["B", "ghost"], "created": ago(1)})
    tree.entry("b.json", {"id": "B", "content": "Deploy with Flux.", "supersedes": "C", "created": ago(50)})
    tree.entry("c.json", {"id": "C", "content": "Deploy with kubectl.", "created": ago(100)})
    tree.entry("d.json", {"id": "D", "content": "Cache in redis.", "supersedes": ["E"], "created": ago(3)})
    tree.entry("e.json", {"id": "E", "content": "Cache in memcached.", "supersedes": ["D"], "created": ago(4)})
    p, store = plan(tree, only=["supersede"])
    assert sorted(ops(p)) == [("supersede", ["B"]), ("supersede", ["C"])]
    [cycle] = [c for c in p.conflicts if c["kind"] == "supersession-cycle"]
    assert cycle["kind"] == "supersession-cycle" and set(cycle["entries"]) == {"D", "E"}
    apply_plan(p, store, tree.journal())
    assert entry_file(tree, "b.json")["superseded_by"] == "A" and entry_file(tree, "c.json")["superseded_by"] == "B"
    live = {e.id for e in tree.store().live()}
    assert live == {"A", "D", "E"}


REPEATED = "Handlers return JSON with an RFC 7807 problem-details body on every error path, never HTML."


def test_fuse_lists_every_source_fact_once(tree: Tree) -> None:
    for i, text in enumerate([REPEATED, "Validate bodies with zod.", REPEATED, "Log request ids."]):
        tree.entry(f"f{i}.json", {"id": f"f{i}", "content": text, "tags": ["api"], "created": ago(10 - i),
                                  "category": "conventions"})
    tree.entry("other.json", {"id": "o", "content": "Unrelated.", "tags": ["ci"], "created": ago(1)})
    p, store = plan(tree, only=["fuse"])
    [op] = p.operations
    assert op.op == "fuse" and op.sources == ["f0", "f1", "f2", "f3"]
    assert op.result["content"] == (f"api (conventions):\n- {REPEATED}\n- Validate bodies with zod.\n"
                                    "- Log request ids.")
    assert op.result["source"] == "compaction" and op.result["source_entries"] == ["f0", "f1", "f2", "f3"]
    apply_plan(p, store, tree.journal())
    fused = [e for e in tree.store().live() if e.source == "compaction"]
    assert len(fused) == 1 and fused[0].tags == ["api"]
    assert entry_file(tree, "f1.json")["merged_into"] == fused[0].id


def test_a_fusion_that_would_grow_memory_is_not_made(tree: Tree) -> None:
    """A list of the facts costs more than the facts: fusion is made only where it is shorter."""
    for i, text in enumerate(["Handlers return JSON.", "Validate bodies with zod.", "Errors use RFC 7807 problem details.",
                              "Write for Python 3.11-3.13", "Target Python 3.12-3.13"]):
        tree.entry(f"f{i}.json", {"id": f"f{i}", "content": text, "tags": ["api"], "created": ago(10 - i),
                                  "category": "conventions"})
    p, _ = plan(tree, only=["fuse"])
    assert p.operations == [] and p.tokens_after <= p.tokens_before


def test_compress_summarises_long_old_entries_and_keeps_the_text(tree: Tree) -> None:
    long_text = "# Runbook\n" + "\n".join(f"Step {i}: do the thing number {i}." for i in range(150))
    tree.entry("long.json", {"id": "long", "content": long_text, "created": ago(45)})
    tree.entry("young.json", {"id": "young", "content": long_text + "\nyoung", "created": ago(2)})
    tree.entry("weak.json", {"id": "weak", "content": long_text + "\nweak", "created": ago(2), "strength": 0.2,
                             "last_accessed": ago(1)})
    p, store = plan(tree, only=["compress"])
    assert sorted(s for _, (s,) in ops(p)) == ["long", "weak"]
    apply_plan(p, store, tree.journal())
    data = entry_file(tree, "long.json")
    assert data["content"] == long_text
    assert len(data["summary"]) <= 500 and data["summary"].startswith("Runbook Step 0: do the thing number 0.")
    assert data["compressed_at"].endswith("Z")


def test_archive_expired_decayed_and_old_but_never_pinned_or_protected(tree: Tree) -> None:
    tree.entry("ttl.json", {"id": "ttl", "content": "Sprint 12 freeze.", "ttl": "P14D", "created": ago(20)})
    tree.entry("fresh.json", {"id": "fresh", "content": "Sprint 13 freeze.", "ttl": "P14D", "created": ago(3)})
    tree.entry("weak.json", {"id": "weak", "content": "Flaky test in cart.", "strength": 0.8, "last_accessed": ago(120),
                             "category": "notes"})
    tree.entry("old.json", {"id": "old", "content": "Old note.", "created": ago(400), "category": "notes"})
    # A convention stays true however old: age and decay never archive it (an expired TTL would).
    tree.entry("rule.json", {"id": "rule", "content": "Always use pnpm.", "created": ago(400), "strength": 0.5})
    tree.entry("pinned.json", {"id": "pinned", "content": "Pinned note.", "created": ago(400), "pinned": True})
    tree.entry("dec.json", {"id": "dec", "content": "We chose Postgres.", "category": "decisions", "ttl": 1,
                            "created": ago(400)})
    p, store = plan(tree, only=["archive"], max_age_days=365)
    reasons = {op.sources[0]: op.reason for op in p.operations}
    assert set(reasons) == {"ttl", "weak", "old"}
    assert reasons["ttl"].startswith("TTL P14D expired on ")
    assert reasons["weak"] == "strength decayed to 0.05 (below 0.1)"
    assert reasons["old"] == "400 days old (over 365)"
    apply_plan(p, store, tree.journal())
    assert entry_file(tree, "ttl.json")["archived"] is True


def test_consolidate_cold_clusters_into_a_protected_learning(tree: Tree) -> None:
    texts = ["Deploys freeze on Fridays.", "Deploy previews expire after 7 days.", "Rollbacks use the previous image.",
             "Deploy logs are kept for 30 days."]
    for i, text in enumerate(texts):
        tree.entry(f"d{i}.json", {"id": f"d{i}", "content": text, "tags": ["deploy"], "category": "patterns",
                                  "created": ago(200 + i), "access_count": i % 2})
    tree.entry("warm.json", {"id": "warm", "content": "Deploy tags are semver.", "tags": ["deploy"],
                             "category": "patterns", "created": ago(200), "access_count": 9})
    p, store = plan(tree, only=["consolidate"])
    [op] = p.operations
    assert op.op == "consolidate" and sorted(op.sources) == ["d0", "d1", "d2", "d3"]
    result = op.result
    assert result["protected"] is True and result["consolidated"]["count"] == 4
    assert result["content"].startswith("Learned from 4 deploy memories (")
    apply_plan(p, store, tree.journal())
    compacted = (tree.root / ".lore/memory/compacted/patterns.md").read_text()
    for text in texts + ["Deploy tags are semver."]:
        assert text in compacted  # every fact stays in the full view
    second, _ = plan(tree, only=["consolidate", "archive"], max_age_days=30)
    assert result["id"] not in [s for _, sources in ops(second) for s in sources]  # protected


def test_views_index_budget_and_pinned(tree: Tree) -> None:
    for i in range(60):
        tree.entry(f"v{i}.json", {"id": f"v{i:02d}", "content": f"Fact number {i} about subsystem {i} and its quirks.",
                                  "category": "patterns" if i % 3 else "pitfalls", "created": ago(i)})
    tree.entry("pin.json", {"id": "pin", "content": "Never force-push main.", "pinned": True, "created": ago(999)})
    p, _ = plan(tree, only=[], budget=300)
    index = p.views[".lore/memory/index.md"]
    from lorekeeper.infra.tokens import count_tokens

    assert count_tokens(index) <= 300 + 40  # pinned entries are always in, even over budget
    assert "Never force-push main." in index and "Fact number 0 about" in index  # newest first
    assert "more in compacted/patterns.md" in index
    assert index.startswith("<!-- Generated by Lorekeeper")
    (tree.root / ".lore/memory/entries/pin.json").unlink()
    for budget in (120, 300, 800):
        index = plan(tree, only=[], budget=budget)[0].views[".lore/memory/index.md"]
        assert count_tokens(index) <= budget
    compacted = p.views[".lore/memory/compacted/patterns.md"]
    assert all(f"Fact number {i} about" in compacted for i in range(60) if i % 3)


def test_undo_restores_byte_identical_files(tree: Tree) -> None:
    tree.entry("a.json", '{"id": "a",  "content": "Same text", "created": "2026-01-01T00:00:00Z", "x": [1]}')
    tree.entry("b.json", {"id": "b", "content": "same text.", "created": ago(2)})
    tree.write("notes/n.memory.md", "---\nid: n\ntags: [x]  # keep\nsupersedes: [b2]\n---\nNew way.\n")
    tree.entry("b2.json", {"id": "b2", "content": "Old way.", "created": ago(40)})
    snapshot = files(tree.root)
    p, store = plan(tree)
    records = apply_plan(p, store, tree.journal("compact"))
    assert len(records) >= 3
    for record in tree.journal().last_command():
        tree.journal().undo(record.id)
    after = files(tree.root, journal=False)
    assert after == snapshot


def test_no_fact_is_lost_by_any_plan(tree: Tree) -> None:
    facts = ["Use pnpm.", "use PNPM", "Run lint before commit.", "Before commit, run lint!", "Line length is 100.",
             "Line length is 120.", "Deploy on Fridays never.", "Old TTL note.", "Decayed note."]
    for i, text in enumerate(facts):
        data = {"id": f"e{i}", "content": text, "tags": ["misc"], "created": ago(300 - i)}
        if text == "Old TTL note.":
            data["ttl"] = "P1D"
        if text == "Decayed note.":
            data["strength"] = 0.5
        tree.entry(f"e{i}.json", data)
    p, store = plan(tree)
    assert {op.op for op in p.operations} >= {"dedup", "merge", "archive"}
    assert [c["kind"] for c in p.conflicts] == ["contradiction"]  # 100 / 120: reported, both kept
    apply_plan(p, store, tree.journal())
    on_disk = "".join(path.read_text() for path in (tree.root / ".lore/memory/entries").glob("*.json"))
    for text in facts:
        assert json.dumps(text)[1:-1] in on_disk
    live = " ".join(e.content for e in tree.store().live())
    assert "Line length is 100." in live and "Line length is 120." in live


def test_a_store_changed_between_plan_and_apply_is_refused(tree: Tree) -> None:
    tree.entry("a.json", {"id": "a", "content": "Same", "created": ago(3)})
    tree.entry("b.json", {"id": "b", "content": "same", "created": ago(1)})
    p, store = plan(tree, only=["dedup"])
    path = tree.root / ".lore/memory/entries/a.json"
    path.write_text('{"id": "a", "content": "Edited meanwhile"}')
    with pytest.raises(Refused, match="changed on disk since the plan"):
        apply_plan(p, store, tree.journal())
    assert path.read_text() == '{"id": "a", "content": "Edited meanwhile"}'
    assert not (tree.root / ".lore/memory/index.md").exists()


def test_a_file_changed_between_loading_and_planning_is_refused(tree: Tree) -> None:
    """The plan is made from the entries as the store read them: a file edited after loading, before the
    plan was made, is a file the plan never saw, and applying it is refused."""
    tree.entry("a.json", {"id": "a", "content": "Same", "created": ago(3)})
    tree.entry("b.json", {"id": "b", "content": "same", "created": ago(1)})
    store = tree.store()
    path = tree.root / ".lore/memory/entries/a.json"
    assert store.digests[".lore/memory/entries/a.json"] == hashlib.sha256(path.read_bytes()).digest()
    path.write_text('{"id": "a", "content": "Same", "tags": ["edited meanwhile"]}')
    p = plan_compaction(store, CompactionConfig(), only=["dedup"], now=NOW)
    assert [op.op for op in p.operations] == ["dedup"]
    with pytest.raises(Refused, match="changed on disk since the plan"):
        apply_plan(p, store, tree.journal())
    assert "edited meanwhile" in path.read_text()
    fresh = tree.store()  # planned again from the file as it is now: applied
    apply_plan(plan_compaction(fresh, CompactionConfig(), only=["dedup"], now=NOW), fresh, tree.journal())
    assert "merged_into" in path.read_text() or "merged_into" in (path.parent / "b.json").read_text()


def test_dry_run_diff_writes_nothing(tree: Tree) -> None:
    tree.entry("a.json", {"id": "a", "content": "Same", "created": ago(3)})
    tree.entry("b.json", {"id": "b", "content": "same", "created": ago(1)})
    before = files(tree.root)
    p, store = plan(tree)
    diff = render_diff(p, store)
    assert files(tree.root) == before
    assert "# dedup: same text as b" in diff and '+  "merged_into": "b"' in diff
    assert "+++ b/.lore/memory/index.md" in diff


def test_mif_sources_are_marked_in_their_front_matter(tree: Tree) -> None:
    tree.write("mem/a.memory.md", "---\nid: ma\ncreated: 2026-01-01T00:00:00Z\n---\nPrefer zod schemas.\n")
    tree.entry("b.json", {"id": "b", "content": "Prefer zod schemas", "created": ago(1)})
    p, store = plan(tree, only=["dedup"])
    apply_plan(p, store, tree.journal())
    assert (tree.root / "mem/a.memory.md").read_text() == (
        "---\nid: ma\ncreated: 2026-01-01T00:00:00Z\nmerged_into: b\n---\nPrefer zod schemas.\n")


def test_config_toggles_from_lore_and_lean_spec(tree: Tree) -> None:
    tree.write(".lore/config.toml", "[compaction]\ndedup = false\nbudget = 500\nmerge_threshold = 'high'\n")
    tree.write(".lean-spec/config.json", json.dumps({"memory": {"fuseMinEntries": 5, "other": 1}}))
    config = Workspace(tree.root).compaction
    assert config.dedup is False and config.budget == 500 and config.fuse_min_entries == 5
    assert config.merge_threshold == 50 and "merge_threshold should be int" in config.problems[0]
    assert "dedup" not in enabled(config)


def test_parse_duration() -> None:
    assert parse_duration("P90D") == timedelta(days=90)
    assert parse_duration("P2W") == timedelta(days=14)
    assert parse_duration("PT12H") == timedelta(hours=12)
    assert parse_duration("30d") == timedelta(days=30)
    assert parse_duration(7) == timedelta(days=7)
    assert parse_duration("soon") is None and parse_duration(None) is None


def test_the_rule_table_is_the_one_order() -> None:
    """The rules' order lives in RULES; the config's toggles and the CLI's help follow it."""
    from lorekeeper.analysis.compaction import OPERATIONS, RULES, CompactionConfig
    from lorekeeper.core.settings.compaction import TOGGLES
    from lorekeeper.surfaces import cli

    assert OPERATIONS == tuple(r.name for r in RULES)
    assert all(TOGGLES.get(name, name) in CompactionConfig.model_fields for name in OPERATIONS)
    assert enabled(CompactionConfig(consolidate=True, semantic_dedup=True)) == list(OPERATIONS)
    assert "semantic" not in enabled(CompactionConfig()), "the semantic stage loads a model: off by default"
    # The CLI does not import compaction to start (it costs every command ~40 ms): its help names the
    # rules as text, checked here against the table.
    import inspect

    help_text = inspect.signature(cli.compact.compact).parameters["only"].default.help
    assert help_text.startswith("Comma-separated operations: " + ", ".join(OPERATIONS) + " (")


def test_large_stores_count_shared_words_by_matrix_and_find_the_same_pairs() -> None:
    """Candidate pairs of a large store come from a sparse matrix product; they are exactly the pairs the
    loop over postings finds (words shared twice or more, common words left out)."""
    import random

    from lorekeeper.analysis.compaction.search import _sharing_loop, _sharing_sparse
    from lorekeeper.core.text import terms

    rng = random.Random(7)
    words = [f"w{n}" for n in range(400)] + ["common"] * 40
    tokens = {f"e{n:04d}": set(terms(" ".join(rng.choice(words) for _ in range(rng.randint(2, 9)))))
              for n in range(1500)}
    for cap in (20, 50, 10_000):  # some words over the cap, none, all
        loop = sorted(_sharing_loop(tokens, cap))
        assert loop and sorted(_sharing_sparse(tokens, cap)) == loop
    assert ("e0001", "e0000") not in set(_sharing_sparse(tokens, 50))  # ids in order, each pair once
