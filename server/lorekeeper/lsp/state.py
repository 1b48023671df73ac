"""The language server's state: one immutable snapshot of what it knows (the store, every finding, the
indexes requests use), with a generation number. Requests read the current snapshot and never wait;
writers (checks, commands) build the next one under the server's writer lock and swap it in whole, so a
request never sees the entries of one check with the findings of another."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..compaction.config import CompactionConfig
from ..kinds import is_stale
from ..model import Entry, Finding, Severity
from ..staleness import StalenessChecker
from ..store import Store
from ..workspace import Workspace


def _ordered(findings: list[Finding]) -> list[Finding]:
    return sorted(findings, key=lambda f: (f.source, f.line or 0, f.kind, f.ref or ""))


@dataclass(frozen=True)
class Snapshot:
    """Everything a request reads. ``checker`` is the writers' tool: requests use only its memoised,
    read-only answers (``references``, ``verifications``); its findings are copied in here."""

    generation: int
    ws: Workspace
    store: Store
    checker: StalenessChecker
    config: CompactionConfig
    memory_findings: tuple[Finding, ...]
    #: Every finding (memory and staleness), in file and line order.
    findings: tuple[Finding, ...]
    by_id: dict[str, Entry]
    #: Memory file -> the ids of the entries it holds, in file order.
    file_entries: dict[str, list[str]]
    by_file: dict[str, list[Finding]]
    by_entry: dict[str, list[Finding]]
    #: Values derived from the store alone (token counts, the fuse plan), computed on first use and
    #: shared by the snapshots of one store.
    memo: dict[str, Any] = field(default_factory=dict, compare=False)

    @classmethod
    def build(cls, generation: int, ws: Workspace, store: Store, checker: StalenessChecker, config: CompactionConfig,
              memory_findings: list[Finding] | tuple[Finding, ...], memo: dict[str, Any] | None = None) -> Snapshot:
        file_entries: dict[str, list[str]] = {}
        for entry in store.entries:
            file_entries.setdefault(entry.location.path, []).append(entry.id)
        findings = tuple(_ordered([*memory_findings, *checker.findings()]))
        by_file: dict[str, list[Finding]] = {}
        by_entry: dict[str, list[Finding]] = {}
        for finding in findings:
            by_file.setdefault(finding.source, []).append(finding)
            if finding.entry:
                by_entry.setdefault(finding.entry, []).append(finding)
        return cls(generation=generation, ws=ws, store=store, checker=checker, config=config,
                   memory_findings=tuple(memory_findings), findings=findings, by_id={e.id: e for e in store.entries},
                   file_entries=file_entries, by_file=by_file, by_entry=by_entry,
                   memo=memo if memo is not None else {})

    def after_recheck(self, generation: int) -> Snapshot:
        """The next snapshot once the checker re-checked some entries (same store, new findings)."""
        return Snapshot.build(generation, self.ws, self.store, self.checker, self.config, self.memory_findings,
                              memo=self.memo)

    # -- what requests ask ---------------------------------------------------------------------

    def store_path(self, entry_id: str) -> str | None:
        """The memory file that holds an entry."""
        entry = self.by_id.get(entry_id)
        return entry.location.path if entry is not None else None

    def findings_of_entry(self, entry_id: str) -> list[Finding]:
        return self.by_entry.get(entry_id, [])

    def entries_in(self, relpath: str, line: int | None = None) -> list[Entry]:
        """The entries a memory file holds (at a 0-based line, for instruction files)."""
        found = [self.by_id[i] for i in self.file_entries.get(relpath, []) if i in self.by_id]
        if line is None:
            return found
        return [e for e in found if e.format != "instruction" or e.location.start_line <= line + 1 <= e.location.end_line]

    def stale_entries(self) -> set[str]:
        """The memories whose references the code made false (a warning or an error of a staleness kind):
        what the status bar and "Check Stale Memories" both count."""
        return {f.entry for f in self.findings if f.entry and is_stale(f.kind) and f.severity != Severity.info}

    def problem_counts(self) -> dict[str, int]:
        """Entry id -> how many warnings and errors it has now (information findings do not count)."""
        counts: dict[str, int] = {}
        for finding in self.findings:
            if finding.entry and finding.severity != Severity.info:
                counts[finding.entry] = counts.get(finding.entry, 0) + 1
        return counts
