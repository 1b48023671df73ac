"""The language server's state: one immutable snapshot of what it knows (the store, every finding, the
indexes requests use), with a generation number. Requests read the current snapshot and never wait;
writers (checks, commands) build the next one on the writer thread and swap it in whole, so a request
never sees the entries of one check with the findings of another. A snapshot holds data only: what the
check found and what requests ask of it (:class:`CheckView`), never the checker the writer keeps using."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from itertools import chain, compress
from operator import not_
from typing import Any

from ...analysis.staleness import StalenessChecker
from ...analysis.staleness.checker import references_of
from ...core.kinds import is_stale
from ...core.model import Entry, Finding, Severity, finding_order
from ...core.settings.compaction import CompactionConfig
from ...refs.extract import Reference
from ...refs.fingerprint import verified_at
from ...store import Store
from ...workspace import Workspace


@dataclass(frozen=True)
class CheckView:
    """What requests read of the staleness check, as data taken when the snapshot was made: the
    verification records (``verified.json``) and which entries depend on each workspace path. An entry's
    references are a function of the entry alone (:func:`references_of`), kept once computed."""

    sidecar: Mapping[str, Any] = field(default_factory=dict[str, Any])
    reverse: Mapping[str, frozenset[str]] = field(default_factory=dict[str, frozenset[str]])
    _refs: dict[tuple[str, str], list[Reference]] = field(default_factory=dict[tuple[str, str], list[Reference]],
                                                          compare=False, repr=False)

    @classmethod
    def of(cls, checker: StalenessChecker) -> CheckView:
        return cls(dict(checker.verifications.sidecar),
                   {path: frozenset(ids) for path, ids in checker.reverse_index().items()})

    def references(self, entry: Entry) -> list[Reference]:
        key = (entry.id, entry.content)
        found = self._refs.get(key)
        if found is None:
            found = self._refs[key] = references_of(entry)
        return found

    def verified_at(self, entry: Entry) -> datetime | None:
        return verified_at(entry, self.sidecar)

    def dependants(self, path: str) -> frozenset[str]:
        return self.reverse.get(path, frozenset())


def _ordered(findings: list[Finding]) -> list[Finding]:
    """In file and line order; findings at one place by kind, reference, entry and message (an order that
    does not depend on the order they were found in, so that a file's findings sorted alone are in the
    order of all findings sorted)."""
    return sorted(findings, key=finding_order)


def _source_of(finding: Finding) -> str:
    return finding.source


def _entry_of(finding: Finding) -> str | None:
    return finding.entry


@dataclass(frozen=True)
class Snapshot:
    """Everything a request reads, as data: the store, every finding and its indexes, and what the check
    found (:attr:`checked`)."""

    generation: int
    ws: Workspace
    store: Store
    checked: CheckView
    config: CompactionConfig
    memory_findings: tuple[Finding, ...]
    #: Every finding (memory and staleness), in file and line order: built when first asked for (a save
    #: republishes from ``by_file`` and never needs the whole list), then kept.
    flat: tuple[Finding, ...] | None
    by_id: dict[str, Entry]
    #: Memory file -> the ids of the entries it holds, in file order.
    file_entries: dict[str, list[str]]
    by_file: dict[str, list[Finding]]
    by_entry: dict[str, list[Finding]]
    #: The memory files whose findings differ from the snapshot this one was built from (``None``: not
    #: known, every file may have changed).
    touched: set[str] | None = field(default=None, compare=False)
    #: Values derived from the store alone (token counts, the fuse plan), computed on first use and
    #: shared by the snapshots of one store.
    memo: dict[str, Any] = field(default_factory=dict, compare=False)

    @classmethod
    def build(cls, generation: int, ws: Workspace, store: Store, checker: StalenessChecker, config: CompactionConfig,
              memory_findings: list[Finding] | tuple[Finding, ...], memo: dict[str, Any] | None = None,
              file_entries: dict[str, list[str]] | None = None, previous: Snapshot | None = None,
              staleness: list[Finding] | None = None) -> Snapshot:
        """``file_entries``: the store's entry ids by file, where the caller knows them (see
        :meth:`file_entries_after`). ``previous``: the snapshot before a save, whose findings are mostly
        the same objects as these (see :meth:`_views_after`). ``staleness``: the staleness findings, where
        they are not yet the checker's (while it checks: what the working tree alone says)."""
        if file_entries is None:
            file_entries = {}
            for entry in store.entries:
                file_entries.setdefault(entry.location.path, []).append(entry.id)
        everything = [*memory_findings, *(checker.findings() if staleness is None else staleness)]
        views = previous._views_after(everything) if previous is not None else None
        by_file: dict[str, list[Finding]]
        by_entry: dict[str, list[Finding]]
        if views is not None:
            by_file, by_entry, touched = views
            flat = None
        else:
            flat = tuple(_ordered(everything))
            by_file, by_entry, touched = {}, {}, None
            for finding in flat:
                by_file.setdefault(finding.source, []).append(finding)
                if finding.entry:
                    by_entry.setdefault(finding.entry, []).append(finding)
        return cls(generation=generation, ws=ws, store=store, checked=CheckView.of(checker), config=config,
                   memory_findings=tuple(memory_findings), flat=flat, by_id=store.by_id(),
                   file_entries=file_entries, by_file=by_file, by_entry=by_entry,
                   memo=memo if memo is not None else {}, touched=touched)

    def _views_after(self, everything: list[Finding]) -> tuple[dict[str, list[Finding]], dict[str, list[Finding]], set[str]] | None:
        """:attr:`by_file` and :attr:`by_entry` for the findings ``everything``, made from this snapshot's
        where most findings are the same objects (after a save: the answers kept between saves), and the
        files whose findings changed. Only the files and entries with a finding added or gone are sorted
        again; ``None`` where many changed, or a finding is listed twice."""
        before = list(chain.from_iterable(self.by_file.values()))
        old, new = set(map(id, before)), set(map(id, everything))
        if len(old) != len(before) or len(new) != len(everything):
            return None
        added = list(compress(everything, map(not_, map(old.__contains__, map(id, everything)))))
        gone = list(compress(before, map(not_, map(new.__contains__, map(id, before)))))
        if len(added) + len(gone) > max(100, len(everything) // 10):
            return None
        dropped = set(map(id, gone))
        files = {f.source for f in chain(added, gone)}
        entries = {f.entry for f in chain(added, gone) if f.entry}
        by_file, by_entry = self.by_file.copy(), self.by_entry.copy()
        for views, keys, key_of in ((by_file, files, _source_of), (by_entry, entries, _entry_of)):
            for key in keys:
                found = _ordered([*(f for f in views.get(key, ()) if id(f) not in dropped),
                                  *(f for f in added if key_of(f) == key)])
                if found:
                    views[key] = found
                else:
                    views.pop(key, None)
        return by_file, by_entry, files

    def file_entries_after(self, store: Store, changed: set[str]) -> dict[str, list[str]] | None:
        """:attr:`file_entries` of ``store``, this snapshot's store with the memory files ``changed`` read
        again (:meth:`Store.reloaded`: every other file's entries are this store's): only those files'
        lists are made again. ``None`` where an entry of theirs is located in another file than the one
        it was read from (then only a pass over every entry says which lists changed)."""
        file_entries = self.file_entries.copy()
        for path in changed:
            now = store.read_from(path)
            if any(e.location.path != path for e in (*self.store.read_from(path), *now)):
                return None
            if now:
                file_entries[path] = [e.id for e in now]
            else:
                file_entries.pop(path, None)
        return file_entries

    def after_recheck(self, generation: int, checker: StalenessChecker) -> Snapshot:
        """The next snapshot once the checker re-checked some entries (same store, new findings): only
        the findings of those entries and of the files holding them are rebuilt, so a save costs what it
        re-checked, not the size of the store."""
        ids = [i for i in dict.fromkeys(checker.checked) if i in self.by_id]
        if not ids:
            return replace(self, generation=generation, checked=CheckView.of(checker))
        memory_by_entry, memory_by_file = self._memory_index()
        by_entry = self.by_entry.copy()
        for entry_id in ids:
            result = checker.results.get(entry_id)
            found = _ordered([*memory_by_entry.get(entry_id, ()), *(result.findings if result else ())])
            if found:
                by_entry[entry_id] = found
            else:
                by_entry.pop(entry_id, None)
        by_file = self.by_file.copy()
        for path in {self.by_id[i].location.path for i in ids}:
            staleness = [f for i in self.file_entries.get(path, ()) if (r := checker.results.get(i))
                         for f in r.findings]
            found = _ordered([*memory_by_file.get(path, ()), *staleness])
            if found:
                by_file[path] = found
            else:
                by_file.pop(path, None)
        return replace(self, generation=generation, checked=CheckView.of(checker), flat=None, by_file=by_file,
                       by_entry=by_entry, touched=None)

    @property
    def findings(self) -> tuple[Finding, ...]:
        if self.flat is None:
            object.__setattr__(self, "flat", tuple(f for path in sorted(self.by_file) for f in self.by_file[path]))
        assert self.flat is not None
        return self.flat

    def _memory_index(self) -> tuple[dict[str, list[Finding]], dict[str, list[Finding]]]:
        """The memory findings by entry and by file (they change only with the store: kept in the memo)."""
        if "memory_index" not in self.memo:
            by_entry: dict[str, list[Finding]] = {}
            by_file: dict[str, list[Finding]] = {}
            for finding in self.memory_findings:
                by_file.setdefault(finding.source, []).append(finding)
                if finding.entry:
                    by_entry.setdefault(finding.entry, []).append(finding)
            self.memo["memory_index"] = (by_entry, by_file)
        return self.memo["memory_index"]

    # -- what requests ask ---------------------------------------------------------------------

    def store_path(self, entry_id: str) -> str | None:
        """The memory file that holds an entry."""
        entry = self.by_id.get(entry_id)
        return entry.location.path if entry is not None else None

    def findings_of_entry(self, entry_id: str) -> list[Finding]:
        return self.by_entry.get(entry_id, [])

    def entries_in(self, relpath: str, line: int | None = None) -> list[Entry]:
        """The entries a memory file holds (at a 0-based line, for instruction files)."""
        found = [self.by_id[i] for i in self.file_entries.get(relpath, []) if i in self.by_id]
        if line is None:
            return found
        return [e for e in found if e.format != "instruction" or e.location.start_line <= line + 1 <= e.location.end_line]

    def stale_entries(self) -> set[str]:
        """The memories whose references the code made false (a warning or an error of a staleness kind):
        what the status bar and "Check Stale Memories" both count."""
        return {entry for entry, found in self.by_entry.items()
                if any(is_stale(f.kind) and f.severity != Severity.info for f in found)}

    def problem_counts(self) -> dict[str, int]:
        """Entry id -> how many warnings and errors it has now (information findings do not count)."""
        counts: dict[str, int] = {}
        for entry, found in self.by_entry.items():
            problems = sum(f.severity != Severity.info for f in found)
            if problems:
                counts[entry] = problems
        return counts
