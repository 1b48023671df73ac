"""The semantic rule of compaction (``lore compact --semantic``, config ``semanticDedup``): entries that
state one fact in other words become one, across categories and formats.

Candidates are nearest neighbours by cosine (:func:`.vectors.neighbours`); :func:`.guard.vouch` decides
each pair, the verifier first. The keeper is the text that says more (the newer when both say as much);
it gains the other's references and tags, and the other gets ``merged_into`` it, as in stage 1. An
instruction-file bullet is never edited: an entry merges into it only when the bullet says at least as
much; otherwise both stay."""

from __future__ import annotations

import json
from collections.abc import Callable, Generator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from .. import cache as cache_files
from ..compaction import remembered, verify, vocabulary
from ..compaction.config import CompactionConfig
from ..compaction.verify import compatible, fact_keys, fact_size
from ..model import Entry
from ..store import Store
from ..workspace import Workspace
from . import guard
from .embed import load_embedder
from .guard import SUBSUMED_MARGIN, Vouch, vouch
from .vectors import neighbours, vectors_for

if TYPE_CHECKING:
    from ..compaction.rules import Planner


def candidates(planner: Planner) -> list[tuple[Entry, Entry, float]]:
    """Pairs of available entries (older, newer, cosine) close enough for the guard to look at."""
    config = planner.config
    conflicted = planner.conflicted()
    pool = [e for e in planner.available(writable_only=False) if e.id not in conflicted]
    if len(pool) < 2 or planner.ws is None:
        return []
    model = config.semantic_model
    vectors = vectors_for(planner.ws, [e.content for e in pool], f"st:{model}", lambda: load_embedder(model))
    out: list[tuple[Entry, Entry, float]] = []
    for i, j, cosine in neighbours(vectors, max(0.0, config.semantic_threshold - SUBSUMED_MARGIN)):
        a, b = pool[i], pool[j]
        older, newer = (a, b) if (a.created or 0, a.id) <= (b.created or 0, b.id) else (b, a)  # pyright: ignore[reportOperatorIssue]
        out.append((older, newer, cosine))
    return out


def semantic_merge(planner: Planner) -> None:
    """Merge the pairs the guard vouches for (most similar first)."""
    keepers: set[str] = set()
    if planner.ws is None:
        return
    with remembered_vouches(planner.ws, planner.config) as judge:
        _merge_pairs(planner, judge, keepers)


def _merge_pairs(planner: Planner, judge: Callable[[str, str, float], Vouch], keepers: set[str]) -> None:
    for older, newer, cosine in candidates(planner):
        if older.id in planner.consumed or newer.id in planner.consumed:
            continue
        if newer.id in older.coexists_with or older.id in newer.coexists_with:
            continue
        if older.format == "instruction" and newer.format == "instruction":
            continue
        verdict = judge(older.content, newer.content, cosine)
        if not verdict.ok:
            continue
        if verdict.keeper == "a":
            keeper = older
        elif verdict.keeper == "b":
            keeper = newer
        else:
            keeper = older if fact_size(older.content) > fact_size(newer.content) else newer
        instruction = next((e for e in (older, newer) if e.format == "instruction"), None)
        if instruction is not None and keeper is not instruction:
            if verdict.keeper:
                continue  # the entry says more than the bullet: merging it would lose that
            keeper = instruction
        other = newer if keeper is older else older
        if other.id in keepers or not planner.writable(other):
            continue
        keepers.add(keeper.id)
        planner.emit_merge("semantic", keeper, [other],
                           f"states the same fact as {keeper.id} in other words ({verdict.reason}): "
                           f"{' '.join(keeper.content.split())[:80]}")


VOUCH_FILE = "vouches.json"


@cache
def _guard_version() -> str:
    import hashlib

    digest = hashlib.blake2b(remembered.rules_version().encode(), digest_size=12)
    for module in (guard, verify, vocabulary):
        try:
            digest.update(Path(module.__file__ or "").read_bytes())
        except OSError:
            digest.update(repr(id(module)).encode())
    return digest.hexdigest()


def _stored_pairs(data: Any, version: str) -> dict[str, Vouch]:
    """The verdicts of a cache file written under ``version``; anything malformed is left out."""
    if not isinstance(data, dict):
        return {}
    table = cast(dict[str, Any], data)
    pairs: object = table.get("pairs")
    if table.get("version") != version or not isinstance(pairs, dict):
        return {}
    out: dict[str, Vouch] = {}
    for key, raw in cast(dict[str, Any], pairs).items():
        if isinstance(raw, list) and len(cast(list[Any], raw)) == 3:
            ok, reason, keeper = cast(list[Any], raw)
            if isinstance(ok, bool) and isinstance(reason, str) and keeper in ("", "a", "b"):
                out[key] = Vouch(ok, reason, cast(str, keeper))
    return out


@contextmanager
def remembered_vouches(ws: Workspace, config: CompactionConfig) -> Generator[Callable[[str, str, float], Vouch]]:
    """The guard's verdicts of earlier runs, by the pair's texts and cosine (deterministic: vectors are
    read from the cache), under a key that changes with the guard's and the verifier's source, the model
    and the threshold; what this run decides is kept for the next. A warm plan reads no text."""
    version = f"{_guard_version()}|{config.semantic_model}|{config.semantic_threshold}"
    stored = _stored_pairs(cache_files.read_json(ws.root, ws.cache_dir, VOUCH_FILE), version)
    used: dict[str, Any] = {}

    def judge(a: str, b: str, cosine: float) -> Vouch:
        key = f"{remembered.text_key(a)}{remembered.text_key(b)}{cosine:.4f}"
        raw = stored.get(key)
        if raw is not None:
            used[key] = [raw.ok, raw.reason, raw.keeper]
            return raw
        verdict = vouch(a, b, cosine, config.semantic_threshold)
        used[key] = [verdict.ok, verdict.reason, verdict.keeper]
        return verdict

    yield judge
    if used.keys() != stored.keys():
        body = json.dumps({"version": version, "pairs": used}, separators=(",", ":"), ensure_ascii=False)
        cache_files.write(ws.root, ws.cache_dir, VOUCH_FILE, body.encode("utf-8", "surrogatepass"))


def likely_duplicates(store: Store, entry: Entry, config: CompactionConfig) -> list[tuple[Entry, str]]:
    """Live entries of any format that state ``entry``'s fact (the verifier's keys), and, with the
    semantic stage on, those the guard vouches for among its nearest neighbours: what ``lore add``
    warns about. Nothing is merged here."""
    others = [e for e in store.entries if e.live and e.id != entry.id]
    keys = set(fact_keys(entry.content))
    found = [(e, "states the same fact") for e in others
             if keys & set(fact_keys(e.content)) and compatible(e.content, entry.content)]
    if not config.semantic_dedup or not others:
        return found
    seen = {e.id for e, _ in found}
    model = config.semantic_model
    vectors = vectors_for(store.ws, [entry.content, *(e.content for e in others)], f"st:{model}",
                          lambda: load_embedder(model))
    cosines = vectors[1:] @ vectors[0]
    floor = max(0.0, config.semantic_threshold - SUBSUMED_MARGIN)
    nearest: list[int] = cosines.argsort()[::-1][:8].tolist()
    for index in nearest:
        other, cosine = others[index], float(cosines[index])
        if cosine < floor or other.id in seen:
            continue
        verdict = vouch(other.content, entry.content, cosine, config.semantic_threshold)
        if verdict.ok:
            found.append((other, f"states the same fact in other words ({verdict.reason})"))
    return found
