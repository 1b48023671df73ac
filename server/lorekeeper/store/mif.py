# pyright: standard
"""MIF level 3 memory files (``*.memory.md``, mnemonic's format): YAML front matter and a Markdown body.

Front matter is read and written with ruamel.yaml's round-trip mode, so comments, key order and quoting
survive a rewrite; the body is kept byte for byte unless the change is to the body itself."""

from __future__ import annotations

import io
import re
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

# ruamel.yaml is imported when a MIF file is first read or written (a store without one never pays
# for it: ~15 ms of every command's start).
if TYPE_CHECKING:
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap

from ..core.model import Entry, Finding, Location, Severity, stamp
from ..workspace import Workspace
from .fields import build_entry
from .files import read_text_file

_FENCE = re.compile(r"^---[ \t]*\r?$", re.M)

#: Canonical field -> path in the MIF front matter, where they differ.
FIELD_PATHS: dict[str, tuple[str, ...]] = {
    "agent": ("provenance", "agent"),
    "confidence": ("provenance", "confidence"),
    "ttl": ("temporal", "ttl"),
    "strength": ("temporal", "decay", "strength"),
    "access_count": ("temporal", "access_count"),
    "last_accessed": ("temporal", "last_accessed"),
}


def _yaml(*, reading: bool = False) -> YAML:
    """A round-trip YAML; ``reading``: one that reads front matter within the bounds of
    :mod:`.mif_yaml` (nesting, alias expansion, impossible scalars)."""
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096
    if reading:
        from .mif_yaml import configure

        configure(yaml)
    return yaml


#: The most of a YAML error's own text a finding repeats.
_PROBLEM_LENGTH = 200


class MifError(ValueError):
    """A MIF file that cannot be read: why, and the 1-based file line where."""

    def __init__(self, line: int, message: str):
        super().__init__(f"{line}:{message}")
        self.line = line
        self.message = message


class MifDocument:
    """A parsed ``*.memory.md``: front matter (round-trip map), its text, and the body."""

    def __init__(self, front: CommentedMap, front_text: str, body: str, newline: str):
        self.front = front
        self.front_text = front_text
        self.body = body
        self.newline = newline

    @classmethod
    def parse(cls, text: str) -> MifDocument:
        """Split and parse; raises :class:`MifError` (a ``ValueError``) with the 1-based file line of
        what is wrong: malformed YAML, or front matter outside the bounds of :mod:`.mif_yaml`."""
        newline = "\r\n" if "\r\n" in text else "\n"
        first = _FENCE.match(text)
        if first is None:
            raise MifError(1, "file does not start with '---' front matter")
        closing = _FENCE.search(text, first.end())
        if closing is None:
            raise MifError(1, "front matter is not closed by a '---' line")
        # Each fence match ends before its line's "\n", so +1 steps over it.
        front_text = text[first.end() + 1 : closing.start()]
        body = text[closing.end() + 1 :]
        from ruamel.yaml.comments import CommentedMap
        from ruamel.yaml.composer import MaxDepthExceededError
        from ruamel.yaml.error import YAMLError

        from .mif_yaml import MAX_DEPTH, FrontMatterError

        try:
            front = _yaml(reading=True).load(front_text) if front_text.strip() else CommentedMap()
        except YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            line = (mark.line + 2) if mark is not None else 1
            if isinstance(exc, FrontMatterError):
                raise MifError(line, str(exc.problem)) from None
            if isinstance(exc, MaxDepthExceededError):
                raise MifError(line, f"front matter nests more than {MAX_DEPTH} levels deep") from None
            problem = str(getattr(exc, "problem", None) or str(exc).splitlines()[0])
            if len(problem) > _PROBLEM_LENGTH:  # ruamel quotes values (a duplicate key's) in full
                problem = problem[:_PROBLEM_LENGTH] + "…"
            raise MifError(line, f"invalid YAML front matter: {problem}") from None
        except RecursionError:
            raise MifError(2, "YAML front matter nested too deeply to read") from None
        if not isinstance(front, CommentedMap):
            raise MifError(2, "front matter must be a mapping of fields")
        return cls(front, front_text, body, newline)

    def line_of(self, key: str) -> int:
        """1-based file line of a top-level front-matter key (the opening fence is line 1)."""
        try:
            return self.front.lc.key(key)[0] + 2
        except (KeyError, AttributeError, TypeError):
            return 1

    @property
    def body_line(self) -> int:
        return self.front_text.count("\n") + 3

    def render(self, front_changed: bool, touched: set[str] | None = None) -> bytes:
        front_text = self.front_text
        if front_changed:
            yaml = _yaml()
            yaml.indent(**_detect_indent(self.front_text))
            stream = io.StringIO()
            yaml.dump(self.front, stream)
            front_text = stream.getvalue()
            if touched is not None:
                front_text = _keep_untouched(self.front_text, front_text, touched)
        nl = self.newline
        text = f"---{nl}{front_text}"
        if not text.endswith(("\n",)):
            text += nl
        text += f"---{nl}{self.body}"
        if nl == "\r\n":
            text = re.sub(r"(?<!\r)\n", "\r\n", text)
        return text.encode("utf-8")


