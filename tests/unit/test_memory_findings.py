"""Findings computed from memory alone (diagnose.py): exact and near duplicates, contradictions,
``supersedes`` that name nothing or go round in a cycle, entries long enough to compress, and the store's
own findings (links that lead nowhere, merges into bullets that changed). Stores are real files in
tmp_path; fixes are the typed models of model.py."""

from __future__ import annotations

import pytest

from lorekeeper.analysis.diagnose import conflicts, duplicate_findings, memory_findings, supersession_findings, verbose_findings
from lorekeeper.core.model import CompressFix, Finding, MergeFix, Severity, SupersedeFix
from lorekeeper.core.settings.compaction import CompactionConfig
from support import Tree

ENTRIES = ".lore/memory/entries"


def config(**overrides) -> CompactionConfig:
    return CompactionConfig().with_overrides(**overrides)


def of_kind(findings: list[Finding], *kinds: str) -> list[Finding]:
    return [f for f in findings if f.kind in kinds]


def add(tree: Tree, id_: str, content: str, created: str = "2026-01-01T00:00:00Z", **fields) -> None:
    tree.entry(f"{id_}.json", {"id": id_, "content": content, "created": created, **fields})


def test_an_empty_or_clean_store_has_no_findings(tree: Tree) -> None:
    assert memory_findings(tree.store(), config()) == []
    add(tree, "a", "Use pnpm for installs.")
    add(tree, "b", "Tests live next to the code they test.")
    tree.write("CLAUDE.md", "- Commit messages follow Conventional Commits.\n")
    assert memory_findings(tree.store(), config()) == []


# -- duplicates ---------------------------------------------------------------------------------------

def test_exact_duplicates_are_merged_into_the_most_complete_copy(tree: Tree) -> None:
    add(tree, "a", "Always use **pnpm**.", "2026-01-01T00:00:00Z")
    add(tree, "b", "always use PNPM", "2026-02-01T00:00:00Z", refs=["package.json"])  # the only one with a ref
    add(tree, "c", "Always use pnpm!", "2026-03-01T00:00:00Z")
    found = duplicate_findings(tree.store(), config())
    assert {f.entry for f in found} == {"a", "c"}  # the kept copy has no finding of its own
    for f in found:
        assert (f.kind, f.severity, f.source, f.line) == ("duplicate", Severity.warning, f"{ENTRIES}/{f.entry}.json", 1)
        assert isinstance(f.fix, MergeFix) and (f.fix.entry, f.fix.into) == (f.entry, "b")
        assert f.message == f"same text as b ({ENTRIES}/b.json:1)"
        other = ({"a", "c"} - {f.entry}).pop()
        assert f.related == [
            {"source": f"{ENTRIES}/b.json", "line": 1, "message": "kept copy", "entry": "b"},
            {"source": f"{ENTRIES}/{other}.json", "line": 1, "message": "another copy", "entry": other}]


def test_a_pinned_copy_or_an_instruction_bullet_is_the_one_kept(tree: Tree) -> None:
    add(tree, "old", "Run migrations with make migrate.", "2025-01-01T00:00:00Z", pinned=True)
    add(tree, "new", "run migrations with make migrate", "2026-06-01T00:00:00Z", refs=["Makefile"])
    [f] = duplicate_findings(tree.store(), config())
    assert f.entry == "new" and f.fix == MergeFix(entry="new", into="old")

    tree.write("CLAUDE.md", "# Notes\n\n- Run migrations with make migrate.\n")
    found = duplicate_findings(tree.store(), config())
    assert {(f.entry, f.fix.into) for f in found} == {("old", "CLAUDE.md:3"), ("new", "CLAUDE.md:3")}
    assert all(f.message == "same text as CLAUDE.md:3" for f in found)


def test_instruction_bullets_repeating_each_other_are_not_offered_a_merge(tree: Tree) -> None:
    tree.write("CLAUDE.md", "- Use pnpm for installs.\n")
    tree.write("AGENTS.md", "- Use pnpm for installs.\n")
    assert duplicate_findings(tree.store(), config()) == []  # their text is the user's: nothing to merge


def test_mif_entries_take_part(tree: Tree) -> None:
    add(tree, "j", "Tests run with vitest.", "2026-01-01T00:00:00Z")
    tree.write(".lore/memory/mif/m.memory.md", "---\nid: m\ncreated: 2026-02-01T00:00:00Z\n---\n\nTests run with Vitest!\n")
    [f] = duplicate_findings(tree.store(), config())
    assert {f.entry, f.fix.into} == {"j", "m"} and f.kind == "duplicate"


