"""Entries and truth of the store entries-and-agents-telegram: narumiruna/telegram-bot's CLAUDE.md/AGENTS.md
history replayed (HEAD 3d68621: only AGENTS.md, every line dated 2026-08-09) plus the 36 telegram-bot
entries of the store updates-entries (older and current bullets, each dated by its own commit).
Instruction files and entries are one memory: entries that repeat an AGENTS.md line are duplicates of it;
entries holding a value AGENTS.md states newer are the older side of an update. The labels are by hand,
written before running Lorekeeper on the store."""

import glob
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from truthlib import TRUTH_DIR, Store, cli  # noqa: E402
from updates_entries import COMMIT_ENV  # noqa: E402

STORE = "entries-and-agents-telegram"
A = "AGENTS.md"


def telegram_facts():
    """The telegram-bot facts of the updates-entries truth, by key."""
    ut = json.loads((TRUTH_DIR / "updates-entries.json").read_text(encoding="utf-8"))
    return ut, {f["id"]: f for f in ut["facts"] if f["project"] == "telegram-bot"}


def write_store(root, updates_store):
    """Adds the telegram-bot entries of the built updates-entries store to ROOT (the replayed history of
    AGENTS.md and CLAUDE.md) in one commit."""
    d = os.path.join(root, ".lore", "memory", "entries")
    if os.path.exists(os.path.join(root, ".lore")):
        raise SystemExit("store already has .lore")
    os.makedirs(d)
    ids = {f["entry"] for f in telegram_facts()[1].values()}
    n = 0
    for p in sorted(glob.glob(os.path.join(updates_store, ".lore", "memory", "entries", "*.json"))):
        with open(p, encoding="utf-8") as fh:
            if json.load(fh)["id"] in ids:
                shutil.copy(p, d)
                n += 1
    assert n == len(ids), (n, len(ids))
    with open(os.path.join(root, ".git", "info", "exclude"), "a") as fh:
        fh.write("truth.json\n")
    subprocess.run(["git", "-C", root, "add", "-A"], check=True)
    subprocess.run(["git", "-C", root, "-c", "commit.gpgsign=false", "commit", "-q", "--no-verify", "-m",
                    "telegram-bot memory entries (see truth.json)"], check=True, env=dict(os.environ, **COMMIT_ENV))


