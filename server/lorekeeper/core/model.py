"""The shared vocabulary: entries, refs, findings.

Every surface (CLI, LSP, MCP) speaks in these types; none of them knows about terminals or JSON-RPC.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from enum import Enum
from typing import Annotated, Any, Literal, cast

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

from .bounded import oversized

#: LeanSpec's documented default categories. Any other string is accepted as a category too.
DEFAULT_CATEGORIES = ("conventions", "decisions", "patterns", "pitfalls")
DEFAULT_CATEGORY = "conventions"

#: Where an entry came from.
EntryFormat = Literal["entry", "mif", "instruction"]


class Severity(str, Enum):
    error = "error"
    warning = "warning"
    info = "info"


class Ref(BaseModel):
    """A reference from a memory to code in the workspace: a file or folder, optionally a symbol in it.

    Keys it does not know are kept (a rewrite writes them back); one read from a memory file holds a
    bounded amount of them (store/fields.py refuses a larger one with a finding)."""

    model_config = ConfigDict(extra="allow")

    path: str
    symbol: str | None = None
    lines: str | list[int] | int | None = None
    hash: str | None = None
    #: Set when the path is refused (absolute, escapes the workspace root): nothing reads it.
    rejected: str | None = Field(default=None, exclude=True)

    def label(self) -> str:
        return f"{self.path}:{self.symbol}" if self.symbol else self.path

    @classmethod
    def parse(cls, spec: str) -> Ref:
        """Parse the CLI shorthand ``PATH[:SYMBOL]``."""
        path, sep, symbol = spec.partition(":")
        return cls(path=path, symbol=symbol or None) if sep else cls(path=spec)


class Location(BaseModel):
    """Where an entry lives: a workspace-relative POSIX path and a 1-based, inclusive line range."""

    path: str
    start_line: int = 1
    end_line: int = 1


# The rules an entry's fields follow, declared once: the store validates a file's fields against the
# entry's own annotations (store/fields.py derives its input model from them), and so does every
# ``Entry(...)`` the engine builds. Each rule lets ``None`` through: on input every field is optional.

def _identifier(value: Any) -> Any:
    """An id written as a number (``"id": 12``) is the string ``"12"``; a bool is not a number here."""
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


def _strings(value: object) -> object:
    if isinstance(value, list):
        items = cast(list[object], value)
        if not all(isinstance(v, str) for v in items):
            raise ValueError("must be a list of strings")
        return items
    return value


def _one_or_more(value: object) -> object:
    """``supersedes: "e1"`` means ``["e1"]``."""
    return _strings([value] if isinstance(value, str) else value)


def _unit_interval(value: float | None) -> float | None:
    if value is not None and not (0.0 <= value <= 1.0):  # NaN fails this too
        raise ValueError("must be a number from 0 to 1")
    return value


def _not_negative(value: int | None) -> int | None:
    if value is not None and value < 0:
        raise ValueError("must be 0 or more")
    return value


def _moment(value: Any) -> Any:
    """A date alone (YAML reads ``2025-01-02`` as one) is midnight UTC; a time without a zone is UTC."""
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, date):
        return datetime.combine(value, time(0, 0), tzinfo=UTC)
    return value


def _aware(value: datetime | None) -> datetime | None:
    """A time without a zone is UTC; so is a zero offset, as the one ``UTC`` object (the parser gives each
    value a zone object of its own, and times with different zone objects compare ten times slower: a
    plan at 100k entries sorts and compares them by the hundred thousand)."""
    if value is None:
        return None
    if value.tzinfo is None or (value.tzinfo is not UTC and value.utcoffset() == _NO_OFFSET):
        return value.replace(tzinfo=UTC)
    return value


_NO_OFFSET = timedelta(0)


def _archived(value: Any) -> Any:
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


Identifier = Annotated[str, BeforeValidator(_identifier)]
Strings = Annotated[list[str], BeforeValidator(_strings)]
OneOrMore = Annotated[list[str], BeforeValidator(_one_or_more)]
UnitInterval = Annotated[float, AfterValidator(_unit_interval)]
Count = Annotated[int, AfterValidator(_not_negative)]
Moment = Annotated[datetime, BeforeValidator(_moment), AfterValidator(_aware)]
Archived = Annotated[bool | str, BeforeValidator(_archived)]

#: Entry attributes the store computes; a file's field of the same name is not read into them.
DERIVED_FIELDS = frozenset({"created_from", "refs", "format", "location", "section", "raw"})


class InFileIgnore(BaseModel):
    """A ``<!-- lore-ignore[ KIND...]: reason -->`` comment: the findings of its memory (of those kinds, or
    of every kind) are not reported."""

    model_config = ConfigDict(frozen=True)

    kinds: tuple[str, ...] = ()
    reason: str
    line: int  # where the comment is

    def matches(self, kind: str, family: str) -> bool:
        return not self.kinds or kind in self.kinds or family in self.kinds


#: ``Entry.created_from`` of an instruction-file entry read before its file's date was asked for.
PENDING = "pending"


class Entry(BaseModel):
    """One memory: a fact, whatever file format it was read from.

    ``raw`` keeps the fields exactly as the file holds them (unknown ones included) so that a rewrite
    loses nothing; the typed attributes are the validated view of it.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    id: Identifier
    content: str
    category: str = DEFAULT_CATEGORY
    created: Moment | None = None
    #: How ``created`` was obtained: "field", "git" (the commit that added the file) or "mtime"; "pending"
    #: (:data:`PENDING`, ``created`` None) in a store read without the files' dates (see ``Store.dated``).
    created_from: str = "field"
    agent: str | None = None
    tags: Strings = Field(default_factory=list)
    supersedes: OneOrMore = Field(default_factory=list)
    #: Entries a person said this one does not contradict ("both are true"): never reported as a conflict.
    coexists_with: Strings = Field(default_factory=list)
    confidence: UnitInterval | None = None
    merged_into: str | None = None
    superseded_by: str | None = None
    source: str | None = None
    source_entries: Strings = Field(default_factory=list)
    stale_reason: str | None = None
    refs: list[Ref] = Field(default_factory=list)
    verified: Moment | None = None
    importance: UnitInterval | None = None
    pinned: bool = False
    summary: str | None = None
    compressed_at: Moment | None = None
    ttl: str | int | None = None
    strength: UnitInterval | None = None
    last_accessed: Moment | None = None
    access_count: Count | None = None
    archived: Archived | None = None

    format: EntryFormat = "entry"
    location: Location
    #: For instruction files: the heading path above the entry ("Testing > E2E").
    section: str | None = None
    #: ``<!-- lore-ignore: reason -->`` comments on the entry's lines or on the line above it.
    ignores: list[InFileIgnore] = Field(default_factory=list, exclude=True)
    raw: dict[str, Any] = Field(default_factory=dict, exclude=True)

    @property
    def rewritable(self) -> bool:
        """Whether Lorekeeper may set this entry's fields (an entry or MIF file). An instruction-file entry
        is the user's text: only its text changes, by a previewed edit, and its fields (archived,
        superseded_by, summary, pinned...) cannot be written."""
        return self.format != "instruction"

    @property
    def live(self) -> bool:
        """False once the entry was merged, superseded or archived (it stays on disk)."""
        return not (self.merged_into or self.superseded_by or self.archived)

    def where(self) -> str:
        return f"{self.location.path}:{self.location.start_line}"

    def cited(self) -> str:
        """The entry's id and where it is ("a1b2c3 (.lore/memory/entries/x.json:1)"); a line of an
        instruction file, whose id is where it is, once ("AGENTS.md:217")."""
        where = self.where()
        return self.id if self.id == where else f"{self.id} ({where})"

    def public(self) -> dict[str, Any]:
        """The JSON shape used by ``--json`` output: validated fields plus the file's unknown fields."""
        data = self.model_dump(mode="json", exclude_none=True)
        if self.refs:  # (none: the dump's own empty list)
            data["refs"] = [r.model_dump(mode="json", exclude_none=True) for r in self.refs]
        if self.format == "entry":
            known = type(self).model_fields
            extra = {k: _shown_extra(v) for k, v in self.raw.items() if k not in known and k != "code_refs"}
            if extra:
                data["extra"] = extra
        return data