def test_different_literals_are_not_duplicates(tree: Tree) -> None:
    add(tree, "a", "Pin react to ^18.3.1", "2026-01-01T00:00:00Z")
    add(tree, "b", "Pin react to ~18.3.1", "2026-02-01T00:00:00Z")
    assert of_kind(memory_findings(tree.store(), config()), "duplicate", "near-duplicate") == []


def test_the_same_fact_in_other_words_is_a_near_duplicate(tree: Tree) -> None:
    add(tree, "p1", "Run the linter before committing any code.", "2026-01-01T00:00:00Z")
    add(tree, "p2", "Before committing any code, run the linter!", "2026-02-01T00:00:00Z")
    [f] = duplicate_findings(tree.store(), config())
    assert (f.kind, f.severity, f.entry) == ("near-duplicate", Severity.info, "p1")
    assert f.fix == MergeFix(entry="p1", into="p2")
    assert f.message == f"states the same fact as p2 ({ENTRIES}/p2.json:1)"
    assert f.related == [{"source": f"{ENTRIES}/p2.json", "line": 1, "message": "kept copy", "entry": "p2"}]


def test_dedup_and_merge_switched_off_in_the_config_still_report(tree: Tree) -> None:
    # The findings ask the rules directly: what compaction would run is not what the editor shows.
    add(tree, "a", "Always use pnpm.", "2026-01-01T00:00:00Z")
    add(tree, "b", "always use pnpm", "2026-02-01T00:00:00Z")
    assert len(duplicate_findings(tree.store(), config(dedup=False, merge=False))) == 1


@pytest.mark.parametrize("hidden", [{"merged_into": "keep"}, {"superseded_by": "keep"}, {"archived": True}])
def test_entries_no_longer_live_are_not_duplicates(tree: Tree, hidden: dict) -> None:
    add(tree, "keep", "Always use pnpm.", "2026-02-01T00:00:00Z")
    add(tree, "gone", "always use pnpm", "2026-01-01T00:00:00Z", **hidden)
    assert memory_findings(tree.store(), config()) == []


def test_an_entry_merged_into_nothing_is_live_again_and_a_duplicate_again(tree: Tree) -> None:
    add(tree, "keep", "Always use pnpm.", "2026-02-01T00:00:00Z", refs=["package.json"])
    tree.entry("gone.json", '{\n  "id": "gone",\n  "content": "always use pnpm",\n  "merged_into": "deleted"\n}\n')
    found = memory_findings(tree.store(), config())
    assert [(f.kind, f.entry) for f in found] == [("dangling-link", "gone"), ("duplicate", "gone")]
    link = found[0]
    assert (link.severity, link.field) == (Severity.error, "merged_into") and link.fix is None
    assert link.message == "merged_into 'deleted' names no entry in memory; shown as live until fixed"
    assert found[1].fix == MergeFix(entry="gone", into="keep")


def test_an_entry_merged_into_a_bullet_that_changed_is_shown_again(tree: Tree) -> None:
    tree.write("CLAUDE.md", "- Use pnpm for installs.\n- Tests run with vitest.\n")
    add(tree, "moved", "Tests run with vitest.", merged_into="CLAUDE.md:1")  # the fact is still there, one line down
    add(tree, "lost", "Docs are built with mkdocs.", merged_into="CLAUDE.md:1")
    found = memory_findings(tree.store(), config())
    [orphan] = of_kind(found, "orphaned-merge")
    assert (orphan.entry, orphan.severity, orphan.field) == ("lost", Severity.warning, "merged_into")
    assert orphan.related == [{"source": "CLAUDE.md", "line": 1, "message": "the bullet it was merged into",
                               "entry": "CLAUDE.md:1"}]
    assert {e.id for e in tree.store().live()} >= {"lost"} and "moved" not in {e.id for e in tree.store().live()}


# -- contradictions -----------------------------------------------------------------------------------

