"""The semantic stage, measured (run through scripts/bench --only semantic):

- pairs: every labelled pair of tests/data/compaction (written per trap class, quoted from public
  repositories' memory files, and the held-out set never tuned on), each planned as a two-entry store,
  once with stage 1 alone and once with ``--semantic``, next to compaction-mcp's rule (word-set Jaccard
  > 0.7 merges). "Same" pairs are duplicates and paraphrases; a merge of a coexist or update pair is
  wrong. Targets: no coexisting pair merged, paraphrase recall >= 0.8.
- timing: ``lore compact --semantic --dry-run --json`` on generated stores of 1k and 10k entries, cold
  (``.lore/cache`` deleted: every text embedded) and warm (nothing changed: no model, no torch), with
  each run's peak RSS. Target: warm 10k within 3 s on 2 cores.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_store  # noqa: E402
from bench_compact_trust import DATA, NOW, _write, jaccard, load_pairs  # noqa: E402
from lorekeeper.analysis.compaction import CompactionConfig, plan_compaction  # noqa: E402
from lorekeeper.core.settings.compaction import DEFAULT_MODEL, MODEL_ENV  # noqa: E402
from lorekeeper.facts import open_memory
from lorekeeper.workspace import Workspace  # noqa: E402

LORE = Path(sys.executable).parent / "lore"
SETS = [("pairs.jsonl", "written pairs"), ("real_pairs.jsonl", "real pairs"), ("heldout.jsonl", "held-out pairs"),
        ("heldout2.jsonl", "real held-out pairs (six repositories' instruction files and history, written blind)"),
        ("heldout3.jsonl", "real held-out pairs (seventeen more repositories, written blind)"),
        ("heldout4.jsonl", "real held-out pairs (thirteen more repositories, written blind)"),
        ("heldout5.jsonl", "real held-out pairs (twenty-eight more repositories, written blind)")]


def _merged(pair: dict[str, Any], root: Path, semantic: bool) -> bool:
    shutil.rmtree(root, ignore_errors=True)
    a = {"id": "a", "content": pair["a"], "created": "2026-01-01T00:00:00Z", **(pair.get("a_meta") or {})}
    b = {"id": "b", "content": pair["b"], "created": "2026-03-01T00:00:00Z", **(pair.get("b_meta") or {})}
    for side in (a, b):
        side.pop("supersedes", None)
    _write(root, [a, b])
    # (the model $LORE_SEMANTIC_MODEL names, as `lore` itself takes it: another model is measured so)
    config = CompactionConfig(semantic_model=os.environ.get(MODEL_ENV) or DEFAULT_MODEL).with_overrides(
        fuse=False, semantic_dedup=semantic or None)
    plan = plan_compaction(open_memory(Workspace(root)), config, now=NOW)
    return any(op.op in ("dedup", "merge", "semantic", "supersede") for op in plan.operations)


def _scores(rows: dict[str, Counter[str]], column: str) -> dict[str, Any]:
    same = rows["duplicate"]["pairs"] + rows["paraphrase"]["pairs"]
    right = rows["duplicate"][column] + rows["paraphrase"][column]
    wrong = rows["coexist"][column] + rows["update"][column]
    return {"precision": round(right / (right + wrong), 3) if right + wrong else None,
            "recall": round(right / same, 3) if same else None,
            "paraphrase_recall": round(rows["paraphrase"][column] / rows["paraphrase"]["pairs"], 3)
            if rows["paraphrase"]["pairs"] else None,
            "coexist_merged": rows["coexist"][column], "update_merged": rows["update"][column]}


def bench_semantic_pairs(verbose: bool = False) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix="lore-sem-pairs-"))
    total: dict[str, Counter[str]] = defaultdict(Counter)
    out: dict[str, Any] = {}
    try:
        for name, title in SETS:
            rows: dict[str, Counter[str]] = defaultdict(Counter)
            wrong: list[str] = []
            for pair in load_pairs(DATA / name):
                label = pair["label"]
                stage1 = _merged(pair, root / "ws", semantic=False)
                semantic = _merged(pair, root / "ws", semantic=True)
                jac = jaccard(pair["a"], pair["b"]) > 0.7
                for table in (rows, total):
                    table[label]["pairs"] += 1
                    table[label]["stage1"] += stage1
                    table[label]["semantic"] += semantic
                    table[label]["jaccard"] += jac
                if (label in ("coexist", "update")) == semantic:
                    what = "merged" if semantic else "kept apart"
                    wrong.append(f"{pair['id']} {label} {what}: {pair['a'][:70]!r} / {pair['b'][:70]!r}")
            out[title] = {column: _scores(rows, column) for column in ("stage1", "semantic", "jaccard")}
            print(f"{title} ({name}): {sum(r['pairs'] for r in rows.values())} pairs")
            print(f"  {'label':<12} {'pairs':>6} {'stage 1':>8} {'--semantic':>11} {'jaccard>0.7':>12}")
            for label in ("duplicate", "paraphrase", "coexist", "update"):
                row = rows[label]
                print(f"  {label:<12} {row['pairs']:>6} {row['stage1']:>8} {row['semantic']:>11} {row['jaccard']:>12}")
            if verbose:
                for line in wrong:
                    print(f"    {line}")
        out["all"] = {column: _scores(total, column) for column in ("stage1", "semantic", "jaccard")}
        print("semantic pairs: " + json.dumps(out["all"]))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return out


def _timed(cwd: Path) -> tuple[float, float]:
    """Seconds and peak RSS (MB) of one `lore compact --semantic --dry-run --json` in a fresh process."""
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", "import resource, sys\nfrom lorekeeper.surfaces.cli import main\n"
                           "try:\n    main()\nfinally:\n    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,"
                           " file=sys.stderr)", "compact", "--semantic", "--dry-run", "--json"],
                          cwd=cwd, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-2000:])
    rss = int(proc.stderr.strip().splitlines()[-1]) / 1024
    return elapsed, rss


def bench_semantic_timing(sizes: list[int]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    print(f"{'entries':>8} {'cold':>8} {'warm':>8} {'rss cold':>9} {'rss warm':>9}")
    for size in sizes:
        root = Path(tempfile.mkdtemp(prefix=f"lore-sem-{size}-"))
        try:
            bench_store.synthetic(root, size)
            shutil.rmtree(root / ".lore" / "cache", ignore_errors=True)
            cold, rss_cold = _timed(root)
            warm, rss_warm = min((_timed(root) for _ in range(2)), key=lambda t: t[0])
            out[str(size)] = {"cold_s": round(cold, 2), "warm_s": round(warm, 2), "rss_cold_mb": round(rss_cold),
                              "rss_warm_mb": round(rss_warm)}
            print(f"{size:>8} {cold:>7.2f}s {warm:>7.2f}s {rss_cold:>7.0f}MB {rss_warm:>7.0f}MB")
        finally:
            shutil.rmtree(root, ignore_errors=True)
    return out


def bench_semantic(sizes: list[int], verbose: bool = False) -> None:
    # Timing first: a child's peak RSS starts from what the parent holds when it forks, and the pairs
    # load the model into this process.
    plan = bench_semantic_timing(sizes)
    figures = {"pairs": bench_semantic_pairs(verbose)["all"], "plan": plan}
    print("semantic: " + json.dumps(figures))
