# pyright: standard
"""Definitions files and the names they define: package.json scripts and dependency executables,
Makefile targets (includes, pattern rules), justfile recipes (parameters, aliases, imports, modules),
pyproject.toml console scripts and task runners (project, Poetry, PDM, Hatch environments, Rye, poe,
taskipy), its extras and dependency groups (``extra:NAME``, ``group:NAME``) and the executables of its
dependencies.

Parsing is pure (bytes in, :class:`Manifest` out) so that the same code reads a manifest today and as
it was at a memory's baseline commit."""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

PACKAGE_JSON = ("package.json",)
MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
JUSTFILES = ("justfile", "Justfile", ".justfile", "JUSTFILE")
PYPROJECT = ("pyproject.toml",)
#: Task's (taskfile.dev) files, in the order `task` looks for them.
TASKFILES = ("Taskfile.yml", "taskfile.yml", "Taskfile.yaml", "taskfile.yaml", "Taskfile.dist.yml", "taskfile.dist.yml",
             "Taskfile.dist.yaml", "taskfile.dist.yaml")
#: tox's own configuration files (a pyproject.toml's ``[tool.tox]`` and setup.cfg's ``[tox:tox]`` are not read:
#: where one of those holds the environments, no tox file is found and nothing is judged).
TOX_FILES = ("tox.ini", "tox.toml")
#: Manifest file names by reference kind.
FILES_FOR_KIND = {"script": PACKAGE_JSON, "make": MAKEFILES, "just": JUSTFILES, "console": PYPROJECT,
                  "extra": PYPROJECT, "group": PYPROJECT, "task": TASKFILES, "tox": TOX_FILES}

