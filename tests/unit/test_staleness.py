"""Staleness on small git repositories built in tmp_path: each kind of finding, moved files, a clean
workspace with no findings, the traps that are not references, fingerprints and incremental re-checks."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lorekeeper.analysis.staleness import StalenessChecker, apply_fix, check_workspace, mark_stale, verify_entries
from lorekeeper.core.model import Severity
from lorekeeper.facts import open_memory
from lorekeeper.refs import index as index_module
from lorekeeper.refs.index import digest, whole_words
from lorekeeper.workspace import Workspace
from support import REPO, Tree, commit, git


def check(tree: Tree):
    findings, checker = check_workspace(Workspace(tree.root))
    return findings, checker


def kinds(findings) -> list[tuple[str, str, str]]:
    return [(f.source, f.kind, f.ref) for f in findings]


def test_the_example_workspace_is_clean(tmp_path: Path) -> None:
    work = tmp_path / "acme"
    shutil.copytree(REPO / "examples" / "acme-shop", work)
    git(work, "init", "-q")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "import")
    findings, checker = check_workspace(Workspace(work))
    assert findings == []
    assert len(checker.checked) == 34


def test_deleted_file_names_the_commit_that_removed_it(tree: Tree) -> None:
    tree.write("server/sse.ts", "export function stream() {}\n")
    tree.write("CLAUDE.md", "# Server\n\n- Streaming lives in `server/sse.ts`.\n")
    commit(tree, "initial")
    (tree.root / "server/sse.ts").unlink()
    tree.write("server/index.ts", "export {}\n")
    sha = commit(tree, "Decouple server from express", date="2026-01-16T09:00:00Z")
    findings, _ = check(tree)
    [finding] = findings
    assert (finding.source, finding.line, finding.kind, finding.severity) == ("CLAUDE.md", 3, "stale-path", Severity.error)
    assert finding.message == f"file `server/sse.ts` was deleted in {sha} on 2026-01-16: Decouple server from express"


def test_history_answers_are_asked_once_per_head(tree: Tree, monkeypatch: pytest.MonkeyPatch) -> None:
    """What git said about history (which commit deleted a file, changed a word) holds while HEAD does:
    a second check asks git none of it again (a server start, a save). A new commit asks what it
    touched afresh, and keeps the rest (:func:`lorekeeper.refs.history.still_true`)."""
    from lorekeeper.refs.history import GitHistory

    tree.write("server/sse.ts", "export function stream() {}\n")
    tree.write("server/jobs.ts", "export function enqueueJob() {}\n")
    tree.write("CLAUDE.md", "# Server\n\n- Streaming lives in `server/sse.ts`.\n- Jobs go through `enqueueJob`.\n")
    commit(tree, "initial")
    (tree.root / "server/sse.ts").unlink()
    tree.write("server/jobs.ts", "export function addJob() {}\n")
    commit(tree, "Decouple server from express", date="2026-01-16T09:00:00Z")
    asked: list[str] = []
    run = GitHistory._run
    monkeypatch.setattr(GitHistory, "_run", lambda self, *args, **kw: asked.append(args[0]) or run(self, *args, **kw))
    first, _ = check(tree)
    assert {f.ref for f in first} == {"server/sse.ts", "enqueueJob"} and {"log", "grep"} <= set(asked)
    asked.clear()
    second, _ = check(tree)
    assert [f.message for f in second] == [f.message for f in first]
    assert "log" not in asked and "grep" not in asked and "show" not in asked

    tree.write("server/sse.ts", "export function stream() {}\n")  # put back by a later commit
    commit(tree, "Bring streaming back", date="2026-02-01T09:00:00Z")
    asked.clear()
    third, _ = check(tree)
    assert {f.ref for f in third} == {"enqueueJob"}
    # the commits since were asked for what they touched (one log); the blame of CLAUDE.md and what was
    # asked about `enqueueJob` in server/jobs.ts, untouched, were kept
    assert asked.count("log") == 1 and "blame" not in asked and "grep" not in asked

    tree.write("CLAUDE.md", "# Server\n\n- Streaming lives in `server/sse.ts`.\n- Jobs go through `enqueueJob` (server/jobs.ts).\n")
    commit(tree, "Say where jobs live", date="2026-02-02T09:00:00Z")
    asked.clear()
    fourth, checker = check(tree)
    assert "blame" in asked  # CLAUDE.md changed: asked again
    kept = list(checker.ws.cache_dir.glob("history-*.json"))
    assert kept
    for path in kept:
        path.unlink()
    assert [f.message for f in check(tree)[0]] == [f.message for f in fourth]  # as from no cache


def test_moved_file_offers_the_new_path_and_the_fix_applies(tree: Tree) -> None:
    tree.write("src/lib/logger.ts", "export const logger = console;\n")
    tree.entry("l.json", {"id": "l", "content": "Log through src/lib/logger.ts only.",
                          "refs": [{"path": "src/lib/logger.ts", "symbol": "logger"}]})
    tree.write("CLAUDE.md", "- Use `src/lib/logger.ts` for logs.\n")
    commit(tree, "initial")
    git(tree.root, "mv", "src/lib/logger.ts", "src/lib/log.ts")
    commit(tree, "Rename logger")
    findings, checker = check(tree)
    moved = [f for f in findings if f.kind == "moved-path"]
    assert {f.source for f in moved} == {"CLAUDE.md", ".lore/memory/entries/l.json"}
    assert all(f.fix.model_dump() == {"action": "replace-ref", "old": "src/lib/logger.ts", "new": "src/lib/log.ts"} for f in moved)
    assert "was moved to `src/lib/log.ts`" in moved[0].message
    for finding in moved:
        entry = checker.store.by_id()[finding.entry]
        assert apply_fix(checker.store, entry, finding.fix, tree.journal(), finding.message) is not None
    assert (tree.root / "CLAUDE.md").read_text() == "- Use `src/lib/log.ts` for logs.\n"
    data = json.loads((tree.root / ".lore/memory/entries/l.json").read_text())
    assert data["content"] == "Log through src/lib/log.ts only."
    assert data["refs"] == [{"path": "src/lib/log.ts", "symbol": "logger"}]
    assert check(tree)[0] == []


def test_moved_file_without_git_is_guessed_from_its_name(tree: Tree) -> None:
    tree.write("src/util/dates.py", "def parse(): pass\n")
    tree.write("AGENTS.md", "- Date helpers are in `src/helpers/dates.py`.\n")
    findings, _ = check(tree)
    [finding] = findings
    assert finding.kind == "moved-path" and finding.severity == Severity.warning
    assert finding.fix.new == "src/util/dates.py"


def test_removed_symbols_in_each_language(tree: Tree) -> None:
    tree.write("app/billing.py", "class Billing:\n    def charge(self):\n        return 1\n\n    def refund(self):\n        return 2\n")
    tree.write("web/client.ts", "export class Api {\n  fetchOrders() { return []; }\n  legacyLogin() {}\n}\n")
    tree.write("svc/main.go", "package svc\n\nfunc StartServer() {}\n\nfunc stopServer() {}\n")
    tree.write("core/lib.rs", "pub struct Cache;\nimpl Cache {\n    pub fn evict_all(&self) {}\n}\n")
    tree.entry("py.json", {"id": "py", "content": "Refunds go through Billing.refund.",
                           "refs": [{"path": "app/billing.py", "symbol": "Billing.refund"}]})
    tree.write("CLAUDE.md", "- Call `Api.legacyLogin()` for SSO.\n- Boot with `StartServer`.\n"
                            "- Clear with `Cache.evict_all`.\n- Charge with `Billing.charge`.\n")
    commit(tree, "initial")
    tree.write("app/billing.py", "class Billing:\n    def charge(self):\n        return 1\n")
    tree.write("web/client.ts", "export class Api {\n  fetchOrders() { return []; }\n}\n")
    tree.write("svc/main.go", "package svc\n\nfunc RunServer() {}\n")
    tree.write("core/lib.rs", "pub struct Cache;\nimpl Cache {\n    pub fn clear(&self) {}\n}\n")
    commit(tree, "Rework")
    findings, _ = check(tree)
    stale = {(f.source, f.ref) for f in findings if f.kind == "stale-symbol" and f.severity == Severity.error}
    assert stale == {(".lore/memory/entries/py.json", "app/billing.py:Billing.refund"),
                     ("CLAUDE.md", "Api.legacyLogin"), ("CLAUDE.md", "StartServer"), ("CLAUDE.md", "Cache.evict_all")}
    assert not [f for f in findings if f.ref == "Billing.charge"]


def test_symbols_that_are_external_or_never_existed_are_not_reported(tree: Tree) -> None:
    tree.write("src/app.js", "console.log('hi');\nexport function main() {}\n")
    tree.write("CLAUDE.md", "- Never leave `console.log` calls; use `logger.info` from pino.\n"
                            "- Configure `webServer` in the Playwright config.\n- Entry point is `main`.\n")
    commit(tree, "initial")
    assert check(tree)[0] == []


def test_scripts_targets_console_scripts_and_modules(tree: Tree) -> None:
    tree.write("package.json", json.dumps({"scripts": {"test": "vitest", "test:e2e": "playwright test"},
                                           "devDependencies": {"vitest": "1"}}, indent=2))
    tree.write("Makefile", "build:\n\tgo build ./...\n\ndb-up:\n\tdocker compose up -d db\n")
    tree.write("justfile", "lint:\n    ruff check .\n\nfmt:\n    ruff format .\n")
    tree.write("pyproject.toml", '[project]\nname = "x"\n\n[project.scripts]\nacme = "x.cli:main"\nacme-admin = "x.admin:main"\n')
    tree.write("x/__init__.py", "")
    tree.write("x/cli.py", "def main(): pass\n")
    tree.write("x/admin.py", "def main(): pass\n")
    tree.write("CLAUDE.md", "\n".join([
        "- Run `pnpm test:e2e` before pushing.",
        "- Start the database with `make db-up`.",
        "- Format with `just fmt`.",
        "- Admin tasks: `uv run acme-admin`.",
        "- Or `python -m x.admin`.",
        "- Unit tests: `pnpm test` or `pnpm vitest`.",
        "- Use pnpm and yarn break things, just make sure.",
    ]) + "\n")
    commit(tree, "initial")
    tree.write("package.json", json.dumps({"scripts": {"test": "vitest"}, "devDependencies": {"vitest": "1"}}, indent=2))
    tree.write("Makefile", "build:\n\tgo build ./...\n")
    tree.write("justfile", "lint:\n    ruff check .\n")
    tree.write("pyproject.toml", '[project]\nname = "x"\n\n[project.scripts]\nacme = "x.cli:main"\n')
    (tree.root / "x/admin.py").unlink()
    commit(tree, "Slim down tooling")
    findings, _ = check(tree)
    got = {(f.line, f.kind, f.ref) for f in findings}
    assert got == {(1, "stale-script", "test:e2e"), (2, "stale-make-target", "db-up"), (3, "stale-just-recipe", "fmt"),
                   (4, "stale-console-script", "acme-admin"), (5, "stale-module", "x.admin")}
    assert all(f.severity == Severity.error for f in findings)
    script = next(f for f in findings if f.kind == "stale-script")
    assert script.message.startswith('script "test:e2e" is not defined in package.json (removed in ')


def test_script_that_never_existed_is_information_only(tree: Tree) -> None:
    tree.write("package.json", '{"scripts": {"build": "tsc"}}\n')
    tree.write("CLAUDE.md", "- Deploy with `npm run deploy`.\n")
    commit(tree, "initial")
    [finding] = check(tree)[0]
    assert finding.kind == "unresolved-script" and finding.severity == Severity.info
    assert finding.message.startswith('script "deploy" is not defined in package.json, and was not when this memory was written in ')


def test_package_manager_contradicted_by_lockfile_or_field(tree: Tree) -> None:
    tree.write("package.json", '{"name": "x"}\n')
    tree.write("package-lock.json", "{}\n")
    tree.write("CLAUDE.md", "- Always use pnpm for installs.\n- We use npm here.\n- Never use yarn.\n")
    commit(tree, "initial")
    [finding] = check(tree)[0]
    assert finding.kind == "stale-package-manager" and finding.line == 1
    # Wrong from the start (the lockfile was npm's when the line was written): a warning, not an error.
    assert finding.severity == Severity.warning
    assert finding.message.startswith("memory says to use pnpm, but this repository uses npm (the lockfile is "
                                      "package-lock.json); it already did when this memory was written in ")
    tree.write("package.json", '{"name": "x", "packageManager": "pnpm@9.1.0"}\n')
    (tree.root / "package-lock.json").unlink()
    tree.write("pnpm-lock.yaml", "lockfileVersion: '9.0'\n")
    commit(tree, "switch to pnpm")
    [finding] = check(tree)[0]
    assert finding.line == 2 and 'packageManager is "pnpm"' in finding.message
    assert finding.severity == Severity.error  # true when written (npm's lockfile), false now


def test_nested_instruction_files_resolve_paths_from_their_folder(tree: Tree) -> None:
    tree.write("packages/api/src/routes.ts", "export const routes = [];\n")
    tree.write("packages/api/AGENTS.md", "- Routes live in `src/routes.ts`.\n- Handlers live in `src/handlers.ts`.\n")
    tree.write("packages/api/src/handlers.ts", "export {}\n")
    commit(tree, "initial")
    assert check(tree)[0] == []
    (tree.root / "packages/api/src/handlers.ts").unlink()
    commit(tree, "drop handlers")
    [finding] = check(tree)[0]
    assert finding.source == "packages/api/AGENTS.md" and finding.kind == "stale-path" and finding.ref == "src/handlers.ts"


def test_traps_that_are_not_references(tree: Tree) -> None:
    tree.write("lib/types/index.ts", "export type A = 1;\n")
    tree.write("tools/list.md", "old\n")
    tree.write(".gitignore", "dist/\n.env\nstate.json\n")
    tree.write("src/index.ts", "export {}\n")
    commit(tree, "initial")
    shutil.rmtree(tree.root / "lib")
    shutil.rmtree(tree.root / "tools")
    commit(tree, "remove lib/types and tools")
    tree.write("CLAUDE.md", "\n".join([
        "- Docs: https://example.com/docs/guide.md and www.example.org/a/b.ts",
        "- Tests match `src/**/*.test.ts` and `*.spec.ts`.",
        "- Add a page at `src/pages/<name>.tsx` or `path/to/file.ts` or `src/{id}.ts`.",
        "- The MCP server answers `tools/list` and `resources/read`.",
        "- Import schemas from `zod/v4`; scoped packages like `@acme/ui/button` are fine.",
        "- Upstream is `openai/codex`; branch `feature/login-flow`; call `/api/orders/:id`; run `/compact`.",
        "- Lint rule `eslint/no-unused-vars` and `@typescript-eslint/no-explicit-any` stay on.",
        "- Build output goes to `dist/`, secrets to `.env`, runtime data in `state.json`, config in `~/.acme/config`.",
        "- Put helpers anywhere (e.g. `src/utils/dates.ts`, `src/helpers/money.ts`).",
        "- The old `lib/types/` was removed; types live next to code now.",
        "- If `.gitleaks.toml` exists, run gitleaks.",
        "- Never import from `src/internal/legacy.ts`.",
        "",
        "```text",
        "src/missing/output.ts:12 error",
        "```",
        "",
        "```",
        "acme/",
        "├── api/handlers.ts",
        "└── web/app.tsx",
        "```",
    ]) + "\n")
    commit(tree, "instructions")
    assert check(tree)[0] == []


def test_refs_outside_the_root_are_refused_not_read(tree: Tree, tmp_path: Path) -> None:
    (tmp_path / "outside.py").write_text("def secret(): pass\n")
    tree.entry("o.json", {"id": "o", "content": "see ../outside.py",
                          "refs": [{"path": "../outside.py", "symbol": "secret"}, {"path": "/etc/passwd"}]})
    commit(tree, "initial")
    findings, checker = check(tree)
    assert findings == []  # nothing judged: the refs are never resolved
    assert {f.kind for f in checker.store.findings} == {"ref-outside-root"}


def test_verify_then_changed_since_verified_only_for_what_the_memory_is_about(tree: Tree) -> None:
    tree.write("app/pay.py", "def charge(amount):\n    return amount\n\n\ndef refund(amount):\n    return -amount\n")
    tree.write("package.json", json.dumps({"name": "x", "version": "1.0.0", "scripts": {"test": "vitest"}}, indent=2))
    tree.entry("c.json", {"id": "c", "content": "charge() returns the amount unchanged.",
                          "refs": [{"path": "app/pay.py", "symbol": "charge"}]})
    tree.entry("s.json", {"id": "s", "content": "Run `npm test` for unit tests."})
    commit(tree, "initial")
    _, checker = check(tree)
    records = verify_entries(checker, checker.store.live(), tree.journal())
    # One operation for the command (one journal record, one undo), naming every entry it verified.
    assert [(r.op, sorted(r.entries), len(r.changes)) for r in records] == [("verify", ["c", "s"], 2)]
    assert records[0].reason == "verified 2 entries (3 references)"
    data = json.loads((tree.root / ".lore/memory/entries/c.json").read_text())
    assert data["verified"].endswith("Z") and set(data["fingerprints"]) == {"app/pay.py", "app/pay.py:charge"}

    # Unrelated edits: another function in the same file, another key of package.json.
    tree.write("app/pay.py", "def charge(amount):\n    return amount\n\n\ndef refund(amount):\n    return 0\n")
    tree.write("package.json", json.dumps({"name": "x", "version": "2.0.0", "scripts": {"test": "vitest"}}, indent=2))
    findings, _ = check(tree)
    assert [(f.entry, f.ref) for f in findings] == [("c", "app/pay.py")]  # the whole-file ref, as a warning
    assert findings[0].severity == Severity.warning

    tree.write("app/pay.py", "def charge(amount):\n    return amount * 100\n\n\ndef refund(amount):\n    return 0\n")
    tree.write("package.json", json.dumps({"name": "x", "version": "2.0.0", "scripts": {"test": "jest"}}, indent=2))
    findings, _ = check(tree)
    changed = {(f.entry, f.ref) for f in findings if f.kind == "changed-since-verified"}
    assert changed == {("c", "app/pay.py"), ("c", "app/pay.py:charge"), ("s", "test")}
    message = next(f.message for f in findings if f.ref == "app/pay.py:charge")
    assert message.startswith("`app/pay.py:charge` changed since this memory was verified on 20")


def test_instruction_lines_use_blame_as_baseline(tree: Tree) -> None:
    tree.write("app/pay.py", "def create_charge(amount):\n    return amount\n")
    tree.write("package.json", json.dumps({"scripts": {"build": "tsc"}}, indent=2))
    tree.write("CLAUDE.md", "- Charges go through `create_charge`.\n- Build with `npm run build`.\n")
    commit(tree, "initial", date="2026-02-01T00:00:00Z")
    assert check(tree)[0] == []
    # A command the line names changes: what the agent runs is not what the line was written for.
    # (The function's body changes too, which says nothing about the line: symbols are compared only
    # once someone verifies the memory.)
    tree.write("package.json", json.dumps({"scripts": {"build": "tsc -b && vite build"}}, indent=2))
    tree.write("app/pay.py", "def create_charge(amount, currency):\n    return amount\n")
    commit(tree, "build with vite", date="2026-03-01T00:00:00Z")
    [finding] = check(tree)[0]
    assert finding.kind == "changed-since-verified" and finding.severity == Severity.info and finding.line == 2
    assert "since this memory was written" in finding.message and "initial" in finding.message
    # what the line was written for, and what runs now
    assert finding.message.endswith("): `tsc` then, `tsc -b && vite build` now")
    _, checker = check(tree)
    verify_entries(checker, checker.store.find("CLAUDE.md:2"), tree.journal())
    assert (tree.root / ".lore/memory/verified.json").is_file()
    assert check(tree)[0] == []


def test_a_long_command_that_changed_is_shown_around_its_change(tree: Tree) -> None:
    """getsentry/sentry-javascript's `test`: a long `nx run-many` whose exclude list grew by one package."""
    head = 'nx run-many -t test --exclude "@sentry-internal/{browser-integration-tests,'
    tail = 'e2e-tests,integration-shims,node-integration-tests,overhead-metrics,test-utils}"'
    tree.write("package.json", json.dumps({"scripts": {"test": head + tail}}, indent=2))
    tree.write("AGENTS.md", "- Test everything: `yarn test`\n")
    commit(tree, "initial", date="2026-02-01T00:00:00Z")
    tree.write("package.json", json.dumps({"scripts": {"test": head + "bun-integration-tests," + tail}}, indent=2))
    commit(tree, "exclude bun tests", date="2026-03-01T00:00:00Z")
    [finding] = check(tree)[0]
    shown = finding.message.split("): ", 1)[1]
    then, now = re.findall(r"`([^`]*)`", shown)
    assert shown == f"`{then}` then, `{now}` now" and then.startswith("…") and now.startswith("…")
    assert "bun-integration-tests" in now and "bun-integration-tests" not in then
    assert max(len(then), len(now)) <= 72


