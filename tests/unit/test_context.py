"""Budgeted context rendering: the budget is never exceeded, pinned entries are always full, fidelity
degrades in score order, a focus brings its memories up, output is stable, levels have hysteresis, and
index.md is the same rendering."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lorekeeper.analysis.compaction import CompactionConfig, plan_compaction
from lorekeeper.analysis.context import ContextConfig, render_entries
from lorekeeper.analysis.context.score import Focus, content_type
from lorekeeper.analysis.context.timeline import timeline
from lorekeeper.app.context import render_context
from lorekeeper.app.report import store_status
from lorekeeper.core.model import Entry, Location
from lorekeeper.infra.tokens import count_tokens
from lorekeeper.workspace import Workspace
from support import Tree

NOW = datetime(2026, 11, 1, 12, tzinfo=UTC)
LEVEL = {"full": 0, "compressed": 1, "placeholder": 2}
_WORDS = ["retry", "handler", "postgres", "queue", "deploy", "cache", "token", "schema", "worker", "billing"]


def entry(i: int, text: str, **fields) -> Entry:
    return Entry(id=f"e{i:03d}", content=text, location=Location(path=f".lore/memory/entries/e{i:03d}.json"),
                 **fields)


@st.composite
def stores(draw, max_size: int = 30) -> list[Entry]:
    """Entries that are either short (no shorter form) or long (always a shorter one), of varied
    categories, ages, importance, access counts, refs; some pinned, some with summaries."""
    out = []
    for i in range(draw(st.integers(min_value=0, max_value=max_size))):
        words = draw(st.lists(st.sampled_from(_WORDS), min_size=3, max_size=8))
        long = draw(st.booleans())
        text = f"Fact {i}: the {' '.join(words)} rule."
        if long:
            text += " " + " ".join(f"Step {k}: check the {words[k % len(words)]} dashboard again." for k in range(12))
        fields = {
            "category": draw(st.sampled_from(["decisions", "patterns", "pitfalls", "conventions", "output"])),
            "created": NOW - timedelta(days=draw(st.integers(min_value=0, max_value=400))),
            "importance": draw(st.none() | st.floats(min_value=0, max_value=1)),
            "access_count": draw(st.none() | st.integers(min_value=0, max_value=50)),
            "pinned": draw(st.integers(min_value=0, max_value=9)) == 0,
            "refs": [{"path": f"src/{draw(st.sampled_from(['a', 'b', 'c']))}/m{i % 4}.py"}] if draw(st.booleans()) else [],
        }
        if long and draw(st.booleans()):
            fields["summary"] = f"Fact {i} in short: {words[0]} first."
        out.append(entry(i, text, **fields))
    return out


def render(ws: Workspace, entries: list[Entry], budget: int, focus=(), remember: bool = False):
    return render_entries(ws, entries, budget=budget, focus=focus, now=NOW, config=ContextConfig(), remember=remember)


_SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@_SETTINGS
@given(entries=stores(), budget=st.one_of(st.integers(min_value=0, max_value=60), st.integers(min_value=60, max_value=3000)))
def test_the_budget_is_never_exceeded_and_every_entry_is_accounted_for(tmp_path: Path, entries, budget: int) -> None:
    result = render(Workspace(tmp_path), entries, budget)
    assert count_tokens(result.text) == result.tokens <= budget
    shown = [e.id for e in result.entries]
    assert len(shown) == len(set(shown)) and set(shown).isdisjoint(result.omitted)
    assert set(shown) | set(result.omitted) == {e.id for e in entries}
    if result.omitted and result.text:
        assert "## Left out" in result.text and f"{len(result.omitted)} entr" in result.text  # it says so
    if result.text:
        assert result.text.startswith(f"<!-- Lorekeeper memory: {result.tokens}/{budget} tokens")


@_SETTINGS
@given(entries=stores(), budget=st.integers(min_value=50, max_value=3000))
def test_pinned_entries_are_always_full_and_fidelity_degrades_in_score_order(tmp_path: Path, entries, budget: int) -> None:
    result = render(Workspace(tmp_path), entries, budget)
    level = {r.id: LEVEL[r.fidelity] for r in result.entries} | {i: 3 for i in result.omitted}
    assert all(level[e.id] in (0, 3) for e in entries if e.pinned)
    pinned_full = sum(count_tokens(e.content) for e in entries if e.pinned)
    if pinned_full * 2 + 200 < budget:
        assert all(level[e.id] == 0 for e in entries if e.pinned)  # room enough: every pinned one is in
    free = [e for e in entries if not e.pinned]

    def has_short(e: Entry) -> bool:  # the long ones (and only they) have a shorter text
        return len(e.content) > 300

    # an older memory shown under the newest of its subject shares its level (test_an_older_memory...)
    links = timeline(entries).links
    together = set(links) | {earlier.root for earlier in links.values()}
    for high in free:
        for low in free:
            if result.scores[high.id] <= result.scores[low.id] or {high.id, low.id} & together:
                continue
            a, b = level[high.id], level[low.id]
            if {a, b} <= {0, 1} and not (has_short(high) and has_short(low)):
                continue  # an entry without a shorter text is shown whole at the compressed level
            assert a <= b, (high.id, a, result.scores[high.id], low.id, b, result.scores[low.id])


def test_a_focus_on_a_file_brings_its_memories_up(tmp_path: Path) -> None:
    tree = Tree(tmp_path / "ws")
    tree.write("src/pay/charge.py", "def charge(): ...\n")
    tree.write("src/pay/refund.py", "def refund(): ...\n")
    entries = [entry(i, f"Fact {i}: the {_WORDS[i % 10]} handler needs care. " + "More detail follows here. " * 8,
                     created=NOW - timedelta(days=i)) for i in range(40)]
    entries.append(entry(100, "Charges retry three times, then go to the dead-letter queue.", refs=[{"path": "src/pay/charge.py"}],
                         created=NOW - timedelta(days=300)))
    entries.append(entry(101, "Refunds are idempotent by request id.", refs=[{"path": "src/pay/refund.py"}],
                         created=NOW - timedelta(days=300)))
    entries.append(entry(102, "`src/pay/charge.py` must never log card numbers.", created=NOW - timedelta(days=300)))
    ws = Workspace(tree.root)
    plain = render(ws, entries, 400)
    focused = render(ws, entries, 400, focus=["src/pay/charge.py"])
    assert focused.scores["e100"] > plain.scores["e100"] and focused.scores["e102"] > plain.scores["e102"]
    assert plain.scores["e101"] < focused.scores["e101"] < focused.scores["e100"]  # same folder: up, less
    level = {r.id: r.fidelity for r in focused.entries}
    assert level.get("e100") == "full" and level.get("e102") == "full"
    assert "e100" in plain.omitted or {r.id: r.fidelity for r in plain.entries}.get("e100") != "full"
    folder = render(ws, entries, 400, focus=["src/pay/"])
    assert {r.id: r.fidelity for r in folder.entries}.get("e101") == "full"
    assert Focus.parse(ws, ["src/pay/charge.py", "card numbers", "src/pay"]) == Focus(
        ("src/pay/charge.py", "src/pay/"), ("card numbers",))


def test_a_query_focus_ranks_by_bm25(tmp_path: Path) -> None:
    entries = [entry(i, f"Fact {i}: the {_WORDS[i % 10]} service is configured in its module.") for i in range(30)]
    entries.append(entry(50, "Stripe webhooks are verified with the signing secret."))
    result = render(Workspace(tmp_path), entries, 2000, focus=["stripe webhook"])
    assert max(result.scores, key=lambda k: result.scores[k]) == "e050"


def test_output_is_byte_identical_on_repeat(tmp_path: Path) -> None:
    entries = [entry(i, f"Fact {i}: the {_WORDS[i % 10]} rule. " + "Detail. " * (i % 7) * 10, created=NOW - timedelta(days=i),
                     category=["a", "b", "c"][i % 3]) for i in range(60)]
    first = render(Workspace(tmp_path), entries, 700, focus=["handler"], remember=True)
    again = render(Workspace(tmp_path), list(reversed(entries)), 700, focus=["handler"], remember=True)
    assert first.text == again.text and first.to_json() == again.to_json()
    later = render_entries(Workspace(tmp_path), entries, budget=700, focus=["handler"], now=NOW + timedelta(hours=5))
    assert later.text == first.text  # recency counts whole days: the same all day


def test_hysteresis_keeps_a_level_until_the_score_moves_by_the_margin(tmp_path: Path) -> None:
    body = " ".join(f"Step {k}: look at the queue." for k in range(30))

    def pair(a: float, b: float) -> list[Entry]:
        return [entry(1, "Alpha. " + body, importance=a, created=NOW), entry(2, "Beta. " + body, importance=b, created=NOW)]

    ws = Workspace(tmp_path)
    budget = next(b for b in range(100, 1000, 5)
                  if [r.fidelity for r in render(ws, pair(0.5, 0.4), b).entries].count("full") == 1)

    def full() -> list[str]:
        return [r.id for r in render(ws, entries, budget, remember=True).entries if r.fidelity == "full"]

    entries = pair(0.5, 0.4)
    assert full() == ["e001"]
    entries = pair(0.5, 0.56)  # Beta now scores a little more: not enough to change levels
    result = render(ws, entries, budget, remember=True)
    assert result.scores["e002"] > result.scores["e001"]
    assert full() == ["e001"]
    (tmp_path / "fresh").mkdir()
    fresh = render(Workspace(tmp_path / "fresh"), entries, budget)  # no previous levels: the higher one is full
    assert [r.id for r in fresh.entries if r.fidelity == "full"] == ["e002"]
    entries = pair(0.0, 1.0)  # a clear change: it flips
    assert full() == ["e002"]


def test_conflicts_are_never_shown_as_current_and_superseded_pairs_degrade_together(tmp_path: Path) -> None:
    tree = Tree(tmp_path / "ws")
    tree.entry("j.json", {"id": "j", "content": "Tests run with Jest", "created": "2026-01-01T00:00:00Z"})
    tree.entry("v.json", {"id": "v", "content": "Tests run with Vitest", "created": "2026-06-01T00:00:00Z"})
    tree.entry("n.json", {"id": "n", "content": "Use Node 20 for the API", "supersedes": ["o"], "created": "2026-06-01T00:00:00Z"})
    tree.entry("o.json", {"id": "o", "content": "Use Node 18 for the API", "created": "2025-01-01T00:00:00Z"})
    for i in range(20):
        tree.entry(f"f{i}.json", {"id": f"f{i:02d}", "content": f"Fact {i} about the {_WORDS[i % 10]} module.",
                                  "created": "2026-10-01T00:00:00Z", "category": "patterns"})
    tree.write("CLAUDE.md", "- Always use pnpm.\n")
    tree.entry("p.json", {"id": "pnpm", "content": "always use PNPM", "created": "2026-10-01T00:00:00Z"})
    ws = Workspace(tree.root)
    store = tree.store()
    for budget in (2000, 300, 150, 90):
        result = render_context(ws, store, budget=budget, now=NOW, remember=False)
        level = {r.id: r.fidelity for r in result.entries} | {i: "omitted" for i in result.omitted}
        assert level["j"] == level["v"] and level["n"] == level["o"]
        assert "pnpm" not in level and "CLAUDE.md:1" not in level  # the agent loads CLAUDE.md anyway
        assert "## Not settled" not in result.text  # the newer of two that disagree is current; the older, dated
        if level["j"] in ("full", "compressed"):
            assert "- Tests run with Vitest\n  - was, until 2026-06-01: with Jest\n" in result.text
        if level["o"] in ("full", "compressed"):
            assert "- Use Node 20 for the API\n  - was, until 2026-06-01: Node 18\n" in result.text
    with_instructions = render_context(ws, store, budget=2000, now=NOW, config=ContextConfig(include_instructions=True))
    assert "CLAUDE.md:1" in {r.id for r in with_instructions.entries}


def test_index_md_is_the_context_rendering(tmp_path: Path) -> None:
    tree = Tree(tmp_path / "ws")
    for i in range(40):
        tree.entry(f"f{i}.json", {"id": f"f{i:02d}", "content": f"Fact {i} about the {_WORDS[i % 10]} module. " * (1 + i % 4),
                                  "created": (NOW - timedelta(days=i)).isoformat(), "category": ["a", "b"][i % 2]})
    store = tree.store()
    plan = plan_compaction(store, CompactionConfig().with_overrides(budget=400), only=[], now=NOW)
    index = plan.views[".lore/memory/index.md"]
    context = render_context(Workspace(tree.root), store, budget=400, now=NOW)
    assert count_tokens(index) <= 400
    shown = [line for line in index.splitlines() if line.startswith("- Fact")]
    assert shown and all(line in context.text for line in shown)  # the same facts, the same words


def test_content_types_and_config(tmp_path: Path) -> None:
    assert content_type(entry(1, "Never call the billing API from tests.")) == "caveat"
    assert content_type(entry(2, "We decided on Postgres over Mongo.")) == "decision"
    assert content_type(entry(3, "The build fails with a segfault on ARM.")) == "error"
    assert content_type(entry(4, "$ make\nINFO building\nINFO done\n2026-01-01 12:00 ok")) == "tool-output"
    assert content_type(entry(5, "Ports are in the 3000 range.", category="logs")) == "tool-output"
    assert content_type(entry(6, "Ports are in the 3000 range.")) == "fact"
    tree = Tree(tmp_path / "ws")
    tree.write(".lore/config.toml", "[context]\nbudget = 900\nhalf_life_days = -1\nfocus_weight = 5\n")
    config = Workspace(tree.root).context
    assert config.budget == 900 and config.focus_weight == 5 and config.half_life_days == 14.0
    assert any("half_life_days" in p for p in config.problems)


def test_status_counts_stale_and_the_last_compaction_and_writes_nothing(tmp_path: Path) -> None:
    tree = Tree(tmp_path / "ws")
    tree.write(".lore/config.toml", "[context]\nbudget = 100\nauto_compact_threshold = 0.5\n")
    tree.entry("a.json", {"id": "a", "content": "Same text here " * 10, "created": "2026-01-01T00:00:00Z"})
    tree.entry("b.json", {"id": "b", "content": "same text here " * 10, "created": "2026-02-01T00:00:00Z",
                          "stale_reason": "src/x.py was deleted"})
    ws = Workspace(tree.root)
    status = store_status(ws, tree.store())
    assert status["budget"] == 100 and status["stale"] == 1 and status["last_compaction"] is None
    assert status["auto_compact"] == {"threshold": 0.5, "at_tokens": 50, "exceeded": True, "compacted_since_change": False}
    before = {p: p.read_bytes() for p in (tree.root / ".lore/memory").rglob("*") if p.is_file()}
    result = render_context(ws, tree.store(), budget=500, now=NOW)
    assert "⚠ may be stale: src/x.py was deleted" in result.text
    assert {p: p.read_bytes() for p in (tree.root / ".lore/memory").rglob("*") if p.is_file()} == before
    from lorekeeper.analysis.compaction import apply_plan

    store = tree.store()
    records = apply_plan(plan_compaction(store, ws.compaction, now=NOW), store, tree.journal())
    last = store_status(Workspace(tree.root), tree.store())["last_compaction"]
    assert last is not None and last["operation"] in {r.id for r in records}


def test_remembered_levels_are_kept_for_a_bounded_number_of_renderings(tmp_path: Path) -> None:
    from lorekeeper.analysis.context import KEEP_STATES

    entries = [entry(i, f"Fact {i}: the {_WORDS[i % 10]} rule.", created=NOW - timedelta(days=i)) for i in range(5)]
    ws = Workspace(tmp_path)
    for n in range(KEEP_STATES + 6):  # an agent recalling with a new focus each time
        render(ws, entries, 500, focus=[f"topic{n}"], remember=True)
    kept = list(ws.cache_dir.glob("context-*.json"))  # (no .lore/ here: the user's cache folder)
    assert len(kept) == KEEP_STATES


def test_the_context_is_index_md_without_its_comment_while_compacted_holds_what_it_points_at(tree: Tree) -> None:
    from lorekeeper.analysis.compaction import apply_plan
    from lorekeeper.app.context import compacted_views

    for i in range(40):
        tree.entry(f"e{i}.json", {"id": f"e{i}", "content": f"Fact {i}: the {_WORDS[i % 10]} rule holds for module m{i}.",
                                  "created": (NOW - timedelta(days=i)).strftime("%Y-%m-%dT%H:%M:%SZ"),
                                  "category": "conventions" if i % 2 else "decisions"})
    tree.write(".lore/config.toml", "[compaction]\nbudget = 150\n")
    ws = Workspace(tree.root)
    store = tree.store()
    apply_plan(plan_compaction(store, ws.compaction, now=NOW), store, tree.journal())
    index = (tree.root / ".lore/memory/index.md").read_text()
    assert "more in compacted/" in index
    result = render_context(ws, tree.store(), budget=150, now=NOW)
    body = index.split("\n", 1)[1]  # under the generated-file comment
    assert result.text.split("\n", 1)[1] == body.split("\n", 1)[1]  # the same text, but for the figures line
    assert result.text.startswith("<!-- ") and "Generated by Lorekeeper" not in result.text
    # a memory added since that the context leaves out is in no compacted/ file: the context's own words
    tree.entry("late.json", {"id": "late", "content": "Fact late: the zebra rule holds for module z.",
                             "created": "2020-01-01T00:00:00Z", "category": "conventions"})
    later = render_context(ws, tree.store(), budget=150, now=NOW)
    assert "late" in later.omitted and "compacted/" not in later.text and "## Left out" in later.text
    assert set(compacted_views(ws)) == {"compacted/conventions.md", "compacted/decisions.md"}
