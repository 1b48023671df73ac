"""Decisions a person makes about memories, each one journaled operation: merge one entry into another
(the editor's quick fix), keep one side of a conflict, say that both sides are true, summarise one long
entry, fuse a topic's entries. Every surface (CLI, editor, MCP) calls these."""

from __future__ import annotations

from datetime import UTC, datetime

from ...core.model import Entry, stamp
from ...core.settings.compaction import CompactionConfig
from ...core.text import summarize
from ...store import Journal, Operation, Record, Store
from .plan import PlanOperation, operation_changes
from .rules import Planner, union_changes


def merge_into(store: Store, entry: Entry, keeper: Entry, journal: Journal, reason: str) -> Record:
    """Merge one entry into another: the entry gets ``merged_into``, the survivor gains its references
    and tags. Refused (``ValueError``) for one entry twice, or a keeper that leads back to the entry."""
    _two(entry, keeper)
    changes = [store.change_for(entry, {"merged_into": keeper.id})]
    gained = union_changes(keeper, [entry])
    if gained:
        current = changes[0].after if keeper.location.path == entry.location.path else None
        changes.append(store.change_for(keeper, gained, current=current))
    return journal.apply(Operation(op="merge", reason=reason, changes=changes, entries=[entry.id, keeper.id]))


def keep_one(store: Store, keep: Entry, drop: Entry, journal: Journal) -> Record:
    """Settle a conflict: ``drop`` gets ``superseded_by`` ``keep`` (it stays on disk, no longer live). An
    instruction-file entry cannot be marked, so then ``keep`` records ``supersedes`` instead. Two
    instruction-file entries are the user's text: refused (edit the file)."""
    _two(keep, drop)
    reason = f"kept {keep.id} over {drop.id}"
    if drop.rewritable:
        change = store.change_for(drop, {"superseded_by": keep.id})
    elif keep.rewritable:
        change = store.change_for(keep, {"supersedes": list(dict.fromkeys([*keep.supersedes, drop.id]))})
    else:
        raise ValueError("both entries are in instruction files: edit the file to keep one")
    return journal.apply(Operation(op="supersede", reason=reason, changes=[change], entries=[drop.id, keep.id]))


def keep_both(store: Store, newer: Entry, older: Entry, journal: Journal) -> Record:
    """Settle a conflict the verifier inferred wrongly: both memories are true. The newer one (or the
    other, when the newer is in an instruction file) records ``coexists_with`` the other, and the pair
    is never reported again. Two instruction-file entries are the user's text: refused."""
    _two(newer, older)
    first, second = (newer, older) if newer.rewritable else (older, newer)
    if not first.rewritable:
        raise ValueError("both entries are in instruction files: reword one of them to tell them apart")
    change = store.change_for(first, {"coexists_with": list(dict.fromkeys([*first.coexists_with, second.id]))})
    return journal.apply(Operation(op="keep-both", reason=f"{first.id} and {second.id} are both true",
                                   changes=[change], entries=[first.id, second.id]))


def _two(one: Entry, other: Entry) -> None:
    """Refuse a decision about an entry and itself (a client may send one id twice)."""
    if one.id == other.id:
        raise ValueError(f"{one.id} was named twice: a merge or a conflict needs two different entries")


def compress_entry(store: Store, entry: Entry, config: CompactionConfig, journal: Journal,
                   now: datetime | None = None) -> Record:
    """Give one long entry a ``summary`` (at most ``summary_chars`` characters) and ``compressed_at``,
    as the compress rule does for old or weak entries; its text stays. The quick fix of a
    ``verbose-entry`` finding."""
    if not entry.rewritable:
        raise ValueError(f"{entry.id} is in an instruction file: shorten it there")
    now = now or datetime.now(UTC)
    fields = {"summary": summarize(entry.content, config.summary_chars),
              "compressed_at": stamp(now)}
    lines = entry.content.count("\n") + 1
    return journal.apply(Operation(op="compress", reason=f"{lines} lines: summarised on request",
                                   changes=[store.change_for(entry, fields)], entries=[entry.id]))


def fuse_operations(store: Store, config: CompactionConfig, ws_entries_dir: str,
                    now: datetime | None = None) -> dict[str, PlanOperation]:
    """The fuse operations compaction would plan (the rule alone: no views, no token counts), by the id
    of each entry taking part: what the editor offers as "Fuse N entries about TOPIC"."""
    planner = Planner(store.entries, config, now or datetime.now(UTC))
    planner.fuse(ws_entries_dir)
    return {source: op for op in planner.operations for source in op.sources}


def apply_operation(operation: PlanOperation, store: Store, journal: Journal) -> Record:
    """One planned operation on its own, journaled (the new entry written first)."""
    entries = [*operation.sources, *([operation.result["id"]] if operation.result else [])]
    return journal.apply(Operation(op=operation.op, reason=operation.reason,
                                   changes=operation_changes(operation, store), entries=entries))