def test_a_comment_added_to_a_make_target_changes_nothing_it_runs(tree: Tree) -> None:
    """inngest's Makefile: a `## help` comment added to every target line made each target its
    copilot-instructions name "changed since written"; what `make dev` runs had not changed."""
    tree.write("Makefile", "dev:\n\tgo run ./cmd dev\n\nlint:\n\tgolangci-lint run\n")
    tree.write("CLAUDE.md", "- Start with `make dev`.\n- Lint with `make lint`.\n")
    commit(tree, "initial", date="2026-02-01T00:00:00Z")
    tree.write("Makefile", "dev: ## Start the dev server\n\tgo run ./cmd dev  # the API too\n\n"
                           "lint: ## Lint\n\tgolangci-lint run\n")
    commit(tree, "add help command to makefile", date="2026-03-01T00:00:00Z")
    assert check(tree)[0] == []
    tree.write("Makefile", "dev: ## Start the dev server\n\tgo run ./cmd dev  # the API too\n\n"
                           "lint: ## Lint\n\tgolangci-lint run --fix\n")
    commit(tree, "lint fixes", date="2026-04-01T00:00:00Z")
    assert [(f.line, f.kind, f.ref) for f in check(tree)[0]] == [(2, "changed-since-verified", "lint")]
    # A verification recorded when a target's lines counted byte for byte still holds for those lines.
    _, checker = check(tree)
    verify_entries(checker, checker.store.find("CLAUDE.md:2"), tree.journal())
    assert check(tree)[0] == []
    verified = tree.root / ".lore/memory/verified.json"
    raw = digest(b"lint: ## Lint\n\tgolangci-lint run --fix")
    verified.write_text(re.sub(r'("lint": )"sha256:[0-9a-f]+"', rf'\1"{raw}"', verified.read_text()))
    assert raw in verified.read_text()
    assert check(tree)[0] == []
    tree.write("Makefile", "dev: ## Start the dev server\n\tgo run ./cmd dev  # the API too\n\n"
                           "lint: ## Lint\n\tgolangci-lint run --fix ./...\n")
    assert [(f.kind, f.ref, f.severity) for f in check(tree)[0]] == [("changed-since-verified", "lint", Severity.warning)]


