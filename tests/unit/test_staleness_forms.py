"""Forms of reference real instruction files use, each in a small repository cut to the case: a glob whose
files moved, a Cargo package that is gone, `npm run` of a dependency's executable, `git add` of a lockfile
after a switch of package manager, a Cursor `@file` mention and an `mdc:` link."""

from __future__ import annotations

import json

import pytest

from lorekeeper.analysis.staleness import check_workspace
from lorekeeper.core.model import Severity
from lorekeeper.workspace import Workspace
from support import Tree, commit, git


def _found(tree: Tree) -> list[tuple[str, int | None, str, Severity, str]]:
    findings, _ = check_workspace(Workspace(tree.root))
    return [(f.source, f.line, f.kind, f.severity, f.message) for f in findings]


def _move_to_apps(tree: Tree, folder: str, *also: str) -> str:
    """cline's "Move vscode to apps (#10961)": ``folder`` moved under apps/vscode/ (and ``also`` removed)
    in one commit of 2026-02-01; its short id."""
    (tree.root / "apps/vscode").mkdir(parents=True)
    git(tree.root, "mv", folder, f"apps/vscode/{folder}")
    if also:
        git(tree.root, "rm", "-rq", *also)
    return commit(tree, "Move vscode to apps", date="2026-02-01T10:00:00Z")


