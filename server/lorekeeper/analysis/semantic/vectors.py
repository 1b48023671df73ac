"""Vectors by content hash and model, cached in ``.lore/cache/vectors-<model>.npz`` (git-ignored), and
nearest neighbours among them.

A warm run reads the cache (numpy only) and embeds nothing, so torch is never imported. The file holds
the hashes of the texts (blake2b) and their vectors as float16 (half the size; cosines move by < 1e-3);
entries whose text changed get a new hash and a new vector. Callers ask for different texts (the
entries, the instruction lines, their sentences), so a rewrite keeps the vectors of texts not asked for
that time too, until the file would hold more than :data:`KEEP` vectors or twice the texts asked for;
then only those asked for stay."""

from __future__ import annotations

import hashlib
import io
import logging
import re
import threading
import zipfile
from collections.abc import Callable, Generator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import numpy as np

from ...infra import cache as cache_files
from ...workspace import Workspace

if TYPE_CHECKING:
    from .embed import Embedder

log = logging.getLogger("lorekeeper")

_LIMIT = 1024 * 1024 * 1024  # 120k vectors of 384 dimensions are 92 MB
#: Vectors a cache file keeps of texts not asked for by the call that rewrites it (15 MB at 384
#: dimensions); above this (or twice the texts asked for), only those asked for are kept.
KEEP = 20_000


def _file_name(model_id: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9]+", "-", model_id).strip("-")[:40]
    return f"vectors-{slug}-{hashlib.blake2b(model_id.encode(), digest_size=4).hexdigest()}.npz"


