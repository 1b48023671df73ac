"""The workspace: its root, where the store lives, which files are in it, and the guard that keeps every
read and write inside the root whatever a ref says."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import tomllib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, cast

import pathspec
from pydantic import BaseModel, Field, StrictInt, StrictStr

from ..core.bounded import brief
from ..core.settings import LEAN, TOML, ConfigFiles, settle
from ..infra import cache as cache_files
from ..infra.gitcmd import git_command, git_env
from ..infra.safeio import atomic_write, ensure_dir, load_json, read_text
from ..infra.userlevel import config_dir, user_settings, workspace_cache

if TYPE_CHECKING:
    from ..core.settings.compaction import CompactionConfig
    from ..core.settings.context import ContextConfig
    from ..core.settings.staleness import StalenessConfig

#: A compiled ignore file (``.gitignore`` syntax).
Spec = pathspec.PathSpec[pathspec.Pattern]

#: Folders never walked: version control internals and dependency trees, ignored or not.
ALWAYS_SKIPPED_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", ".venv", "__pycache__"})

#: Instruction files recognised at their usual places (workspace-relative globs).
INSTRUCTION_GLOBS = (
    "CLAUDE.md",
    "CLAUDE.local.md",
    "AGENTS.md",
    "AGENTS.override.md",
    "GEMINI.md",
    "CRUSH.md",
    ".cursorrules",
    ".windsurfrules",
    ".clinerules",
    ".continuerules",
    ".augment-guidelines",
    ".github/copilot-instructions.md",
    ".github/instructions/**/*.instructions.md",
    "**/.cursor/rules/**/*.mdc",
    ".cursor/rules/**/*.md",
    "**/.windsurf/rules/*.md",
    ".clinerules/**/*.md",
    ".claude/rules/**/*.md",
    ".kiro/steering/*.md",
    ".continue/rules/**/*.md",
    ".augment/rules/**/*.md",
    ".augment/guidelines.md",
    "memory-bank/*.md",
    ".claude/CLAUDE.md",
    ".claude/**/MEMORY.md",
)
#: :data:`INSTRUCTION_GLOBS`, compiled.
_USUAL_SPEC = pathspec.GitIgnoreSpec.from_lines(INSTRUCTION_GLOBS)
#: Instruction files that apply to their folder, found anywhere in the tree.
NESTED_INSTRUCTION_NAMES = frozenset({"CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", "AGENTS.override.md", "GEMINI.md",
                                      "CRUSH.md"})
#: Instruction files without a Markdown extension.
PLAIN_INSTRUCTION_NAMES = frozenset({".cursorrules", ".windsurfrules", ".clinerules", ".continuerules",
                                      ".augment-guidelines"})

#: Where the store keeps entries, in either layout (relative to a workspace folder).
STORE_GLOBS = (".lore/memory/entries/*.json", ".lean-spec/memory/entries/*.json")


def editor_globs() -> list[str]:
    """The memory files an editor attaches to, as globs relative to a workspace folder: the store's
    files, MIF files and instruction files anywhere they are recognised. The VS Code extension's
    activation events and document selector are generated from this list
    (scripts/generate-extension-lists), so the editor attaches to exactly what the server reads."""
    globs = [*STORE_GLOBS, "**/*.memory.md", *(f"**/{name}" for name in sorted(NESTED_INSTRUCTION_NAMES))]
    globs += [g for g in INSTRUCTION_GLOBS if g.rsplit("/", 1)[-1] not in NESTED_INSTRUCTION_NAMES]
    return list(dict.fromkeys(globs))


DEFAULT_MAX_FILE_BYTES = 1024 * 1024


class WorkspaceNotFound(Exception):
    """No workspace root above the starting folder."""


class PathOutsideRoot(ValueError):
    """A path that would leave the workspace root (absolute, ``..``, or a symlink pointing out)."""


def find_root(start: Path | None = None) -> Path:
    """Find the workspace root the way git finds a repository: the nearest folder, from ``start`` up,
    holding ``.lore/`` or ``.lean-spec/``; failing that, the nearest holding ``.git``."""
    here = (start or Path.cwd()).resolve()
    chain = [here, *here.parents]
    for folder in chain:
        if (folder / ".lore").is_dir() or (folder / ".lean-spec").is_dir():
            return folder
    for folder in chain:
        if (folder / ".git").exists():
            return folder
    raise WorkspaceNotFound(f"no Lorekeeper workspace found in {here} or any parent (run `lore init`)")


def store_dir(root: Path) -> Path:
    """The store: ``.lean-spec/memory/`` when that exists (LeanSpec's layout), else ``.lore/memory/``."""
    lean = root / ".lean-spec" / "memory"
    return lean if lean.is_dir() else root / ".lore" / "memory"


def rel(root: Path, path: Path) -> str:
    """Workspace-relative POSIX path."""
    text, prefix = str(path), str(root)
    if text.startswith(prefix + os.sep):
        return text[len(prefix) + 1 :].replace(os.sep, "/")
    return path.relative_to(root).as_posix()


def resolve_inside(root: Path, ref_path: str, base: str = "", real_dirs: dict[str, str] | None = None) -> Path:
    """Resolve a path named by a memory (relative to ``base``, a workspace-relative folder) and refuse it
    unless it stays inside ``root``. Symlinks are resolved before the check, so a link pointing outside
    is refused too. Never reads the target. ``real_dirs`` caches folders' real paths across calls."""
    if not ref_path or "\x00" in ref_path:
        raise PathOutsideRoot("empty or invalid path")
    if ref_path.startswith("~"):
        raise PathOutsideRoot(f"{brief(ref_path, 120)} points into a home folder, outside the workspace")
    posix = ref_path.replace("\\", "/")
    if posix.startswith("/") or (len(ref_path) > 1 and ref_path[1] == ":"):
        raise PathOutsideRoot(f"{brief(ref_path, 120)} is an absolute path; refs must be relative to the workspace")
    cache = real_dirs if real_dirs is not None else {}
    root_key = "\x00root:" + str(root)
    root_real = cache.get(root_key) or cache.setdefault(root_key, os.path.realpath(root))
    lexical = os.path.normpath(os.path.join(root_real, base, posix))
    if not _within(lexical, root_real):
        raise PathOutsideRoot(f"{brief(ref_path, 120)} leaves the workspace root")
    parent, name = os.path.split(lexical)
    if parent not in cache:
        cache[parent] = os.path.realpath(parent)
    real = os.path.realpath(lexical) if os.path.islink(lexical) else os.path.join(cache[parent], name)
    if not _within(real, root_real):
        raise PathOutsideRoot(f"{brief(ref_path, 120)} is a symlink that points outside the workspace root")
    return Path(lexical)


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _is_within(path: Path, root: Path) -> bool:
    return _within(str(path), str(root))


def read_config_files(root: Path) -> ConfigFiles:
    """The configuration files of a workspace, parsed (a missing file is an empty section; a broken one is
    a problem, and defaults)."""
    out = ConfigFiles()
    toml = root / TOML
    if toml.is_file():
        try:
            out.toml = tomllib.loads(read_text(toml, _CONFIG_LIMIT, root))
        except (OSError, ValueError, RecursionError) as exc:
            out.problems.append(f"{TOML}: {exc}; using defaults")
            out.toml_broken = True
    lean = root / LEAN
    if lean.is_file():
        try:
            memory = load_json(read_text(lean, _CONFIG_LIMIT, root)).get("memory", {})
            out.lean_memory = memory if isinstance(memory, dict) else None
        except (OSError, ValueError, AttributeError, RecursionError) as exc:
            out.problems.append(f"{LEAN}: {exc}; ignored")
    return out


_CONFIG_LIMIT = 1024 * 1024


class Config(BaseModel):
    """Settings from ``.lore/config.toml``'s ``[store]`` section (every key optional)."""

    max_file_bytes: StrictInt = Field(default=DEFAULT_MAX_FILE_BYTES, gt=0)
    default_agent: StrictStr | None = None
    #: More instruction files to read (gitignore-style patterns relative to the root).
    instruction_files: list[StrictStr] = Field(default_factory=list)
    problems: list[str] = Field(default_factory=list)

    @classmethod
    def from_files(cls, files: ConfigFiles) -> Config:
        problems = list(files.problems if files.toml_broken else [])
        values = settle(cls, [(".lore/config.toml [store]", files.section("store"))], problems)
        if values.get("instruction_files"):
            values["instruction_files"] = markdown_only(values["instruction_files"], problems)
        return cls(**values, problems=problems)

    @classmethod
    def load(cls, root: Path) -> Config:
        return cls.from_files(read_config_files(root))


#: What a pattern of a repository's ``instruction_files`` may end with: Markdown files only.
MARKDOWN_SUFFIXES = (".md", ".mdc", ".markdown")


def markdown_only(patterns: list[str], problems: list[str]) -> list[str]:
    """The patterns of a repository's ``instruction_files`` that can match Markdown files only (negations,
    which only narrow, always pass). A repository is someone else's: it may add Markdown files to what is
    read and written as memory, never code, entries or anything else; widening further is for the user's
    own settings (:mod:`.userlevel`)."""
    kept: list[str] = []
    for pattern in patterns:
        body = pattern.strip()
        if body.startswith("!") or body.endswith(MARKDOWN_SUFFIXES):
            kept.append(pattern)
            continue
        problems.append(f".lore/config.toml [store]: instruction_files pattern {brief(pattern)} may match "
                        "files that are not Markdown; a repository's settings add only *.md, *.mdc or *.markdown "
                        "files (widen it in your own settings, see docs/configuration.md); pattern ignored")
    return kept


class Workspace:
    """A workspace root with its store folder and configuration."""

    def __init__(self, root: Path):
        self.root = Path(os.path.realpath(root))
        self.store = store_dir(self.root)
        #: The configuration files, parsed once; each section is read from them.
        self.config_files = read_config_files(self.root)
        self.config = Config.from_files(self.config_files)
        #: More instruction files from the user's own settings (never from the repository): any pattern.
        self.user_instruction_files = _user_instruction_files(self.config.problems)
        self._compaction: Any = None
        self._context: Any = None
        self._staleness: Any = None
        self._git_times: dict[str, tuple[datetime, str]] | None = None
        self._git_covered: list[str] = []  # the paths _git_times answers for (see added_in)
        #: The thread :meth:`date_in_background` started (what :meth:`added_in` waits for), and the lock
        #: held while those times are asked for.
        self._dater: threading.Thread | None = None
        self._dating = threading.Lock()
        self._files: list[Path] | None = None
        self._rel_files: list[str] | None = None
        self._real_dirs: dict[str, str] = {}
        self._inside: dict[tuple[str, str], Path | PathOutsideRoot] = {}
        self._instruction_patterns: tuple[tuple[str, ...], pathspec.GitIgnoreSpec] | None = None
        self._repo_patterns: tuple[tuple[str, ...], pathspec.GitIgnoreSpec | None] | None = None
        #: Entry files the last listing saw as regular files (not symlinks): see :meth:`listed_plain`.
        self._plain_entries: set[str] = set()
        #: Files the walk of the tree saw as regular files (not symlinks): see :meth:`listed_plain`.
        self._plain_files: set[str] = set()
        self._ignore_specs: dict[str, list[tuple[str, Spec]]] = {}
        #: Instruction files read under another name: real file -> the symlinks that point at it.
        self.aliases: dict[str, list[str]] = {}

    @classmethod
    def discover(cls, start: Path | None = None) -> Workspace:
        return cls(find_root(start))

    @property
    def compaction(self) -> CompactionConfig:
        """The compaction settings (``[compaction]``, LeanSpec's ``memory`` section), read once."""
        if self._compaction is None:
            from ..core.settings.compaction import CompactionConfig

            self._compaction = CompactionConfig.from_files(self.config_files)
        return self._compaction

    @property
    def context(self) -> ContextConfig:
        """The context settings (``[context]``), read once."""
        if self._context is None:
            from ..core.settings.context import ContextConfig  # noqa: PLC0415 - context builds on this module

            self._context = ContextConfig.from_files(self.config_files)
        return self._context

    @property
    def staleness(self) -> StalenessConfig:
        """The staleness settings (``[staleness]``: files skipped, ignore rules), read once."""
        if self._staleness is None:
            from ..core.settings.staleness import StalenessConfig

            self._staleness = StalenessConfig.from_files(self.config_files)
        return self._staleness

    @property
    def entries_dir(self) -> Path:
        return self.store / "entries"

    @property
    def log_dir(self) -> Path:
        return self.store / "log"

    @property
    def cache_dir(self) -> Path:
        """Lorekeeper's caches: ``.lore/cache`` (git-ignored) in a workspace that has a ``.lore/`` folder;
        else a folder of the user's cache (:func:`~lorekeeper.infra.userlevel.workspace_cache`), so that
        opening a repository nobody initialised (in an editor, in Restricted Mode too) writes nothing in it."""
        own = self.root / ".lore"
        return own / "cache" if own.is_dir() else workspace_cache(self.root)

    def rel(self, path: Path) -> str:
        return rel(self.root, path)

    def is_memory_path(self, relpath: str) -> bool:
        """Whether a workspace-relative path names a memory file Lorekeeper may write: an entry, a MIF
        file, an instruction file, or one of the store's own files (views, verifications) — never
        anything under ``.git``, and never the journal (it writes that itself). Decided by the path
        alone, so it also answers for files that do not exist yet or were deleted."""
        posix = PurePosixPath(relpath.replace("\\", "/"))
        if posix.is_absolute() or ".." in posix.parts or not posix.parts or not ALWAYS_SKIPPED_DIRS.isdisjoint(posix.parts):
            return False
        text = posix.as_posix()
        store = self.rel(self.store) if _is_within(self.store, self.root) else None
        if store and text.startswith(store + "/"):
            return _store_file(text[len(store) + 1:])
        name = posix.name
        if name.endswith(".memory.md") or name in NESTED_INSTRUCTION_NAMES:
            return True
        return self.is_instruction_path(text)

    def is_store_file(self, relpath: str) -> bool:
        """Whether a workspace-relative path names one of the store's own memory files (an entry, a MIF
        file, a view, ``verified.json``): the only files crash recovery writes on its own."""
        posix = PurePosixPath(relpath.replace("\\", "/"))
        if posix.is_absolute() or ".." in posix.parts or not _is_within(self.store, self.root):
            return False
        store = self.rel(self.store)
        text = posix.as_posix()
        return text.startswith(store + "/") and _store_file(text[len(store) + 1:])

    def is_instruction_path(self, relpath: str) -> bool:
        """Whether a path names an instruction file: a Markdown (or ``.cursorrules``-like) file matching
        the usual patterns, or the repository's own ``instruction_files`` outside folders git ignores or
        never walks; or any file matching the user's own ``instruction_files``. (A pattern ending in
        ``.md`` also matches everything inside a folder named so: the file's own name must say Markdown.)"""
        name = relpath.rsplit("/", 1)[-1]
        if self.user_instruction_files and self._user_spec().match_file(relpath):
            return True
        if not (name.endswith(MARKDOWN_SUFFIXES) or name in PLAIN_INSTRUCTION_NAMES):
            return False
        if _USUAL_SPEC.match_file(relpath):
            return True
        repo = self._repo_spec()
        if repo is None or not repo.match_file(relpath):
            return False
        return ALWAYS_SKIPPED_DIRS.isdisjoint(relpath.split("/")) and not self.ignored(relpath)

    def _user_spec(self) -> pathspec.GitIgnoreSpec:
        """The user's own ``instruction_files``, compiled once per configuration."""
        patterns = self.user_instruction_files
        if self._instruction_patterns is None or self._instruction_patterns[0] != patterns:
            self._instruction_patterns = (patterns, pathspec.GitIgnoreSpec.from_lines(patterns))
        return self._instruction_patterns[1]

    def _repo_spec(self) -> pathspec.GitIgnoreSpec | None:
        """The repository's ``[store] instruction_files`` (Markdown only, see :func:`markdown_only`)."""
        patterns = tuple(self.config.instruction_files)
        if self._repo_patterns is None or self._repo_patterns[0] != patterns:
            self._repo_patterns = (patterns, pathspec.GitIgnoreSpec.from_lines(patterns) if patterns else None)
        return self._repo_patterns[1]

    #: The files that configure how memory is read (a change to one reloads the store).
    CONFIG_FILES = (".lore/config.toml", ".lean-spec/config.json")

    @property
    def config_path(self) -> Path:
        return self.root / ".lore" / "config.toml"

    def is_own_output(self, relpath: str) -> bool:
        """Whether a path is Lorekeeper's own output — its caches, the journal, the views it renders
        (``index.md``, ``compacted/``) — which never triggers a re-check when it changes."""
        text = PurePosixPath(relpath.replace("\\", "/")).as_posix()
        if text == ".lore/cache" or text.startswith(".lore/cache/"):
            return True
        if not _is_within(self.store, self.root):
            return False
        store = self.rel(self.store)
        inner = text[len(store) + 1:] if text.startswith(store + "/") else None
        return inner is not None and (inner.startswith("log/") or inner.startswith("compacted/") or inner == "index.md")

    def reloads_store(self, relpath: str) -> bool:
        """Whether a change to this file means memory must be read again: a memory file that is not
        Lorekeeper's own output, or a file that configures how memory is read."""
        return relpath in self.CONFIG_FILES or (self.is_memory_path(relpath) and not self.is_own_output(relpath))

    def inside(self, ref_path: str, base: str = "") -> Path:
        """:func:`resolve_inside` for this workspace, remembered until :meth:`refresh` (a file created,
        deleted or turned into a symlink)."""
        key = (ref_path, base)
        known = self._inside.get(key)
        if known is None:
            try:
                known = resolve_inside(self.root, ref_path, base, self._real_dirs)
            except PathOutsideRoot as exc:
                known = exc
            self._inside[key] = known
        if isinstance(known, PathOutsideRoot):
            raise known
        return known

    def check_inside(self, ref_path: str, base: str = "") -> None:
        """Raise :class:`PathOutsideRoot` where :meth:`inside` would, for a path that is only judged here,
        not read. A regular file the walk saw (:meth:`listed_plain`, named as the walk names it) passes
        without resolving it: a fifth of reading an entry at 10k. Whoever reads it later refuses a link
        that replaced it since (``O_NOFOLLOW``, or :meth:`inside`)."""
        if base or not self.listed_plain(ref_path):
            self.inside(ref_path, base)

    def listed_plain(self, relpath: str) -> bool:
        """Whether ``relpath`` is a file the last :meth:`memory_relpaths` (an entry file) or walk of the
        tree (:meth:`rel_files`, which enters no symlinked folder) saw as a regular file, not a symlink, in
        a folder inside the root: it cannot lead out of the workspace, so it needs no path resolution of
        its own (its folder's is remembered). Whoever reads it must refuse to follow a symlink
        (``O_NOFOLLOW``), in case it was replaced by one since."""
        if relpath not in self._plain_entries and relpath not in self._plain_files:
            return False
        folder = relpath.rpartition("/")[0]
        try:
            if folder:  # (the root's own files have no folder to resolve)
                self.inside(folder)
        except PathOutsideRoot:
            return False
        return True

    def rel_files(self) -> list[str]:
        """Every file of the workspace that git would not ignore (nested ``.gitignore`` files and
        ``.git/info/exclude`` honoured; symlinked folders not followed), as workspace-relative paths.
        Walked once per Workspace object: call :meth:`refresh` after files change."""
        if self._rel_files is None:
            found: list[str] = []
            self._walk_rel(str(self.root), "", self._base_specs(), found)
            self._rel_files = found
        return self._rel_files

    def files(self) -> list[Path]:
        """:meth:`rel_files` as absolute paths."""
        if self._files is None:
            self._files = [self.root / rel_path for rel_path in self.rel_files()]
        return self._files

    def refresh(self) -> None:
        """Forget what was learnt about the file tree (the file list, folder real paths, git times)."""
        self._files = None
        self._rel_files = None
        self._ignore_specs.clear()
        self._real_dirs.clear()
        self._inside.clear()
        self._plain_entries.clear()
        self._plain_files.clear()
        with self._dating:
            self._git_times = None

    def ignored(self, path: str) -> bool:
        """Whether git would ignore a workspace-relative path (a trailing ``/`` marks a folder), by the
        ``.gitignore`` files of its folders and ``.git/info/exclude``; nothing outside the root is read."""
        parts = path.rstrip("/").split("/")
        specs = list(self._specs_of("\x00base"))
        for depth in range(len(parts)):
            specs.extend(self._specs_of("/".join(parts[:depth])))
        return _ignored(path.rstrip("/"), path.endswith("/"), specs) if specs else False

    def _specs_of(self, folder: str) -> list[tuple[str, Spec]]:
        """The ignore rules a folder adds (cached until :meth:`refresh`)."""
        if folder not in self._ignore_specs:
            if folder == "\x00base":
                self._ignore_specs[folder] = self._base_specs()
            else:
                ignore = self.root / folder / ".gitignore" if folder else self.root / ".gitignore"
                spec = _read_ignore(ignore, self.root) if ignore.is_file() else None
                self._ignore_specs[folder] = [(folder, spec)] if spec is not None else []
        return self._ignore_specs[folder]

    # -- discovery -------------------------------------------------------------------------------

    def _base_specs(self) -> list[tuple[str, Spec]]:
        exclude = self.root / ".git" / "info" / "exclude"
        spec = _read_ignore(exclude, self.root) if exclude.is_file() else None
        return [("", spec)] if spec is not None else []

    def _walk_rel(self, folder: str, prefix: str, specs: list[tuple[str, Spec]], found: list[str]) -> None:
        """Append to ``found`` the files under ``folder`` git would not ignore, depth first in name order.
        (Appending, not yielding: a file yielded from a nested generator passes through every level above
        it, a cost per file and level in a deep tree.)"""
        ignore_file = os.path.join(folder, ".gitignore")
        if os.path.isfile(ignore_file) and (spec := _read_ignore(Path(ignore_file), self.root)) is not None:
            specs = [*specs, (prefix.rstrip("/"), spec)]
        try:
            with os.scandir(folder) as listing:
                children = sorted(listing, key=lambda d: d.name)
        except OSError:
            return
        for child in children:
            relpath = prefix + child.name
            is_dir = child.is_dir(follow_symlinks=False)
            if is_dir and child.name in ALWAYS_SKIPPED_DIRS:
                continue
            if specs and _ignored(relpath, is_dir, specs):
                continue
            if is_dir:
                self._walk_rel(child.path, relpath + "/", specs, found)
            elif child.is_file(follow_symlinks=False):
                self._plain_files.add(relpath)
                found.append(relpath)
            elif child.is_symlink():
                found.append(relpath)

    def memory_files(self) -> dict[str, list[Path]]:
        """The memory files of the workspace by format: native entries, MIF files, instruction files.

        The store folder is always read, even when ``.gitignore`` lists it."""
        return {fmt: [self.root / rel for rel in rels] for fmt, rels in self.memory_relpaths().items()}

    def memory_relpaths(self) -> dict[str, list[str]]:
        """:meth:`memory_files` as workspace-relative paths (no path objects made for ten thousand entries)."""
        entries: list[str] = []
        mif: set[str] = set()
        if self.entries_dir.is_dir():
            with os.scandir(self.entries_dir) as listing:
                children = list(listing)
            found = [(d.name, d.is_symlink()) for d in children if d.name.endswith(".json") and not d.is_dir()]
            folder = self.rel(self.entries_dir) + "/"
            entries = [folder + name for name, _ in sorted(found)]
            self._plain_entries = {folder + name for name, link in found if not link}
            # MIF files in the entries folder, from the same listing (it is the store's largest folder)
            for child in children:
                if child.is_dir(follow_symlinks=False):
                    mif.update(_files_named(child.path, folder + child.name + "/", ".memory.md"))
                elif child.name.endswith(".memory.md") and child.is_file():
                    mif.add(folder + child.name)
        in_tree, instructions = self._memory_in_tree()
        mif |= in_tree
        store_prefix = self.rel(self.store) + "/" if _is_within(self.store, self.root) else None
        if self.store.is_dir() and store_prefix:
            mif.update(_files_named(str(self.store), store_prefix, ".memory.md", skip=str(self.entries_dir)))
        return {"entry": entries, "mif": sorted(mif), "instruction": instructions}

    def _memory_in_tree(self) -> tuple[set[str], list[str]]:
        """The MIF files (outside the store's own files) and instruction files among the files git does
        not ignore (:meth:`rel_files`)."""
        mif: set[str] = set()
        instructions: set[Path] = set()
        widened = bool(self.user_instruction_files)
        store_prefix = self.rel(self.store) + "/" if _is_within(self.store, self.root) else None
        files = self.rel_files()
        vendored = vendored_folders(files)
        for relpath in files:
            name = relpath.rsplit("/", 1)[-1]
            if store_prefix and relpath.startswith(store_prefix) and not relpath.endswith(".memory.md"):
                continue  # the store's own files: entries are read above; log/, index.md are ours
            if vendored and relpath.startswith(vendored):
                continue  # a dependency's own instruction files, copied in with its code
            if not (name.endswith(MARKDOWN_SUFFIXES) or name in PLAIN_INSTRUCTION_NAMES):
                if widened and self._user_spec().match_file(relpath):  # (the user's own patterns: any file)
                    instructions.add(self.root / relpath)
                continue  # every other memory and instruction file is Markdown (or a .cursorrules-like file)
            if name.endswith(".memory.md"):
                mif.add(relpath)
            elif name in NESTED_INSTRUCTION_NAMES or self.is_instruction_path(relpath):
                instructions.add(self.root / relpath)
        return mif, [self.rel(p) for p in self._one_name_each(instructions)]

    def _one_name_each(self, paths: set[Path]) -> list[Path]:
        """Instruction files that are symlinks to one another (CLAUDE.md -> AGENTS.md) are read once, at
        the real file (inside the root); :attr:`aliases` keeps the other names."""
        by_real: dict[str, list[Path]] = {}
        for path in sorted(paths):
            real = os.path.realpath(path)
            if not _within(real, str(self.root)):
                by_real.setdefault(str(path), []).append(path)  # refused later, with a finding
                continue
            by_real.setdefault(real, []).append(path)
        chosen: list[Path] = []
        self.aliases = {}
        for real, names in by_real.items():
            target = Path(real)
            keep = target if target in names or (_within(real, str(self.root)) and target.is_file()) else names[0]
            others = [self.rel(n) for n in names if n != keep]
            if others:
                self.aliases[self.rel(keep)] = others
            chosen.append(keep)
        return sorted(chosen)

    # -- time of files ---------------------------------------------------------------------------

    def created_time(self, path: Path | str, relpath: str | None = None) -> tuple[datetime, str]:
        """When a file was created: the time of the commit that added it, else its modification time."""
        added = self.added_in(relpath or self.rel(Path(path)))
        if added is not None:
            return added[0], "git"
        return datetime.fromtimestamp(os.stat(path).st_mtime, tz=UTC), "mtime"

    def added_in(self, relpath: str) -> tuple[datetime, str] | None:
        """The time and id of the commit that first added a file, if git knows it. The memory files are
        asked about, and about all at once: the first call asks git about every one of them (one ``git
        log`` limited to the store and the memory files outside it, not the whole history's file list,
        which in a repository of thousands of files and commits costs several times more); a path outside
        those is asked about on its own."""
        asking = self._dater
        if asking is not None and asking is not threading.current_thread():
            asking.join()  # the answer being got (see :meth:`date_in_background`)
        with self._dating:
            if self._git_times is None:
                covered = self._memory_pathspecs()
                self._git_times, self._git_covered = self._kept_add_times(covered), covered
            known = self._git_times.get(relpath)
            if known is not None or not relpath or self._covers(relpath):
                return known
            self._git_times.update(_git_add_times(self.root, [relpath]))
            self._git_covered.append(relpath)
            return self._git_times.get(relpath)

    def date_in_background(self) -> threading.Thread:
        """Start asking git when the memory files were added (:meth:`added_in`) on a thread of its own,
        while the caller checks memory, which needs no such dates (a store loaded with ``dates=False``);
        :meth:`added_in` waits for that answer instead of asking again. The one ``git log`` walks the
        whole history: 0.3-1.3 s on repositories of thousands of commits, more on a cold disk. Called after
        the memory files were listed (the thread reads nothing of this workspace but its cache)."""
        covered = self._memory_pathspecs()  # (on the caller's thread: it lists memory files and sets aliases)

        def ask() -> None:
            with self._dating:
                if self._git_times is None:
                    self._git_times, self._git_covered = self._kept_add_times(covered), covered

        self._dater = threading.Thread(target=ask, name="lore-dates", daemon=True)
        self._dater.start()
        return self._dater

    def _kept_add_times(self, paths: list[str]) -> dict[str, tuple[datetime, str]]:
        """:func:`_git_add_times` of ``paths``, kept in the cache for the commit checked out (the answer
        is the history's up to it: a walk of all of it, 0.1-1.3 s on a repository of thousands of
        commits). After HEAD moved forward (a commit, a pull), only the commits since the one kept are
        asked: a file added by them was not there before, and one added earlier keeps its first add."""
        head = _git_head(self.root)
        if head is None:
            return _git_add_times(self.root, paths)
        read: Any = cache_files.read_json(self.root, self.cache_dir, ADDED_TIMES_FILE)
        kept = cast(dict[str, Any], read) if isinstance(read, dict) else {}
        times: dict[str, tuple[datetime, str]] | None = None
        if kept.get("paths") == paths:
            try:
                stored = cast(dict[str, list[str]], kept["times"])
                known = {p: (datetime.fromisoformat(t), sha) for p, (t, sha) in stored.items()}
            except (TypeError, ValueError, AttributeError, KeyError):
                known = None
            before: Any = kept.get("head")
            if known is not None and before == head:
                return known
            if known is not None and isinstance(before, str) and _is_ancestor(self.root, before, head):
                since = _git_adds(self.root, paths, after=before)
                if since is not None:
                    times = {**since, **known}
        if times is None:
            times = _git_add_times(self.root, paths)
        body = {"head": head, "paths": paths, "times": {p: [t.isoformat(), sha] for p, (t, sha) in times.items()}}
        cache_files.write(self.root, self.cache_dir, ADDED_TIMES_FILE, json.dumps(body).encode())
        return times

    def _memory_pathspecs(self) -> list[str]:
        """The paths one ``git log`` about memory files is limited to: the store folder and each memory
        file outside it (as listed now)."""
        store = self.rel(self.store) if _is_within(self.store, self.root) else None
        mif, instructions = self._memory_in_tree()  # (entries are all in the store)
        outside = [p for p in (*sorted(mif), *instructions) if not (store and p.startswith(store + "/"))]
        return ([store] if store else []) + outside

    def _covers(self, relpath: str) -> bool:
        return any(relpath == p or relpath.startswith(p + "/") for p in self._git_covered)


def _store_file(inner: str) -> bool:
    """Whether a path inside the store folder names one of its memory files."""
    return (inner.startswith("entries/") and inner.endswith(".json") and inner.count("/") == 1) \
        or inner.endswith(".memory.md") or inner == "index.md" or inner == "verified.json" \
        or (inner.startswith("compacted/") and inner.endswith(".md") and inner.count("/") == 1)


def _user_instruction_files(problems: list[str]) -> tuple[str, ...]:
    """``[store] instruction_files`` of the user's own settings (:mod:`.userlevel`)."""
    settings, trouble = user_settings()
    problems.extend(trouble)
    store: object = settings.get("store", {})
    patterns: object = cast(dict[str, object], store).get("instruction_files", []) if isinstance(store, dict) else []
    if not isinstance(patterns, list) or not all(isinstance(p, str) for p in cast(list[object], patterns)):
        problems.append(f"{config_dir() / 'config.toml'} [store]: instruction_files should be a list of strings; ignored")
        return ()
    return tuple(cast(list[str], patterns))


def _files_named(folder: str, prefix: str, suffix: str, skip: str | None = None) -> Iterator[str]:
    """Files under ``folder`` whose name ends with ``suffix``, as ``prefix``-relative paths (folders
    that are symlinks are not entered, nor the folder ``skip``)."""
    try:
        with os.scandir(folder) as listing:
            children = list(listing)
    except OSError:
        return
    for child in children:
        if child.is_dir(follow_symlinks=False):
            if child.path != skip:
                yield from _files_named(child.path, prefix + child.name + "/", suffix, skip)
        elif child.name.endswith(suffix) and child.is_file():
            yield prefix + child.name


def _read_ignore(path: Path, root: Path) -> Spec | None:
    """An ignore file's rules; ``None`` when it has none (only comments and blank lines, as git's default
    ``.git/info/exclude``): every path of the tree would be matched against nothing."""
    try:  # a regular file inside the workspace only (a link out, or a FIFO, is no rules at all)
        lines = read_text(path, 1024 * 1024, root, errors="replace").splitlines()
    except OSError:
        return None
    spec = pathspec.GitIgnoreSpec.from_lines(lines)
    return spec if any(p.include is not None for p in spec.patterns) else None


def _ignored(relpath: str, is_dir: bool, specs: list[tuple[str, Spec]]) -> bool:
    ignored = False
    for base, spec in specs:
        sub = relpath[len(base) + 1 :] if base else relpath
        if base and not relpath.startswith(base + "/"):
            continue
        candidate = sub + "/" if is_dir else sub
        result = spec.check_file(candidate)
        if result.include is not None:
            ignored = result.include
    return ignored


#: Past this many paths, one ``git log`` about memory files reads the whole history's list instead.
GIT_PATHSPECS_MAX = 2000
#: The cache file of :meth:`Workspace._kept_add_times`.
ADDED_TIMES_FILE = "added-times.json"


def _git_head(root: Path) -> str | None:
    """The commit checked out, if git says (None outside a repository, or before its first commit)."""
    if not (root / ".git").exists():
        return None
    try:
        proc = subprocess.run(git_command(root, "rev-parse", "--verify", "-q", "HEAD"), env=git_env(),
                              capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    head = proc.stdout.strip()
    return head if proc.returncode == 0 and head else None


def _is_ancestor(root: Path, before: str, head: str) -> bool:
    """Whether ``before`` is a commit of HEAD's history (false too when git does not know it)."""
    try:
        proc = subprocess.run(git_command(root, "merge-base", "--is-ancestor", before, head), env=git_env(),
                              capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return False
    return proc.returncode == 0


def _git_add_times(root: Path, paths: list[str] | None = None) -> dict[str, tuple[datetime, str]]:
    """Map each file git knows (under ``paths``, when given) to the time and id of the commit that first
    added it, in one ``git log`` (empty when git cannot answer)."""
    return _git_adds(root, paths) or {}


def _git_adds(root: Path, paths: list[str] | None, after: str | None = None) -> dict[str, tuple[datetime, str]] | None:
    """:func:`_git_add_times`, of the commits after ``after`` only when given; ``None`` when git could
    not answer. ``--full-history``: limiting the log to paths must not simplify it (a file added on a
    merged branch is found there, as without the limit)."""
    if not (root / ".git").exists() or paths == []:
        return {}
    limit = ["--full-history", "--", *(f":(literal){p}" for p in paths)] if paths and len(paths) <= GIT_PATHSPECS_MAX else []
    span = [f"{after}..HEAD"] if after else []
    try:
        proc = subprocess.run(
            git_command(root, "log", "--diff-filter=A", "--format=%x00%cI %H", "--name-only", "--no-renames", *span,
                        *limit),
            env=git_env(),
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if proc.returncode != 0:
        return None
    times: dict[str, tuple[datetime, str]] = {}
    current: tuple[datetime, str] | None = None
    for line in proc.stdout.splitlines():
        if line.startswith("\x00"):
            try:
                stamp, sha = line[1:].strip().split(" ", 1)
                current = (datetime.fromisoformat(stamp), sha)
            except ValueError:
                current = None
        elif line and current is not None:
            times[line] = current  # git log is newest first; the oldest add wins
    return times


DEFAULT_CONFIG = """\
# Lorekeeper settings. Every key is optional; the values shown are the defaults.

[store]
# Memory files larger than this are reported and skipped, not read.
max_file_bytes = 1048576
# Agent recorded on entries added with `lore add` (default: $LORE_AGENT, else your user name).
# default_agent = "alice"
"""


@dataclass
class Initialised:
    """What :func:`init_workspace` did: the store folder, what it created, what it left alone and why."""

    root: Path
    store: Path
    created: list[str]
    warnings: list[str]


def init_workspace(root: Path) -> Initialised:
    """Create the store (``.lore/memory/entries/`` and ``log/``, or LeanSpec's ``.lean-spec/memory/``
    when LeanSpec is there) and a commented ``.lore/config.toml``; nothing that exists is touched, and a
    folder or config that leads out of the workspace is refused (:class:`..safeio.UnsafeFile`)."""
    created: list[str] = []
    warnings: list[str] = []
    store = store_dir(root)
    for folder in (store / "entries", store / "log"):
        if not folder.is_dir():
            ensure_dir(folder, root)
            created.append(folder.relative_to(root).as_posix() + "/")
    config = root / ".lore" / "config.toml"
    if not os.path.lexists(config):  # a dangling symlink is not "missing": it is never followed
        atomic_write(config, DEFAULT_CONFIG.encode("utf-8"), root)
        created.append(".lore/config.toml")
    elif config.is_symlink() or not config.is_file():
        warnings.append(f".lore/config.toml is {'a symlink' if config.is_symlink() else 'not a file'}; left alone")
    return Initialised(root, store, created, warnings)


#: The file a package manager writes at the top of the folder it copies dependencies into: Go's
#: `go mod vendor` (vendor/modules.txt), Composer's (vendor/autoload.php).
_VENDOR_MARKERS = ("vendor/modules.txt", "vendor/autoload.php")


def vendored_folders(files: Iterable[str]) -> tuple[str, ...]:
    """The folders holding copies of dependencies (a ``vendor/`` that holds a ``modules.txt`` or an
    ``autoload.php``), as path prefixes: the instruction files inside them are their projects' memory,
    about their own trees, not this repository's."""
    return tuple(sorted(path[: -len(marker.split("/", 1)[1])] for path in files for marker in _VENDOR_MARKERS
                        if path == marker or path.endswith("/" + marker)))
