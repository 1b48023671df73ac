"""What each agent loads: a workspace holding every format, nested and scoped; the exact ordered list per
agent for several files, caps, rules whose globs match nothing, imports that loop or lead nowhere."""

from __future__ import annotations

import json

import pytest

from lorekeeper.analysis.agents import Repo, loading_findings, loads, roles_of
from lorekeeper.analysis.agents.render import lens_title, to_markdown
from lorekeeper.infra.tokens import count_tokens
from lorekeeper.workspace import Workspace
from support import Tree, commit, git, lore

FILES = {
    "src/api/server.ts": "export {}\n",
    "src/web/app.tsx": "export {}\n",
    "packages/pay/index.ts": "export {}\n",
    "docs/architecture.md": "# Architecture\n",
    "docs/a.md": "See @b.md\n",
    "docs/b.md": "See @a.md and `@not-an-import.md`\n",
    "CLAUDE.md": "# Project\n\n- Read @docs/architecture.md first.\n- Loops: @docs/a.md\n- Gone: @docs/missing.md\n"
                 "- Mail me@example.com, ping @reviewer, use @types/node.\n\n```sh\necho @docs/in-code.md\n```\n",
    "src/api/CLAUDE.md": "- API rules for Claude\n",
    ".claude/rules/api.md": "---\npaths:\n  - \"src/api/**/*.ts\"\n---\n- API rule\n",
    ".claude/rules/ruby.md": "---\npaths: [\"lib/**/*.rb\"]\n---\n- Ruby rule\n",
    ".claude/rules/broken.md": "---\npaths: [src/**\n---\n- broken front matter\n",
    ".claude/rules/general.md": "- no front matter: always\n",
    "AGENTS.md": "# Agents\n\n- Use pnpm.\n",
    "AGENTS.override.md": "# Override\n\n- Use pnpm, always.\n",
    "src/api/AGENTS.md": "- API agents\n",
    "GEMINI.md": "- Gemini: see @docs/architecture.md\n",
    "src/GEMINI.md": "- src gemini\n",
    ".github/copilot-instructions.md": "- General Copilot rule\n",
    ".github/instructions/react.instructions.md": "---\napplyTo: \"**/*.tsx\"\n---\n- React\n",
    ".github/instructions/manual.instructions.md": "---\ndescription: by hand\n---\n- attached by hand\n",
    ".cursor/rules/api.mdc": "---\ndescription: API rules\nglobs: src/api/**/*.ts\nalwaysApply: false\n---\n- api cursor\n",
    ".cursor/rules/always.mdc": "---\nalwaysApply: true\n---\n- always cursor\n",
    ".cursor/rules/ask.mdc": "---\ndescription: when designing schemas\n---\n- maybe\n",
    ".cursor/rules/hand.mdc": "- only when mentioned\n",
    ".cursor/rules/plain.md": "- a plain md, ignored by Cursor\n",
    ".cursor/rules/ts.mdc": "---\nglobs: *.ts,**/*.tsx\n---\n- not YAML, read as Cursor reads it\n",
    "packages/pay/.cursor/rules/pay.mdc": "---\nalwaysApply: true\n---\n- pay\n",
    ".windsurf/rules/py.md": "---\ntrigger: glob\nglobs: **/*.py\n---\n- py\n",
    ".windsurf/rules/on.md": "---\ntrigger: always_on\n---\n- on\n",
    ".kiro/steering/web.md": "---\ninclusion: fileMatch\nfileMatchPattern: \"src/web/**\"\n---\n- web #[[file:docs/architecture.md]]\n",
    ".kiro/steering/product.md": "- always\n",
    ".clinerules/never.md": "---\npaths: []\n---\n- never\n",
    ".clinerules/always.md": "- always\n",
    ".clinerules/workflows/release.md": "- a workflow, not a rule\n",
    ".continue/rules/ts.md": "---\nglobs: \"**/*.ts\"\n---\n- ts\n",
    ".continue/rules/regex.md": "---\nregex: \"useEffect\"\n---\n- effects\n",
}