def test_a_line_unchanged_since_it_was_written_has_nothing_changed(tree: Tree) -> None:
    """inspector's AGENTS.md: "ALWAYS do `npm run format` before committing — the **root** `format`
    auto-fixes `core/`": the word `format` (read as a symbol) and the script share a label; in a tree of
    one commit the line was "changed since written" because the symbol was compared with the script's
    fingerprint. A script run after `cd core` is fingerprinted in core/ both then and now, and verify
    records it there too."""
    tree.write("package.json", json.dumps({"scripts": {"format": "prettier --write ."}}, indent=2))
    tree.write("core/package.json", json.dumps({"scripts": {"lint": "eslint core"}}, indent=2))
    tree.write("src/format.ts", "export function format(x: string) {\n  return x.trim()\n}\n")
    tree.write("AGENTS.md", "- ALWAYS do `npm run format` before committing — the **root** `format` auto-fixes `core/`.\n"
                            "- Lint the core: `cd core && npm run lint`\n")
    commit(tree, "snapshot", date="2026-02-01T00:00:00Z")
    assert [(f.line, f.kind, f.message) for f in check(tree)[0]] == []
    tree.write("core/package.json", json.dumps({"scripts": {"lint": "eslint core --max-warnings 0"}}, indent=2))
    commit(tree, "stricter lint", date="2026-03-01T00:00:00Z")
    assert [(f.line, f.kind, f.ref) for f in check(tree)[0]] == [(2, "changed-since-verified", "lint")]
    _, checker = check(tree)
    verify_entries(checker, checker.store.find("AGENTS.md:2") + checker.store.find("AGENTS.md:1"), tree.journal())
    assert check(tree)[0] == []
    tree.write("src/format.ts", "export function format(x: string) {\n  return x\n}\n")
    assert [(f.line, f.kind, f.ref) for f in check(tree)[0]] == []  # the script holds; the word is no symbol of it