#: Executables whose name differs from their package's (the rest are assumed to be named as the
#: package, scope dropped: ``@scope/tool`` -> ``tool``).
PACKAGE_BINARIES: dict[str, tuple[str, ...]] = {
    "typescript": ("tsc", "tsserver"), "@playwright/test": ("playwright",), "@biomejs/biome": ("biome",),
    "@changesets/cli": ("changeset",), "@angular/cli": ("ng",), "@vue/cli": ("vue",), "@nestjs/cli": ("nest",),
    "@sveltejs/kit": ("svelte-kit",), "webpack-cli": ("webpack",), "@storybook/cli": ("sb", "storybook"),
    "storybook": ("storybook", "sb"), "@nx/workspace": ("nx",), "nx": ("nx",), "@microsoft/api-extractor": ("api-extractor",),
    "@vitest/coverage-v8": (), "@tauri-apps/cli": ("tauri",), "@expo/cli": ("expo",), "expo": ("expo",),
    "react-scripts": ("react-scripts",), "@graphql-codegen/cli": ("graphql-codegen",), "prisma": ("prisma",),
    "@redocly/cli": ("redocly",), "@stoplight/spectral-cli": ("spectral",), "@commitlint/cli": ("commitlint",),
    "@electron-forge/cli": ("electron-forge",), "wrangler": ("wrangler",), "@cloudflare/workers-types": (),
    "ts-node": ("ts-node", "ts-node-esm"), "@swc/cli": ("swc",), "@babel/cli": ("babel",), "sass": ("sass",),
    "@tailwindcss/cli": ("tailwindcss",), "tailwindcss": ("tailwindcss",), "mocha": ("mocha", "_mocha"),
    "vite-node": ("vite-node",), "@astrojs/check": ("astro",), "svelte-check": ("svelte-check",),
    "vue-tsc": ("vue-tsc",), "npm-run-all": ("npm-run-all", "run-s", "run-p"), "npm-run-all2": ("npm-run-all", "run-s", "run-p"),
}
PYTHON_BINARIES: dict[str, tuple[str, ...]] = {
    "pytest": ("pytest", "py.test"), "mypy": ("mypy", "dmypy", "stubgen", "stubtest"), "sphinx": ("sphinx-build", "sphinx-apidoc", "sphinx-autogen"),
    "django": ("django-admin",), "build": ("pyproject-build",), "pre-commit": ("pre-commit",),
    "jupyter": ("jupyter",), "jupyterlab": ("jupyter", "jupyter-lab"), "ipython": ("ipython",), "pyright": ("pyright", "pyright-langserver"),
    "basedpyright": ("basedpyright",), "coverage": ("coverage",), "pytest-cov": (), "black": ("black", "blackd"),
    "maturin": ("maturin",), "mkdocs": ("mkdocs",), "mkdocs-material": ("mkdocs",), "uvicorn": ("uvicorn",),
    "gunicorn": ("gunicorn",), "alembic": ("alembic",), "celery": ("celery",), "twine": ("twine",),
    "pip-tools": ("pip-compile", "pip-sync"), "nox": ("nox",), "tox": ("tox",), "hatch": ("hatch",),
    "poethepoet": ("poe",), "taskipy": ("task",), "griffe": ("griffe",), "codespell": ("codespell",),
    "datamodel-code-generator": ("datamodel-codegen",), "grpcio-tools": (), "fastapi": ("fastapi",),
    "fastapi-cli": ("fastapi",), "scalene": ("scalene",), "py-spy": ("py-spy",), "inline-snapshot": (),
    "pyinstrument": ("pyinstrument",), "ty": ("ty",), "pip-audit": ("pip-audit",), "bump-my-version": ("bump-my-version",),
    "commitizen": ("cz",), "towncrier": ("towncrier",), "deptry": ("deptry",), "vulture": ("vulture",),
}
#: Tools commonly run through a package manager without being a dependency of the project.
WELL_KNOWN_TOOLS = frozenset(
    "python python3 pip pip3 uv uvx pytest ruff mypy pyright black isort flake8 pylint pre-commit coverage tox nox"
    " node npx tsx tsc eslint prettier vitest jest playwright biome turbo nx vite next astro svelte-kit wrangler"
    " ts-node esbuild rollup webpack tailwindcss changeset husky lint-staged prisma drizzle-kit knip tsup".split()
)
_PEP508_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
#: Build and environment tools that run only where a file of theirs is (Bazel's ``MODULE.bazel``, Tilt's
#: ``Tiltfile``): a memory that runs one in a repository that no longer has any such file runs nothing.
TOOL_PROJECT_FILES: dict[str, tuple[str, ...]] = {
    "bazel": ("MODULE.bazel", "WORKSPACE", "WORKSPACE.bazel"),
    "bazelisk": ("MODULE.bazel", "WORKSPACE", "WORKSPACE.bazel"),
    "tilt": ("Tiltfile",), "skaffold": ("skaffold.yaml", "skaffold.yml"), "earthly": ("Earthfile",),
    "pants": ("pants.toml",), "buck2": (".buckconfig",), "vagrant": ("Vagrantfile",), "devbox": ("devbox.json",),
    "helmfile": ("helmfile.yaml", "helmfile.yaml.gotmpl", "helmfile.d"),
    # the commands of a Python project manager that work on the project (not `uv run`, `uv pip`, `uvx`)
    **{f"uv {sub}": ("pyproject.toml",) for sub in ("sync", "lock", "add", "remove", "tree", "export")},
    **{f"poetry {sub}": ("pyproject.toml",) for sub in ("install", "lock", "add", "remove", "update", "shell")},
}


@dataclass
class Manifest:
    """A definitions file and what it defines: names (with their 1-based line span, for fingerprints),
    the executables of its dependencies, other files it includes, name patterns (make pattern rules),
    and whether some names cannot be known without running the tool (``dynamic``)."""

    path: str
    names: dict[str, tuple[int, int]] = field(default_factory=dict)
    binaries: set[str] = field(default_factory=set)
    includes: list[str] = field(default_factory=list)
    patterns: list[re.Pattern[str]] = field(default_factory=list)
    dynamic: bool = False
    package_name: str | None = None
    data: Any = None
    #: A Taskfile's included Taskfiles by namespace (``test`` -> ``./taskfiles/test.yml``), as written.
    namespaces: dict[str, str] = field(default_factory=dict)
    #: Those namespaces whose tasks are run without it (``flatten: true``).
    flattened: set[str] = field(default_factory=set)
    #: The namespace an included Taskfile's tasks are run under (``test:``): ``task test:unit``.
    prefix: str = ""
    #: Pattern rules made only when the command asks for one of some goals (unkey's catch-all ``%:`` under
    #: ``ifneq ($(filter unkey,$(MAKECMDGOALS)),)``, which swallows the arguments of ``make unkey dev seed``):
    #: each pattern with those goals.
    guarded: list[tuple[re.Pattern[str], frozenset[str]]] = field(default_factory=list)

    def defines(self, name: str, goals: Collection[str] = ()) -> bool:
        """Whether the file defines ``name``; ``goals``: the other names the same command asks for (``make
        unkey dev``), which a rule made for one of them may take."""
        if self.prefix:
            if name == self.prefix[:-1]:
                name = "default"  # `task test` runs the namespace's default task
            elif name.startswith(self.prefix):
                name = name[len(self.prefix):]
            else:
                return False
        return name in self.names or any(p.fullmatch(name) for p in self.patterns) \
            or any(p.fullmatch(name) for p, needs in self.guarded if not needs.isdisjoint(goals))


