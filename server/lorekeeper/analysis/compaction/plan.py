# pyright: standard
"""Plans: what compaction would do, computed without side effects; applied atomically per operation.

A plan operation names its ``sources`` (the entries it consumes), its ``result`` (the entry that stands
for them afterwards: the survivor, or a new fused/consolidated entry), a ``reason``, and the field
changes it makes. Nothing is deleted: sources get ``merged_into`` / ``superseded_by`` / ``archived`` /
``summary`` and stay on disk. The plan records a hash of every file it will change; applying refuses
when one changed on disk since the plan was made."""

from __future__ import annotations

import difflib
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from ...core import fence
from ...core.model import Entry
from ...infra.workers import fork_map
from ...store import FileChange, Journal, Operation, Record, Refused, Store
from ...store.native import render_entry


@dataclass
class PlanOperation:
    op: str  # dedup | merge | supersede | fuse | compress | archive | consolidate
    sources: list[str]
    reason: str
    result: dict[str, Any] | None = None
    updates: list[tuple[Entry, dict[str, Any]]] = field(default_factory=list)
    new_entry: dict[str, Any] | None = None  # raw fields of a new entry file
    new_path: str | None = None
    #: Which stage made it: "rules", "semantic", "llm:MODEL" (the model wrote its text or summary), or
    #: "semantic+llm:MODEL" (a semantic merge the model confirmed); ``lore log`` shows it.
    stage: str = ""

    def __post_init__(self) -> None:
        if not self.stage:
            self.stage = default_stage(self.op)

    def to_json(self) -> dict[str, Any]:
        return {"op": self.op, "sources": self.sources, "result": self.result, "reason": self.reason,
                "stage": self.stage}


def default_stage(op: str) -> str:
    """The stage of an operation that does not say (a journal record written before stages were kept)."""
    if op == "semantic":
        return "semantic"
    if op in ("dedup", "merge", "supersede", "fuse", "compress", "archive", "consolidate", "views"):
        return "rules"
    return ""


@dataclass
class Plan:
    operations: list[PlanOperation]
    views: dict[str, str]  # derived view path -> text
    conflicts: list[dict[str, Any]]  # contradictions and supersession cycles, for review
    tokens_before: int  # live entries' text, before and after (what a plain list of them costs)
    tokens_after: int
    hashes: dict[str, str | None]  # path -> sha256 of its bytes when planned (None: absent)
    #: Token counts before and after: "entries" (the plain list), "index" (index.md), "compacted" (compacted/).
    tokens: dict[str, list[int]] = field(default_factory=dict)
    #: The memory it was planned on: a digest of the workspace's root and of every memory file read (so
    #: that a plan previewed in one workspace, or before any change to memory, is not another's).
    memory: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "plan": plan_id(self),
            "operations": [op.to_json() for op in self.operations],
            "tokens_before": self.tokens_before,
            "tokens_after": self.tokens_after,
            "tokens": self.tokens,
            "conflicts": self.conflicts,
            "views": sorted(self.views),
        }


#: Fields whose values are the time a plan was made: they do not make two plans differ.
_STAMPS = frozenset({"created", "archived_at", "compressed_at"})


def plan_id(plan: Plan) -> str:
    """A short id of what a plan does and of the memory it was planned from: the same store planned twice
    gives the same id (times of day aside); any change to a memory file, or the same memory in another
    workspace, gives another. A preview shows it; applying "exactly the previewed plan" re-plans and
    compares ids."""
    what = [(op.op, op.sources, (op.result or {}).get("id"), op.reason,
             [(entry.id, {k: v for k, v in fields.items() if k not in _STAMPS}) for entry, fields in op.updates],
             {k: v for k, v in (op.new_entry or {}).items() if k not in _STAMPS})
            for op in plan.operations]
    data = json.dumps({"operations": what, "files": plan.hashes, "memory": plan.memory}, sort_keys=True, default=str)
    return hashlib.sha256(data.encode()).hexdigest()[:12]


def _sha(data: bytes | None) -> str | None:
    return hashlib.sha256(data).hexdigest() if data is not None else None


