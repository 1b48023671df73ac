# pyright: standard
"""Tools and libraries a memory names in words ("Formatting: black + isort", "make lint  # Run flake8",
"Reuse Radix primitives"), and the dependencies a manifest declares (pyproject.toml, requirements
files, package.json): what the check for dependencies a project dropped reads
(:func:`lorekeeper.analysis.staleness.checks.gone_dependencies`).

Only names of a known vocabulary are read in prose: distinctive names of developer tools and
libraries, each with the packages that provide it. A word of it counts only where a manifest declared
one of those packages when the memory was written, so "a black background" in a project that never
depended on black says nothing.

Invariant: pure functions of text and bytes."""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from .manifests import python_requirements

#: The names memories write (lower case) and what provides each: a package name, or a scope of npm
#: packages (``@radix-ui/``) whose every package is part of it.
_PROVIDED: dict[str, tuple[str, ...]] = {
    # Python: linters, formatters, type checkers, test runners, task runners, packaging
    "black": ("black",), "isort": ("isort",), "flake8": ("flake8",), "pylint": ("pylint",), "mypy": ("mypy",),
    "pyright": ("pyright",), "yapf": ("yapf",), "autopep8": ("autopep8",), "bandit": ("bandit",),
    "pyflakes": ("pyflakes",), "pycodestyle": ("pycodestyle",), "pydocstyle": ("pydocstyle",), "pytype": ("pytype",),
    "autoflake": ("autoflake",), "pyupgrade": ("pyupgrade",), "blacken-docs": ("blacken-docs",),
    "nose": ("nose", "nose2"), "nose2": ("nose2",), "tox": ("tox",), "nox": ("nox",), "pipenv": ("pipenv",),
    "poetry": ("poetry", "poetry-core"),
    "sphinx": ("sphinx",), "mkdocs": ("mkdocs",), "pytest-xdist": ("pytest-xdist",), "hypothesis": ("hypothesis",),
    # Python: libraries a memory says a project is built on
    "celery": ("celery",), "alembic": ("alembic",), "sqlalchemy": ("sqlalchemy",), "flask": ("flask",),
    "fastapi": ("fastapi",), "litestar": ("litestar",), "starlette": ("starlette",), "marshmallow": ("marshmallow",),
    "attrs": ("attrs",), "requests": ("requests",), "httpx": ("httpx",), "aiohttp": ("aiohttp",), "typer": ("typer",),
    "loguru": ("loguru",), "structlog": ("structlog",), "uvicorn": ("uvicorn",), "gunicorn": ("gunicorn",),
    "pandas": ("pandas",), "polars": ("polars",), "langchain": ("langchain", "langchain-core"), "sqlmodel": ("sqlmodel",),
    "peewee": ("peewee",), "tortoise": ("tortoise-orm",), "dramatiq": ("dramatiq",), "psycopg2": ("psycopg2", "psycopg2-binary"),
    "python-telegram-bot": ("python-telegram-bot",), "aiogram": ("aiogram",), "pydantic": ("pydantic",),
    # JavaScript: linters, formatters, test runners, bundlers, monorepo tools
    "eslint": ("eslint",), "prettier": ("prettier",), "tslint": ("tslint",), "jest": ("jest",), "mocha": ("mocha",),
    "chai": ("chai",), "jasmine": ("jasmine", "jasmine-core"), "karma": ("karma",), "ava": ("ava",), "vitest": ("vitest",),
    "cypress": ("cypress",), "puppeteer": ("puppeteer",), "webpack": ("webpack",), "rollup": ("rollup",),
    "parcel": ("parcel",), "esbuild": ("esbuild",), "babel": ("@babel/", "babel-core"), "tsup": ("tsup",),
    "lerna": ("lerna",), "husky": ("husky",), "lint-staged": ("lint-staged",), "commitlint": ("@commitlint/",),
    "storybook": ("storybook", "@storybook/"), "enzyme": ("enzyme",), "nodemon": ("nodemon",), "ts-node": ("ts-node",),
    "rome": ("rome", "@rometools/"), "oxlint": ("oxlint",), "biome": ("@biomejs/biome",), "sinon": ("sinon",),
    "supertest": ("supertest",), "msw": ("msw",), "nock": ("nock",), "turborepo": ("turbo",),
    "vite": ("vite",), "wrangler": ("wrangler",),
    # JavaScript: libraries a memory says a project is built on
    "redux": ("redux", "@reduxjs/"), "mobx": ("mobx",), "zustand": ("zustand",), "recoil": ("recoil",),
    "jotai": ("jotai",), "radix": ("@radix-ui/", "radix-ui"), "chakra": ("@chakra-ui/",), "antd": ("antd",),
    "mui": ("@mui/",), "material-ui": ("@material-ui/", "@mui/"), "headless ui": ("@headlessui/",),
    "styled-components": ("styled-components",), "emotion": ("@emotion/",), "bootstrap": ("bootstrap", "react-bootstrap"),
    "jquery": ("jquery",), "moment": ("moment",), "dayjs": ("dayjs",), "date-fns": ("date-fns",), "luxon": ("luxon",),
    "lodash": ("lodash", "lodash-es"), "axios": ("axios",), "koa": ("koa",), "fastify": ("fastify",),
    "nestjs": ("@nestjs/",), "hono": ("hono",), "elysia": ("elysia",), "gatsby": ("gatsby",), "remix": ("@remix-run/",), "apollo": ("@apollo/", "apollo-server"),
    "typeorm": ("typeorm",), "sequelize": ("sequelize",), "mongoose": ("mongoose",), "knex": ("knex",),
    "drizzle": ("drizzle-orm",), "yup": ("yup",), "joi": ("joi",), "formik": ("formik",), "immer": ("immer",),
    "swr": ("swr",), "trpc": ("@trpc/",), "framer motion": ("framer-motion",), "i18next": ("i18next",),
    "winston": ("winston",), "pino": ("pino",), "sass": ("sass", "node-sass"), "less": ("less",),
    "mermaid": ("mermaid",), "leaflet": ("leaflet",), "socket.io": ("socket.io", "socket.io-client"),
    "react-query": ("react-query", "@tanstack/react-query"), "tanstack query": ("@tanstack/react-query",),
    "shadcn": ("shadcn", "shadcn-ui"), "mantine": ("@mantine/",), "vuetify": ("vuetify",), "pinia": ("pinia",),
    "vuex": ("vuex",), "ngrx": ("@ngrx/",), "rxjs": ("rxjs",), "three.js": ("three",), "d3": ("d3",),
    "chart.js": ("chart.js",), "recharts": ("recharts",), "electron": ("electron",), "zod": ("zod",),
}

