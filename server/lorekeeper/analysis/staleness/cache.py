# pyright: standard
"""Warm ``check-stale``: a memory file's findings are reused while nothing they depend on changed.

The cache (``.lore/cache/stale.json``) records, per memory file, its size and modification time, the
workspace paths its verdicts depend on (with theirs; a missing path is recorded as missing, so its
reappearance counts as a change), and whether it depends on the code as a whole (a symbol that was
looked up everywhere). It is void when HEAD, the verifications file or Lorekeeper's version changes.
A warm run reads no memory file and no code file whose state is unchanged; only files that changed,
or depend on something that changed, are parsed and checked again."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from functools import cache
from pathlib import Path
from typing import Any

from ... import __version__
from ...core.model import Finding, finding_order
from ...facts import JUDGE
from ...infra import cache as cache_files
from ...infra.safeio import json_text
from ...infra.workers import collection_paused, fork_map, worker_count
from ...refs.fingerprint import Verifications
from ...refs.history import GitHistory
from ...refs.symbols import language_of
from ...store import Store
from ...workspace import Workspace
from . import ANY_CODE, WORD, StalenessChecker

CACHE_FILE = "stale.json"


@dataclass
class StaleReport:
    findings: list[Finding]
    checked: int  # memories covered by the report
    reused: int  # of which answered from the cache
    checker: StalenessChecker | None  # the checker that ran, if any file needed checking
    #: Findings an ignore comment or rule keeps from being reported (each says why in ``suppressed``).
    suppressed: list[Finding] = field(default_factory=list)


@cache
def checks_version() -> str:
    """A hash of the code the verdicts come from (the staleness checks and what they read code with), so
    that a cached verdict never outlives the checks that made it (a development install changes them
    without changing the version)."""
    digest = hashlib.blake2b(digest_size=8)
    here = Path(__file__).resolve().parent
    for folder in (here, here.parent.parent / "refs"):
        for source in sorted(folder.glob("*.py")):
            try:
                digest.update(source.name.encode() + b"\x00" + source.read_bytes())
            except OSError:  # no source (a frozen install): the version alone says it
                continue
    return digest.hexdigest()


def _stat(path: str) -> list[int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_size]


def check_cached(ws: Workspace, paths: list[str] | None = None, *, fork: bool = True) -> StaleReport:
    """Check the memory files of the workspace (or those under ``paths``), reusing cached verdicts.
    ``fork=False``: in this process only (a server with threads must not fork)."""
    root = str(ws.root)
    history = GitHistory(ws.root, ws.cache_dir)
    key = {"version": __version__, "checks": checks_version(), "head": history.head,
           "verified": _stat(str(ws.store / Verifications.FILE)), "config": _stat(str(ws.root / ".lore" / "config.toml"))}
    if any(rule.until for rule in ws.staleness.ignore):  # a rule stops covering findings on its date
        key["today"] = date.today().isoformat()
    cache = cache_files.read_json(ws.root, ws.cache_dir, CACHE_FILE)
    if not isinstance(cache, dict) or cache.get("key") != key:
        cache = {}
    cached_files: dict[str, Any] = cache.get("files", {}) if isinstance(cache.get("files"), dict) else {}

    listing = ws.memory_relpaths()
    memory = [p for fmt_paths in listing.values() for p in fmt_paths]
    if paths:
        wanted = [p.rstrip("/") for p in paths]
        memory = [m for m in memory if any(m == w or m.startswith(w + "/") for w in wanted)]
    stats: Stats = {}

    def stat(rel: str) -> list[int] | None:
        if rel not in stats:
            stats[rel] = _stat(os.path.join(root, rel))
        return stats[rel]

    code_sig: list[str] = []

    def code_signature() -> str:
        if not code_sig:
            digest = hashlib.sha1()
            for rel in ws.rel_files():
                if language_of(rel):
                    digest.update(f"{rel}\0{stat(rel)}\n".encode())
            code_sig.append(digest.hexdigest())
        return code_sig[0]

    findings: list[Finding] = []
    stale_files: list[str] = []
    checked = reused = 0
    for rel in memory:
        record = cached_files.get(rel)
        valid = (
            isinstance(record, dict)
            and record.get("stat") == stat(rel)
            and all(stat(dep) == seen for dep, seen in record.get("deps", {}).items())
            and (not record.get("any_code") or record.get("code") == code_signature())
        )
        if valid:
            assert isinstance(record, dict)
            findings.extend(Finding.model_validate(f) for f in record["findings"])
            checked += record.get("entries", 0)
            reused += record.get("entries", 0)
        else:
            stale_files.append(rel)

    checker = None
    if stale_files:
        workers = _workers(len(stale_files)) if fork else 1
        with collection_paused():  # what the check builds lives to its end (collecting cost ~18% at 10k)
            written: list[tuple[list[str], str]] = []  # records the workers wrote: their files, as JSON
            if workers > 1:
                fresh, by_file, count, seen, written = _check_in_parallel(ws, history, stale_files, listing, workers)
            else:
                fresh, by_file, count, seen, checker = _check_files(ws, history, stale_files, listing)
        stats.update(seen)
        findings.extend(fresh)
        checked += count
        for rel in (*stale_files, *(rel for rels, _ in written for rel in rels)):
            cached_files.pop(rel, None)
        cached_files.update(_records(by_file, stat, code_signature))
        live = set(memory) if not paths else None
        if live is not None:
            cached_files = {k: v for k, v in cached_files.items() if k in live}
        members = [m for m in (*(text for _, text in written), json_text(cached_files)[1:-1]) if m]
        body = '{"key": ' + json.dumps(key) + ', "files": {' + ", ".join(members) + "}}"
        cache_files.write(ws.root, ws.cache_dir, CACHE_FILE, body.encode())
    findings.sort(key=finding_order)
    reported = [f for f in findings if f.suppressed is None]
    return StaleReport(findings=reported, checked=checked, reused=reused, checker=checker,
                       suppressed=[f for f in findings if f.suppressed is not None])


Slots = dict[str, dict[str, Any]]
Stats = dict[str, list[int] | None]

#: Below this many memory files to check, one process does it (starting workers costs more than it saves).
PARALLEL_MIN_FILES = 2000


def _workers(files: int) -> int:
    """How many processes check ``files`` memory files (see :func:`lorekeeper.infra.workers.worker_count`)."""
    return worker_count(files, PARALLEL_MIN_FILES)


def _check_files(ws: Workspace, history: GitHistory, files: list[str], listing: dict[str, list[str]],
                 save: bool = True) -> tuple[list[Finding], Slots, int, Stats, StalenessChecker]:
    """Load and check the memory files ``files``: their findings, what each file's verdicts depend on,
    how many entries were checked, and the state (:func:`_stat`) of those files and their dependencies:
    as read, for the files the check read (the version its verdicts are about), else taken after the
    check (here, so that workers take them in parallel)."""
    store = Store(ws, keep_stats=True, judge=JUDGE, dates=False)  # (a check needs no file's creation date)
    store.load(only=set(files), files=listing)
    checker = StalenessChecker(ws, store, history=history)
    fresh = checker.check(store.live(), save=save) + checker.suppressed()  # (told apart by check_cached)
    by_file: Slots = {rel: _slot() for rel in files}
    for entry in store.live():
        slot = by_file.get(entry.location.path)
        if slot is None:
            slot = by_file[entry.location.path] = _slot()
        slot["entries"] += 1
        result = checker.results.get(entry.id)
        if result is None:
            continue
        deps = slot["deps"]
        for dep in result.depends_on:
            if dep == ANY_CODE or dep.startswith(WORD):
                slot["any_code"] = True
            else:
                deps.add(dep)
    for finding in fresh:
        by_file.setdefault(finding.source, _slot())["findings"].append(finding.model_dump(mode="json"))
    # The state of each file as it was read (the version the verdicts are about) where it was read; the
    # others' (folders, missing files, files only looked up) now.
    root = str(ws.root) + os.sep
    seen: Stats = {**checker.index.stats, **store.stats}
    for rel, slot in by_file.items():
        for path in (rel, *slot["deps"]):
            if path not in seen:
                seen[path] = _stat(root + path)
    return fresh, by_file, len(checker.checked), seen, checker


def _slot() -> dict[str, Any]:
    return {"deps": set(), "any_code": False, "findings": [], "entries": 0}


def _records(by_file: Slots, stat: Callable[[str], list[int] | None], code: Callable[[], str]) -> dict[str, Any]:
    """The cache's record of each checked memory file: its state and its dependencies' (``stat``), the
    code's signature where a verdict depends on the code as a whole (``code``), and its findings."""
    return {rel: {"stat": stat(rel), "deps": {dep: stat(dep) for dep in sorted(slot["deps"])}, "any_code": slot["any_code"],
                  "code": code() if slot["any_code"] else None, "entries": slot["entries"], "findings": slot["findings"]}
            for rel, slot in by_file.items()}