def test_incremental_recheck_touches_only_dependants(tree: Tree) -> None:
    tree.write("a.py", "def alpha(): pass\n")
    tree.write("b.py", "def beta(): pass\n")
    for i in range(5):
        tree.entry(f"a{i}.json", {"id": f"a{i}", "content": f"fact {i} about a", "refs": [{"path": "a.py", "symbol": "alpha"}]})
    tree.entry("b.json", {"id": "b", "content": "about b", "refs": ["b.py:beta"]})
    tree.entry("n.json", {"id": "n", "content": "no references at all"})
    commit(tree, "initial")
    ws = Workspace(tree.root)

    checker = StalenessChecker(ws, open_memory(ws))
    assert checker.check() == []
    assert checker.findings() == []  # (kept until a result changes)
    assert checker.reverse_index()["b.py"] == {"b"}
    tree.write("b.py", "def gamma(): pass\n")
    findings = checker.recheck(["b.py"])
    assert checker.findings() == findings
    assert checker.checked == ["b"]
    assert [(f.entry, f.kind) for f in findings] == [("b", "stale-symbol")]
    assert "removed in uncommitted changes" in findings[0].message
    assert checker.recheck(["README.md"]) == [] and checker.checked == []
    assert checker.findings() == findings  # the earlier verdicts stand
    tree.write("b.py", "def beta(): pass\n")
    assert checker.recheck(["b.py"]) == [] and checker.findings() == []


