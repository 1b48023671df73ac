# pyright: standard
"""Diagnostics: every finding of every memory file, pushed as soon as a folder is opened, and pushed again
(only for the entries that depend on it) when a file changes on disk."""

from __future__ import annotations

import hashlib
import json
import logging
import re
from bisect import bisect_left
from collections import defaultdict
from functools import lru_cache
from typing import Any

from lsprotocol import types
from lsprotocol.converters import get_converter
from pydantic import BaseModel, ConfigDict

from ...core.kinds import docs_url, kind_of
from ...core.model import Entry, Finding, Fix, Severity
from ...infra.safeio import read_text
from ...store.positions import finding_span
from .server import LoreServer

log = logging.getLogger("lorekeeper.lsp")
_CONVERTER = get_converter()

SEVERITY = {Severity.error: types.DiagnosticSeverity.Error, Severity.warning: types.DiagnosticSeverity.Warning,
            Severity.info: types.DiagnosticSeverity.Information}
#: The levels of the ``severity`` setting.
LEVELS = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning,
          "information": types.DiagnosticSeverity.Information, "hint": types.DiagnosticSeverity.Hint}


def shown_severity(server: LoreServer, finding: Finding) -> types.DiagnosticSeverity | None:
    """How a finding is shown: the ``severity`` setting for its kind, else for its family, else its own
    severity; ``None`` when the setting turns it off."""
    chosen = server.settings.severity
    level = chosen.get(finding.kind) or chosen.get(kind_of(finding.kind).family.value)
    if level == "off":
        return None
    return LEVELS[level] if level else SEVERITY[finding.severity]


class DiagnosticData(BaseModel):
    """What a diagnostic carries for the code actions built from it (as the client sends it back):
    the finding's kind, entry and reference, its typed fix, and whether the entry's file may be
    rewritten (instruction files keep their text). Anything else a client sends is ignored."""

    model_config = ConfigDict(extra="ignore")

    kind: str
    entry: str | None = None
    ref: str | None = None
    fix: Fix | None = None
    editable: bool = False

    @classmethod
    def of(cls, finding: Finding, entry: Entry | None) -> DiagnosticData:
        """The data a finding's diagnostic carries (``entry``: the entry it is about, if known)."""
        return cls(kind=finding.kind, entry=finding.entry, ref=finding.ref, fix=finding.fix,
                   editable=entry is not None and entry.rewritable)


def to_diagnostic(server: LoreServer, finding: Finding, lines: list[str],
                  severity: types.DiagnosticSeverity | None = None) -> types.Diagnostic:
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
    data = DiagnosticData.of(finding, entry)
    href = docs_url(finding.kind, server.settings.docsUrl)
    return types.Diagnostic(
        range=types.Range(start=types.Position(line=start_line, character=start_char),
                          end=types.Position(line=end_line, character=end_char)),
        message=(f"{entry_label(entry)}: " if entry is not None and entry.format == "entry" else "")
                + short_message(finding.message),
        severity=severity or SEVERITY[finding.severity],
        code=finding.kind,
        code_description=types.CodeDescription(href=href) if href else None,
        source="lorekeeper",
        related_information=related or None,
        data=data.model_dump(mode="json"),
    )


_COMMIT_SUBJECT = re.compile(r"(\bin [0-9a-f]{7,40} on \d{4}-\d{2}-\d{2}): [^)\n]*")


_CODE_SPAN = re.compile(r"`([^`\n]+)`")


def short_message(message: str) -> str:
    """A finding's message for a squiggle and the Problems panel, which show plain text: the commit's
    subject is left to the hover (which shows the whole message), the commit and its date stay, and code
    is quoted as compilers quote it ('src/log.ts'), not with Markdown's backticks."""
    return _CODE_SPAN.sub(r"'\1'", _COMMIT_SUBJECT.sub(r"\1", message))


def entry_label(entry: Any) -> str:
    """How a JSON entry is named where only its file name would show (the Problems panel): its id and
    first words."""
    words = " ".join(entry.content.split()).split(" ")
    first = " ".join(words[:6]) + ("…" if len(words) > 6 else "")
    return f"{entry.id} “{first}”"


