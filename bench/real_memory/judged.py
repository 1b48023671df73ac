"""How far `lore repeats --semantic --llm` can go on a real-memory store, whatever model is configured: the
pairs of instruction lines Lorekeeper would ask a model about, and the duplicate groups of the truth
found when a stand-in model answers them.

No model runs here. A stand-in OpenAI-compatible server on 127.0.0.1 answers each batch of pairs:

- ``oracle``: "the same fact" exactly for the pairs whose two lines one duplicate group of the truth holds
  (a judge right on every pair it is asked): the recall a perfect model would reach, bounded by the pairs
  Lorekeeper asks about (its nearest neighbours the guard did not vouch for and no rule tells apart);
- ``yes``: "the same fact" for every pair: what reaches the model at all (the pairs it could wrongly call
  one fact), and that the near-miss pairs of the truth never do.

    .venv/bin/python bench/real_memory/judged.py .lore-bench/real-memory/memory-bank-nftbk [--mode oracle|yes]
    .venv/bin/python bench/real_memory/judged.py --refusals   # what the refusals let through, labelled pairs
    .venv/bin/python bench/real_memory/judged.py --cost TREE...  # pairs `lore repeats --llm` asks in checkouts
    .venv/bin/python bench/real_memory/judged.py --entries .lore-bench/real-memory/updates-entries [oracle|yes]

The store is copied to a temporary folder (its `.lore/cache` answers do not outlive the run). Prints the
pairs asked, the groups found (all of a group's lines named by one repeat), and for ``yes`` the truth's
not-conflict and near-miss pairs that reached the model."""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "server"))

from lorekeeper.facts import open_memory  # noqa: E402
from lorekeeper.workspace import Workspace  # noqa: E402


def units_of(root: Path) -> list[Any]:
    store = open_memory(Workspace(root), dates=False)
    return [e for e in store.entries if e.live and e.format == "instruction" and e.source != "heading"]


def unit_at(units: list[Any], file: str, line: int) -> Any:
    return next((e for e in units if e.location.path == file and e.location.start_line <= line <= e.location.end_line), None)


class Judge:
    """The stand-in model: answers each batch of pairs by ``mode``, and counts what it was asked."""

    def __init__(self, mode: str, same: set[frozenset[str]], lines: list[str]):
        self.mode, self.same, self.lines = mode, same, lines
        self.asked: list[tuple[str, str]] = []
        self.lock = threading.Lock()

    def answer(self, body: dict[str, Any]) -> str:
        payload = json.loads(body["messages"][-1]["content"])
        decisions = []
        for pair in payload.get("pairs", []):
            a, b = pair["a"]["text"], pair["b"]["text"]
            with self.lock:
                self.asked.append((a, b))
            same = self.mode == "yes" or any(frozenset((x, y)) in self.same for x in self.of(a) for y in self.of(b))
            decisions.append({"pair": pair["pair"], "same_fact": same, "reason": "stand-in"})
        return json.dumps({"decisions": decisions})

    def of(self, text: str) -> list[str]:
        """The lines a text asked about is (a whole line), or is a sentence of."""
        flat = " ".join(text.split())
        return [line for line in self.lines if line == flat] or [line for line in self.lines if flat in line]


