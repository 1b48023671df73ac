"""The package's layers are enforced, not only written down: scripts/lint fails on an upward import
(import-linter, which reads imports inside functions too), and every import inside a function is one of
the start-up ones docs/development.md lists."""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from support import REPO

PACKAGE = REPO / "server" / "lorekeeper"
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def _lint_imports(package_parent: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(package_parent)}
    return subprocess.run([str(LINT_IMPORTS), "--no-cache", "--config", str(REPO / "pyproject.toml")],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=120)


def test_an_upward_import_fails_the_lint_and_the_tree_passes(tmp_path: Path) -> None:
    assert _lint_imports(REPO / "server").returncode == 0
    copy = tmp_path / "lorekeeper"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    text = copy / "core" / "text.py"
    # An import inside a function, from the vocabulary up into a feature: what the layers forbid.
    text.write_text(text.read_text() + "\n\ndef _upward() -> object:\n    from ..analysis import search\n\n    return search\n")
    proc = _lint_imports(tmp_path)
    assert proc.returncode != 0
    assert "lorekeeper.core is not allowed to import lorekeeper.analysis" in proc.stdout


def _module(path: Path) -> tuple[str, list[str]]:
    """A module's dotted name and its package's parts."""
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    package = parts[-1] == "__init__"
    if package:
        parts = parts[:-1]
    return ".".join(parts), parts if package else parts[:-1]


def imports_inside_functions() -> dict[str, set[str]]:
    """Module -> what it imports inside functions: Lorekeeper modules by their dotted name, other
    packages by their top-level name."""
    found: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name, base = _module(path)
        for function in ast.walk(ast.parse(path.read_text())):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(function):
                targets: list[str] = []
                if isinstance(node, ast.Import):
                    targets = [alias.name.split(".")[0] for alias in node.names]
                elif isinstance(node, ast.ImportFrom):
                    if node.level:
                        parts = base[: len(base) - (node.level - 1)] + ([node.module] if node.module else [])
                        targets = [".".join(parts)]
                    else:
                        module = node.module or ""
                        targets = [module if module.startswith("lorekeeper") else module.split(".")[0]]
                found.setdefault(name, set()).update(targets)
    return {k: v for k, v in found.items() if v}


def documented() -> dict[str, set[str]]:
    """The table of docs/development.md's "Imports inside functions"."""
    text = (REPO / "docs" / "development.md").read_text()
    section = text.split("## Imports inside functions", 1)[1].split("\n## ", 1)[0]
    table: dict[str, set[str]] = {}
    for row in re.findall(r"^\| `([\w.]+)` \| ([^|]+) \|", section, re.M):
        table[row[0]] = set(re.findall(r"`([\w.]+)`", row[1]))
    return table


def test_every_import_inside_a_function_is_a_documented_start_up_one() -> None:
    listed = documented()
    found = imports_inside_functions()
    undocumented = {m: sorted(t - listed.get(m, set())) for m, t in found.items() if t - listed.get(m, set())}
    assert not undocumented, f"imports inside functions not in docs/development.md: {undocumented}"
    stale = {m: sorted(t - found.get(m, set())) for m, t in listed.items() if t - found.get(m, set())}
    assert not stale, f"docs/development.md lists imports inside functions that are gone: {stale}"
