#!/usr/bin/env python3
"""Build the real-memory stores from the public repositories they were taken from.

usage: python build.py [DEST] [--source OWNER/NAME=GIT_DIR ...] [--mirror DIR] [--store NAME ...]
                       [--force] [--check-truth] [--compare DIR]

DEST (default: .lore-bench/real-memory under the repository root, git-ignored) receives one folder per
store, each a git repository with truth/<store>.json copied next to its files as truth.json (listed in
.git/info/exclude). A source repository comes from --source, else from --mirror DIR (git directories at
DIR/OWNER+NAME/repo, DIR/OWNER+NAME.git or DIR/OWNER+NAME; default $LORE_BENCH_MIRROR), else it is cloned
into DEST/sources/OWNER+NAME (`git clone --filter=blob:none --no-checkout`; blobs are fetched on demand).

- instruction stores: the history of the chosen files, up to the pinned commit, replayed (replay.py):
  same author names and dates, so `git blame` dates each line as in the source;
- updates-entries: one JSON entry per chosen bullet of ten repositories (truth_src/updates_entries.py),
  one commit;
- updates-heldout: the same, of thirteen other repositories (truth_src/updates_heldout.py), one commit;
- entries-and-agents-telegram: telegram-bot's AGENTS.md/CLAUDE.md history replayed, plus the telegram-bot
  entries of updates-entries, one more commit.

A store whose folder already holds its truth.json is kept (--force builds it again). After building, each
store's HEAD is compared with the commit scored when the truth was written (STORES[...].head): the same
hash means the same files, dates, authors and messages. --check-truth also recomputes every truth from its
labels (truth_src/) on the built stores and compares it byte for byte with truth/; --compare DIR compares
the built stores with the stores in DIR (files, contents, dates).
"""

from __future__ import annotations

import argparse
import importlib
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
TRUTH_DIR = HERE / "truth"
DEFAULT_DEST = REPO / ".lore-bench" / "real-memory"
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "truth_src"))

from replay import replay  # noqa: E402


@dataclass(frozen=True)
class StoreSpec:
    name: str
    repo: str | None  # the replayed repository (None: entries only)
    commit: str | None  # the pinned commit of that repository
    files: list[str] = field(default_factory=list)  # replayed paths (every name a file had)
    head: str = ""  # the store's HEAD when its truth was written and first scored


STORES = [
    StoreSpec("memory-bank-nftbk", "0xmichalis/nftbk", "74078042e79c6c8a24a93d26ba21280a4562b788",
              [".clinerules", ".cursorrules", "memory-bank/activeContext.md", "memory-bank/productContext.md",
               "memory-bank/progress.md", "memory-bank/projectbrief.md", "memory-bank/systemPatterns.md",
               "memory-bank/techContext.md"], "414cd2ae0ef126b1d764037105ce458dc24beec2"),
    StoreSpec("updates-entries", None, None, [], "9b2e3f9dcd1190d87c420874c63eed3950dd3195"),
    StoreSpec("updates-heldout", None, None, [], "765c8233cb38f57578a63e931e53a64d273f89ad"),
    StoreSpec("agent-files-awesome", "josix/awesome-claude-md", "c1e8831bb0372b1c83484f84993c03d304378c75",
              ["CLAUDE.md", "Claude.md", "AGENTS.md", ".github/copilot-instructions.md", "scripts/discovery/AGENTS.md"],
              "6256c27ef8b4b4594bb17e7e7da8fc61700381a8"),
    StoreSpec("paraphrase-deadonfilm", "chenders/deadonfilm", "dbe2e746080c478ef8ca25aaf7cc3b619d6aa541",
              ["CLAUDE.md", ".github/copilot-instructions.md"], "5396d6e4662133c52d9bc9e567c5abfc215fb584"),
    StoreSpec("entries-and-agents-telegram", "narumiruna/telegram-bot", "3d68621521315871f309613fade302d86d141a86",
              ["CLAUDE.md", "AGENTS.md"], "7f3396138f09bbbc5c1973f493047930aaf21805"),
]
BY_NAME = {s.name: s for s in STORES}


def _git(git_dir: str | Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "--git-dir", str(git_dir), *args], capture_output=True, text=True, check=check)


