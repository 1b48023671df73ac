"""Lorekeeper's caches under ``.lore/cache/`` (git-ignored), or, for a workspace that has no ``.lore/``,
under the user's own cache folder (:func:`.userlevel.workspace_cache`): read and written only while the
folder is inside one of those. A cache folder that is a symlink out of them (or otherwise unusable) is
simply not used — a cache is never worth a write elsewhere, nor a failed command."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any, Protocol

from . import userlevel
from .safeio import UnsafeFile, atomic_delete, atomic_write, ensure_dir, load_json, read_bytes, real_inside, stale_temp_files

log = logging.getLogger("lorekeeper")
_warned: set[str] = set()


class CacheHome(Protocol):
    """Where a cache lives: the workspace root and its cache folder (a :class:`~lorekeeper.workspace.Workspace`
    is one)."""

    @property
    def root(self) -> Path: ...

    @property
    def cache_dir(self) -> Path: ...


def home(root: Path, folder: Path) -> Path | None:
    """What ``folder`` (existing or not) must stay inside: the workspace ``root``, or the user's own cache
    folder (:func:`.userlevel.cache_dir`, for a workspace that has no ``.lore/``); ``None`` when it
    resolves inside neither (not used)."""
    for base in (root, userlevel.cache_dir()):
        try:
            real_inside(base, folder)
            return base
        except UnsafeFile as exc:
            problem = exc
    if str(folder) not in _warned:
        _warned.add(str(folder))
        log.warning("cache not used: %s", problem)
    return None


def usable(root: Path, folder: Path) -> bool:
    """Whether ``folder`` (existing or not) resolves inside ``root`` or the user's cache folder."""
    return home(root, folder) is not None


def read(root: Path, folder: Path, name: str, limit: int = 512 * 1024 * 1024) -> bytes:
    """A cache file's bytes, read inside its :func:`home` (the workspace, or the user's cache folder for a
    workspace that has no ``.lore/``); raises ``OSError`` (``FileNotFoundError`` when it is missing) or
    ``ValueError`` (unsafe, over ``limit``)."""
    base = home(root, folder)
    if base is None:
        raise ValueError(f"{folder}: not a usable cache folder")
    return read_bytes(folder / name, limit, base)


def read_json(root: Path, folder: Path, name: str, limit: int = 512 * 1024 * 1024) -> Any | None:
    """A cache file's JSON, or ``None`` when it is missing, unreadable, unsafe or not JSON."""
    try:
        return load_json(read(root, folder, name, limit))
    except (OSError, ValueError):
        return None


#: The JSON last read or written of each cache file, with that file's identity (device, inode, size,
#: modification time): a process that reads one again (the language server, after each save) parses it
#: again only when it changed. Every write replaces the file (a new inode), so a changed file is told.
_kept: dict[Path, tuple[tuple[int, int, int, int], Any]] = {}
_MISSING = (0, 0, -1, 0)  # the identity of a file that is not there (or cannot be looked at)


def _identity(path: Path) -> tuple[int, int, int, int]:
    try:
        info = os.stat(path)
    except OSError:
        return _MISSING
    return info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns


def read_json_kept(root: Path, folder: Path, name: str) -> Any | None:
    """:func:`read_json`, parsed once for as long as the file stays the same. The answer is shared with
    later callers: never change it."""
    if not usable(root, folder):
        return None
    path = folder / name
    identity = _identity(path)
    kept = _kept.get(path)
    if kept is not None and kept[0] == identity:
        return kept[1]
    data = read_json(root, folder, name)
    # Read after the look: were the file replaced in between, the next look sees another identity.
    _kept[path] = (identity, data)
    return data


def write_json_kept(root: Path, folder: Path, name: str, data: Any, body: bytes) -> bool:
    """:func:`write` of ``body``, the JSON of ``data``; a later :func:`read_json_kept` of this file, while
    it stays the same, answers ``data`` without parsing."""
    path = folder / name
    _kept.pop(path, None)
    if not write(root, folder, name, body):
        return False
    _kept[path] = (_identity(path), data)
    return True


def keep_json(root: Path, folder: Path, name: str, data: Any) -> None:
    """Have :func:`read_json_kept` of this file answer ``data`` while the file stays as it is now,
    without writing it: for caches whose every record stands on its own (keyed by what it was derived
    from), where a record kept in this process only is a record the next process derives again."""
    if usable(root, folder):
        _kept[folder / name] = (_identity(folder / name), data)


def write(root: Path, folder: Path, name: str, data: bytes) -> bool:
    """Write a cache file atomically (creating the folder with a ``.gitignore`` of ``*``); ``False`` when
    the folder cannot be used."""
    base = home(root, folder)
    if base is None:
        return False
    try:
        if base != root:  # the user's cache folder: made (for this user only) on first use
            base.mkdir(parents=True, exist_ok=True, mode=0o700)
        ensure(base, folder)
        atomic_write(folder / name, data, base)
        _sweep(base, folder)
        return True
    except OSError as exc:
        log.warning("cache %s not written: %s", name, exc)
        return False


#: A cache write takes no lock (caches are rebuilt, never trusted blindly), so a temporary file is a
#: leftover of a killed process only once it is clearly older than any write in progress.
STALE_TEMP_SECONDS = 600


def _sweep(root: Path, folder: Path) -> None:
    for path in stale_temp_files(folder, older_than=STALE_TEMP_SECONDS):
        try:
            atomic_delete(path, root)
        except OSError:
            continue


def ensure(root: Path, folder: Path) -> None:
    """Create the cache folder inside ``root`` with a ``.gitignore`` so caches are never committed."""
    ensure_dir(folder, root)
    ignore = folder / ".gitignore"
    if not os.path.lexists(ignore):
        atomic_write(ignore, b"*\n", root)


def delete(root: Path, folder: Path, name: str) -> None:
    base = home(root, folder)
    if base is not None:
        try:
            atomic_delete(folder / name, base)
        except OSError:
            pass