@pytest.fixture
def ws(tree: Tree) -> Workspace:
    for path, text in FILES.items():
        tree.write(path, text)
    tree.write("CLAUDE.local.md", "- my own notes\n")
    tree.write(".gitignore", "CLAUDE.local.md\n")
    commit(tree, "every format")
    return Workspace(tree.root)


def _listed(ws: Workspace, target: str, agent: str, cwd: str = "") -> list[tuple[str, str, bool | None]]:
    [answer] = loads(ws, target, [agent], cwd=cwd)
    return [(f.path, f.how, f.loaded) for f in answer.files]


def test_claude_code_loads_root_files_rules_imports_and_the_folder_of_the_file(ws: Workspace) -> None:
    assert _listed(ws, "src/api/server.ts", "claude") == [
        ("CLAUDE.md", "always", True),
        ("docs/architecture.md", "import", True),
        ("docs/a.md", "import", True),
        ("docs/b.md", "import", True),
        (".claude/rules/api.md", "glob", True),
        (".claude/rules/broken.md", "always", True),  # front matter that is not YAML is ignored: everywhere
        (".claude/rules/general.md", "always", True),
        ("CLAUDE.local.md", "always", True),  # git-ignored, and loaded all the same
        ("src/api/CLAUDE.md", "subtree", True),
    ]
    [answer] = loads(ws, "README.md", ["claude"])
    assert [f.path for f in answer.files if f.how != "import"] == [
        "CLAUDE.md", ".claude/rules/broken.md", ".claude/rules/general.md", "CLAUDE.local.md"]
    whys = {f.path: f.why for f in answer.not_loaded}
    assert whys["docs/missing.md"] == "imported at CLAUDE.md:5, and it does not exist"
    assert whys["AGENTS.md"].startswith("Claude Code reads AGENTS.md only where no CLAUDE.md")
    assert whys[".claude/rules/ruby.md"] == "a rule of .claude/rules (paths): no pattern matches (lib/**/*.rb)"
    assert "src/api/CLAUDE.md" in whys


IGNORED_AGENT_FILES = {
    "CLAUDE.md": "- root\n",
    "src/api/server.ts": "export {}\n",
    "src/api/CLAUDE.local.md": "- mine\n",
    "web/AGENTS.md": "- web\n",
    "web/index.ts": "export {}\n",
    ".private/CLAUDE.md": "- in an ignored folder, which the walk of the tree does not enter\n",
    ".gitignore": "CLAUDE.local.md\nweb/AGENTS.md\n.private/\n",
}


def test_git_ignored_agent_files_in_folders_are_found_from_each_folders_listing(tree: Tree) -> None:
    """Agents read a folder's CLAUDE.local.md or AGENTS.md though git ignores it: the tree's listing leaves
    them out, and each folder's own entries are read (once) to find them."""
    for path, text in IGNORED_AGENT_FILES.items():
        tree.write(path, text)
    commit(tree, "local notes")
    ws = Workspace(tree.root)
    assert "src/api/CLAUDE.local.md" not in ws.rel_files() and "web/AGENTS.md" not in ws.rel_files()
    assert ("src/api/CLAUDE.local.md", "subtree", True) in _listed(ws, "src/api/server.ts", "claude")
    repo = Repo(ws)
    assert repo.named("AGENTS.md") == ["web/AGENTS.md"] and repo.named("GEMINI.md") == []
    assert not repo.exists("src/api/CLAUDE.md") and not repo.exists("nowhere/CLAUDE.md")
    assert repo.exists(".private/CLAUDE.md") and not repo.exists(".private/AGENTS.md")


def test_codex_reads_one_file_a_folder_from_the_root_to_where_it_starts(ws: Workspace) -> None:
    assert _listed(ws, "src/api/server.ts", "codex") == [("AGENTS.override.md", "chain", True)]
    assert _listed(ws, "src/api/server.ts", "codex", cwd="src/api") == [
        ("AGENTS.override.md", "chain", True), ("src/api/AGENTS.md", "chain", True)]
    [answer] = loads(ws, "src/api/server.ts", ["codex"])
    whys = {f.path: f.why for f in answer.not_loaded}
    assert whys["AGENTS.md"].startswith("Codex reads AGENTS.override.md in this folder instead")
    assert whys["src/api/AGENTS.md"].endswith("started in src/api/ it loads this one")