def kind_of(path: str) -> str | None:
    name = path.rsplit("/", 1)[-1]
    return next((kind for kind, names in FILES_FOR_KIND.items() if name in names), None)


def parse_manifest(path: str, data: bytes, kind: str | None = None) -> Manifest | None:
    """Parse a package.json, Makefile, justfile, Taskfile, tox file or pyproject.toml (``kind``, else known by the
    file's name: a Taskfile another includes may have any name); ``None`` if it cannot be parsed."""
    text = data.decode("utf-8", "replace")
    kind = kind or kind_of(path)
    if kind == "script":
        return _package_json(path, text)
    if kind == "make" or path.endswith(".mk"):
        return _makefile(path, text)
    if kind == "just" or path.endswith(".just"):
        return _justfile(path, text)
    if kind == "task":
        return _taskfile(path, text)
    if kind == "tox":
        return _toxfile(path, text)
    if kind == "console":
        return _pyproject(path, text)
    return None


def _line_of(text: str, needle: str) -> int:
    index = text.find(needle)
    return text.count("\n", 0, index) + 1 if index >= 0 else 1


# -- package.json ----------------------------------------------------------------------------------

def _package_json(path: str, text: str) -> Manifest | None:
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return None
    manifest = Manifest(path, data=data)
    if not isinstance(data, dict):
        return manifest
    scripts = data.get("scripts")
    for script in scripts if isinstance(scripts, dict) else {}:
        line = _line_of(text, f'"{script}"')
        manifest.names[script] = (line, line)
    name = data.get("name")
    manifest.package_name = name if isinstance(name, str) else None
    for table in ("dependencies", "devDependencies", "peerDependencies", "optionalDependencies"):
        deps = data.get(table)
        for dep in deps if isinstance(deps, dict) else {}:
            manifest.binaries.update(node_binaries(dep))
    bins = data.get("bin")
    if isinstance(bins, dict):
        manifest.binaries.update(k for k in bins if isinstance(k, str))
    elif isinstance(bins, str) and manifest.package_name:
        manifest.binaries.add(manifest.package_name.rsplit("/", 1)[-1])
    return manifest


def node_binaries(package: str) -> tuple[str, ...]:
    """The executables an npm package is expected to install."""
    known = PACKAGE_BINARIES.get(package)
    if known is not None:
        return known
    return (package.rsplit("/", 1)[-1],)


# -- Makefile -------------------------------------------------------------------------------------

#: A rule's line: its targets (up to the colon, without the whitespace before it: taken only where more
#: targets follow, possessively, so that a line is read once), its colon or two, the rest.
_MAKE_RULE = re.compile(r"^(?P<targets>[^\s:=#](?:[^:=#\s]|\s++(?=[^:=#\s]))*+)\s*(?P<colons>::?)(?!=)(?P<rest>.*)$")
_MAKE_INCLUDE = re.compile(r"^\s*-?(?:include|sinclude)\s+(.+)$")
_MAKE_ASSIGN = re.compile(r"^\s*(?:export\s+|override\s+)?[A-Za-z_][\w.]*\s*(?:\?|\+|::?|!)?=")
_MAKE_IF = re.compile(r"^\s*(?:else\s+)?(?:ifeq|ifneq|ifdef|ifndef)\b(?P<condition>.*)$")
#: A condition that holds when the command asks for one of some goals: ``ifneq ($(filter a b,$(MAKECMDGOALS)),)``.
_MAKE_GOALS_ASKED = re.compile(r"^\s*ifneq\s*\(\s*\$\(filter\s+(?P<goals>[\w.\-]+(?: [\w.\-]+)*)\s*,\s*\$\(MAKECMDGOALS\)\s*\)\s*,\s*\)\s*$")


