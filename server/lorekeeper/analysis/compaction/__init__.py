# pyright: standard
"""Compaction: make memory small without losing a fact. Stage 1 (here) is deterministic rules; later
stages (semantic, LLM) contribute operations to the same :class:`Plan`.

    plan = plan_compaction(store, ws.compaction)
    print(render_diff(plan, store))          # preview, writes nothing
    apply_plan(plan, store, journal)         # atomic per operation, journaled, undoable
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ...core.model import DERIVED_FIELDS, Entry
from ...core.settings.compaction import TOGGLES, CompactionConfig
from ...core.text import summarize
from ...facts.remembered import remembered_facts
from ...facts.verify import fact_key
from ...infra.safeio import read_text
from ...infra.tokens import TokenMemo
from ...infra.workers import collection_paused
from ...store import Store
from ...workspace import Workspace
from ..context import INDEX, render_entries
from ..context.timeline import blame_dates, timeline
from ..context.views import ViewEntry, _stamp_time, render_compacted
from .plan import (
    Plan,
    PlanOperation,
    apply_plan,
    changed_files,
    check_unchanged,
    plan_id,
    record_hashes,
    render_diff,
    render_preview,
)
from .rules import RULE_NAMES, RULES, Planner, Rule, parse_duration

log = logging.getLogger("lorekeeper")

if TYPE_CHECKING:
    from ..llm.stage import LLMStage

OPERATIONS = RULE_NAMES  # the rules' names, in the order they run

__all__ = ["OPERATIONS", "RULES", "CompactionConfig", "Rule", "Plan", "PlanOperation", "apply_plan", "changed_files",
           "check_unchanged",
           "parse_duration", "plan_compaction", "plan_id", "render_diff", "render_preview", "summarize", "view_entries"]


def enabled(config: CompactionConfig) -> list[str]:
    """The rules a configuration turns on, in the order they run."""
    return [rule.name for rule in RULES if getattr(config, TOGGLES.get(rule.name, rule.name))]


def plan_compaction(store: Store, config: CompactionConfig, only: Iterable[str] | None = None,
                    now: datetime | None = None, llm: LLMStage | None = None) -> Plan:
    """Compute the plan: the operations of the selected rules (``only``, else those the config enables)
    in their fixed order, the derived views of the resulting memory, and token counts before and after.
    With ``llm`` (the LLM stage), the model confirms or vetoes semantic merges (``semantic_dedup``),
    rewrites planned fusions (``entry_fusion``) and writes summaries of compressed entries and consolidated
    learnings, each where its guard lets it (``llm.report`` says what it did)."""
    with collection_paused():  # a plan builds what lives to its end (collecting cost ~15% of it at 110k)
        return _plan(store, config, only, now, llm)


def _plan(store: Store, config: CompactionConfig, only: Iterable[str] | None, now: datetime | None,
          llm: LLMStage | None) -> Plan:
    now = now or datetime.now(UTC)
    selected = set(only) if only is not None else set(enabled(config))
    unknown = selected - set(OPERATIONS) - {"views"}
    if unknown:
        raise ValueError(f"unknown operation(s): {', '.join(sorted(unknown))}; choose from {', '.join(OPERATIONS)}")
    live = store.live()  # one pass over the entries for every rule and view below (~60 ms each at 110k)
    planner = Planner(store.entries, config, now, by_id=store.by_id(), live=live)
    planner.ws = store.ws
    planner.dater = blame_dates(store.ws)  # a line of an instruction file is as old as its last commit
    planner.fuse_drafts = llm is not None and config.entry_fusion and "fuse" in selected
    entries_dir = store.ws.rel(store.ws.entries_dir)
    with remembered_facts(store.ws, (e.content for e in store.entries)):
        if "merge" not in selected:
            planner.find_conflicts()  # the views never state a contested value as current, whatever ran
        for rule in RULES:
            if rule.name in selected:
                rule.run(planner, entries_dir)
        if llm is not None:
            if config.semantic_dedup and "semantic" in selected:
                from .semantic import offer_merges

                llm.run("semantic confirmation", llm.confirm, planner)
                llm.run("merges in other words", offer_merges, planner, llm)
            if config.entry_fusion and "fuse" in selected:
                llm.run("fusion", llm.fuse, planner)
                planner.drop_growing_fusions()  # the lists the model did not write shorter
            if selected & {"compress", "consolidate"}:
                llm.run("summaries", llm.summarize, planner)
            llm.save()
        changes, paths = read_updates(planner.operations)  # read once for the views, the index and the hashes
        memory = entries_after(live, planner.operations, changes=changes)
        # older memories under the newest of their subject; pairs with no order stay not settled
        near = related_by_meaning(store.ws, memory)  # as `lore context` dates them
        times = timeline(memory, planner.conflicts, dater=blame_dates(store.ws), near=near)
        unordered = {frozenset(pair) for pair in times.unordered}
        after = view_entries(live, planner.operations, [c for c in planner.conflicts if frozenset(c.get("entries", ())) in unordered],
                             changes=changes)
    lines = {e.id: f"{e.location.path}:{e.location.start_line}" for e in memory if e.format == "instruction"}
    store_prefix = store.ws.rel(store.ws.store)
    views = {f"{store_prefix}/{path}": text for path, text in render_compacted(after, times.links, lines).items()}
    counts = TokenMemo(ws=store.ws)  # the index and the figures below share the counts; kept for next time
    index_path = f"{store_prefix}/index.md"
    if after or (store.ws.store / "index.md").is_file():
        views[index_path] = render_index(store, planner, config, now, llm, counts, live=live, changes=changes,
                                         near=near)
    # (memory that is only instruction files, which agents load as they are: no index.md with nothing to say)
    on_disk = {path: _read_text(store, path) for path in views}
    for old in (store.ws.store / "compacted").glob("*.md") if (store.ws.store / "compacted").is_dir() else []:
        on_disk.setdefault(store.ws.rel(old), _read_text(store, store.ws.rel(old)))
    # The memory before the plan, as view_entries(live, []) shows it: its texts are all the count needs.
    before = {e.id: e.content for e in live if e.format != "instruction"}
    # Counted in one batch (over the cores when large); most texts are both before and after.
    counts.many(["", *before.values(), *(e.content for e in after), *views.values(), *(t or "" for t in on_disk.values())])
    counts.save()
    counted = counts.known
    tokens = {
        "entries": [sum(counted[text] for text in before.values()), sum(counted[e.content] for e in after)],
        "index": [counted[on_disk.get(index_path) or ""], counted[views.get(index_path, "")]],
        "compacted": [sum(counted[t or ""] for p, t in on_disk.items() if p != index_path),
                      sum(counted[t] for p, t in views.items() if p != index_path)],
    }
    plan = Plan(
        operations=planner.operations,
        views=views,
        conflicts=planner.conflicts,
        tokens_before=tokens["entries"][0],
        tokens_after=tokens["entries"][1],
        hashes={},
        tokens=tokens,
        memory=memory_digest(store),
    )
    record_hashes(plan, store, paths=paths)
    return plan


def memory_digest(store: Store) -> str:
    """What a plan was made from: the workspace's root and the bytes of every memory file the store read."""
    digest = hashlib.sha256(str(store.ws.root.resolve()).encode("utf-8", "surrogateescape"))
    for path, sha in sorted(store.digests.items()):
        digest.update(b"\x00" + path.encode("utf-8", "surrogateescape") + b"\x00" + sha)
    return digest.hexdigest()[:16]


