"""A cloned repository is someone else's: its journal, batch markers and configuration must never make
Lorekeeper write code, replay changes it did not make, or read code as memory. Each test reproduces one
attack with its exact input (docs/security.md)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lorekeeper.facts import open_memory
from lorekeeper.store import Journal, Operation
from lorekeeper.store.journal import FileChange, read_batch, recover, recover_explicitly
from lorekeeper.workspace import Workspace
from support import Tree, git, lore

PAYLOAD = b"import os; os.system('touch /tmp/lore-pwned')\n"


def blob(data: bytes | None) -> dict[str, Any] | None:
    return None if data is None else {"text": data.decode(), "sha256": hashlib.sha256(data).hexdigest()}


def plant(root: Path, files: list[dict[str, Any]], rid: str = "20260101-000000-cccccc",
          marker: dict[str, Any] | None = None) -> Path:
    """A journal record naming ``files`` and a batch marker naming it, as a repository would commit them."""
    log = root / ".lore/memory/log"
    log.mkdir(parents=True, exist_ok=True)
    (log / f"{rid}.json").write_text(json.dumps({
        "id": rid, "time": "2026-01-01T00:00:00+00:00", "command": "x", "argv": "", "op": "add", "reason": "",
        "entries": [], "undoes": None, "files": files}))
    path = log / f".batch-{rid}.json"
    path.write_text(json.dumps(marker if marker is not None else {"records": [rid]}))
    return path


def outside_store(root: Path) -> dict[str, bytes]:
    """Every file of the workspace outside ``.lore/memory`` and the caches."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*")
            if p.is_file() and not p.relative_to(root).as_posix().startswith((".lore/memory/", ".lore/cache/"))}


def test_the_journal_cannot_plant_code_through_a_widened_config(tree: Tree) -> None:
    """The attack as found: the repository's config widens what counts as memory to a sitecustomize.py
    and a script in node_modules, and a committed record and batch marker "roll back" to a payload."""
    git(tree.root, "init", "-q")
    tree.write(".lore/config.toml", '[store]\ninstruction_files = [".venv/**/sitecustomize.py", "node_modules/vite/bin/vite.js"]\n')
    vite = tree.write("node_modules/vite/bin/vite.js", "#!/usr/bin/env node\nimport('../dist/node/cli.js')\n")
    site = ".venv/lib/python3.11/site-packages/sitecustomize.py"
    (tree.root / site).parent.mkdir(parents=True)
    marker = plant(tree.root, [
        {"path": site, "before": blob(PAYLOAD), "after": None},
        {"path": "node_modules/vite/bin/vite.js", "before": blob(PAYLOAD), "after": blob(vite.read_bytes())},
    ])
    before = outside_store(tree.root)
    status = lore("status", cwd=tree.root)
    assert "Traceback" not in status.stderr
    store = open_memory(Workspace(tree.root))  # what the editor does when the folder is opened
    assert outside_store(tree.root) == before
    assert not (tree.root / site).exists()
    assert marker.exists()  # not replayed, not removed: the user decides
    # The widening itself is refused, with a message; the marker is reported.
    assert any("may match files that are not Markdown" in p for p in store.ws.config.problems)
    assert store.ws.config.instruction_files == []
    validate = lore("validate", "--json", cwd=tree.root)
    kinds = {f["kind"] for f in json.loads(validate.stdout)["findings"]}
    assert {"untrusted-batch-marker", "invalid-config"} <= kinds
    # Even asked explicitly, an unsigned batch is not replayed without --force, and never outside memory.
    assert "left alone" in lore("recover", cwd=tree.root).stdout
    lore("recover", "--force", cwd=tree.root)
    assert outside_store(tree.root) == before


def test_a_marker_signed_with_another_key_is_not_replayed_even_inside_the_store(tree: Tree) -> None:
    entry = tree.entry("e.json", {"id": "e", "content": "Deploys go out on Tuesdays."})
    now = entry.read_bytes()
    forged = {"records": ["20260101-000000-cccccc"], "digests": {}, "mac": "0" * 64}
    plant(tree.root, [{"path": ".lore/memory/entries/e.json", "before": None, "after": blob(now)}], marker=forged)
    store = open_memory(Workspace(tree.root))
    assert entry.read_bytes() == now and [e.id for e in store.live()] == ["e"]
    assert store.recovered == []


def _killed_batch(tree: Tree, changes: list[FileChange]) -> None:
    """Apply a batch as Lorekeeper does, then put the files back as a kill part way through would leave
    them: what a crash on this machine looks like (the marker signed with this user's key)."""
    ws = Workspace(tree.root)
    journal = Journal(ws, argv=["lore", "test"])
    marker_seen: list[bytes] = []
    real_delete = os.unlink

    def keep_marker(path: Any, *args: Any, **kwargs: Any) -> None:
        if Path(path).name.startswith(".batch-"):
            marker_seen.append(Path(path).read_bytes())
            return  # the process "died" before removing its marker
        real_delete(path, *args, **kwargs)

    os.unlink = keep_marker  # type: ignore[assignment]
    try:
        journal.apply(Operation(op="merge", reason="test", changes=changes))
    finally:
        os.unlink = real_delete  # type: ignore[assignment]
    assert marker_seen


