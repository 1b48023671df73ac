"""The edits every surface offers (the MCP tools, the CLI, the editor's commands and quick fixes), once:
name an entry, merge one into another, keep one side of a conflict or both, summarise, archive, pin,
set a summary, verify, apply a reference fix, remove a fact repeated across instruction files, undo. Each is one journaled operation (undoable); nothing
is deleted. A refusal the user can act on is a ``ValueError`` (or the journal's ``Refused``) with the one
message every surface shows; instruction-file entries keep only their text, so what would change their
fields is refused for them with a reason."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..analysis.agents import ReadersOfBoth, Repo
from ..analysis.compaction.actions import compress_entry, keep_both, keep_one, merge_into
from ..analysis.repeats import Paraphrases, Repeat, removal, repeats, why_stays
from ..analysis.staleness import StalenessChecker, apply_fix, apply_fixes, archive_entry, verify_entries
from ..analysis.staleness.actions import distinct
from ..core.model import Entry, Finding, ReplaceRefFix, ReplaceTextFix, stamp
from ..core.settings.compaction import CompactionConfig
from ..store import Journal, Record, Store

#: mnemonic's ADR-005: a summary is at most this long.
SUMMARY_CHARS = 500


def _refuse_instruction(entry: Entry, what: str) -> None:
    if not entry.rewritable:
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
    now = stamp()
    by = f" by {written_by}" if written_by else ""
    return store.update(entry, {"summary": summary, "compressed_at": now}, journal=journal, op="summarise",
                        reason=f"summary of {entry.id} {'replaced' if entry.summary else 'added'}{by}")


class NoSuchEntry(ValueError):
    """A key that names no entry, or several: nothing was done."""


def find_entry(store: Store, key: object) -> Entry:
    """The one entry a key names (an id, a unique start of one, ``FILE:LINE``); :class:`NoSuchEntry`
    otherwise, with what to do about it."""
    found = store.find(key) if isinstance(key, str) and key else []
    if not found:
        raise NoSuchEntry(f"no entry {key!r} in memory (ids from `lore list`, `lore search`, MCP recall or query)")
    if len(found) > 1:
        listing = ", ".join(f"{e.cited()}" for e in found[:6])
        raise NoSuchEntry(f"{key!r} names {len(found)} entries: {listing}; give more of the id or a file:line")
    return found[0]


def merge(store: Store, key: str, into: str, journal: Journal, reason: str) -> Record:
    """Merge the entry ``key`` names into the one ``into`` names (it gains the references and tags)."""
    return merge_into(store, find_entry(store, key), find_entry(store, into), journal, reason)


def keep_newer(store: Store, keep: str, drop: str, journal: Journal) -> Record:
    """Settle a conflict for ``keep``: ``drop`` is superseded by it (and stays on disk)."""
    return keep_one(store, find_entry(store, keep), find_entry(store, drop), journal)


def keep_both_sides(store: Store, newer: str, older: str, journal: Journal) -> Record:
    """Settle a conflict the verifier inferred wrongly: both memories are true, never reported again."""
    return keep_both(store, find_entry(store, newer), find_entry(store, older), journal)


def compress(store: Store, key: str, config: CompactionConfig, journal: Journal) -> Record:
    """Summarise one long entry (its text stays)."""
    return compress_entry(store, find_entry(store, key), config, journal)


def archive(store: Store, key: str, journal: Journal, reason: str) -> Record:
    """Archive an entry: kept on disk, no longer live; ``lore undo`` restores it."""
    return archive_entry(store, find_entry(store, key), journal, reason)


def archive_reason(findings: Iterable[Finding], default: str) -> str:
    """Why an entry is archived: the findings about it, else ``default``."""
    return "; ".join(f.message for f in findings) or default


def verify(checker: StalenessChecker, keys: Sequence[str] | None, journal: Journal) -> tuple[list[Entry], list[Record]]:
    """Record that memories still hold (every live one when ``keys`` is ``None``; an entry named twice is
    verified once): the entries and the journal records."""
    store = checker.store
    entries = store.live() if keys is None else distinct([find_entry(store, k) for k in keys])
    return entries, verify_entries(checker, entries, journal)


def fix(store: Store, key: str, fix: ReplaceRefFix | ReplaceTextFix, journal: Journal, because: str = "") -> Record | None:
    """Apply a reference fix to one entry (``None``: nothing to change)."""
    return apply_fix(store, find_entry(store, key), fix, journal, because)


def fix_all(store: Store, items: list[tuple[Entry, Finding]], journal: Journal) -> Record | None:
    """Apply one fix to every finding that carries it, as one operation."""
    return apply_fixes(store, items, journal)


def undo(journal: Journal, operation: str | None = None, force: bool = False) -> Record | None:
    """Reverse one operation (by id), or the most recent command's (``None``: nothing left to undo)."""
    return journal.undo(operation, force=force) if operation else journal.undo_last(force=force)


def staying(store: Store, found: Iterable[Repeat]) -> dict[str, str]:
    """Why each copy of ``found`` that must stay stays, by its id (:func:`..analysis.repeats.why_stays`,
    with the agents that read its file without the kept one's)."""
    readers: list[ReadersOfBoth] = []

    def losing(copy: str, kept: str) -> str:
        if not readers:
            readers.append(ReadersOfBoth(Repo(store.ws)))
        return readers[0].losing(copy, kept)

    return {copy.id: why for repeat in found for copy in repeat.copies
            if (why := why_stays(copy, repeat, losing)) is not None}


def remove_repeats(store: Store, journal: Journal, sources: Sequence[str] = (), *,
                   only: Iterable[tuple[str, str]] | None = None, paraphrases: Paraphrases | None = None
                   ) -> Record | None:
    """Remove from instruction files the copies of facts another file states too, keeping the copy in
    the first of ``sources`` (patterns of instruction files; see :mod:`..analysis.repeats`), as one
    operation. Copies that say more than the kept one stay (they are merged by hand), and so do copies an
    agent reads without the kept one (:func:`staying`). ``only``: just
    these (copy id, kept id) pairs, each refused unless it is still such a repeat. ``None``: nothing
    to remove. ``paraphrases``: the semantic stage's finder, where the repeats were found with it."""
    found = repeats(store.entries, sources, paraphrases)
    stays = staying(store, found)
    removable = {(copy.id, r.kept.id): copy for r in found for copy in r.copies if copy.id not in stays}
    if only is not None:
        wanted = list(dict.fromkeys(only))
        gone = [pair for pair in wanted if pair not in removable]
        if gone:
            copy_id, kept_id = gone[0]
            raise ValueError(f"{copy_id} no longer repeats {kept_id} (the files changed): check again")
        removable = {pair: removable[pair] for pair in wanted}
    if not removable:
        return None
    # a label goes with the list it introduces (each of its lines a copy too: see repeats._intros)
    lines = {copy.id: copy for copy in removable.values()}
    for r in found:
        for copy in r.copies:
            if (copy.id, r.kept.id) in removable:
                lines.update((line.id, line) for line in r.under)
    files = sorted({e.location.path for e in lines.values()})
    op = removal(store, lines.values(), f"{len(lines)} repeated fact(s) removed from {', '.join(files)}")
    return journal.apply(op) if op is not None else None
