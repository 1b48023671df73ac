# pyright: standard
"""Stage 1 compaction: deterministic rules, no model. Each rule consumes entries from a shared pool so
that an entry takes part in one operation at most; :data:`RULES` (at the end of the planner) lists them
in the order they run.

Two entries become one only when the verifier (:mod:`.verify`) says they state the same fact; a pair it
finds in conflict (the same statement with another value, or negated) is reported for review and both
stay live until the user, or an explicit ``supersedes``, decides. Only entry and MIF files are
rewritten. Instruction-file entries (CLAUDE.md bullets...) are read and can be the survivor of a merge,
but their text is the user's: stage 1 never edits it."""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache
from itertools import chain, compress
from operator import attrgetter, not_
from typing import TYPE_CHECKING, Any, NamedTuple

from ...core.candidates import rare_key_pairs
from ...core.model import Entry, newer_and_older, stamp
from ...core.settings.compaction import CompactionConfig
from ...core.text import TEXT_CACHE, normalize, summarize
from ...facts.near import near, within, words_of
from ...facts.remembered import rules_version, text_key
from ...facts.scope import apart, is_history, one_document, said_by_its_label, scope_tags
from ...facts.verify import compare, compare_all, fact_key, fact_keys, fact_size, prepared
from ...infra import cache as cache_files
from ...infra.tokens import count_tokens
from .plan import PlanOperation
from .search import (
    CANDIDATES_FILE,
    Grouped,
    Judged,
    Judgement,
    SearchMemo,
    candidate_pairs,
    changes_between,
    created_or_epoch,
    groups_of_one_fact,
    source_version,
    supersession_cycles,
)

if TYPE_CHECKING:
    from ...workspace import Workspace

DERIVED = "compaction"  # the ``source`` of entries compaction wrote (fused, consolidated)


#: :func:`normalize`, remembered: dedup and the conflict search both read every text's.
_normal = lru_cache(maxsize=TEXT_CACHE)(normalize)


_id_of = attrgetter("id")
_content_of = attrgetter("content")
_sources_of = attrgetter("sources")


def _stamp(now: datetime) -> str:
    return stamp(now)


class PoolEdits(NamedTuple):
    """How a pool differs from the one a kept search (:class:`SearchMemo`) last grouped, as the caller
    knows it (a store patched after a save: :meth:`.Store.changes_since`): the entries that left it or
    were replaced (``before``), the entries that joined it or took their place (``after``), and the
    pool's entries with some ids, in pool order (``among``)."""

    before: list[Entry]
    after: list[Entry]
    among: Callable[[set[str]], list[Entry]]


