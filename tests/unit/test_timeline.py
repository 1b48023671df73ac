"""Time in the renderings: an older memory of a subject is shown under the newest one, dated ("was, until
DATE" when a newer memory replaced it or disagrees with it, "older, DATE" when a newer one may speak of the
same subject); two that disagree with no order stay "Not settled"; memories of different projects, or
that someone said are both true, are never dated against each other. Texts are real bullets of public
repositories' agent files and their history (bench/real_memory, store updates-entries); the property test
holds for any store built from subjects whose value changes over time, at any budget."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lorekeeper.analysis.compaction import CompactionConfig, plan_compaction
from lorekeeper.analysis.context.timeline import replaced_part, timeline
from lorekeeper.app.context import render_context
from lorekeeper.core.model import DEFAULT_CATEGORY as CATEGORY
from lorekeeper.facts.subjects import related, related_pairs
from lorekeeper.workspace import Workspace
from support import Tree, commit

NOW = datetime(2026, 11, 1, 12, tzinfo=UTC)


def entry(tree: Tree, entry_id: str, text: str, created: str, project: str | None = "p", **fields) -> None:
    tree.entry(f"{entry_id}.json", {"id": entry_id, "content": text, "created": created,
                                    "tags": [f"project:{project}"] if project else [], **fields})


def views(tree: Tree) -> dict[str, str]:
    store = tree.store()
    plan = plan_compaction(store, CompactionConfig(), now=NOW)
    out = {path.rsplit("/", 1)[-1] if "compacted/" not in path else "compacted/" + path.rsplit("/", 1)[-1]: text
           for path, text in plan.views.items()}
    out["lore context"] = render_context(Workspace(tree.root), store, budget=2000, now=NOW, remember=False).text
    return out


# -- which memories speak of one subject ---------------------------------------------------------

def test_updates_written_in_other_words_are_related() -> None:
    # telegram-bot's CLAUDE.md (2025-06-24) and AGENTS.md (2026-08-09); terence-python's CLAUDE.md
    assert related("`make lint` or `uv run ruff check src` - Run code linting",
                   "`uv run ruff check src tests`: lint the codebase.") == "command"
    assert related("`uv run prek run -a` - Run pre-commit hooks on all files",
                   "Run `prek run -a` for the complete repository hook set.") == "command"
    assert related("**Bot Framework**: Built on `python-telegram-bot` with callback-based handlers for different "
                   "commands and message types.",
                   "**Bot Framework**: Built on `aiogram` v3 with Router/Dispatcher pattern for commands and messages."
                   ) == "label"
    assert related("MCP servers are configured in `config/*.json`.",
                   "MCP servers are assembled in `src/bot/agents/chat.py`; Playwright and yfmcp are always enabled, "
                   "while Firecrawl and SerpAPI depend on environment settings.") == "lead"
    assert related("Run solar-cli locally: `cd projects/solar-cli && uv run solar-cli --verbose`",
                   "Run home-mcp locally: `cd projects/home-mcp && uv run home-mcp`") == "renamed"
    assert related("just release 0.2.0   # bump version, commit, and tag",
                   "just start-release 0.2.0   # bump version, commit, tag, and push") == "words"


def test_none_yet_is_related_to_what_names_it_later(tree: Tree) -> None:
    # terence-python's CLAUDE.md: "no projects yet" (2026-02-15), then its projects (2026-02-22)
    assert related("Early-stage; no projects yet.",
                   "Projects live in `projects/`, each with its own `pyproject.toml` and `Dockerfile`") == "yet"
    assert related("**home-mcp** (`projects/home-mcp`) — MCP server that exposes solar production data from "
                   "InfluxDB as a tool", "Early-stage; no projects yet.") == "yet"
    assert related("Early-stage; no projects yet.", "Run tests with `uv run pytest`") is None
    assert related("No tests yet.", "No tests so far for the CLI.") is None  # both say there are none
    entry(tree, "none", "Early-stage; no projects yet.", "2026-02-15T10:15:20Z", category="architecture")
    entry(tree, "dir", "Projects live in `projects/`, each with its own `pyproject.toml` and `Dockerfile`",
          "2026-02-22T08:13:20Z", category="architecture")
    entry(tree, "x", "Use tabs for indentation", "2026-02-01T00:00:00Z", category="architecture")
    shown = views(tree)
    for name in ("compacted/architecture.md", "index.md", "lore context"):
        assert ("- Projects live in `projects/`, each with its own `pyproject.toml` and `Dockerfile`\n"
                "  - older, 2026-02-15: Early-stage; no projects yet.\n") in shown[name], name


def test_a_project_renamed_in_its_commands_is_renamed_in_its_description(tree: Tree) -> None:
    # terence-python's CLAUDE.md: solar-cli (2026-02-22) became home-mcp (2026-02-25); tech-mcp came next
    # (2026-03-02), beside it
    solar = "**solar-cli** (`projects/solar-cli`) — CLI agent that queries solar production data in InfluxDB using Claude's tool-use API"
    home = "**home-mcp** (`projects/home-mcp`) — MCP server that exposes solar production data from InfluxDB as a tool"
    tech = "**tech-mcp** (`projects/tech-mcp`) — MCP knowledge base server for cross-repo context, debugging sessions, and MCP interface docs"
    assert related(solar, home) is None  # alone, two labels of one form are two projects
    entry(tree, "s1", "Run solar-cli locally: `cd projects/solar-cli && uv run solar-cli --verbose`",
          "2026-02-22T08:13:20Z", category="architecture")
    entry(tree, "s2", solar, "2026-02-22T08:13:20Z", category="architecture")
    entry(tree, "h1", "Run home-mcp locally: `cd projects/home-mcp && uv run home-mcp`", "2026-02-25T10:30:27Z",
          category="architecture")
    entry(tree, "h2", home, "2026-02-25T10:30:27Z", category="architecture")
    entry(tree, "t2", tech, "2026-03-02T06:31:03Z", category="architecture")
    shown = views(tree)
    for name in ("compacted/architecture.md", "index.md", "lore context"):
        assert f"- {home}\n  - older, 2026-02-22: {solar}\n" in shown[name], name
        assert f"- {tech}\n- " in shown[name] or shown[name].rstrip().endswith(f"- {tech}"), name  # never renamed


def test_two_lines_of_one_file_naming_two_projects_are_not_a_rename(tree: Tree) -> None:
    # terence-python's CLAUDE.md at its HEAD: two projects side by side, each with its build line
    tree.write("CLAUDE.md", "# Projects\n\n"
               "- **home-mcp** (`projects/home-mcp`) — MCP server that exposes solar production data from InfluxDB\n"
               "- **tech-mcp** (`projects/tech-mcp`) — MCP knowledge base server for cross-repo context\n"
               "- Build home-mcp image: `docker build -t home-mcp:latest projects/home-mcp`\n"
               "- Build tech-mcp image: `docker build -t tech-mcp:latest projects/tech-mcp`\n")
    live = [e for e in tree.store().entries if e.live and e.format == "instruction"]
    whys = {(r.a.content[:12], r.b.content[:12], r.why) for r in related_pairs(live)}
    assert not any(why == "renamed" and "**" in a for a, _, why in whys), whys


def test_one_job_told_with_another_tool_is_related() -> None:
    # simulacra's CLAUDE.md (2025-04-16), then its AGENTS.md (2025-11-06)
    assert related("Format code with Black and Flake8 conventions.", "Lint and format with `make lint`.") == "job"
    assert related("Format code with Black.", "Format code with Ruff.") is not None
    assert related("Format with Black", "Lint with Ruff") is None  # two jobs
    assert related("Format with Black", "Format with Prettier") is None  # two languages
    assert related("Run tests with pytest", "Format with `make lint`") is None
    # a command listed with what it does is about its command (mcp-web's .cursor rules)
    assert related("**Testing:** pytest with pytest-xdist for parallelization",
                   "`task test:parallel` - Run tests in parallel (auto workers)") is None


def test_a_rule_restated_wider_or_moved_to_a_nearby_folder_is_related() -> None:
    # simulacra's CLAUDE.md (2025-04-16) and AGENTS.md (2025-11-06); tokentoss's CLAUDE.md, then AGENTS.md
    assert related("Do not use type annotations.",
                   "Add types where sensible, but avoid overly verbose annotations.") == "words"
    assert related("Once a plan or implementation is complete, move it to `_blueprint/archive/`",
                   "Completed specs move to `_blueprint/archive/features/` with `[completed]` prefix; superseded ones "
                   "with `[discarded]`.") == "paths"
    assert related("When plan mode produces an implementation plan, save it to `_blueprint/implement/`",
                   "Plan-mode outputs and roadmap-committed work go to `_blueprint/features/` as "
                   "`[planning]<name>-v1.md` specs, linked from `roadmap/ROADMAP.md`.") == "paths"
    # telegram-bot's type check command, then the one recipe that runs it
    assert related("`make type` or `uv run ty check src` - Run type checking",
                   "Run `just` for formatting, linting, type checking, and the coverage test suite.") == "words"


def test_different_things_are_not_related() -> None:
    # lead-ins, labels, short names, table rows and texts about two different commands are two subjects
    # (awesome-claude-code's, nftbk's and deadonfilm's agent files)
    assert related("**Error Handling**:", "Follow the established error handling patterns with detailed logging") is None
    assert related("Tezos blockchain", "**tezos-core**, **tezos-rpc**, **tezos-contract**: Libraries for Tezos "
                   "blockchain interaction") is None
    assert related("`uv run discover-claude-files`: Run the discovery script",
                   "`complexipy scripts/discover_claude_files.py`: Check complexity of main discovery script") is None
    assert related("**File paths**: use `fileURLToPath(import.meta.url)`, not `new URL().pathname`",
                   "When modifying an untested file, create a test file with at least happy-path and error tests") is None
    # sibling folders with one word in common are two places side by side
    assert related("`src/api/` holds the HTTP handlers", "`src/db/` holds the database models") is None
    assert related("uv run ruff check .", "uv run ruff format .") is None  # two commands of one tool
    assert related("Do not use type annotations.", "Do not use system python or pip.") is None
    assert related("Run tests: `uv run pytest`", "Lint: `uv run ruff check`") is None
    assert related("Fact 0: the retry rule.", "Fact 3: the retry cache.") is None


# -- how the renderings show them ----------------------------------------------------------------

def test_an_older_memory_is_shown_dated_under_the_newest_of_its_subject(tree: Tree) -> None:
    entry(tree, "lint1", "`make lint` or `uv run ruff check src` - Run code linting", "2025-06-24T20:07:48Z",
          category="commands")
    entry(tree, "lint2", "`uv run ruff check src tests`: lint the codebase.", "2026-08-09T05:44:56Z",
          category="commands")
    entry(tree, "t1", "Run tests with `make test`.", "2025-12-24T00:00:00Z", category="commands")
    entry(tree, "t2", "Run tests with `make test-quiet`.", "2026-02-24T00:00:00Z", category="commands")
    entry(tree, "other", "Use **uv** (not pip/pipx/poetry).", "2026-01-01T00:00:00Z", category="commands")
    shown = views(tree)
    for name in ("compacted/commands.md", "index.md", "lore context"):
        text = shown[name]
        assert ("- `uv run ruff check src tests`: lint the codebase.\n"
                "  - older, 2025-06-24: `make lint` or `uv run ruff check src` - Run code linting\n") in text, name
        assert "- Run tests with `make test-quiet`.\n  - was, until 2026-02-24: `make test`\n" in text
        assert "- Use **uv** (not pip/pipx/poetry).\n" in text and "Not settled" not in text


def test_an_older_value_is_shown_by_the_words_its_replacement_took_the_place_of() -> None:
    # updates-entries: simulacra's CLAUDE.md and terence-python's AGENTS.md, before and after
    assert replaced_part("Run tests with `make test`.", "Run tests with `make test-quiet`.") == "`make test`"
    assert replaced_part("Lint and format with `make lint`.", "Lint and format with `make lint-quiet`.") == "`make lint`"
    # a code span is never cut; one bare word comes with the word before it
    assert replaced_part("Use Node 18 for the API", "Use Node 20 for the API") == "Node 18"
    assert replaced_part("Install with `uv pip install -e .` first", "Install with `uv sync` first") == "`uv pip install -e .`"
    # two places changed: both, in order
    assert replaced_part("Deploy staging with fly on Mondays", "Deploy production with fly on Fridays") == "staging … Mondays"
    # sharing less than 60% of its words, short, on several lines, or nothing replaced: shown whole
    assert replaced_part("Write for Python 3.11-3.13", "Target Python 3.12-3.13") is None
    assert replaced_part("Use Jest", "Use Vitest") is None
    assert replaced_part("Run:\n- make test", "Run:\n- make check") is None
    assert replaced_part("Run tests with pytest", "Run tests with pytest and coverage") is None


def test_two_that_disagree_with_no_order_are_not_settled(tree: Tree) -> None:
    entry(tree, "a", "Run tests with `make test`.", "2026-02-24T00:00:00Z")
    entry(tree, "b", "Run tests with `make test-quiet`.", "2026-02-24T00:00:00Z")
    shown = views(tree)
    settled = shown["index.md"].split("## Not settled")[1]
    assert "Run tests with `make test`." in settled and "Run tests with `make test-quiet`." in settled
    assert "written at the same time (2026-02-24); not settled" in shown["compacted/" + CATEGORY + ".md"]
    assert "was, until" not in shown["index.md"] + shown["compacted/" + CATEGORY + ".md"]


def test_other_projects_and_memories_kept_together_are_never_dated_against_each_other(tree: Tree) -> None:
    entry(tree, "sim", "Run tests: `pipenv run pytest`", "2025-04-16T04:35:40Z", "simulacra")
    entry(tree, "flanks", "Run tests: `uv run pytest`", "2025-12-26T23:04:23Z", "flanks-python")
    entry(tree, "j", "Tests run with Jest", "2026-01-01T00:00:00Z", None, coexists_with=["v"])
    entry(tree, "v", "Tests run with Vitest", "2026-06-01T00:00:00Z", None)
    assert timeline(tree.store().live()).links == {}
    shown = views(tree)
    assert "older," not in shown["index.md"] and "was, until" not in shown["index.md"]


def test_an_entry_older_than_a_line_of_an_instruction_file_says_where_the_newer_is(tree: Tree) -> None:
    # The line of AGENTS.md is dated by its own commit (2026-08-09), not by the file's first (2026-01-14):
    # the entry (2026-02-04) is older than it.
    tree.write("AGENTS.md", "# Agents\n\n- Run `uv sync` to install dependencies.\n")
    commit(tree, "agents", date="2026-01-14T10:00:00Z")
    tree.write("AGENTS.md", "# Agents\n\n- Run `uv sync` to install dependencies.\n"
                            "- MCP servers are assembled in `src/bot/agents/chat.py`.\n")
    commit(tree, "mcp servers", date="2026-08-09T05:44:56Z")
    entry(tree, "mcp", "MCP servers are configured in `config/*.json`.", "2026-02-04T19:33:40Z", None)
    shown = views(tree)
    for name in ("index.md", "compacted/" + CATEGORY + ".md", "lore context"):
        assert "- MCP servers are configured in `config/*.json`. (older, 2026-02-04, than AGENTS.md:4)" in shown[name]


def test_a_conflict_with_a_line_of_an_instruction_file_is_ordered_by_the_lines_own_commit(tree: Tree) -> None:
    # telegram-bot: the entry "Python 3.12+." (2026-02-04) and AGENTS.md's "Target Python 3.14 or newer.",
    # a line added 2026-08-09 to a file first committed 2026-01-14: the line is the newer
    tree.write("AGENTS.md", "# Agents\n\n- Run `uv sync` to install dependencies.\n")
    commit(tree, "agents", date="2026-01-14T10:00:00Z")
    tree.write("AGENTS.md", "# Agents\n\n- Run `uv sync` to install dependencies.\n- Target Python 3.14 or newer.\n")
    commit(tree, "python 3.14", date="2026-08-09T05:44:56Z")
    entry(tree, "py", "Python 3.12+.", "2026-02-04T19:33:40Z")
    store = tree.store()
    plan = plan_compaction(store, CompactionConfig(), now=NOW)
    [conflict] = [c for c in plan.conflicts if c["kind"] == "contradiction"]
    assert conflict["entries"] == ["AGENTS.md:4", "py"] and "newer: Target Python 3.14 or newer." in conflict["message"]
    from lorekeeper.analysis.diagnose import duplicate_findings

    [said] = [f for f in duplicate_findings(store, CompactionConfig()) if f.kind == "contradiction" and f.entry == "py"]
    assert "disagrees with the newer AGENTS.md:4" in said.message and said.fix is not None
    assert said.fix.entry == "py" and said.fix.by == "AGENTS.md:4"  # keeping the newer retires the entry


# -- the property --------------------------------------------------------------------------------

_SUBJECTS = ["Run tests", "Lint", "Type checking", "Package manager", "Bot framework", "Deploy target",
             "Formatter", "Release train"]
#: Values with no meaning of their own (no tool, no version): what the renderings do with a subject's
#: values over time, not what the verifier makes of them, is under test here.
_VALUES = ["`alder`", "`birch`", "`cedar`", "`dogwood`", "`elm`", "`fir`", "`ginkgo`", "`hazel`", "`ivy`"]


@st.composite
def histories(draw):
    """Subjects ("**Lint**: value"), each with values that replace one another over time (some saying so:
    ``supersedes``), in random categories and with random dates; the newest value of each is current."""
    out = []
    for s, subject in enumerate(draw(st.lists(st.sampled_from(_SUBJECTS), min_size=1, max_size=6, unique=True))):
        values = draw(st.lists(st.sampled_from(_VALUES), min_size=1, max_size=4, unique=True))
        day = draw(st.integers(min_value=0, max_value=300))
        for v, value in enumerate(values):
            day += draw(st.integers(min_value=1, max_value=60))
            supersedes = [f"s{s}v{v - 1}"] if v and draw(st.booleans()) else []
            out.append((f"s{s}v{v}", f"**{subject}**: {value}", NOW - timedelta(days=400 - day), v == len(values) - 1,
                        draw(st.sampled_from(["commands", "conventions", "tools"])), supersedes))
    return out


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(history=histories(), budget=st.integers(min_value=80, max_value=2000))
def test_no_rendering_shows_an_older_value_of_a_subject_without_its_date_or_replacement(tmp_path_factory, history,
                                                                                         budget: int) -> None:
    tree = Tree(tmp_path_factory.mktemp("ws"))
    for entry_id, text, created, _, category, supersedes in history:
        tree.entry(f"{entry_id}.json", {"id": entry_id, "content": text, "category": category, "supersedes": supersedes,
                                        "created": created.strftime("%Y-%m-%dT%H:%M:%SZ")})
    store = tree.store()
    plan = plan_compaction(store, CompactionConfig().with_overrides(budget=budget), now=NOW)
    texts = [text for path, text in plan.views.items()]
    texts.append(render_context(Workspace(tree.root), store, budget=budget, now=NOW, remember=False).text)
    for entry_id, text, _created, current, _, _supersedes in history:
        for rendering in texts:
            for line in rendering.splitlines():
                if text not in line:
                    continue
                if current:
                    assert not line.startswith("  - "), line  # the newest value of a subject is never nested
                else:
                    assert line.startswith("  - was, until ") or line.startswith("  - older, "), (entry_id, line)


def test_numbered_things_are_not_one_subject() -> None:
    assert related("Service 1 keeps its retry budget in config/retry-1.toml.",
                   "Service 2 keeps its retry budget in config/retry-2.toml.") is None


def test_candidate_pairs_come_from_rare_shared_keys_each_pair_once() -> None:
    from lorekeeper.core.candidates import rare_key_pairs

    keys = [{"ruff", "lint"}, {"ruff", "format"}, {"lint", "ruff"}, {"deploy"}, *({"lint"} for _ in range(5))]
    pairs = list(rare_key_pairs(keys, cap=3, per_item=2))
    assert pairs == [(0, 1), (0, 2), (1, 2)]  # "lint" is held by 7 items, past the cap: it joins nobody
    assert len(pairs) == len(set(pairs)) and all(i < j for i, j in pairs)
    assert list(rare_key_pairs(keys, cap=3, per_item=1)) == [(0, 1), (0, 2), (1, 2)]
