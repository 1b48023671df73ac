"""Context settings: ``[context]`` in ``.lore/config.toml``, validated key by key (one bad value falls back
to its default with a message naming it; the others apply)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt

from . import ConfigFiles, settle

Weight = StrictFloat | StrictInt


class ContextConfig(BaseModel):
    model_config = ConfigDict(frozen=True)

    #: Tokens `lore context` and MCP `recall` render within when no budget is given; unset: the index.md
    #: budget of ``[compaction]`` (so `lore context`, recall and index.md render the same memory).
    budget: StrictInt | None = Field(default=None, ge=0)
    #: Recency halves every this many days (from the entry's creation or its last verification).
    half_life_days: Weight = Field(default=14.0, gt=0)
    #: How much each signal counts (each signal is a number from 0 to 1; the score is their weighted mean).
    recency_weight: Weight = Field(default=1.0, ge=0)
    importance_weight: Weight = Field(default=1.0, ge=0)
    access_weight: Weight = Field(default=0.5, ge=0)
    focus_weight: Weight = Field(default=3.0, ge=0)
    pinned_weight: Weight = Field(default=1.0, ge=0)
    type_weight: Weight = Field(default=1.0, ge=0)
    #: Share of the budget (after pinned entries) kept for the best entries in full, in score order.
    full_share: Weight = Field(default=0.6, ge=0, le=1)
    #: What a level is worth, as a share of the entry's score: a full entry counts its whole score.
    compressed_value: Weight = Field(default=0.5, ge=0, le=1)
    placeholder_value: Weight = Field(default=0.1, ge=0, le=1)
    #: A score must move by more than this to change an entry's level from the previous rendering.
    hysteresis: Weight = Field(default=0.05, ge=0, le=1)
    #: Stale memories (marked, or with a staleness error) keep this share of their score.
    stale_factor: Weight = Field(default=0.5, ge=0, le=1)
    #: Characters of the deterministic shortening of an entry that has no summary.
    compressed_chars: StrictInt = Field(default=200, ge=20)
    #: Share of the budget at which the full store asks for compaction (status, LSP, MCP); 0: never.
    auto_compact_threshold: Weight = Field(default=0.9, ge=0, le=1)
    #: The tokenizer budgets are counted with (cl100k_base, bundled offline).
    tokenizer: Literal["cl100k"] = "cl100k"
    #: Instruction files (CLAUDE.md, AGENTS.md...) are loaded by agents anyway: left out unless this is on.
    include_instructions: StrictBool = False
    #: Rank a free-text focus with local embeddings too (loads the semantic stage's model when a text has
    #: no cached vector: off by default).
    semantic: StrictBool = False
    problems: list[str] = Field(default_factory=list[str])

    @classmethod
    def from_files(cls, files: ConfigFiles) -> ContextConfig:
        problems: list[str] = []
        values = settle(cls, [(".lore/config.toml [context]", files.section("context"))], problems)
        return cls(**values, problems=problems)

    def with_overrides(self, **overrides: Any) -> ContextConfig:
        """A copy with these settings changed (``None``: left as it is), validated like the file's values."""
        changed = {k: v for k, v in overrides.items() if v is not None}
        return type(self).model_validate({**self.model_dump(), **changed}) if changed else self