#: A top-level key: quoted, or plain up to its colon, without the whitespace before the colon. A plain
#: key's whitespace is taken only where more of the key follows (possessive: a line is read once, not
#: once for each length the key could have).
_TOP_LEVEL_KEY = re.compile(r"""^(?:"([^"]+)"|'([^']+)'|([^\s#'"](?:[^:\s]|\s++(?=[^:\s]))*+))\s*:(?:\s|$)""")


def _top_level_blocks(text: str) -> dict[str, str]:
    """The text of each top-level key of a YAML mapping: its line and the lines under it (indented,
    blank or comments), as written."""
    blocks: dict[str, str] = {}
    current: str | None = None
    for line in text.splitlines(keepends=True):
        match = _TOP_LEVEL_KEY.match(line)
        if match and not line[:1].isspace():
            current = str(next(g for g in match.groups() if g is not None))
            blocks[current] = line
        elif current is not None:
            blocks[current] += line
    return blocks


def _keep_untouched(original: str, dumped: str, touched: set[str]) -> str:
    """The dumped front matter with every key a change did not touch written as it was (flow lists,
    spacing, quoting and comments of those keys survive the rewrite)."""
    old, new = _top_level_blocks(original), _top_level_blocks(dumped)
    if not new or "".join(new.values()) != dumped:
        return dumped  # a layout this simple splitter does not follow: the whole dump, as before
    out = []
    for key, block in new.items():
        kept = old.get(key)
        out.append(kept if kept is not None and key not in touched else block)
    text = "".join(out)
    return text if text.endswith("\n") else text + "\n"


def _detect_indent(front_text: str) -> dict[str, int]:
    """Match the file's list style: ``key:\\n  - item`` (offset 2) or ``key:\\n- item`` (offset 0)."""
    match = re.search(r"^( *)- ", front_text, re.M)
    offset = len(match.group(1)) if match else 2
    return {"mapping": 2, "sequence": offset + 2, "offset": offset}


def canonical_fields(front: CommentedMap, body: str) -> dict[str, Any]:
    """Map MIF front matter to the canonical entry fields."""
    fields: dict[str, Any] = {k: v for k, v in front.items() if isinstance(k, str)}
    fields["content"] = body.strip() or (front.get("title") if isinstance(front.get("title"), str) else None)
    for name, path in FIELD_PATHS.items():
        value = _get(front, path)
        if value is not None:
            fields[name] = value
    fields["category"] = _category(front)
    return fields


def _category(front: CommentedMap) -> str | None:
    category = front.get("category")
    if isinstance(category, str):
        return category
    namespace = front.get("namespace")
    if isinstance(namespace, str) and namespace.strip("/"):
        parts = [p.strip("_") for p in namespace.strip("/").split("/") if p.strip("_")]
        if len(parts) >= 2:
            return parts[1]
        if parts:
            return parts[0]
    kind = front.get("type")
    return kind if isinstance(kind, str) else None


def code_refs(front: CommentedMap) -> list[Any] | None:
    """MIF ``code_refs`` (``file``/``line``/``symbol``) as canonical refs (``path``/``lines``/``symbol``)."""
    raw = front.get("code_refs")
    if raw is None:
        return None
    if not isinstance(raw, list):
        return raw  # reported as a wrong type by the validator
    refs: list[Any] = []
    for item in raw:
        if isinstance(item, dict):
            mapped = {k: v for k, v in item.items() if k not in ("file", "line")}
            if "file" in item:
                mapped["path"] = item["file"]
            if "line" in item:
                mapped["lines"] = item["line"]
            refs.append(mapped)
        else:
            refs.append(item)
    return refs