def test_copilot_cursor_gemini_windsurf_kiro_cline_continue(ws: Workspace) -> None:
    assert _listed(ws, "src/web/app.tsx", "copilot") == [
        (".github/copilot-instructions.md", "always", True),
        (".claude/rules/general.md", "always", True),
        (".github/instructions/react.instructions.md", "glob", True),
        ("AGENTS.md", "always", True), ("CLAUDE.local.md", "always", True), ("CLAUDE.md", "always", True),
        ("src/api/AGENTS.md", "maybe", None)]
    assert _listed(ws, "src/api/server.ts", "cursor") == [
        (".cursor/rules/always.mdc", "always", True), (".cursor/rules/api.mdc", "glob", True),
        (".cursor/rules/ask.mdc", "maybe", None), ("AGENTS.md", "always", True)]
    # (`*.ts` is a file of the root, as Cursor reads globs: packages/pay/index.ts is not one)
    assert _listed(ws, "packages/pay/index.ts", "cursor") == [
        (".cursor/rules/always.mdc", "always", True), (".cursor/rules/ask.mdc", "maybe", None),
        ("AGENTS.md", "always", True), ("packages/pay/.cursor/rules/pay.mdc", "folder", True)]
    assert (".cursor/rules/ts.mdc", "glob", True) in _listed(ws, "setup.ts", "cursor")
    assert _listed(ws, "src/api/server.ts", "gemini") == [
        ("GEMINI.md", "always", True), ("docs/architecture.md", "import", True), ("src/GEMINI.md", "folder", True)]
    assert _listed(ws, "src/api/server.ts", "windsurf") == [
        ("AGENTS.md", "always", True), (".windsurf/rules/on.md", "always", True), ("src/api/AGENTS.md", "folder", True)]
    assert _listed(ws, "src/web/app.tsx", "kiro") == [
        (".kiro/steering/product.md", "always", True), (".kiro/steering/web.md", "glob", True),
        ("docs/architecture.md", "import", True), ("AGENTS.md", "always", True)]
    assert _listed(ws, "src/api/server.ts", "cline") == [
        (".clinerules/always.md", "always", True),  # (the files Cline detects are on until turned off)
        (".cursor/rules/always.mdc", "always", True), (".cursor/rules/api.mdc", "always", True),
        (".cursor/rules/ask.mdc", "always", True), (".cursor/rules/hand.mdc", "always", True),
        (".cursor/rules/ts.mdc", "always", True), ("AGENTS.md", "always", True)]
    assert _listed(ws, "src/api/server.ts", "continue") == [
        (".continue/rules/regex.md", "maybe", None), (".continue/rules/ts.md", "glob", True), ("AGENTS.md", "always", True)]


def test_findings_about_loading(ws: Workspace) -> None:
    found = [(f.source, f.line, f.kind, f.message) for f in loading_findings(ws)]
    assert found == [
        (".claude/rules/broken.md", 2, "invalid-front-matter",
         "the front matter is not valid YAML (expected ',' or ']', but got '<stream end>'): agents that read it as "
         "YAML ignore it, and a rule scoped by it may load for every file"),
        (".claude/rules/ruby.md", 2, "rule-never-loads",
         "no file of the repository matches lib/**/*.rb: Claude Code and GitHub Copilot (VS Code) never load this rule"),
        (".cursor/rules/plain.md", 1, "never-loaded", "Cursor never loads this file: Cursor reads only .mdc files in "
         ".cursor/rules; a plain .md file there is ignored"),
        (".windsurf/rules/py.md", 3, "rule-never-loads",
         "no file of the repository matches **/*.py: Windsurf never loads this rule"),
        ("AGENTS.md", 1, "never-loaded", "Codex never loads this file: Codex reads AGENTS.override.md in this folder "
         "instead (one file a folder, AGENTS.override.md first)"),
        ("CLAUDE.md", 5, "broken-import",
         "Claude Code imports docs/missing.md here, and it does not exist: nothing is imported"),
        ("docs/b.md", 1, "import-cycle", "Claude Code imports a.md here, which imports this file again "
         "(CLAUDE.md -> docs/a.md -> docs/b.md -> docs/a.md): the loop is cut"),
    ]


