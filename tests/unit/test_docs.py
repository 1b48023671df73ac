"""The docs links the editor shows next to each diagnostic lead to a heading that exists, for every
kind in the registry; and every kind the engine can report is in the registry."""

from __future__ import annotations

import re
from pathlib import Path

from lorekeeper.core.kinds import KINDS, Family, docs_url, is_stale, kind_of

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"


def _anchors(page: str) -> set[str]:
    """GitHub's anchors for the headings of a Markdown page."""
    out = set()
    for line in (DOCS / page).read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            out.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return out


def test_every_registered_kind_links_to_a_heading_that_exists() -> None:
    for name in sorted(KINDS):
        href = docs_url(name)
        assert href is not None
        page, anchor = href.rsplit("/", 1)[1].split("#")
        assert anchor in _anchors(page), f"{name}: {page}#{anchor} is not a heading"


def test_a_configured_docs_address_is_used_instead_of_the_shipped_copy() -> None:
    assert docs_url("moved-path", "https://docs.example.org/lore/") == "https://docs.example.org/lore/staleness.md#finding-kinds"
    assert docs_url("duplicate", "https://docs.example.org/lore") == "https://docs.example.org/lore/compaction.md#dedup"
    shipped = docs_url("duplicate")
    assert shipped is not None and shipped.startswith("file://") and shipped.endswith("/compaction.md#dedup")


def _reported_kinds() -> set[str]:
    """Every kind literal the engine reports: ``kind="..."`` arguments, and the kind strings handed to
    the checker's ``add``/``finding`` helpers."""
    found: set[str] = set()
    for path in (REPO / "server" / "lorekeeper").rglob("*.py"):
        # numpy's sort kind is no finding; "unresolved-" + a stale kind's name is built (those are checked
        # by name below)
        text = "\n".join(line for line in path.read_text(encoding="utf-8").splitlines() if "argsort" not in line)
        found |= set(re.findall(r"\bkind=\"([a-z][a-z-]+)\"", text))
        found |= set(re.findall(r"\.(?:add|finding)\(\s*\w+,\s*\"([a-z][a-z-]+)\"", text))
        found |= set(re.findall(r"Finding\(\s*\"([a-z][a-z-]+)\"", text))
    return found


def test_every_kind_the_engine_reports_is_registered() -> None:
    reported = _reported_kinds()
    assert len(reported) > 20  # the scan itself works
    missing = sorted(k for k in reported if k not in KINDS and not k.endswith("-"))
    for suffix in ("script", "make-target", "just-recipe", "console-script"):  # built as "unresolved-" + ...
        assert f"unresolved-{suffix}" in KINDS
    assert not missing, f"finding kinds missing from lorekeeper.core.kinds.KINDS: {missing}"


def test_the_registry_says_what_is_stale() -> None:
    assert is_stale("stale-symbol") and is_stale("moved-path") and is_stale("changed-since-verified")
    assert not is_stale("unresolved-symbol") and not is_stale("duplicate") and not is_stale("invalid-json")
    assert kind_of("duplicate").family is Family.duplication
    assert kind_of("no-such-kind").family is Family.schema  # unknown: explained with bad input
