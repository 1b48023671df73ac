# pyright: standard
"""Commands (what code actions, lenses and the client's palette run) and the rename edit. Every change
goes through the engine (its actions, plans, the journal), so it is undoable with ``lore undo``; a
command parses its arguments, calls the engine under the writer lock, and re-checks."""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections.abc import Callable
from typing import Any

from lsprotocol import types
from pydantic import TypeAdapter, ValidationError

from ...analysis.compaction import apply_plan, changed_files, plan_compaction, render_preview
from ...analysis.compaction.actions import apply_operation, compress_entry, keep_both, keep_one, merge_into
from ...analysis.llm import journal_operations, open_stage
from ...analysis.staleness import apply_fix, apply_fixes, archive_entry, rename_changes, verify_entries
from ...analysis.staleness.actions import distinct
from ...app.report import describe_tokens, log_rows
from ...core.model import Entry, Finding, Fix, ReplaceRefFix, ReplaceTextFix, Severity
from ...facts import open_memory
from ...infra import cache as cache_files
from ...infra.safeio import read_text
from ...store import FileChange, Journal, Operation, Record, Refused, Store
from .code_actions import fuse_operation, same_fix
from .diagnostics import publish
from .model_bridge import editor_model, stages
from .server import LoreServer

log = logging.getLogger("lorekeeper.lsp")
_FIX: TypeAdapter[Fix] = TypeAdapter(Fix)


def _journal(ls: LoreServer, name: str) -> Journal:
    assert ls.ws is not None
    return Journal(ls.ws, argv=["lore-lsp", name])


def _findings_for(ls: LoreServer, entry_id: str) -> list[Finding]:
    return ls.snapshot.findings_of_entry(entry_id) if ls.snapshot is not None else []


def _fix(value: Any) -> Fix | None:
    """A fix sent back by the client (a code action's argument), validated; ``None`` if it is not one."""
    try:
        return _FIX.validate_python(value)
    except ValidationError:
        return None


def _store(ls: LoreServer) -> Store:
    """The current store, for a command (commands run once the workspace is open)."""
    store = ls.store
    if store is None:
        raise RuntimeError("no workspace is open")
    return store


def _entry(ls: LoreServer, entry_id: Any):
    """The entry a command argument names, or ``None`` (a client may send anything)."""
    if ls.store is None or not isinstance(entry_id, str):
        return None
    found = ls.store.find(entry_id)
    return found[0] if found else None


async def _on_entry(ls: LoreServer, entry_id: Any, act: Callable[[Entry], Record], done: str) -> dict[str, Any]:
    """A command on one entry: find it, act under the writer lock (a refusal is shown, nothing changes),
    confirm with ``done`` (``{id}`` is the entry's id), re-check."""
    with ls.lock:
        entry = _entry(ls, entry_id)
        if entry is None:
            return {"operation": None, "reason": f"no entry {entry_id}"}
        try:
            record = act(entry)
        except (ValueError, Refused) as exc:
            ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=str(exc)))
            return {"operation": None, "reason": str(exc)}
    _tell(ls, f"Lorekeeper: {done.format(id=entry.id)}; Undo reverses it.")
    await _recheck(ls)
    return {"operation": record.id}


def _tell(ls: LoreServer, message: str) -> None:
    """A confirmation after a change: no action without feedback."""
    ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=message))


async def _progress(ls: LoreServer, title: str):
    """A work-done progress token when the client shows progress, else ``None``."""
    caps = ls.client_capabilities.window
    if not (caps and caps.work_done_progress):
        return None
    token = f"lorekeeper-{secrets.token_hex(4)}"
    try:
        await ls.work_done_progress.create_async(token)
    except Exception as exc:
        log.warning("progress not created: %s", exc)
        return None
    ls.work_done_progress.begin(token, types.WorkDoneProgressBegin(title=title, percentage=0))
    return token


def _end(ls: LoreServer, token: str | None, message: str) -> None:
    if token is not None:
        ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))


def _unchanged_view(ls: LoreServer, path: str, text: str) -> bool:
    ws = ls.ws
    assert ws is not None
    try:
        return read_text(ws.root / path, root=ws.root) == text
    except (OSError, UnicodeDecodeError):
        return False


