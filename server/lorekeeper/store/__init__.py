"""The memory store: every memory file of a workspace, in every format, read into entries; changes made
as journaled operations."""

from __future__ import annotations

import copy
import os
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import chain, compress, count
from operator import attrgetter
from typing import Any, Protocol

from ..core.bounded import brief
from ..core.model import DEFAULT_CATEGORY, PENDING, Entry, Finding, Ref, Severity, stamp
from ..core.text import normalize
from ..infra.safeio import load_json, read_bytes
from ..workspace import PathOutsideRoot, Workspace, resolve_inside
from . import mif, native
from .instructions import UnitsCache, read_instruction_file, replace_lines
from .journal import FileChange, Journal, Operation, Record, Refused, recover
from .lock import store_lock

_id_of = attrgetter("id")
_serials = count(1)

__all__ = ["AddResult", "FileChange", "Journal", "Operation", "Record", "Refused", "Store"]


@dataclass(frozen=True)
class _FileRead:
    """What reading one memory file gave: its entries as read, and its problems."""

    fmt: str
    entries: list[Entry]
    findings: list[Finding]


@dataclass
class _Layout:
    """Where each entry of a store whose ids are all distinct sits, so that :meth:`Store.reloaded` patches
    the store rather than assembling it again: a save in the editor costs what it changed, not the size of
    the store. Worked out the first time a store is reloaded; the reloaded store's is this one, patched."""

    #: The position in :attr:`Store.entries` of each memory file's first entry.
    offsets: dict[str, int]
    #: :attr:`Store.entries` as read: before links leading nowhere revived copies.
    as_read: list[Entry]
    #: The position of each id.
    position: dict[str, int]
    #: The positions of the entries read with ``merged_into`` or ``superseded_by`` (ascending).
    linked: list[int]
    #: 1 where the entry at that position of :attr:`Store.entries` is live.
    alive: bytearray
    #: The memory files whose read gave findings, in reading order.
    troubled: list[str]


@dataclass
class AddResult:
    entry_id: str | None
    path: str | None
    duplicate_of: Entry | None = None
    record: Record | None = None


class FactJudge(Protocol):
    """The judge of "same fact" the store is given (:data:`lorekeeper.facts.JUDGE`): the store reads and
    writes memory; it never decides what a text says."""

    def same_fact(self, a: str, b: str) -> bool: ...

    def fact_key(self, text: str) -> str: ...


