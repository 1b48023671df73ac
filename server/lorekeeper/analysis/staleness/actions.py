# pyright: standard
"""Actions on stale memories, each a journaled operation: verify (record fingerprints), mark (record
``stale_reason``), apply a fix (point a moved reference at its new place), follow a rename, archive."""

from __future__ import annotations

import json
import re
from typing import Any

from ...core.model import Entry, Finding, Fix, ReplaceRefFix, ReplaceTextFix, Severity, stamp
from ...infra.safeio import load_json, read_bytes, read_text
from ...refs.fingerprint import Verifications, fingerprinted
from ...store import FileChange, Journal, Operation, Record, Store
from ...workspace import Workspace
from .checker import StalenessChecker


def _now_iso() -> str:

    return stamp()


def distinct(entries: list[Entry]) -> list[Entry]:
    """The entries, each once (a command may name one twice), in the order first named."""
    return list({(e.id, e.location.path, e.location.start_line): e for e in entries}.values())


def verify_entries(checker: StalenessChecker, entries: list[Entry], journal: Journal) -> list[Record]:
    """Record, for each entry, the fingerprints of everything it references and the time: the baseline
    for "changed since verified". Entry and MIF files get ``verified`` and ``fingerprints`` fields (and
    lose a ``stale_reason``); instruction-file entries are recorded in ``<store>/verified.json``. An
    entry named twice is verified once."""
    entries = distinct(entries)
    operations: list[Operation] = []
    now = _now_iso()
    sidecar_updates: dict[str, Any] = {}
    verified: list[str] = []
    file_changes: list[FileChange] = []
    references = 0
    # One pass over the code for every symbol named in text, rather than one pass per entry.
    checker.index.files_mentioning({ref.target for entry in entries for ref in checker.references(entry)
                                    if ref.kind == "symbol" and not ref.file})
    # The files of the symbols named with their file, parsed over the cores when there are many.
    checker.index.parse_ahead(path for entry in entries for ref in checker.references(entry)
                              if ref.kind == "symbol" and ref.file
                              and (path := checker.index.resolve(ref.file, checker.base_of(entry))))
    for entry in entries:
        prints = {}
        for ref in fingerprinted(checker.references(entry)):
            fingerprint = checker.fingerprints.fingerprint(ref, checker.base_of(entry, ref))
            if fingerprint is not None:
                prints[ref.label()] = fingerprint
        if entry.format == "instruction":
            sidecar_updates[Verifications.key(entry)] = {"entry": entry.id, "verified": now, "fingerprints": prints}
            continue
        changes: dict[str, Any] = {"verified": now, "fingerprints": prints}
        if entry.stale_reason or "stale_reason" in entry.raw:
            changes["stale_reason"] = None
        verified.append(entry.id)
        references += len(prints)
        file_changes.append(checker.store.change_for(entry, changes))
    if file_changes:
        operations.append(Operation(op="verify", reason=f"verified {_plural(len(verified), 'entry', 'entries')} "
                                    f"({_plural(references, 'reference', 'references')})",
                                    changes=file_changes, entries=verified))
    if sidecar_updates:
        operations.append(_sidecar_operation(
            checker.ws, sidecar_updates, [v["entry"] for v in sidecar_updates.values()], "verify",
            f"verified {len(sidecar_updates)} instruction-file entr{'y' if len(sidecar_updates) == 1 else 'ies'}"))
    return journal.apply_all(operations) if operations else []  # one batch: all verified, or none


def _sidecar_operation(ws: Workspace, updates: dict[str, Any], entry_ids: list[str], op: str,
                       reason: str) -> Operation:

    path = ws.store / Verifications.FILE
    try:
        before: bytes | None = read_bytes(path, root=ws.root)
    except FileNotFoundError:
        before = None
    try:
        data = load_json(before.decode("utf-8")) if before else {}
    except (ValueError, UnicodeDecodeError):
        data = {}
    if not isinstance(data, dict):
        data = {}
    entries = data.setdefault("entries", {})
    entries.update(updates)
    data.setdefault("about", "Lorekeeper's verifications of instruction-file entries (lore verify); keyed by file and text.")
    after = (json.dumps(data, indent=2, ensure_ascii=False, sort_keys=False) + "\n").encode("utf-8")
    return Operation(op=op, reason=reason, changes=[FileChange(ws.rel(path), before, after)], entries=entry_ids)


#: Findings that mark a memory stale although they are warnings: a model's verdict (``check-stale --llm``).
MARKED_WARNINGS = frozenset({"llm-stale"})


def mark_stale(store: Store, findings: list[Finding], journal: Journal,
               llm_stage: str = "") -> tuple[list[Record], list[Entry]]:
    """Record ``stale_reason`` on the entries with error findings, or a model's ``llm-stale`` verdict
    (entry and MIF files; the operation's stage is then ``llm_stage``). Instruction-file entries are
    returned unmarked: their text is the user's, and the finding is their mark."""
    by_entry: dict[str, list[Finding]] = {}
    for finding in findings:
        if finding.entry and (finding.severity == Severity.error or finding.kind in MARKED_WARNINGS):
            by_entry.setdefault(finding.entry, []).append(finding)
    ids = store.by_id()
    operations: list[Operation] = []
    skipped: list[Entry] = []
    for entry_id, found in by_entry.items():
        entry = ids.get(entry_id)
        if entry is None:
            continue
        if entry.format == "instruction":
            skipped.append(entry)
            continue
        reason = "; ".join(f.message for f in found)
        if entry.stale_reason == reason:
            continue
        by_model = any(f.kind in MARKED_WARNINGS for f in found)
        operations.append(Operation(op="flag-stale", reason=reason, entries=[entry.id],
                                    changes=[store.change_for(entry, {"stale_reason": reason})],
                                    stage=llm_stage if by_model else ""))
    return (journal.apply_all(operations) if operations else []), skipped