def truth(store_dir, sources=None):
    """The truth of the store built in STORE_DIR (the sources are not needed)."""
    S = Store(store_dir)
    ut, tg = telegram_facts()

    def E(k):
        return {"entry": tg[k]["entry"], "key": k, "text": tg[k]["text"], "date": tg[k]["created"]}
    def L(needle):
        loc = S.loc(A, needle)
        loc["date"] = "2026-08-09"
        return loc

    # entries that repeat a line of AGENTS.md at HEAD (verbatim) -> identical duplicates
    IDENT = {"tg_just": "- Run `just` for formatting", "tg_overview": "- This repository is an async aiogram", "tg_py314": "- Target Python 3.14 or newer.",
             "tg_async": "- Use async-first Python", "tg_mcp2": "- MCP servers are assembled in", "tg_run2": "- Run `uv run bot` from the repository root",
             "tg_prek2": "- Run `prek run -a` for the complete", "tg_changelog": "- Append exactly one line to `docs/CHANGELOG.md`",
             "tg_ruff120": "- Follow Ruff with a 120-character", "tg_sync": "- Run `uv sync` to install", "tg_targeted": "- Use `uv run pytest tests/<path>.py -v`",
             "tg_modtests": "- Use module-level pytest functions", "tg_bump": "- Format version bump commits", "tg_commits": "- Use short, imperative, sentence-cased",
             "tg_secrets": "- Keep local secrets in the ignored `.env`", "tg_tags": "- Do not create or push release tags"}
    PARA = [("tg_py314a", "- Target Python 3.14 or newer.", "Python 3.14+ restated (the entry also says async-first and type hints)"),
            ("tg_py314a", "- Use async-first Python", "async-first and type hints restated"),
            ("tg_fw2", "- This repository is an async aiogram", "aiogram bot restated"),
            ("tg_ty2", "- Run `just` for formatting, linting, type checking", "not a duplicate: listed for information only")][:3]
    facts, dups = [], []
    for k, needle in IDENT.items():
        loc = L(needle)
        assert tg[k]["text"] == loc["text"].lstrip("- ").strip(), (k, tg[k]["text"], loc["text"])
        facts.append({"id": k, "text": tg[k]["text"], "locations": [loc, {"entry": tg[k]["entry"]}], "current": True})
        dups.append({"fact": k, "kind": "identical", "identical": True, "locations": [loc, {"entry": tg[k]["entry"]}]})
    for k, needle, note in PARA:
        loc = L(needle)
        dups.append({"fact": k, "kind": "paraphrase", "identical": False, "locations": [loc, {"entry": tg[k]["entry"]}], "note": note})
    # every other telegram entry is a fact too (current or replaced, as in updates-entries)
    for k, f in tg.items():
        if k not in IDENT:
            facts.append({"id": k, "text": f["text"], "locations": [{"entry": f["entry"]}], "current": f["current"]})
    # updates: as in updates-entries; where AGENTS.md at HEAD states the new value, it is a location of the new side too
    NEWLOC = {"tg_py314": "- Target Python 3.14 or newer.", "tg_mcp2": "- MCP servers are assembled in", "tg_run2": "- Run `uv run bot` from the repository root",
              "tg_prek2": "- Run `prek run -a` for the complete", "tg_just": "- Run `just` for formatting", "tg_fw2": "- This repository is an async aiogram"}
    updates = []
    for u in ut["updates"]:
        if not u["subject"].startswith("telegram-bot"):
            continue
        nu = {"subject": u["subject"], "old": dict(u["old"]), "new": dict(u["new"]), "note": u["note"]}
        if u["new"]["key"] in NEWLOC:
            nu["new"]["also_in"] = L(NEWLOC[u["new"]["key"]])
        updates.append(nu)
    # entries holding an older value that AGENTS.md (2026-08-09) states newer: the conflict a reviewer should see
    disagreements = [
     {"subject": "telegram-bot Python version", "older": E("tg_py313"), "newer": L("- Target Python 3.14 or newer.")},
     {"subject": "telegram-bot Python version", "older": E("tg_py312"), "newer": L("- Target Python 3.14 or newer.")},
     {"subject": "telegram-bot MCP server config location", "older": E("tg_mcp1"), "newer": L("- MCP servers are assembled in")},
     {"subject": "telegram-bot what `uv run bot` reads", "older": E("tg_run1"), "newer": L("- Run `uv run bot` from the repository root")},
     {"subject": "telegram-bot pre-commit command", "older": E("tg_prek1"), "newer": L("- Run `prek run -a` for the complete")},
     {"subject": "telegram-bot bot framework", "older": E("tg_fw1"), "newer": L("- This repository is an async aiogram")},
    ]
    def ncl(k, needle, why):
        return {"a": E(k), "b": L(needle), "why": why}

    not_conflicts = [
     ncl("tg_lint2", "- Follow Ruff with a 120-character", "ruff lint command vs ruff line length: different subjects"),
     ncl("tg_targeted", "- Use module-level pytest functions", "a pytest command vs a test style: different subjects"),
     ncl("tg_sync", "- Run `uv run bot` from the repository root", "two uv commands for two jobs"),
     ncl("tg_secrets", "- Keep tokens and integration credentials out of source", "two security rules, both true"),
     ncl("tg_model2", "- Keep `README.md` and `.env.example` aligned", "env var default vs docs rule"),
     {"a": E("tg_tags"), "b": E("tg_bump"), "why": "release tags vs version-bump commit format: different subjects"},
    ]
    return {
      "store": STORE,
      "source": {"repo": "narumiruna/telegram-bot", "commit": "3d68621", "files": ["CLAUDE.md (deleted 2026-01-15)", A],
                 "entries": "the 36 telegram-bot entries of stores/updates-entries"},
      "notes": "locations are {file,line} for AGENTS.md lines and {entry} for entries. duplicates: an entry that repeats an AGENTS.md line. "
               "disagreements: an entry stating a value that AGENTS.md (newer) replaced.",
      "facts": facts, "duplicates": dups, "updates": updates, "disagreements": disagreements, "not_conflicts": not_conflicts}


if __name__ == "__main__":
    cli(STORE, truth)
