"""Staleness judgement by the model (``lore check-stale --llm``; config ``stalenessCheck``): for memories
whose references *changed* — the deterministic checker found a ``changed-since-verified`` or
``stale-value`` finding, so the target is still there but is not what it was — the model reads the
memory and bounded excerpts of what it references, and says whether it still holds.

What is sent, per memory: its id and text, and for each changed reference (at most :data:`MAX_REFS`)
the checker's note and the current text of that reference only — a symbol's definition, a script's
command, a configuration value, or the first lines of a file — capped at :data:`MAX_LINES` lines and
:data:`MAX_CHARS` characters. Nothing else of the codebase. Files are read through the code index
(:meth:`..refs.index.CodeIndex.read`: regular files inside the workspace only, never through a link
out of it); git-ignored files and files that look like secrets (``.env``, keys, certificates) are never
sent.

A "stale" verdict becomes a finding of kind ``llm-stale`` (a warning, its message prefixed with who
said it), never a deletion; ``--mark`` records it as the entry's ``stale_reason`` (journaled). A memory
the checker already found broken (an error: its target is gone) is not asked about: there is nothing
for a model to add."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...core.model import Entry, Finding, Severity
from ...facts import open_memory
from ...refs.extract import Reference
from ...refs.manifests import parse_manifest
from ..llm import open_stage
from .checker import StalenessChecker

if TYPE_CHECKING:
    from ...workspace import Workspace
    from ..llm.stage import LLMStage
    from .checker import StalenessChecker

#: The findings that say a reference changed but is still there: what a model may judge.
JUDGED = frozenset({"changed-since-verified", "stale-value"})
KIND = "llm-stale"
MAX_LINES = 60
MAX_CHARS = 4000
MAX_REFS = 3
#: Files never sent to a model, whatever a memory says about them.
_SECRET = re.compile(r"(?:^|/)(?:\.env(?:\.(?!example$|sample$|template$)[\w.-]+)?|[^/]*\.(?:pem|key|p12|pfx|keystore|jks)"
                     r"|id_(?:rsa|dsa|ecdsa|ed25519)[^/]*|\.npmrc|\.pypirc|\.netrc|credentials(?:\.\w+)?)$", re.IGNORECASE)


@dataclass(frozen=True)
class Change:
    """One changed reference of a memory, as the model sees it."""

    ref: str  # the reference's label (``src/a.py:load``)
    noticed: str  # the checker's finding message
    path: str  # the workspace path the excerpt comes from
    excerpt: str  # the current text of what the reference names, capped


def prefix(model: str) -> str:
    """How an ``llm-stale`` message starts: users know a model said it, and which."""
    return f"the model {model} judged this memory stale: "


def to_judge(findings: Iterable[Finding]) -> dict[str, list[Finding]]:
    """Entry id -> its changed-reference findings, for entries with such findings and no error."""
    by_entry: dict[str, list[Finding]] = {}
    broken: set[str] = set()
    for finding in findings:
        if not finding.entry:
            continue
        if finding.severity == Severity.error:
            broken.add(finding.entry)
        elif finding.kind in JUDGED and finding.ref:
            by_entry.setdefault(finding.entry, []).append(finding)
    return {k: v for k, v in by_entry.items() if k not in broken}


def _cap(lines: list[str]) -> str:
    text = "\n".join(lines[:MAX_LINES])
    if len(lines) > MAX_LINES:
        text += f"\n… ({len(lines) - MAX_LINES} more lines not sent)"
    return text if len(text) <= MAX_CHARS else text[: MAX_CHARS - 1] + "…"


def sendable(checker: StalenessChecker, path: str) -> bool:
    """Whether a workspace file may be shown to a model: not ignored by git, not a secret's file."""
    return bool(path) and not path.endswith("/") and not _SECRET.search(path) and not checker.ws.ignored(path)


