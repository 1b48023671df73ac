"""Benchmarks that print figures (run through scripts/bench). Targets live here, not in tests.

speed: the figures of "Fast at every size" as one JSON line (see bench_speed): check-stale cold and warm
next to the floor at 1k and 10k entries over 3,000 Python files, verify --all next to its I/O floor, peak RSS, the language
server's save -> republish p50/p95 at 100 and 10k entries and its start-up, compaction plan times.

lsp: file save -> republished diagnostics of the dependent memory, p50/p95 over 100 edits, at 100 and
10k entries, with the default settings (target: p95 under 100 ms at 10k and under 2x its 100-entry value);
and a memory file's own save -> its republished diagnostics (that file is read again, not the store).

compact: plan time for 1k / 10k / 100k generated entries (target: 10k under 3 s), and on a realistic
cluttered store the tokens of index.md before and after compaction (target: 40-60% fewer) with the count
of distinct facts still present in compacted/ (target: all).

check-stale: time for 1k and 10k entries over a workspace of a few thousand code files, cold (no
cache) and warm (nothing changed), next to the floor: the time to merely read and hash the files the
entries reference (and, second floor, those plus the memory files themselves).
Targets from the staleness issue: cold within 3x of the floor; warm under 0.5 s at 10k entries.

context: `lore context` on a realistic 500-entry store with a focus on one file, at budgets 2000 and 8000:
token reduction against the full store and the share of the focus's ground-truth entries kept full, next
to a recency-only baseline (see bench_context). Figures only, no targets.

guard: the LLM stage's faithfulness guard on labelled model answers (tests/data/llm/guard*.jsonl): faithful
answers accepted and unfaithful ones refused, per operation (see bench_guard; -v lists the misjudged).

real-memory: six stores built from public repositories' own agent memory and its history, scored against
truth written by hand (bench/real_memory): facts lost, replaced values shown as current, current facts
missing from index.md, duplicate recall, false conflicts and merges, tokens against a plain list (see
bench_real_memory; the stores are built from --source/--mirror or cloned, --with-semantic adds the slow pass)."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_store  # noqa: E402
from bench_workspace import build  # noqa: E402
from lorekeeper.analysis.compaction import CompactionConfig, plan_compaction  # noqa: E402
from lorekeeper.analysis.staleness.cache import check_cached  # noqa: E402
from lorekeeper.facts import open_memory
from lorekeeper.infra.tokens import count_tokens  # noqa: E402
from lorekeeper.workspace import Workspace  # noqa: E402

LORE = Path(sys.executable).parent / "lore"


def _read_and_hash(paths: list[Path]) -> float:
    start = time.perf_counter()
    for path in paths:
        try:
            hashlib.sha256(path.read_bytes()).digest()
        except OSError:
            pass
    return time.perf_counter() - start


def _best(fn, runs: int) -> float:
    return min(fn() for _ in range(runs))


def bench_check_stale(sizes: list[int], files: int, runs: int) -> None:
    print(f"check-stale: {files} code files, git history with a refactor commit (~8% of references broken)")
    print(f"{'entries':>8} {'floor refs':>11} {'floor +mem':>11} {'cold':>8} {'warm':>8} {'cold/floor':>11} "
          f"{'cmd cold':>9} {'cmd warm':>9} {'findings':>9}")
    for size in sizes:
        root = Path(tempfile.mkdtemp(prefix=f"lore-bench-{size}-"))
        try:
            build(root, size, files)
            cache = root / ".lore" / "cache"

            def cold() -> float:
                shutil.rmtree(cache, ignore_errors=True)
                start = time.perf_counter()
                check_cached(Workspace(root))
                return time.perf_counter() - start

            def warm() -> float:
                start = time.perf_counter()
                report = check_cached(Workspace(root))
                elapsed = time.perf_counter() - start
                assert report.reused == report.checked, "warm run re-checked entries"
                return elapsed

            cold_s = _best(cold, runs)
            report = check_cached(Workspace(root))
            warm_s = _best(warm, runs)
            data = json.loads((cache / "stale.json").read_text())
            deps = sorted({d for rec in data["files"].values() for d, st in rec["deps"].items() if st})
            refs = [root / d for d in deps if (root / d).is_file()]
            memory = [root / m for m in data["files"]]
            floor = _best(lambda: _read_and_hash(refs), runs)
            floor_mem = _best(lambda: _read_and_hash(refs + memory), runs)

            def command(clear: bool) -> float:
                if clear:
                    shutil.rmtree(cache, ignore_errors=True)
                start = time.perf_counter()
                subprocess.run([str(LORE), "check-stale", "--json"], cwd=root, capture_output=True, check=False)
                return time.perf_counter() - start

            cmd_cold = _best(lambda: command(True), runs)
            cmd_warm = _best(lambda: command(False), runs)
            print(f"{size:>8} {floor:>10.3f}s {floor_mem:>10.3f}s {cold_s:>7.2f}s {warm_s:>7.3f}s "
                  f"{cold_s / floor:>10.1f}x {cmd_cold:>8.2f}s {cmd_warm:>8.2f}s {len(report.findings):>9}")
        finally:
            shutil.rmtree(root, ignore_errors=True)
    print("cold/warm: in-process engine time (best of runs); cmd: the whole `lore check-stale --json` command,"
          " interpreter start included")


def bench_compact(sizes: list[int], runs: int) -> None:
    print("compact: plan time (stage 1 rules, views included; loading the store is shown apart)")
    print(f"{'entries':>8} {'load':>8} {'plan':>8} {'operations':>11}")
    for size in sizes:
        root = Path(tempfile.mkdtemp(prefix=f"lore-compact-{size}-"))
        try:
            bench_store.synthetic(root, size)
            start = time.perf_counter()
            store = open_memory(Workspace(root))
            load = time.perf_counter() - start
            timings = []
            for _ in range(runs):
                start = time.perf_counter()
                plan = plan_compaction(store, CompactionConfig(), now=bench_store.NOW)
                timings.append(time.perf_counter() - start)
            print(f"{len(store.entries):>8} {load:>7.2f}s {min(timings):>7.2f}s {len(plan.operations):>11}")
        finally:
            shutil.rmtree(root, ignore_errors=True)

    root = Path(tempfile.mkdtemp(prefix="lore-compact-cluttered-"))
    try:
        truth = bench_store.build(root, 200)
        store = open_memory(Workspace(root))
        unlimited = CompactionConfig().with_overrides(budget=10**9)
        before = plan_compaction(store, unlimited, only=[], now=bench_store.NOW)
        after = plan_compaction(store, unlimited, now=bench_store.NOW)
        budgeted = plan_compaction(store, CompactionConfig(), now=bench_store.NOW)
        index = ".lore/memory/index.md"
        tokens_before = count_tokens(before.views[index])
        tokens_after = count_tokens(after.views[index])
        compacted = "".join(text for path, text in after.views.items() if "/compacted/" in path)
        kept = sum(fact in compacted for fact in truth["facts"])
        counts: dict[str, int] = {}
        for op in after.operations:
            counts[op.op] = counts.get(op.op, 0) + 1
        print(f"cluttered store: {truth['entries']} entries holding {len(truth['facts'])} distinct facts")
        print(f"  index.md without a budget: {tokens_before} -> {tokens_after} tokens "
              f"({100 * (tokens_before - tokens_after) / tokens_before:.0f}% fewer); with the default budget: "
              f"{count_tokens(budgeted.views[index])} tokens")
        print(f"  distinct facts present in compacted/: {kept}/{len(truth['facts'])}; conflicts for review: "
              f"{len(after.conflicts)}")
        print("  operations: " + ", ".join(f"{n} {op}" for op, n in counts.items()))
    finally:
        shutil.rmtree(root, ignore_errors=True)


async def _lsp_latency(root: Path, target: Path, memory_uri_suffix: str, edits: int) -> list[float]:
    import asyncio

    from lsprotocol import types
    from pygls.lsp.client import LanguageClient

    client = LanguageClient("lorekeeper-bench", "1")
    got = asyncio.Event()
    started = asyncio.Event()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
        started.set()  # the first check is done once anything is published
        if params.uri.endswith(memory_uri_suffix):
            got.set()

    await client.start_io(str(LORE), "serve")
    caps = types.ClientCapabilities(workspace=types.WorkspaceClientCapabilities(
        did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(dynamic_registration=False)))
    await client.initialize_async(types.InitializeParams(capabilities=caps, root_uri=root.as_uri()))
    client.initialized(types.InitializedParams())
    await asyncio.wait_for(started.wait(), 300)
    original = target.read_text()
    broken = original.replace("def ", "def renamed_", 1) if target.suffix == ".py" else original.replace(
        "export function ", "export function renamed", 1)
    timings = []
    for i in range(edits):
        await asyncio.sleep(0.2)  # saves a person makes are apart (closer ones are a burst, gathered)
        got.clear()
        target.write_text(broken if i % 2 == 0 else original)
        start = time.perf_counter()
        client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
            types.FileEvent(uri=target.as_uri(), type=types.FileChangeType.Changed)]))
        await asyncio.wait_for(got.wait(), 30)
        timings.append(time.perf_counter() - start)
    target.write_text(original)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return timings


async def _memory_save_latency(root: Path, target: Path, edits: int, broken: str | None = None) -> list[float]:
    """Seconds from saving a memory file to its republished diagnostics, ``edits`` saves apart. Every
    other save makes a reference of the file unresolvable (an instruction file gains a bullet naming a
    missing file; an entry names a missing function), or writes ``broken`` (a text that gives the file a
    finding), so each save changes what the file shows. The file starts broken, so that the first check
    publishes it; it is restored afterwards."""
    import asyncio

    from lsprotocol import types
    from pygls.lsp.client import LanguageClient

    original = target.read_text(encoding="utf-8")
    if broken is None and target.suffix == ".json":
        data = json.loads(original)
        name = data["refs"][0]["symbol"]
        broken = original.replace(name, name + "_gone")
    elif broken is None:
        broken = original.rstrip("\n") + "\n\n- The retry helper lives in `src/gone_missing_file_xyz.ts`.\n"
    client = LanguageClient("lorekeeper-bench", "1")
    got = asyncio.Event()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
        if params.uri == target.as_uri():
            got.set()

    target.write_text(broken, encoding="utf-8")
    timings = []
    try:
        await client.start_io(str(LORE), "serve")
        caps = types.ClientCapabilities(workspace=types.WorkspaceClientCapabilities(
            did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(dynamic_registration=False)))
        await client.initialize_async(types.InitializeParams(capabilities=caps, root_uri=root.as_uri()))
        client.initialized(types.InitializedParams())
        await asyncio.wait_for(got.wait(), 300)  # the first check: the broken file is published
        for i in range(edits):
            await asyncio.sleep(0.2)
            got.clear()
            target.write_text(original if i % 2 == 0 else broken, encoding="utf-8")
            start = time.perf_counter()
            client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
                types.FileEvent(uri=target.as_uri(), type=types.FileChangeType.Changed)]))
            await asyncio.wait_for(got.wait(), 60)
            timings.append(time.perf_counter() - start)
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()
    finally:
        target.write_text(original, encoding="utf-8")
    return timings


async def _startup(root: Path, pull: bool = False) -> float:
    """Seconds from launching `lore serve` to the first published diagnostics; with ``pull``, as a client
    that pulls diagnostics (VS Code does): to the answer of its first ``workspace/diagnostic`` request,
    which also measures a workspace with nothing to report."""
    import asyncio

    from lsprotocol import types
    from pygls.lsp.client import LanguageClient

    client = LanguageClient("lorekeeper-bench", "1")
    first = asyncio.Event()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
        first.set()

    capabilities = types.ClientCapabilities(  # (a pulling client that takes refreshes, as VS Code's)
        text_document=types.TextDocumentClientCapabilities(diagnostic=types.DiagnosticClientCapabilities()) if pull else None,
        workspace=types.WorkspaceClientCapabilities(diagnostics=types.DiagnosticWorkspaceClientCapabilities(
            refresh_support=True)) if pull else None)
    start = time.perf_counter()
    await client.start_io(str(LORE), "serve")
    await client.initialize_async(types.InitializeParams(capabilities=capabilities, root_uri=root.as_uri()))
    client.initialized(types.InitializedParams())
    if pull:
        await asyncio.wait_for(client.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(previous_result_ids=[])), 60)
    else:
        await asyncio.wait_for(first.wait(), 60)
    elapsed = time.perf_counter() - start
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return elapsed


def bench_lsp(sizes: list[int], edits: int) -> None:
    import asyncio

    import example_workspace

    root = Path(tempfile.mkdtemp(prefix="lore-lsp-start-"))
    try:
        work = example_workspace.make(root / "acme-shop")
        example_workspace.refactor(work)
        best = min(asyncio.run(_startup(work)) for _ in range(3))
        print(f"lsp: launch to first diagnostics on the example workspace (after its refactor): {best:.2f} s")
    finally:
        shutil.rmtree(root, ignore_errors=True)

    print(f"lsp: save -> republished diagnostics of the dependent memory ({edits} edits, default settings)")
    print(f"{'entries':>8} {'p50':>8} {'p95':>8} {'max':>8}   memory file saved: {'p50':>8} {'p95':>8}")
    for size in sizes:
        root = Path(tempfile.mkdtemp(prefix=f"lore-lsp-{size}-"))
        try:
            build(root, size, 3000 if size > 1000 else 300)
            # The memory under test references one module's first function by name.
            module = next(p for p in sorted((root / "src").rglob("mod_*.py")))
            name = module.read_text().split("def ", 1)[1].split("(", 1)[0]
            entry = root / ".lore/memory/entries/zz-bench.json"
            entry.write_text(json.dumps({"id": "bench", "content": f"`{name}` handles it",
                                         "refs": [{"path": module.relative_to(root).as_posix(), "symbol": name}]}))
            timings = asyncio.run(_lsp_latency(root, module, "zz-bench.json", edits))
            timings.sort()
            p50, p95 = statistics.median(timings), timings[int(len(timings) * 0.95) - 1]
            saves = sorted(asyncio.run(_memory_save_latency(root, entry, max(10, edits // 2))))
            print(f"{size:>8} {p50 * 1000:>6.1f}ms {p95 * 1000:>6.1f}ms {timings[-1] * 1000:>6.1f}ms   "
                  f"{'':>18} {statistics.median(saves) * 1000:>6.1f}ms {saves[int(len(saves) * 0.95) - 1] * 1000:>6.1f}ms")
        finally:
            shutil.rmtree(root, ignore_errors=True)


def _run_timed(args: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(args, cwd=cwd, capture_output=True, check=False)
    return time.perf_counter() - start


def bench_speed(sizes: list[int], files: int, runs: int, edits: int, plan_sizes: list[int]) -> dict[str, object]:
    """The figures of the issue "Fast at every size", as one JSON line: per size, `verify --all`, then
    `check-stale --json` cold (``.lore/cache`` deleted) and warm, next to the floor (a plain Python process
    that parses every entry file and reads and hashes every referenced file), best of ``runs``; verify's
    own floor (a plain Python process rewriting every entry file as verify must: temporary file, one
    syncfs, rename); the language server's save -> republish p50/p95 and start-up; compaction plan times;
    peak RSS."""
    import asyncio
    import resource

    import bench_speed

    figures: dict[str, object] = {"cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()}
    for size in sizes:
        root = Path(tempfile.mkdtemp(prefix=f"lore-speed-{size}-"))
        try:
            bench_speed.build(root, size, files)
            os.sync()  # the build's writes reach the disk now: verify's syncfs would otherwise flush them
            verify = _run_timed([str(LORE), "verify", "--all"], root)
            os.sync()
            verify_floor = _best(lambda: _run_timed([sys.executable, "-c", bench_speed.VERIFY_FLOOR, str(root)], root), runs)
            cache = root / ".lore" / "cache"

            def cold() -> float:
                shutil.rmtree(cache, ignore_errors=True)
                return _run_timed([str(LORE), "check-stale", "--json"], root)

            cold_s = _best(cold, runs)
            warm_s = _best(lambda: _run_timed([str(LORE), "check-stale", "--json"], root), runs)
            floor = _best(lambda: _run_timed([sys.executable, "-c", bench_speed.FLOOR, str(root)], root), runs)
            figures[str(size)] = {"verify_s": round(verify, 3), "cold_s": round(cold_s, 3), "warm_s": round(warm_s, 3),
                                  "floor_s": round(floor, 3), "cold_over_floor": round(cold_s / floor, 2),
                                  "verify_over_cold": round(verify / cold_s, 2), "verify_floor_s": round(verify_floor, 3),
                                  "verify_floor_over_cold": round(verify_floor / cold_s, 2)}
        finally:
            shutil.rmtree(root, ignore_errors=True)
    figures["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1)

    import example_workspace

    root = Path(tempfile.mkdtemp(prefix="lore-speed-lsp-"))
    try:
        work = example_workspace.make(root / "acme-shop")
        figures["lsp_start_example_s"] = round(min(asyncio.run(_startup(work)) for _ in range(3)), 3)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    for size in (100, 10000):
        root = Path(tempfile.mkdtemp(prefix=f"lore-speed-lsp-{size}-"))
        try:
            build(root, size, 3000 if size > 1000 else 300)
            module = next(p for p in sorted((root / "src").rglob("mod_*.py")))
            name = module.read_text().split("def ", 1)[1].split("(", 1)[0]
            (root / ".lore/memory/entries/zz-bench.json").write_text(json.dumps(
                {"id": "bench", "content": f"`{name}` handles it",
                 "refs": [{"path": module.relative_to(root).as_posix(), "symbol": name}]}))
            start = asyncio.run(_startup(root))
            timings = sorted(asyncio.run(_lsp_latency(root, module, "zz-bench.json", edits)))
            figures[f"lsp_{size}"] = {"start_s": round(start, 3), "p50_ms": round(statistics.median(timings) * 1000, 1),
                                      "p95_ms": round(timings[int(len(timings) * 0.95) - 1] * 1000, 1)}
            # The CLI's cold check of this same workspace (git history, stale references to judge): what
            # the start-up is compared with, and a second start, which finds what the first one kept.
            cache = root / ".lore" / "cache"
            warm_start = asyncio.run(_startup(root))

            def cli_cold() -> float:
                shutil.rmtree(cache, ignore_errors=True)
                return _run_timed([str(LORE), "check-stale", "--json"], root)

            cli = _best(cli_cold, runs)
            figures[f"lsp_{size}"].update({"start_warm_s": round(warm_start, 3), "cli_cold_s": round(cli, 3),
                                           "start_over_cli": round(start / cli, 2)})
            # Saving a memory file (the entry under test): that file is read again, not the store.
            saves = sorted(asyncio.run(_memory_save_latency(root, root / ".lore/memory/entries/zz-bench.json",
                                                            max(10, edits // 2))))
            figures[f"lsp_{size}"].update({"memory_p50_ms": round(statistics.median(saves) * 1000, 1),
                                           "memory_p95_ms": round(saves[int(len(saves) * 0.95) - 1] * 1000, 1)})
        finally:
            shutil.rmtree(root, ignore_errors=True)
    figures["lsp_store_10000"] = _store_memory_save(10000, edits)
    plans: dict[str, float] = {}
    warm_plans: dict[str, float] = {}
    for size in plan_sizes:
        root = Path(tempfile.mkdtemp(prefix=f"lore-speed-plan-{size}-"))
        try:
            bench_store.synthetic(root, size)
            # Cold: what a new process finds in a new store (nothing in memory from the smaller stores).
            _forget_in_memory()
            store = open_memory(Workspace(root))
            start = time.perf_counter()
            plan_compaction(store, CompactionConfig(), now=bench_store.NOW)
            plans[str(len(store.entries))] = round(time.perf_counter() - start, 2)
            # Warm: what a new process finds (nothing in memory; .lore/cache holds the verifier's readings,
            # the candidate searches and the token counts).
            _forget_in_memory()
            store = open_memory(Workspace(root))
            start = time.perf_counter()
            plan_compaction(store, CompactionConfig(), now=bench_store.NOW)
            warm_plans[str(len(store.entries))] = round(time.perf_counter() - start, 2)
        finally:
            shutil.rmtree(root, ignore_errors=True)
    figures["plan_s"] = plans
    figures["plan_warm_s"] = warm_plans
    print(json.dumps(figures))
    return figures


def _store_memory_save(size: int, edits: int) -> dict[str, object]:
    """A memory save in a store written the way agents write (bench_store: duplicates in other dress,
    superseded versions; ~1,700 duplicate groups at 10k), where the benchmark's workspace has none:
    every other save makes the saved entry repeat another entry's text (a duplicate finding on it)."""
    import asyncio

    root = Path(tempfile.mkdtemp(prefix="lore-speed-lsp-store-"))
    try:
        bench_store.synthetic(root, size)
        folder = root / ".lore/memory/entries"
        files = sorted(folder.glob("*.json"))
        copied = next(data["content"] for data in (json.loads(p.read_text()) for p in files[len(files) // 2:])
                      if not {"merged_into", "superseded_by", "archived", "supersedes", "ttl"} & data.keys())
        target = folder / "zz-bench.json"  # older than any other entry: the copy it repeats is kept, it is the duplicate
        target.write_text(json.dumps({"id": "bench", "content": "The bench entry states a fact of its own.",
                                      "created": "2020-01-01T00:00:00Z"}))
        broken = json.dumps({"id": "bench", "content": copied, "created": "2020-01-01T00:00:00Z"})
        saves = sorted(asyncio.run(_memory_save_latency(root, target, max(10, edits // 2), broken=broken)))
        return {"entries": len(files) + 1, "memory_p50_ms": round(statistics.median(saves) * 1000, 1),
                "memory_p95_ms": round(saves[int(len(saves) * 0.95) - 1] * 1000, 1)}
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _forget_in_memory() -> None:
    """Empty every cache Lorekeeper's modules hold in memory (functools caches: texts' readings,
    normalised forms, hashes, the tokenizer), so that a plan run again in this process does what a new
    process would: only what ``.lore/cache`` holds is known."""
    for name, module in list(sys.modules.items()):
        if name == "lorekeeper" or name.startswith("lorekeeper."):
            for value in list(vars(module).values()):
                clear = getattr(value, "cache_clear", None)
                if callable(clear):
                    clear()


def main() -> None:
    from lorekeeper.infra.workers import allow_fork

    allow_fork()  # one thread, like the command line: plans split their large batches over the cores
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=["speed", "check-stale", "compact", "lsp", "real-stale", "trust", "semantic", "context",
                                           "guard", "real-memory"],
                        help="run one benchmark")
    parser.add_argument("--mirror", type=Path, default=os.environ.get("LORE_BENCH_MIRROR"),
                        help="real-stale, real-memory: folder of git directories (owner+name/repo); else cloned from GitHub")
    parser.add_argument("--source", action="append", default=[], metavar="OWNER/NAME=GIT_DIR",
                        help="real-memory: the git directory of a source repository (before --mirror)")
    parser.add_argument("--store", action="append", help="real-memory: only this store (bench/real_memory/README.md)")
    parser.add_argument("--with-semantic", action="store_true", help="real-memory: the semantic pass too (slow)")
    parser.add_argument("--repo", action="append", help="real-stale: only repositories whose name holds this")
    parser.add_argument("--unlabelled", type=Path, help="real-stale: write findings without a label to this JSON file")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="real-stale: list every wrong or unlabelled finding; real-memory: print every report")
    parser.add_argument("--lsp-sizes", default="100,10000", help="LSP latency entry counts")
    parser.add_argument("--edits", type=int, default=100, help="LSP latency: edits measured")
    parser.add_argument("--sizes", default="1000,10000", help="check-stale entry counts (comma-separated)")
    parser.add_argument("--speed-sizes", default="1000,10000", help="speed: entry counts (3,000 Python files)")
    parser.add_argument("--plan-sizes", default="1000,10000,110000", help="speed: compaction plan entry counts")
    parser.add_argument("--compact-sizes", default="1000,10000,100000", help="compact plan entry counts")
    parser.add_argument("--semantic-sizes", default="1000,10000", help="semantic: plan entry counts")
    parser.add_argument("--files", type=int, default=3000, help="code files in the workspace")
    parser.add_argument("--runs", type=int, default=3, help="repetitions; the best is reported")
    args = parser.parse_args()
    os.environ.setdefault("NO_COLOR", "1")
    if args.only in (None, "speed"):
        bench_speed(args.speed_sizes and [int(s) for s in args.speed_sizes.split(",")], args.files, args.runs, args.edits,
                    [int(s) for s in args.plan_sizes.split(",")])
    if args.only in (None, "check-stale"):
        bench_check_stale([int(s) for s in args.sizes.split(",")], args.files, args.runs)
    if args.only in (None, "lsp"):
        bench_lsp([int(s) for s in args.lsp_sizes.split(",")], args.edits)
    if args.only in (None, "compact"):
        bench_compact([int(s) for s in args.compact_sizes.split(",")], args.runs)
    if args.only in (None, "trust"):
        import bench_compact_trust

        bench_compact_trust.bench_trust()
    if args.only in (None, "semantic"):
        import bench_semantic

        bench_semantic.bench_semantic([int(s) for s in args.semantic_sizes.split(",")], args.verbose)
    if args.only in (None, "context"):
        import bench_context

        bench_context.bench_context()
    if args.only in (None, "guard"):
        import bench_guard

        bench_guard.bench_guard(args.verbose)
    if args.only in (None, "real-stale"):
        import bench_real_stale

        bench_real_stale.bench_real_stale(args.mirror, bench_real_stale.default_cache(), args.repo, args.unlabelled,
                                          args.verbose)
    if args.only in (None, "real-memory"):
        import bench_real_memory

        bench_real_memory.bench_real_memory(args.mirror, args.source, args.store, args.with_semantic, args.verbose)


if __name__ == "__main__":
    main()