@lru_cache(maxsize=64)
def _backticks(line: str) -> list[int]:
    """Where a line's backticks stand."""
    return [m.start() for m in re.finditer("`", line)]


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
            # Inside a code span (backticks pair up from the line's start: an odd number before it opens
            # one), the whole span. Looked up among the line's backticks, found once for the line, not
            # matched span by span from its start for each reference.
            ticks = _backticks(text)
            before = bisect_left(ticks, at)
            if before % 2 and before < len(ticks) and end <= ticks[before]:
                at, end = ticks[before - 1], ticks[before] + 1
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
        shown = [(f, level) for f in group if (level := shown_severity(server, f)) is not None]
        out[server.uri(relpath)] = [to_diagnostic(server, f, lines, level) for f, level in shown]
    return out


def pull_mode(server: LoreServer) -> bool:
    """Clients that pull diagnostics (LSP 3.17) get them on request; the others get them pushed."""
    caps = server.client_capabilities.text_document
    return bool(caps and caps.diagnostic)


def refresh_lenses(server: LoreServer) -> None:
    """Ask the client to request code lenses again: their titles ("verified DATE", "1 problem") come from
    the check that just ended, and a client asks for lenses only when a document changes, so one asked
    while the check ran would otherwise keep the old title."""
    caps = server.client_capabilities.workspace
    if caps and caps.code_lens and caps.code_lens.refresh_support:
        server.workspace_code_lens_refresh(None)


def publish(server: LoreServer, findings: list[Finding] | dict[str, list[Finding]]) -> None:
    """Push diagnostics for every memory file with findings, and clear those that have none now; or,
    for clients that pull, ask them to pull again. Given findings by file (after a code change), only
    those files are considered."""
    if server.ws is None:
        return
    refresh_lenses(server)
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


def result_id(items: list[types.Diagnostic]) -> str:
    """A report's result id: the same diagnostics, the same id (so that a client holding them is told
    "unchanged"), whatever check produced them."""
    data = json.dumps(_CONVERTER.unstructure(items), sort_keys=True, default=str)
    return hashlib.blake2b(data.encode("utf-8"), digest_size=8).hexdigest()


def register(server: LoreServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DIAGNOSTIC, types.DiagnosticOptions(
        identifier="lorekeeper", inter_file_dependencies=True, workspace_diagnostics=True))
    async def on_document_diagnostic(ls: LoreServer, params: types.DocumentDiagnosticParams):
        await ls.first_check_answered()
        items = diagnostics_by_uri(ls, ls.all_findings()).get(params.text_document.uri, [])
        rid = result_id(items)
        if params.previous_result_id == rid:
            return types.RelatedUnchangedDocumentDiagnosticReport(result_id=rid)
        return types.RelatedFullDocumentDiagnosticReport(items=items, result_id=rid)

    @server.feature(types.WORKSPACE_DIAGNOSTIC)
    async def on_workspace_diagnostic(ls: LoreServer, params: types.WorkspaceDiagnosticParams):
        """Every memory file with findings; every file the client holds a report for (its previous result
        ids) or was told about before, and that has none now, with an empty report: a file whose problems
        went away is cleared even when it is not open (a client keeps a report until it gets another)."""
        await ls.first_check_answered()
        current = diagnostics_by_uri(ls, ls.all_findings())
        previous = {p.uri: p.value for p in params.previous_result_ids}
        reports: list[types.WorkspaceDocumentDiagnosticReport] = []
        for uri, items in current.items():
            rid = result_id(items)
            if previous.get(uri) == rid:
                reports.append(types.WorkspaceUnchangedDocumentDiagnosticReport(uri=uri, result_id=rid, version=None))
            else:
                reports.append(types.WorkspaceFullDocumentDiagnosticReport(uri=uri, items=items, version=None, result_id=rid))
        cleared = result_id([])
        for uri in sorted((set(previous) | ls.workspace_reported) - set(current)):
            if previous.get(uri) == cleared:  # cleared before: the client holds the empty report
                reports.append(types.WorkspaceUnchangedDocumentDiagnosticReport(uri=uri, result_id=cleared, version=None))
            else:
                reports.append(types.WorkspaceFullDocumentDiagnosticReport(uri=uri, items=[], version=None,
                                                                           result_id=cleared))
        ls.workspace_reported = set(current)
        return types.WorkspaceDiagnosticReport(items=reports)