def _read(store: Store, path: str, real_dirs: dict[str, str] | None = None) -> bytes | None:
    """A memory file's bytes (``None``: absent)."""
    try:
        return store.read_file(path, real_dirs)
    except (FileNotFoundError, NotADirectoryError):
        return None


#: From this many files on, :func:`record_hashes` reads over the cores (a read costs ~10 µs; forking a
#: large process ~0.1 s).
READ_PARALLEL_MIN = 20_000


def record_hashes(plan: Plan, store: Store, *, paths: set[str] | None = None) -> None:
    """Remember the bytes every file the plan touches must hold when it is applied: an entry or MIF file
    as the store read it (the plan was made from those bytes; if the file has changed since, applying
    is refused), any other file (views, instruction files, new entries' paths) as it is now. ``paths``:
    the files of the entries the operations update, where the caller has them (a set of its own)."""
    if paths is None:
        paths = {entry.location.path for op in plan.operations for entry, _ in op.updates}
    paths |= {op.new_path for op in plan.operations if op.new_path}
    paths |= set(plan.views)
    ordered = sorted(paths)
    loaded = store.digests
    unread = [path for path in ordered if path not in loaded]
    real_dirs: dict[str, str] = {}  # one batch of reads: each folder resolved once (new entries share one)
    now = dict(zip(unread, fork_map(lambda path: _sha(_read(store, path, real_dirs)), unread,
                                    min_items=READ_PARALLEL_MIN), strict=True))
    plan.hashes = {path: loaded[path].hex() if path in loaded else now[path] for path in ordered}


def changed_files(plan: Plan, store: Store) -> list[str]:
    """The files the plan touches that no longer hold what it was made from."""
    return [path for path, digest in plan.hashes.items() if _sha(_read(store, path)) != digest]


def check_unchanged(plan: Plan, store: Store) -> None:
    changed = changed_files(plan, store)
    if changed:
        listing = ", ".join(changed[:5]) + (f" and {len(changed) - 5} more" if len(changed) > 5 else "")
        raise Refused(f"memory changed on disk since the plan was made ({listing}); nothing was written — "
                      "run the command again to plan from the current files")


def operation_changes(op: PlanOperation, store: Store, state: dict[str, bytes] | None = None) -> list[FileChange]:
    """The file changes one operation makes, from the files as they are now — or, with ``state``, as the
    plan's earlier operations leave them (``state`` is updated, so that two operations of one plan can
    change one file)."""
    state = {} if state is None else state
    changes: list[FileChange] = []
    if op.new_entry is not None and op.new_path:
        # The new entry first: nothing may point at it (merged_into) before it exists.
        changes.append(FileChange(op.new_path, None, render_entry(op.new_entry)))
        state[op.new_path] = changes[-1].after or b""
    for entry, fields in op.updates:
        path = entry.location.path
        change = store.change_for(entry, fields, current=state.get(path))
        state[path] = change.after if change.after is not None else b""
        earlier = next((c for c in changes if c.path == path), None)
        if earlier is not None:  # one operation, one change a file
            earlier.after = change.after
        else:
            changes.append(change)
    return changes


def view_changes(plan: Plan, store: Store) -> list[FileChange]:
    out = []
    for path, text in sorted(plan.views.items()):
        before = _read(store, path)
        after = text.encode("utf-8")
        if before != after:
            out.append(FileChange(path, before, after))
    return out


def journal_operations(plan: Plan, store: Store) -> list[Operation]:
    """The plan as journal operations, one per plan operation plus one for the views, with the file
    changes computed from the files as they are now."""
    out = []
    state: dict[str, bytes] = {}
    for op in plan.operations:
        entries = [*op.sources] + ([op.result["id"]] if op.result and op.result.get("id") not in op.sources else [])
        out.append(Operation(op=op.op, reason=op.reason, changes=operation_changes(op, store, state), entries=entries,
                             stage=op.stage))
    views = view_changes(plan, store)
    if views:
        out.append(Operation(op="views", reason="regenerate index.md and compacted/ from entries", changes=views,
                             stage="rules"))
    return out


