"""`lore context` and the context figures of `lore status`, through the real entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support import Tree, files, lore


@pytest.fixture
def ws(tree: Tree) -> Path:
    tree.write("src/db.ts", "export const db = 1;\n")
    tree.entry("a.json", {"id": "aaaa1111", "category": "decisions", "content": "Orders live in Postgres via drizzle.",
                          "refs": [{"path": "src/db.ts"}], "created": "2026-01-01T00:00:00Z"})
    tree.entry("p.json", {"id": "pin1", "category": "pitfalls", "content": "Never force-push main.", "pinned": True})
    for i in range(30):
        tree.entry(f"f{i}.json", {"id": f"fact{i:02d}", "category": "patterns", "created": "2026-06-01T00:00:00Z",
                                  "content": f"Pattern {i}: handlers validate input with zod schemas. " * 3})
    tree.write("CLAUDE.md", "# Rules\n\n- Run `pnpm test` before pushing.\n")
    return tree.root


def test_context_prints_the_rendered_memory_within_the_budget(ws: Path) -> None:
    before = files(ws)
    proc = lore("context", "--budget", "300", "--focus", "src/db.ts", cwd=ws)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("<!-- Lorekeeper memory: ") and "/300 tokens" in proc.stdout.splitlines()[0]
    assert "## Pinned\n\n- Never force-push main." in proc.stdout
    assert "- Orders live in Postgres via drizzle." in proc.stdout  # the focused file's memory, full
    assert "pnpm test" not in proc.stdout  # CLAUDE.md is loaded by the agent anyway
    again = lore("context", "--budget", "300", "--focus", "src/db.ts", cwd=ws)
    assert again.stdout == proc.stdout  # byte-identical
    assert files(ws) == before  # no memory file written (nor the journal)


def test_context_json_shape(ws: Path) -> None:
    data = json.loads(lore("context", "--budget", "250", "--format", "json", cwd=ws).stdout)
    assert set(data) == {"tokens", "budget", "entries", "omitted", "text"}
    assert data["budget"] == 250 and 0 < data["tokens"] <= 250
    assert all(set(e) == {"id", "fidelity", "score", "text"} for e in data["entries"])
    assert {e["fidelity"] for e in data["entries"]} <= {"full", "compressed", "placeholder"}
    assert len(data["entries"]) + len(data["omitted"]) == 32
    assert {"id": "pin1", "fidelity": "full"}.items() <= data["entries"][0].items()
    text = lore("context", "--budget", "250", cwd=ws).stdout
    assert text == data["text"]


def test_context_usage_errors_and_config_warnings(ws: Path, tree: Tree) -> None:
    bad = lore("context", "--format", "yaml", cwd=ws)
    assert bad.returncode == 2 and "--format must be md or json" in bad.stderr
    tree.write(".lore/config.toml", "[context]\nbudget = 'lots'\n")
    proc = lore("context", cwd=ws)
    assert proc.returncode == 0 and "budget" in proc.stderr and "/2000 tokens" in proc.stdout


def test_status_reports_the_context_figures(ws: Path, tree: Tree) -> None:
    data = json.loads(lore("status", "--json", cwd=ws).stdout)["context"]
    assert data["budget"] == 2000 and data["entries"] == 32 and data["stale"] == 0
    assert data["last_compaction"] is None and data["auto_compact"]["exceeded"] is False
    assert data["tokens"] == json.loads(lore("status", "--json", cwd=ws).stdout)["tokens"]["entries"]
    text = lore("status", cwd=ws).stdout
    assert f"Context     {data['tokens']} of 2000 tokens in the full store" in text and "last compaction never" in text
    tree.write(".lore/config.toml", "[context]\nbudget = 200\n")
    assert lore("compact", cwd=ws).returncode == 0
    after = json.loads(lore("status", "--json", cwd=ws).stdout)["context"]
    assert after["budget"] == 200 and after["auto_compact"] == {"threshold": 0.9, "at_tokens": 180, "exceeded": True,
                                                                 "compacted_since_change": True}
    assert after["last_compaction"]["operation"] in lore("log", cwd=ws).stdout
    assert "compacted since the last change: the rules have nothing left to do" in lore("status", cwd=ws).stdout


def test_reading_an_entry_raises_its_score_without_touching_memory_files(ws: Path) -> None:
    def score_of(entry_id: str) -> float:
        data = json.loads(lore("context", "--budget", "4000", "--format", "json", cwd=ws).stdout)
        return next(e["score"] for e in data["entries"] if e["id"] == entry_id)

    before_files = files(ws)
    before = score_of("fact07")
    assert lore("show", "fact07", cwd=ws).returncode == 0
    assert lore("show", "fact07", cwd=ws).returncode == 0
    assert score_of("fact07") > before  # read twice: the access signal counts it
    assert score_of("fact08") == score_of("fact08")
    assert files(ws) == before_files  # counted in .lore/cache/access.json, not in the entry or the journal
    reads = json.loads((ws / ".lore/cache/access.json").read_text())["reads"]
    assert reads["fact07"][0] == 2
