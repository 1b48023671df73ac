"""Time in the renderings: a memory that something newer replaced, or may have, is shown under the newest
memory of its subject, dated — never as an undated equal of its replacement.

- **was** — a newer memory replaced it (it ``supersedes`` this one), or disagrees with it and was written
  later: "was, until 2026-02-24: `make test`" under "Run tests with `make test-quiet`." (the words it
  replaced, :func:`replaced_part`; the whole older text when the two share less than 60% of its words). The newer is
  what holds now; the older stays visible, dated, until someone keeps one (`lore review`).
- **older** — a newer memory may speak of the same subject (:func:`lorekeeper.facts.subjects.related`):
  "older, 2025-05-25: uv run ruff check ." The relation is no verdict; the date lets the reader judge.

Two memories that disagree and were written at the same moment have no order: they stay "Not settled".
Each memory hangs under the newest one its chain of newer memories reaches (its *root*); the root may be
a line of an instruction file that the rendering does not repeat, in which case the older memory says
where the newer one is.

Invariant: pure function of the entries and the conflicts found (no I/O)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from difflib import SequenceMatcher
from typing import Any

from ...core.model import Entry
from ...facts.subjects import related_pairs
from ...refs.history import ZERO, GitHistory
from ...workspace import Workspace


@dataclass(frozen=True)
class Earlier:
    """Where an older memory is shown: under ``root``; ``how`` it relates ("was" / "older"); ``until``:
    when the memory that replaced it was written (for "was")."""

    root: str
    how: str
    until: datetime | None
    created: datetime


def lead(earlier: Earlier) -> str:
    """Lorekeeper's words before an older memory's text."""
    if earlier.how == "was" and earlier.until is not None:
        return f"was, until {earlier.until:%Y-%m-%d}: "
    return f"older, {earlier.created:%Y-%m-%d}: "


#: The words of a text for :func:`replaced_part`: a code span is one word, so that a part never cuts one.
_WORDS = re.compile(r"`[^`\n]*`|[^\s`]+")


def replaced_part(old: str, new: str) -> str | None:
    """What an older memory said that the newer one under which it is shown replaced: the older's words
    the newer does not have, in order, gaps as " … " ("Run tests with `make test`." under "Run tests with
    `make test-quiet`." is "`make test`"; one bare word comes with the word before it: "Node 18"). ``None``
    (show the older whole) when the two share less than 60% of the older's words, when it is shorter than
    three words or spans lines, or when nothing of it was replaced."""
    if "\n" in old.strip():
        return None
    a, b = _WORDS.findall(old), _WORDS.findall(new)
    if len(a) < 3:
        return None
    matcher = SequenceMatcher(a=a, b=b, autojunk=False)
    if sum(block.size for block in matcher.get_matching_blocks()) < 0.6 * len(a):
        return None
    spans = [(i1, i2) for tag, i1, i2, _, _ in matcher.get_opcodes()
             if tag in ("replace", "delete") and any(w.strip(".,;:!?()[]'\"") for w in a[i1:i2])]
    if len(spans) == 1 and spans[0][1] - spans[0][0] == 1 and spans[0][0] > 0 and not a[spans[0][0]].startswith("`"):
        spans = [(spans[0][0] - 1, spans[0][1])]  # one bare word says more with the one before it: "Node 18"
    return " … ".join(" ".join(a[i1:i2]) for i1, i2 in spans) or None


def elsewhere_note(earlier: Earlier, where: str) -> str:
    """The note of an older memory whose root is not in the rendering (a line of an instruction file)."""
    if earlier.how == "was" and earlier.until is not None:
        return f" (was, until {earlier.until:%Y-%m-%d}: {where} states it newer)"
    return f" (older, {earlier.created:%Y-%m-%d}, than {where})"


#: Dates of some instruction lines, by entry id (their own lines' last commits): see :func:`blame_dates`.
Dater = Callable[[Sequence[Entry]], Mapping[str, datetime]]


@dataclass
class Timeline:
    """``links``: each older memory and where it is shown; ``unordered``: pairs that disagree with no
    order (written at the same moment): not settled."""

    links: dict[str, Earlier] = field(default_factory=dict[str, Earlier])
    unordered: list[tuple[str, str]] = field(default_factory=list[tuple[str, str]])


def timeline(entries: Sequence[Entry], conflicts: Iterable[Mapping[str, Any]] = (), *,
             relate: bool = True, dater: Dater | None = None, near: Iterable[tuple[str, str]] = ()) -> Timeline:
    """For each live memory that a newer one replaced or may have, where it is shown. ``entries``: the
    live memory (instruction lines included: an entry may be older than a line of AGENTS.md);
    ``conflicts``: the contradictions found; ``relate``: also date memories merely related; ``dater``:
    the dates of the instruction lines met in a pair (else each is dated by its file); ``near``: pairs of
    ids related by meaning (the semantic stage's, :func:`lorekeeper.analysis.compaction.semantic.near_subjects`),
    dated as the related are."""
    live = [e for e in entries if e.live]
    by_id = {e.id: e for e in live}
    contradictions: list[tuple[str, str]] = []
    for conflict in conflicts:
        if conflict.get("kind", "contradiction") != "contradiction":
            continue
        pair = [str(i) for i in conflict.get("entries", [])]
        if len(pair) == 2 and pair[0] in by_id and pair[1] in by_id:
            contradictions.append((pair[0], pair[1]))
    relations = [(r.a.id, r.b.id) for r in related_pairs(live)] if relate else []
    if relate:
        known = {frozenset(pair) for pair in relations}
        relations += [(a, b) for a, b in near if a in by_id and b in by_id and frozenset((a, b)) not in known]
    # two memories someone said are both true ("keep both") are neither older nor replaced
    both = {frozenset((e.id, other)) for e in live for other in e.coexists_with}
    contradictions = [p for p in contradictions if frozenset(p) not in both]
    relations = [p for p in relations if frozenset(p) not in both]
    when = {e.id: e.created for e in live}
    if dater is not None:
        lines = {i: by_id[i] for pair in (*contradictions, *relations) for i in pair
                 if by_id[i].format == "instruction" and any(by_id[j].format != "instruction" for j in pair)}
        if lines:
            when.update(dater(list(lines.values())))

    out = Timeline()
    replaced: dict[str, list[str]] = {}
    for entry in live:
        for old in entry.supersedes:
            if old in by_id and old != entry.id:
                replaced.setdefault(old, []).append(entry.id)
    for a, b in contradictions:
        ta, tb = when[a], when[b]
        if ta is None or tb is None or ta == tb:
            out.unordered.append((a, b))
        else:
            older, newer = (a, b) if ta < tb else (b, a)
            replaced.setdefault(older, []).append(newer)
    maybe: dict[str, list[str]] = {}
    for a, b in relations:
        ta, tb = when[a], when[b]
        if ta is not None and tb is not None and ta != tb:
            older, newer = (a, b) if ta < tb else (b, a)
            maybe.setdefault(older, []).append(newer)

    def stamp(entry_id: str) -> datetime:
        value = when[entry_id]
        assert value is not None
        return value

    parent: dict[str, tuple[str, str]] = {}
    for older, newers in replaced.items():
        dated = [n for n in newers if when[n] is not None]
        if when[older] is None or not dated:
            continue
        later = [n for n in dated if stamp(n) >= stamp(older)] or dated
        parent[older] = (min(later, key=lambda n: (stamp(n), n)), "was")  # the first memory that replaced it
    for older, newers in maybe.items():
        if older not in parent:
            parent[older] = (min(newers, key=lambda n: (stamp(n), n)), "older")

    for older, (newer, how) in parent.items():
        root, seen = newer, {older}
        while root in parent and root not in seen:  # a chain of newer memories; never a loop
            seen.add(root)
            root = parent[root][0]
        if root != older:  # a supersedes link that points back leaves both shown as they are
            out.links[older] = Earlier(root, how, when[newer] if how == "was" else None, stamp(older))
    return out


def blame_dates(ws: Workspace) -> Dater:
    """Dates instruction lines by their own last commit (``git blame``; the newest of a unit's lines), not
    by their file's first: a line added to CLAUDE.md last week is last week's memory. Lines not
    committed, or where git cannot say, keep their file's date."""

    def dates(entries: Sequence[Entry]) -> dict[str, datetime]:
        out: dict[str, datetime] = {}
        asked: list[tuple[Entry, tuple[Any, ...] | None]] = []
        for entry in entries:
            key = _line_key(ws, entry)
            if key is not None and key in _DATED:
                if (known := _DATED[key]) is not None:
                    out[entry.id] = known
            else:
                asked.append((entry, key))
        if not asked:
            return out
        history = GitHistory(ws.root, ws.cache_dir)
        if not history.available:
            return out
        by_path: dict[str, list[tuple[Entry, tuple[Any, ...] | None]]] = {}
        for entry, key in asked:
            by_path.setdefault(entry.location.path, []).append((entry, key))
        if len(_DATED) > _DATED_MAX:
            _DATED.clear()
        for path, group in sorted(by_path.items()):
            shas = history.blame(path)
            for entry, key in group:
                stamps = [_parse(commit.date) for sha in (shas or [])[entry.location.start_line - 1: entry.location.end_line]
                          if sha != ZERO and (commit := history.commit(sha)) is not None]
                known = max((s for s in stamps if s is not None), default=None)
                if known is not None:
                    out[entry.id] = known
                if key is not None and shas is not None:
                    _DATED[key] = known
        history.save()
        return out

    return dates


#: Lines dated before, by where they are and their file as it was (an editor asks again at every save).
_DATED: dict[tuple[Any, ...], datetime | None] = {}
_DATED_MAX = 20_000


def _line_key(ws: Workspace, entry: Entry) -> tuple[Any, ...] | None:
    """What a line's date depends on: its file as it is on disk (size, time), its place in it, and what
    git last recorded (the index changes with every commit, checkout and stage)."""
    try:
        info = os.stat(ws.root / entry.location.path)
        index = os.stat(ws.root / ".git" / "index").st_mtime_ns if (ws.root / ".git").is_dir() else 0
    except OSError:
        return None
    return (str(ws.root), entry.location.path, info.st_mtime_ns, info.st_size, index, entry.location.start_line,
            entry.location.end_line)


def _parse(value: str) -> datetime | None:
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
