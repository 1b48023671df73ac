# pyright: standard
"""Fingerprints: content hashes of exactly what a memory is about — a symbol's body, a script's command,
a make target's recipe, a config key's value, a file — so that an unrelated edit elsewhere in the same
file does not flag the memory.

Baselines come from ``lore verify`` (the ``verified`` time and ``fingerprints`` of an entry, or
``<store>/verified.json`` for instruction-file entries, keyed by their text so they survive moving lines)
or, for instruction lines never verified, from git: the state of the code when the line was last
changed (``git blame``)."""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from ..core.model import Entry
from ..core.text import normalize
from ..infra.safeio import load_json, read_bytes
from ..workspace import Workspace
from .extract import Reference
from .history import ZERO, Commit, GitHistory
from .index import CodeIndex, digest
from .manifests import parse_manifest
from .symbols import file_symbols, language_of, qualified_definition

Reader = Callable[[str], "bytes | None"]
#: What an unverified instruction line is compared against since it was written: the commands it names.
#: (A class or function a line names changes all the time without making the line false; symbols are
#: fingerprinted only when someone verifies the memory.)
SPECIFIC_KINDS = frozenset({"script", "make", "just", "task", "console", "tox"})


def fingerprinted(refs: list[Reference], kinds: frozenset[str] | None = None) -> list[Reference]:
    """The references whose fingerprints are recorded and compared, one per label (fingerprints are
    keyed by it): where two share one — inspector's "the root `format`" (a word, read as a symbol) beside
    `npm run format` — the strong one, else the first; only ``kinds``, when given."""
    chosen: dict[str, Reference] = {}
    for ref in refs:
        if kinds is not None and ref.kind not in kinds:
            continue
        label = ref.label()
        if label not in chosen or (ref.strong and not chosen[label].strong):
            chosen[label] = ref
    return list(chosen.values())


_hash = digest