#: The most values, and the deepest nesting, of an unknown field that :meth:`Entry.public` gives as it
#: is; a larger one (from a file anyone may have written) is described instead of serialised.
EXTRA_MAX_VALUES = 1000
EXTRA_MAX_DEPTH = 16


def _shown_extra(value: Any) -> Any:
    if oversized(value, EXTRA_MAX_VALUES, EXTRA_MAX_DEPTH):
        return (f"<{type(value).__name__} not shown: over {EXTRA_MAX_VALUES} values or "
                f"{EXTRA_MAX_DEPTH} levels of nesting>")
    return value


class MergeFix(BaseModel):
    """Merge ``entry`` into ``into`` (the copy kept: the more complete)."""

    action: Literal["merge"] = "merge"
    entry: str
    into: str


class SupersedeFix(BaseModel):
    """Settle a conflict by keeping the newer: ``entry`` (the older) gets ``superseded_by`` ``by``."""

    action: Literal["supersede"] = "supersede"
    entry: str
    by: str


class ReplaceRefFix(BaseModel):
    """Point a reference at its new place: ``old`` becomes ``new`` in the text and in ``refs``."""

    action: Literal["replace-ref"] = "replace-ref"
    old: str
    new: str


class ReplaceTextFix(BaseModel):
    """Replace a stated value (a package manager) in the text."""

    action: Literal["replace-text"] = "replace-text"
    old: str
    new: str


