"""Compaction you can trust, measured (run through scripts/bench --only trust):

- pairs: the labelled pairs of tests/data/compaction/pairs.jsonl (duplicate, paraphrase, coexist,
  update), each planned as a two-entry store. Reported: how many of each label were merged (stage 1),
  how many were flagged as a conflict, next to compaction-mcp's rule (word-set Jaccard > 0.7 merges).
  Targets: no coexisting pair merged, no update merged silently.
- stores: the realistic stores of tests/data/compaction/stores (written the way agents write, with the
  facts each must keep): tokens of the plain list of entries, of index.md and of compacted/ after
  compaction; current facts kept in compacted/; superseded values stated in index.md (target: 0).
- undo: the time to undo a compaction of a 5,000-entry store (one command, thousands of operations).
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
import time
from collections import Counter, defaultdict
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from lorekeeper.compaction import CompactionConfig, apply_plan, plan_compaction
from lorekeeper.compaction.verify import fact_key
from lorekeeper.store import Journal, Store
from lorekeeper.tokens import count_tokens
from lorekeeper.workspace import Workspace

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "compaction"
NOW = datetime(2026, 11, 1, tzinfo=timezone.utc)


def load_pairs(path: Path = DATA / "pairs.jsonl") -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _write(root: Path, entries: list[dict[str, Any]]) -> None:
    folder = root / ".lore" / "memory" / "entries"
    folder.mkdir(parents=True, exist_ok=True)
    for entry in entries:
        (folder / f"{entry['id']}.json").write_text(json.dumps(entry, indent=2) + "\n", encoding="utf-8")


def judge_pair(pair: dict[str, Any], root: Path) -> tuple[bool, bool]:
    """(merged, flagged as a conflict) for one pair planned as a two-entry store."""
    shutil.rmtree(root, ignore_errors=True)
    a = {"id": "a", "content": pair["a"], "created": "2026-01-01T00:00:00Z", **(pair.get("a_meta") or {})}
    b = {"id": "b", "content": pair["b"], "created": "2026-03-01T00:00:00Z", **(pair.get("b_meta") or {})}
    for side in (a, b):
        side.pop("supersedes", None)  # an explicit supersedes decides by itself; the rules are measured here
    _write(root, [a, b])
    plan = plan_compaction(Store.open(Workspace(root)), CompactionConfig().with_overrides(fuse=False), now=NOW)
    merged = any(op.op in ("dedup", "merge", "supersede") for op in plan.operations)
    conflict = any(c["kind"] == "contradiction" for c in plan.conflicts)
    return merged, conflict


_WORDS = re.compile(r"\w+")


def jaccard(a: str, b: str) -> float:
    x, y = set(_WORDS.findall(a.lower())), set(_WORDS.findall(b.lower()))
    return len(x & y) / len(x | y) if x | y else 1.0


def bench_pairs() -> dict[str, Any]:
    pairs = load_pairs()
    root = Path(tempfile.mkdtemp(prefix="lore-pairs-"))
    rows: dict[str, Counter] = defaultdict(Counter)
    wrong: list[str] = []
    try:
        for pair in pairs:
            merged, conflict = judge_pair(pair, root / "ws")
            label = pair["label"]
            rows[label]["pairs"] += 1
            rows[label]["merged"] += merged
            rows[label]["conflict"] += conflict
            rows[label]["jaccard>0.7"] += jaccard(pair["a"], pair["b"]) > 0.7
            if (label in ("coexist", "update") and merged) or (label == "duplicate" and not merged):
                wrong.append(f"{pair['id']} {label}{' merged' if merged else ' kept apart'}: {pair['a'][:60]!r} / {pair['b'][:60]!r}")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"pairs: {len(pairs)} labelled pairs ({', '.join(f'{n} {k}' for k, n in sorted(Counter(p['label'] for p in pairs).items()))})")
    print(f"{'label':<11} {'pairs':>6} {'merged':>7} {'conflict':>9} {'jaccard>0.7 would merge':>24}")
    for label in ("duplicate", "paraphrase", "coexist", "update"):
        row = rows.get(label, Counter())
        print(f"{label:<11} {row['pairs']:>6} {row['merged']:>7} {row['conflict']:>9} {row['jaccard>0.7']:>24}")
    same = rows["duplicate"]["pairs"] + rows["paraphrase"]["pairs"]
    merged_same = rows["duplicate"]["merged"] + rows["paraphrase"]["merged"]
    merged_all = merged_same + rows["coexist"]["merged"] + rows["update"]["merged"]
    jac_same = rows["duplicate"]["jaccard>0.7"] + rows["paraphrase"]["jaccard>0.7"]
    jac_all = jac_same + rows["coexist"]["jaccard>0.7"] + rows["update"]["jaccard>0.7"]
    summary = {
        "coexist_merged": rows["coexist"]["merged"], "update_merged": rows["update"]["merged"],
        "coexist_flagged": rows["coexist"]["conflict"],
        "update_flagged": f"{rows['update']['conflict']}/{rows['update']['pairs']}",
        "duplicate_recall": round(rows["duplicate"]["merged"] / rows["duplicate"]["pairs"], 3) if rows["duplicate"]["pairs"] else None,
        "paraphrase_recall_stage1": round(rows["paraphrase"]["merged"] / rows["paraphrase"]["pairs"], 3) if rows["paraphrase"]["pairs"] else None,
        "merge_precision": round(merged_same / merged_all, 3) if merged_all else None,
        "jaccard_precision": round(jac_same / jac_all, 3) if jac_all else None,
        "jaccard_recall": round(jac_same / same, 3) if same else None,
    }
    print("pairs: " + json.dumps(summary))
    print("targets: no coexisting pair merged, no update merged silently; paraphrases are the semantic stage's")
    for line in wrong:
        print(f"  wrong: {line}")
    return summary


def bench_stores(folder: Path = DATA / "stores") -> None:
    for path in sorted(folder.glob("*.json")):
        if path.name.endswith(".truth.json"):
            continue
        entries = json.loads(path.read_text(encoding="utf-8"))
        truth_path = path.with_name(path.stem + ".truth.json")
        truth = json.loads(truth_path.read_text(encoding="utf-8")) if truth_path.is_file() else {}
        root = Path(tempfile.mkdtemp(prefix="lore-store-"))
        try:
            _write(root, entries)
            store = Store.open(Workspace(root))
            plain = sum(count_tokens(e.content) for e in store.live())
            plan = plan_compaction(store, CompactionConfig(), now=NOW)
            apply_plan(plan, store, Journal(Workspace(root)))
            index = (root / ".lore/memory/index.md").read_text(encoding="utf-8")
            compacted = "".join(p.read_text(encoding="utf-8") for p in sorted((root / ".lore/memory/compacted").glob("*.md")))
            after = Store.open(Workspace(root))
            live_keys = {fact_key(e.content) for e in after.live()}
            by_id = {e["id"]: e for e in entries}
            facts = truth.get("facts", [])
            # A fact is kept when one of the entries stating it is still live (or folded into a live
            # entry that lists it) and shown in compacted/.
            kept = sum(any(by_id.get(i) and by_id[i]["content"].strip() in compacted for i in f.get("entries", []))
                       for f in facts)
            stale_in_index = [s for s in truth.get("superseded", [])
                              if s.get("old") in by_id and _states(index, by_id[s["old"]]["content"])]
            counts = Counter(op.op for op in plan.operations)
            print(f"store {path.stem}: {len(entries)} entries; plain list {plain} tokens; index.md "
                  f"{count_tokens(index)} (budget {CompactionConfig().budget}); compacted/ {count_tokens(compacted)}; "
                  f"current facts in compacted/ {kept}/{len(facts)}; superseded values stated in index.md "
                  f"{len(stale_in_index)}; conflicts for review {len(plan.conflicts)}; "
                  + ", ".join(f"{n} {op}" for op, n in sorted(counts.items())))
            del live_keys
        finally:
            shutil.rmtree(root, ignore_errors=True)


def _states(index: str, text: str) -> bool:
    return " ".join(text.split()) in " ".join(index.split())


def bench_undo(size: int = 5000) -> float:
    """Compaction of a store where half the entries are duplicates, then ``undo --last`` timed."""
    root = Path(tempfile.mkdtemp(prefix="lore-undo-"))
    try:
        entries = []
        for i in range(size // 2):
            text = f"The service number {i} retries {i % 7 + 2} times before it gives up."
            entries.append({"id": f"a{i:05d}", "content": text, "created": (NOW - timedelta(days=10)).isoformat()})
            entries.append({"id": f"b{i:05d}", "content": text.upper(), "created": (NOW - timedelta(days=5)).isoformat()})
        _write(root, entries)
        ws = Workspace(root)
        store = Store.open(ws)
        plan = plan_compaction(store, CompactionConfig().with_overrides(fuse=False), now=NOW)
        start = time.perf_counter()
        records = apply_plan(plan, store, Journal(ws, command="compact"))
        applied = time.perf_counter() - start
        start = time.perf_counter()
        undo = Journal(Workspace(root)).undo_last()
        elapsed = time.perf_counter() - start
        assert undo is not None and len(undo.undone) == len(records)
        print(f"undo: a compaction of {size} entries ({len(records)} operations) applied in {applied:.1f} s, "
              f"undone in {elapsed:.1f} s (one pass over the journal, one operation)")
        return elapsed
    finally:
        shutil.rmtree(root, ignore_errors=True)


def bench_trust() -> None:
    if (DATA / "pairs.jsonl").is_file():
        bench_pairs()
    if (DATA / "stores").is_dir():
        bench_stores()
    bench_undo()