def test_caps_cut_lines_off(tree: Tree) -> None:
    """Codex's 32 KiB is spent by the AGENTS.md files from the root down; Windsurf cuts each rule at 12,000
    characters. The findings name the lines never loaded."""
    root = "# Root\n\n" + "".join(f"- rule {n:04d} {'x' * 90}\n" for n in range(300))  # ~30 KB
    nested = "# Package\n\n" + "".join(f"- package rule {n:03d} {'y' * 80}\n" for n in range(60))
    tree.write("AGENTS.md", root)
    tree.write("pkg/AGENTS.md", nested)
    tree.write("pkg/main.go", "package main\n")
    tree.write(".windsurf/rules/long.md", "---\ntrigger: always_on\n---\n" + "".join(f"- line {n} {'z' * 100}\n" for n in range(150)))
    commit(tree, "long files")
    ws = Workspace(tree.root)
    root_bytes = len(root.encode())
    room = 32 * 1024 - root_bytes
    first = nested.encode()[:room].decode().count("\n") + 1
    [codex] = loads(ws, "pkg/main.go", ["codex"], cwd="pkg")
    assert [(f.path, f.cut) for f in codex.files] == [
        ("AGENTS.md", None), ("pkg/AGENTS.md", (first, len(nested.splitlines()), codex.agent.caps[0].describe()))]
    assert 0 < codex.files[1].tokens < count_tokens(nested)  # what Codex reads of it
    found = {(f.source, f.kind): f for f in loading_findings(ws)}
    cut = found[("pkg/AGENTS.md", "past-cap")]
    assert cut.line == first and cut.message == (
        f"Codex stops reading at 32 KiB with the AGENTS.md files above it: lines {first}–{len(nested.splitlines())} "
        "are never loaded")
    long = found[(".windsurf/rules/long.md", "past-cap")]
    text = (tree.root / ".windsurf/rules/long.md").read_text()
    assert long.line == text[:12_000].count("\n") + 1
    assert long.message.startswith("Windsurf reads 12,000 chars of a file: lines ")
    assert ("AGENTS.md", "past-cap") not in found


def test_what_a_file_is_to_each_agent(ws: Workspace) -> None:
    roles = roles_of(ws, "AGENTS.md")
    assert {a: (r.how if r else None) for a, r in roles.items()} == {
        "claude": "never", "codex": "never", "copilot": "always", "cursor": "always", "gemini": None,
        "windsurf": "always", "kiro": "always", "cline": "always", "continue": "always"}
    assert lens_title(roles) == ("Loaded by GitHub Copilot (VS Code), Cursor, Windsurf, Kiro, Cline, Continue"
                                 " · never by Claude Code, Codex")
    assert lens_title(roles_of(ws, "src/api/CLAUDE.md")) == "Loaded sometimes by Claude Code"
    assert lens_title(roles_of(ws, "docs/architecture.md")) is None
    text = to_markdown("src/api/server.ts", loads(ws, "src/api/server.ts", ["codex"]))
    assert text.startswith("# What agents load for `src/api/server.ts`\n\n## Codex: 1 file,")
    assert "- `src/api/AGENTS.md` — Codex reads AGENTS.md files from the root down" in text


