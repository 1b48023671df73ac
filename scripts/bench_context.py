"""The context benchmark: a realistic 500-entry store, a focus on one file, and what `lore context` keeps.

The store mixes categories (conventions, decisions, patterns, pitfalls, errors, tool output), lengths
(one-line rules, paragraphs, long runbooks, some with summaries), ages over a year, read counts, refs to
files across a dozen folders, a few pinned entries. The focus is one file; the ground truth is the
entries whose refs point at that file or its folder, or whose text names the file. Reported at budgets
2000 and 8000: tokens of the rendering against the full store (every live entry in full), the share of
ground-truth entries kept full, and the same for a recency-only baseline (newest first, in full, until
the budget)."""

from __future__ import annotations

import json
import random
import shutil
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from lorekeeper.analysis.context.views import bullet
from lorekeeper.app.context import render_context
from lorekeeper.facts import open_memory
from lorekeeper.infra.tokens import count_tokens
from lorekeeper.workspace import Workspace

NOW = datetime(2026, 11, 1, tzinfo=UTC)
AREAS = ["billing", "auth", "search", "checkout", "admin", "export", "webhooks", "images", "sessions", "audit",
         "flags", "email"]
FILES = ["service.py", "models.py", "views.py", "tasks.py"]
FOCUS = "src/billing/service.py"
CATEGORIES = [("conventions", 0.25), ("decisions", 0.15), ("patterns", 0.2), ("pitfalls", 0.15), ("errors", 0.1),
              ("tool-output", 0.15)]


def _sentence(rng: random.Random, area: str) -> str:
    verbs = ["validates input before", "logs a request id when", "caches results after", "retries twice when",
             "pages through results when", "times out after 30 seconds when", "writes an audit row whenever"]
    objects = ["calling the provider", "reading from Postgres", "a user changes plans", "a job is retried",
               "a webhook arrives twice", "the queue is backed up", "a migration runs"]
    return f"The {area} module {rng.choice(verbs)} {rng.choice(objects)}."


def build(root: Path, count: int = 500, seed: int = 3) -> set[str]:
    """Write the store under ``root``; the ids of the ground-truth entries for :data:`FOCUS`."""
    rng = random.Random(seed)
    entries = root / ".lore" / "memory" / "entries"
    entries.mkdir(parents=True)
    for area in AREAS:
        for name in FILES:
            path = root / "src" / area / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"# {area} {name}\n")
    truth: set[str] = set()
    names = [c for c, _ in CATEGORIES]
    weights = [w for _, w in CATEGORIES]
    for i in range(count):
        entry_id = f"m{i:04d}"
        category = rng.choices(names, weights)[0]
        area = rng.choice(AREAS)
        file = f"src/{area}/{rng.choice(FILES)}"
        shape = rng.random()
        if category == "tool-output":
            content = "\n".join(f"$ make test-{area}" if k == 0 else f"INFO {area} step {k} ok in {rng.randint(1, 90)}s"
                                for k in range(rng.randint(4, 14)))
        elif shape < 0.55:
            content = _sentence(rng, area)
        elif shape < 0.9:
            content = " ".join(_sentence(rng, area) for _ in range(rng.randint(3, 6)))
        else:
            content = f"# Runbook: {area}\n" + "\n".join(f"{k}. {_sentence(rng, area)}" for k in range(1, rng.randint(15, 40)))
        data: dict[str, object] = {"id": entry_id, "category": category, "content": content,
                                   "created": (NOW - timedelta(days=rng.randint(0, 365))).strftime("%Y-%m-%dT%H:%M:%SZ")}
        if rng.random() < 0.6:
            data["refs"] = [{"path": file}]
        elif rng.random() < 0.1:
            data["content"] = f"{content} See `{file}`."
        if rng.random() < 0.3:
            data["access_count"] = rng.randint(0, 40)
        if rng.random() < 0.3:
            data["importance"] = round(rng.random(), 2)
        if len(content) > 400 and rng.random() < 0.5:
            data["summary"] = _sentence(rng, area) + " (runbook)"
        if rng.random() < 0.01:
            data["pinned"] = True
        (entries / f"{entry_id}.json").write_text(json.dumps(data, indent=2))
        text = str(data["content"])
        refs = [str(r["path"]) for r in data.get("refs", [])]  # type: ignore[union-attr]
        if any(r == FOCUS or r.startswith("src/billing/") for r in refs) or FOCUS in text:
            truth.add(entry_id)
    return truth


def bench_context(budgets: tuple[int, ...] = (2000, 8000)) -> None:
    root = Path(tempfile.mkdtemp(prefix="lore-context-"))
    try:
        truth = build(root)
        ws = Workspace(root)
        store = open_memory(ws)
        live = [e for e in store.live() if e.format != "instruction"]
        full_store = count_tokens("\n".join(bullet(e.content) for e in live) + "\n")
        print(f"context: {len(live)} entries, {full_store} tokens in full; focus {FOCUS}: {len(truth)} ground-truth entries")
        print(f"{'budget':>7} {'method':>10} {'tokens':>7} {'reduction':>10} {'truth full':>11} {'truth shown':>12} "
              f"{'full/compr/ph/out':>18} {'time':>7}")
        newest = sorted(live, key=lambda e: (-(e.created or NOW).timestamp(), e.id))
        for budget in budgets:
            start = time.perf_counter()
            result = render_context(ws, store, budget=budget, focus=[FOCUS], now=NOW, remember=False)
            elapsed = time.perf_counter() - start
            full = {r.id for r in result.entries if r.fidelity == "full"}
            shown = {r.id for r in result.entries if r.fidelity != "placeholder"}
            levels = [sum(r.fidelity == f for r in result.entries) for f in ("full", "compressed", "placeholder")]
            print(f"{budget:>7} {'context':>10} {result.tokens:>7} {100 * (1 - result.tokens / full_store):>9.1f}% "
                  f"{len(full & truth):>5}/{len(truth):<5} {len(shown & truth):>6}/{len(truth):<5} "
                  f"{'/'.join(map(str, levels + [len(result.omitted)])):>18} {elapsed:>6.2f}s")
            kept: list[str] = []
            text = ""
            for entry in newest:
                candidate = text + bullet(entry.content) + "\n"
                if count_tokens(candidate) > budget:
                    break
                text, kept = candidate, [*kept, entry.id]
            tokens = count_tokens(text)
            hits = len(set(kept) & truth)
            print(f"{budget:>7} {'recency':>10} {tokens:>7} {100 * (1 - tokens / full_store):>9.1f}% "
                  f"{hits:>5}/{len(truth):<5} {hits:>6}/{len(truth):<5} {f'{len(kept)}/0/0/{len(live) - len(kept)}':>18}")
    finally:
        shutil.rmtree(root, ignore_errors=True)
