"""The compaction use-case, once for every surface (``lore compact``/``lore gc``, the editor's Compact
command and its offer, MCP ``compact`` and auto-compaction): settings with the run's overrides, the
stages (the semantic rule joins ``only`` when it is on; the LLM stage from the configured model or one a
peer lends), the plan, the "exactly the previewed plan" check, and the journaled, all-or-nothing apply.
Surfaces only render what :class:`Compaction` says."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..analysis.compaction import Plan, apply_plan, changed_files, plan_compaction, plan_id, render_diff, render_preview
from ..analysis.llm import journal_operations, open_stage
from ..core.settings.compaction import CompactionConfig
from ..facts import open_memory
from ..store import Journal, Record, Refused, Store
from ..workspace import Workspace

if TYPE_CHECKING:
    from ..analysis.llm.bridge import Ask
    from ..analysis.llm.stage import LLMStage

#: What every surface says when memory changed between the preview and the apply.
MEMORY_CHANGED = ("memory changed since plan {reviewed} was previewed (it now plans {now}); nothing was written: "
                  "preview again")
#: What every surface says when the LLM stage was asked for and no model can answer.
NO_MODEL = ("no model to ask (configure [llm] or LORE_LLM_*, or lend one: the editor's, or an MCP client's "
            "sampling); the deterministic plan stands")


class MemoryChanged(Refused):
    """The plan made now is not the one previewed: nothing was written."""


@dataclass
class Compaction:
    """A planned compaction: the plan, the store it was made from, the settings and stages of the run,
    and problems worth saying (a configuration value ignored, no model to ask)."""

    ws: Workspace
    store: Store
    plan: Plan
    config: CompactionConfig
    stage: LLMStage | None = None
    problems: list[str] = field(default_factory=list[str])

    @property
    def id(self) -> str:
        return plan_id(self.plan)

    def summary(self) -> dict[str, Any]:
        """The plan as JSON (``Plan.to_json``), with the problems and, when the LLM stage was asked for, its
        report (``None``: no model answered)."""
        data = self.plan.to_json()
        data["problems"] = list(self.problems)
        if self.config.llm_assisted:
            data["llm"] = self.stage.report.to_json() if self.stage is not None else None
        return data

    def preview(self) -> str:
        """The plan as a document to read before accepting it whole (Markdown)."""
        return render_preview(self.plan, self.store)

    def diff(self) -> str:
        """The plan as a unified diff of the files it would change."""
        return render_diff(self.plan, self.store)

    def has_work(self) -> bool:
        """Whether applying would change anything: an operation, or a view that differs from its file."""
        return bool(self.plan.operations) or bool(changed_views(self))


def changed_views(compaction: Compaction) -> list[str]:
    """The derived views (index.md, compacted/) the plan would write differently from what they hold."""
    out: list[str] = []
    for path, text in compaction.plan.views.items():
        try:
            current = (compaction.ws.root / path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            current = None
        if current != text:
            out.append(path)
    return out


def settings(ws: Workspace, *, semantic: bool | None = None, llm: bool | None = None,
             **overrides: Any) -> CompactionConfig:
    """The run's settings: the workspace's, with what the command line, the editor or the agent asked
    for (``None``: as configured). A copy: the workspace's settings never change."""
    wanted: dict[str, Any] = {"semantic_dedup": semantic, "llm_assisted": llm}
    wanted.update({k: v for k, v in overrides.items() if v is not None})
    return ws.compaction.with_overrides(**wanted)


def plan(ws: Workspace, store: Store | None = None, *, config: CompactionConfig | None = None,
         only: list[str] | None = None, lent: tuple[Ask, str] | None = None) -> Compaction:
    """Plan a compaction of ``store`` (opened now when not given, or when the files it was read from
    changed since: a plan is applied only to the files it was made from). ``only`` narrows the rules;
    the semantic rule stays in when the settings turn it on. ``lent``: a model a peer lends, used when
    none is configured. Raises ``ValueError`` for an unknown rule and ``SemanticUnavailable`` when the
    semantic stage cannot load its model."""
    config = config or ws.compaction
    problems = list(config.problems)
    if only is not None and config.semantic_dedup and "semantic" not in only:
        only = [*only, "semantic"]
    stage: LLMStage | None = None
    if config.llm_assisted:
        stage, llm_problems = open_stage(ws, lent=lent)
        problems += [f"llm: {p}" for p in llm_problems]
        if stage is None:
            problems.append(f"llm: {NO_MODEL}")
    store = store if store is not None else open_memory(ws)
    made = plan_compaction(store, config, only=only, llm=stage)
    if changed_files(made, store):
        store = open_memory(ws)
        made = plan_compaction(store, config, only=only, llm=stage)
    return Compaction(ws, store, made, config, stage, problems)


def apply(compaction: Compaction, journal: Journal, reviewed: str | None = None) -> list[Record]:
    """Apply the plan as one batch, journaled (with the LLM stage's rejected and vetoed answers), after
    checking that it is the plan ``reviewed`` (a previewed plan's id) when one is given. Raises
    :class:`MemoryChanged`, or ``Refused`` when a file changed since the plan was made."""
    if reviewed is not None and reviewed != compaction.id:
        raise MemoryChanged(MEMORY_CHANGED.format(reviewed=reviewed, now=compaction.id))
    records = apply_plan(compaction.plan, compaction.store, journal)
    if compaction.stage is not None:
        records += [journal.record(op) for op in journal_operations(compaction.stage)]
    return records


def due(tokens: int, budget: int, threshold: float) -> bool:
    """Whether memory is past the auto-compaction threshold: ``tokens`` above ``threshold`` (a share) of
    ``budget``; a threshold of 0 never is. Every surface asks here."""
    return threshold > 0 and tokens > threshold * budget


def rules_only(ws: Workspace, config: CompactionConfig | None = None) -> CompactionConfig:
    """The settings of an automatic compaction: the deterministic rules alone (no model is loaded, no
    model is asked), whatever the configuration turns on."""
    return (config or ws.compaction).with_overrides(semantic_dedup=False, llm_assisted=False)
