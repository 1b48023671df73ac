"""Candidate pairs for a pairwise judgement over many texts: each item meets only the items that share
one of its rarer keys (words, names, commands), so that thousands of items cost a few comparisons each,
not one with every other.

Invariant: pure function of the keys it is given (no I/O)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence, Set

#: How an item orders its keys: by (key, how many items hold it), smallest first.
Rank = Callable[[str, int], tuple[int, int]]


def rarest(key: str, held: int) -> tuple[int, int]:
    """The default order: the key fewest items hold first."""
    return (0, held)


def rare_key_pairs(keys: Sequence[Set[str]], cap: int, per_item: int, rank: Rank = rarest,
                   min_postings: int = 1) -> Iterator[tuple[int, int]]:
    """Each pair ``(i, j)``, ``i < j``, once, of items that share a key held by at most ``cap`` items
    (a key many hold says nothing of which belong together) and by at least ``min_postings``. Each item
    looks at its ``per_item`` first keys by ``rank(key, how many hold it)`` (default: :func:`rarest`)."""
    postings: dict[str, list[int]] = {}
    for i, mine in enumerate(keys):
        for key in mine:
            postings.setdefault(key, []).append(i)
    seen: set[tuple[int, int]] = set()
    for i, mine in enumerate(keys):
        chosen = sorted((k for k in mine if min_postings <= len(postings[k]) <= cap),
                        key=lambda k: (rank(k, len(postings[k])), k))[:per_item]
        for key in chosen:
            for j in postings[key]:
                pair = (min(i, j), max(i, j))
                if i == j or pair in seen:
                    continue
                seen.add(pair)
                yield pair
