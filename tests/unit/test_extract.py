"""Reference extraction (refs/extract.py) on its own: what a memory's text names (paths, symbols,
scripts, make/just targets, console scripts, modules, package managers, runtime versions) and the many
things that look like references but are not (URLs, globs, placeholders, versions, negated or
historical mentions, output in fenced blocks...). No workspace, no git: text in, references out."""

from __future__ import annotations

import pytest

from lorekeeper.core.model import Ref
from lorekeeper.refs.extract import Reference, extract, from_explicit


def found(text: str) -> list[tuple[str, str]]:
    return [(r.kind, r.target) for r in extract(text)]


def only(text: str) -> Reference:
    refs = extract(text)
    assert len(refs) == 1, refs
    return refs[0]


# -- paths --------------------------------------------------------------------------------------------

def test_path_strength_depends_on_how_the_path_is_written() -> None:
    refs = {r.target: r.strong for r in extract(
        "Use `src/lib/logger.ts`, the `docs/` folder, `README.md`, `src/app` and plain lib/util.py here.")}
    assert refs == {
        "src/lib/logger.ts": True,  # a folder and a code extension
        "docs/": True,  # a folder written as one
        "README.md": False,  # a bare file name could be anywhere, or external
        "src/app": False,  # no extension, no trailing slash: could be a route or a package
        "lib/util.py": True,  # unquoted in prose, still a folder plus an extension
    }
    assert all(r.kind == "path" for r in extract("`src/lib/logger.ts`"))


def test_leading_dot_slash_is_dropped_and_line_numbers_are_zero_based() -> None:
    refs = extract("first line\nsee `./src/a.py`\n\nthen `web/b.ts`")
    assert [(r.target, r.line) for r in refs] == [("src/a.py", 1), ("web/b.ts", 3)]
    assert refs[0].text == "./src/a.py"  # the text keeps what was written


@pytest.mark.parametrize("text", [
    "Docs at https://github.com/acme/app/blob/main/src/server.py",
    "Mirror: www.example.org/a/b.ts",
    "Clone git://host/acme/tools/build.sh",
    "Write to ops@acme.io about it",
])
def test_urls_and_email_addresses_are_not_references(text: str) -> None:
    assert extract(text) == []


@pytest.mark.parametrize("span", [
    "*.ts",  # a bare glob of one extension (any project has such files)
    "**/*.py",
    "src/pages/<name>.tsx",  # placeholders
    "src/{id}.ts",
    "path/to/file.ts",
    "your-app/main.py",
    "scripts/my_script.py",  # names made up to be replaced (prefect, agents, browser-use)
    "agent/myagent.py",
    "tests/ci/test_action_EventNameHere.py",
    "src/foo/bar.py",
    "/etc/hosts",  # absolute
    "~/.config/acme.toml",  # home
    "../other/x.py",  # outside the workspace
    "@acme/ui/button",  # an npm scope
    "$HOME/bin/tool.sh",
    "src/a.py:main",  # PATH:SYMBOL is CLI shorthand, not something text names
    "FOO_BAR=1",
])
def test_things_shaped_like_paths_that_are_not_paths_of_this_repository(span: str) -> None:
    assert extract(f"Note `{span}` here.") == []


@pytest.mark.parametrize(("text", "refs"), [
    ("Prompts live in `browser_use/agent/system_prompt*.md`.", [("glob", "browser_use/agent/system_prompt*.md")]),
    ("Tests: `./src/**/*.test.ts`", [("glob", "src/**/*.test.ts")]),
    ("Run `cargo run -p oxc_linter -- --fix`, then `cargo +nightly test --package=oxc_parser`.",
     [("crate", "oxc_linter"), ("crate", "oxc_parser")]),
    ("Then `git add CHANGELOG.md package-lock.json` and `git add .`", [("path", "CHANGELOG.md"), ("path", "package-lock.json")]),
    ("`hatch run +py=3.12 test:test`", [("console", "test:test")]),
    ("Read @docs/architecture.md; ping @reviewer; see [x](mdc:src/a.ts) and #[[file:api/openapi.yaml]].",
     [("path", "docs/architecture.md"), ("path", "src/a.ts"), ("path", "api/openapi.yaml")]),
])
def test_forms_agents_and_commands_write(text: str, refs: list[tuple[str, str]]) -> None:
    assert [(r.kind, r.target) for r in extract(text)] == refs