def _read_text(store: Store, path: str) -> str | None:
    try:
        return read_text(store.ws.root / path, root=store.ws.root)
    except (OSError, UnicodeDecodeError):
        return None


def render_index(store: Store, planner: Planner, config: CompactionConfig, now: datetime,
                 llm: LLMStage | None = None, counts: TokenMemo | None = None, *, live: list[Entry] | None = None,
                 changes: list[list[tuple[str, dict[str, Any]]]] | None = None,
                 near: Sequence[tuple[str, str]] = ()) -> str:
    """index.md: the memory as the plan leaves it, rendered by the context renderer (no focus, the
    index budget) in its ``index`` style, so that index.md, `lore context` and MCP recall agree. It reads
    the levels `lore context` remembered (hysteresis) but writes nothing. With the LLM stage and
    ``narrative_index``, each category's full entries may read as prose the model wrote and the guard
    checked against them (every fact kept, nothing added, no longer than the bullets); else bullets."""

    conflicts = [c for c in planner.conflicts if c.get("kind") == "contradiction"]
    entries = entries_after(store.live() if live is None else live, planner.operations, changes=changes)
    stage = llm if llm is not None and config.narrative_index else None

    def narrate(sections: dict[str, list[tuple[str, str]]], tokens: int) -> dict[str, str]:
        assert stage is not None
        prose = stage.run("narrative index", stage.narrate, sections, tokens) or {}
        stage.save()
        return prose

    return render_entries(store.ws, entries, budget=config.budget, now=now, conflicts=conflicts, style=INDEX,
                          remember=False, narrate=narrate if stage is not None else None, counts=counts,
                          near=near).text


def related_by_meaning(ws: Workspace, entries: Sequence[Entry], embed: bool = True) -> list[tuple[str, str]]:
    """With the semantic stage on in the configuration (``semantic_dedup``), the pairs of memories its
    model puts nearest each other (:func:`.semantic.near_subjects`), which every rendering dates alike:
    index.md and compacted/ (`lore compact`), `lore context`, MCP recall. Not for a one-off `lore compact
    --semantic`: index.md is `lore context`'s text, which reads the configuration. ``embed=False`` (a
    reader that must not wait for the model): only memories whose vectors are cached, as `lore compact`
    leaves them for every memory it renders. None without the stage, or where the model is unavailable or
    its vectors are not ready (the editor computes them apart)."""
    if not ws.compaction.semantic_dedup:
        return []
    from ..semantic import SemanticUnavailable, VectorsPending  # (numpy and the model: only with the stage on)
    from .semantic import near_subjects

    try:
        return near_subjects(ws, ws.compaction, entries, embed=embed)
    except VectorsPending:
        return []
    except SemanticUnavailable as exc:
        log.warning("memories related by meaning not dated: %s", exc)
        return []


