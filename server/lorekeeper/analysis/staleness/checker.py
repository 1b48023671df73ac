# pyright: standard
"""The staleness checker: which memories name code that is gone, moved, or changed since they were true.

Each reference an entry holds is first resolved against the workspace as it is today (the code index:
files, manifests, symbols), which settles almost all of them at no git cost. What does not resolve is
judged against the memory's **baseline** (:mod:`.baseline`): the commit at which the memory was written
or verified. Only a target that existed at the baseline and is gone now is an error, and the commit
that removed it is searched after the baseline only. A target that did not exist at the baseline was
never there for this memory: information at most. When git cannot answer (shallow or partial clone, a
timeout) one warning says so and no verdict rests on the missing answer.

The checks for each reference kind live in :mod:`.checks`, one class a kind, in a registry. The checker
keeps a reverse index from workspace paths to the entries whose verdict depends on them, so a change to
one file re-checks only its dependants."""

from __future__ import annotations

import os
import re
from bisect import bisect_left, insort_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date
from itertools import takewhile
from pathlib import PurePosixPath
from typing import Any

from ...core.kinds import kind_of
from ...core.model import Entry, Finding, Fix, Severity, finding_order
from ...facts import open_memory
from ...refs.extract import Reference, extract, from_explicit
from ...refs.fingerprint import Fingerprinter, Verifications
from ...refs.history import GitHistory
from ...refs.index import _IDENTIFIER, CodeIndex
from ...refs.symbols import FileSymbols, language_of
from ...store import Store
from ...workspace import Workspace
from ..agents.sources import read_source
from .baseline import Baselines
from .checks import CHECKS, WORD, gone_dependencies, post_checks

ANY_CODE = "*"  # reverse-index key: entries that depend on every code file
#: Folders of an instruction file that say where it is kept, not which part of the code it is about.
_CONFIG_FOLDERS = (".github/instructions", ".github", ".cursor/rules", ".cursor", ".claude", "memory-bank", ".clinerules",
                   ".windsurf/rules", ".windsurf", ".kiro", ".continue", ".augment", "docs")
#: What history may make of a path the working tree does not hold (the last: what it is meanwhile).
_PATH_VERDICTS = ("stale-path", "moved-path", "missing-path", "unresolved-path")
#: Folders that hold agent files at any depth below them (``.cursor/rules/frontend/api.mdc``).
_CONFIG_ROOTS = ("/.github/", "/.cursor/", "/.claude/", "/.windsurf/", "/.kiro/", "/.continue/", "/.augment/",
                 "/.clinerules/", "/memory-bank/")


@dataclass
class EntryResult:
    """What checking one entry found and which workspace paths its verdict depends on."""

    findings: list[Finding] = field(default_factory=list)
    depends_on: set[str] = field(default_factory=set)
    #: Findings a ``lore-ignore`` comment or a ``[[staleness.ignore]]`` rule keeps from being reported.
    suppressed: list[Finding] = field(default_factory=list)


@dataclass
class Pending:
    """A reference that did not resolve today, waiting for its check to judge it against history
    (together with the others of its kind, so that git is asked once for all)."""

    entry: Entry
    ref: Reference
    result: EntryResult
    base: str
    data: dict[str, Any] = field(default_factory=dict)


#: How many one-part folders that open a line (its own, then those above it) are tried as the parent of
#: a relative path (each under every folder named above it).
_SUBFOLDERS = 6


def _folder_of(ref: Reference) -> str | None:
    """The folder a path or glob reference places its reader in (two parts or more), else ``None``."""
    if ref.kind not in ("path", "glob") or ref.target.startswith(("/", "../", "~")):
        return None
    parts = ref.target.removeprefix("./").split("/")
    if ref.kind == "glob":
        parts = parts[:next((k for k, p in enumerate(parts) if any(c in p for c in "*?[{")), len(parts))]
    elif not ref.target.endswith("/"):
        parts = parts[:-1]  # a file: its folder
    parts = [p for p in parts if p]
    return "/".join(parts) if len(parts) >= 2 else None


def _one_part_folder(ref: Reference) -> str | None:
    """The name of a folder of one part a path reference names (`variants/`), else ``None``."""
    if ref.kind != "path" or not ref.target.endswith("/"):
        return None
    one = ref.target.removeprefix("./").rstrip("/")
    return one if one and "/" not in one else None