@pytest.mark.parametrize("text", ["Released 1.2.3 on 2024/01/02", "Ratio is 3/4 and v2/3", "Use `1.2/3.4`"])
def test_versions_dates_and_fractions_are_not_paths(text: str) -> None:
    assert [r for r in extract(text) if r.kind == "path"] == []


def test_examples_are_weak_references_and_the_rest_of_the_line_is_kept() -> None:
    """What an example names may be made up: weak (reported only where history shows it existed when the
    memory was written and is gone now), whole to the end of its clause (a dot inside a path does not end it)."""
    text = "Helpers live in `src/lib/` (e.g. `src/utils/dates.ts`, `src/helpers/money.ts`) such as src/x/y.ts."
    assert [(r.kind, r.target, r.strong) for r in extract(text)] == [
        ("path", "src/lib/", True), ("path", "src/utils/dates.ts", False), ("path", "src/helpers/money.ts", False),
        ("path", "src/x/y.ts", False)]
    assert [(r.target, r.strong) for r in extract("For example `src/a/b.ts` works; see `src/c/d.ts`.")] == [
        ("src/c/d.ts", True), ("src/a/b.ts", False)]
    # cline's .clinerules/general.md: the folder, and the files the example names under it
    assert [(r.target, r.strong) for r in extract(
        "**Proto files live in `proto/`** (e.g., `proto/cline/task.proto`, `proto/cline/ui.proto`)")] == [
        ("proto/", True), ("proto/cline/task.proto", False), ("proto/cline/ui.proto", False)]


@pytest.mark.parametrize("text", [
    "Never import from `src/internal/legacy.ts`.",
    "We no longer use `src/old/api.ts`.",
    "The old `lib/types/` was removed.",
    "If `.gitleaks.toml` exists, run gitleaks.",
    "`src/legacy/x.py` has been removed.",
    "`src/api/handlers.ts` was deleted last week.",
    "Avoid `lib/bad.js`.",
    "Formerly in src/old/place.py.",
])
def test_negated_and_historical_mentions_are_not_references(text: str) -> None:
    assert extract(text) == []


def test_negation_applies_to_the_mention_it_precedes_only() -> None:
    assert found("Use `src/new/api.ts` instead of `src/old/api.ts`.") == [("path", "src/new/api.ts")]
    assert found("Avoid `lib/bad.js`. Prefer `lib/good.js`.") == [("path", "lib/good.js")]



def test_a_negation_reaches_over_the_break_of_a_wrapped_sentence() -> None:
    """formbricks' AGENTS.md wraps its sentences: "… Do not add a" ends one line, "`tailwind.config.js` that
    nothing `@config`s" starts the next. The negation reaches over the break, not into a new item."""
    wrapped = ("reached through an explicit bridge from the package's own stylesheet. Do not add a\n"
               "`tailwind.config.js` that nothing configures, and keep `src/app.ts` as it is.")
    assert found(wrapped) == [("path", "src/app.ts")]
    assert found("Do not add a\n- `src/lib/a.ts` (a new item)") == [("path", "src/lib/a.ts")]
    assert found("## Do not edit\n`src/lib/a.ts` holds the client") == [("path", "src/lib/a.ts")]
    assert found("Read this first\n`src/lib/a.ts` holds the client") == [("path", "src/lib/a.ts")]
    # and the other way: the line that goes on says the path is gone
    assert found("The client lived in `src/old/api.ts`\nwhich was removed in the rewrite.") == []
    assert found("The client lives in `src/lib/api.ts`\n- was removed: see below") == [("path", "src/lib/api.ts")]


def test_instead_of_passing_a_name_is_no_reference_to_it() -> None:
    """browser-use's CLAUDE.md: "Use `loop = asyncio.get_event_loop()` inside tests that need it instead of
    passing `event_loop` as a function argument" (the fixture it advises against was removed, as advised)."""
    text = ("Use `loop = asyncio.get_event_loop()` inside tests that need it instead of passing `event_loop` as a "
            "function argument.")
    assert "event_loop" not in {r.target for r in extract(text)}
    assert found("Pass `src/conf/app.toml` to the loader.") == [("path", "src/conf/app.toml")]

def test_dotfiles_are_paths_but_bare_extensions_and_framework_names_are_not() -> None:
    assert found("Edit `.gitignore`, `.nvmrc`, `.env`, `.js` and `server.js`.") == [
        ("path", ".gitignore"), ("path", ".nvmrc"), ("path", "server.js")]
    assert [r for r in extract("Uses `Node.js` and `Next.js`.") if r.kind == "path"] == []
    assert not only("`.nvmrc`").strong