def serve(judge: Judge) -> tuple[ThreadingHTTPServer, str]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
            text = judge.answer(body)
            data = json.dumps({"id": "x", "object": "chat.completion", "model": "stand-in",
                               "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
                               "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/v1"


def refusals() -> None:
    """What the guard's refusals let through to a model, by label, on the labelled pairs of entries."""
    from collections import Counter

    from lorekeeper.facts.semantic_guard import refusal

    for path in sorted((ROOT / "tests" / "data" / "compaction").glob("*.jsonl")):
        rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        asked, total = Counter(), Counter()
        for row in rows:
            total[row["label"]] += 1
            asked[row["label"]] += not refusal(row["a"], row["b"])
        print(f"{path.name}: " + ", ".join(f"{label} {asked[label]}/{n}" for label, n in sorted(total.items())))


def cost(trees: list[str]) -> None:
    """What `lore repeats --llm` asks in each tree (a checkout; its caches go where Lorekeeper keeps them),
    of a stand-in that says "the same fact" to every pair, under the default budget."""
    from statistics import median

    judge = Judge("yes", set(), [])
    server, url = serve(judge)
    env = {**os.environ, "LORE_LLM_BASE_URL": url, "LORE_LLM_MODEL": "stand-in"}
    asked: list[int] = []
    stopped = 0
    for tree in trees:
        before = len(judge.asked)
        done = subprocess.run([str(ROOT / ".venv" / "bin" / "lore"), "repeats", "--llm", "--json"], cwd=tree, env=env,
                              capture_output=True, text=True)
        llm = json.loads(done.stdout).get("llm", {}) if done.returncode == 0 else {}
        asked.append(len(judge.asked) - before)
        stopped += bool(llm.get("stopped"))
        print(f"{Path(tree).name}: {asked[-1]} pairs asked, {llm.get('calls', '?')} calls"
              + (f" ({llm['stopped']})" if llm.get("stopped") else ""))
    server.shutdown()
    if asked:
        print(f"{len(asked)} trees: median {median(asked)} pairs asked; {stopped} stopped by the budget")


def entries(store: Path, mode: str) -> None:
    """`lore compact --semantic --llm --dry-run` on a copy of an entries store, the stand-in answering by
    ``mode`` from the truth's duplicate groups of entries: the merges it would offer, against the truth's
    duplicate pairs, update pairs and not-conflict pairs."""
    truth = json.loads((ROOT / "bench" / "real_memory" / "truth" / f"{store.name}.json").read_text())
    store_entries = {e.id: e for e in open_memory(Workspace(store), dates=False).entries}
    same = {frozenset(" ".join(store_entries[a].content.split()) for a in pair)
            for group in truth.get("duplicates", []) for pair in itertools.combinations(
                [loc["entry"] for loc in group["locations"] if loc.get("entry") in store_entries], 2)}
    judge = Judge(mode, same, [" ".join(e.content.split()) for e in store_entries.values()])
    server, url = serve(judge)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / store.name
        shutil.copytree(store, root, symlinks=True, ignore=shutil.ignore_patterns("cache"))
        with (root / ".lore" / "config.toml").open("a") as f:
            f.write("\n[llm]\nmax_calls = 100000\nmax_tokens = 1000000000\n")
        env = {**os.environ, "LORE_LLM_BASE_URL": url, "LORE_LLM_MODEL": "stand-in"}
        done = subprocess.run([str(ROOT / ".venv" / "bin" / "lore"), "compact", "--semantic", "--llm", "--dry-run",
                               "--json"], cwd=root, env=env, capture_output=True, text=True)
    server.shutdown()
    offered = {frozenset((o["entry"], o["into"])) for o in json.loads(done.stdout)["llm"]["offered"]}
    dup = {frozenset(pair) for group in truth.get("duplicates", []) for pair in itertools.combinations(
        [loc["entry"] for loc in group["locations"] if loc.get("entry")], 2)}
    upd = {frozenset((u["old"]["id"], u["new"]["id"])) for u in truth.get("updates", [])}
    apart = {frozenset((p["a"]["id"], p["b"]["id"])) for p in truth.get("not_conflicts", []) if "id" in p["a"]}
    print(f"{store.name}: stand-in model {mode}; pairs asked {len(judge.asked)}; merges offered {len(offered)}: "
          f"duplicate pairs of the truth {len(offered & dup)}/{len(dup)}, update pairs {len(offered & upd)}/{len(upd)}, "
          f"not-conflict pairs {len(offered & apart)}/{len(apart)}, unlabelled {len(offered - dup - upd - apart)}")


def main() -> None:
    if sys.argv[1:2] == ["--entries"]:
        entries(Path(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else "oracle")
        return
    if sys.argv[1:] == ["--refusals"]:
        refusals()
        return
    if sys.argv[1:2] == ["--cost"]:
        cost(sys.argv[2:])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("store", type=Path)
    parser.add_argument("--mode", choices=["oracle", "yes"], default="oracle")
    parser.add_argument("--truth", type=Path, help="default: STORE/truth.json, else bench/real_memory/truth/<store>.json")
    parser.add_argument("--lore", default=str(ROOT / ".venv" / "bin" / "lore"))
    parser.add_argument("-v", "--verbose", action="store_true", help="list each group missed")
    args = parser.parse_args()
    truth_path = args.truth or next(p for p in (args.store / "truth.json",
                                               ROOT / "bench" / "real_memory" / "truth" / f"{args.store.name}.json") if p.exists())
    truth = json.loads(truth_path.read_text())
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / args.store.name
        shutil.copytree(args.store, root, symlinks=True, ignore=shutil.ignore_patterns("cache"))
        units = units_of(root)
        groups = []
        for group in truth.get("duplicates", []):
            members = {u.id: u for loc in group["locations"] if (u := unit_at(units, loc["file"], loc["line"])) is not None}
            if len(members) >= 2:
                groups.append((group, members))
        same = {frozenset((" ".join(a.content.split()), " ".join(b.content.split())))
                for _, members in groups for a, b in itertools.combinations(members.values(), 2)}
        judge = Judge(args.mode, same, [" ".join(u.content.split()) for u in units])
        server, url = serve(judge)
        config = root / ".lore" / "config.toml"
        config.parent.mkdir(parents=True, exist_ok=True)
        with config.open("a") as f:
            f.write("\n[llm]\nmax_calls = 100000\nmax_tokens = 1000000000\n")
        env = {**os.environ, "LORE_LLM_BASE_URL": url, "LORE_LLM_MODEL": "stand-in"}
        runs = {}
        for name, flags in (("semantic", ["--semantic"]), ("llm", ["--semantic", "--llm"])):
            done = subprocess.run([args.lore, "repeats", *flags, "--json"], cwd=root, env=env, capture_output=True, text=True)
            if done.returncode:
                sys.exit(f"lore repeats {' '.join(flags)} failed: {done.stderr}")
            runs[name] = json.loads(done.stdout)
        server.shutdown()
    print(f"{args.store.name}: {len(units)} lines, {len(groups)} duplicate groups of two lines or more; "
          f"stand-in model: {args.mode}; pairs asked: {len(judge.asked)}")
    for name, found in runs.items():
        clusters = [{r["kept"]["id"], *(c["id"] for c in r["copies"]), *(e["id"] for e in r["also"])} for r in found["repeats"]]
        hit = sum(any(set(members) <= c for c in clusters) for _, members in groups)
        judged = sum(1 for r in found["repeats"] for c in r["copies"] if c.get("judged_by"))
        print(f"  {name:<9} groups found {hit}/{len(groups)} ({hit / max(1, len(groups)):.2f}); copies only the model "
              f"judged: {judged}" + (f"; llm {found['llm']['calls']} calls" if "llm" in found else ""))
        if args.verbose and name == "llm":
            for group, members in groups:
                if any(set(members) <= c for c in clusters):
                    continue
                parts = [sorted(f"{members[i].location.path.split('/')[-1]}:{members[i].location.start_line}"
                                for i in set(members) & c) for c in clusters if len(set(members) & c) >= 2]
                print(f"    missed {group['fact']} ({len(members)} lines; joined: {parts or 'none'})")
                for member in members.values():
                    print(f"      {member.location.path}:{member.location.start_line} {' '.join(member.content.split())[:90]}")
    asked = {frozenset((" ".join(a.split()), " ".join(b.split()))) for a, b in judge.asked}

    def text(loc: dict[str, Any]) -> str:
        unit = unit_at(units, loc["file"], loc["line"])
        return " ".join(unit.content.split()) if unit is not None else ""

    pairs = truth.get("not_conflicts") or []
    reached = [p for p in pairs if frozenset((text(p["a"]), text(p["b"]))) in asked]
    print(f"  truth's pairs that are not one fact (near misses, history): {len(pairs)}, asked of the model: {len(reached)}")
    for p in reached:
        print(f"    {p['a']['text'][:70]!r} / {p['b']['text'][:70]!r} ({p.get('why', '')})")


if __name__ == "__main__":
    main()
