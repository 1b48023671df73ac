"""Truth of the store agent-files-awesome (josix/awesome-claude-md at c1e8831bb037): CLAUDE.md,
AGENTS.md, .github/copilot-instructions.md and scripts/discovery/AGENTS.md, with their history replayed.
Written by reading the four files and `git blame` before running Lorekeeper on the store."""

import datetime
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from truthlib import Store, cli  # noqa: E402

STORE = "agent-files-awesome"
C, P, A, D = "CLAUDE.md", ".github/copilot-instructions.md", "AGENTS.md", "scripts/discovery/AGENTS.md"


def blame_date(root, f, line):
    out = subprocess.run(["git", "-C", root, "blame", "--porcelain", "-L", f"{line},{line}", "--", f],
                         capture_output=True, text=True, check=True).stdout
    t = [x for x in out.splitlines() if x.startswith("committer-time ")][0].split()[1]
    return datetime.datetime.fromtimestamp(int(t), datetime.UTC).isoformat().replace("+00:00", "Z")


# identical pairs CLAUDE.md / copilot (needle in C, needle in P) — same text in both files
IDENT = [
 ("Tools & Ecosystem paragraph", "The repository also maintains a curated table of tools", "The repository also maintains a curated table of tools", ["Tools & Ecosystem"]),
 ("Discovery Script orchestrates the discovery workflow", "**Discovery Script**: `scripts/discover_claude_files.py`", "**Discovery Script**: `scripts/discover_claude_files.py`", ["discover_claude_files.py"]),
 ("Discovery system is split into focused modules", "**Modular Architecture**: Discovery system is split", "**Modular Architecture**: Discovery system is split", ["focused modules"]),
 ("loader.py loads existing repositories", "`scripts/discovery/loader.py`", "`scripts/discovery/loader.py`", ["loader.py"]),
 ("searcher.py searches GitHub", "`scripts/discovery/searcher.py`", "`scripts/discovery/searcher.py`", ["searcher.py"]),
 ("evaluator.py scores candidates", "`scripts/discovery/evaluator.py`", "`scripts/discovery/evaluator.py`", ["evaluator.py"]),
 ("reporter.py creates issues", "`scripts/discovery/reporter.py`", "`scripts/discovery/reporter.py`", ["reporter.py"]),
 ("reporters/ formatting components", "`scripts/discovery/reporters/`", "`scripts/discovery/reporters/`", ["reporters/"]),
 ("utils.py shared utilities", "`scripts/discovery/utils.py`", "`scripts/discovery/utils.py`", ["utils.py"]),
 ("Respect copyright", "**Respect copyright**", "**Respect copyright**", ["copyright"]),
 ("Selection prioritizes content quality over popularity", "Our selection prioritizes", "Our selection prioritizes", ["popularity"]),
 ("Content Depth criterion", "1. **Content Depth**", "1. **Content Depth**", ["Content Depth"]),
 ("Educational Value criterion", "2. **Educational Value** - Demonstrates", "2. **Educational Value** - Demonstrates", ["Educational Value"]),
 ("AI Effectiveness criterion", "3. **AI Effectiveness**", "3. **AI Effectiveness**", ["AI Effectiveness"]),
 ("Project Maturity criterion", "4. **Project Maturity**", "4. **Project Maturity**", ["Project Maturity"]),
 ("Community Recognition criterion", "5. **Community Recognition**", "5. **Community Recognition**", ["Community Recognition"]),
 ("100-point scale", "**100-point scale**", "**100-point scale**", ["100-point"]),
 ("Stars contribute only 10%", "**Stars contribute only 10%**", "**Stars contribute only 10%**", ["10%"]),
 ("No hard star minimums", "**No hard star minimums**", "**No hard star minimums**", ["star minimums"]),
 ("Site location docs/", "**Location**: `docs/` folder", "**Location**: `docs/` folder", ["docs/"]),
 ("Site technology Jekyll", "**Technology**: Jekyll", "**Technology**: Jekyll", ["Jekyll"]),
 ("Site features", "**Features**: Search, category filters", "**Features**: Search, category filters", ["category filters"]),
 ("Update docs/index.html when adding examples", "When adding new examples to `scenarios/`, also update", "When adding new examples to `scenarios/`, also update", ["docs/index.html"]),
 ("Add an example-card div", "1. Add a new `<div class=\"example-card\">`", "1. Add a new `<div class=\"example-card\">`", ["example-card"]),
 ("Local development: bundle exec jekyll serve (code block)", "bundle exec jekyll serve", "bundle exec jekyll serve", ["jekyll serve"]),
 ("Embedding-based similarity search", "Based on embedding-based similarity search", "Based on embedding-based similarity search", ["embedding-based"]),
 ("pydantic/genai-prices example", "**pydantic/genai-prices**", "**pydantic/genai-prices**", ["pydantic/genai-prices"]),
 ("gaearon/overreacted.io example", "**gaearon/overreacted.io**", "**gaearon/overreacted.io**", ["overreacted.io"]),
 ("anthropics/anthropic-quickstarts example", "**anthropics/anthropic-quickstarts**", "**anthropics/anthropic-quickstarts**", ["anthropic-quickstarts"]),
 ("microsoft/semanticworkbench example", "**microsoft/semanticworkbench**", "**microsoft/semanticworkbench**", ["semanticworkbench"]),
 ("openai/openai-agents-python example", "**openai/openai-agents-python**", "**openai/openai-agents-python**", ["openai-agents-python"]),
 ("microsoft/recipe-tool example", "**microsoft/recipe-tool**", "**microsoft/recipe-tool**", ["recipe-tool"]),
 ("blueprintui/blueprintui example", "**blueprintui/blueprintui**", "**blueprintui/blueprintui**", ["blueprintui"]),
 ("Target KOL and expert organizations", "Target repositories from key opinion leaders", "Target repositories from key opinion leaders", ["key opinion leaders"]),
 ("`ty check`: Run type checking", "- `ty check`: Run type checking", "- `ty check`: Run type checking", ["ty check"]),
 ("`ruff check .`: Lint entire project", "- `ruff check .`: Lint", "- `ruff check .`: Lint", ["ruff check ."]),
 ("`ruff format .`: Format code using Ruff", "- `ruff format .`: Format", "- `ruff format .`: Format", ["ruff format ."]),
 ("`complexipy scripts/`: Analyze code complexity", "- `complexipy scripts/`: Analyze", "- `complexipy scripts/`: Analyze", ["complexipy scripts/"]),
 ("Combined type checking, linting and formatting", "- `ty check && ruff check . && ruff format .`", "- `ty check && ruff check . && ruff format .`", ["ty check && ruff check"]),
 ("`pre-commit run --all-files`", "- `pre-commit run --all-files`", "- `pre-commit run --all-files`", ["pre-commit run --all-files"]),
 ("`pre-commit run` on staged files", "- `pre-commit run`: Run pre-commit hooks on staged", "- `pre-commit run`: Run pre-commit hooks on staged", ["staged files"]),
 ("Remember to fix type and lint errors", "**Remember to fix type errors", "**Remember to fix type errors", ["fix type errors"]),
 ("`uv sync`: Install dependencies", "- `uv sync`: Install dependencies", "- `uv sync`: Install dependencies", ["uv sync"]),
 ("`pre-commit install`", "- `pre-commit install`", "- `pre-commit install`", ["pre-commit install"]),
 ("`uv run discover-claude-files`", "- `uv run discover-claude-files`", "- `uv run discover-claude-files`", ["discover-claude-files"]),
 ("`pytest`: Run tests", "- `pytest`: Run tests", "- `pytest`: Run tests", ["pytest"]),
 ("`pytest --cov`", "- `pytest --cov`", "- `pytest --cov`", ["pytest --cov"]),
 ("complexipy main discovery script", "- `complexipy scripts/discover_claude_files.py`", "- `complexipy scripts/discover_claude_files.py`", ["complexipy scripts/discover_claude_files.py"]),
 ("complexipy discovery modules", "- `complexipy scripts/discovery/`", "- `complexipy scripts/discovery/`", ["complexipy scripts/discovery/"]),
 ("complexipy --max-complexity 10", "- `complexipy scripts/ --max-complexity 10`", "- `complexipy scripts/ --max-complexity 10`", ["--max-complexity 10"]),
 ("complexipy --output json", "- `complexipy scripts/ --output json`", "- `complexipy scripts/ --output json`", ["--output json"]),
 ("Discovery system follows a modular design", "The discovery system follows a modular design", "The discovery system follows a modular design", ["single responsibility"]),
 ("Main Script 45 lines", "**Main Script**", "**Main Script**", ["45 lines"]),
 ("Individual Modules", "**Individual Modules**", "**Individual Modules**", ["one specific concern"]),
 ("Reduced Complexity", "**Reduced Complexity**", "**Reduced Complexity**", ["Reduced Complexity"]),
 ("Better Testability 70+ tests", "**Better Testability**", "**Better Testability**", ["70+"]),
 ("Maintainability", "**Maintainability**", "**Maintainability**", ["Maintainability"]),
 ("Clean Test Structure tests/discovery/", "**Clean Test Structure**", "**Clean Test Structure**", ["tests/discovery/"]),
]