def test_the_kept_findings_are_patched_as_results_change_and_stay_in_a_fresh_sorts_order(tree: Tree) -> None:
    """A recheck of a few entries patches the sorted findings in place (a save at 10k entries sorted
    them all); what it gives is always what sorting every result's findings gives."""
    from lorekeeper.core.model import finding_order as _finding_order

    for n in range(6):
        tree.write(f"m{n}.py", "def alpha(): pass\n\ndef beta(): pass\n")
        for k in range(4):
            tree.entry(f"e{n}{k}.json", {"id": f"e{n}{k}", "content": f"`alpha` and `beta` in `m{n}.py`, case {k}",
                                        "refs": [{"path": f"m{n}.py", "symbol": "alpha"}, {"path": f"m{n}.py", "symbol": "beta"}]})
    commit(tree, "initial")
    checker = StalenessChecker(Workspace(tree.root), open_memory(Workspace(tree.root)))
    checker.check()
    assert checker.findings() == []

    def fresh() -> list:
        return sorted((f for r in checker.results.values() for f in r.findings), key=_finding_order)

    for n, body in [(2, "def beta(): pass\n"), (4, ""), (2, "def alpha(): pass\n"), (4, "def alpha(): pass\n"),
                    (2, "def alpha(): pass\n\ndef beta(): pass\n"), (0, "")]:
        kept = checker._findings
        tree.write(f"m{n}.py", body)
        checker.recheck([f"m{n}.py"])
        assert checker.checked == [f"e{n}{k}" for k in range(4)]
        assert checker.findings() == fresh()
        assert checker._findings is kept  # patched, not sorted again
    assert {f.entry for f in checker.findings()} == {*(f"e0{k}" for k in range(4)), *(f"e4{k}" for k in range(4))}
    for n in range(6):  # many results at once: sorted again
        tree.write(f"m{n}.py", "")
    checker.recheck([f"m{n}.py" for n in range(6)])
    assert checker.findings() == fresh() and len(checker.findings()) == 48


