"""Shared fixtures; the helpers live in support.py (importable from every test folder)."""

from __future__ import annotations

from pathlib import Path

import pytest

from support import Tree


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    root = tmp_path / "ws"
    root.mkdir()
    return Tree(root)
