# pyright: standard
"""What the workspace's code defines today: its files and folders, package scripts, make and just
targets, console scripts, the package manager, and the symbols of its source files.

Everything is computed lazily, on the first question that needs it; symbol tables are cached in
``.lore/cache/symbols.json`` by file size and modification time, so a warm run parses nothing."""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import re
from collections.abc import Callable, Iterable
from dataclasses import replace
from functools import cached_property
from pathlib import PurePosixPath
from typing import Any, cast

try:
    import re2  # pyright: ignore[reportMissingTypeStubs]
except ImportError:  # the `fast` extra is not installed
    re2 = None

from ..infra import cache as cache_files
from ..infra.safeio import read_bytes_stat
from ..infra.workers import fork_map, worker_count
from ..workspace import PathOutsideRoot, Workspace, vendored_folders
from .manifests import FILES_FOR_KIND, TASKFILES, Manifest, parse_manifest
from .symbols import FileSymbols, file_symbols, language_of, qualified_definition

LOCKFILES = {
    "pnpm-lock.yaml": "pnpm",
    "package-lock.json": "npm",
    "npm-shrinkwrap.json": "npm",
    "yarn.lock": "yarn",
    "bun.lockb": "bun",
    "bun.lock": "bun",
}
_IDENTIFIER = re.compile(rb"[A-Za-z_$][A-Za-z0-9_$]*")
CACHE_VERSION = 1
#: Code files larger than this are not read (a generated bundle, a blob committed by mistake).
CODE_READ_LIMIT = 16 * 1024 * 1024


#: Memory RE2 may use for the words' automaton.
RE2_MEMORY = 64 << 20
#: Past this many words, listing a file's identifiers is faster than RE2: RE2 builds its automaton as it
#: reads, and for many words building it costs more than the reading saves. ``bench/word_scan.py TREE``
#: on public repositories' code files: 143 words in 31 MB, RE2 0.33 s against 0.92 s; 306 words in 47 MB,
#: 1.0 s against 1.1 s; 746 words in 30 MB, 4.1 s against 0.7 s.
RE2_MAX_WORDS = 300


def whole_words(words: dict[bytes, str]) -> Callable[[bytes], set[str]]:
    """What finds which of ``words`` (their bytes, each with the word) a file's text writes as a whole
    identifier (``[A-Za-z_$][A-Za-z0-9_$]*``, as :data:`_IDENTIFIER` reads them: ``12foo`` writes
    ``foo``, ``srcDir`` does not write ``src``). With RE2 (the ``fast`` extra) and at most
    :data:`RE2_MAX_WORDS` words: one pass of a set of patterns, a word each, over the text; without it,
    for more words, or where RE2 gives up on a text (its automaton out of memory, told by a pattern that
    always matches going unreported), every identifier is listed."""
    def every_identifier(data: bytes) -> set[str]:
        return {words[m] for m in words.keys() & set(_IDENTIFIER.findall(data))}

    names = [w for w in words if _IDENTIFIER.fullmatch(w)]
    if not names or re2 is None or len(names) > RE2_MAX_WORDS:
        return every_identifier
    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1  # bytes as bytes (a file need not be UTF-8)
    options.max_mem = RE2_MEMORY
    patterns = re2.Set.SearchSet(options)
    patterns.Add(rb"^")  # index 0: matches every text, so a text it is missing from was not read through
    for name in names:
        patterns.Add(rb"(?:^|[^A-Za-z0-9_$])[0-9]*" + re.escape(name) + rb"(?:[^A-Za-z0-9_$]|$)")
    try:
        patterns.Compile()
    except re2.error:  # too many words for its memory
        return every_identifier

    def by_re2(data: bytes) -> set[str]:
        found: list[int] = patterns.Match(data) or []
        if 0 not in found:
            return every_identifier(data)
        return {words[names[k - 1]] for k in found if k}

    return by_re2


