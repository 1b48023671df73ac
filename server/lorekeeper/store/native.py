"""Native entries: one JSON object a file under ``<store>/entries/`` (LeanSpec spec 359/360 schema)."""

from __future__ import annotations

import json
import re
import secrets
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple, cast

from ..core.model import Entry, Finding, Location, Severity
from ..infra.safeio import load_json
from ..workspace import Workspace
from .fields import build_entry
from .files import read_text_file


def read_entry_file(ws: Workspace, path: Path | str, relpath: str | None = None, *, follow: bool = True,
                    digests: dict[str, bytes] | None = None,
                    stats: dict[str, list[int]] | None = None) -> tuple[Entry | None, list[Finding]]:
    """Read one entry file (``relpath``: its workspace-relative path, when the caller has it). Problems
    become findings with the file's line; never an exception. ``follow=False``: refuse a symlink."""
    relpath = relpath or ws.rel(Path(path))
    text_file, problem = read_text_file(path, relpath, ws.config.max_file_bytes, follow=follow, digests=digests,
                                         stats=stats)
    if problem:
        return None, [problem]
    assert text_file is not None
    text = text_file.text
    try:
        raw = load_json(text)
    except json.JSONDecodeError as exc:
        return None, [
            Finding(
                kind="invalid-json",
                severity=Severity.error,
                message=f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}; entry skipped",
                source=relpath,
                line=exc.lineno,
                column=exc.colno,
            )
        ]
    except ValueError as exc:  # nested too deeply for the parser
        return None, [Finding(kind="invalid-json", severity=Severity.error, message=f"{exc}; entry skipped",
                              source=relpath, line=1)]
    if not isinstance(raw, dict):
        return None, [
            Finding(
                kind="invalid-entry",
                severity=Severity.error,
                message=f"an entry file must hold one JSON object, found {type(raw).__name__}; entry skipped",
                source=relpath,
                line=1,
            )
        ]
    fields = cast(dict[str, Any], raw)
    lines: dict[str, tuple[int, int]] = {}

    def line_of(name: str) -> int:  # scanned only when a finding needs a line
        if not lines:
            lines.update(key_lines(text) or {"": (1, 1)})
        return lines.get(name, (1, 1))[0]

    end_line = text.rstrip().count("\n") + 1
    return build_entry(
        fields,
        fmt="entry",
        location=Location(path=relpath, start_line=1, end_line=end_line),
        raw=fields,
        line_of=line_of,
        inside=ws.check_inside,
        refs=fields.get("refs"),
        created_fallback=lambda: ws.created_time(path, relpath),
    )


def key_lines(text: str) -> dict[str, tuple[int, int]]:
    """The 1-based (line, column) of each top-level key of a JSON object, found by a small scanner
    (``json`` does not report positions)."""
    positions: dict[str, tuple[int, int]] = {}
    depth = 0
    line, col = 1, 0
    i, n = 0, len(text)
    expecting_key = False
    while i < n:
        ch = text[i]
        if ch == "\n":
            line, col = line + 1, 0
            i += 1
            continue
        if ch == '"':
            start_line, start_col = line, col + 1
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            token = text[i + 1 : j]
            newlines = token.count("\n")
            if newlines:
                line += newlines
                col = len(token) - token.rfind("\n")
            else:
                col += j - i + 1
            i = j + 1
            if depth == 1 and expecting_key:
                try:
                    name = json.loads(f'"{token}"')
                except json.JSONDecodeError:
                    name = token
                positions.setdefault(name, (start_line, start_col))
                expecting_key = False
            continue
        if ch in "{[":
            depth += 1
            expecting_key = ch == "{" and depth == 1
        elif ch in "}]":
            depth -= 1
        elif ch == "," and depth == 1:
            expecting_key = True
        i += 1
        col += 1
    return positions


class Style(NamedTuple):
    """How a JSON file is written: indentation (``None``: one line), ``\\uXXXX`` escapes, final newline."""

    indent: int | str | None = 2
    ensure_ascii: bool = False
    newline: bool = True


