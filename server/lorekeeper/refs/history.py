# pyright: standard
"""What git remembers, asked in bounded questions: what a commit's tree held (a path, a file's bytes, the
files that mention a word), who last changed each line of a file, and which commit after a given one
deleted, moved or changed something.

Every question names the commit it starts from (a memory's baseline), so no query walks the whole
history. Many small questions go through one ``git cat-file --batch`` process. When git cannot answer
(a shallow clone, objects missing from a partial clone, a timeout) the reason is recorded in
:attr:`GitHistory.problems` and the answer is "unknown" (``None``), never "no"."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, TypeVar

from ..infra import cache as cache_files
from ..infra.gitcmd import git_command, git_env
from ..infra.safeio import read_bytes

if TYPE_CHECKING:
    from concurrent.futures import Future

ZERO = "0" * 40
#: Agent files a line may have lived in before its file got today's name (OPENCODE.md -> CRUSH.md ->
#: AGENTS.md): where :meth:`GitHistory.entered` also looks.
AGENT_FILE_NAMES = ("AGENTS.md", "CLAUDE.md", "CRUSH.md", "GEMINI.md", "OPENCODE.md", ".cursorrules",
                    ".windsurfrules", ".clinerules")
_MISSING_OBJECT = ("unable to read", "bad object", "missing blob", "missing tree", "did not receive expected object",
                   "promisor", "could not fetch", "invalid object", "not a valid object")
CACHE_VERSION = 4  # 4: "entered" is the start of a text's present stay in a file, not its first entry
#: A history cache larger than this is not carried to a new HEAD (answers about commits no memory names
#: any more pile up from commit to commit): the check after that commit asks git afresh. prefect's, for
#: 1,060 memories over 22,000 commits, is under 1 MB.
CARRY_MAX_BYTES = 32 * 1024 * 1024


@dataclass(frozen=True)
class Commit:
    sha: str
    date: str  # ISO 8601
    subject: str

    def describe(self) -> str:
        return f"{self.sha[:7]} on {self.date[:10]}: {self.subject}"

    def short(self) -> str:
        return f"{self.sha[:7]} on {self.date[:10]}"


@dataclass(frozen=True)
class Removal:
    """The commit that deleted or renamed a path (``moved_to`` for a rename: where it went)."""

    commit: Commit
    moved_to: str | None


def _presence(walk: list[tuple[Commit, dict[str, list[str]]]], files: list[str], texts: list[str]) -> dict[str, Commit]:
    """For each text, the last commit of ``walk`` (oldest first) after which it occurred in ``files`` where
    it did not before (the start of its present stay), if it occurs at the end."""
    found: dict[str, Commit] = {}
    totals = dict.fromkeys(texts, 0)
    for commit, changes in walk:
        lines = [line for name in files for line in changes.get(name, ())]
        if not lines:
            continue
        for text in texts:
            delta = sum(line.count(text) * (1 if line[0] == "+" else -1) for line in lines if text in line)
            if delta:
                before = totals[text]
                totals[text] = before + delta
                if before <= 0 < totals[text]:
                    found[text] = commit
    return {text: commit for text, commit in found.items() if totals[text] > 0}


def _earlier_names(path: str) -> list[str]:
    """The agent files of ``path``'s folder it may have been copied or renamed from (CRUSH.md before
    AGENTS.md): named, not globbed, so that git compares only these paths in each commit."""
    folder = path.rsplit("/", 1)[0] + "/" if "/" in path else ""
    return [f"{folder}{name}" for name in AGENT_FILE_NAMES if f"{folder}{name}" != path]


_SHA = re.compile(r"[0-9a-f]{40}")


def still_true(data: dict[str, Any], touched: set[str] | None) -> dict[str, Any]:
    """Of a history cache kept for an earlier HEAD, what still holds at HEAD. Whatever names its commit
    never changes: commits, what a commit's tree held, the files a commit's tree had mentioning a word,
    a commit's renames, when a text entered a file up to a given commit. What is asked of HEAD's history
    (a file's blame, the commits after one that touched some paths) holds where no commit since the
    earlier HEAD touched those paths: only when that HEAD is an ancestor of this one (``touched``, the
    paths those commits changed; ``None`` otherwise). The newest commit before a time is asked again."""
    def fixed(commit: str) -> bool:
        return bool(_SHA.fullmatch(commit)) and commit != ZERO

    def untouched(pathspecs: list[str]) -> bool:
        if touched is None or not pathspecs:
            return False
        for spec in pathspecs:
            if not spec or spec.startswith(":") or any(c in spec for c in "*?[\\"):
                return False  # (a glob or magic: git's matching, not ours)
            clean = spec.rstrip("/")
            if clean in touched or any(t.startswith(clean + "/") for t in touched):
                return False
        return True

    logs: dict[str, Any] = {}
    for key, value in data.get("logs", {}).items():
        parts = key.split("\x00")
        if parts[0] == "entered":
            if len(parts) == 4 and fixed(parts[3]):
                logs[key] = value
        elif fixed(parts[0]) and "" in parts[1:] and untouched(parts[parts.index("", 1) + 1 :]):
            logs[key] = value
    return {"commits": data["commits"],
            "blame": {k: v for k, v in data.get("blame", {}).items() if untouched([k.partition("\x00")[0]])},
            "logs": logs,
            "greps": {k: v for k, v in data.get("greps", {}).items() if fixed(k.partition("\x00")[0])},
            "renames": {k: v for k, v in data.get("renames", {}).items() if fixed(k)},
            "exists": {k: v for k, v in data.get("exists", {}).items() if fixed(k.partition("\x00")[0])}}


class GitHistory:
    """Read-only, bounded access to a workspace's git history. Every method degrades to "unknown"
    (``None`` / empty) when the workspace is not a git repository, git is missing or cannot answer."""

    def __init__(self, root: Path, cache_dir: Path | None = None, timeout: float = 30.0):
        self.root = root
        self.cache_dir = cache_dir
        self.timeout = timeout
        #: Why some answers are unknown: cause -> message (shown once to the user).
        self.problems: dict[str, str] = {}
        self.head = ""
        if (root / ".git").exists():
            if shutil.which("git") is None:
                self.problems["git"] = ("git is not installed (not on PATH): memories are not judged by history, "
                                        "and nothing is said to have existed or been removed")
            # One git for both answers: "true" or "false" (a git older than 2.15 repeats the option), then HEAD.
            answer = (self._run("rev-parse", "--is-shallow-repository", "HEAD", quiet=True) or "").split()
            self.head = answer[-1] if len(answer) == 2 else ""
            if not self.head and "git" not in self.problems and self._run("rev-parse", "--git-dir", quiet=True) is None:
                self.problems["broken"] = ("the .git folder cannot be read as a repository: memories are not judged "
                                           "by history, and nothing is said to have existed or been removed")
            if self.head and answer[0] == "true":
                self.problems["shallow"] = ("this is a shallow clone: git history before its oldest commit is missing, "
                                            "so memories older than it are not judged by history")
        self._commits: dict[str, Commit] = {}
        self._before: dict[str, str] = {}
        self._blame: dict[str, Any] = {}
        self._exists: dict[tuple[str, str], str | None] = {}
        self._blobs: dict[tuple[str, str], bytes | None] = {}
        self._renames: dict[str, dict[str, str]] = {}
        #: One lock per commit whose renames are being asked: threads asking of one commit at once wait
        #: for the first one's answer instead of each running `git show -M` (3 at once, seen on cline).
        self._renames_asked: dict[str, threading.Lock] = {}
        self._names_at: dict[str, dict[str, list[str]]] = {}  # commit -> file name -> paths (not persisted)
        #: Answers of ``git log`` and ``git grep`` by their question: fixed while HEAD is (persisted with it).
        self._logs: dict[str, list[list[Any]]] = {}
        self._greps: dict[str, dict[str, list[str]]] = {}
        #: HEAD's history of some instruction files (:meth:`_walk_files`), by the files it covers (not persisted).
        self._walks: list[tuple[frozenset[str], list[tuple[Commit, dict[str, list[str]]]]]] = []
        self._dirty_paths: set[str] | None = None
        #: Answers asked for in the background (:meth:`prefetch`), by what they answer: "dirty", "blame:PATH".
        self._inflight: dict[str, Future[Any]] = {}
        self._new_paths: list[str] | None = None
        self._staged: dict[str, str] | None = None
        self._loaded = False
        self._changed = False

    @property
    def available(self) -> bool:
        return bool(self.head)

    # -- running git ------------------------------------------------------------------------------

    def _run(self, *args: str, input: bytes | None = None, quiet: bool = False, binary: bool = False,
             what: str = "", ok: tuple[int, ...] = (0,), watch: bool = True) -> Any:
        """Run git; its stdout (text, or bytes with ``binary``) or ``None`` when it failed. A failure that
        means history is incomplete (missing objects) or slow (timeout) is recorded in :attr:`problems`
        (unless ``watch`` is false: a question whose failure says nothing of the history, such as whether
        a commit an old cache names still exists)."""
        try:
            proc = subprocess.run(git_command(self.root, *args), input=input,
                                  capture_output=True, timeout=self.timeout, check=False, env=git_env())
        except subprocess.TimeoutExpired:
            if not watch:
                return None
            self.problems.setdefault("timeout", f"git did not answer within {self.timeout:.0f} s ({what or args[0]}); "
                                                "verdicts that needed it are skipped")
            return None
        except OSError:
            if not quiet:
                self.problems.setdefault("git", "git could not be run; verdicts that need history are skipped")
            return None
        if proc.returncode not in ok:
            err = proc.stderr.decode("utf-8", "replace").lower()
            if watch and any(marker in err for marker in _MISSING_OBJECT):
                self.problems.setdefault("missing-objects",
                                         "some git objects are missing (a partial or damaged clone): "
                                         f"git {args[0]} failed; verdicts that needed them are skipped")
            return None
        return proc.stdout if binary else proc.stdout.decode("utf-8", "replace")

    # -- cache ------------------------------------------------------------------------------------

    def _cache_file(self) -> Path | None:
        return self.cache_dir / f"history-{self.head[:16]}.json" if self.cache_dir and self.head else None

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        cache = self._cache_file()
        if not cache:
            return
        data = cache_files.read_json(self.root, cache.parent, cache.name)
        if not isinstance(data, dict) or data.get("version") != CACHE_VERSION:
            self._load_earlier(cache)
            return
        self._take(data)

    def _take(self, data: dict[str, Any]) -> None:
        try:
            self._commits.update({k: Commit(*v) for k, v in data["commits"].items()})
            self._before.update(data.get("before", {}))
            self._blame.update(data.get("blame", {}))
            self._logs.update(data.get("logs", {}))
            self._greps.update(data.get("greps", {}))
            self._renames.update(data.get("renames", {}))
            self._exists.update({(commit, path): kind for key, kind in data.get("exists", {}).items()
                                 for commit, _, path in [key.partition("\x00")]})
        except (OSError, ValueError, KeyError, TypeError):
            pass

    def _load_earlier(self, cache: Path) -> None:
        """After HEAD moved (a commit, a pull, a checkout): what the cache of the HEAD before knows that
        still holds (:func:`still_true`), so that a commit does not make git answer everything again."""
        try:
            earlier = max((p for p in cache.parent.glob("history-*.json") if p != cache),
                          key=lambda p: p.stat().st_mtime_ns, default=None)
            if earlier is None or earlier.stat().st_size > CARRY_MAX_BYTES:
                return
        except OSError:
            return
        data = cache_files.read_json(self.root, cache.parent, earlier.name)
        if not isinstance(data, dict) or data.get("version") != CACHE_VERSION:
            return
        before: Any = data.get("head")
        touched = self._touched_since(before) if isinstance(before, str) and _SHA.fullmatch(before) else None
        try:
            self._take(still_true(data, touched))
        except (ValueError, KeyError, TypeError, AttributeError):
            return
        self._changed = True

    def _touched_since(self, before: str) -> set[str] | None:
        """Every path a commit after ``before`` up to HEAD changed (merges against each parent), when
        ``before`` is an ancestor of HEAD; ``None`` when it is not (a checkout of another branch, a
        rebase) or git cannot say."""
        if before == self.head:
            return set()
        if self._run("merge-base", "--is-ancestor", before, self.head, quiet=True, watch=False) is None:
            return None
        out = self._run("log", "-z", "--format=", "--name-only", "--no-renames", "-m", f"{before}..{self.head}",
                        quiet=True, watch=False)
        return None if out is None else {p.strip("\n") for p in out.split("\x00") if p.strip("\n")}

    def save(self) -> None:
        """Write what was learnt about this HEAD (commit details, baselines, blame, what trees held) for the next run."""
        self.settle()
        cache = self._cache_file()
        if not (cache and self._changed):
            return
        if not cache_files.usable(self.root, cache.parent):
            return
        for old in cache.parent.glob("history-*.json"):
            if old != cache:
                cache_files.delete(self.root, cache.parent, old.name)
        blame = {k: v for k, v in self._blame.items() if v is not None}
        data = {"version": CACHE_VERSION, "head": self.head, "before": self._before, "blame": blame,
                "commits": {k: [c.sha, c.date, c.subject] for k, c in self._commits.items()},
                "logs": self._logs, "greps": self._greps, "renames": self._renames,
                "exists": {f"{commit}\x00{path}": kind for (commit, path), kind in self._exists.items()}}
        cache_files.write(self.root, cache.parent, cache.name, json.dumps(data).encode("utf-8"))
        self._changed = False

    # -- commits ----------------------------------------------------------------------------------

    def commit(self, sha: str) -> Commit | None:
        """Date and subject of a commit."""
        self._load()
        found = self._commits.get(sha)
        if found is None:
            out = self._run("show", "-s", "--format=%H%x00%cI%x00%s", sha, "--", quiet=True)
            if not out:
                return None
            full, date, subject = (out.strip().split("\x00") + ["", ""])[:3]
            found = self._commits[sha] = self._commits[full] = Commit(full, date, subject)
            self._changed = True
        return found

    def commit_before(self, when: str) -> str | None:
        """The newest commit at or before an ISO time (the code as it was when a memory was written)."""
        if not self.available:
            return None
        self._load()
        if when not in self._before:
            if self._after_head(when):  # HEAD is the newest commit: no need to ask (an entry's time is
                return self.head        # its file's while uncommitted, and changes with each save)
            out = self._run("rev-list", "-1", f"--before={when}", "HEAD", what="rev-list --before")
            if out is None:
                return None
            self._before[when] = out.strip()
            self._changed = True
        return self._before[when] or None

    def _after_head(self, when: str) -> bool:
        """Whether an ISO time (with its offset) is at or after HEAD's commit time: then the newest commit
        at or before it is HEAD (``rev-list`` starts from HEAD, and HEAD passes ``--before``)."""
        try:
            moment = datetime.fromisoformat(when)
        except ValueError:
            return False
        head = self.commit(self.head) if moment.tzinfo is not None else None
        if head is None:
            return False
        try:
            return datetime.fromisoformat(head.date) <= moment
        except (ValueError, TypeError):
            return False

    # -- blame ------------------------------------------------------------------------------------

    def prefetch(self, blames: Iterable[str]) -> None:
        """What judging unresolved references will ask git first, asked at once and in the background:
        the blame of each file holding one, and the working tree's changes (``git status``, to tell an
        uncommitted removal from a committed one). Whoever asks for one of these answers waits for it
        (:meth:`blame`, :meth:`dirty`); meanwhile the checks that need no git run (in a large
        repository git's blame takes as long as searching the code for the names a memory mentions).
        :meth:`settle` waits for all of them."""
        if not self.available:
            return
        self._load()
        pool = _pool(4)
        if self._dirty_paths is None and "dirty" not in self._inflight:
            self._inflight["dirty"] = pool.submit(self._dirty_now)
        for path in sorted(set(blames)):
            if f"blame:{path}" not in self._inflight:
                self._inflight[f"blame:{path}"] = pool.submit(self._blame_now, path)

    def settle(self) -> None:
        """Wait for every answer still asked in the background (before reporting git's problems, or
        saving what was learnt)."""
        while keys := list(self._inflight):  # (a copy: another thread may take one meanwhile)
            for key in keys:
                self._wait(key)

    def _wait(self, key: str) -> None:
        """Wait for a background answer, if one was asked for: one not started yet is computed here."""
        future = self._inflight.pop(key, None)
        if future is None:
            return
        if future.cancel():  # still queued: do it here rather than wait behind other work
            (self._dirty_now if key == "dirty" else lambda: self._blame_now(key[len("blame:"):]))()
        else:
            future.result()

    def blame(self, path: str, content: bytes | None = None) -> list[str] | None:
        """The commit that last changed each line of the file as it is in the working tree (``ZERO``
        for uncommitted lines), or ``None`` if git cannot say. Cached by the file's content."""
        self._wait(f"blame:{path}")
        return self._blame_now(path, content)

    def _blame_now(self, path: str, content: bytes | None = None) -> list[str] | None:
        if not self.available:
            return None
        self._load()
        if content is None:
            try:
                content = read_bytes(self.root / path, 16 * 1024 * 1024, self.root)
            except OSError:
                return None

        key = f"{path}\x00{hashlib.sha1(content).hexdigest()}"
        if key in self._blame:
            return self._blame[key]
        out = self._run("blame", "--porcelain", "--", path, what=f"blame {path}")
        if out is None:
            self._blame[key] = None
            return None
        lines: list[str] = []
        current = ""
        info: dict[str, dict[str, str]] = {}
        for line in out.splitlines():
            if line.startswith("\t"):
                lines.append(current)
            elif len(line) > 40 and line[40:41] == " " and all(c in "0123456789abcdef" for c in line[:40]):
                current = line[:40]
            elif current and line.startswith(("committer-time ", "committer-tz ", "summary ")):
                key_name, _, value = line.partition(" ")
                info.setdefault(current, {})[key_name] = value
        for sha, fields in info.items():
            if sha != ZERO and sha not in self._commits and "committer-time" in fields:
                self._commits[sha] = Commit(sha, _iso(fields["committer-time"], fields.get("committer-tz", "+0000")),
                                            fields.get("summary", ""))
        self._blame[key] = lines
        self._changed = True
        return lines

    # -- what a commit's tree held ----------------------------------------------------------------

    def exists_at(self, pairs: Iterable[tuple[str, str]]) -> dict[tuple[str, str], str | None]:
        """For each ``(commit, path)``: ``"blob"``, ``"tree"``, ``"commit"`` (a submodule) or ``None`` when
        the path was not in that commit's tree. One ``git ls-tree`` per commit, which reads trees only
        (never file contents, which a partial clone may lack); pairs git could not answer are left out
        of the result (unknown)."""
        pairs = list(pairs)
        self._load()  # (what earlier runs at this HEAD learnt: trees never change)
        wanted: dict[str, set[str]] = {}
        for commit, path in pairs:
            clean = path.rstrip("/")
            if commit and clean and (commit, clean) not in self._exists:
                wanted.setdefault(commit, set()).add(clean)
        for commit, paths in wanted.items():
            if not self.available:
                break
            for chunk in _chunks(sorted(paths), 500):
                out = self._run("ls-tree", "-z", "--full-tree", commit, "--", *chunk, what="ls-tree")
                if out is None:
                    continue
                listed: dict[str, str] = {}
                for item in out.split("\x00"):
                    meta, _, name = item.partition("\t")
                    if name:
                        listed[name] = meta.split()[1] if len(meta.split()) > 1 else "blob"
                for path in chunk:
                    kind = listed.get(path)
                    if kind is None and any(name.startswith(path + "/") for name in listed):
                        kind = "tree"  # a folder given as a path lists its content
                    self._exists[(commit, path)] = kind
                self._changed = True
        return {(c, p): self._exists[(c, p.rstrip("/"))] for c, p in pairs if (c, p.rstrip("/")) in self._exists}

    def paths_named(self, commit: str, name: str) -> list[str] | None:
        """The paths of ``commit``'s tree whose file name is ``name`` (one ``git ls-tree -r`` per commit,
        trees only); ``None`` if git could not answer."""
        if commit not in self._names_at:
            if not self.available:
                return None
            out = self._run("ls-tree", "-r", "-z", "--name-only", "--full-tree", commit, what="ls-tree -r")
            if out is None:
                return None
            names: dict[str, list[str]] = {}
            for path in out.split("\x00"):
                if path:
                    names.setdefault(path.rsplit("/", 1)[-1], []).append(path)
            self._names_at[commit] = names
        return self._names_at[commit].get(name, [])

    def paths_at(self, commit: str) -> list[str] | None:
        """Every file path of ``commit``'s tree (the listing :meth:`paths_named` keeps)."""
        if self.paths_named(commit, "") is None:
            return None
        return [p for paths in self._names_at[commit].values() for p in paths]

    def read_at(self, pairs: Iterable[tuple[str, str]]) -> dict[tuple[str, str], bytes | None]:
        """For each ``(commit, path)``: the file's bytes at that commit, or ``None`` if it was not there.
        One ``git cat-file --batch`` for all; when that fails (an object missing from a partial clone),
        each is asked alone so that the others still get answers. Pairs git could not answer are left
        out (unknown)."""
        pairs = list(pairs)
        wanted = sorted({(c, p) for c, p in pairs if c} - set(self._blobs))
        if wanted and self.available:
            if not self._read_batch(wanted):
                for key in wanted:
                    if key not in self._blobs:
                        self._read_one(key)
        return {(c, p): self._blobs[(c, p)] for c, p in pairs if (c, p) in self._blobs}

    def _read_batch(self, wanted: list[tuple[str, str]]) -> bool:
        text = "".join(f"{c}:{p}\n" for c, p in wanted).encode("utf-8")
        out = self._run("cat-file", "--batch", input=text, binary=True, quiet=True, what="cat-file --batch")
        if out is None:
            return False
        pos = 0
        for key in wanted:
            end = out.find(b"\n", pos)
            if end < 0:
                return False
            header = out[pos:end].split()
            pos = end + 1
            if len(header) == 3 and header[1] in (b"blob", b"tree", b"commit"):
                size = int(header[2])
                self._blobs[key] = out[pos : pos + size] if header[1] == b"blob" else None
                pos += size + 1
            else:
                self._blobs[key] = None  # "<commit>:<path> missing": not in that tree
        return True

    def _read_one(self, key: tuple[str, str]) -> None:
        commit, path = key
        listed = self.exists_at([key]).get(key, "unknown")
        if listed is None:
            self._blobs[key] = None
        elif listed == "blob":
            data = self._run("cat-file", "blob", f"{commit}:{path}", binary=True, what="cat-file blob")
            if data is not None:
                self._blobs[key] = data

    def grep_at(self, commit: str, words: Iterable[str], pathspecs: tuple[str, ...]) -> dict[str, set[str]] | None:
        """Which files of ``commit``'s tree mention each word (whole words, fixed strings); ``None`` if
        git could not answer."""
        words = sorted(set(words))
        if not words or not self.available:
            return {w: set() for w in words}
        # One extended regex (an alternation) rather than one -e per word: git grep runs each pattern on
        # its own, which grows with the number of words (230 words: minutes on a 3,000-file tree; the
        # alternation: under a second, with the same matches).
        key = "\x00".join([self.head if commit == "HEAD" else commit, *pathspecs, "", *words])
        self._load()
        known = self._greps.get(key)
        if isinstance(known, dict):
            return {w: set(known.get(w, ())) for w in words}
        pattern = "(" + "|".join(_ERE_SPECIAL.sub(r"\\\g<0>", w) for w in words) + ")"
        out = self._run("grep", "-I", "-z", "-o", "-w", "-E", "-e", pattern, commit, "--", *pathspecs,
                        what="grep", ok=(0, 1))  # 1: nothing matched
        if out is None:
            return None
        found: dict[str, set[str]] = {w: set() for w in words}
        for line in out.splitlines():
            name, _, match = line.partition("\x00")
            path = name[len(commit) + 1 :] if name.startswith(commit + ":") else name.split(":", 1)[-1]
            if match in found:
                found[match].add(path)
        self._greps[key] = {w: sorted(paths) for w, paths in found.items() if paths}
        self._changed = True
        return found

    # -- what happened after a commit -------------------------------------------------------------

    def _log(self, since: str, pathspecs: Iterable[str], *options: str) -> list[tuple[Commit, list[list[str]]]] | None:
        """Commits after ``since`` (reachable from HEAD, not from ``since``), newest first, touching the
        paths, each with its ``--name-status`` lines. Asked of git once per HEAD (the answer is kept with
        the history cache)."""
        pathspecs = list(pathspecs)
        key = "\x00".join([since, *options, "", *pathspecs])
        self._load()
        known = self._logs.get(key)
        if known is not None:
            try:
                return [(self._commits[sha], changes) for sha, changes in known]
            except (KeyError, TypeError, ValueError):
                pass  # a record from elsewhere: ask git
        out = self._run("log", "--format=%x00%H%x00%cI%x00%s", "--name-status", *options,
                        f"{since}..{self.head or 'HEAD'}", "--", *pathspecs, what="log")
        if out is None:
            return None
        result: list[tuple[Commit, list[list[str]]]] = []
        for line in out.splitlines():
            if line.startswith("\x00"):
                _, sha, date, subject = (line.split("\x00", 3) + ["", "", ""])[:4]
                commit = self._commits.setdefault(sha, Commit(sha, date, subject))
                result.append((commit, []))
            elif line and result:
                result[-1][1].append(line.split("\t"))
        self._logs[key] = [[c.sha, changes] for c, changes in result]
        self._changed = True
        return result

    def prefetch_logs(self, since: str, paths: Iterable[str], *options: str, first: bool = False) -> None:
        """Ask git once for the commits after ``since`` touching any of ``paths`` (with ``options``, such
        as ``--diff-filter=D``), and keep each path's share of the answer as :meth:`_log` would have for
        that path alone (``first``: as asked with ``-1``, the newest commit only), so that the per-path
        questions that follow (:meth:`removal`, :meth:`deleted_after`) are answered from memory. One
        ``git log`` over 7,000 commits costs about as much for forty paths as for one."""
        self._load()
        asked = [*options, *(("-1",) if first else ())]
        wanted = sorted({p for p in paths if "\x00".join([since, *asked, "", p]) not in self._logs})
        if len(wanted) < 2:
            return  # (one path: asked as it is)
        for chunk in _chunks(wanted, 100):
            out = self._run("log", "--format=%x00%H%x00%cI%x00%s", "--name-status", *options,
                            f"{since}..{self.head or 'HEAD'}", "--", *chunk, what="log")
            if out is None:
                return  # each path is asked on its own, and the failure is recorded there
            commits: list[tuple[Commit, list[list[str]]]] = []
            for line in out.splitlines():
                if line.startswith("\x00"):
                    _, sha, date, subject = (line.split("\x00", 3) + ["", "", ""])[:4]
                    commits.append((self._commits.setdefault(sha, Commit(sha, date, subject)), []))
                elif line and commits:
                    commits[-1][1].append(line.split("\t"))
            for path in chunk:
                folder = path.endswith("/")
                mine: list[list[Any]] = []
                for commit, changes in commits:
                    own = [c for c in changes if any((f.startswith(path) if folder else f == path) for f in c[1:])]
                    if own:
                        mine.append([commit.sha, own])
                        if first:
                            break
                self._logs["\x00".join([since, *asked, "", path])] = mine
        self._changed = True

    def renames_in(self, sha: str) -> dict[str, str]:
        """The renames one commit made (old path -> new path), with git's rename detection."""
        self._load()
        if sha in self._renames:
            return self._renames[sha]
        with _POOL_LOCK:
            asking = self._renames_asked.setdefault(sha, threading.Lock())
        with asking:
            if sha not in self._renames:
                out = self._run("show", "-M", "--name-status", "--format=", sha, what="show -M")
                if out is None:
                    return {}  # unknown: asked again next time, never kept as "no renames"
                renames = {}
                for line in out.splitlines():
                    parts = line.split("\t")
                    if len(parts) == 3 and parts[0].startswith("R"):
                        renames[parts[1]] = parts[2]
                self._renames[sha] = renames
                self._changed = True
        return self._renames[sha]

    def removal(self, path: str, since: str) -> Removal | None:
        """The commit after ``since`` that deleted the file (or, for a folder ending in ``/``, the last
        of its files), and where it went if git saw a rename. For a folder, ``moved_to`` is the folder
        its files went to when they all went to one place."""
        folder = path.endswith("/")
        clean = path.rstrip("/")
        events = self._log(since, [clean + "/" if folder else clean], "--diff-filter=DR", "--no-renames")
        if not events:
            return None
        commit, changes = events[0]
        renames = self.renames_in(commit.sha)
        if not folder:
            return Removal(commit, renames.get(clean))
        prefix = clean + "/"
        targets = set()
        for old, new in renames.items():
            if old.startswith(prefix):
                inner = old[len(prefix) :]
                targets.add(new[: -len(inner) - 1] if new.endswith("/" + inner) else None)
        gone = [c[-1] for c in changes if c[-1].startswith(prefix)]
        moved = next(iter(targets)) if len(targets) == 1 and None not in targets and gone else None
        return Removal(commit, moved + "/" if moved else None)

    def deleted_after(self, path: str, since: str) -> Commit | None:
        """A commit after ``since`` that deleted the path (it was created after ``since``, then deleted)."""
        events = self._log(since, [path.rstrip("/") + ("/" if path.endswith("/") else "")], "--diff-filter=D",
                           "--no-renames", "-1")
        return events[0][0] if events else None

    def entered(self, text: str, path: str, at: str) -> Commit | None:
        """The commit, up to ``at``, since which ``text`` is in the file ``path`` (or in an agent file it
        may have been before): the last that brought it in where it was not (``git log -S``, with the
        changes of the commits that changed how often it occurs there). For a line rewritten after what it
        names was gone, this is when the name entered memory; the line's own last change is later. A text
        that left the file and came back entered when it came back (another line that said it before is
        not this one)."""
        key = "\x00".join(["entered", text, path, at])
        self._load()
        known = self._logs.get(key)
        if known is not None:
            try:
                return self._commits[known[0][0]] if known else None
            except (KeyError, TypeError, ValueError, IndexError):
                pass  # a record from elsewhere: ask git
        names = [path, *_earlier_names(path)]
        out = self._run("log", "--reverse", "--format=%x00%H%x00%cI%x00%s", "-p", "--unified=0", "--no-color",
                        "--no-ext-diff", "--no-renames", "-S", text, at, "--", *names, what="log -S")
        if out is None:
            return None
        walk: list[tuple[Commit, dict[str, list[str]]]] = []
        for line in out.split("\n"):
            if line.startswith("\x00"):
                _, sha, date, subject = (line.split("\x00", 3) + ["", "", ""])[:4]
                walk.append((self._commits.setdefault(sha, Commit(sha, date, subject)), {path: []}))
            elif walk and line[:1] in ("+", "-") and not line.startswith(("+++ ", "--- ")):
                walk[-1][1][path].append(line)
        commit = _presence(walk, [path], [text]).get(text)
        self._logs[key] = [[commit.sha, []]] if commit else []
        self._changed = True
        return commit

    def occurrences(self, text: str, path: str, at: str) -> int | None:
        """How often ``text`` occurs in the file ``path`` at the commit ``at`` (or, where it was not there
        yet, in the agent file it may have been before); ``None`` if git could not tell."""
        names = [path, *_earlier_names(path)]
        blobs = self.read_at([(at, name) for name in names])
        if not blobs and self.available:
            return None
        found = [data.count(text.encode()) for name in names if (data := blobs.get((at, name))) is not None]
        return found[0] if found else 0

    def entered_many(self, texts: Iterable[str], path: str, at: str) -> None:
        """:meth:`entered` for several texts of one file (:meth:`prefetch_entered` without its shortcut)."""
        self._entered_in_files({(path, at): set(texts)})

    def prefetch_entered(self, questions: Iterable[tuple[str, str, str]]) -> None:
        """:meth:`entered` for each ``(text, path, at)``, asked together. A text the file did not hold just
        before ``at`` (at its first parent, under its name or an agent file's it may have been) entered at
        ``at``: answered from one ``git cat-file`` for all, without reading any file's history. The others
        from one ``git log -p`` of all their files (on a repository of 20,000 commits a walk of its history
        costs most of a second, whatever the number of files it is limited to)."""
        self._load()
        asked = sorted({q for q in questions if "\x00".join(["entered", *q]) not in self._logs})
        if not asked or not self.available:
            return
        before = {(text, path, at): [(f"{at}^", name) for name in (path, *_earlier_names(path))] for text, path, at in asked}
        held = self.read_at([pair for pairs in before.values() for pair in pairs])
        rest: dict[tuple[str, str], set[str]] = {}
        for (text, path, at), pairs in before.items():
            if at in self._commits and all(pair in held for pair in pairs) and \
                    not any(text.encode("utf-8") in (held[pair] or b"") for pair in pairs):
                self._logs["\x00".join(["entered", text, path, at])] = [[at, []]]  # (its own commit)
                self._changed = True
            else:
                rest.setdefault((path, at), set()).add(text)
        self._entered_in_files(rest)

    def _entered_in_files(self, wanted: dict[tuple[str, str], set[str]]) -> None:
        """The answers of :meth:`entered` for the texts of each ``(path, at)``, from the changes HEAD's
        history made to the files (and the agent files each may have been before): the texts are in the
        files from ``at`` to HEAD, so the start of their present stay is the same seen from either."""
        asked = {key: sorted(t for t in texts if "\n" not in t and "\x00".join(["entered", t, *key]) not in self._logs)
                 for key, texts in wanted.items()}
        asked = {key: texts for key, texts in asked.items() if texts}
        if not asked:
            return
        groups = {path: [path, *_earlier_names(path)] for path, _ in asked}
        walk = self._walk_files(sorted({name for names in groups.values() for name in names}))
        if walk is None:
            return  # asked one text at a time, where a failure is recorded
        for (path, at), texts in asked.items():
            found = _presence(walk, groups[path], texts)
            for text in texts:
                entered = found.get(text)
                self._logs["\x00".join(["entered", text, path, at])] = [[entered.sha, []]] if entered else []
        self._changed = True

    def _walk_files(self, files: list[str]) -> list[tuple[Commit, dict[str, list[str]]]] | None:
        """HEAD's history of ``files``, oldest first: each commit that changed one, with the lines it
        added and removed in each (``+``/``-`` first). One ``git log -p`` for all; kept for the files it
        covered (several checks ask about the texts of one file)."""
        for covered, walk in self._walks:
            if covered.issuperset(files):
                return walk
        out = self._run("log", "--reverse", "--format=%x00%H%x00%cI%x00%s", "-p", "--unified=0", "--no-color",
                        "--no-ext-diff", "--no-renames", "HEAD", "--", *files, what="log -p")
        if out is None:
            return None
        walk: list[tuple[Commit, dict[str, list[str]]]] = []
        changes: dict[str, list[str]] = {}
        current: list[str] = []
        for line in out.split("\n"):
            if line.startswith("\x00"):
                _, sha, date, subject = (line.split("\x00", 3) + ["", "", ""])[:4]
                changes = {}
                walk.append((self._commits.setdefault(sha, Commit(sha, date, subject)), changes))
                current = []
            elif line.startswith("diff --git "):
                name = line.rsplit(" b/", 1)[-1]
                current = changes.setdefault(name, [])
            elif line[:1] in ("+", "-") and not line.startswith(("+++ ", "--- ")):
                current.append(line)
        self._walks.append((frozenset(files), walk))
        return walk

    def word_change(self, word: str, since: str, paths: Iterable[str]) -> Commit | None:
        """The newest commit after ``since`` that changed how often ``word`` occurs in the paths
        (``git log -S``), following renames of those paths one commit at a time."""
        paths = sorted(set(paths))
        if not paths:
            return None
        events = self._log(since, paths, "-S", word, "--no-renames")
        if not events:
            return None
        newest, _ = events[0]
        for _ in range(5):  # a file renamed away from these paths: follow it to where it went
            renames = self.renames_in(newest.sha)
            moved = sorted({renames[p] for p in paths if p in renames})
            if not moved:
                break
            later = self._log(newest.sha, moved, "-S", word, "--no-renames")
            if not later:
                break
            newest, paths = later[0][0], moved
        return newest

    def word_changes(self, words: Iterable[str], since: str, paths: Iterable[str]) -> dict[str, Commit | None]:
        """:meth:`word_change` for several words of the same files at once: one ``git log -G`` for all
        of them (each word's newest change is among the commits whose diff has a line holding one of
        them), then, newest first, each word counted in those commits' files and their parents' (``git log
        -S`` counts the same way). The renames are followed the same way, the words that went together
        still together. A word this finds no change for is asked of git alone."""
        found: dict[str, Commit | None] = dict.fromkeys(words)
        pending = {word: (since, sorted(set(paths))) for word in found}
        for step in range(6):  # the first question, then at most 5 renames followed
            groups: dict[tuple[str, tuple[str, ...]], list[str]] = {}
            for word, (at, where) in pending.items():
                if where:
                    groups.setdefault((at, tuple(where)), []).append(word)
            pending = {}
            for (at, where), group in groups.items():
                for word, newest in self._newest_changes(group, at, list(where)).items():
                    if newest is None:
                        continue  # (a rename followed to no later change: the last one found stands)
                    found[word] = newest
                    renames = self.renames_in(newest.sha) if step < 5 else {}
                    moved = sorted({renames[p] for p in where if p in renames})
                    if moved:
                        pending[word] = (newest.sha, moved)
            if not pending:
                break
        return found

    def _newest_changes(self, words: list[str], since: str, paths: list[str]) -> dict[str, Commit | None]:
        """For each word, the newest commit after ``since`` that changed how often it occurs in ``paths``."""
        if len(words) == 1:
            events = self._log(since, paths, "-S", words[0], "--no-renames")
            return {words[0]: events[0][0] if events else None}
        pattern = "|".join(_ERE_SPECIAL.sub(r"\\\g<0>", w) for w in sorted(words))
        events = self._log(since, paths, "-G", pattern, "--no-renames")
        if events is None:
            return {word: self._newest_changes([word], since, paths)[word] for word in words}
        left = set(words)
        out: dict[str, Commit | None] = {}
        for commit, _ in events:
            if not left:
                break
            blobs = self.read_at([(at, p) for p in paths for at in (commit.sha, commit.sha + "^")])
            for word in sorted(left):
                needle = word.encode()
                if any((blobs.get((commit.sha, p)) or b"").count(needle) != (blobs.get((commit.sha + "^", p)) or b"").count(needle)
                       for p in paths):  # (per file, as `git log -S` compares)
                    out[word] = commit
                    left.discard(word)
        for word in left:  # no commit of the log changed it (git could not read one): asked alone
            out[word] = self._newest_changes([word], since, paths)[word]
        return out

    def dirty(self) -> set[str]:
        """Paths changed in the working tree since HEAD (one ``git status`` a run)."""
        self._wait("dirty")
        return self._dirty_now()

    def _dirty_now(self) -> set[str]:
        if self._dirty_paths is None:
            out = self._run("status", "--porcelain", "-z", "--untracked-files=no", "--no-renames", quiet=True) or ""
            self._dirty_paths = {item[3:] for item in out.split("\x00") if len(item) > 3}
        return self._dirty_paths

    def staged_renames(self) -> dict[str, str]:
        """Files renamed in the index (``git mv``, not committed yet), old path -> new path, as git's
        rename detection sees them (a moved file edited after the move is still a move)."""
        if self._staged is None:
            out = self._run("diff", "--cached", "-z", "--name-status", "-M", "--diff-filter=R", "HEAD", quiet=True) or ""
            parts = out.split("\x00")
            renames: dict[str, str] = {}
            i = 0
            while i + 2 < len(parts):
                if parts[i].startswith("R"):
                    renames[parts[i + 1]] = parts[i + 2]
                    i += 3
                else:
                    i += 1
            self._staged = renames
        return self._staged

    def forget_worktree(self) -> None:
        """Forget what was learnt about the working tree and the index (changed, new, staged files): asked
        again when next needed. History itself (commits) is fixed while HEAD is."""
        self._dirty_paths = None
        self._new_paths = None
        self._staged = None

    def new_in_worktree(self, limit: int = 5000) -> list[str]:
        """Files the working tree has that HEAD does not: untracked (not ignored) or added to the index.
        At most ``limit`` (a tree full of untracked build output is not searched)."""
        if self._new_paths is None:
            untracked = self._run("ls-files", "-z", "--others", "--exclude-standard", quiet=True) or ""
            added = self._run("diff", "--cached", "-z", "--name-only", "--diff-filter=A", "HEAD", quiet=True) or ""
            paths = [p for p in (untracked + added).split("\x00") if p]
            self._new_paths = sorted(set(paths))[:limit]
        return self._new_paths

    def in_head(self, term: str, pathspecs: tuple[str, ...]) -> bool:
        """Whether the committed HEAD still mentions ``term`` (as a whole word) in these paths."""
        found = self.grep_at("HEAD", [term], pathspecs) if self.available else None
        return bool(found and found.get(term))


T = TypeVar("T")
R = TypeVar("R")
_ERE_SPECIAL = re.compile(r"[.\[\]()*+?{}|^$\\]")


_POOL: tuple[int, Any] | None = None  # (the process that made it, the executor)
_POOL_LOCK = threading.Lock()
_IN_POOL = threading.local()


def _pool(workers: int) -> Any:
    """One thread pool per process, made on first use (a save in the editor then starts no thread); a
    process forked from this one makes its own (the parent's threads do not exist there)."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None or _POOL[0] != os.getpid():

            def mark() -> None:
                _IN_POOL.active = True

            _POOL = (os.getpid(), ThreadPoolExecutor(max_workers=min(workers, (os.cpu_count() or 1) * 2),
                                                     thread_name_prefix="lore-git", initializer=mark))
        return _POOL[1]


def parallel(fn: Callable[[T], R], items: list[T], workers: int = 4) -> list[R]:
    """``[fn(x) for x in items]``, run on a few threads when there is more than one item: for work that
    waits on git subprocesses (the GIL is released while they run). Called from one of those threads, it
    runs in place (a pool waiting on itself would never finish)."""
    if len(items) < 2 or getattr(_IN_POOL, "active", False):
        return [fn(item) for item in items]
    return list(_pool(workers).map(fn, items))


def _chunks(items: list[str], size: int) -> list[list[str]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def _iso(epoch: str, tz: str) -> str:

    try:
        sign = -1 if tz.startswith("-") else 1
        offset = timedelta(hours=int(tz[1:3]), minutes=int(tz[3:5])) * sign
        return datetime.fromtimestamp(int(epoch), timezone(offset)).isoformat()
    except (ValueError, IndexError):
        return ""


def parent_folders(path: str) -> list[str]:
    """``a/b/c`` -> ``["a/b", "a", ""]``: the folders a relative path can be resolved against, nearest first."""
    out = []
    parent = PurePosixPath(path)
    while str(parent) not in (".", ""):
        parent = parent.parent
        out.append("" if str(parent) == "." else str(parent))
    return out or [""]
