"""Every finding about the memory of a workspace, in one place: what the language server shows as
diagnostics. Schema problems come from the store, staleness from the checker, and here: duplicates and
near-duplicates (with every other copy as related information), contradictions, supersession problems
(unknown targets, cycles) and entries long enough to compress."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from itertools import compress, repeat
from operator import attrgetter, is_

from .compaction.remembered import remembered_facts
from .compaction.rules import Planner, SearchMemo, supersession_cycles
from .compaction_config import CompactionConfig
from .model import CompressFix, Entry, Finding, MergeFix, Severity, SupersedeFix
from .store import Store

log = logging.getLogger("lorekeeper")

_content_of = attrgetter("content")
_supersedes_of = attrgetter("supersedes")


def _related(entry: Entry, message: str) -> dict[str, object]:
    return {"source": entry.location.path, "line": entry.location.start_line, "message": message, "entry": entry.id}


def duplicate_findings(store: Store, config: CompactionConfig, search: SearchMemo | None = None,
                       save: bool = True) -> list[Finding]:
    """Duplicates and near-duplicates as the compaction rules see them, and their contradictions.
    ``search``: what the candidate search read and found, kept by the caller between calls. ``save``:
    write what the verifier learnt to the cache file now (else it is kept in this process: see
    :func:`.compaction.remembered.remembered_facts`)."""
    planner = Planner(store.entries, config, datetime.now(UTC), by_id=store.by_id(), live=store.live())
    planner.ws = store.ws  # its caches: the verifier's readings, the candidate pairs, the vectors
    planner.search = search
    with remembered_facts(store.ws, (e.content for e in store.entries), save=save):
        if search is not None:
            planner.same_facts()  # what it found last time, where nothing it turns on changed
            planner.find_conflicts()
        else:
            planner.dedup()
            planner.merge()
        if config.semantic_dedup:
            _semantic(planner, store)
    by_id = planner.by_id  # the store's (the planner only reads it)
    findings: list[Finding] = []
    # The findings of each group, kept by the caller with its search: a group the search kept (the same
    # operation, of the same entries) is reported as before (a save at 12k entries made ~3,900 anew).
    last = search.reported if search is not None else {}
    reported: dict[int, tuple[object, tuple[Entry, ...], list[Finding]]] = {}
    for op in planner.operations:
        if op.op not in ("dedup", "merge", "semantic") or not op.result:
            continue
        keeper = by_id.get(op.result["id"])
        if keeper is None:
            continue
        group = [by_id[s] for s in op.sources if s in by_id]
        members = (keeper, *group)
        kept = last.get(id(op))
        if kept is not None and kept[0] is op and len(kept[1]) == len(members) and all(map(is_, kept[1], members)):
            reported[id(op)] = kept
            findings.extend(kept[2])
            continue
        start = len(findings)
        exact = op.op == "dedup"
        for entry in group:
            others = [keeper] + [e for e in group if e is not entry]
            findings.append(Finding(
                kind="duplicate" if exact else "near-duplicate",
                severity=Severity.warning if exact else Severity.info,
                message=(f"same text as {keeper.id} ({keeper.where()})" if exact
                         else f"states the same fact in other words as {keeper.id} ({keeper.where()})"
                         if op.op == "semantic" else f"states the same fact as {keeper.id} ({keeper.where()})"),
                source=entry.location.path, line=entry.location.start_line, entry=entry.id,
                fix=MergeFix(entry=entry.id, into=keeper.id),
                related=[_related(o, "kept copy" if o is keeper else "another copy") for o in others]))
        reported[id(op)] = (op, members, findings[start:])
    if search is not None:
        search.reported = reported
    for conflict in planner.conflicts:
        if conflict["kind"] != "contradiction":
            continue
        newer, older = (by_id.get(i) for i in conflict["entries"])
        if newer is None or older is None:
            continue
        for entry, other in ((older, newer), (newer, older)):
            side = "newer" if other is newer else "older"
            findings.append(Finding(
                kind="contradiction", severity=Severity.warning, source=entry.location.path,
                line=entry.location.start_line, entry=entry.id,
                message=f"disagrees with the {side} {other.id} ({other.where()}): {conflict.get('reason', 'another value')}; "
                        "both stay until one is kept",
                fix=SupersedeFix(entry=older.id, by=newer.id),
                related=[_related(other, f"the {side} entry")]))
    return findings


def _semantic(planner: Planner, store: Store) -> None:
    """The semantic stage's merges, as findings: vectors from the cache, the model loaded (in the
    caller's thread: the server's check runs off the request path) only for texts without one."""
    from .semantic import SemanticUnavailable
    from .semantic.stage import semantic_merge

    try:
        semantic_merge(planner)
    except SemanticUnavailable as exc:
        log.warning("semantic duplicates not checked: %s", exc)


def conflicts(store: Store, config: CompactionConfig) -> list[dict[str, object]]:
    """The contradictions among live memories, as compaction finds them (newer first in ``entries``)."""
    planner = Planner(store.entries, config, datetime.now(UTC))
    planner.ws = store.ws
    with remembered_facts(store.ws, (e.content for e in store.entries)):
        planner.dedup()
        planner.merge()
    return [c for c in planner.conflicts if c["kind"] == "contradiction"]


def supersession_findings(store: Store, config: CompactionConfig) -> list[Finding]:
    """``supersedes`` naming entries that do not exist, and cycles of ``supersedes``."""
    by_id = store.by_id()
    findings: list[Finding] = []
    live = store.live()
    superseding = list(compress(live, map(_supersedes_of, live)))
    for entry in superseding:
        for target in entry.supersedes:
            if target not in by_id:
                findings.append(Finding(kind="dangling-supersedes", severity=Severity.warning, field="supersedes",
                                        source=entry.location.path, line=store.field_line(entry, "supersedes"), entry=entry.id,
                                        message=f"supersedes {target!r}, which is not in memory"))
    # The cycles compaction's supersede rule finds (and leaves alone).
    _, cycles = supersession_cycles({e.id: [t for t in e.supersedes if t in by_id and t != e.id] for e in superseding})
    for conflict in cycles:
        members = [by_id[i] for i in conflict["entries"] if i in by_id]
        for entry in members:
            findings.append(Finding(kind="supersession-cycle", severity=Severity.warning, field="supersedes",
                                    source=entry.location.path, line=store.field_line(entry, "supersedes"), entry=entry.id,
                                    message=conflict["message"],
                                    related=[_related(o, "in the same cycle") for o in members if o is not entry]))
    return findings


def verbose_findings(store: Store, config: CompactionConfig) -> list[Finding]:
    findings: list[Finding] = []
    live = store.live()
    # The entries over the threshold, found at C speed (a save in the editor at 10k entries asks again).
    newlines = map(str.count, map(_content_of, live), repeat("\n"))
    for entry in compress(live, map(config.compress_lines.__le__, newlines)):
        lines = entry.content.count("\n") + 1
        if entry.format != "instruction" and lines > config.compress_lines and not entry.summary:
            findings.append(Finding(kind="verbose-entry", severity=Severity.info, source=entry.location.path,
                                    line=entry.location.start_line, entry=entry.id,
                                    message=f"{lines} lines, over the compression threshold of {config.compress_lines}",
                                    fix=CompressFix(entry=entry.id)))
    return findings


def memory_findings(store: Store, config: CompactionConfig, search: SearchMemo | None = None,
                    save: bool = True) -> list[Finding]:
    """Findings that depend on memory alone (not on the code): store, duplicates, supersession, size.
    ``search`` and ``save``: see :func:`duplicate_findings`."""
    return [*store.findings, *duplicate_findings(store, config, search, save), *supersession_findings(store, config),
            *verbose_findings(store, config)]