def fix_change(store: Store, entry: Entry, fix: Fix | None, current: bytes | None = None) -> FileChange | None:
    """The file change a fix makes, without applying it: point a moved reference at its new path (in
    the text, and in ``refs``) or replace a stated value (package manager). ``None`` when nothing
    would change. ``current``: the file's bytes when an earlier change of the same operation has
    already changed them."""
    if not isinstance(fix, (ReplaceRefFix, ReplaceTextFix)):
        return None
    old, new = fix.old, fix.new
    pattern = (rf"(?<![\w/.-]){re.escape(old)}(?![\w-])" if fix.action == "replace-ref" else rf"\b{re.escape(old)}\b")
    if entry.format == "instruction":
        path = store.ws.root / entry.location.path
        text = current.decode("utf-8-sig") if current is not None else read_text(path, root=store.ws.root)
        lines = text.splitlines()[entry.location.start_line - 1 : entry.location.end_line]
        original = "\n".join(lines)
        replaced = re.sub(pattern, new, original)
        return store.change_for(entry, {"content": replaced}, current=current) if replaced != original else None
    changes: dict[str, Any] = {}
    content = re.sub(pattern, new, entry.content)
    if content != entry.content:
        changes["content"] = content
    if entry.refs and fix.action == "replace-ref":
        if entry.format == "entry" and isinstance(entry.raw.get("refs"), list):
            # Edit the file's own ref items so their form ("path:symbol" strings, extra keys) survives.
            def moved(path: str) -> bool:
                return path == old or path.startswith(old + "/")

            refs = [({**item, "path": new + item["path"][len(old):]} if isinstance(item, dict)
                     and isinstance(item.get("path"), str) and moved(item["path"]) else
                     new + item[len(old):] if isinstance(item, str) and (moved(item.split(":")[0]))
                     else item) for item in entry.raw["refs"]]
            if refs != entry.raw["refs"]:
                changes["refs"] = refs
        elif entry.format == "mif" and any(r.path == old or r.path.startswith(old + "/") for r in entry.refs):
            changes["refs"] = [{**r.model_dump(exclude_none=True),
                                **({"path": new + r.path[len(old):]} if r.path == old or r.path.startswith(old + "/") else {})}
                               for r in entry.refs]
    if not changes:
        return None
    if entry.stale_reason:
        changes["stale_reason"] = None
    return store.change_for(entry, changes, current=current)


def apply_fixes(store: Store, items: list[tuple[Entry, Finding]], journal: Journal) -> Record | None:
    """Apply the same kind of fix to several memories as one operation (the editor's "fix all": every
    memory naming a moved file points at its new place). Several bullets of one file make one change
    of that file. ``None`` when nothing changes."""
    combined: dict[str, FileChange] = {}
    for entry, finding in items:
        path = entry.location.path
        change = fix_change(store, entry, finding.fix, current=combined[path].after if path in combined else None)
        if change is None:
            continue
        if path in combined:
            combined[path].after = change.after
        else:
            combined[path] = change
    if not combined:
        return None
    fixes = sorted({f"{f.fix.old} -> {f.fix.new}" for _, f in items if isinstance(f.fix, (ReplaceRefFix, ReplaceTextFix))})
    return journal.apply(Operation(op="update-ref", reason=f"{'; '.join(fixes)} in {len(combined)} file(s)",
                                   changes=list(combined.values()), entries=[e.id for e, _ in items]))


def apply_fix(store: Store, entry: Entry, fix: Fix | None, journal: Journal, because: str = "") -> Record | None:
    """Apply a finding's fix (see :func:`fix_change`), journaled with ``because`` (the finding's
    message). ``None`` when it changes nothing."""
    change = fix_change(store, entry, fix)
    if change is None or not isinstance(fix, (ReplaceRefFix, ReplaceTextFix)):
        return None
    return journal.apply(Operation(op="update-ref", reason=f"{fix.old} -> {fix.new}" + (f": {because}" if because else ""),
                                   changes=[change], entries=[entry.id]))


def rename_changes(checker: StalenessChecker, old: str, new: str) -> list[tuple[Entry, FileChange]]:
    """When a file or folder is renamed from ``old`` to ``new``: the changes that make every memory
    referencing it (or anything under it) name the new place."""
    old, new = old.rstrip("/"), new.rstrip("/")
    out = []
    for entry in checker.store.live():
        base = checker.base_of(entry)
        for ref in checker.references(entry):
            if ref.kind != "path":
                continue
            target = ref.target.rstrip("/")
            full = f"{base}/{target}" if base and checker.index.resolve(ref.target, base) == f"{base}/{target}" else target
            if full == old or full.startswith(old + "/"):
                # Replace the renamed part as the memory spells it (relative to its folder if it is nested).
                spelled_old = old if not (base and full != target) else old[len(base) + 1 :]
                spelled_new = new if not (base and full != target) else new[len(base) + 1 :] if new.startswith(base + "/") else new
                change = fix_change(checker.store, entry, ReplaceRefFix(old=spelled_old, new=spelled_new))
                if change is not None:
                    out.append((entry, change))
                break
    return out


def archive_entry(store: Store, entry: Entry, journal: Journal, reason: str) -> Record:
    """Archive an entry: it stays on disk, no longer live. Instruction-file entries cannot be archived
    in place (their text would have to go), so they are refused."""
    if not entry.rewritable:
        raise ValueError("instruction-file entries are archived by editing the file; Lorekeeper keeps their text")
    return store.update(entry, {"archived": True, "archived_reason": reason}, journal=journal, op="archive", reason=reason)


def _plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"
