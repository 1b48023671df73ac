# pyright: standard
"""The journal: every change a command makes to memory is an operation, recorded in its own file under
``<store>/log/`` before the files change, with the exact bytes before and after. One file per operation
means two branches that both changed memory merge without conflicts in the journal.

``undo`` writes the recorded "before" bytes back (refusing when a file changed since), and is itself an
operation, so an undo can be undone. Undoing a whole command is one operation over all its files.

Several operations (a compaction plan, an undo) are applied as one **batch**, all or nothing: a
marker ``log/.batch-<id>.json`` names the batch's records before any file is written and is removed
once every file is; if the process dies in between, the next command that opens the journal rolls the
batch back (:func:`recover`) so that no half-applied change hides a memory.

Journal records are **untrusted**: they are committed and shared like the memory itself. A record is
used only when it verifies end to end — its id matches its file name, its time carries a time zone and
is not in the future, its checksums hold, and every file it names is a memory file inside the workspace
(never ``.git/``, never code). Anything else is a finding, and ``undo --last`` refuses to guess past an
unreadable newest record. Every write holds the store's lock, so concurrent commands take turns."""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import os
import secrets
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from ..core.bounded import brief
from ..core.model import Finding, Severity
from ..infra.safeio import UnsafeFile, atomic_delete, atomic_write, atomic_write_many, load_json, read_bytes, stale_temp_files
from ..infra.userlevel import sign, signed_by_me
from ..workspace import PathOutsideRoot, Workspace, resolve_inside
from .lock import store_lock

log = logging.getLogger("lorekeeper.journal")


class Refused(Exception):
    """A write that would overwrite something we did not expect; nothing was changed."""


class UnknownOperation(LookupError):
    pass


@dataclass
class FileChange:
    """One file's exact bytes before and after an operation (``None``: the file does not exist)."""

    path: str
    before: bytes | None
    after: bytes | None


@dataclass
class Operation:
    """A unit of change: what it does, why, which entries it touches, and its file changes."""

    op: str
    reason: str
    changes: list[FileChange]
    entries: list[str] = field(default_factory=list)
    undoes: str | list[str] | None = None
    #: Which stage of compaction made it ("rules", "semantic", "llm:MODEL"); "" for other commands.
    stage: str = ""


@dataclass
class Record:
    """An operation as the journal holds it."""

    id: str
    time: datetime
    command: str
    argv: str
    op: str
    reason: str
    entries: list[str]
    changes: list[FileChange]
    undoes: str | list[str] | None
    path: Path
    stage: str = ""

    @property
    def undone(self) -> list[str]:
        """The operations this record undoes (none, one, or a whole command's)."""
        if self.undoes is None:
            return []
        return [self.undoes] if isinstance(self.undoes, str) else list(self.undoes)

    def summary(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "time": self.time.isoformat(),
            "command": self.command,
            "argv": self.argv,
            "op": self.op,
            "reason": self.reason,
            "entries": self.entries,
            "files": [c.path for c in self.changes],
            "undoes": self.undoes,
            "stage": self.stage,
        }


def new_command_id() -> str:
    return secrets.token_hex(4)