def test_our_own_interrupted_batch_is_rolled_back_in_the_store_and_reported(tree: Tree) -> None:
    entry = tree.entry("e.json", {"id": "e", "content": "Deploys go out on Tuesdays."})
    before = entry.read_bytes()
    after = before.replace(b"}", b', "merged_into": "x"}', 1)
    _killed_batch(tree, [FileChange(".lore/memory/entries/e.json", before, after)])
    assert entry.read_bytes() == after
    proc = lore("list", cwd=tree.root)
    assert "lore: an interrupted batch of 1 operation(s) was rolled back (1 file(s) restored)" in proc.stderr
    assert entry.read_bytes() == before
    assert not list((tree.root / ".lore/memory/log").glob(".batch-*"))


def test_automatic_recovery_never_writes_an_instruction_file_and_lore_recover_does(tree: Tree) -> None:
    claude = tree.write("CLAUDE.md", "- Use pnpm.\n")
    agents = tree.write("AGENTS.md", "- Use pnpm.\n")
    _killed_batch(tree, [FileChange("CLAUDE.md", b"- Use pnpm.\n", b"- Use pnpm, never npm.\n"),
                         FileChange("AGENTS.md", b"- Use pnpm.\n", b"")])
    agents.write_bytes(b"- Use pnpm.\n")  # killed between the two instruction files
    ws = Workspace(tree.root)
    messages = recover(ws)
    assert claude.read_bytes() == b"- Use pnpm, never npm.\n"  # left: it is outside the store
    assert messages and "run `lore recover`" in messages[0]
    assert read_batch(ws, next((tree.root / ".lore/memory/log").glob(".batch-*"))).trusted
    messages = recover_explicitly(ws)
    assert "rolled back (1 file(s) restored)" in messages[0]
    assert claude.read_bytes() == b"- Use pnpm.\n" and agents.read_bytes() == b"- Use pnpm.\n"


def test_a_batch_that_wrote_every_file_is_finished_not_rolled_back(tree: Tree) -> None:
    claude = tree.write("CLAUDE.md", "- Use pnpm.\n")
    _killed_batch(tree, [FileChange("CLAUDE.md", b"- Use pnpm.\n", b"- Use pnpm, never npm.\n")])
    messages = recover(Workspace(tree.root))
    assert "had written every file" in messages[0]
    assert claude.read_bytes() == b"- Use pnpm, never npm.\n"
    records, _ = Journal(Workspace(tree.root)).records()
    assert len(records) == 1  # kept: `lore undo` reverses it


