"""The compaction settings, under the name the compaction package gives them. They live in
:mod:`lorekeeper.compaction_config`, outside this package, so that reading them (``check-stale`` asks
whether LLM assistance is on) does not import the compaction engine."""

from ..compaction_config import DEFAULT_MODEL, MODEL_ENV, TOGGLES, CompactionConfig

__all__ = ["DEFAULT_MODEL", "MODEL_ENV", "TOGGLES", "CompactionConfig"]