def apply_plan(plan: Plan, store: Store, journal: Journal) -> list[Record]:
    """Apply every operation and rewrite the derived views, as one batch: all or nothing, each operation
    journaled. Refused as a whole, before anything is written, if a file changed since the plan was made."""
    check_unchanged(plan, store)
    operations = journal_operations(plan, store)
    return journal.apply_all(operations) if operations else []


def render_diff(plan: Plan, store: Store) -> str:
    """The plan as a unified diff of the files it would change (writes nothing)."""
    chunks: list[str] = []
    state: dict[str, bytes] = {}
    for op in plan.operations:
        chunks.append(f"# {op.op}: {op.reason}\n")
        for change in operation_changes(op, store, state):
            chunks.append(_diff(change))
    views = view_changes(plan, store)
    if views:
        chunks.append("# views: regenerate index.md and compacted/ from entries\n")
        chunks.extend(_diff(change) for change in views)
    return "".join(chunks)


def _diff(change: FileChange) -> str:
    before = change.before.decode("utf-8", "replace").splitlines(keepends=True) if change.before else []
    after = change.after.decode("utf-8", "replace").splitlines(keepends=True) if change.after else []
    old = f"a/{change.path}" if change.before is not None else "/dev/null"
    new = f"b/{change.path}" if change.after is not None else "/dev/null"
    text = "".join(difflib.unified_diff(before, after, old, new))
    return text if text.endswith("\n") or not text else text + "\n\\ No newline at end of file\n"


def render_preview(plan: Plan, store: Store) -> str:
    """The plan as a document a person reads before accepting it whole: one section per operation (what
    happens to which entry, the fields it sets, a new entry's text), the conflicts left for review, and
    the diff of index.md. Writes nothing."""
    by_id = store.by_id()
    tokens = plan.tokens or {}
    lines = [f"# Compaction preview: {len(plan.operations)} operation(s), plan {plan_id(plan)}", "",
             "Nothing is written until you apply it, and then all of it or nothing. Every original stays on "
             "disk; `lore undo --last` (or the Undo command) reverses it.", ""]
    for name, label in (("entries", "entries"), ("index", "index.md"), ("compacted", "compacted/")):
        if name in tokens:
            before, after = tokens[name]
            lines.append(f"- tokens in {label}: {before} → {after}")
    for number, op in enumerate(plan.operations, 1):
        lines += ["", f"## {number}. {_title(op)}", "", op.reason, ""]
        if op.new_entry is not None:
            lines += [f"New entry `{op.new_entry['id']}` ({op.new_path}):", ""]
            lines += ["> " + line if line else ">" for line in fence.lines(str(op.new_entry.get("content", "")))]
            lines.append("")
        for entry, fields in op.updates:
            shown = ", ".join(f"{k}: {_value(v)}" for k, v in fields.items())
            lines.append(f"- {fence.code(entry.id)} ({fence.inline(entry.where())}) — {fence.inline(shown)}")
            lines.append(f"  > {fence.inline(_first_line(by_id.get(entry.id, entry).content))}")
    if plan.conflicts:
        lines += ["", "## Left for review (not acted on)", ""]
        lines += [f"- {fence.inline(str(c.get('message', '')))}" for c in plan.conflicts]
    index = next((p for p in plan.views if p.endswith("/index.md")), None)
    if index is not None:
        before = _read(store, index)
        change = FileChange(index, before, plan.views[index].encode("utf-8"))
        diff = _diff(change) if before != change.after else ""
        lines += ["", f"## {index}", ""] + (["```diff", diff.rstrip("\n"), "```"] if diff else ["Unchanged."])
    return "\n".join(lines) + "\n"


def _title(op: PlanOperation) -> str:
    result = (op.result or {}).get("id")
    if op.op in ("dedup", "merge") and result:
        return f"{op.op} {', '.join(op.sources)} into {result}"
    if op.op == "supersede" and result:
        return f"supersede {', '.join(op.sources)} by {result}"
    if op.op in ("fuse", "consolidate") and result:
        return f"{op.op} {len(op.sources)} memories into a new entry {result}"
    return f"{op.op} {', '.join(op.sources)}"


def _value(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value
    return text if len(text) <= 80 else text[:79] + "…"


def _first_line(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= 100 else flat[:99] + "…"