PATHS = [".lore/memory/entries/e.json", ".lore/memory/entries/new.json", ".lore/memory/index.md", "CLAUDE.md",
         "AGENTS.md", "docs/agents/a.md", "package.json", ".git/hooks/pre-commit", "node_modules/x/CLAUDE.md",
         ".venv/lib/python3.11/site-packages/sitecustomize.py", "src/app.py", "memory-bank/x.md/run.py",
         ".cursor/rules/a.mdc/evil.js", ".lore/config.toml", ".lore/memory/log/x.json", "../outside.md"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(changes=st.lists(st.tuples(st.sampled_from(PATHS), st.booleans(), st.booleans()), min_size=1, max_size=6),
       config=st.sampled_from(["", '[store]\ninstruction_files = ["**/*"]\n', '[store]\ninstruction_files = ["**/*.md", "src/*"]\n']),
       signed=st.sampled_from(["none", "garbage", "old-format"]))
def test_recovery_never_writes_outside_the_store_whatever_the_repository_holds(
        tmp_path_factory, changes: list[tuple[str, bool, bool]], config: str, signed: str) -> None:
    root = tmp_path_factory.mktemp("ws")
    tree = Tree(root)
    git(root, "init", "-q")
    tree.write(".lore/config.toml", config)
    for path in PATHS:
        if not path.startswith(("..", ".lore/memory/log", ".lore/config")):
            tree.write(path, f"original {path}\n")
    files = []
    for path, creates, deletes in changes:
        current = None if path.startswith("..") else (root / path).read_bytes() if (root / path).exists() else None
        files.append({"path": path, "before": None if creates else blob(PAYLOAD), "after": None if deletes else blob(current or b"x")})
    marker = {"none": None, "garbage": {"records": ["20260101-000000-cccccc"], "digests": {}, "mac": "ab" * 32},
              "old-format": {"records": ["20260101-000000-cccccc"]}}[signed]
    plant(root, files, marker=marker)
    before = outside_store(root)
    open_memory(Workspace(root))
    Journal(Workspace(root))
    assert outside_store(root) == before
    assert not (root.parent / "outside.md").exists()


# -- git run on someone else's repository ------------------------------------------------------------

def test_a_malicious_git_config_runs_nothing(tree: Tree, tmp_path: Path) -> None:
    """fsmonitor, clean / smudge filters, textconv and signature programs named in .git/config are what
    git would run while Lorekeeper reads history: each one, if run, leaves a file behind."""
    marks = tmp_path / "marks"
    marks.mkdir()
    tree.write("src/app.py", "def main():\n    return 1\n")
    tree.write("CLAUDE.md", "- Start in `src/app.py` (`main`).\n- Run `scripts/old.sh` to deploy.\n")
    tree.write("scripts/old.sh", "echo deploy\n")
    commit_all = ["add", "-A"]
    git(tree.root, "init", "-q")
    git(tree.root, *commit_all)
    git(tree.root, "commit", "-q", "-m", "one")
    (tree.root / "scripts/old.sh").unlink()
    git(tree.root, *commit_all)
    git(tree.root, "commit", "-q", "-m", "two")
    hook = tmp_path / "hook.sh"
    hook.write_text(f"#!/bin/sh\ntouch {marks}/ran-$1\ncat\n")
    hook.chmod(0o755)
    with (tree.root / ".git/config").open("a") as config:
        config.write(f'[core]\n\tfsmonitor = "{hook} fsmonitor"\n'
                     f'[filter "evil"]\n\tclean = "{hook} clean"\n\tsmudge = "{hook} smudge"\n\tprocess = "{hook} process"\n'
                     f'[diff "evil"]\n\ttextconv = "{hook} textconv"\n\tcommand = "{hook} diffcommand"\n'
                     f'[log]\n\tshowSignature = true\n[gpg]\n\tprogram = "{hook} gpg"\n')
    tree.write(".gitattributes", "* filter=evil diff=evil\n")
    tree.write("src/app.py", "def main():\n    return 2\n")  # a change in the work tree: status and blame read it
    for command in (["check-stale"], ["context"], ["status"], ["check-stale", "--json"]):
        proc = lore(*command, cwd=tree.root)
        assert "Traceback" not in proc.stderr, proc.stderr
    assert sorted(p.name for p in marks.iterdir()) == []
    findings = json.loads(lore("check-stale", "--json", cwd=tree.root).stdout)["findings"]
    assert any("scripts/old.sh" in f["message"] for f in findings)  # history was read all the same


# -- links that loop -------------------------------------------------------------------------------

def test_links_that_loop_are_findings_and_the_entries_stay_live(tree: Tree) -> None:
    tree.entry("a.json", {"id": "a", "content": "Use pnpm.", "merged_into": "b"})
    tree.entry("b.json", {"id": "b", "content": "Use pnpm for installs.", "merged_into": "a"})
    tree.entry("s.json", {"id": "s", "content": "Deploy on Tuesdays.", "superseded_by": "s"})
    tree.entry("ok.json", {"id": "ok", "content": "Tests run with Vitest."})
    store = tree.store()
    assert sorted(e.id for e in store.live()) == ["a", "b", "ok", "s"]
    cycles = {f.entry: f for f in store.findings if f.kind == "link-cycle"}
    assert set(cycles) == {"a", "b", "s"}
    assert "a → b → a" in cycles["a"].message and cycles["a"].related and cycles["a"].related[0]["entry"] == "b"
    assert "names this entry itself" in cycles["s"].message
    validate = lore("validate", "--json", cwd=tree.root)
    assert sum(f["kind"] == "link-cycle" for f in json.loads(validate.stdout)["findings"]) == 3


def test_no_command_writes_a_loop(tree: Tree) -> None:
    from lorekeeper.analysis.compaction.actions import keep_both, keep_one, merge_into

    tree.entry("a.json", {"id": "a", "content": "Use pnpm."})
    tree.entry("b.json", {"id": "b", "content": "Use pnpm for installs.", "merged_into": "a"})
    store = tree.store()
    a, b = store.by_id()["a"], store.by_id()["b"]
    for act in (lambda: merge_into(store, a, a, tree.journal(), "x"), lambda: keep_one(store, a, a, tree.journal()),
                lambda: keep_both(store, a, a, tree.journal()), lambda: merge_into(store, a, b, tree.journal(), "x")):
        with pytest.raises(ValueError, match="named twice|leads back"):
            act()
    assert not list((tree.root / ".lore/memory/log").glob("*.json"))
    assert [e.id for e in tree.store().live()] == ["a"]


def test_one_entry_named_twice_is_verified_once(tree: Tree) -> None:
    tree.write("src/app.py", "def main():\n    return 1\n")
    tree.entry("a.json", {"id": "a", "content": "Start in `src/app.py`.", "refs": [{"path": "src/app.py"}]})
    proc = lore("verify", "a", "a", "--json", cwd=tree.root)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["verified"] == ["a"]
