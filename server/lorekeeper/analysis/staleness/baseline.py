# pyright: standard
"""Baselines: the commit at which a memory was true. A reference is stale with high confidence only when
its target existed at the baseline and is gone now.

- An instruction-file line: the commit that last changed that line (``git blame``), or the time it was
  verified (``lore verify``, recorded in ``<store>/verified.json``).
- An entry or MIF file: the newest commit at or before its ``verified`` time, else its ``created`` time
  (which falls back to the commit that added the file)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from ...core.model import Entry
from ...refs.history import ZERO, GitHistory

if TYPE_CHECKING:
    from ...refs.fingerprint import Verifications
    from ...workspace import Workspace


@dataclass(frozen=True)
class Baseline:
    """When a memory (or one line of it) was written or last verified. ``commit`` is ``None`` when no
    commit holds that moment: a line not committed yet (``uncommitted``), or a workspace without git."""

    commit: str | None
    how: str  # "written in 57c3aa2 on 2025-01-24", "written on 2026-02-01", "verified on 2026-03-01"
    uncommitted: bool = False


class Baselines:
    """Answers "when was this memory true?" for each entry and reference; blame runs once per file, and
    only for files that hold a reference that does not resolve today."""

    def __init__(self, ws: Workspace, history: GitHistory, verifications: Verifications):
        self.ws = ws
        self.history = history
        self.verifications = verifications
        self._cache: dict[tuple[str, int], Baseline | None] = {}

    def line_of(self, entry: Entry, ref_line: int) -> int:
        """The 1-based file line of a reference: instruction entries map their text line by line."""
        if entry.format == "instruction":
            line = entry.location.start_line + ref_line
            return line if line <= entry.location.end_line else entry.location.start_line
        return entry.location.start_line

    def of(self, entry: Entry, ref_line: int = 0) -> Baseline | None:
        """The baseline of one line of an entry (``ref_line`` is 0-based within its text)."""
        line = self.line_of(entry, ref_line)
        key = (entry.id, line)
        if key not in self._cache:
            self._cache[key] = self._compute(entry, line)
        return self._cache[key]

    def of_entry(self, entry: Entry) -> Baseline | None:
        """The baseline of a whole entry: for an instruction entry, the newest change among its lines."""
        if entry.format != "instruction":
            return self.of(entry)
        lines = [self.of(entry, i) for i in range(entry.location.end_line - entry.location.start_line + 1)]
        if any(b is None or b.uncommitted for b in lines):
            return next((b for b in lines if b is None or b.uncommitted), None)
        dated = [(commit.date if b.commit and (commit := self.history.commit(b.commit)) else "", b)
                 for b in lines if b is not None]
        return max(dated, key=lambda item: item[0])[1] if dated else None

    def _compute(self, entry: Entry, line: int) -> Baseline | None:
        if not self.history.available:
            return None
        verified = self._verified_time(entry)
        if verified is not None:
            commit = self.history.commit_before(verified.isoformat())
            return Baseline(commit, f"verified on {verified:%Y-%m-%d}") if commit else None
        if entry.format == "instruction":
            shas = self.history.blame(entry.location.path)
            if shas is None or line > len(shas):
                return None
            sha = shas[line - 1]
            if sha == ZERO:
                return Baseline(None, "written in the working tree (not committed yet)", uncommitted=True)
            commit = self.history.commit(sha)
            return Baseline(sha, f"written in {commit.short()}" if commit else f"written in {sha[:7]}")
        if entry.created is None:
            return None
        if entry.created_from == "git":  # the commit that added the memory's file
            added = self.ws.added_in(entry.location.path)
            if added is not None:
                return Baseline(added[1], f"written on {entry.created:%Y-%m-%d}")
        commit = self.history.commit_before(entry.created.isoformat())
        return Baseline(commit, f"written on {entry.created:%Y-%m-%d}") if commit else None

    def verified(self, entry: Entry) -> bool:
        """Whether the memory was verified (its baseline is that moment, not when it was written)."""
        return self._verified_time(entry) is not None

    def _verified_time(self, entry: Entry) -> datetime | None:
        if entry.format != "instruction":
            return entry.verified
        record = self.verifications.sidecar.get(self.verifications.key(entry))
        when = record.get("verified") if isinstance(record, dict) else None
        try:
            return datetime.fromisoformat(str(when).replace("Z", "+00:00")) if when else None
        except ValueError:
            return None
