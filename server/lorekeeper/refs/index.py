"""What the workspace's code defines today: its files and folders, package scripts, make and just
targets, console scripts, the package manager, and the symbols of its source files.

Everything is computed lazily, on the first question that needs it; symbol tables are cached in
``.lore/cache/symbols.json`` by file size and modification time, so a warm run parses nothing."""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path, PurePosixPath
from typing import Any, Iterable

from ..store.files import atomic_write
from ..workspace import Workspace
from .symbols import FileSymbols, file_symbols, language_of

LOCKFILES = {
    "pnpm-lock.yaml": "pnpm",
    "package-lock.json": "npm",
    "npm-shrinkwrap.json": "npm",
    "yarn.lock": "yarn",
    "bun.lockb": "bun",
    "bun.lock": "bun",
}
MAKEFILES = ("Makefile", "makefile", "GNUmakefile")
JUSTFILES = ("justfile", "Justfile", ".justfile")
MAKE_TARGET = re.compile(r"^([A-Za-z0-9_.\-/%]+(?:[ \t]+[A-Za-z0-9_.\-/%]+)*)[ \t]*::?(?![=:])")
_IDENTIFIER = re.compile(rb"[A-Za-z_$][A-Za-z0-9_$]*")
JUST_RECIPE = re.compile(r"^@?([A-Za-z_][\w\-]*)(?:[ \t]+[^:=\n]*)?:(?!=)")
CACHE_VERSION = 1


@dataclass
class Manifest:
    """A definitions file (package.json, Makefile, justfile, pyproject.toml) and the names it defines,
    each with its 1-based line span (for fingerprints)."""

    path: str
    names: dict[str, tuple[int, int]] = field(default_factory=dict)
    data: Any = None


