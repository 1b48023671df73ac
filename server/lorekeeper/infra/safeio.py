"""Every file Lorekeeper reads or writes goes through here.

Memory folders are committed to git and shared, so any file in them can come from someone else: a
symlink out of the workspace (or a dangling one), a FIFO, ``/dev/zero``, a gigabyte, JSON nested ten
thousand deep. The rules, whatever the file:

- **Nothing outside the workspace root** is read, written, created or deleted: paths are checked after
  symlinks are resolved, folders included (``.lore`` itself may be a link).
- **Only regular files are read**, opened without blocking (a FIFO is refused at once, not waited on),
  and never more than a limit (``/dev/zero`` is a character device; a huge file is cut off).
- **Writes are atomic** (a temporary file, fsync, rename, fsync of the folder), go through a symlink
  to its target when the target is inside the root (the link stays a link), keep the file's permission
  bits, give new files the permissions the umask allows, and refuse a read-only file.
- **JSON nested too deep** is a value error like any other bad JSON, not a crash.

Errors are :class:`OSError` subclasses with a message a user can act on, so every ``except OSError``
that already guards a read keeps working."""

from __future__ import annotations

import errno
import json
import os
import stat
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from pydantic_core import from_json, to_json

#: Default cap for a file read whole (memory files have their own, configurable, cap).
DEFAULT_READ_LIMIT = 32 * 1024 * 1024


class UnsafeFile(OSError):
    """A file Lorekeeper will not read or write (outside the root, not a regular file, too large,
    read-only)."""

    def __init__(self, message: str, path: Path | str | None = None):
        super().__init__(errno.EPERM, message)
        self.message = message
        self.path = str(path) if path is not None else None

    def __str__(self) -> str:
        return self.message


class OutsideRoot(UnsafeFile):
    pass


class NotRegularFile(UnsafeFile):
    pass


class TooLarge(UnsafeFile):
    def __init__(self, message: str, path: Path | str | None = None, size: int = 0):
        super().__init__(message, path)
        #: The size seen (at least the limit plus one byte when the file grew while it was read).
        self.size = size


class ReadOnly(UnsafeFile):
    pass


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def real_inside(root: Path, path: Path) -> Path:
    """``path`` with every symlink resolved (a dangling one too), refused unless it stays inside
    ``root``."""
    root_real = os.path.realpath(root)
    real = os.path.realpath(path)
    if not _within(real, root_real):
        raise OutsideRoot(f"{path} leads outside the workspace ({real}); not touched", path)
    return Path(real)


def read_bytes(path: Path | str, limit: int = DEFAULT_READ_LIMIT, root: Path | None = None, *,
               follow: bool = True) -> bytes:
    """A regular file's bytes: never a FIFO or a device (refused without blocking), never more than
    ``limit`` bytes, and, with ``root``, never a file outside it. ``follow=False``: a symlink is refused
    (``O_NOFOLLOW``), not read."""
    return read_bytes_stat(path, limit, root, follow=follow)[0]


def read_bytes_stat(path: Path | str, limit: int = DEFAULT_READ_LIMIT, root: Path | None = None, *,
                    follow: bool = True) -> tuple[bytes, os.stat_result]:
    """:func:`read_bytes`, with the state of the file it read (from the open file: the version read)."""
    if root is not None:
        real_inside(root, Path(path))
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    if not follow:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = ("a FIFO" if stat.S_ISFIFO(info.st_mode) else "a device" if stat.S_ISCHR(info.st_mode)
                    or stat.S_ISBLK(info.st_mode) else "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file")
            raise NotRegularFile(f"{path} is {kind}, not a regular file; not read", path)
        if info.st_size > limit:
            raise TooLarge(f"{path} is {info.st_size} bytes, over the {limit}-byte limit; not read", path, info.st_size)
        chunks: list[bytes] = []
        size = 0
        while True:
            # Ask for what fstat announced (and one byte more, to see a file that grew) before chunks of
            # 1 MB: os.read allocates what it is asked for, and a 1 MB buffer for a 300-byte entry
            # costs three times the read.
            want = min(info.st_size + 1 if not chunks else 1 << 20, limit + 1 - size)
            chunk = os.read(fd, want)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:  # the file grew, or lied about its size
                raise TooLarge(f"{path} holds more than {limit} bytes; not read", path, size)
            if len(chunk) < want and size == info.st_size:
                break  # a short read that ends where the file does: no second call to see the end
        return b"".join(chunks), info
    finally:
        os.close(fd)