def _makefile(path: str, text: str) -> Manifest:
    manifest = Manifest(path)
    lines = text.splitlines()
    i = 0
    in_define = False
    # the conditionals the line is in: for each, the goals one of which it asks for (None: another condition,
    # or the branch where they were not asked for)
    conditions: list[frozenset[str] | None] = []
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if not line.startswith("\t") and not in_define:
            opened = _MAKE_IF.match(line)
            if opened or stripped == "else" or stripped.startswith("else "):
                if not opened or stripped.startswith("else"):
                    conditions = conditions[:-1]  # another branch of the same conditional
                asked = _MAKE_GOALS_ASKED.match(line) if opened and not stripped.startswith("else") else None
                conditions.append(frozenset(asked.group("goals").split()) if asked else None)
                i += 1
                continue
            if stripped == "endif" or stripped.startswith(("endif ", "endif#")):
                conditions = conditions[:-1]
                i += 1
                continue
        if in_define:
            in_define = not stripped.startswith("endef")
            i += 1
            continue
        if stripped.startswith("define "):
            in_define = True
            i += 1
            continue
        include = _MAKE_INCLUDE.match(line)
        if include and not line.startswith("\t"):
            for item in include.group(1).split():
                if "$" in item or "*" in item:
                    manifest.dynamic = True
                else:
                    manifest.includes.append(item)
            i += 1
            continue
        if line.startswith("\t") or not stripped or stripped.startswith("#") or _MAKE_ASSIGN.match(line):
            i += 1
            continue
        rule = _MAKE_RULE.match(line)
        if not rule:
            i += 1
            continue
        end = i
        while end + 1 < len(lines) and (lines[end + 1].startswith("\t") or (lines[end].endswith("\\"))):
            end += 1
        targets = rule.group("targets").split()
        if targets and targets[0] == ".PHONY":
            for name in rule.group("rest").split():
                if "$" not in name:
                    manifest.names.setdefault(name, (i + 1, i + 1))
        for name in targets:
            if "$" in name:
                manifest.dynamic = True
            elif "%" in name:
                # Only the first "%" is the stem (make's rule; the others are plain characters), so a
                # pattern holds one ".+" whatever the Makefile writes: matched in linear time.
                pattern = re.compile(re.escape(name).replace("%", ".+", 1))
                asked = next((goals for goals in reversed(conditions) if goals is not None), None)
                if asked is not None and None not in conditions:
                    manifest.guarded.append((pattern, asked))  # made only for those goals
                else:
                    manifest.patterns.append(pattern)
            elif not name.startswith("."):
                manifest.names[name] = (i + 1, end + 1)
        i = end + 1
    return manifest


# -- justfile -------------------------------------------------------------------------------------

_JUST_NAME = re.compile(r"^@?([A-Za-z_][A-Za-z0-9_-]*)")
_JUST_ALIAS = re.compile(r"^alias\s+([A-Za-z_][A-Za-z0-9_-]*)\s*:=")
_JUST_IMPORT = re.compile(r"""^import\??\s+['"]([^'"]+)['"]""")
_JUST_MOD = re.compile(r"""^mod\??\s+([A-Za-z_][A-Za-z0-9_-]*)(?:\s+['"]([^'"]+)['"])?""")


def _just_header_end(line: str, start: int) -> int | None:
    """The index of the ``:`` that ends a recipe header (parameters may hold quoted defaults), or
    ``None`` when the line is not a recipe header (an assignment ``:=``, a setting)."""
    quote = ""
    depth = 0
    i = start
    while i < len(line):
        c = line[i]
        if quote:
            if c == quote:
                quote = ""
        elif c in "'\"`":
            quote = c
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == ":" and depth == 0:
            return None if line[i + 1 : i + 2] == "=" else i
        elif c == "#" and depth == 0:
            return None
        i += 1
    return None


def _justfile(path: str, text: str) -> Manifest:
    manifest = Manifest(path)
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip() or line[0] in " \t" or line.startswith(("#", "[")):
            i += 1
            continue
        alias = _JUST_ALIAS.match(line)
        imported = _JUST_IMPORT.match(line)
        module = _JUST_MOD.match(line)
        if alias:
            manifest.names.setdefault(alias.group(1), (i + 1, i + 1))
            i += 1
            continue
        if imported:
            manifest.includes.append(imported.group(1))
            i += 1
            continue
        if module and not line.startswith(("mod:", "mod :")):
            manifest.names.setdefault(module.group(1), (i + 1, i + 1))
            i += 1
            continue
        if line.startswith(("set ", "export ")):
            i += 1
            continue
        name = _JUST_NAME.match(line)
        if name and _just_header_end(line, name.end()) is not None:
            end = i
            while end + 1 < len(lines) and (lines[end + 1][:1] in (" ", "\t") or not lines[end + 1].strip()):
                end += 1
            while end > i and not lines[end].strip():
                end -= 1
            manifest.names.setdefault(name.group(1), (i + 1, end + 1))
            i = end + 1
            continue
        i += 1
    return manifest