async def _confirm(ls: LoreServer, preview: str, count: int) -> bool:
    """Show the preview (written to the cache folder, opened where the client can show documents) and
    ask to apply it whole. A client that cannot ask gets no compaction."""
    ws = ls.ws
    assert ws is not None
    path = ws.cache_dir / "compaction-preview.md"
    try:
        if not cache_files.write(ws.root, ws.cache_dir, path.name, preview.encode("utf-8")):
            raise OSError("the cache folder cannot be used")
        caps = ls.client_capabilities.window
        if caps and caps.show_document and caps.show_document.support:
            await ls.window_show_document_async(types.ShowDocumentParams(uri=path.as_uri(), take_focus=True))
    except Exception as exc:  # the preview is a courtesy; the question below is what guards the store
        log.warning("compaction preview not shown: %s", exc)
    try:
        answer = await ls.window_show_message_request_async(types.ShowMessageRequestParams(
            type=types.MessageType.Info,
            message=f"Lorekeeper: apply {count} compaction operation(s)? The preview is in {ws.rel(path)}; "
                    "every original stays on disk and Undo reverses it.",
            actions=[types.MessageActionItem(title="Apply"), types.MessageActionItem(title="Cancel")]))
    except Exception as exc:
        log.warning("compaction not confirmed: %s", exc)
        return False
    return bool(answer and answer.title == "Apply")


async def _recheck(ls: LoreServer) -> list[Finding]:
    findings = await asyncio.get_running_loop().run_in_executor(None, ls.full_check)
    publish(ls, findings)
    return findings


def _workspace_edit(ls: LoreServer, changes: list[FileChange], annotated: bool, label: str) -> types.WorkspaceEdit:
    """File changes as a WorkspaceEdit: whole-document replacements and file creations, each carrying a
    change annotation that needs confirmation when the client supports annotations."""
    annotation = "lorekeeper" if annotated else None
    document_changes: list[Any] = []
    for change in changes:
        uri = ls.uri(change.path)
        after = change.after.decode("utf-8") if change.after is not None else ""
        if change.before is None:
            document_changes.append(types.CreateFile(uri=uri, annotation_id=annotation,
                                                     options=types.CreateFileOptions(overwrite=False, ignore_if_exists=True)))
            end = types.Position(line=0, character=0)
        else:
            lines = change.before.decode("utf-8", "replace").split("\n")
            end = types.Position(line=len(lines) - 1, character=len(lines[-1]))
        full = types.Range(start=types.Position(line=0, character=0), end=end)
        edit = (types.AnnotatedTextEdit(range=full, new_text=after, annotation_id=annotation) if annotation
                else types.TextEdit(range=full, new_text=after))
        document_changes.append(types.TextDocumentEdit(
            text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=None), edits=[edit]))
    annotations = ({annotation: types.ChangeAnnotation(label=label, needs_confirmation=True,
                                                       description="Lorekeeper compaction: nothing is deleted; "
                                                                   "`lore undo --last` reverses it")}
                   if annotation else None)
    return types.WorkspaceEdit(document_changes=document_changes, change_annotations=annotations)