# -- symbols ------------------------------------------------------------------------------------------

def test_symbols_and_their_strength() -> None:
    refs = {r.target: r.strong for r in extract(
        "`withRetry()`, `parse_date`, `Foo.bar`, `fooBar`, `MAX_RETRIES` and `Router`.")}
    assert refs == {"withRetry": True, "parse_date": True, "Foo.bar": True, "fooBar": True, "MAX_RETRIES": True,
                    "Router": False}  # one capitalised word could be prose
    assert {r.kind for r in extract("`withRetry()` and `Router`")} == {"symbol"}


@pytest.mark.parametrize("span", ["true", "None", "await", "string", "id", "ok", "123", "a b c"])
def test_keywords_short_names_numbers_and_phrases_are_not_symbols(span: str) -> None:
    assert extract(f"Set `{span}` here") == []


def test_calls_and_other_separators_name_the_function() -> None:
    assert found("`withRetry(fn, 3)`, `Foo::bar`, `Foo#baz` and `a.b.c()`") == [
        ("symbol", "withRetry"), ("symbol", "Foo.bar"), ("symbol", "Foo.baz"), ("symbol", "a.b.c")]
    assert only("`withRetry(fn, 3)`").text == "withRetry()"


def test_a_symbol_placed_in_a_file_remembers_the_file() -> None:
    refs = extract("Dates go through `formatDate` in `src/utils/date.ts`.")
    assert [(r.kind, r.target, r.near) for r in refs] == [
        ("symbol", "formatDate", "src/utils/date.ts"), ("path", "src/utils/date.ts", None)]
    assert extract("`Config` lives in `app/config.py`")[0].near == "app/config.py"
    assert extract("`Config` and `app/config.py`")[0].near is None  # mentioned together, not placed


# -- commands -----------------------------------------------------------------------------------------

def test_package_scripts_in_code_and_in_prose() -> None:
    refs = extract("Run `npm run build`, then npm test, `pnpm test:e2e`, yarn lint-fix and `bun dev`.")
    assert [(r.kind, r.target, r.runner, r.strong) for r in refs] == [
        ("script", "build", "npm", True), ("script", "test:e2e", "pnpm", True), ("script", "dev", "bun", True),
        ("script", "test", "npm", True), ("script", "lint-fix", "yarn", True)]
    # A bare word after pnpm/yarn in prose may be an executable, not a script: weak.
    assert not only("then pnpm vitest").strong


@pytest.mark.parametrize("text", [
    "`npm install`", "`npm ci`", "`pnpm install`", "`pnpm add -D zod`", "`yarn add lodash`", "`bun install`",
    "pnpm install then yarn add x", "`npm run`", "`npx prisma generate`", "`npm run --if-present lint`",
])
def test_package_manager_builtins_are_not_scripts(text: str) -> None:
    assert [r for r in extract(text) if r.kind == "script"] == []


def test_npm_aliases_name_their_script() -> None:
    assert found("`npm t`, `npm start`, `npm run-script lint` and `npm run deploy:prod -- --force`") == [
        ("script", "test"), ("script", "start"), ("script", "lint"), ("script", "deploy:prod")]


def test_if_present_after_the_script_name_also_makes_it_optional() -> None:
    assert extract("`npm run build --if-present`") == []
    # after `--` it is the script's own argument: the script is still required
    assert [r.target for r in extract("`npm run build -- --if-present`")] == ["build"]


def test_workspace_packages_and_folders_of_package_scripts() -> None:
    refs = extract("`pnpm --filter @acme/web build`, `yarn workspace @acme/api dev`, `pnpm -r lint`, "
                   "`npm --prefix web run check` and `pnpm -C tools gen`")
    assert [(r.target, r.runner, r.package, r.scope) for r in refs] == [
        ("build", "pnpm", "@acme/web", None), ("dev", "yarn", "@acme/api", None), ("lint", "pnpm", "*", None),
        ("check", "npm", None, "web"), ("gen", "pnpm", None, "tools")]


def test_make_and_just_targets() -> None:
    refs = extract("`make build test CC=gcc`, `make -C infra/tf plan`, `just test::unit` and `just -d tools fmt`")
    assert [(r.kind, r.target, r.scope) for r in refs] == [
        ("make", "build", None), ("make", "test", None), ("path", "infra/tf/", None), ("make", "plan", "infra/tf"),
        ("just", "test", None), ("just", "fmt", "tools")]
    assert found("Run make test and make sure it passes") == []  # not in code: prose


