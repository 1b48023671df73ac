"""The optional LLM stage: an OpenAI-compatible endpoint (:mod:`.client`), where it is configured
(:mod:`.settings`), the faithfulness guard every answer passes (:mod:`.guard`), and the compaction step
that uses it (:mod:`.stage`). Without a model everything still works: the deterministic plan stands."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...core.settings.llm import Endpoint, endpoint, limits
from ...infra.tokens import count_tokens
from ...store import Operation
from .bridge import BridgeClient
from .client import Budget, ChatClient
from .stage import LLMStage

if TYPE_CHECKING:
    from ...store import Operation
    from ...workspace import Workspace
    from .bridge import Ask
    from .stage import LLMStage

__all__ = ["Endpoint", "endpoint", "journal_operations", "open_stage"]


def open_stage(ws: Workspace, environ: dict[str, str] | None = None, cached_only: bool = False, *,
               lent: tuple[Ask, str] | None = None) -> tuple[LLMStage | None, list[str]]:
    """The LLM stage for a run in ``ws`` (a client with a fresh budget: one budget for every operation of
    the run), or ``None`` and why not; and any configuration problems met. A configured endpoint comes
    first; else ``lent``, a model the surface's peer lends (the editor's, the MCP client's): its ``ask``
    function and who lends it. ``cached_only``: a stage that answers from the answers kept by earlier runs
    and never asks the model (no request, no cost)."""

    found, problems = endpoint(ws.config_files, environ)
    if found is None:
        if lent is None:
            return None, problems

        config = limits(ws.config_files)
        ask, name = lent
        bridge = BridgeClient(ask, name, Budget(config.max_tokens, config.max_calls), count_tokens)
        quiet = [p for p in problems if not p.startswith("no model is configured")]
        return LLMStage(bridge, name, bridge.base_url, config.batch, config.answer_tokens, ws), quiet
    config = found.config
    if cached_only:
        return LLMStage(None, found.model, found.base_url, config.batch, config.answer_tokens, ws), problems
    client = ChatClient(found.base_url, found.model, found.api_key, Budget(config.max_tokens, config.max_calls),
                        count_tokens, timeout=config.timeout, retries=config.retries)
    return LLMStage(client, found.model, found.base_url, config.batch, config.answer_tokens, ws), problems


def journal_operations(stage: LLMStage) -> list[Operation]:
    """Journal operations (no file changes) saying which model answers were rejected and why, and which
    merges the model vetoed and why: ``lore log`` shows them next to the compaction they belong to."""

    out: list[Operation] = []
    for op, every, what in (("llm-rejected", stage.report.rejected, ""), ("llm-vetoed", stage.report.vetoed, "not merged: ")):
        # (a pair of lines judged: its sources are the texts, and nothing was planned for it)
        items = [r for r in every if r["op"] != "same-fact"]
        if items:
            reason = "; ".join(f"{what}{', '.join(r['sources'])}: {r['reason']}" for r in items)
            entries = sorted({i for r in items for i in r["sources"]})
            out.append(Operation(op=op, reason=reason, changes=[], entries=entries, stage=stage.stage))
    return out