async def compact(ls: LoreServer, options: dict[str, Any]) -> dict[str, Any]:
    """Compaction from the editor, applied by the server as one all-or-nothing batch (never handed to the
    client as an edit it could apply in part). ``{"dryRun": true}`` returns the plan with a readable
    ``preview`` and its ``plan`` id; ``{"plan": ID}`` applies that plan if memory has not changed since
    (else refuses: preview again); with neither, the server shows the preview (where the client can show
    documents) and asks before applying. ``{"llm": true}``: the LLM stage, with the configured model or
    the editor's."""
    only = options.get("only")
    only = only.split(",") if isinstance(only, str) else only
    stage = None
    config = ls.config
    if options.get("llm") and ls.ws is not None:
        stage, problems = open_stage(ls.ws, lent=editor_model(ls, asyncio.get_running_loop()) if ls.settings.editorModel else None)
        if stage is None:
            return {"applied": False, "reason": "no model to ask: " + "; ".join(problems or ["none configured"])}
        config = config.with_overrides(llm_assisted=True)
    token = await _progress(ls, "Compacting memory" + (" with the language model" if stage else ""))

    def make() -> tuple[Any, dict[str, Any], str, Store]:
        with ls.lock:
            assert ls.store is not None
            store = ls.store
            made = plan_compaction(store, config, only=only, llm=stage)
            if changed_files(made, store):
                # Memory changed since the server read it (the watcher has not told it yet): a plan is
                # applied only to the files it was made from, so plan from the files as they are now.
                store = open_memory(store.ws)
                made = plan_compaction(store, config, only=only, llm=stage)
            return made, made.to_json(), render_preview(made, store), store

    try:
        # A model's answers come back through this loop (the editor's model): plan in a worker thread.
        plan, summary, preview, store = (make() if stage is None
                                         else await asyncio.get_running_loop().run_in_executor(None, make))
    except ValueError as exc:
        _end(ls, token, "refused")
        return {"applied": False, "reason": str(exc)}
    if stage is not None:
        summary["llm"] = stage.report.to_json()
    if options.get("dryRun"):
        _end(ls, token, f"{len(plan.operations)} operations planned")
        return {**summary, "preview": preview}
    if not plan.operations and all(_unchanged_view(ls, p, t) for p, t in plan.views.items()):
        _end(ls, token, "nothing to do")
        return {**summary, "applied": False, "reason": "nothing to compact"}
    wanted = options.get("plan")
    if wanted is None:
        confirmed = await _confirm(ls, preview, len(plan.operations))
        if not confirmed:
            _end(ls, token, "cancelled")
            return {**summary, "applied": False, "reason": "cancelled"}
    elif wanted != summary["plan"]:
        _end(ls, token, "refused")
        return {**summary, "applied": False,
                "reason": "memory changed since the preview; nothing was written (preview again)"}
    with ls.lock:
        try:
            journal = _journal(ls, "compact")
            records = apply_plan(plan, store, journal)
            if stage is not None:
                records += [journal.record(op) for op in journal_operations(stage)]
        except Refused as exc:
            _end(ls, token, "refused")
            return {**summary, "applied": False, "reason": str(exc)}
    _end(ls, token, f"{len(plan.operations)} operations applied")
    await _recheck(ls)
    return {**summary, "applied": True, "journal": [r.id for r in records]}