def digest(data: bytes | str) -> str:
    """The content hash fingerprints and verifications record: ``sha256:`` and 16 hex digits."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return "sha256:" + hashlib.sha256(raw).hexdigest()[:16]


class CodeIndex:
    """Answers "does this still exist?" about a workspace's code. Paths are workspace-relative POSIX."""

    def __init__(self, ws: Workspace, files: list[str] | None = None):
        self.ws = ws
        self._root = str(ws.root) + os.sep
        self.cache_dir = ws.cache_dir
        self._given_files = files
        self._symbols: dict[str, FileSymbols] = {}
        self._symbol_cache: dict[str, list[Any]] | None = None
        self._cache_dirty = False
        self._manifests: dict[str, Manifest | None] = {}
        self._binaries: dict[str, set[str]] = {}
        self._mentions: dict[str, set[str]] = {}  # word asked about -> the code files that mention it
        self._file_words: dict[str, set[str]] = {}  # path -> the asked-about words it mentions
        #: The words of the last run's scan and, per code file as it then was, which of them it mentions
        #: (``mentions.json``): a file unchanged since is not read again for those words.
        self._mention_cache: tuple[frozenset[str], dict[str, list[Any]]] | None = None
        self._mentions_dirty = False
        self._hashes: dict[str, str | None] = {}
        #: Each file read: its modification time (ns) and size, from the open file (the version read).
        self.stats: dict[str, list[int]] = {}
        self._resolved: dict[tuple[str, str], str | None] = {}
        #: (path, content hash) -> {symbol: fingerprint}, as ``lore verify`` recorded them: while a file is
        #: byte for byte what was verified, its symbols are known without parsing it.
        self._verified: dict[tuple[str, str], dict[str, str]] = {}

    # -- files -----------------------------------------------------------------------------------

    @cached_property
    def files(self) -> set[str]:
        if self._given_files is not None:
            return set(self._given_files)
        return set(self.ws.rel_files())

    @cached_property
    def dirs(self) -> set[str]:
        out: set[str] = set()
        for path in self.files:
            parent = path.rpartition("/")[0]
            while parent and parent not in out:
                out.add(parent)
                parent = parent.rpartition("/")[0]
        return out

    @cached_property
    def dirs_by_name(self) -> dict[str, list[str]]:
        """Every folder, by its last name (`routes` -> `server/routes`), sorted."""
        return _by_last_name(self.dirs)

    @cached_property
    def by_name(self) -> dict[str, list[str]]:
        """Every file, by its name (`conftest.py` -> each of them), sorted."""
        return _by_last_name(self.files)

    def exists(self, path: str) -> bool:
        """A file or folder that git would not ignore, or any existing file on disk (ignored files such
        as build outputs are not references this linter judges)."""
        clean = path.rstrip("/")
        if clean in self.files or clean in self.dirs or clean == "":
            return True
        return os.path.exists(self._root + clean)  # (a string, not a Path: asked thousands of times a check)

    def resolve(self, path: str, base: str) -> str | None:
        """The existing workspace path a reference names: relative to ``base`` (the folder of a nested
        instruction file, or the folder a command changes into) first, then to each folder above it,
        then to the root."""
        key = (path, base)
        if key not in self._resolved:
            found = None
            for candidate in self.candidates(path, base):
                if self.exists(candidate):
                    found = candidate + ("/" if path.endswith("/") and not candidate.endswith("/") else "")
                    break
            self._resolved[key] = found
        return self._resolved[key]

    @staticmethod
    def candidates(path: str, base: str) -> list[str]:
        """The workspace paths a relative path may mean from ``base``, nearest first."""
        out: list[str] = []
        folder = PurePosixPath(base) if base else None
        while folder is not None and str(folder) not in (".", ""):
            out.append(str(folder / path))
            folder = folder.parent
        out.append(path)
        seen: list[str] = []
        for candidate in out:
            normal = _posix_normal(candidate)
            if not (normal.startswith("../") or normal == "..") and normal not in seen:
                seen.append(normal)
        return seen

    def ignored(self, path: str) -> bool:
        """Whether git ignores the path (generated, runtime or local files): not a reference to judge."""
        return self.ws.ignored(path)

    def read(self, path: str) -> bytes | None:
        """A code file's bytes: a regular file inside the workspace, at most 16 MB (a FIFO, ``/dev/zero``
        or a link out of the workspace is ``None``, like a file that is gone)."""
        if self.ws.listed_plain(path):  # a regular file the walk saw: opened without following a link
            try:
                data, info = read_bytes_stat(str(self.ws.root) + os.sep + path, CODE_READ_LIMIT, follow=False)
            except OSError:
                pass  # gone, or a symlink now: resolved below
            else:
                self.stats[path] = [info.st_mtime_ns, info.st_size]
                return data
        try:
            full = self.ws.inside(path)  # refused when a link leads out of the workspace
            data, info = read_bytes_stat(full, CODE_READ_LIMIT)
        except (OSError, PathOutsideRoot):
            return None
        self.stats[path] = [info.st_mtime_ns, info.st_size]
        return data

    def file_hash(self, path: str) -> str | None:
        """The content hash of a file (``None`` if it cannot be read), computed once."""
        if path not in self._hashes:
            data = self.read(path)
            self._hashes[path] = digest(data) if data is not None else None
        return self._hashes[path]

    def learn_verified(self, path: str, content_hash: str, symbol: str, fingerprint: str) -> None:
        """Record what a verification saw: ``symbol`` was defined, with ``fingerprint``, in the content
        of ``path`` whose hash is ``content_hash``."""
        self._verified.setdefault((path, content_hash), {})[symbol] = fingerprint

    def verified_fingerprint(self, path: str, symbol: str) -> str | None:
        """The recorded fingerprint of ``symbol`` when ``path`` is unchanged since it was verified."""
        if not self._verified:
            return None
        current = self.file_hash(path)
        known = self._verified.get((path, current)) if current is not None else None
        return known.get(symbol) if known else None

    # -- manifests -------------------------------------------------------------------------------

    def nearest(self, names: tuple[str, ...], base: str) -> str | None:
        """The nearest file called one of ``names`` in ``base`` or a folder above it, up to the root."""
        folder = PurePosixPath(base) if base else None
        while True:
            prefix = f"{folder}/" if folder is not None and str(folder) != "." else ""
            for name in names:
                if prefix + name in self.files or (self.ws.root / (prefix + name)).is_file():
                    return prefix + name
            if folder is None or str(folder) in (".", ""):
                return None
            folder = folder.parent

    def manifest(self, path: str | None, kind: str | None = None) -> Manifest | None:
        """The manifest at ``path`` (read as ``kind``, else as its name says), parsed once."""
        if path is None:
            return None
        if path not in self._manifests:
            data = self.read(path)
            self._manifests[path] = parse_manifest(path, data, kind) if data is not None else None
        return self._manifests[path]

    def package_json(self, base: str) -> Manifest | None:
        return self.manifest(self.nearest(("package.json",), base))

    def pyproject(self, base: str) -> Manifest | None:
        return self.manifest(self.nearest(("pyproject.toml",), base))

    def manifest_for(self, kind: str, base: str) -> Manifest | None:
        """The nearest manifest that defines names of a reference kind: ``script`` (package.json),
        ``console`` (pyproject.toml), ``make`` (Makefile), ``just`` (justfile)."""
        names = FILES_FOR_KIND.get(kind)
        return self.manifest(self.nearest(names, base)) if names else None

    def manifests_in_scope(self, kind: str, base: str) -> list[Manifest]:
        """The manifests a command run in ``base`` sees, nearest first: for package.json and
        pyproject.toml every one from ``base`` up to the root (workspaces run the nearest, but a root
        script is one ``-w`` away); for make and just the nearest file and the files it includes."""
        names = FILES_FOR_KIND.get(kind)
        if not names:
            return []
        found: list[Manifest] = []
        folder = base
        while True:
            path = self.nearest(names, folder)
            if path is None:
                break
            manifest = self.manifest(path)
            if manifest is not None:
                found.append(manifest)
                if kind in ("make", "just", "task", "tox"):
                    found.extend(self._included(manifest, {path}))
                    break
            parent = PurePosixPath(path).parent
            if str(parent) == ".":
                break
            folder = "" if str(parent.parent) == "." else str(parent.parent)
        return found

    def _included(self, manifest: Manifest, seen: set[str]) -> list[Manifest]:
        out = []
        folder = str(PurePosixPath(manifest.path).parent)
        for namespace, include in manifest.namespaces.items():
            # a Taskfile's include: its tasks are run as `namespace:task` (a folder includes its Taskfile)
            path = posixpath.normpath(str(PurePosixPath(folder) / include) if folder != "." else include)
            if path not in self.files:
                path = next((f"{path}/{name}" for name in TASKFILES if f"{path}/{name}" in self.files), path)
            if path in seen or path.startswith("../"):
                continue
            seen.add(path)
            included = self.manifest(path, "task")
            prefix = manifest.prefix + ("" if namespace in manifest.flattened else f"{namespace}:")
            if included is None:  # its tasks cannot be known: every name in its namespace counts
                unknown = re.compile(re.escape(prefix) + ".*")
                if unknown not in manifest.patterns:
                    manifest.patterns.append(unknown)
                continue
            out.append(replace(included, prefix=prefix))
            out.extend(self._included(replace(included, prefix=prefix), seen))
        for include in manifest.includes:
            path = str(PurePosixPath(folder) / include) if folder != "." else include
            if path in seen or path.startswith("../"):
                continue
            seen.add(path)
            included = self.manifest(path)
            if included is None:
                manifest.dynamic = True  # an include we cannot read: some names are unknown
                continue
            out.append(included)
            out.extend(self._included(included, seen))
        return out

    def all_manifests(self, kind: str) -> list[Manifest]:
        """Every manifest of a kind in the workspace (generated and dependency folders excluded)."""
        names = set(FILES_FOR_KIND.get(kind, ()))
        paths = sorted(p for p in self.files if p.rsplit("/", 1)[-1] in names)
        return [m for m in (self.manifest(p) for p in paths) if m is not None]

    def package_folder(self, package: str) -> str | None:
        """The folder of the workspace package called ``package`` (package.json or pyproject ``name``),
        for ``pnpm --filter NAME``; a folder path given instead of a name is taken as it is."""
        for kind in ("script", "console"):
            for manifest in self.all_manifests(kind):
                if manifest.package_name == package:
                    parent = str(PurePosixPath(manifest.path).parent)
                    return "" if parent == "." else parent
        clean = package.removeprefix("./").rstrip("/")
        return clean if clean in self.dirs else None

    def binaries(self, base: str) -> set[str]:
        """Executables a package manager can run in ``base``: dependencies of the manifests in scope,
        installed ones (``node_modules/.bin``, ``.venv/bin``) and workspace packages' own ``bin``."""
        key = base
        if key not in self._binaries:
            names: set[str] = set()
            for kind in ("script", "console"):
                for manifest in self.manifests_in_scope(kind, base):
                    names |= manifest.binaries
            folder = base
            for _ in range(base.count("/") + 2):
                for installed in ("node_modules/.bin", ".venv/bin", "venv/bin"):
                    try:
                        names.update(os.listdir(self.ws.root / folder / installed))
                    except OSError:
                        pass
                if not folder:
                    break
                folder = str(PurePosixPath(folder).parent)
                folder = "" if folder == "." else folder
            self._binaries[key] = names
        return self._binaries[key]

    def package_managers(self, base: str) -> tuple[str | None, dict[str, str]]:
        """The package manager the ``packageManager`` field declares (nearest package.json) and the
        lockfiles present next to it: ``("pnpm", {"pnpm": "pnpm-lock.yaml"})``."""
        manifest = self.package_json(base)
        declared = None
        folder = ""
        if manifest is not None:
            folder = manifest.path.rsplit("/", 1)[0] + "/" if "/" in manifest.path else ""
            field_value = manifest.data.get("packageManager") if isinstance(manifest.data, dict) else None
            if isinstance(field_value, str):
                declared = field_value.split("@")[0].strip() or None
        locks: dict[str, str] = {}
        for lockfile, manager in LOCKFILES.items():
            for candidate in (folder + lockfile, lockfile):
                if candidate in self.files or (self.ws.root / candidate).is_file():
                    locks.setdefault(manager, candidate)
        return declared, locks

    # -- symbols ---------------------------------------------------------------------------------

    @cached_property
    def vendored(self) -> tuple[str, ...]:
        """The folders holding copies of dependencies (Go's `go mod vendor`, Composer's), as path
        prefixes: their code is the dependencies', not the code memories speak of."""
        return vendored_folders(self.files)

    @cached_property
    def code_files(self) -> list[str]:
        """The code files searched for the names memories give: every file of a known language, but
        those of a vendored copy of dependencies (inngest's 10,000 files of `vendor/`, three-quarters of
        its tree)."""
        vendored = self.vendored
        return sorted(p for p in self.files if language_of(p) and not (vendored and p.startswith(vendored)))

    def symbols(self, path: str) -> FileSymbols | None:
        """The symbols of one code file (``None`` if it cannot be read)."""
        if path in self._symbols:
            return self._symbols[path]
        full = self.ws.root / path
        try:
            stat = full.stat()
        except OSError:
            return None
        cache = self._load_symbol_cache()
        key = [stat.st_mtime_ns, stat.st_size]
        cached = cache.get(path)
        if cached and cached[:2] == key:
            symbols = FileSymbols(definitions={k: tuple(v) for k, v in cached[2].items()})
        else:
            data = self.read(path)
            if data is None:
                return None
            symbols = file_symbols(path, data)
            cache[path] = [*key, {k: list(v) for k, v in symbols.definitions.items()}]
            self._cache_dirty = True
        self._symbols[path] = symbols
        return symbols

    def parse_ahead(self, paths: Iterable[str]) -> int:
        """Parse the code files among ``paths`` whose symbols are not known yet (in memory, or in the
        symbol cache for their current size and time) in worker processes, when there are enough of them
        and this process may fork (:mod:`lorekeeper.infra.workers`); otherwise leave them to be parsed when
        asked. Each file is still parsed once; the workers also hash it. Returns how many were parsed."""

        cache = self._load_symbol_cache()
        todo: list[tuple[str, list[int]]] = []
        for path in sorted(set(paths)):
            if path in self._symbols or not language_of(path):
                continue
            try:
                stat = os.stat(os.path.join(self.ws.root, path))
            except OSError:
                continue
            key = [stat.st_mtime_ns, stat.st_size]
            cached = cache.get(path)
            if not (cached and cached[:2] == key):
                todo.append((path, key))
        workers = worker_count(len(todo), PARSE_AHEAD_MIN_FILES)
        if workers <= 1:
            return 0

        def parse(item: tuple[str, list[int]]) -> tuple[FileSymbols, str] | None:
            data = self.read(item[0])
            return (file_symbols(item[0], data), digest(data)) if data is not None else None

        parsed = 0
        for (path, key), answer in zip(todo, fork_map(parse, todo, workers=workers), strict=True):
            if answer is None:
                continue
            symbols, content_hash = answer
            self._symbols[path] = symbols
            self._hashes.setdefault(path, content_hash)
            cache[path] = [*key, {k: list(v) for k, v in symbols.definitions.items()}]
            parsed += 1
        self._cache_dirty = self._cache_dirty or parsed > 0
        return parsed

    def defined_in(self, name: str, path: str) -> tuple[int, int] | None:
        symbols = self.symbols(path)
        return qualified_definition(symbols, name, path) if symbols else None

    def forget(self, paths: Iterable[str]) -> None:
        """Files modified in place: drop what was parsed from them and re-read their words for the names
        already asked about (the file list itself is unchanged)."""
        for path in paths:
            self._symbols.pop(path, None)
            self._manifests.pop(path, None)
            self._hashes.pop(path, None)
            self.stats.pop(path, None)
            # (in-place changes: no file appeared or went, so what paths resolve to is unchanged)
            if not self._mentions:
                continue
            mentions = self._mentions
            for word in self._file_words.pop(path, set()):
                mentions[word].discard(path)
            data = self.read(path) if language_of(path) else None
            if data is not None:
                # (the file's own words looked up: the words asked about are as many as the memories)
                found = {word for m in set(_IDENTIFIER.findall(data)) if (word := m.decode("ascii")) in mentions}
                for word in found:
                    mentions[word].add(path)
                self._file_words[path] = found

    def files_mentioning(self, names: set[str]) -> dict[str, list[str]]:
        """For each name, the code files that mention every part of it (``StripeClient.createCharge``:
        files with both ``StripeClient`` and ``createCharge``), or whose module path names a qualifier
        (``utils.parse`` in ``a/utils.py``), in path order: one pass over the code files for all words not
        asked before."""
        wanted = {n: [w for w in n.split(".") if w] for n in names}
        missing = {word for words in wanted.values() for word in words if word not in self._mentions}
        if missing:
            for word in missing:
                self._mentions[word] = set()
            self._mentions_dirty = True
            known_words, known_files = self._load_mention_cache()
            reusable = missing & known_words
            # Compared as bytes (no decoding of the ~1.7M identifiers of a 3,000-file tree).
            every = {word.encode("utf-8"): word for word in missing}
            fresh = {word.encode("utf-8"): word for word in missing - reusable}
            root = str(self.ws.root) + os.sep
            finders: dict[int, Callable[[bytes], set[str]]] = {}
            for path in self.code_files:
                found: set[str] = set()
                scan = every
                record = known_files.get(path) if reusable else None
                if record is not None:
                    try:
                        info = os.stat(root + path, follow_symlinks=False)
                    except OSError:
                        info = None
                    if info is not None and record[:2] == [info.st_mtime_ns, info.st_size]:
                        found = reusable.intersection(record[2])
                        scan = fresh
                        self.stats.setdefault(path, [info.st_mtime_ns, info.st_size])
                if scan:
                    data = self.read(path)
                    if data is None:
                        continue
                    finder = finders.get(id(scan))
                    if finder is None:
                        finder = finders[id(scan)] = whole_words(scan)
                    found |= finder(data)
                for word in found:
                    self._mentions[word].add(path)
                if found:
                    self._file_words.setdefault(path, set()).update(found)
        result: dict[str, list[str]] = {}
        for name, words in wanted.items():
            files = self._mentions[words[-1]] if words else set()
            for word in words[:-1]:
                files = narrowed(files, self._mentions[word], word)
            result[name] = sorted(files)
        return result

    def where_defined(self, name: str) -> list[str]:
        """Code files that define ``name`` (plain or qualified); only files that mention it are parsed."""
        return [p for p in self.files_mentioning({name})[name] if self.defined_in(name, p) is not None]

    def _load_symbol_cache(self) -> dict[str, list[Any]]:
        cache = self._symbol_cache
        if cache is None:
            data = cache_files.read_json(self.ws.root, self.cache_dir, "symbols.json")
            files = data.get("files") if isinstance(data, dict) and data.get("version") == CACHE_VERSION else None
            cache = self._symbol_cache = files if isinstance(files, dict) else {}
        return cache

    def _load_mention_cache(self) -> tuple[frozenset[str], dict[str, list[Any]]]:
        cache = self._mention_cache
        if cache is None:
            data: Any = cache_files.read_json(self.ws.root, self.cache_dir, MENTIONS_FILE)
            cache = (frozenset(), {})
            if isinstance(data, dict) and data.get("version") == CACHE_VERSION:
                words: Any = data.get("words")
                files: Any = data.get("files")
                if isinstance(words, list) and isinstance(files, dict) and all(
                        isinstance(r, list) and len(r) == 3 and isinstance(r[2], list) for r in files.values()):
                    cache = (frozenset(str(w) for w in words), cast(dict[str, list[Any]], files))
            self._mention_cache = cache
        return cache

    def save(self) -> None:
        """Persist the symbol cache and the words code files mention, if they learnt anything."""
        if self._mentions_dirty:
            # every code file that could be read was looked at for every word asked about in this run
            asked = set(self._mentions)
            files = {path: [*self.stats[path], sorted(self._file_words.get(path, set()) & asked)]
                     for path in self.code_files if path in self.stats}
            cache_files.write(self.ws.root, self.cache_dir, MENTIONS_FILE,
                              json.dumps({"version": CACHE_VERSION, "words": sorted(asked), "files": files}).encode())
            self._mention_cache = (frozenset(asked), files)
            self._mentions_dirty = False
        if not self._cache_dirty or self._symbol_cache is None:
            return
        live = {p: v for p, v in self._symbol_cache.items() if (self.ws.root / p).exists()}
        cache_files.write(self.ws.root, self.cache_dir, "symbols.json",
                          json.dumps({"version": CACHE_VERSION, "files": live}).encode())
        self._cache_dirty = False