def _no_code() -> str:
    raise AssertionError("a record that depends on the code as a whole is written by the parent")


def _check_in_parallel(ws: Workspace, history: GitHistory, files: list[str], listing: dict[str, list[str]],
                       workers: int) -> tuple[list[Finding], Slots, int, Stats, list[tuple[list[str], str]]]:
    """Split the memory files over forked processes (:func:`lorekeeper.infra.workers.fork_map`, one share a
    worker). What every worker would ask first (the file tree, the commit times of files, git's state) is
    answered here before the fork, so it is asked once. The workers save no cache: their verdicts come
    back here and go into ``stale.json``, each file's record already written as JSON by the worker
    (:func:`_records`), except where it depends on the code as a whole (this process signs the code once)
    or is not one of the share's files: those slots come back with the state of their files."""
    ws.rel_files()
    ws.added_in("")
    size = -(-len(files) // workers)
    shares = [files[i : i + size] for i in range(0, len(files), size)]

    def check_share(share: list[str]) -> tuple[list[dict[str, Any]], Slots, int, Stats, tuple[list[str], str]]:
        fresh, by_file, count, seen, _ = _check_files(ws, history, share, listing, save=False)
        mine = set(share)
        rest = {rel: slot for rel, slot in by_file.items() if slot["any_code"] or rel not in mine}
        done = {rel: slot for rel, slot in by_file.items() if rel not in rest}
        rest_seen = {path: seen[path] for rel, slot in rest.items() for path in (rel, *slot["deps"])}
        return ([f.model_dump(mode="json") for f in fresh], rest, count, rest_seen,
                (list(done), json_text(_records(done, seen.__getitem__, _no_code))[1:-1]))

    answers = fork_map(check_share, shares, workers=len(shares), here=True)
    fresh: list[Finding] = []
    by_file: Slots = {}
    stats: Stats = {}
    written: list[tuple[list[str], str]] = []
    count = 0
    for found, slots, checked, seen, members in answers:
        fresh.extend(Finding.model_validate(f) for f in found)
        by_file.update(slots)
        stats.update(seen)
        written.append(members)
        count += checked
    return fresh, by_file, count, stats, written
