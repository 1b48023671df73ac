"""fork_map: the same list as the plain loop, whether worker processes compute it or not."""

from __future__ import annotations

import shutil
import sys

import pytest

from lorekeeper.infra import workers
from lorekeeper.infra.workers import fork_map, worker_count
from lorekeeper.refs.index import CodeIndex
from lorekeeper.workspace import Workspace
from support import Tree, lore

needs_fork = pytest.mark.skipif(sys.platform != "linux", reason="workers are forked on Linux only")


@needs_fork
def test_the_workers_give_the_loops_list_in_order() -> None:
    items = [f"text {i}" * (i % 7) for i in range(1000)]
    offset = 3  # a closure: fn is inherited by the fork, never pickled
    expected = [len(x) + offset for x in items]
    assert fork_map(lambda x: len(x) + offset, items, workers=1) == expected
    assert fork_map(lambda x: len(x) + offset, items, workers=2) == expected
    assert fork_map(lambda x: len(x) + offset, items, workers=3) == expected
    assert fork_map(lambda x: len(x) + offset, items, workers=2, here=True) == expected
    assert fork_map(lambda x: len(x) + offset, items, workers=3, here=True) == expected
    assert fork_map(lambda x: len(x) + offset, items[:1], workers=2, here=True) == expected[:1]
    assert fork_map(len, [], workers=2) == []


@needs_fork
def test_an_error_in_a_worker_is_the_serial_paths_error() -> None:
    def fn(x: int) -> int:
        if x == 537:
            raise KeyError(f"no {x}")
        return x

    with pytest.raises(KeyError, match="no 537"):
        fork_map(fn, list(range(1000)), workers=2)
    with pytest.raises(KeyError, match="no 537"):  # raised here, or in a worker and computed again here
        fork_map(fn, list(range(1000)), workers=2, here=True)
    with pytest.raises(KeyError, match="no 537"):
        fork_map(fn, list(range(600)), workers=2, here=True)  # (537 in this process's own last span)


def test_how_many_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workers, "_allowed", True)  # as the command line does
    monkeypatch.delenv("LORE_WORKERS", raising=False)
    assert worker_count(10, min_items=100) == 1  # too few to be worth a process
    monkeypatch.setenv("LORE_WORKERS", "1")
    assert worker_count(10**6) == 1
    monkeypatch.setenv("LORE_WORKERS", "3")
    if sys.platform == "linux":
        assert worker_count(10) == 3  # LORE_WORKERS is the user's choice...
        assert worker_count(2) == 2  # ...never more workers than items
    monkeypatch.setattr(workers, "_allowed", False)
    assert worker_count(10**6) == 1, "a process that did not allow it (a server, a test runner) never forks"


def _modules(tree: Tree, n: int) -> list[str]:
    paths = []
    for k in range(n):
        path = f"pkg/m{k}.py"
        tree.write(path, f"class C{k}:\n    def run(self):\n        return {k}\n\n\ndef f{k}(x):\n    return x\n")
        paths.append(path)
    tree.write("README.md", "not code\n")
    return paths


@needs_fork
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