# -- Taskfile.yml ---------------------------------------------------------------------------------

_YAML_ALIASES = re.compile(r"^ +aliases\s*:\s*(?:\[(?P<flow>[^\]]*)\])?\s*(?:#.*)?$")
_YAML_ITEM = re.compile(r"^ +-\s+['\"]?([\w:.-]+)['\"]?\s*(?:#.*)?$")


def _yaml_key(line: str) -> tuple[int, str] | None:
    """The indent and key of a YAML mapping line (``  lint:fix:`` -> ``(2, "lint:fix")``), else ``None``."""
    text = line.lstrip(" ")
    depth = len(line) - len(text)
    if text[:1] in ("'", '"'):
        close = text.find(text[0], 1)
        return (depth, text[1:close]) if close > 0 and text[close + 1:].lstrip().startswith(":") else None
    cut = text.find(": ")
    key = text[:cut] if cut >= 0 else text.rstrip()[:-1] if text.rstrip().endswith(":") else ""
    if not key or key[0] in "-#[{&*!|>%@`" or any(c.isspace() for c in key) or "#" in key:
        return None
    return depth, key


def _yaml_value(line: str) -> str | None:
    """The plain scalar a ``key: value`` line gives (quotes and a trailing comment dropped), else ``None``."""
    cut = line.find(": ")
    value = line[cut + 2:].strip() if cut >= 0 else ""
    if value[:1] in ("'", '"'):
        close = value.find(value[0], 1)
        value = value[1:close] if close > 0 else ""
    else:
        value = value.split(" #", 1)[0].strip()
    return value if value and value[0] not in "{[|>&*!" else None


def _taskfile(path: str, text: str) -> Manifest:
    """A Taskfile's tasks (and their aliases), read line by line: the keys of ``tasks:``, one indent in.
    Tasks of included Taskfiles are named under their namespace (``test:unit``): the Taskfile each
    namespace includes (``test: ./taskfiles/test.yml``, or its ``taskfile:`` key) is recorded and read by
    the index; a namespace whose Taskfile cannot be known (a template, a URL) defines every name in it."""
    manifest = Manifest(path)
    lines = text.splitlines()
    section: str | None = None
    indent: int | None = None
    current: str | None = None
    in_aliases = False
    namespaces: list[str] = []
    for i, line in enumerate(lines):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        found = _yaml_key(line)
        if not line[0].isspace():
            section, indent, current, in_aliases = (found[1] if found else None), None, None, False
            continue
        if section not in ("tasks", "includes"):
            continue
        if found and (indent is None or found[0] == indent):
            indent, name = found
            in_aliases = False
            if "{{" in name:
                manifest.dynamic = True
            elif section == "tasks":
                manifest.names[name] = (i + 1, i + 1)
                current = name
            else:
                current = name
                namespaces.append(name)
                included = _yaml_value(line)
                if included:
                    manifest.namespaces[name] = included
            continue
        if section == "includes" and current is not None and indent is not None:
            key = _yaml_key(line)
            if key and key[0] > indent and key[1] == "taskfile" and (included := _yaml_value(line)):
                manifest.namespaces[current] = included
            elif key and key[0] > indent and key[1] == "flatten" and _yaml_value(line) == "true":
                manifest.flattened.add(current)
            continue
        if section != "tasks" or current is None or indent is None:
            continue
        depth = len(line) - len(line.lstrip(" "))
        if depth <= indent:
            continue
        manifest.names[current] = (manifest.names[current][0], i + 1)
        aliases = _YAML_ALIASES.match(line)
        if aliases:
            in_aliases = aliases.group("flow") is None
            for alias in (aliases.group("flow") or "").split(","):
                if alias.strip().strip("'\""):
                    manifest.names.setdefault(alias.strip().strip("'\""), manifest.names[current])
            continue
        item = _YAML_ITEM.match(line) if in_aliases else None
        if item:
            manifest.names.setdefault(item.group(1), manifest.names[current])
        else:
            in_aliases = False
    for name in namespaces:  # a Taskfile that cannot be known here: every name in its namespace counts
        included = manifest.namespaces.get(name)
        if included is None or "{{" in included or "://" in included or included.startswith(("/", "~")):
            manifest.namespaces.pop(name, None)
            manifest.patterns.append(re.compile(re.escape(name) + r":.*"))
    return manifest