def test_lore_loads_command(ws: Workspace) -> None:
    data = json.loads(lore("loads", "src/api/server.ts", "--agent", "codex", "--cwd", "src/api", "--json", cwd=ws.root).stdout)
    assert data["path"] == "src/api/server.ts" and data["cwd"] == "src/api"
    [codex] = data["agents"]
    assert [f["path"] for f in codex["files"]] == ["AGENTS.override.md", "src/api/AGENTS.md"]
    assert codex["caps"][0]["limit"] == 32768 and codex["caps"][0]["source"].startswith("https://github.com/openai/codex")
    text = lore("loads", "src/web/app.tsx", "-a", "kiro", cwd=ws.root)
    assert text.returncode == 0 and "Kiro — 4 files" in text.stdout and "docs/architecture.md" in text.stdout
    assert lore("loads", "x.ts", "--agent", "vim", cwd=ws.root).returncode == 2
    assert lore("loads", "../outside.ts", cwd=ws.root).returncode == 2
    validate = lore("validate", cwd=ws.root)
    assert "CLAUDE.md:5: warning: Claude Code imports docs/missing.md here" in validate.stdout


def test_nested_rules_the_folder_started_in_descriptions_and_imports(tree: Tree) -> None:
    """A nested rule folder's rules are for its files, their globs read from that folder; where the agent
    is started counts for Claude Code and Gemini CLI too; a described .instructions.md may apply; a file
    imported is not also said to be never loaded; a Claude rule scoped with `globs:` loads everywhere."""
    tree.write("tools/lint/.cursor/rules/ts.mdc", "---\nglobs: src/**/*.ts\n---\n- lint rules\n")
    tree.write("tools/lint/src/a.ts", "export {}\n")
    tree.write("src/a.ts", "export {}\n")
    tree.write("CLAUDE.md", "- Read @AGENTS.md\n")
    tree.write("AGENTS.md", "- Shared rules\n")
    tree.write("pkg/cli/CLAUDE.md", "- CLI rules\n")
    tree.write("pkg/cli/main.py", "print()\n")
    tree.write("tests/CLAUDE.md", "- Test rules\n")
    tree.write("tests/test_a.py", "def test(): ...\n")
    tree.write("GEMINI.md", "- gemini\n")
    tree.write("pkg/cli/GEMINI.md", "- cli gemini\n")
    tree.write(".github/instructions/py.instructions.md", "---\napplyTo: \"**/*.py\"\ndescription: Python style\n---\n- py\n")
    tree.write(".claude/rules/web.md", "---\nglobs: src/web/**\n---\n- web rules\n")
    commit(tree, "nested")
    ws = Workspace(tree.root)
    assert ("tools/lint/.cursor/rules/ts.mdc", "glob", True) in _listed(ws, "tools/lint/src/a.ts", "cursor")
    [cursor] = loads(ws, "src/a.ts", ["cursor"])
    assert {f.path: f.why for f in cursor.not_loaded}["tools/lint/.cursor/rules/ts.mdc"].endswith("only for files under tools/lint/")
    assert [p for p, _, ok in _listed(ws, "tests/test_a.py", "claude", cwd="pkg/cli") if ok] == [
        "CLAUDE.md", "AGENTS.md", ".claude/rules/web.md", "pkg/cli/CLAUDE.md"]
    [claude] = loads(ws, "tests/test_a.py", ["claude"], cwd="pkg/cli")
    whys = {f.path: f.why for f in claude.not_loaded}
    assert "AGENTS.md" not in whys  # imported by CLAUDE.md, so loaded, whatever Claude thinks of AGENTS.md files
    assert "whether it loads tests/'s is not documented" in whys["tests/CLAUDE.md"]
    assert _listed(ws, "src/a.ts", "gemini", cwd="pkg/cli") == [("GEMINI.md", "always", True), ("pkg/cli/GEMINI.md", "folder", True)]
    assert _listed(ws, "src/a.ts", "gemini") == [("GEMINI.md", "always", True)]
    assert (".github/instructions/py.instructions.md", "glob", None) in _listed(ws, "src/a.ts", "copilot")
    assert (".github/instructions/py.instructions.md", "glob", True) in _listed(ws, "pkg/cli/main.py", "copilot")
    [unread] = [f for f in loading_findings(ws) if f.kind == "unread-field"]
    assert (unread.source, unread.line, unread.message) == (
        ".claude/rules/web.md", 2, "Claude Code reads only `paths` in a rule's front matter: `globs` is ignored, so this "
        "rule loads for every file")


