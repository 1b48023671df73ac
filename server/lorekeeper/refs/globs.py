"""Globs as agents and memories write them (minimatch style: ``*`` within a folder, ``**`` across folders,
braces, dot files), compiled once."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from wcmatch import glob as wcglob

#: How globs are matched: ``**`` crosses folders, braces expand, dot files match, ``*`` stays in one folder.
GLOB_FLAGS = wcglob.GLOBSTAR | wcglob.BRACE | wcglob.DOTGLOB


@lru_cache(maxsize=1024)
def matcher(patterns: tuple[str, ...]) -> Any:
    """The patterns compiled once (``.match(path)``), read from the root (``./`` and ``/`` dropped)."""
    return wcglob.compile([p.removeprefix("./").lstrip("/") for p in patterns], flags=GLOB_FLAGS)


def any_match(path: str, patterns: list[str]) -> str | None:
    """The first pattern that matches ``path``."""
    if not patterns or not matcher(tuple(patterns)).match(path):
        return None
    return next((p for p in patterns if matcher((p,)).match(path)), None)
