"""The verifier's summaries and verdicts kept in ``.lore/cache/facts.json``: a second run parses nothing,
a changed text is parsed again, a changed rule set or a corrupt file is never trusted."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from lorekeeper.analysis.compaction import CompactionConfig, plan_compaction
from lorekeeper.analysis.compaction.rules import SearchMemo
from lorekeeper.analysis.diagnose import memory_findings
from lorekeeper.facts import parse, remembered, verify
from lorekeeper.infra import cache
from support import Tree

NOW = datetime(2026, 11, 1, 12, tzinfo=UTC)

#: The texts the verifier read since the last fresh start (its tokenizer runs for a parse or a summary).
_read: list[str] = []


@pytest.fixture(autouse=True)
def _count_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    real = parse.lex

    def counting(text: str):
        _read.append(text)
        return real(text)

    monkeypatch.setattr(parse, "lex", counting)  # parse() reads with it
    monkeypatch.setattr(verify, "lex", counting)  # and so does a summary
    _read.clear()


def _fresh_process() -> None:
    """What a new process starts with: no summary, statement, verdict or cache file in memory."""
    for cached in (parse.parse, verify._summary):
        cached.cache_clear()
    cache._kept.clear()
    remembered._decoded.clear()
    _read.clear()


def _parses() -> int:
    return len(_read)


def _store(tree: Tree) -> None:
    texts = {
        "a": "Always use pnpm for package management.",
        "b": "always use **pnpm** for package management",
        "c": "The API timeout is 30s.",
        "d": "The API timeout is 10s.",
        "e": "Run unit tests with `pytest -q`.",
        "f": "Deploys go through `make deploy` after review.",
    }
    for i, (name, text) in enumerate(texts.items()):
        tree.entry(f"{name}.json", {"id": name, "content": text, "created": f"2026-10-{i + 1:02d}T10:00:00Z"})


def _plan(tree: Tree):
    plan = plan_compaction(tree.store(), CompactionConfig(), now=NOW)
    return [(op.op, op.sources, op.reason) for op in plan.operations], plan.conflicts


def test_a_second_run_parses_nothing_and_plans_the_same(tree: Tree) -> None:
    _store(tree)
    _fresh_process()
    first = _plan(tree)
    assert _parses() >= 6
    assert (tree.root / ".lore/cache/facts.json").is_file()
    assert first[0] and first[1], "the fixture has a merge and a contradiction"
    _fresh_process()
    assert _plan(tree) == first
    assert _parses() == 0


def test_a_changed_text_is_parsed_again_and_the_rest_is_reused(tree: Tree) -> None:
    _store(tree)
    _fresh_process()
    _plan(tree)
    tree.entry("d.json", {"id": "d", "content": "The API timeout is 20s.", "created": "2026-10-04T10:00:00Z"})
    _fresh_process()
    ops, conflicts = _plan(tree)
    assert 1 <= _parses() <= 3  # the new text, and the pair it now forms with c
    assert [c["new"] for c in conflicts] == ["20s"]
    stored = json.loads((tree.root / ".lore/cache/facts.json").read_text())
    assert len(stored["texts"]) == 6, "the old text's summary is dropped once no entry says it"


def _tampered(tree: Tree, tamper) -> tuple[object, Path]:
    """Plan once, let ``tamper`` rewrite the stored records, start afresh; the first plan and the file."""
    _store(tree)
    _fresh_process()
    first = _plan(tree)
    path = tree.root / ".lore/cache/facts.json"
    stored = json.loads(path.read_text())
    tamper(stored)
    path.write_text(json.dumps(stored))
    _fresh_process()
    return first, path


def test_another_rule_set_reads_none_of_the_old_records(tree: Tree) -> None:
    def forge(stored: dict) -> None:  # a record from other rules: same texts, another verdict
        stored["version"] = "older-rules"
        stored["pairs"] = {key: ["same", "forged", None, None] for key in stored["pairs"]}

    first, path = _tampered(tree, forge)
    assert _plan(tree) == first
    assert _parses() >= 6
    assert json.loads(path.read_text())["version"] != "older-rules"


def test_a_corrupt_cache_costs_parsing_never_a_wrong_answer(tree: Tree) -> None:
    def corrupt(stored: dict) -> None:
        stored["texts"] = {key: ["x", "not a size", 3, None] for key in stored["texts"]}
        stored["pairs"] = {key: ["maybe", 1, 2] for key in stored["pairs"]}

    first, path = _tampered(tree, corrupt)
    assert _plan(tree) == first
    path.write_bytes(b"\x00{not json")
    _fresh_process()
    assert _plan(tree) == first


def test_the_editor_findings_share_the_cache(tree: Tree) -> None:
    _store(tree)
    _fresh_process()
    kinds = sorted(f.kind for f in memory_findings(tree.store(), CompactionConfig()))
    assert "near-duplicate" in kinds or "duplicate" in kinds
    assert "contradiction" in kinds
    _fresh_process()
    assert sorted(f.kind for f in memory_findings(tree.store(), CompactionConfig())) == kinds
    assert _parses() == 0


def test_cache_leftovers_are_swept_once_clearly_abandoned(tree: Tree) -> None:
    """A cache write killed half-way leaves a temporary file; the next cache write removes it once it is
    older than any write still in progress (caches take no lock), and leaves a fresh one alone."""
    import os
    import time

    from lorekeeper.infra import cache

    folder = tree.root / ".lore/cache"
    folder.mkdir(parents=True)
    old = folder / ".facts.json.abc123.tmp"
    fresh = folder / ".facts.json.def456.tmp"
    old.write_bytes(b"{half")
    fresh.write_bytes(b"{half")
    past = time.time() - cache.STALE_TEMP_SECONDS - 60
    os.utime(old, (past, past))
    assert cache.write(tree.root, folder, "x.json", b"{}")
    assert not old.exists() and fresh.exists()


def test_the_conflict_search_is_reused_only_for_the_same_memory(tree: Tree) -> None:
    _store(tree)
    first = _plan(tree)
    path = tree.root / ".lore/cache/candidates.json"
    stored = path.read_bytes()
    assert json.loads(stored)["pairs"], "the fixture has candidate pairs"
    assert _plan(tree) == first and path.read_bytes() == stored
    tree.entry("g.json", {"id": "g", "content": "The API timeout is 45s.", "created": "2026-10-09T10:00:00Z"})
    _ops, conflicts = _plan(tree)
    assert json.loads(path.read_bytes())["key"] != json.loads(stored)["key"]
    assert any("g" in c["entries"] for c in conflicts), "the new entry is searched, not an old list reused"


def test_a_cache_file_is_parsed_again_only_once_it_changed(tree: Tree) -> None:
    """A process that reads a cache file again (the language server after each save) is handed what it
    parsed, until the file is replaced or removed; what it writes it is handed back without a parse."""
    folder = tree.root / ".lore/cache"
    assert cache.write(tree.root, folder, "x.json", b'{"n": 1}')
    first = cache.read_json_kept(tree.root, folder, "x.json")
    assert first == {"n": 1} and cache.read_json_kept(tree.root, folder, "x.json") is first
    assert cache.write(tree.root, folder, "x.json", b'{"n": 2}')  # same size, another file
    assert cache.read_json_kept(tree.root, folder, "x.json") == {"n": 2}
    written = {"n": 3}
    assert cache.write_json_kept(tree.root, folder, "x.json", written, b'{"n": 3}')
    assert cache.read_json_kept(tree.root, folder, "x.json") is written
    (folder / "x.json").unlink()
    assert cache.read_json_kept(tree.root, folder, "x.json") is None
    kept = {"n": 4}
    cache.keep_json(tree.root, folder, "x.json", kept)  # not written: handed back while nothing is there
    assert cache.read_json_kept(tree.root, folder, "x.json") is kept
    assert not (folder / "x.json").exists()
    assert cache.write(tree.root, folder, "x.json", b'{"n": 5}')  # another process wrote it: that wins
    assert cache.read_json_kept(tree.root, folder, "x.json") == {"n": 5}


def test_the_editor_keeps_what_a_save_taught_it_and_writes_it_at_the_next_full_check(tree: Tree) -> None:
    """After a save the language server finds duplicates with ``save=False``: the cache file is not
    rewritten, the new text's summary is kept in the process (not parsed again at the next save), and a
    search that saves writes it."""
    _store(tree)
    _fresh_process()
    search = SearchMemo()
    first = sorted(f.kind for f in memory_findings(tree.store(), CompactionConfig(), search))
    path = tree.root / ".lore/cache/facts.json"
    on_disk = path.read_bytes()
    tree.entry("d.json", {"id": "d", "content": "The API timeout is 20s.", "created": "2026-10-04T10:00:00Z"})
    _read.clear()
    after = memory_findings(tree.store(), CompactionConfig(), search, save=False)
    assert _parses() >= 1 and path.read_bytes() == on_disk
    assert sorted(f.kind for f in after) == first, "20s against 30s: still a contradiction"
    verify._summary.cache_clear()
    parse.parse.cache_clear()
    _read.clear()
    assert sorted(f.kind for f in memory_findings(tree.store(), CompactionConfig(), search, save=False)) == first
    assert _parses() == 0, "what the save taught was kept in the process"
    memory_findings(tree.store(), CompactionConfig(), search)
    assert path.read_bytes() != on_disk
    _fresh_process()
    assert sorted(f.kind for f in memory_findings(tree.store(), CompactionConfig())) == first
    assert _parses() == 0, "and written by the search that saves"