def test_a_repeat_says_which_agents_read_it_twice(tree: Tree) -> None:
    from lorekeeper.analysis.diagnose import memory_findings
    from lorekeeper.facts import open_memory

    fact = "- Run `pnpm lint` before every commit; CI rejects unformatted code.\n"
    tree.write("CLAUDE.md", "# Rules\n\n" + fact)
    tree.write("AGENTS.md", "# Rules\n\n" + fact)
    tree.write(".github/copilot-instructions.md", "# Copilot\n\n" + fact)
    tree.write("package.json", '{"scripts": {"lint": "eslint ."}}')
    commit(tree, "three files say it")
    ws = Workspace(tree.root)
    store = open_memory(ws)
    said = {(f.source, str((f.related or [{}])[0].get("source"))): f.message
            for f in memory_findings(store, ws.compaction) if f.kind == "duplicate"}
    # Claude Code reads AGENTS.md only where no CLAUDE.md exists, Codex no CLAUDE.md, Cursor no
    # copilot-instructions: of these agents, only Copilot loads both files of each pair. CLAUDE.md's copy
    # stays: removing it would take the fact from Claude Code, which reads CLAUDE.md without AGENTS.md.
    assert said == {
        ("CLAUDE.md", "AGENTS.md"): "repeats AGENTS.md:3 (also .github/copilot-instructions.md:3); it stays: "
                                    "Claude Code reads CLAUDE.md without AGENTS.md",
        (".github/copilot-instructions.md", "AGENTS.md"): "repeats AGENTS.md:3 (also CLAUDE.md:3): GitHub Copilot "
                                                          "(VS Code) loads both files and reads it twice"}
    fixes = {f.source: f.fix for f in memory_findings(store, ws.compaction) if f.kind == "duplicate"}
    assert fixes["CLAUDE.md"] is None and fixes[".github/copilot-instructions.md"] is not None
    [repeat] = json.loads(lore("repeats", "--json", cwd=tree.root).stdout)["repeats"]
    assert {c["path"]: (c["read_twice_by"], c["removable"], c["stays_because"]) for c in repeat["copies"]} == {
        "CLAUDE.md": (["GitHub Copilot (VS Code)"], False, "Claude Code reads CLAUDE.md without AGENTS.md"),
        ".github/copilot-instructions.md": (["GitHub Copilot (VS Code)"], True, None)}
    assert lore("repeats", "--apply", cwd=tree.root).returncode == 0
    assert (tree.root / "CLAUDE.md").read_text() == "# Rules\n\n" + fact
    assert fact not in (tree.root / ".github/copilot-instructions.md").read_text()


def test_a_folder_file_repeats_only_what_is_read_with_it(tree: Tree) -> None:
    """A nested AGENTS.md that repeats the root one may lose its copy (every agent that reads it reads the
    root one too); two sibling folders' files that say the same thing each speak for their own folder
    (mem0's cli/node/AGENTS.md and mem0-ts/AGENTS.md: "pnpm only. Never npm, never yarn."); the root's copy
    of a line a nested file states stays (prefect's ui-v2/AGENTS.md and ui-v2/src/components/AGENTS.md)."""
    from lorekeeper.analysis.repeats import repeats as find_repeats
    from lorekeeper.app.edits import staying
    from lorekeeper.facts import open_memory

    pnpm = "- pnpm only. Never npm, never yarn.\n"
    story = "- ALWAYS create a Storybook story when creating a new component, with every variant shown.\n"
    tree.write("AGENTS.md", "# Repo\n\n- Run `pnpm test` from the root before every push, with coverage on.\n")
    tree.write("web/AGENTS.md", "# Web\n\n- Run `pnpm test` from the root before every push, with coverage on.\n" + pnpm)
    tree.write("cli/AGENTS.md", "# CLI\n\n" + pnpm)
    tree.write("ui/AGENTS.md", "# UI\n\n" + story)
    tree.write("ui/components/AGENTS.md", "# Components\n\n" + story + "- Name files in kebab-case.\n")
    commit(tree, "nested files")
    store = open_memory(Workspace(tree.root))
    found = find_repeats(store.entries)
    pairs = {(r.kept.location.path, c.location.path) for r in found for c in r.copies}
    assert ("web/AGENTS.md", "cli/AGENTS.md") not in pairs and ("cli/AGENTS.md", "web/AGENTS.md") not in pairs
    assert ("AGENTS.md", "web/AGENTS.md") in pairs
    stays = staying(store, found)
    by_path = {c.location.path: stays.get(c.id) for r in found for c in r.copies}
    assert by_path["web/AGENTS.md"] is None, "every agent that reads web/AGENTS.md reads the root one too"
    # Codex reads ui/AGENTS.md without ui/components/AGENTS.md when it works in ui/ but not in
    # components/; Copilot and Cursor may read either nested file alone: neither copy goes
    [ui] = [r for r in found if "ui" in (r.kept.location.path.split("/")[0], r.copies[0].location.path.split("/")[0])]
    assert {ui.kept.location.path, ui.copies[0].location.path} == {"ui/AGENTS.md", "ui/components/AGENTS.md"}
    assert "may read" in by_path[ui.copies[0].location.path]