def register(server: LoreServer) -> None:
    @server.feature(types.WORKSPACE_WILL_RENAME_FILES, types.FileOperationRegistrationOptions(
        filters=[types.FileOperationFilter(pattern=types.FileOperationPattern(glob="**/*"))]))
    def on_will_rename(ls: LoreServer, params: types.RenameFilesParams) -> types.WorkspaceEdit | None:
        """Offer to update the memories that name a file or folder being renamed: an edit the user
        confirms (annotated, where the client supports it), journaled as the editor applies it."""
        checker = ls.checker
        if checker is None:
            return None
        changes: list[FileChange] = []
        entries: list[str] = []
        for rename in params.files:
            old, new = ls.relpath(rename.old_uri), ls.relpath(rename.new_uri)
            if old and new:
                for entry, change in rename_changes(checker, old, new):
                    if all(c.path != change.path for c in changes):  # one edit a file (whole-document)
                        changes.append(change)
                        entries.append(entry.id)
        if not changes:
            return None
        caps = ls.client_capabilities.workspace
        annotated = bool(caps and caps.workspace_edit and caps.workspace_edit.change_annotation_support)
        # Journaled as its files reach disk (the user may untick some of the edit), not before.
        ls.expect_edit(Operation(op="update-ref", reason="references follow a rename in the editor",
                                 changes=changes, entries=entries))
        return _workspace_edit(ls, changes, annotated, "Update memories that reference the renamed files")

    @server.command("lore.checkStale")
    async def check_stale(ls: LoreServer, *args: Any) -> dict[str, Any]:
        token = await _progress(ls, "Checking memory")
        findings = await _recheck(ls)
        errors = sum(f.severity == Severity.error for f in findings)
        stale = len(ls.stale_entries())
        _end(ls, token, f"{stale} stale memories")
        # "stale" is what the status bar shows; "findings" counts every finding (duplicates, schema...).
        return {"stale": stale, "findings": len(findings), "errors": errors}

    @server.command("lore.verify")
    async def verify(ls: LoreServer, *ids: str) -> dict[str, Any]:
        with ls.lock:
            assert ls.store is not None and ls.checker is not None
            entries = distinct([e for i in ids for e in ls.store.find(str(i))[:1]]) if ids else ls.store.live()
            records = verify_entries(ls.checker, entries, _journal(ls, "verify"))
        _tell(ls, f"Lorekeeper: verified {len(entries)} memor{'y' if len(entries) == 1 else 'ies'}"
                  + (f" ({entries[0].id})" if len(entries) == 1 else "") + "; Undo reverses it.")
        await _recheck(ls)
        return {"verified": [e.id for e in entries], "operations": [r.id for r in records]}

    @server.command("lore.merge")
    async def merge(ls: LoreServer, entry_id: str, into: str) -> dict[str, Any]:
        with ls.lock:
            entry, keeper = _entry(ls, entry_id), _entry(ls, into)
            if entry is None or keeper is None:
                return {"operation": None, "reason": f"no entry {entry_id if entry is None else into}"}
            try:
                record = merge_into(_store(ls), entry, keeper, _journal(ls, "merge"), f"merged into {into} from the editor")
            except (ValueError, Refused) as exc:
                ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=str(exc)))
                return {"operation": None, "reason": str(exc)}
        _tell(ls, f"Lorekeeper: merged {entry_id} into {into} (references and tags kept); Undo reverses it.")
        await _recheck(ls)
        return {"operation": record.id}

    async def settle(ls: LoreServer, newer_id: str, older_id: str, decide: Any, kind: str) -> dict[str, Any]:
        """Settle a conflict between two entries (keep one, or both), journaled; a refusal is shown."""
        with ls.lock:
            newer, older = _entry(ls, newer_id), _entry(ls, older_id)
            if newer is None or older is None:
                return {"operation": None, "reason": "no such entry"}
            try:
                record = decide(_store(ls), newer, older, _journal(ls, kind))
            except (ValueError, Refused) as exc:
                ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=str(exc)))
                return {"operation": None, "reason": str(exc)}
        await _recheck(ls)
        return {"operation": record.id}

    @server.command("lore.keepNewer")
    async def keep(ls: LoreServer, newer_id: str, older_id: str) -> dict[str, Any]:
        return await settle(ls, newer_id, older_id, keep_one, "supersede")

    @server.command("lore.keepBoth")
    async def both(ls: LoreServer, newer_id: str, older_id: str) -> dict[str, Any]:
        return await settle(ls, newer_id, older_id, keep_both, "keep-both")

    @server.command("lore.applyFix")
    async def fix(ls: LoreServer, entry_id: str, value: Any = None, *args: Any) -> dict[str, Any]:
        """Apply a reference fix (the quick fix's argument: the fix its diagnostic carried)."""
        fix = _fix(value.get("fix") if isinstance(value, dict) and "fix" in value else value)
        if not isinstance(fix, (ReplaceRefFix, ReplaceTextFix)):
            return {"operation": None, "reason": "lore.applyFix takes an entry id and a replace-ref or replace-text fix"}
        with ls.lock:
            entry = _entry(ls, entry_id)
            if entry is None:
                return {"operation": None, "reason": f"no entry {entry_id}"}
            because = next((f.message for f in _findings_for(ls, entry.id) if f.fix == fix), "")
            record = apply_fix(_store(ls), entry, fix, _journal(ls, "update-ref"), because)
        if record is not None:
            _tell(ls, f"Lorekeeper: {entry_id} now says {fix.new} (was {fix.old}); Undo reverses it.")
        await _recheck(ls)
        return {"operation": record.id if record else None}

    @server.command("lore.fixAll")
    async def fix_all(ls: LoreServer, value: Any = None, *args: Any) -> dict[str, Any]:
        fix = _fix(value)
        if not isinstance(fix, (ReplaceRefFix, ReplaceTextFix)):
            return {"operation": None, "reason": "lore.fixAll takes the fix of a finding"}
        with ls.lock:
            snapshot = ls.snapshot
            assert snapshot is not None
            items = [(snapshot.by_id[f.entry], f) for f in same_fix(snapshot, fix) if f.entry in snapshot.by_id]
            try:
                record = apply_fixes(snapshot.store, items, _journal(ls, "update-ref"))
            except Refused as exc:
                ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=str(exc)))
                return {"operation": None, "reason": str(exc)}
        if record is not None:
            ls.window_show_message(types.ShowMessageParams(
                type=types.MessageType.Info,
                message=f"Lorekeeper: {fix.old} → {fix.new} in {len(items)} memories "
                        f"({len(record.changes)} file(s)); Undo reverses it."))
        await _recheck(ls)
        return {"operation": record.id if record else None, "memories": len(items)}

    @server.command("lore.archive")
    async def archive(ls: LoreServer, entry_id: str) -> dict[str, Any]:
        def act(entry: Entry) -> Record:
            reasons = "; ".join(f.message for f in _findings_for(ls, entry.id)) or "archived from the editor"
            return archive_entry(_store(ls), entry, _journal(ls, "archive"), reasons)

        return await _on_entry(ls, entry_id, act, "archived {id} (it stays on disk)")

    @server.command("lore.fuse")
    async def fuse(ls: LoreServer, entry_id: str) -> dict[str, Any]:
        with ls.lock:
            snapshot = ls.snapshot
            operation = fuse_operation(ls, snapshot, str(entry_id)) if snapshot is not None else None
            if operation is None or snapshot is None:
                return {"operation": None}
            record = apply_operation(operation, snapshot.store, _journal(ls, "fuse"))
        await _recheck(ls)
        return {"operation": record.id}

    @server.command("lore.compress")
    async def compress(ls: LoreServer, entry_id: str) -> dict[str, Any]:
        """Summarise one long memory (the quick fix of a verbose-entry finding); its text stays."""
        return await _on_entry(ls, entry_id, lambda entry: compress_entry(_store(ls), entry, ls.config, _journal(ls, "compress")),
                               "summarised {id} (its text stays)")

    @server.command("lore.compact")
    async def compact_command(ls: LoreServer, *args: Any) -> dict[str, Any]:
        options = args[0] if args and isinstance(args[0], dict) else None
        if options is None and args:
            return {"applied": False, "reason": "lore.compact takes one object: {dryRun, plan, only, llm}"}
        return await compact(ls, options or {})

    @server.command("lore.describe")
    def describe(ls: LoreServer, entry_id: str, *args: Any) -> dict[str, Any]:
        """What a memory's code lens summarises, in full (shown to the user; nothing changes)."""
        found = ls.store.find(str(entry_id)) if ls.store is not None else []
        if not found:
            return {"entry": None}
        entry = found[0]
        refs = [r.label() for r in ls.checker.references(entry)] if ls.checker else []
        when = ls.checker.verifications.verified_at(entry) if ls.checker else entry.verified
        problems = [f for f in _findings_for(ls, entry.id) if f.severity != Severity.info]
        text = (f"Memory {entry.id}: {len(refs)} reference(s)" + (f" ({', '.join(refs[:5])})" if refs else "")
                + (f"; verified {when:%Y-%m-%d}" if when else "; never verified (Lorekeeper: Mark Memory Verified)")
                + (f"; {len(problems)} problem(s): {problems[0].message}" if problems else "; no problems"))
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=text))
        return {"entry": entry.id, "references": refs, "verified": when.isoformat() if when else None,
                "problems": len(problems), "text": text}

    @server.command("lore.status")
    def status(ls: LoreServer, *args: Any) -> dict[str, Any]:
        """For status bars: the memory's size in tokens against the index budget, the number of stale
        memories, and the compaction stages this server offers."""
        tokens = ls.memory_tokens()
        # "tokens" is the entries' figure (what the index budget is about); "tokensByScope" says all of it.
        return {"tokens": tokens["entries"], "tokensByScope": tokens, "tokensText": describe_tokens(tokens),
                "budget": ls.config.budget, "stale": len(ls.stale_entries()), "stages": stages(ls)}

    @server.command("lore.context")
    async def context(ls: LoreServer, *args: Any) -> dict[str, Any]:
        """The memory an agent should load now (the renderer of `lore context` and MCP recall):
        ``{"budget": N, "focus": [PATH|QUERY...]}``, both optional. Without a focus, the code files open in
        the editor are the focus. Returns the ``--format json`` shape, with ``focus`` said."""
        from ...app.context import render_context  # noqa: PLC0415

        options = args[0] if args and isinstance(args[0], dict) else {}
        focus = options.get("focus")
        if not (isinstance(focus, list) and all(isinstance(f, str) for f in focus)):
            ws = ls.ws
            opened = (ls.relpath(uri) for uri in list(ls.workspace.text_documents))
            focus = sorted({p for p in opened if p and ws is not None and not ws.is_memory_path(p)})
        budget = options.get("budget")
        budget = budget if isinstance(budget, int) and budget > 0 else ls.settings.budget
        snapshot = ls.snapshot
        if snapshot is None or ls.ws is None:
            return {"tokens": 0, "budget": budget, "entries": [], "omitted": [], "text": "", "focus": focus}

        def render() -> dict[str, Any]:
            # The snapshot is immutable: rendering needs no lock (saves go on meanwhile).
            result = render_context(snapshot.ws, snapshot.store, budget=budget, focus=focus,
                                    findings=list(snapshot.findings))
            return {**result.to_json(), "focus": focus}

        return await asyncio.get_running_loop().run_in_executor(None, render)

    @server.command("lore.entryAt")
    def entry_at(ls: LoreServer, uri: str, line: int) -> str | None:
        entries = ls.entries_at(uri, int(line))
        return entries[0].id if entries else None

    @server.command("lore.showLog")
    def show_log(ls: LoreServer, *args: Any) -> dict[str, Any]:
        assert ls.ws is not None
        return {"operations": log_rows(Journal(ls.ws).records()[0], 50)}

    @server.command("lore.undo")
    async def undo(ls: LoreServer, *args: Any) -> dict[str, Any]:
        with ls.lock:
            journal = _journal(ls, "undo")
            try:
                record = journal.undo(str(args[0])) if args and args[0] else journal.undo_last()
            except Refused as exc:
                ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning,
                                                               message=f"Lorekeeper: undo refused: {exc}"))
                return {"undone": [], "refused": True, "reason": str(exc)}
        await _recheck(ls)
        return {"undone": record.undone, "reason": record.reason} if record else {"undone": []}