# near duplicates C / P (same fact, a word or a label differs)
NEAR = [
 ("Project overview: curated collection of CLAUDE.md files", [(C, "This is **awesome-claude-md**"), (P, "**awesome-claude-md** is a curated")], ["curated collection"]),
 ("Repository structure tree (code block)", [(C, "├── README.md                    # Main landing page"), (P, "├── README.md                    # Main landing page")], ["scenarios/"]),
 ("Use these primary categories", [(C, "When adding examples, use these primary categories"), (P, "When adding new examples, use these primary categories")], ["primary categories"]),
 ("complex-projects category", [(C, "**complex-projects**"), (P, "`complex-projects/`")], ["complex-projects"]),
 ("libraries-frameworks category", [(C, "**libraries-frameworks**"), (P, "`libraries-frameworks/`")], ["libraries-frameworks"]),
 ("developer-tooling category", [(C, "**developer-tooling**"), (P, "`developer-tooling/`")], ["developer-tooling"]),
 ("project-handoffs category", [(C, "**project-handoffs**"), (P, "`project-handoffs/`")], ["project-handoffs"]),
 ("getting-started category", [(C, "**getting-started**"), (P, "`getting-started/`")], ["getting-started"]),
 ("infrastructure-projects category", [(C, "**infrastructure-projects**"), (P, "`infrastructure-projects/`")], ["infrastructure-projects"]),
 ("Automated discovery system for new CLAUDE.md files", [(C, "The repository includes an automated discovery system"), (P, "The repository includes an automated system for discovering")], ["discover"]),
 ("Browsable static site at josix.github.io", [(C, "The repository includes a browsable static site"), (P, "The repository includes a browsable static site")], ["josix.github.io"]),
 ("docs/_config.yml Jekyll configuration", [(C, "- `docs/_config.yml`"), (P, "- `docs/_config.yml`")], ["_config.yml"]),
 ("docs/_layouts/default.html base layout", [(C, "- `docs/_layouts/default.html`"), (P, "- `docs/_layouts/default.html`")], ["default.html"]),
 ("docs/assets/css/style.css", [(C, "- `docs/assets/css/style.css`"), (P, "- `docs/assets/css/style.css`")], ["style.css"]),
 ("docs/assets/js/main.js", [(C, "- `docs/assets/js/main.js`"), (P, "- `docs/assets/js/main.js`")], ["main.js"]),
 ("docs/index.html main page", [(C, "- `docs/index.html`: Main page"), (P, "- `docs/index.html`: Main page")], ["docs/index.html"]),
 ("Include data attributes on example cards", [(C, "2. Include required data attributes"), (P, "2. Include data attributes")], ["data-category"]),
 ("Follow the existing card structure", [(C, "3. Follow the existing card structure"), (P, "3. Follow the existing card structure")], ["card structure"]),
 ("Review discovery issues created by the automation", [(C, "**Automated Path**: Review discovery issues"), (P, "- Review discovery issues created by the automation system")], ["discovery issues"]),
 ("AUTOMATED_DISCOVERY.md for complete details", [(C, "**Documentation**: See `AUTOMATED_DISCOVERY.md`"), (P, "**See**: `AUTOMATED_DISCOVERY.md`")], ["AUTOMATED_DISCOVERY.md"]),
 ("Never copy CLAUDE.md files into this repository", [(C, "**Never copy**"), (P, "**Never copy**"), (A, "**NEVER** copy CLAUDE.md files into repo")], ["copy"]),
 ("Always link to the original source", [(C, "**Always link**"), (P, "**Always link**"), (A, "**ALWAYS** link to original source")], ["original source"]),
 ("Include attribution and license", [(C, "**Include attribution**"), (P, "**Include attribution**"), (A, "**ALWAYS** include attribution + license")], ["attribution"]),
 ("60+ points required for inclusion", [(C, "**60+ points required**"), (P, "**60+ points required**"), (A, "**60+ points required** for inclusion")], ["60+"]),
 ("Stars are only 10% of the score", [(C, "**Stars contribute only 10%**"), (P, "**Stars contribute only 10%**"), (A, "Stars = only 10% of score")], ["10%"]),
 ("Tests mirror module structure in tests/discovery/", [(C, "**Clean Test Structure**"), (P, "**Clean Test Structure**"), (D, "Tests mirror module structure in `tests/discovery/`")], ["tests/discovery/"]),
]

