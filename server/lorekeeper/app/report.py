"""Answers every surface gives the same way: the memory's size and state (``status``), the journal's
rows (``log``), where an entry came from (``merged_from``), and what is waiting for review. The CLI,
the language server and the MCP server render these; none computes them itself."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..analysis.compaction import OPERATIONS
from ..analysis.compaction.plan import default_stage
from ..analysis.context import ContextConfig, stale_entries
from ..core.model import Entry, Finding, Severity
from ..infra.tokens import count_each
from ..store import Journal, Record, Store
from ..workspace import Workspace
from .compact import due


def memory_tokens(store: Store, known: dict[str, int] | None = None) -> dict[str, int]:
    """What the memory costs an agent that reads it, in tokens (cl100k), by scope: ``entries`` (entry and
    MIF files, live; a compressed entry as its summary — what compaction manages and the index budget
    is about) and ``instructions`` (instruction-file bullets and paragraphs, which agents load as well).
    ``known``: counts by text, kept by a caller that asks again after a few texts changed (the language
    server after a save); the texts it lacks are counted and added."""
    return tokens_of(store.live(), known)


def tokens_of(entries: list[Entry], known: dict[str, int] | None = None) -> dict[str, int]:
    """:func:`memory_tokens` of some entries (whether live or not: the caller's choice)."""

    counted = [(e.format == "instruction", e.content if e.format == "instruction" else e.summary or e.content)
               for e in entries]
    counts = count_each((text for _, text in counted), known=known)
    scopes = {"entries": 0, "instructions": 0}
    for instruction, text in counted:
        scopes["instructions" if instruction else "entries"] += counts[text]
    return scopes


def describe_tokens(tokens: dict[str, int]) -> str:
    """The one way token figures are said: "296 tokens in entries, 365 in instruction files"."""
    return f"{tokens['entries']} tokens in entries, {tokens['instructions']} in instruction files"


def status(ws: Workspace, store: Store, records: list[Record]) -> dict[str, Any]:
    """Where memory lives, how much there is, in which formats and categories, its size, its problems,
    and the context figures (:func:`store_status`: tokens against the budget, stale memories,
    the last compaction, the auto-compaction threshold)."""

    live = store.live()
    files: Counter[str] = Counter()
    for fmt in ("entry", "mif", "instruction"):
        files[fmt] = len({e.location.path for e in store.entries if e.format == fmt})
    severities = Counter(f.severity.value for f in store.findings)
    return {
        "root": str(ws.root),
        "store": ws.rel(ws.store),
        "entries": len(store.entries),
        "live": len(live),
        "files": dict(files),
        "by_format": dict(Counter(e.format for e in live)),
        "by_category": dict(Counter(e.category for e in live).most_common()),
        "tokens": memory_tokens(store),
        "findings": {"error": severities["error"], "warning": severities["warning"], "info": severities["info"]},
        "operations": len(records),
        "context": store_status(ws, store),
    }


def merged_from(store: Store, entry: Entry) -> list[str]:
    """The entries this one stands for: those merged into it and those it was fused or consolidated from."""
    return sorted({e.id for e in store.entries if e.merged_into == entry.id} | set(entry.source_entries))


def log_rows(records: list[Record], limit: int | None = None) -> list[dict[str, Any]]:
    """The journal's operations, newest first, each with the undo that reverses it (if one does)."""

    undone = Journal.undone_by(records)
    shown = list(reversed(records))[: limit if limit is not None else len(records)]
    # A record written before stages were kept says so by its op alone.
    return [{**r.summary(), "stage": r.stage or default_stage(r.op), "undone_by": undone.get(r.id)} for r in shown]


@dataclass
class ReviewQueue:
    """What waits for a person: stale memories (found now, or marked earlier) and conflicts."""

    stale: list[tuple[Entry, list[Finding]]] = field(default_factory=list)
    conflicts: list[dict[str, Any]] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.stale or self.conflicts)


def review_queue(store: Store, findings: list[Finding], conflicts: list[dict[str, Any]]) -> ReviewQueue:
    """The review queue from staleness findings (warnings and errors) and memories marked stale, then the
    conflicts compaction found."""
    by_entry: dict[str, list[Finding]] = {}
    for finding in findings:
        if finding.severity != Severity.info and finding.entry:
            by_entry.setdefault(finding.entry, []).append(finding)
    for entry in store.live():
        if entry.stale_reason and entry.id not in by_entry:
            by_entry[entry.id] = [Finding(kind="marked-stale", severity=Severity.warning, message=entry.stale_reason,
                                          source=entry.location.path, line=entry.location.start_line, entry=entry.id)]
    ids = store.by_id()
    return ReviewQueue(stale=[(ids[i], found) for i, found in by_entry.items() if i in ids], conflicts=conflicts)


def last_compaction(ws: Workspace) -> dict[str, Any] | None:
    """The newest compaction the journal holds that is not undone: its operation id and time."""
    records, _ = Journal(ws).records()
    undone = Journal.undone_by(records)
    ops = {*OPERATIONS, "views"}
    for record in reversed(records):
        if record.op in ops and record.id not in undone:
            return {"operation": record.id, "time": record.time.isoformat(), "op": record.op}
    return None


def store_status(ws: Workspace, store: Store, findings: Sequence[Finding] | None = None,
                 config: ContextConfig | None = None, budget: int | None = None) -> dict[str, Any]:
    """What `lore status` and MCP status say about the context: live entries, the tokens of the full
    store (entries and MIF files; a compressed entry as its summary) against the budget, stale memories,
    the last compaction, and whether the store is over the auto-compaction threshold."""
    config = config or ws.context
    limit = budget if budget is not None else config.budget if config.budget is not None else ws.compaction.budget
    tokens = memory_tokens(store)["entries"]
    live = [e for e in store.live() if config.include_instructions or e.format != "instruction"]
    if config.include_instructions:
        tokens += memory_tokens(store)["instructions"]
    at = int(config.auto_compact_threshold * limit)
    last = last_compaction(ws)
    return {"entries": len(live), "tokens": tokens, "budget": limit,
            "stale": len(stale_entries(store.live(), findings)), "last_compaction": last,
            "auto_compact": {"threshold": config.auto_compact_threshold, "at_tokens": at,
                             "exceeded": due(tokens, limit, config.auto_compact_threshold),
                             "compacted_since_change": last is not None and _unchanged_since(ws, store, last["time"])}}


def _unchanged_since(ws: Workspace, store: Store, when: str) -> bool:
    """Whether no memory file (entry, MIF) was written after ``when`` (an ISO time): compacting again
    would find what the last compaction found."""
    since = datetime.fromisoformat(when).timestamp()
    for path in {e.location.path for e in store.entries if e.format != "instruction"}:
        try:
            if (ws.root / path).stat().st_mtime > since + 5:  # (the compaction's own writes follow its record)
                return False
        except OSError:
            return False
    return True