def parse_sources(items: list[str]) -> dict[str, str]:
    out = {}
    for item in items:
        repo, sep, path = item.partition("=")
        if not sep or repo.count("/") != 1 or not path:
            raise SystemExit(f"--source wants OWNER/NAME=GIT_DIR, not {item!r}")
        out[repo] = path
    return out


class Sources:
    """The git directory of each source repository: given, in the mirror folder, or cloned."""

    def __init__(self, given: dict[str, str] | None = None, mirror: str | Path | None = None, clone_dir: Path | None = None):
        self.given = given or {}
        self.mirror = Path(mirror) if mirror else None
        self.clone_dir = (clone_dir or DEFAULT_DEST / "sources").resolve()
        self._dirs: dict[str, Path] = {}

    def git_dir(self, repo: str, commit: str) -> str:
        """A git directory of OWNER/NAME that holds ``commit``."""
        if repo not in self._dirs:
            self._dirs[repo] = self._find(repo)
        gd = self._dirs[repo]
        if _git(gd, "cat-file", "-e", f"{commit}^{{commit}}", check=False).returncode != 0:
            if gd.parent.parent == self.clone_dir:  # our clone: fetch the newer history
                subprocess.run(["git", "--git-dir", str(gd), "fetch", "-q", "origin"], check=True)
            if _git(gd, "cat-file", "-e", f"{commit}^{{commit}}", check=False).returncode != 0:
                raise SystemExit(f"{repo}: commit {commit} is not in {gd}")
        return str(gd)

    def _find(self, repo: str) -> Path:
        slug = repo.replace("/", "+")
        candidates = []
        if repo in self.given:
            candidates.append(Path(self.given[repo]))
        if self.mirror:
            candidates += [self.mirror / slug / "repo", self.mirror / f"{slug}.git", self.mirror / slug]
        for c in candidates:
            if (c / ".git").is_dir():
                return (c / ".git").resolve()
            if (c / "objects").is_dir():
                return c.resolve()
        if repo in self.given:
            raise SystemExit(f"--source {repo}={self.given[repo]}: no git directory there")
        target = self.clone_dir / slug
        if not (target / ".git").is_dir():
            target.parent.mkdir(parents=True, exist_ok=True)
            print(f"real-memory: cloning {repo} into {target}", flush=True)
            subprocess.run(["git", "clone", "-q", "--filter=blob:none", "--no-checkout", f"https://github.com/{repo}",
                            str(target)], check=True)
        return (target / ".git").resolve()


def truth_module(name: str) -> ModuleType:
    return importlib.import_module(name.replace("-", "_"))


def _exclude_truth(root: Path) -> None:
    with open(root / ".git" / "info" / "exclude", "a") as fh:
        fh.write("truth.json\n")


def build_store(spec: StoreSpec, dest: Path, sources: Sources) -> Path:
    root = dest / spec.name
    if root.exists():
        shutil.rmtree(root)
    if spec.repo is None:  # an entries store: one JSON entry per chosen line of its source repositories
        mod = truth_module(spec.name)
        entries, _ = mod.entries(sources)
        mod.write_store(str(root), entries)
    else:
        assert spec.repo and spec.commit
        replay(sources.git_dir(spec.repo, spec.commit), spec.commit, str(root), spec.repo, spec.files)
        if spec.name == "entries-and-agents-telegram":
            truth_module(spec.name).write_store(str(root), str(dest / "updates-entries"))
        else:
            _exclude_truth(root)
    shutil.copyfile(TRUTH_DIR / f"{spec.name}.json", root / "truth.json")  # last: marks the store complete
    return root


def is_built(spec: StoreSpec, dest: Path) -> bool:
    truth = dest / spec.name / "truth.json"
    return truth.is_file() and truth.read_bytes() == (TRUTH_DIR / f"{spec.name}.json").read_bytes()


def head_of(root: Path) -> str:
    return _git(root / ".git", "rev-parse", "HEAD").stdout.strip()