#: Where a name is written as one word: not part of a path, a package scope or another name ("Radix/Tailwind
#: UI components" names two).
_WORD = re.compile(r"(?<![\w@/.-])([A-Za-z](?:[\w.-]*\w)?(?: (?:ui|query|motion))?)(?![\w-]|/(?!(?-i:[A-Z]))|\.\w)", re.I)


#: Names that are also words of English ("a black background", "less code", "at the moment"): read as the
#: tool only in a code span, or on a line that speaks of tools (another name of the vocabulary, or a word
#: of what tools do).
_WORDS_TOO = frozenset("black less moment requests nose chai karma emotion remix parcel rollup immer joi mermaid "
                       "leaflet apollo jasmine recoil attrs rome ava swr pino knex drizzle celery flask poetry".split())
_ABOUT_TOOLS = re.compile(r"\b(?:format\w*|lint\w*|styles?|styling|check\w*|tests?|testing|hooks?|ci|typecheck\w*|"
                          r"bundl\w*|builds?|librar\w*|framework|packages?|dependenc\w*|install\w*|orm|charts?|"
                          r"diagrams?|queues?|tasks?|workers?|schemas?|validat\w*|http)\b", re.I)


def names_in(text: str) -> Iterator[tuple[str, int, int]]:
    """The vocabulary's names ``text`` writes, each with where it stands (start, end)."""
    found: list[tuple[str, int, int]] = []
    for match in _WORD.finditer(text):
        word = match.group(1).lower()
        if word in _PROVIDED:
            found.append((word, match.start(1), match.end(1)))
        elif " " in word and (first := word.split(" ", 1)[0]) in _PROVIDED:
            found.append((first, match.start(1), match.start(1) + len(first)))
    for name, start, end in found:
        if name in _WORDS_TOO and not (text[start - 1:start] == "`" == text[end:end + 1]) and not (
                any(other not in _WORDS_TOO for other, _, _ in found) or _about_tools(text, start, end)):
            continue
        yield name, start, end


