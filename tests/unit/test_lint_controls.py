"""What a linter's users control: ``lore-ignore`` comments in memory files, ``[staleness]`` skip and
ignore rules (with a reason and an expiry date), and links to headings between memory files."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from lorekeeper.analysis.staleness import StalenessChecker, check_workspace
from lorekeeper.analysis.staleness.cache import check_cached
from lorekeeper.core.model import Finding, ReplaceTextFix, Severity
from lorekeeper.facts import open_memory
from lorekeeper.refs.anchors import anchors, slug
from lorekeeper.workspace import Workspace
from support import Tree, commit


@pytest.fixture
def gone(tree: Tree) -> Tree:
    """``src/old.ts`` and ``src/gone.ts`` named by memory, then deleted."""
    tree.write("src/old.ts", "export {}\n")
    tree.write("src/gone.ts", "export {}\n")
    tree.write("src/keep.ts", "export {}\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    return tree


def _delete(tree: Tree) -> None:
    for name in ("src/old.ts", "src/gone.ts"):
        (tree.root / name).unlink()
    commit(tree, "remove", date="2026-02-10T10:00:00Z")


def _lines(findings) -> list[tuple[int | None, str, str | None]]:
    return [(f.line, f.kind, f.ref) for f in findings]


def test_lore_ignore_comments_cover_their_memory_and_say_why(gone: Tree) -> None:
    gone.write("CLAUDE.md", "# Notes\n\n"
                            "- Logging lives in `src/old.ts`.\n"                                   # 3: reported
                            "<!-- lore-ignore: the migration guide still names it -->\n"           # 4
                            "- The helper is `src/gone.ts`,\n  next to `src/old.ts`.\n"            # 5-6: both covered
                            "- Also `src/gone.ts` <!-- lore-ignore missing-path: other kind -->\n"  # 7: reported
                            "- And `src/old.ts` <!-- lore-ignore stale-path, moved-path: vendored -->\n"  # 8: covered
                            "- Bare `src/gone.ts` <!-- lore-ignore -->\n"                          # 9: reported, + a finding
                            "\n```md\n<!-- lore-ignore -->\n```\n")                                # 12: an example
    commit(gone, "notes", date="2026-01-11T10:00:00Z")
    _delete(gone)
    ws = Workspace(gone.root)
    findings, checker = check_workspace(ws)
    assert _lines(findings) == [(3, "stale-path", "src/old.ts"), (7, "stale-path", "src/gone.ts"),
                                (9, "stale-path", "src/gone.ts")]
    assert sorted((f.line, f.suppressed) for f in checker.suppressed()) == [
        (5, "CLAUDE.md:4: the migration guide still names it"), (6, "CLAUDE.md:4: the migration guide still names it"),
        (8, "CLAUDE.md:8: vendored")]
    problems = [f for f in checker.store.findings if f.kind == "invalid-suppression"]
    assert [(f.line, f.severity) for f in problems] == [(9, Severity.warning)]
    assert "gives no reason" in problems[0].message
    report = check_cached(ws)  # the command line's path: the same split, kept in the cache
    assert _lines(report.findings) == _lines(findings) and len(report.suppressed) == 3
    again = check_cached(Workspace(gone.root))
    assert again.reused and _lines(again.findings) == _lines(findings) and len(again.suppressed) == 3


def test_what_the_working_tree_says_first_is_what_the_verdicts_will_cover(gone: Tree) -> None:
    """Before git is asked (an editor shows it first): the files memories name that are not there, as
    information, where history then gives a verdict; none a comment covers for some verdict it may give
    (it would be shown, then taken back)."""
    gone.write("CLAUDE.md", "# Notes\n\n"
                            "- Logging lives in `src/old.ts`.\n"                                   # 3
                            "<!-- lore-ignore: the migration guide still names it -->\n"           # 4
                            "- The helper is `src/gone.ts`.\n"                                     # 5: covered
                            "- And `src/old.ts` <!-- lore-ignore stale-path, moved-path: vendored -->\n"  # 6: covered
                            "- A bare name, `old.ts`, and `src/keep.ts`.\n")                       # 7: history's
    commit(gone, "notes", date="2026-01-11T10:00:00Z")
    _delete(gone)
    ws = Workspace(gone.root)
    first: list[list[Finding]] = []
    findings = StalenessChecker(ws, open_memory(ws)).check(on_tree=first.append)
    [tree] = first
    assert [(f.line, f.kind, f.severity, f.ref) for f in tree] == [(3, "unresolved-path", Severity.info, "src/old.ts")]
    assert "file `src/old.ts` is not in the working tree (its history is being read)" in tree[0].message
    # what history then says: of it, and of a bare name (which file it was, only history tells)
    assert _lines(findings) == [(3, "stale-path", "src/old.ts"), (7, "stale-path", "old.ts")]


def test_a_comment_naming_an_unknown_kind_ignores_nothing(gone: Tree) -> None:
    gone.write("CLAUDE.md", "- Logging lives in `src/old.ts` <!-- lore-ignore stale-paths: typo -->\n")
    commit(gone, "notes", date="2026-01-11T10:00:00Z")
    _delete(gone)
    findings, checker = check_workspace(Workspace(gone.root))
    assert _lines(findings) == [(1, "stale-path", "src/old.ts")]
    [problem] = [f for f in checker.store.findings if f.kind == "invalid-suppression"]
    assert "unknown finding kind stale-paths" in problem.message


def test_config_rules_match_kind_path_and_ref_until_they_expire(gone: Tree) -> None:
    yesterday, tomorrow = date.today() - timedelta(days=1), date.today() + timedelta(days=1)
    gone.write("CLAUDE.md", "- Logging lives in `src/old.ts`.\n- The helper is `src/gone.ts`.\n")
    gone.write("AGENTS.md", "- Logging lives in `src/old.ts`.\n- The helper is `src/gone.ts`.\n")
    gone.write("docs/archive/CLAUDE.md", "- Ancient: `src/old.ts`.\n")
    gone.write(".lore/config.toml", f"""
