"""Compaction: make memory small without losing a fact. Stage 1 (here) is deterministic rules; later
stages (semantic, LLM) contribute operations to the same :class:`Plan`.

    plan = plan_compaction(store, CompactionConfig.load(root))
    print(render_diff(plan, store))          # preview, writes nothing
    apply_plan(plan, store, journal)         # atomic per operation, journaled, undoable
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Iterable

from ..model import Entry
from ..store import Store
from ..tokens import count_tokens
from .config import OPERATIONS, CompactionConfig
from .plan import Plan, PlanOperation, apply_plan, check_unchanged, record_hashes, render_diff
from .rules import Planner, parse_duration, summarize
from .views import ViewEntry, _stamp_time, render_compacted, render_index

__all__ = ["OPERATIONS", "CompactionConfig", "Plan", "PlanOperation", "apply_plan", "check_unchanged",
           "parse_duration", "plan_compaction", "render_diff", "summarize", "view_entries"]


def plan_compaction(store: Store, config: CompactionConfig, only: Iterable[str] | None = None,
                    now: datetime | None = None) -> Plan:
    """Compute the plan: the operations of the selected rules (``only``, else those the config enables)
    in their fixed order, the derived views of the resulting memory, and token counts before and after."""
    now = now or datetime.now(timezone.utc)
    selected = set(only) if only is not None else set(config.enabled())
    unknown = selected - set(OPERATIONS) - {"views"}
    if unknown:
        raise ValueError(f"unknown operation(s): {', '.join(sorted(unknown))}; choose from {', '.join(OPERATIONS)}")
    planner = Planner(store.entries, config, now)
    entries_dir = store.ws.rel(store.ws.entries_dir)
    steps = {
        "supersede": planner.supersede,
        "dedup": planner.dedup,
        "merge": planner.merge,
        "archive": planner.archive,
        "consolidate": lambda: planner.consolidate(entries_dir),
        "fuse": lambda: planner.fuse(entries_dir),
        "compress": planner.compress,
    }
    for name in OPERATIONS:
        if name in selected:
            steps[name]()
    before = [e for e in store.live() if e.format != "instruction"]
    after = view_entries(store.entries, planner.operations)
    store_prefix = store.ws.rel(store.ws.store)
    views = {f"{store_prefix}/{path}": text for path, text in render_compacted(after).items()}
    views[f"{store_prefix}/index.md"] = render_index(after, config.budget)
    plan = Plan(
        operations=planner.operations,
        views=views,
        conflicts=planner.conflicts,
        tokens_before=sum(count_tokens(e.summary or e.content) for e in before),
        tokens_after=sum(count_tokens(e.shown) for e in after),
        hashes={},
    )
    record_hashes(plan, store)
    return plan


def view_entries(entries: list[Entry], operations: list[PlanOperation]) -> list[ViewEntry]:
    """The memory the views show once the operations are applied: live entry and MIF entries, minus
    those merged, superseded or archived, plus new fused and consolidated entries, with summaries."""
    by_id = {e.id: e for e in entries}
    shown: dict[str, ViewEntry] = {}
    for entry in entries:
        if entry.live and entry.format != "instruction":
            shown[entry.id] = ViewEntry(entry.id, entry.category, entry.content, _stamp_time(entry.created or 0),
                                        entry.summary, entry.pinned, entry.confidence or 0.0,
                                        _source_texts(entry, by_id))
    for op in operations:
        for entry, fields in op.updates:
            if {"merged_into", "superseded_by", "archived"} & set(fields):
                shown.pop(entry.id, None)
            elif "summary" in fields and entry.id in shown:
                shown[entry.id].summary = fields["summary"]
        if op.new_entry is not None:
            raw = op.new_entry
            sources = [by_id[s].content for s in raw.get("source_entries", []) if s in by_id] if raw.get("consolidated") else []
            shown[raw["id"]] = ViewEntry(raw["id"], raw["category"], raw["content"], _stamp_time(raw["created"]),
                                         None, False, float(raw.get("confidence") or 0.0), sources)
    return list(shown.values())


def _source_texts(entry: Entry, by_id: dict[str, Entry]) -> list[str]:
    """A consolidated entry shows only exemplars; compacted/ lists its sources' full text too."""
    if not entry.raw.get("consolidated"):
        return []
    return [by_id[s].content for s in entry.source_entries if s in by_id]
