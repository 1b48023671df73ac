"""Changes to one entry that every surface offers (the MCP tools, the CLI, the editor): pin, unpin, set
its summary. Each is one journaled operation (undoable); nothing is deleted. Instruction-file entries
keep only their text, so these are refused for them with a reason."""

from __future__ import annotations

from datetime import UTC, datetime

from ..core.model import Entry
from ..store import Journal, Record, Store

#: mnemonic's ADR-005: a summary is at most this long.
SUMMARY_CHARS = 500


def _refuse_instruction(entry: Entry, what: str) -> None:
    if entry.format == "instruction":
        raise ValueError(f"{entry.id} is a line of an instruction file, which keeps only its text; {what} "
                         "applies to entry and MIF files")


def set_pinned(store: Store, entry: Entry, pinned: bool, journal: Journal) -> Record | None:
    """Pin (always shown in full, never compacted away) or unpin an entry; ``None`` when it already is."""
    _refuse_instruction(entry, "pinning")
    if entry.pinned == pinned:
        return None
    word = "pinned" if pinned else "unpinned"
    return store.update(entry, {"pinned": True if pinned else None}, journal=journal, op="pin" if pinned else "unpin",
                        reason=f"{word} {entry.id}")


def set_summary(store: Store, entry: Entry, summary: str, journal: Journal, *, written_by: str = "") -> Record:
    """Add or replace an entry's summary (its text stays); ``compressed_at`` records when."""
    _refuse_instruction(entry, "a summary")
    summary = " ".join(summary.split())
    if not summary:
        raise ValueError("the summary is empty")
    if len(summary) > SUMMARY_CHARS:
        raise ValueError(f"a summary is at most {SUMMARY_CHARS} characters (this one has {len(summary)})")
    if len(summary) >= len(entry.content.strip()):
        raise ValueError("the summary is not shorter than the entry's text")
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    by = f" by {written_by}" if written_by else ""
    return store.update(entry, {"summary": summary, "compressed_at": now}, journal=journal, op="summarise",
                        reason=f"summary of {entry.id} {'replaced' if entry.summary else 'added'}{by}")
