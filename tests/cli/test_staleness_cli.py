"""`lore check-stale`, `lore verify` and `lore review` through the real entry point."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from support import LORE, Tree, git, lore


@pytest.fixture
def repo(tree: Tree) -> Path:
    tree.write("package.json", json.dumps({"scripts": {"test": "vitest", "test:e2e": "playwright test"}}, indent=2))
    tree.write("src/lib/logger.ts", "export const logger = console;\n")
    tree.write("CLAUDE.md", "# Rules\n\n- Run `pnpm test` often.\n- Run `pnpm test:e2e` before pushing.\n"
                            "- Logs go through `src/lib/logger.ts`.\n")
    tree.entry("m.json", {"id": "m1", "content": "Logger setup is in src/lib/logger.ts", "refs": ["src/lib/logger.ts"]})
    git(tree.root, "init", "-q")
    git(tree.root, "add", "-A")
    git(tree.root, "commit", "-q", "-m", "initial", date="2026-01-10T10:00:00Z")
    return tree.root


def refactor(root: Path) -> None:
    (root / "package.json").write_text(json.dumps({"scripts": {"test": "vitest"}}, indent=2))
    git(root, "mv", "src/lib/logger.ts", "src/lib/log.ts")
    git(root, "commit", "-qam", "Drop e2e; rename logger", date="2026-02-20T10:00:00Z")


def test_clean_workspace_exits_0(repo: Path) -> None:
    proc = lore("check-stale", cwd=repo)
    assert proc.returncode == 0 and "every reference holds" in proc.stdout
    assert json.loads(lore("check-stale", "--json", cwd=repo).stdout) == {"findings": [], "suppressed": []}


def test_human_and_json_output_after_a_refactor(repo: Path) -> None:
    refactor(repo)
    proc = lore("check-stale", cwd=repo)
    assert proc.returncode == 1
    sha = git(repo, "rev-parse", "--short=7", "HEAD").strip()
    assert (f'CLAUDE.md:4: error: script "test:e2e" is not defined in package.json '
            f"(removed in {sha} on 2026-02-20: Drop e2e; rename logger) (stale-script)") in proc.stdout.splitlines()
    data = json.loads(lore("check-stale", "--json", cwd=repo).stdout)
    moved = [f for f in data["findings"] if f["kind"] == "moved-path"]
    assert {f["source"] for f in moved} == {"CLAUDE.md", ".lore/memory/entries/m.json"}
    assert moved[0] == {**moved[0], "severity": "error", "ref": "src/lib/logger.ts",
                        "fix": {"action": "replace-ref", "old": "src/lib/logger.ts", "new": "src/lib/log.ts"}}
    assert set(moved[0]) == {"entry", "source", "line", "kind", "severity", "message", "ref", "fix", "commit"}
    assert moved[0]["commit"] == git(repo, "rev-parse", "HEAD").strip()
    only = json.loads(lore("check-stale", "--json", ".lore/memory", cwd=repo).stdout)["findings"]
    assert {f["source"] for f in only} == {".lore/memory/entries/m.json"}
    missing = lore("check-stale", "docs/nothing-here", cwd=repo)
    assert missing.returncode == 2 and "no memory files at docs/nothing-here" in missing.stderr


def test_sarif_and_github_annotations_with_suppressions(repo: Path) -> None:
    """Code scanning reads SARIF (suppressed findings listed with their justification), a workflow reads
    GitHub's annotation commands; both say what the text output says."""
    claude = repo / "CLAUDE.md"
    claude.write_text(claude.read_text().replace("- Run `pnpm test:e2e` before pushing.",
                                                 "<!-- lore-ignore: e2e moved to the platform repo, kept for history -->\n"
                                                 "- Run `pnpm test:e2e` before pushing."))
    git(repo, "commit", "-qam", "note", date="2026-01-11T10:00:00Z")
    refactor(repo)
    sarif = json.loads(lore("check-stale", "--format", "sarif", cwd=repo).stdout)
    assert sarif["version"] == "2.1.0" and sarif["$schema"].endswith("sarif-2.1.0.json")
    run = sarif["runs"][0]
    assert run["tool"]["driver"]["name"] == "Lorekeeper"
    rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
    results = run["results"]
    assert all(rules[r["ruleIndex"]] == r["ruleId"] for r in results)
    shown = {(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
              r["locations"][0]["physicalLocation"]["region"]["startLine"], r["ruleId"], r["level"]): r for r in results}
    assert set(shown) == {("CLAUDE.md", 5, "stale-script", "error"), ("CLAUDE.md", 6, "moved-path", "error"),
                          (".lore/memory/entries/m.json", 1, "moved-path", "error")}
    assert shown[("CLAUDE.md", 5, "stale-script", "error")]["suppressions"] == [
        {"kind": "inSource", "status": "accepted", "justification": "CLAUDE.md:4: e2e moved to the platform repo, kept for history"}]
    assert shown[("CLAUDE.md", 6, "moved-path", "error")]["fixes"] == [{"description": {"text": "use src/lib/log.ts"}}]
    annotations = lore("check-stale", "--format", "github", cwd=repo)
    assert annotations.returncode == 1
    lines = annotations.stdout.splitlines()
    assert len(lines) == 2 and all(line.startswith("::error file=") for line in lines)
    assert any(line.startswith("::error file=CLAUDE.md,line=6,title=Lorekeeper moved-path::") for line in lines)
    text = lore("check-stale", cwd=repo).stdout
    assert "2 error(s), 0 other finding(s); 1 ignored (lore-ignore comments, [[staleness.ignore]] rules)" in text
    data = json.loads(lore("check-stale", "--json", cwd=repo).stdout)
    assert [f["kind"] for f in data["suppressed"]] == ["stale-script"] and len(data["findings"]) == 2
    assert lore("check-stale", "--format", "xml", cwd=repo).returncode == 2