def test_a_file_at_a_past_commit_is_parsed_once_per_checker(tree: Tree, monkeypatch) -> None:
    """An editor saving a file whose name went missing asks again what the name's files held at the
    memory's commit: the answer is the same each time, so it is parsed once."""
    from collections import Counter

    import lorekeeper.analysis.staleness.checks as checks

    tree.write("pkg/util.py", "def helper(x):\n    return x\n")
    tree.write("CLAUDE.md", "- Call `helper` in `pkg/util.py` to convert values.\n")
    commit(tree, "initial")
    tree.write("pkg/util.py", "def other(x):\n    return x\n")
    parsed: Counter[str] = Counter()
    real = checks.file_symbols

    def counting(path: str, data: bytes):
        parsed[path] += 1
        return real(path, data)

    monkeypatch.setattr(checks, "file_symbols", counting)
    ws = Workspace(tree.root)
    checker = StalenessChecker(ws, open_memory(ws))
    first = checker.check()
    tree.write("pkg/util.py", "def other(x):\n    return x + 1\n")  # saved again: still no helper
    again = checker.recheck(["pkg/util.py"])
    assert [f.kind for f in first] == [f.kind for f in again] == ["stale-symbol"]
    assert parsed["pkg/util.py"] == 1  # at the commit: once, though judged twice


def test_mark_records_stale_reason_and_undo_restores(tree: Tree) -> None:
    tree.write("x.py", "def f(): pass\n")
    tree.entry("m.json", {"id": "m", "content": "See x.py", "refs": ["x.py"]})
    commit(tree, "initial")
    before = (tree.root / ".lore/memory/entries/m.json").read_bytes()
    (tree.root / "x.py").unlink()
    commit(tree, "drop x")
    findings, checker = check(tree)
    records, skipped = mark_stale(checker.store, findings, tree.journal())
    assert len(records) == 1 and skipped == []
    data = json.loads((tree.root / ".lore/memory/entries/m.json").read_text())
    assert data["stale_reason"].startswith("file `x.py` was deleted in ")
    tree.journal().undo(records[0].id)
    assert (tree.root / ".lore/memory/entries/m.json").read_bytes() == before


