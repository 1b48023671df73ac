"""Staleness on what real repositories hold: one test per false alarm and per miss seen when
`lore check-stale` ran on public repositories (each distilled to a tiny git repository), and git
history that cannot answer (shallow and partial clones)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from lorekeeper.analysis.staleness import check_workspace
from lorekeeper.core.model import Finding, Severity
from lorekeeper.workspace import Workspace
from support import Tree, commit, git


def check(root: Path) -> list[Finding]:
    return check_workspace(Workspace(root))[0]


def loud(findings: list[Finding]) -> list[tuple[str, int | None, str, str | None]]:
    """Errors and warnings: what a user sees as a problem."""
    return [(f.source, f.line, f.kind, f.ref) for f in findings if f.severity != Severity.info]


# -- false alarms -----------------------------------------------------------------------------------

def test_dependency_executables_run_through_the_package_manager_are_not_scripts(tree: Tree) -> None:
    tree.write("pyproject.toml", '[project]\nname = "x"\ndependencies = ["httpx"]\n\n[dependency-groups]\n'
                                 'dev = ["pytest>=8", "mkdocs-material", "sphinx"]\n\n[project.scripts]\nx = "x:main"\n')
    tree.write("examples/demo/package.json", json.dumps({"name": "demo", "devDependencies": {"tsx": "^4"}}))
    tree.write("package.json", json.dumps({"name": "root", "scripts": {"build": "tsc"}}))
    tree.write("CLAUDE.md", "\n".join([
        "- Test with `uv run pytest tests/ -q`.",
        "- Docs: `uv run mkdocs serve`; API docs with `uv run sphinx-build docs out`.",
        "- Run the demo: `cd examples/demo && pnpm tsx main.ts`.",
        "- Placeholder tools: `uv run tool` runs any tool.",
    ]) + "\n")
    tree.write("tests/test_a.py", "def test_a(): pass\n")
    commit(tree, "initial")
    # A later commit touches a line of pyproject.toml holding "pytest": it removed nothing.
    tree.write("pyproject.toml", '[project]\nname = "x"\ndependencies = ["httpx"]\n\n[dependency-groups]\n'
                                 'dev = ["pytest>=9", "mkdocs-material", "sphinx"]\n\n[project.scripts]\nx = "x:main"\n')
    commit(tree, "bump pytest")
    assert loud(check(tree.root)) == []


def test_scripts_defined_where_a_naive_checker_does_not_look(tree: Tree) -> None:
    tree.write("pyproject.toml", '[project]\nname = "x"\n\n[tool.hatch.envs.default.scripts]\ncov = "pytest --cov"\n'
                                 '\n[tool.hatch.envs.docs.scripts]\nbuild = "mkdocs build"\n')
    tree.write("justfile", "set shell := ['bash', '-c']\n\n# run tests\ntest *args='':\n    pytest {{args}}\n\n"
                           "new-rule name kind='lint':\n    ./new.sh {{name}} {{kind}}\n\nalias t := test\n"
                           "[private]\n_helper:\n    echo\n")
    tree.write("Makefile", "include tools/extra.mk\n\n%.pdf: %.md\n\tpandoc $< -o $@\n\n.PHONY: ci lint\nci: lint\n")
    tree.write("tools/extra.mk", "release:\n\t./release.sh\n")
    tree.write("CLAUDE.md", "\n".join([
        "- Coverage: `hatch run cov`; docs: `hatch run docs:build`.",
        "- `just test -k smoke`, `just new-rule no-foo`, `just t`.",
        "- `make release`, `make guide.pdf`, `make lint`.",
    ]) + "\n")
    commit(tree, "initial")
    assert loud(check(tree.root)) == []


def test_ignored_runtime_and_setup_cloned_paths_are_not_judged(tree: Tree) -> None:
    tree.write("vendor/suite/README.md", "once committed, now cloned by scripts/setup.sh\n")
    tree.write("CLAUDE.md", "- The conformance suite is cloned into `vendor/suite` by `scripts/setup.sh`.\n"
                            "- Runtime state lives in `.data/state.json`.\n")
    tree.write("scripts/setup.sh", "git clone x vendor/suite\n")
    commit(tree, "initial", date="2026-01-01T00:00:00Z")
    # The folder leaves git and is ignored with a trailing slash; the reference has none.
    git(tree.root, "rm", "-rq", "vendor/suite")
    tree.write(".gitignore", "vendor/suite/\n.data/\n")
    commit(tree, "clone the suite at setup instead", date="2026-02-01T00:00:00Z")
    assert loud(check(tree.root)) == []


def test_vendored_dependencies_are_not_the_code_names_are_looked_for_in(tree: Tree) -> None:
    # inngest vendors its Go modules (`go mod vendor`: vendor/modules.txt), three-quarters of its files: the
    # names memories give are looked for in its own code, now and when they were written, as where the
    # dependencies sit in node_modules (a name only a dependency defines is not judged, though the bump
    # dropped it), and its paths hold
    tree.write("go.mod", "module example.com/app\n\ngo 1.24\n")
    tree.write("vendor/modules.txt", "# golang.org/x/sync v0.10.0\n")
    tree.write("vendor/golang.org/x/sync/errgroup/errgroup.go", "package errgroup\n\nfunc WithContext() {}\n")
    tree.write("internal/run/run.go", "package run\n\nfunc StartWorkers() {}\n\nfunc Stop() {}\n")
    tree.write("AGENTS.md", "- Workers start in `StartWorkers()` and stop in `Stop()`.\n"
                            "- Groups come from `errgroup.WithContext`; see `vendor/modules.txt`.\n")
    commit(tree, "initial", date="2026-01-01T00:00:00Z")
    tree.write("internal/run/run.go", "package run\n\nfunc Stop() {}\n")
    tree.write("vendor/golang.org/x/sync/errgroup/errgroup.go", "package errgroup\n\nfunc New() {}\n")
    commit(tree, "workers start on their own; bump x/sync", date="2026-02-01T00:00:00Z")
    assert loud(check(tree.root)) == [("AGENTS.md", 1, "stale-symbol", "StartWorkers")]


def test_a_javascript_import_path_of_a_typescript_source_is_no_missing_file(tree: Tree) -> None:
    # payload's CLAUDE.md: TypeScript's ES modules import `index.ts` as `index.js`
    tree.write("packages/ui/src/exports/client/index.ts", "export {}\n")
    tree.write("src/lib/util.ts", "export {}\n")
    tree.write("src/cli.js", "run()\n")
    tree.write("CLAUDE.md", "\n".join([
        "- Server components must import client components from `exports/client/index.js`.",
        "- Helpers are imported as `src/lib/util.js`.",
        "- The entry point is `src/cli.js`.",
        "- See `src/never.js`.",
    ]) + "\n")
    commit(tree, "initial", date="2026-01-01T00:00:00Z")
    git(tree.root, "mv", "src/cli.js", "src/cli.ts")
    commit(tree, "port the cli to TypeScript", date="2026-02-01T00:00:00Z")
    got = {(f.ref, f.kind, f.severity) for f in check(tree.root)}
    assert not any(ref in ("exports/client/index.js", "src/lib/util.js") for ref, _, _ in got)
    # a file that was there as written and is gone is stale whatever took its place; one never there is told
    assert ("src/cli.js", "moved-path", Severity.error) in got
    assert ("src/never.js", "unresolved-path", Severity.info) in got


def test_a_path_given_as_an_example_with_like_is_no_wrong_folder(tree: Tree) -> None:
    # vercel/ai's AGENTS.md: a counter-example, and one file of that name elsewhere, was a warning whose
    # fix rewrote the rule to name that file
    tree.write("examples/ai-functions/src/stream-text-custom-loop/openai.ts", "export {}\n")
    tree.write("src/old/handlers.ts", "export {}\n")
    tree.write("AGENTS.md", "- Do not create flat top-level provider files like `src/stream-text/openai.ts`\n"
                            "- Keep handlers in files like `src/old/handlers.ts`\n")
    commit(tree, "initial", date="2026-01-01T00:00:00Z")
    git(tree.root, "rm", "-q", "src/old/handlers.ts")
    commit(tree, "drop the handlers", date="2026-02-01T00:00:00Z")
    got = {(f.ref, f.kind, f.severity) for f in check(tree.root)}
    assert not any(ref == "src/stream-text/openai.ts" for ref, _, _ in got)
    # an example that was there and is gone is still reported
    assert ("src/old/handlers.ts", "stale-path", Severity.error) in got


def test_a_rules_relative_path_starts_where_its_globs_do(tree: Tree) -> None:
    # trpc's .cursor/rules/upgrade-tests.mdc, scoped to packages/upgrade: `./test/__helpers` is
    # packages/upgrade/test/__helpers.tsx
    tree.write("packages/upgrade/test/__helpers.tsx", "export function testReactResource() {}\n")
    tree.write(".cursor/rules/upgrade-tests.mdc", "---\ndescription: upgrade tests\n"
               "globs: ['packages/upgrade/**/*.test.tsx']\nalwaysApply: false\n---\n\n"
               "- **ALWAYS** use helpers from `./test/__helpers`\n- Fixtures are in `./test/fixtures.ts`\n")
    commit(tree, "initial", date="2026-01-01T00:00:00Z")
    got = {(f.ref, f.kind, f.severity) for f in check(tree.root)}
    assert not any(ref == "./test/__helpers" or ref == "test/__helpers" for ref, _, _ in got)
    assert any(ref.endswith("test/fixtures.ts") and kind == "unresolved-path" for ref, kind, _ in got)


def test_the_label_of_a_link_to_another_site_is_no_path_of_this_repository(tree: Tree) -> None:
    # prisma's AGENTS.md: the folder moved to prisma/ignite, and the line links to it there
    tree.write("docs/drive/README.md", "# drive\n")
    tree.write("docs/setup.md", "# setup\n")
    tree.write("AGENTS.md", "- `drive-*` skills and [`docs/drive/`](https://github.com/prisma/ignite/tree/main/docs/drive)"
                            " live in [prisma/ignite](https://github.com/prisma/ignite).\n"
                            "- Setup: [`docs/setup.md`](docs/setup.md)\n")
    commit(tree, "initial", date="2026-01-01T00:00:00Z")
    git(tree.root, "rm", "-rq", "docs/drive", "docs/setup.md")
    commit(tree, "remove docs/drive (now upstream in prisma/ignite)", date="2026-02-01T00:00:00Z")
    assert loud(check(tree.root)) == [("AGENTS.md", 2, "stale-path", "docs/setup.md")]


def test_a_block_shown_as_what_not_to_do_names_what_should_be_gone(tree: Tree) -> None:
    # prisma's .cursor/rules/declarative-config.mdc: "**❌ WRONG: Hardcoded logic in config generator**"
    tree.write("src/rules.ts", "export function isCompatPrismaToSql() {}\nexport function useRules() {}\n")
    tree.write("CLAUDE.md", "## Pattern\n\n**❌ WRONG: Hardcoded logic in config generator**\n\n```ts\n"
                            "if (isCompatPrismaToSql(source, target)) {\n  useRules()\n}\n```\n\n**✅ RIGHT:**\n\n"
                            "```ts\nuseRules(isCompatPrismaToSql)\n```\n")
    commit(tree, "initial", date="2026-01-01T00:00:00Z")
    tree.write("src/rules.ts", "export function useRules() {}\n")
    commit(tree, "declarative rule exceptions", date="2026-02-01T00:00:00Z")
    assert loud(check(tree.root)) == [("CLAUDE.md", 14, "stale-symbol", "isCompatPrismaToSql")]


def test_dotted_names_that_are_not_code_are_not_symbols(tree: Tree) -> None:
    tree.write("src/app.py", "def head():\n    return 1\n\n\ndef title():\n    return 2\n")
    tree.write("CLAUDE.md", "- Read `github.event.pull_request.head` in workflows.\n"
                            "- The i18n key `main.status.title` labels the page.\n"
                            "- Set `tool.ruff.line-length` in pyproject.\n")
    commit(tree, "initial")
    tree.write("src/app.py", "def other():\n    return 1\n")
    commit(tree, "remove head and title")
    assert check(tree.root) == []


def test_a_bare_file_name_is_found_anywhere_in_the_tree(tree: Tree) -> None:
    tree.write("tests/unit/conftest.py", "import pytest\n")
    tree.write("packages/web/tsconfig.json", "{}\n")
    tree.write("CLAUDE.md", "- Fixtures go in `conftest.py`.\n- Each package has its own `tsconfig.json`.\n")
    commit(tree, "initial")
    assert check(tree.root) == []


def test_names_of_other_tools_file_names_and_placeholders_are_not_symbols(tree: Tree) -> None:
    tree.write("main.go", "package main\n\nfunc main() {}\n")
    tree.write("CLAUDE.md", "\n".join([
        "- Format with `gofmt` and search with `grep`; config is in `hk.pkl` and `tsconfig.base`.",
        "- Components follow `Component.extend()`; label PRs `needs-review`; runs on `pull_request_target`.",
        "- The MCP server exposes `search_docs` and `fetch_page` tools.",
    ]) + "\n")
    commit(tree, "initial")
    tree.write("main.go", "package main\n\n// gofmt keeps this tidy\nfunc main() {}\n")
    commit(tree, "comment")
    assert check(tree.root) == []


def test_sub_package_commands_and_files_resolve_in_that_package(tree: Tree) -> None:
    tree.write("package.json", json.dumps({"name": "root", "private": True, "scripts": {"build": "turbo build"}}))
    tree.write("clients/web/package.json", json.dumps({"name": "@acme/web", "scripts": {"test": "vitest"}}))
    tree.write("clients/web/tsconfig.json", "{}\n")
    tree.write("packages/core/package.json", json.dumps({"name": "@acme/core", "scripts": {"typecheck": "tsc"}}))
    tree.write("CLAUDE.md", "\n".join([
        "- Run `npm run test` from `clients/web/`; it reads their `tsconfig.json`.",
        "- Type-check one package: `pnpm --filter @acme/core typecheck`.",
        "- `pnpm -r typecheck` runs it everywhere.",
        "- The `legacy-sync` script was removed in #1785.",
    ]) + "\n")
    commit(tree, "initial")
    assert loud(check(tree.root)) == []


def test_symlinked_instruction_files_are_read_once(tree: Tree) -> None:
    tree.write("AGENTS.md", "- Helpers live in `src/helpers.ts`.\n")
    tree.write("src/helpers.ts", "export {}\n")
    os.symlink("AGENTS.md", tree.root / "CLAUDE.md")
    commit(tree, "initial")
    (tree.root / "src/helpers.ts").unlink()
    commit(tree, "drop helpers")
    findings = check(tree.root)
    assert [(f.source, f.kind) for f in findings] == [("AGENTS.md", "stale-path")]
    assert findings[0].related == [{"source": "CLAUDE.md", "line": 1,
                                    "message": "the same file: CLAUDE.md is a symlink to AGENTS.md"}]


def test_a_moved_folder_is_fixed_as_a_folder(tree: Tree) -> None:
    tree.write("src/jobs/nightly.ts", "export const a = 1;\n")
    tree.write("src/jobs/hourly.ts", "export const b = 2;\n")
    tree.write("CLAUDE.md", "- Jobs live in `src/jobs/`.\n")
    commit(tree, "initial")
    git(tree.root, "mv", "src/jobs", "src/tasks")
    commit(tree, "rename jobs to tasks")
    [finding] = check(tree.root)
    assert finding.kind == "moved-path" and finding.severity == Severity.error
    assert finding.fix.model_dump() == {"action": "replace-ref", "old": "src/jobs/", "new": "src/tasks/"}


def test_other_agents_files_and_configured_names_are_read(tree: Tree) -> None:
    tree.write("CRUSH.md", "- Build with `scripts/build.sh`.\n")
    tree.write("CONVENTIONS.md", "- Lint with `scripts/lint.sh`.\n")
    tree.write(".lore/config.toml", '[store]\ninstruction_files = ["CONVENTIONS.md"]\n')
    tree.write("scripts/build.sh", "echo\n")
    tree.write("scripts/lint.sh", "echo\n")
    commit(tree, "initial")
    (tree.root / "scripts/build.sh").unlink()
    (tree.root / "scripts/lint.sh").unlink()
    commit(tree, "drop scripts")
    assert {(f.source, f.kind) for f in check(tree.root)} == {("CRUSH.md", "stale-path"), ("CONVENTIONS.md", "stale-path")}


def test_removed_in_names_the_commit_after_the_baseline_not_any_commit_with_the_word(tree: Tree) -> None:
    tree.write("package.json", json.dumps({"scripts": {"lint": "eslint .", "test": "vitest"}}, indent=2))
    tree.write("CLAUDE.md", "- Run `pnpm lint` before pushing.\n")
    commit(tree, "initial", date="2026-01-01T00:00:00Z")
    tree.write("package.json", json.dumps({"scripts": {"test": "vitest"}}, indent=2))
    sha = commit(tree, "Drop eslint", date="2026-02-01T00:00:00Z")
    tree.write("package.json", json.dumps({"scripts": {"test": "vitest --run"}, "description": "no lint"}, indent=2))
    commit(tree, "Tweak test", date="2026-03-01T00:00:00Z")
    [finding] = check(tree.root)
    assert finding.severity == Severity.error and f"removed in {sha} on 2026-02-01: Drop eslint" in finding.message


def test_a_target_added_after_the_memory_was_written_is_not_an_error(tree: Tree) -> None:
    tree.write("CLAUDE.md", "- Deployment notes are in `docs/deploy.md`.\n")
    commit(tree, "initial", date="2026-01-01T00:00:00Z")
    tree.write("docs/deploy.md", "# Deploy\n")
    commit(tree, "add deploy notes", date="2026-02-01T00:00:00Z")
    (tree.root / "docs/deploy.md").unlink()
    sha = commit(tree, "remove deploy notes", date="2026-03-01T00:00:00Z")
    [finding] = check(tree.root)
    assert (finding.kind, finding.severity) == ("stale-path", Severity.warning)
    assert f"was deleted in {sha}" in finding.message and "created after this memory was written" in finding.message


def test_a_target_that_never_existed_is_information(tree: Tree) -> None:
    tree.write("src/a.ts", "export {}\n")
    tree.write("CLAUDE.md", "- Config is in `src/config/app.ts`.\n")
    commit(tree, "initial")
    [finding] = check(tree.root)
    assert (finding.kind, finding.severity) == ("unresolved-path", Severity.info)


def test_a_short_path_that_ends_a_real_one_names_it(tree: Tree) -> None:
    # microsoft/vscode-python's testing_feature_area.instructions.md: `common/debugLauncher.ts` and
    # `vscode_pytest/__init__.py` are the ends of files that exist (src/client/testing/common/...,
    # python_files/vscode_pytest/...), written short where the surrounding text says which folder
    tree.write("src/client/testing/common/debugLauncher.ts", "export class DebugLauncher {}\n")
    tree.write("python_files/vscode_pytest/__init__.py", "def pytest_collection(): ...\n")
    tree.write(".github/instructions/testing.instructions.md",
               "- Debug launches go through `common/debugLauncher.ts`.\n"
               "- The pytest plugin lives in `vscode_pytest/__init__.py`.\n")
    commit(tree, "instructions", date="2026-02-10T00:00:00Z")
    assert check(tree.root) == []


def test_a_wrong_folder_for_a_file_that_exists_once_says_which_and_offers_it(tree: Tree) -> None:
    # the same file, named under a folder it never was in (testController/common/ for testing/common/)
    tree.write("src/client/testing/common/debugLauncher.ts", "export class DebugLauncher {}\n")
    tree.write("src/client/testing/testController/common/types.ts", "export type X = 1;\n")
    tree.write(".github/instructions/testing.instructions.md",
               "- Debugging: `src/client/testing/testController/common/debugLauncher.ts`.\n"
               "- Entry: `src/cli/index.ts`.\n")
    tree.write("src/app/index.ts", "export {}\n")
    commit(tree, "instructions", date="2026-02-10T00:00:00Z")
    found = {f.ref: f for f in check(tree.root)}
    wrong = found["src/client/testing/testController/common/debugLauncher.ts"]
    assert (wrong.kind, wrong.severity) == ("unresolved-path", Severity.warning)
    assert wrong.fix is not None and wrong.fix.new == "src/client/testing/common/debugLauncher.ts"
    # a name many folders have says nothing of which one was meant: information, no fix
    assert (found["src/cli/index.ts"].severity, found["src/cli/index.ts"].fix) == (Severity.info, None)


# -- misses ----------------------------------------------------------------------------------------

def prompt_deleted_then_noted(tree: Tree, before: tuple[str, str], after: tuple[str, str]) -> str:
    """charmbracelet/crush's history, cut small: a note (file, text) written while `internal/llm/prompt`
    existed, the package deleted on 2025-10-02, then a note (file, text) written on 2026-03-09. The short
    id of the commit that deleted it."""
    tree.write("internal/llm/prompt/prompt.go", "package prompt\n\nfunc GetContextFromPaths() {}\n")
    tree.write(before[0], before[1])
    commit(tree, "notes", date="2025-06-13T00:00:00Z")
    shutil.rmtree(tree.root / "internal/llm")
    tree.write("internal/agent/agent.go", "package agent\n")
    gone = commit(tree, "wip: remove old implementation", date="2025-10-02T00:00:00Z")
    tree.write(after[0], after[1])
    commit(tree, "notes again", date="2026-03-09T00:00:00Z")
    return gone


def test_a_line_rewritten_after_its_target_died_is_judged_from_when_the_reference_entered(tree: Tree) -> None:
    # blame dates the re-worded line after the deletion, so the reference looked as if it had never existed
    gone = prompt_deleted_then_noted(
        tree, ("CRUSH.md", "# Crush\n\n- Prompts: see `internal/llm/prompt/prompt.go` for GetContextFromPaths.\n"),
        ("CRUSH.md", "# Crush\n\n- Prompts: see `internal/llm/prompt/prompt.go` (GetContextFromPaths).\n"))
    found = [f for f in check(tree.root) if f.ref == "internal/llm/prompt/prompt.go"]
    assert [(f.kind, f.severity) for f in found] == [("stale-path", Severity.error)]
    assert f"was deleted in {gone}" in found[0].message


def test_a_go_package_in_a_test_command_whose_line_moved_to_another_agent_file(tree: Tree) -> None:
    # `go test ./internal/llm/prompt -run TestGetContextFromPaths` was written in CRUSH.md while the package
    # existed, copied into AGENTS.md after it was deleted, and re-worded there
    gone = prompt_deleted_then_noted(
        tree, ("CRUSH.md", "# Crush\n\n- Single test: `go test ./internal/llm/prompt -run TestGetContextFromPaths`\n"),
        ("AGENTS.md", "# Crush\n\n- Test: `go test ./...` (one test:\n  `go test ./internal/llm/prompt -run TestGetContextFromPaths`)\n"))
    found = [f for f in check(tree.root) if f.source == "AGENTS.md"]
    assert [(f.kind, f.severity, f.ref) for f in found] == [("stale-path", Severity.error, "internal/llm/prompt/")]
    assert f"was deleted in {gone}" in found[0].message


def test_a_name_written_after_its_target_died_is_not_called_stale(tree: Tree) -> None:
    # the reverse: the name entered the file after the target was gone (a plan, a typo): never existed
    tree.write("src/old.ts", "export {}\n")
    tree.write("CLAUDE.md", "# Notes\n\n- Nothing here yet.\n")
    commit(tree, "start", date="2025-06-01T00:00:00Z")
    (tree.root / "src/old.ts").unlink()
    tree.write("src/new.ts", "export {}\n")
    commit(tree, "replace old", date="2025-07-01T00:00:00Z")
    tree.write("CLAUDE.md", "# Notes\n\n- Nothing here yet; see `src/old.ts`.\n")
    commit(tree, "a note naming the gone file", date="2025-08-01T00:00:00Z")
    assert [f.severity for f in check(tree.root) if f.ref == "src/old.ts"] in ([], [Severity.warning], [Severity.info])

def test_trees_with_spacer_lines_keep_their_nesting_and_report_the_line(tree: Tree) -> None:
    tree.write("src/api/handlers.ts", "export {}\n")
    tree.write("src/api/routes/orders.ts", "export {}\n")
    tree.write("src/web/app.tsx", "export {}\n")
    tree.write("CLAUDE.md", "\n".join([
        "# Layout", "", "```", "src/", "├── api/", "│   ├── handlers.ts", "│   │", "│   └── routes/",
        "│      └── orders.ts", "│", "└── web/", "    └── app.tsx", "```", ""]))
    commit(tree, "initial")
    assert check(tree.root) == []
    shutil.rmtree(tree.root / "src/api/routes")
    commit(tree, "drop routes")
    findings = check(tree.root)
    assert {(f.ref, f.line) for f in findings} == {("src/api/routes/", 8), ("src/api/routes/orders.ts", 9)}


def test_a_document_in_docs_names_paths_relative_to_its_package(tree: Tree) -> None:
    tree.write("packages/engine/src/plan.ts", "export {}\n")
    tree.write("packages/engine/docs/AGENTS.md", "- Plans are built in `src/plan.ts`.\n- Caches in `src/cache.ts`.\n")
    tree.write("packages/engine/src/cache.ts", "export {}\n")
    commit(tree, "initial")
    assert check(tree.root) == []
    (tree.root / "packages/engine/src/cache.ts").unlink()
    commit(tree, "drop cache")
    assert [(f.kind, f.ref) for f in check(tree.root)] == [("stale-path", "src/cache.ts")]


def test_a_script_written_with_its_alternatives_names_each_of_them(tree: Tree) -> None:
    # payload's CLAUDE.md: "`pnpm run test:unit|components|types` - Other test suites"
    scripts = {"test:unit": "vitest", "test:components": "jest", "test:types": "tsd", "test:int:postgres": "x"}
    tree.write("package.json", json.dumps({"name": "root", "scripts": scripts}))
    tree.write("CLAUDE.md", "\n".join([
        "- `pnpm run test:unit|components|types` - Other test suites",
        "- `pnpm run test:int:postgres|sqlite` - other databases",
        "- `pnpm test|tee out.log` keeps a log",
    ]) + "\n")
    commit(tree, "initial", date="2026-01-01T00:00:00Z")
    tree.write("package.json", json.dumps({"name": "root", "scripts": {k: v for k, v in scripts.items()
                                                                      if k != "test:components"}}))
    commit(tree, "drop jest", date="2026-02-01T00:00:00Z")
    findings = check(tree.root)
    # the one removed is an error; an alternative never defined (`test:int:sqlite`) is no finding, nor
    # what a script's output is piped into
    assert loud(findings) == [("CLAUDE.md", 1, "stale-script", "test:components")]
    assert not any(f.ref in ("test:int:sqlite", "test:tee", "tee") for f in findings)


def test_commands_that_change_folder(tree: Tree) -> None:
    tree.write("examples/old-name/package.json", json.dumps({"name": "ex", "scripts": {"dev": "vite"}}))
    tree.write("tools/runner/Makefile", "build:\n\tgo build\n")
    tree.write("CLAUDE.md", "- Try it: `cd examples/old-name && pnpm dev`.\n- Runner: `make -C tools/runner build`.\n")
    commit(tree, "initial")
    assert check(tree.root) == []
    git(tree.root, "mv", "examples/old-name", "examples/new-name")
    tree.write("tools/runner/Makefile", "compile:\n\tgo build\n")
    commit(tree, "rename example; rename build target")
    got = {(f.kind, f.ref, f.severity) for f in check(tree.root)}
    assert ("moved-path", "examples/old-name/", Severity.error) in got
    assert ("stale-make-target", "build", Severity.error) in got


def test_commands_run_after_a_cd_to_a_folder_the_text_does_not_name_are_not_judged(tree: Tree) -> None:
    # getsentry/sentry-javascript's AGENTS.md: "Single package: `cd packages/<name> && yarn test`" was
    # fingerprinted as the root `test` script, "changed since written" with the root's own line
    tree.write("package.json", json.dumps({"name": "root", "scripts": {"test": "lerna run test", "lint": "eslint"}}))
    tree.write("packages/a/Makefile", "build:\n\tgo build\n")
    tree.write("AGENTS.md", "\n".join([
        "- All: `yarn test`",
        "- Single package: `cd packages/<name> && yarn test`",
        "- Elsewhere: `cd apps/{app} && make release`; `cd path/to/pkg && yarn deploy`",
        "- Back at the root: `cd packages/a && cd .. && cd .. && yarn lint`",
        "- The root from anywhere: `cd \"$(git rev-parse --show-toplevel)\" && yarn missing-script`",
    ]) + "\n")
    commit(tree, "initial", date="2026-01-01T00:00:00Z")
    tree.write("package.json", json.dumps({"name": "root", "scripts": {"test": "vitest", "lint": "eslint"}}))
    commit(tree, "vitest", date="2026-02-01T00:00:00Z")
    got = {(f.line, f.kind, f.ref) for f in check(tree.root)}
    assert got == {(1, "changed-since-verified", "test"), (5, "unresolved-script", "missing-script")}


def test_paths_inside_commands(tree: Tree) -> None:
    tree.write("internal/x/x.go", "package x\n")
    tree.write("tests/unit/test_a.py", "def test_b(): pass\n")
    tree.write("CLAUDE.md", "```bash\ngo test ./internal/x -run TestX\nuv run pytest tests/unit/test_a.py::test_b\n```\n")
    commit(tree, "initial")
    assert check(tree.root) == []
    shutil.rmtree(tree.root / "internal")
    (tree.root / "tests/unit/test_a.py").unlink()
    commit(tree, "remove")
    assert {(f.ref, f.line) for f in check(tree.root)} == {("internal/x/", 2), ("tests/unit/test_a.py", 3)}  # a Go package: a folder


def test_a_symbol_written_as_a_call_with_arguments(tree: Tree) -> None:
    tree.write("src/retry.ts", "export function withRetry(fn: () => void) { fn(); }\nexport function backoff() {}\n")
    tree.write("CLAUDE.md", "- Wrap calls in `withRetry(fn)` and tune `backoff`.\n")
    commit(tree, "initial")
    tree.write("src/retry.ts", "export function backoff() {}\n")
    commit(tree, "drop withRetry")
    [finding] = check(tree.root)
    assert (finding.kind, finding.ref, finding.severity) == ("stale-symbol", "withRetry", Severity.error)


def test_versions_stated_in_a_memory_are_compared_with_what_declares_them(tree: Tree) -> None:
    tree.write("go.mod", "module example.com/x\n\ngo 1.24.0\n")
    tree.write("CLAUDE.md", "- Requires Go 1.24+.\n- Python 3.11 is used by the scripts.\n")
    commit(tree, "initial")
    assert check(tree.root) == []
    tree.write("go.mod", "module example.com/x\n\n// a comment\ngo 1.24.0\n")
    commit(tree, "touch go.mod, same version", date="2026-04-01T12:00:00Z")
    tree.write("go.mod", "module example.com/x\n\ngo 1.25.1\n")
    bump = commit(tree, "bump go", date="2026-05-01T12:00:00Z")
    tree.write("go.mod", "module example.com/x\n\ngo 1.26.0\n")
    commit(tree, "bump go again", date="2026-06-01T12:00:00Z")
    [finding] = check(tree.root)
    assert (finding.kind, finding.severity, finding.line) == ("stale-version", Severity.error, 1)
    # The commit named is the first one after the memory whose declaration stopped matching it, with the
    # value it set where that is not today's (inngest's go.mod: 1.24.0, then 1.25.0, now 1.26.4).
    assert f"`go.mod` now says 1.26.0 (first changed to 1.25.1 in {bump} on 2026-05-01: bump go; it said 1.24.0 when " \
           "this memory was written" \
        in finding.message
    assert finding.commit and finding.commit.startswith(bump)


# -- when git cannot answer ------------------------------------------------------------------------

def _stale_repo(tree: Tree) -> None:
    tree.write("src/old.ts", "export const old = 1;\n" * 50)
    tree.write("src/keep.ts", "export {}\n")
    tree.write("CLAUDE.md", "- Old code is in `src/old.ts`.\n- Also see `src/never.ts`.\n")
    commit(tree, "initial", date="2026-01-01T00:00:00Z")
    (tree.root / "src/old.ts").unlink()
    tree.write("src/keep.ts", "export const keep = 1;\n")
    commit(tree, "drop old", date="2026-02-01T00:00:00Z")


def test_a_shallow_clone_says_history_is_incomplete_and_gives_no_never_existed_verdicts(tree: Tree, tmp_path: Path) -> None:
    _stale_repo(tree)
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{tree.root}", str(shallow)], check=True)
    findings = check(shallow)
    assert [(f.kind, f.severity) for f in findings] == [("history-unavailable", Severity.warning)]
    assert "shallow clone" in findings[0].message


def test_missing_objects_are_reported_once_and_no_verdict_rests_on_them(tree: Tree, tmp_path: Path) -> None:
    tree.write("src/pay.ts", "export function refundAll() {}\nexport function charge() {}\n")
    tree.write("src/old.ts", "export const old = 1;\n")
    tree.write("CLAUDE.md", "- Old code is in `src/old.ts`.\n- Also see `src/never.ts`.\n- Refunds: `refundAll`.\n")
    commit(tree, "initial", date="2026-01-01T00:00:00Z")
    (tree.root / "src/old.ts").unlink()
    tree.write("src/pay.ts", "export function charge() {}\n")
    commit(tree, "drop old code", date="2026-03-01T00:00:00Z")
    git(tree.root, "config", "uploadpack.allowFilter", "true")
    partial = tmp_path / "partial"
    # A partial clone holds the trees of every commit but only the file contents of its checkout; its
    # promisor remote is out of reach (offline, or gone), so older contents cannot be fetched.
    subprocess.run(["git", "clone", "-q", "--filter=blob:none", f"file://{tree.root}", str(partial)], check=True,
                   capture_output=True)
    git(partial, "remote", "set-url", "origin", str(tmp_path / "gone"))
    findings = check(partial)
    got = {(f.kind, f.severity, f.ref) for f in findings}
    # Trees are complete: the deleted file is proven stale, and the other path never existed.
    assert ("stale-path", Severity.error, "src/old.ts") in got
    assert ("unresolved-path", Severity.info, "src/never.ts") in got
    # The symbol's old definition cannot be read: no verdict, and one warning says why.
    assert not any(f.ref == "refundAll" for f in findings)
    [warning] = [f for f in findings if f.kind == "history-unavailable"]
    assert warning.severity == Severity.warning and "missing" in warning.message


def test_a_name_the_memory_places_in_a_file_is_stale_once_the_code_drops_it(tree: Tree) -> None:
    # Not a definition: a VCR matcher registered under a string name, as real test suites do.
    tree.write("tests/conftest.py", "def pytest_recording_configure(config, vcr):\n"
                                    "    vcr.register_matcher('function_calling_mode', lambda a, b: None)\n")
    tree.write("tests/AGENTS.md", "- Gate cassettes with a matcher; see `function_calling_mode` in `tests/conftest.py`.\n"
                                  "- Or `other_matcher`, which no code ever had.\n")
    commit(tree, "initial")
    tree.write("tests/conftest.py", "def pytest_recording_configure(config, vcr):\n    pass\n")
    sha = commit(tree, "Assert at the boundary instead of via matchers")
    [finding] = check(tree.root)
    assert (finding.kind, finding.ref, finding.severity) == ("stale-symbol", "function_calling_mode", Severity.error)
    assert f"removed in {sha}" in finding.message


def test_grep_at_a_commit_finds_whole_words_only_with_many_words(tree: Tree) -> None:
    """grep_at asks git once for all words (one alternation): whole words only, a word that is the start
    of a longer one on the same line is still found on its own, and regex characters are literal."""
    from lorekeeper.refs.history import GitHistory

    tree.write("src/a.js", "const open_pool = open($store);\nfunction openx() {}\n")
    tree.write("src/b.py", "def close(): pass  # a.b\n")
    sha = commit(tree, "code")
    found = GitHistory(tree.root).grep_at(sha, {"open", "open_pool", "$store", "close", "a.b", "openx", "pool", "never"},
                                          ("*.js", "*.py"))
    assert found is not None
    assert found["open"] == {"src/a.js"} and found["open_pool"] == {"src/a.js"} and found["openx"] == {"src/a.js"}
    assert found["$store"] == {"src/a.js"} and found["close"] == {"src/b.py"} and found["a.b"] == {"src/b.py"}
    assert found["pool"] == set() and found["never"] == set()


def test_a_bare_file_name_gone_everywhere_is_judged_by_what_the_tree_held_then(tree: Tree) -> None:
    """`ajv-provider.ts` in a list under its folder: found nowhere now, but the tree held a file of that
    name when the line was written. Its folder moved first (the name still held), then it was renamed:
    the rename is what made the line false, and the fix is the new name."""
    tree.write("src/validation/ajv-provider.ts", "export class AjvProvider {}\n")
    tree.write("CLAUDE.md", "Validation lives in its own folder:\n- `ajv-provider.ts` - the default validator\n")
    commit(tree, "initial", date="2026-01-01T12:00:00Z")
    git(tree.root, "mv", "src/validation", "src/validators")
    commit(tree, "move the folder", date="2026-02-01T12:00:00Z")
    git(tree.root, "mv", "src/validators/ajv-provider.ts", "src/validators/ajvProvider.ts")
    renamed = commit(tree, "camelCase file names", date="2026-03-01T12:00:00Z")
    assert loud(check(tree.root)) == [("CLAUDE.md", 2, "moved-path", "ajv-provider.ts")]
    [full] = [f for f in check(tree.root) if f.kind == "moved-path"]
    assert full.severity == Severity.error
    assert f"was moved to `ajvProvider.ts` in {renamed}" in full.message
    assert full.fix.model_dump() == {"action": "replace-ref", "old": "ajv-provider.ts", "new": "ajvProvider.ts"}


def test_a_class_used_by_many_files_is_found_in_the_file_named_after_it(tree: Tree) -> None:
    """dyad's AGENTS.md: "calls the relevant `IpcClient` method", the class defined in
    `src/ipc/ipc_client.ts` and used by more than 40 files of folders that sort before it; the IPC
    contracts deleted it. Only 40 files are parsed for a name's definition: the one named after it (its
    separators aside) comes first, so the class is found and the line is stale."""
    tree.write("src/ipc/ipc_client.ts", "export class IpcClient {\n  static getInstance() { return new IpcClient(); }\n}\n")
    for n in range(45):
        tree.write(f"src/components/c{n:02d}.tsx", "import { IpcClient } from '../ipc/ipc_client';\n"
                                                  "export const f = () => IpcClient.getInstance();\n")
    # (a snake_case name in a file of its name: `run_evals` in `evals/run_evals.py`, as many users before it)
    tree.write("evals/run_evals.py", "def run_evals():\n    return 1\n")
    for n in range(45):
        tree.write(f"a/m{n:02d}.py", "from evals.run_evals import run_evals\n\nrun_evals()\n")
    tree.write("AGENTS.md", "- Wrap reads in `useQuery` with a `queryFn` that calls the relevant `IpcClient` method.\n"
                            "- Score with `run_evals`.\n")
    commit(tree, "initial", date="2025-10-30T12:00:00Z")
    git(tree.root, "rm", "-q", "src/ipc/ipc_client.ts", *(f"src/components/c{n:02d}.tsx" for n in range(45)),
        "evals/run_evals.py", *(f"a/m{n:02d}.py" for n in range(45)))
    tree.write("src/ipc/contracts.ts", "export const contracts = {};\n")
    removed = commit(tree, "IPC Contracts", date="2026-01-23T12:00:00Z")
    assert loud(check(tree.root)) == [("AGENTS.md", 1, "stale-symbol", "IpcClient"),
                                      ("AGENTS.md", 2, "stale-symbol", "run_evals")]
    assert f"removed in {removed}" in next(f.message for f in check(tree.root) if f.ref == "IpcClient")


def test_the_end_of_a_path_gone_everywhere_is_judged_by_the_one_file_it_ended_then(tree: Tree) -> None:
    """claude-code-action's "Extensible registry pattern in `modes/registry.ts`" (the file was
    `src/modes/registry.ts`): gone with the registry, it is stale from that commit. Where two files of the
    tree then ended so, which one the line meant cannot be told: nothing is said."""
    tree.write("src/modes/registry.ts", "export const modes = {};\n")
    tree.write("src/modes/types.ts", "export type Mode = {};\n")
    tree.write("src/a/util/log.ts", "export {};\n")
    tree.write("src/b/util/log.ts", "export {};\n")
    tree.write("CLAUDE.md", "- Extensible registry pattern in `modes/registry.ts`\n- Logging in `util/log.ts`\n")
    commit(tree, "initial", date="2026-01-01T12:00:00Z")
    git(tree.root, "rm", "-q", "src/modes/registry.ts", "src/a/util/log.ts", "src/b/util/log.ts")
    removed = commit(tree, "simplify the mode system", date="2026-02-01T12:00:00Z")
    assert loud(check(tree.root)) == [("CLAUDE.md", 1, "stale-path", "modes/registry.ts")]
    [full] = [f for f in check(tree.root) if f.ref == "modes/registry.ts"]
    assert full.severity == Severity.error and f"was deleted in {removed}" in full.message


def test_a_bare_file_name_only_node_modules_held_is_no_file_that_went(tree: Tree) -> None:
    """jest's "Both `jest-preset.js` and `jest-preset.json` are valid file names": the only files of that
    name the tree holds, then and now, are fixtures under `node_modules/`, which the tree is never read
    in; nothing of that name went, so nothing is said of it."""
    tree.write("e2e/presets/js/node_modules/jest-preset-js/jest-preset.js", "module.exports = {};\n")
    tree.write("packages/jest-config/CLAUDE.md", "Both `jest-preset.js` and `jest-preset.json` are valid file names.\n")
    commit(tree, "initial", date="2026-05-15T12:00:00Z")
    tree.write("src/other.js", "export {};\n")
    commit(tree, "later", date="2026-06-01T12:00:00Z")
    assert loud(check(tree.root)) == []


def test_a_root_script_gone_to_another_package_is_stale_unless_that_one_had_it_then(tree: Tree) -> None:
    """Inspector's old AGENTS.md: `npm run dev` at the root, whose package.json defined "dev" when the
    line was written; V2 replaced the root scripts, and the new clients/tui defines a "dev" of its own:
    the command no longer runs where the memory runs it (an error naming where one is now, as cline's
    `npm run compile` after the extension moved under apps/vscode/). Where the other package already
    had one when the line was written, the memory may mean that one: a warning, not a proof."""
    tree.write("package.json", json.dumps({"scripts": {"dev": "vite", "build": "tsc", "lint": "eslint ."}}))
    tree.write("clients/web/package.json", json.dumps({"name": "web", "scripts": {"lint": "eslint src"}}))
    tree.write("AGENTS.md", "- Development mode: `npm run dev`\n- Build: `npm run build`\n- Lint: `npm run lint`\n")
    commit(tree, "v1", date="2026-01-01T12:00:00Z")
    tree.write("package.json", json.dumps({"scripts": {"build": "tsc -b"}, "workspaces": ["clients/*"]}))
    tree.write("clients/tui/package.json", json.dumps({"name": "tui", "scripts": {"dev": "tsx src/main.ts"}}))
    v2 = commit(tree, "v2 replaces the root scripts", date="2026-02-01T12:00:00Z")
    dev, lint = [f for f in check(tree.root) if f.severity != Severity.info]
    assert (dev.kind, dev.severity, dev.line, dev.ref) == ("stale-script", Severity.error, 1, "dev")
    assert f"removed in {v2}" in dev.message and "`clients/tui/package.json` defines one since" in dev.message
    assert (lint.kind, lint.severity, lint.line, lint.ref) == ("stale-script", Severity.warning, 3, "lint")
    assert "`clients/web/package.json` defines one" in lint.message


def test_a_command_run_in_a_folder_that_is_gone_reports_the_folder_once(tree: Tree) -> None:
    tree.write("client/package.json", json.dumps({"scripts": {"lint": "eslint ."}}))
    tree.write("package.json", json.dumps({"scripts": {"build": "tsc"}}))
    tree.write("AGENTS.md", "- Client lint: `cd client && npm run lint`\n")
    commit(tree, "v1", date="2026-01-01T12:00:00Z")
    shutil.rmtree(tree.root / "client")
    gone = commit(tree, "remove the v1 client", date="2026-02-01T12:00:00Z")
    assert loud(check(tree.root)) == [("AGENTS.md", 1, "stale-path", "client/")]
    [finding] = [f for f in check(tree.root) if f.kind == "stale-path"]
    assert finding.severity == Severity.error and f"deleted in {gone}" in finding.message