def text_hash(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def _archive(ws: Workspace, name: str) -> io.BytesIO:
    """A cache archive's bytes, refused unless every member is stored uncompressed (as we write them):
    a crafted archive cannot expand past the file's own size, nor hold a pickle (``allow_pickle`` is off)."""
    raw = cache_files.read(ws.root, ws.cache_dir, name, _LIMIT)
    with zipfile.ZipFile(io.BytesIO(raw)) as archive:
        for member in archive.infolist():
            if member.compress_type != zipfile.ZIP_STORED or member.file_size > len(raw):
                raise ValueError(f"{name}: member {member.filename} is compressed or larger than the archive")
    return io.BytesIO(raw)


def _read(ws: Workspace, name: str, model_id: str) -> dict[bytes, np.ndarray]:
    if not cache_files.usable(ws.root, ws.cache_dir):
        return {}
    try:
        with np.load(_archive(ws, name), allow_pickle=False) as data:
            if str(data["model"]) != model_id:
                return {}
            keys, vectors = data["keys"], data["vectors"]
            if keys.ndim != 2 or keys.shape[1] != 16 or vectors.ndim != 2 or len(keys) != len(vectors):
                return {}
            return {bytes(k): v for k, v in zip(keys, vectors, strict=True)}
    except (OSError, ValueError, KeyError, EOFError) as exc:
        if not isinstance(exc, FileNotFoundError):
            log.warning("vector cache %s ignored: %s", name, exc)
        return {}
    except Exception as exc:  # noqa: BLE001 - a damaged zip raises zipfile.BadZipFile and friends
        log.warning("vector cache %s ignored: %s", name, exc)
        return {}


def _write(ws: Workspace, name: str, model_id: str, vectors: dict[bytes, np.ndarray]) -> None:
    keys = np.frombuffer(b"".join(vectors), dtype=np.uint8).reshape(len(vectors), 16) if vectors \
        else np.zeros((0, 16), dtype=np.uint8)
    matrix = np.stack(list(vectors.values())).astype(np.float16) if vectors else np.zeros((0, 0), dtype=np.float16)
    buffer = io.BytesIO()
    np.savez(buffer, keys=keys, vectors=matrix, model=np.array(model_id))
    cache_files.write(ws.root, ws.cache_dir, name, buffer.getvalue())


class VectorsPending(Exception):
    """Texts have no cached vector, and the thread is :func:`cached_only`: the model is not to be loaded
    now. The caller leaves out what needs them; the one who asked for cached vectors only looks again."""


class Pending:
    """What :func:`cached_only` saw: ``texts``, the hashes of the texts that had no cached vector (none:
    every vector was in the cache, so what was found is all there is to find)."""

    def __init__(self) -> None:
        self.texts: set[bytes] = set()


_only_cached = threading.local()


@contextmanager
def cached_only() -> Generator[Pending]:
    """Within this (in this thread), :func:`vectors_for` embeds nothing: where a text has no cached
    vector it raises :class:`VectorsPending` instead of loading the model. The language server's first
    check shows what needs no model first, then looks again with it."""
    pending = Pending()
    outer = getattr(_only_cached, "pending", None)
    _only_cached.pending = pending
    try:
        yield pending
    finally:
        _only_cached.pending = outer


def cached_vectors(ws: Workspace, texts: list[str], model_id: str) -> tuple[list[int], np.ndarray]:
    """The ``texts`` that have a cached vector (their indexes) and those vectors (rows in that order): never
    loads the model. For a reader that must not wait for it (`lore context`, MCP recall), while the
    commands that embed (`lore compact`, the editor's check, `lore add`) fill the cache."""
    cached = _read(ws, _file_name(model_id), model_id)
    hashes = [text_hash(t) for t in texts]
    held = [i for i, h in enumerate(hashes) if h in cached]
    if not held:
        return [], np.zeros((0, 0), dtype=np.float32)
    return held, np.stack([cached[hashes[i]] for i in held]).astype(np.float32)


def vectors_for(ws: Workspace, texts: list[str], model_id: str, load: Callable[[], Embedder]) -> np.ndarray:
    """Unit vectors of ``texts`` (rows in order, float32), from the cache where it has them; the rest
    are embedded and the cache rewritten. ``load`` builds the model; it is called only when a text has
    no cached vector, so a warm run never imports torch (within :func:`cached_only`, never: the texts
    are counted and :class:`VectorsPending` raised)."""
    name = _file_name(model_id)
    cached = _read(ws, name, model_id)
    hashes = [text_hash(t) for t in texts]
    missing = list(dict.fromkeys(h for h in hashes if h not in cached))
    pending: Pending | None = getattr(_only_cached, "pending", None)
    if missing and pending is not None:
        pending.texts.update(missing)
        raise VectorsPending(f"{len(missing)} texts have no cached vector")
    if missing:
        by_hash = dict(zip(hashes, texts, strict=True))
        # Rounded as the cache stores them, so a cold run and a warm one see the same cosines (a plan
        # previewed cold is the plan applied warm).
        fresh = load().embed([by_hash[h] for h in missing]).astype(np.float16)
        cached.update(zip(missing, fresh, strict=True))
        live = set(hashes)
        _write(ws, name, model_id, cached if len(cached) <= max(KEEP, 2 * len(live))
               else {h: v for h, v in cached.items() if h in live})
        log.info("embedded %d texts (%d from the cache)", len(missing), len(set(hashes)) - len(missing))
    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    return np.stack([cached[h] for h in hashes]).astype(np.float32)


def neighbours(vectors: np.ndarray, threshold: float, k: int = 8, block: int = 1024) -> list[tuple[int, int, float]]:
    """Pairs ``(i, j, cosine)`` with ``i < j`` where ``j`` is among the ``k + 1`` most similar of ``i`` (or
    the reverse) and the cosine is at least ``threshold``: blocked matrix products (1,024 rows at a time),
    never a Python loop over all pairs; only the few scores over the threshold are sorted."""
    n = len(vectors)
    if n < 2:
        return []
    found: dict[tuple[int, int], float] = {}
    transposed = vectors.T
    for start in range(0, n, block):
        sims = vectors[start:start + block] @ transposed
        rows = np.arange(sims.shape[0], dtype=np.intp)
        sims[rows, rows + start] = -1.0  # not its own neighbour
        hit_rows, hit_cols = np.nonzero(sims >= threshold)
        if not len(hit_rows):
            continue
        scores = sims[hit_rows, hit_cols]
        order = np.lexsort((-scores, hit_rows))  # by row, best first
        hit_rows, hit_cols, scores = hit_rows[order], hit_cols[order], scores[order]
        rank = np.arange(len(hit_rows)) - np.searchsorted(hit_rows, hit_rows, side="left")
        keep = rank <= k
        for row, col, score in zip((hit_rows[keep] + start).tolist(), hit_cols[keep].tolist(),
                                   scores[keep].tolist(), strict=True):
            found[(min(row, col), max(row, col))] = score
    return sorted(((i, j, s) for (i, j), s in found.items()), key=lambda x: (-x[2], x[0], x[1]))


def cached_neighbours(ws: Workspace, model_id: str, texts: list[str], vectors: np.ndarray, threshold: float,
                      k: int = 8, use: str = "neighbours") -> list[tuple[int, int, float]]:
    """:func:`neighbours`, kept in ``.lore/cache`` for the same texts in the same order (a warm plan of
    an unchanged memory skips the products); any change of text, order, model, threshold or ``k``
    computes them again. ``use``: the cache file's name, one per use (the merges' candidates, the
    renderings' nearest pairs), so that each keeps its own."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{model_id}|{threshold!r}|{k}|{len(texts)}".encode())
    for text in texts:
        digest.update(text_hash(text))
    key = digest.hexdigest()
    name = f"{use}-" + _file_name(model_id).removeprefix("vectors-")
    if cache_files.usable(ws.root, ws.cache_dir):
        try:
            with np.load(_archive(ws, name), allow_pickle=False) as data:
                if str(data["key"]) == key:
                    rows, cols, scores = data["i"].tolist(), data["j"].tolist(), data["score"].tolist()
                    return list(zip(rows, cols, scores, strict=True))
        except Exception:  # noqa: BLE001 - missing, damaged or foreign: compute them again
            pass
    found = neighbours(vectors, threshold, k)
    buffer = io.BytesIO()
    np.savez(buffer, key=np.array(key), i=np.array([p[0] for p in found], dtype=np.int64),
             j=np.array([p[1] for p in found], dtype=np.int64), score=np.array([p[2] for p in found], dtype=np.float64))
    cache_files.write(ws.root, ws.cache_dir, name, buffer.getvalue())
    return found