# -- tox ------------------------------------------------------------------------------------------

_TOX_SECTION = re.compile(r"^\[testenv:([^\]]+)\]\s*$")
_TOX_LIST_KEY = re.compile(r"^(?:envlist|env_list)\s*=\s*(.*)$")
_BRACES = re.compile(r"\{([^{}]*)\}")
#: Environments tox makes from a Python factor alone (`py312`, `py3.12`, `pypy3`, `py`), with other
#: factors after it: defined whether the file names them or not.
_PY_FACTOR = re.compile(r"(?:py|pypy|cpython)(?:\d+(?:\.\d+)?)?(?:t)?(?:-[\w.]+)*")


def _expand(name: str, limit: int = 256) -> list[str]:
    """A generative name's environments (`py{311,312}-lint` -> `py311-lint`, `py312-lint`), the first
    ``limit`` of them (a name of many braces makes too many to list; braces within braces are left as
    written)."""
    if len(name) > 200 or name.count("{") > 8:
        return [name]  # (no environment's name: left with its braces, the file's names are not known)
    names, at = [""], 0
    for match in _BRACES.finditer(name):
        between = name[at:match.start()]
        names = [done + between + part.strip() for done in names for part in match.group(1).split(",")][:limit]
        at = match.end()
    return [(done + name[at:]).strip() for done in names]


def _env_names(value: str) -> list[str]:
    """The environments of an ``env_list`` value: comma- or line-separated, braces expanded (commas inside
    braces are the alternatives, not separators)."""
    names: list[str] = []
    depth, current = 0, ""
    for char in value + ",":
        if char == "{":
            depth += 1
        elif char == "}":
            depth = max(0, depth - 1)
        if char in ",\n" and depth == 0:
            if current.strip() and not current.strip().startswith("#"):
                names.extend(_expand(current.strip()))
            current = ""
        else:
            current += char
    return names


def _toxfile(path: str, text: str) -> Manifest | None:
    """tox's environments: `[testenv:NAME]` sections and the ``env_list`` of ``[tox]`` (tox.ini), the
    ``env`` tables and ``env_list`` of a tox.toml; generative names expanded. An environment named by
    factors the file uses (`lint-ci` where `lint` and `ci` are factors of its environments), or by a
    Python factor (`py312`), is defined too: tox makes it from ``[testenv]``."""
    manifest = Manifest(path)
    if path.endswith(".toml"):
        try:
            data = tomllib.loads(text)
        except (tomllib.TOMLDecodeError, RecursionError):
            return None
        envs = data.get("env")
        listed = data.get("env_list")
        names = [*(envs if isinstance(envs, dict) else {}),
                 *(e for e in (listed if isinstance(listed, list) else []) if isinstance(e, str))]
        for name in names:
            for env in _expand(name):
                line = _line_of(text, f"env.{name}") if f"env.{name}" in text else _line_of(text, name)
                manifest.names.setdefault(env, (line, line))
    else:
        lines = text.splitlines()
        section = ""
        i = 0
        while i < len(lines):
            line = lines[i]
            stripped = line.strip()
            if stripped.startswith("["):
                section = stripped
                match = _TOX_SECTION.match(stripped)
                if match:
                    for env in _env_names(match.group(1)):
                        manifest.names.setdefault(env, (i + 1, i + 1))
                i += 1
                continue
            listed = _TOX_LIST_KEY.match(line) if section in ("[tox]", "[tox:tox]") else None
            if listed:
                value, start = listed.group(1), i
                while i + 1 < len(lines) and lines[i + 1][:1] in (" ", "\t") and lines[i + 1].strip():
                    i += 1
                    value += "\n" + lines[i].strip()
                for env in _env_names(value):
                    manifest.names.setdefault(env, (start + 1, start + 1))
            i += 1
    if any("{" in name or "$" in name for name in manifest.names):
        manifest.dynamic = True  # (an unclosed brace, a substitution: which names it makes is not known)
    factors = sorted({f for name in manifest.names for f in name.split("-") if f}, key=len, reverse=True)
    manifest.patterns.append(_PY_FACTOR)
    if factors:
        one = "(?:" + "|".join(re.escape(f) for f in factors) + ")"
        manifest.patterns.append(re.compile(f"{one}(?:-{one})*"))
    return manifest