def test_console_scripts_modules_and_python_files() -> None:
    refs = extract("`uv run acme`, `uv run --package core admin`, `uv run python -m app.main`, `uv run scripts/x.py`, "
                   "`python3 -m pkg.tool --flag`, `python scripts/seed.py --db dev`, `python -c \"import x\"`")
    assert [(r.kind, r.target, r.runner, r.package) for r in refs] == [
        ("console", "acme", "uv", None), ("console", "admin", "uv", "core"), ("module", "app.main", None, None),
        ("path", "scripts/x.py", None, None), ("module", "pkg.tool", None, None), ("path", "scripts/seed.py", None, None)]
    prose = only("Then uv run pytest to check.")
    assert (prose.kind, prose.target, prose.strong) == ("console", "pytest", False)


def test_paths_inside_commands() -> None:
    refs = extract("`go test ./internal/store/...`, `pytest tests/unit/test_a.py::test_b -q`, "
                   "`./scripts/setup.sh --fast` and `node tools/build.mjs`")
    assert [(r.target, r.strong) for r in refs] == [
        ("internal/store/", True), ("tests/unit/test_a.py", True), ("scripts/setup.sh", True), ("tools/build.mjs", True)]


@pytest.mark.parametrize("span", ["git commit -m 'fix src/a.py'", "echo src/b.py", "curl https://x.io/a/b.json",
                                  "pip install -r requirements/dev.txt", "npx tsc -p web/tsconfig.json"])
def test_commands_whose_arguments_are_not_paths_here(span: str) -> None:
    assert [r for r in extract(f"Run `{span}`") if r.kind == "path"] == []


def test_the_dockerfile_a_docker_command_names_is_a_path() -> None:
    assert ("path", "deploy/Dockerfile") in found("Build with `docker build -f deploy/Dockerfile .`")
    assert ("path", "ops/Dockerfile.prod") in found("`docker buildx build -t app:1 --file ops/Dockerfile.prod .`")
    assert ("path", "compose.dev.yml") in found("`docker compose -f compose.dev.yml up -d`")
    # an image, a tag or a build context is not a path of this repository
    assert found("`docker build -t web:latest .` and `docker run -p 8080:80 nginx`") == []


def test_cd_scopes_the_commands_after_it() -> None:
    refs = extract("`cd web && npm run dev`")
    assert [(r.kind, r.target, r.scope) for r in refs] == [("path", "web/", None), ("script", "dev", "web")]
    assert found("`cd ~/code && make build`") == [("make", "build")]  # a home folder is not ours
    assert [r.scope for r in extract("`cd ~/code && make build`")] == [None]


def test_a_folder_named_in_the_sentence_scopes_its_commands() -> None:
    refs = extract("From `clients/web/` run `npm test` and `pnpm lint`.")
    assert [(r.target, r.scope) for r in refs] == [("clients/web/", None), ("test", "clients/web"), ("lint", "clients/web")]
    # Two folders: which one a command runs in is unclear, so none is assumed.
    two = extract("In `web/` run `npm test`; in `api/` run `npm run lint`.")
    assert [r.scope for r in two if r.kind == "script"] == [None, None]


# -- fenced blocks ------------------------------------------------------------------------------------

def test_a_shell_block_keeps_its_folder_until_the_block_ends() -> None:
    text = "```bash\ncd api\nnpm test\n# npm run commented\nCI=1 npm run e2e\n```\n```sh\nnpm test\n```"
    refs = extract(text)
    assert [(r.kind, r.target, r.scope, r.line) for r in refs] == [
        ("path", "api/", None, 1), ("script", "test", "api", 2), ("script", "e2e", "api", 4),
        ("script", "test", None, 7)]


@pytest.mark.parametrize("lang", ["text", "json", "yaml", "output", "python", "ts", "go"])
def test_output_and_source_code_blocks_give_nothing(lang: str) -> None:
    assert extract(f"```{lang}\nnpm run build\nsrc/missing/output.ts:12 error\nimport x from './src/y.ts'\n```") == []


def test_terminal_sessions_read_only_the_prompted_lines() -> None:
    refs = extract("```console\n$ npm run build\nsrc/out/x.ts:12 error\n> make deploy\n```")
    assert [(r.kind, r.target, r.line) for r in refs] == [("script", "build", 1), ("make", "deploy", 3)]
    assert found("```\n$ npm run a\nnpm run b\n```") == [("script", "a"), ("script", "b")]