def _about_tools(text: str, start: int, end: int) -> bool:
    """Whether the line of ``text`` that holds ``start:end`` speaks of tools (a word of what tools do)."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line = text[line_start:line_end if line_end >= 0 else len(text)]
    return _ABOUT_TOOLS.search(line) is not None


#: A Go module named in a code span by its path or the end of it: `ory/dockertest`,
#: `github.com/spf13/cobra`.
_GO_MODULE = re.compile(r"`((?:[a-z0-9.-]+\.[a-z]{2,}/)?[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*(?:/v\d+)?)`")


#: A Go module named in prose by its owner and name, or its whole path ("Uses mark3labs/mcp-go for MCP
#: protocol"): not a file (no file's extension ends it), not part of a longer path or URL.
_GO_MODULE_PROSE = re.compile(r"(?<![\w./@:`-])((?:[a-z0-9-]+\.[a-z]{2,}/)?[a-z0-9][a-z0-9_.-]*/[a-z0-9][a-z0-9_.-]*"
                              r"(?:/v\d+)?)(?![\w/`-])")
#: A Go module named in a code span by the last part of its path alone, when it has more than one word:
#: `go-github-mock` (`github.com/migueleliasweb/go-github-mock`).
_GO_MODULE_NAME = re.compile(r"`([a-z][a-z0-9]*(?:-[a-z0-9]+)+)`")
_FILE_END = re.compile(r"\.(?:md|mdx|go|mod|sum|ts|tsx|js|jsx|py|rs|json|ya?ml|toml|txt|sh|proto|sql|html?|css|lock|env)$")


def modules_in(text: str) -> Iterator[tuple[str, int, int]]:
    """The Go modules ``text`` names (lower case), each with where it stands: a path or its end in a code
    span (`ory/dockertest`, `github.com/spf13/cobra`), the last part of one alone in a code span when it
    has more than one word (`go-github-mock`), an owner and name in prose (mark3labs/mcp-go). Which of
    them are modules only a manifest can say (:func:`provided_by`)."""
    for match in _GO_MODULE.finditer(text):
        yield "go:" + match.group(1).lower(), match.start(1), match.end(1)
    for pattern in (_GO_MODULE_NAME, _GO_MODULE_PROSE):
        for match in pattern.finditer(text):
            if not _FILE_END.search(match.group(1)):
                yield "go:" + match.group(1), match.start(1), match.end(1)


def provided_by(name: str, packages: frozenset[str]) -> list[str]:
    """Which of ``packages`` (normal names) provide the tool or library ``name`` of the vocabulary, or the
    Go module ``go:PATH`` (`go:ory/dockertest`: `github.com/ory/dockertest/v3`)."""
    if name.startswith("go:"):
        path = name[3:]
        return sorted(p for p in packages if p.startswith("go:") and (
            (module := re.sub(r"/v\d+$", "", p[3:])) == path or module.endswith("/" + path)))
    out = []
    for provider in _PROVIDED.get(name, ()):
        if provider.endswith("/"):
            out.extend(sorted(p for p in packages if p.startswith(provider)))
        elif provider in packages:
            out.append(provider)
    return out


def normal_name(name: str, npm: bool = False) -> str:
    """A package's name as its registry compares it: lower case; for Python (PEP 503) each run of
    ``-``, ``_`` and ``.`` one ``-``."""
    name = name.strip().lower()
    return name if npm else re.sub(r"[-_.]+", "-", name)


_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def is_manifest(path: str) -> bool:
    """Whether :func:`declared` reads ``path``: package.json, pyproject.toml, requirements*.txt, go.mod."""
    name = path.rsplit("/", 1)[-1]
    return name in ("package.json", "pyproject.toml", "go.mod") or (name.startswith("requirements") and name.endswith(".txt"))


_GO_REQUIRE = re.compile(r"^[ \t]*(?:require[ \t]+)?([a-z0-9.-]+\.[a-z]{2,}/\S+)[ \t]+v\d", re.M | re.I)


@lru_cache(maxsize=4096)
def declared(path: str, data: bytes) -> frozenset[str]:
    """The packages a manifest declares as dependencies of any kind (normal names; none when it cannot
    be read)."""
    name = path.rsplit("/", 1)[-1]
    text = data.decode("utf-8", "replace")
    out: set[str] = set()
    if name == "package.json":
        try:
            doc: Any = json.loads(text)
        except (ValueError, RecursionError):
            return frozenset()
        for table in ("dependencies", "devDependencies", "peerDependencies", "optionalDependencies"):
            deps = doc.get(table) if isinstance(doc, dict) else None
            if isinstance(deps, dict):
                out.update(normal_name(d, npm=True) for d in deps if isinstance(d, str))
    elif name == "pyproject.toml":
        try:
            doc = tomllib.loads(text)
        except (tomllib.TOMLDecodeError, RecursionError):
            return frozenset()
        for requirement in python_requirements(doc):
            if match := _REQUIREMENT.match(requirement):
                out.add(normal_name(match.group(1)))
    elif name == "go.mod":
        out.update("go:" + m.group(1).lower() for m in _GO_REQUIRE.finditer(text))
    else:
        for line in text.splitlines():
            if not line.lstrip().startswith(("#", "-")) and (match := _REQUIREMENT.match(line)):
                out.add(normal_name(match.group(1)))
    return frozenset(out)
