"""Diagnostics: every finding of every memory file, pushed as soon as a folder is opened, and pushed again
(only for the entries that depend on it) when a file changes on disk."""

from __future__ import annotations

import asyncio
import logging
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from lsprotocol import types

from ..model import Finding, Severity
from ..safeio import read_text
from ..positions import finding_span
from .server import LoreServer

log = logging.getLogger("lorekeeper.lsp")

SEVERITY = {Severity.error: types.DiagnosticSeverity.Error, Severity.warning: types.DiagnosticSeverity.Warning,
            Severity.info: types.DiagnosticSeverity.Information}
DOCS = Path(__file__).resolve().parents[3] / "docs"
_PAGES = {"duplicate": "compaction.md#dedup", "near-duplicate": "compaction.md#merge", "contradiction": "compaction.md#conflicts",
          "dangling-supersedes": "compaction.md#supersede", "supersession-cycle": "compaction.md#supersede",
          "verbose-entry": "compaction.md#compress", "dangling-link": "compaction.md#links-that-lead-nowhere",
          "orphaned-merge": "compaction.md#links-that-lead-nowhere",
          "history-unavailable": "staleness.md#finding-kinds"}


def docs_href(kind: str) -> str:
    """Where a finding kind is explained: the docs shipped with this checkout."""
    page = _PAGES.get(kind) or ("staleness.md#finding-kinds" if kind.startswith(("stale-", "moved-", "missing-", "unresolved-", "changed-"))
                                else "formats.md#bad-input")
    return (DOCS / page.split("#")[0]).as_uri() + "#" + page.split("#")[1]


def to_diagnostic(server: LoreServer, finding: Finding, lines: list[str]) -> types.Diagnostic:
    assert server.ws is not None
    entry = server.entry_by_id(finding.entry)
    if entry is not None and entry.location.path != finding.source:
        entry = None
    start_line, start_char, end_line, end_char = finding_span(server.ws.root, finding, entry, lines)
    if entry is not None and finding.ref and not finding.field:
        narrow = ref_span(lines, (start_line, start_char, end_line, end_char), finding.ref)
        if narrow is not None:  # the squiggle on the stale reference, not on the whole bullet
            start_line, start_char, end_line, end_char = narrow
    related = [
        types.DiagnosticRelatedInformation(
            location=types.Location(uri=server.uri(r["source"]),
                                    range=types.Range(start=types.Position(line=max(0, int(r["line"]) - 1), character=0),
                                                      end=types.Position(line=max(0, int(r["line"]) - 1), character=0))),
            message=str(r.get("message", "")))
        for r in finding.related or []
    ]
    data: dict[str, Any] = {"kind": finding.kind, "entry": finding.entry, "ref": finding.ref, "fix": finding.fix}
    return types.Diagnostic(
        range=types.Range(start=types.Position(line=start_line, character=start_char),
                          end=types.Position(line=end_line, character=end_char)),
        message=(f"{entry_label(entry)}: " if entry is not None and entry.format == "entry" else "")
                + short_message(finding.message),
        severity=SEVERITY[finding.severity],
        code=finding.kind,
        code_description=types.CodeDescription(href=docs_href(finding.kind)),
        source="lorekeeper",
        related_information=related or None,
        data=data,
    )


_COMMIT_SUBJECT = re.compile(r"(\bin [0-9a-f]{7,40} on \d{4}-\d{2}-\d{2}): [^)\n]*")


def short_message(message: str) -> str:
    """A finding's message for a squiggle: the commit's subject is left to the hover (which shows the
    whole message), the commit and its date stay."""
    return _COMMIT_SUBJECT.sub(r"\1", message)


def entry_label(entry: Any) -> str:
    """How a JSON entry is named where only its file name would show (the Problems panel): its id and
    first words."""
    words = " ".join(entry.content.split()).split(" ")
    first = " ".join(words[:6]) + ("…" if len(words) > 6 else "")
    return f"{entry.id} “{first}”"