# -- pyproject.toml -------------------------------------------------------------------------------

def _pyproject(path: str, text: str) -> Manifest | None:
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError):
        return None
    manifest = Manifest(path, data=data)
    project = _table(data, "project")
    tool = _table(data, "tool")
    name = project.get("name")
    manifest.package_name = name if isinstance(name, str) else None
    tables = [project.get("scripts"), project.get("gui-scripts"), _table(tool, "poetry").get("scripts"),
              _table(tool, "pdm").get("scripts"), _table(tool, "rye").get("scripts"),
              _table(tool, "poe").get("tasks"), _table(tool, "taskipy").get("tasks")]
    envs = _table(_table(tool, "hatch"), "envs")
    for env_name, env in envs.items():
        scripts = env.get("scripts") if isinstance(env, dict) else None
        tables.append(scripts)
        # an environment's scripts and those of its template's (Hatch: `template = "test"`, else the
        # `default` environment's, unless it is detached), followed up the chain
        chain, at = [], env_name
        while isinstance(at, str) and at not in chain and isinstance(envs.get(at, {}), dict):
            chain.append(at)
            this = envs.get(at, {})
            at = None if this.get("detached") is True else this.get("template", "default" if at != "default" else None)
        for source in chain:
            inherited = envs.get(source, {}).get("scripts")
            for script in inherited if isinstance(inherited, dict) else {}:
                line = _line_of(text, script)
                manifest.names.setdefault(f"{env_name}:{script}", (line, line))
    for table in tables:
        for script in table if isinstance(table, dict) else {}:
            if isinstance(script, str):
                line = _line_of(text, script)
                manifest.names.setdefault(script, (line, line))
    # extras and dependency groups, as `uv sync --extra X` / `--group X` name them
    extras = [*_table(project, "optional-dependencies"), *_table(_table(tool, "poetry"), "extras")]
    groups = [*_table(data, "dependency-groups"), *_table(_table(tool, "poetry"), "group")]
    if _table(tool, "uv").get("dev-dependencies") is not None:
        groups.append("dev")  # uv's legacy dev-dependencies are its group "dev"
    dynamic = project.get("dynamic")
    if isinstance(dynamic, list) and "optional-dependencies" in dynamic:
        manifest.patterns.append(re.compile(r"extra:.*"))  # extras a build backend computes: not judged
    for prefix, names in (("extra", extras), ("group", groups)):
        for extra in names:
            if isinstance(extra, str):
                line = _line_of(text, extra)
                manifest.names.setdefault(f"{prefix}:{normal_extra(extra)}", (line, line))
    for requirement in python_requirements(data):
        match = _PEP508_NAME.match(requirement)
        if match:
            package = match.group(1).lower().replace("_", "-")
            manifest.binaries.update(PYTHON_BINARIES.get(package, (package,)))
    return manifest


def normal_extra(name: str) -> str:
    """An extra's or dependency group's name as the tools compare it (PEP 685): lower case, each run of
    ``-``, ``_`` and ``.`` one ``-``."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _table(data: Any, key: str) -> dict[str, Any]:
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, dict) else {}


def python_requirements(data: dict[str, Any]) -> list[str]:
    project = _table(data, "project")
    tool = _table(data, "tool")
    out: list[str] = []

    def add(items: Any) -> None:
        if isinstance(items, list):
            out.extend(i for i in items if isinstance(i, str))
        elif isinstance(items, dict):  # Poetry: {name = version}
            out.extend(k for k in items if isinstance(k, str))

    add(project.get("dependencies"))
    for group in _table(project, "optional-dependencies").values():
        add(group)
    for group in _table(data, "dependency-groups").values():
        add(group)
    add(_table(tool, "uv").get("dev-dependencies"))
    poetry = _table(tool, "poetry")
    add(poetry.get("dependencies"))
    add(poetry.get("dev-dependencies"))
    for group in _table(poetry, "group").values():
        add(_table(group, "dependencies") if isinstance(group, dict) else None)
    for group in _table(_table(tool, "pdm"), "dev-dependencies").values():
        add(group)
    add(_table(data, "build-system").get("requires"))
    return out