# -- trees --------------------------------------------------------------------------------------------

def test_ascii_trees_hang_from_their_label_and_keep_the_unlabelled_spelling() -> None:
    text = "\n".join(["```", "src/", "├── api/", "│   ├── handlers.ts   # request handlers", "│",
                      "│   └── routes/", "│       └── orders.ts", "└── jobs/", "```"])
    refs = extract(text)
    assert [(r.target, r.alt, r.line) for r in refs] == [
        ("src/", None, 1),  # the tree's root (`.spec/` drawn with its files): a folder too
        ("src/api/", "api/", 2), ("src/api/handlers.ts", "api/handlers.ts", 3), ("src/api/routes/", "api/routes/", 5),
        ("src/api/routes/orders.ts", "api/routes/orders.ts", 6), ("src/jobs/", "jobs/", 7)]
    assert not any(r.strong for r in refs)  # drawn, not named: weak


def test_trees_drawn_with_ascii_and_rooted_at_dot() -> None:
    assert found("app/\n|-- models/\n|   `-- user.py\n`-- views.py") == [
        ("path", "app/"), ("path", "app/models/"), ("path", "app/models/user.py"), ("path", "app/views.py")]
    refs = extract(".\n├── Makefile\n└── src/\n    └── main.go")
    assert [(r.target, r.alt) for r in refs] == [("src/", None), ("src/main.go", None)]


# -- package managers and runtime versions ------------------------------------------------------------

@pytest.mark.parametrize("text, managers", [
    ("We use yarn.", ["yarn"]),
    ("Always use pnpm for installs.", ["pnpm"]),
    ("npm only, please.", ["npm"]),
    ("Use pnpm, not npm.", ["pnpm"]),
    ("Never use yarn.", []),
    ("Don't use npm", []),
    ("We prefer bun run dev", []),  # a command, not a choice of package manager
])
def test_package_manager_statements(text: str, managers: list[str]) -> None:
    assert [r.target for r in extract(text) if r.kind == "package-manager"] == managers


def test_runtime_versions() -> None:
    refs = extract("Python 3.11 is required; Node 20 and Go 1.22 and Rust 1.75; python 3 and Go 1 say nothing.")
    assert [(r.kind, r.target, r.strong) for r in refs] == [
        ("version", "python@3.11", False), ("version", "node@20", False), ("version", "go@1.22", False),
        ("version", "rust@1.75", False)]
    assert found("We no longer use Node 18; use Node 20.11 now.") == [("version", "node@20.11")]
    # as a label (inngest's copilot-instructions: "**Go Version**: 1.24+ (see go.mod)")
    assert found("- **Go Version**: 1.24+ (see go.mod)") == [("version", "go@1.24")]
    assert found("Node.js: v20.11; Python version 3.12") == [("version", "node@20.11"), ("version", "python@3.12")]
    assert found("Node versions: 18 and 20 are tested") == []


def test_versions_written_as_ranges() -> None:
    """theia's "TypeScript ~5.4.5" and "Node.js ≥18.17.0, <21": the least version of a range is the one
    stated; a greatest ("<3.13") states none."""
    assert found("- TypeScript ~5.4.5 with strict settings") == [("version", "npm:typescript@5.4.5")]
    assert found("- Node.js ≥18.17.0, <21") == [("version", "node@18.17.0")]
    assert found("Python >= 3.10, React ^19 and Node v20") == [
        ("version", "python@3.10"), ("version", "node@20"), ("version", "npm:react@19")]
    assert found("Python <3.13 only") == []


def test_package_manager_versions() -> None:
    """trigger.dev's "This is a pnpm 10.23.0 monorepo" and "(pnpm `10.23.0` and Node.js `20.11.1` are
    required)": the version of the package manager (and of Node in a code span of its own), never a script
    named "10.23.0" or "and"; Corepack's form `pnpm@10.23.0` is no e-mail address."""
    assert found("This is a pnpm 10.23.0 monorepo using Turborepo.") == [("version", "pnpm@10.23.0")]
    assert found("1. Install dependencies with `pnpm i` (pnpm `10.23.0` and Node.js `20.11.1` are required).") == [
        ("version", "node@20.11.1"), ("version", "pnpm@10.23.0")]
    assert found("The repository pins pnpm@9.15.4 and Yarn 4.5; Bun v1.2.3") == [
        ("version", "pnpm@9.15.4"), ("version", "yarn@4.5"), ("version", "bun@1.2.3")]
    assert found("Publish 3 npm 7 packages; we no longer use yarn 1.22") == []  # a count; a version left
    assert found("Run pnpm build, then pnpm `lint` and yarn test:e2e") == [  # (no script "and")
        ("symbol", "lint"), ("script", "build"), ("script", "test:e2e")]