class VerifyFix(BaseModel):
    """Record that the memory still holds (new fingerprints)."""

    action: Literal["verify"] = "verify"
    entry: str


class CompressFix(BaseModel):
    """Summarise a long entry (its text stays)."""

    action: Literal["compress"] = "compress"
    entry: str


class RemoveRepeatFix(BaseModel):
    """Remove ``entry``, an instruction-file line that repeats ``kept`` (the copy that stays)."""

    action: Literal["remove-repeat"] = "remove-repeat"
    entry: str
    kept: str


#: What can mend a finding, told apart by ``action`` (the same shape in ``--json`` and in a diagnostic's
#: ``data``, from which the editor's quick fixes are rebuilt).
Fix = Annotated[MergeFix | SupersedeFix | ReplaceRefFix | ReplaceTextFix | VerifyFix | CompressFix | RemoveRepeatFix,
                Field(discriminator="action")]


class Finding(BaseModel):
    """Something a user should know about a memory file: a schema problem, a refused ref, a stale memory.

    ``source`` is the workspace-relative path of the memory file and ``line`` is 1-based.
    """

    kind: str
    severity: Severity
    message: str
    source: str
    line: int | None = None
    column: int | None = None
    entry: str | None = None
    field: str | None = None
    ref: str | None = None
    fix: Fix | None = None
    #: The commit that made the memory stale (deleted, moved or changed its target), when known.
    commit: str | None = None
    #: Other places that take part (the other copies of a duplicate, the rest of a cycle):
    #: ``[{"source": PATH, "line": N, "message": "..."}]``.
    related: list[dict[str, Any]] | None = None
    #: Why it is not reported: a ``lore-ignore`` comment or an ignore rule of the configuration, with its
    #: place and reason. Such findings are kept apart from the others (SARIF lists them as suppressed).
    suppressed: str | None = None


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def newer_and_older(a: Entry, b: Entry) -> tuple[Entry, Entry]:
    """(newer, older) of two entries: by creation time (an entry without one counts as oldest), then id."""
    return (a, b) if (a.created or _EPOCH, a.id) >= (b.created or _EPOCH, b.id) else (b, a)


def finding_order(finding: Finding) -> tuple[str, int, str, str, str, str]:
    """Where a finding goes in every list of findings (the CLI's, the checker's, the editor's): file,
    line, kind, reference, entry, message. An order that does not depend on the order findings were
    found in, so a file's findings sorted alone are in the order of all findings sorted."""
    return (finding.source, finding.line or 0, finding.kind, finding.ref or "", finding.entry or "", finding.message)


#: How memory files write a moment: UTC, to the second (``2026-11-26T23:16:18Z``).
STAMP_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


def stamp(moment: datetime | None = None) -> str:
    """A moment (now, by default; a moment without a zone is UTC) as memory files write it
    (:data:`STAMP_FORMAT`)."""
    moment = moment or datetime.now(UTC)
    return (moment.astimezone(UTC) if moment.tzinfo else moment).strftime(STAMP_FORMAT)
