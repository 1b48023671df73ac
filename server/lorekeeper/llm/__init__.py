"""The optional LLM stage: an OpenAI-compatible endpoint (:mod:`.client`), where it is configured
(:mod:`.settings`), the faithfulness guard every answer passes (:mod:`.guard`), and the compaction step
that uses it (:mod:`.stage`). Without a model everything still works: the deterministic plan stands."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .settings import Endpoint, endpoint

if TYPE_CHECKING:
    from ..workspace import Workspace
    from .stage import LLMStage

__all__ = ["Endpoint", "endpoint", "open_stage"]


def open_stage(ws: Workspace, environ: dict[str, str] | None = None) -> tuple[LLMStage | None, list[str]]:
    """The LLM stage for a run in ``ws`` (a client with a fresh budget), or ``None`` and why not; and any
    configuration problems met."""
    from ..tokens import count_tokens  # noqa: PLC0415
    from .client import Budget, ChatClient  # noqa: PLC0415
    from .stage import LLMStage  # noqa: PLC0415

    found, problems = endpoint(ws.config_files, environ)
    if found is None:
        return None, problems
    config = found.config
    client = ChatClient(found.base_url, found.model, found.api_key, Budget(config.max_tokens, config.max_calls),
                        count_tokens, timeout=config.timeout, retries=config.retries)
    return LLMStage(client, found.model, found.base_url, config.batch, config.answer_tokens, ws), problems
