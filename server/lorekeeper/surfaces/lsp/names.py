"""Every command the language server offers, by name: the one table the handlers register under, the
code actions and lenses point at, and the VS Code extension calls (scripts/generate-extension-lists
writes these names into client-vscode/src/generated.ts; tests/unit/test_extension_lists.py fails when
that file differs from this table)."""

from __future__ import annotations

from enum import StrEnum


class Command(StrEnum):
    """The server's ``workspace/executeCommand`` names."""

    CHECK_STALE = "lore.checkStale"
    VERIFY = "lore.verify"
    MERGE = "lore.merge"
    KEEP_NEWER = "lore.keepNewer"
    KEEP_BOTH = "lore.keepBoth"
    APPLY_FIX = "lore.applyFix"
    FIX_ALL = "lore.fixAll"
    REMOVE_REPEAT = "lore.removeRepeat"
    ARCHIVE = "lore.archive"
    FUSE = "lore.fuse"
    COMPRESS = "lore.compress"
    COMPACT = "lore.compact"
    DESCRIBE = "lore.describe"
    STATUS = "lore.status"
    CONTEXT = "lore.context"
    ENTRY_AT = "lore.entryAt"
    SHOW_LOG = "lore.showLog"
    UNDO = "lore.undo"
    LOADS = "lore.loads"
    LOADS_OF = "lore.loadsOf"