[staleness]
skip = ["docs/archive/**"]

[[staleness.ignore]]
ref = "src/old*"
path = "AGENTS.md"
reason = "AGENTS.md is regenerated next week"
until = {tomorrow.isoformat()}

[[staleness.ignore]]
kind = "staleness"
path = "CLAUDE.md"
ref = "src/gone.ts"
reason = "expired rule"
until = {yesterday.isoformat()}

[[staleness.ignore]]
kind = "stale-nothing"
reason = "a typo"

[[staleness.ignore]]
reason = "hides everything"

[[staleness.ignore]]
kind = "stale-path"
""")
    commit(gone, "notes", date="2026-01-11T10:00:00Z")
    _delete(gone)
    ws = Workspace(gone.root)
    findings, checker = check_workspace(ws)
    assert [(f.source, f.line, f.ref) for f in findings] == [
        ("AGENTS.md", 2, "src/gone.ts"), ("CLAUDE.md", 1, "src/old.ts"), ("CLAUDE.md", 2, "src/gone.ts")]
    assert findings[2].message.endswith(f"(the ignore rule .lore/config.toml [[staleness.ignore]] #2 expired on {yesterday})")
    [hidden] = checker.suppressed()
    assert (hidden.source, hidden.suppressed) == (
        "AGENTS.md", ".lore/config.toml [[staleness.ignore]] #1: AGENTS.md is regenerated next week")
    assert not any(f.source.startswith("docs/archive") for f in [*findings, *checker.suppressed()])
    problems = sorted(f.message.split(": ", 1)[1] for f in checker.store.findings if f.kind == "invalid-config")
    assert problems == [
        "names no kind, path or ref, so it would hide every finding; rule ignored",
        "reason: a reason is required; rule ignored",
        "unknown finding kind 'stale-nothing' (docs/staleness.md#finding-kinds lists them); rule ignored"]


def test_slugs_follow_github() -> None:
    assert slug("Set up the project") == "set-up-the-project"
    assert slug("`lore check-stale [PATH...]`") == "lore-check-stale-path"
    assert slug("Sub _x_ & y") == "sub-x--y"
    assert slug("snake_case_name") == "snake_case_name"
    assert slug("[Links](https://example.com) and *emphasis*") == "links-and-emphasis"
    assert slug("Été 2026: ça marche!") == "été-2026-ça-marche"
    text = ("---\ntitle: x\n---\n# Dev\n## Setup\n## Setup\nIntro\n===\n### Custom {#my-id}\n<a name=\"legacy\"></a>\n"
            "```\n# not a heading\n```\n")
    assert anchors(text) == {"dev", "setup", "setup-1", "intro", "custom", "custom-my-id", "my-id", "legacy"}


def test_links_to_headings_of_memory_files(tree: Tree) -> None:
    tree.write("docs/dev.md", "# Dev\n\n## Set up the project\n\n## Tests\n")
    tree.write("CLAUDE.md", "# Rules\n\n## Links\n\n"
                            "- Read [setup](docs/dev.md#set-up-the-projet) and [tests](docs/dev.md#tests).\n"  # 5
                            "- See [above](#links), [nowhere](#nowhere), [a line](docs/dev.md#L3).\n"          # 6
                            "- Elsewhere: [site](https://example.com/x.md#gone), [out](../x.md#gone).\n")
    tree.write(".github/copilot-instructions.md", "- Tests: [dev](../docs/dev.md#tests), [bad](../docs/dev.md#test).\n")
    tree.entry("m.json", {"id": "m1", "content": "See [dev](docs/dev.md#nothing-checked-in-json)"})
    commit(tree, "docs")
    findings, _ = check_workspace(Workspace(tree.root))
    got = [(f.source, f.line, f.kind, f.severity, f.message) for f in findings]
    assert got == [
        (".github/copilot-instructions.md", 1, "missing-anchor", Severity.warning,
         "no heading of `docs/dev.md` has the anchor #test (did you mean #tests?)"),
        ("CLAUDE.md", 5, "missing-anchor", Severity.warning,
         "no heading of `docs/dev.md` has the anchor #set-up-the-projet (did you mean #set-up-the-project?)"),
        ("CLAUDE.md", 6, "missing-anchor", Severity.warning, "no heading of this file has the anchor #nowhere")]
    assert findings[1].fix == ReplaceTextFix(old="docs/dev.md#set-up-the-projet", new="docs/dev.md#set-up-the-project")
    assert findings[2].fix is None
