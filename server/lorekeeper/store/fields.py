"""Validating an entry's fields, whatever format they came from.

A wrong type in an optional field is reported (with the field's line) and the field is ignored for the
entry's typed view; the file keeps it untouched. A missing or invalid ``id`` or ``content`` makes the
entry unusable: it is reported as an error and skipped, and the other entries keep loading."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, date, datetime, time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from ..model import DEFAULT_CATEGORY, Entry, EntryFormat, Finding, Location, Ref, Severity
from ..workspace import PathOutsideRoot


class _Fields(BaseModel):
    """The typed fields an entry may carry; all optional so each can fail on its own."""

    model_config = ConfigDict(extra="ignore", strict=False)

    id: str | int | None = None
    content: str | None = None
    category: str | None = None
    created: datetime | date | None = None
    agent: str | None = None
    tags: list[str] | None = None
    supersedes: list[str] | str | None = None
    coexists_with: list[str] | None = None
    confidence: float | None = None
    merged_into: str | None = None
    superseded_by: str | None = None
    source: str | None = None
    source_entries: list[str] | None = None
    stale_reason: str | None = None
    verified: datetime | date | None = None
    importance: float | None = None
    pinned: bool | None = None
    summary: str | None = None
    compressed_at: datetime | date | None = None
    ttl: str | int | None = None
    strength: float | None = None
    last_accessed: datetime | date | None = None
    access_count: int | None = None
    archived: bool | str | None = None

    @field_validator("tags", "source_entries", "coexists_with", mode="before")
    @classmethod
    def _strings_only(cls, value: Any) -> Any:
        if isinstance(value, list) and not all(isinstance(v, str) for v in value):
            raise ValueError("must be a list of strings")
        return value

    @field_validator("confidence", "importance", "strength", mode="after")
    @classmethod
    def _unit_interval(cls, value: float | None) -> float | None:
        if value is not None and not (0.0 <= value <= 1.0):  # NaN fails this too
            raise ValueError("must be a number from 0 to 1")
        return value

    @field_validator("access_count", mode="after")
    @classmethod
    def _not_negative(cls, value: int | None) -> int | None:
        if value is not None and value < 0:
            raise ValueError("must be 0 or more")
        return value

    @field_validator("archived", mode="before")
    @classmethod
    def _archived(cls, value: Any) -> Any:
        """``true``/``false``, or the time it was archived; "no" or "false" as text would hide a live entry."""
        if value is None or isinstance(value, bool):
            return value
        if isinstance(value, str):
            try:
                datetime.fromisoformat(value.replace("Z", "+00:00"))
                return value
            except ValueError:
                pass
        raise ValueError("must be true, false or the time it was archived")


_TYPED = tuple(_Fields.model_fields)


def build_entry(
    fields: dict[str, Any],
    *,
    fmt: EntryFormat,
    location: Location,
    raw: dict[str, Any],
    line_of: Callable[[str], int],
    inside: Callable[[str, str], Path],
    refs: Any = None,
    refs_field: str = "refs",
    created_fallback: Callable[[], tuple[datetime, str]] | None = None,
    ref_base: str = "",
) -> tuple[Entry | None, list[Finding]]:
    """Validate ``fields`` (canonical names) into an :class:`Entry`, with findings for what is wrong.

    ``line_of(field)`` gives the 1-based line of a field in the file, for messages; ``refs`` are the raw
    references (native ``refs`` or MIF ``code_refs`` already mapped to ``{path, symbol, lines}``)."""
    findings: list[Finding] = []
    source = location.path

    def report(kind: str, severity: Severity, field: str | None, message: str, ref: str | None = None) -> None:
        findings.append(
            Finding(
                kind=kind,
                severity=severity,
                message=message,
                source=source,
                line=line_of(field) if field else location.start_line,
                entry=str(fields.get("id")) if isinstance(fields.get("id"), (str, int)) else None,
                field=field,
                ref=ref,
            )
        )

    data = {k: v for k, v in fields.items() if k in _TYPED}
    bad: set[str] = set()
    while True:
        try:
            typed = _Fields.model_validate({k: v for k, v in data.items() if k not in bad})
            break
        except ValidationError as exc:
            for err in exc.errors():
                name = str(err["loc"][0]) if err["loc"] else "?"
                if name in bad:
                    continue
                bad.add(name)
                got = type(data.get(name)).__name__ if name in data else "nothing"
                report(
                    "invalid-field",
                    Severity.error if name in ("id", "content") else Severity.warning,
                    name,
                    f"field {name!r} {_describe(err)} (got {got}); "
                    + ("entry skipped" if name in ("id", "content") else "field ignored"),
                )

    entry_id = typed.id
    if entry_id is None or str(entry_id).strip() == "":
        if "id" not in bad:
            report("missing-field", Severity.error, None, "entry has no 'id'; entry skipped")
        return None, findings
    content = typed.content
    if content is None or not content.strip():
        if "content" not in bad:
            report("missing-field", Severity.error, "content" if "content" in fields else None,
                   "entry has no 'content'" + ("" if content is None else " (it is empty)") + "; entry skipped")
        return None, findings

    values = typed.model_dump(exclude_none=True)
    for name in ("created", "verified", "compressed_at", "last_accessed"):
        if name in values:
            values[name] = _as_datetime(values[name])
    supersedes = values.get("supersedes")
    if isinstance(supersedes, str):
        values["supersedes"] = [supersedes]
    values["id"] = str(entry_id)
    values.setdefault("category", DEFAULT_CATEGORY)
    created_from = "field"
    if "created" not in values and created_fallback is not None:
        values["created"], created_from = created_fallback()

    parsed_refs: list[Ref] = []
    if refs is not None:
        if not isinstance(refs, list):
            report("invalid-field", Severity.warning, refs_field,
                   f"field {refs_field!r} must be a list of references; field ignored")
        else:
            for item in refs:
                ref = _parse_ref(item)
                if ref is None:
                    report("invalid-ref", Severity.warning, refs_field,
                           f"reference {item!r} is not a path or a {{\"path\": ...}} object; ignored")
                    continue
                try:
                    inside(ref.path, ref_base)
                except PathOutsideRoot as exc:
                    ref.rejected = str(exc)
                    report("ref-outside-root", Severity.error, refs_field,
                           f"reference refused: {exc}; it is never read", ref=ref.path)
                parsed_refs.append(ref)

    # Every value was validated above; constructing without a second validation pass halves load time.
    # (Every field is passed, the lists fresh: model_construct's own default handling is slow.)
    for name in ("tags", "supersedes", "source_entries", "coexists_with"):
        values.setdefault(name, [])
    entry = Entry.model_construct(**{**_ENTRY_DEFAULTS, **values, "created_from": created_from, "refs": parsed_refs,
                                     "format": fmt, "location": location, "raw": raw})
    return entry, findings


_ENTRY_DEFAULTS = {
    name: info.default
    for name, info in Entry.model_fields.items()
    if not info.is_required() and info.default_factory is None
}


def _parse_ref(item: Any) -> Ref | None:
    if isinstance(item, str) and item.strip():
        return Ref.parse(item.strip())
    if isinstance(item, dict) and isinstance(item.get("path"), str) and item["path"].strip():
        try:
            return Ref.model_validate(item)
        except ValidationError:
            return None
    return None


def _describe(err: Mapping[str, Any]) -> str:
    kind = err.get("type", "")
    if kind.startswith("string"):
        return "must be a string"
    if kind.startswith(("float", "int")):
        return "must be a number"
    if kind.startswith("bool"):
        return "must be true or false"
    if kind.startswith(("datetime", "date")):
        return "must be an ISO 8601 date or time"
    if kind.startswith("list"):
        return "must be a list"
    msg = str(err.get("msg", "is invalid"))
    return "must be " + msg.removeprefix("Value error, ").removeprefix("must be ") if "must be" in msg else msg.lower()


def _as_datetime(value: datetime | date) -> datetime:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    return datetime.combine(value, time(0, 0), tzinfo=UTC)