def build(dest: Path, sources: Sources, only: list[str] | None = None, force: bool = False, quiet: bool = False) -> list[Path]:
    """Build the stores (all, or ``only``) missing under DEST; returns their folders. Prints each store's
    HEAD against the commit scored when its truth was written."""
    wanted = [s for s in STORES if not only or s.name in only]
    if only and "entries-and-agents-telegram" in only and "updates-entries" not in only:
        wanted.insert(0, BY_NAME["updates-entries"])  # its entries are copied from there
    out = []
    for spec in wanted:
        root = dest / spec.name
        if force or not is_built(spec, dest):
            build_store(spec, dest, sources)
            head = head_of(root)
            note = "the commit scored when the truth was written" if head == spec.head else f"DIFFERS from {spec.head[:12]}"
            print(f"real-memory: built {spec.name}: HEAD {head[:12]} ({note})", flush=True)
        elif not quiet:
            print(f"real-memory: {spec.name} already built in {root}", flush=True)
        if not only or spec.name in only:
            out.append(root)
    return out


def check_truth(dest: Path, sources: Sources, only: list[str] | None = None) -> bool:
    """Recompute each truth from its labels on the built store; True when all equal truth/."""
    import truthlib

    ok = True
    for spec in STORES:
        if only and spec.name not in only:
            continue
        text = truthlib.dumps(truth_module(spec.name).truth(str(dest / spec.name), sources))
        same = text == (TRUTH_DIR / f"{spec.name}.json").read_text(encoding="utf-8")
        ok = ok and same
        print(f"truth of {spec.name}: {'same as' if same else 'DIFFERS from'} truth/{spec.name}.json (sha256 {truthlib.sha256(text)})")
    return ok


def _tree(root: Path) -> dict[str, bytes]:
    out = {}
    for d, dirs, files in os.walk(root):
        if ".git" in dirs:
            dirs.remove(".git")
        for f in files:
            p = Path(d) / f
            rel = str(p.relative_to(root))
            out[rel] = b"link:" + os.readlink(p).encode() if p.is_symlink() else p.read_bytes()
    return out


def compare(dest: Path, other: Path, only: list[str] | None = None) -> bool:
    """Compare each built store with the store of the same name in OTHER: HEAD, every commit's dates, author
    and subject, the files at HEAD and in the work tree, .git/info/exclude. True when all are equal."""
    ok = True
    for spec in STORES:
        if only and spec.name not in only:
            continue
        a, b = dest / spec.name, other / spec.name
        diffs = []
        for what, args in (("HEAD", ["rev-parse", "HEAD"]),
                           ("log (dates, author, subject)", ["log", "--format=%aI %cI %an <%ae> %s"]),
                           ("files at HEAD", ["ls-tree", "-r", "HEAD"])):
            if _git(a / ".git", *args).stdout != _git(b / ".git", *args).stdout:
                diffs.append(what)
        ta, tb = _tree(a), _tree(b)
        if ta != tb:
            changed = sorted(k for k in ta.keys() | tb.keys() if ta.get(k) != tb.get(k))
            diffs.append("work tree: " + ", ".join(changed[:8]))
        if (a / ".git/info/exclude").read_bytes() != (b / ".git/info/exclude").read_bytes():
            diffs.append(".git/info/exclude")
        ok = ok and not diffs
        commits = _git(a / ".git", "rev-list", "--count", "HEAD").stdout.strip()
        print(f"compare {spec.name}: " + ("identical" if not diffs else "DIFFERENT: " + "; ".join(diffs))
              + f" ({commits} commits, {len(ta)} files, HEAD {head_of(a)[:12]})")
    return ok


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dest", nargs="?", type=Path, default=DEFAULT_DEST, help="where the stores go")
    ap.add_argument("--source", action="append", default=[], metavar="OWNER/NAME=GIT_DIR",
                    help="the git directory of a source repository (repeatable)")
    ap.add_argument("--mirror", default=os.environ.get("LORE_BENCH_MIRROR"),
                    help="a folder of git directories OWNER+NAME/repo (default $LORE_BENCH_MIRROR)")
    ap.add_argument("--store", action="append", choices=list(BY_NAME), help="only this store (repeatable)")
    ap.add_argument("--force", action="store_true", help="build again stores that exist")
    ap.add_argument("--check-truth", action="store_true", help="recompute every truth from truth_src/ and compare")
    ap.add_argument("--compare", type=Path, metavar="DIR", help="compare the built stores with those in DIR")
    a = ap.parse_args()
    dest = a.dest.resolve()
    sources = Sources(parse_sources(a.source), a.mirror, dest / "sources")
    build(dest, sources, a.store, a.force)
    ok = True
    if a.check_truth:
        ok = check_truth(dest, sources, a.store) and ok
    if a.compare:
        ok = compare(dest, a.compare, a.store) and ok
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
