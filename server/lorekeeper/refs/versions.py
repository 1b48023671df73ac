# pyright: standard
"""Versions a project declares for its language, runtime or package manager (go.mod, .nvmrc, engines,
.python-version, requires-python, rust-toolchain, rust-version, package.json's packageManager), and whether a
version a memory states matches one."""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable
from pathlib import PurePosixPath
from typing import Any

_VERSION = re.compile(r"(\d+(?:\.\d+)*)")


def _first_line(data: bytes) -> str | None:
    for line in data.decode("utf-8", "replace").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            return line.strip()
    return None


def _gomod(data: bytes) -> str | None:
    text = data.decode("utf-8", "replace")
    match = re.search(r"^go\s+(\d+(?:\.\d+)*)", text, re.M)
    return match.group(1) if match else None


def _toml(data: bytes, *keys: tuple[str, ...]) -> str | None:
    try:
        doc: Any = tomllib.loads(data.decode("utf-8", "replace"))
    except (tomllib.TOMLDecodeError, RecursionError):
        return None
    for path in keys:
        node = doc
        for key in path:
            node = node.get(key) if isinstance(node, dict) else None
        if isinstance(node, str):
            return node
    return None


def _package_json(data: bytes) -> dict[str, Any] | None:
    try:
        doc = json.loads(data.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return None
    return doc if isinstance(doc, dict) else None


def _package_json_node(data: bytes) -> str | None:
    doc = _package_json(data)
    if doc is None:
        return None
    for table, key in (("volta", "node"), ("engines", "node")):
        value = doc.get(table, {}).get(key) if isinstance(doc.get(table), dict) else None
        if isinstance(value, str):
            return value
    return None


def _package_manager(name: str) -> Callable[[bytes], str | None]:
    """The version package.json pins for a package manager: ``"packageManager": "pnpm@10.23.0+sha512…"``
    (Corepack's field), else ``engines``."""

    def parse(data: bytes) -> str | None:
        doc = _package_json(data)
        if doc is None:
            return None
        pinned = doc.get("packageManager")
        if isinstance(pinned, str) and pinned.startswith(name + "@"):
            return pinned[len(name) + 1:].split("+", 1)[0]
        engines = doc.get("engines")
        value = engines.get(name) if isinstance(engines, dict) else None
        return value if isinstance(value, str) else None

    return parse


def _tool_versions(tool: str) -> Callable[[bytes], str | None]:
    def parse(data: bytes) -> str | None:
        for line in data.decode("utf-8", "replace").splitlines():
            parts = line.split()
            if len(parts) >= 2 and parts[0] == tool:
                return parts[1]
        return None

    return parse


#: Where each runtime's version is declared, most specific first.
SOURCES: dict[str, list[tuple[str, Callable[[bytes], str | None]]]] = {
    "go": [("go.mod", _gomod)],
    "node": [(".nvmrc", _first_line), (".node-version", _first_line), ("package.json", _package_json_node),
             (".tool-versions", _tool_versions("nodejs"))],
    "python": [(".python-version", _first_line),
               ("pyproject.toml", lambda d: _toml(d, ("project", "requires-python"), ("tool", "poetry", "dependencies", "python"))),
               (".tool-versions", _tool_versions("python"))],
    **{pm: [("package.json", _package_manager(pm)), (".tool-versions", _tool_versions(pm))] for pm in ("pnpm", "yarn", "bun", "npm")},
    "rust": [("rust-toolchain.toml", lambda d: _toml(d, ("toolchain", "channel"))), ("rust-toolchain", _first_line),
             ("Cargo.toml", lambda d: _toml(d, ("package", "rust-version"), ("workspace", "package", "rust-version")))],
}


#: Libraries memories state versions of ("React 18.3", "Vite 7"), by the name they are written with, and the
#: npm package that declares it.
LIBRARIES = {
    "react": "react", "vite": "vite", "typescript": "typescript", "next.js": "next", "nextjs": "next", "vue": "vue",
    "svelte": "svelte", "sveltekit": "@sveltejs/kit", "angular": "@angular/core", "tailwind": "tailwindcss",
    "tailwind css": "tailwindcss", "tailwindcss": "tailwindcss", "express": "express", "astro": "astro",
    "nuxt": "nuxt", "vitest": "vitest", "jest": "jest", "electron": "electron", "prisma": "prisma", "zod": "zod",
    "playwright": "@playwright/test", "eslint": "eslint", "storybook": "storybook", "webpack": "webpack",
    "remix": "@remix-run/react",
}


def _package_json_dependency(package: str) -> Callable[[bytes], str | None]:
    """The version range package.json gives ``package`` (dependencies, then dev, peer, optional)."""

    def parse(data: bytes) -> str | None:
        doc = _package_json(data)
        if doc is None:
            return None
        for table in ("dependencies", "devDependencies", "peerDependencies", "optionalDependencies"):
            deps = doc.get(table)
            value = deps.get(package) if isinstance(deps, dict) else None
            if isinstance(value, str) and not value.startswith(("workspace:", "catalog:", "file:", "link:", "npm:")):
                return value
        return None

    return parse


def folders_up(base: str) -> list[str]:
    """``a/b`` -> ``["a/b", "a", ""]``."""
    out = []
    folder = PurePosixPath(base) if base else None
    while folder is not None and str(folder) not in (".", ""):
        out.append(str(folder))
        folder = folder.parent
    return out + [""]


def declared_version(tool: str, base: str, nearest: Callable[[tuple[str, ...], str], str | None],
                     read: Callable[[str], bytes | None]) -> tuple[str, str] | None:
    """The file and version string a project declares for ``tool`` (the nearest declaring file from
    ``base`` up), or ``None``."""
    sources = SOURCES.get(tool, [])
    if tool.startswith("npm:"):
        sources = [("package.json", _package_json_dependency(tool[4:]))]
    for name, parse in sources:
        path = nearest((name,), base)
        if path is None:
            continue
        data = read(path)
        value = parse(data) if data is not None else None
        if value and _VERSION.search(value):
            return path, value.strip()
    return None


#: More package.json files than this, and a library no manifest up from the memory declares is not looked
#: for in the others.
PACKAGES_MAX = 400


def declared_in_packages(tool: str, paths: list[str], read: Callable[[str], bytes | None]) -> tuple[list[str], str] | None:
    """The package.json files of ``paths`` (a workspace's packages) that give the library ``tool``
    (``npm:react``) a version, and that version, where they all give the same one (`"^18.3.1"` in
    `web/package.json` for a memory at the root); ``None`` where none does or they differ (which of
    them a memory means is not known)."""
    if not tool.startswith("npm:") or len(paths) > PACKAGES_MAX:
        return None
    parse = _package_json_dependency(tool[4:])
    found = [(path, value.strip()) for path in paths if (data := read(path)) is not None and (value := parse(data))
             and _VERSION.search(value)]
    versions = {m.group(1) for _, value in found if (m := _VERSION.search(value))}
    if len(versions) != 1:
        return None
    return [path for path, _ in found], found[0][1]


def patch_behind(stated: str, declared: str) -> bool:
    """Whether a stated version that no longer matches a declaration differs from it in its patch part
    alone: "2.17.4" against "2.17.5" (the same release line, a newer patch), never "2.1" against
    "2.17.5" nor "1.24" against "1.25.12"."""
    found = _VERSION.search(declared)
    want = stated.split(".")
    if not found or len(want) < 3:
        return False
    have = found.group(1).split(".")
    return len(have) >= 3 and [int(x) for x in want[:2]] == [int(x) for x in have[:2]]


def version_matches(stated: str, declared: str) -> bool:
    """Whether a stated version ("1.24", "20") agrees with a declaration ("1.24.2", ">=20", "v20.11.0"):
    equal in every part the statement gives. A declaration without a number ("stable") matches."""
    found = _VERSION.search(declared)
    if not found:
        return True
    want = stated.split(".")
    have = found.group(1).split(".")
    have += ["0"] * (len(want) - len(have))
    return all(int(a) == int(b) for a, b in zip(want, have, strict=False))
