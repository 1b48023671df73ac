"""Entries and truth of the store updates-entries: one-fact JSON entries made of verbatim bullets of 10 small
public repositories' agent files, old and new versions of updated bullets each dated by the commit that
added that line (`git blame -C -C -M` at a commit where the line exists). Labels (updates, duplicates,
not_conflicts) are written by hand from `git log -p` of each file, before running Lorekeeper on the store.
A commit "HEAD" in the table E stands for the project's pinned commit (REPOS): the repository's HEAD when
the labels were written."""

import datetime
import hashlib
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from truthlib import cli  # noqa: E402

STORE = "updates-entries"
REPOS = {  # project tag -> (owner/name, pinned commit)
 "telegram-bot": ("narumiruna/telegram-bot", "3d68621521315871f309613fade302d86d141a86"),
 "simulacra": ("njbbaer/simulacra", "1db6e094dbc83b069f82b0325db8efd36c608e15"),
 "tokentoss": ("NicholasGrundl/tokentoss", "02aa6f2c6cd2817e06fa891e9a41697c12e5c109"),
 "fastapi-template": ("liangjiayu/fastapi-template", "83bb2738785b6cb61f35a89456a6dcd2e4b70659"),
 "terence-python": ("terenceodonoghue/python", "818185218df2942177c1e2d3bc714b1a46329caa"),
 "bio-architect": ("ai-ande/bio-architect", "349b190437221f9e00917e44461f97802e18e75d"),
 "jemdzem": ("AGH-Drone-Engineering/jemdzem", "1312216851a47a8a6eadeaa2e6437bcdd278add2"),
 "appforge-poc": ("Day-in-the-Country-LLC/appforge-poc", "e6f5ed0883cba5a24e7b28a419b8343c3d06c973"),
 "flanks-python": ("diegok/flanks-python", "54cb59404651540d7bf2fc306516af1350e8473c"),
 "mlflow-dep-analyzer": ("andrewgross/mlflow_dep_analyzer", "a8e09c063ddef42344aeb97344efd5590092d40c"),
}
H = "HEAD"
# key, project, path, commit, needle (unique in the file at that commit), category
E = [
 # telegram-bot
 ("tg_mypy", "telegram-bot", "CLAUDE.md", "4accbcc", "`make type` or `uv run mypy", "commands"),
 ("tg_ty1", "telegram-bot", "CLAUDE.md", "43890d0", "`make type` or `uv run ty check src`", "commands"),
 ("tg_ty2", "telegram-bot", "AGENTS.md", "335ff51", "`uv run ty check src tests`: run static type checks.", "commands"),
 ("tg_lint1", "telegram-bot", "CLAUDE.md", "4accbcc", "`make lint` or `uv run ruff check src`", "commands"),
 ("tg_lint2", "telegram-bot", "AGENTS.md", "335ff51", "`uv run ruff check src tests`: lint the codebase.", "commands"),
 ("tg_makeall", "telegram-bot", "CLAUDE.md", "4accbcc", "Always run linting and type checking after code changes: `make lint && make type`", "commands"),
 ("tg_just", "telegram-bot", "AGENTS.md", H, "Run `just` for formatting, linting, type checking", "commands"),
 ("tg_pub1", "telegram-bot", "CLAUDE.md", "4accbcc", "`make publish` - Build wheel and publish to PyPI", "commands"),
 ("tg_pub2", "telegram-bot", "CLAUDE.md", "a4cea00", "`uv build --wheel && uv publish` - Build wheel and publish to PyPI", "commands"),
 ("tg_model1", "telegram-bot", "CLAUDE.md", "4accbcc", "`OPENAI_MODEL` - Specific model override (default: `gpt-4o`)", "config"),
 ("tg_model2", "telegram-bot", "CLAUDE.md", "a3020d4", "`OPENAI_MODEL` - Specific model override (default: `gpt-4.1`)", "config"),
 ("tg_fw1", "telegram-bot", "CLAUDE.md", "4accbcc", "**Bot Framework**: Built on `python-telegram-bot`", "architecture"),
 ("tg_fw2", "telegram-bot", "AGENTS.md", "36121c1", "**Bot Framework**: Built on `aiogram` v3", "architecture"),
 ("tg_overview", "telegram-bot", "AGENTS.md", H, "This repository is an async aiogram Telegram bot backed by OpenAI Agents.", "architecture"),
 ("tg_retry1", "telegram-bot", "CLAUDE.md", "a3020d4", "**Retry System**: `src/bot/retry.py`", "architecture"),
 ("tg_retry2", "telegram-bot", "CLAUDE.md", "be979d3", "**Retry System**: `src/bot/retry_utils.py`", "architecture"),
 ("tg_py312", "telegram-bot", "AGENTS.md", "77bcaf5", "- Python 3.12+.", "conventions"),
 ("tg_py313", "telegram-bot", "AGENTS.md", "02ff29e", "- Python 3.13+, async-first design, and type hints everywhere.", "conventions"),
 ("tg_py314a", "telegram-bot", "AGENTS.md", "b284a21", "- Python 3.14+, async-first design, and type hints everywhere.", "conventions"),
 ("tg_py314", "telegram-bot", "AGENTS.md", H, "- Target Python 3.14 or newer.", "conventions"),
 ("tg_async", "telegram-bot", "AGENTS.md", H, "- Use async-first Python and type hints throughout `src/`.", "conventions"),
 ("tg_mcp1", "telegram-bot", "AGENTS.md", "02ff29e", "- MCP servers are configured in `config/*.json`.", "architecture"),
 ("tg_mcp2", "telegram-bot", "AGENTS.md", H, "- MCP servers are assembled in `src/bot/agents/chat.py`;", "architecture"),
 ("tg_run1", "telegram-bot", "AGENTS.md", "02ff29e", "- `uv run bot`: start the bot using `config/default.json`.", "commands"),
 ("tg_run2", "telegram-bot", "AGENTS.md", H, "- Run `uv run bot` from the repository root", "commands"),
 ("tg_prek1", "telegram-bot", "CLAUDE.md", "6db2ee1", "- `uv run prek run -a` - Run pre-commit hooks on all files", "commands"),
 ("tg_prek2", "telegram-bot", "AGENTS.md", H, "- Run `prek run -a` for the complete repository hook set.", "commands"),
 ("tg_changelog", "telegram-bot", "AGENTS.md", H, "- Append exactly one line to `docs/CHANGELOG.md`", "conventions"),
 ("tg_ruff120", "telegram-bot", "AGENTS.md", H, "- Follow Ruff with a 120-character line limit", "conventions"),
 ("tg_sync", "telegram-bot", "AGENTS.md", H, "- Run `uv sync` to install or reconcile dependencies.", "commands"),
 ("tg_targeted", "telegram-bot", "AGENTS.md", H, "- Use `uv run pytest tests/<path>.py -v` for targeted tests.", "commands"),
 ("tg_modtests", "telegram-bot", "AGENTS.md", H, "- Use module-level pytest functions", "conventions"),
 ("tg_bump", "telegram-bot", "AGENTS.md", H, "- Format version bump commits as `Bump version: X → Y`.", "conventions"),
 ("tg_commits", "telegram-bot", "AGENTS.md", H, "- Use short, imperative, sentence-cased commit messages", "conventions"),
 ("tg_secrets", "telegram-bot", "AGENTS.md", H, "- Keep local secrets in the ignored `.env` file", "conventions"),
 ("tg_tags", "telegram-bot", "AGENTS.md", H, "- Do not create or push release tags unless explicitly requested", "conventions"),
 # simulacra
 ("sim_pipenv", "simulacra", "CLAUDE.md", "6be43bf", "- Run tests: `pipenv run pytest`", "commands"),
 ("sim_uvtest1", "simulacra", "CLAUDE.md", "37778e8", "- Run tests: `uv run pytest`", "commands"),
 ("sim_uvtest2", "simulacra", "CLAUDE.md", "2550a07", "- Run tests with `uv run pytest` after making significant changes.", "commands"),
 ("sim_maketest", "simulacra", "CLAUDE.md", "0ee2a2b", "- Run tests with `make test`.", "commands"),
 ("sim_testq", "simulacra", "CLAUDE.md", H, "- Run tests with `make test-quiet`.", "commands"),
 ("sim_black", "simulacra", "CLAUDE.md", "6be43bf", "- Format code with Black and Flake8 conventions.", "conventions"),
 ("sim_makelint", "simulacra", "AGENTS.md", "eadde8f", "- Lint and format with `make lint`.", "commands"),
 ("sim_lintq", "simulacra", "CLAUDE.md", H, "- Lint and format with `make lint-quiet`.", "commands"),
 ("sim_notypes", "simulacra", "CLAUDE.md", "6be43bf", "- Do not use type annotations.", "conventions"),
 ("sim_types", "simulacra", "AGENTS.md", "eadde8f", "- Add types where sensible, but avoid overly verbose annotations.", "conventions"),
 ("sim_uvrun1", "simulacra", "CLAUDE.md", "2550a07", "- Manage dependencies with `uv` and run all python commands with `uv run`", "commands"),
 ("sim_uvrun", "simulacra", "CLAUDE.md", H, "- Run all Python commands with `uv run`.", "commands"),
 ("sim_uvadd", "simulacra", "CLAUDE.md", H, "- Install dependencies with `uv add <package>`.", "commands"),
 ("sim_notests", "simulacra", "AGENTS.md", "4726b02", "- Do not write tests unless explicitly instructed.", "conventions"),
 ("sim_lintandtest", "simulacra", "CLAUDE.md", H, "- Lint and test after making changes.", "conventions"),
 ("sim_underscore", "simulacra", "AGENTS.md", "eadde8f", "- Prefix private methods and variables with an underscore.", "conventions"),
 # tokentoss
 ("tt_release1", "tokentoss", "CLAUDE.md", "64d421a", "just release 0.2.0", "commands"),
 ("tt_release2", "tokentoss", "AGENTS.md", H, "just start-release 0.2.0", "commands"),
 ("tt_plan1", "tokentoss", "CLAUDE.md", "64d421a", "- When plan mode produces an implementation plan, save it to `_blueprint/implement/`", "conventions"),
 ("tt_plan2", "tokentoss", "AGENTS.md", H, "- Plan-mode outputs and roadmap-committed work go to `_blueprint/features/`", "conventions"),
 ("tt_done1", "tokentoss", "CLAUDE.md", "64d421a", "- Once a plan or implementation is complete, move it to `_blueprint/archive/`", "conventions"),
 ("tt_done2", "tokentoss", "AGENTS.md", H, "- Completed specs move to `_blueprint/archive/features/`", "conventions"),
 ("tt_ideas1", "tokentoss", "CLAUDE.md", "64d421a", "- Raw ideas and exploration go in `_blueprint/ideas/`", "conventions"),
 ("tt_ideas2", "tokentoss", "AGENTS.md", H, "- Raw ideas and unscheduled work live in `roadmap/feature-backlog.md`", "conventions"),
 ("tt_uvrun", "tokentoss", "AGENTS.md", H, "Always use `uv run` to execute commands (not `python` or `python3` directly).", "commands"),
 ("tt_xq", "tokentoss", "AGENTS.md", H, "- The `-x` flag stops on first failure", "commands"),
 ("tt_pytest", "tokentoss", "AGENTS.md", H, "- Always use pytest — do not use unittest directly", "conventions"),
 ("tt_integ", "tokentoss", "AGENTS.md", H, "- Integration tests are marked with `@pytest.mark.integration`", "commands"),
 ("tt_pipaudit", "tokentoss", "AGENTS.md", H, "- `pip-audit` checks dependencies for known CVEs", "commands"),
 ("tt_secci", "tokentoss", "AGENTS.md", H, "- Both run in CI on every PR and weekly via `.github/workflows/security.yml`", "commands"),
 ("tt_justci", "tokentoss", "AGENTS.md", H, "just ci              # run all CI checks locally", "commands"),
 ("tt_tree", "tokentoss", "AGENTS.md", H, "Use the `tree` command for rapid assessment of directory structure.", "conventions"),
 # fastapi-template
 ("ft_dev1", "fastapi-template", "CLAUDE.md", "4b16ed1", "- **Run dev server:** `python main.py` or `uvicorn main:app --reload`", "commands"),
 ("ft_dev2", "fastapi-template", "CLAUDE.md", H, "- **Run dev server:** `fastapi dev app/main.py`", "commands"),
 ("ft_repo1", "fastapi-template", "CLAUDE.md", "4b16ed1", "- Repository methods are `@staticmethod`", "conventions"),
 ("ft_repo2", "fastapi-template", "CLAUDE.md", H, "- Repository methods are `@classmethod`", "conventions"),
 ("ft_pm", "fastapi-template", "CLAUDE.md", H, "- **Package Manager:** uv", "architecture"),
 ("ft_fw", "fastapi-template", "CLAUDE.md", H, "- **Framework:** FastAPI", "architecture"),
 ("ft_orm", "fastapi-template", "CLAUDE.md", H, "- **ORM:** SQLAlchemy 2.0 (async)", "architecture"),
 ("ft_mig", "fastapi-template", "CLAUDE.md", H, "- **Migrations:** Alembic", "architecture"),
 ("ft_init", "fastapi-template", "CLAUDE.md", H, "- **Initialize database:** `uv run alembic upgrade head`", "commands"),
 ("ft_apply", "fastapi-template", "CLAUDE.md", H, "- **Apply migrations:** `uv run alembic upgrade head`", "commands"),
 ("ft_install", "fastapi-template", "CLAUDE.md", H, "- **Install deps:** `uv sync`", "commands"),
 ("ft_tabs", "fastapi-template", "CLAUDE.md", H, "- Use tabs for indentation", "conventions"),
 ("ft_http", "fastapi-template", "CLAUDE.md", H, "- Service functions raise `HTTPException`", "conventions"),
 ("ft_layers", "fastapi-template", "CLAUDE.md", H, "- **Layered architecture:** API → Service → Repository → Database", "architecture"),
 ("ft_commitzh", "fastapi-template", "CLAUDE.md", H, "- Commit 信息使用中文", "conventions"),
 # terence-python
 ("tp_noproj", "terence-python", "CLAUDE.md", "d8aff8a", "Early-stage; no projects yet.", "architecture"),
 ("tp_solar1", "terence-python", "CLAUDE.md", "ec67868", "- **solar-cli** (`projects/solar-cli`)", "architecture"),
 ("tp_solar2", "terence-python", "CLAUDE.md", "ec67868", "- Run solar-cli locally:", "commands"),
 ("tp_solar3", "terence-python", "CLAUDE.md", "ec67868", "- Build solar-cli image:", "commands"),
 ("tp_home1", "terence-python", "CLAUDE.md", H, "- **home-mcp** (`projects/home-mcp`)", "architecture"),
 ("tp_home2", "terence-python", "CLAUDE.md", H, "- Run home-mcp locally:", "commands"),
 ("tp_home3", "terence-python", "CLAUDE.md", H, "- Build home-mcp image:", "commands"),
 ("tp_tech", "terence-python", "CLAUDE.md", H, "- **tech-mcp** (`projects/tech-mcp`)", "architecture"),
 ("tp_techtest", "terence-python", "CLAUDE.md", H, "- Run tech-mcp tests:", "commands"),
 ("tp_projdir1", "terence-python", "CLAUDE.md", "d8aff8a", "- Projects live in `projects/`", "architecture"),
 ("tp_projdir2", "terence-python", "CLAUDE.md", H, "- Projects live in `projects/`, each with its own", "architecture"),
 ("tp_py313", "terence-python", "CLAUDE.md", H, "- Python 3.13+", "conventions"),
 ("tp_uv", "terence-python", "CLAUDE.md", H, "Use **uv** (not pip/pipx/poetry).", "commands"),
 ("tp_lint", "terence-python", "CLAUDE.md", H, "- Lint: `uv run ruff check`", "commands"),
 ("tp_fix", "terence-python", "CLAUDE.md", H, "- Lint (auto-fix): `uv run ruff check --fix`", "commands"),
 ("tp_fmt", "terence-python", "CLAUDE.md", H, "- Format: `uv run ruff format`", "commands"),
 ("tp_setup", "terence-python", "CLAUDE.md", H, "- First-time setup: `make setup`", "commands"),
 ("tp_commit", "terence-python", "CLAUDE.md", H, "- Commit messages use imperative present tense", "conventions"),
 ("tp_ruffstyle", "terence-python", "CLAUDE.md", H, "Handled entirely by Ruff — do not manually enforce formatting rules.", "conventions"),
 # bio-architect
 ("bio_py", "bio-architect", "CLAUDE.md", "a00c4ab", "- **Python**: Use `uv` for package management.", "commands"),
 ("bio_pm", "bio-architect", "CLAUDE.md", H, "- **Package Management**: Use `uv` for package management.", "commands"),
 ("bio_pyd", "bio-architect", "CLAUDE.md", "99ee036", "- **Models**: Use Pydantic for data models.", "architecture"),
 ("bio_sqlm", "bio-architect", "CLAUDE.md", H, "- **Models**: Use SQLModel for data models.", "architecture"),
 ("bio_tdd", "bio-architect", "CLAUDE.md", H, "- **TDD**: Always start with tests.", "conventions"),
 # jemdzem
 ("jem_check1", "jemdzem", "AGENTS.md", "46ba16d", "1. uv run ruff check .", "commands"),
 ("jem_check2", "jemdzem", "AGENTS.md", H, "1. uv run ruff check --fix .", "commands"),
 ("jem_fmt", "jemdzem", "AGENTS.md", H, "2. uv run ruff format .", "commands"),
 ("jem_pytest", "jemdzem", "AGENTS.md", H, "3. uv run python -m pytest", "commands"),
 ("jem_noinst", "jemdzem", "AGENTS.md", H, "1. Do not install packages.", "conventions"),
 ("jem_nosys", "jemdzem", "AGENTS.md", H, "2. Do not use system python or pip.", "conventions"),
 ("jem_uv", "jemdzem", "AGENTS.md", H, "3. Always use uv.", "conventions"),
 ("jem_uvrun", "jemdzem", "AGENTS.md", H, "4. Always run scripts with uv run.", "conventions"),
 # appforge-poc
 ("af_read", "appforge-poc", "AGENTS.md", H, "- Always read this file (AGENTS.md)", "conventions"),
 ("af_uv", "appforge-poc", "AGENTS.md", H, "- Use `uv` only for Python package management", "conventions"),
 ("af_py312", "appforge-poc", "AGENTS.md", H, "- Target Python 3.12 or newer for runtime and tooling.", "conventions"),
 ("af_failfast", "appforge-poc", "AGENTS.md", H, "- Fail fast:", "conventions"),
 ("af_args", "appforge-poc", "AGENTS.md", H, "- Prefer `--arg` style CLI arguments", "conventions"),
 ("af_nofallback", "appforge-poc", "AGENTS.md", H, "- No fallbacks unless explicitly requested", "conventions"),
 # flanks-python
 ("fl_ptest", "flanks-python", "CLAUDE.md", "964107a", "- Run tests: `poetry run pytest`", "commands"),
 ("fl_utest", "flanks-python", "CLAUDE.md", H, "- Run tests: `uv run pytest`", "commands"),
 ("fl_pmypy", "flanks-python", "CLAUDE.md", "964107a", "- Type checking: `poetry run mypy`", "commands"),
 ("fl_umypy", "flanks-python", "CLAUDE.md", "4864d8c", "- Type checking: `uv run mypy flanks`", "commands"),
 ("fl_ty", "flanks-python", "CLAUDE.md", H, "- Type checking: `uv run ty check`", "commands"),
 ("fl_pother", "flanks-python", "CLAUDE.md", "964107a", "- Other commands: `poetry run <command>`", "commands"),
 ("fl_uother", "flanks-python", "CLAUDE.md", H, "- Other commands: `uv run <command>`", "commands"),
 ("fl_lint", "flanks-python", "CLAUDE.md", H, "- Linting: `uv run ruff check flanks tests`", "commands"),
 # mlflow-dep-analyzer
 ("ml_test1", "mlflow-dep-analyzer", "CLAUDE.md", "e606ea4", "- Run tests: `uv run pytest` (includes MLflow server", "commands"),
 ("ml_test2", "mlflow-dep-analyzer", "CLAUDE.md", H, "- Run tests: `uv run pytest tests/` (includes MLflow server", "commands"),
 ("ml_mypy", "mlflow-dep-analyzer", "CLAUDE.md", H, "- Run type checking: `uv run mypy`", "commands"),
 ("ml_py311", "mlflow-dep-analyzer", "CLAUDE.md", H, "- **Minimum Python Version**: 3.11+", "conventions"),
 ("ml_uvrun", "mlflow-dep-analyzer", "CLAUDE.md", H, "- Prefix Python commands with `uv run`", "commands"),
 ("ml_lint", "mlflow-dep-analyzer", "CLAUDE.md", H, "- Run linting: `uv run ruff check`", "commands"),
 ("ml_sync", "mlflow-dep-analyzer", "CLAUDE.md", H, "- Install dependencies: `uv sync`", "commands"),
 ("ml_testsbefore", "mlflow-dep-analyzer", "CLAUDE.md", H, "- Run tests before each commit", "conventions"),
 ("ml_hardcode", "mlflow-dep-analyzer", "CLAUDE.md", H, "- **DO NOT** hardcode directory names specific to this project", "conventions"),
]