def excerpt(checker: StalenessChecker, entry: Entry, label: str) -> tuple[str, str] | None:
    """(path, the current text of what ``label`` names, capped), or ``None`` when it cannot or may not be
    sent (a folder, an unreadable or ignored file, a secret's file, a symbol that is not found)."""
    ref: Reference | None = next((r for r in checker.references(entry) if r.label() == label), None)
    if ref is None:
        return None
    base = checker.base_of(entry, ref)
    index = checker.index
    path: str | None = None
    lines: list[str] = []
    if ref.kind == "symbol":
        path = index.resolve(ref.file, base) if ref.file else next(iter(index.where_defined(ref.target)), None)
        if path is None or not sendable(checker, path):
            return None
        if path.endswith((".json", ".toml")):
            value = checker.fingerprints.config_value(path, ref.target)
            if value is None:
                return None
            lines = [f"{ref.target} = {json.dumps(value, ensure_ascii=False, default=str)}"]
        else:
            data = index.read(path)
            span = index.defined_in(ref.target, path)
            if data is None or span is None:
                return None
            lines = data.decode("utf-8", "replace").splitlines()[span[0] - 1 : span[1]]
    elif ref.kind == "path":
        path = index.resolve(ref.target, base)
        if path is None or path in index.dirs or not sendable(checker, path):
            return None
        data = index.read(path)
        if data is None or b"\x00" in data[:8192]:
            return None
        lines = data.decode("utf-8", "replace").splitlines()
    elif ref.kind in ("script", "console", "make", "just", "task", "tox"):
        manifest = index.manifest_for(ref.kind, base)
        path = manifest.path if manifest is not None else None
        if path is None or not sendable(checker, path):
            return None
        data = index.read(path)
        if data is None:
            return None
        if ref.kind in ("script", "console"):
            table = "scripts" if ref.kind == "script" else "project.scripts"
            value = checker.fingerprints.config_value(path, f"{table}.{ref.target}")
            if value is None:
                return None
            lines = [f"{ref.target}: {value}"]
        else:
            parsed = parse_manifest(path, data)
            span = parsed.names.get(ref.target) if parsed else None
            if span is None:
                return None
            lines = data.decode("utf-8", "replace").splitlines()[span[0] - 1 : span[1]]
    if path is None or not lines:
        return None
    return path, _cap(lines)


def changes_of(checker: StalenessChecker, entry: Entry, found: list[Finding]) -> list[Change]:
    """The changed references of one memory with their excerpts (at most :data:`MAX_REFS`). A file the
    memory names a symbol of is sent as that symbol's definition only."""
    out: list[Change] = []
    # A file the memory names a symbol of is sent as that symbol only, never whole.
    seen: set[str] = {r.file for r in checker.references(entry) if r.kind == "symbol" and r.file}
    for finding in found:
        label = finding.ref or ""
        if label in seen or len(out) >= MAX_REFS:
            continue
        seen.add(label)
        got = excerpt(checker, entry, label)
        if got is not None:
            out.append(Change(label, finding.message, got[0], got[1]))
    return out


def judge_findings(stage: LLMStage, checker: StalenessChecker, findings: list[Finding]) -> list[Finding]:
    """Ask the model about each memory whose references changed; its "stale" verdicts as findings (the
    other verdicts are in ``stage.report.verdicts``). Memories are asked about in file order until the
    budget ends; a failure leaves the checker's findings as they are."""
    by_id = {e.id: e for e in checker.store.entries}
    out: list[Finding] = []
    for entry_id, found in sorted(to_judge(findings).items(), key=lambda kv: (kv[1][0].source, kv[1][0].line or 0)):
        if stage.report.stopped:
            break
        entry = by_id.get(entry_id)
        if entry is None:
            continue
        changes = changes_of(checker, entry, found)
        if not changes:
            continue
        verdict = stage.judge(entry.id, entry.content, changes)
        if verdict is None or verdict[0] != "stale":
            continue
        first = found[0]
        out.append(Finding(kind=KIND, severity=Severity.warning, message=prefix(stage.model) + verdict[1],
                           source=entry.location.path, line=first.line or entry.location.start_line, entry=entry.id,
                           ref=", ".join(c.ref for c in changes)))
    return out


def remembered_findings(ws: Workspace, findings: list[Finding], checker: StalenessChecker | None = None) -> list[Finding]:
    """The ``llm-stale`` findings of verdicts an earlier ``check-stale --llm`` kept, for the same model,
    memory text and code excerpts — without asking the model (no request, no cost). Empty when no model
    is configured or nothing was judged; a memory or code that changed since is simply not found. The
    store is loaded (for ``checker``, when none is given) only when there is a kept answer to look in."""

    stage, _ = open_stage(ws, cached_only=True)  # (first: with no model configured, nothing to read)
    if stage is None or not to_judge(findings) or not stage.has_answers:
        return []
    return judge_findings(stage, checker or StalenessChecker(ws, open_memory(ws)), findings)
