"""Validating an entry's fields, whatever format they came from.

A wrong type in an optional field is reported (with the field's line) and the field is ignored for the
entry's typed view; the file keeps it untouched. A missing or invalid ``id`` or ``content`` makes the
entry unusable: it is reported as an error and skipped, and the other entries keep loading."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Annotated, Any, NotRequired, TypeVar, cast

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError
from typing_extensions import TypedDict

from ..core.bounded import brief, oversized
from ..core.model import DEFAULT_CATEGORY, DERIVED_FIELDS, Entry, EntryFormat, Finding, Location, Ref, Severity
from ..workspace import PathOutsideRoot


def _input_type() -> TypeAdapter[dict[str, Any]]:
    """The entry's own fields (model.Entry declares each once, with its rules), each made optional so that
    one wrong value is reported on its own and the rest of the entry still loads. A TypedDict, not a
    model: validating gives the dict of values directly (a model and its dump cost twice as much)."""
    fields: dict[str, Any] = {}
    for name, info in Entry.model_fields.items():
        if name in DERIVED_FIELDS:
            continue
        annotation: Any = Annotated[info.annotation, *info.metadata] if info.metadata else info.annotation
        fields[name] = NotRequired[annotation | None]
    make: Any = TypedDict  # a TypedDict built from Entry's annotations, which a type checker cannot follow
    typed = make("EntryFields", fields)
    typed.__pydantic_config__ = ConfigDict(extra="ignore")
    return TypeAdapter(typed)


_Fields = _input_type()


def build_entry(
    fields: dict[str, Any],
    *,
    fmt: EntryFormat,
    location: Location,
    raw: dict[str, Any],
    line_of: Callable[[str], int],
    inside: Callable[[str, str], object],
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

    bad: set[str] = set()
    while True:
        try:
            typed = _Fields.validate_python({k: v for k, v in fields.items() if k not in bad} if bad else fields)
            break
        except ValidationError as exc:
            for err in exc.errors():
                name = str(err["loc"][0]) if err["loc"] else "?"
                if name in bad:
                    continue
                bad.add(name)
                got = type(fields.get(name)).__name__ if name in fields else "nothing"
                report(
                    "invalid-field",
                    Severity.error if name in ("id", "content") else Severity.warning,
                    name,
                    f"field {name!r} {_describe(err)} (got {got}); "
                    + ("entry skipped" if name in ("id", "content") else "field ignored"),
                )

    values: dict[str, Any] = {k: v for k, v in typed.items() if v is not None}
    entry_id: str | None = values.get("id")
    if entry_id is None or str(entry_id).strip() == "":
        if "id" not in bad:
            report("missing-field", Severity.error, None, "entry has no 'id'; entry skipped")
        return None, findings
    content: str | None = values.get("content")
    if content is None or not content.strip():
        if "content" not in bad:
            report("missing-field", Severity.error, "content" if "content" in fields else None,
                   "entry has no 'content'" + ("" if content is None else " (it is empty)") + "; entry skipped")
        return None, findings

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
            for item in cast(list[Any], refs):
                ref = _parse_ref(item)
                if isinstance(ref, str):
                    report("invalid-ref", Severity.warning, refs_field, f"reference {brief(item)} {ref}; ignored")
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
    # The template holds every field in declaration order; updating it keeps that order.
    given = _ENTRY_TEMPLATE.copy()
    given.update(values)
    given.update(created_from=created_from, refs=parsed_refs, format=fmt, location=location, raw=raw)
    return construct(Entry, given), findings


#: Every field of an entry in declaration order, with its default; those without one (required, or a
#: default factory) are always given by build_entry.
_ENTRY_TEMPLATE: dict[str, Any] = {
    name: info.default if not info.is_required() and info.default_factory is None else None
    for name, info in Entry.model_fields.items()
}

_M = TypeVar("_M", bound=BaseModel)


def construct(cls: type[_M], values: dict[str, Any]) -> _M:
    """``cls.model_construct(**values)`` for a model without aliases, extra fields, private attributes or
    post-init, given every field in declaration order: what model_construct does, without its per-field
    loop (a sixth of the time it takes to load an entry). tests/unit/test_store_fast_paths.py holds it to
    model_construct's result."""
    obj = cls.__new__(cls)
    object.__setattr__(obj, "__dict__", values)
    object.__setattr__(obj, "__pydantic_fields_set__", set(values))
    object.__setattr__(obj, "__pydantic_extra__", None)
    object.__setattr__(obj, "__pydantic_private__", None)
    return obj


#: The most values (keys' values, list items, nested) a reference object may hold, and how deep: a ref
#: keeps the keys it does not know so that a rewrite keeps them, and every list, show and rewrite
#: serialises them, so their size is bounded where they are read.
REF_MAX_VALUES = 64
REF_MAX_DEPTH = 4


def _parse_ref(item: Any) -> Ref | str:
    """The reference ``item`` stands for, or why it is refused (a phrase: "is not a path ...")."""
    if isinstance(item, str) and item.strip():
        return Ref.parse(item.strip())
    fields = cast(dict[str, Any], item) if isinstance(item, dict) else None
    if fields is not None and isinstance(path := fields.get("path"), str) and path.strip():
        if oversized(fields, REF_MAX_VALUES, REF_MAX_DEPTH):
            return (f"holds more than a reference needs (over {REF_MAX_VALUES} values or "
                    f"{REF_MAX_DEPTH} levels of nesting)")
        try:
            return Ref.model_validate(fields)
        except ValidationError:
            pass
    return 'is not a path or a {"path": ...} object'


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