def _get(front: CommentedMap, path: tuple[str, ...]) -> Any:
    node: Any = front
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return None
        node = node[key]
    return node


def read_mif_file(ws: Workspace, path: Path | str, relpath: str | None = None, *, follow: bool = True,
                  digests: dict[str, bytes] | None = None,
                  stats: dict[str, list[int]] | None = None) -> tuple[Entry | None, list[Finding]]:
    """Read one MIF file (``follow=False``: refuse a symlink), as :func:`.native.read_entry_file` does."""
    relpath = relpath or ws.rel(Path(path))
    text_file, problem = read_text_file(path, relpath, ws.config.max_file_bytes, follow=follow, digests=digests,
                                         stats=stats)
    if problem:
        return None, [problem]
    assert text_file is not None
    try:
        doc = MifDocument.parse(text_file.text)
    except MifError as exc:
        return None, [
            Finding(kind="invalid-mif", severity=Severity.error, message=f"{exc.message}; entry skipped",
                    source=relpath, line=exc.line)
        ]
    end_line = text_file.text.rstrip().count("\n") + 1
    return build_entry(
        canonical_fields(doc.front, doc.body),
        fmt="mif",
        location=Location(path=relpath, start_line=1, end_line=end_line),
        raw=dict(doc.front),
        line_of=lambda name: doc.body_line if name == "content" else doc.line_of(field_key(name)),
        inside=ws.check_inside,
        refs=code_refs(doc.front),
        refs_field="code_refs",
        created_fallback=lambda: ws.created_time(path, relpath),
    )


def field_key(name: str) -> str:
    """The top-level front-matter key that holds canonical field ``name``."""
    return FIELD_PATHS.get(name, (name,))[0]


def update_mif(text: str, changes: dict[str, Any]) -> bytes:
    """Apply canonical-field ``changes`` to a MIF file's text; ``content`` replaces the body, ``None``
    removes a field. Untouched front matter is kept as written."""
    doc = MifDocument.parse(text)
    front_changed = False
    touched: set[str] = set()
    for name, value in changes.items():
        if name == "content":
            doc.body = value if value.endswith("\n") else value + "\n"
            continue
        path = FIELD_PATHS.get(name, (name,))
        if name == "refs":
            path, value = ("code_refs",), None if value is None else [_to_code_ref(r) for r in value]
        touched.add(path[0])
        from ruamel.yaml.comments import CommentedMap

        node = doc.front
        for key in path[:-1]:
            if not isinstance(node.get(key), dict):
                if value is None:
                    break
                node[key] = CommentedMap()
            node = node[key]
        else:
            if value is None:
                node.pop(path[-1], None)
            else:
                node[path[-1]] = value
            front_changed = True
    return doc.render(front_changed, touched)


def _to_code_ref(ref: dict[str, Any]) -> dict[str, Any]:
    out = {"file": ref["path"]}
    out.update({k: v for k, v in ref.items() if k not in ("path", "lines")})
    if ref.get("lines") is not None:
        out["line"] = ref["lines"]
    return out


def new_mif(content: str, fields: dict[str, Any], now: datetime | None = None) -> tuple[str, str, bytes]:
    """A new MIF file: (id, file name, bytes)."""
    now = now or datetime.now(UTC)
    entry_id = str(uuid.uuid4())
    from ruamel.yaml.comments import CommentedMap

    front = CommentedMap()
    front["id"] = entry_id
    front["type"] = "semantic"
    front["namespace"] = f"_semantic/{fields.get('category', 'conventions')}"
    front["created"] = stamp(now)
    title = content.strip().splitlines()[0][:80]
    front["title"] = title
    if fields.get("tags"):
        front["tags"] = list(fields["tags"])
    if fields.get("agent"):
        front["provenance"] = CommentedMap(agent=fields["agent"])
    if fields.get("refs"):
        front["code_refs"] = [_to_code_ref(r) for r in fields["refs"]]
    doc = MifDocument(front, "", content.strip() + "\n", "\n")
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:40] or "memory"
    return entry_id, f"{entry_id}-{slug}.memory.md", doc.render(front_changed=True)
