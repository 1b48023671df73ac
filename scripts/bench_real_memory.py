"""Real memory: Lorekeeper on six stores taken from public repositories' own agent memory and its history,
each scored against a truth written by hand before Lorekeeper ever ran on it (bench/real_memory: the truth,
the labels, the build and the scorer; its README says what each store is).

The stores are built under DEST (default .lore-bench/real-memory, git-ignored) when missing, from
``--source OWNER/NAME=GIT_DIR``, ``--mirror DIR`` (git directories DIR/OWNER+NAME/repo) or clones from
GitHub; then bench/real_memory/score.py runs on each: the rules pass (``lore compact``), and with
``--with-semantic`` the semantic pass too (``lore compact --semantic``, minutes). Every report is written to
DEST/results/<store>.txt and .json (-v prints them). Nothing here runs in CI.

Figures per store and pass: facts lost; replaced values shown as current (by surface: index.md,
`lore context --budget 2000`, compacted/); current facts missing from index.md without a pointer;
duplicate groups found (recall); false conflicts and false merges; updates caught; tokens of index.md and
compacted/ next to a plain list of the same memory (`- ` + text per line: the entries, or every unit of an
instruction-only store), and the entries' tokens before and after compaction."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench" / "real_memory"
LORE = Path(sys.executable).parent / "lore"


def _build_module() -> Any:
    """bench/real_memory/build.py, loaded under a name of its own (``build`` is also a PyPA package's)."""
    name = "real_memory_build"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, BENCH / "build.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def default_dest() -> Path:
    return _build_module().DEFAULT_DEST


def code_under_test() -> str:
    """Where the Lorekeeper under test comes from, and its commit (``-dirty``: with uncommitted changes)."""
    import lorekeeper

    src = Path(lorekeeper.__file__).resolve().parent.parent
    p = subprocess.run(["git", "-C", str(src), "describe", "--always", "--dirty"], capture_output=True, text=True)
    return f"{LORE} (lorekeeper from {src}, {p.stdout.strip() or 'not a git checkout'})"


def figures(store: str, result: dict[str, Any]) -> dict[str, Any]:
    """The report figures of one pass of score.py (its --json output)."""
    s = result["score"]
    tokens = s["tokens"]
    index = s["current_in_index"]
    has_entries = tokens["plain_list_entries"] > 0
    return {
        "store": store,
        "pass": "semantic" if result["semantic"] else "rules",
        "units": f"{s['units']['before']} -> {s['units']['after']}",
        "facts_lost": len(s["facts_lost"]),
        "replaced_shown": s["updates_old_values_shown_as_current"],
        "updates": s["updates"]["total"],
        "replaced_by_surface": {k: s["replaced_shown_by_surface"].get(k, 0) for k in ("index.md", "lore context", "compacted")},
        "current_missing": index["missing"],
        "current": index["stated"] + index["pointer"] + index["missing"],
        "current_stated": index["stated"],
        "current_by_pointer": index["pointer"],
        "dup_found": s["duplicates"]["found"],
        "dup_groups": s["duplicates"]["groups"],
        "dup_partial": s["duplicates"]["partial"],
        "dup_recall": s["duplicates"]["recall"],
        "dup_by_kind": s["duplicates"]["by_kind"],
        "conflicts_true": s["conflicts"]["true"],
        "conflicts_false": s["conflicts"]["false"],
        "conflicts_unlabelled": s["conflicts"]["unlabelled"],
        "false_merges": len(s["false_merges"]),
        "updates_caught": s["updates"]["caught"],
        "replaced_under_another": len(s.get("replaced_marked_against_wrong_memory", [])),
        "current_under_another": len(s.get("current_dated_under_other_subject", [])),
        "disagreements": f"{s['disagreements']['found']}/{s['disagreements']['total']}",
        "tokens_index": tokens["index.md"],
        "tokens_compacted": tokens["compacted/"],
        "tokens_plain": tokens["plain_list_entries"] if has_entries else tokens["plain_list_all_live_units"],
        "plain_of": "entries" if has_entries else f"all {s['units']['before']} units",
        "entries_tokens": f"{tokens['entries_before']} -> {tokens['entries_after']}" if has_entries else None,
        "store_grew": tokens["store_grew"],
        "seconds": result.get("seconds", {}),
    }


def _print_figures(f: dict[str, Any]) -> None:
    sec = f["seconds"]
    lsp = sec.get("lsp") or {}
    surf = f["replaced_by_surface"]
    kinds = ", ".join(f"{k} {v['found']}/{v['groups']}" for k, v in f["dup_by_kind"].items())
    print(f"  {f['pass']}: units {f['units']}; {sec.get('total')} s (lore commands {sec.get('lore_commands')} s, "
          f"lore serve {lsp.get('total', '-')} s: first check done at {lsp.get('checked', '-')} s, then a quiet wait)")
    print(f"    facts lost {f['facts_lost']}; replaced values shown as current {f['replaced_shown']}/{f['updates']} "
          f"(index.md {surf['index.md']}, lore context {surf['lore context']}, compacted {surf['compacted']}); "
          f"current facts missing from index.md {f['current_missing']}/{f['current']} "
          f"(stated {f['current_stated']}, by pointer {f['current_by_pointer']})")
    print(f"    duplicate groups found {f['dup_found']}/{f['dup_groups']} (recall {f['dup_recall']}, partial {f['dup_partial']}; "
          f"{kinds or 'none'}); conflicts: false {f['conflicts_false']}, true {f['conflicts_true']}, unlabelled "
          f"{f['conflicts_unlabelled']}; false merges {f['false_merges']}; updates caught {f['updates_caught']}/{f['updates']}; "
          f"disagreements reported {f['disagreements']}")
    print(f"    marked or dated under another memory: replaced values {f['replaced_under_another']}, current facts "
          f"under the other side of a not-conflict pair {f['current_under_another']}")
    print(f"    tokens: index.md {f['tokens_index']}, compacted/ {f['tokens_compacted']}, plain list {f['tokens_plain']} "
          f"({f['plain_of']})" + (f"; entries {f['entries_tokens']}{' GREW' if f['store_grew'] else ''}" if f["entries_tokens"] else ""))


def summary_table(rows: list[dict[str, Any]]) -> str:
    head = ("| store | pass | facts lost | replaced shown as current (index.md / context / compacted) | current missing from "
            "index.md | duplicate groups found | false conflicts (unlabelled) | false merges | updates caught | under another "
            "memory (replaced / current) | tokens index.md / compacted/ / plain list | entries' tokens before → after |")
    lines = [head, "|" + "---|" * 12]
    for f in rows:
        surf = f["replaced_by_surface"]
        replaced, caught, under = "–", "–", "–"
        if f["updates"]:
            replaced = f"{f['replaced_shown']}/{f['updates']} ({surf['index.md']} / {surf['lore context']} / {surf['compacted']})"
            caught = f"{f['updates_caught']}/{f['updates']}"
            under = f"{f['replaced_under_another']} / {f['current_under_another']}"
        lines.append(
            f"| {f['store']} | {f['pass']} | {f['facts_lost']} | {replaced} | {f['current_missing']}/{f['current']} | "
            f"{f['dup_found']}/{f['dup_groups']} | {f['conflicts_false']} ({f['conflicts_unlabelled']}) | {f['false_merges']} | "
            f"{caught} | {under} | "
            f"{f['tokens_index']:,} / {f['tokens_compacted']:,} / {f['tokens_plain']:,} | "
            f"{(f['entries_tokens'] or '–').replace('->', '→')}{' (grew)' if f['store_grew'] else ''} |")
    return "\n".join(lines)


def bench_real_memory(mirror: Path | None, sources: list[str], only: list[str] | None, semantic: bool, verbose: bool,
                      dest: Path | None = None) -> list[dict[str, Any]]:
    build = _build_module()
    dest = (dest or build.DEFAULT_DEST).resolve()
    unknown = sorted(set(only or []) - set(build.BY_NAME))
    if unknown:
        raise SystemExit(f"real-memory: no store {', '.join(unknown)} (stores: {', '.join(build.BY_NAME)})")
    start = time.perf_counter()
    print(f"real-memory: {len(only) if only else len(build.STORES)} stores in {dest} "
          f"({'rules and semantic passes' if semantic else 'rules pass; --with-semantic adds the semantic pass'})", flush=True)
    print(f"real-memory: {code_under_test()}", flush=True)
    roots = build.build(dest, build.Sources(build.parse_sources(sources), mirror, dest / "sources"), only)
    built = time.perf_counter()
    results = dest / "results"
    results.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    for root in roots:
        name = root.name
        out = results / f"{name}.json"
        cmd = [sys.executable, str(BENCH / "score.py"), str(root), "--lore", str(LORE), "--json", str(out)]
        if not semantic:
            cmd.append("--no-semantic")
        t0 = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True)
        (results / f"{name}.txt").write_text(p.stdout + p.stderr, encoding="utf-8")
        print(f"{name} ({time.perf_counter() - t0:.0f} s; report: {results / name}.txt)", flush=True)
        if p.returncode != 0:
            print(f"  FAILED (exit {p.returncode}): {p.stderr.strip()[-400:]}")
            continue
        if verbose:
            print(p.stdout)
        for result in json.loads(out.read_text(encoding="utf-8"))["passes"]:
            rows.append(figures(name, result))
            _print_figures(rows[-1])
    print(f"real-memory: built in {built - start:.1f} s, scored in {time.perf_counter() - built:.0f} s")
    print(summary_table(rows))
    print("targets: no fact lost, no replaced value shown as current, every current fact in index.md (or a pointer to it), "
          "no false conflict or merge; duplicate recall and tokens are figures")
    return rows
