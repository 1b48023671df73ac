"""What an entry is worth to an agent now: signals from 0 to 1 (recency, importance, access, focus,
pinned / protected, content type), weighted as ``[context]`` says and averaged into one score."""

from __future__ import annotations

import logging
import math
import posixpath
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from ...core.model import Entry
from ...core.settings.context import ContextConfig
from ...workspace import Workspace

log = logging.getLogger("lorekeeper")

#: Content types and what each weighs (errors, decisions and caveats up; tool output down).
TYPE_VALUE = {"error": 1.0, "decision": 1.0, "caveat": 1.0, "fact": 0.5, "tool-output": 0.0}

_LABELS = {
    "tool-output": {"tool-output", "tool_output", "output", "log", "logs", "transcript", "command-output"},
    "error": {"error", "errors", "bug", "bugs", "incident", "incidents", "failure", "failures"},
    "decision": {"decision", "decisions", "adr", "adrs", "architecture"},
    "caveat": {"caveat", "caveats", "pitfall", "pitfalls", "gotcha", "gotchas", "warning", "warnings", "security"},
}
_WORDS = {
    "error": r"errors?|exceptions?|fails?|failed|failing|crash(?:es|ed)?|traceback|bug",
    "decision": r"decided|decision|we chose|chosen over|in favou?r of",
    "caveat": r"never|don't|do not|must not|avoid|beware|careful|caveat|gotcha|warning",
}
_TEXT = {kind: re.compile(rf"\b({words})\b", re.I) for kind, words in _WORDS.items()}
_TEXT_LOWER = {kind: re.compile(pattern.pattern) for kind, pattern in _TEXT.items()}  # for lowered ASCII text
#: Whether a text holds a word of any kind: one scan, where most texts (facts) took three. A lowered
#: ASCII text is looked at only where a word of theirs can start (every letter after a "|" or "(" of a
#: pattern: a few more than need be, never fewer).
_STARTS = sorted({part[0] for words in _WORDS.values() for part in re.split(r"[|(]|\?:", words) if part})
assert all(c.isalpha() and c.islower() for c in _STARTS), _STARTS
_ANY = re.compile(rf"\b(?:{'|'.join(_WORDS.values())})\b", re.I)
_ANY_LOWER = re.compile(rf"(?=[{''.join(_STARTS)}])\b(?:{'|'.join(_WORDS.values())})\b")
_OUTPUT_LINE = re.compile(r"^\s*(\$ |>>> |\[?(INFO|DEBUG|WARN|WARNING|ERROR)\b|\d{4}-\d\d-\d\d[T ]\d\d:\d\d)")


def content_type(entry: Entry) -> str:
    """``error``, ``decision``, ``caveat``, ``tool-output`` or ``fact``: from the category and tags first,
    then from the text (a body mostly of prompts and log lines is tool output)."""
    labels = {entry.category.lower(), *(t.lower() for t in entry.tags)}
    for kind in ("tool-output", "error", "decision", "caveat"):
        if labels & _LABELS[kind]:
            return kind
    lines = [line for line in entry.content.splitlines() if line.strip()]
    if len(lines) >= 3 and sum(bool(_OUTPUT_LINE.match(line)) for line in lines) * 5 >= len(lines) * 3:
        return "tool-output"
    return _type_of_text(entry.content)


def _type_of_text(content: str) -> str:
    """``error``, ``decision`` or ``caveat`` when the text says one of their words (in that order), else
    ``fact``."""
    # ASCII text lowered matches the patterns without IGNORECASE exactly as the text matches them with
    # it, twice as fast (other text may fold otherwise: it is searched as it is).
    if content.isascii():
        patterns, every, text = _TEXT_LOWER, _ANY_LOWER, content.lower()
    else:
        patterns, every, text = _TEXT, _ANY, content
    if every.search(text) is None:  # where no pattern matches, nor does any of the three
        return "fact"
    for kind in ("error", "decision", "caveat"):
        if patterns[kind].search(text):
            return kind
    return "fact"


def decay(moment: datetime | None, now: datetime, half_life_days: float) -> float:
    """1 now, halving every ``half_life_days`` before it; 0 when unknown."""
    if moment is None:
        return 0.0
    age = max(0.0, (now - moment).total_seconds() / 86400)
    return 0.5 ** (age / half_life_days)


@dataclass(frozen=True)
class Focus:
    """What the agent works on: workspace-relative paths (files or folders) and free-text queries."""

    paths: tuple[str, ...] = ()
    queries: tuple[str, ...] = ()

    @classmethod
    def parse(cls, ws: Workspace, items: Sequence[str]) -> Focus:
        """A path is an item without spaces that names something in the workspace, or looks like a path
        (a ``/`` or a file extension); anything else is a query."""
        paths: list[str] = []
        queries: list[str] = []
        for raw in items:
            item = raw.strip()
            if not item:
                continue
            path = _as_path(ws, item)
            (paths if path is not None else queries).append(path if path is not None else item)
        return cls(tuple(dict.fromkeys(paths)), tuple(dict.fromkeys(queries)))

    def key(self) -> list[str]:
        return sorted(f"path:{p}" for p in self.paths) + sorted(f"query:{q}" for q in self.queries)