COMPACT_NOW = "Preview compaction"
_DECLINED = "compaction-declined.json"


def suggest_compaction(ls: LoreServer) -> None:
    """Honour ``[context] auto_compact_threshold`` in the editor: when the memory's tokens pass that share
    of the budget and the rules have something to compact, ask (once a session, and never again for a
    plan the user declined) whether to compact. Nothing is written without the preview and the user's
    "Apply"; the threshold at 0 turns this off; a client that cannot show choices is not asked."""
    ws = ls.ws
    if ws is None or ls.snapshot is None:
        return
    threshold = ws.context.auto_compact_threshold
    tokens = ls.memory_tokens()["entries"]
    budget = ls.settings.budget
    if threshold <= 0 or tokens <= threshold * budget:
        ls.compaction_suggested = False
        return
    window = ls.client_capabilities.window
    if ls.compaction_suggested or window is None or window.show_message is None:
        return
    ls.compaction_suggested = True
    asyncio.ensure_future(_offer_compaction(ls, tokens, budget, threshold))


async def _offer_compaction(ls: LoreServer, tokens: int, budget: int, threshold: float) -> None:
    from ...analysis.compaction import plan_id  # noqa: PLC0415

    ws = ls.ws
    if ws is None:
        return
    config = ls.config.with_overrides(semantic_dedup=False, llm_assisted=False)  # the rules alone: cheap, no model

    def planned() -> str | None:
        with ls.lock:
            if ls.store is None:
                return None
            plan = plan_compaction(ls.store, config)
            return plan_id(plan) if plan.operations else None

    try:
        wanted = await asyncio.get_running_loop().run_in_executor(None, planned)
    except Exception as exc:  # a hint only: never break the session
        log.info("compaction not offered: %s", exc)
        return
    declined = cache_files.read_json(ws.root, ws.cache_dir, _DECLINED)
    if wanted is None or (isinstance(declined, dict) and declined.get("plan") == wanted):
        return  # nothing the rules would do, or the user already said no to exactly this
    try:
        answer = await ls.window_show_message_request_async(types.ShowMessageRequestParams(
            type=types.MessageType.Info,
            message=f"Lorekeeper: memory holds {tokens} tokens, over {threshold:.0%} of its {budget}-token budget, "
                    "and the rules can compact it. Compact it? You see the plan before anything is written.",
            actions=[types.MessageActionItem(title=COMPACT_NOW), types.MessageActionItem(title="Not now")]))
    except Exception as exc:  # a client that cannot ask is not asked
        log.info("compaction not offered: %s", exc)
        return
    if answer is not None and answer.title == COMPACT_NOW:
        await compact(ls, {})
    elif answer is not None and cache_files.usable(ws.root, ws.cache_dir):  # "Not now": not again for this plan
        cache_files.write(ws.root, ws.cache_dir, _DECLINED, json.dumps({"plan": wanted}).encode("utf-8"))