def read_text(path: Path, limit: int = DEFAULT_READ_LIMIT, root: Path | None = None, encoding: str = "utf-8",
              errors: str = "strict") -> str:
    return read_bytes(path, limit, root).decode(encoding, errors)


def is_regular_file(path: Path) -> bool:
    """Whether ``path`` is a regular file (following symlinks), without opening it."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def load_json(text: str | bytes, **kwargs: Any) -> Any:
    """``json.loads``, with nesting too deep for the parser reported as a :class:`ValueError`.

    Read by pydantic-core's parser first (compiled; a 300-byte entry in a third of the time): whatever
    it reads, ``json.loads`` reads to the same value (tests/unit/test_load_json.py). What it refuses
    (a lone surrogate, escaped or not; nesting over 200 levels; every malformed text) goes to
    ``json.loads``, which decides: its value or its error, with the line and column findings report."""
    if not kwargs:
        try:
            return from_json(text)
        except (ValueError, TypeError):  # TypeError: a str that cannot be UTF-8 (a lone surrogate)
            pass
    try:
        return json.loads(text, **kwargs)
    except RecursionError:
        raise ValueError("JSON nested too deeply to read") from None


def json_text(value: Any) -> str:
    """Compact JSON text of ``value`` (dicts with string keys, lists, strings, numbers, booleans, None):
    what :func:`load_json` reads back as ``json.loads(json.dumps(value))`` does. Written by pydantic-core
    (4x faster than json.dumps on check-stale's cache records); a string that cannot be UTF-8 (a file
    name with undecodable bytes) goes to json.dumps, which escapes it."""
    try:
        return to_json(value, inf_nan_mode="constants").decode("utf-8")
    except ValueError:
        return json.dumps(value)


def dump_json(data: Any, **kwargs: Any) -> str:
    """``json.dumps`` that never writes NaN or Infinity (not JSON): they become null."""
    try:
        return json.dumps(data, allow_nan=False, **kwargs)
    except ValueError:
        return json.dumps(_finite(data), allow_nan=False, **kwargs)


def _finite(value: Any) -> Any:
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in cast(dict[str, Any], value).items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in cast(list[Any], value)]
    return value


def _umask() -> int:
    """The process's umask (read by setting and restoring it: there is no other portable way)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def ensure_dir(folder: Path, root: Path) -> Path:
    """Create ``folder`` (and its parents) inside ``root``; refused when it, or any parent on the way,
    is a symlink that leads outside."""
    root_real = os.path.realpath(root)
    lexical = Path(os.path.abspath(folder))
    missing: list[Path] = []
    probe = lexical
    while not probe.exists() and not probe.is_symlink():
        missing.append(probe)
        if probe.parent == probe:
            break
        probe = probe.parent
    real_inside(Path(root_real), probe)  # the deepest folder that exists (a link out is refused here)
    for part in reversed(missing):
        try:
            part.mkdir()
        except FileExistsError:
            pass
        real_inside(Path(root_real), part)
    if not lexical.is_dir():
        raise UnsafeFile(f"{folder} is not a folder; nothing written there", folder)
    return lexical


def write_target(path: Path, root: Path) -> Path:
    """Where writing ``path`` lands: the file itself, or, for a symlink, its target — refused when either
    the folder or the target leads outside ``root``."""
    ensure_dir(path.parent, root)
    if path.is_symlink():
        return real_inside(root, path)  # write through the link: it stays a link
    real_inside(root, path.parent)
    return path