def test_which_agents_load_two_files_together(tree: Tree) -> None:
    """Sibling folders' AGENTS.md are never in one Codex chain; a file imported counts as loaded with its
    importer; a file git tracks in an ignored folder is read all the same; a link is one file for Gemini."""
    from lorekeeper.analysis.agents import co_loaded
    from lorekeeper.analysis.agents.roles import all_roles

    tree.write("AGENTS.md", "- root\n")
    tree.write("web/AGENTS.md", "- web\n")
    tree.write("api/AGENTS.md", "- api\n")
    tree.write("GEMINI.md", "- Read @./docs/shared.md\n")
    tree.write("docs/shared.md", "- shared\n")
    tree.write(".gitignore", ".kiro/*\n")
    tree.write(".kiro/steering/tech.md", "- always steer\n")
    (tree.root / "CLAUDE.md").symlink_to("AGENTS.md")
    commit(tree, "folders")
    git(tree.root, "add", "-f", ".kiro/steering/tech.md")
    commit(tree, "force-add the steering file")
    ws = Workspace(tree.root)
    repo = Repo(ws)
    roles = {a: {r.path: r for r in rs} for a, rs in all_roles(repo).items()}
    codex = roles["codex"]
    assert co_loaded(codex["web/AGENTS.md"], codex["api/AGENTS.md"]) is None  # never in one chain
    assert co_loaded(codex["AGENTS.md"], codex["web/AGENTS.md"]) is False  # started in web/: both
    assert ("docs/shared.md", "import", True) in _listed(ws, "x.py", "gemini")
    assert _listed(ws, "x.py", "kiro") == [(".kiro/steering/tech.md", "always", True), ("AGENTS.md", "always", True)]
    [copilot] = loads(ws, "x.py", ["copilot"])
    assert [(f.path, f.loaded) for f in copilot.files] == [
        ("AGENTS.md", True), ("CLAUDE.md", True), ("api/AGENTS.md", None), ("web/AGENTS.md", None)]
    claude_link = next(f for f in copilot.files if f.path == "CLAUDE.md")
    assert claude_link.why.endswith("(the same file as AGENTS.md, a link: whether it is read twice is not documented)")


def test_claude_auto_memory_past_its_cap(tree: Tree) -> None:
    tree.write(".claude/memory/MEMORY.md", "".join(f"- note {n}\n" for n in range(1, 261)))
    tree.write(".claude/memory/short/MEMORY.md", "- one note\n")
    commit(tree, "auto memory")
    found = [(f.source, f.line, f.message) for f in loading_findings(Workspace(tree.root)) if f.kind == "past-cap"]
    assert found == [(".claude/memory/MEMORY.md", 201, "Claude Code loads the first 200 lines or 25 KB of its auto memory "
                      "MEMORY.md: if this is it, lines 201–260 are never loaded (topic files it links are read on demand)")]
