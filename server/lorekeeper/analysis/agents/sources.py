"""Instruction files as agents read them: which kind of source each file is, its front matter (the
fields that decide when a rule applies), its imports, and its size.

Front matter is read with a YAML library; when that fails, as ``globs: *.ts`` does (``*`` starts a YAML
alias), it is read line by line as ``key: value``, the way the tools that write such files read them, and
the YAML problem is kept for a finding."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any, cast

from ...core.text import Fences
from ...infra.tokens import count_tokens
from ...store.mif import _yaml  # pyright: ignore[reportPrivateUsage] - the bounded reader of front matter

_FRONT_FENCE = re.compile(r"^---\s*$")
_KEY_VALUE = re.compile(r"^(?P<key>[A-Za-z_][\w-]*)\s*:\s*(?P<value>.*)$")
_LIST_ITEM = re.compile(r"^\s+-\s*(?P<value>.*)$")
#: ``@path`` imports (Claude Code, Gemini CLI): at the start of the text or after a space, up to the next
#: space; not in code. ``#[[file:path]]`` (Kiro).
_AT_IMPORT = re.compile(r"(?:(?<=\s)|^)@(?P<path>(?:\.{1,2}/|~/|/)?[\w.][^\s`)\]]*)")
_KIRO_IMPORT = re.compile(r"#\[\[file:(?P<path>[^\]\s]+)\]\]")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")


@dataclass(frozen=True)
class Import:
    target: str  # as written
    line: int  # 1-based, in the importing file


@dataclass
class Source:
    """One instruction file: where it is, its front matter, where its body starts, its imports."""

    path: str
    text: str
    front: dict[str, Any] = field(default_factory=dict)
    #: The YAML problem of the front matter, with its 1-based line, when it is not valid YAML.
    front_problem: tuple[int, str] | None = None
    body_line: int = 1  # first line after the front matter
    imports: list[Import] = field(default_factory=list)

    @property
    def folder(self) -> str:
        parent = str(PurePosixPath(self.path).parent)
        return "" if parent == "." else parent

    @property
    def name(self) -> str:
        return PurePosixPath(self.path).name

    @property
    def bytes(self) -> int:
        return len(self.text.encode("utf-8"))

    @property
    def tokens(self) -> int:
        return count_tokens(self.text)

    def field(self, *names: str) -> Any:
        for name in names:
            if name in self.front:
                return self.front[name]
        return None

    def globs(self, *names: str) -> list[str] | None:
        """The patterns of the first of ``names`` the front matter has (a list, or one string of patterns
        separated by commas), or ``None`` when it has none of them."""
        value = self.field(*names)
        if value is None:
            return None
        items: list[Any] = cast(list[Any], value) if isinstance(value, list) else [value]
        out: list[str] = []
        for item in items:
            if item is None:
                continue
            text = str(item)
            out.extend(p.strip().strip("'\"") for p in _split_commas(text))
        return [p for p in out if p]


def _split_commas(text: str) -> list[str]:
    """``"*.ts, src/**/*.{ts,tsx}"`` -> ``["*.ts", "src/**/*.{ts,tsx}"]`` (commas inside braces stay)."""
    parts: list[str] = []
    depth, start = 0, 0
    for i, c in enumerate(text):
        if c == "{":
            depth += 1
        elif c == "}":
            depth = max(0, depth - 1)
        elif c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def read_source(path: str, text: str, imports: str = "") -> Source:
    """A source from its text. ``imports``: ``"at"`` reads ``@path`` imports, ``"kiro"`` ``#[[file:...]]``."""
    lines = text.splitlines()
    source = Source(path=path, text=text)
    if lines and _FRONT_FENCE.match(lines[0]):
        end = next((i for i in range(1, len(lines)) if _FRONT_FENCE.match(lines[i])), None)
        if end is not None:
            source.front, source.front_problem = _front_matter(lines[1:end])
            source.body_line = end + 2
    if imports:
        source.imports = _imports(lines, source.body_line, imports)
    return source


def _front_matter(lines: list[str]) -> tuple[dict[str, Any], tuple[int, str] | None]:
    """The front matter's fields: as YAML, else as ``key: value`` lines (with the YAML problem)."""
    block = "\n".join(lines)
    if not block.strip():
        return {}, None
    try:
        data = _parse_yaml(block)
    except Exception as exc:  # noqa: BLE001 - any YAML problem of a file someone wrote
        mark = getattr(exc, "problem_mark", None)
        line = (mark.line + 2) if mark is not None else 2  # +1: 1-based, +1: the opening fence
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        return _plain_fields(lines), (line, str(problem))
    if not isinstance(data, dict):
        return {}, (2, "the front matter is not a table of fields")
    table = cast(dict[Any, Any], data)
    return {str(k): _plain(v) for k, v in table.items()}, None


def _parse_yaml(block: str) -> Any:
    loader: Any = _yaml(reading=True)
    return loader.load(block)


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in cast(dict[Any, Any], value).items()}
    if isinstance(value, list):
        return [_plain(v) for v in cast(list[Any], value)]
    if isinstance(value, bool) or value is None or isinstance(value, (int, float)):
        return value
    return str(value)


def _plain_fields(lines: list[str]) -> dict[str, Any]:
    """``key: value`` lines, and ``- item`` lines under a key with no value, as strings."""
    fields: dict[str, Any] = {}
    key: str | None = None
    for line in lines:
        item = _LIST_ITEM.match(line)
        if item and key is not None and isinstance(fields.get(key), list):
            fields[key].append(item.group("value").strip().strip("'\""))
            continue
        match = _KEY_VALUE.match(line)
        if not match:
            continue
        name: str = match.group("key")
        key = name
        value = match.group("value").strip()
        if not value:
            fields[name] = []
        elif value.lower() in ("true", "false"):
            fields[name] = value.lower() == "true"
        else:
            fields[name] = value.strip("'\"")
    return fields


def _imports(lines: list[str], start: int, style: str) -> list[Import]:
    found: list[Import] = []
    fences = Fences()
    pattern = _AT_IMPORT if style == "at" else _KIRO_IMPORT
    for number in range(start, len(lines) + 1):
        line = lines[number - 1]
        if fences.code(line) or ("@" not in line and "[[file:" not in line):
            continue
        bare = _CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)
        for match in pattern.finditer(bare):
            target = match.group("path").rstrip(".,;:")
            if style == "at" and not _looks_like_file(target):
                continue
            found.append(Import(target, number))
    return found


def _looks_like_file(target: str) -> bool:
    """An ``@`` import names a file: a path with a folder or an extension (not ``@user``, ``@types/node``)."""
    if "@" in target or target.startswith(("~", "/")):
        return target.startswith(("~/", "/"))  # outside the repository: kept, reported as outside
    name = target.rsplit("/", 1)[-1]
    return "." in name.strip(".") or target.startswith(("./", "../"))