def ref_span(lines: list[str], span: tuple[int, int, int, int], ref: str) -> tuple[int, int, int, int] | None:
    """Where a reference is written inside an entry's span (its backticks included), if it is: the
    target as written, else its symbol, else its last path component."""
    target = ref.rsplit(":", 1)[-1] if ":" in ref and "/" in ref.split(":", 1)[0] else ref
    candidates = [ref, target, target.rstrip("/"), target.rsplit(".", 1)[-1] if "." in target and "/" not in target
                  else target.rstrip("/").rsplit("/", 1)[-1]]
    first, first_char, last, last_char = span
    for wanted in dict.fromkeys(c for c in candidates if len(c) >= 2):
        for row in range(first, min(last, len(lines) - 1) + 1):
            text = lines[row]
            lo = first_char if row == first else 0
            hi = last_char if row == last else len(text)
            at = text.find(wanted, lo, hi)
            if at < 0:
                continue
            end = at + len(wanted)
            for span_match in re.finditer(r"`[^`]*`", text):  # inside a code span: the whole span
                if span_match.start() < at and end < span_match.end():
                    at, end = span_match.start(), span_match.end()
                    break
            return (row, at, row, end)
    return None


def diagnostics_by_uri(server: LoreServer, findings: list[Finding]) -> dict[str, list[types.Diagnostic]]:
    assert server.ws is not None
    by_file: dict[str, list[Finding]] = defaultdict(list)
    for finding in findings:
        by_file[finding.source].append(finding)
    out = {}
    for relpath, group in sorted(by_file.items()):
        try:
            lines = read_text(server.ws.root / relpath, root=server.ws.root, encoding="utf-8-sig").splitlines()
        except (OSError, UnicodeDecodeError):
            lines = []
        out[server.uri(relpath)] = [to_diagnostic(server, f, lines) for f in group]
    return out


def pull_mode(server: LoreServer) -> bool:
    """Clients that pull diagnostics (LSP 3.17) get them on request; the others get them pushed."""
    caps = server.client_capabilities.text_document
    return bool(caps and caps.diagnostic)


def publish(server: LoreServer, findings: list[Finding] | dict[str, list[Finding]]) -> None:
    """Push diagnostics for every memory file with findings, and clear those that have none now; or,
    for clients that pull, ask them to pull again. Given findings by file (after a code change), only
    those files are considered."""
    if server.ws is None:
        return
    if pull_mode(server):
        caps = server.client_capabilities.workspace
        if caps and caps.diagnostics and caps.diagnostics.refresh_support:
            server.workspace_diagnostic_refresh(None)
        return
    if isinstance(findings, dict):
        by_file = {path: group for path, group in findings.items()}
        considered = set(by_file)
    else:
        by_file = defaultdict(list)
        for finding in findings:
            by_file[finding.source].append(finding)
        considered = set(by_file) | set(server.last_findings)
    # Only files whose findings changed are sent again: a code change touches a few memories, not all.
    for path in sorted(considered):
        group = by_file.get(path, [])
        if server.last_findings.get(path, []) == group:
            continue
        uri = server.uri(path)
        diagnostics = diagnostics_by_uri(server, group).get(uri, []) if group else []
        server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics))
        if group:
            server.last_findings[path] = group
        else:
            server.last_findings.pop(path, None)


