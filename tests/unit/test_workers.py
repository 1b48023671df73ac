"""Work split over forked processes finds what one process finds, and is only split where allowed."""

from __future__ import annotations

import os
import shutil

import pytest

from lorekeeper import workers
from lorekeeper.refs.index import CodeIndex
from lorekeeper.workspace import Workspace
from support import Tree, lore


def test_fork_map_keeps_order_and_runs_closures_in_children(monkeypatch) -> None:
    offset = 7
    parent = os.getpid()
    results = workers.fork_map(lambda share: [(x + offset, os.getpid() != parent) for x in share], list(range(10)), 3)
    assert [x for part in results for x, _ in part] == list(range(7, 17))
    assert all(child for part in results for _, child in part)
    assert workers.fork_map(lambda share: sum(share), [1, 2, 3], 1) == [6]  # one worker: this process


def test_only_a_process_that_allows_it_forks(monkeypatch) -> None:
    monkeypatch.setenv("LORE_WORKERS", "4")
    monkeypatch.setattr(workers, "_allowed", False)
    assert workers.count(10_000, 10) == 1  # a server, or a test runner: never
    monkeypatch.setattr(workers, "_allowed", True)
    assert workers.count(10_000, 10) == (4 if os.name == "posix" and os.uname().sysname == "Linux" else 1)
    assert workers.count(2, 10) == 2  # LORE_WORKERS is the user's choice, bounded by the work
    monkeypatch.setenv("LORE_WORKERS", "0")
    assert workers.count(5, 10) == 1  # too little work to repay the workers


def _modules(tree: Tree, n: int) -> list[str]:
    paths = []
    for k in range(n):
        path = f"pkg/m{k}.py"
        tree.write(path, f"class C{k}:\n    def run(self):\n        return {k}\n\n\ndef f{k}(x):\n    return x\n")
        paths.append(path)
    tree.write("README.md", "not code\n")
    return paths


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork-only")
def test_parsing_ahead_in_workers_equals_parsing_on_demand(tree: Tree, monkeypatch) -> None:
    paths = _modules(tree, 12)
    monkeypatch.setattr(workers, "_allowed", True)
    monkeypatch.setenv("LORE_WORKERS", "3")
    monkeypatch.setattr("lorekeeper.refs.index.PARSE_AHEAD_MIN_FILES", 2)
    ahead = CodeIndex(Workspace(tree.root))
    assert ahead.parse_ahead([*paths, "README.md", "pkg/gone.py"]) == 12
    assert ahead.parse_ahead(paths) == 0  # known now: nothing parsed twice
    on_demand = CodeIndex(Workspace(tree.root))
    monkeypatch.setattr(workers, "_allowed", False)
    for path in paths:
        assert ahead.symbols(path) == on_demand.symbols(path)
        assert ahead.file_hash(path) == on_demand.file_hash(path)
    ahead.save()  # the symbol cache learnt them: a later process parses none of them
    later = CodeIndex(Workspace(tree.root))
    monkeypatch.setattr(workers, "_allowed", True)
    assert later.parse_ahead(paths) == 0
    shutil.rmtree(tree.root / ".lore" / "cache")
    assert CodeIndex(Workspace(tree.root)).parse_ahead(paths) == 12


def test_verify_in_worker_processes_records_what_one_process_records(tree: Tree) -> None:
    """`lore verify --all` (the command line may fork) with the work split and not."""
    paths = _modules(tree, 6)
    for k, path in enumerate(paths):
        tree.entry(f"e{k}.json", {"id": f"e{k}", "content": f"`f{k}` returns x", "refs": [{"path": path, "symbol": f"f{k}"}]})
    copy = tree.root.parent / "copy"
    shutil.copytree(tree.root, copy)
    env_split = {"LORE_WORKERS": "2"}
    assert lore("verify", "--all", cwd=tree.root, env=env_split).returncode == 0
    assert lore("verify", "--all", cwd=copy, env={"LORE_WORKERS": "1"}).returncode == 0
    import json

    def prints(root) -> dict[str, object]:
        folder = root / ".lore" / "memory" / "entries"
        return {p.name: json.loads(p.read_text())["fingerprints"] for p in sorted(folder.glob("*.json"))}

    assert prints(tree.root) == prints(copy) and all(prints(copy).values())