class Fingerprinter:
    def __init__(self, index: CodeIndex, history: GitHistory):
        self.index = index
        self.history = history

    # -- current ---------------------------------------------------------------------------------

    def fingerprint(self, ref: Reference, base: str) -> str | None:
        """The fingerprint of what ``ref`` names, today (``None`` if it does not resolve)."""
        return self._fingerprint(ref, base, self.index.read, current=True)

    def fingerprint_at(self, ref: Reference, base: str, commit: str) -> str | None:
        """The same fingerprint at a past commit."""
        return self._fingerprint(ref, base, lambda path: self.show(commit, path), current=False)

    def legacy_fingerprint(self, ref: Reference, base: str) -> str | None:
        """Today's fingerprint as verifications recorded it before comments in a target's lines stopped
        counting (a target's lines byte for byte); the same as :meth:`fingerprint` for other kinds."""
        return self._fingerprint(ref, base, self.index.read, current=True, raw=True)

    def _fingerprint(self, ref: Reference, base: str, read: Reader, current: bool, raw: bool = False) -> str | None:
        if ref.kind == "path":
            path = self.index.resolve(ref.target, base)
            if path is None:
                return None
            if path.endswith("/") or path in self.index.dirs:
                if not current:
                    return None
                prefix = path.rstrip("/") + "/"
                return _hash("\n".join(sorted(p for p in self.index.files if p.startswith(prefix))))
            if current:
                return self.index.file_hash(path)
            data = read(path)
            return _hash(data) if data is not None else None
        if ref.kind == "symbol":
            files = [self.index.resolve(ref.file, base)] if ref.file else self.index.where_defined(ref.target)[:1]
            if not files or files[0] is None:
                return None
            path = files[0]
            if current and (known := self.index.verified_fingerprint(path, ref.target)) is not None:
                return known  # the file is byte for byte what was verified: so is the symbol's body
            data = read(path)
            if data is None:
                return None
            if path.endswith((".json", ".toml")):
                value = _config_value(path, data, ref.target)
                return _hash(json.dumps(value, sort_keys=True, default=str)) if value is not None else None
            if language_of(path) is None:
                return None
            # Today's symbols come from the index (each file parsed once a run); a past commit's are parsed here.
            symbols = self.index.symbols(path) if current else file_symbols(path, data)
            span = qualified_definition(symbols, ref.target, path) if symbols is not None else None
            return _hash(b"\n".join(data.splitlines()[span[0] - 1 : span[1]])) if span else None
        if ref.kind in ("script", "console", "make", "just", "task", "tox"):
            manifest = self.index.manifest_for(ref.kind, base)
            data = read(manifest.path) if manifest is not None else None
            if manifest is None or data is None:
                return None
            if ref.kind in ("script", "console"):
                table = "scripts" if ref.kind == "script" else "project.scripts"
                value = _config_value(manifest.path, data, f"{table}.{ref.target}")
                return _hash(str(value)) if value is not None else None
            parsed = parse_manifest(manifest.path, data)
            span = parsed.names.get(ref.target) if parsed else None
            if span is None:
                return None
            lines = data.splitlines()[span[0] - 1 : span[1]]
            return _hash(b"\n".join(lines) if raw else _recipe(lines))
        if ref.kind == "package-manager":
            declared, locks = self.index.package_managers(base)
            return _hash(f"{declared}|{','.join(sorted(locks))}") if current else None
        return None

    def command(self, ref: Reference, base: str, commit: str | None = None) -> str | None:
        """What a script reference runs (its command in package.json, its entry point in pyproject.toml),
        today or at ``commit``; ``None`` for other kinds or when it is not defined."""
        if ref.kind not in ("script", "console"):
            return None
        manifest = self.index.manifest_for(ref.kind, base)
        if manifest is None:
            return None
        data = self.index.read(manifest.path) if commit is None else self.show(commit, manifest.path)
        table = "scripts" if ref.kind == "script" else "project.scripts"
        value = _config_value(manifest.path, data, f"{table}.{ref.target}") if data is not None else None
        return value if isinstance(value, str) else None

    def baseline_commit(self, entry: Entry) -> str | None:
        """The commit :meth:`blame_baseline` compares with: the last to change the entry's lines."""
        commit = self.last_change(entry.location.path, entry.location.start_line, entry.location.end_line)
        return commit.sha if commit is not None else None

    def config_value(self, path: str, dotted: str) -> Any:
        data = self.index.read(path)
        return _config_value(path, data, dotted) if data is not None else None

    # -- git baseline ----------------------------------------------------------------------------

    def show(self, commit: str, path: str) -> bytes | None:
        """A file's bytes at a commit, or ``None`` if it was not there (or git cannot say)."""
        return self.history.read_at([(commit, path)]).get((commit, path))

    def last_change(self, path: str, start: int, end: int) -> Commit | None:
        """The newest commit among lines ``start..end`` of a file (``None`` if any is uncommitted)."""
        lines = self.history.blame(path)
        if not lines or end > len(lines):
            return None
        chosen = lines[start - 1 : end]
        if any(sha == ZERO for sha in chosen):
            return None
        commits = [c for c in (self.history.commit(sha) for sha in set(chosen)) if c is not None]
        return max(commits, key=lambda c: c.date) if commits else None

    def blame_baseline(self, entry: Entry, refs: list[Reference],
                       base_of: Callable[[Reference], str]) -> tuple[str, dict[str, str]] | None:
        """For an instruction line never verified: the fingerprints of its specific references (scripts,
        targets) as they were when the line was last changed, each resolved from ``base_of(ref)``."""
        if entry.format != "instruction" or not self.history.available:
            return None
        specific = fingerprinted(refs, SPECIFIC_KINDS)
        if not specific:
            return None
        commit = self.last_change(entry.location.path, entry.location.start_line, entry.location.end_line)
        if commit is None:
            return None
        recorded = {}
        for ref in specific:
            fingerprint = self.fingerprint_at(ref, base_of(ref), commit.sha)
            if fingerprint is not None:
                recorded[ref.label()] = fingerprint
        return f"written ({commit.describe()})", recorded


