"""Compaction settings: ``[compaction]`` in ``.lore/config.toml`` and the ``memory`` section of
``.lean-spec/config.json`` (camelCase keys accepted there), falling back to the defaults below."""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from ..safeio import load_json, read_text

OPERATIONS = ("supersede", "dedup", "merge", "archive", "consolidate", "fuse", "compress")


@dataclass
class CompactionConfig:
    # Which operations run (all by default); `lore compact --only` narrows this further.
    dedup: bool = True
    merge: bool = True
    supersede: bool = True
    fuse: bool = True
    compress: bool = True
    archive: bool = True
    #: Off by default: a learning that lists every source fact saves tokens only when a cluster repeats itself.
    consolidate: bool = False
    #: rapidfuzz token_sort_ratio (0-100) at or above which two entries are close enough for the verifier
    #: to look for a contradiction between them (the verifier, not this number, decides).
    merge_threshold: int = 50
    #: A tag/topic cluster of at least this many short entries is fused into one.
    fuse_min_entries: int = 3
    fuse_max_entries: int = 12
    fuse_max_chars: int = 300
    #: mnemonic's compression rule: (age > compress_age_days or strength < compress_strength) and
    #: longer than compress_lines lines.
    compress_lines: int = 100
    compress_age_days: int = 30
    compress_strength: float = 0.3
    summary_chars: int = 500
    #: gc: strength decays exponentially with this half-life from the last access; below min_strength
    #: an entry is archived. max_age_days = 0 turns the age limit off.
    half_life_days: float = 30.0
    min_strength: float = 0.1
    max_age_days: int = 0
    #: Categories never archived (and pinned entries never are).
    protected: list[str] = field(default_factory=lambda: ["decisions", "caveats", "goals"])
    #: Categories whose facts stay true however old: archived only by an expired TTL, never by age or decay.
    lasting: list[str] = field(default_factory=lambda: ["conventions", "pitfalls", "architecture", "commands",
                                                        "preferences", "instructions"])
    #: consolidate: entries older than this, accessed at most this often, two or more on one subject.
    consolidate_age_days: int = 90
    consolidate_max_access: int = 1
    #: Whether entries that do not count their reads (no ``access_count``) can be cold.
    consolidate_unread: bool = False
    #: index.md token budget.
    budget: int = 2000
    problems: list[str] = field(default_factory=list)

    def enabled(self) -> list[str]:
        return [op for op in OPERATIONS if getattr(self, op)]

    @classmethod
    def load(cls, root: Path) -> "CompactionConfig":
        config = cls()
        sources: list[tuple[str, dict[str, Any]]] = []
        lean = root / ".lean-spec" / "config.json"
        if lean.is_file():
            try:
                memory = load_json(read_text(lean, 1024 * 1024, root)).get("memory", {})
                if isinstance(memory, dict):
                    sources.append((".lean-spec/config.json memory", memory.get("compaction", memory)))
            except (OSError, ValueError, AttributeError) as exc:
                config.problems.append(f".lean-spec/config.json: {exc}; ignored")
        toml = root / ".lore" / "config.toml"
        if toml.is_file():
            try:
                section = tomllib.loads(read_text(toml, 1024 * 1024, root)).get("compaction", {})
                sources.append((".lore/config.toml [compaction]", section))
            except (OSError, tomllib.TOMLDecodeError) as exc:
                config.problems.append(f".lore/config.toml: {exc}; compaction defaults used")
        known = {f.name: f for f in fields(cls) if f.name != "problems"}
        for where, values in sources:
            if not isinstance(values, dict):
                continue
            for key, value in values.items():
                name = _snake(key)
                if name not in known:
                    continue  # other tools' settings share these sections
                default = getattr(cls(), name)
                if _same_type(default, value):
                    setattr(config, name, float(value) if isinstance(default, float) else value)
                else:
                    config.problems.append(f"{where}: {key} should be {type(default).__name__}, got {value!r}; "
                                           f"using {default!r}")
        return config

    def with_overrides(self, **overrides: Any) -> "CompactionConfig":
        for key, value in overrides.items():
            if value is not None:
                setattr(self, key, value)
        return self


def _snake(key: str) -> str:
    out = "".join("_" + c.lower() if c.isupper() else c for c in key)
    return out.replace("-", "_").lstrip("_")


def _same_type(default: Any, value: Any) -> bool:
    if isinstance(default, bool):
        return isinstance(value, bool)
    if isinstance(default, float):
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if isinstance(default, int):
        return isinstance(value, int) and not isinstance(value, bool) and value >= 0
    if isinstance(default, list):
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    return isinstance(value, type(default))