def _git(git_dir, *a):
    return subprocess.run(["git", "--git-dir", git_dir, *a], capture_output=True, text=True, check=True).stdout


def content_of(line):
    s = line.strip()
    s = re.sub(r"^(?:[-*+]|\d+\.)\s+", "", s)
    return s


def entries(sources, rows=None, repos=None):
    """(entries, info): the entries in the order of ``rows`` (default: E), and per key its entry id,
    project, text, date and where the line was found. ``sources.git_dir(owner/name, commit)`` gives a git
    directory; ``repos`` (default: REPOS) the repository and pinned commit of each project."""
    found, info = [], {}
    repos = REPOS if repos is None else repos
    for key, proj, path, commit, needle, cat in E if rows is None else rows:
        repo, pinned = repos[proj]
        gd = sources.git_dir(repo, pinned)
        full = _git(gd, "rev-parse", pinned if commit == H else commit).strip()
        text = _git(gd, "show", f"{full}:{path}").split("\n")
        hits = [i for i, line in enumerate(text) if needle in line]
        if len(hits) != 1:
            raise SystemExit(f"{key}: {len(hits)} hits for {needle!r} in {repo}@{commit}:{path}")
        n = hits[0] + 1
        bl = _git(gd, "blame", "--porcelain", "-C", "-C", "-M", "-L", f"{n},{n}", full, "--", path)
        sha = bl.split()[0]
        ctime = int(re.search(r"^committer-time (\d+)", bl, re.M).group(1))
        created = datetime.datetime.fromtimestamp(ctime, datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        content = content_of(text[hits[0]])
        eid = hashlib.sha1(f"{proj}\0{content}".encode()).hexdigest()[:12]
        found.append({"id": eid, "category": cat, "content": content, "created": created, "tags": [f"project:{proj}"]})
        info[key] = {"id": eid, "project": proj, "text": content, "date": created,
                     "where": f"{repo}@{sha[:10]}:{path} (line {n} at {full[:10]})"}
    ids = [e["id"] for e in found]
    assert len(ids) == len(set(ids)), "duplicate ids"
    return found, info


#: the identity and date of the one commit of the entries stores
COMMIT_ENV = {"GIT_AUTHOR_NAME": "bench41", "GIT_AUTHOR_EMAIL": "bench41@replay.invalid", "GIT_COMMITTER_NAME": "bench41",
              "GIT_COMMITTER_EMAIL": "bench41@replay.invalid", "GIT_AUTHOR_DATE": "2026-08-22T00:00:00Z",
              "GIT_COMMITTER_DATE": "2026-08-22T00:00:00Z"}


def write_store(root, found, message="entries made of public agent-file bullets (see truth.json)"):
    """The store: a git repository (one commit) holding .lore/memory/entries/<created>-<id>.json."""
    d = os.path.join(root, ".lore", "memory", "entries")
    os.makedirs(d)
    for e in found:
        ts = e["created"].replace("-", "").replace(":", "")
        with open(os.path.join(d, f"{ts}-{e['id']}.json"), "w", encoding="utf-8") as fh:
            fh.write(json.dumps(e, indent=2, ensure_ascii=False) + "\n")
    subprocess.run(["git", "init", "-q", "-b", "main", root], check=True)
    with open(os.path.join(root, ".git", "info", "exclude"), "a") as fh:
        fh.write("truth.json\n")
    subprocess.run(["git", "-C", root, "add", "-A"], check=True)
    subprocess.run(["git", "-C", root, "-c", "commit.gpgsign=false", "commit", "-q", "--no-verify", "-m",
                    message], check=True, env=dict(os.environ, **COMMIT_ENV))


# ---- labels (hand-written) ----
# (subject, old key, new key, old literal, new literal, note)
U = [
 ("telegram-bot type checker", "tg_mypy", "tg_ty1", "mypy", "ty check", "tool replaced (commit 'migrate to ty')"),
 ("telegram-bot type-check command", "tg_ty1", "tg_ty2", "make type", "uv run ty check src tests", "Makefile deleted 2026-01-15; AGENTS.md rewrite"),
 ("telegram-bot lint command", "tg_lint1", "tg_lint2", "make lint", "uv run ruff check src tests", "Makefile deleted 2026-01-15"),
 ("telegram-bot check-everything command", "tg_makeall", "tg_just", "make lint && make type", "just", "Makefile deleted, justfile added 2026-08-09"),
 ("telegram-bot publish command", "tg_pub1", "tg_pub2", "make publish", "uv build --wheel && uv publish", ""),
 ("telegram-bot OPENAI_MODEL default", "tg_model1", "tg_model2", "gpt-4o", "gpt-4.1", "version of one named thing"),
 ("telegram-bot bot framework", "tg_fw1", "tg_fw2", "python-telegram-bot", "aiogram", "framework replaced (aiogram migration)"),
 ("telegram-bot retry module path", "tg_retry1", "tg_retry2", "src/bot/retry.py", "src/bot/retry_utils.py", "file renamed"),
 ("telegram-bot Python version", "tg_py312", "tg_py313", "3.12+", "3.13+", ""),
 ("telegram-bot Python version", "tg_py313", "tg_py314", "3.13+", "3.14", "then restated as 'Python 3.14+' and 'Target Python 3.14 or newer'"),
 ("telegram-bot MCP server config location", "tg_mcp1", "tg_mcp2", "config/*.json", "src/bot/agents/chat.py", "config folder deleted"),
 ("telegram-bot what `uv run bot` reads", "tg_run1", "tg_run2", "config/default.json", ".env", ""),
 ("telegram-bot pre-commit command", "tg_prek1", "tg_prek2", "uv run prek run -a", "prek run -a", "command changed (no uv run)"),
 ("simulacra test command", "sim_pipenv", "sim_uvtest1", "pipenv run pytest", "uv run pytest", "commit 'Switch to uv'"),
 ("simulacra test command", "sim_uvtest2", "sim_maketest", "uv run pytest", "make test", "the older wording sim_uvtest1 says the same"),
 ("simulacra test command", "sim_maketest", "sim_testq", "make test", "make test-quiet", "quiet variants"),
 ("simulacra formatter / linter", "sim_black", "sim_makelint", "Black", "make lint", ""),
 ("simulacra lint command", "sim_makelint", "sim_lintq", "make lint", "make lint-quiet", "quiet variants"),
 ("simulacra type annotations", "sim_notypes", "sim_types", "Do not use type annotations", "Add types where sensible", "the 'no annotations' rule was removed 2025-05-26"),
 ("tokentoss release recipe", "tt_release1", "tt_release2", "just release 0.2.0", "just start-release 0.2.0", "recipe renamed"),
 ("tokentoss where plan-mode output goes", "tt_plan1", "tt_plan2", "_blueprint/implement/", "_blueprint/features/", "blueprint reorganised"),
 ("tokentoss where completed plans go", "tt_done1", "tt_done2", "move it to `_blueprint/archive/`", "_blueprint/archive/features/", ""),
 ("tokentoss where raw ideas go", "tt_ideas1", "tt_ideas2", "_blueprint/ideas/", "roadmap/feature-backlog.md", ""),
 ("fastapi-template dev server command", "ft_dev1", "ft_dev2", "uvicorn main:app --reload", "fastapi dev app/main.py", ""),
 ("fastapi-template repository method kind", "ft_repo1", "ft_repo2", "@staticmethod", "@classmethod", ""),
 ("terence-python projects in the workspace", "tp_noproj", "tp_home1", "no projects yet", "home-mcp", "first solar-cli (2026-02-22), then home-mcp"),
 ("terence-python project", "tp_solar1", "tp_home1", "solar-cli", "home-mcp", "commit 'Replace solar-cli with home-mcp'"),
 ("terence-python run command", "tp_solar2", "tp_home2", "uv run solar-cli --verbose", "uv run home-mcp", ""),
 ("terence-python image build", "tp_solar3", "tp_home3", "solar-cli:latest", "home-mcp:latest", ""),
 ("bio-architect data model library", "bio_pyd", "bio_sqlm", "Pydantic", "SQLModel", ""),
 ("jemdzem lint step", "jem_check1", "jem_check2", "uv run ruff check .", "uv run ruff check --fix .", "flag added (same tool)"),
 ("flanks-python test command", "fl_ptest", "fl_utest", "poetry run pytest", "uv run pytest", "commit 'migrate from poetry to uv'"),
 ("flanks-python type-check command", "fl_pmypy", "fl_umypy", "poetry run mypy", "uv run mypy flanks", ""),
 ("flanks-python type checker", "fl_umypy", "fl_ty", "mypy", "ty check", "commit 'migrate from mypy to ty'"),
 ("flanks-python other commands", "fl_pother", "fl_uother", "poetry run <command>", "uv run <command>", ""),
 ("mlflow-dep-analyzer test command scope", "ml_test1", "ml_test2", "uv run pytest` (includes", "uv run pytest tests/", "narrowed to tests/"),
]
# same fact said twice in one project (later wording, or a label changed): duplicates, not updates
DUP = [
 ("tg_py314a", "tg_py314", "paraphrase", "Python 3.14+ restated; tg_py314a also holds tg_async"),
 ("tg_py314a", "tg_async", "paraphrase", "async-first + type hints restated"),
 ("tg_fw2", "tg_overview", "paraphrase", "aiogram bot"),
 ("sim_uvtest1", "sim_uvtest2", "near", "both replaced later by make test"),
 ("sim_uvrun1", "sim_uvrun", "paraphrase", "run python commands with uv run (the older also says manage dependencies with uv)"),
 ("bio_py", "bio_pm", "near", "label changed from Python to Package Management"),
 ("tp_projdir1", "tp_projdir2", "near", "the newer says more"),
]


# pairs that are not conflicts (key, key, why), and pairs not scored (key, key, why)
NC = [
 ("tg_py314", "af_py312", "different projects (Python 3.14+ vs 3.12+)"),
 ("tg_py314", "tp_py313", "different projects"),
 ("tp_py313", "af_py312", "different projects"),
 ("ml_py311", "af_py312", "different projects"),
 ("ml_py311", "tp_py313", "different projects"),
 ("jem_noinst", "sim_uvadd", "different projects: 'do not install packages' vs 'install dependencies with uv add'"),
 ("sim_notests", "bio_tdd", "different projects: 'do not write tests unless instructed' vs 'always start with tests'"),
 ("ml_mypy", "fl_ty", "different projects: mypy vs ty are two type checkers, each current in its own project"),
 ("ml_mypy", "tg_ty2", "different projects"),
 ("tt_uvrun", "tg_run2", "different projects; and 'use uv run' vs a longer command using uv run are not opposites"),
 ("sim_uvrun", "sim_testq", "same project: a make target is not a Python command; both rules hold"),
 ("tp_lint", "tp_fix", "same project: a command and the same command with --fix are two commands, both true"),
 ("ft_init", "ft_apply", "same project: the same command for two purposes"),
 ("fl_utest", "sim_uvtest1", "identical text in two projects: current in flanks-python, replaced in simulacra; never merge across projects"),
 ("ml_lint", "tp_lint", "different projects, same command: never a conflict; a merge would drop a project"),
 ("tp_commit", "tg_commits", "different projects: both ask for imperative commit messages"),
 ("tg_sync", "ml_sync", "different projects, same command"),
 ("ml_sync", "ft_install", "different projects, same command"),
 ("jem_uvrun", "tt_uvrun", "different projects"),
 ("ml_uvrun", "sim_uvrun", "different projects"),
 ("jem_check2", "tp_fix", "different projects, same command"),
 ("jem_check2", "tg_lint2", "different projects, ruff check with different paths"),
 ("tg_ruff120", "ft_tabs", "different projects, different subjects"),
 ("af_uv", "jem_nosys", "different projects; both forbid pip"),
 ("tp_uv", "af_uv", "different projects"),
 ("sim_lintandtest", "sim_notests", "same project: running tests is not writing tests"),
 ("ml_test2", "tp_techtest", "different projects: pytest tests/ in two projects"),
 ("fl_uother", "tt_uvrun", "different projects"),
 ("tg_async", "sim_types", "different projects"),
 ("tg_modtests", "tt_pytest", "different projects"),
]
AMBIGUOUS = [
 ("tg_lint2", "tg_just", "the newest AGENTS.md names only `just`; the ruff command may still be right: not scored"),
 ("tg_ty2", "tg_just", "as above"),
 ("sim_notests", "sim_lintandtest", "'do not write tests' was dropped from the file when it was simplified (2025-12-24) without a replacement; kept as current"),
]
# replaced in its project by a later memory of the same project; also replaced: restatements of a replaced memory
ALSO_OLD = {"sim_uvtest1"}


def labelled(store, info, rows, repos, updates_rows, dup_rows, nc_rows, ambiguous_rows, also_old, notes):
    """The truth of an entries store from its labels: ``info`` as :func:`entries` gives it for ``rows``."""

    def ref(k):
        return dict(info[k], key=k)

    updates = [{"subject": s, "old": dict(ref(o), literal=ol), "new": dict(ref(n), literal=nl), "note": note}
               for s, o, n, ol, nl, note in updates_rows]
    replaced = {u["old"]["key"] for u in updates}
    dups = [{"fact": a, "kind": k, "identical": False, "locations": [{"entry": info[a]["id"]}, {"entry": info[b]["id"]}], "note": note}
            for a, b, k, note in dup_rows]
    facts = []
    for key, proj, *_ in rows:
        cur = key not in replaced and key not in also_old
        facts.append({"id": key, "entry": info[key]["id"], "project": proj, "text": info[key]["text"], "created": info[key]["date"], "current": cur})
    return {
         "store": store,
         "source": {p: {"repo": r, "head": head} for p, (r, head) in repos.items()},
         "notes": notes,
         "facts": facts, "duplicates": dups, "updates": updates, "disagreements": [],
         "not_conflicts": [{"a": ref(a), "b": ref(b), "why": why} for a, b, why in nc_rows],
         "ambiguous": [{"a": ref(a), "b": ref(b), "why": why} for a, b, why in ambiguous_rows]}


def truth(store_dir, sources):
    """The truth (store_dir is not read: the entries come from the sources)."""
    _, info = entries(sources)
    return labelled("updates-entries", info, E, REPOS, U, DUP, NC, AMBIGUOUS, ALSO_OLD,
                    "One JSON entry per bullet; `created` is the committer time of the commit that added the line (git blame -C -C -M). "
                    "Every entry has the tag project:<name>. facts: every entry; current=false for an entry whose value a later entry "
                    "of the same project replaced (see updates). duplicates: the same fact said twice in one project.")


if __name__ == "__main__":
    cli(STORE, truth)