class Store:
    """All entries of a workspace and the findings met while reading them."""

    def __init__(self, ws: Workspace, *, keep_stats: bool = False, judge: FactJudge | None = None, dates: bool = True):
        self.ws = ws
        #: Whether loads date instruction files (when git added each); ``False`` for work that needs no
        #: such date (a staleness check), which then never asks git's whole history: see :meth:`dated`.
        self.dates = dates
        #: Who says whether two texts state one fact (the facts layer); without one, only identical text
        #: is "the same", and merges into instruction bullets are not re-checked.
        self.judge = judge
        self._keep_stats = keep_stats
        self.entries: list[Entry] = []
        self.findings: list[Finding] = []
        #: What recovery did before loading (rolled-back batches, as messages).
        self.recovered: list[str] = []
        #: The SHA-256 of each entry and MIF file's bytes as the last :meth:`load` read them, by
        #: workspace-relative path: what a plan made from these entries expects to find on disk.
        self.digests: dict[str, bytes] = {}
        #: With ``keep_stats``: each entry and MIF file's modification time (ns) and size as the last load
        #: read them (a list a file: off by default, since a collector walks every one of them).
        self.stats: dict[str, list[int]] = {}
        #: What the last :meth:`load` read from each memory file, in reading order (for :meth:`reloaded`).
        self._per_file: dict[str, _FileRead] = {}
        self._links_checked = False
        #: :meth:`live` and :meth:`by_id`, worked out once a load (the entries do not change after it).
        self._live: list[Entry] | None = None
        self._live_ids: frozenset[str] | None = None
        self._by_id: dict[str, Entry] | None = None
        self._layout: _Layout | None = None  # see :meth:`_laid_out`
        #: Which store this is (never reused in a process): what :meth:`changes_since` is asked about.
        self.serial = next(_serials)
        #: Where :meth:`reloaded` patched this store from another: that one's serial, and the entries
        #: that changed (see :meth:`changes_since`).
        self._patched: tuple[int, list[Entry], list[Entry]] | None = None

    @classmethod
    def open(cls, ws: Workspace, judge: FactJudge | None = None, dates: bool = True) -> Store:
        """Load the store — after finishing any change a killed process left half applied, so that no
        command ever reads (or plans from) a half-applied store. ``dates``: see :attr:`dates`."""
        store = cls(ws, judge=judge, dates=dates)
        store.recovered = recover(ws)
        store.load()
        return store

    def load(self, only: set[str] | None = None, files: dict[str, list[str]] | None = None) -> None:
        """Read every memory file (or only those workspace-relative paths). A broken file yields
        findings; the others load regardless. ``files`` is the workspace's
        :meth:`~Workspace.memory_relpaths` when the caller just listed them."""
        listing = files if files is not None else self.ws.memory_relpaths()
        digests: dict[str, bytes] = {}
        self.stats = {}
        per_file: dict[str, _FileRead] = {}
        units = UnitsCache(self.ws) if listing["instruction"] else None
        for fmt in ("entry", "mif", "instruction"):
            for relpath in listing[fmt]:
                if only is None or relpath in only:
                    per_file[relpath] = self._read_file(fmt, relpath, digests, units)
        if units is not None:
            units.save(keep_unused=only is not None)
        self._assemble(per_file, digests, links=only is None)

    def reloaded(self, changed: set[str]) -> Store | None:
        """A new store holding what :meth:`load` would read now, given that of the memory files only
        ``changed`` were modified (in place: no memory file was created or deleted). Those are read
        again; every other file's entries and findings are shared with this store, unchanged. ``None``
        when this store cannot say (it was loaded with ``only``, or ``changed`` names a file it did not
        read): read everything again."""
        if not self._links_checked or not changed <= self._per_file.keys():
            return None
        new = Store(self.ws, keep_stats=self._keep_stats, judge=self.judge, dates=self.dates)
        # (.copy(): a C-speed clone of the table even where entries were deleted, unlike dict(), which then
        # inserts them one by one: ~0.35 ms a dict at 10k entries)
        digests, new.stats, per_file = self.digests.copy(), self.stats.copy(), self._per_file.copy()
        for path in changed:
            digests.pop(path, None)
            new.stats.pop(path, None)
        for path in changed:
            per_file[path] = new._read_file(per_file[path].fmt, path, digests)
        if not new._patch(self, per_file, digests, changed):
            new._assemble(per_file, digests, links=True)
        return new

    def dated(self) -> Store:
        """This store with the dates a load with ``dates=False`` left out: each instruction file's entries
        ``created`` when git added the file (:meth:`Workspace.created_time`, which waits for an answer
        :meth:`Workspace.date_in_background` is getting). A new store, patched from this one as
        :meth:`reloaded` patches (the same entries elsewhere, the same findings; :meth:`changes_since`
        names the entries dated); this store itself where none waits for a date (from then on, what it
        reads again is dated: see :meth:`reloaded`)."""
        pending = [path for path, read in self._per_file.items()
                   if read.fmt == "instruction" and any(e.created_from == PENDING for e in read.entries)]
        if not pending:
            self.dates = True
            return self
        new = Store(self.ws, keep_stats=self._keep_stats, judge=self.judge)
        new.recovered = list(self.recovered)
        digests, new.stats, per_file = self.digests.copy(), self.stats.copy(), self._per_file.copy()
        for path in pending:
            read = per_file[path]
            created, created_from = self.ws.created_time(self.ws.root / path, path)
            per_file[path] = _FileRead(read.fmt, [e.model_copy(update={"created": created, "created_from": created_from})
                                                  for e in read.entries], read.findings)
        if not self._links_checked:
            new._assemble(per_file, digests, links=False)
        elif not new._patch(self, per_file, digests, set(pending)):
            new._assemble(per_file, digests, links=True)
        return new

    def _laid_out(self) -> _Layout | None:
        """This store's :class:`_Layout`: ``None`` where an id is used twice (which entry of the two a
        lookup finds is the full assembly's order)."""
        if self._layout is None and not any(f.kind == "duplicate-id" for f in self.findings):
            offsets: dict[str, int] = {}
            at = 0
            for path, read in self._per_file.items():
                offsets[path] = at
                at += len(read.entries)
            as_read = list(chain.from_iterable(read.entries for read in self._per_file.values()))
            self._layout = _Layout(
                offsets=offsets, as_read=as_read, position={e.id: i for i, e in enumerate(as_read)},
                linked=[i for i, e in enumerate(as_read) if e.merged_into or e.superseded_by],
                alive=bytearray(e.live for e in self.entries),
                troubled=[path for path, read in self._per_file.items() if read.findings])
        return self._layout

    def _patch(self, old: Store, per_file: dict[str, _FileRead], digests: dict[str, bytes], changed: set[str]) -> bool:
        """This store as :meth:`_assemble` makes it from ``per_file`` (``old``'s reads with the files
        ``changed`` read again), by patching ``old``: its entries, ids and liveness copied (at C speed) with
        those of the changed files replaced, its links checked again (every linked entry: few). ``False``,
        with nothing done, where the patch could differ from the assembly: an id used twice, before or now,
        or a changed file that now holds another number of entries (a bullet added: the positions move)."""
        layout = old._laid_out()
        if layout is None:
            return False
        if old._by_id is None:
            old.by_id()
        assert old._by_id is not None
        for path in changed:
            if len(per_file[path].entries) != len(old._per_file[path].entries):
                return False
        gone = [e.id for path in changed for e in old._per_file[path].entries]
        came = [e for path in changed for e in per_file[path].entries]
        position = layout.position.copy()
        for entry_id in gone:
            del position[entry_id]
        for path in changed:
            start = layout.offsets[path]
            for i, entry in enumerate(per_file[path].entries):
                if entry.id in position:
                    return False  # an id now used twice
                position[entry.id] = start + i
        as_read = list(layout.as_read)
        linked = set(layout.linked)
        for path in changed:
            start, fresh = layout.offsets[path], per_file[path].entries
            as_read[start : start + len(fresh)] = fresh
            for i, entry in enumerate(fresh):
                if entry.merged_into or entry.superseded_by:
                    linked.add(start + i)
                else:
                    linked.discard(start + i)
        by_id = old._by_id.copy()
        for entry_id in gone:
            by_id.pop(entry_id, None)
        for entry in came:
            by_id[entry.id] = entry
        for at in linked:  # as read, before this check revives any
            by_id[as_read[at].id] = as_read[at]
        self.entries = list(as_read)
        self.digests = digests
        self._per_file = per_file
        self._links_checked = True
        self._by_id = by_id
        ordered = sorted(linked)
        problems = self._check_links(ordered)
        alive = bytearray(layout.alive)
        for path in changed:
            start = layout.offsets[path]
            for i in range(len(per_file[path].entries)):
                alive[start + i] = self.entries[start + i].live
        for at in ordered:
            alive[at] = self.entries[at].live
            by_id[self.entries[at].id] = self.entries[at]
        troubled = [path for path in layout.troubled if path not in changed]
        troubled += [path for path in changed if per_file[path].findings]
        troubled.sort(key=layout.offsets.__getitem__)
        self.findings = [*self._store_findings(), *chain.from_iterable(per_file[path].findings for path in troubled),
                         *problems]
        self._by_id = by_id
        self._live = list(compress(self.entries, alive))
        self._live_ids = None
        if old._live_ids is not None:  # the old one's, less the ids of the entries looked at, plus those live now
            looked_at = [*(start + i for path in changed for i in range(len(per_file[path].entries))
                           for start in (layout.offsets[path],)), *ordered]
            self._live_ids = (old._live_ids.difference(gone, (old.entries[at].id for at in ordered))
                              | {self.entries[at].id for at in looked_at if alive[at]})
        self._layout = _Layout(offsets=layout.offsets, as_read=as_read, position=position, linked=ordered, alive=alive,
                               troubled=troubled)
        moved = [at for at in sorted({*(layout.offsets[path] + i for path in changed for i in range(len(per_file[path].entries))),
                                      *layout.linked, *ordered})
                 if old.entries[at] is not self.entries[at]]
        self._patched = (old.serial, [old.entries[at] for at in moved], [self.entries[at] for at in moved])
        return True

    def changes_since(self, serial: int) -> tuple[list[Entry], list[Entry]] | None:
        """How this store differs from the store ``serial``, where :meth:`reloaded` made it by patching
        that one: the entries that store held where this one holds another object (another entry, or
        the same shown otherwise: a link checked again), and the entries this one holds there, in
        reading order. Every other position holds the same object in both (and whether it is live is
        a matter of the object). ``None`` where this store was not patched from that one."""
        patched = self._patched
        if patched is None or patched[0] != serial:
            return None
        return list(patched[1]), list(patched[2])

    def holds(self, relpath: str) -> bool:
        """Whether the last :meth:`load` read this memory file (workspace-relative, as entries name them)."""
        return relpath in self._per_file

    def _read_file(self, fmt: str, relpath: str, digests: dict[str, bytes], units: UnitsCache | None = None) -> _FileRead:
        """One memory file's entries, as read (before :meth:`_check_links`), and its problems (``units``: the
        instruction files' units read before, see :class:`~.instructions.UnitsCache`)."""
        findings: list[Finding] = []
        if fmt == "instruction":
            if not self._inside(relpath, findings):
                return _FileRead(fmt, [], findings)
            found, problems = read_instruction_file(self.ws, self.ws.root / relpath, relpath, units, dated=self.dates)
            return _FileRead(fmt, found, problems)
        # A regular file the listing saw in the entries folder needs no path resolution; it is opened
        # without following a symlink in case it became one since.
        plain = fmt == "entry" and self.ws.listed_plain(relpath)
        if not plain and not self._inside(relpath, findings):
            return _FileRead(fmt, [], findings)
        reader = native.read_entry_file if fmt == "entry" else mif.read_mif_file
        entry, problems = reader(self.ws, str(self.ws.root) + os.sep + relpath, relpath, follow=not plain,
                                 digests=digests, stats=self.stats if self._keep_stats else None)
        return _FileRead(fmt, [entry] if entry is not None else [], problems)

    def _assemble(self, per_file: dict[str, _FileRead], digests: dict[str, bytes], links: bool) -> None:
        """The store from its files' reads (in reading order): the store's own problems, then each file's,
        then ids used twice, then (``links``: every file was read) links that lead nowhere."""
        findings = self._store_findings()
        entries: list[Entry] = list(chain.from_iterable(read.entries for read in per_file.values()))
        findings.extend(chain.from_iterable(read.findings for read in per_file.values()))
        ids = [e.id for e in entries]
        counts: Counter[str] = Counter(ids) if len(set(ids)) != len(ids) else Counter()
        first_seen: dict[str, Entry] = {}
        for entry in entries if counts else ():
            if counts[entry.id] > 1:
                if entry.id in first_seen:
                    findings.append(Finding(
                        kind="duplicate-id", severity=Severity.warning, entry=entry.id, source=entry.location.path,
                        line=entry.location.start_line, field="id",
                        message=f"id {brief(entry.id)} is also used by {first_seen[entry.id].location.path}; "
                                "commands that take an id will ask which one",
                    ))
                else:
                    first_seen[entry.id] = entry
        self.entries = entries
        self.findings = findings
        self.digests = digests
        self._per_file = per_file
        self._links_checked = links
        self._live = self._live_ids = self._by_id = None
        self._layout = None
        self.serial, self._patched = next(_serials), None  # other entries: another store, as far as anyone kept
        if links:
            problems = self._check_links([i for i, e in enumerate(entries) if e.merged_into or e.superseded_by])
            if problems:  # each revived a copy of an entry
                self.findings.extend(problems)
                self._live = self._live_ids = self._by_id = None

    def _store_findings(self) -> list[Finding]:
        """The store's own problems: the configuration's, and a file where the store's folder should be."""
        findings: list[Finding] = [
            Finding(kind="invalid-config", severity=Severity.warning, message=p, source=".lore/config.toml", line=1)
            for p in (*self.ws.config.problems, *self.ws.staleness.problems)
        ]
        blocked = next((p for p in (self.ws.store, *self.ws.store.parents) if p.exists() and not p.is_dir()
                        and self.ws.root in p.parents), None)
        if blocked is not None:
            findings.append(Finding(kind="invalid-store", severity=Severity.error, source=self.ws.rel(blocked), line=1,
                                    message=f"{self.ws.rel(blocked)} is a file, not a folder: the store cannot be "
                                            "read or written there (move the file away)"))
        return findings

    def _check_links(self, linked: list[int]) -> list[Finding]:
        """Entries hidden behind a link that leads nowhere are revived (in memory; their files keep the
        field) and reported: ``merged_into`` / ``superseded_by`` naming an entry that does not exist,
        and entries merged into an instruction-file bullet that no longer states their fact (the line
        moved: fine; the bullet changed or went: the fact would be lost). ``linked``: the positions (in
        :attr:`entries`, ascending) of the entries read with such a link; the others have none."""
        judge = self.judge
        by_id = self._by_id if self._by_id is not None else self.by_id()
        instruction_keys: dict[str, str] | None = None
        findings: list[Finding] = []
        for position in linked:
            read = self.entries[position]
            entry = read
            for name in ("merged_into", "superseded_by"):
                target_id = getattr(entry, name)
                if not target_id:
                    continue
                target = by_id.get(target_id)
                if target is None:
                    findings.append(Finding(
                        kind="dangling-link", severity=Severity.error, entry=entry.id, field=name,
                        source=entry.location.path, line=entry.location.start_line,
                        message=f"{name} {brief(target_id)} names no entry in memory; shown as live until fixed"))
                    entry = self._revive(position, entry, read, name)
                    continue
                if name == "merged_into" and target.format == "instruction" and entry.format != "instruction" \
                        and judge is not None:
                    key = judge.fact_key(entry.content)
                    if judge.fact_key(target.content) == key:
                        continue
                    if instruction_keys is None:
                        instruction_keys = {judge.fact_key(e.content): e.id for e in self.entries if e.format == "instruction"}
                    moved = instruction_keys.get(key)
                    if moved:
                        continue  # the bullet moved; it still says the same
                    findings.append(Finding(
                        kind="orphaned-merge", severity=Severity.warning, entry=entry.id, field=name,
                        source=entry.location.path, line=entry.location.start_line,
                        message=f"merged into {target_id}, which no longer states this fact; shown as live again "
                                "(merge it again, or archive it)",
                        related=[{"source": target.location.path, "line": target.location.start_line,
                                  "message": "the bullet it was merged into", "entry": target.id}]))
                    entry = self._revive(position, entry, read, name)
        findings.extend(self._check_cycles(linked))
        return findings

    def _check_cycles(self, linked: list[int]) -> list[Finding]:
        """Entries whose links lead back to themselves (superseded by itself, merged into an entry merged
        into it): no entry of the loop is live, so their facts would vanish. Each is revived and
        reported. Each linked entry follows its first link (``merged_into``, else ``superseded_by``)."""
        target: dict[str, tuple[str, str, int]] = {}
        for position in linked:
            entry = self.entries[position]
            name = "merged_into" if entry.merged_into else "superseded_by" if entry.superseded_by else None
            if name is not None:
                target.setdefault(entry.id, (getattr(entry, name), name, position))
        state: dict[str, bool] = {}  # id -> still on the walk being made (False: finished)
        findings: list[Finding] = []
        for start in target:
            walk: list[str] = []
            node = start
            while node in target and node not in state:
                state[node] = True
                walk.append(node)
                node = target[node][0]
            loop = walk[walk.index(node):] if state.get(node) else []
            for visited in walk:
                state[visited] = False
            for member in loop:
                to, name, position = target[member]
                chain = " → ".join([member, *loop[loop.index(member) + 1:], *loop[:loop.index(member)], member])
                entry = self.entries[position]
                findings.append(Finding(
                    kind="link-cycle", severity=Severity.error, entry=member, field=name,
                    source=entry.location.path, line=entry.location.start_line,
                    message=(f"{name} names this entry itself" if to == member else
                             f"{name} {to!r} leads back to this entry ({chain})")
                            + ": no entry of the loop is live; shown as live until fixed",
                    related=[{"source": self.entries[target[other][2]].location.path,
                              "line": self.entries[target[other][2]].location.start_line,
                              "message": "part of the same loop", "entry": other} for other in loop if other != member]
                            or None))
                self._revive(position, entry, self._as_read(position), name)
        return findings

    def _as_read(self, position: int) -> Entry:
        """The entry at ``position`` as its file's read holds it (before a revival copied it)."""
        entry = self.entries[position]
        read = self._per_file.get(entry.location.path)
        return next((e for e in read.entries if e.id == entry.id and e.location == entry.location), entry) \
            if read is not None else entry

    def leads_to(self, start: str, target: str) -> bool:
        """Whether following links (``merged_into``, else ``superseded_by``) from entry ``start`` reaches
        entry ``target`` (or ``start`` is ``target``)."""
        if self._by_id is None:
            self.by_id()
        by_id = self._by_id or {}
        seen: set[str] = set()
        node: str | None = start
        while node is not None and node not in seen:
            if node == target:
                return True
            seen.add(node)
            entry = by_id.get(node)
            node = (entry.merged_into or entry.superseded_by) if entry is not None else None
        return False

    def _revive(self, position: int, entry: Entry, read: Entry, link: str) -> Entry:
        """``entry`` (at ``position`` in :attr:`entries`) shown without ``link``. The change is made to a
        copy the first time: the entry as read stays as it was, for :meth:`reloaded` to share."""
        if entry is read:
            entry = self.entries[position] = copy.copy(read)
        setattr(entry, link, None)
        return entry

    def _inside(self, relpath: str, findings: list[Finding]) -> bool:
        """Refuse memory files that are symlinks leading out of the workspace: never read them."""
        try:
            self.ws.inside(relpath)
        except PathOutsideRoot as exc:
            findings.append(Finding(kind="file-outside-root", severity=Severity.error, source=relpath, line=1,
                                    message=f"memory file refused: {exc}; it is never read"))
            return False
        return True

    # -- lookup ----------------------------------------------------------------------------------

    def live(self) -> list[Entry]:
        """The live entries, in reading order (a list of the caller's own)."""
        if self._live is None:
            self._live = [e for e in self.entries if e.live]
        return list(self._live)

    def live_ids(self) -> frozenset[str]:
        if self._live_ids is None:
            if self._live is None:
                self.live()
            self._live_ids = frozenset(map(_id_of, self._live or ()))
        return self._live_ids

    def live_among(self, ids: set[str]) -> list[Entry]:
        """The live entries with these ids, in reading order."""
        layout = self._layout
        if layout is None:
            return [e for e in self.live() if e.id in ids]
        found = sorted(layout.position[i] for i in ids if i in layout.position)
        return [self.entries[at] for at in found if layout.alive[at]]

    def ids_read_from(self, files: set[str]) -> list[str]:
        """The ids of the entries the last load read from ``files`` (workspace-relative)."""
        return [e.id for path in files for e in self.read_from(path)]

    def read_from(self, relpath: str) -> list[Entry]:
        """The entries the last load read from one memory file, in file order, as read (before a link
        leading nowhere revived a copy, see :meth:`_check_links`)."""
        read = self._per_file.get(relpath)
        return list(read.entries) if read is not None else []

    def find(self, key: str) -> list[Entry]:
        """Entries matching an id exactly, else a unique id prefix (4+ characters), else a location
        (``CLAUDE.md:12`` matches the entry covering line 12; an entry file's path matches its entry)."""
        exact = [e for e in self.entries if e.id == key]
        if exact:
            return exact
        path, _, line = key.rpartition(":")
        if path and line.isdigit():
            n = int(line)
            at = [e for e in self.entries if e.location.path == path and e.location.start_line <= n <= e.location.end_line]
            if at:
                return at
        by_path = [e for e in self.entries if e.location.path == key and e.format != "instruction"]
        if by_path:
            return by_path
        if len(key) >= 4:
            return [e for e in self.entries if e.id.startswith(key)]
        return []

    def by_id(self) -> dict[str, Entry]:
        """Every entry by id (the last read of an id used twice; a dict of the caller's own)."""
        if self._by_id is None:
            self._by_id = {e.id: e for e in self.entries}
        return self._by_id.copy()

    # -- changes ---------------------------------------------------------------------------------

    def add(
        self,
        content: str,
        *,
        journal: Journal,
        category: str | None = None,
        tags: list[str] | None = None,
        refs: list[Ref] | None = None,
        agent: str | None = None,
        confidence: float | None = None,
        fmt: str = "entry",
        source: str = "cli",
    ) -> AddResult:
        """Add a fact as a new entry, unless its normalised text is already in memory (then nothing is
        written and the existing entry is returned). Refs are checked against the workspace root."""
        content = content.strip()
        if not content:
            raise ValueError("the fact is empty")
        with store_lock(self.ws):  # check and write as one: concurrent adds of one fact write it once
            return self._add(content, journal=journal, category=category, tags=tags, refs=refs, agent=agent,
                             confidence=confidence, fmt=fmt, source=source)

    def _add(self, content: str, *, journal: Journal, category: str | None, tags: list[str] | None,
             refs: list[Ref] | None, agent: str | None, confidence: float | None, fmt: str,
             source: str = "cli") -> AddResult:
        judge = self.judge
        key = normalize(content)
        for entry in [*self.entries, *self._written_since_loaded()]:
            # the same text once case, Markdown and punctuation go, and every literal the same
            # ("Pin react to ^18.3.1" is not a copy of "Pin react to ~18.3.1")
            if normalize(entry.content) == key and (judge.same_fact(entry.content, content) if judge is not None
                                                    else entry.content.strip() == content):
                return AddResult(entry_id=None, path=None, duplicate_of=entry)
        for ref in refs or []:
            try:
                resolve_inside(self.ws.root, ref.path)
            except PathOutsideRoot as exc:
                raise ValueError(f"--ref {ref.path}: {exc}") from None
        now = datetime.now(UTC)
        fields: dict[str, Any] = {"category": category or DEFAULT_CATEGORY}
        if tags:
            fields["tags"] = tags
        if agent:
            fields["agent"] = agent
        if refs:
            fields["refs"] = [r.model_dump(exclude_none=True) for r in refs]
        if fmt == "mif":
            entry_id, name, data = mif.new_mif(content, fields, now)
            path = self.ws.store / "mif" / name
        else:
            entry_id, name = native.new_entry_name(now)
            raw: dict[str, Any] = {
                "id": entry_id,
                "category": fields["category"],
                "content": content,
                "created": stamp(now),
            }
            for extra in ("agent", "tags", "refs"):
                if extra in fields:
                    raw[extra] = fields[extra]
            if confidence is not None:
                raw["confidence"] = confidence
            raw["source"] = source
            data = native.render_entry(raw)
            path = self.ws.entries_dir / name
        relpath = self.ws.rel(path)
        summary = content if len(content) <= 60 else content[:59] + "…"
        record = journal.apply(Operation(op="add", reason=f"new {fields['category']} entry: {summary}",
                                         changes=[FileChange(relpath, None, data)], entries=[entry_id]))
        return AddResult(entry_id=entry_id, path=relpath, record=record)

    def _written_since_loaded(self) -> list[Entry]:
        """Entry and MIF files another process wrote after this store was loaded (read under the lock)."""
        known = {e.location.path for e in self.entries}
        files = self.ws.memory_relpaths()
        out: list[Entry] = []
        for reader, paths in ((native.read_entry_file, files["entry"]), (mif.read_mif_file, files["mif"])):
            for relpath in paths:
                if relpath not in known:
                    entry, _ = reader(self.ws, self.ws.root / relpath, relpath)
                    if entry is not None:
                        out.append(entry)
        return out

    def read_file(self, relpath: str, real_dirs: dict[str, str] | None = None) -> bytes:
        """The bytes of a memory file now, by its workspace-relative path. An entry file the listing saw
        as a regular file in the entries folder needs no path resolution (it is opened without following a
        symlink, in case it became one since); any other path is resolved inside the root, and refused
        (:class:`~lorekeeper.infra.safeio.UnsafeFile`, as every write refusal is) if it leads out. ``real_dirs``:
        folders' real paths, shared by the reads of one batch (as a journal batch shares them)."""
        if self.ws.listed_plain(relpath):
            return read_bytes(str(self.ws.root) + os.sep + relpath, follow=False)
        try:
            full = resolve_inside(self.ws.root, relpath, real_dirs=real_dirs)
        except PathOutsideRoot:  # refused by read_bytes' own check, with the message every refusal gives
            return read_bytes(self.ws.root / relpath, root=self.ws.root)
        return read_bytes(full)

    def field_line(self, entry: Entry, name: str) -> int:
        """The 1-based line of field ``name`` in an entry or MIF file as it is now (what a finding about
        that field points at); the entry's first line when the field cannot be found."""
        if entry.format in ("entry", "mif"):
            try:
                text = self.read_file(entry.location.path).decode("utf-8-sig")
                if entry.format == "entry":
                    found = native.key_lines(text).get(name)
                    if found:
                        return found[0]
                else:
                    line = mif.MifDocument.parse(text).line_of(mif.field_key(name))
                    if line > 1:
                        return line
            except (OSError, UnicodeDecodeError, ValueError):
                pass
        return entry.location.start_line

    def change_for(self, entry: Entry, changes: dict[str, Any], current: bytes | None = None) -> FileChange:
        """The file change that sets fields of an entry (``None`` removes a field), in its own format,
        keeping unknown fields, key order and formatting. For instruction files only ``content`` can
        change: it replaces the entry's lines. ``current`` is the file's bytes when an earlier change of
        the same plan has already changed them (else they are read from disk)."""
        for link in ("merged_into", "superseded_by"):
            to = changes.get(link)
            if isinstance(to, str) and self.leads_to(to, entry.id):
                raise ValueError(f"refusing to set {link} of {entry.id} to {to}: "
                                 + ("an entry cannot be linked to itself" if to == entry.id else
                                    f"{to} already leads back to {entry.id}, and the loop would hide both"))
        relpath = entry.location.path
        before = current if current is not None else self.read_file(relpath)
        text = before.decode("utf-8-sig")
        if entry.format == "entry":
            raw = load_json(text)
            after = native.render_entry(native.apply_changes(raw, changes), text)
        elif entry.format == "mif":
            after = mif.update_mif(text, changes)
        else:
            unsupported = set(changes) - {"content"}
            if unsupported:
                raise ValueError(f"instruction-file entries only change their text, not {sorted(unsupported)}")
            new = replace_lines(text, entry.location.start_line, entry.location.end_line, changes["content"])
            after = new.encode("utf-8")
        if before.startswith(b"\xef\xbb\xbf") and not after.startswith(b"\xef\xbb\xbf"):
            after = b"\xef\xbb\xbf" + after
        return FileChange(entry.location.path, before, after)

    def update(self, entry: Entry, changes: dict[str, Any], *, journal: Journal, op: str, reason: str) -> Record:
        return journal.apply(Operation(op=op, reason=reason, changes=[self.change_for(entry, changes)],
                                       entries=[entry.id]))
