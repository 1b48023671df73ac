# pyright: standard
"""Code actions. Quick fixes are built from the ``data`` of the diagnostics the client sends back with
the request (what the engine decided when it reported the finding: its kind, entry and typed fix), as
ruff's server does — nothing is recomputed. A client that sends no diagnostics gets the same data for
the entry at the cursor from the current snapshot. Every fix kind the engine produces maps to an
action here; the refactor (fuse) and source (compact) actions come from the entry and the store."""

from __future__ import annotations

import logging
from typing import Any

from lsprotocol import types
from pydantic import ValidationError

from ...analysis.compaction.actions import fuse_operations
from ...core.kinds import is_stale
from ...core.model import CompressFix, Finding, MergeFix, RemoveRepeatFix, ReplaceRefFix, ReplaceTextFix, SupersedeFix
from .diagnostics import DiagnosticData
from .names import Command
from .server import LoreServer
from .state import Snapshot

log = logging.getLogger("lorekeeper.lsp")
COMPACT_KIND = types.CodeActionKind.Source + ".lorekeeper.compact"


def received_data(diagnostics: list[types.Diagnostic], entry_ids: set[str], at: types.Range) -> list[DiagnosticData]:
    """The data of our diagnostics among those the client sent: those on the entries at the cursor or
    on the lines asked about. Data that does not validate (another version, a hand-made request) is
    skipped."""
    out = []
    for diagnostic in diagnostics:
        if diagnostic.source != "lorekeeper" or not isinstance(diagnostic.data, dict):
            continue
        try:
            data = DiagnosticData.model_validate(diagnostic.data)
        except ValidationError as exc:
            log.info("code action: diagnostic data ignored: %s", exc.errors()[0]["msg"])
            continue
        on_lines = diagnostic.range.start.line <= at.end.line and diagnostic.range.end.line >= at.start.line
        if data.entry in entry_ids or on_lines:
            out.append(data)
    return out


def _action(title: str, kind: str, command: str, arguments: list[Any], preferred: bool = False) -> types.CodeAction:
    return types.CodeAction(title=title, kind=kind, is_preferred=preferred or None,
                            command=types.Command(title=title, command=command, arguments=arguments))


def same_fix(snapshot: Snapshot, fix: ReplaceRefFix | ReplaceTextFix) -> list[Finding]:
    """The findings of every memory that the same fix mends (one moved file named in many places)."""
    return [f for f in snapshot.findings if f.entry and f.fix == fix]


def quick_fixes(data: list[DiagnosticData], snapshot: Snapshot | None = None) -> list[types.CodeAction]:
    """The quick fixes for diagnostics' data, in the order of the data, each offered once. ``snapshot``
    only counts how many memories a "fix all" would mend."""
    actions: list[types.CodeAction] = []
    seen: set[tuple[str, str, str]] = set()

    def add(action: types.CodeAction) -> None:
        command = action.command
        key = (action.title, command.command if command else "", repr(command.arguments) if command else "")
        if key not in seen:
            seen.add(key)
            actions.append(action)

    stale_entries: dict[str, bool] = {}
    for item in data:
        fix, entry = item.fix, item.entry
        if entry is None:
            continue
        if isinstance(fix, MergeFix) and item.editable:
            add(_action(f"Merge with {fix.into}", types.CodeActionKind.QuickFix, Command.MERGE, [fix.entry, fix.into],
                        preferred=True))
        elif isinstance(fix, SupersedeFix):
            add(_action(f"Keep the newer ({fix.by})", types.CodeActionKind.QuickFix, Command.KEEP_NEWER, [fix.by, fix.entry]))
            add(_action("Both are true (stop reporting this pair)", types.CodeActionKind.QuickFix,
                        Command.KEEP_BOTH, [fix.by, fix.entry]))
        elif isinstance(fix, (ReplaceRefFix, ReplaceTextFix)):
            add(_action(f"Update reference to {fix.new}", types.CodeActionKind.QuickFix, Command.APPLY_FIX,
                        [entry, fix.model_dump(mode="json")], preferred=True))
            count = len(same_fix(snapshot, fix)) if snapshot is not None else 0
            if count > 1:
                add(_action(f"Update every reference to {fix.old} ({count} memories)", types.CodeActionKind.QuickFix,
                            Command.FIX_ALL, [fix.model_dump(mode="json")]))
        elif isinstance(fix, RemoveRepeatFix):
            kept = snapshot.by_id.get(fix.kept) if snapshot is not None else None
            where = f" (kept in {kept.location.path}:{kept.location.start_line})" if kept is not None else ""
            add(_action(f"Remove this repeat{where}", types.CodeActionKind.QuickFix, Command.REMOVE_REPEAT,
                        [fix.entry, fix.kept]))
        elif isinstance(fix, CompressFix) and item.editable:
            add(_action("Summarise this memory (its text stays)", types.CodeActionKind.QuickFix, Command.COMPRESS,
                        [fix.entry]))
        if is_stale(item.kind) or (fix is not None and fix.action == "verify"):
            stale_entries[entry] = stale_entries.get(entry, False) or item.editable
    for entry, editable in stale_entries.items():
        add(_action("Mark as still valid", types.CodeActionKind.QuickFix, Command.VERIFY, [entry]))
        if editable:
            add(_action("Archive this memory", types.CodeActionKind.QuickFix, Command.ARCHIVE, [entry]))
    return actions


def fuse_operation(ls: LoreServer, snapshot: Snapshot, entry_id: str):
    """The fuse operation an entry would take part in, computed once per store (the rule alone: this
    runs on the request path)."""
    if "fuse" not in snapshot.memo:
        snapshot.memo["fuse"] = fuse_operations(snapshot.store, ls.config, snapshot.ws.rel(snapshot.ws.entries_dir))
    return snapshot.memo["fuse"].get(entry_id)


def code_actions(ls: LoreServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    snapshot = ls.snapshot
    relpath = ls.relpath(params.text_document.uri)
    actions: list[types.CodeAction] = []
    if snapshot is not None and relpath is not None:
        entries = snapshot.entries_in(relpath, params.range.start.line)[:1]
        ids = {e.id for e in entries}
        data = received_data(list(params.context.diagnostics or []), ids, params.range)
        if not data:  # the client sent none: the same data, from the findings of the entry at the cursor
            data = [DiagnosticData.of(f, e) for e in entries for f in snapshot.findings_of_entry(e.id)]
        actions += quick_fixes(data, snapshot)
        for entry in entries:
            fuse = fuse_operation(ls, snapshot, entry.id)
            if fuse is not None:
                topic = fuse.result["content"].split(" (", 1)[0] if fuse.result else "this topic"
                actions.append(_action(f"Fuse {len(fuse.sources)} entries about {topic}",
                                       types.CodeActionKind.RefactorRewrite, Command.FUSE, [entry.id]))
    actions.append(_action("Compact memory…", COMPACT_KIND, Command.COMPACT, [{"dryRun": False}]))
    return actions


def register(server: LoreServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.RefactorRewrite, COMPACT_KIND]))
    def on_code_action(ls: LoreServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        actions = code_actions(ls, params)
        wanted = params.context.only
        if wanted:
            actions = [a for a in actions if any((a.kind or "").startswith(w) for w in wanted)]
        return actions