@pytest.mark.parametrize("clean", [True, False])
def test_git_is_optional(tree: Tree, clean: bool) -> None:
    tree.write("a.ts", "export function main() {}\n")
    tree.write("CLAUDE.md", "- Entry: `main` in `a.ts`.\n" + ("" if clean else "- Helpers: `lib/gone.ts`.\n"))
    assert subprocess.run(["git", "-C", str(tree.root), "status"], capture_output=True).returncode != 0
    findings, _ = check(tree)
    assert [f.kind for f in findings] == ([] if clean else ["missing-path"])


def test_stated_values_the_config_no_longer_holds(tree: Tree) -> None:
    tree.write("pyproject.toml", '[tool.ruff]\nline-length = 100\ntarget-version = "py311"\n')
    tree.write("CLAUDE.md", "- Line length is 100 (`pyproject.toml`); we target 3.11.\n")
    tree.entry("n.json", {"id": "n", "content": "Node 20 is pinned in .nvmrc", "refs": [".nvmrc"],
                          "created": "2026-02-01T00:00:00Z"})
    tree.write(".nvmrc", "20\n")
    commit(tree, "initial", date="2026-01-15T00:00:00Z")
    assert check(tree)[0] == []
    tree.write("pyproject.toml", '[tool.ruff]\nline-length = 120\ntarget-version = "py311"\n')
    tree.write(".nvmrc", "22\n")
    commit(tree, "bump", date="2026-03-01T00:00:00Z")
    findings, _ = check(tree)
    got = {(f.source, f.kind, f.message) for f in findings}
    assert got == {
        ("CLAUDE.md", "stale-value", "`pyproject.toml` no longer contains 100, as it did when this memory was written "
                                     f"in {git(tree.root, 'rev-parse', '--short=7', 'HEAD~1').strip()} on 2026-01-15"),
        # A runtime version is compared with what declares it (one finding, not a second stale-value).
        (".lore/memory/entries/n.json", "stale-version",
         f"node 20: `.nvmrc` now says 22 (changed in {git(tree.root, 'rev-parse', '--short=7', 'HEAD').strip()} on "
         "2026-03-01: bump; it said 20 when this memory was written on 2026-02-01)"),
    }


def test_rename_changes_update_every_memory_naming_the_old_place(tree: Tree) -> None:
    from lorekeeper.analysis.staleness import rename_changes

    tree.write("src/lib/logger.ts", "export const logger = 1;\n")
    tree.write("src/lib/format.ts", "export const f = 1;\n")
    tree.write("CLAUDE.md", "- Logs: `src/lib/logger.ts`; formatting in `src/lib/format.ts`.\n- Unrelated: `src/app.ts`.\n")
    tree.write("src/app.ts", "export {}\n")
    tree.entry("e.json", {"id": "e", "content": "See src/lib/logger.ts", "refs": ["src/lib/logger.ts:logger", {"path": "src/lib"}]})
    _, checker = check(tree)
    changes = {entry.id: change for entry, change in rename_changes(checker, "src/lib", "src/utils")}
    assert set(changes) == {"CLAUDE.md:1", "e"}
    assert changes["CLAUDE.md:1"].after.decode() == (
        "- Logs: `src/utils/logger.ts`; formatting in `src/utils/format.ts`.\n- Unrelated: `src/app.ts`.\n")
    data = json.loads(changes["e"].after)
    assert data["content"] == "See src/utils/logger.ts"
    assert data["refs"] == ["src/utils/logger.ts:logger", {"path": "src/utils"}]


def test_moved_without_a_rename_record_is_found_by_content(tree: Tree) -> None:
    body = "export function retry(times: number) {\n  return times;\n}\n"
    tree.write("src/util/retry.ts", body)
    tree.write("src/other/retry.ts", "export const unrelated = 1;\n")
    tree.write("CLAUDE.md", "- Retries live in `src/util/retry.ts`.\n")
    commit(tree, "initial")
    (tree.root / "src/util/retry.ts").unlink()
    commit(tree, "drop util")
    tree.write("src/net/retry.ts", body)
    commit(tree, "add net")
    [finding] = check(tree)[0]
    assert finding.kind == "moved-path" and finding.fix.new == "src/net/retry.ts"
    assert "the same content is now at `src/net/retry.ts`" in finding.message


def test_ascii_trees_are_rooted_at_their_label(tree: Tree) -> None:
    tree.write("src/api/handlers.ts", "export {}\n")
    tree.write("src/api/routes/orders.ts", "export {}\n")
    tree.write("src/jobs/nightly.ts", "export {}\n")
    tree.write("CLAUDE.md", "\n".join([
        "# Layout", "", "```", "src/", "├── api/", "│   ├── handlers.ts   # request handlers", "│   └── routes/",
        "│       └── orders.ts", "└── jobs/", "    └── nightly.ts", "```", "",
        "```", "ws/", "├── src/", "│   └── jobs/", "└── README.md", "```", ""]))
    tree.write("README.md", "hi\n")
    commit(tree, "initial")
    assert check(tree)[0] == []  # both trees resolve: one under src/, one rooted at the project ("ws/")
    shutil.rmtree(tree.root / "src/jobs")
    commit(tree, "drop jobs")
    findings = check(tree)[0]
    assert {(f.kind, f.ref) for f in findings} == {("stale-path", "src/jobs/"), ("stale-path", "src/jobs/nightly.ts"),
                                                  ("stale-path", "ws/src/jobs/")}


