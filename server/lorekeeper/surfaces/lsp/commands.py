# pyright: standard
"""Commands (what code actions, lenses and the client's palette run) and the rename edit. Every change is
a use-case of :mod:`lorekeeper.app` (the edits, compaction), so it is undoable with ``lore undo``; a
command parses its arguments, runs the use-case on the writer thread (:meth:`.LoreServer.write`: the
event loop never waits on the writer lock), says what happened, and re-checks. Each handler is a function
of this module, registered under its name from :data:`COMMANDS`."""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections.abc import Callable
from typing import Any

from lsprotocol import types
from pydantic import TypeAdapter, ValidationError

from ...analysis.agents import AGENTS, Repo, loads, roles_of
from ...analysis.agents.render import roles_text, to_json, to_markdown
from ...analysis.compaction.actions import apply_operation
from ...analysis.diagnose import paraphrase_finder
from ...analysis.staleness import rename_changes
from ...app import compact as compaction
from ...app import edits
from ...app.context import render_context
from ...app.report import describe_tokens, log_rows
from ...core.model import Entry, Finding, Fix, ReplaceRefFix, ReplaceTextFix, Severity
from ...infra import cache as cache_files
from ...infra.safeio import read_text
from ...store import FileChange, Journal, Operation, Record, Refused, Store
from .code_actions import fuse_operation, same_fix
from .diagnostics import publish
from .model_bridge import editor_model, llm_source, stages
from .names import Command
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


async def _edit(ls: LoreServer, act: Callable[[], Record | None], done: Callable[[Record], str] | str | None
                ) -> dict[str, Any]:
    """A change from the editor: ``act`` runs on the writer thread; a refusal (a ``ValueError`` or the
    journal's ``Refused``) is shown and nothing changes; else ``done`` (a message, or one made from the
    record) confirms it, and memory is checked again."""
    try:
        record = await ls.write(act)
    except (ValueError, Refused) as exc:
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=f"Lorekeeper: {exc}"))
        return {"operation": None, "reason": str(exc)}
    if record is not None and done is not None:
        _tell(ls, f"Lorekeeper: {done(record) if callable(done) else done}; Undo reverses it.")
    await _recheck(ls)
    return {"operation": record.id if record is not None else None}


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
    findings = await ls.write(ls.full_check)
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
    the editor's. Planned and applied on the writer thread (a lent model answers through this loop)."""
    ws = ls.ws
    if ws is None:
        return {"applied": False, "reason": "no workspace is open"}
    only = options.get("only")
    only = only.split(",") if isinstance(only, str) else only
    llm = bool(options.get("llm"))
    lent = editor_model(ls, asyncio.get_running_loop()) if llm and ls.settings.editorModel else None
    config = ls.config.with_overrides(llm_assisted=True if llm else None)
    token = await _progress(ls, "Compacting memory" + (" with the language model" if llm else ""))
    try:
        made: compaction.Compaction = await ls.write(
            lambda: compaction.plan(ws, ls.store, config=config, only=only, lent=lent))
    except ValueError as exc:
        _end(ls, token, "refused")
        return {"applied": False, "reason": str(exc)}
    if llm and made.stage is None:
        _end(ls, token, "no model")
        return {"applied": False, "reason": "; ".join(p.removeprefix("llm: ") for p in made.problems if p.startswith("llm:"))}
    summary = made.summary()
    if options.get("dryRun"):
        _end(ls, token, f"{len(made.plan.operations)} operations planned")
        return {**summary, "preview": made.preview()}
    if not made.has_work():
        _end(ls, token, "nothing to do")
        return {**summary, "applied": False, "reason": "nothing to compact"}
    wanted = options.get("plan")
    if wanted is None and not await _confirm(ls, made.preview(), len(made.plan.operations)):
        _end(ls, token, "cancelled")
        return {**summary, "applied": False, "reason": "cancelled"}
    try:
        records = await ls.write(lambda: compaction.apply(made, _journal(ls, "compact"), wanted))
    except Refused as exc:
        _end(ls, token, "refused")
        return {**summary, "applied": False, "reason": str(exc)}
    _end(ls, token, f"{len(made.plan.operations)} operations applied")
    await _recheck(ls)
    return {**summary, "applied": True, "journal": [r.id for r in records]}