def _as_path(ws: Workspace, item: str) -> str | None:
    if any(c.isspace() for c in item):
        return None
    text = item.replace("\\", "/")
    if text.startswith("/"):
        root = ws.root.as_posix().rstrip("/") + "/"
        if not text.startswith(root):
            return None
        text = text[len(root):]
    folder = text.endswith("/")
    text = posixpath.normpath(text.removeprefix("./")) if text.strip("/.") else ""
    if not text or text.startswith(".."):
        return None
    exists = (ws.root / text).exists()
    if not (exists or folder or "/" in text or re.search(r"\.[A-Za-z0-9]{1,8}$", text)):
        return None
    return text + "/" if folder or (exists and (ws.root / text).is_dir()) else text


def _mentions(text: str, path: str) -> bool:
    return re.search(r"(?<![\w./-])" + re.escape(path) + r"(?![\w-])", text) is not None


def path_relevance(entry: Entry, focus: str) -> float:
    """1 when the entry's refs or text name the focused path (or something under a focused folder); 0.6
    for a ref to a file in the same folder or to that folder; 0.4 when the text names the file's name
    alone; else 0."""
    folder = focus.endswith("/")
    target = focus.rstrip("/")
    parent = posixpath.dirname(target)
    best = 0.0
    for ref in entry.refs:
        ref_path = posixpath.normpath(ref.path.replace("\\", "/").removeprefix("./")).rstrip("/")
        if ref_path == target or (folder and ref_path.startswith(target + "/")):
            return 1.0
        if not folder and (ref_path == parent or posixpath.dirname(ref_path) == parent) and parent:
            best = max(best, 0.6)
    if _mentions(entry.content, target):
        return 1.0
    name = posixpath.basename(target)
    if not folder and "." in name and len(name) > 4 and _mentions(entry.content, name):
        best = max(best, 0.4)
    return best


def focus_relevance(ws: Workspace, entries: list[Entry], focus: Focus, config: ContextConfig) -> dict[str, float]:
    """Each entry's relevance to the focus, 0 to 1: the best over its paths and queries. Queries rank by
    BM25 (normalised by the best hit), and by cosine with local embeddings when ``config.semantic``."""
    out: dict[str, float] = {}
    if not focus.paths and not focus.queries:
        return out
    for entry in entries:
        best = max((path_relevance(entry, p) for p in focus.paths), default=0.0)
        if best:
            out[entry.id] = best
    if focus.queries and entries:
        from ..search import SearchIndex

        index = SearchIndex(entries)
        for query in focus.queries:
            hits = index.search(query, limit=len(entries))
            top = hits[0].score if hits else 0.0
            for hit in hits:
                out[hit.entry.id] = max(out.get(hit.entry.id, 0.0), hit.score / top if top > 0 else 0.0)
        if config.semantic:
            for entry_id, cosine in _semantic(ws, entries, focus.queries).items():
                out[entry_id] = max(out.get(entry_id, 0.0), cosine)
    return out


def _semantic(ws: Workspace, entries: list[Entry], queries: Iterable[str]) -> dict[str, float]:
    """Cosines of each entry with the closest query (negative ones as 0), from the semantic stage's
    vectors; nothing when its model cannot be loaded."""
    from ..semantic import SemanticUnavailable, load_embedder, vectors_for

    wanted = list(queries)
    try:
        embedder = load_embedder(ws.compaction.semantic_model)
        texts = [e.content for e in entries]
        vectors = vectors_for(ws, texts + wanted, embedder.model_id, lambda: embedder)
    except SemanticUnavailable as exc:
        log.warning("context: focus ranked without embeddings: %s", exc)
        return {}
    sims = vectors[: len(texts)] @ vectors[len(texts):].T
    return {e.id: max(0.0, float(sims[i].max())) for i, e in enumerate(entries)}


@dataclass(frozen=True)
class Signals:
    recency: float
    importance: float
    access: float
    focus: float
    pinned: float
    type: float


def signals(entry: Entry, now: datetime, config: ContextConfig, max_access: int, focus: float,
            protected: Iterable[str]) -> Signals:
    """The entry's signals, each from 0 to 1."""
    moments = [m for m in (entry.created, entry.verified) if m is not None]
    recency = decay(max(moments) if moments else None, now, config.half_life_days)
    importance = next((v for v in (entry.importance, entry.confidence, entry.strength) if v is not None), 0.5)
    count = entry.access_count or 0
    frequency = math.log1p(count) / math.log1p(max_access) if max_access > 0 else 0.0
    access = (frequency + decay(entry.last_accessed, now, config.half_life_days)) / 2
    pinned = 1.0 if entry.pinned else 0.5 if entry.category in protected else 0.0
    return Signals(recency, importance, access, focus, pinned, TYPE_VALUE[content_type(entry)])


def score(values: Signals, config: ContextConfig, stale: bool) -> float:
    """The weighted mean of the signals (0 to 1), scaled down for a stale memory; rounded so that the
    same memory always scores the same."""
    pairs = ((values.recency, config.recency_weight), (values.importance, config.importance_weight),
             (values.access, config.access_weight), (values.focus, config.focus_weight),
             (values.pinned, config.pinned_weight), (values.type, config.type_weight))
    total = sum(w for _, w in pairs)
    mean = sum(v * w for v, w in pairs) / total if total > 0 else 0.0
    return round(mean * (config.stale_factor if stale else 1.0), 4)