# the same fact in other words, or one list written as bullets in one file and a code block/table in another
PARA = [
 ("Discovery GitHub Action runs weekly", "paraphrase", [(C, "**GitHub Action**: `.github/workflows/discover-claude-files.yml` runs weekly"), (P, "**GitHub Action**: Weekly scheduled workflow"), (A, "| `discover-claude-files.yml` | Weekly Monday")], ["weekly"]),
 ("Community review of discovered candidates", "paraphrase", [(C, "**Community Review**: Creates issues with ranked candidates"), (P, "**Community Review**: Issues created with candidate repositories")], ["Community Review"]),
 ("Keep CLAUDE.md and copilot-instructions.md synchronized", "paraphrase", [(C, "Both CLAUDE.md and copilot-instructions.md are kept in sync"), (C, "**Sync CLAUDE.md with copilot-instructions.md**"), (P, "**Important**: This file should stay synchronized"), (P, "**Keep copilot-instructions.md and CLAUDE.md synchronized**"), (P, "- Keep copilot-instructions.md and CLAUDE.md synchronized")], ["synchroniz"]),
 ("Update the README.md table of contents after adding examples", "paraphrase", [(C, "After adding examples, update main `README.md` with table of contents"), (P, "- Update README.md table of contents after adding examples"), (P, "- Update main README.md with table of contents after adding examples"), (P, "When adding new examples, update the main README.md:")], ["table of contents"]),
 ("Scenario directories are [owner]_[repo]", "paraphrase", [(C, "**Create Directory Structure**: `scenarios/[category]/[owner]_[repo]/`"), (P, "- Repository directories: `[owner]_[repo]` format"), (A, "- Scenario dirs: `[owner]_[repo]`")], ["[owner]_[repo]"]),
 ("Analysis header: source repository link, original CLAUDE.md link, license", "paraphrase", [(C, "   - Source repository link and original CLAUDE.md link"), (P, "- **Header**: Category, source repository link")], ["original CLAUDE.md link"]),
 ("Analysis says why it is exemplary", "paraphrase", [(C, "   - Specific features that make it exemplary"), (P, "- **Why it's exemplary**: Specific features")], ["exemplary"]),
 ("Analysis lists 2-3 takeaways", "paraphrase", [(C, "   - 2-3 key takeaways for developers"), (P, "- **Takeaways**: 2-3 concrete lessons")], ["2-3"]),
 ("Find examples with GitHub filename search", "paraphrase", [(C, "**Manual Search**: Use GitHub search (`filename:CLAUDE.md`)"), (P, "- Use specific filename searches: `filename:CLAUDE.md`")], ["filename:CLAUDE.md"]),
 ("Manual search queries (bullets in CLAUDE.md, one code block in copilot)", "split", [(C, "- `filename:CLAUDE.md \"## Architecture\"`"), (C, "- `filename:CLAUDE.md \"## Development Commands\"`"), (C, "- `\"## Testing\" filename:CLAUDE.md`"), (C, "- `\"## Deployment\" filename:CLAUDE.md`"), (C, "- `filename:CLAUDE.md language:TypeScript`"), (P, "filename:CLAUDE.md \"## Architecture\"")], ["## Architecture"]),
 ("KOL organization searches (bullets / code block)", "split", [(C, "user:anthropics` -"), (C, "user:pydantic` -"), (C, "user:microsoft` -"), (C, "user:gaearon` -"), (C, "user:openai` -"), (C, "user:cloudflare` -"), (C, "user:pytorch` -"), (P, "filename:CLAUDE.md user:anthropics")], ["user:anthropics"]),
 ("Domain-specific searches (bullets / code block)", "split", [(C, "**Python Ecosystem**"), (C, "**JavaScript/React**"), (C, "**AI/ML**"), (C, "**Infrastructure**: `filename"), (P, "filename:CLAUDE.md user:fastapi OR user:tiangolo")], ["user:tiangolo"]),
 ("Run tests with `pytest` (bullets / AGENTS.md code block)", "split", [(C, "- `pytest`: Run tests"), (P, "- `pytest`: Run tests"), (A, "pytest                     # All tests")], ["pytest"]),
 ("`pytest --cov` (bullets / AGENTS.md code block)", "split", [(C, "- `pytest --cov`"), (P, "- `pytest --cov`"), (A, "pytest --cov               # With coverage")], ["pytest --cov"]),
 ("Quality checks `ty check && ruff check . && ruff format .` (bullets / code block)", "split", [(C, "- `ty check && ruff check . && ruff format .`"), (P, "- `ty check && ruff check . && ruff format .`"), (A, "ty check && ruff check . && ruff format .")], ["ty check && ruff check"]),
 ("Discovery needs `uv run discover-claude-files` (bullets / code block)", "split", [(C, "- `uv run discover-claude-files`"), (P, "- `uv run discover-claude-files`"), (A, "uv run discover-claude-files")], ["discover-claude-files"]),
 ("`pre-commit install` once after cloning (bullets / code block)", "split", [(C, "- `pre-commit install`"), (P, "- `pre-commit install`"), (A, "pre-commit install         # Once after clone")], ["pre-commit install"]),
 ("`pre-commit run --all-files` (bullets / code block)", "split", [(C, "- `pre-commit run --all-files`"), (P, "- `pre-commit run --all-files`"), (A, "pre-commit run --all-files # Full check")], ["pre-commit run --all-files"]),
 ("`complexipy scripts/ --max-complexity 10` (bullets / code block)", "split", [(C, "- `complexipy scripts/ --max-complexity 10`"), (P, "- `complexipy scripts/ --max-complexity 10`"), (A, "complexipy scripts/ --max-complexity 10")], ["--max-complexity 10"]),
 ("Use uv sync, not pip", "paraphrase", [(C, "- `uv sync`: Install dependencies"), (P, "- `uv sync`: Install dependencies"), (A, "**UV package manager**: Use `uv sync` not pip")], ["uv sync"]),
 ("Primary weights: Content Depth 30, Educational Value 25, AI Effectiveness 15", "paraphrase", [(A, "- Primary: Content Depth (30%)"), (D, "| Content Depth | 30 |")], ["30"]),
 ("Secondary weights: Project Maturity 20, Community Recognition 10", "paraphrase", [(A, "- Secondary: Project Maturity (20%)"), (D, "| Project Maturity | 20 |")], ["20"]),
 ("100-point scoring system", "paraphrase", [(C, "**100-point scale**"), (P, "**100-point scale**"), (A, "| 100-point content-first system |"), (D, "└── 100-point scoring system")], ["100-point"]),
 ("89 examples in 6 categories (repeated within AGENTS.md)", "near", [(A, "Jekyll site for browsing 89+ examples across 6 categories"), (A, "# 89 examples in 6 categories")], ["89"]),
 ("loader.py prevents duplicates (CLAUDE.md bullet / discovery AGENTS.md tree)", "split", [(C, "`scripts/discovery/loader.py`"), (P, "`scripts/discovery/loader.py`"), (D, "├── loader.py         # Load existing repos, prevent duplicates")], ["loader.py"]),
]

