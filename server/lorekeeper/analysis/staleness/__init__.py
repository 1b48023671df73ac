"""Staleness: which memories name code that is gone, moved, or changed since they were true.

- :mod:`.checker` — the checker: resolves references today, judges the rest against each memory's
  baseline, keeps the reverse index for incremental re-checks.
- :mod:`.baseline` — when a memory (or one of its lines) was written or verified.
- :mod:`.checks` — one check per reference kind, in a registry; checks of a whole entry.
- :mod:`.actions` — verify, mark, fix, follow a rename, archive (each journaled)."""

from .actions import apply_fix, apply_fixes, archive_entry, fix_change, mark_stale, rename_changes, verify_entries
from .checker import ANY_CODE, WORD, EntryResult, StalenessChecker, check_workspace

__all__ = ["ANY_CODE", "WORD", "EntryResult", "StalenessChecker", "apply_fix", "apply_fixes", "archive_entry", "check_workspace",
           "fix_change", "mark_stale", "rename_changes", "verify_entries"]
