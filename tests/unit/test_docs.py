"""The docs links the editor shows next to each diagnostic lead to a heading that exists."""

from __future__ import annotations

import re
from pathlib import Path

from lorekeeper.lsp.diagnostics import _PAGES, docs_href

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _anchors(page: str) -> set[str]:
    """GitHub's anchors for the headings of a Markdown page."""
    out = set()
    for line in (DOCS / page).read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            out.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return out


def test_every_finding_kind_links_to_a_heading_that_exists() -> None:
    kinds = set(_PAGES) | {"stale-path", "moved-path", "unresolved-symbol", "changed-since-verified", "invalid-json"}
    for kind in sorted(kinds):
        href = docs_href(kind)
        page, anchor = href.rsplit("/", 1)[1].split("#")
        assert anchor in _anchors(page), f"{kind}: {page}#{anchor} is not a heading"