def test_a_contradiction_is_reported_on_both_sides_with_one_fix(tree: Tree) -> None:
    add(tree, "n1", "The dev server runs on port 3000", "2026-01-01T00:00:00Z")
    add(tree, "n2", "The dev server runs on port 3001", "2026-02-01T00:00:00Z")
    store = tree.store()
    found = duplicate_findings(store, config())
    assert [f.entry for f in found] == ["n1", "n2"]
    for f in found:
        assert (f.kind, f.severity) == ("contradiction", Severity.warning)
        assert isinstance(f.fix, SupersedeFix) and (f.fix.entry, f.fix.by) == ("n1", "n2")  # keep the newer
    older, newer = found
    assert older.message.startswith(f"disagrees with the newer n2 ({ENTRIES}/n2.json:1): ")
    assert newer.message.startswith(f"disagrees with the older n1 ({ENTRIES}/n1.json:1): ")
    assert "3000" in older.message and "3001" in older.message and older.message.endswith("both stay until one is kept")
    assert older.related == [{"source": f"{ENTRIES}/n2.json", "line": 1, "message": "the newer entry", "entry": "n2"}]
    assert newer.related == [{"source": f"{ENTRIES}/n1.json", "line": 1, "message": "the older entry", "entry": "n1"}]
    [conflict] = conflicts(store, config())
    assert conflict["entries"] == ["n2", "n1"] and (conflict["old"], conflict["new"]) == ("3000", "3001")


def test_who_is_newer_follows_created_not_the_file_order(tree: Tree) -> None:
    add(tree, "a", "The dev server runs on port 3001", "2026-05-01T00:00:00Z")
    add(tree, "b", "The dev server runs on port 3000", "2026-01-01T00:00:00Z")
    found = of_kind(duplicate_findings(tree.store(), config()), "contradiction")
    assert {(f.fix.entry, f.fix.by) for f in found} == {("b", "a")}


@pytest.mark.parametrize("side", ["n1", "n2"])
def test_entries_marked_as_both_true_are_not_a_contradiction(tree: Tree, side: str) -> None:
    other = {"n1": "n2", "n2": "n1"}[side]
    texts = {"n1": "The dev server runs on port 3000", "n2": "The dev server runs on port 3001"}
    add(tree, side, texts[side], coexists_with=[other])
    add(tree, other, texts[other], "2026-02-01T00:00:00Z")
    assert memory_findings(tree.store(), config()) == []
    assert conflicts(tree.store(), config()) == []


# -- supersession -------------------------------------------------------------------------------------

def test_supersedes_naming_no_entry(tree: Tree) -> None:
    add(tree, "new", "Use Node 22.", supersedes=["ghost", "old"])
    add(tree, "old", "Use Node 18.", archived=True)  # exists, even if archived: not dangling
    [f] = supersession_findings(tree.store(), config())
    assert (f.kind, f.severity, f.entry, f.field) == ("dangling-supersedes", Severity.warning, "new", "supersedes")
    assert f.message == "supersedes 'ghost', which is not in memory" and f.fix is None


def test_an_entry_no_longer_live_is_not_checked(tree: Tree) -> None:
    add(tree, "keep", "Use Node 22.")
    add(tree, "done", "Use Node 20.", supersedes=["ghost"], superseded_by="keep")
    assert supersession_findings(tree.store(), config()) == []


def test_mif_supersedes_naming_no_entry(tree: Tree) -> None:
    tree.write(".lore/memory/mif/x.memory.md", "---\nid: x\nsupersedes:\n  - nope\n---\n\nUse Node 22.\n")
    [f] = supersession_findings(tree.store(), config())
    assert (f.kind, f.entry, f.source) == ("dangling-supersedes", "x", ".lore/memory/mif/x.memory.md")


def test_a_dangling_supersedes_points_at_the_field(tree: Tree) -> None:
    """Supersession findings are about the field: the editor underlines its line, not the entry's `{`."""
    tree.entry("s.json", '{\n  "id": "s",\n  "content": "Use Node 22.",\n  "supersedes": ["ghost"]\n}\n')
    tree.write(".lore/memory/mif/m.memory.md", "---\nid: m\ntags: [x]\nsupersedes:\n  - phantom\n---\nUse Node 20.\n")
    tree.entry("c1.json", '{\n  "id": "c1",\n  "content": "One.",\n  "tags": [],\n  "supersedes": ["c2"]\n}\n')
    tree.entry("c2.json", '{"id": "c2", "content": "Two.", "supersedes": ["c1"]}')
    found = {(f.kind, f.entry): f.line for f in supersession_findings(tree.store(), config())}
    assert found == {("dangling-supersedes", "s"): 4, ("dangling-supersedes", "m"): 4,
                     ("supersession-cycle", "c1"): 5, ("supersession-cycle", "c2"): 1}


