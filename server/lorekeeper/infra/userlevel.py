"""What belongs to the person running Lorekeeper, not to the repository: their own settings file and the
key that marks the journal batches this machine wrote.

A repository can carry any file (docs/security.md), so whatever widens what Lorekeeper reads as memory,
or lets it replay a journal without asking, must come from here: a place no ``git clone`` writes.

- Settings: ``$LORE_CONFIG_DIR/config.toml``, else ``$XDG_CONFIG_HOME/lorekeeper/config.toml``, else
  ``~/.config/lorekeeper/config.toml`` (``%APPDATA%\\lorekeeper`` on Windows). Same sections as
  ``.lore/config.toml``; read once per process.
- State: ``$LORE_STATE_DIR``, else ``$XDG_STATE_HOME/lorekeeper``, else ``~/.local/state/lorekeeper``
  (``%LOCALAPPDATA%\\lorekeeper`` on Windows). Holds ``journal.key``, 32 random bytes readable by the
  user only, made on first use.
- Caches of workspaces that have no ``.lore/`` folder: ``$LORE_CACHE_DIR``, else
  ``$XDG_CACHE_HOME/lorekeeper``, else ``~/.cache/lorekeeper``, under ``workspaces/NAME-HASH``: opening a
  repository nobody initialised writes nothing into it."""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import secrets
import sys
import time
import tomllib
from functools import cache
from pathlib import Path
from typing import Any

from .safeio import read_bytes, read_text

log = logging.getLogger("lorekeeper.infra.userlevel")

_KEY_NAME = "journal.key"
_KEY_BYTES = 32


def _base(env: str, xdg: str, fallback: str, windows: str) -> Path:
    explicit = os.environ.get(env)
    if explicit:
        return Path(explicit)
    if sys.platform == "win32" and os.environ.get(windows):
        return Path(os.environ[windows]) / "lorekeeper"
    xdg_dir = os.environ.get(xdg)
    if xdg_dir and os.path.isabs(xdg_dir):
        return Path(xdg_dir) / "lorekeeper"
    return Path.home() / fallback / "lorekeeper"


def config_dir() -> Path:
    """The folder of the user's own settings file."""
    return _base("LORE_CONFIG_DIR", "XDG_CONFIG_HOME", ".config", "APPDATA")


def state_dir() -> Path:
    """The folder of Lorekeeper's per-user state (the journal key)."""
    return _base("LORE_STATE_DIR", "XDG_STATE_HOME", ".local/state", "LOCALAPPDATA")


def cache_dir() -> Path:
    """The folder of Lorekeeper's caches for workspaces that have no ``.lore/`` of their own."""
    return _base("LORE_CACHE_DIR", "XDG_CACHE_HOME", ".cache", "LOCALAPPDATA")


def workspace_cache(root: Path) -> Path:
    """The cache folder of a workspace that has no ``.lore/``: under :func:`cache_dir`, named by the
    workspace folder's name and a hash of its real path (two clones never share one)."""
    real = os.path.realpath(root)
    digest = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    name = "".join(c if c.isalnum() or c in "._-" else "_" for c in os.path.basename(real))[:40] or "root"
    return cache_dir() / "workspaces" / f"{name}-{digest}"


def user_settings() -> tuple[dict[str, Any], list[str]]:
    """The user's settings file as a table of sections, and problems reading it (a missing file is no
    settings and no problem). Read once per process and per folder."""
    return _read_settings(str(config_dir()))


@cache
def _read_settings(folder: str) -> tuple[dict[str, Any], list[str]]:
    path = Path(folder) / "config.toml"
    if not path.is_file():
        return {}, []
    try:
        return tomllib.loads(read_text(path, 1024 * 1024, Path(folder))), []
    except (OSError, ValueError, RecursionError) as exc:
        return {}, [f"{path}: {exc}; your own settings are not used"]


def journal_key() -> bytes | None:
    """This user's journal key, made on first use; ``None`` when the state folder cannot hold one (then
    no batch is trusted for automatic replay, see :func:`sign`)."""
    return _key(str(state_dir()))


@cache
def _key(folder: str) -> bytes | None:
    root = Path(folder)
    path = root / _KEY_NAME
    try:
        root.mkdir(parents=True, exist_ok=True, mode=0o700)
        try:  # O_EXCL: of two processes making it at once, one writes it and both read the same key
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        except FileExistsError:
            pass
        else:
            with os.fdopen(fd, "wb") as handle:
                handle.write(secrets.token_bytes(_KEY_BYTES))
                handle.flush()
                os.fsync(handle.fileno())
        data = read_bytes(path, 4096, root)
        for _ in range(100):  # another process made it a moment ago and is writing it
            if data:
                break
            time.sleep(0.01)
            data = read_bytes(path, 4096, root)
    except OSError as exc:
        log.warning("no journal key in %s (%s): an interrupted change is rolled back only by `lore recover`",
                    root, exc)
        return None
    return data if len(data) == _KEY_BYTES else None


def sign(payload: bytes) -> str | None:
    """A MAC of ``payload`` under this user's journal key (``None`` without a key). Only a process of this
    user on this machine can make one; a file that arrived through git cannot carry a valid one."""
    key = journal_key()
    return hmac.new(key, payload, hashlib.sha256).hexdigest() if key else None


def signed_by_me(payload: bytes, mac: object) -> bool:
    """Whether ``mac`` is this user's MAC of ``payload``."""
    expected = sign(payload)
    return isinstance(mac, str) and expected is not None and hmac.compare_digest(expected, mac)
