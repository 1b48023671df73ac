"""kill -9 at every file write of every kind of operation: the process dies (``os._exit``, no cleanup)
just before its N-th rename or unlink — the two calls that commit a write or a delete — for every N.
The next command must finish or roll back the interrupted operation: no live memory hidden, nothing
left dangling for ``validate``, no temporary files, and ``undo`` working without ``--force``."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lorekeeper.facts import open_memory
from lorekeeper.store import Journal
from lorekeeper.workspace import Workspace
from support import REPO, Tree

DRIVER = r'''
import os, sys
sys.path.insert(0, {tests!r})
kill_at = {kill_at}
calls = 0
real_replace, real_unlink = os.replace, os.unlink


def counted(real):
    def call(*args, **kwargs):
        global calls
        calls += 1
        if calls == kill_at:
            os._exit(9)  # as kill -9: nothing runs after this
        return real(*args, **kwargs)
    return call


from datetime import datetime, timezone
from lorekeeper.analysis.compaction import CompactionConfig, apply_plan, plan_compaction
from lorekeeper.analysis.compaction.actions import keep_both, keep_one, merge_into
from lorekeeper.analysis.staleness import StalenessChecker, archive_entry, verify_entries
from lorekeeper.facts import open_memory
from lorekeeper.store import Journal, Store
from lorekeeper.workspace import Workspace

ws = Workspace({root!r})
store = open_memory(ws)
by_id = store.by_id()
kind = {kind!r}
journal = Journal(ws)
now = datetime(2026, 11, 1, tzinfo=timezone.utc)
os.replace, os.unlink = counted(real_replace), counted(real_unlink)
if kind == "add":
    store.add("A brand new fact about releases", journal=journal)
elif kind == "merge":
    merge_into(store, by_id["dup-old"], by_id["dup-new"], journal, "test")
elif kind == "keep-newer":
    keep_one(store, by_id["vitest"], by_id["jest"], journal)
elif kind == "keep-both":
    keep_both(store, by_id["vitest"], by_id["jest"], journal)
elif kind == "archive":
    archive_entry(store, by_id["note"], journal, "test")
elif kind == "update":
    store.update(by_id["note"], {{"pinned": True, "tags": ["a", "b"]}}, journal=journal, op="update", reason="test")
elif kind == "verify":
    verify_entries(StalenessChecker(ws, store), [by_id["ref"], by_id["CLAUDE.md:1"]], journal)
elif kind == "compact":
    config = CompactionConfig().with_overrides(consolidate=True, consolidate_unread=True)
    apply_plan(plan_compaction(store, config, now=now), store, journal)
elif kind == "undo":
    journal.undo_last()
print("writes", calls)
'''

KINDS = ["add", "merge", "keep-newer", "keep-both", "archive", "update", "verify", "compact", "undo"]


def build(root: Path) -> None:
    tree = Tree(root)
    tree.write("src/app.ts", "export function main() {}\n")
    tree.write("CLAUDE.md", "- Start in `src/app.ts`.\n")
    tree.write(".lore/memory/mif/m.memory.md", "---\nid: m\ntags: [api]\n---\n\n# Handlers return JSON\n")
    entries = [
        {"id": "dup-old", "content": "Always use pnpm.", "created": "2026-01-01T00:00:00Z", "refs": [{"path": "src/app.ts"}]},
        {"id": "dup-new", "content": "always use PNPM", "created": "2026-02-01T00:00:00Z", "tags": ["x"]},
        {"id": "jest", "content": "Tests run with Jest", "created": "2026-01-05T00:00:00Z"},
        {"id": "vitest", "content": "Tests run with Vitest", "created": "2026-06-05T00:00:00Z"},
        {"id": "note", "content": "Release on Tuesdays.", "created": "2026-03-01T00:00:00Z"},
        {"id": "ref", "content": "The entry point is main.", "refs": [{"path": "src/app.ts", "symbol": "main"}]},
        {"id": "old", "content": "Node 18.", "created": "2026-01-01T00:00:00Z"},
        {"id": "new", "content": "Node 20 now.", "created": "2026-05-01T00:00:00Z", "supersedes": ["old"]},
        {"id": "ttl", "content": "Code freeze this week.", "ttl": "P7D", "created": "2026-01-01T00:00:00Z"},
        {"id": "long", "content": "\n".join(f"Step {i}: check." for i in range(130)), "created": "2026-01-01T00:00:00Z"},
    ]
    entries += [{"id": f"api{i}", "content": f"API rule {i}.", "tags": ["api"], "category": "conventions",
                 "created": f"2026-04-0{i + 1}T00:00:00Z"} for i in range(3)]
    entries += [{"id": f"cold{i}", "content": f"Old deploy note {i}.", "tags": ["deploy"], "category": "patterns",
                 "created": f"2025-0{i + 1}-01T00:00:00Z", "access_count": 0} for i in range(2)]
    for entry in entries:
        tree.entry(f"{entry['id']}.json", entry)


def run(root: Path, kind: str, kill_at: int) -> subprocess.CompletedProcess[str]:
    script = DRIVER.format(tests=str(REPO / "tests"), kill_at=kill_at, root=str(root), kind=kind)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)


def state(root: Path) -> dict[str, bytes]:
    """Every file of the workspace but the journal, the lock and the caches."""
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*")
            if p.is_file() and "/log/" not in str(p) and "/.lore/cache" not in str(p)}


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory) -> dict[str, tuple[dict[str, bytes], dict[str, bytes], int]]:
    """For each kind: the files before, after an uninterrupted run, and how many writes it makes."""
    out = {}
    for kind in KINDS:
        root = tmp_path_factory.mktemp(f"clean-{kind}")
        build(root)
        if kind == "undo":
            assert run(root, "compact", 0).returncode == 0
        before = state(root)
        proc = run(root, kind, 0)
        assert proc.returncode == 0, proc.stderr
        out[kind] = (before, state(root), int(proc.stdout.split()[-1]))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_a_kill_at_any_write_is_finished_or_rolled_back(tmp_path: Path, outcomes, kind: str) -> None:
    before, after, writes = outcomes[kind]
    assert writes >= 1
    template = tmp_path / "template"
    build(template)
    if kind == "undo":
        assert run(template, "compact", 0).returncode == 0
    recorded = len(list((template / ".lore/memory/log").glob("*.json")))
    for kill_at in range(1, writes + 1):
        root = tmp_path / f"kill-{kill_at}"
        shutil.copytree(template, root, symlinks=True)
        proc = run(root, kind, kill_at)
        assert proc.returncode == 9, proc.stderr
        ws = Workspace(root)
        listed = open_memory(ws)  # the next command, whichever it is (a plain `lore list`): recovery first
        now = state(root)
        assert not [f for f in listed.findings if f.kind in ("dangling-link", "orphaned-merge")]
        journal = Journal(ws)
        assert now in (before, after), f"{kind} killed at write {kill_at}: neither rolled back nor finished"
        store = open_memory(ws)
        assert not [f for f in store.findings if f.kind in ("dangling-link", "orphaned-merge")], kill_at
        # The caches take no lock: their leftovers are swept by age (test_cache_leftovers_are_swept).
        assert not [p for p in root.rglob("*.tmp") if "/.lore/cache/" not in p.as_posix()], \
            f"temporary files left after write {kill_at}"
        records, findings = journal.records()
        assert not findings
        if now == before:  # rolled back: the journal holds no record of what did not happen
            assert len(records) == recorded, f"{kind} killed at write {kill_at}: records of an undone change"
        else:
            assert len(records) > recorded
        journal.undo_last()  # never needs --force
        assert not [f for f in open_memory(ws).findings if f.kind in ("dangling-link", "orphaned-merge")]


def test_the_driver_reaches_every_kind(outcomes) -> None:
    for kind, (before, after, writes) in outcomes.items():
        assert before != after, f"{kind} changed nothing"
        if kind in ("merge", "compact", "undo", "verify"):
            assert writes >= 3, kind  # several files: a batch
    assert json.loads(outcomes["keep-both"][1][".lore/memory/entries/vitest.json"])["coexists_with"] == ["jest"]
