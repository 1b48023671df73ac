"""Warm check-stale: cached verdicts are reused only while nothing they depend on changed."""

from __future__ import annotations

import json

from lorekeeper.analysis.staleness.cache import check_cached
from lorekeeper.workspace import Workspace
from support import Tree, git


def setup(tree: Tree) -> None:
    tree.write("a.py", "def alpha(): pass\n")
    tree.write("b.py", "def beta(): pass\n")
    tree.entry("a.json", {"id": "a", "content": "alpha", "refs": ["a.py:alpha"]})
    tree.entry("b.json", {"id": "b", "content": "beta", "refs": ["b.py:beta"]})
    tree.write("CLAUDE.md", "- Config lives in `conf/app.toml`.\n- Call `beta_helper` for retries.\n")
    git(tree.root, "init", "-q")
    git(tree.root, "add", "-A")
    git(tree.root, "commit", "-q", "-m", "initial")


def run(tree: Tree):
    return check_cached(Workspace(tree.root))


def test_warm_run_reuses_everything_and_finds_the_same(tree: Tree) -> None:
    setup(tree)
    cold = run(tree)
    warm = run(tree)
    assert cold.reused == 0 and cold.checked == 4
    assert warm.reused == warm.checked == 4 and warm.checker is None
    assert [f.model_dump() for f in warm.findings] == [f.model_dump() for f in cold.findings]


def test_a_changed_dependency_rechecks_only_its_memory_file(tree: Tree) -> None:
    setup(tree)
    run(tree)
    tree.write("b.py", "def gamma(): pass\n")
    report = run(tree)
    # b.json depends on b.py; CLAUDE.md names a symbol defined nowhere, so it depends on every code file.
    assert report.checker is not None and sorted(report.checker.checked) == ["CLAUDE.md:1", "CLAUDE.md:2", "b"]
    assert report.reused == 1  # a.json
    assert [(f.entry, f.kind) for f in report.findings] == [("b", "stale-symbol"), ("CLAUDE.md:1", "unresolved-path")]


def test_a_path_that_appears_clears_its_finding(tree: Tree) -> None:
    setup(tree)
    assert [f.kind for f in run(tree).findings] == ["unresolved-path"]
    tree.write("conf/app.toml", "debug = false\n")
    assert run(tree).findings == []


def test_a_new_definition_anywhere_revisits_symbol_lookups(tree: Tree) -> None:
    tree.write("old.py", "def beta_helper(): pass\n")
    setup(tree)
    (tree.root / "old.py").unlink()
    git(tree.root, "commit", "-qam", "drop helper")
    assert [f.kind for f in run(tree).findings] == ["unresolved-path", "stale-symbol"]
    tree.write("new.py", "def beta_helper(): return 1\n")
    assert [f.kind for f in run(tree).findings] == ["unresolved-path"]


def test_a_new_commit_voids_the_cache(tree: Tree) -> None:
    setup(tree)
    run(tree)
    tree.write("c.py", "x = 1\n")
    git(tree.root, "add", "-A")
    git(tree.root, "commit", "-q", "-m", "more")
    assert run(tree).reused == 0


def _code_workspace(tree: Tree) -> None:
    """Five modules; entries name their functions in refs (file and symbol), in text only, and by a
    module-qualified name; one function is then removed and one body changed after verification."""
    for k in range(5):
        tree.write(f"pkg/mod{k}.py", "".join(f"def f{k}_{i}(x):\n    return x + {i}\n\n" for i in range(4)))
    for k in range(5):
        tree.entry(f"r{k}.json", {"id": f"r{k}", "content": f"`f{k}_1` adds one",
                                  "refs": [{"path": f"pkg/mod{k}.py", "symbol": f"f{k}_1"}]})
        tree.entry(f"t{k}.json", {"id": f"t{k}", "content": f"Call `f{k}_2` or `mod{k}.f{k}_3` to add more."})
    git(tree.root, "init", "-q")
    git(tree.root, "add", "-A")
    git(tree.root, "commit", "-q", "-m", "initial")
    from support import lore

    lore("verify", "--all", cwd=tree.root)
    tree.write("pkg/mod0.py", "def f0_2(x):\n    return x\n")  # f0_1 removed
    tree.write("pkg/mod1.py", "def f1_1(x):\n    return x * 100\n")  # f1_1's body changed
    git(tree.root, "commit", "-q", "-am", "refactor", date="2030-01-01T00:00:00Z")  # after the verification


def test_each_code_file_is_parsed_at_most_once_a_run(tree: Tree, monkeypatch) -> None:
    from collections import Counter

    import lorekeeper.refs.symbols as symbols

    _code_workspace(tree)
    parsed: Counter[bytes] = Counter()
    real_parse = symbols._python

    def counting(data: bytes, found) -> None:  # the real parser runs; the test counts what it is given
        parsed[data] += 1
        real_parse(data, found)

    monkeypatch.setattr(symbols, "_python", counting)
    monkeypatch.setenv("LORE_WORKERS", "1")
    import shutil

    shutil.rmtree(tree.root / ".lore" / "cache", ignore_errors=True)
    report = run(tree)
    kinds = {(f.entry, f.kind) for f in report.findings}
    assert ("r0", "stale-symbol") in kinds and ("r1", "changed-since-verified") in kinds
    today = {(tree.root / f"pkg/mod{k}.py").read_bytes() for k in range(5)}
    assert parsed and max(parsed[data] for data in today) <= 1, parsed.most_common(3)
    # files unchanged since they were verified are not parsed at all (their symbols were recorded then)
    assert {data for data in today if parsed[data]} <= {(tree.root / "pkg/mod0.py").read_bytes(),
                                                        (tree.root / "pkg/mod1.py").read_bytes()} | {
        (tree.root / f"pkg/mod{k}.py").read_bytes() for k in range(2, 5)}


def test_checking_in_worker_processes_finds_what_one_process_finds(tree: Tree, monkeypatch) -> None:
    import shutil

    from lorekeeper.infra import workers

    _code_workspace(tree)
    monkeypatch.setenv("LORE_WORKERS", "1")
    alone = run(tree)
    cache = tree.root / ".lore" / "cache" / "stale.json"
    alone_cache = json.loads(cache.read_text())
    shutil.rmtree(tree.root / ".lore" / "cache")
    monkeypatch.setenv("LORE_WORKERS", "3")
    monkeypatch.setattr(workers, "_allowed", True)  # as the command line does (pytest's process did not)
    shared = run(tree)
    assert alone.findings and [f.model_dump() for f in shared.findings] == [f.model_dump() for f in alone.findings]
    # The workers write most records themselves (as JSON text), this process the rest: the same cache.
    shared_cache = json.loads(cache.read_text())
    assert shared_cache == alone_cache and len(shared_cache["files"]) == 10
    assert any(record["any_code"] for record in shared_cache["files"].values())
    assert shared.checked == alone.checked == 10
    warm = run(tree)  # the workers' verdicts were cached with their dependencies
    assert warm.reused == warm.checked == 10
    tree.write("pkg/mod2.py", "def other(x):\n    return x\n")
    after = run(tree)
    # r2 and t2 (they name mod2) and the memories that depend on every code file are checked again
    assert after.checked == 10 and 0 < after.reused <= 8
    assert any(f.entry == "r2" and f.kind == "stale-symbol" for f in after.findings)
