"""Staleness settings: ``[staleness]`` in ``.lore/config.toml``: memory files the checker skips, and ignore
rules, each with the reason a finding does not apply and an optional date it stops applying. A rule that
cannot be read is reported (``invalid-config``) and left out; the others apply."""

from __future__ import annotations

import fnmatch
from datetime import date
from functools import lru_cache
from typing import Any, cast

import pathspec
from pydantic import BaseModel, ConfigDict, Field, StrictStr, ValidationError, field_validator

from ..bounded import brief
from ..kinds import KINDS, Family
from . import ConfigFiles

_WHERE = ".lore/config.toml [staleness]"


class IgnoreRule(BaseModel):
    """One ``[[staleness.ignore]]`` table: the findings it matches are not reported (every key given must
    match; a rule names at least one of ``kind``, ``path``, ``ref``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    #: Finding kinds (``stale-path``...) or families (``staleness``); empty: every kind.
    kind: tuple[StrictStr, ...] = ()
    #: The memory files it covers, as gitignore-style patterns (``CLAUDE.md``, ``docs/agents/*.md``).
    path: tuple[StrictStr, ...] = ()
    #: The references it covers, as shell patterns (``dist/*``, ``test:e2e``).
    ref: tuple[StrictStr, ...] = ()
    reason: StrictStr = Field(min_length=1)
    until: date | None = None
    #: Which rule of the file this is (1-based), for messages.
    number: int = 0

    @field_validator("kind", "path", "ref", mode="before")
    @classmethod
    def _one_or_more(cls, value: Any) -> Any:
        return (value,) if isinstance(value, str) else value

    def expired(self, today: date) -> bool:
        return self.until is not None and self.until < today

    def where(self) -> str:
        return f".lore/config.toml [[staleness.ignore]] #{self.number}"

    def matches(self, kind: str, family: str, source: str, ref: str | None) -> bool:
        if self.kind and kind not in self.kind and family not in self.kind:
            return False
        if self.path and not _spec(self.path).match_file(source):
            return False
        return not self.ref or (ref is not None and any(fnmatch.fnmatchcase(ref, p) for p in self.ref))


@lru_cache(maxsize=64)
def _spec(patterns: tuple[str, ...]) -> pathspec.GitIgnoreSpec:
    return pathspec.GitIgnoreSpec.from_lines(patterns)


class StalenessConfig(BaseModel):
    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    #: Memory files the staleness checker does not check, as gitignore-style patterns.
    skip: tuple[StrictStr, ...] = ()
    ignore: tuple[IgnoreRule, ...] = ()
    problems: list[str] = Field(default_factory=list[str])

    @classmethod
    def from_files(cls, files: ConfigFiles) -> StalenessConfig:
        section = files.section("staleness")
        problems: list[str] = []
        if not isinstance(section, dict):
            return cls(problems=[f"{_WHERE} should be a table; ignored"] if section else [])
        table: dict[str, Any] = section  # pyright: ignore[reportUnknownVariableType] - a parsed file: anything
        skip: tuple[str, ...] = ()
        raw_skip: Any = table.get("skip", [])
        if isinstance(raw_skip, list) and all(isinstance(p, str) for p in cast(list[Any], raw_skip)):
            skip = tuple(cast(list[str], raw_skip))
        else:
            problems.append(f"{_WHERE}: skip should be a list of patterns, got {brief(cast(object, raw_skip))}; ignored")
        raw_rules: Any = table.get("ignore", [])
        rules: list[IgnoreRule] = []
        if not isinstance(raw_rules, list):
            problems.append(f"{_WHERE}: ignore should be an array of tables ([[staleness.ignore]]); ignored")
            raw_rules = []
        known = set(KINDS) | {f.value for f in Family}
        for number, raw in enumerate(cast(list[Any], raw_rules), 1):
            where = f".lore/config.toml [[staleness.ignore]] #{number}"
            if not isinstance(raw, dict):
                problems.append(f"{where} should be a table; ignored")
                continue
            try:
                rule = IgnoreRule.model_validate({**raw, "number": number})
            except ValidationError as exc:
                first = exc.errors()[0]
                field = ".".join(str(p) for p in first["loc"]) or "rule"
                why = "a reason is required" if field == "reason" else first["msg"].lower()
                problems.append(f"{where}: {field}: {why}; rule ignored")
                continue
            unknown = [k for k in rule.kind if k not in known]
            if unknown:
                problems.append(f"{where}: unknown finding kind {', '.join(brief(k) for k in unknown)} "
                                "(docs/staleness.md#finding-kinds lists them); rule ignored")
                continue
            if not (rule.kind or rule.path or rule.ref):
                problems.append(f"{where}: names no kind, path or ref, so it would hide every finding; rule ignored")
                continue
            rules.append(rule)
        return cls(skip=skip, ignore=tuple(rules), problems=problems)

    def skipped(self, source: str) -> bool:
        return bool(self.skip) and _spec(self.skip).match_file(source)
