"""Shared fixtures; the helpers live in support.py (importable from every test folder)."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from support import Tree

# The user's own settings, journal key and caches (lorekeeper.infra.userlevel) live in folders of this run, never in the
# home folder of whoever runs the tests; every subprocess a test starts inherits them.
_USER_LEVEL = Path(tempfile.mkdtemp(prefix="lore-tests-user-"))
os.environ.setdefault("LORE_CONFIG_DIR", str(_USER_LEVEL / "config"))
os.environ.setdefault("LORE_STATE_DIR", str(_USER_LEVEL / "state"))
os.environ.setdefault("LORE_CACHE_DIR", str(_USER_LEVEL / "cache"))
atexit.register(shutil.rmtree, _USER_LEVEL, True)


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    root = tmp_path / "ws"
    root.mkdir()
    return Tree(root)
