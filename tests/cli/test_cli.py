"""The `lore` command through its real entry point: JSON output, human output, exit codes, root finding."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from support import LORE, Tree, lore


def j(proc) -> dict:
    assert proc.stdout, proc.stderr
    return json.loads(proc.stdout)


@pytest.fixture
def ws(tree: Tree) -> Path:
    tree.entry("a.json", {"id": "aaaa1111", "category": "decisions", "content": "Orders live in Postgres via drizzle.",
                          "tags": ["database"], "refs": [{"path": "src/db.ts"}, {"path": "gone.ts"}], "x-extra": 1})
    tree.entry("b.json", {"id": "bbbb2222", "content": "Always use pnpm.", "merged_into": "aaaa1111"})
    tree.write("src/db.ts", "export const db = 1;\n")
    tree.write("CLAUDE.md", "# Rules\n\n- Run `pnpm test` before pushing.\n- Money is integer cents.\n")
    return tree.root


def test_the_entry_point_is_installed() -> None:
    assert LORE.is_file()


_RUN = """
import atexit, sys
atexit.register(lambda: print("exit handler ran", file=sys.stderr))
sys.argv = ["lore", *sys.argv[2:]]
from lorekeeper.surfaces.cli import main, run
run() if sys.argv[1:] and __import__("os").environ["HOW"] == "run" else main()
"""


@pytest.mark.parametrize("args", [("list", "--json"), ("check-stale", "--json"), ("no-such-command",),
                                  ("add", "Reads the password file", "--ref", "../../etc/passwd")])
def test_the_quick_exit_keeps_what_a_normal_exit_does(ws: Path, args: tuple[str, ...]) -> None:
    """`lore` (:func:`run`) skips the interpreter's teardown: its output, exit code and exit handlers are
    those of a normal exit (:func:`main`)."""
    def one(how: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", _RUN, "-", *args], cwd=ws, capture_output=True, text=True,
                              timeout=60, env={**os.environ, "NO_COLOR": "1", "HOW": how})

    normal, quick = one("main"), one("run")
    assert quick.returncode == normal.returncode and quick.stdout == normal.stdout
    assert "exit handler ran" in normal.stderr and "exit handler ran" in quick.stderr
    assert normal.returncode != 0 or json.loads(quick.stdout)  # flushed whole


def test_the_quick_exit_to_a_closed_pipe_is_a_normal_exits(ws: Path) -> None:
    """Output to a pipe the reader already closed (`lore list | head -0`): the status of a normal exit,
    without a traceback."""
    def closed(how: str) -> tuple[int, bytes]:
        proc = subprocess.Popen([sys.executable, "-c", _RUN, "-", "list"], cwd=ws, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env={**os.environ, "HOW": how})
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.close()
        return proc.wait(timeout=60), proc.stderr.read()

    (normal, _), (quick, said) = closed("main"), closed("run")
    assert quick == normal != 0 and b"Traceback" not in said


def test_init_creates_the_store_and_is_idempotent(tmp_path: Path) -> None:
    first = j(lore("init", "--json", cwd=tmp_path))
    assert set(first["created"]) == {".lore/memory/entries/", ".lore/memory/log/", ".lore/config.toml"}
    assert (tmp_path / ".lore/config.toml").is_file()
    again = lore("init", cwd=tmp_path)
    assert again.returncode == 0 and "nothing to do" in again.stdout


def test_init_uses_lean_spec_layout_when_present(tmp_path: Path) -> None:
    (tmp_path / ".lean-spec").mkdir()
    (tmp_path / ".lean-spec" / "memory").mkdir()
    data = j(lore("init", "--json", cwd=tmp_path))
    assert data["store"] == ".lean-spec/memory"
    assert (tmp_path / ".lean-spec/memory/entries").is_dir()
    j(lore("add", "LeanSpec layout works", "--json", cwd=tmp_path))
    assert len(list((tmp_path / ".lean-spec/memory/entries").glob("*.json"))) == 1


def test_add_writes_an_entry_and_skips_exact_duplicates(ws: Path) -> None:
    added = j(lore("add", "Use   **zod** for validation!", "-c", "decisions", "-t", "api", "--ref", "src/db.ts:db",
                   "--confidence", "0.8", "--json", cwd=ws))
    assert added["status"] == "added" and added["path"].startswith(".lore/memory/entries/")
    assert Path(added["path"]).name.endswith(f"-{added['id']}.json")
    data = json.loads((ws / added["path"]).read_text())
    assert data["content"] == "Use   **zod** for validation!" and data["category"] == "decisions"
    assert data["tags"] == ["api"] and data["refs"] == [{"path": "src/db.ts", "symbol": "db"}]
    assert data["agent"] == "tester" and data["confidence"] == 0.8 and data["created"].endswith("Z")

    dup = j(lore("add", "use zod for validation", "--json", cwd=ws))
    assert dup == {"status": "skipped", "reason": "duplicate", "duplicate_of": added["id"],
                   "source": added["path"], "line": 1}
    human = lore("add", "money is INTEGER cents", cwd=ws)  # already a CLAUDE.md bullet
    assert human.returncode == 0 and "skipped" in human.stdout and "CLAUDE.md:4" in human.stdout


def test_add_refuses_refs_outside_the_workspace(ws: Path) -> None:
    proc = lore("add", "Reads the password file", "--ref", "../../etc/passwd", cwd=ws)
    assert proc.returncode == 3 and "leaves the workspace root" in proc.stderr
    assert len(list((ws / ".lore/memory/entries").glob("*.json"))) == 2


def test_list_filters_and_hides_merged_entries(ws: Path) -> None:
    data = j(lore("list", "--json", cwd=ws))
    assert [e["id"] for e in data["entries"]] == ["aaaa1111", "CLAUDE.md:3", "CLAUDE.md:4"]
    assert data["entries"][0]["extra"] == {"x-extra": 1}
    assert [e["id"] for e in j(lore("list", "--all", "--json", cwd=ws))["entries"]][:2] == ["aaaa1111", "bbbb2222"]
    assert [e["id"] for e in j(lore("list", "-c", "decisions", "--json", cwd=ws))["entries"]] == ["aaaa1111"]
    assert j(lore("list", "--format", "instruction", "--json", cwd=ws))["count"] == 2
    assert lore("list", "--format", "yaml", cwd=ws).returncode == 2
    human = lore("list", cwd=ws)
    assert "aaaa1111 decisions" in human.stdout and "3 entries" in human.stdout


def test_show_gives_fields_provenance_refs_and_history(ws: Path) -> None:
    data = j(lore("show", "aaaa", "--json", cwd=ws))
    assert data["entry"]["id"] == "aaaa1111" and data["entry"]["tags"] == ["database"]
    assert data["merged_from"] == ["bbbb2222"]
    assert {r["path"]: r["status"] for r in data["refs"]} == {"src/db.ts": "exists", "gone.ts": "not found"}
    by_location = j(lore("show", "CLAUDE.md:3", "--json", cwd=ws))
    assert by_location["entry"]["content"] == "Run `pnpm test` before pushing."
    assert by_location["entry"]["section"] == "Rules"

    op = j(lore("add", "A fact to trace", "--json", cwd=ws))
    history = j(lore("show", op["id"], "--json", cwd=ws))["history"]
    assert [h["id"] for h in history] == [op["operation"]]
    human = lore("show", "aaaa1111", cwd=ws).stdout
    assert "merged from" in human and "bbbb2222" in human and "gone.ts  not found" in human and "x-extra" in human


def test_show_unknown_entry_exits_1(ws: Path) -> None:
    proc = lore("show", "zzzz9999", cwd=ws)
    assert proc.returncode == 1 and "no entry 'zzzz9999'" in proc.stderr


def test_search_json_ranks_and_skips_merged(ws: Path) -> None:
    data = j(lore("search", "postgress drizzle", "--json", cwd=ws))
    assert data["results"][0]["id"] == "aaaa1111" and data["results"][0]["score"] > 0
    assert "pnpm" not in [r["id"] for r in data["results"]]
    ids = [r["id"] for r in j(lore("search", "pnpm", "--json", cwd=ws))["results"]]
    assert ids == ["CLAUDE.md:3"]
    assert "bbbb2222" in [r["id"] for r in j(lore("search", "pnpm", "--all", "--json", cwd=ws))["results"]]
    assert "nothing in memory matches" in lore("search", "kubernetes", cwd=ws).stdout


def test_log_and_undo_round_trip(ws: Path) -> None:
    empty = lore("log", cwd=ws)
    assert "journal is empty" in empty.stdout
    first = j(lore("add", "First fact", "--json", cwd=ws))
    second = j(lore("add", "Second fact", "--json", cwd=ws))
    ops = j(lore("log", "--json", cwd=ws))["operations"]
    assert [o["id"] for o in ops] == [second["operation"], first["operation"]]
    assert ops[0]["op"] == "add" and "Second fact" in ops[0]["reason"] and ops[0]["argv"].startswith("lore add")

    undone = j(lore("undo", "--last", "--json", cwd=ws))
    assert undone["undone"] == [second["operation"]]
    assert not (ws / second["path"]).exists() and (ws / first["path"]).exists()
    again = j(lore("undo", "--last", "--json", cwd=ws))
    assert again["undone"] == [first["operation"]]
    assert lore("undo", "--last", cwd=ws).returncode == 1
    refused = lore("undo", first["operation"], cwd=ws)
    assert refused.returncode == 3 and "already undone" in refused.stderr
    log = j(lore("log", "--json", cwd=ws))["operations"]
    assert {o["id"]: o["undone_by"] for o in log}[first["operation"]] is not None
    assert lore("undo", "no-such-op", cwd=ws).returncode == 1
    assert lore("undo", cwd=ws).returncode == 2


def test_log_names_a_few_files_of_a_large_operation(ws: Path) -> None:
    for n in range(7):
        lore("add", f"Fact number {n}", cwd=ws)
    verified = lore("verify", "--all", cwd=ws)
    assert verified.returncode == 0, verified.stderr
    text = lore("log", cwd=ws).stdout
    files = max((o["files"] for o in j(lore("log", "--json", cwd=ws))["operations"]), key=len)
    line = next(row for row in text.splitlines() if "lore verify --all" in row and files[0] in row)
    assert len(files) > 5 and f"and {len(files) - 5} more (--json lists them)" in line
    assert files[0] in line and files[5] not in line


def test_undo_refuses_over_a_hand_edit(ws: Path) -> None:
    added = j(lore("add", "Will be edited", "--json", cwd=ws))
    path = ws / added["path"]
    path.write_text(path.read_text().replace("Will be edited", "Edited by hand"))
    proc = lore("undo", added["operation"], cwd=ws)
    assert proc.returncode == 3 and "changed after operation" in proc.stderr
    assert "Edited by hand" in path.read_text()


def test_status_summarises(ws: Path) -> None:
    data = j(lore("status", "--json", cwd=ws))
    assert data["entries"] == 4 and data["live"] == 3
    assert data["files"] == {"entry": 2, "mif": 0, "instruction": 1}
    assert data["by_category"] == {"instructions": 2, "decisions": 1}
    assert set(data["tokens"]) == {"entries", "instructions"} and 10 < sum(data["tokens"].values()) < 60
    assert data["findings"] == {"error": 0, "warning": 0, "info": 0}
    text = lore("status", cwd=ws).stdout
    assert "3 live entries" in text
    assert f"{data['tokens']['entries']} tokens in entries, {data['tokens']['instructions']} in instruction files" in text


def test_validate_reports_findings_and_exits_1_on_errors(ws: Path, tree: Tree) -> None:
    ok = lore("validate", cwd=ws)
    assert ok.returncode == 0 and "0 error(s)" in ok.stdout
    tree.entry("broken.json", '{\n  "id": "x",\n  "content": "y",,\n}')
    tree.entry("typed.json", '{\n  "id": "t",\n  "content": "z",\n  "tags": "one"\n}')
    proc = lore("validate", "--json", cwd=ws)
    assert proc.returncode == 1
    findings = {f["kind"]: f for f in j(proc)["findings"]}
    assert findings["invalid-json"]["source"] == ".lore/memory/entries/broken.json"
    assert findings["invalid-json"]["line"] == 3
    assert findings["invalid-field"]["line"] == 4 and findings["invalid-field"]["field"] == "tags"
    human = lore("validate", cwd=ws)
    assert ".lore/memory/entries/broken.json:3: error: invalid JSON" in human.stdout
    listing = lore("list", cwd=ws)  # other commands keep working and point at validate
    assert listing.returncode == 0 and "lore validate" in listing.stderr and "aaaa1111" in listing.stdout


def test_runs_from_a_subfolder_or_with_root(ws: Path, tmp_path: Path) -> None:
    sub = ws / "src"
    assert j(lore("status", "--json", cwd=sub))["root"] == str(ws.resolve())
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert j(lore("--root", str(ws), "status", "--json", cwd=elsewhere))["root"] == str(ws.resolve())
    proc = lore("status", cwd=elsewhere)
    assert proc.returncode == 2 and "no Lorekeeper workspace" in proc.stderr
    assert lore("--root", str(tmp_path / "missing"), "status", cwd=elsewhere).returncode == 2


def test_version_and_help(tmp_path: Path) -> None:
    assert lore("--version", cwd=tmp_path).stdout.startswith("lore ")
    helped = lore("--help", cwd=tmp_path).stdout
    for command in ("init", "add", "list", "show", "search", "log", "undo", "status", "validate"):
        assert command in helped