def truth(store_dir, sources=None):
    """The truth of the store built in STORE_DIR (the sources are not needed)."""
    S = Store(store_dir)
    facts, dups = [], []

    def add(text, kind, locs, lits):
        found = [S.loc(f, nd) for f, nd in locs]
        fid = f"f{len(facts) + 1}"
        facts.append({"id": fid, "text": text, "literals": lits, "locations": found, "current": True})
        dups.append({"fact": fid, "kind": kind, "identical": kind == "identical", "locations": found})

    for text, nc_, np_, lits in IDENT:
        add(text, "identical", [(C, nc_), (P, np_)], lits)
    for text, locs, lits in NEAR:
        add(text, "identical" if text.startswith("60+ points") else "near", locs, lits)
    for text, kind, locs, lits in PARA:
        add(text, kind, locs, lits)

    def side(f, needle):
        loc = S.loc(f, needle)
        loc["date"] = blame_date(store_dir, f, loc["line"])
        return loc

    disagreements = [
     {"subject": "name of the analysis file of an example",
      "older": side(C, "**Write Analysis**: Create `analysis.md` with:"),
      "newer": side(P, "- Analysis files: `README.md` (our evaluation)"),
      "also": [side(A, "- Analysis files: `README.md` or `analysis.md`")],
      "note": "commit 7f0edb3 (2025-07-16) renamed every analysis.md to README.md; CLAUDE.md kept the older name. "
              "AGENTS.md (2026-01-07) allows both."},
     {"subject": "does the static site live in docs/",
      "older": side(C, "**Location**: `docs/` folder (served via GitHub Pages)"),
      "newer": side(A, "**No docs/ folder**: Jekyll builds from root"),
      "also": [side(P, "**Location**: `docs/` folder (served via GitHub Pages)")],
      "note": "by blame AGENTS.md is newer, but at HEAD docs/ exists again (an Astro site, 7eac2fd): a reviewer must decide; "
              "either a conflict finding or both under 'Not settled' is right, stating one as settled is not."},
     {"subject": "is there Python code in the repository",
      "older": side(P, "- No specific Python code in this repository (documentation only)"),
      "newer": side(A, "Python-based discovery system + Jekyll site"),
      "also": [side(C, "- `uv run discover-claude-files`: Run the discovery script")],
      "note": "the copilot line dates from the file's creation (2025-07-15), before the Python discovery system."},
    ]

    def nc(a, b, why):
        return {"a": S.loc(*a), "b": S.loc(*b), "why": why}

    not_conflicts = [
     nc((C, "This file provides guidance to Claude Code"), (P, "This file provides guidance to GitHub Copilot"),
        "same sentence about two different tools: each file describes itself"),
     nc((C, "**Main Script** (`discover_claude_files.py`): 45 lines"), (D, "├── orchestrator.py   # Workflow coordinator (49 lines)"),
        "two different files (discover_claude_files.py vs orchestrator.py): 45 and 49 lines are both true"),
     nc((C, "- `pytest`: Run tests"), (D, "pytest tests/discovery/test_evaluator.py -v"),
        "all tests vs one module's tests: different scopes"),
     nc((C, "**GitHub Action**: `.github/workflows/discover-claude-files.yml` runs weekly"), (A, "| `discover-claude-files.yml` | Weekly Monday"),
        "weekly and 'weekly Monday 9AM UTC' agree"),
     nc((C, "**Stars contribute only 10%**"), (D, "| Community Recognition | 10 |"),
        "stars are 10% of the score and community recognition is 10 points: both true, different subjects"),
     nc((C, "- `complexipy scripts/`: Analyze code complexity"), (C, "- `complexipy scripts/ --max-complexity 10`"),
        "a command and a longer command of the same tool are not opposites"),
     nc((C, "- `pre-commit run --all-files`"), (C, "- `pre-commit run`: Run pre-commit hooks on staged"),
        "all files vs staged files: two commands, both true"),
     nc((A, "| Run tests | `pytest tests/` |"), (C, "- `pytest`: Run tests"), "same command, agree"),
    ]
    ambiguous = [
     {"a": S.loc(P, "- Original files: `CLAUDE.md` (preserve exactly as found)"), "b": S.loc(P, "**Never copy**"),
      "why": "added by the same commit (c274b45b); under 'File Names' it reads as a naming convention, but it can be read as "
             "keeping copies: neither a required conflict nor a required non-conflict"},
     {"a": S.loc(A, "- Analysis files: `README.md` or `analysis.md`"), "b": S.loc(P, "- Analysis files: `README.md` (our evaluation)"),
      "why": "the newer line allows both names; not scored"},
    ]

    return {
      "store": STORE,
      "source": {"repo": "josix/awesome-claude-md", "commit": "c1e8831bb0372b1c83484f84993c03d304378c75", "files": [C, A, P, D]},
      "notes": "duplicates: kind identical (same text after case/markdown/list markers), near (a word, a label or the markup differs), "
               "paraphrase, split (a list of bullets in one file is one code block or table in another). Identical pairs are also "
               "listed inside wider groups when a third file restates them. disagreements: newer/older by the line's own blame date.",
      "facts": facts, "duplicates": dups, "updates": [], "disagreements": disagreements,
      "not_conflicts": not_conflicts, "ambiguous": ambiguous}


if __name__ == "__main__":
    cli(STORE, truth)
