"""Budgeted context: the memory an agent should load now, within a token budget.

    result = render_context(ws, store, budget=2000, focus=["src/db.ts", "payment retries"])
    print(result.text)            # what `lore context` prints; result.to_json() for --format json

Every live entry is scored (:mod:`.score`), entries that must be read together share a level, and
:mod:`.render` chooses full / compressed / placeholder / left out within the budget, counted on the
final text. The same memory and focus give the same bytes; the previous levels, remembered in
``.lore/cache/context-*.json``, make a level change only when a score moves by more than the hysteresis
margin. Reading never writes memory (no ``last_accessed`` / ``access_count`` update). index.md is
this rendering too (:func:`render_entries` with the ``index`` style), so `lore context`, MCP recall
and index.md agree."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from ...core import fence
from ...core.kinds import is_stale
from ...core.model import Entry, Finding, Severity
from ...core.settings.context import ContextConfig
from ...core.text import summarize
from ...facts.verify import fact_key
from ...infra import cache as cache_files
from ...infra.tokens import TokenMemo
from ...workspace import Workspace
from .access import with_reads
from .render import CONFLICT, CONTEXT, FULL, INDEX, LEVELS, OMITTED, PINNED, Item, Layout, Style, Unit, assign, layout
from .score import Focus, focus_relevance, score, signals
from .timeline import Timeline, blame_dates, elsewhere_note, lead, replaced_part, timeline
from .views import bullet, slug, titled

__all__ = ["CONFLICT", "CONTEXT", "INDEX", "PINNED", "ContextConfig", "ContextResult", "Focus", "RenderedEntry", "Style",
           "render_entries", "stale_entries"]

#: Hysteresis runs to a fixed point in at most this many passes (the previous levels, then the new).
_PASSES = 4


@dataclass
class RenderedEntry:
    id: str
    fidelity: str  # full | compressed | placeholder
    score: float
    text: str


@dataclass
class ContextResult:
    tokens: int
    budget: int
    entries: list[RenderedEntry]
    omitted: list[str]
    text: str
    #: Configuration problems met (a bad value in ``[context]``: its default was used).
    problems: list[str] = field(default_factory=list[str])
    #: Every candidate entry's score (shown or left out), for callers that explain a rendering.
    scores: dict[str, float] = field(default_factory=dict[str, float])

    def to_json(self) -> dict[str, Any]:
        """The ``--format json`` shape: ``{"tokens", "budget", "entries": [{"id", "fidelity", "score",
        "text"}], "omitted", "text"}``."""
        return {"tokens": self.tokens, "budget": self.budget,
                "entries": [{"id": e.id, "fidelity": e.fidelity, "score": e.score, "text": e.text} for e in self.entries],
                "omitted": list(self.omitted), "text": self.text}


def render_entries(ws: Workspace, entries: Sequence[Entry], *, budget: int | None = None, focus: Sequence[str] = (),
                   findings: Sequence[Finding] | None = None, now: datetime | None = None,
                   config: ContextConfig | None = None, conflicts: Sequence[dict[str, Any]] = (),
                   style: Style = CONTEXT, remember: bool = True,
                   narrate: Callable[[dict[str, list[tuple[str, str]]], int], Mapping[str, str]] | None = None,
                   counts: TokenMemo | None = None, compacted: Mapping[str, str] | None = None,
                   near: Sequence[tuple[str, str]] = ()) -> ContextResult:
    """:func:`lorekeeper.app.context.render_context` over a list of entries (compaction passes the memory as its plan leaves
    it); ``style`` ``INDEX`` renders index.md, which reads the remembered levels but never writes them.
    ``narrate`` (the narrative index): given the full entries of each plain category section (no pinned,
    conflicting, superseded or stale entries among them) as (id, text) and the tokens their bullets take,
    returns prose per category, which stands in for those bullets. ``counts``: token counts to share
    with the caller (used when its tokenizer is the configured one). ``compacted``: the compacted/ files
    (``compacted/<category>.md`` → text) when the caller read them: the context then points into them as
    index.md does, and is index.md's text without its generated-file comment, as long as they hold
    every entry it points at. ``near``: pairs of memories related by meaning (the semantic stage's), dated
    as related ones are (:func:`.timeline.timeline`)."""
    config = config or ws.context
    limit = budget if budget is not None else config.budget if config.budget is not None else ws.compaction.budget
    # Recency in whole days: the same memory renders the same all day (prompt caches keep working).
    day = (now or datetime.now(UTC)).astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    wanted = Focus.parse(ws, focus)
    shown = with_reads(ws, _shown(entries, config.include_instructions))
    if not config.include_instructions:  # their facts are not repeated: say where they are
        files = sorted({e.location.path for e in entries if e.format == "instruction" and e.live})
        style = replace(style, elsewhere=tuple(files))
    relevance = focus_relevance(ws, shown, wanted, config)
    stale = stale_entries(shown, findings)
    max_access = max((e.access_count or 0 for e in shown), default=0)
    protected = set(ws.compaction.protected)
    scores = {e.id: score(signals(e, day, config, max_access, relevance.get(e.id, 0.0), protected), config, e.id in stale)
              for e in shown}

    # The passes below count the same lines again and again: each once (``counts``: the caller's memo).
    count = counts if counts is not None and counts.tokenizer == config.tokenizer else TokenMemo(config.tokenizer)
    live = [e for e in entries if e.live]
    times = timeline(live, conflicts, dater=blame_dates(ws), near=near)
    units = _units(shown, scores, stale, config, count, times, {e.id: e for e in live})
    key = _state_key(wanted, limit, config)
    remembered = _read_state(ws, key)

    def settle(style: Style) -> tuple[list[int], Layout]:
        previous = remembered
        levels: list[int] = []
        result = None
        for _ in range(_PASSES):
            for unit in units:
                bonus = 3 - min((LEVELS.index(previous.get(i.id, "omitted")) for i in unit.items), default=OMITTED)
                unit.rank = unit.score + config.hysteresis * bonus
            units.sort(key=Unit.sort_key)
            levels, result = assign(units, limit, style, count, config.compressed_value, config.placeholder_value,
                                    config.full_share)
            now_levels = {i.id: LEVELS[level] for unit, level in zip(units, levels, strict=True) for i in unit.items}
            if now_levels == {k: v for k, v in previous.items() if k in now_levels}:
                break
            previous = now_levels
        assert result is not None  # the loop runs at least once
        return levels, result

    if compacted and not style.index:
        # laid out as index.md is (its header counted), printed without the header: the same text, as long
        # as compacted/ holds what it points at (else memory changed since: the context's own words)
        levels, result = settle(replace(INDEX, elsewhere=style.elsewhere))
        if _points_hold(result, compacted):
            result = layout(units, levels, replace(INDEX, elsewhere=style.elsewhere, header=False), limit, count)
        else:
            levels, result = settle(style)
    else:
        levels, result = settle(style)
    if narrate is not None:
        result = _narrated(units, levels, style, limit, count, narrate, result)
    if remember and not style.index and units:
        _write_state(ws, key, {i.id: LEVELS[lv] for u, lv in zip(units, levels, strict=True) for i in u.items})
    rendered = [RenderedEntry(item.id, LEVELS[level], round(item.score, 3), text) for item, level, text in result.shown]
    omitted = [i.id for i in sorted(result.omitted, key=lambda i: (-i.score, i.id))]
    return ContextResult(result.tokens, limit, rendered, omitted, result.text, list(config.problems), scores)


def _points_hold(result: Layout, compacted: Mapping[str, str]) -> bool:
    """Whether every entry ``result`` does not show in full is in the compacted/ file its line points at
    (its text, or its summary, as that file lists it)."""
    for item in [*result.omitted, *(i for i, level, _ in result.shown if level != FULL)]:
        if item.lead:
            continue  # shown with the newest memory of its subject, which is checked
        text = compacted.get(f"compacted/{slug(item.entry.category)}.md")
        if text is None:
            return False
        forms = [item.entry.content] + ([item.entry.summary] if item.entry.summary else [])
        if not any(bullet(titled(form)).split("\n", 1)[0] in text for form in forms):
            return False
    return True


def _narrated(units: Sequence[Unit], levels: Sequence[int], style: Style, limit: int, count: Callable[[str], int],
              narrate: Callable[[dict[str, list[tuple[str, str]]], int], Mapping[str, str]], plain: Layout) -> Layout:
    """The layout with the narrative index's prose for the sections it was written for (else ``plain``)."""
    sections: dict[str, list[Item]] = {}
    noted: set[str] = set()
    for unit, level in zip(units, levels, strict=True):
        if level != FULL or unit.section in (PINNED, CONFLICT):
            continue
        for item in unit.items:
            sections.setdefault(unit.section, []).append(item)
            if item.note or len(unit.items) > 1:  # superseded or stale: its note must stay with it
                noted.add(unit.section)
    asked = {s: [(i.id, i.full) for i in items] for s, items in sections.items() if s not in noted and len(items) > 1}
    if not asked:
        return plain
    tokens = sum(count(f"- {text}\n") for items in asked.values() for _, text in items)
    prose = narrate(asked, tokens)
    narratives = {s: (frozenset(i for i, _ in asked[s]), text) for s, text in prose.items() if s in asked and text.strip()}
    if not narratives:
        return plain
    narrated = layout(units, levels, style, limit, count, narratives)
    return narrated if narrated.tokens <= limit else plain  # prose is no longer than its bullets; checked anyway


def _shown(entries: Sequence[Entry], include_instructions: bool) -> list[Entry]:
    """Live entries; without instruction files, also without entries that restate one of their facts
    (the agent loads those files anyway)."""
    live = [e for e in entries if e.live and e.source != "heading"]  # (a heading that names a file: no fact)
    if include_instructions:
        return live
    instructions = [e for e in live if e.format == "instruction"]
    if not instructions:
        return live

    said = {fact_key(e.content) for e in instructions}
    return [e for e in live if e.format != "instruction" and fact_key(e.content) not in said]


def stale_entries(entries: Sequence[Entry], findings: Sequence[Finding] | None) -> dict[str, str]:
    """Entries that may no longer hold: marked stale, or with a staleness warning or error now."""
    out = {e.id: e.stale_reason for e in entries if e.stale_reason}
    for finding in findings or ():
        if finding.entry and finding.severity != Severity.info and is_stale(finding.kind):
            out.setdefault(finding.entry, finding.message)
    return out


def _short(text: str, width: int = 80) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _units(entries: list[Entry], scores: dict[str, float], stale: dict[str, str], config: ContextConfig,
           count: TokenMemo, times: Timeline, every: Mapping[str, Entry]) -> list[Unit]:
    """Entries grouped into units: the newest memory of a subject with the older ones it replaced or may
    have (:mod:`.timeline`: shown under it, dated), and the two sides of a conflict with no order; each
    item with its texts and notes. ``every``: the live memory by id (instruction lines included), for
    an older entry whose newer memory is not shown."""

    by_id = {e.id: e for e in entries}
    parent = {e.id: e.id for e in entries}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(x: str, y: str) -> None:
        rx, ry = find(x), find(y)
        if rx != ry:
            parent[max(rx, ry)] = min(rx, ry)

    notes: dict[str, list[str]] = {e.id: [] for e in entries}
    leads: dict[str, str] = {}
    replaced: dict[str, str] = {}  # an older memory shown by the words its replacement took the place of
    for older, earlier in times.links.items():
        if older not in by_id:
            continue
        if earlier.root in by_id:
            union(older, earlier.root)
            leads[older] = lead(earlier)
            if earlier.how == "was" and (part := replaced_part(titled(by_id[older].content),
                                                               titled(by_id[earlier.root].content))):
                replaced[older] = part
        elif earlier.root in every:
            newer = every[earlier.root]
            where = (f"{newer.location.path}:{newer.location.start_line}" if newer.format == "instruction"
                     else fence.code(newer.id))
            notes[older].append(elsewhere_note(earlier, where))
    disputed: set[str] = set()
    for pair in times.unordered:
        if pair[0] not in by_id or pair[1] not in by_id:
            continue
        for mine, other in (pair, pair[::-1]):
            disputed.add(mine)
            created = by_id[mine].created
            when = f"{created:%Y-%m-%d}; " if created else ""
            notes[mine].append(f" ({when}{fence.code(mine)}; disagrees with {fence.code(other)})")
        union(pair[0], pair[1])
    for entry_id, reason in stale.items():
        if entry_id in notes:
            notes[entry_id].append(f" ⚠ may be stale: {fence.inline(_short(reason))}")
    groups: dict[str, list[Entry]] = {}
    for entry in entries:
        groups.setdefault(find(entry.id), []).append(entry)
    units: list[Unit] = []
    texts = {e.id: (titled(e.content), titled(e.summary) if e.summary else summarize(e.content, config.compressed_chars))
             for e in entries}
    count.many(text for pair in texts.values() for text in pair if text)
    for members in groups.values():
        # the newest memory of the subject first, then what it replaced, newest first
        members.sort(key=lambda e: (e.id in leads, -(e.created.timestamp() if e.created else 0.0), e.id))
        items: list[Item] = []
        for entry in members:
            full, short = texts[entry.id]
            if entry.id in replaced:
                full, short = replaced[entry.id], None
            full_tokens = count(full)
            items.append(Item(entry, scores[entry.id], full, short if short and count(short) < full_tokens else None,
                              full_tokens, "".join(notes[entry.id]), leads.get(entry.id, "")))
        pinned = any(e.pinned for e in members)
        section = CONFLICT if any(e.id in disputed for e in members) else PINNED if pinned else members[0].category
        units.append(Unit(items, section, pinned))
    return units


def _state_key(focus: Focus, budget: int, config: ContextConfig) -> str:
    data = json.dumps([focus.key(), budget, config.include_instructions, config.tokenizer])
    return hashlib.blake2b(data.encode("utf-8"), digest_size=6).hexdigest()


def _read_state(ws: Workspace, key: str) -> dict[str, str]:
    data: object = cache_files.read_json(ws.root, ws.cache_dir, f"context-{key}.json", limit=64 * 1024 * 1024)
    levels: object = data.get("levels") if isinstance(data, dict) else None  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    if not isinstance(levels, dict):
        return {}
    items: dict[object, object] = levels  # pyright: ignore[reportUnknownVariableType] - a cache file: anything
    return {str(k): v for k, v in items.items() if isinstance(v, str) and v in LEVELS}


def _write_state(ws: Workspace, key: str, levels: dict[str, str]) -> None:
    if _read_state(ws, key) == levels:
        return  # nothing changed: no write
    data = json.dumps({"levels": dict(sorted(levels.items()))}, ensure_ascii=False, separators=(",", ":"))
    if cache_files.write(ws.root, ws.cache_dir, f"context-{key}.json", data.encode("utf-8")):
        _prune_states(ws)


#: Renderings (focus and budget) whose levels are remembered; the least recently written go first. An
#: agent that recalls with a new focus each time would otherwise fill the cache.
KEEP_STATES = 64


def _prune_states(ws: Workspace) -> None:
    try:
        states = sorted(ws.cache_dir.glob("context-*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        return
    for old in states[KEEP_STATES:]:
        cache_files.delete(ws.root, ws.cache_dir, old.name)