def read_updates(operations: list[PlanOperation]) -> tuple[list[list[tuple[str, dict[str, Any]]]], set[str]]:
    """Each operation's updates by entry id, and the files of the entries they update. Reading an
    entry's attributes is what costs here (at 110k entries, each is a cache miss): :func:`entries_after`,
    :func:`view_entries` and :func:`.record_hashes` share one reading."""
    changes: list[list[tuple[str, dict[str, Any]]]] = []
    paths: set[str] = set()
    for op in operations:
        changes.append([(entry.id, fields) for entry, fields in op.updates])
        paths.update([entry.location.path for entry, _ in op.updates])
    return changes, paths


def entries_after(live: list[Entry], operations: list[PlanOperation], *,
                  changes: list[list[tuple[str, dict[str, Any]]]] | None = None) -> list[Entry]:
    """The live entries once the operations are applied to ``live`` (the store's live entries in order,
    :meth:`.Store.live`): minus those merged, superseded or archived, with new summaries, plus the new
    fused and consolidated entries. ``changes``: the first half of :func:`read_updates`, where the
    caller has it."""
    shown: dict[str, Entry] = {e.id: e for e in live}
    for op, updates in zip(operations, read_updates(operations)[0] if changes is None else changes, strict=True):
        for entry_id, fields in updates:
            if not _RETIRING.isdisjoint(fields):
                shown.pop(entry_id, None)
            elif "summary" in fields and entry_id in shown:
                shown[entry_id] = shown[entry_id].model_copy(update={"summary": fields["summary"]})
        if op.new_entry is not None:
            raw = op.new_entry
            known = {k: v for k, v in raw.items() if k in Entry.model_fields and k not in DERIVED_FIELDS}
            try:
                shown[raw["id"]] = Entry.model_validate({**known, "location": {"path": op.new_path or ""}})
            except ValueError:
                continue  # never the case for what the rules write; a broken one is left out of the index
    return list(shown.values())


def view_entries(live: list[Entry], operations: list[PlanOperation], conflicts: list[dict] | None = None, *,
                 changes: list[list[tuple[str, dict[str, Any]]]] | None = None) -> list[ViewEntry]:
    """The memory the views show once the operations are applied to ``live`` (the store's live entries in
    order, :meth:`.Store.live`): its entry and MIF entries, minus those merged, superseded or archived,
    plus new fused and consolidated entries, with summaries; each marked when it is in an unresolved
    conflict or restates an instruction file. ``changes``: as for :func:`entries_after`."""
    instruction_keys = {fact_key(e.content) for e in live if e.format == "instruction"}
    # An entry becomes a ViewEntry when it is written to or once it is known to stay: most of a large
    # store's are merged away, and building their views was most of this function's time.
    shown: dict[str, ViewEntry | Entry] = {e.id: e for e in live if e.format != "instruction"}
    for op, updates in zip(operations, read_updates(operations)[0] if changes is None else changes, strict=True):
        for entry_id, fields in updates:
            if not _RETIRING.isdisjoint(fields):
                shown.pop(entry_id, None)
            elif "summary" in fields and entry_id in shown:
                view = shown[entry_id] = _view(shown[entry_id])
                view.summary = fields["summary"]
        if op.new_entry is not None:
            raw = op.new_entry
            shown[raw["id"]] = ViewEntry(raw["id"], raw["category"], raw["content"], _stamp_time(raw["created"]),
                                         raw.get("summary"), False, float(raw.get("confidence") or 0.0), op.new_path or "")
    views = {entry_id: _view(item) for entry_id, item in shown.items()}
    for conflict in conflicts or []:
        if conflict.get("kind") != "contradiction":
            continue
        a, b = conflict["entries"]  # newer, older
        if a in views and b in views:  # each names the other (the caller passes the pairs with no order)
            views[b].conflict = a
            if views[a].conflict is None:
                views[a].conflict = b
    if instruction_keys:  # else no view restates one (and no text needs its fact key)
        for view in views.values():
            view.in_instructions = fact_key(view.content) in instruction_keys
    return list(views.values())


#: Fields an operation sets on an entry that leaves the live memory.
_RETIRING = frozenset(("merged_into", "superseded_by", "archived"))


def _view(item: ViewEntry | Entry) -> ViewEntry:
    """An entry as the views show it (a view stays as it is)."""
    if isinstance(item, ViewEntry):
        return item
    return ViewEntry(item.id, item.category, item.content, _stamp_time(item.created or 0), item.summary, item.pinned,
                     item.confidence or 0.0, item.location.path)