def _writable_mode(path: Path, target: Path) -> int | None:
    """The permission bits to keep when ``target`` is overwritten (``None``: a new file); refused when it
    is not a regular file or is read-only."""
    try:
        info = os.stat(target)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(info.st_mode):
        raise NotRegularFile(f"{path} is not a regular file; not overwritten", path)
    mode = info.st_mode & 0o7777
    if not mode & 0o222 or not os.access(target, os.W_OK):  # marked read-only (even for root)
        raise ReadOnly(f"{path} is read-only; not written (make it writable to let Lorekeeper change it)", path)
    return mode


def _syncfs(folder: Path) -> bool:
    """Flush every file written to the file system holding ``folder`` with one ``syncfs`` call (Linux);
    ``False`` where there is no such call, or it failed, so the caller syncs file by file."""
    if sys.platform != "linux":
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        fd = os.open(folder, os.O_RDONLY)
    except (OSError, AttributeError):
        return False
    try:
        return libc.syncfs(fd) == 0
    except AttributeError:
        return False
    finally:
        os.close(fd)


def atomic_write_many(items: list[tuple[Path, bytes]], root: Path, done: list[Path] | None = None,
                      before_rename: Callable[[Path], None] | None = None) -> None:
    """:func:`atomic_write` for many files at once, with the same guarantees for each file, at a fraction
    of the cost: every temporary file is written first, the file system is flushed once (``syncfs``;
    file by file where that is not available), then each is renamed over its target and each folder is
    flushed once. Everything is checked (inside ``root``, writable, a regular file) before anything is
    renamed; ``before_rename(path)`` runs right before each rename (a caller's last check that nobody
    changed the file; an exception stops the batch there); ``done`` receives each path once its new
    content is in place, for a caller that puts files back when a later one fails."""
    prepared: list[tuple[Path, Path, str]] = []
    renamed = 0
    checked: set[Path] = set()  # folders already made sure of (created, inside the root)
    try:
        for path, data in items:
            if path.parent not in checked:
                ensure_dir(path.parent, root)
                real_inside(root, path.parent)
                checked.add(path.parent)
            target = real_inside(root, path) if path.is_symlink() else path
            mode = _writable_mode(path, target)
            fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
            prepared.append((path, target, tmp))
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.chmod(tmp, mode if mode is not None else 0o666 & ~_umask())
        if prepared and not _syncfs(prepared[0][1].parent):
            for _, _, tmp in prepared:
                fd = os.open(tmp, os.O_RDONLY)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)
        folders: dict[str, Path] = {}
        for path, target, tmp in prepared:
            if before_rename is not None:
                before_rename(path)
            os.replace(tmp, target)
            renamed += 1
            folders.setdefault(str(target.parent), target.parent)
            if done is not None:
                done.append(path)
        for folder in folders.values():
            _fsync_dir(folder)
    finally:
        for _, _, tmp in prepared[renamed:]:  # not renamed: a failure stopped the batch
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass


def atomic_write(path: Path, data: bytes, root: Path) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the new one, never a mix: a
    temporary file in the same folder, fsync, rename over the target, fsync the folder. A symlink is
    written through (to its target inside ``root``); the target's permission bits are kept; a new file
    gets what the umask allows; a read-only file, or a path leading outside ``root``, is refused."""
    target = write_target(path, root)
    mode = _writable_mode(path, target)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode if mode is not None else 0o666 & ~_umask())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    _fsync_dir(target.parent)


def atomic_delete(path: Path, root: Path) -> None:
    """Delete ``path`` (a symlink is removed itself, never its target); refused outside ``root``."""
    real_inside(root, path.parent)
    try:
        path.unlink()
    except FileNotFoundError:
        return
    _fsync_dir(path.parent)


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


TEMP_SUFFIX = ".tmp"


def stale_temp_files(folder: Path, older_than: float) -> list[Path]:
    """Temporary files :func:`atomic_write` left in ``folder`` when its process was killed."""

    out: list[Path] = []
    try:
        listing = list(os.scandir(folder))
    except OSError:
        return out
    now = time.time()
    for item in listing:
        if item.name.startswith(".") and item.name.endswith(TEMP_SUFFIX) and item.is_file(follow_symlinks=False):
            try:
                if now - item.stat(follow_symlinks=False).st_mtime > older_than:
                    out.append(Path(item.path))
            except OSError:
                continue
    return out