def register(server: LoreServer) -> None:
    @server.feature(types.INITIALIZE)
    def on_initialize(ls: LoreServer, params: types.InitializeParams) -> None:
        root = None
        if params.workspace_folders:
            root = ls.fs_path(params.workspace_folders[0].uri)
        root = root or params.root_path or (ls.fs_path(params.root_uri) if params.root_uri else None)
        ls.open_workspace(root)
        options = params.initialization_options
        if isinstance(options, dict):
            apply_settings(ls, options.get("lorekeeper", options))

    @server.feature(types.INITIALIZED)
    async def on_initialized(ls: LoreServer, params: types.InitializedParams) -> None:
        loop = asyncio.get_running_loop()
        ls.initial_check = loop.run_in_executor(None, ls.full_check)
        await _register_watchers(ls)
        findings = await ls.initial_check
        publish(ls, findings)
        await _pull_configuration(ls)

    @server.feature(types.TEXT_DOCUMENT_DIAGNOSTIC, types.DiagnosticOptions(
        identifier="lorekeeper", inter_file_dependencies=True, workspace_diagnostics=True))
    async def on_document_diagnostic(ls: LoreServer, params: types.DocumentDiagnosticParams):
        if ls.initial_check is not None:
            await ls.initial_check
        items = diagnostics_by_uri(ls, ls.all_findings()).get(params.text_document.uri, [])
        return types.RelatedFullDocumentDiagnosticReport(items=items)

    @server.feature(types.WORKSPACE_DIAGNOSTIC)
    async def on_workspace_diagnostic(ls: LoreServer, params: types.WorkspaceDiagnosticParams):
        if ls.initial_check is not None:
            await ls.initial_check
        return types.WorkspaceDiagnosticReport(items=[
            types.WorkspaceFullDocumentDiagnosticReport(uri=uri, items=items, version=None)
            for uri, items in diagnostics_by_uri(ls, ls.all_findings()).items()])

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def on_watched(ls: LoreServer, params: types.DidChangeWatchedFilesParams) -> None:
        paths = {p for p in (ls.relpath(c.uri) for c in params.changes) if p and not _ours(p)}
        structural = any(c.type != types.FileChangeType.Changed for c in params.changes)
        if paths:
            ls.schedule(paths, structural)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def on_save(ls: LoreServer, params: types.DidSaveTextDocumentParams) -> None:
        if ls.watching:
            return  # the file watcher reports it
        path = ls.relpath(params.text_document.uri)
        if path:
            ls.schedule({path})

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def on_open(ls: LoreServer, params: types.DidOpenTextDocumentParams) -> None:
        return None  # diagnostics are already published for every memory file

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def on_configuration(ls: LoreServer, params: types.DidChangeConfigurationParams) -> None:
        settings = params.settings
        if isinstance(settings, dict) and isinstance(settings.get("lorekeeper"), dict):
            apply_settings(ls, settings["lorekeeper"])
        else:
            await _pull_configuration(ls)


def _ours(path: str) -> bool:
    """Lorekeeper's own files (caches, journal, views) never trigger a re-check."""
    rooted = f"/{path}"
    return ("/.lore/cache/" in rooted or "/memory/log/" in rooted or "/memory/compacted/" in rooted
            or rooted.endswith("/memory/index.md"))


async def _register_watchers(ls: LoreServer) -> None:
    caps = ls.client_capabilities.workspace
    dynamic = bool(caps and caps.did_change_watched_files and caps.did_change_watched_files.dynamic_registration)
    if not dynamic:
        return
    try:
        await ls.client_register_capability_async(types.RegistrationParams(registrations=[types.Registration(
            id="lorekeeper-watch", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=types.DidChangeWatchedFilesRegistrationOptions(
                watchers=[types.FileSystemWatcher(glob_pattern="**/*")]))]))
        ls.watching = True
    except Exception as exc:  # a client that refuses keeps the didSave fallback
        log.warning("file watching not registered: %s", exc)


async def _pull_configuration(ls: LoreServer) -> None:
    caps = ls.client_capabilities.workspace
    if not (caps and caps.configuration):
        return
    try:
        result = await ls.workspace_configuration_async(types.ConfigurationParams(
            items=[types.ConfigurationItem(section="lorekeeper")]))
    except Exception as exc:
        log.warning("workspace/configuration failed: %s", exc)
        return
    if result and isinstance(result[0], dict):
        apply_settings(ls, result[0])


def apply_settings(ls: LoreServer, values: dict[str, Any]) -> None:
    """Layer settings over the defaults; a value of the wrong type is ignored, with one message."""
    problems = []
    for key, value in values.items():
        if key not in ls.settings:
            continue
        default = ls.settings[key]
        if isinstance(default, bool) != isinstance(value, bool) or not isinstance(value, type(default)):
            problems.append(f"{key}={value!r} (expected {type(default).__name__})")
            continue
        ls.settings[key] = value
    if "budget" in values and isinstance(values["budget"], int) and not isinstance(values["budget"], bool):
        ls.config.budget = values["budget"]
    if problems:
        ls.window_show_message(types.ShowMessageParams(
            type=types.MessageType.Warning,
            message="Lorekeeper: ignored invalid settings, using defaults: " + ", ".join(problems)))
