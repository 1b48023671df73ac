"""Search ranking on a small fixture: BM25 over content and tags, typos, word starts, identifiers."""

from __future__ import annotations

import random

import pytest

from lorekeeper.analysis.search import SearchIndex, max_edits
from lorekeeper.core.text import normalize, terms
from support import Tree

FACTS = {
    "pay": ("Charges go through StripeClient.create_charge with an idempotency key.", ["payments"]),
    "refund": ("Refunds use the payment intent id, never the charge id.", ["payments"]),
    "pnpm": ("Always use pnpm; npm and yarn break the lockfile.", ["tooling"]),
    "e2e": ("Run pnpm test:e2e before pushing; it needs docker.", ["testing"]),
    "log": ("Log with pino through src/lib/logger.ts, never console.log.", ["logging"]),
    "port": ("The API server listens on port 3000.", []),
    "money": ("Amounts are integer cents, never floats.", ["payments", "database"]),
    "deploy": ("Deploys run from main through GitHub Actions.", ["ci"]),
}


@pytest.fixture
def index(tree: Tree) -> SearchIndex:
    for key, (content, tags) in FACTS.items():
        tree.entry(f"{key}.json", {"id": key, "content": content, "tags": tags})
    return SearchIndex(tree.store().entries)


def ids(index: SearchIndex, query: str) -> list[str]:
    return [hit.entry.id for hit in index.search(query)]


def test_best_match_first(index: SearchIndex) -> None:
    assert ids(index, "stripe charge")[0] == "pay"
    assert ids(index, "refund payment intent")[0] == "refund"
    assert ids(index, "which port does the server listen on")[0] == "port"


def test_tags_count(index: SearchIndex) -> None:
    found = ids(index, "payments")
    assert set(found[:3]) == {"pay", "refund", "money"}  # the three tagged "payments"
    assert "ci" not in found and ids(index, "ci") == ["deploy"]


def test_typos_and_word_starts(index: SearchIndex) -> None:
    assert ids(index, "stirpe")[0] == "pay"  # transposition
    assert ids(index, "idempotncy")[0] == "pay"  # deletion
    assert ids(index, "deplo")[0] == "deploy"  # word start
    assert ids(index, "pnmp")[:2] == ids(index, "pnpm")[:2]
    assert set(ids(index, "pnmp")[:2]) == {"pnpm", "e2e"}


def test_identifiers_match_by_their_parts(index: SearchIndex) -> None:
    assert ids(index, "create_charge")[0] == "pay"
    assert ids(index, "StripeClient")[0] == "pay"
    assert ids(index, "logger")[0] == "log"


def test_no_match_is_empty(index: SearchIndex) -> None:
    assert index.search("kubernetes helm chart") == []
    assert SearchIndex([]).search("anything") == []


def test_scores_are_ordered_and_explain_matches(index: SearchIndex) -> None:
    hits = index.search("stripe chrage")
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert hits[0].entry.id == "pay" and "charge" in hits[0].matched and "stripe" in hits[0].matched


def test_max_edits_follows_auto_fuzziness() -> None:
    assert [max_edits(w) for w in ("ci", "pnpm", "charges", "idempotency")] == [0, 1, 1, 2]


def test_terms_and_normalize() -> None:
    assert {"stripeclient", "stripe", "client", "create_charge", "create", "charge"} <= set(terms("StripeClient.create_charge"))
    assert "the" not in terms("the port")
    assert normalize("Always use **pnpm**.") == normalize("always  use `pnpm`") == "always use pnpm"


def test_normalize_reads_ascii_text_as_it_reads_any_text() -> None:
    """ASCII text takes a faster path; a non-ASCII word added at the end sends the same text down the
    general one (NFKC, casefold, regular expressions), which must give the same words."""
    rng = random.Random(7)
    alphabet = "aZ09_ .,;:!?-`*~>#[]()|'\"\\/@$%^&+=<{}\t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x00\x7f"
    texts = ["Always use **pnpm**.", "snake_case_name", "  \x1c\x1d  ", "", "__init__.py: `x_y`", "A\x0bB\x0cC"]
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 40))) for _ in range(3000)]
    for text in texts:
        assert text.isascii()
        assert normalize(text + " é") == (normalize(text) + " é").strip(), repr(text)