def test_a_supersession_cycle_is_reported_on_each_member(tree: Tree) -> None:
    add(tree, "a", "first", supersedes=["b"])
    add(tree, "b", "second", supersedes=["c"])
    add(tree, "c", "third", supersedes=["a"])
    add(tree, "d", "fourth", supersedes=["e"])  # a chain, not a cycle
    add(tree, "e", "fifth")
    found = supersession_findings(tree.store(), config())
    assert sorted(f.entry for f in found) == ["a", "b", "c"]
    for f in found:
        assert (f.kind, f.severity, f.field) == ("supersession-cycle", Severity.warning, "supersedes")
        assert f.message == "supersedes links form a cycle: a -> b -> c -> a"
        assert sorted(r["entry"] for r in f.related) == sorted({"a", "b", "c"} - {f.entry})
        assert all(r["message"] == "in the same cycle" for r in f.related)


def test_two_entries_superseding_each_other(tree: Tree) -> None:
    add(tree, "x", "one", supersedes=["y"])
    add(tree, "y", "two", supersedes=["x"])
    found = supersession_findings(tree.store(), config())
    assert sorted(f.entry for f in found) == ["x", "y"] and {f.kind for f in found} == {"supersession-cycle"}


# -- verbose entries ----------------------------------------------------------------------------------

def test_entries_over_the_line_threshold_are_offered_compression(tree: Tree) -> None:
    add(tree, "long", "\n".join(f"step {i}" for i in range(6)))
    add(tree, "edge", "\n".join(f"step {i}" for i in range(5)))  # exactly at the threshold: fine
    add(tree, "done", "\n".join(f"step {i}" for i in range(9)), summary="Nine steps.")
    tree.write("CLAUDE.md", "```bash\n" + "\n".join(f"echo {i}" for i in range(20)) + "\n```\n")
    [f] = verbose_findings(tree.store(), config(compress_lines=5))
    assert (f.kind, f.severity, f.entry) == ("verbose-entry", Severity.info, "long")
    assert f.fix == CompressFix(entry="long") and isinstance(f.fix, CompressFix)
    assert f.message == "6 lines, over the compression threshold of 5"


def test_the_default_threshold_is_a_hundred_lines(tree: Tree) -> None:
    add(tree, "hundred", "\n".join(f"line {i}" for i in range(100)))
    assert verbose_findings(tree.store(), config()) == []
    add(tree, "more", "\n".join(f"line {i}" for i in range(101)))
    assert [f.entry for f in verbose_findings(tree.store(), config())] == ["more"]


# -- all together -------------------------------------------------------------------------------------

def test_memory_findings_gathers_store_duplicate_supersession_and_size_findings(tree: Tree) -> None:
    tree.entry("bad.json", '{\n  "id": "bad"\n  "content": "x"\n}\n')
    tree.entry("twin1.json", {"id": "twin", "content": "one"})
    tree.entry("twin2.json", {"id": "twin", "content": "two"})
    add(tree, "a", "Always use pnpm.", "2026-01-01T00:00:00Z")
    add(tree, "b", "always use pnpm", "2026-02-01T00:00:00Z")
    add(tree, "s", "Use Node 22.", supersedes=["ghost"])
    add(tree, "v", "\n".join(f"line {i}" for i in range(4)))
    found = memory_findings(tree.store(), config(compress_lines=3))
    assert [f.kind for f in found] == ["invalid-json", "duplicate-id", "duplicate", "dangling-supersedes", "verbose-entry"]


def test_fixes_survive_a_json_round_trip_as_their_own_type(tree: Tree) -> None:
    add(tree, "a", "Always use pnpm.", "2026-01-01T00:00:00Z")
    add(tree, "b", "always use pnpm", "2026-02-01T00:00:00Z", refs=["package.json"])
    add(tree, "n1", "The dev server runs on port 3000", "2026-01-01T00:00:00Z")
    add(tree, "n2", "The dev server runs on port 3001", "2026-02-01T00:00:00Z")
    add(tree, "v", "\n".join(f"line {i}" for i in range(4)))
    found = [f for f in memory_findings(tree.store(), config(compress_lines=3)) if f.fix is not None]
    assert {type(f.fix) for f in found} == {MergeFix, SupersedeFix, CompressFix}
    for f in found:
        data = f.model_dump(mode="json")
        assert data["fix"]["action"] == {MergeFix: "merge", SupersedeFix: "supersede", CompressFix: "compress"}[type(f.fix)]
        again = Finding.model_validate_json(f.model_dump_json())
        assert again == f and type(again.fix) is type(f.fix)
