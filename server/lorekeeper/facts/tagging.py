"""Tags for an entry stored without any: what kind of fact it is, which languages it concerns, and which
well-known tools and services it names. Deterministic and cheap (word lists, no model), so the same
text always gets the same tags; a tag is given only on a clear signal (a named tool, a file extension,
a marker word), never guessed."""

from __future__ import annotations

import re
from collections.abc import Iterable

#: Content types, first match wins in this order; each by marker words or phrases.
_TYPES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("error", re.compile(r"\b(?:error|errors|exception|traceback|stack trace|crash(?:es|ed)?|fails?|failing|failed|"
                         r"segfault|panic(?:s|ked)?|regression|bug)\b", re.I)),
    ("decision", re.compile(r"\b(?:decided|decision|we chose|chose|chosen|instead of|rather than|adr[- ]?\d+|"
                            r"we (?:use|picked|went with))\b", re.I)),
    ("caveat", re.compile(r"\b(?:never|don't|do not|must not|mustn't|avoid|beware|careful|gotcha|pitfall|"
                          r"caveat|warning|watch out|not safe|unsafe)\b", re.I)),
    ("convention", re.compile(r"\b(?:always|convention|prefer|should|naming|style|format(?:ted)? with)\b", re.I)),
    ("how-to", re.compile(r"\b(?:run|install|build|deploy|to test|to start|command)\b", re.I)),
)

_EXTENSIONS = {
    "py": "python", "pyi": "python", "ts": "typescript", "tsx": "typescript", "mts": "typescript",
    "js": "javascript", "jsx": "javascript", "mjs": "javascript", "cjs": "javascript", "go": "go", "rs": "rust",
    "java": "java", "kt": "kotlin", "kts": "kotlin", "swift": "swift", "rb": "ruby", "php": "php", "cs": "csharp",
    "c": "c", "h": "c", "cc": "cpp", "cpp": "cpp", "cxx": "cpp", "hpp": "cpp", "scala": "scala",
    "sh": "shell", "bash": "shell", "zsh": "shell", "sql": "sql", "dart": "dart", "ex": "elixir", "exs": "elixir",
    "lua": "lua", "r": "r", "vue": "vue", "svelte": "svelte", "tf": "terraform", "proto": "protobuf",
}
_FILE = re.compile(r"(?<![\w/.-])(?:[\w.-]+/)*[\w-]+\.([A-Za-z]{1,6})\b")

#: Well-known tools and services: tag -> the names that mean it (matched as whole words, any case).
_TOOLS: dict[str, tuple[str, ...]] = {
    "docker": ("docker", "dockerfile", "docker-compose", "docker compose"),
    "kubernetes": ("kubernetes", "kubectl", "k8s", "helm"),
    "postgres": ("postgres", "postgresql", "psql"),
    "mysql": ("mysql", "mariadb"),
    "sqlite": ("sqlite", "sqlite3"),
    "redis": ("redis",),
    "mongodb": ("mongodb", "mongo"),
    "kafka": ("kafka",),
    "elasticsearch": ("elasticsearch", "opensearch"),
    "aws": ("aws", "s3", "lambda", "dynamodb", "cloudformation", "ec2"),
    "gcp": ("gcp", "bigquery", "cloud run", "gcloud"),
    "azure": ("azure",),
    "terraform": ("terraform",),
    "github-actions": ("github actions", "workflow file", ".github/workflows"),
    "git": ("git", "rebase", "git hooks", "pre-commit"),
    "npm": ("npm", "npx", "package.json"),
    "pnpm": ("pnpm",),
    "yarn": ("yarn",),
    "pip": ("pip", "requirements.txt"),
    "poetry": ("poetry",),
    "uv": ("uv",),
    "cargo": ("cargo", "cargo.toml"),
    "pytest": ("pytest",),
    "jest": ("jest",),
    "vitest": ("vitest",),
    "playwright": ("playwright",),
    "eslint": ("eslint",),
    "prettier": ("prettier",),
    "ruff": ("ruff",),
    "mypy": ("mypy",),
    "webpack": ("webpack",),
    "vite": ("vite",),
    "react": ("react",),
    "nextjs": ("next.js", "nextjs"),
    "django": ("django",),
    "flask": ("flask",),
    "fastapi": ("fastapi",),
    "rails": ("rails",),
    "graphql": ("graphql",),
    "stripe": ("stripe",),
    "sentry": ("sentry",),
    "openai": ("openai",),
    "nginx": ("nginx",),
    "make": ("makefile", "make"),
}
_TOOL_PATTERNS = {tag: re.compile(r"(?<![\w-])(?:" + "|".join(re.escape(n) for n in names) + r")(?![\w-])", re.I)
                  for tag, names in _TOOLS.items()}
#: Names that are ordinary words too: they count only when written in code style or with a capital.
_AMBIGUOUS = {"make", "git", "uv", "lambda", "helm", "react", "rails", "flask", "vite", "jest", "mongo", "sentry"}


def content_type(text: str) -> str | None:
    """The kind of fact: error, decision, caveat, convention or how-to (``None`` when nothing says)."""
    for name, pattern in _TYPES:
        if pattern.search(text):
            return name
    return None


def languages(text: str, paths: Iterable[str] = ()) -> list[str]:
    """Languages of the files the text and its references name, by extension."""
    found: set[str] = set()
    for path in [*paths, *(m.group(0) for m in _FILE.finditer(text))]:
        ext = path.rsplit(".", 1)[-1].lower() if "." in path.rsplit("/", 1)[-1] else ""
        if ext in _EXTENSIONS:
            found.add(_EXTENSIONS[ext])
    return sorted(found)


def tools(text: str) -> list[str]:
    """Well-known tools and services the text names."""
    found: list[str] = []
    for tag, pattern in _TOOL_PATTERNS.items():
        ticks, counted = 0, 0  # the backticks before ``counted``: each match counts from the last one's
        for match in pattern.finditer(text):
            word = match.group(0)
            if word.lower() in _AMBIGUOUS and not word[0].isupper():
                ticks += text.count("`", counted, match.start())
                counted = match.start()
                if ticks % 2 == 0:  # not inside a `code span`
                    continue
            found.append(tag)
            break
    return sorted(found)


def auto_tags(text: str, paths: Iterable[str] = ()) -> list[str]:
    """The tags of an entry stored without tags: its content type, languages and tools, deduplicated."""
    tags: list[str] = []
    kind = content_type(text)
    if kind:
        tags.append(kind)
    for tag in [*languages(text, paths), *tools(text)]:
        if tag not in tags:
            tags.append(tag)
    return tags