class Journal:
    """Applies operations atomically and records them; lists and undoes them."""

    def __init__(self, ws: Workspace, command: str | None = None, argv: list[str] | None = None, *,
                 sweep: bool = True):
        """``sweep``: see :func:`recover`."""
        self.ws = ws
        self.command = command or new_command_id()
        self.argv = " ".join(argv if argv is not None else ["lore", *sys.argv[1:]])
        self.reads = 0  # journal record files read by this object (tests hold undo to one pass)
        self.invalid: list[str] = []  # ids (file names) of records that cannot be used
        #: What recovery found when this journal was opened: rolled-back batches, as messages.
        self.recovered = recover(ws, sweep=sweep)

    # -- apply -----------------------------------------------------------------------------------

    def apply(self, operation: Operation) -> Record:
        """Check every file still holds its expected "before" bytes, record the operation, then write
        each file atomically. If a write fails, the files already written are put back and the record
        is removed, so the store is as it was."""
        return self.apply_all([operation])[0]

    def apply_all(self, operations: list[Operation]) -> list[Record]:
        """Apply several operations as one batch, all or nothing. Two operations may change the same
        file (the later one's "before" is the earlier one's "after"). Refused before anything is
        written when a file does not hold what the first operation touching it expects, is read-only, or
        is not a memory file; and, file by file, when one changes while the batch is being written (what
        was written is then put back)."""
        try:
            with store_lock(self.ws):
                return self._apply_all(operations)
        except UnsafeFile as exc:
            raise Refused(f"{exc}; nothing was written") from None

    def _apply_all(self, operations: list[Operation]) -> list[Record]:
        expected: dict[str, bytes | None] = {}
        targets: list[tuple[FileChange, Path]] = []
        real_dirs: dict[str, str] = {}  # folders' real paths, resolved once for the batch
        for operation in operations:
            for change in operation.changes:
                path = self._path(change.path, real_dirs)
                if change.path not in expected:
                    current = self._current(path)
                    if current is not None and (not os.stat(path).st_mode & 0o222 or not os.access(path, os.W_OK)):
                        raise Refused(f"{change.path} is read-only; nothing was written")
                    if current != change.before:
                        state = "was created" if change.before is None else "was deleted" if current is None else "changed"
                        raise Refused(f"{change.path} {state} since the change was planned; nothing was written")
                elif expected[change.path] != change.before:
                    raise Refused(f"{change.path}: two changes of one batch do not follow each other; nothing was written")
                expected[change.path] = change.after
                targets.append((change, path))
        start = datetime.now(UTC)
        records = []
        for i, operation in enumerate(operations):
            when = start + timedelta(microseconds=i)  # the batch's order survives sorting by time
            op_id = f"{when:%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"
            records.append(Record(op_id, when, self.command, self.argv, operation.op, operation.reason,
                                  operation.entries, operation.changes, operation.undoes,
                                  self.ws.log_dir / f"{op_id}.json", operation.stage))
        root = self.ws.root
        encoded = [(r.path, _encode_record(r)) for r in records]
        # The marker says a batch is under way: a process killed before it is removed leaves it, and the
        # next command rolls the batch back (even a one-file operation: its record must not outlive it).
        # It is signed with this user's key: only a marker this machine wrote is ever replayed on its own.
        marker = self.ws.log_dir / f".batch-{records[0].id}.json" if targets else None
        try:
            if marker is not None:
                atomic_write(marker, _marker_bytes(marker.name, encoded), root)
        except UnsafeFile as exc:
            raise Refused(f"the journal cannot be written: {exc}; nothing was written") from None
        written_records: list[Path] = []
        # Each file's first "before" (what it is put back to) and last "after" (what it becomes).
        first: dict[Path, bytes | None] = {}
        last: dict[Path, bytes | None] = {}
        for change, path in targets:
            first.setdefault(path, change.before)
            last[path] = change.after
        # The store's files are written before any file outside it, so that a batch killed part way
        # through can be rolled back by writing inside the store only (see :func:`recover`).
        inside = {p for p in last if self.ws.is_store_file(self.ws.rel(p))}
        phases = [[p for p in last if p in inside], [p for p in last if p not in inside]]
        done: list[Path] = []
        try:
            # The records first (the undo of what follows), then the files, each group flushed at once.
            atomic_write_many(encoded, root, written_records)

            def unchanged(path: Path) -> None:
                if self._current(path) != first[path]:  # someone wrote it since the check above
                    raise Refused(f"{self.ws.rel(path)} changed while the change was being written; everything "
                                  "already written was put back, nothing changed")

            for phase in phases:
                atomic_write_many([(p, data) for p in phase if (data := last[p]) is not None], root, done, unchanged)
                for path in phase:
                    if last[path] is None:
                        unchanged(path)
                        atomic_delete(path, root)
                        done.append(path)
            self._prune([p for p in done if last[p] is None])
        except BaseException:
            for path in reversed(done):
                _put(path, first[path], root)
            for record_path in written_records:
                atomic_delete(record_path, root)
            if marker is not None:
                atomic_delete(marker, root)
            raise
        if marker is not None:
            atomic_delete(marker, root)
        return records

    def _prune(self, deleted: list[Path]) -> None:
        """Remove the store's folders that deleting these files left empty (an undone compaction's
        ``compacted/``), never the store's own folders (entries, journal...)."""
        store = self.ws.store
        keep = {store, self.ws.entries_dir, self.ws.log_dir}
        for folder in sorted({p.parent for p in deleted}, key=lambda f: len(f.parts), reverse=True):
            while folder not in keep and folder.is_relative_to(store) and folder != folder.parent:
                try:
                    folder.rmdir()  # only when empty
                except OSError:
                    break
                folder = folder.parent

    def _current(self, path: Path) -> bytes | None:
        """What a file the journal writes holds now (``None``: absent); refused when it is not a regular
        file or cannot be read."""
        try:
            return _read_or_none(path)
        except OSError as exc:
            raise Refused(f"{self.ws.rel(path)} cannot be read ({exc}); nothing was written") from None

    def record(self, operation: Operation) -> Record:
        """Journal an operation whose files someone else writes (an editor applying a WorkspaceEdit the
        user confirmed): the record alone, with the same before/after bytes, so ``undo`` works on it."""
        for change in operation.changes:
            self._path(change.path)  # refuse paths outside the root here too
        now = datetime.now(UTC)
        op_id = f"{now:%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"
        record = Record(op_id, now, self.command, self.argv, operation.op, operation.reason, operation.entries,
                        operation.changes, operation.undoes, self.ws.log_dir / f"{op_id}.json", operation.stage)
        with store_lock(self.ws):
            atomic_write(record.path, _encode_record(record), self.ws.root)
        return record

    def _path(self, relpath: str, real_dirs: dict[str, str] | None = None) -> Path:
        """The file a journaled change may write: a memory file inside the workspace, nothing else."""
        if not self.ws.is_memory_path(relpath):
            raise Refused(f"refusing to write {relpath}: Lorekeeper only writes memory files")
        try:
            return resolve_inside(self.ws.root, relpath, real_dirs=real_dirs)
        except PathOutsideRoot as exc:
            raise Refused(f"refusing to write {relpath}: {exc}") from None

    # -- read ------------------------------------------------------------------------------------

    def records(self) -> tuple[list[Record], list[Finding]]:
        """All operations, oldest first, and findings for journal files that cannot be read."""
        out: list[Record] = []
        findings: list[Finding] = []
        folder = self.ws.log_dir
        if not folder.is_dir():
            return out, findings
        try:
            paths = sorted(p for p in folder.glob("*.json") if not p.name.startswith("."))
            real_inside_root = _inside(self.ws, folder)
        except OSError:
            return out, findings
        if not real_inside_root:
            findings.append(Finding(kind="invalid-journal-record", severity=Severity.error, source=self.ws.rel(folder),
                                    message="the journal folder leads outside the workspace; not read"))
            return out, findings
        self.invalid = []
        for marker in sorted(folder.glob(".batch-*.json")):
            batch = read_batch(self.ws, marker)
            if not batch.trusted:
                findings.append(Finding(kind="untrusted-batch-marker", severity=Severity.warning, source=self.ws.rel(marker),
                                        line=1, message=f"{batch.problem}: never replayed on its own (delete it if "
                                        "you did not expect it; `lore recover --force` rolls it back)"))
        for path in paths:
            self.reads += 1
            try:
                out.append(self._verified(path))
            except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
                self.invalid.append(path.stem)
                findings.append(Finding(kind="invalid-journal-record", severity=Severity.warning,
                                        message=f"journal record cannot be used: {exc}", source=self.ws.rel(path), line=1))
        out.sort(key=lambda r: (r.time, r.id))
        return out, findings

    def _verified(self, path: Path) -> Record:
        """A record read and checked end to end (see the module's docstring); ValueError says why not."""
        record = _decode_record(load_json(read_bytes(path, 256 * 1024 * 1024, self.ws.root)), path)
        if record.id != path.stem:
            raise ValueError(f"its id {brief(record.id)} does not match its file name")
        if record.time.tzinfo is None:
            raise ValueError("its time has no time zone (Lorekeeper always writes one)")
        if record.time > datetime.now(UTC) + timedelta(days=1):
            raise ValueError(f"its time {record.time.isoformat()} is in the future")
        for change in record.changes:
            if not self.ws.is_memory_path(change.path):
                raise ValueError(f"it names {brief(change.path)}, which is not a memory file")
        return record

    def find(self, key: str, records: list[Record] | None = None) -> Record:
        """An operation by its id, a unique prefix of it, or its random suffix."""
        if records is None:
            records, _ = self.records()
        matches = [r for r in records if r.id == key]
        if not matches:
            matches = [r for r in records if r.id.startswith(key) or r.id.endswith("-" + key)]
        if not matches:
            raise UnknownOperation(f"no operation {key!r} in the journal (see `lore log`)")
        if len(matches) > 1:
            raise UnknownOperation(f"{key!r} matches {len(matches)} operations: " + ", ".join(r.id for r in matches))
        return matches[0]

    @staticmethod
    def undone_by(records: list[Record]) -> dict[str, str]:
        """Operation id -> id of the undo that currently reverses it (an undo that was itself undone
        no longer counts)."""
        by_target: dict[str, list[Record]] = {}
        for record in records:
            for target in record.undone:
                by_target.setdefault(target, []).append(record)
        result: dict[str, str] = {}
        memo: dict[str, str | None] = {}

        def active_undo(op_id: str, seen: frozenset[str]) -> str | None:
            if op_id in memo:
                return memo[op_id]
            found = None
            for undo in reversed(by_target.get(op_id, [])):
                if undo.id in seen:
                    continue
                if active_undo(undo.id, seen | {undo.id}) is None:
                    found = undo.id
                    break
            memo[op_id] = found
            return found

        for record in records:
            undo = active_undo(record.id, frozenset({record.id}))
            if undo:
                result[record.id] = undo
        return result

    # -- undo ------------------------------------------------------------------------------------

    def undo(self, key: str, force: bool = False) -> Record:
        """Reverse one operation. Refused when it is already undone or when a file it wrote has changed
        since (``force`` overrides the latter; the overwritten bytes are still journaled)."""
        records, _ = self.records()
        return self.undo_records([self.find(key, records)], records, force=force)

    def undo_last(self, force: bool = False) -> Record | None:
        """Reverse every operation of the most recent command not already undone, as one operation
        (all or nothing), reading the journal once. ``None`` when there is nothing to undo."""
        records, _ = self.records()
        newest_valid = max((r.path.stem for r in records), default="")
        blocking = sorted(i for i in self.invalid if i > newest_valid)
        if blocking:
            raise Refused(f"the newest journal record ({blocking[-1]}) cannot be used (`lore validate` says why); "
                          "refusing to guess which command was the last — undo a named operation "
                          "(`lore log`, `lore undo OP`), or remove that record")
        targets = self.last_command(records)
        return self.undo_records(targets, records, force=force) if targets else None

    def undo_records(self, targets: list[Record], records: list[Record], force: bool = False) -> Record:
        """Reverse several operations as one: each file goes back to what it held before the oldest of
        them touched it. Refused as a whole, before anything is written, when one is already undone or
        a file changed since the newest of them wrote it (``force`` overrides the latter)."""
        undone = self.undone_by(records)
        for target in targets:
            if target.id in undone:
                raise Refused(f"operation {target.id} is already undone by {undone[target.id]}")
        ordered = sorted(targets, key=lambda r: (r.time, r.id))
        first_before: dict[str, bytes | None] = {}
        last_after: dict[str, bytes | None] = {}
        for target in ordered:
            for change in target.changes:
                first_before.setdefault(change.path, change.before)
                last_after[change.path] = change.after
        changes = []
        for path_name, after in last_after.items():
            current = self._current(self._path(path_name))
            if current == first_before[path_name]:
                continue  # already back (an editor's undo, say): nothing to write, nothing to refuse
            if current != after and not force:
                owner = next(t.id for t in reversed(ordered) if any(c.path == path_name for c in t.changes))
                raise Refused(
                    f"{path_name} changed after operation {owner}; undo would overwrite that change "
                    "(use --force to undo anyway; the current text is kept in the journal)"
                )
            changes.append(FileChange(path_name, current, first_before[path_name]))
        entries = list(dict.fromkeys(e for t in ordered for e in t.entries))
        if len(ordered) == 1:
            target = ordered[0]
            reason, undoes = f"undo {target.op} {target.id}: {target.reason}", target.id
        else:
            kinds = ", ".join(f"{n} {op}" for op, n in sorted(_count_ops(ordered).items()))
            reason, undoes = f"undo command {ordered[0].command} ({kinds})", [t.id for t in ordered]
        return self.apply(Operation(op="undo", reason=reason, changes=changes, entries=entries, undoes=undoes))

    def reconcile(self, paths: set[str], records: list[Record] | None = None) -> list[Record]:
        """Learn of operations reverted outside Lorekeeper (Ctrl+Z in an editor, a `git checkout`): for
        the newest live operation that touched each of ``paths``, when every file it changed holds again
        what it held before, record an undo of it that writes nothing. The journal then agrees with the
        files, and ``undo`` does not refuse over a change that is already gone. ``records``: the
        journal's records, when the caller holds them as they are now."""
        if records is None:
            records, _ = self.records()
        undone = self.undone_by(records)
        found: list[Record] = []
        for path_name in sorted(paths):
            newest = next((r for r in reversed(records) if r.op != "undo" and r.id not in undone
                           and any(c.path == path_name for c in r.changes)), None)
            if newest is None or newest in found:
                continue
            try:
                reverted = all(self._current(self._path(c.path)) == c.before for c in newest.changes)
            except Refused:
                continue
            if reverted:
                found.append(newest)
        out = []
        for record in found:
            out.append(self.apply(Operation(op="undo", reason=f"reverted outside Lorekeeper: {record.op} {record.id}",
                                            changes=[], entries=record.entries, undoes=record.id)))
        return out

    def last_command(self, records: list[Record] | None = None) -> list[Record]:
        """The operations of the most recent command that is not an undo and is not already undone,
        newest first."""
        if records is None:
            records, _ = self.records()
        undone = self.undone_by(records)
        for record in reversed(records):
            if record.op == "undo" or record.id in undone:
                continue
            ops = [r for r in records if r.command == record.command and r.op != "undo" and r.id not in undone]
            return sorted(ops, key=lambda r: (r.time, r.id), reverse=True)
        return []

    def history_of(self, paths: set[str], entry_ids: set[str]) -> list[Record]:
        """Operations that touched any of these files or entries, oldest first."""
        return touching(self.records()[0], paths, entry_ids)