def test_a_rename_in_the_working_tree_is_a_move_not_a_commit_that_removed_it(tree: Tree) -> None:
    tree.write("src/old.ts", "export function a() {}\n")
    tree.write("CLAUDE.md", "- Read `src/old.ts` first.\n")
    commit(tree, "initial import")
    (tree.root / "src/old.ts").rename(tree.root / "src/new.ts")  # renamed, not committed
    [finding] = check(tree)[0]
    assert finding.kind == "moved-path" and finding.fix.model_dump() == {"action": "replace-ref", "old": "src/old.ts", "new": "src/new.ts"}
    assert "in the working tree (not committed yet)" in finding.message and "initial import" not in finding.message
    (tree.root / "src/new.ts").unlink()  # deleted for good
    [finding] = check(tree)[0]
    assert finding.kind == "stale-path" and "deleted in the working tree" in finding.message


_TOKENS = re.compile(rb"[A-Za-z_$][A-Za-z0-9_$]*")
_WORDS = ["a", "b", "ab", "a1", "$a", "b_", "_", "1", "$", "ba", "aa", "a-b", "é"]


@given(st.binary(max_size=24).map(lambda raw: bytes(b"ab1$_ .-\n\xe9"[x % 10] for x in raw)),
       st.lists(st.sampled_from(_WORDS), min_size=1, unique=True))
@settings(max_examples=400, deadline=None)
def test_the_words_a_code_file_writes_are_its_whole_identifiers(text: bytes, words: list[str]) -> None:
    """The scan for the names memories give (``files_mentioning``): a word is found where the text writes
    it as a whole identifier, as a tokenizer reads them (``12foo`` writes ``foo``; ``srcDir`` no ``src``)."""
    wanted = {w.encode(): w for w in words}
    expected = {wanted[t] for t in set(_TOKENS.findall(text)) if t in wanted}
    assert whole_words(wanted)(text) == expected


def test_the_words_are_found_the_same_without_re2(monkeypatch: pytest.MonkeyPatch) -> None:
    wanted = {w.encode(): w for w in ["foo", "src", "srcDir", "tsp"]}
    text = b"import { srcDir } from './main.tsp'; 12foo(src_)"
    with_re2 = whole_words(wanted)(text)
    monkeypatch.setattr(index_module, "re2", None)
    assert whole_words(wanted)(text) == with_re2 == {"srcDir", "tsp", "foo"}


def test_past_re2_max_words_the_identifiers_are_listed_and_find_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    """Many words (a memory store naming hundreds of symbols): listing identifiers beats building RE2's
    automaton, and finds what RE2 finds."""
    wanted = {w.encode(): w for w in ["foo", "src", "srcDir", "tsp", *(f"name{i}" for i in range(400))]}
    text = b"import { srcDir } from './main.tsp'; 12foo(src_) name7 xname8 name9_"
    compiled: list[object] = []
    real_set = index_module.re2.Set.SearchSet
    monkeypatch.setattr(index_module.re2.Set, "SearchSet", lambda options: compiled.append(1) or real_set(options))
    assert len(wanted) > index_module.RE2_MAX_WORDS
    assert whole_words(wanted)(text) == {"srcDir", "tsp", "foo", "name7"}
    assert compiled == []  # no automaton built
    monkeypatch.setattr(index_module, "RE2_MAX_WORDS", len(wanted))
    assert whole_words(wanted)(text) == {"srcDir", "tsp", "foo", "name7"}
    assert compiled == [1]


def test_where_re2_cannot_read_the_words_every_identifier_is_listed(monkeypatch: pytest.MonkeyPatch) -> None:
    """RE2 refuses a set of words too large for its memory (compile), or gives up on a text (its automaton
    out of memory: the pattern that matches every text goes unreported); the words are found all the same."""
    wanted = {w.encode(): w for w in ["foo", "src", "srcDir", "tsp"]}
    text = b"import { srcDir } from './main.tsp'; 12foo(src_)"
    monkeypatch.setattr(index_module, "RE2_MEMORY", 1 << 12)
    assert whole_words(wanted)(text) == {"srcDir", "tsp", "foo"}
    monkeypatch.undo()

    class GivesUp:  # RE2's set as it answers when its automaton ran out of memory on a text
        def __init__(self, real: Any) -> None:
            self.real = real

        def Add(self, pattern: bytes) -> int:  # noqa: N802 - RE2's names
            return self.real.Add(pattern)

        def Compile(self) -> None:  # noqa: N802
            self.real.Compile()

        def Match(self, data: bytes) -> None:  # noqa: N802
            return None

    real_set = index_module.re2.Set.SearchSet
    monkeypatch.setattr(index_module.re2.Set, "SearchSet", lambda options: GivesUp(real_set(options)))
    assert whole_words(wanted)(text) == {"srcDir", "tsp", "foo"}
