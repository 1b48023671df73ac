"""`lore compact` and `lore gc` through the real entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support import Tree, lore


@pytest.fixture
def ws(tree: Tree) -> Path:
    tree.entry("a.json", {"id": "a", "content": "Always use pnpm.", "created": "2026-01-01T00:00:00Z"})
    tree.entry("b.json", {"id": "b", "content": "always use PNPM", "created": "2026-02-01T00:00:00Z"})
    tree.entry("t.json", {"id": "t", "content": "Code freeze this week.", "ttl": "P7D", "created": "2026-01-01T00:00:00Z"})
    long_text = "\n".join(f"Step {i}: check the dashboards." for i in range(130))
    tree.entry("l.json", {"id": "l", "content": long_text, "created": "2026-01-01T00:00:00Z"})
    return tree.root


def snapshot(root: Path) -> dict[Path, bytes]:
    """Every file but the git-ignored caches (a dry run may warm them: the verifier's summaries, vectors)."""
    cache = root / ".lore" / "cache"
    return {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and cache not in p.parents}


def test_dry_run_prints_a_diff_and_writes_nothing(ws: Path) -> None:
    before = snapshot(ws)
    proc = lore("compact", "--dry-run", cwd=ws)
    assert proc.returncode == 0, proc.stderr
    assert '+  "merged_into": "b"' in proc.stdout and "+++ b/.lore/memory/index.md" in proc.stdout
    assert "would apply: 1 dedup, 1 archive, 1 compress" in proc.stdout and "nothing was written" in proc.stdout
    assert snapshot(ws) == before
    data = json.loads(lore("compact", "--dry-run", "--json", cwd=ws).stdout)
    assert [(o["op"], o["sources"]) for o in data["operations"]] == [("dedup", ["a"]), ("archive", ["t"]), ("compress", ["l"])]
    assert data["operations"][0]["result"]["id"] == "b" and data["operations"][0]["reason"]
    assert data["tokens_before"] > data["tokens_after"] > 0 and data["dry_run"] is True
    assert snapshot(ws) == before


def test_apply_log_and_undo(ws: Path) -> None:
    before = snapshot(ws)
    data = json.loads(lore("compact", "--json", cwd=ws).stdout)
    assert len(data["journal"]) == 4  # three operations and the views
    assert json.loads((ws / ".lore/memory/entries/a.json").read_text())["merged_into"] == "b"
    index = (ws / ".lore/memory/index.md").read_text()
    assert "always use PNPM" in index and "Always use pnpm." not in index
    log = json.loads(lore("log", "--json", cwd=ws).stdout)["operations"]
    assert [o["op"] for o in log][:4] == ["views", "compress", "archive", "dedup"]
    assert log[2]["reason"].startswith("TTL P7D expired on 2026-01-08")
    assert lore("undo", "--last", cwd=ws).returncode == 0
    after = {p: b for p, b in snapshot(ws).items() if "/log/" not in str(p)}
    assert after == before


def test_only_and_budget_and_bad_operation(ws: Path) -> None:
    data = json.loads(lore("compact", "--only", "dedup", "--budget", "150", "--dry-run", "--json", cwd=ws).stdout)
    assert [o["op"] for o in data["operations"]] == ["dedup"]
    bad = lore("compact", "--only", "shred", cwd=ws)
    assert bad.returncode == 2 and "unknown operation(s): shred" in bad.stderr


def test_gc_flags(ws: Path) -> None:
    both = json.loads(lore("gc", "--dry-run", "--json", cwd=ws).stdout)
    assert [o["op"] for o in both["operations"]] == ["archive", "compress"]
    only = json.loads(lore("gc", "--compress-only", "--compress-threshold", "200", "--dry-run", "--json", cwd=ws).stdout)
    assert only["operations"] == []
    aged = json.loads(lore("gc", "--archive", "--max-age", "30", "--dry-run", "--json", cwd=ws).stdout)
    # Conventions (the default category) last: only the TTL note goes, the pnpm rule stays however old.
    assert sorted(o["sources"][0] for o in aged["operations"]) == ["t"]
    applied = lore("gc", "--archive", cwd=ws)
    assert applied.returncode == 0 and "applied: 1 archive" in applied.stdout
    assert json.loads((ws / ".lore/memory/entries/t.json").read_text())["archived"] is True


def test_apply_exactly_the_previewed_plan(ws: Path, tree: Tree) -> None:
    saved = ws / "plan.json"
    saved.write_text(lore("compact", "--dry-run", "--json", cwd=ws).stdout)
    plan = json.loads(saved.read_text())["plan"]
    tree.entry("c.json", {"id": "c", "content": "ALWAYS use pnpm!", "created": "2026-03-01T00:00:00Z"})  # memory moves on
    before = snapshot(ws)
    refused = lore("compact", "--plan", str(saved), cwd=ws)
    assert refused.returncode == 3 and f"changed since plan {plan} was previewed" in refused.stderr
    assert snapshot(ws) == before
    again = lore("compact", "--dry-run", cwd=ws)
    fresh = again.stdout.split("lore compact --plan ")[1].split("`")[0]
    applied = lore("compact", "--plan", fresh, cwd=ws)
    assert applied.returncode == 0, applied.stderr
    assert json.loads((ws / ".lore/memory/entries/a.json").read_text())["merged_into"] == "c"
    assert lore("compact", "--plan", "nonsense.json", cwd=ws).returncode == 2