# -- the whole extraction ----------------------------------------------------------------------------

def test_what_a_command_creates_is_not_a_reference() -> None:
    """typespec's "mkdir test-tsp && cd test-tsp", biome's clone then "cd biome", trigger.dev's "cat >
    .server-changes/descriptive-name.md": paths the block makes, not paths of the repository (they were
    "does not exist" information). A block's other paths, and the next block, are read as before."""
    assert found("```sh\nmkdir test-tsp && cd test-tsp\npytest tests/test_a.py\n```") == []
    assert found("```bash\ngit clone https://github.com/biomejs/biome\ncd biome\npytest crates/a.py\n```") == []
    assert found("```sh\ngit clone https://github.com/a/b.git work\ncd work\n```") == []
    assert found("```sh\ncat > .server-changes/descriptive-name.md << 'EOF'\n```") == []
    assert found("```sh\nmkdir -p out\npytest tests/test_a.py\n```\n```sh\ncd out\n```") == [
        ("path", "tests/test_a.py"), ("path", "out/")]
    assert found("```sh\nmkdir build && pytest tests/test_a.py build/x.py\n```") == [("path", "tests/test_a.py")]


def test_branch_prefixes_named_stacks_and_escaped_globs_are_not_paths() -> None:
    """sbtracker's "**Branch Prefix**: Always use `claude/` for agent work.", langfuse's "`cursor/`
    branch", evcc's "TypeScript/Vue.js application", trigger.dev's "app/v3/services/\\*_/_.server.ts"
    (`**/*.server.ts` escaped for Markdown), documenso's "…its own file, example routers/teams/create-team.ts"."""
    assert found("- **Branch Prefix**: Always use `claude/` for agent work.") == []
    assert found("Never push to a `cursor/` branch, even if asked.") == []
    assert found("Put the fixtures in `fixtures/` on any branch.") == [("path", "fixtures/")]
    assert found("- **assets/js/** contains the main TypeScript/Vue.js application") == [("path", "assets/js/")]
    assert found("- React/Next.js performance and rendering best practices") == []
    assert found("- All the services are in app/v3/services/\\*_/_.server.ts") == [("path", "app/v3/services/")]
    example = extract("- Every route should be in its own file, example routers/teams/create-team.ts")
    assert [(r.target, r.strong) for r in example] == [("routers/teams/create-team.ts", False)]


def test_names_that_stand_for_any_name_and_package_manager_commands_are_not_scripts() -> None:
    """payload's `pnpm run build:<directory_name>`, vscode-copilot-chat's `npm run watch:*`, gitbutler's
    `cargo test -p CRATE_NAME`, trigger.dev's `pnpm view <package-name> version` (pnpm's own command):
    no script, crate or package is named (they were "not defined" information). Named ones still are."""
    assert found("- `pnpm run build:<directory_name>` - Build specific package") == []
    assert found("- `npm run watch:*`: Various watch modes for development") == []
    assert found("for specific crates `cargo test -p CRATE_NAME`") == []
    assert found("```sh\npnpm view <package-name> version\npnpm info react\n```") == []
    assert found("`npm run build:ui`, `pnpm test:e2e`, `cargo test -p oxc_linter`") == [
        ("script", "build:ui"), ("script", "test:e2e"), ("crate", "oxc_linter")]


def test_references_are_deduplicated_by_kind_target_and_scope() -> None:
    refs = extract("`src/a/b.py`, `src/a/b.py` and ./src/a/b.py\n`npm run lint` then `cd web && npm run lint`")
    assert [(r.kind, r.target, r.scope) for r in refs] == [
        ("path", "src/a/b.py", None), ("script", "lint", None), ("path", "web/", None), ("script", "lint", "web")]


def test_a_reference_on_several_lines_is_one_a_line() -> None:
    """unkey's block of `bazel build //...`, `bazel test //pkg/cache:cache_test`… after Bazel was dropped:
    each line that runs it is marked, not the first alone; a name code in a block uses, once a block."""
    refs = extract("```bash\nmake build  # or: bazel build //...\nbazel test //pkg/cache:cache_test\n```\n"
                   "- See `src/a.py` and\n  again `src/a.py` (`src/a.py`).\n"
                   "```python\nc = make_client()\nd = make_client()\n```")
    assert [(r.kind, r.target, r.line) for r in refs] == [
        ("make", "build", 1), ("tool", "bazel", 1), ("tool", "bazel", 2), ("path", "src/a.py", 4),
        ("path", "src/a.py", 5), ("symbol", "make_client", 7)]