async def on_will_rename(ls: LoreServer, params: types.RenameFilesParams) -> types.WorkspaceEdit | None:
    """Offer to update the memories that name a file or folder being renamed: an edit the user
    confirms (annotated, where the client supports it), journaled as the editor applies it."""
    renames = [(old, new) for rename in params.files
               if (old := ls.relpath(rename.old_uri)) and (new := ls.relpath(rename.new_uri))]
    changes: list[FileChange] = []
    entries: list[str] = []

    def find() -> None:  # on the writer thread: the checker is the writer's
        checker = ls.checker
        if checker is None:
            return
        for old, new in renames:
            for entry, change in rename_changes(checker, old, new):
                if all(c.path != change.path for c in changes):  # one edit a file (whole-document)
                    changes.append(change)
                    entries.append(entry.id)

    await ls.write(find)
    if not changes:
        return None
    caps = ls.client_capabilities.workspace
    annotated = bool(caps and caps.workspace_edit and caps.workspace_edit.change_annotation_support)
    # Journaled as its files reach disk (the user may untick some of the edit), not before.
    ls.expect_edit(Operation(op="update-ref", reason="references follow a rename in the editor",
                             changes=changes, entries=entries))
    return _workspace_edit(ls, changes, annotated, "Update memories that reference the renamed files")


async def check_stale(ls: LoreServer, *args: Any) -> dict[str, Any]:
    token = await _progress(ls, "Checking memory")
    findings = await _recheck(ls)
    errors = sum(f.severity == Severity.error for f in findings)
    stale = len(ls.stale_entries())
    _end(ls, token, f"{stale} stale memories")
    # "stale" is what the status bar shows; "findings" counts every finding (duplicates, schema...).
    return {"stale": stale, "findings": len(findings), "errors": errors}


async def verify(ls: LoreServer, *ids: str) -> dict[str, Any]:
    def act() -> tuple[list[Entry], list[Record]]:
        assert ls.checker is not None
        return edits.verify(ls.checker, [str(i) for i in ids] if ids else None, _journal(ls, "verify"))

    try:
        entries, records = await ls.write(act)
    except (ValueError, Refused) as exc:
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=f"Lorekeeper: {exc}"))
        return {"verified": [], "operations": [], "reason": str(exc)}
    _tell(ls, f"Lorekeeper: verified {len(entries)} memor{'y' if len(entries) == 1 else 'ies'}"
              + (f" ({entries[0].id})" if len(entries) == 1 else "") + "; Undo reverses it.")
    await _recheck(ls)
    return {"verified": [e.id for e in entries], "operations": [r.id for r in records]}


async def merge(ls: LoreServer, entry_id: str, into: str) -> dict[str, Any]:
    return await _edit(ls, lambda: edits.merge(_store(ls), entry_id, into, _journal(ls, "merge"),
                                               f"merged into {into} from the editor"),
                       f"merged {entry_id} into {into} (references and tags kept)")


async def keep(ls: LoreServer, newer_id: str, older_id: str) -> dict[str, Any]:
    return await _edit(ls, lambda: edits.keep_newer(_store(ls), newer_id, older_id, _journal(ls, "supersede")), None)


async def both(ls: LoreServer, newer_id: str, older_id: str) -> dict[str, Any]:
    return await _edit(ls, lambda: edits.keep_both_sides(_store(ls), newer_id, older_id, _journal(ls, "keep-both")),
                       None)


async def fix(ls: LoreServer, entry_id: str, value: Any = None, *args: Any) -> dict[str, Any]:
    """Apply a reference fix (the quick fix's argument: the fix its diagnostic carried)."""
    fix = _fix(value.get("fix") if isinstance(value, dict) and "fix" in value else value)
    if not isinstance(fix, (ReplaceRefFix, ReplaceTextFix)):
        return {"operation": None, "reason": "lore.applyFix takes an entry id and a replace-ref or replace-text fix"}

    def act() -> Record | None:
        entry = edits.find_entry(_store(ls), entry_id)
        because = next((f.message for f in _findings_for(ls, entry.id) if f.fix == fix), "")
        return edits.fix(_store(ls), entry.id, fix, _journal(ls, "update-ref"), because)

    return await _edit(ls, act, f"{entry_id} now says {fix.new} (was {fix.old})")


async def fix_all(ls: LoreServer, value: Any = None, *args: Any) -> dict[str, Any]:
    fix = _fix(value)
    if not isinstance(fix, (ReplaceRefFix, ReplaceTextFix)):
        return {"operation": None, "reason": "lore.fixAll takes the fix of a finding"}
    items: list[tuple[Entry, Finding]] = []

    def act() -> Record | None:
        snapshot = ls.snapshot
        assert snapshot is not None
        items.extend((snapshot.by_id[f.entry], f) for f in same_fix(snapshot, fix) if f.entry in snapshot.by_id)
        return edits.fix_all(snapshot.store, items, _journal(ls, "update-ref"))

    done = await _edit(ls, act, lambda record: f"{fix.old} → {fix.new} in {len(items)} memories "
                                               f"({len(record.changes)} file(s))")
    return {**done, "memories": len(items)}