def _count_ops(records: list[Record]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for record in records:
        counts[record.op] = counts.get(record.op, 0) + 1
    return counts


def recover(ws: Workspace, sweep: bool = True) -> list[str]:
    """Deal with batches a killed process left half applied (a ``.batch-*`` marker still in the log),
    before anything reads the store. Returns what was done, as messages (also logged to stderr).

    Only a marker this user's Lorekeeper signed on this machine is acted on (one that came with the
    files, through git or an archive, never is: ``lore validate`` reports it), and only the store's own
    files are written: a batch that wrote nothing outside the store yet is rolled back (each file back to
    its "before" bytes when it still holds what the batch wrote; the batch's records removed); one that
    wrote every file is finished (its marker removed, its records kept for ``undo``); one caught between
    files outside the store is left as it is and reported, for ``lore recover``. No file outside the
    store is ever written, created or deleted here.
    ``sweep``: also remove the temporary files killed writes left (a look through every store folder,
    ~5 ms at 10k entries: the language server leaves it to its full checks, not each save)."""
    folder = ws.log_dir
    try:
        if not _inside(ws, folder):
            return []
        markers = sorted(folder.glob(".batch-*.json"))
    except OSError:
        return []
    messages: list[str] = []
    if markers:
        with store_lock(ws):
            for marker in sorted(folder.glob(".batch-*.json")):
                batch = read_batch(ws, marker)
                if batch.trusted:
                    messages.append(_settle(ws, batch))
    if sweep:
        _clean_temp_files(ws)
    for message in messages:
        log.warning("%s", message)
    return messages


def recover_explicitly(ws: Workspace, force: bool = False) -> list[str]:
    """``lore recover``: roll back every interrupted batch this machine signed, files outside the store
    included (each only when it still holds what the batch wrote). ``force``: also batches whose marker
    is not signed by this user's key (a machine without a key, or a marker that came with the files);
    their records are checked as any record is, and name memory files only."""
    folder = ws.log_dir
    if not folder.is_dir() or not _inside(ws, folder):
        return []
    messages: list[str] = []
    with store_lock(ws):
        for marker in sorted(folder.glob(".batch-*.json")):
            batch = read_batch(ws, marker)
            if not batch.trusted and not force:
                messages.append(f"{ws.rel(marker)}: {batch.problem}; left alone (`lore recover --force` rolls it "
                                "back anyway; delete the file if you did not expect it)")
                continue
            messages.append(_roll_back(ws, batch, everywhere=True))
    return messages


@dataclass
class Batch:
    """An interrupted batch: its marker, the records it names (verified), whether this machine wrote it."""

    marker: Path
    records: list[Record]
    trusted: bool
    problem: str = ""


def read_batch(ws: Workspace, marker: Path) -> Batch:
    """A batch marker and its records, checked: signed by this user's key, and each record's bytes what
    the signature covers."""
    journal = Journal.__new__(Journal)  # only its checks: no recovery inside recovery
    journal.ws = ws
    try:
        raw = read_bytes(marker, 1024 * 1024, ws.root)
        data = load_json(raw)
        ids = data.get("records", [])
        digests = data.get("digests", {})
        if not isinstance(ids, list) or not isinstance(digests, dict):
            raise ValueError("not a batch marker")
    except (OSError, ValueError, AttributeError) as exc:
        return Batch(marker, [], False, f"batch marker cannot be read ({exc})")
    ids = [i for i in ids if isinstance(i, str) and "/" not in i and "\\" not in i and i and not i.startswith(".")]
    signed = signed_by_me(_marker_payload(marker.name, ids, digests), data.get("mac"))
    records: list[Record] = []
    problem = "" if signed else "a batch marker this machine did not write (it came with the files)"
    for op_id in ids:
        path = marker.parent / f"{op_id}.json"
        try:
            if signed and hashlib.sha256(read_bytes(path, 256 * 1024 * 1024, ws.root)).hexdigest() != digests.get(op_id):
                raise ValueError("its bytes are not the ones the batch wrote")
            records.append(journal._verified(path))
        except FileNotFoundError:
            continue  # not written yet when the process died
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            signed, problem = False, f"record {op_id} of the batch cannot be used ({exc})"
    return Batch(marker, records, signed, problem)


def _marker_payload(name: str, ids: list[str], digests: dict[str, Any]) -> bytes:
    return json.dumps({"marker": name, "records": ids, "digests": digests}, sort_keys=True).encode()


def _marker_bytes(name: str, encoded: list[tuple[Path, bytes]]) -> bytes:
    ids = [path.stem for path, _ in encoded]
    digests = {path.stem: hashlib.sha256(data).hexdigest() for path, data in encoded}
    data: dict[str, Any] = {"records": ids, "digests": digests}
    mac = sign(_marker_payload(name, ids, digests))
    if mac is not None:
        data["mac"] = mac
    return json.dumps(data).encode()


def _settle(ws: Workspace, batch: Batch) -> str:
    """Roll back, finish or leave one signed batch, writing inside the store only (see :func:`recover`)."""
    first: dict[str, bytes | None] = {}
    last: dict[str, bytes | None] = {}
    for record in batch.records:
        for change in record.changes:
            first.setdefault(change.path, change.before)
            last[change.path] = change.after
    outside = [p for p in last if not ws.is_store_file(p)]
    state: dict[str, str] = {}
    for path in outside:
        try:
            current = _read_or_none(resolve_inside(ws.root, path))
        except (PathOutsideRoot, OSError):
            current = b"\x00unreadable"
        state[path] = "written" if current == last[path] and last[path] != first[path] else \
            "untouched" if current == first[path] else "changed"
    written = [p for p, how in state.items() if how == "written"]
    if not written:
        return _roll_back(ws, batch, everywhere=False)
    if all(how == "written" or last[p] == first[p] for p, how in state.items()):
        atomic_delete(batch.marker, ws.root)  # every file holds what the batch wrote: it is complete
        return (f"an interrupted change had written every file ({', '.join(sorted(written))}); it is kept "
                "(`lore log` lists it, `lore undo` reverses it)")
    waiting = sorted(p for p, how in state.items() if how != "written" and last[p] != first[p])
    return (f"an interrupted change wrote {', '.join(sorted(written))} but not {', '.join(waiting)}; left as it "
            "is: run `lore recover` to roll it back")


def _inside(ws: Workspace, folder: Path) -> bool:
    """Whether a folder of the store, if it exists, stays inside the workspace once links are resolved."""
    return _within_real(os.path.realpath(folder), os.path.realpath(ws.root))


def _within_real(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _clean_temp_files(ws: Workspace) -> None:
    """Remove the temporary files of atomic writes a killed process left behind. Every write to these
    folders holds the store's lock, so under the lock any temporary file there is a leftover."""
    folders = [f for f in (ws.log_dir, ws.entries_dir, ws.store, ws.store / "compacted", ws.store / "mif")
               if f.is_dir() and _inside(ws, f)]
    if not any(stale_temp_files(f, older_than=0) for f in folders):
        return
    with store_lock(ws):
        for folder in folders:
            for path in stale_temp_files(folder, older_than=0):
                try:
                    atomic_delete(path, ws.root)
                except OSError:
                    continue


def _roll_back(ws: Workspace, batch: Batch, everywhere: bool) -> str:
    """Put back each file of a batch that still holds what the batch wrote, newest change first, then
    remove its records and marker. ``everywhere``: files outside the store too (``lore recover``);
    otherwise only the store's own files (automatic recovery: those are all a batch wrote yet)."""
    journal = Journal.__new__(Journal)
    journal.ws = ws
    restored, kept = 0, []
    for record in reversed(batch.records):
        for change in reversed(record.changes):
            if not ws.is_store_file(change.path) and not everywhere:
                continue
            try:
                target = journal._path(change.path)
                current = _read_or_none(target)
            except (Refused, OSError):
                kept.append(change.path)
                continue
            if current == change.after and current != change.before:
                try:
                    _put(target, change.before, ws.root)
                    restored += 1
                except OSError:
                    kept.append(change.path)
            elif current != change.before:
                kept.append(change.path)
    for record in batch.records:
        atomic_delete(record.path, ws.root)
    atomic_delete(batch.marker, ws.root)
    return (f"an interrupted batch of {len(batch.records)} operation(s) was rolled back ({restored} file(s) "
            "restored)" + (f"; changed since, left as they are: {', '.join(sorted(set(kept)))}" if kept else ""))


def touching(records: list[Record], paths: set[str], entry_ids: set[str]) -> list[Record]:
    """The records that changed any of these files or named any of these entries."""
    return [r for r in records if entry_ids & set(r.entries) or paths & {c.path for c in r.changes}]


def _read_or_none(path: Path) -> bytes | None:
    try:
        return read_bytes(path, 256 * 1024 * 1024)
    except (FileNotFoundError, NotADirectoryError):
        return None


def _put(path: Path, data: bytes | None, root: Path) -> None:
    if data is None:
        atomic_delete(path, root)
    else:
        atomic_write(path, data, root)


def _blob(data: bytes | None) -> dict[str, Any] | None:
    if data is None:
        return None
    digest = hashlib.sha256(data).hexdigest()
    try:
        return {"text": data.decode("utf-8"), "sha256": digest}
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(data).decode("ascii"), "sha256": digest}


def _unblob(blob: dict[str, Any] | None) -> bytes | None:
    if blob is None:
        return None
    data = blob["text"].encode("utf-8") if "text" in blob else base64.b64decode(blob["base64"])
    if hashlib.sha256(data).hexdigest() != blob["sha256"]:
        raise ValueError("recorded bytes do not match their checksum")
    return data


def _encode_record(record: Record) -> bytes:
    data = {
        "id": record.id,
        "time": record.time.isoformat(),
        "command": record.command,
        "argv": record.argv,
        "op": record.op,
        "reason": record.reason,
        "entries": record.entries,
        "undoes": record.undoes,
        **({"stage": record.stage} if record.stage else {}),
        "files": [{"path": c.path, "before": _blob(c.before), "after": _blob(c.after)} for c in record.changes],
    }
    # One line per file change: json's C encoder writes those; with an indent it falls back to the
    # Python encoder, which costs ~40 µs per change (a verification of 10,000 entries is one record).
    files = data.pop("files")
    head = json.dumps(data, indent=1, ensure_ascii=False)[:-2]
    lines = ",\n".join("  " + json.dumps(f, ensure_ascii=False) for f in files)
    return (head + ',\n "files": [' + (f"\n{lines}\n ]" if files else "]") + "\n}\n").encode("utf-8")


def _decode_record(data: dict[str, Any], path: Path) -> Record:
    if not isinstance(data, dict):
        raise ValueError("not a journal record")
    return Record(
        id=str(data["id"]),
        time=datetime.fromisoformat(str(data["time"])),
        command=data["command"],
        argv=data.get("argv", ""),
        op=data["op"],
        reason=data.get("reason", ""),
        entries=list(data.get("entries", [])),
        changes=[FileChange(f["path"], _unblob(f["before"]), _unblob(f["after"])) for f in data["files"]],
        undoes=data.get("undoes"),
        path=path,
        stage=data["stage"] if isinstance(data.get("stage"), str) else "",
    )
