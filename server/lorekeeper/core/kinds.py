"""Every kind of finding, in one registry: its family, its usual severity, where the docs explain it,
and whether it makes a memory "stale" (what the status bar counts). Surfaces ask here; none keeps a
list or a prefix of its own."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from .model import Severity


class Family(str, Enum):
    schema = "schema"  # a memory file that cannot be read as it should
    staleness = "staleness"  # a reference the code made false
    duplication = "duplication"  # the same fact twice
    conflict = "conflict"  # two memories that disagree
    links = "links"  # supersedes, merged_into, superseded_by that lead nowhere or in circles
    size = "size"  # too long for its budget
    journal = "journal"  # the record of changes
    history = "history"  # git history that cannot be used
    loading = "loading"  # how agents load instruction files: caps, rules that never load, imports


@dataclass(frozen=True)
class Kind:
    name: str
    family: Family
    severity: Severity  # the usual one: a check may report a kind at another severity when it knows less
    page: str  # docs page and anchor that explain it
    stale: bool = False  # a warning or error of this kind makes its memory "stale"


def _kinds(family: Family, severity: Severity, page: str, names: str, stale: bool = False) -> list[Kind]:
    return [Kind(name, family, severity, page, stale) for name in names.split()]


_BAD_INPUT = "formats.md#bad-input"
_STALE = "staleness.md#finding-kinds"

KINDS: dict[str, Kind] = {kind.name: kind for kind in [
    *_kinds(Family.schema, Severity.error, _BAD_INPUT,
            "invalid-json invalid-entry invalid-mif missing-field ref-outside-root file-outside-root file-too-large"
            " binary-file not-utf8 not-a-file unreadable-file invalid-store"),
    *_kinds(Family.schema, Severity.warning, _BAD_INPUT, "invalid-field invalid-ref duplicate-id invalid-config invalid-suppression"),
    *_kinds(Family.journal, Severity.warning, _BAD_INPUT, "invalid-journal-record untrusted-batch-marker"),
    *_kinds(Family.staleness, Severity.error, _STALE,
            "stale-path moved-path stale-symbol stale-script stale-make-target stale-just-recipe stale-task stale-tox-env"
            " stale-console-script stale-extra stale-dependency-group"
            " stale-module stale-package-manager stale-crate stale-env stale-tool stale-package stale-version stale-dependency",
            stale=True),
    *_kinds(Family.staleness, Severity.warning, _STALE,
            "missing-path changed-since-verified stale-value marked-stale llm-stale",
            stale=True),
    *_kinds(Family.staleness, Severity.info, _STALE,
            "unresolved-path unresolved-symbol unresolved-script unresolved-make-target unresolved-just-recipe"
            " unresolved-task unresolved-tox-env unresolved-console-script unresolved-extra unresolved-dependency-group unresolved-module unresolved-crate"),
    *_kinds(Family.history, Severity.warning, _STALE, "history-unavailable"),
    Kind("missing-anchor", Family.staleness, Severity.warning, _STALE),
    Kind("duplicate", Family.duplication, Severity.warning, "compaction.md#dedup"),
    Kind("near-duplicate", Family.duplication, Severity.info, "compaction.md#merge"),
    Kind("contradiction", Family.conflict, Severity.warning, "compaction.md#conflicts"),
    *_kinds(Family.links, Severity.warning, "compaction.md#supersede", "dangling-supersedes supersession-cycle"),
    Kind("dangling-link", Family.links, Severity.error, "compaction.md#links-that-lead-nowhere"),
    Kind("orphaned-merge", Family.links, Severity.warning, "compaction.md#links-that-lead-nowhere"),
    Kind("link-cycle", Family.links, Severity.error, "compaction.md#links-that-lead-nowhere"),
    Kind("verbose-entry", Family.size, Severity.info, "compaction.md#compress"),
    *_kinds(Family.loading, Severity.warning, "agents.md#findings",
            "rule-never-loads past-cap broken-import import-cycle invalid-front-matter unread-field"),
    Kind("never-loaded", Family.loading, Severity.info, "agents.md#findings"),
]}


def kind_of(name: str) -> Kind:
    """The registered kind (an unknown name is a schema problem explained with bad input)."""
    return KINDS.get(name) or Kind(name, Family.schema, Severity.warning, _BAD_INPUT)


def is_stale(name: str) -> bool:
    return kind_of(name).stale


def docs_home() -> str | None:
    """Where the docs are when no published address is configured: the copy shipped inside the
    installed package (``lorekeeper/docs``, put there by the build), else the ``docs`` folder of the
    source tree this runs from (a development install). ``None`` when neither exists."""
    package = Path(__file__).resolve().parents[1]  # lorekeeper/
    for folder in (package / "docs", package.parents[1] / "docs"):
        if (folder / "staleness.md").is_file():
            return folder.as_uri() + "/"
    return None


def docs_url(name: str, base: str | None = None) -> str | None:
    """The page and anchor that explain a finding kind: under ``base`` (a published docs address, the
    ``docsUrl`` setting) when given, else under :func:`docs_home`."""
    base = base or docs_home()
    if not base:
        return None
    return base.rstrip("/") + "/" + kind_of(name).page