def test_mark_then_review_updates_the_reference(repo: Path) -> None:
    refactor(repo)
    marked = json.loads(lore("check-stale", "--mark", "--json", cwd=repo).stdout)
    assert marked["marked"] == ["m1"]
    entry = json.loads((repo / ".lore/memory/entries/m.json").read_text())
    assert "was moved to `src/lib/log.ts`" in entry["stale_reason"]

    env = {**os.environ, "NO_COLOR": "1"}
    # Three items in file order: m1 (moved: update), CLAUDE.md:4 (script: keep), CLAUDE.md:5 (moved: update).
    proc = subprocess.run([str(LORE), "review"], cwd=repo, input="u\nk\nu\n", capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "3 changes made" in proc.stdout
    assert "`src/lib/log.ts`" in (repo / "CLAUDE.md").read_text()
    entry = json.loads((repo / ".lore/memory/entries/m.json").read_text())
    assert entry["refs"] == ["src/lib/log.ts"] and "stale_reason" not in entry
    assert entry["content"] == "Logger setup is in src/lib/log.ts"
    remaining = json.loads(lore("check-stale", "--json", cwd=repo).stdout)["findings"]
    # Kept on purpose (verified after the script went): still shown, as information, not hidden.
    assert [(f["kind"], f["severity"]) for f in remaining] == [("unresolved-script", "info")]
    ops = [o["op"] for o in json.loads(lore("log", "--json", cwd=repo).stdout)["operations"]]
    assert ops[:3] == ["update-ref", "verify", "update-ref"]
    # Input that ends early is a quit, not a crash.
    git(repo, "rm", "-q", "src/lib/log.ts")
    git(repo, "commit", "-qm", "Drop the logger", date="2026-03-01T10:00:00Z")
    refactor_again = subprocess.run([str(LORE), "review"], cwd=repo, input="", capture_output=True, text=True, env=env, timeout=60)
    assert refactor_again.returncode == 0 and "0 changes made" in refactor_again.stdout


def test_verify_records_and_reports_changes(repo: Path) -> None:
    out = json.loads(lore("verify", "m1", "--json", cwd=repo).stdout)
    assert out["verified"] == ["m1"] and len(out["operations"]) == 1
    assert json.loads((repo / ".lore/memory/entries/m.json").read_text())["fingerprints"]
    (repo / "src/lib/logger.ts").write_text("export const logger = { info() {} };\n")
    proc = lore("check-stale", cwd=repo)
    assert proc.returncode == 0  # a change since verification is a warning
    assert "changed since this memory was verified on" in proc.stdout
    assert lore("verify", cwd=repo).returncode == 2
    everything = json.loads(lore("verify", "--all", "--json", cwd=repo).stdout)
    assert len(everything["verified"]) == 4
    assert lore("check-stale", cwd=repo).stdout.strip().endswith("every reference holds")