def test_a_glob_whose_files_moved(tree: Tree) -> None:
    """browser-use: `browser_use/agent/system_prompt*.md`, the prompts since moved to `system_prompts/`."""
    tree.write("browser_use/agent/system_prompt.md", "You are an agent.\n")
    tree.write("browser_use/agent/system_prompt_flash.md", "Be quick.\n")
    tree.write("browser_use/agent/service.py", "def run(): ...\n")
    tree.write("AGENTS.md", "- Prompts live in `browser_use/agent/system_prompt*.md`.\n- Tests: `tests/**/test_*.py`.\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    (tree.root / "browser_use/agent/system_prompts").mkdir()
    git(tree.root, "mv", "browser_use/agent/system_prompt.md", "browser_use/agent/system_prompts/system_prompt.md")
    git(tree.root, "mv", "browser_use/agent/system_prompt_flash.md", "browser_use/agent/system_prompts/system_prompt_flash.md")
    sha = commit(tree, "Move prompts to their own folder", date="2026-02-01T10:00:00Z")
    assert _found(tree) == [("AGENTS.md", 1, "stale-path", Severity.error,
                             "no file matches `browser_use/agent/system_prompt*.md` any more (`browser_use/agent/"
                             "system_prompt.md` and 1 more matched it; `browser_use/agent/system_prompt.md` was moved "
                             f"to `browser_use/agent/system_prompts/system_prompt.md` in {sha} on 2026-02-01: Move "
                             "prompts to their own folder)")]
    # (`tests/**/test_*.py` matched nothing when it was written: a pattern for files to come, not judged)


def test_a_cargo_package_that_is_gone(tree: Tree) -> None:
    tree.write("Cargo.toml", '[workspace]\nmembers = ["crates/*"]\n')
    tree.write("crates/oxc_linter/Cargo.toml", '[package]\nname = "oxc_linter"\nversion = "0.1.0"\n')
    tree.write("crates/oxc_parser/Cargo.toml", '[package]\nname = "oxc-parser"\nversion = "0.1.0"\n')
    tree.write("CLAUDE.md", "- Lint with `cargo run -p oxc_linter`.\n- Parse with `cargo test -p oxc_parser`.\n"
                            "- Bench with `cargo bench -p oxc_never_was`.\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    git(tree.root, "rm", "-rq", "crates/oxc_linter")
    sha = commit(tree, "Drop the old linter", date="2026-02-01T10:00:00Z")
    assert _found(tree) == [
        ("CLAUDE.md", 1, "stale-crate", Severity.error, "no Cargo.toml of this workspace names the package `oxc_linter` "
         f"any more (`crates/oxc_linter/Cargo.toml` was deleted in {sha} on 2026-02-01: Drop the old linter)"),
        ("CLAUDE.md", 3, "unresolved-crate", Severity.info, "no Cargo.toml of this workspace names the package "
         "`oxc_never_was`, and none did when this memory was written in " + git(tree.root, "rev-parse", "--short=7",
                                                                                 "HEAD~1").strip() + " on 2026-01-10")]


def test_npm_run_needs_a_script_and_a_lockfile_of_the_old_manager_is_gone(tree: Tree) -> None:
    """`npm run changeset` with @changesets/cli installed but no script: npm says "Missing script" (pnpm
    and yarn would run the executable). `git add package-lock.json` after the switch to bun."""
    tree.write("package.json", json.dumps({"scripts": {"changeset": "changeset", "build": "tsc"},
                                           "devDependencies": {"@changesets/cli": "^2"}}))
    tree.write("package-lock.json", '{"name": "app", "lockfileVersion": 3, "packages": {}}\n')
    tree.write("AGENTS.md", "- Release: `npm run changeset`, then `git add CHANGELOG.md package-lock.json`.\n"
                            "- `pnpm changeset` works too.\n")
    tree.write("CHANGELOG.md", "# Changes\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    tree.write("package.json", json.dumps({"scripts": {"build": "tsc"}, "devDependencies": {"@changesets/cli": "^2"}}))
    (tree.root / "package-lock.json").unlink()
    tree.write("bun.lock", '{"lockfileVersion": 1, "workspaces": {"": {"name": "app"}}}\n')
    sha = commit(tree, "Switch to bun", date="2026-02-01T10:00:00Z")
    found = _found(tree)
    assert ("AGENTS.md", 1, "stale-script", Severity.error,
            f'script "changeset" is not defined in package.json (removed in {sha} on 2026-02-01: Switch to bun)') in found
    assert ("AGENTS.md", 1, "stale-path", Severity.error,
            f"file `package-lock.json` was deleted in {sha} on 2026-02-01: Switch to bun") in found
    assert not any(f[1] == 2 and f[2] == "stale-script" for f in found)  # pnpm runs the executable


def test_cursor_mentions_and_mdc_links(tree: Tree) -> None:
    tree.write("src/components/Button.tsx", "export {}\n")
    tree.write("src/components/Card.tsx", "export {}\n")
    tree.write(".cursor/rules/ui.mdc", "---\nglobs: src/components/**\n---\n- Start from @src/components/Button.tsx\n"
                                       "- Cards follow [Card](mdc:src/components/Card.tsx).\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    git(tree.root, "rm", "-q", "src/components/Button.tsx")
    (tree.root / "src/ui").mkdir()
    git(tree.root, "mv", "src/components/Card.tsx", "src/ui/Card.tsx")
    sha = commit(tree, "Rework components", date="2026-02-01T10:00:00Z")
    assert _found(tree) == [
        (".cursor/rules/ui.mdc", 4, "stale-path", Severity.error,
         f"file `src/components/Button.tsx` was deleted in {sha} on 2026-02-01: Rework components"),
        (".cursor/rules/ui.mdc", 5, "moved-path", Severity.error,
         f"`src/components/Card.tsx` was moved to `src/ui/Card.tsx` in {sha} on 2026-02-01: Rework components")]


def test_a_ruby_method_and_a_proto_message_that_are_gone(tree: Tree) -> None:
    """Symbols of languages read without a grammar: the account's `sync_data` method (Ruby), a Protocol
    Buffers message; `explainChanges` on the same line is still defined."""
    tree.write("app/models/account.rb", "class Account < ApplicationRecord\n  def sync_data\n    true\n  end\nend\n")
    tree.write("proto/explain.proto", "service Explain {\n  rpc explainChanges(ExplainChangesRequest) returns (Reply);\n}\n"
                                      "message ExplainChangesRequest {\n  string diff = 1;\n}\n")
    tree.write("CLAUDE.md", "- Refresh with the account's `sync_data` method.\n"
                            "- `explainChanges` takes an `ExplainChangesRequest`.\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    tree.write("app/models/account.rb", "class Account < ApplicationRecord\n  def refresh!\n    true\n  end\nend\n")
    tree.write("proto/explain.proto", "service Explain {\n  rpc explainChanges(ExplainRequest) returns (Reply);\n}\n"
                                      "message ExplainRequest {\n  string diff = 1;\n}\n")
    sha = commit(tree, "Rename sync and the request", date="2026-02-01T10:00:00Z")
    assert _found(tree) == [
        ("CLAUDE.md", 1, "stale-symbol", Severity.error, "`sync_data` is no longer defined anywhere in the code (removed "
         f"in {sha} on 2026-02-01: Rename sync and the request; it was in `app/models/account.rb` when this memory was "
         "written in " + git(tree.root, "rev-parse", "--short=7", "HEAD~1").strip() + " on 2026-01-10)"),
        ("CLAUDE.md", 2, "stale-symbol", Severity.error, "`ExplainChangesRequest` is no longer defined anywhere in the "
         f"code (removed in {sha} on 2026-02-01: Rename sync and the request; it was in `proto/explain.proto` when this "
         "memory was written in " + git(tree.root, "rev-parse", "--short=7", "HEAD~1").strip() + " on 2026-01-10)")]


def test_the_root_of_an_ascii_tree(tree: Tree) -> None:
    tree.write(".spec/design.md", "# Design\n")
    tree.write("src/main.go", "package main\n")
    tree.write("AGENTS.md", "Specs:\n\n```\n.spec/\n└── design.md\n```\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    git(tree.root, "rm", "-rq", ".spec")
    sha = commit(tree, "Drop the specs", date="2026-02-01T10:00:00Z")
    assert [(line, kind, message) for _, line, kind, _, message in _found(tree)] == [
        (4, "stale-path", f"folder `.spec/` was deleted in {sha} on 2026-02-01: Drop the specs"),
        (5, "stale-path", f"file `.spec/design.md` was deleted in {sha} on 2026-02-01: Drop the specs")]


def test_library_versions_against_package_json(tree: Tree) -> None:
    """"React 18.3 + TypeScript + Vite 7": each library's version against the range package.json gives it,
    an error when it matched when the memory was written and matches no more."""
    tree.write("package.json", json.dumps({"dependencies": {"react": "^18.3.1"},
                                           "devDependencies": {"vite": "^7.0.2", "typescript": "~5.6.0"}}))
    tree.write("AGENTS.md", "- Stack: React 18.3 + TypeScript 5.6 + Vite 7.\n- Styling: Tailwind 4.\n")
    first = commit(tree, "initial", date="2026-01-10T10:00:00Z")
    tree.write("package.json", json.dumps({"dependencies": {"react": "^19.1.0"},
                                           "devDependencies": {"vite": "^7.1.0", "typescript": "~5.6.3"}}))
    sha = commit(tree, "React 19", date="2026-02-01T10:00:00Z")
    assert _found(tree) == [("AGENTS.md", 1, "stale-version", Severity.error,
                             f"react 18.3: `package.json` now says ^19.1.0 (changed in {sha} on 2026-02-01: React 19; it "
                             f"said ^18.3.1 when this memory was written in {first} on 2026-01-10)")]
    # (Tailwind is no dependency here: nothing to compare with)


def test_comments_placeholders_and_each_lines_cd_are_not_references(tree: Tree) -> None:
    """Info-level misreadings that real instruction files caused: a shell comment read as make targets
    (`make py-check  # Typecheck and lint`), placeholders read as script names (`<script>`, `X`), and a
    block of `cd web && pnpm …` lines read as `web/web/…`."""
    tree.write("Makefile", "py-check:\n\techo ok\n")
    tree.write("package.json", json.dumps({"scripts": {"test": "vitest"}}))
    tree.write("web/package.json", json.dumps({"scripts": {"build": "vite build", "dev": "vite"}}))
    tree.write("CLAUDE.md", "\n".join([
        "- `make py-check  # Typecheck and lint`",
        "- Run `npm run <script>` for any script (`npm run X`, `pnpm run ...`)",
        "```bash",
        "cd web && pnpm build",
        "cd web && pnpm dev",
        "make py-check  # Typecheck and lint",
        "cd web",
        "pnpm build",
        "```",
        "- Then `npm run gone` and `make gone-target # a comment`",
        ""]))
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    found = _found(tree)
    assert sorted((kind, message.split(" is not")[0]) for _, _, kind, _, message in found) == [
        ("unresolved-make-target", 'make target "gone-target"'), ("unresolved-script", 'script "gone"')], found


def test_a_jvm_test_class_run_by_gradle_that_is_gone(tree: Tree) -> None:
    """continue's .continue/rules/intellij-plugin-test-execution.md: `./gradlew test --tests
    "com.github.continuedev.continueintellijextension.unit.ApplyToFileHandlerTest"`, the test deleted since."""
    test = "extensions/intellij/src/test/kotlin/com/acme/unit/ApplyToFileHandlerTest.kt"
    tree.write(test, "package com.acme.unit\n\nclass ApplyToFileHandlerTest {\n    fun shouldApply() {}\n}\n")
    tree.write("extensions/intellij/src/test/kotlin/com/acme/unit/OtherTest.kt", "class OtherTest\n")
    tree.write(".continue/rules/intellij-tests.md", "\n".join([
        "# Running IntelliJ tests", "",
        '- One class: `./gradlew test --tests "com.acme.unit.ApplyToFileHandlerTest"`',
        '- Its tests that apply: `./gradlew test --tests "com.acme.unit.ApplyToFileHandlerTest.should*"`',
        '- Another: `./gradlew test --tests "com.acme.unit.OtherTest"`, any: `./gradlew test --tests "*Test"`', ""]))
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    git(tree.root, "rm", "-q", test)
    sha = commit(tree, "fix: fix JCEF browser issues", date="2026-02-01T10:00:00Z")
    found = _found(tree)
    assert [(line, kind, severity) for _, line, kind, severity, _ in found] == [
        (3, "stale-symbol", Severity.error), (4, "stale-symbol", Severity.error)], found
    assert all("ApplyToFileHandlerTest" in message and sha in message for *_, message in found)


def test_a_path_that_moved_is_stale_though_another_file_ends_the_same(tree: Tree) -> None:
    """typescript-sdk's CLAUDE.md: "Define schema in `src/types.ts`", moved into a package by the monorepo
    split, while `packages/core/src/types.ts` is another file; a short form that never existed as written
    (`common/launcher.ts` for `src/testing/common/launcher.ts`) still holds."""
    tree.write("src/types.ts", "export type Request = {};\n")
    tree.write("packages/core/src/types.ts", "export type Other = {};\n")
    tree.write("src/testing/common/launcher.ts", "export const launch = 1;\n")
    tree.write("CLAUDE.md", "- Define schema in `src/types.ts`\n- The launcher: `common/launcher.ts`\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    (tree.root / "packages/core-internal/src/types").mkdir(parents=True)
    git(tree.root, "mv", "src/types.ts", "packages/core-internal/src/types/types.ts")
    sha = commit(tree, "monorepo split", date="2026-02-01T10:00:00Z")
    found = _found(tree)
    assert [(line, kind, severity) for _, line, kind, severity, _ in found] == [(1, "moved-path", Severity.error)], found
    assert "packages/core-internal/src/types/types.ts" in found[0][4] and sha in found[0][4]


def test_a_file_named_in_a_heading_is_checked_like_a_line(tree: Tree) -> None:
    """crush's internal/ui/AGENTS.md describes each file under a heading that names it ("### Main Model
    (`model/ui.go`)"); deadonfilm's rules do the same with full paths. The file title (`# AGENTS.md`) and
    headings that name no place are no units."""
    tree.write("internal/ui/model/ui.go", "package model\n")
    tree.write("internal/ui/model/chat.go", "package model\n")
    tree.write("server/src/lib/run-logger.ts", "export class RunLogger {}\n")
    tree.write("internal/ui/AGENTS.md", "# AGENTS.md\n\n## Architecture\n\n### Main Model (`model/ui.go`)\n\n"
                                        "- Holds the state.\n\n### Chat View (`model/chat.go`)\n\n- Renders messages.\n")
    tree.write("CLAUDE.md", "# CLAUDE.md\n\n### RunLogger (`server/src/lib/run-logger.ts`)\n\n- Logs runs.\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    assert _found(tree) == []
    git(tree.root, "rm", "-q", "internal/ui/model/chat.go")
    git(tree.root, "mv", "server/src/lib/run-logger.ts", "server/src/lib/logging.ts")
    sha = commit(tree, "Fold the chat view into the model; rename the logger", date="2026-02-01T10:00:00Z")
    found = _found(tree)
    assert [(source, line, kind, severity) for source, line, kind, severity, _ in found] == [
        ("CLAUDE.md", 3, "moved-path", Severity.error), ("internal/ui/AGENTS.md", 9, "stale-path", Severity.error)], found
    assert found[0][4].startswith("`server/src/lib/run-logger.ts` was moved to `server/src/lib/logging.ts`"), found
    assert found[1][4] == (f"file `model/chat.go` was deleted in {sha} on 2026-02-01: Fold the chat view into the "
                           "model; rename the logger"), found
    from lorekeeper.store import Store
    store = Store(Workspace(tree.root))
    store.load()
    assert sorted(e.id for e in store.entries if e.source == "heading") == [
        "CLAUDE.md:3", "internal/ui/AGENTS.md:5", "internal/ui/AGENTS.md:9"]


def test_extras_and_dependency_groups_a_command_names(tree: Tree) -> None:
    """pipecat: `uv sync --group dev --all-extras --no-extra krisp`, the krisp extra removed since."""
    tree.write("pyproject.toml", '[project]\nname = "acme"\nversion = "1"\n\n[project.optional-dependencies]\n'
                                 'krisp = ["pipecat-ai-krisp"]\nsilero_vad = ["onnxruntime"]\n\n'
                                 '[dependency-groups]\ndev = ["pytest"]\n')
    tree.write("AGENTS.md", "- Set up with `uv sync --group dev --all-extras --no-extra krisp`.\n"
                            "- VAD: `pip install -e \".[silero-vad]\"`.\n"
                            "- GPU: `uv sync --extra gpu --group docs`.\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    found = _found(tree)
    initial = git(tree.root, "rev-parse", "--short=7", "HEAD").strip()
    assert sorted(found) == [
        ("AGENTS.md", 3, "unresolved-dependency-group", Severity.info, 'dependency group "docs" is not defined in '
         f"pyproject.toml, and was not when this memory was written in {initial} on 2026-01-10"),
        ("AGENTS.md", 3, "unresolved-extra", Severity.info, 'extra "gpu" is not defined in pyproject.toml, and was not '
         f"when this memory was written in {initial} on 2026-01-10")], found
    tree.write("pyproject.toml", '[project]\nname = "acme"\nversion = "1"\n\n[project.optional-dependencies]\n'
                                 'silero_vad = ["onnxruntime"]\n\n[dependency-groups]\ndev = ["pytest"]\n')
    sha = commit(tree, "Drop the krisp extra", date="2026-02-01T10:00:00Z")
    stale = [f for f in _found(tree) if f[3] != Severity.info]
    assert stale == [("AGENTS.md", 1, "stale-extra", Severity.error,
                      f'extra "krisp" is not defined in pyproject.toml (removed in {sha} on 2026-02-01: Drop the krisp extra)')]


def test_a_module_that_became_a_package_of_its_name(tree: Tree) -> None:
    """pipecat: `src/pipecat/processors/frameworks/rtvi.py` became the package `rtvi/`."""
    tree.write("src/pipecat/processors/frameworks/rtvi.py", "class RTVIProcessor: ...\n")
    tree.write("src/pipecat/processors/frameworks/other.py", "x = 1\n")
    tree.write("CLAUDE.md", "- RTVI lives in `src/pipecat/processors/frameworks/rtvi.py`.\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    git(tree.root, "rm", "-q", "src/pipecat/processors/frameworks/rtvi.py")
    tree.write("src/pipecat/processors/frameworks/rtvi/__init__.py", "from .processor import RTVIProcessor\n")
    tree.write("src/pipecat/processors/frameworks/rtvi/processor.py",
               "import asyncio\n\n\nclass RTVIProcessor:\n    def __init__(self, transport):\n        self.queue = asyncio.Queue()\n")
    sha = commit(tree, "Split RTVI into a package", date="2026-02-01T10:00:00Z")
    assert _found(tree) == [("CLAUDE.md", 1, "moved-path", Severity.error,
                             f"`src/pipecat/processors/frameworks/rtvi.py` was deleted in {sha} on 2026-02-01: Split "
                             "RTVI into a package; it is now the package `src/pipecat/processors/frameworks/rtvi/`")]


def test_a_file_whose_removal_git_cannot_name_is_a_warning(tree: Tree) -> None:
    """cline's sdk/ came in by a subtree merge: its AGENTS.md names `DOC.md`, which the SDK's own history
    held at its root and which the merge left out. The file existed when the line was written, but no
    commit of this repository removed it, under sdk/ or as written: a warning, not an error."""
    tree.write("README.md", "# App\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    git(tree.root, "checkout", "-q", "--orphan", "sdk")
    git(tree.root, "rm", "-rqf", ".")
    tree.write("AGENTS.md", "# SDK\n\n- For API details see `DOC.md`.\n- Servers: `src/mcp.ts`.\n")
    tree.write("DOC.md", "# API\n")
    tree.write("src/index.ts", "export const x = 1\n")
    tree.write("src/mcp.ts", "export const servers = []\n")
    commit(tree, "sdk: first", date="2026-01-15T10:00:00Z")
    git(tree.root, "checkout", "-q", "main")
    git(tree.root, "merge", "-q", "-s", "ours", "--no-commit", "--allow-unrelated-histories", "sdk")
    git(tree.root, "read-tree", "--prefix=sdk/", "-u", "sdk")
    git(tree.root, "rm", "-qf", "sdk/DOC.md")
    commit(tree, "Merge the SDK under sdk/", date="2026-02-01T10:00:00Z")
    git(tree.root, "rm", "-q", "sdk/src/mcp.ts")
    sha = commit(tree, "Drop the MCP servers", date="2026-03-01T10:00:00Z")
    found = [f for f in _found(tree) if f[0] == "sdk/AGENTS.md"]
    # continue's extensions/cli/AGENTS.md, `AGENTS.md` in the CLI's own history: its `src/mcp.ts` is
    # `extensions/cli/src/mcp.ts` here, and the commit that deleted that one is named
    assert [(line, kind, severity) for _, line, kind, severity, _ in found] == [
        (3, "stale-path", Severity.warning), (4, "stale-path", Severity.error)], found
    assert found[0][4] == "file `DOC.md` was deleted after this memory was written", found
    assert found[1][4] == f"file `src/mcp.ts` was deleted in {sha} on 2026-03-01: Drop the MCP servers", found


def test_a_path_relative_to_a_folder_named_above_it(tree: Tree) -> None:
    """cline's .clinerules/general.md names `src/core/prompts/system-prompt/README.md`, then lists
    `components/`, `templates/` and `tools/README.md` relative to that folder; all moved under
    apps/vscode/ since. Where two folders named above both held such a path, nothing is said."""
    base = "src/core/prompts/system-prompt"
    for path in ("README.md", "tools/README.md", "components/rules.ts", "templates/engine.ts", "variants/generic/config.ts"):
        tree.write(f"{base}/{path}", f"// {path}\n")
    for path in ("lib/api/index.ts", "lib/db/index.ts", "lib/api/utils/a.ts", "lib/db/utils/b.ts"):
        tree.write(path, f"// {path}\n")
    tree.write(".clinerules/general.md", "\n".join([
        "# General", "", "## Modifying System Prompt",
        f"**Read these first:** `{base}/README.md`, `tools/README.md`", "",
        "- `components/` - Shared sections", "- `templates/` - Template engine",
        f"- Each family has a config in `{base}/variants/*/config.ts`: `generic/config.ts`", "",
        "## Helpers", "", "- `lib/api/index.ts` and `lib/db/index.ts` share code", "- `utils/` holds it", ""]))
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    assert _found(tree) == []
    sha = _move_to_apps(tree, "src", "lib/api/utils", "lib/db/utils")
    found = {(line, kind, severity, message) for _, line, kind, severity, message in _found(tree)
             if severity != Severity.info}
    moved = f"apps/vscode/{base}"
    assert found == {
        (4, "moved-path", Severity.error, f"`{base}/README.md` was moved to `{moved}/README.md` in {sha} on 2026-02-01: Move vscode to apps"),
        (4, "moved-path", Severity.error, f"`tools/README.md` was moved to `{moved}/tools/README.md` in {sha} on 2026-02-01: Move vscode to apps"),
        (6, "moved-path", Severity.error, f"`components/` was moved to `{moved}/components/` in {sha} on 2026-02-01: Move vscode to apps"),
        (7, "moved-path", Severity.error, f"`templates/` was moved to `{moved}/templates/` in {sha} on 2026-02-01: Move vscode to apps"),
        (8, "moved-path", Severity.error, f"`generic/config.ts` was moved to `{moved}/variants/generic/config.ts` in {sha} on 2026-02-01: Move vscode to apps"),
        (8, "stale-path", Severity.error, f"no file matches `{base}/variants/*/config.ts` any more (`{base}/variants/generic/"
         f"config.ts` matched it; `{base}/variants/generic/config.ts` was moved to `{moved}/variants/generic/config.ts` in "
         f"{sha} on 2026-02-01: Move vscode to apps)"),
    }, found  # (`utils/` of the Helpers section: two folders named above held one)


def test_a_folder_listed_after_a_one_part_folder_that_opens_its_line(tree: Tree) -> None:
    """cline's .clinerules/general.md: "- `variants/` - Model-specific: `generic/`, `xs/`", then tiers of
    those variants on the lines below ("- **Local/small models**: `xs/`, `hermes/`"), all under
    `src/core/prompts/system-prompt/` named above; deleted since, `rules.ts` with them though another file of
    that name stays. A name two such folders held then (`shared/`, under `variants/` and `components/`)
    gets no verdict."""
    base = "src/core/prompts/system-prompt"
    for path in ("README.md", "variants/generic/config.ts", "variants/xs/config.ts", "variants/hermes/config.ts",
                 "variants/shared/a.ts", "components/shared/b.ts", "components/rules.ts"):
        tree.write(f"{base}/{path}", f"// {path}\n")
    tree.write("lib/lint/rules.ts", "// another file of that name, which stays\n")
    tree.write(".clinerules/general.md", "\n".join([
        "# General", "", "## Modifying System Prompt", f"**Read these first:** `{base}/README.md`", "",
        "- `components/` - Shared sections: `rules.ts`", "- `variants/` - Model-specific: `generic/`, `xs/`", "",
        "**Variant tiers:**", "- **Standard**: `generic/`", "- **Local/small models**: `xs/`, `hermes/`",
        "- **Shared**: `shared/`", ""]))
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    assert _found(tree) == []
    git(tree.root, "rm", "-rq", f"{base}/variants", f"{base}/components/rules.ts")
    sha = commit(tree, "Drop the prompt variants", date="2026-03-01T10:00:00Z")
    found = {(line, message) for _, line, kind, severity, message in _found(tree) if severity == Severity.error}
    gone = f"in {sha} on 2026-03-01: Drop the prompt variants"
    assert found == {
        (6, f"file `rules.ts` was deleted {gone}"), (7, f"folder `variants/` was deleted {gone}"),
        (7, f"folder `generic/` was deleted {gone}"), (7, f"folder `xs/` was deleted {gone}"),
        (10, f"folder `generic/` was deleted {gone}"), (11, f"folder `xs/` was deleted {gone}"),
        (11, f"folder `hermes/` was deleted {gone}"),
    }, found


def test_a_bare_name_under_a_folder_named_above_moved_with_its_name(tree: Tree) -> None:
    """ramalama's CLAUDE.md: "### Transport System (`ramalama/transports/`)", then "- `ollama.py`, `oci.py`
    - Registry-specific implementations"; `oci.py` since moved to `ramalama/transports/oci/oci.py`. The name
    still names a file, not in the folder the line is under: a warning with the new place, spelt from that
    folder. A file that stayed (`ollama.py`), one moved outside any folder named above, and one moved with
    its folder (cline's `proto/cline/` under `apps/vscode/`: the folder's line says where it went) say
    nothing."""
    for name in ("base.py", "oci.py", "ollama.py"):
        tree.write(f"ramalama/transports/{name}", "x = 1\n")
    tree.write("tools/lint.py", "x = 1\n")
    tree.write("proto/cline/account.proto", "syntax = \"proto3\";\n")
    tree.write("CLAUDE.md", "\n".join([
        "# Project", "", "### Transport System (`ramalama/transports/`)",
        "Handles pulling/pushing models from different registries:",
        "- `base.py` - Base `Transport` class defining the interface",
        "- `ollama.py`, `oci.py` - Registry-specific implementations", "", "## Tools", "",
        "- `lint.py` checks the code.", "", "### Services (`proto/cline/`)", "", "- `account.proto` - accounts", ""]))
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    assert _found(tree) == []
    (tree.root / "ramalama/transports/oci").mkdir()
    git(tree.root, "mv", "ramalama/transports/oci.py", "ramalama/transports/oci/oci.py")
    (tree.root / "scripts").mkdir()
    git(tree.root, "mv", "tools/lint.py", "scripts/lint.py")
    (tree.root / "apps").mkdir()
    git(tree.root, "mv", "proto", "apps/proto")
    sha = commit(tree, "Split the OCI transport", date="2026-02-01T10:00:00Z")
    assert _found(tree) == [
        ("CLAUDE.md", 6, "moved-path", Severity.warning,
         f"`oci.py` (in `ramalama/transports/`, named above) was moved to `oci/oci.py` in {sha} on 2026-02-01: "
         "Split the OCI transport"),
        ("CLAUDE.md", 12, "moved-path", Severity.error,
         f"`proto/cline/` was moved to `apps/proto/cline/` in {sha} on 2026-02-01: Split the OCI transport")]
    findings, _ = check_workspace(Workspace(tree.root))
    assert findings[0].fix is not None and findings[0].fix.model_dump() == {"action": "replace-ref", "old": "oci.py",
                                                                            "new": "oci/oci.py"}


def test_a_bare_name_under_a_heading_that_names_a_folder_of_one_part(tree: Tree) -> None:
    """graphiti's CLAUDE.md: "### MCP Server (`mcp_server/`)", then "`graphiti_mcp_server.py` - Model Context
    Protocol server"; the v1 layout deleted it there and added a new `mcp_server/src/graphiti_mcp_server.py`.
    The heading's folder is where the name was, as git shows it was then; a name that folder never held
    (`README.md`, at the root) is read as before."""
    tree.write("mcp_server/graphiti_mcp_server.py", "x = 1\n")
    tree.write("README.md", "# G\n")
    tree.write("CLAUDE.md", "# G\n\n### MCP Server (`mcp_server/`)\n\n"
                            "- **MCP Implementation**: `graphiti_mcp_server.py` - Model Context Protocol server\n"
                            "- Usage is in `README.md`.\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    assert _found(tree) == []
    git(tree.root, "rm", "-q", "mcp_server/graphiti_mcp_server.py")
    tree.write("mcp_server/src/graphiti_mcp_server.py", "import os\n\n\ndef main():\n    return os.getcwd()\n")
    sha = commit(tree, "MCP Server v1.0.0", date="2026-02-01T10:00:00Z")
    assert _found(tree) == [("CLAUDE.md", 5, "stale-path", Severity.error,
                             f"file `graphiti_mcp_server.py` was deleted in {sha} on 2026-02-01: MCP Server v1.0.0")]


def test_files_a_mermaid_diagram_names(tree: Tree) -> None:
    """cline's cline-overview.md draws its architecture with `src/extension.ts` and friends in the labels."""
    tree.write("src/extension.ts", "export function activate() {}\n")
    tree.write("src/core/webview/index.ts", "export class WebviewProvider {}\n")
    tree.write("CLAUDE.md", "# Overview\n\n```mermaid\ngraph TB\n"
                            "    A[VSCode Extension Host<br/>src/extension.ts] --> B[WebviewProvider<br/>src/core/webview/index.ts]\n"
                            "    classDef host fill:#f9f\n```\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    assert _found(tree) == []
    sha = _move_to_apps(tree, "src")
    assert sorted((line, kind, message) for _, line, kind, _, message in _found(tree)) == [
        (5, "moved-path", f"`src/core/webview/index.ts` was moved to `apps/vscode/src/core/webview/index.ts` in {sha} "
                          "on 2026-02-01: Move vscode to apps"),
        (5, "moved-path", f"`src/extension.ts` was moved to `apps/vscode/src/extension.ts` in {sha} on 2026-02-01: "
                          "Move vscode to apps")]


def test_a_file_moved_then_deleted_names_both_commits(tree: Tree) -> None:
    """cline: `src/core/task/index.ts` went to apps/vscode/ with the extension, and was deleted there by
    the SDK migration; the move is what made the memory's path false."""
    tree.write("src/core/task/index.ts", "export class Task {}\n")
    tree.write("src/extension.ts", "export function activate() {}\n")
    tree.write("CLAUDE.md", "- Tasks run in `src/core/task/index.ts`.\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    moved = _move_to_apps(tree, "src")
    git(tree.root, "rm", "-q", "apps/vscode/src/core/task/index.ts")
    deleted = commit(tree, "sdk migration", date="2026-03-01T10:00:00Z")
    assert _found(tree) == [("CLAUDE.md", 1, "stale-path", Severity.error,
                             "file `src/core/task/index.ts` was moved to `apps/vscode/src/core/task/index.ts` in "
                             f"{moved} on 2026-02-01: Move vscode to apps, then deleted in {deleted} on 2026-03-01: "
                             "sdk migration")]


def test_members_of_an_enum_and_of_an_interface_that_are_gone(tree: Tree) -> None:
    """cline's general.md: `GENERATE_EXPLANATION` (a member of the `ClineDefaultTool` enum and a value of
    the proto's `ClineSay`) and `componentOverrides` (a property of the prompt variant's interface),
    removed with the Explain Changes feature and the SDK migration; `ModelFamily` is used by more files
    than are parsed for it, its definition in a shallow shared module."""
    tree.write("src/shared/tools.ts", 'export enum ClineDefaultTool {\n  READ = "read",\n  GENERATE_EXPLANATION = "generate_explanation",\n}\n')
    tree.write("proto/cline/ui.proto", 'syntax = "proto3";\nenum ClineSay {\n  TEXT = 0;\n  GENERATE_EXPLANATION = 29;\n}\n')
    tree.write("src/core/prompts/types.ts", "export interface PromptVariant {\n  id: string\n  componentOverrides?: Record<string, string>\n}\n")
    tree.write("src/shared/prompts.ts", 'export enum ModelFamily {\n  GENERIC = "generic",\n}\n')
    for k in range(45):  # users of ModelFamily, deeper than its definition, tests among them
        folder = "src/core/prompts/system-prompt/__tests__" if k % 2 else "src/core/prompts/system-prompt/variants"
        tree.write(f"{folder}/user{k:02}.ts", 'import { ModelFamily } from "../../../shared/prompts"\n'
                                              f"export const family{k} = ModelFamily.GENERIC\n")
    tree.write("CLAUDE.md", "- Add `GENERATE_EXPLANATION` to `ClineSay`.\n- Variants may set `componentOverrides`.\n"
                            "- Define variants for each `ModelFamily`.\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    assert _found(tree) == []
    tree.write("src/shared/tools.ts", 'export enum ClineDefaultTool {\n  READ = "read",\n}\n')
    tree.write("proto/cline/ui.proto", 'syntax = "proto3";\nenum ClineSay {\n  TEXT = 0;\n}\n')
    tree.write("src/core/prompts/types.ts", "export interface PromptVariant {\n  id: string\n}\n")
    git(tree.root, "rm", "-rq", "src/shared/prompts.ts", "src/core/prompts/system-prompt")
    sha = commit(tree, "Remove Explain Changes and the prompt variants", date="2026-02-01T10:00:00Z")
    assert sorted((line, kind, message.split(" (")[0]) for _, line, kind, _, message in _found(tree)) == [
        (1, "stale-symbol", "`GENERATE_EXPLANATION` is no longer defined anywhere in the code"),
        (2, "stale-symbol", "`componentOverrides` is no longer defined anywhere in the code"),
        (3, "stale-symbol", "`ModelFamily` is no longer defined anywhere in the code")], _found(tree)
    assert all(sha in message for *_, message in _found(tree))


def test_a_name_given_a_value_in_a_code_span_is_the_symbol(tree: Tree) -> None:
    """cline's general.md: "Added `GENERATE_EXPLANATION = 29` to `ClineSay` enum" names the enum member;
    a variable set in a span that no code defines (`NODE_ENV = production`) gets no verdict."""
    tree.write("proto/cline/ui.proto", 'syntax = "proto3";\nenum ClineSay {\n  TEXT = 0;\n  GENERATE_EXPLANATION = 29;\n}\n')
    tree.write("CLAUDE.md", "- `proto/cline/ui.proto` - Added `GENERATE_EXPLANATION = 29` to `ClineSay` enum\n"
                            "- Run the server with `NODE_ENV = production` set.\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    assert _found(tree) == []
    tree.write("proto/cline/ui.proto", 'syntax = "proto3";\nenum ClineSay {\n  TEXT = 0;\n}\n')
    sha = commit(tree, "Remove Explain Changes", date="2026-02-01T10:00:00Z")
    assert [(line, kind, message.split(" (")[0]) for _, line, kind, _, message in _found(tree)] == [
        (1, "stale-symbol", "`GENERATE_EXPLANATION` is no longer defined anywhere in the code")], _found(tree)
    assert sha in _found(tree)[0][4]


def test_a_module_path_written_without_its_extension(tree: Tree) -> None:
    """cline's copilot-instructions: "`src/utils/path`" for `src/utils/path.ts`, since moved under apps/vscode/."""
    tree.write("src/utils/path.ts", "export function toPosix(p: string) { return p }\n")
    tree.write("CLAUDE.md", "- Path helpers live in `src/utils/path`.\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    assert _found(tree) == []
    sha = _move_to_apps(tree, "src")
    assert _found(tree) == [("CLAUDE.md", 1, "moved-path", Severity.error,
                             f"`src/utils/path` was moved to `apps/vscode/src/utils/path` in {sha} on 2026-02-01: Move "
                             "vscode to apps")]


def test_a_top_folder_that_moved_names_its_new_place(tree: Tree) -> None:
    """cline's copilot-instructions: "`proto/`" was reported "moved to `proto`" (a useless fix) when
    the extension moved under apps/vscode/."""
    tree.write("proto/cline/ui.proto", 'syntax = "proto3";\n')
    tree.write("CLAUDE.md", "- Protobuf definitions live in `proto/`.\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    sha = _move_to_apps(tree, "proto")
    [finding] = check_workspace(Workspace(tree.root))[0]
    assert (finding.kind, finding.message) == (
        "moved-path", f"`proto/` was moved to `apps/vscode/proto/` in {sha} on 2026-02-01: Move vscode to apps")
    assert finding.fix is not None and finding.fix.model_dump()["new"] == "apps/vscode/proto/"


def test_the_groups_and_extras_a_pyproject_defines() -> None:
    from lorekeeper.refs.manifests import parse_manifest
    manifest = parse_manifest("pyproject.toml", b'[project]\nname = "a"\n[project.optional-dependencies]\nSilero_VAD = []\n'
                                                b'[tool.uv]\ndev-dependencies = ["pytest"]\n[tool.poetry.group.docs.dependencies]\n')
    assert manifest is not None
    assert [manifest.defines(n) for n in ("extra:silero-vad", "group:dev", "group:docs", "extra:dev", "group:lint")] == [
        True, True, True, False, False]
    dynamic = parse_manifest("pyproject.toml", b'[project]\nname = "a"\ndynamic = ["optional-dependencies"]\n')
    assert dynamic is not None and dynamic.defines("extra:anything")  # computed by the build backend: not judged


def test_a_folder_of_one_name_not_found_says_where_it_was_looked_for(tree: Tree) -> None:
    """A folder of one name that is nowhere in the tree is looked for where the rules' paths start (the
    root, for .clinerules; beside a nested AGENTS.md and above it), not in every folder, and said so.
    cline's general.md lists `variants/` and then its folders (`gpt-5/`): the end of a folder that
    exists is a short form of it, which holds."""
    tree.write("src/core/prompts/variants/gpt-5/config.ts", "export const config = {}\n")
    tree.write(".clinerules/general.md", "- `variants/` - Model-specific: `gpt-5/`, `xs/`\n")
    tree.write("pkg/AGENTS.md", "- Fixtures live in `fixtures/`.\n")
    tree.write("pkg/index.ts", "export {}\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    messages = {message.split(",")[0] for *_, message in _found(tree)}
    assert messages == {"folder `xs/` does not exist at the root",
                        "folder `fixtures/` does not exist here (beside this file or above it)"}, messages


def test_the_end_of_a_folder_that_exists_is_its_short_form(tree: Tree) -> None:
    """sentry-javascript's AGENTS.md lists `dev-packages/`'s folders by their own names, ihub-apps'
    copilot-instructions the server's (`services/chat/` for `server/services/chat/`): short forms of
    folders that exist, not reported (they were "does not exist at the root" information). A folder
    that was there as written when the line was written, and has moved, is still reported, though its
    new place ends with the same name."""
    tree.write("dev-packages/e2e-tests/package.json", "{}\n")
    tree.write("server/services/chat/index.js", "export {}\n")
    tree.write("old/README.md", "# old\n")
    tree.write("AGENTS.md", "## Dev packages\n- `e2e-tests/` - E2E tests\n- `services/chat/` - chat service\n"
                            "- `old/` - old docs\n- `nowhere/` - a folder no one made\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    assert [(line, kind, severity, message.split(",")[0]) for _, line, kind, severity, message in _found(tree)] == [
        (5, "unresolved-path", Severity.info, "folder `nowhere/` does not exist at the root")]
    (tree.root / "archive").mkdir()
    git(tree.root, "mv", "old", "archive/old")
    sha = commit(tree, "Move old docs to the archive", date="2026-02-01T10:00:00Z")
    assert [(line, kind, message) for _, line, kind, _, message in _found(tree) if line == 4] == [
        (4, "moved-path", f"`old/` was moved to `archive/old/` in {sha} on 2026-02-01: Move old docs to the archive")]


def test_a_branch_prefix_or_a_named_stack_is_no_path(tree: Tree) -> None:
    """sbtracker's "**Branch Prefix**: Always use `claude/` for agent work.", langfuse's "`cursor/`
    branch", evcc's "the main TypeScript/Vue.js application" and langfuse's "React/Next.js performance":
    names of branches and technologies, not folders or files (they were "does not exist" information)."""
    tree.write("CLAUDE.md", "- **Branch Prefix**: Always use `claude/` for agent work.\n"
                            "Never push to a `cursor/` branch.\n"
                            "- **assets/js/** contains the main TypeScript/Vue.js application.\n"
                            "- React/Next.js performance and rendering best practices.\n"
                            "- Keep fixtures in `fixtures/`.\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    assert [(line, message.split(",")[0]) for _, line, _, _, message in _found(tree)] == [
        (5, "folder `fixtures/` does not exist at the root")]


def test_a_block_of_snippets_each_from_the_root(tree: Tree) -> None:
    """web3-tycoon's "Supporting Tools" block: `cd tools/md-paste-image-extension`, its commands, then
    "# Clean asset outputs" and `cd tools/asset-generator`, meant from the root as well (it was "folder
    `tools/md-paste-image-extension/tools/asset-generator/` does not exist"); deleted, it is stale, named
    as the line spells it. A folder that is nowhere is still said to be missing."""
    tree.write("tools/md-paste-image-extension/package.json", '{"scripts": {"lint": "eslint ."}}\n')
    tree.write("tools/asset-generator/package.json", '{"scripts": {"clean": "rm -rf out"}}\n')
    tree.write("CLAUDE.md", "### Supporting Tools\n```bash\n# VS Code markdown extension\n"
                            "cd tools/md-paste-image-extension\nnpm run lint\n\n# Clean asset outputs\n"
                            "cd tools/asset-generator\n\n# Nowhere\ncd tools/nowhere\n```\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    assert [(line, message.split(",")[0]) for _, line, _, _, message in _found(tree)] == [
        (11, "folder `tools/md-paste-image-extension/tools/asset-generator/tools/nowhere/` does not exist")]
    git(tree.root, "rm", "-rq", "tools/asset-generator")
    sha = commit(tree, "delete the asset generator", date="2026-02-01T10:00:00Z")
    assert [(line, kind, message) for _, line, kind, _, message in _found(tree) if line == 8] == [
        (8, "stale-path", f"folder `tools/asset-generator/` was deleted in {sha} on 2026-02-01: delete the asset generator")]


def test_the_files_an_example_names_are_judged_on_history_alone(tree: Tree) -> None:
    """cline's general.md: "Proto files live in `proto/`** (e.g., `proto/cline/task.proto`, ...)": the
    example's files moved with the folder. An example may be made up, so a file it names that never
    existed is not reported (the invented `src/components/Button.tsx`), and one that is there holds."""
    tree.write("proto/cline/task.proto", 'syntax = "proto3";\n')
    tree.write("proto/cline/ui.proto", 'syntax = "proto3";\n')
    tree.write("src/app.ts", "export {}\n")
    tree.write("CLAUDE.md", "**Proto files live in `proto/`** (e.g., `proto/cline/task.proto`, `proto/cline/ui.proto`)\n"
                            "- Components go in their own file (e.g. `src/components/Button.tsx`), such as `src/app.ts`.\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    sha = _move_to_apps(tree, "proto")
    assert [(line, kind, severity, message) for _, line, kind, severity, message in _found(tree)] == [
        (1, "moved-path", Severity.error, f"`proto/` was moved to `apps/vscode/proto/` in {sha} on 2026-02-01: Move vscode to apps"),
        *((1, "moved-path", Severity.error, f"`proto/cline/{name}.proto` was moved to `apps/vscode/proto/cline/{name}.proto` "
           f"in {sha} on 2026-02-01: Move vscode to apps") for name in ("task", "ui"))]


def test_a_command_rewritten_after_its_script_moved_is_judged_from_when_it_entered(tree: Tree) -> None:
    """cline: `npm run compile` at the root, then the extension moved under apps/vscode/ (its scripts with
    it), then the paragraph was rewritten for bun: the line's blame is after the move, when the root
    never had the script; the command entered the file before it. Where the script went is named."""
    tree.write("package.json", json.dumps({"name": "cline", "scripts": {"compile": "tsc", "watch": "tsc -w"}}))
    tree.write("src/extension.ts", "export {}\n")
    tree.write("CLAUDE.md", "# Build\n\n- Build with `npm run compile`.\n- Watch with `npm run watch`.\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    (tree.root / "apps/vscode").mkdir(parents=True)
    git(tree.root, "mv", "package.json", "apps/vscode/package.json")
    git(tree.root, "mv", "src", "apps/vscode/src")
    tree.write("package.json", json.dumps({"name": "monorepo", "private": True, "workspaces": ["apps/*"]}))
    tree.write("apps/examples/vscode/package.json", json.dumps({"name": "example", "scripts": {"watch": "vite"}}))
    sha = commit(tree, "Move vscode to apps", date="2026-02-01T10:00:00Z")
    tree.write("CLAUDE.md", "# Build\n\n- Build with `bun run compile` (bun, not npm).\n- Watch with `npm run watch`.\n")
    commit(tree, "docs: bun", date="2026-02-10T10:00:00Z")
    found = [(line, kind, severity, message) for _, line, kind, severity, message in _found(tree) if severity != Severity.info]
    assert found == [
        (3, "stale-script", Severity.error, f'script "compile" is not defined in package.json any more (removed in {sha} '
         "on 2026-02-01: Move vscode to apps); `apps/vscode/package.json` defines one since"),
        (4, "stale-script", Severity.error, f'script "watch" is not defined in package.json any more (removed in {sha} '
         "on 2026-02-01: Move vscode to apps); `apps/vscode/package.json` defines one since")]


def test_a_path_rewritten_after_its_folder_moved_is_not_taken_for_a_short_form(tree: Tree) -> None:
    """cline's copilot-instructions: "`src/shared/storage/state-keys.ts`" entered the file before the
    extension moved under apps/vscode/, and the line was reworded after: at its blame the path was no
    longer there as written, and it ends a path that exists (a short form?). When its text entered the
    file it named that very file: moved."""
    tree.write("src/shared/storage/state-keys.ts", "export const KEYS = {}\n")
    tree.write("CLAUDE.md", "- Storage keys live in `src/shared/storage/state-keys.ts`.\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    sha = _move_to_apps(tree, "src")
    tree.write("CLAUDE.md", "- Adding a key requires updating `src/shared/storage/state-keys.ts`; use `StateManager`.\n")
    commit(tree, "docs: reword", date="2026-02-10T10:00:00Z")
    assert [(line, kind, severity, message) for _, line, kind, severity, message in _found(tree)
            if severity != Severity.info] == [
        (1, "moved-path", Severity.error, f"`src/shared/storage/state-keys.ts` was moved to "
         f"`apps/vscode/src/shared/storage/state-keys.ts` in {sha} on 2026-02-01: Move vscode to apps")]


def test_a_command_that_left_the_file_and_came_back_entered_when_it_came_back(tree: Tree) -> None:
    """inspector's AGENTS.md: "`npm run dev`" at the root, removed with the root scripts; months later
    another paragraph says "(under `npm run dev` Vite's stub is a Proxy)", of a client's dev server. That
    line entered when it was written, after the root script was gone: not a stale root script."""
    tree.write("package.json", json.dumps({"scripts": {"dev": "vite", "build": "tsc"}}))
    tree.write("AGENTS.md", "# Dev\n\n- Development mode: `npm run dev`\n- Build: `npm run build`\n")
    commit(tree, "v1", date="2026-01-01T12:00:00Z")
    tree.write("package.json", json.dumps({"scripts": {"build": "tsc -b"}, "workspaces": ["clients/*"]}))
    tree.write("clients/web/package.json", json.dumps({"name": "web", "scripts": {"dev": "vite"}}))
    tree.write("AGENTS.md", "# Dev\n\n- Build: `npm run build`\n")
    commit(tree, "v2 replaces the root scripts", date="2026-02-01T12:00:00Z")
    tree.write("AGENTS.md", "# Dev\n\n- Build: `npm run build`\n- The web smoke needs a build (under `npm run dev` Vite "
                            "serves a stub instead).\n")
    commit(tree, "docs: smoke", date="2026-03-01T12:00:00Z")
    assert [f for f in _found(tree) if f[3] != Severity.info] == []


def test_a_folder_named_in_prose_that_moved(tree: Tree) -> None:
    """cline's cline-overview.md: "Anything inside the src folder" after the extension moved under
    apps/vscode/. A folder named in prose may be any folder: weak, judged only because history shows it
    held when the line was written; the fix rewrites the word as written. The same words naming a folder
    this repository never had ("the legacy folder", "the same folder") say nothing."""
    tree.write("src/extension.ts", "export {}\n")
    tree.write("CLAUDE.md", "- **Core Extension**: Anything inside the src folder, organized into modules.\n"
                            "- Generated files go in the `out` folder; keep the legacy folder and the same folder empty.\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    sha = _move_to_apps(tree, "src")
    [finding] = check_workspace(Workspace(tree.root))[0]
    assert (finding.line, finding.kind, finding.severity, finding.message) == (
        1, "moved-path", Severity.error, f"`src/` was moved to `apps/vscode/src/` in {sha} on 2026-02-01: Move vscode to apps")
    assert finding.fix is not None and finding.fix.model_dump() == {"action": "replace-ref", "old": "src", "new": "apps/vscode/src"}


def test_a_folder_with_a_joined_name_inside_the_text_that_moved(tree: Tree) -> None:
    """cline's cline-overview.md: "**Webview**: Anything inside the webview-ui." after the webview moved
    under apps/vscode/; "in the long-term plan" names no folder this repository had, and says nothing."""
    tree.write("webview-ui/src/App.tsx", "export {}\n")
    tree.write("CLAUDE.md", "- **Webview**: Anything inside the webview-ui. All the views the user sees.\n"
                            "- Keep it in the long-term plan.\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    assert check_workspace(Workspace(tree.root))[0] == []
    sha = _move_to_apps(tree, "webview-ui")
    [finding] = check_workspace(Workspace(tree.root))[0]
    assert (finding.line, finding.kind, finding.severity, finding.message) == (
        1, "moved-path", Severity.error,
        f"`webview-ui/` was moved to `apps/vscode/webview-ui/` in {sha} on 2026-02-01: Move vscode to apps")


def test_a_member_that_moved_to_another_type_names_it(tree: Tree) -> None:
    """oxc's minifier CLAUDE.md: "`PeepholeOptimizations::run_in_loop`" after the loop moved to
    `Compressor`. The member is named where it is now, with a fix, when one other type defines it and did
    not when the memory was written; a name another type already had then is not taken for it."""
    tree.write("src/peephole.ts", "export class Peephole {\n  runInLoop(): void {}\n  foldConstants(): void {}\n}\n")
    tree.write("src/printer.ts", "export class Printer {\n  foldConstants(): void {}\n}\n")
    tree.write("CLAUDE.md", "- Fixed-point iteration in `Peephole::runInLoop`\n- Folding in `Peephole.foldConstants()`\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    (tree.root / "src/peephole.ts").unlink()
    tree.write("src/compressor.ts", "export class Compressor {\n  runInLoop(): void {}\n}\n")
    sha = commit(tree, "merge the peephole state into the compressor", date="2026-02-01T10:00:00Z")
    moved, folding = [f for f in check_workspace(Workspace(tree.root))[0] if f.kind == "stale-symbol"]
    assert (moved.line, moved.severity) == (1, Severity.error)
    assert moved.message.endswith("; it is now `Compressor.runInLoop` in `src/compressor.ts`")
    assert f"removed in {sha}" in moved.message
    assert moved.fix is not None and moved.fix.model_dump() == {
        "action": "replace-ref", "old": "Peephole::runInLoop", "new": "Compressor::runInLoop"}
    assert (folding.line, folding.fix) == (2, None) and "no longer defined anywhere in the code" in folding.message


def test_a_file_moved_to_a_generated_file_offers_no_fix(tree: Tree) -> None:
    """A hand-written file that became generated output at its new place: the move is reported, but the
    memory is not pointed at a file marked not to be edited."""
    body = "".join(f"export type Task{n} = {{ id: string; title: string; done: boolean }}\n" for n in range(12))
    tree.write("src/api/types.ts", body)
    tree.write("CLAUDE.md", "- Task types live in `src/api/types.ts`; edit them there.\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    (tree.root / "src/generated").mkdir(parents=True)
    git(tree.root, "mv", "src/api/types.ts", "src/generated/types.ts")
    tree.write("src/generated/types.ts", "// Code generated by protoc-gen-ts. DO NOT EDIT.\n" + body)
    sha = commit(tree, "generate the types from the protos", date="2026-02-01T10:00:00Z")
    [finding] = check_workspace(Workspace(tree.root))[0]
    assert (finding.kind, finding.severity, finding.fix) == ("moved-path", Severity.error, None)
    assert finding.message == (f"`src/api/types.ts` was moved to `src/generated/types.ts` in {sha} on 2026-02-01: generate "
                               "the types from the protos; it is generated (marked not to be edited by hand)")


def test_a_library_version_declared_by_a_workspace_package(tree: Tree) -> None:
    """memos: "React 18.3" and "Vite 7" in the root's AGENTS.md, declared by `web/package.json` (no
    manifest up from AGENTS.md names them); theia's "TypeScript ~5.4.5". Packages that give a library
    different versions leave it unjudged (which one the memory means is not known)."""
    tree.write("package.json", json.dumps({"devDependencies": {"typescript": "~5.4.5"}}))
    tree.write("web/package.json", json.dumps({"dependencies": {"react": "^18.3.1", "vue": "^3.4.0"},
                                               "devDependencies": {"vite": "^7.2.4"}}))
    tree.write("docs/package.json", json.dumps({"dependencies": {"vue": "^2.7.0"}}))
    tree.write("AGENTS.md", "- Frontend: React 18.3 + Vite 7, Vue 3.4.\n- TypeScript ~5.4.5 with strict settings\n")
    first = commit(tree, "initial", date="2026-01-10T10:00:00Z")
    tree.write("package.json", json.dumps({"devDependencies": {"typescript": "~5.9.3"}}))
    tree.write("web/package.json", json.dumps({"dependencies": {"react": "^19.2.6", "vue": "^3.5.0"},
                                               "devDependencies": {"vite": "^7.3.0"}}))
    sha = commit(tree, "React 19, TypeScript 5.9", date="2026-02-01T10:00:00Z")
    assert _found(tree) == [
        ("AGENTS.md", 1, "stale-version", Severity.error,
         f"react 18.3: `web/package.json` now says ^19.2.6 (changed in {sha} on 2026-02-01: React 19, TypeScript 5.9; "
         f"it said ^18.3.1 when this memory was written in {first} on 2026-01-10)"),
        ("AGENTS.md", 2, "stale-version", Severity.error,
         f"typescript 5.4.5: `package.json` now says ~5.9.3 (changed in {sha} on 2026-02-01: React 19, TypeScript 5.9; "
         f"it said ~5.4.5 when this memory was written in {first} on 2026-01-10)")]


_PYPROJECT = """[project]
name = "tool"
dependencies = ["httpx>=0.27"]

[project.optional-dependencies]
dev = [{dev}]
"""


def test_a_tool_the_project_dropped(tree: Tree) -> None:
    """ramalama: "make lint  # Run flake8 + shellcheck" and "Formatting: black + isort" after a commit
    replaced flake8, black and isort with ruff (gone from pyproject.toml, no build file names them): a
    warning on each line naming one, with the commit that removed it. Not where the line tells the change
    ("Migrated from mypy"), not a tool a pre-commit hook still runs (pylint), not one still declared."""
    tree.write("pyproject.toml", _PYPROJECT.format(dev='"black~=25.0", "flake8~=7.0", "isort~=7.0", "pylint", "mypy"'))
    tree.write(".pre-commit-config.yaml", "repos:\n  - repo: https://github.com/pycqa/pylint\n    hooks:\n      - id: pylint\n")
    tree.write("Makefile", "lint:\n\tflake8 .\n")
    tree.write("CLAUDE.md", "# Tool\n\n```bash\nmake lint  # Run flake8 + shellcheck\n```\n\n"
                            "- Formatting: black + isort\n- Lint with pylint.\n- Use httpx for requests.\n"
                            "- Migrated from mypy to ty.\n- A black background for the hero.\n")
    first = commit(tree, "initial", date="2026-01-10T10:00:00Z")
    tree.write("pyproject.toml", _PYPROJECT.format(dev='"ruff>=0.14"'))
    tree.write("Makefile", "lint:\n\truff check .\n")
    sha = commit(tree, "squash", date="2026-02-06T10:00:00Z")
    written = f"when this memory was written in {first} on 2026-01-10"
    removed = f"removed in {sha} on 2026-02-06: squash"
    assert [f for f in _found(tree) if f[2] == "stale-dependency"] == [
        ("CLAUDE.md", 4, "stale-dependency", Severity.error,
         f"flake8: `pyproject.toml` declared it {written}; no manifest does now ({removed}) and no build, CI or "
         "configuration file nor code names it"),
        ("CLAUDE.md", 7, "stale-dependency", Severity.error,
         f"black: `pyproject.toml` declared it {written}; no manifest does now ({removed}) and no build, CI or "
         "configuration file nor code names it"),
        ("CLAUDE.md", 7, "stale-dependency", Severity.error,
         f"isort: `pyproject.toml` declared it {written}; no manifest does now ({removed}) and no build, CI or "
         "configuration file nor code names it")]


def test_a_tool_whose_directives_outlive_it(tree: Tree) -> None:
    """fastmcp: "Type Checking: `uv run pyright`" after "switch from `pyright` to `ty`", while the code
    keeps `# pyright: ignore[...]` comments (ty and basedpyright read them too): a directive names the tool
    without using it. The change is the commit that stopped declaring it, not a later one that changed how
    often the word occurs (`[tool.basedpyright]` holds "pyright"). A name the code uses otherwise (a
    comment that speaks of it) still keeps it."""
    tree.write("pyproject.toml", _PYPROJECT.format(dev='"pyright>=1.1.389", "mypy"'))
    tree.write("src/app.py", "import os  # pyright: ignore[reportUnusedImport]\n")
    tree.write("src/old.py", "# mypy: ignore-errors\n# Kept for mypy users: see the docs.\n")
    tree.write("AGENTS.md", "- **Type Checking**: `uv run pyright`\n- Run mypy before pushing.\n")
    first = commit(tree, "initial", date="2025-08-08T10:00:00Z")
    tree.write("pyproject.toml", _PYPROJECT.format(dev='"ty>=0.0.1"'))
    switched = commit(tree, "switch from `pyright` to `ty`", date="2025-08-19T10:00:00Z")
    tree.write("pyproject.toml", _PYPROJECT.format(dev='"ty>=0.0.1"') + "\n[tool.basedpyright]\ntypeCheckingMode = \"basic\"\n")
    commit(tree, "Fix ty type errors", date="2025-12-22T10:00:00Z")
    assert _found(tree) == [("AGENTS.md", 1, "stale-dependency", Severity.error,
                             f"pyright: `pyproject.toml` declared it when this memory was written in {first} on 2025-08-08; "
                             f"no manifest does now (removed in {switched} on 2025-08-19: switch from `pyright` to `ty`) "
                             "and no build, CI or configuration file nor code names it (`src/app.py` names it only in a "
                             "directive left for it or as the past)")]


def test_a_tool_named_as_the_past_or_in_a_manifest_deleted_since(tree: Tree) -> None:
    """logfire's Makefile: `@echo "… this repo no longer runs MkDocs."` after mkdocs left pyproject.toml
    (the past, not a use); humanlayer: "Strict type hints (mypy strict mode)" after the Python package's
    pyproject.toml was deleted with it (the manifest of then is gone, not only the dependency)."""
    tree.write("package.json", json.dumps({"name": "web", "devDependencies": {"typescript": "^5.0.0"}}))
    tree.write("pyproject.toml", _PYPROJECT.format(dev='"mkdocs>=1.6", "mypy>=1.0"'))
    tree.write("Makefile", "docs:\n\t@echo \"Docs are built elsewhere; this repo no longer runs MkDocs.\"\n")
    tree.write("CLAUDE.md", "- `uv run mkdocs build` to check the docs.\n- Strict type hints (mypy strict mode)\n")
    first = commit(tree, "initial", date="2025-06-24T10:00:00Z")
    (tree.root / "pyproject.toml").unlink()
    sha = commit(tree, "Clean up the sdk, this is the app now", date="2025-09-29T10:00:00Z")
    written = f"when this memory was written in {first} on 2025-06-24"
    removed = f"removed in {sha} on 2025-09-29: Clean up the sdk, this is the app now"
    assert _found(tree) == [
        ("CLAUDE.md", 1, "stale-dependency", Severity.error, f"mkdocs: `pyproject.toml` declared it {written}; no "
         f"manifest does now ({removed}) and no build, CI or configuration file nor code names it"),
        ("CLAUDE.md", 2, "stale-dependency", Severity.error, f"mypy: `pyproject.toml` declared it {written}; no "
         f"manifest does now ({removed}) and no build, CI or configuration file nor code names it")]


def test_a_framework_whose_app_was_removed(tree: Tree) -> None:
    """unkey: "- Hono (API workers)" and "deploys to Cloudflare Workers via Wrangler" after the workers app
    (the one package.json that declared both) was removed, while the product's docs (`.mdx`) still show
    how to use Unkey with Hono: docs are no code."""
    tree.write("web/apps/api/package.json", json.dumps({"name": "api", "dependencies": {"hono": "^4.0.0"},
                                                        "devDependencies": {"wrangler": "^3.0.0"}}))
    tree.write("web/apps/dashboard/package.json", json.dumps({"name": "dashboard", "dependencies": {"next": "14.2.0"}}))
    tree.write("docs/quickstart/hono.mdx", "# Hono\n\nProtect a Hono route with Unkey.\n")
    tree.write("AGENTS.md", "- Hono (API workers)\n- The API service deploys to Cloudflare Workers via Wrangler\n")
    first = commit(tree, "initial", date="2026-01-13T10:00:00Z")
    for name in ("package.json",):
        (tree.root / "web/apps/api" / name).unlink()
    sha = commit(tree, "chore(web): remove the v1 API", date="2026-01-27T10:00:00Z")
    tail = (f"when this memory was written in {first} on 2026-01-13; no manifest does now (removed in {sha} on "
            "2026-01-27: chore(web): remove the v1 API) and no build, CI or configuration file nor code names it")
    assert _found(tree) == [
        ("AGENTS.md", 1, "stale-dependency", Severity.error, f"hono: `web/apps/api/package.json` declared it {tail}"),
        ("AGENTS.md", 2, "stale-dependency", Severity.error, f"wrangler: `web/apps/api/package.json` declared it {tail}")]


def test_a_library_family_the_project_dropped(tree: Tree) -> None:
    """memos: "Reuse Radix primitives" after the `@radix-ui/*` packages of `web/package.json` gave way to
    Base UI; a name no manifest ever declared ("Mantine") says nothing."""
    tree.write("web/package.json", json.dumps({"dependencies": {"@radix-ui/react-dialog": "^1.1.0",
                                                                "@radix-ui/react-checkbox": "^1.1.0"}}))
    tree.write("web/src/App.tsx", 'import * as Dialog from "@radix-ui/react-dialog";\n')
    tree.write("AGENTS.md", "- UI: Radix/Tailwind UI components.\n- Reuse Radix primitives, never Mantine.\n")
    first = commit(tree, "initial", date="2026-06-05T10:00:00Z")
    tree.write("web/package.json", json.dumps({"dependencies": {"@base-ui/react": "^1.0.0"}}))
    tree.write("web/src/App.tsx", 'import { Dialog } from "@base-ui/react";\n')
    sha = commit(tree, "chore(web): migrate UI primitives to Base UI", date="2026-07-14T10:00:00Z")
    message = (f"radix: `web/package.json` declared `@radix-ui/react-checkbox` when this memory was written in {first} "
               f"on 2026-06-05; no manifest does now (removed in {sha} on 2026-07-14: chore(web): migrate UI primitives "
               "to Base UI) and no build, CI or configuration file nor code names it")
    assert _found(tree) == [("AGENTS.md", 1, "stale-dependency", Severity.error, message),
                            ("AGENTS.md", 2, "stale-dependency", Severity.error, message)]


_TASKFILE = """version: '3'

includes:
  test: ./taskfiles/test.yml

tasks:
  build:
    aliases: [b]
    cmds:
      - go build ./...

  lint:fix:
    desc: Run linters and fix issues
    cmds:
      - golangci-lint run --fix
{more}"""


def test_a_task_of_a_taskfile(tree: Tree) -> None:
    """redpanda connect: `task vuln  # Run vulnerability scanner` after "taskfiles: remove vuln task
    target" is an error, like a make target; a task of an included Taskfile (`task test:unit`) is looked
    up there, an alias counts, a task named with a colon is the Taskfile's own (crush's `lint:fix`),
    variables (`PKG=...`) and what follows `--` are not tasks."""
    tree.write("Taskfile.yml", _TASKFILE.format(more="  vuln:\n    desc: Run govulncheck\n    cmds:\n      - govulncheck ./...\n"))
    tree.write("taskfiles/test.yml", "version: '3'\ntasks:\n  unit:\n    cmds:\n      - go test ./...\n")
    tree.write("CLAUDE.md", "```bash\ntask build                  # Build\ntask b\ntask vuln                   # Run vulnerability scanner\n"
                            "task test:unit PKG=./internal/...\ntask build -- --verbose\ntask lint:fix\n```\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    tree.write("Taskfile.yml", _TASKFILE.format(more=""))
    sha = commit(tree, "taskfiles: remove vuln task target", date="2026-02-27T10:00:00Z")
    assert _found(tree) == [("CLAUDE.md", 4, "stale-task", Severity.error,
                             f'task "vuln" is not defined in Taskfile.yml (removed in {sha} on 2026-02-27: '
                             "taskfiles: remove vuln task target)")]


def test_a_tox_environment(tree: Tree) -> None:
    """phoenix: `tox run -e ruff` after "chore: remove non-test tox commands" took `[testenv:ruff]` out of
    tox.ini is an error, like a make target; environments an ``env_list`` makes (braces expanded), a Python
    factor (`py313`), a name made of the file's factors and one never defined (info) are not."""
    tree.write("tox.ini", "[tox]\nenv_list = py{311,312}-unit, docs\n\n[testenv]\ncommands = pytest\n\n"
                          "[testenv:ruff]\ncommands = ruff check\n\n[testenv:unit_tests]\ncommands = pytest tests/unit\n")
    tree.write("CLAUDE.md", "```bash\ntox run -e ruff                 # Format and lint\ntox run -e unit_tests -- -k x\n"
                            "tox -e py312-unit\ntox -e py313\ntox -e docs-unit\ntox -e never_was\n```\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    tree.write("tox.ini", "[tox]\nenv_list = py{311,312}-unit, docs\n\n[testenv]\ncommands = pytest ruff\n\n"
                          "[testenv:unit_tests]\ncommands = pytest tests/unit\n")
    sha = commit(tree, "chore: remove non-test tox commands", date="2026-02-25T10:00:00Z")
    found = _found(tree)
    assert [f[:4] for f in found] == [("CLAUDE.md", 2, "stale-tox-env", Severity.error),
                                      ("CLAUDE.md", 7, "unresolved-tox-env", Severity.info)]
    assert found[0][4] == (f'tox environment "ruff" is not defined in tox.ini (removed in {sha} on 2026-02-25: '
                           "chore: remove non-test tox commands)")


def test_a_task_of_an_included_taskfile(tree: Tree) -> None:
    """redpanda connect: `task test:integration-package PKG=./internal/impl/kafka/...` after the task was
    renamed `integration` in `taskfiles/test.yml`, which Taskfile.yml includes as `test`; its aliases,
    the namespace's default task (`task test`), a flattened include and one that cannot be read hold."""
    tree.write("Taskfile.yml", "version: '3'\nincludes:\n  test: ./taskfiles/test.yml\n  lib:\n    taskfile: ./lib\n"
                               "    flatten: true\n  remote: https://example.com/Taskfile.yml\ntasks:\n  build:\n"
                               "    cmds: [go build ./...]\n")
    tree.write("taskfiles/test.yml", "version: '3'\ntasks:\n  default:\n    cmds: [go test ./...]\n  integration-package:\n"
                                     "    aliases: [it]\n    cmds: [go test -tags integration {{.PKG}}]\n")
    tree.write("lib/Taskfile.yml", "version: '3'\ntasks:\n  gen:\n    cmds: [go generate ./...]\n")
    tree.write("CLAUDE.md", "```bash\ntask test:integration-package PKG=./internal/impl/kafka/...\ntask test:it\ntask test\n"
                            "task gen\ntask remote:deploy\ntask test:never-was\n```\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    tree.write("taskfiles/test.yml", "version: '3'\ntasks:\n  default:\n    cmds: [go test ./...]\n  integration:\n"
                                     "    aliases: [it]\n    cmds: [go run ./cmd/tools/integration run]\n")
    sha = commit(tree, "integration: add taskfile targets for run and show", date="2026-04-08T10:00:00Z")
    found = [f[:4] + (f[4].split(" (")[0],) for f in _found(tree)]
    assert found == [
        ("CLAUDE.md", 2, "stale-task", Severity.error, 'task "test:integration-package" is not defined in taskfiles/test.yml'),
        ("CLAUDE.md", 7, "unresolved-task", Severity.info, 'task "test:never-was" is not defined in Taskfile.yml, and was not when '
                                                            "this memory was written in " + found[1][4].rsplit("written in ", 1)[-1]),
    ]
    assert f"removed in {sha} on 2026-04-08" in _found(tree)[0][4]


def test_a_go_module_the_project_dropped(tree: Tree) -> None:
    """redpanda connect: "Integration tests use `ory/dockertest`" after "Replace ory/dockertest with
    testcontainers-go" (gone from go.mod, imported by no file): a warning; a module still required
    (`spf13/cobra`) or installed by the Makefile (`golangci/golangci-lint`) says nothing."""
    go_mod = "module example.com/app\n\ngo 1.22\n\nrequire (\n\tgithub.com/spf13/cobra v1.8.0\n{more})\n"
    tree.write("go.mod", go_mod.format(more="\tgithub.com/ory/dockertest/v3 v3.10.0\n\tgithub.com/golangci/golangci-lint v1.60.0\n"))
    tree.write("it_test.go", 'package app\n\nimport "github.com/ory/dockertest/v3"\n\nvar _ = dockertest.NewPool\n')
    tree.write("Makefile", "lint:\n\tgo run github.com/golangci/golangci-lint/cmd/golangci-lint run\n")
    tree.write("AGENTS.md", "- Integration tests use `ory/dockertest` to spin up real dependencies.\n"
                            "- The CLI is built on `spf13/cobra`; lint with `golangci/golangci-lint`.\n")
    first = commit(tree, "initial", date="2025-11-14T10:00:00Z")
    tree.write("go.mod", go_mod.format(more="\tgithub.com/testcontainers/testcontainers-go v0.33.0\n"))
    tree.write("it_test.go", 'package app\n\nimport "github.com/testcontainers/testcontainers-go"\n\nvar _ = testcontainers.Run\n')
    sha = commit(tree, "Replace ory/dockertest with testcontainers-go", date="2026-04-01T10:00:00Z")
    assert _found(tree) == [("AGENTS.md", 1, "stale-dependency", Severity.error,
                             f"ory/dockertest: `go.mod` declared `github.com/ory/dockertest/v3` when this memory was written "
                             f"in {first} on 2025-11-14; no manifest does now (removed in {sha} on 2026-04-01: Replace "
                             "ory/dockertest with testcontainers-go) and no build, CI or configuration file nor code names it")]


def test_a_go_module_named_in_prose_or_by_its_name_alone(tree: Tree) -> None:
    """github-mcp-server's copilot instructions after the go-sdk conversion: "Uses mark3labs/mcp-go for MCP
    protocol" (owner and name, no code span) and "Mock GitHub API with `go-github-mock`" (the last part of
    the path alone), both gone from go.mod: warnings. Words of the same shapes that no go.mod declared
    then (`src/utils`, and/or, `read-only`) and a module still required (google/go-github) say nothing."""
    go_mod = "module example.com/app\n\ngo 1.24\n\nrequire (\n\tgithub.com/google/go-github/v74 v74.0.0\n{more})\n"
    tree.write("go.mod", go_mod.format(more="\tgithub.com/mark3labs/mcp-go v0.36.0\n"
                                            "\tgithub.com/migueleliasweb/go-github-mock v1.3.0\n"))
    tree.write("server.go", 'package app\n\nimport "github.com/mark3labs/mcp-go/server"\n\nvar _ = server.NewMCPServer\n')
    tree.write("src/utils/x.go", "package utils\n")
    tree.write(".github/copilot-instructions.md",
               "- **Framework:** Uses mark3labs/mcp-go for MCP protocol, google/go-github for GitHub API\n"
               "- Mock GitHub API with `go-github-mock` (REST); helpers in src/utils, read and/or write `read-only`\n")
    first = commit(tree, "initial", date="2025-11-18T10:00:00Z")
    tree.write("go.mod", go_mod.format(more="\tgithub.com/modelcontextprotocol/go-sdk v1.0.0\n"))
    tree.write("server.go", 'package app\n\nimport "github.com/modelcontextprotocol/go-sdk/mcp"\n\nvar _ = mcp.NewServer\n')
    sha = commit(tree, "Convert to modelcontextprotocol/go-sdk", date="2025-12-01T10:00:00Z")
    tail = (f"when this memory was written in {first} on 2025-11-18; no manifest does now (removed in {sha} on "
            "2025-12-01: Convert to modelcontextprotocol/go-sdk) and no build, CI or configuration file nor code names it")
    assert _found(tree) == [
        (".github/copilot-instructions.md", 1, "stale-dependency", Severity.error,
         "mark3labs/mcp-go: `go.mod` declared `github.com/mark3labs/mcp-go` " + tail),
        (".github/copilot-instructions.md", 2, "stale-dependency", Severity.error,
         "go-github-mock: `go.mod` declared `github.com/migueleliasweb/go-github-mock` " + tail),
    ]


def test_a_method_called_on_an_instance_and_a_decorator(tree: Tree) -> None:
    """humanlayer's CLAUDE.md after the Python SDK was removed: "`@hl.require_approval()` wraps functions",
    "`hl.human_as_tool()` enables AI agents to consult humans" (`hl` an instance, not a class). A member
    some other code still calls is not judged; nor is a short or one-word member (`hl.run()`)."""
    tree.write("sdk/approval.py", "class HumanLayer:\n    def require_approval(self): ...\n    def human_as_tool(self): ...\n"
                                  "    def fetch_approval(self): ...\n    def run(self): ...\n")
    tree.write("app/main.py", "def serve(): ...\n")
    tree.write("CLAUDE.md", "- `@hl.require_approval()` wraps functions\n- `hl.human_as_tool()` consults humans\n"
                            "- `hl.fetch_approval()` polls\n- `hl.run()` runs\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    (tree.root / "sdk/approval.py").unlink()
    tree.write("app/main.py", "def serve():\n    client.fetch_approval()\n")
    sha = commit(tree, "remove the python sdk", date="2026-02-01T10:00:00Z")
    found = [(f.line, f.severity, f.message) for f in check_workspace(Workspace(tree.root))[0] if f.kind == "stale-symbol"]
    assert found == [
        (1, Severity.error, f"`require_approval` (called as `hl.require_approval`) is no longer defined anywhere in the code "
                            f"(removed in {sha} on 2026-02-01: remove the python sdk; it was in `sdk/approval.py` when this "
                            f"memory was written in {found[0][2].rsplit('written in ', 1)[-1][:7]} on 2026-01-10)"),
        (2, Severity.error, found[1][2]),
    ]
    assert found[1][2].startswith("`human_as_tool` (called as `hl.human_as_tool`) is no longer defined anywhere")


def test_names_a_code_block_uses_that_the_code_dropped(tree: Tree) -> None:
    """memos' AGENTS.md: "const { layout, toggleSortOrder } = useView();" after the sort toggle was removed
    from the view context (`useView`, beside it in the block, is still defined where it was). Names the
    block declares itself (an example's own component) are not judged, nor a name with no partner in its
    block where it was defined: trigger.dev's `<RunDetails id={params.id} />` in a page made up to show the
    SDK, a component its reference app once had."""
    tree.write("web/src/contexts/ViewContext.tsx",
               "interface ViewContextValue {\n  toggleSortOrder: () => void;\n}\n"
               "export function useView(): ViewContextValue {\n  const toggleSortOrder = () => {};\n  return { toggleSortOrder };\n}\n"
               "export function MemoCard() { return null; }\n")
    tree.write("references/app/RunDetails.tsx", "export function RunDetails() { return null; }\n")
    tree.write("AGENTS.md", "```tsx\nconst { toggleSortOrder } = useView();\nfunction MemoCard() { return null; }\n```\n"
                            "```tsx\nexport default function RunPage() {\n  return <RunDetails id={params.id} />;\n}\n```\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    tree.write("web/src/contexts/ViewContext.tsx", "export function useView() {\n  return {};\n}\n")
    git(tree.root, "rm", "-rq", "references")
    sha = commit(tree, "remove the sort toggle", date="2026-02-01T10:00:00Z")
    [finding] = check_workspace(Workspace(tree.root))[0]
    assert (finding.line, finding.kind, finding.severity) == (2, "stale-symbol", Severity.error)
    assert finding.message.startswith(f"`toggleSortOrder` is no longer defined anywhere in the code (removed in {sha} on 2026-02-01")


def test_names_a_nested_files_code_block_uses_from_its_folder(tree: Tree) -> None:
    """toolhive's `cmd/thv-operator/CLAUDE.md`: "statusCollector.SetSyncStatus(mcpv1alpha1.SyncPhaseFailed, …)"
    after the operator's sync capability was removed. The two names were defined in different files, but
    both under the folder the file is nested in, which it is about: stale. The same block at the root, whose
    names no other name of the block vouches for, is taken for an example's."""
    tree.write("cmd/op/pkg/status/collector.go", "package status\n\nfunc (c *Collector) SetSyncStatus(p string) {}\n")
    tree.write("cmd/op/api/v1/types.go", 'package v1\n\nconst SyncPhaseFailed = "Failed"\n')
    tree.write("cmd/op/main.go", "package main\n\nfunc main() {}\n")
    block = "```go\nstatusCollector.SetSyncStatus(mcpv1.SyncPhaseFailed)\n```\n"
    tree.write("cmd/op/CLAUDE.md", "Always set status before returning errors:\n\n" + block)
    tree.write("AGENTS.md", "An example:\n\n" + block)
    commit(tree, "initial", date="2025-10-09T10:00:00Z")
    git(tree.root, "rm", "-rq", "cmd/op/pkg", "cmd/op/api")
    sha = commit(tree, "removes sync capability from operator", date="2025-11-22T10:00:00Z")
    found = [f for f in _found(tree) if f[2] == "stale-symbol"]
    assert [f[:4] for f in found] == [("cmd/op/CLAUDE.md", 4, "stale-symbol", Severity.error)] * 2
    assert [f[4].split(" (")[0] for f in found] == ["`SetSyncStatus` is no longer defined anywhere in the code",
                                                     "`SyncPhaseFailed` is no longer defined anywhere in the code"]
    assert all(f"removed in {sha} on 2025-11-22" in f[4] for f in found)


def test_a_glob_of_file_names_that_matches_nothing_now(tree: Tree) -> None:
    """humanlayer: "Tests are co-located with source as `*_test.py` files" after the Python SDK was removed;
    `*.spec.ts`, which matched nothing when written, is not judged."""
    tree.write("sdk/core/approval_test.py", "def test_it(): ...\n")
    tree.write("sdk/core/client_test.py", "def test_it(): ...\n")
    tree.write("web/app.ts", "export {};\n")
    tree.write("CLAUDE.md", "- Tests are co-located with source as `*_test.py` files\n- Web tests: `*.spec.ts`\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    git(tree.root, "rm", "-rq", "sdk")
    sha = commit(tree, "remove the python sdk", date="2026-02-01T10:00:00Z")
    assert _found(tree) == [("CLAUDE.md", 1, "stale-path", Severity.error,
                             "no file matches `*_test.py` any more (`sdk/core/approval_test.py` and 1 more matched it; "
                             f"`sdk/core/approval_test.py` was deleted in {sha} on 2026-02-01: remove the python sdk)")]


def test_an_environment_variable_the_code_stopped_reading(tree: Tree) -> None:
    """memos' AGENTS.md: `DRIVER=postgres DSN=… go test ./...`, humanlayer's `process.env.OPENAI_API_KEY`: a
    variable the code read when the memory was written and no code, build, CI or configuration file names
    now; a warning for one libraries read on their own (`*_API_KEY`). A variable still named in a CI
    workflow, or one never read by the code, is not judged."""
    tree.write("store/test/store.go", 'package test\n\nfunc dsn() string { return os.Getenv("TEST_DSN") + os.Getenv("TEST_DRIVER") }\n')
    tree.write("examples/client.ts", "const key = process.env.OPENAI_API_KEY;\n")
    tree.write(".github/workflows/ci.yml", "env:\n  TEST_DRIVER: sqlite\n")
    tree.write("AGENTS.md", "```bash\nTEST_DRIVER=postgres TEST_DSN=\"postgres://u@h/db\" UNREAD_FLAG=1 go test ./...\n```\n"
                            "```ts\nnew Client({ apiKey: process.env.OPENAI_API_KEY });\n```\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    tree.write("store/test/store.go", "package test\n\nfunc dsn() string { return container() }\n")
    (tree.root / "examples/client.ts").unlink()
    sha = commit(tree, "tests use testcontainers", date="2026-02-01T10:00:00Z")
    found = [(f.line, f.kind, f.severity, f.message) for f in check_workspace(Workspace(tree.root))[0]]
    assert [f[:3] for f in found] == [(2, "stale-env", Severity.error), (5, "stale-env", Severity.warning)]
    assert found[0][3].startswith(f"the code no longer reads the environment variable `TEST_DSN` (removed in {sha} on "
                                  "2026-02-01: tests use testcontainers; `store/test/store.go` read it when this memory was written")
    assert "`OPENAI_API_KEY`" in found[1][3]


def test_a_shell_block_naming_a_script_s_functions_and_variables(tree: Tree) -> None:
    """spec-kit's AGENTS.md ("Add to case statement: `windsurf) update_agent_file "$WINDSURF_FILE" …`") after
    the shell scripts were replaced: a function and a variable the scripts defined, several on one line, and
    nothing names now. A variable tools read on their own (`$GITHUB_TOKEN`) is not judged."""
    tree.write("scripts/bash/update-agent-context.sh",
               '#!/bin/bash\nCLAUDE_FILE="$ROOT/CLAUDE.md"; WINDSURF_FILE="$ROOT/.windsurf/rules.md"\n'
               'update_agent_file() {\n  gh api -H "Authorization: $GITHUB_TOKEN" /x\n}\n')
    tree.write("AGENTS.md", "Add to the case statement:\n\n```bash\n"
                            'windsurf) update_agent_file "$WINDSURF_FILE" "Windsurf" ;;\ngh auth login --with-token <<< "$GITHUB_TOKEN"\n```\n')
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    git(tree.root, "rm", "-rq", "scripts")
    tree.write("src/context.py", "def upsert(): ...\n")
    sha = commit(tree, "replace shell-based context updates", date="2026-02-01T10:00:00Z")
    found = sorted((f.line, f.kind, f.message.split(" (")[0]) for f in check_workspace(Workspace(tree.root))[0])
    assert found == [(4, "stale-symbol", "`WINDSURF_FILE` is no longer defined anywhere in the code"),
                     (4, "stale-symbol", "`update_agent_file` is no longer defined anywhere in the code")]
    assert all(f"removed in {sha}" in f.message for f in check_workspace(Workspace(tree.root))[0])


def test_a_common_folder_a_newer_line_names_again_is_not_dated_by_an_older_mention(tree: Tree) -> None:
    """Archon's AGENTS.md: "`$DOCS_DIR` - … Defaults to `docs/`" (a setting's default in the user's
    project), written after the repository's own `docs/` was removed, while an older line named that
    folder and stayed. The older mention is not this line's: no date of entry is told, nothing reported.
    A line only re-worded after its folder went is still dated by when its text entered."""
    tree.write("docs/guide.md", "# Guide\n")
    tree.write("legacy/run.sh", "echo\n")
    tree.write("AGENTS.md", "- Guides live in `docs/`\n- Old runner: see `legacy/`\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    git(tree.root, "rm", "-rq", "docs", "legacy")
    sha = commit(tree, "remove old docs and the legacy runner", date="2026-02-01T10:00:00Z")
    tree.write("AGENTS.md", "- Guides live in `docs/`\n- Old runner: see `legacy/` (kept for reference)\n"
                            "- `$DOCS_DIR` - documentation path; defaults to `docs/`.\n")
    commit(tree, "document DOCS_DIR", date="2026-03-01T10:00:00Z")
    found = [(f.line, f.kind) for f in check_workspace(Workspace(tree.root))[0] if f.severity != Severity.info]
    assert found == [(1, "stale-path"), (2, "stale-path")]
    assert all(f"in {sha}" in f.message for f in check_workspace(Workspace(tree.root))[0] if f.severity != Severity.info)


def test_a_hatch_environment_s_script_named_in_running_text(tree: Tree) -> None:
    """haystack's AGENTS.md: "hatch run test:unit" on a line of its own is the script `unit` of the Hatch
    environment `test`, not a console script `test`."""
    tree.write("pyproject.toml", "[project]\nname = \"haystack\"\n\n[tool.hatch.envs.test.scripts]\nunit = \"pytest test\"\n"
                                 "types = \"mypy\"\n\n[tool.hatch.envs.e2e.scripts]\ntest = \"pytest e2e\"\n")
    tree.write("AGENTS.md", "### Run unit tests\n\nhatch run test:unit\n\nhatch run test:types\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    tree.write("pyproject.toml", "[project]\nname = \"haystack\"\n\n[tool.hatch.envs.test.scripts]\nunit = \"pytest test\"\n"
                                 "types = \"mypy --strict\"\n")
    commit(tree, "drop the e2e environment", date="2026-02-01T10:00:00Z")
    assert [f for f in check_workspace(Workspace(tree.root))[0] if f.severity != Severity.info] == []


def test_a_hatch_environment_gone_with_its_scripts(tree: Tree) -> None:
    """marimo: `uvx hatch run +py=3.12 test:test tests/path/to/test.py` after "Replace hatch env layer with
    native uv commands" removed the Hatch environments: an error naming that commit. An environment made
    from a template has the template's scripts (`test-optional:test`), and every environment the default
    one's (`test:fmt`), while they last."""
    envs = ("[tool.hatch.envs.default.scripts]\nfmt = \"ruff format\"\n\n[tool.hatch.envs.test.scripts]\n"
            "test = \"pytest {args:tests}\"\n\n[tool.hatch.envs.test-optional]\ntemplate = \"test\"\n")
    tree.write("pyproject.toml", "[project]\nname = \"marimo\"\n\n" + envs)
    tree.write("AGENTS.md", "```bash\nuvx hatch run +py=3.12 test:test tests/path/to/test.py\n```\n\n"
                            "- Optional: `uvx hatch run test-optional:test`\n- Format: `hatch run test:fmt`\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    assert [f for f in _found(tree) if f[3] != Severity.info] == []
    tree.write("pyproject.toml", "[project]\nname = \"marimo\"\n")
    sha = commit(tree, "Replace hatch env layer with native uv commands", date="2026-03-11T10:00:00Z")
    found = [f for f in _found(tree) if f[3] != Severity.info]
    assert [(f[1], f[2], f[3]) for f in found] == [(2, "stale-console-script", Severity.error),
                                                   (5, "stale-console-script", Severity.error),
                                                   (6, "stale-console-script", Severity.error)]
    assert all(f"(removed in {sha} on 2026-03-11: Replace hatch env layer" in f[4] for f in found)


_UNKEY_MAKEFILE = """.PHONY: build unkey
build:
\tgo build ./...
unkey: ## Run unkey CLI (usage: make unkey dev seed local)
\tgo run . $(filter-out unkey,$(MAKECMDGOALS))

# Catch-all to swallow extra args passed to unkey target (only when unkey is called)
ifneq ($(filter unkey,$(MAKECMDGOALS)),)
%:
\t@:
endif
"""


def test_a_catch_all_rule_made_for_one_goal_defines_no_other_target(tree: Tree) -> None:
    """unkey's Makefile: a `%:` rule that swallows the arguments of `make unkey dev seed local`, made only
    when `unkey` is asked for. `make up`, since removed, is stale; the words after `make unkey` are not."""
    tree.write("Makefile", _UNKEY_MAKEFILE.replace(".PHONY: build unkey\n", ".PHONY: build unkey up\nup:\n\tdocker compose up\n"))
    tree.write("AGENTS.md", "- `make up` starts the services.\n- `make unkey dev seed local` seeds a local setup.\n"
                            "- `make build` builds.\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    tree.write("Makefile", _UNKEY_MAKEFILE)
    sha = commit(tree, "Add testutil container helpers", date="2026-02-01T10:00:00Z")
    assert _found(tree) == [("AGENTS.md", 1, "stale-make-target", Severity.error,
                             f'make target "up" is not defined in Makefile (removed in {sha} on 2026-02-01: '
                             "Add testutil container helpers)")]
    # the same rule outside such a condition takes every target: nothing is judged
    tree.write("Makefile", _UNKEY_MAKEFILE.replace("ifneq ($(filter unkey,$(MAKECMDGOALS)),)\n", "").replace("endif\n", ""))
    commit(tree, "catch all", date="2026-02-02T10:00:00Z")
    assert _found(tree) == []


def test_a_tool_whose_own_file_the_repository_no_longer_has(tree: Tree) -> None:
    """unkey's AGENTS.md: `bazel test //pkg/cache:cache_test` after "drop bazel" deleted MODULE.bazel (and
    every BUILD.bazel). A Tiltfile moved into a folder still runs `tilt up` there: not judged."""
    tree.write("MODULE.bazel", 'module(name = "unkey")\n')
    tree.write("pkg/cache/BUILD.bazel", 'go_test(name = "cache_test")\n')
    tree.write("Tiltfile", "k8s_yaml('dev.yaml')\n")
    tree.write("AGENTS.md", "```bash\nbazel test //pkg/cache:cache_test --test_filter=TestCacheName\n```\n\n"
                            "- `tilt up` starts the dev cluster.\n- `skaffold dev` (a plan: there was never a skaffold.yaml)\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    git(tree.root, "rm", "-q", "MODULE.bazel", "pkg/cache/BUILD.bazel")
    (tree.root / "dev").mkdir()
    git(tree.root, "mv", "Tiltfile", "dev/Tiltfile")
    sha = commit(tree, "drop bazel", date="2026-02-01T10:00:00Z")
    assert _found(tree) == [("AGENTS.md", 2, "stale-tool", Severity.error,
                             "`bazel` runs where `MODULE.bazel`, `WORKSPACE` or `WORKSPACE.bazel` is; `MODULE.bazel` "
                             f"was deleted in {sha} on 2026-02-01: drop bazel, and the repository has none now")]


def test_a_python_project_command_after_the_last_pyproject_went(tree: Tree) -> None:
    """humanlayer's CLAUDE.md: "Commands: `uv sync`, `make check-py`" after "Clean up humanlayer sdk stuff"
    deleted the Python SDK and its pyproject.toml. `uv run` of a script needs no project: not judged."""
    tree.write("pyproject.toml", '[project]\nname = "humanlayer"\n')
    tree.write("humanlayer/__init__.py", "")
    tree.write("scripts/gen.py", "print('hi')\n")
    tree.write("CLAUDE.md", "- Commands: `uv sync`, `uv run scripts/gen.py`\n- Or `poetry install`\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    git(tree.root, "rm", "-rq", "pyproject.toml", "humanlayer")
    sha = commit(tree, "Clean up humanlayer sdk stuff", date="2026-02-01T10:00:00Z")
    found = _found(tree)
    assert [f for f in found if f[3] != Severity.info] == [
        ("CLAUDE.md", 1, "stale-tool", Severity.error, "`uv sync` runs where `pyproject.toml` is; `pyproject.toml` was "
         f"deleted in {sha} on 2026-02-01: Clean up humanlayer sdk stuff, and the repository has none now"),
        ("CLAUDE.md", 2, "stale-tool", Severity.error, "`poetry install` runs where `pyproject.toml` is; `pyproject.toml` "
         f"was deleted in {sha} on 2026-02-01: Clean up humanlayer sdk stuff, and the repository has none now")]


def test_a_workspace_package_renamed_or_gone(tree: Tree) -> None:
    """formbricks' AGENTS.md: "Use the shared ESLint presets (`@formbricks/eslint-config`)" after the package
    was renamed `@formbricks/config-eslint`. A package of another scope is a dependency, not judged."""
    tree.write("package.json", json.dumps({"name": "acme", "workspaces": ["packages/*", "apps/*"]}))
    tree.write("apps/web/package.json", json.dumps({"name": "@acme/web"}))
    tree.write("packages/config-eslint/package.json", json.dumps({"name": "@acme/eslint-config", "version": "1.0.0"}))
    tree.write("packages/js/package.json", json.dumps({"name": "@acme/js"}))
    tree.write("AGENTS.md", "- Use the shared presets (`@acme/eslint-config`) in `@acme/web`.\n"
                            "- The SDK is `@acme/js`; types come from `@types/node`.\n")
    commit(tree, "initial", date="2026-01-10T10:00:00Z")
    tree.write("packages/config-eslint/package.json", json.dumps({"name": "@acme/config-eslint", "version": "1.0.0"}))
    renamed = commit(tree, "chore: monorepo config audit cleanups", date="2026-02-01T10:00:00Z")
    git(tree.root, "rm", "-rq", "packages/js")
    gone = commit(tree, "Move the SDK to its own repository", date="2026-02-02T10:00:00Z")
    assert _found(tree) == [
        ("AGENTS.md", 1, "stale-package", Severity.error, "the package `@acme/eslint-config` is now `@acme/config-eslint`: "
         f"`packages/config-eslint/package.json` renamed it in {renamed} on 2026-02-01: chore: monorepo config audit cleanups"),
        ("AGENTS.md", 2, "stale-package", Severity.warning, "no package.json of this workspace names the package "
         f"`@acme/js` any more (`packages/js/package.json` was deleted in {gone} on 2026-02-02: Move the SDK to its own "
         "repository)")]


def test_the_version_of_a_library_published_under_a_scope(tree: Tree) -> None:
    """trigger.dev's "**apps/webapp**: Remix 2.1.0 app" after the upgrade to 2.17 (`@remix-run/react`), as
    "Playwright 1.40" is `@playwright/test`'s: the version is what follows the package's own `@`."""
    tree.write("package.json", json.dumps({"name": "root", "workspaces": ["apps/*"]}))
    tree.write("apps/webapp/package.json", json.dumps({"dependencies": {"@remix-run/react": "2.1.0"},
                                                       "devDependencies": {"@playwright/test": "^1.40.0"}}))
    tree.write("AGENTS.md", "- **apps/webapp**: Remix 2.1.0 app, tested with Playwright 1.40.\n")
    first = commit(tree, "initial", date="2026-01-10T10:00:00Z")
    tree.write("apps/webapp/package.json", json.dumps({"dependencies": {"@remix-run/react": "2.17.4"},
                                                       "devDependencies": {"@playwright/test": "^1.40.1"}}))
    sha = commit(tree, "fix(security): upgrade Remix packages", date="2026-02-01T10:00:00Z")
    assert _found(tree) == [("AGENTS.md", 1, "stale-version", Severity.error,
                             f"@remix-run/react 2.1.0: `apps/webapp/package.json` now says 2.17.4 (changed in {sha} on "
                             "2026-02-01: fix(security): upgrade Remix packages; it said 2.1.0 when this memory was "
                             f"written in {first} on 2026-01-10)")]


def test_a_newer_patch_of_the_same_release_is_a_warning(tree: Tree) -> None:
    """trigger.dev's "Remix 2.17.4" after "chore(deps): bump @remix-run/* to 2.17.5": the memory is behind by
    a patch only, right in all it implies (a warning); "Vite 7.1.2" behind 7.3.0 is another release (an
    error)."""
    tree.write("apps/webapp/package.json", json.dumps({"dependencies": {"@remix-run/react": "2.17.4"},
                                                       "devDependencies": {"vite": "7.1.2"}}))
    tree.write("AGENTS.md", "- **apps/webapp**: Remix 2.17.4 app.\n- Built with Vite 7.1.2.\n")
    first = commit(tree, "initial", date="2026-01-10T10:00:00Z")
    tree.write("apps/webapp/package.json", json.dumps({"dependencies": {"@remix-run/react": "2.17.5"},
                                                       "devDependencies": {"vite": "7.3.0"}}))
    sha = commit(tree, "chore(deps): bump", date="2026-02-01T10:00:00Z")
    tail = f"(changed in {sha} on 2026-02-01: chore(deps): bump; it said {{}} when this memory was written in {first} on 2026-01-10)"
    assert _found(tree) == [
        ("AGENTS.md", 1, "stale-version", Severity.warning,
         "@remix-run/react 2.17.4: `apps/webapp/package.json` now says 2.17.5 " + tail.format("2.17.4")),
        ("AGENTS.md", 2, "stale-version", Severity.error, "vite 7.1.2: `apps/webapp/package.json` now says 7.3.0 " + tail.format("7.1.2"))]


def test_the_version_of_the_package_manager(tree: Tree) -> None:
    """trigger.dev's "This is a pnpm 10.23.0 monorepo" after "chore: upgrade pnpm to 10.33.2": Corepack's
    `packageManager` field of package.json (the hash after `+` is not the version); `engines` where it is
    not pinned. A version the project did not declare when the memory was written is no drift."""
    tree.write("package.json", json.dumps({"name": "root", "packageManager": "pnpm@10.23.0+sha512.abc123"}))
    tree.write("web/package.json", json.dumps({"name": "web", "engines": {"yarn": ">=4.1.0"}}))
    tree.write("CLAUDE.md", "This is a pnpm 10.23.0 monorepo using Turborepo.\nBun 1.1 is not used here.\n")
    tree.write("web/AGENTS.md", "- Requires Yarn 4.1 or newer.\n- Install with pnpm@9.0.0.\n")
    first = commit(tree, "initial", date="2026-01-10T10:00:00Z")
    tree.write("package.json", json.dumps({"name": "root", "packageManager": "pnpm@10.33.2+sha512.def456"}))
    sha = commit(tree, "chore: upgrade pnpm to 10.33.2", date="2026-02-01T10:00:00Z")
    assert _found(tree) == [("CLAUDE.md", 1, "stale-version", Severity.error,
                             f"pnpm 10.23.0: `package.json` now says 10.33.2 (changed in {sha} on 2026-02-01: chore: "
                             f"upgrade pnpm to 10.33.2; it said 10.23.0 when this memory was written in {first} on "
                             "2026-01-10)")]


def test_the_pin_of_a_package_manager_dated_in_a_long_history(tree: Tree, monkeypatch: pytest.MonkeyPatch) -> None:
    """langfuse's "**Package Manager**: pnpm v9.5.0": its package.json has too many commits since (a
    release bumps it each time) to read one by one, so the change is the commit where the pin
    `pnpm@9.5.0` last changed how often it occurs, not none. (The limit is lowered here to one commit.)"""
    from lorekeeper.analysis.staleness import checks

    monkeypatch.setattr(checks, "_MAX_VERSION_COMMITS", 1)
    tree.write("package.json", json.dumps({"name": "root", "version": "1.0.0", "packageManager": "pnpm@9.5.0"}))
    tree.write("CLAUDE.md", "- **Package Manager**: pnpm v9.5.0\n")
    first = commit(tree, "initial", date="2025-06-22T10:00:00Z")
    tree.write("package.json", json.dumps({"name": "root", "version": "1.0.0", "packageManager": "pnpm@10.0.0"}))
    sha = commit(tree, "chore(dx): upgrade to pnpm v10", date="2026-03-27T10:00:00Z")
    tree.write("package.json", json.dumps({"name": "root", "version": "1.1.0", "packageManager": "pnpm@10.0.0"}))
    commit(tree, "chore: release v1.1.0", date="2026-04-01T10:00:00Z")
    assert _found(tree) == [("CLAUDE.md", 1, "stale-version", Severity.error,
                             f"pnpm 9.5.0: `package.json` now says 10.0.0 (changed in {sha} on 2026-03-27: chore(dx): "
                             f"upgrade to pnpm v10; it said 9.5.0 when this memory was written in {first} on 2025-06-22)")]


def test_a_default_the_code_changed(tree: Tree) -> None:
    """browser-use's "`max_failures` (default: `3`)" and "`step_timeout` (default: `120`)" after "increase
    default consecutive failure to 5": the typed definitions of the name gave 3 when the memory was
    written and give 5 now. Not where a definition still gives the stated value (`max_steps` of another
    function), not from a test's or a call's value, not for a plain name (`timeout`)."""
    tree.write("browser_use/agent/service.py", "class Agent:\n    def __init__(\n        self,\n"
               "        max_failures: int = 3,\n        step_timeout: int | None = 120,\n        timeout: int = 30,\n"
               "    ): ...\n\n    def run(self, max_steps: int = 100): ...\n")
    tree.write("browser_use/mcp/server.py", "def serve(max_steps: int = 100): ...\n")
    tree.write("tests/test_agent.py", "def test_it(max_failures: int = 5): ...\n")
    tree.write("examples/simple.py", "agent.run(step_timeout=180)\n")
    tree.write("AGENTS.md", "* `max_failures` (default: `3`): Maximum retries\n* `step_timeout` (default: `120`): per step\n"
                            "* `max_steps` (default: `100`): steps\n* `timeout` (default: `30`): seconds\n")
    first = commit(tree, "initial", date="2025-10-17T10:00:00Z")
    tree.write("browser_use/agent/service.py", "class Agent:\n    def __init__(\n        self,\n"
               "        max_failures: int = 5,\n        step_timeout: int | None = 180,\n        timeout: int = 60,\n"
               "    ): ...\n\n    def run(self, max_steps: int = 500): ...\n")
    sha = commit(tree, "increase default consecutive failure to 5", date="2026-02-10T10:00:00Z")
    message = ("`{name}` defaults to {now} now (`browser_use/agent/service.py`); `browser_use/agent/service.py` gave it "
               f"{{then}} when this memory was written in {first} on 2025-10-17 (changed in {sha} on 2026-02-10: increase "
               "default consecutive failure to 5)")
    assert _found(tree) == [
        ("AGENTS.md", 1, "stale-value", Severity.warning, message.format(name="max_failures", now=5, then=3)),
        ("AGENTS.md", 2, "stale-value", Severity.warning, message.format(name="step_timeout", now=180, then=120))]


def test_poetry_after_a_move_to_uv(tree: Tree) -> None:
    """E2B's "Use pnpm for node and poetry for python to install and update dependencies." after
    "migrate from Poetry to uv": Poetry is declared by the build backend it requires (`poetry-core`), and a
    `[tool.poetry]` table would name it still. "Code is poetry" says nothing of the tool."""
    tree.write("packages/python-sdk/pyproject.toml", '[build-system]\nrequires = ["poetry-core"]\n'
               'build-backend = "poetry.core.masonry.api"\n')
    tree.write("CLAUDE.md", "Use pnpm for node and poetry for python to install and update dependencies.\n\n"
                            "Code is poetry.\n")
    first = commit(tree, "initial", date="2026-02-17T10:00:00Z")
    tree.write("packages/python-sdk/pyproject.toml", '[project]\nname = "e2b"\n[build-system]\nrequires = ["hatchling"]\n')
    sha = commit(tree, "chore(python-sdk): migrate from Poetry to uv", date="2026-07-06T10:00:00Z")
    assert _found(tree) == [("CLAUDE.md", 1, "stale-dependency", Severity.error,
                             f"poetry: `packages/python-sdk/pyproject.toml` declared `poetry-core` when this memory was "
                             f"written in {first} on 2026-02-17; no manifest does now (removed in {sha} on 2026-07-06: "
                             "chore(python-sdk): migrate from Poetry to uv) and no build, CI or configuration file nor "
                             "code names it")]