async def remove_repeat(ls: LoreServer, entry_id: str, kept_id: str, *args: Any) -> dict[str, Any]:
    """Remove an instruction-file line that repeats another (the quick fix of a repeat finding)."""

    def act() -> Record | None:
        store = _store(ls)
        return edits.remove_repeats(store, _journal(ls, "remove-repeat"), ls.config.source_files,
                                    only=[(str(entry_id), str(kept_id))], paraphrases=paraphrase_finder(store, ls.config))

    return await _edit(ls, act,
                       lambda record: f"removed the repeat of {kept_id} from {record.changes[0].path}")


async def archive(ls: LoreServer, entry_id: str) -> dict[str, Any]:
    def act() -> Record:
        entry = edits.find_entry(_store(ls), entry_id)
        reason = edits.archive_reason(_findings_for(ls, entry.id), "archived from the editor")
        return edits.archive(_store(ls), entry.id, _journal(ls, "archive"), reason)

    return await _edit(ls, act, lambda record: f"archived {record.entries[0]} (it stays on disk)")


async def fuse(ls: LoreServer, entry_id: str) -> dict[str, Any]:
    def act() -> Record | None:
        snapshot = ls.snapshot
        operation = fuse_operation(ls, snapshot, str(entry_id)) if snapshot is not None else None
        if operation is None or snapshot is None:
            return None
        return apply_operation(operation, snapshot.store, _journal(ls, "fuse"))

    return await _edit(ls, act, None)


async def compress(ls: LoreServer, entry_id: str) -> dict[str, Any]:
    """Summarise one long memory (the quick fix of a verbose-entry finding); its text stays."""
    return await _edit(ls, lambda: edits.compress(_store(ls), entry_id, ls.config, _journal(ls, "compress")),
                       lambda record: f"summarised {record.entries[0]} (its text stays)")


async def compact_command(ls: LoreServer, *args: Any) -> dict[str, Any]:
    options = args[0] if args and isinstance(args[0], dict) else None
    if options is None and args:
        return {"applied": False, "reason": "lore.compact takes one object: {dryRun, plan, only, llm}"}
    return await compact(ls, options or {})


def describe(ls: LoreServer, entry_id: str, *args: Any) -> dict[str, Any]:
    """What a memory's code lens summarises, in full (shown to the user; nothing changes)."""
    found = ls.store.find(str(entry_id)) if ls.store is not None else []
    if not found:
        return {"entry": None}
    entry = found[0]
    snapshot = ls.snapshot
    refs = [r.label() for r in snapshot.checked.references(entry)] if snapshot else []
    when = snapshot.checked.verified_at(entry) if snapshot else entry.verified
    problems = [f for f in _findings_for(ls, entry.id) if f.severity != Severity.info]
    text = (f"Memory {entry.id}: {len(refs)} reference(s)" + (f" ({', '.join(refs[:5])})" if refs else "")
            + (f"; verified {when:%Y-%m-%d}" if when else "; never verified (Lorekeeper: Mark Memory Verified)")
            + (f"; {len(problems)} problem(s): {problems[0].message}" if problems else "; no problems"))
    ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=text))
    return {"entry": entry.id, "references": refs, "verified": when.isoformat() if when else None,
            "problems": len(problems), "text": text}


def status(ls: LoreServer, *args: Any) -> dict[str, Any]:
    """For status bars: the memory's size in tokens against the index budget, the number of stale
    memories, and the compaction stages this server offers."""
    tokens = ls.memory_tokens()
    # "tokens" is the entries' figure (what the index budget is about); "tokensByScope" says all of it.
    return {"tokens": tokens["entries"], "tokensByScope": tokens, "tokensText": describe_tokens(tokens),
            "budget": ls.config.budget, "stale": len(ls.stale_entries()), "stages": stages(ls), "llmFrom": llm_source(ls)}


async def context(ls: LoreServer, *args: Any) -> dict[str, Any]:
    """The memory an agent should load now (the renderer of `lore context` and MCP recall):
    ``{"budget": N, "focus": [PATH|QUERY...]}``, both optional. Without a focus, the code files open in
    the editor are the focus. Returns the ``--format json`` shape, with ``focus`` said."""

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


def entry_at(ls: LoreServer, uri: str, line: int) -> str | None:
    entries = ls.entries_at(uri, int(line))
    return entries[0].id if entries else None