class Planner:
    """Builds the operations of one compaction plan from a store's entries."""

    def __init__(self, entries: list[Entry], config: CompactionConfig, now: datetime, *,
                 by_id: dict[str, Entry] | None = None, live: list[Entry] | None = None):
        """``by_id`` and ``live``: the entries by id (the last of an id used twice) and the live ones in
        order, where the caller has them (a store's :meth:`~.Store.by_id` and :meth:`~.Store.live`)."""
        self.config = config
        self.now = now
        self.by_id = by_id if by_id is not None else {e.id: e for e in entries}
        self.pool = live if live is not None else [e for e in entries if e.live]
        self.consumed: set[str] = set()
        self.operations: list[PlanOperation] = []
        self.conflicts: list[dict[str, Any]] = []
        self.new_entries: list[dict[str, Any]] = []
        self.ws: Workspace | None = None  # where caches live (the semantic stage's vectors)
        #: The dates of instruction lines by their own last commit (entry id -> date), which orders a
        #: conflict between a line and another memory; None: by the file's date, as the store reads it.
        self.dater: Callable[[list[Entry]], Mapping[str, datetime]] | None = None
        #: The texts of the instruction lines of each file (:meth:`_stated_beside`), read when first asked.
        self._lines_by_file: defaultdict[str, set[str]] | None = None
        #: What the candidate search read of each text and found, kept by the caller between plans of a
        #: store that changes a little at a time (the language server after a save).
        self.search: SearchMemo | None = None
        self._summarized: set[str] = set()  # texts whose summaries were prepared (see :meth:`_prepared`)
        self._available: dict[bool, tuple[int, list[Entry], list[str] | None]] = {}  # see :meth:`available`
        #: How the pool differs from the one :attr:`search` last grouped, where the caller knows.
        self.edits: PoolEdits | None = None
        #: Plan fusions that cost more tokens than their sources too, as drafts a later stage (the LLM)
        #: may write shorter; :meth:`drop_growing_fusions` removes those still longer after it.
        self.fuse_drafts = False
        #: The ids of :attr:`pool` in order, where the caller has them (reading 10k ids costs ~1 ms).
        self.pool_ids: list[str] | None = None
        #: Where :meth:`same_facts` updated the kept answer: the operations it dropped and those it added,
        #: and the answer and its version they were dropped from.
        self.regrouped_ops: tuple[list[PlanOperation], list[PlanOperation], tuple[Grouped, int]] | None = None
        #: The operations :meth:`near_merge` planned (not part of :attr:`search`'s kept answer).
        self.near_ops: list[PlanOperation] = []
        #: Pairs (newer, older) where the newer entry says part of what the older says, in its words: not
        #: merged (it may have dropped the rest on purpose), reported (:meth:`near_merge`).
        self.near_kept: list[tuple[Entry, Entry]] = []
        #: Pairs (newer, older) that state one fact in nearly the same words though neither says only
        #: what the other does ("**Python**: Use `uv` …" relabelled "**Package Management**: Use `uv` …"):
        #: reported, never merged (:meth:`near_merge`).
        self.near_alike: list[tuple[Entry, Entry]] = []

    # -- helpers ---------------------------------------------------------------------------------

    def available(self, writable_only: bool = True) -> list[Entry]:
        # Entries are only ever added to ``consumed``: the last answer, narrowed, is this one (rules ask
        # again and again, and most of a large store is consumed early).
        # The ids are kept next to the entries once read: reading an attribute of every entry of a large
        # store costs far more than the test (at 120k entries, each entry's attributes are a cache miss).
        consumed, last = len(self.consumed), self._available.get(writable_only)
        if last is None:
            if writable_only:
                last = (-1, [e for e in self.pool if e.rewritable], None)
            else:
                last = (-1, list(self.pool), list(self.pool_ids) if self.pool_ids is not None else None)
        if last[0] != consumed and not consumed:
            last = (consumed, last[1], last[2])
        elif last[0] != consumed:  # (at C speed: a save in the editor asks this of a 10k pool)
            ids = last[2] if last[2] is not None else list(map(_id_of, last[1]))
            kept = list(map(not_, map(self.consumed.__contains__, ids)))
            last = (consumed, list(compress(last[1], kept)), list(compress(ids, kept)))
        self._available[writable_only] = last
        return list(last[1])

    def _emit(self, op: str, sources: list[Entry], reason: str, fields: dict[str, Any] | None = None,
              result: Entry | dict[str, Any] | None = None, new_entry: dict[str, Any] | None = None,
              new_path: str | None = None, per_source: dict[str, dict[str, Any]] | None = None,
              extra: list[tuple[Entry, dict[str, Any]]] | None = None) -> None:
        ids = list(map(_id_of, sources))
        if per_source:
            updates = [(s, per_source[i]) for s, i in zip(sources, ids, strict=True)]
        else:
            updates = [(s, dict(fields or {})) for s in sources]
        updates += extra or []
        self.consumed.update(ids)
        result_json = result.public() if isinstance(result, Entry) else result
        self.operations.append(PlanOperation(op=op, sources=ids, reason=reason, result=result_json,
                                             updates=updates, new_entry=new_entry, new_path=new_path))

    # -- supersede -------------------------------------------------------------------------------

    def supersede(self) -> None:
        """Follow ``supersedes`` links: every live entry a newer one supersedes gets ``superseded_by``,
        transitively (A supersedes B supersedes C: only A stays live). Links to unknown ids are ignored;
        cycles are reported and left alone."""
        edges = {e.id: [t for t in e.supersedes if t in self.by_id and t != e.id] for e in self.pool if e.supersedes}
        in_cycle = self._cycles(edges)
        for entry in sorted((e for e in self.pool if e.id in edges), key=lambda e: (created_or_epoch(e), e.id), reverse=True):
            if entry.id in in_cycle:
                continue
            targets = [self.by_id[t] for t in edges.get(entry.id, [])
                       if t not in in_cycle and t not in self.consumed and self.by_id[t].live
                       and self.by_id[t].rewritable]
            if targets:
                self._emit("supersede", targets, f"superseded by {entry.id}: {_short(entry.content)}",
                           {"superseded_by": entry.id}, result=entry)

    def _cycles(self, edges: dict[str, list[str]]) -> set[str]:
        members, cycles = supersession_cycles(edges)
        self.conflicts.extend(cycles)
        return members

    # -- dedup and merge -------------------------------------------------------------------------

    def dedup(self) -> None:
        """Exact duplicates: the same text after normalisation (case, whitespace, punctuation, Markdown)
        and the same literals (the verifier's key: ``^18.3.1`` is not ``~18.3.1``)."""
        # An entry whose normalised text no other entry has shares no key: its fact key (a parse) is not
        # needed, and most texts of a large store are unique.
        pool = self.available(writable_only=False)
        normals = list(map(_normal, map(_content_of, pool)))
        counts = Counter(normals)
        shared = list(compress(pool, map((1).__lt__, map(counts.__getitem__, normals))))  # the others join no group

        def keys(entry: Entry) -> list[str]:
            return [_normal(entry.content) + "\x00" + fact_key(entry.content)]

        with self._prepared(shared):
            self._same_facts("dedup", keys, shared, one_key=True)

    def _prepared(self, entries: Iterable[Entry]) -> AbstractContextManager[None]:
        """:func:`.verify.prepared` for the texts of ``entries`` not prepared before in this plan (the
        verifier remembers those: it was asked about each of them)."""
        texts = [e.content for e in entries if e.content not in self._summarized]
        self._summarized.update(texts)
        return prepared(texts)

    def _same_facts(self, op: str, keys_of: Any, among: list[Entry] | None = None, *, one_key: bool = False) -> None:
        """Entries that share a key become one: the survivor is the most complete copy, it gains the
        others' references and tags, and the others get ``merged_into`` it. Entries are grouped when
        they share any of their keys, then split where the words they write as code differ. ``among``:
        the available entries that may share a key, when the caller knows (in their order). ``one_key``:
        each entry has one key (see :func:`groups_of_one_fact`)."""
        for keeper, group in groups_of_one_fact(self.available(writable_only=False) if among is None else among, keys_of,
                                     one_key=one_key):
            others = [e for e in group if e is not keeper and e.rewritable]
            if not others:
                continue
            reason = (f"same text as {keeper.cited()}" if op == "dedup"
                      else f"states the same fact as {keeper.id}: {_short(keeper.content)}")
            self._emit(op, others, reason, {"merged_into": keeper.id}, result=keeper,
                       extra=self._union_into(keeper, others))

    def writable(self, entry: Entry) -> bool:
        return entry.rewritable

    def conflicted(self) -> set[str]:
        return self._conflicted()

    def emit_merge(self, op: str, keeper: Entry, others: list[Entry], reason: str) -> None:
        """``others`` get ``merged_into`` the keeper, which gains their references and tags."""
        self._emit(op, others, reason, {"merged_into": keeper.id}, result=keeper, extra=self._union_into(keeper, others))

    def _union_into(self, keeper: Entry, others: list[Entry]) -> list[tuple[Entry, dict[str, Any]]]:
        changes = union_changes(keeper, others)
        return [(keeper, changes)] if changes else []

    def same_facts(self) -> None:
        """:meth:`dedup`, then the grouping half of :meth:`merge` (its conflicts are left to
        :meth:`find_conflicts`). With :attr:`search` kept by the caller, its last answer is reused:
        entries are grouped only through keys they share (the text normalised, the fact keys), so only
        the entries joined through keys to one added, removed or changed since (the same object no
        longer) are grouped again; every other group stands as found."""
        memo = self.search
        last = memo.grouped if memo is not None else None
        if memo is not None:
            memo.grouped = None  # until it is this answer's, whole
        if memo is None:
            self._group_all()
            return
        settings = self.config.model_dump()
        edits = self.edits
        if edits is not None and last is not None and last.settings == settings:
            after = {e.id: e for e in edits.after}
            if not last.apply(after, [e.id for e in edits.before if e.id not in after]):
                last = None
            within = edits.among(last.regrouped) if last is not None else []
        else:
            ids = self.pool_ids if self.pool_ids is not None else list(map(_id_of, self.pool))
            entries = dict(zip(ids, self.pool, strict=True))
            if len(entries) != len(ids):  # ids used twice: the answer is not kept by id
                self._group_all()
                return
            if last is None or last.settings != settings or not last.update(entries):
                last = None
            within = list(compress(self.pool, map(last.regrouped.__contains__, ids))) if last is not None else []
        if last is None:
            self._group_all()
            last = Grouped(settings, {e.id: e for e in self.pool}, self.operations)
        else:
            again = Planner(within, self.config, self.now)
            again._group_all()
            version = (last, last.version)
            self.regrouped_ops = (*last.regroup(again.operations), version)
            self.operations = list(last.operations)
            self.consumed = set(chain.from_iterable(map(_sources_of, self.operations)))
        memo.grouped = last

    def _group_all(self) -> None:
        self.dedup()
        with self._prepared(self.available(writable_only=False)):
            self._same_facts("merge", lambda e: fact_keys(e.content))

    def merge(self) -> None:
        """The same fact in other words — function words, inflection, clause order (the verifier's
        key) — becomes one entry, as in :meth:`dedup`. Then contradictions: near-identical entries
        (rapidfuzz token_sort_ratio over candidates that share rare words, so 10k entries stay fast) that
        the verifier finds in conflict — the same statement with another value, or negated. They are
        reported for review and both stay live (``lore review`` or the editor can keep the newer)."""
        with self._prepared(self.available(writable_only=False)):
            self._same_facts("merge", lambda e: fact_keys(e.content))
        self.near_merge()
        self.find_conflicts()

    def near_merge(self) -> None:
        """An entry that says nothing another says not, in nearly its words (:func:`.near.within`: "Run
        tests: `uv run pytest`" / "Run tests with `uv run pytest` after making significant changes."),
        goes into that other, of the same scope (:func:`.scope.apart`), when that other is not older: a
        newer text that says less may have dropped something on purpose, and then both stay. Of several
        that say more, the fullest keeps it. The operations are :attr:`near_ops` too (an editor's search
        kept between saves finds them again each time: they are few); the pairs kept because the newer says
        less are :attr:`near_kept`, reported without a fix."""
        pool = [e for e in self.available(writable_only=False) if not is_history(e.content)]
        self.near_ops = []
        self.near_kept = []
        self.near_alike = []
        if len(pool) < 2:
            return
        words = [words_of(e.content) for e in pool]
        cap = min(30, max(8, len(pool) // 10))  # as for repeated instruction lines (analysis.repeats)
        into: dict[int, list[int]] = defaultdict(list)  # the entry that says less -> those that say it all
        replaced = {old for e in pool for old in e.supersedes}
        for i, j in rare_key_pairs(words, cap=cap, per_item=3):
            found = False
            for less, more in ((i, j), (j, i)):
                a, b = pool[less], pool[more]
                if (a.rewritable and words[less] <= words[more] and not apart(a, b)
                        and b.id not in a.coexists_with and a.id not in b.coexists_with
                        and _same_command(a.content, b.content) and within(a.content, b.content)):
                    found = True
                    if _not_older(b, a, self.dated):
                        into[less].append(more)
                    else:
                        self.near_kept.append((a, b))
            a, b = pool[i], pool[j]
            # the same fact in nearly its words, neither within the other: two entries, or an entry and an
            # instruction line (two instruction lines are lore repeats' to report); not one an entry says it
            # supersedes (an update, recorded); the words first, as near() would (most pairs end there)
            wa, wb = words[i], words[j]
            if (not found and not a.format == b.format == "instruction"
                    and (wa <= wb or wb <= wa or len(wa & wb) >= 0.85 * len(wa | wb))
                    and a.id not in replaced and b.id not in replaced and not apart(a, b)
                    and b.id not in a.coexists_with and a.id not in b.coexists_with
                    and _same_command(a.content, b.content) and near(a.content, b.content)):
                self.near_alike.append(newer_and_older(a, b))
        size = [fact_size(e.content) for e in pool]
        gone: set[int] = set()
        for more in sorted({m for ms in into.values() for m in ms}, key=lambda k: (-size[k], k)):
            if more in gone:
                continue
            others = [k for k, ms in into.items() if k not in gone and more in ms
                      and max(ms, key=lambda m: (m not in gone, size[m], -m)) == more]
            if not others:
                continue
            gone.update(others)
            keeper = pool[more]
            self.emit_merge("merge", keeper, [pool[k] for k in sorted(others)],
                            f"says nothing {keeper.id} does not, in nearly its words: {_short(keeper.content)}")
            self.near_ops.append(self.operations[-1])

    def dated(self, entries: list[Entry]) -> Mapping[str, datetime]:
        """The dates of ``entries``: an instruction line's own last commit where :attr:`dater` knows it."""
        lines = [e for e in entries if e.format == "instruction"]
        known = self.dater(lines) if self.dater is not None and lines else {}
        return {e.id: d for e in entries if (d := known.get(e.id, e.created)) is not None}

    def find_conflicts(self) -> None:
        """Record the contradictions among the entries still available (see :meth:`merge`). Candidates
        are pairs the verifier could find in conflict: near-identical texts (rapidfuzz token_sort_ratio
        over entries that share rare words, so 10k entries stay fast), and texts that share what an
        update in other words turns on — a value one of them retires, tools of one role, versions of
        one name, parts of an environment variable (:func:`.updates.anchors`). Pairs a person marked as
        both true (``coexists_with``) are left alone."""
        known = {tuple(c["entries"]) for c in self.conflicts if c["kind"] == "contradiction"}
        pool = self.available(writable_only=False)
        candidates = self._candidates(pool)
        if self.search is None:
            judged = self._judged(candidates)
            conflicting = {pair: j for pair, j in judged.items() if j is not None and j[3].verdict == "conflict"}
        else:
            conflicting = self._judged_again(pool, candidates, self.search)
        conflicting = dict(conflicting)  # (a kept search's answer is not changed)
        self._order_by_lines(conflicting)
        for pair in sorted(conflicting):
            newer, older, score, verdict = conflicting[pair]
            if (newer.id, older.id) in known:
                continue
            self.conflicts.append({
                "kind": "contradiction", "entries": [newer.id, older.id], "similarity": int(score),
                "old": verdict.old, "new": verdict.new, "reason": verdict.reason,
                "message": f"{newer.id} and {older.id} disagree ({verdict.reason}); both stay until one is "
                           f"kept — newer: {_short(newer.content)} / older: {_short(older.content)}"})

    def _order_by_lines(self, conflicting: dict[tuple[str, str], Judgement]) -> None:
        """Conflicts with a line of an instruction file: the newer is the one written later, the line
        dated by its own last commit (:attr:`dater`), not by its file's first ("Python 3.12+." in an entry
        of February is older than AGENTS.md's "Target Python 3.14 or newer." added in August, though
        AGENTS.md itself is older). Re-judged in that order; kept as it was where the verifier then sees
        no conflict."""
        if self.dater is None:
            return
        lines = {e.id: e for newer, older, _, _ in conflicting.values() for e in (newer, older)
                 if e.format == "instruction"}
        if not lines:
            return
        dates = self.dater(list(lines.values()))
        for pair, (newer, older, score, _) in list(conflicting.items()):
            if newer.id not in lines and older.id not in lines:
                continue
            when_newer, when_older = dates.get(newer.id, newer.created), dates.get(older.id, older.created)
            if when_newer is None or when_older is None or when_older <= when_newer:
                continue
            verdict = compare(newer.content, older.content)  # (the older text first: now the other one)
            if verdict.verdict == "conflict":
                conflicting[pair] = (older, newer, score, verdict)

    def _stated_beside(self, a: Entry, b: Entry) -> bool:
        """Two lines of two instruction files where one file also states the other's line word for word:
        that file holds both (steps 6 and 7 of a procedure, "If pass, load: `…/reports`" then "… `…/mode-
        transitions`", in a rules folder and in a copy of it), which are then two items, not rival values."""
        if not (a.format == b.format == "instruction") or a.location.path == b.location.path:
            return False
        if self._lines_by_file is None:
            self._lines_by_file = defaultdict(set)
            for e in self.pool:
                if e.format == "instruction":
                    self._lines_by_file[e.location.path].add(normalize(e.content))
        return (normalize(b.content) in self._lines_by_file.get(a.location.path, ())
                or normalize(a.content) in self._lines_by_file.get(b.location.path, ()))

    def _judged(self, candidates: dict[tuple[str, str], float], *, kept: bool = False) -> dict[tuple[str, str], Judgement | None]:
        """The verifier's judgement of each candidate pair (ids in order, with their similarity): the newer
        entry, the older, the similarity and the verdict on the older text given the newer; ``None`` for
        a pair a person marked as both true (``coexists_with``), which is not asked about. With
        :attr:`search`, the verdicts on pairs of texts judged before are reused; ``kept``: they are added
        to (a kept search's pairs), else they become this search's."""
        asked: list[tuple[tuple[str, str], Entry, Entry, float]] = []  # (pair, newer, older, similarity)
        judged: dict[tuple[str, str], Judgement | None] = {}
        for pair, score in candidates.items():
            entry, other = self.by_id[pair[0]], self.by_id[pair[1]]
            if pair[1] in entry.coexists_with or pair[0] in other.coexists_with or apart(entry, other) \
                    or one_document(entry, other) or is_history(entry.content) or is_history(other.content) \
                    or said_by_its_label(entry) or said_by_its_label(other) or self._stated_beside(entry, other):
                # both true, of different scopes or one file, one is history, or its list's label turns it
                judged[pair] = None
                continue
            asked.append((pair, *newer_and_older(entry, other), score))
        texts = [(older.content, newer.content) for _, newer, older, _ in asked]
        memo = self.search
        if memo is None:
            verdicts = compare_all(texts)
        else:  # the verdicts of the last search, for the pairs of texts asked again (most, after a save)
            last = memo.verdicts
            missing = [pair for pair in texts if pair not in last]
            learnt = dict(zip(missing, compare_all(missing), strict=True))
            verdicts = [last[pair] if pair in last else learnt[pair] for pair in texts]
            if not kept:
                memo.verdicts = dict(zip(texts, verdicts, strict=True))
            else:
                last.update(learnt)
        for (pair, newer, older, score), verdict in zip(asked, verdicts, strict=True):
            judged[pair] = (newer, older, score, verdict)
        return judged

    def _judged_again(self, pool: list[Entry], candidates: dict[tuple[str, str], float],
                      memo: SearchMemo) -> dict[tuple[str, str], Judgement]:
        """The contradictions among ``candidates`` by pair, as :meth:`_judged` finds them, updating the
        last search's answer (:class:`Judged`): only the pairs that are new, scored otherwise, or join an
        entry added, removed or changed (another object) are judged again. A save at 10k entries went
        over ~4,000 pairs."""
        last, memo.judged = memo.judged, None  # until it is this search's, whole
        met = memo.met
        if last is not None and met is not None and last.met == (met, met.round - 1):
            # The candidate search was updated from the one these verdicts are about: it says which
            # entries changed and which pairs it dropped, found or scored again.
            changed, gone = met.moved
            again = {pair for pair in met.touched if pair in candidates}
            for entry in changed:
                last.entries[entry.id] = entry
            for entry_id in gone:
                last.entries.pop(entry_id, None)
            for entry_id in (*map(_id_of, changed), *gone):
                again.update(pair for pair in last.members.get(entry_id, ()) if pair in candidates)
            for pair in again.union(met.touched):
                last.forget(pair)
            self._learn(last, candidates, again, memo)
            last.met = (met, met.round)
            memo.judged = last
            return last.conflicting
        entries = dict(zip(map(_id_of, pool), pool, strict=True))
        found = changes_between(last.entries, entries) if last is not None and len(entries) == len(pool) else None
        if last is None or found is None:
            judged = self._judged(candidates)
            last = Judged(entries, candidates, judged)
        else:
            changed, gone = found
            again = {pair for pair, _ in candidates.items() - last.scores.items()}
            for entry_id in (*changed, *gone):
                again.update(pair for pair in last.members.get(entry_id, ()) if pair in candidates)
            for pair in again | (last.scores.keys() - candidates.keys()):
                last.forget(pair)
            last.entries = entries
            self._learn(last, candidates, again, memo)
        last.met = (met, met.round) if met is not None else None
        memo.judged = last
        return last.conflicting

    def _learn(self, last: Judged, candidates: dict[tuple[str, str], float], again: set[tuple[str, str]],
               memo: SearchMemo) -> None:
        """Judge the pairs ``again`` and make ``last`` the answer over ``candidates``."""
        for pair, judgement in self._judged({pair: candidates[pair] for pair in again}, kept=True).items():
            last.learn(pair, judgement)
        last.scores = candidates
        if len(memo.verdicts) > 2 * len(candidates) + 100:  # verdicts on texts no longer asked about
            memo.verdicts = {(j[1].content, j[0].content): j[3] for j in last.judged.values() if j is not None}

    def _candidates(self, pool: list[Entry]) -> dict[tuple[str, str], float]:
        """:func:`candidate_pairs`, kept in ``.lore/cache/candidates.json`` for the same pool (ids and
        texts in order), threshold and rules: a warm plan of an unchanged memory skips the search. Where
        the caller keeps the last search (:attr:`search`), that is updated instead."""
        if self.ws is None or (self.search is not None and self.search.sharing is not None):
            return candidate_pairs(pool, self.config.merge_threshold, self.search)

        digest = hashlib.blake2b(digest_size=16)
        digest.update(f"{rules_version()}|{source_version()}|{self.config.merge_threshold}".encode())
        for entry in pool:
            digest.update(f"{entry.id}\x00{text_key(entry.content)}\x00".encode())
        key = digest.hexdigest()
        data = cache_files.read_json(self.ws.root, self.ws.cache_dir, CANDIDATES_FILE)
        if isinstance(data, dict) and data.get("key") == key and isinstance(data.get("pairs"), list):
            try:
                return {(str(a), str(b)): float(score) for a, b, score in data["pairs"]}
            except (TypeError, ValueError):
                pass
        pairs = candidate_pairs(pool, self.config.merge_threshold, self.search)
        body = json.dumps({"key": key, "pairs": [[a, b, score] for (a, b), score in pairs.items()]})
        cache_files.write(self.ws.root, self.ws.cache_dir, CANDIDATES_FILE, body.encode())
        return pairs

    # -- archive ---------------------------------------------------------------------------------

    def archive(self) -> None:
        """gc: expired TTL, strength decayed below ``min_strength`` (exponential, ``half_life_days``
        from the last access), or older than ``max_age_days``. Pinned entries, protected categories and
        entries marked ``protected`` are never archived."""
        for entry in self.available():
            if entry.pinned or entry.category in self.config.protected or entry.raw.get("protected"):
                continue
            reason = self.archive_reason(entry, lasting=entry.category in self.config.lasting)
            if reason:
                self._emit("archive", [entry], reason,
                           {"archived": True, "archived_at": _stamp(self.now), "archived_reason": reason})

    def archive_reason(self, entry: Entry, lasting: bool = False) -> str | None:
        """Why gc archives an entry: its TTL expired; or, unless its category lasts (conventions, pitfalls,
        architecture... keep being true however old), its strength decayed or it is over ``max_age_days``."""
        created = created_or_epoch(entry)
        ttl = parse_duration(entry.ttl)
        if ttl is not None and entry.created and created + ttl < self.now:
            return f"TTL {entry.ttl} expired on {(created + ttl):%Y-%m-%d}"
        if lasting:
            return None
        strength = self.strength(entry)
        if strength is not None and strength < self.config.min_strength:
            return f"strength decayed to {strength:.2f} (below {self.config.min_strength})"
        age = (self.now - created).days
        if self.config.max_age_days and entry.created and age > self.config.max_age_days:
            return f"{age} days old (over {self.config.max_age_days})"
        return None

    def strength(self, entry: Entry) -> float | None:
        """Current strength: the recorded strength decayed by half every ``half_life_days`` since the
        last access (or creation). ``None`` for entries that do not track strength."""
        if entry.strength is None:
            return None
        since = entry.last_accessed or entry.created
        if since is None:
            return entry.strength
        days = max(0.0, (self.now - since).total_seconds() / 86400)
        return entry.strength * 0.5 ** (days / self.config.half_life_days)

    # -- consolidate and fuse --------------------------------------------------------------------

    def _subjects(self, entries: Iterable[Entry]) -> dict[tuple[str, str, str], list[Entry]]:
        """Entries by category, topic (first tag) and the projects they name (facts of two projects are
        never one)."""
        groups: dict[tuple[str, str, str], list[Entry]] = defaultdict(list)
        for entry in entries:
            if entry.tags:
                groups[(entry.category, entry.tags[0], ",".join(sorted(scope_tags(entry))))].append(entry)
        return groups

    def _new_entry(self, op: str, category: str, content: str, sources: list[Entry],
                   extra: dict[str, Any]) -> tuple[dict[str, Any], str]:
        """A new entry standing for ``sources``. Its id derives from the operation and the sources, so
        a dry run shows the id that applying will write, and planning twice gives the same id."""
        short = hashlib.sha1(f"{op}:{','.join(sorted(s.id for s in sources))}".encode()).hexdigest()[:12]
        tags = list(dict.fromkeys(t for s in sources for t in s.tags))
        raw: dict[str, Any] = {"id": short, "category": category, "content": content, "created": _stamp(self.now),
                               "agent": "lorekeeper", "tags": tags, "source": DERIVED,
                               "source_entries": [s.id for s in sources]}
        refs = list({(r.path, r.symbol): r.model_dump(exclude_none=True) for s in sources for r in s.refs
                     if not r.rejected}.values())
        if refs:
            raw["refs"] = refs
        raw.update(extra)
        self.new_entries.append(raw)
        # named as every entry is (<timestamp>-<id>.json), by its newest source: the same name in a
        # preview and when applied
        dated = [s.created for s in sources if s.created is not None]
        return raw, f"{max(dated):%Y%m%dT%H%M%SZ}-{short}.json" if dated else f"{short}.json"

    def _conflicted(self) -> set[str]:
        """Entries in an inferred conflict: they stay as they are, visible, until someone decides."""
        return {i for c in self.conflicts if c["kind"] == "contradiction" for i in c["entries"]}

    def consolidate(self, entries_dir: str) -> None:
        """Cold clusters — old (``consolidate_age_days``), rarely read (an entry that does not count its
        reads is not cold unless ``consolidate_unread`` says so), two or more on one subject (category
        and first tag), not pinned, protected, derived or in conflict — become one protected learning
        that lists every source fact once, newest first, with the period covered; the sources get
        ``merged_into`` it. Off by default: it saves tokens only when a cluster repeats itself."""
        cutoff = self.now - timedelta(days=self.config.consolidate_age_days)
        conflicted = self._conflicted()
        cold = [e for e in self.available() if not e.pinned and created_or_epoch(e) < cutoff and e.created
                and (e.access_count is not None or self.config.consolidate_unread)
                and (e.access_count or 0) <= self.config.consolidate_max_access and not e.raw.get("protected")
                and e.category not in self.config.protected and e.source != DERIVED and e.id not in conflicted]
        for (category, topic, _), group in sorted(self._subjects(cold).items()):
            if len(group) < 2:
                continue
            group.sort(key=lambda e: (created_or_epoch(e), e.id), reverse=True)  # newest first: the current state leads
            first, last = min(created_or_epoch(e) for e in group), max(created_or_epoch(e) for e in group)
            facts = list(dict.fromkeys(" ".join(e.content.split()) for e in group))
            content = (f"Learned from {len(group)} {topic} memories ({first:%Y-%m-%d} to {last:%Y-%m-%d}), newest first:\n"
                       + "\n".join(f"- {x}" for x in facts))
            raw, name = self._new_entry("consolidate", category, content, group, {
                "protected": True, "kind": "learning",
                "consolidated": {"count": len(group), "from": _stamp(first), "to": _stamp(last)}})
            self._emit("consolidate", group, f"{len(group)} cold {category}/{topic} memories from {first:%Y-%m-%d} "
                                             f"to {last:%Y-%m-%d} become one learning", {"merged_into": raw["id"]},
                       result=raw, new_entry=raw, new_path=f"{entries_dir}/{name}")

    def fuse(self, entries_dir: str) -> None:
        """Related short entries of one category and topic (first tag), ``fuse_min_entries`` or more,
        become one entry listing every source fact once, word for word — faithful by construction.
        Entries compaction made (fused, consolidated), pinned or protected ones and entries in a conflict
        are left alone, so a second run never swallows what the first one built."""
        for (category, topic, _), group in sorted(self._subjects(self.fusible()).items()):
            self.fuse_group(category, topic, group, entries_dir, "entries about")
        if self.config.semantic_dedup and self.ws is not None:
            from .semantic import semantic_fuse  # the model only if a vector is missing

            semantic_fuse(self, entries_dir)

    def fusible(self) -> list[Entry]:
        """Short entries fuse may list: not made by compaction, pinned, protected or in a conflict."""
        conflicted = self._conflicted()
        return [e for e in self.available() if len(e.content) <= self.config.fuse_max_chars and not e.pinned
                and e.source != DERIVED and not e.raw.get("protected") and e.id not in conflicted]

    def fuse_group(self, category: str, topic: str, group: list[Entry], entries_dir: str, about: str) -> None:
        """One fused entry per ``fuse_max_entries`` of ``group`` (oldest first, the entries of one
        project at a time), each source fact once; only where it is shorter than its sources together
        (a list that costs more tokens than the entries it stands for is not made)."""
        scopes: dict[frozenset[str], list[Entry]] = defaultdict(list)
        for entry in sorted(group, key=lambda e: (created_or_epoch(e), e.id)):
            scopes[scope_tags(entry)].append(entry)
        for _, members in sorted(scopes.items(), key=lambda kv: sorted(kv[0])):
            self._fuse_chunks(category, topic, members, entries_dir, about)

    def _fuse_chunks(self, category: str, topic: str, group: list[Entry], entries_dir: str, about: str) -> None:
        for start in range(0, len(group), self.config.fuse_max_entries):
            chunk = group[start : start + self.config.fuse_max_entries]
            if len(chunk) < self.config.fuse_min_entries:
                continue
            facts = list(dict.fromkeys(e.content.strip() for e in chunk))
            content = f"{topic} ({category}):\n" + "\n".join(_bullet(f) for f in facts)
            if not self.fuse_drafts and _grows(content, chunk):
                continue  # it would grow memory
            raw, name = self._new_entry("fuse", category, content, chunk, {})
            confidences = [e.confidence for e in chunk if e.confidence is not None]
            if confidences:
                raw["confidence"] = min(confidences)
            self._emit("fuse", chunk, f"{len(chunk)} {category} {about} {topic} listed in one",
                       {"merged_into": raw["id"]}, result=raw, new_entry=raw, new_path=f"{entries_dir}/{name}")

    def drop_growing_fusions(self) -> None:
        """Remove the planned fusions whose text costs as many tokens as their sources or more (a fused
        entry is shorter than what it stands for, or it is not made)."""
        dropped = [op for op in self.operations if op.op == "fuse" and op.new_entry is not None
                   and _grows(str(op.new_entry.get("content", "")), [self.by_id[i] for i in op.sources if i in self.by_id])]
        if not dropped:
            return
        gone = {id(op) for op in dropped}
        new_ids = {str(op.new_entry["id"]) for op in dropped if op.new_entry is not None}
        self.operations = [op for op in self.operations if id(op) not in gone]
        self.new_entries = [raw for raw in self.new_entries if raw.get("id") not in new_ids]
        self.consumed.difference_update(i for op in dropped for i in op.sources)

    # -- compress --------------------------------------------------------------------------------

    def compress(self) -> None:
        """mnemonic's rule: entries (older than ``compress_age_days`` or weaker than
        ``compress_strength``) and longer than ``compress_lines`` lines get a ``summary`` of at most
        ``summary_chars`` characters and ``compressed_at``; the text itself stays."""
        for entry in self.available():
            if entry.summary or entry.content.count("\n") + 1 <= self.config.compress_lines:
                continue
            old = entry.created is not None and (self.now - entry.created).days > self.config.compress_age_days
            strength = self.strength(entry)
            weak = strength is not None and strength < self.config.compress_strength
            if not (old or weak):
                continue
            summary = summarize(entry.content, self.config.summary_chars)
            lines = entry.content.count("\n") + 1
            self._emit("compress", [entry], f"{lines} lines, {'older than ' + str(self.config.compress_age_days) + ' days' if old else 'weak'}: summarised",
                       {"summary": summary, "compressed_at": _stamp(self.now)})


@dataclass(frozen=True)
class Rule:
    """One compaction rule: its name (``--only``, the config toggle, a plan operation's ``op``), what it
    does in a line, and how it runs on a planner (``entries_dir``: where new entries go)."""

    name: str
    summary: str
    run: Callable[[Planner, str], None]


#: Every stage-1 rule, in the order they run (each consumes entries, so the order decides which rule
#: claims an entry first). Adding a rule: a Planner method, one line here, a toggle in CompactionConfig.
RULES: tuple[Rule, ...] = (
    Rule("supersede", "follow supersedes chains: the superseded entry stops being live", lambda p, d: p.supersede()),
    Rule("dedup", "entries with the same text become one", lambda p, d: p.dedup()),
    Rule("merge", "entries the verifier says state one fact become one; conflicts are reported", lambda p, d: p.merge()),
    Rule("semantic", "entries stating one fact in other words become one (local embeddings, verified; off by default)",
         lambda p, d: _semantic(p)),
    Rule("archive", "entries past their TTL, age or strength are archived", lambda p, d: p.archive()),
    Rule("consolidate", "cold clusters of one subject become one learning", lambda p, d: p.consolidate(d)),
    Rule("fuse", "short related entries of one topic are listed in one", lambda p, d: p.fuse(d)),
    Rule("compress", "long old or weak entries get a summary (their text stays)", lambda p, d: p.compress()),
)
RULE_NAMES: tuple[str, ...] = tuple(rule.name for rule in RULES)


def _semantic(planner: Planner) -> None:
    from .semantic import semantic_merge  # numpy and the guard; torch only if a vector is missing

    semantic_merge(planner)

def union_changes(keeper: Entry, others: list[Entry]) -> dict[str, Any]:
    """What a surviving entry gains from the entries merged into it: their references and tags (entry
    and MIF survivors only; an instruction file's text is the user's)."""
    if not keeper.rewritable:
        return {}
    changes: dict[str, Any] = {}
    known = {(r.path, r.symbol) for r in keeper.refs}
    new_refs = [r for o in others for r in o.refs if not r.rejected and (r.path, r.symbol) not in known]
    if new_refs:
        merged = list({(r.path, r.symbol): r for r in [*keeper.refs, *new_refs]}.values())
        changes["refs"] = [r.model_dump(exclude_none=True) for r in merged]
    tags = list(dict.fromkeys([*keeper.tags, *(t for o in others for t in o.tags)]))
    if tags != keeper.tags:
        changes["tags"] = tags
    return changes


def parse_duration(value: Any) -> timedelta | None:
    """A TTL: ISO 8601 (``P90D``, ``P2W``, ``PT12H``, ``P1Y2M``), ``30d``/``12h``, or a number of days."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return timedelta(days=value)
    text = str(value).strip().upper()
    match = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([DHWM]?)", text)
    if match:
        number, unit = float(match.group(1)), match.group(2) or "D"
        return {"D": timedelta(days=number), "H": timedelta(hours=number), "W": timedelta(weeks=number),
                "M": timedelta(minutes=number)}[unit]
    match = re.fullmatch(r"P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?", text)
    if not match or text == "P":
        return None
    y, mo, w, d, h, mi, s = (int(g) if g else 0 for g in match.groups())
    return timedelta(days=y * 365 + mo * 30 + w * 7 + d, hours=h, minutes=mi, seconds=s)


#: A memory that is a command written bare (no backticks: "uv run ruff check .", "just release 0.2.0   #
#: bump version"), which the parse reads as words: another flag or name is another command.
_BARE_COMMAND = re.compile(r"^\s*(?:[-*+]\s+)?(?:\$\s+)?(?:uv|uvx|just|make|npm|npx|pnpm|yarn|bun|bunx|cargo|go|python3?|pip3?"
                           r"|poetry|pdm|hatch|docker|podman|git|gh|pytest|ruff|mypy|node|deno|kubectl|terraform|gradle"
                           r"|\./\S+)\s+\S")  # (written as typed: "Make sure …", "Go to …" are prose)


def _same_command(a: str, b: str) -> bool:
    """Whether two texts that may be one fact are, where either is a bare command, the same command
    (only its comment may differ)."""
    if not (_BARE_COMMAND.match(a) or _BARE_COMMAND.match(b)):
        return True
    return _command_of(a) == _command_of(b)


def _command_of(text: str) -> str:
    return " ".join(text.split("#", 1)[0].split()).strip("-*+$ ").lower()


def _not_older(a: Entry, b: Entry, dated: Callable[[list[Entry]], Mapping[str, datetime]]) -> bool:
    """Whether ``a`` was not written before ``b`` (either undated: not known to be)."""
    when = dated([a, b])
    return a.id not in when or b.id not in when or when[a.id] >= when[b.id]


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= 70 else flat[:69] + "…"


def _grows(content: str, sources: list[Entry]) -> bool:
    """Whether ``content`` costs as many tokens as ``sources`` together, or more."""
    return count_tokens(content) >= sum(count_tokens(e.content) for e in sources)


def _bullet(fact: str) -> str:
    lines = fact.splitlines()
    return "- " + "\n  ".join(lines)