@pytest.mark.parametrize("text", ["`npm run \"build`", "unclosed `backtick src/a.py", "```bash\nmake 'x\n",
                                  "├── ", "`" * 7, "\x00\r\n\t", ""])
def test_malformed_text_never_raises(text: str) -> None:
    assert isinstance(extract(text), list)


def test_explicit_refs_are_strong_and_carry_their_file() -> None:
    refs = from_explicit(Ref(path=" src/app.py ", symbol="main "))
    assert [(r.kind, r.target, r.file, r.strong, r.explicit) for r in refs] == [
        ("path", "src/app.py", None, True, True), ("symbol", "main", "src/app.py", True, True)]
    assert [r.label() for r in refs] == ["src/app.py", "src/app.py:main"]
    [path] = from_explicit(Ref(path="docs"))  # a bare word is a path when given as a ref
    assert (path.target, path.explicit) == ("docs", True)


def test_a_list_of_folders_in_bold() -> None:
    """nuclei's "Key Directories": "- **integration_tests/** - Integration test suite" names the folder
    (one part, in bold, leading its item); bold elsewhere in a sentence names nothing."""
    assert found("- **integration_tests/** - Integration test suite") == [("path", "integration_tests/")]
    assert found("**lib/** - SDK for embedding nuclei as a library") == [("path", "lib/")]
    assert found("1. **examples/**: usage examples") == [("path", "examples/")]
    assert found("See **lib/** for the SDK") == []
    assert found("- **subdirectories/** - Domain-specific API code organized by resource") == []


def test_task_commands() -> None:
    """Task (taskfile.dev): each task named, not the variables or the task's own arguments; a Taskfile
    named with `-t` is not looked for."""
    assert found("`task lint test:unit PKG=./internal/... -- -v`") == [("task", "lint"), ("task", "test:unit")]
    assert [(r.kind, r.target, r.scope) for r in extract("`task -d web build`")] == [("task", "build", "web")]
    assert found("`task -t other.yml build`") == []
    assert found("`task --list`") == []


def test_a_table_whose_first_column_draws_a_tree() -> None:
    """fastmcp's "Repository Structure" table: the first column draws the tree (`├─tools/` under
    `src/fastmcp/`), the others say what is there ("Tool implementations + `ToolManager`"): the tree's
    paths hang from its first row, weak as any tree's, and the other cells are read as any line."""
    text = ("| Path | Purpose |\n|---|---|\n| `src/fastmcp/` | Library source code |\n"
            "| `├─server/` | Server implementation, `FastMCP` |\n| `│  └─auth/` | Authentication providers |\n"
            "| `├─tools/` | Tool implementations + `ToolManager` |\n| `tests/` | Test suite |\n")
    refs = [(r.kind, r.target, r.strong) for r in extract(text)]
    assert ("symbol", "FastMCP", True) in refs and ("symbol", "ToolManager", True) in refs
    assert [r for r in refs if r[0] == "path"] == [("path", "src/fastmcp/", True), ("path", "tests/", True),
                                                  ("path", "src/fastmcp/server/", False),
                                                  ("path", "src/fastmcp/server/auth/", False),
                                                  ("path", "src/fastmcp/tools/", False)]

