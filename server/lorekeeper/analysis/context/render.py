"""Fidelity: which entry is shown full, compressed, as a placeholder, or left out, and the text.

Entries that must be read together (an entry and the live entries it supersedes; two that disagree)
form one *unit* and share a level. Units are ranked by score (plus the hysteresis bonus of their
previous level); the levels follow the rank — full, then compressed, then placeholders, then left out —
so a unit is never shown at a lower fidelity than one ranked below it. The best units are full, in rank
order, within ``full_share`` of the budget; then a greedy chooses, move by move, the upgrade that adds the most score per token (a full entry counts its whole
score, a compressed one ``compressed_value`` of it, a placeholder ``placeholder_value``) until nothing
more fits; the final text is then counted, and moves are taken back until it fits the budget."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from ...core import fence
from ...core.model import Entry
from .views import HEADER, TITLES, bullet, nested, slug

FULL, COMPRESSED, PLACEHOLDER, OMITTED = 0, 1, 2, 3
LEVELS = ("full", "compressed", "placeholder", "omitted")
PINNED, CONFLICT = "\x00pinned", "\x00conflict"
#: Topics the "Left out" line names (by count); the rest are counted.
_TOPICS = 8
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Style:
    """How the text reads: ``context`` (what `lore context` and MCP recall print: placeholders name ids
    to fetch with `lore show`) or ``index`` (index.md: placeholders point at compacted/<category>.md)."""

    name: str
    #: Instruction files whose facts the text does not repeat (agents load them as they are): named at
    #: the end, so that every fact is stated or pointed at.
    elsewhere: tuple[str, ...] = ()
    #: The generated-file comment first (index.md itself; `lore context` pointing into compacted/ prints
    #: the same text without it).
    header: bool = False

    @property
    def index(self) -> bool:
        return self.name == "index"


CONTEXT = Style("context")
INDEX = Style("index", header=True)


@dataclass
class Item:
    """One entry as it can be shown."""

    entry: Entry
    score: float
    full: str
    #: A shorter text (its summary, else a deterministic shortening); None when there is none.
    short: str | None
    full_tokens: int
    note: str = ""
    #: Lorekeeper's words before an older memory shown under the newest of its subject ("was, until
    #: 2026-02-24: "): the item is nested under the first of its unit.
    lead: str = ""

    @property
    def id(self) -> str:
        return self.entry.id


@dataclass
class Unit:
    """Entries that share one level."""

    items: list[Item]
    section: str
    pinned: bool
    rank: float = 0.0

    @property
    def score(self) -> float:
        return max(i.score for i in self.items)

    @property
    def weight(self) -> float:
        return sum(i.score for i in self.items)

    def sort_key(self) -> tuple[float, str]:
        return (-self.rank, self.items[0].id)

    def when(self) -> float:
        return (self.items[0].entry.created or _EPOCH).timestamp()


@dataclass
class Layout:
    text: str
    tokens: int
    #: (item, level, the text shown for it) in the order of the text.
    shown: list[tuple[Item, int, str]] = field(default_factory=list[tuple[Item, int, str]])
    omitted: list[Item] = field(default_factory=list[Item])


def _title(section: str) -> str:
    """The heading of a section: Lorekeeper's own, or a category's (which never reads as Lorekeeper's)."""
    return "Pinned" if section == PINNED else "Not settled" if section == CONFLICT else fence.heading(section, TITLES)


def _topic(section: str) -> str:
    return "not settled" if section == CONFLICT else "pinned" if section == PINNED else fence.inline(section)


def item_line(item: Item, level: int, style: Style) -> str:
    """The bullet of one entry at full or compressed level."""
    if level == COMPRESSED and item.short is not None:
        more = "" if style.index else f" (more: {fence.code(f'lore show {item.id}')})"
        line = bullet(item.short, item.note + more)
    else:
        line = bullet(item.full, item.note)
    return nested(line, item.lead) if item.lead else line


def placeholder_line(section: str, items: Sequence[Item], style: Style) -> str:
    """One line for the placeholders of a section (adjacent placeholders of a topic collapse into one)."""
    saved = sum(i.full_tokens for i in items)
    if style.index:
        if section == CONFLICT:
            return f"- …{len(items)} more that disagree: see compacted/ and `lore review`"
        category = items[0].entry.category
        return f"- …{len(items)} more in compacted/{slug(category)}.md (under “{fence.heading(category, TITLES)}”)"
    if len(items) == 1:
        one = items[0].id
        return (f"- ⋯ {fence.code(one)} ({_topic(section)}, {saved} tokens not shown): "
                f"{fence.code(f'lore show {one}')}")
    ids = ", ".join(fence.inline(i.id) for i in items)
    return f"- ⋯ {len(items)} more {_topic(section)} entries ({saved} tokens not shown; `lore show ID`): {ids}"


def omitted_lines(items: Sequence[Item], style: Style) -> list[str]:
    """What says that entries were left out (every one, by count)."""
    if not items:
        return []
    counts: dict[str, int] = {}
    for item in items:
        counts[item.entry.category] = counts.get(item.entry.category, 0) + 1
    if style.index:
        return ["", "## More", ""] + [f"- {fence.inline(c)}: {n} more in compacted/{slug(c)}.md"
                                      for c, n in sorted(counts.items())]
    pinned = sum(i.entry.pinned for i in items)
    also = f" (with {pinned} pinned that did not fit)" if pinned else ""
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    topics = ", ".join(f"{fence.inline(c)} {n}" for c, n in ranked[:_TOPICS])
    if len(ranked) > _TOPICS:
        topics += f", {len(ranked) - _TOPICS} more topics"
    return ["", "## Left out", "",
            f"- {len(items)} {'entry' if len(items) == 1 else 'entries'} with the lowest scores{also}, by topic: "
            f"{topics}. `lore search WORDS` (MCP `query`) finds them; `lore context --format json` lists their ids"]


def elsewhere_lines(style: Style) -> list[str]:
    """Where the facts not repeated here are: the instruction files agents load as they are."""
    if not style.elsewhere:
        return []
    files = ", ".join(fence.inline(path) for path in style.elsewhere)
    return ["", "## Instruction files", "", f"- {files}: agents load these as they are; their facts are not repeated here"]


def status_line(style: Style, tokens: int, budget: int, counts: Sequence[int]) -> str:
    full, compressed, placeholders, omitted = counts
    said = f"{tokens}/{budget} tokens; {full} full, {compressed} compressed, {placeholders} as placeholders, {omitted} left out"
    if style.index:
        return f"<!-- {said}. Every fact: compacted/<category>.md. -->"
    return f"<!-- Lorekeeper memory: {said}. -->"


def layout(units: Sequence[Unit], levels: Sequence[int], style: Style, budget: int,
           count: Callable[[str], int], narratives: Mapping[str, tuple[frozenset[str], str]] | None = None) -> Layout:
    """The text for units at the given levels, its size in tokens (which it states, counted on the
    final text), what it shows and what it leaves out. ``narratives``: section -> (ids, prose): where the
    entries a section shows in full are exactly those ids, the prose stands in for their bullets (the
    narrative index; the prose was checked against them and is no longer than they are)."""
    sections: dict[str, list[tuple[Unit, int]]] = {}
    omitted: list[Item] = []
    for unit, level in zip(units, levels, strict=True):
        if level == OMITTED:
            omitted.extend(unit.items)
        else:
            sections.setdefault(unit.section, []).append((unit, level))
    order = [s for s in (PINNED, CONFLICT) if s in sections] + sorted(s for s in sections if s not in (PINNED, CONFLICT))
    body: list[str] = []
    shown: list[tuple[Item, int, str]] = []
    for section in order:
        placed = sorted(sections[section], key=lambda p: (p[1], -p[0].when(), p[0].items[0].id))
        body += ["", f"## {_title(section)}", ""]
        if section == CONFLICT:
            body.append("These memories disagree; neither is current until one is kept.")
        waiting: list[Item] = []
        prose = (narratives or {}).get(section)
        full_ids = frozenset(i.id for unit, level in placed if level == FULL for i in unit.items)
        if prose is not None and (prose[0] != full_ids or not full_ids):
            prose = None
        if prose is not None:  # the model's prose is written from memory: quoted as memory is
            body += ["\n".join(fence.lines(prose[1].strip(), lists=True)), ""]
        for unit, level in placed:
            for item in unit.items:
                if level == PLACEHOLDER:
                    waiting.append(item)
                    continue
                line = item_line(item, level, style)
                fidelity = level if level == FULL or item.short is not None else FULL
                shown.append((item, fidelity, line.lstrip()[2:]))
                if prose is not None and level == FULL:
                    continue  # said in the prose above
                body.append(line)
        if prose is not None and body[-1] == "":
            body.pop()
        if waiting:
            line = placeholder_line(section, waiting, style)
            body.append(line)
            shown += [(i, PLACEHOLDER, placeholder_line(section, [i], style)[2:]) for i in waiting]
    body += omitted_lines(omitted, style)
    body += elsewhere_lines(style)
    counts = [sum(f == FULL for _, f, _ in shown), sum(f == COMPRESSED for _, f, _ in shown),
              sum(f == PLACEHOLDER for _, f, _ in shown), len(omitted)]
    head = [HEADER] if style.header else []
    tokens = 0
    text = ""
    for _ in range(6):  # the text states its own size: settle the number
        lines = [*head, status_line(style, tokens, budget, counts), "", "# Project memory", *body]
        text = "\n".join(lines) + "\n"
        counted = count(text)
        if counted == tokens:
            break
        tokens = counted
    if count(text) != tokens:  # did not settle (a digit boundary): state the larger, which is the true one
        tokens = max(tokens, count(text))
    return Layout(text, count(text), shown, omitted)


class Costs:
    """Estimated tokens of each unit at each level, and of what a section adds, for the greedy."""

    def __init__(self, units: Sequence[Unit], style: Style, count: Callable[[str], int]):
        self.style = style
        self.count = count
        self.units = units
        self._level: dict[int, list[int]] = {}
        self.header: dict[str, int] = {}
        self.first_placeholder: dict[str, int] = {}
        for unit in units:
            section = unit.section
            if section not in self.header:
                self.header[section] = count(f"\n## {_title(section)}\n\n") + (
                    count("These memories disagree; neither is current until one is kept.\n") if section == CONFLICT else 0)
                self.first_placeholder[section] = count(placeholder_line(section, [*unit.items, *unit.items], style)) + 1

    def level(self, k: int) -> list[int]:
        """Unit ``k``'s tokens at each level (full, compressed, placeholder, omitted), counted when first
        asked: the greedy stops at the first units that do not fit, and most of a large memory is never
        asked about."""
        known = self._level.get(k)
        if known is None:
            items, count, style = self.units[k].items, self.count, self.style
            full = sum(count(item_line(i, FULL, style)) + 1 for i in items)
            short = sum(count(item_line(i, COMPRESSED, style)) + 1 for i in items)
            ids = 0 if style.index else sum(count(f", {i.id}") for i in items)
            known = self._level[k] = [full, short, ids, 0]
        return known


def assign(units: Sequence[Unit], budget: int, style: Style, count: Callable[[str], int],
           compressed_value: float, placeholder_value: float, full_share: float = 0.6) -> tuple[list[int], Layout]:
    """Levels for the units that fit ``budget``, and their layout. ``units`` are in rank order. Pinned
    units first (full, while they fit); then the best units full, in rank order, within ``full_share`` of
    what is left; then the greedy (which may make more of them full)."""
    n = len(units)
    nothing = Layout("", 0, [], [i for u in units for i in u.items])
    frame = layout([], [], style, budget, count).tokens
    if frame > budget:  # not even the frame fits: nothing is shown
        return [OMITTED] * n, nothing
    left_out = count("\n".join(omitted_lines(nothing.omitted, style)) + "\n") if n else 0
    costs = Costs(units, style, count)
    used = frame + left_out
    remaining = n  # units left out
    visible: dict[str, int] = {}
    placeholders: dict[str, int] = {}
    levels = [OMITTED] * n
    moves: list[list[int]] = []

    def delta(k: int, new: int) -> int:
        """Tokens added by moving unit ``k`` from its level to ``new`` (sections and collapsed lines included)."""
        old, section = levels[k], units[k].section
        level = costs.level(k)
        change = level[new] - level[old]
        if old == OMITTED and not visible.get(section):
            change += costs.header[section]
        if new == PLACEHOLDER and not placeholders.get(section):
            change += costs.first_placeholder[section]
        if old == PLACEHOLDER and placeholders.get(section) == 1:
            change -= costs.first_placeholder[section]
        if old == OMITTED and remaining == 1:
            change -= left_out  # the last one in: no "left out" lines
        return change

    def move(k: int, new: int) -> None:
        nonlocal used, remaining
        used += delta(k, new)
        old, section = levels[k], units[k].section
        if old == OMITTED:
            visible[section] = visible.get(section, 0) + 1
            remaining -= 1
        if old == PLACEHOLDER:
            placeholders[section] -= 1
        if new == PLACEHOLDER:
            placeholders[section] = placeholders.get(section, 0) + 1
        levels[k] = new
        moves.append(levels.copy())

    def value(k: int, level: int) -> float:
        if level == OMITTED:
            return 0.0
        if level == PLACEHOLDER:
            return units[k].weight * placeholder_value
        if level == COMPRESSED:
            return sum(i.score * (compressed_value if i.short is not None else 1.0) for i in units[k].items)
        return units[k].weight

    pinned = [k for k in range(n) if units[k].pinned]
    for k in pinned:  # pinned: always full, while they fit
        if used + delta(k, FULL) <= budget:
            move(k, FULL)
    free = [k for k in range(n) if not units[k].pinned]
    a = b = c = 0  # the first a free units full, the next b compressed, the next c placeholders
    share = used + full_share * max(0, budget - used)
    while a < len(free) and used + delta(free[a], FULL) <= share:  # the highest-scoring facts stay full
        move(free[a], FULL)
        a += 1
    while True:
        candidates: list[tuple[float, int, int, int]] = []  # (-gain per token, order, unit, level)
        for order, (index, level) in enumerate(((a + b + c, PLACEHOLDER), (a + b, COMPRESSED), (a, FULL))):
            if index >= len(free):
                continue
            k = free[index]
            if levels[k] <= level:
                continue
            cost = delta(k, level)
            gain = value(k, level) - value(k, levels[k])
            if used + cost > budget:
                continue
            ratio = float("inf") if cost <= 0 else gain / cost
            candidates.append((-ratio, order, k, level))
        if not candidates:
            break
        _, _, k, level = min(candidates)
        before = levels[k]
        move(k, level)
        if level == PLACEHOLDER:
            c += 1
        elif level == COMPRESSED:
            b, c = b + 1, c - (before == PLACEHOLDER)
        else:
            a, b, c = a + 1, b - (before == COMPRESSED), c - (before == PLACEHOLDER)
    states = [[OMITTED] * n, *moves]
    # The estimate is close but not exact (separators, collapsed lines): count the real text, and step
    # back to the longest prefix of moves whose text fits (none may: then nothing is shown).
    best = len(states) - 1
    result = layout(units, states[best], style, budget, count)
    if result.tokens <= budget:
        return states[best], result
    low, high = -1, best - 1
    while low < high:
        mid = (low + high + 1) // 2
        if layout(units, states[mid], style, budget, count).tokens <= budget:
            low = mid
        else:
            high = mid - 1
    while low >= 0 and layout(units, states[low], style, budget, count).tokens > budget:
        low -= 1
    if low < 0:
        return [OMITTED] * n, nothing
    return states[low], layout(units, states[low], style, budget, count)
