"""The journal: every change a command makes to memory is an operation, recorded in its own file under
``<store>/log/`` before the files change, with the exact bytes before and after. One file per operation
means two branches that both changed memory merge without conflicts in the journal.

``undo`` writes the recorded "before" bytes back (refusing when a file changed since), and is itself an
operation, so an undo can be undone."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import sys
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..model import Finding, Severity
from ..workspace import PathOutsideRoot, Workspace, resolve_inside
from .files import atomic_delete, atomic_write


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
    undoes: str | None = None


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
    undoes: str | None
    path: Path

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
        }


def new_command_id() -> str:
    return secrets.token_hex(4)


class Journal:
    """Applies operations atomically and records them; lists and undoes them."""

    def __init__(self, ws: Workspace, command: str | None = None, argv: list[str] | None = None):
        self.ws = ws
        self.command = command or new_command_id()
        self.argv = " ".join(argv if argv is not None else ["lore", *sys.argv[1:]])

    # -- apply -----------------------------------------------------------------------------------

    def apply(self, operation: Operation) -> Record:
        """Check every file still holds its expected "before" bytes, record the operation, then write
        each file atomically. If a write fails, the files already written are put back and the record
        is removed, so the store is as it was."""
        targets = [(change, self._path(change.path)) for change in operation.changes]
        for change, path in targets:
            current = _read_or_none(path)
            if current != change.before:
                state = "was created" if change.before is None else "was deleted" if current is None else "changed"
                raise Refused(f"{change.path} {state} since the change was planned; nothing was written")
        now = datetime.now(timezone.utc)
        op_id = f"{now:%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"
        record = Record(op_id, now, self.command, self.argv, operation.op, operation.reason,
                        operation.entries, operation.changes, operation.undoes,
                        self.ws.log_dir / f"{op_id}.json")
        atomic_write(record.path, _encode_record(record))
        done: list[tuple[FileChange, Path]] = []
        try:
            for change, path in targets:
                _put(path, change.after)
                done.append((change, path))
        except BaseException:
            for change, path in reversed(done):
                _put(path, change.before)
            atomic_delete(record.path)
            raise
        return record

    def record(self, operation: Operation) -> Record:
        """Journal an operation whose files someone else writes (an editor applying a WorkspaceEdit the
        user confirmed): the record alone, with the same before/after bytes, so ``undo`` works on it."""
        for change in operation.changes:
            self._path(change.path)  # refuse paths outside the root here too
        now = datetime.now(timezone.utc)
        op_id = f"{now:%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"
        record = Record(op_id, now, self.command, self.argv, operation.op, operation.reason, operation.entries,
                        operation.changes, operation.undoes, self.ws.log_dir / f"{op_id}.json")
        atomic_write(record.path, _encode_record(record))
        return record

    def _path(self, relpath: str) -> Path:
        try:
            return resolve_inside(self.ws.root, relpath)
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
        for path in sorted(folder.glob("*.json")):
            try:
                out.append(_decode_record(json.loads(path.read_text(encoding="utf-8")), path))
            except (OSError, ValueError, KeyError, TypeError) as exc:
                findings.append(Finding(kind="invalid-journal-record", severity=Severity.warning,
                                        message=f"journal record cannot be read: {exc}", source=self.ws.rel(path), line=1))
        out.sort(key=lambda r: (r.time, r.id))
        return out, findings

    def find(self, key: str) -> Record:
        """An operation by its id, a unique prefix of it, or its random suffix."""
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
            if record.undoes:
                by_target.setdefault(record.undoes, []).append(record)
        result: dict[str, str] = {}

        def active_undo(op_id: str, seen: frozenset[str]) -> str | None:
            for undo in reversed(by_target.get(op_id, [])):
                if undo.id in seen:
                    continue
                if active_undo(undo.id, seen | {undo.id}) is None:
                    return undo.id
            return None

        for record in records:
            undo = active_undo(record.id, frozenset({record.id}))
            if undo:
                result[record.id] = undo
        return result

    # -- undo ------------------------------------------------------------------------------------

    def undo(self, key: str, force: bool = False) -> Record:
        """Reverse one operation. Refused when it is already undone or when a file it wrote has changed
        since (``force`` overrides the latter; the overwritten bytes are still journaled)."""
        target = self.find(key)
        records, _ = self.records()
        already = self.undone_by(records).get(target.id)
        if already:
            raise Refused(f"operation {target.id} is already undone by {already}")
        changes = []
        for change in target.changes:
            path = self._path(change.path)
            current = _read_or_none(path)
            if current != change.after and not force:
                raise Refused(
                    f"{change.path} changed after operation {target.id}; undo would overwrite that change "
                    "(use --force to undo anyway; the current text is kept in the journal)"
                )
            changes.append(FileChange(change.path, current, change.before))
        return self.apply(Operation(op="undo", reason=f"undo {target.op} {target.id}: {target.reason}",
                                    changes=changes, entries=target.entries, undoes=target.id))

    def last_command(self) -> list[Record]:
        """The operations of the most recent command that is not an undo and is not already undone,
        newest first."""
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


def touching(records: list[Record], paths: set[str], entry_ids: set[str]) -> list[Record]:
    """The records that changed any of these files or named any of these entries."""
    return [r for r in records if entry_ids & set(r.entries) or paths & {c.path for c in r.changes}]


def _read_or_none(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None


def _put(path: Path, data: bytes | None) -> None:
    if data is None:
        atomic_delete(path)
    else:
        atomic_write(path, data)


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
        "files": [{"path": c.path, "before": _blob(c.before), "after": _blob(c.after)} for c in record.changes],
    }
    return (json.dumps(data, indent=1, ensure_ascii=False) + "\n").encode("utf-8")


def _decode_record(data: dict[str, Any], path: Path) -> Record:
    return Record(
        id=data["id"],
        time=datetime.fromisoformat(data["time"]),
        command=data["command"],
        argv=data.get("argv", ""),
        op=data["op"],
        reason=data.get("reason", ""),
        entries=list(data.get("entries", [])),
        changes=[FileChange(f["path"], _unblob(f["before"]), _unblob(f["after"])) for f in data["files"]],
        undoes=data.get("undoes"),
        path=path,
    )