def _under(heading: Entry) -> str:
    """The section of the lines under a heading unit (its parents' titles, then its own)."""
    return f"{heading.section} > {heading.content}" if heading.section else heading.content


def references_of(entry: Entry) -> list[Reference]:
    """An entry's references: its ``refs`` (never those refused as outside the root) and what its text
    names, explicit ones first. A pure function of the entry."""
    refs: list[Reference] = []
    for ref in entry.refs:
        if not ref.rejected:  # refs outside the root are findings of the store, and never read
            refs.extend(from_explicit(ref))
    explicit = {(r.kind, r.target) for r in refs}
    refs.extend(r for r in extract(entry.content) if (r.kind, r.target) not in explicit)
    return refs


#: A lead-in that shows what not to do: the block of code under it names what should be gone.
_COUNTER_EXAMPLE = re.compile(r"[❌🚫⛔✗✘]|^[\s#>*_/-]*(?:\d+[.)]\s*)?(?:wrong|bad|incorrect|anti-?patterns?|avoid|"
                              r"(?:don'?t|do not|never) do (?:this|that))\b", re.I)
#: The longest lead-in read so: a label, not a paragraph that happens to hold the word.
_LEAD_IN_MAX = 120


class StalenessChecker:
    """Checks entries against the workspace. Reusable: ``recheck(paths)`` re-checks the dependants of
    changed files only."""

    def __init__(self, ws: Workspace, store: Store, index: CodeIndex | None = None, history: GitHistory | None = None):
        self.ws = ws
        self.store = store
        self.index = index or CodeIndex(ws)
        self.history = history or GitHistory(ws.root, ws.cache_dir)
        self.fingerprints = Fingerprinter(self.index, self.history)
        self.verifications = Verifications.load(ws)
        self.baselines = Baselines(ws, self.history, self.verifications)
        self.results: dict[str, EntryResult] = {}
        self._findings: list[Finding] | None = None  # :meth:`findings`, patched as results change
        #: Since :attr:`_findings` was last brought up to date: the findings of results set aside, and
        #: the ids whose result was set or dropped.
        self._unlisted: list[Finding] = []
        self._relisted: dict[str, None] = {}  # in the order the results now stand in :attr:`results`
        self._reverse: dict[str, set[str]] = {}  # workspace path -> dependent entry ids
        self._indexed: dict[str, set[str]] = {}  # entry id -> the paths it was indexed under
        self._by_id: dict[str, Entry] | None = None
        self._by_file: dict[str, list[Entry]] | None = None  # live instruction units by file, in line order
        self._words: set[str] = set()  # refreshed after each check; a stale extra name only costs a lookup
        self._refs: dict[str, dict[str, list[Reference]]] = {}  # by entry id, then text
        #: (instruction file, mtime, size) -> the folders of its front matter's globs (:meth:`rule_folders`)
        self._rule_folders: dict[tuple[str, int, int], list[str]] = {}
        #: Each entry's verification baseline, asked for by several checks: (the entry, its baseline).
        self._baselines: dict[str, tuple[Entry, tuple[str, dict[str, str]] | None]] = {}
        self._reported_problems: set[str] = set()
        #: Code files' symbols at past commits, by (commit, path): what a commit held never changes.
        self.parsed_at: dict[tuple[str, str], FileSymbols] = {}
        self.checked: list[str] = []  # entry ids checked by the last call, for callers and tests

    # -- public ----------------------------------------------------------------------------------

    def check(self, entries: Iterable[Entry] | None = None, save: bool = True,
              on_tree: Callable[[list[Finding]], None] | None = None) -> list[Finding]:
        """Check entries (default: every live entry); their findings in file and line order.
        ``on_tree(findings)`` is told, once every reference was looked up in the working tree and before
        git is asked anything, which files and folders the memories name that are not there (information,
        each saying that its history is being read: :meth:`tree_findings`), for an editor to show first."""
        skipped = self.ws.staleness.skipped
        targets = [e for e in (entries if entries is not None else self.store.live()) if not skipped(e.location.path)]
        self.checked = [e.id for e in targets]
        self._baselines = {}
        pending: dict[str, list[Pending]] = {}
        for entry in targets:
            result = EntryResult()
            self._set_result(entry.id, result)
            self._learn_verified(entry)
            for ref in self.references(entry) if not self.counter_example(entry) else ():
                check = CHECKS.get(ref.kind)
                if check is None:
                    continue
                item = Pending(entry, ref, result, self.base_of(entry, ref))
                if not check.now(self, item):
                    pending.setdefault(ref.kind, []).append(item)
        if on_tree is not None:
            on_tree(self.tree_findings(pending.get("path", [])))
        # Every unresolved reference of an instruction file is judged against its line's blame: ask git
        # for all of those files at once (and for git status) rather than one after another.
        if pending:
            self.history.prefetch({i.entry.location.path for items in pending.values() for i in items
                                   if i.entry.format == "instruction"})
        for kind, items in pending.items():
            CHECKS[kind].judge(self, items)
        gone_dependencies(self, targets)
        for entry in targets:
            result = self.results[entry.id]
            for post in post_checks():
                post(self, entry, result)
            if result.findings and (entry.ignores or self.ws.staleness.ignore):
                self._suppress(entry, result)
        self.history.settle()  # every answer git was asked for in the background is in
        self._report_history_problems(targets)
        self._index_results(self.checked)
        self._words.update(d[len(WORD):] for i in self.checked for d in self._indexed.get(i, ()) if d.startswith(WORD))
        if save:
            self.save()
        found = [f for i in self.checked for f in self.results[i].findings]
        return sorted(found, key=finding_order)

    def tree_findings(self, items: list[Pending]) -> list[Finding]:
        """What the working tree alone says of the path references ``items`` that did not resolve: each
        file or folder is not there (information; the verdict, which history gives, replaces it). Only the
        references the judgement always gives a finding (named as paths, not the short form of an existing
        path), and none an ignore comment or rule covers; none without git (judged at once then)."""
        if not self.history.available:
            return []
        out: list[Finding] = []
        for item in items:
            ref = item.ref
            if not ref.strong or item.data.get("tail") or not item.data.get("candidates"):
                continue
            what = "folder" if ref.target.endswith("/") else "file"
            out.append(self.finding(item, "unresolved-path", Severity.info,
                                    f"{what} `{ref.target}` is not in the working tree (its history is being read)"))
        by_id = {item.entry.id: item.entry for item in items}
        kept: list[Finding] = []
        for finding in out:
            entry = by_id[finding.entry] if finding.entry else None
            if entry is None or not (entry.ignores or self.ws.staleness.ignore):
                kept.append(finding)
                continue
            # not shown where a comment or rule covers any verdict history may give (it would flash)
            shown = [self._sorted_out(entry, [finding.model_copy(update={"kind": kind})])[0] for kind in _PATH_VERDICTS]
            if all(shown):
                kept.append(finding.model_copy(update={"message": shown[-1][0].message}))
        return sorted(kept, key=finding_order)

    def findings(self) -> list[Finding]:
        """Every result's findings, in file and line order (kept, and patched where results changed)."""
        if self._findings is not None and self._relisted:
            if len(self._relisted) > max(10, len(self.results) // 20) or not self._patch_findings():
                self._findings = None  # much changed (or a finding moved since): sorted again
        if self._findings is None:
            out = [f for r in self.results.values() for f in r.findings]
            self._findings = sorted(out, key=finding_order)
            self._unlisted, self._relisted = [], {}
        return list(self._findings)

    def _patch_findings(self) -> bool:
        """:attr:`_findings` without the findings of results set aside and with those of the results set
        since (in order: each found by bisection, the list moved at C speed), as sorting them all gives.
        A result's findings are final once its check is done; a save at 10k entries sorted ~9,000."""
        listed = self._findings
        assert listed is not None
        for finding in self._unlisted:
            place = finding_order(finding)
            at = bisect_left(listed, place, key=finding_order)
            while at < len(listed) and listed[at] is not finding and finding_order(listed[at]) == place:
                at += 1  # among findings in the same place, this very one
            if at == len(listed) or listed[at] is not finding:
                return False
            del listed[at]
        for entry_id in self._relisted:  # (a tie goes after the findings of results set before, as sorting puts it)
            result = self.results.get(entry_id)
            for finding in result.findings if result is not None else ():
                insort_right(listed, finding, key=finding_order)
        self._unlisted, self._relisted = [], {}
        return True

    def reverse_index(self) -> dict[str, set[str]]:
        """Workspace path -> ids of the entries whose verdict depends on it (kept up to date as entries
        are checked; a result's dependencies are final once its check is done)."""
        return self._reverse

    def dependants(self, changed: Iterable[str]) -> set[str]:
        reverse = self.reverse_index()
        ids: set[str] = set()
        for path in changed:
            path = path.rstrip("/")
            ids |= reverse.get(path, set())
            parent = PurePosixPath(path).parent
            while str(parent) != ".":  # entries that name a folder depend on what is inside it
                ids |= reverse.get(str(parent), set())
                parent = parent.parent
            if language_of(path):
                ids |= reverse.get(ANY_CODE, set())
                if self._words:
                    data = self.index.read(path) or b""
                    words = self._words.intersection(w.decode("ascii", "replace") for w in _IDENTIFIER.findall(data))
                    for word in words:
                        ids |= reverse.get(WORD + word, set())
        return ids

    def recheck(self, changed: Iterable[str], structural: bool = True) -> list[Finding]:
        """Re-check only the entries that depend on the changed paths (``checked`` lists them); returns
        their findings.
        ``structural=False`` says the paths were modified in place (no file created or deleted), so the
        file list is kept and only what the index learnt about those files is forgotten."""
        changed = list(changed)
        self.history.forget_worktree()  # what is changed, new or staged is asked again
        if structural:
            self.ws.refresh()
            self.index = CodeIndex(self.ws)
            self.fingerprints = Fingerprinter(self.index, self.history)
        else:
            self.index.forget(changed)
        ids = self.dependants(changed)
        by_id = self._live_by_id()
        entries = [by_id[i] for i in sorted(ids) if i in by_id]
        for entry_id in ids:
            self._drop_result(entry_id)
        if entries:
            self.check(entries, save=False)
        else:
            self.checked = []
        return [f for i in self.checked for f in self.results[i].findings]

    def dated(self, store: Store) -> None:
        """Go on from ``store``, this checker's store with its instruction files dated
        (:meth:`Store.dated`): the same memory, whose references and their baselines (the lines' own
        commits, not the files') do not depend on those dates; nothing is checked again."""
        if store is self.store:
            return
        self.store = store
        self._by_id = None
        self._by_file = None

    def reload(self, store: Store, files: set[str]) -> bool:
        """Go on from ``store``, which is this checker's store with the memory files ``files`` read again
        (:meth:`Store.reloaded`): the entries of those files are checked, and so are entries elsewhere that
        became live (their link now leads nowhere); results of entries no longer live are dropped. The
        code did not change, so every other result stands. ``False``, with nothing changed, where only a
        full check gives the same answer: an id is used twice in memory, before or after (results are
        kept by id: which of two entries a result is about is the full check's order), or git's problems
        were already reported on some memory."""
        if self._reported_problems or _ids_repeat(self.store) or _ids_repeat(store):
            return False
        before = set(self.store.ids_read_from(files))
        after = set(store.ids_read_from(files))
        changes = store.changes_since(self.store.serial)
        if changes is not None:
            # Patched: only the entries at the positions that changed can have become live or ceased to
            # be (the results are of live entries), without a pass over every id.
            old_live = {e.id for e in changes[0] if e.live}
            new_live = {e.id for e in changes[1] if e.live}
            left, came = old_live - new_live, new_live - old_live
        else:
            was_live, now_live = self.store.live_ids(), store.live_ids()
            left, came = self.results.keys() - now_live, now_live - was_live
        self.store = store
        self._by_id = None
        self._by_file = None
        # Kept by entry id and line. (git's blame is kept by the file's content; its status is asked
        # about code files only, and no code file changed.)
        self.baselines = Baselines(self.ws, self.history, self.verifications)
        for entry_id in sorted((self.results.keys() & left) | (self.results.keys() & before)):
            self._drop_result(entry_id)
        for entry_id in before | after:  # their references are kept by text: the refs may have changed
            self._refs.pop(entry_id, None)
        wanted = after | came
        targets = store.live_among(wanted) if wanted else []
        if targets:
            self.check(targets, save=False)
        else:
            self.checked = []
        return True

    def save(self) -> None:
        self.index.save()
        self.history.save()

    # -- references ------------------------------------------------------------------------------

    def base_of(self, entry: Entry, ref: Reference | None = None) -> str:
        """The folder relative paths in an entry resolve against first: the folder a command changes
        into, else the folder of an instruction file that is not at the root (a nested CLAUDE.md, a
        package's AGENTS.md, docs inside a package), leaving out the folders that only say where agent
        files are kept (``.github``, ``.cursor/rules``...)."""
        if ref is not None and ref.scope is not None:
            return ref.scope.strip("/")
        if entry.format != "instruction":
            return ""
        folder = str(PurePosixPath(entry.location.path).parent)
        folder = "" if folder == "." else folder
        rooted = "/" + folder + "/"
        cut = min((rooted.find(r) for r in _CONFIG_ROOTS if r in rooted), default=-1)
        if cut >= 0:
            return rooted[1:cut + 1].strip("/")
        for suffix in _CONFIG_FOLDERS:
            if folder == suffix:
                return ""
            if folder.endswith("/" + suffix):
                return folder[: -len(suffix) - 1]
        return folder

    def rule_folders(self, entry: Entry) -> list[str]:
        """The folders the front matter of an entry's instruction file scopes it to: the fixed start of
        each of its globs (``globs: packages/upgrade/**/*.test.tsx`` -> ``packages/upgrade``), where a
        rule's relative paths may start (`./test/__helpers`)."""
        path = entry.location.path
        if entry.format != "instruction" or not path.endswith((".mdc", ".md")):
            return []
        try:
            full = self.ws.inside(path)
            info = os.stat(full)
        except (OSError, ValueError):
            return []
        key = (path, info.st_mtime_ns, info.st_size)  # (an editor's session sees the file change)
        if key not in self._rule_folders:
            folders: list[str] = []
            try:
                with open(full, encoding="utf-8", errors="replace") as handle:
                    text = handle.read(self.ws.config.max_file_bytes)
            except OSError:
                text = ""
            if text.startswith("---"):
                source = read_source(path, text)
                for pattern in source.globs("globs", "applyTo", "paths") or []:
                    parts = pattern.strip("/").split("/")
                    fixed = list(takewhile(lambda part: not any(c in part for c in "*?[{"), parts))
                    # the folders before the first wildcard; a pattern with none names a file: its folder
                    folder = "/".join(fixed[:-1] if len(fixed) == len(parts) else fixed)
                    if folder and folder not in folders:
                        folders.append(folder)
            self._rule_folders[key] = folders
        return self._rule_folders[key]

    def references(self, entry: Entry) -> list[Reference]:
        """The entry's references: its ``refs`` (never those refused as outside the root) and what its
        text names. Memoised per entry and text."""
        known = self._refs.setdefault(entry.id, {})
        cached = known.get(entry.content)
        if cached is not None:
            return cached
        refs = known[entry.content] = references_of(entry)
        return refs

    def units_of(self, path: str) -> list[Entry]:
        """The live instruction units of a file, in line order."""
        if self._by_file is None:
            by_file: dict[str, list[Entry]] = {}
            for e in self.store.live():
                if e.format == "instruction":
                    by_file.setdefault(e.location.path, []).append(e)
            for units in by_file.values():
                units.sort(key=lambda e: e.location.start_line)
            self._by_file = by_file
        return self._by_file.get(path, [])

    def counter_example(self, entry: Entry) -> bool:
        """Whether an entry is a block of code shown as what not to do: a fenced block right under a short
        lead-in that says so, with a cross anywhere or a word it opens with ("**❌ WRONG: Hardcoded logic in
        config generator**", "Bad:", "Avoid:", "Don't do this:"; not "… use the mock providers to avoid API
        calls:"). What it names was meant to be gone."""
        if entry.format != "instruction" or not entry.content.lstrip().startswith(("```", "~~~")):
            return False
        start = entry.location.start_line
        lead = next((e for e in reversed(self.units_of(entry.location.path)) if e.location.start_line < start), None)
        return bool(lead is not None and start - lead.location.end_line <= 2 and len(lead.content) <= _LEAD_IN_MAX
                    and _COUNTER_EXAMPLE.search(lead.content))

    def folders_before(self, entry: Entry, ref: Reference) -> list[str]:
        """The folders an instruction file names before ``ref`` (of ``entry``), in the entry and in the
        units above it under the same heading, nearest first: where its author was when writing a path
        relative to one ("`src/core/prompts/system-prompt/README.md`", then "`components/` - Shared
        sections"). Each folder of two parts or more: a path's folder, a folder, a glob's fixed start; and,
        first, a one-part folder that opens a line on the way under each of those ("- `variants/` -
        Model-specific: `generic/`": `src/core/prompts/system-prompt/variants/generic/`)."""
        if entry.format != "instruction":
            return []
        units = self.units_of(entry.location.path)
        before = [e for e in units if e.location.start_line < entry.location.start_line
                  and (e.section == entry.section or (e.source == "heading" and entry.section == _under(e)))]
        out: list[str] = []
        # the one-part folders that open a line on the way ("- `variants/` - Model-specific: `generic/`")
        subfolders: list[str] = []
        own = self.references(entry)
        earlier = own[:own.index(ref)] if ref in own else []
        for refs in [earlier, *(self.references(e) for e in reversed(before))]:
            if refs and len(subfolders) < _SUBFOLDERS and (one := _one_part_folder(refs[0])) and one not in subfolders \
                    and one != ref.target.rstrip("/"):
                subfolders.append(one)
            for named in reversed(refs):
                folder = _folder_of(named)
                if folder and folder not in out:
                    out.append(folder)
        # a heading that names one folder of one part and nothing else ("### MCP Server (`mcp_server/`)"): the
        # lines under it are about that folder (as every folder here, judged only where it held the path)
        headed = [one for e in before if e.source == "heading" and len(refs := self.references(e)) == 1
                  and (one := _one_part_folder(refs[0])) is not None and one not in out]
        # such a folder is itself relative to a folder named above it: both, nearest first
        return [f"{folder}/{one}" for one in subfolders for folder in out] + out + headed

    def finding(self, item: Pending, kind: str, severity: Severity, message: str,
                fix: Fix | None = None, commit: Any = None) -> Finding:
        """A finding about one reference, at the line that holds it."""
        entry = item.entry
        line = self.baselines.line_of(entry, item.ref.line)
        aliases = self.ws.aliases.get(entry.location.path)
        related = [{"source": alias, "line": line, "message": f"the same file: {alias} is a symlink to {entry.location.path}"}
                   for alias in aliases] if aliases else None
        return Finding(kind=kind, severity=severity, message=message, source=entry.location.path, line=line,
                       entry=entry.id, ref=item.ref.label(), fix=fix, related=related,
                       commit=getattr(commit, "sha", commit))

    def add(self, item: Pending, kind: str, severity: Severity, message: str, fix: Fix | None = None,
            commit: Any = None) -> None:
        """Record a finding about ``item``; ``commit`` (a :class:`Commit` or sha) is the one that made it stale."""
        item.result.findings.append(self.finding(item, kind, severity, message, fix, commit))

    @property
    def history_trusted(self) -> bool:
        """Whether "it did not exist then" can be said: not in a shallow clone, whose oldest commit may
        be newer than the memory. (A query that failed gives no answer at all, so missing objects or a
        timeout never turn into "did not exist".)"""
        return self.history.available and "shallow" not in self.history.problems and "git" not in self.history.problems

    # -- internals -------------------------------------------------------------------------------

    def verified_baseline(self, entry: Entry) -> tuple[str, dict[str, str]] | None:
        """:meth:`Verifications.baseline` of the entry, computed once per check."""
        known = self._baselines.get(entry.id)
        if known is not None and known[0] is entry:
            return known[1]
        baseline = self.verifications.baseline(entry)
        self._baselines[entry.id] = (entry, baseline)
        return baseline

    def _learn_verified(self, entry: Entry) -> None:
        """Tell the index what verifying this entry saw: a symbol and its fingerprint in a file's exact
        content (both are recorded when a symbol ref is verified), so an unchanged file is not parsed."""
        baseline = self.verified_baseline(entry)
        if baseline is None:
            return
        prints = baseline[1]
        for ref in self.references(entry):
            if ref.kind == "symbol" and ref.file and ref.file in prints and ref.label() in prints:
                path = self.index.resolve(ref.file, self.base_of(entry, ref))
                if path is not None:
                    self.index.learn_verified(path, prints[ref.file], ref.target, prints[ref.label()])

    def suppressed(self) -> list[Finding]:
        """The findings of the last check that ignore comments and rules keep from being reported."""
        return [f for i in self.checked for f in self.results[i].suppressed]

    def _suppress(self, entry: Entry, result: EntryResult) -> None:
        """Set apart the findings a ``lore-ignore`` comment of the entry or an ignore rule of the
        configuration covers, each with why. A rule past its ``until`` date covers nothing, and the
        finding says the rule expired."""
        result.findings, suppressed = self._sorted_out(entry, result.findings)
        result.suppressed.extend(suppressed)

    def _sorted_out(self, entry: Entry, findings: list[Finding]) -> tuple[list[Finding], list[Finding]]:
        """``findings`` of ``entry`` as (reported, suppressed): see :meth:`_suppress`."""
        today = date.today()
        kept: list[Finding] = []
        suppressed: list[Finding] = []
        for finding in findings:
            family = kind_of(finding.kind).family.value
            why = next((f"{entry.location.path}:{c.line}: {c.reason}" for c in entry.ignores
                        if c.matches(finding.kind, family)), None)
            expired = None
            if why is None:
                for rule in self.ws.staleness.ignore:
                    if rule.matches(finding.kind, family, finding.source, finding.ref):
                        if not rule.expired(today):
                            why = f"{rule.where()}: {rule.reason}"
                            break
                        expired = expired or rule
            if why is not None:
                suppressed.append(finding.model_copy(update={"suppressed": why}))
            elif expired is not None:
                kept.append(finding.model_copy(update={
                    "message": f"{finding.message} (the ignore rule {expired.where()} expired on {expired.until})"}))
            else:
                kept.append(finding)
        return kept, suppressed

    def _report_history_problems(self, targets: list[Entry]) -> None:
        """One warning per reason git could not answer, on the first memory checked."""
        fresh = {k: v for k, v in self.history.problems.items() if k not in self._reported_problems}
        if not fresh or not targets:
            return
        first = min(targets, key=lambda e: (e.location.path, e.location.start_line))
        for cause, message in sorted(fresh.items()):
            self._reported_problems.add(cause)
            self.results[first.id].findings.append(Finding(
                kind="history-unavailable", severity=Severity.warning, source=first.location.path,
                line=first.location.start_line, entry=first.id, message=f"git history is incomplete: {message}"))

    def _set_result(self, entry_id: str, result: EntryResult) -> None:
        self._drop_result(entry_id)
        self.results[entry_id] = result
        if self._findings is not None:  # the result is now the last of the results
            del self._relisted[entry_id]
            self._relisted[entry_id] = None
        self._indexed[entry_id] = result.depends_on  # the same set: filled in as the check goes

    def _drop_result(self, entry_id: str) -> None:
        dropped = self.results.pop(entry_id, None)
        if self._findings is not None:
            if dropped is not None and entry_id not in self._relisted:
                self._unlisted.extend(dropped.findings)
            self._relisted.setdefault(entry_id)
        for path in self._indexed.pop(entry_id, ()):
            holders = self._reverse.get(path)
            if holders is not None:
                holders.discard(entry_id)

    def _index_results(self, entry_ids: Iterable[str]) -> None:
        for entry_id in entry_ids:
            for path in self._indexed.get(entry_id, ()):
                self._reverse.setdefault(path, set()).add(entry_id)

    def _live_by_id(self) -> dict[str, Entry]:
        if self._by_id is None:
            self._by_id = {e.id: e for e in self.store.live()}
        return self._by_id


def check_workspace(ws: Workspace, paths: list[str] | None = None) -> tuple[list[Finding], StalenessChecker]:
    """Load the store and check every live entry (or only those in the given memory files)."""
    store = open_memory(ws)
    checker = StalenessChecker(ws, store)
    entries = store.live()
    if paths:
        wanted = {p.rstrip("/") for p in paths}
        entries = [e for e in entries if any(e.location.path == p or e.location.path.startswith(p + "/") for p in wanted)]
    return checker.check(entries), checker


def _ids_repeat(store: Store) -> bool:
    """Whether some id is used by two entries (the store reports each such use)."""
    return any(f.kind == "duplicate-id" for f in store.findings)