class CodeIndex:
    """Answers "does this still exist?" about a workspace's code. Paths are workspace-relative POSIX."""

    def __init__(self, ws: Workspace, files: list[str] | None = None):
        self.ws = ws
        self.cache_dir = ws.root / ".lore" / "cache"
        self._given_files = files
        self._symbols: dict[str, FileSymbols] = {}
        self._symbol_cache: dict[str, list[Any]] | None = None
        self._cache_dirty = False
        self._manifests: dict[str, Manifest | None] = {}
        self._mentions: dict[str, list[str]] = {}
        self._file_words: dict[str, set[str]] = {}  # path -> the asked-about words it mentions

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
            parent = PurePosixPath(path).parent
            while str(parent) != ".":
                if str(parent) in out:
                    break
                out.add(str(parent))
                parent = parent.parent
        return out

    @cached_property
    def by_name(self) -> dict[str, list[str]]:
        names: dict[str, list[str]] = {}
        for path in sorted(self.files):
            names.setdefault(path.rsplit("/", 1)[-1], []).append(path)
        return names

    def exists(self, path: str) -> bool:
        """A file or folder that git would not ignore, or any existing file on disk (ignored files such
        as build outputs are not references this linter judges)."""
        clean = path.rstrip("/")
        if clean in self.files or clean in self.dirs or clean == "":
            return True
        return (self.ws.root / clean).exists()

    def resolve(self, path: str, base: str) -> str | None:
        """The existing workspace path a reference names: relative to ``base`` (the folder of a nested
        instruction file) first, then to the root."""
        for candidate in ([f"{base}/{path}"] if base else []) + [path]:
            normal = str(PurePosixPath(candidate))
            if normal.startswith("../") or normal == "..":
                continue
            if self.exists(normal):
                return normal + ("/" if path.endswith("/") and not normal.endswith("/") else "")
        return None

    def ignored(self, path: str) -> bool:
        """Whether git ignores the path (generated, runtime or local files): not a reference to judge."""
        return self.ws.ignored(path)

    def read(self, path: str) -> bytes | None:
        try:
            return (self.ws.root / path).read_bytes()
        except OSError:
            return None

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

    def manifest(self, path: str | None) -> Manifest | None:
        if path is None:
            return None
        if path not in self._manifests:
            self._manifests[path] = self._parse_manifest(path)
        return self._manifests[path]

    def _parse_manifest(self, path: str) -> Manifest | None:
        data = self.read(path)
        if data is None:
            return None
        text = data.decode("utf-8", "replace")
        name = path.rsplit("/", 1)[-1]
        manifest = Manifest(path)
        if name == "package.json":
            try:
                manifest.data = json.loads(text)
            except json.JSONDecodeError:
                return None
            scripts = manifest.data.get("scripts") if isinstance(manifest.data, dict) else None
            for script in scripts or {}:
                line = _line_of(text, f'"{script}"')
                manifest.names[script] = (line, line)
        elif name in MAKEFILES:
            manifest.names = blocks(text, MAKE_TARGET, split_names=True)
        elif name in JUSTFILES:
            manifest.names = blocks(text, JUST_RECIPE, split_names=False)
        elif name == "pyproject.toml":
            try:
                manifest.data = tomllib.loads(text)
            except tomllib.TOMLDecodeError:
                return None
            project = manifest.data.get("project", {})
            poetry = manifest.data.get("tool", {}).get("poetry", {})
            for table in (project.get("scripts", {}), project.get("gui-scripts", {}), poetry.get("scripts", {})):
                for script in table if isinstance(table, dict) else {}:
                    line = _line_of(text, script)
                    manifest.names[script] = (line, line)
        return manifest

    def package_json(self, base: str) -> Manifest | None:
        return self.manifest(self.nearest(("package.json",), base))

    def makefile(self, base: str) -> Manifest | None:
        return self.manifest(self.nearest(MAKEFILES, base))

    def justfile(self, base: str) -> Manifest | None:
        return self.manifest(self.nearest(JUSTFILES, base))

    def pyproject(self, base: str) -> Manifest | None:
        return self.manifest(self.nearest(("pyproject.toml",), base))

    def manifest_for(self, kind: str, base: str) -> Manifest | None:
        """The nearest manifest that defines names of a reference kind: ``script`` (package.json),
        ``console`` (pyproject.toml), ``make`` (Makefile), ``just`` (justfile)."""
        finder = {"script": self.package_json, "console": self.pyproject, "make": self.makefile,
                  "just": self.justfile}.get(kind)
        return finder(base) if finder else None

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
    def code_files(self) -> list[str]:
        return sorted(p for p in self.files if language_of(p))

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

    def defined_in(self, name: str, path: str) -> tuple[int, int] | None:
        symbols = self.symbols(path)
        return symbols.definitions.get(name) if symbols else None

    def forget(self, paths: Iterable[str]) -> None:
        """Files modified in place: drop what was parsed from them and re-read their words for the names
        already asked about (the file list itself is unchanged)."""
        for path in paths:
            self._symbols.pop(path, None)
            self._manifests.pop(path, None)
            if not self._mentions:
                continue
            for word in self._file_words.pop(path, set()):
                self._mentions[word].remove(path)
            data = self.read(path) if language_of(path) else None
            if data is not None:
                found = set(self._mentions).intersection(m.decode("ascii") for m in _IDENTIFIER.findall(data))
                for word in found:
                    self._mentions[word].append(path)
                self._file_words[path] = found

    def files_mentioning(self, names: set[str]) -> dict[str, list[str]]:
        """For each name, the code files that mention every part of it (``StripeClient.createCharge``:
        files with both ``StripeClient`` and ``createCharge``): one pass over the code files for all
        words not asked before."""
        wanted = {n: [w for w in n.split(".") if w] for n in names}
        missing = {word for words in wanted.values() for word in words if word not in self._mentions}
        if missing:
            for word in missing:
                self._mentions[word] = []
            for path in self.code_files:
                data = self.read(path)
                if data is None:
                    continue
                found = missing.intersection(m.decode("ascii") for m in _IDENTIFIER.findall(data))
                for word in found:
                    self._mentions[word].append(path)
                if found:
                    self._file_words.setdefault(path, set()).update(found)
        result: dict[str, list[str]] = {}
        for name, words in wanted.items():
            files = self._mentions[words[-1]] if words else []
            for word in words[:-1]:
                others = set(self._mentions[word])
                files = [f for f in files if f in others]
            result[name] = files
        return result

    def where_defined(self, name: str) -> list[str]:
        """Code files that define ``name`` (plain or qualified); only files that mention it are parsed."""
        return [p for p in self.files_mentioning({name})[name] if self.defined_in(name, p) is not None]

    def _load_symbol_cache(self) -> dict[str, list[Any]]:
        if self._symbol_cache is None:
            self._symbol_cache = {}
            path = self.cache_dir / "symbols.json"
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                if data.get("version") == CACHE_VERSION:
                    self._symbol_cache = data["files"]
            except (OSError, ValueError, KeyError, TypeError, AttributeError):
                pass
        return self._symbol_cache

    def save(self) -> None:
        """Persist the symbol cache if it learnt anything."""
        if not self._cache_dirty or self._symbol_cache is None:
            return
        ensure_cache_dir(self.cache_dir)
        live = {p: v for p, v in self._symbol_cache.items() if (self.ws.root / p).exists()}
        atomic_write(self.cache_dir / "symbols.json", json.dumps({"version": CACHE_VERSION, "files": live}).encode())
        self._cache_dirty = False


def ensure_cache_dir(cache_dir: Path) -> None:
    """Create ``.lore/cache/`` with a .gitignore so caches are never committed."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    ignore = cache_dir / ".gitignore"
    if not ignore.exists():
        ignore.write_text("*\n", encoding="utf-8")


def _line_of(text: str, needle: str) -> int:
    index = text.find(needle)
    return text.count("\n", 0, index) + 1 if index >= 0 else 1


def blocks(text: str, header: re.Pattern[str], split_names: bool) -> dict[str, tuple[int, int]]:
    """Targets or recipes with their line span: the header line and the indented recipe under it."""
    lines = text.splitlines()
    blocks: dict[str, tuple[int, int]] = {}
    i = 0
    while i < len(lines):
        match = header.match(lines[i])
        if match and not lines[i].startswith((" ", "\t")):
            end = i
            while end + 1 < len(lines) and (lines[end + 1].startswith(("\t", " ")) or not lines[end + 1].strip()):
                end += 1
            while end > i and not lines[end].strip():
                end -= 1
            names = match.group(1).split() if split_names else [match.group(1)]
            for name in names:
                if not name.startswith(".") and "%" not in name:
                    blocks.setdefault(name, (i + 1, end + 1))
            i = end + 1
        else:
            i += 1
    return blocks
