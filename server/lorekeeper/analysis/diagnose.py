"""Every finding about the memory of a workspace, in one place: what the language server shows as
diagnostics. Schema problems come from the store, staleness from the checker, and here: duplicates and
near-duplicates (with every other copy as related information), contradictions, supersession problems
(unknown targets, cycles) and entries long enough to compress."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime
from itertools import chain, compress, repeat
from operator import attrgetter, eq, is_, itemgetter
from typing import TYPE_CHECKING, Any

from ..core.bounded import brief
from ..core.model import CompressFix, Entry, Finding, MergeFix, Severity, SupersedeFix
from ..core.settings.compaction import CompactionConfig
from ..facts.near import Said
from ..facts.remembered import remembered_facts
from ..store import Store
from .agents import Repo, loading_findings, who_reads_twice
from .compaction.rules import Planner, PoolEdits, SearchMemo, supersession_cycles
from .context.timeline import blame_dates
from .repeats import Paraphrases, repeat_findings

if TYPE_CHECKING:
    from .compaction.semantic import SameFacts

log = logging.getLogger("lorekeeper")

_content_of = attrgetter("content")
_id_of = attrgetter("id")
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
    planner.dater = blame_dates(store.ws)
    planner.search = search
    edited = _changed(store, search, "grouped")
    if edited is not None:  # the entries a save changed, for the search to group again
        ids, before, after = edited
        planner.edits = PoolEdits([e for e in before if e.live], [e for e in after if e.live], store.live_among)
        if all(map(eq, map(_id_of, before), map(_id_of, after))) and all(e.live for e in (*before, *after)):
            planner.pool_ids = ids  # each changed entry kept its id, and is live: the live ids are the same
    if search is not None and planner.pool_ids is None:
        planner.pool_ids = list(map(_id_of, planner.pool))
    with remembered_facts(store.ws, (e.content for e in store.entries), save=save):
        if search is not None:
            planner.same_facts()  # what it found last time, where nothing it turns on changed
            planner.near_merge()
            planner.find_conflicts()
        else:
            planner.dedup()
            planner.merge()
        offers = _semantic(planner, store) if config.semantic_dedup else []
    by_id = planner.by_id  # the store's (the planner only reads it)
    # The findings of each group, kept by the caller with its search: a group the search kept (the same
    # operation, of the same entries) is reported as before (a save at 12k entries made ~3,900 anew).
    last = search.reported if search is not None else {}
    changed = planner.regrouped_ops if search is not None and not config.semantic_dedup else None
    if changed is not None and search is not None and search.reported_for == changed[2]:
        # Only the groups the save touched: the others are reported as before.
        dropped, added, _ = changed
        reported = last.copy()
        for op in (*dropped, *search.near_ops):  # (the near merges are found anew each time)
            reported.pop(id(op), None)
        for op in (*added, *planner.near_ops):
            _report(op, by_id, reported, {})
    else:
        reported = dict[int, tuple[Any, tuple[Entry, ...], list[Finding]]]()
        for op in planner.operations:
            _report(op, by_id, reported, last)
    findings: list[Finding] = list(chain.from_iterable(map(itemgetter(2), reported.values())))
    findings += _said_in_part(planner.near_kept, reported)
    findings += offers
    findings += _said_alike(planner.near_alike, reported)
    if search is not None:
        search.reported = reported
        search.near_ops = list(planner.near_ops)
        grouped = search.grouped
        search.reported_for = (grouped, grouped.version) if grouped is not None and not config.semantic_dedup else None
        _keep(store, search, "grouped", planner.pool_ids)
    # Each contradiction's findings, kept with the search like the groups' (by the pair's entries and
    # the reason: the same objects give the same findings).
    said: dict[tuple[str, str, str], tuple[Entry, Entry, list[Finding]]] = (
        search.diagnosed.pop("contradictions", (0, {}))[1] if search is not None else {})
    saying: dict[tuple[str, str, str], tuple[Entry, Entry, list[Finding]]] = {}
    for conflict in planner.conflicts:
        if conflict["kind"] != "contradiction":
            continue
        newer, older = (by_id.get(i) for i in conflict["entries"])
        if newer is None or older is None:
            continue
        reason = conflict.get("reason", "another value")
        key = (newer.id, older.id, reason)
        kept = said.get(key)
        if kept is None or kept[0] is not newer or kept[1] is not older:
            kept = (newer, older, [_contradiction(entry, other, other is newer, older, newer, reason)
                                   for entry, other in ((older, newer), (newer, older))])
        saying[key] = kept
        findings.extend(kept[2])
    if search is not None:
        search.diagnosed["contradictions"] = (store.serial, saying)
    return findings


def _said_twice(pairs: list[tuple[Entry, Entry]], reported: dict[int, tuple[Any, tuple[Entry, ...], list[Finding]]],
                said: Callable[[Entry], str], older_is: str) -> list[Finding]:
    """A ``near-duplicate`` with no fix on the newer of each pair (newer, older) that no operation already
    joins: an agent reads the fact twice, and which words stay is the team's to say. ``said``: the
    message, of the older; ``older_is``: what the related older memory is."""
    joined = {frozenset((a.id, b.id)) for _, members, _ in reported.values() for a in members for b in members}
    return [Finding(kind="near-duplicate", severity=Severity.info, source=newer.location.path,
                    line=newer.location.start_line, entry=newer.id, message=said(older),
                    related=[_related(older, older_is)])
            for newer, older in pairs if frozenset((newer.id, older.id)) not in joined]


def _said_in_part(pairs: list[tuple[Entry, Entry]],
                  reported: dict[int, tuple[Any, tuple[Entry, ...], list[Finding]]]) -> list[Finding]:
    """A newer entry that says part of what an older one says, in its words ("Run all Python commands
    with `uv run`." after "Manage dependencies with `uv` and run all python commands with `uv run`"): the
    newer may have dropped the rest on purpose."""
    return _said_twice(pairs, reported, lambda older: (
        f"says part of what the older {older.cited()} says, in its words: an agent reads it twice; "
        "it may have dropped the rest on purpose, so bring them together by hand or keep both"),
        "the older entry, which says more")


def _said_alike(pairs: list[tuple[Entry, Entry]],
                reported: dict[int, tuple[Any, tuple[Entry, ...], list[Finding]]]) -> list[Finding]:
    """Two memories that state one fact in nearly the same words, neither saying only what the other does
    ("**Python**: Use `uv` for package management. …" then "**Package Management**: Use `uv` for package
    management. …")."""
    return _said_twice(pairs, reported, lambda older: (
        f"states the same fact as the older {older.cited()} in nearly its words: an agent reads it "
        "twice; keep one by hand"), "the older memory, in nearly the same words")


def _contradiction(entry: Entry, other: Entry, newer: bool, older: Entry, newest: Entry, reason: str) -> Finding:
    side = "newer" if newer else "older"
    return Finding(kind="contradiction", severity=Severity.warning, source=entry.location.path,
                   line=entry.location.start_line, entry=entry.id,
                   message=f"disagrees with the {side} {other.cited()}: {reason}; both stay until one is kept",
                   fix=SupersedeFix(entry=older.id, by=newest.id), related=[_related(other, f"the {side} entry")])


def _report(op: Any, by_id: dict[str, Entry], reported: dict[int, tuple[Any, tuple[Entry, ...], list[Finding]]],
            last: dict[int, tuple[Any, tuple[Entry, ...], list[Finding]]]) -> None:
    """The findings of one group (a dedup, merge or semantic operation), added to ``reported`` by the
    operation's ``id()``: those in ``last`` where it holds this operation of the same entries."""
    if op.op not in ("dedup", "merge", "semantic") or not op.result:
        return
    keeper = by_id.get(op.result["id"])
    if keeper is None:
        return
    group = [by_id[s] for s in op.sources if s in by_id]
    members = (keeper, *group)
    kept = last.get(id(op))
    if kept is not None and kept[0] is op and len(kept[1]) == len(members) and all(map(is_, kept[1], members)):
        reported[id(op)] = kept
        return
    exact = op.op == "dedup"
    found: list[Finding] = []
    for entry in group:
        others = [keeper] + [e for e in group if e is not entry]
        found.append(Finding(
            kind="duplicate" if exact else "near-duplicate",
            severity=Severity.warning if exact else Severity.info,
            message=(f"same text as {keeper.cited()}" if exact
                     else f"states the same fact in other words as {keeper.cited()}"
                     if op.op == "semantic" else f"states the same fact as {keeper.cited()}"),
            source=entry.location.path, line=entry.location.start_line, entry=entry.id,
            fix=MergeFix(entry=entry.id, into=keeper.id),
            related=[_related(o, "kept copy" if o is keeper else "another copy") for o in others]))
    reported[id(op)] = (op, members, found)


def _semantic(planner: Planner, store: Store) -> list[Finding]:
    """The semantic stage's merges, as findings: vectors from the cache, the model loaded (in the
    caller's thread: the server's check runs off the request path) only for texts without one; none
    where vectors are missing in a run that asked for cached ones only (:func:`.semantic.cached_only`).
    Returned: the merges a configured model offered in an earlier run (`lore compact --semantic --llm`),
    from its kept verdicts, asking nothing (:func:`_offered`)."""
    from .compaction.semantic import offered, semantic_merge
    from .semantic import SemanticUnavailable, VectorsPending

    try:
        semantic_merge(planner)
        same = remembered_same(store)
        return _offered(offered(planner, same)) if same is not None else []
    except VectorsPending:
        pass  # (counted: the caller looks again with the model)
    except SemanticUnavailable as exc:
        log.warning("semantic duplicates not checked: %s", exc)
    return []


def _offered(pairs: list[tuple[Entry, Entry, str]]) -> list[Finding]:
    """A merge a model offered, as a finding with its quick fix: never made but by the user."""
    return [Finding(kind="near-duplicate", severity=Severity.info, source=entry.location.path,
                    line=entry.location.start_line, entry=entry.id,
                    message=f"states the same fact in other words as {keeper.cited()}, as judged by "
                            f"{by.removeprefix('llm:')} (no rule says so): merge them if it does",
                    fix=MergeFix(entry=entry.id, into=keeper.id), related=[_related(keeper, "kept copy")])
            for entry, keeper, by in pairs]


def paraphrase_finder(store: Store, config: CompactionConfig, same: SameFacts | None = None) -> Paraphrases | None:
    """With the semantic stage on, what finds instruction lines that state one fact in other words (the
    model loaded, in the caller's thread, only for texts without a cached vector); else ``None``. ``same``:
    who judges the nearer pairs the guard does not vouch for (``lore repeats --llm``: the configured
    model); by default the answers a configured model gave earlier runs, never asking it again
    (:func:`remembered_same`)."""
    if not config.semantic_dedup:
        return None

    def find(texts: list[str], where: list[str], kept: Callable[[Said], bool]) -> list[Said]:
        from .compaction.semantic import paraphrases
        from .semantic import SemanticUnavailable, VectorsPending

        try:
            return paraphrases(store.ws, config, texts, same if same is not None else remembered_same(store), where, kept)
        except VectorsPending:
            return []  # (counted: the caller looks again with the model)
        except SemanticUnavailable as exc:
            log.warning("repeated instructions in other words not checked: %s", exc)
            return []

    return find


def remembered_same(store: Store) -> SameFacts | None:
    """The judgements of pairs of instruction lines or of entries the configured model gave earlier runs
    (``lore repeats --llm``, ``lore compact --semantic --llm``), asking it nothing: what the editor's
    findings and ``lore repeats --semantic`` show of them. ``None`` with no model configured or no
    judgement kept."""
    from .llm import open_stage

    stage, _ = open_stage(store.ws, cached_only=True)
    return stage.same_facts if stage is not None and stage.has_pairs else None


def conflicts(store: Store, config: CompactionConfig) -> list[dict[str, object]]:
    """The contradictions among live memories, as compaction finds them (newer first in ``entries``)."""
    planner = Planner(store.entries, config, datetime.now(UTC))
    planner.ws = store.ws
    planner.dater = blame_dates(store.ws)
    with remembered_facts(store.ws, (e.content for e in store.entries)):
        planner.dedup()
        planner.merge()
    return [c for c in planner.conflicts if c["kind"] == "contradiction"]


def _changed(store: Store, search: SearchMemo | None, kind: str) -> tuple[Any, list[Entry], list[Entry]] | None:
    """What ``search`` kept of the answer of ``kind`` for the store this one was patched from, and the
    entries that store held where this one holds others, and those others (:meth:`.Store.changes_since`);
    ``None`` where the answer is to be found over every entry. The kept answer is the caller's to
    update: it is taken out of ``search`` until the caller keeps the new one (:func:`_keep`)."""
    if search is None:
        return None
    kept = search.diagnosed.pop(kind, None)
    if kept is None:
        return None
    changes = store.changes_since(kept[0])
    return (kept[1], *changes) if changes is not None else None


def _keep(store: Store, search: SearchMemo | None, kind: str, answer: Any) -> None:
    if search is not None:
        search.diagnosed[kind] = (store.serial, answer)


def supersession_findings(store: Store, config: CompactionConfig, search: SearchMemo | None = None) -> list[Finding]:
    """``supersedes`` naming entries that do not exist, and cycles of ``supersedes``. ``search``: where
    the ids of the live entries that supersede others are kept between calls (a save in the editor at
    10k entries asks again: the entries it changed are looked at, not every entry)."""
    found = _changed(store, search, "superseding")
    if found is not None:
        (ids, kept), before, after = found
        if not any(map(_supersedes_of, (*before, *after))) and set(map(_id_of, before)) == set(map(_id_of, after)):
            # No entry that supersedes changed, and the same ids are in memory: the same answer.
            _keep(store, search, "superseding", (ids, kept))
            return list(kept)
        ids = ids.difference(map(_id_of, before))
        ids.update(e.id for e in after if e.live and e.supersedes)
        superseding = [e for e in store.live_among(ids) if e.supersedes]
    else:
        live = store.live()
        superseding = list(compress(live, map(_supersedes_of, live)))
    by_id = store.by_id()
    findings: list[Finding] = []
    for entry in superseding:
        for target in entry.supersedes:
            if target not in by_id:
                findings.append(Finding(kind="dangling-supersedes", severity=Severity.warning, field="supersedes",
                                        source=entry.location.path, line=store.field_line(entry, "supersedes"), entry=entry.id,
                                        message=f"supersedes {brief(target)}, which is not in memory"))
    # The cycles compaction's supersede rule finds (and leaves alone).
    _, cycles = supersession_cycles({e.id: [t for t in e.supersedes if t in by_id and t != e.id] for e in superseding})
    for conflict in cycles:
        members = [by_id[i] for i in conflict["entries"] if i in by_id]
        for entry in members:
            findings.append(Finding(kind="supersession-cycle", severity=Severity.warning, field="supersedes",
                                    source=entry.location.path, line=store.field_line(entry, "supersedes"), entry=entry.id,
                                    message=conflict["message"],
                                    related=[_related(o, "in the same cycle") for o in members if o is not entry]))
    _keep(store, search, "superseding", (set(map(_id_of, superseding)), list(findings)))
    return findings


def verbose_findings(store: Store, config: CompactionConfig, search: SearchMemo | None = None) -> list[Finding]:
    """Entries long enough to compress. ``search``: where the findings are kept between calls (only
    the entries a save changed are looked at again)."""
    limit = config.compress_lines
    found = _changed(store, search, "verbose")
    if found is not None and found[0][0] == limit:
        (_, kept), before, after = found
        for entry in before:
            kept.pop(entry.id, None)
        for entry in after:
            finding = _verbose(entry, limit) if entry.live else None
            if finding is not None:
                kept[entry.id] = finding
        findings = [kept[e.id] for e in store.live_among(set(kept))]
    else:
        # The entries over the threshold, found at C speed (a save in the editor at 10k entries asks again).
        live = store.live()
        newlines = map(str.count, map(_content_of, live), repeat("\n"))
        findings = [f for f in map(_verbose, compress(live, map(limit.__le__, newlines)), repeat(limit)) if f is not None]
    _keep(store, search, "verbose", (limit, {f.entry: f for f in findings}))
    return findings


def _verbose(entry: Entry, limit: int) -> Finding | None:
    lines = entry.content.count("\n") + 1
    if not entry.rewritable or lines <= limit or entry.summary:
        return None
    return Finding(kind="verbose-entry", severity=Severity.info, source=entry.location.path,
                   line=entry.location.start_line, entry=entry.id,
                   message=f"{lines} lines, over the compression threshold of {limit}", fix=CompressFix(entry=entry.id))


def memory_findings(store: Store, config: CompactionConfig, search: SearchMemo | None = None,
                    save: bool = True, repo: Repo | None = None) -> list[Finding]:
    """Findings that depend on memory alone (not on the code): store, duplicates, supersession, size, and
    how agents load the instruction files. ``search`` and ``save``: see :func:`duplicate_findings`;
    ``repo``: the repository's files as this check listed them (else listed here)."""
    repo = repo or Repo(store.ws)
    repeated = repeat_findings(store.entries, config.source_files, paraphrase_finder(store, config))
    return [*store.findings, *loading_findings(store.ws, repo), *duplicate_findings(store, config, search, save),
            *who_reads_twice(store.ws, repeated, repo),
            *supersession_findings(store, config, search), *verbose_findings(store, config, search)]
