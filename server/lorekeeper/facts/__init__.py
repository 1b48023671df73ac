"""The one judge of "same fact" and "same subject": the verifier's parse of a memory into its literals
(:mod:`.verify`), updates written in other words (:mod:`.updates`), the roles of named tools
(:mod:`.vocabulary`), and the guard that decides when an embedding may vouch for two texts
(:mod:`.semantic_guard`). Every stage that merges, fuses or calls two memories a conflict asks here, and
so does the store, through :data:`JUDGE` (:func:`open_memory`).

Invariant: pure functions of text (with caches of their answers); never reads the code."""

from __future__ import annotations

from ..store import Store
from ..workspace import Workspace
from . import verify


class _Judge:
    """The verifier as the store's :class:`~lorekeeper.store.FactJudge`."""

    @staticmethod
    def same_fact(a: str, b: str) -> bool:
        return verify.same_fact(a, b)

    @staticmethod
    def fact_key(text: str) -> str:
        return verify.fact_key(text)


JUDGE = _Judge()


def open_memory(ws: Workspace, dates: bool = True) -> Store:
    """The store as every feature reads it: recovered, loaded, with the verifier as its judge (an entry
    merged into an instruction bullet that no longer states its fact is live again; ``add`` knows the same
    fact written again). ``dates=False``: see :attr:`Store.dates`."""
    return Store.open(ws, judge=JUDGE, dates=dates)