#: Below this many code files to parse, one process does it (starting workers costs more than it saves).
PARSE_AHEAD_MIN_FILES = 400
#: The cache of which asked-about words each code file mentions (:meth:`CodeIndex.files_mentioning`).
MENTIONS_FILE = "mentions.json"


def narrowed(files: set[str], mentioning: set[str], word: str) -> set[str]:
    """The files among ``files`` that mention ``word`` (``mentioning``) or whose module path names it
    (:func:`in_module_path`). Set operations, and one substring test for all the other paths at once:
    a qualifier (``Service.run``) narrows thousands of files mentioning ``run`` at C speed."""
    kept = files & mentioning
    if len(kept) < len(files):
        rest = files - kept
        if word in "\n".join(rest):
            kept |= {f for f in rest if in_module_path(word, f)}
    return kept


def in_module_path(word: str, path: str) -> bool:
    """Whether ``word`` names the module or a package folder of ``path`` (``utils`` in ``a/utils.py``)."""
    return word in path and word in path.rsplit(".", 1)[0].split("/")  # (the substring test is the cheap no)


def _posix_normal(path: str) -> str:
    """``str(PurePosixPath(path))`` (``//``, ``.`` parts and a final ``/`` dropped), without building a
    path object for the common path that is already normal."""
    if path and path != "." and "//" not in path and "/./" not in path and not path.startswith("./") \
            and not path.endswith(("/", "/.")):
        return path
    return str(PurePosixPath(path))


def _by_last_name(paths: set[str]) -> dict[str, list[str]]:
    names: dict[str, list[str]] = {}
    for path in sorted(paths):
        names.setdefault(path.rsplit("/", 1)[-1], []).append(path)
    return names