def test_tox_environments() -> None:
    """tox (phoenix's `tox run -e ruff,remove_symlinks,type_check`): each environment `-e`/`--env` names,
    not what follows `--`; run through uv, uvx or `python -m`; not with another configuration (`-c`), nor a
    placeholder."""
    assert found("`tox run -e ruff,remove_symlinks,type_check`") == [("tox", "ruff"), ("tox", "remove_symlinks"),
                                                                     ("tox", "type_check")]
    assert found("`tox -e alembic -- upgrade head`") == [("tox", "alembic")]
    assert found("`uv run tox -e lint`") == [("tox", "lint")]
    assert found("`uvx tox r --env=fmt`") == [("tox", "fmt")]
    # (marimo's `uvx hatch run +py=3.12 test:test tests/path/to/test.py`: uvx fetches the runner, which runs
    # this project's environments; a tool uvx runs on its own names nothing of the project)
    assert found("`uvx hatch run +py=3.12 test:test`") == [("console", "test:test")]
    assert found("`uvx --from hatch==1.14 hatch run test:unit`") == [("console", "test:unit")]
    assert found("`uvx ruff check src`") == []
    assert found("`python -m tox -e docs`") == [("tox", "docs")]
    assert found("`tox -p -e lint,types`") == [("tox", "lint"), ("tox", "types")]
    assert found("`tox -p auto -e lint`") == [("tox", "lint")]
    assert [(r.kind, r.target, r.scope) for r in extract("`cd sdk && tox -e py312`")] == [("path", "sdk/", None), ("tox", "py312", "sdk")]
    for placeholder in ("`tox -e ENV`", "`tox -e <env>`", "`tox -e {env}`", "`tox -c other.ini -e x`", "`tox`", "`tox -p -m lint`"):
        assert found(placeholder) == [], placeholder


@pytest.mark.parametrize(("span", "glob"), [
    ("*_test.py", "**/*_test.py"),  # humanlayer: "Tests are co-located with source as `*_test.py` files"
    ("*.spec.ts", "**/*.spec.ts"),
    ("test_*.py", "**/test_*.py"),
])
def test_a_glob_of_file_names_is_read_at_any_depth(span: str, glob: str) -> None:
    assert [(r.kind, r.target, r.text) for r in extract(f"Tests are `{span}` files.")] == [("glob", glob, span)]


def test_names_code_in_a_block_uses() -> None:
    """memos: a React hook's members in a `tsx` block; humanlayer: a decorator and an environment variable;
    names the block declares, strings and comments are not the project's."""
    text = ("```tsx\nconst { layout, toggleSortOrder } = useView();\nfunction MyCard() { return 'someLabel'; }"
            "  // sortedMemos here\n<OpenAIProvider apiKey={process.env.OPENAI_API_KEY}>\n```\n"
            "```bash\nDRIVER=postgres DSN=\"postgres://u@h/db\" go test ./...\n```\n"
            "Wrap it in `@hl.require_approval()`.\n")
    assert [(r.kind, r.target, r.line, r.strong) for r in extract(text)] == [
        ("symbol", "toggleSortOrder", 1, False), ("symbol", "useView", 1, False),
        ("symbol", "OPENAI_API_KEY", 3, False), ("symbol", "apiKey", 3, False),
        ("symbol", "DRIVER", 6, False), ("symbol", "DSN", 6, False),
        ("symbol", "hl.require_approval", 8, True),
    ]


def test_a_tool_that_runs_where_a_file_of_its_own_is() -> None:
    """`bazel test //pkg/cache:cache_test`, `tilt up`: the tool is the reference (it needs MODULE.bazel, a
    Tiltfile); its bare name in prose, or asked for its version, is none."""
    assert [(r.kind, r.target) for r in extract("```bash\nbazel test //pkg/cache:cache_test\n```")] == [("tool", "bazel")]
    assert [(r.kind, r.target) for r in extract("Run `tilt up`; `cd deploy && skaffold dev`.")] == [
        ("tool", "tilt"), ("path", "deploy/"), ("tool", "skaffold")]
    assert extract("Build with Bazel, or `bazel --version` to check.") == []


def test_a_shell_comment_that_gives_another_command_for_the_same_job() -> None:
    """unkey's AGENTS.md: `make build   # or: bazel build //...`. Any other comment names nothing."""
    block = ("```bash\nmake build                    # or: bazel build //...\nmake test  # or uv run pytest tests/a_test.py\n"
             "make fmt   # runs: go fmt, buf format\nmake lint  # Typecheck or lint\n```")
    assert [(r.kind, r.target) for r in extract(block)] == [
        ("make", "build"), ("tool", "bazel"), ("make", "test"), ("console", "pytest"), ("path", "tests/a_test.py"),
        ("make", "fmt"), ("make", "lint")]


def test_an_npm_package_of_a_scope_is_a_reference_and_a_file_named_to_an_agent_is_not() -> None:
    """`@formbricks/eslint-config`: judged where a package.json of the workspace names that scope."""
    assert [(r.kind, r.target) for r in extract("Presets: `@formbricks/eslint-config`, `@scope/lodash.merge`")] == [
        ("npm-package", "@formbricks/eslint-config"), ("npm-package", "@scope/lodash.merge")]
    assert [r.kind for r in extract("Read `@docs/api.md` and `@formbricks/lib/utils`.")] == []
