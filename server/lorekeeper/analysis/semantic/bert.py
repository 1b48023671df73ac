"""A BERT sentence encoder in numpy, for when a few texts need vectors and torch is not loaded yet.

Importing sentence-transformers (torch, transformers, scikit-learn) takes 7 s on these machines; a run
that finds three edited texts without a cached vector would spend that to embed them. This encoder reads
the same model folder (``model.safetensors``, ``tokenizer.json``, the sentence-transformers pooling
configuration) with numpy, safetensors and tokenizers, which load in 0.5 s, and computes the same
forward pass: token, position and type embeddings, the encoder layers (attention, exact GELU), the
pooling, the normalisation. Its vectors match sentence-transformers' within 1e-6, so they share one
cache; :class:`~.embed.SentenceTransformerEmbedder` chooses by the number of texts. Texts are batched
with texts of like lengths, so that padding (and attention over it) costs little: instruction lines
range from a few tokens to the model's 256.

Only what all-MiniLM-L6-v2 and models of its build use is supported (BERT, absolute positions, mean or
CLS pooling, a Normalize module); :func:`open_bert` returns ``None`` for any other folder."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger("lorekeeper")

_F = np.float32
#: Tokens in one batch at most (down to 8 texts): the attention scores of a batch of 64 texts of 256
#: tokens would take 200 MB.
_TOKENS_PER_BATCH = 8192
#: A batch's longest text is at most this many times as long as its shortest.
_PADDED_AT_MOST = 1.25


def _erf(x: np.ndarray) -> np.ndarray:
    """erf in float32 (Abramowitz and Stegun 7.1.26, absolute error under 1.5e-7)."""
    a = np.abs(x)
    t = 1.0 / (1.0 + _F(0.3275911) * a)
    poly = _F(1.061405429) * t - _F(1.453152027)
    for c in (1.421413741, -0.284496736, 0.254829592):
        poly *= t
        poly += _F(c)
    poly *= t
    np.negative(a, out=a)
    a *= np.abs(x)
    np.exp(a, out=a)
    poly *= a
    np.subtract(1.0, poly, out=poly)
    return np.copysign(poly, x, out=poly)


class NumpyBert:
    """A sentence-transformers BERT model (Transformer, Pooling, Normalize) evaluated with numpy."""

    def __init__(self, folder: Path, config: dict[str, Any], pooling: str, max_length: int, lowercase: bool = False) -> None:
        from safetensors.numpy import load_file  # pyright: ignore[reportUnknownVariableType]
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length)  # pyright: ignore[reportUnknownMemberType]
        self.tokenizer.no_padding()
        weights = {name.removeprefix("bert."): value.astype(_F) for name, value in load_file(str(folder / "model.safetensors")).items()}
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.pooling = pooling
        self.lowercase = lowercase
        self.bias = {name.removesuffix(".bias"): value for name, value in weights.items() if name.endswith(".bias")}
        self.gamma = {name.removesuffix(".weight"): value for name, value in weights.items() if "LayerNorm" in name and name.endswith(".weight")}
        self.matrix = {name.removesuffix(".weight"): np.ascontiguousarray(value.T) for name, value in weights.items()
                       if name.endswith(".weight") and value.ndim == 2 and not name.startswith("embeddings.")}
        self.words = weights["embeddings.word_embeddings.weight"]
        self.positions = weights["embeddings.position_embeddings.weight"]
        self.types = weights["embeddings.token_type_embeddings.weight"]
        self.layers = int(config["num_hidden_layers"])
        for i in range(self.layers):  # query, key and value in one product
            base = f"encoder.layer.{i}.attention.self."
            self.matrix[base + "qkv"] = np.concatenate([self.matrix.pop(base + n) for n in ("query", "key", "value")], axis=1)
            self.bias[base + "qkv"] = np.concatenate([self.bias.pop(base + n) for n in ("query", "key", "value")])

    def _norm(self, x: np.ndarray, name: str) -> np.ndarray:
        x = x - x.mean(-1, keepdims=True)
        x /= np.sqrt((x * x).mean(-1, keepdims=True) + _F(self.eps))
        x *= self.gamma[name]
        x += self.bias[name]
        return x

    def _dense(self, x: np.ndarray, name: str) -> np.ndarray:
        out = x @ self.matrix[name]
        out += self.bias[name]
        return out

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        batch, length = ids.shape
        hidden = self.words.shape[1]
        size = hidden // self.heads
        x = self.words[ids] + self.positions[:length][None] + self.types[0]
        x = self._norm(x.reshape(batch * length, hidden), "embeddings.LayerNorm")
        masked = (1.0 - mask[:, None, None, :].astype(_F)) * np.finfo(_F).min
        scale = _F(1.0 / np.sqrt(size))
        for i in range(self.layers):
            layer = f"encoder.layer.{i}."
            qkv = self._dense(x, layer + "attention.self.qkv").reshape(batch, length, 3, self.heads, size)
            q = np.ascontiguousarray(qkv[:, :, 0].transpose(0, 2, 1, 3))
            k = np.ascontiguousarray(qkv[:, :, 1].transpose(0, 2, 3, 1))
            v = np.ascontiguousarray(qkv[:, :, 2].transpose(0, 2, 1, 3))
            scores = q @ k
            scores *= scale
            scores += masked
            scores -= scores.max(-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(-1, keepdims=True)
            attended = (scores @ v).transpose(0, 2, 1, 3).reshape(batch * length, hidden)
            out = self._dense(attended, layer + "attention.output.dense")
            out += x
            x = self._norm(out, layer + "attention.output.LayerNorm")
            inner = self._dense(x, layer + "intermediate.dense")
            gelu = _erf(inner * _F(1.0 / np.sqrt(2.0)))
            gelu += 1.0
            gelu *= inner
            gelu *= _F(0.5)
            out = self._dense(gelu, layer + "output.dense")
            out += x
            x = self._norm(out, layer + "output.LayerNorm")
        x = x.reshape(batch, length, hidden)
        if self.pooling == "cls":
            pooled = x[:, 0]
        else:
            weights = mask[..., None].astype(_F)
            pooled = (x * weights).sum(1) / np.clip(weights.sum(1), 1e-9, None)
        return pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)  # unit vectors, always

    def embed(self, texts: list[str], batch_size: int = 64) -> np.ndarray:
        encoded = self.tokenizer.encode_batch([t.lower() for t in texts] if self.lowercase else texts)
        order = sorted(range(len(texts)), key=lambda i: -len(encoded[i].ids))  # like lengths batched together
        out = np.zeros((len(texts), self.words.shape[1]), dtype=_F)
        start = 0
        while start < len(order):
            longest = len(encoded[order[start]].ids)
            cap = start + max(8, min(batch_size, _TOKENS_PER_BATCH // max(longest, 1)))
            end = start + 1
            # texts of like lengths only: every text is padded to the batch's longest, and its attention
            # grows with the square of that (a text of 246 tokens with 32 of 20 cost 5x their own work)
            while end < min(cap, len(order)) and len(encoded[order[end]].ids) * _PADDED_AT_MOST >= longest:
                end += 1
            rows = order[start:end]
            start = end
            length = longest
            ids = np.zeros((len(rows), length), dtype=np.int64)
            mask = np.zeros((len(rows), length), dtype=np.int64)
            for r, i in enumerate(rows):
                n = len(encoded[i].ids)
                ids[r, :n] = encoded[i].ids
                mask[r, :n] = 1
            out[rows] = self._forward(ids, mask)
        return out


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def open_bert(folder: str | Path) -> NumpyBert | None:
    """The numpy encoder of a sentence-transformers model folder, or ``None`` when the folder is not a
    model of the supported build (or a library it needs is missing): the caller then uses
    sentence-transformers."""
    folder = Path(folder)
    try:
        modules = [m.get("type", "") for m in _json(folder / "modules.json")]
        config = _json(folder / "config.json")
        pool = _json(folder / "1_Pooling" / "config.json")
        sentence = _json(folder / "sentence_bert_config.json")
    except (OSError, ValueError, TypeError, AttributeError):
        return None
    kinds = [m.rsplit(".", 1)[-1] for m in modules]
    modes = [key for key, on in pool.items() if key.startswith("pooling_mode") and on]
    supported = (kinds in (["Transformer", "Pooling"], ["Transformer", "Pooling", "Normalize"])
                 and config.get("model_type") == "bert" and config.get("hidden_act") == "gelu"
                 and config.get("position_embedding_type", "absolute") == "absolute"
                 and modes in (["pooling_mode_mean_tokens"], ["pooling_mode_cls_token"])
                 and (folder / "model.safetensors").is_file() and (folder / "tokenizer.json").is_file())
    if not supported:
        return None
    try:
        return NumpyBert(folder, config, "cls" if modes == ["pooling_mode_cls_token"] else "mean",
                         int(sentence.get("max_seq_length", 256)), bool(sentence.get("do_lower_case")))
    except ImportError:
        return None
    except Exception as exc:  # noqa: BLE001 - a folder this encoder cannot read: sentence-transformers may
        log.info("numpy encoder not used for %s: %s", folder, exc)
        return None