def detect_style(text: str) -> Style:
    """How an existing file is formatted, so a rewrite looks like it: indentation, ASCII escaping,
    trailing newline."""
    indent: int | str | None = 2
    match = re.search(r"\n([ \t]+)\S", text)
    if match:
        ws = match.group(1)
        indent = "\t" if ws.startswith("\t") else len(ws)
    elif text.strip() and "\n" not in text.strip():
        indent = None  # a one-line file stays one line
    ensure_ascii = bool(re.search(r"\\u[0-9a-fA-F]{4}", text)) and not any(ord(c) > 127 for c in text)
    return Style(indent, ensure_ascii, text.endswith("\n") or not text)


def render_entry(raw: dict[str, Any], original: str | None = None) -> bytes:
    """Serialise an entry's fields (key order as given), in the original file's style when there is one."""
    style = detect_style(original) if original is not None else Style()
    text = dumps(raw, style.indent, style.ensure_ascii)
    if style.newline:
        text += "\n"
    if original is not None and "\r\n" in original:
        text = text.replace("\n", "\r\n")
    return text.encode("utf-8")


def dumps(data: Any, indent: int | str | None, ensure_ascii: bool) -> str:
    """``json.dumps(data, indent=indent, ensure_ascii=ensure_ascii)``, the same text. With an indent,
    json writes through its pure-Python encoder (most of the cost of rendering a large verify); here the
    strings and numbers go through its C encoder and only the nesting is Python.
    Anything but str keys and JSON's own types is left to json.dumps."""
    if indent is None:
        return json.dumps(data, ensure_ascii=ensure_ascii)
    try:
        return _indented(data, indent if isinstance(indent, str) else " " * indent,
                         "\n", _ASCII_STRING if ensure_ascii else _STRING)
    except _NotPlain:
        return json.dumps(data, indent=indent, ensure_ascii=ensure_ascii)


class _NotPlain(Exception):
    """A value :func:`dumps` leaves to json.dumps (a key that is not a string, a type JSON converts)."""


_STRING = json.encoder.encode_basestring  # pyright: ignore[reportAttributeAccessIssue] - C accelerated
_ASCII_STRING = json.encoder.encode_basestring_ascii  # pyright: ignore[reportAttributeAccessIssue]
_SCALAR = json.JSONEncoder(ensure_ascii=False).encode  # numbers, booleans, null: C encoder, json's own text


def _indented(value: object, step: str, newline: str, string: Any) -> str:
    kind = type(value)
    if kind is str:
        return string(value)
    if kind is dict:
        mapping = cast(dict[object, object], value)
        if not mapping:
            return "{}"
        inner = newline + step
        parts: list[str] = []
        for key, item in mapping.items():
            if type(key) is not str:
                raise _NotPlain
            parts.append(inner + string(key) + ": " + _indented(item, step, inner, string))
        return "{" + ",".join(parts) + newline + "}"
    if kind is list:
        items = cast(list[object], value)
        if not items:
            return "[]"
        inner = newline + step
        return "[" + ",".join(inner + _indented(item, step, inner, string) for item in items) + newline + "]"
    if kind is int or kind is float or kind is bool or value is None:
        return _SCALAR(value)
    raise _NotPlain


def new_entry_name(now: datetime | None = None) -> tuple[str, str]:
    """An id and a file name for a new entry, LeanSpec style: ``<timestamp>-<short-uuid>.json``."""
    now = now or datetime.now(UTC)
    short = secrets.token_hex(6)
    return short, f"{now:%Y%m%dT%H%M%SZ}-{short}.json"


def apply_changes(raw: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``raw`` with ``changes`` applied: existing keys keep their place, new keys go last,
    a value of ``None`` removes the key."""
    updated = dict(raw)
    for key, value in changes.items():
        if value is None:
            updated.pop(key, None)
        else:
            updated[key] = value
    return updated