#: A comment in a Makefile, justfile or Taskfile line: a ``#`` at the start or after a blank.
_COMMENT = re.compile(rb"(?:^|\s)#.*$")


def _recipe(lines: list[bytes]) -> bytes:
    """A target's lines as what runs: comments (`dev: ## Start the dev server`), trailing blanks and
    empty lines do not count."""
    kept = [stripped for line in lines if (stripped := _COMMENT.sub(b"", line).rstrip())]
    return b"\n".join(kept)


def _config_value(path: str, data: bytes, dotted: str) -> Any:
    """The value at a dotted key path in a JSON or TOML file (``scripts.test``), or ``None``."""
    try:
        if path.endswith(".toml"):
            node: Any = tomllib.loads(data.decode("utf-8"))
        else:
            node = load_json(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None
    parts = dotted.split(".")
    i = 0
    while i < len(parts):
        if not isinstance(node, dict):
            return None
        # Keys may themselves hold dots or colons ("test:e2e", "project.scripts"): take the longest match.
        for j in range(len(parts), i, -1):
            key = ".".join(parts[i:j])
            if key in node:
                node, i = node[key], j
                break
        else:
            return None
    return node


class Verifications:
    """Recorded verifications: entry fields for entry and MIF files; ``<store>/verified.json`` for
    instruction-file entries, keyed by file and normalised text."""

    FILE = "verified.json"

    def __init__(self, ws: Workspace, sidecar: dict[str, Any]):
        self.ws = ws
        self.sidecar = sidecar

    @classmethod
    def load(cls, ws: Workspace) -> Verifications:
        path = ws.store / cls.FILE
        try:
            data = load_json(read_bytes(path, root=ws.root))
            entries = data.get("entries", {}) if isinstance(data, dict) else {}
        except (OSError, ValueError, UnicodeDecodeError):
            entries = {}
        return cls(ws, entries if isinstance(entries, dict) else {})

    @staticmethod
    def key(entry: Entry) -> str:
        return f"{entry.location.path}::{hashlib.sha1(normalize(entry.content).encode()).hexdigest()[:16]}"

    def verified_at(self, entry: Entry) -> datetime | None:
        """When the entry was last verified (:func:`verified_at`)."""
        return verified_at(entry, self.sidecar)

    def baseline(self, entry: Entry) -> tuple[str, dict[str, str]] | None:
        """When the entry was verified ("verified on 2026-03-01") and the fingerprints recorded then."""
        if entry.format == "instruction":
            record = self.sidecar.get(self.key(entry))
            if not isinstance(record, dict):
                return None
            when, prints = record.get("verified"), record.get("fingerprints")
        else:
            if entry.verified is None:
                return None
            when = entry.verified
            prints = entry.raw.get("fingerprints") if isinstance(entry.raw.get("fingerprints"), dict) else None
            if prints is None:
                explicit = {r.label() if not r.symbol else r.path: r.hash for r in entry.refs if r.hash}
                prints = explicit or None
        if not when or not isinstance(prints, dict):
            return None
        if isinstance(when, datetime):
            day = when.date().isoformat()  # (what strftime("%Y-%m-%d") gives, for any year past 999)
        else:
            try:
                day = datetime.fromisoformat(str(when).replace("Z", "+00:00")).strftime("%Y-%m-%d")
            except ValueError:
                day = str(when)
        return f"verified on {day}", {str(k): str(v) for k, v in prints.items()}


def verified_at(entry: Entry, sidecar: Mapping[str, Any]) -> datetime | None:
    """When an entry was last verified: its ``verified`` field, or for an instruction-file entry its record
    in ``verified.json`` (``sidecar``; a record stops applying once the bullet's text changes)."""
    if entry.format != "instruction":
        return entry.verified
    record = sidecar.get(Verifications.key(entry))
    when = record.get("verified") if isinstance(record, dict) else None
    try:
        return datetime.fromisoformat(str(when).replace("Z", "+00:00")) if when else None
    except ValueError:
        return None
