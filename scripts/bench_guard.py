"""The faithfulness guard on labelled model answers (tests/data/llm/*.jsonl): how many faithful answers it
lets stand (a guard that refuses them makes the LLM stage useless) and how many unfaithful ones it refuses
(one it lets through loses or invents a fact). Each line: {"op": "fuse"|"summary", "case", "sources",
"answer", "faithful", "note"}. guard.jsonl is the set the guard was tuned on; guard-heldout.jsonl, written
independently, is the one that says whether the tuning generalises.

    ./scripts/bench --only guard [-v]
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from lorekeeper.analysis.llm.guard import check, check_summary

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "llm"
SUMMARY_CHARS = 500  # CompactionConfig.summary_chars


def judge(row: dict[str, Any]) -> tuple[bool, str]:
    if row["op"] == "fuse":
        verdict = check(row["answer"], row["sources"])
    else:
        verdict = check_summary(" ".join(row["answer"].split()), row["sources"], SUMMARY_CHARS)
    return verdict.ok, verdict.reason


def measure(path: Path, verbose: bool) -> dict[str, dict[str, int]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    stats: dict[str, dict[str, int]] = defaultdict(lambda: {"faithful": 0, "accepted": 0, "unfaithful": 0, "refused": 0})
    for row in rows:
        ok, reason = judge(row)
        s = stats[row["op"]]
        if row["faithful"]:
            s["faithful"] += 1
            s["accepted"] += ok
            if not ok and verbose:
                print(f"    false rejection {row.get('case', '')}: {reason}")
        else:
            s["unfaithful"] += 1
            s["refused"] += not ok
            if ok and verbose:
                print(f"    FALSE ACCEPTANCE {row.get('case', '')}: {row['note']}")
    return dict(stats)


def bench_guard(verbose: bool = False) -> None:
    print("faithfulness guard on labelled model answers")
    print(f"{'set':>14} {'op':>8} {'faithful accepted':>18} {'unfaithful refused':>19}")
    for path in sorted(DATA.glob("guard*.jsonl")):
        for op, s in sorted(measure(path, verbose).items()):
            print(f"{path.stem:>14} {op:>8} {s['accepted']:>8}/{s['faithful']:<3} ({100 * s['accepted'] / max(1, s['faithful']):3.0f}%)"
                  f" {s['refused']:>8}/{s['unfaithful']:<3} ({100 * s['refused'] / max(1, s['unfaithful']):3.0f}%)")