def agent_loads(ls: LoreServer, *args: Any) -> dict[str, Any]:
    """What each agent loads for a file: ``[URI or workspace path, {"agents": [...], "cwd": DIR}]``.
    Returns ``{"path", "text" (Markdown), "agents" (the ``lore loads --json`` shape)}``."""
    ws = ls.ws
    if ws is None or not args or not isinstance(args[0], str):
        return {"path": None, "text": "", "agents": []}
    target = ls.relpath(args[0]) if "://" in args[0] else args[0].strip("/")
    if target is None:
        return {"path": None, "text": "This file is not in the workspace.", "agents": []}
    options = args[1] if len(args) > 1 and isinstance(args[1], dict) else {}
    wanted = [a for a in options.get("agents") or AGENTS if a in AGENTS]
    cwd = str(options.get("cwd") or "").strip("/")
    answers = loads(ws, target, wanted, cwd=cwd, repo=agent_repo(ls))
    return {"path": target, "text": to_markdown(target, answers, cwd), "agents": [to_json(a) for a in answers]}


def loads_of(ls: LoreServer, relpath: str, *args: Any) -> dict[str, Any]:
    """What one instruction file is to each agent, in full (the code lens's click; nothing changes)."""
    if ls.ws is None:
        return {"text": ""}
    text = roles_text(str(relpath), roles_of(ls.ws, str(relpath), agent_repo(ls)))
    ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=text))
    return {"text": text}


def agent_repo(ls: LoreServer) -> Repo:
    """The repository as agents see it, kept with the snapshot (rebuilt when the files or memory change)."""
    snapshot = ls.snapshot
    assert ls.ws is not None
    if snapshot is None:
        return Repo(ls.ws)
    repo = snapshot.memo.get("agent_repo")  # (the memo is the store's: an edited memory file makes a new one)
    if repo is None or repo.ws is not ls.ws or repo.files is not ls.ws.rel_files():
        repo = snapshot.memo["agent_repo"] = Repo(ls.ws)
    return repo


def show_log(ls: LoreServer, *args: Any) -> dict[str, Any]:
    assert ls.ws is not None
    return {"operations": log_rows(Journal(ls.ws).records()[0], 50)}


async def undo(ls: LoreServer, *args: Any) -> dict[str, Any]:
    operation = str(args[0]) if args and args[0] else None
    try:
        record = await ls.write(lambda: edits.undo(_journal(ls, "undo"), operation))
    except Refused as exc:
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning,
                                                       message=f"Lorekeeper: undo refused: {exc}"))
        return {"undone": [], "refused": True, "reason": str(exc)}
    await _recheck(ls)
    return {"undone": record.undone, "reason": record.reason} if record else {"undone": []}


#: Each command's handler (registered by :func:`register`).
COMMANDS: dict[Command, Callable[..., Any]] = {
    Command.CHECK_STALE: check_stale,
    Command.VERIFY: verify,
    Command.MERGE: merge,
    Command.KEEP_NEWER: keep,
    Command.KEEP_BOTH: both,
    Command.APPLY_FIX: fix,
    Command.FIX_ALL: fix_all,
    Command.REMOVE_REPEAT: remove_repeat,
    Command.ARCHIVE: archive,
    Command.FUSE: fuse,
    Command.COMPRESS: compress,
    Command.COMPACT: compact_command,
    Command.DESCRIBE: describe,
    Command.STATUS: status,
    Command.CONTEXT: context,
    Command.ENTRY_AT: entry_at,
    Command.SHOW_LOG: show_log,
    Command.UNDO: undo,
    Command.LOADS: agent_loads,
    Command.LOADS_OF: loads_of,
}


def register(server: LoreServer) -> None:
    """Register every command and feature of this module with the server."""
    server.feature(types.WORKSPACE_WILL_RENAME_FILES, types.FileOperationRegistrationOptions(
        filters=[types.FileOperationFilter(pattern=types.FileOperationPattern(glob="**/*"))]))(on_will_rename)
    for name, handler in COMMANDS.items():
        server.command(name)(handler)


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
    if not compaction.due(tokens, budget, threshold):
        ls.compaction_suggested = False
        return
    window = ls.client_capabilities.window
    if ls.compaction_suggested or window is None or window.show_message is None:
        return
    ls.compaction_suggested = True
    asyncio.ensure_future(_offer_compaction(ls, tokens, budget, threshold))


async def _offer_compaction(ls: LoreServer, tokens: int, budget: int, threshold: float) -> None:
    ws = ls.ws
    if ws is None:
        return
    config = compaction.rules_only(ws, ls.config)  # the rules alone: cheap, no model

    def planned() -> str | None:
        if ls.store is None:
            return None
        made = compaction.plan(ws, ls.store, config=config)
        return made.id if made.plan.operations else None

    try:
        wanted = await ls.write(planned)
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
