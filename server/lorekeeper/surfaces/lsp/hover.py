# pyright: standard
"""Hover: a memory's provenance — who wrote it and when, where it came from and went, what compaction did
to it, and whether each of its references still holds."""

from __future__ import annotations

from lsprotocol import types

from ...app.report import merged_from
from ...core.model import PENDING, Entry
from ...store.journal import touching
from ...store.positions import entry_span
from .server import LoreServer


def _link(ls: LoreServer, entry: Entry) -> str:
    return f"[{entry.id}]({ls.uri(entry.location.path)}#L{entry.location.start_line})"


def _date(value) -> str:
    return value.strftime("%Y-%m-%d") if value else "unknown"


def provenance(ls: LoreServer, entry: Entry) -> str:
    """The hover text for one entry, in Markdown."""
    snapshot = ls.snapshot  # read once: one consistent state for the whole hover
    assert snapshot is not None
    by_id = snapshot.by_id
    lines = [f"**Memory `{entry.id}`** · {entry.category} · {entry.format} file", ""]
    who = ["created: its file's date is still being read from git" if entry.created_from == PENDING else
           f"created {_date(entry.created)}" + ("" if entry.created_from == "field" else f" (from {entry.created_from})")]
    if entry.agent:
        who.insert(0, f"by **{entry.agent}**")
    verified = snapshot.checked.verified_at(entry)
    who.append(f"verified {_date(verified)}" if verified else "never verified")
    lines.append("- " + ", ".join(who))
    facts = []
    if entry.confidence is not None:
        facts.append(f"confidence {entry.confidence}")
    if entry.tags:
        facts.append("tags " + ", ".join(entry.tags))
    if entry.source:
        facts.append(f"source {entry.source}")
    if facts:
        lines.append("- " + " · ".join(facts))

    def links(ids: list[str]) -> str:
        return ", ".join(_link(ls, by_id[i]) if i in by_id else f"`{i}` (not in memory)" for i in ids)

    for label, ids in (("merged from", merged_from(snapshot.store, entry)), ("merged into", [entry.merged_into] if entry.merged_into else []),
                       ("superseded by", [entry.superseded_by] if entry.superseded_by else []),
                       ("supersedes", entry.supersedes)):
        if ids:
            lines.append(f"- {label}: {links(ids)}")
    if entry.archived:
        lines.append(f"- archived: {entry.raw.get('archived_reason', 'yes')}")
    if entry.summary:
        lines.append(f"- compressed {_date(entry.compressed_at)}: {entry.summary[:200]}")
    paths = {entry.location.path} if entry.format != "instruction" else set()
    history = touching(ls.journal_records(), paths, {entry.id})
    if history:
        lines += ["", "**What Lorekeeper did to it**"]
        lines += [f"- {r.time:%Y-%m-%d} `{r.op}` {r.reason} (`{r.id}`)" for r in history[-5:]]
    refs = snapshot.checked.references(entry)
    if refs:
        found = {f.ref: f for f in snapshot.findings_of_entry(entry.id)}
        lines += ["", "**References**"]
        for ref in refs:
            finding = found.get(ref.label())
            status = "holds" if finding is None else {
                "moved-path": "moved", "changed-since-verified": "changed", "stale-value": "changed"}.get(finding.kind, "gone")
            detail = f" — {finding.message}" if finding else ""
            lines.append(f"- `{ref.label()}`: **{status}**{detail}")
    return "\n".join(lines)


def register(server: LoreServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def on_hover(ls: LoreServer, params: types.HoverParams) -> types.Hover | None:
        # Reads the current state; never waits for a re-check.
        entries = ls.entries_at(params.text_document.uri, params.position.line)
        if not entries or ls.ws is None:
            return None
        entry = entries[0]
        start_line, start_char, end_line, end_char = entry_span(ls.ws.root, entry)
        return types.Hover(
            contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=provenance(ls, entry)),
            range=types.Range(start=types.Position(line=start_line, character=start_char),
                              end=types.Position(line=end_line, character=end_char)))
