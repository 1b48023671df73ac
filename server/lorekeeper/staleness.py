"""Staleness: which memories name code that is gone, moved, or changed since they were verified.

For every entry, the references in its text and its ``refs`` are resolved against the workspace as it is
today (:class:`~lorekeeper.refs.index.CodeIndex`); what does not resolve is judged with git's memory
(:class:`~lorekeeper.refs.history.GitHistory`): a target that existed and was deleted or moved is stale
with high confidence, and the message names the commit; a target that never existed is at most a
low-severity "unresolved" note. The checker also keeps a reverse index from code files to the entries
that depend on them, so a change to one file re-checks only its dependants."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any, Callable, Iterable

from .model import Entry, Finding, Severity
from .refs.extract import Reference, extract, from_explicit
from .refs.fingerprint import Fingerprinter, Verifications
from .refs.history import GitHistory
from .refs.index import _IDENTIFIER, CodeIndex, ensure_cache_dir
from .refs.symbols import language_of
from .store import FileChange, Journal, Operation, Record, Store
from .workspace import PathOutsideRoot, Workspace

#: Generated, dependency and runtime folders: references into them are not judged.
GENERATED = frozenset({"dist", "build", "out", "target", "node_modules", "coverage", ".next", ".nuxt", ".venv", "venv",
                       "__pycache__", ".cache", ".turbo", ".git", "tmp", ".tox"})
ANY_CODE = "*"  # reverse-index key: entries that depend on every code file
WORD = "word:"  # reverse-index keys "word:NAME": entries waiting for NAME to appear in some code file
_CODE_PATHSPECS = tuple(f"*{ext}" for ext in (".py", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".go", ".rs",
                                                ".java", ".kt", ".rb", ".php", ".cs", ".swift", ".c", ".h", ".cpp"))


@dataclass
class EntryResult:
    """What checking one entry found and which workspace paths its verdict depends on."""

    findings: list[Finding] = field(default_factory=list)
    depends_on: set[str] = field(default_factory=set)


class StalenessChecker:
    """Checks entries against the workspace. Reusable: ``recheck(paths)`` re-checks the dependants of
    changed files only."""

    def __init__(self, ws: Workspace, store: Store, index: CodeIndex | None = None, history: GitHistory | None = None):
        self.ws = ws
        self.store = store
        self.index = index or CodeIndex(ws)
        self.history = history or GitHistory(ws.root, ws.root / ".lore" / "cache")
        self.fingerprints = Fingerprinter(self.index, self.history)
        self.verifications = Verifications.load(ws)
        self.results: dict[str, EntryResult] = {}
        self._reverse: dict[str, set[str]] = {}  # workspace path -> dependent entry ids
        self._indexed: dict[str, set[str]] = {}  # entry id -> the paths it was indexed under
        self._by_id: dict[str, Entry] | None = None
        self._words: set[str] = set()  # refreshed after each check; a stale extra name only costs a lookup
        self._refs: dict[tuple[str, str], list[Reference]] = {}
        # Verdicts that need git's memory wait here, so that one batched query answers them all.
        self._questions: list[tuple[str, tuple[str, ...]]] = []
        self._deferred: list[tuple[EntryResult, Callable[[], Finding | None]]] = []
        self.checked: list[str] = []  # entry ids checked by the last call, for callers and tests

    # -- public ----------------------------------------------------------------------------------

    def check(self, entries: Iterable[Entry] | None = None, save: bool = True) -> list[Finding]:
        """Check entries (default: every live entry); their findings in file and line order."""
        targets = [e for e in (entries if entries is not None else self.store.live())]
        self.checked = [e.id for e in targets]
        pending: list[tuple[Entry, Reference, EntryResult]] = []
        for entry in targets:
            result = EntryResult()
            for ref in self.references(entry):
                finding = self._resolve(entry, ref, result, pending)
                if finding:
                    result.findings.append(finding)
            self._set_result(entry.id, result)
        self._resolve_symbols(pending)
        self.history.prefetch(self._questions)
        for result, verdict in self._deferred:
            finding = verdict()
            if finding is not None:
                result.findings.append(finding)
        self._questions, self._deferred = [], []
        for entry in targets:
            self._changed_since_verified(entry, self.results[entry.id])
            self._stated_values(entry, self.results[entry.id])
        self._index_results(self.checked)
        self._words.update(d[len(WORD):] for i in self.checked for d in self._indexed.get(i, ()) if d.startswith(WORD))
        if save:
            self.save()
        found = [f for i in self.checked for f in self.results[i].findings]
        return sorted(found, key=lambda f: (f.source, f.line or 0, f.kind, f.ref or ""))

    def findings(self) -> list[Finding]:
        out = [f for r in self.results.values() for f in r.findings]
        return sorted(out, key=lambda f: (f.source, f.line or 0, f.kind, f.ref or ""))

    def reverse_index(self) -> dict[str, set[str]]:
        """Workspace path -> ids of the entries whose verdict depends on it (kept up to date as entries
        are checked; a result's dependencies are final once its check is done)."""
        return self._reverse

    def _set_result(self, entry_id: str, result: EntryResult) -> None:
        self._drop_result(entry_id)
        self.results[entry_id] = result
        self._indexed[entry_id] = result.depends_on  # the same set: filled in as the check goes

    def _drop_result(self, entry_id: str) -> None:
        self.results.pop(entry_id, None)
        for path in self._indexed.pop(entry_id, ()):
            holders = self._reverse.get(path)
            if holders is not None:
                holders.discard(entry_id)

    def _index_results(self, entry_ids: Iterable[str]) -> None:
        for entry_id in entry_ids:
            for path in self._indexed.get(entry_id, ()):
                self._reverse.setdefault(path, set()).add(entry_id)

    def _waiting_words(self) -> set[str]:
        """Names that entries wait for (defined nowhere yet): a code file mentioning one re-checks them."""
        return self._words


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
                waiting = self._waiting_words()
                if waiting:
                    data = self.index.read(path) or b""
                    words = waiting.intersection(w.decode("ascii", "replace") for w in _IDENTIFIER.findall(data))
                    for word in words:
                        ids |= reverse.get(WORD + word, set())
        return ids

    def recheck(self, changed: Iterable[str], structural: bool = True) -> list[Finding]:
        """Re-check only the entries that depend on the changed paths (``checked`` lists them); returns
        their findings.
        ``structural=False`` says the paths were modified in place (no file created or deleted), so the
        file list is kept and only what the index learnt about those files is forgotten."""
        changed = list(changed)
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

    def _live_by_id(self) -> dict[str, Entry]:
        if self._by_id is None:
            self._by_id = {e.id: e for e in self.store.live()}
        return self._by_id

    def save(self) -> None:
        ensure_cache_dir(self.index.cache_dir)
        self.index.save()
        self.history.save()

    # -- references ------------------------------------------------------------------------------

    def base_of(self, entry: Entry) -> str:
        """The folder relative paths in an entry resolve against first: a nested CLAUDE.md / AGENTS.md
        applies to its own folder."""
        if entry.format != "instruction":
            return ""
        path = PurePosixPath(entry.location.path)
        return str(path.parent) if path.name in ("CLAUDE.md", "AGENTS.md") and str(path.parent) != "." else ""

    def references(self, entry: Entry) -> list[Reference]:
        """The entry's references: its ``refs`` (never those refused as outside the root) and what its
        text names. Memoised per entry and text."""
        key = (entry.id, entry.content)
        cached = self._refs.get(key)
        if cached is not None:
            return cached
        refs: list[Reference] = []
        for ref in entry.refs:
            if not ref.rejected:  # refs outside the root are findings of the store, and never read
                refs.extend(from_explicit(ref))
        explicit = {(r.kind, r.target) for r in refs}
        refs.extend(r for r in extract(entry.content) if (r.kind, r.target) not in explicit)
        self._refs[key] = refs
        return refs

    def _later(self, result: EntryResult, term: str, specs: tuple[str, ...],
               verdict: Callable[[], Finding | None]) -> None:
        """Decide after git has been asked about ``term`` in ``specs`` (batched with the others)."""
        self._questions.append((term, specs))
        self._deferred.append((result, verdict))

    def _finding(self, entry: Entry, ref: Reference, kind: str, severity: Severity, message: str,
                 fix: dict[str, Any] | None = None) -> Finding:
        return Finding(kind=kind, severity=severity, message=message, source=entry.location.path,
                       line=entry.location.start_line, entry=entry.id, ref=ref.label(), fix=fix)

    def _resolve(self, entry: Entry, ref: Reference, result: EntryResult,
                 pending: list[tuple[Entry, Reference, EntryResult]]) -> Finding | None:
        base = self.base_of(entry)
        handler = {
            "path": self._path,
            "script": self._script,
            "make": self._target,
            "just": self._target,
            "console": self._console,
            "module": self._module,
            "package-manager": self._package_manager,
        }.get(ref.kind)
        if ref.kind == "symbol":
            return self._symbol(entry, ref, result, pending)
        return handler(entry, ref, base, result) if handler else None

    def _path(self, entry: Entry, ref: Reference, base: str, result: EntryResult) -> Finding | None:
        try:
            self.ws.inside(ref.target, base)
        except PathOutsideRoot:
            return None  # text that climbs out of the root is not a reference we read
        spellings = [ref.target, *([ref.alt] if ref.alt else [])]
        found = next((f for f in (self.index.resolve(s, base) for s in spellings) if f), None)
        if found:
            result.depends_on.add(found.rstrip("/"))
            return None
        candidates = []
        for spelling in spellings:
            if base:
                candidates.append(str(PurePosixPath(base) / spelling))
            candidates.append(str(PurePosixPath(spelling)))
        result.depends_on.update(candidates)
        first = PurePosixPath(ref.target).parts[0]
        if first in GENERATED or any(self.index.ignored(c + ("/" if ref.target.endswith("/") else "")) for c in candidates):
            return None
        what = "folder" if ref.target.endswith("/") else "file"
        if self.history.available:
            for candidate in candidates:
                if not self.history.existed(candidate):
                    continue
                removal = self.history.removal(candidate)
                moved = self.history.moved_to(candidate)
                if moved and self.index.exists(moved):
                    when = f" in {removal.commit.describe()}" if removal else ""
                    return self._finding(entry, ref, "moved-path", Severity.error,
                                         f"`{ref.target}` was moved to `{moved}`{when}",
                                         fix={"action": "replace-ref", "old": ref.target, "new": moved})
                when = f" in {removal.commit.describe()}" if removal else ""
                copy = self._same_content(candidate, removal) if removal and what == "file" else None
                if copy:
                    return self._finding(entry, ref, "moved-path", Severity.error,
                                         f"`{ref.target}` was deleted{when}; the same content is now at `{copy}`",
                                         fix={"action": "replace-ref", "old": ref.target, "new": copy})
                return self._finding(entry, ref, "stale-path", Severity.error, f"{what} `{ref.target}` was deleted{when}")
            if ref.strong:
                return self._finding(entry, ref, "unresolved-path", Severity.info,
                                     f"{what} `{ref.target}` does not exist and never did in this repository's history")
            return None
        # No git history: a missing file that exists elsewhere under the same name probably moved.
        name = PurePosixPath(ref.target).name
        elsewhere = self.index.by_name.get(name, []) if "." in name else []
        if ref.strong and len(elsewhere) == 1:
            return self._finding(entry, ref, "moved-path", Severity.warning,
                                 f"`{ref.target}` does not exist; `{elsewhere[0]}` has the same name (moved?)",
                                 fix={"action": "replace-ref", "old": ref.target, "new": elsewhere[0]})
        if ref.strong:
            return self._finding(entry, ref, "missing-path", Severity.warning, f"{what} `{ref.target}` does not exist")
        return None

    def _same_content(self, path: str, removal: Any) -> str | None:
        """Where a deleted file went when git did not record a rename (deleted in one commit, added in
        another): a file of the same name whose content is what the file held before its deletion."""
        name = PurePosixPath(path).name
        others = [p for p in self.index.by_name.get(name, []) if p != path]
        if not others:
            return None
        before = self.fingerprints.show(f"{removal.commit.sha}^", path)
        if before is None:
            return None
        same = [p for p in others if self.index.read(p) == before]
        return same[0] if len(same) == 1 else None

    def _symbol(self, entry: Entry, ref: Reference, result: EntryResult,
                pending: list[tuple[Entry, Reference, EntryResult]]) -> Finding | None:
        if ref.file:
            path = self.index.resolve(ref.file, self.base_of(entry))
            if path is None:
                return None  # the path reference reports the missing file
            result.depends_on.add(path)
            if self._defined_in(ref.target, path):
                return None
            if language_of(path) is None and not path.endswith((".json", ".toml")):
                return None  # a file we cannot parse: do not guess
            name = ref.target.rsplit(".", 1)[-1]

            def verdict() -> Finding:
                commits = self.history.pickaxe(name, (path,))
                if commits:
                    when = self.history.removed_when(name, (path,), commits)
                    return self._finding(entry, ref, "stale-symbol", Severity.error,
                                         f"`{ref.target}` is no longer defined in `{path}` ({when})")
                return self._finding(entry, ref, "unresolved-symbol", Severity.warning,
                                     f"`{ref.target}` is not defined in `{path}`")

            self._later(result, name, (path,), verdict)
            return None
        pending.append((entry, ref, result))  # resolved together, in one pass over the code
        return None

    def _defined_in(self, symbol: str, path: str) -> bool:
        if path.endswith((".json", ".toml")):
            return self.fingerprints.config_value(path, symbol) is not None
        return self.index.defined_in(symbol, path) is not None

    def _resolve_symbols(self, pending: list[tuple[Entry, Reference, EntryResult]]) -> None:
        """Symbols named in text: found by the files that mention them (one pass over the code; only
        those files are parsed). Defined nowhere but still mentioned: an external API (``console.log``)
        or a use, not a stale reference. Mentioned nowhere: git tells whether it was removed."""
        if not pending:
            return
        mentions = self.index.files_mentioning({ref.target for _, ref, _ in pending})
        for entry, ref, result in pending:
            files = mentions[ref.target]
            defined = [path for path in files if self.index.defined_in(ref.target, path) is not None]
            if defined:
                result.depends_on.update(defined)
                continue
            # Undefined here: the verdict changes only if some code file starts to mention the name.
            result.depends_on.add(WORD + ref.target.rsplit(".", 1)[-1])
            if files:
                continue  # mentioned but defined nowhere here: an external API, not a stale reference
            if not self.history.available:
                continue
            last = ref.target.rsplit(".", 1)[-1]

            def verdict(entry: Entry = entry, ref: Reference = ref, last: str = last) -> Finding | None:
                commits = self.history.pickaxe(last, _CODE_PATHSPECS)
                if not commits:
                    return None
                when = self.history.removed_when(last, _CODE_PATHSPECS, commits)
                return self._finding(entry, ref, "stale-symbol", Severity.error,
                                     f"`{ref.target}` is no longer defined anywhere in the code ({when})")

            self._later(result, last, _CODE_PATHSPECS, verdict)
            # A name that never occurred in the code is most likely a word about something external
            # (a config option, another tool's API): no finding, a clean workspace stays clean.

    def _manifest_finding(self, entry: Entry, ref: Reference, result: EntryResult, manifest_path: str, kind: str,
                          noun: str, never_severity: Severity | None) -> None:
        """A name missing from its manifest: an error if git shows the manifest had it, else
        ``never_severity`` (or nothing)."""

        def verdict() -> Finding | None:
            commits = self.history.pickaxe(ref.target, (manifest_path,))
            if commits:
                when = self.history.removed_when(ref.target, (manifest_path,), commits)
                return self._finding(entry, ref, kind, Severity.error, f"{noun} is not defined in {manifest_path} ({when})")
            if never_severity is None:
                return None
            name = kind if never_severity != Severity.info else "unresolved-" + kind.split("-", 1)[1]
            return self._finding(entry, ref, name, never_severity, f"{noun} is not defined in {manifest_path}")

        self._later(result, ref.target, (manifest_path,), verdict)

    def _undefined_in_manifest(self, ref: Reference, base: str, result: EntryResult):
        """The manifest that should define a script, target or console script, when it does not (the
        verdict depends on the manifest either way); ``None`` when it is defined or there is none."""
        manifest = self.index.manifest_for(ref.kind, base)
        if manifest is None:
            return None
        result.depends_on.add(manifest.path)
        return None if ref.target in manifest.names else manifest

    def _script(self, entry: Entry, ref: Reference, base: str, result: EntryResult) -> Finding | None:
        manifest = self._undefined_in_manifest(ref, base, result)
        if manifest is None:
            return None
        data = manifest.data if isinstance(manifest.data, dict) else {}
        deps = {**data.get("dependencies", {}), **data.get("devDependencies", {})}
        if ref.target in deps or ref.target.split(":")[0] in deps:
            return None  # `pnpm vitest` runs a dependency's binary
        explicit_run = " run " in f" {ref.text} " or ref.runner == "npm"
        if not self.history.available:
            severity: Severity | None = Severity.error if (ref.strong and explicit_run) else None
        else:
            severity = Severity.warning if explicit_run else (Severity.info if ref.strong else None)
        self._manifest_finding(entry, ref, result, manifest.path, "stale-script", f'script "{ref.target}"', severity)
        return None

    def _target(self, entry: Entry, ref: Reference, base: str, result: EntryResult) -> Finding | None:
        manifest = self._undefined_in_manifest(ref, base, result)
        if manifest is not None:
            kind, noun = (("stale-make-target", "make target") if ref.kind == "make"
                          else ("stale-just-recipe", "just recipe"))
            self._manifest_finding(entry, ref, result, manifest.path, kind, f'{noun} "{ref.target}"', Severity.warning)
        return None

    def _console(self, entry: Entry, ref: Reference, base: str, result: EntryResult) -> Finding | None:
        manifest = self._undefined_in_manifest(ref, base, result)
        if manifest is not None:
            # Anything installed can be run this way (pytest, ruff): only a script that pyproject
            # defined before counts.
            self._manifest_finding(entry, ref, result, manifest.path, "stale-console-script",
                                   f'console script "{ref.target}"', None)
        return None

    def _module(self, entry: Entry, ref: Reference, base: str, result: EntryResult) -> Finding | None:
        parts = ref.target.split(".")
        roots = ["", "src/"]
        for root in roots:
            stem = root + "/".join(parts)
            for candidate in (stem + ".py", stem + "/__init__.py", stem + "/__main__.py"):
                if self.index.exists(candidate):
                    result.depends_on.add(candidate)
                    return None
        local = [root + parts[0] for root in roots if self.index.exists(root + parts[0] + "/__init__.py")
                 or self.index.exists(root + parts[0] + ".py")]
        if not local:
            return None  # a module of some installed package
        result.depends_on.add(local[0])
        module_path = f"{local[0]}/{'/'.join(parts[1:])}.py" if len(parts) > 1 else local[0]
        if self.history.available and self.history.existed(module_path):
            removal = self.history.removal(module_path)
            when = f" in {removal.commit.describe()}" if removal else ""
            return self._finding(entry, ref, "stale-module", Severity.error, f"module `{ref.target}` was deleted{when}")
        return self._finding(entry, ref, "stale-module", Severity.warning,
                             f"module `{ref.target}` does not exist in the local package `{local[0]}`")

    def _package_manager(self, entry: Entry, ref: Reference, base: str, result: EntryResult) -> Finding | None:
        declared, locks = self.index.package_managers(base)
        manifest = self.index.package_json(base)
        if manifest is None and not locks:
            return None
        if manifest is not None:
            result.depends_on.add(manifest.path)
        result.depends_on.update(locks.values())
        evidence = ({declared} if declared else set()) | set(locks)
        if not evidence or ref.target in evidence:
            return None
        actual = declared or sorted(locks)[0]
        why = f'packageManager is "{declared}"' if declared else f"the lockfile is {locks[actual]}"
        return self._finding(entry, ref, "stale-package-manager", Severity.error,
                             f"memory says to use {ref.target}, but this repository uses {actual} ({why})",
                             fix={"action": "replace-text", "old": ref.target, "new": actual})

    # -- changed since verified ------------------------------------------------------------------

    def _changed_since_verified(self, entry: Entry, result: EntryResult) -> None:
        baseline = self.verifications.baseline(entry)
        if baseline is None:
            baseline = self.fingerprints.blame_baseline(entry, self.references(entry), self.base_of(entry))
        if baseline is None:
            return
        since, recorded = baseline
        gone = {f.ref for f in result.findings}
        for ref in self.references(entry):
            if ref.label() in gone or ref.label() not in recorded:
                continue
            current = self.fingerprints.fingerprint(ref, self.base_of(entry))
            if current is not None and current != recorded[ref.label()]:
                # An explicit verification is a promise someone checked; a blame baseline is a guess.
                severity = Severity.warning if since.startswith("verified") else Severity.info
                result.findings.append(self._finding(
                    entry, ref, "changed-since-verified", severity,
                    f"`{ref.label()}` changed since this memory was {since}",
                    fix={"action": "verify", "entry": entry.id}))


    def _stated_values(self, entry: Entry, result: EntryResult) -> None:
        """Numbers a memory states ("line length is 100", "Node 20.11") that the configuration file it
        references held when the memory was written or verified, and holds no more."""
        numbers = set(_NUMBER.findall(entry.content))
        if not numbers or not self.history.available:
            return
        base = self.base_of(entry)
        files = []
        for ref in self.references(entry):
            if ref.kind == "path":
                path = self.index.resolve(ref.target, base)
                if path and not path.endswith("/") and _is_config(path):
                    files.append((ref, path))
        if not files:
            return
        commit, how = self._baseline_commit(entry)
        if commit is None:
            return
        for ref, path in files:
            old, new = self.fingerprints.show(commit, path), self.index.read(path)
            if old is None or new is None:
                continue
            for number in sorted(numbers):
                word = re.compile(rb"(?<![\w.])" + re.escape(number.encode()) + rb"(?![\w.])")
                if word.search(old) and not word.search(new):
                    result.findings.append(self._finding(
                        entry, ref, "stale-value", Severity.warning,
                        f"`{path}` no longer contains {number}, as it did when this memory was {how}"))

    def _baseline_commit(self, entry: Entry) -> tuple[str | None, str]:
        if entry.format == "instruction":
            commit = self.fingerprints.last_change(entry.location.path, entry.location.start_line, entry.location.end_line)
            return (commit.sha, f"written ({commit.describe()})") if commit else (None, "")
        when = entry.verified or entry.created
        if when is None:
            return None, ""
        how = f"verified on {when:%Y-%m-%d}" if entry.verified else f"written on {when:%Y-%m-%d}"
        return self.history.commit_before(when.isoformat()), how


_NUMBER = re.compile(r"(?<![\w.])(\d+(?:\.\d+)+|\d{2,})(?![\w])")
_CONFIG_SUFFIXES = (".toml", ".json", ".jsonc", ".yaml", ".yml", ".ini", ".cfg", ".conf", ".properties", ".editorconfig",
                    ".nvmrc", ".node-version", ".python-version", ".tool-versions", ".env.example")


def _is_config(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return name.endswith(_CONFIG_SUFFIXES) or name in ("Dockerfile", ".editorconfig", ".nvmrc", ".python-version",
                                                       ".tool-versions", ".node-version")


def check_workspace(ws: Workspace, paths: list[str] | None = None) -> tuple[list[Finding], StalenessChecker]:
    """Load the store and check every live entry (or only those in the given memory files)."""
    store = Store.open(ws)
    checker = StalenessChecker(ws, store)
    entries = store.live()
    if paths:
        wanted = {p.rstrip("/") for p in paths}
        entries = [e for e in entries if any(e.location.path == p or e.location.path.startswith(p + "/") for p in wanted)]
    return checker.check(entries), checker


# -- actions on stale memories (each a journaled operation) -------------------------------------------


def _now_iso() -> str:
    from datetime import datetime, timezone

    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def verify_entries(checker: StalenessChecker, entries: list[Entry], journal: Journal) -> list[Record]:
    """Record, for each entry, the fingerprints of everything it references and the time: the baseline
    for "changed since verified". Entry and MIF files get ``verified`` and ``fingerprints`` fields (and
    lose a ``stale_reason``); instruction-file entries are recorded in ``<store>/verified.json``."""
    records: list[Record] = []
    now = _now_iso()
    sidecar_updates: dict[str, Any] = {}
    # One pass over the code for every symbol named in text, rather than one pass per entry.
    checker.index.files_mentioning({ref.target for entry in entries for ref in checker.references(entry)
                                    if ref.kind == "symbol" and not ref.file})
    for entry in entries:
        base = checker.base_of(entry)
        prints = {}
        for ref in checker.references(entry):
            fingerprint = checker.fingerprints.fingerprint(ref, base)
            if fingerprint is not None:
                prints[ref.label()] = fingerprint
        if entry.format == "instruction":
            sidecar_updates[Verifications.key(entry)] = {"entry": entry.id, "verified": now, "fingerprints": prints}
            continue
        changes: dict[str, Any] = {"verified": now, "fingerprints": prints}
        if entry.stale_reason or "stale_reason" in entry.raw:
            changes["stale_reason"] = None
        records.append(checker.store.update(entry, changes, journal=journal, op="verify",
                                            reason=f"verified {len(prints)} reference(s)"))
    if sidecar_updates:
        records.append(_write_sidecar(checker.ws, sidecar_updates, journal,
                                      [v["entry"] for v in sidecar_updates.values()], "verify",
                                      f"verified {len(sidecar_updates)} instruction-file entr{'y' if len(sidecar_updates) == 1 else 'ies'}"))
    return records


def _write_sidecar(ws: Workspace, updates: dict[str, Any], journal: Journal, entry_ids: list[str], op: str,
                   reason: str) -> Record:
    import json

    path = ws.store / Verifications.FILE
    before = path.read_bytes() if path.is_file() else None
    try:
        data = json.loads(before.decode("utf-8")) if before else {}
    except (ValueError, UnicodeDecodeError):
        data = {}
    if not isinstance(data, dict):
        data = {}
    entries = data.setdefault("entries", {})
    entries.update(updates)
    data.setdefault("about", "Lorekeeper's verifications of instruction-file entries (lore verify); keyed by file and text.")
    after = (json.dumps(data, indent=2, ensure_ascii=False, sort_keys=False) + "\n").encode("utf-8")
    return journal.apply(Operation(op=op, reason=reason, changes=[FileChange(ws.rel(path), before, after)],
                                   entries=entry_ids))


def mark_stale(store: Store, findings: list[Finding], journal: Journal) -> tuple[list[Record], list[Entry]]:
    """Record ``stale_reason`` on the entries with error findings (entry and MIF files). Instruction-file
    entries are returned unmarked: their text is the user's, and the finding is their mark."""
    by_entry: dict[str, list[Finding]] = {}
    for finding in findings:
        if finding.severity == Severity.error and finding.entry:
            by_entry.setdefault(finding.entry, []).append(finding)
    ids = store.by_id()
    records, skipped = [], []
    for entry_id, found in by_entry.items():
        entry = ids.get(entry_id)
        if entry is None:
            continue
        if entry.format == "instruction":
            skipped.append(entry)
            continue
        reason = "; ".join(f.message for f in found)
        if entry.stale_reason == reason:
            continue
        records.append(store.update(entry, {"stale_reason": reason}, journal=journal, op="flag-stale", reason=reason))
    return records, skipped


def fix_change(store: Store, entry: Entry, fix: dict[str, Any]) -> FileChange | None:
    """The file change a fix makes, without applying it: point a moved reference at its new path (in
    the text, and in ``refs``) or replace a stated value (package manager). ``None`` when nothing
    would change."""
    if fix.get("action") not in ("replace-ref", "replace-text"):
        return None
    old, new = str(fix["old"]), str(fix["new"])
    pattern = (rf"(?<![\w/.-]){re.escape(old)}(?![\w-])" if fix["action"] == "replace-ref" else rf"\b{re.escape(old)}\b")
    if entry.format == "instruction":
        path = store.ws.root / entry.location.path
        lines = path.read_text(encoding="utf-8").splitlines()[entry.location.start_line - 1 : entry.location.end_line]
        original = "\n".join(lines)
        replaced = re.sub(pattern, new, original)
        return store.change_for(entry, {"content": replaced}) if replaced != original else None
    changes: dict[str, Any] = {}
    content = re.sub(pattern, new, entry.content)
    if content != entry.content:
        changes["content"] = content
    if entry.refs and fix["action"] == "replace-ref":
        if entry.format == "entry" and isinstance(entry.raw.get("refs"), list):
            # Edit the file's own ref items so their form ("path:symbol" strings, extra keys) survives.
            def moved(path: str) -> bool:
                return path == old or path.startswith(old + "/")

            refs = [({**item, "path": new + item["path"][len(old):]} if isinstance(item, dict)
                     and isinstance(item.get("path"), str) and moved(item["path"]) else
                     new + item[len(old):] if isinstance(item, str) and (moved(item.split(":")[0]))
                     else item) for item in entry.raw["refs"]]
            if refs != entry.raw["refs"]:
                changes["refs"] = refs
        elif entry.format == "mif" and any(r.path == old or r.path.startswith(old + "/") for r in entry.refs):
            changes["refs"] = [{**r.model_dump(exclude_none=True),
                                **({"path": new + r.path[len(old):]} if r.path == old or r.path.startswith(old + "/") else {})}
                               for r in entry.refs]
    if not changes:
        return None
    if entry.stale_reason:
        changes["stale_reason"] = None
    return store.change_for(entry, changes)


def apply_fix(store: Store, entry: Entry, finding: Finding, journal: Journal) -> Record | None:
    """Apply a finding's fix (see :func:`fix_change`), journaled. ``None`` when it changes nothing."""
    fix = finding.fix or {}
    change = fix_change(store, entry, fix)
    if change is None:
        return None
    return journal.apply(Operation(op="update-ref", reason=f"{fix['old']} -> {fix['new']}: {finding.message}",
                                   changes=[change], entries=[entry.id]))


def rename_changes(checker: StalenessChecker, old: str, new: str) -> list[tuple[Entry, FileChange]]:
    """When a file or folder is renamed from ``old`` to ``new``: the changes that make every memory
    referencing it (or anything under it) name the new place."""
    old, new = old.rstrip("/"), new.rstrip("/")
    out = []
    for entry in checker.store.live():
        base = checker.base_of(entry)
        for ref in checker.references(entry):
            if ref.kind != "path":
                continue
            target = ref.target.rstrip("/")
            full = f"{base}/{target}" if base and checker.index.resolve(ref.target, base) == f"{base}/{target}" else target
            if full == old or full.startswith(old + "/"):
                # Replace the renamed part as the memory spells it (relative to its folder if it is nested).
                spelled_old = old if not (base and full != target) else old[len(base) + 1 :]
                spelled_new = new if not (base and full != target) else new[len(base) + 1 :] if new.startswith(base + "/") else new
                change = fix_change(checker.store, entry, {"action": "replace-ref", "old": spelled_old, "new": spelled_new})
                if change is not None:
                    out.append((entry, change))
                break
    return out


def archive_entry(store: Store, entry: Entry, journal: Journal, reason: str) -> Record:
    """Archive an entry: it stays on disk, no longer live. Instruction-file entries cannot be archived
    in place (their text would have to go), so they are refused."""
    if entry.format == "instruction":
        raise ValueError("instruction-file entries are archived by editing the file; Lorekeeper keeps their text")
    return store.update(entry, {"archived": True, "archived_reason": reason}, journal=journal, op="archive", reason=reason)
