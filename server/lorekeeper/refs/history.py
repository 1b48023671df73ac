"""What git remembers: whether a path or a word ever existed, and the commit that removed or moved it.

Path history comes from one ``git log --name-status -M`` pass over the whole history, cached per HEAD in
``.lore/cache/``; word history (``git log -S``) is asked only for the few references that do not resolve
today, and cached the same way."""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..store.files import atomic_write


@dataclass(frozen=True)
class Commit:
    sha: str
    date: str  # ISO 8601
    subject: str

    def describe(self) -> str:
        return f"{self.sha[:7]} on {self.date[:10]}: {self.subject}"


@dataclass(frozen=True)
class Removal:
    """The newest commit that deleted or renamed a path (``moved_to`` for a rename)."""

    commit: Commit
    moved_to: str | None


class GitHistory:
    """Read-only access to a workspace's git history. Every method degrades to "unknown" (``None`` /
    empty) when the workspace is not a git repository or git is missing."""

    def __init__(self, root: Path, cache_dir: Path | None = None):
        self.root = root
        self.cache_dir = cache_dir
        self.head = self._git("rev-parse", "HEAD").strip() if (root / ".git").exists() else ""
        self._paths: dict[str, list[list[str]]] | None = None
        self._commits: dict[str, Commit] = {}
        self._pickaxe: dict[str, list[str]] = {}
        self._before: dict[str, str] = {}
        self._dirty = False
        self._dirty_paths: set[str] | None = None

    @property
    def available(self) -> bool:
        return bool(self.head)

    def _git(self, *args: str) -> str:
        try:
            proc = subprocess.run(["git", "-C", str(self.root), "-c", "core.quotePath=false", *args],
                                  capture_output=True, text=True, timeout=120, check=False)
        except (OSError, subprocess.SubprocessError):
            return ""
        return proc.stdout if proc.returncode == 0 else ""

    # -- cache -----------------------------------------------------------------------------------

    def _cache_file(self) -> Path | None:
        return self.cache_dir / f"history-{self.head[:16]}.json" if self.cache_dir and self.head else None

    def _load(self) -> None:
        if self._paths is not None:
            return
        cache = self._cache_file()
        if cache and cache.is_file():
            try:
                data = json.loads(cache.read_text(encoding="utf-8"))
                self._paths = data["paths"]
                self._commits = {k: Commit(*v) for k, v in data["commits"].items()}
                self._pickaxe = data.get("pickaxe", {})
                self._before = data.get("before", {})
                return
            except (OSError, ValueError, KeyError, TypeError):
                pass
        self._paths, self._commits = self._scan()
        self._dirty = True

    def save(self) -> None:
        """Write the cache (history of this HEAD) if anything new was learnt."""
        cache = self._cache_file()
        if not (cache and self._dirty and self._paths is not None):
            return
        for old in cache.parent.glob("history-*.json"):
            if old != cache:
                old.unlink(missing_ok=True)
        data: dict[str, Any] = {"paths": self._paths, "pickaxe": self._pickaxe, "before": self._before,
                                "commits": {k: [c.sha, c.date, c.subject] for k, c in self._commits.items()}}
        atomic_write(cache, json.dumps(data).encode("utf-8"))
        self._dirty = False

    def _scan(self) -> tuple[dict[str, list[list[str]]], dict[str, Commit]]:
        paths: dict[str, list[list[str]]] = {}
        commits: dict[str, Commit] = {}
        if not self.available:
            return paths, commits
        out = self._git("log", "--format=%x00%H%x00%cI%x00%s", "--name-status", "-M")
        sha = ""
        for line in out.splitlines():
            if line.startswith("\x00"):
                _, sha, date, subject = (line.split("\x00", 3) + ["", "", ""])[:4]
                commits[sha] = Commit(sha, date, subject)
            elif line and sha:
                parts = line.split("\t")
                status = parts[0][:1]
                if status == "R" and len(parts) == 3:
                    paths.setdefault(parts[1], []).append(["R", sha, parts[2]])
                    paths.setdefault(parts[2], []).append(["A", sha, ""])
                elif len(parts) >= 2:
                    paths.setdefault(parts[-1], []).append([status, sha, ""])
        return paths, commits

    # -- questions -------------------------------------------------------------------------------

    def existed(self, path: str) -> bool:
        """Whether the path (a file, or a folder when it ends with ``/`` or has files under it) ever
        existed in a commit."""
        self._load()
        assert self._paths is not None
        folder = path.rstrip("/") + "/"
        return path.rstrip("/") in self._paths or any(p.startswith(folder) for p in self._paths)

    def removal(self, path: str) -> Removal | None:
        """The newest commit that deleted or renamed the file, or (for a folder) a file under it."""
        self._load()
        assert self._paths is not None
        clean = path.rstrip("/")
        events = list(self._paths.get(clean, []))
        if not events:
            folder = clean + "/"
            events = [e for p, evs in self._paths.items() if p.startswith(folder) for e in evs]
            events = [e for e in events if e[0] in "DR"]
            events.sort(key=lambda e: self._commits[e[1]].date if e[1] in self._commits else "", reverse=True)
        for status, sha, target in events:
            if status in "DR":
                return Removal(self._commits.get(sha, Commit(sha, "", "")), target or None)
            if status in "AM":
                return None  # re-added after the last removal
        return None

    def moved_to(self, path: str) -> str | None:
        """Where a renamed file went, following a chain of renames to a path that exists in HEAD's tree
        history (the caller checks the filesystem)."""
        seen = set()
        current = path
        while current not in seen:
            seen.add(current)
            removal = self.removal(current)
            if removal is None or not removal.moved_to:
                break
            current = removal.moved_to
        return current if current != path else None

    def prefetch(self, questions: list[tuple[str, tuple[str, ...]]]) -> None:
        """Answer many :meth:`pickaxe` questions with one ``git log -G`` per set of paths: the commits
        whose diff has a line holding each word (as a whole word), newest first."""
        if not self.available:
            return
        self._load()
        groups: dict[tuple[str, ...], set[str]] = {}
        for term, specs in questions:
            if self._key(term, specs) not in self._pickaxe:
                groups.setdefault(specs, set()).add(term)
        for specs, terms in groups.items():
            found: dict[str, list[str]] = {t: [] for t in terms}
            for chunk in _chunks(sorted(terms), 200):
                regex = "|".join(_ere_escape(t) for t in chunk)
                words = re.compile(r"(?<![\w$])(" + "|".join(re.escape(t) for t in sorted(chunk, key=len, reverse=True)) + r")(?![\w$])")
                out = self._git("log", "-E", "-G", regex, "-p", "--no-color", "--no-ext-diff", "-U0",
                                "--format=%x00%H%x00%cI%x00%s", "--", *specs)
                sha = ""
                for line in out.splitlines():
                    if line.startswith("\x00"):
                        _, sha, date, subject = (line.split("\x00", 3) + ["", "", ""])[:4]
                        self._commits.setdefault(sha, Commit(sha, date, subject))
                    elif sha and line[:1] in "+-" and not line.startswith(("+++", "---")):
                        for word in set(words.findall(line[1:])):
                            if not found[word] or found[word][-1] != sha:
                                found[word].append(sha)
            for term, shas in found.items():
                self._pickaxe[self._key(term, specs)] = shas
            self._dirty = True

    @staticmethod
    def _key(term: str, pathspecs: tuple[str, ...]) -> str:
        return term + "\x00" + "\x00".join(pathspecs)

    def pickaxe(self, term: str, pathspecs: tuple[str, ...] = ()) -> list[Commit]:
        """Commits, newest first, that changed how often ``term`` occurs (``git log -S``) in these paths."""
        if not self.available:
            return []
        self._load()
        key = self._key(term, pathspecs)
        if key not in self._pickaxe:
            out = self._git("log", "-S", term, "--format=%H%x00%cI%x00%s", "--", *pathspecs)
            shas = []
            for line in out.splitlines():
                sha, date, subject = (line.split("\x00") + ["", ""])[:3]
                self._commits.setdefault(sha, Commit(sha, date, subject))
                shas.append(sha)
            self._pickaxe[key] = shas
            self._dirty = True
        return [self._commits[s] for s in self._pickaxe[key] if s in self._commits]

    def commit(self, sha: str) -> Commit | None:
        """Date and subject of a commit."""
        self._load()
        if sha not in self._commits:
            out = self._git("show", "-s", "--format=%H%x00%cI%x00%s", sha).strip()
            if not out:
                return None
            full, date, subject = (out.split("\x00") + ["", ""])[:3]
            self._commits[sha] = Commit(full, date, subject)
        return self._commits[sha]

    def in_head(self, term: str, pathspecs: tuple[str, ...]) -> bool:
        """Whether the committed HEAD still contains ``term`` (as a whole word) in these paths: then a
        term missing from the working tree was removed by uncommitted changes."""
        if not self.available:
            return False
        out = self._git("grep", "-l", "-w", "-F", "-e", term, "HEAD", "--", *pathspecs)
        return bool(out.strip())

    def dirty(self) -> set[str]:
        """Paths changed in the working tree since HEAD (one ``git status`` a run)."""
        if self._dirty_paths is None:
            out = self._git("status", "--porcelain", "-z", "--untracked-files=no", "--no-renames")
            self._dirty_paths = {item[3:] for item in out.split("\x00") if len(item) > 3}
        return self._dirty_paths

    def removed_when(self, term: str, pathspecs: tuple[str, ...], commits: list[Commit]) -> str:
        """How a finding names the removal of a word: the commit, or the uncommitted changes. Only when
        a file the question covers is modified does it ask git whether HEAD still has the word."""
        dirty = self.dirty()
        suffixes = tuple(spec[1:] for spec in pathspecs if spec.startswith("*"))
        touched = any(p in pathspecs or (suffixes and p.endswith(suffixes)) for p in dirty)
        if touched and self.in_head(term, pathspecs):
            return f"removed in uncommitted changes; last committed in {commits[0].describe()}"
        return f"removed in {commits[0].describe()}"

    def commit_before(self, when: str) -> str | None:
        """The newest commit at or before an ISO time (the code as it was when a memory was written)."""
        if not self.available:
            return None
        self._load()
        if when not in self._before:
            self._before[when] = self._git("rev-list", "-1", f"--before={when}", "HEAD").strip()
            self._dirty = True
        return self._before[when] or None


def _chunks(items: list[str], size: int) -> list[list[str]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def _ere_escape(term: str) -> str:
    return re.sub(r"([.^$*+?()\[\]{}|\\])", r"\\\1", term)

