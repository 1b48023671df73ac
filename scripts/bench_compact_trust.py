"""Compaction you can trust, measured (run through scripts/bench --only trust):

- pairs: the labelled pairs of tests/data/compaction (duplicate, paraphrase, coexist, update): written
  per trap class (pairs.jsonl), quoted from public repositories' memory files (real_pairs.jsonl), and a
  held-out set written apart and never tuned on (heldout.jsonl), each pair planned as a two-entry store.
  Reported: how many of each label were merged (stage 1), how many were flagged as a conflict (updates
  by form: same sentence, restated, said outright), next to compaction-mcp's rule (word-set Jaccard >
  0.7 merges), and every miss. Targets: no coexisting pair merged or flagged, no update merged silently.
- stores: the realistic stores of tests/data/compaction/stores (written the way agents write, with the
  facts each must keep): tokens of the plain list of entries, of index.md and of compacted/ after
  compaction; current facts kept in compacted/; updates caught (an explicit supersedes or a conflict)
  and conflicts that are not updates (target: 0); old values stated as current in index.md, outside
  its "Not settled" section (target: 0).
- undo: the time to undo a compaction of a 5,000-entry store (one command, thousands of operations).
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
import time
from collections import Counter, defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from lorekeeper.analysis.compaction import CompactionConfig, apply_plan, plan_compaction
from lorekeeper.core import fence
from lorekeeper.facts import open_memory
from lorekeeper.infra.tokens import count_tokens
from lorekeeper.store import Journal
from lorekeeper.workspace import Workspace

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "compaction"
NOW = datetime(2026, 11, 1, tzinfo=UTC)


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
    plan = plan_compaction(open_memory(Workspace(root)), CompactionConfig().with_overrides(fuse=False), now=NOW)
    merged = any(op.op in ("dedup", "merge", "supersede") for op in plan.operations)
    conflict = any(c["kind"] == "contradiction" for c in plan.conflicts)
    return merged, conflict


_WORDS = re.compile(r"\w+")


def jaccard(a: str, b: str) -> float:
    x, y = set(_WORDS.findall(a.lower())), set(_WORDS.findall(b.lower()))
    return len(x & y) / len(x | y) if x | y else 1.0


def bench_pairs(path: Path = DATA / "pairs.jsonl", title: str = "written pairs") -> dict[str, Any]:
    pairs = load_pairs(path)
    root = Path(tempfile.mkdtemp(prefix="lore-pairs-"))
    rows: dict[str, Counter] = defaultdict(Counter)
    wrong: list[str] = []
    try:
        for pair in pairs:
            merged, conflict = judge_pair(pair, root / "ws")
            label = pair["label"]
            for row in (label, f"{label}:{pair['form']}" if pair.get("form") else None):
                if row:
                    rows[row]["pairs"] += 1
                    rows[row]["merged"] += merged
                    rows[row]["conflict"] += conflict
                    rows[row]["jaccard>0.7"] += jaccard(pair["a"], pair["b"]) > 0.7
            bad = ((label in ("coexist", "update") and merged) or (label == "coexist" and conflict)
                   or (label == "duplicate" and not merged) or (label == "update" and not conflict)
                   or (label == "paraphrase" and conflict))
            if bad:
                what = "merged" if merged else "a conflict" if conflict else "kept apart, no conflict"
                wrong.append(f"{pair['id']} {label} {what}: {pair['a'][:70]!r} / {pair['b'][:70]!r}")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"{title} ({path.relative_to(ROOT)}): {len(pairs)} labelled pairs "
          f"({', '.join(f'{n} {k}' for k, n in sorted(Counter(p['label'] for p in pairs).items()))})")
    print(f"  {'label':<24} {'pairs':>6} {'merged':>7} {'conflict':>9} {'jaccard>0.7 would merge':>24}")
    for label in sorted(rows, key=lambda k: (k.split(":")[0] not in ("duplicate",), k)):
        row = rows[label]
        print(f"  {label:<24} {row['pairs']:>6} {row['merged']:>7} {row['conflict']:>9} {row['jaccard>0.7']:>24}")

    def ratio(a: int, b: int) -> float | None:
        return round(a / b, 3) if b else None

    same = rows["duplicate"]["pairs"] + rows["paraphrase"]["pairs"]
    merged_same = rows["duplicate"]["merged"] + rows["paraphrase"]["merged"]
    merged_all = merged_same + rows["coexist"]["merged"] + rows["update"]["merged"]
    jac_same = rows["duplicate"]["jaccard>0.7"] + rows["paraphrase"]["jaccard>0.7"]
    jac_all = jac_same + rows["coexist"]["jaccard>0.7"] + rows["update"]["jaccard>0.7"]
    flagged = rows["update"]["conflict"] + rows["coexist"]["conflict"] + rows["paraphrase"]["conflict"] \
        + rows["duplicate"]["conflict"]
    summary = {
        "coexist_merged": rows["coexist"]["merged"], "update_merged": rows["update"]["merged"],
        "coexist_flagged": rows["coexist"]["conflict"],
        "update_recall": ratio(rows["update"]["conflict"], rows["update"]["pairs"]),
        "conflict_precision": ratio(rows["update"]["conflict"], flagged),
        "duplicate_recall": ratio(rows["duplicate"]["merged"], rows["duplicate"]["pairs"]),
        "paraphrase_recall_stage1": ratio(rows["paraphrase"]["merged"], rows["paraphrase"]["pairs"]),
        "merge_precision": ratio(merged_same, merged_all),
        "jaccard_precision": ratio(jac_same, jac_all), "jaccard_recall": ratio(jac_same, same),
    }
    print("  " + json.dumps(summary))
    for line in wrong:
        print(f"    miss: {line}")
    return summary


def bench_stores(folder: Path = DATA / "stores") -> dict[str, Any]:
    """Each realistic store compacted and applied; returns the totals over all stores."""
    totals: Counter = Counter()
    for path in sorted(folder.glob("*.json")):
        if path.name.endswith(".truth.json"):
            continue
        entries = json.loads(path.read_text(encoding="utf-8"))
        truth_path = path.with_name(path.stem + ".truth.json")
        truth = json.loads(truth_path.read_text(encoding="utf-8")) if truth_path.is_file() else {}
        root = Path(tempfile.mkdtemp(prefix="lore-store-"))
        try:
            _write(root, entries)
            store = open_memory(Workspace(root))
            plain = sum(count_tokens(e.content) for e in store.live())
            plan = plan_compaction(store, CompactionConfig(), now=NOW)
            apply_plan(plan, store, Journal(Workspace(root)))
            index = (root / ".lore/memory/index.md").read_text(encoding="utf-8")
            compacted = "".join(p.read_text(encoding="utf-8") for p in sorted((root / ".lore/memory/compacted").glob("*.md")))
            by_id = {e["id"]: e for e in entries}
            facts = [f for f in truth.get("facts", []) if f.get("current", True)]
            # A current fact is kept when one of the entries stating it is shown in compacted/.
            kept = sum(any(by_id.get(i) and _states(compacted, by_id[i]["content"]) for i in f.get("entries", []))
                       for f in facts)
            current_part = index.split("## Not settled")[0] + "\n".join(index.split("## Not settled")[1:]).partition("\n## ")[2] \
                if "## Not settled" in index else index
            updates = truth.get("superseded", [])
            stated = [u for u in updates if u["old"] in by_id and _states(current_part, by_id[u["old"]]["content"])]
            truth_pairs = {frozenset((u["old"], u["new"])) for u in updates}
            conflicts = [frozenset(c["entries"]) for c in plan.conflicts if c["kind"] == "contradiction"]
            superseded_ops = {s for op in plan.operations if op.op == "supersede" for s in op.sources}
            caught = [u for u in updates if u["old"] in superseded_ops
                      or any(u["old"] in c for c in conflicts)]
            false = [c for c in conflicts if c not in truth_pairs and not _same_update(c, updates)]
            counts = Counter(op.op for op in plan.operations)
            totals.update(entries=len(entries), plain=plain, index=count_tokens(index), compacted=count_tokens(compacted),
                          facts=len(facts), kept=kept, updates=len(updates), caught=len(caught), stated=len(stated),
                          conflicts=len(conflicts), false=len(false))
            print(f"store {path.stem}: {len(entries)} entries; plain list {plain} tokens; index.md "
                  f"{count_tokens(index)} (budget {CompactionConfig().budget}); compacted/ {count_tokens(compacted)}; "
                  f"current facts in compacted/ {kept}/{len(facts)}; updates caught (superseded or a conflict) "
                  f"{len(caught)}/{len(updates)}; old values stated as current in index.md {len(stated)}; conflicts "
                  f"{len(conflicts)} ({len(false)} not an update); " + ", ".join(f"{n} {op}" for op, n in sorted(counts.items())))
            for u in updates:
                if u not in caught:
                    print(f"  missed update: {_cut(by_id[u['old']]['content'])} -> {_cut(by_id[u['new']]['content'])}")
            for c in false:
                a, b = sorted(c)
                print(f"  conflict, not an update: {_cut(by_id[a]['content'])} / {_cut(by_id[b]['content'])}")
        finally:
            shutil.rmtree(root, ignore_errors=True)
    return dict(totals)


def _same_update(pair: frozenset[str], updates: list[dict[str, Any]]) -> bool:
    """A conflict between two entries that the truth links through one update (an old entry and a copy
    of its replacement, or two old values of one chain)."""
    ids = set(pair)
    linked = [u for u in updates if u["old"] in ids or u["new"] in ids]
    chain = {i for u in linked for i in (u["old"], u["new"])}
    return ids <= chain


def _states(index: str, text: str) -> bool:
    """Whether a view states a memory's text, as views write it (quoted: core.fence)."""
    return " ".join(" ".join(fence.lines(text)).split()) in " ".join(index.split())


def _cut(text: str, n: int = 90) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= n else flat[: n - 1] + "…"


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
        store = open_memory(ws)
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
    print("targets: no coexisting pair merged or flagged, no update merged silently (flagged as many as can be);"
          " paraphrases are the semantic stage's")
    for name, title in (("pairs.jsonl", "written pairs, one per trap class"),
                        ("real_pairs.jsonl", "real pairs from public memory files"),
                        ("heldout.jsonl", "held-out pairs (written apart; first measured before the rules saw them)")):
        if (DATA / name).is_file():
            bench_pairs(DATA / name, title)
    if (DATA / "stores").is_dir():
        bench_stores()
    bench_undo()
