"""The context use-case: the memory an agent should load now, within a budget (``lore context``, MCP
``recall``, the editor's context command)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from ..analysis.compaction import related_by_meaning
from ..analysis.context import ContextConfig, ContextResult, render_entries
from ..analysis.diagnose import conflicts as find_conflicts
from ..core.model import Finding
from ..infra.safeio import read_text
from ..store import Store
from ..workspace import Workspace


def render_context(ws: Workspace, store: Store, *, budget: int | None = None, focus: Sequence[str] = (),
                   findings: Sequence[Finding] | None = None, now: datetime | None = None,
                   config: ContextConfig | None = None, conflicts: Sequence[dict[str, Any]] | None = None,
                   remember: bool = True) -> ContextResult:
    """The memory to load now for ``focus`` (workspace-relative paths, or free-text queries) within
    ``budget`` tokens (default: ``[context] budget``, else the index.md budget). Where `lore compact` wrote compacted/
    and it holds what the rendering leaves out, the text points into it as index.md does. ``findings``: staleness
    findings when the caller has them (stale memories score less and say so); ``conflicts``: the
    contradictions compaction finds (computed when not given). ``remember``: keep the levels for the
    next rendering's hysteresis (a cache file; memory itself is never written)."""
    config = config or ws.context
    if conflicts is None:
        conflicts = _conflicts(store) if sum(e.live for e in store.entries) > 1 else []
    return render_entries(ws, store.entries, budget=budget, focus=focus, findings=findings, now=now, config=config,
                          conflicts=conflicts, remember=remember, compacted=compacted_views(ws),
                          near=related_by_meaning(ws, store.entries, embed=False))


def compacted_views(ws: Workspace) -> dict[str, str]:
    """The compacted/ files `lore compact` wrote (``compacted/<category>.md`` → text): the context points
    into them where they hold what it leaves out."""
    folder = ws.store / "compacted"
    out: dict[str, str] = {}
    try:
        paths = sorted(folder.glob("*.md")) if folder.is_dir() else []
    except OSError:
        return out
    for path in paths:
        try:
            out[f"compacted/{path.name}"] = read_text(path, root=ws.root)
        except (OSError, UnicodeDecodeError):
            continue
    return out


def _conflicts(store: Store) -> list[dict[str, Any]]:
    return find_conflicts(store, store.ws.compaction)
