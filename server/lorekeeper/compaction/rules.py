"""Stage 1 compaction: deterministic rules, no model. Each rule consumes entries from a shared pool so
that an entry takes part in one operation at most; the order is supersede, dedup, merge, archive,
consolidate, fuse, compress.

Only entry and MIF files are rewritten. Instruction-file entries (CLAUDE.md bullets...) are read and can
be the survivor of a dedup or merge, but their text is the user's: stage 1 never edits it."""

from __future__ import annotations

import re
import secrets
from collections import defaultdict
from datetime import datetime, timedelta, timezone
from typing import Any, Iterable

from rapidfuzz import fuzz

from ..model import Entry
from ..text import normalize, terms
from .config import CompactionConfig
from .plan import PlanOperation

WRITABLE = ("entry", "mif")
_NEGATION = re.compile(r"\b(?:not|never|no|don't|dont|do not|avoid|without|n't|mustn't|shouldn't|cannot|can't)\b", re.I)
_NUMBER = re.compile(r"(?<![\w.])v?\d+(?:\.\d+)*(?![\w])")
_CODE = re.compile(r"`([^`]+)`|(?<![\w/.])((?:[\w.-]+/)+[\w.-]+|\w+\.\w{1,5}\b|[A-Za-z_]+[A-Z_][A-Za-z0-9_]*(?:\.\w+)*)")


def _stamp(now: datetime) -> str:
    return now.strftime("%Y-%m-%dT%H:%M:%SZ")


def _created(entry: Entry) -> datetime:
    return entry.created or datetime(1970, 1, 1, tzinfo=timezone.utc)


def _rank(entry: Entry) -> tuple:
    """Which entry of a group survives: one we must not edit (instruction files), then the newest, then
    the most confident."""
    return (entry.format == "instruction", _created(entry), entry.confidence or 0.0, entry.id)


def literals(text: str) -> tuple[frozenset[str], frozenset[str], bool]:
    """What two statements must share to be the same fact: numbers and versions, code-like tokens
    (paths, identifiers, file names), and polarity."""
    numbers = frozenset(m.lstrip("v") for m in _NUMBER.findall(text))
    code = frozenset((a or b).strip().lower() for a, b in _CODE.findall(text) if (a or b).strip())
    return numbers, code, bool(_NEGATION.search(text))


class Planner:
    """Builds the operations of one compaction plan from a store's entries."""

    def __init__(self, entries: list[Entry], config: CompactionConfig, now: datetime):
        self.config = config
        self.now = now
        self.by_id = {e.id: e for e in entries}
        self.pool = [e for e in entries if e.live]
        self.consumed: set[str] = set()
        self.operations: list[PlanOperation] = []
        self.conflicts: list[dict[str, Any]] = []
        self.new_entries: list[dict[str, Any]] = []

    # -- helpers ---------------------------------------------------------------------------------

    def available(self, writable_only: bool = True) -> list[Entry]:
        return [e for e in self.pool if e.id not in self.consumed and (not writable_only or e.format in WRITABLE)]

    def _emit(self, op: str, sources: list[Entry], reason: str, fields: dict[str, Any] | None = None,
              result: Entry | dict[str, Any] | None = None, new_entry: dict[str, Any] | None = None,
              new_path: str | None = None, per_source: dict[str, dict[str, Any]] | None = None) -> None:
        updates = [(s, per_source[s.id] if per_source else dict(fields or {})) for s in sources]
        self.consumed.update(s.id for s in sources)
        result_json = result.public() if isinstance(result, Entry) else result
        self.operations.append(PlanOperation(op=op, sources=[s.id for s in sources], reason=reason, result=result_json,
                                             updates=updates, new_entry=new_entry, new_path=new_path))

    # -- supersede -------------------------------------------------------------------------------

    def supersede(self) -> None:
        """Follow ``supersedes`` links: every live entry a newer one supersedes gets ``superseded_by``,
        transitively (A supersedes B supersedes C: only A stays live). Links to unknown ids are ignored;
        cycles are reported and left alone."""
        edges = {e.id: [t for t in e.supersedes if t in self.by_id and t != e.id] for e in self.pool if e.supersedes}
        in_cycle = self._cycles(edges)
        for entry in sorted(self.pool, key=_rank, reverse=True):
            if entry.id in in_cycle:
                continue
            targets = [self.by_id[t] for t in edges.get(entry.id, [])
                       if t not in in_cycle and t not in self.consumed and self.by_id[t].live
                       and self.by_id[t].format in WRITABLE]
            if targets:
                self._emit("supersede", targets, f"superseded by {entry.id}: {_short(entry.content)}",
                           {"superseded_by": entry.id}, result=entry)

    def _cycles(self, edges: dict[str, list[str]]) -> set[str]:
        state: dict[str, int] = {}
        members: set[str] = set()
        for start in edges:
            if state.get(start):
                continue
            stack: list[tuple[str, int]] = [(start, 0)]
            path: list[str] = []
            while stack:
                node, index = stack.pop()
                if index == 0:
                    state[node] = 1
                    path.append(node)
                children = edges.get(node, [])
                if index < len(children):
                    stack.append((node, index + 1))
                    child = children[index]
                    if state.get(child) == 1:
                        cycle = path[path.index(child):]
                        if not members.issuperset(cycle):
                            members.update(cycle)
                            self.conflicts.append({"kind": "supersession-cycle", "entries": cycle,
                                                   "message": "supersedes links form a cycle: " + " -> ".join(cycle + [child])})
                    elif not state.get(child):
                        stack.append((child, 0))
                else:
                    state[node] = 2
                    path.pop()
        return members

    # -- dedup and merge -------------------------------------------------------------------------

    def dedup(self) -> None:
        """Exact duplicates after normalisation (case, whitespace, punctuation, Markdown): the newest
        stays, the others get ``merged_into`` it."""
        groups: dict[str, list[Entry]] = defaultdict(list)
        for entry in self.available(writable_only=False):
            groups[normalize(entry.content)].append(entry)
        for key, group in groups.items():
            if len(group) < 2 or not key:
                continue
            keeper = max(group, key=_rank)
            others = [e for e in group if e is not keeper and e.format in WRITABLE]
            if others:
                self._emit("dedup", others, f"same text as {keeper.id} ({keeper.where()})", {"merged_into": keeper.id},
                           result=keeper)

    def merge(self) -> None:
        """Near-duplicates: entries of one category whose words match closely (rapidfuzz token_sort_ratio
        over candidates that share rare words, so 10k entries stay fast) and whose literals agree —
        numbers, versions, paths, identifiers, negation. Close pairs whose numbers or polarity differ are
        contradictions: the newer supersedes the older (confidence breaks ties) and the pair is reported."""
        pool = self.available(writable_only=False)
        texts = {e.id: normalize(e.content) for e in pool}
        tokens = {e.id: set(terms(e.content)) for e in pool}
        lits = {e.id: literals(e.content) for e in pool}
        postings: dict[tuple[str, str], list[Entry]] = defaultdict(list)
        for entry in pool:
            for token in tokens[entry.id]:
                postings[(entry.category, token)].append(entry)
        cap = max(50, len(pool) // 100)
        parent = {e.id: e.id for e in pool}

        def find(x: str) -> str:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        contradictions: list[tuple[Entry, Entry, int]] = []
        seen: set[tuple[str, str]] = set()
        for entry in pool:
            shared: dict[str, int] = defaultdict(int)
            for token in tokens[entry.id]:
                posting = postings[(entry.category, token)]
                if len(posting) > cap:
                    continue  # too common to say anything
                for other in posting:
                    if other.id > entry.id:
                        shared[other.id] += 1
            for other_id, count in shared.items():
                if count < 2 or (entry.id, other_id) in seen:
                    continue
                seen.add((entry.id, other_id))
                score = fuzz.token_sort_ratio(texts[entry.id], texts[other_id])
                if score < self.config.merge_threshold:
                    continue
                (nums_a, code_a, neg_a), (nums_b, code_b, neg_b) = lits[entry.id], lits[other_id]
                if code_a != code_b:
                    continue  # other paths or identifiers: another fact
                if nums_a != nums_b or neg_a != neg_b:
                    contradictions.append((entry, self.by_id[other_id], int(score)))
                    continue
                parent[find(entry.id)] = find(other_id)
        clusters: dict[str, list[Entry]] = defaultdict(list)
        for entry in pool:
            clusters[find(entry.id)].append(entry)
        for group in clusters.values():
            if len(group) < 2:
                continue
            keeper = max(group, key=_rank)
            others = [e for e in group if e is not keeper and e.format in WRITABLE and e.id not in self.consumed]
            if others:
                self._emit("merge", others, f"states the same fact as {keeper.id}: {_short(keeper.content)}",
                           {"merged_into": keeper.id}, result=keeper)
        for a, b, score in contradictions:
            if a.id in self.consumed or b.id in self.consumed:
                continue
            newer, older = (a, b) if _rank(a)[1:] >= _rank(b)[1:] else (b, a)
            self.conflicts.append({"kind": "contradiction", "entries": [newer.id, older.id], "similarity": score,
                                   "message": f"{newer.id} and {older.id} say nearly the same with different values "
                                              f"or polarity; the newer wins — review: {_short(newer.content)} / "
                                              f"{_short(older.content)}"})
            if older.format in WRITABLE:
                self._emit("supersede", [older], f"contradicted by newer {newer.id} (last write wins; review): "
                                                 f"{_short(newer.content)}", {"superseded_by": newer.id}, result=newer)

    # -- archive ---------------------------------------------------------------------------------

    def archive(self) -> None:
        """gc: expired TTL, strength decayed below ``min_strength`` (exponential, ``half_life_days``
        from the last access), or older than ``max_age_days``. Pinned entries, protected categories and
        entries marked ``protected`` are never archived."""
        for entry in self.available():
            if entry.pinned or entry.category in self.config.protected or entry.raw.get("protected"):
                continue
            reason = self.archive_reason(entry)
            if reason:
                self._emit("archive", [entry], reason,
                           {"archived": True, "archived_at": _stamp(self.now), "archived_reason": reason})

    def archive_reason(self, entry: Entry) -> str | None:
        created = _created(entry)
        ttl = parse_duration(entry.ttl)
        if ttl is not None and entry.created and created + ttl < self.now:
            return f"TTL {entry.ttl} expired on {(created + ttl):%Y-%m-%d}"
        strength = self.strength(entry)
        if strength is not None and strength < self.config.min_strength:
            return f"strength decayed to {strength:.2f} (below {self.config.min_strength})"
        age = (self.now - created).days
        if self.config.max_age_days and entry.created and age > self.config.max_age_days:
            return f"{age} days old (over {self.config.max_age_days})"
        return None

    def strength(self, entry: Entry) -> float | None:
        """Current strength: the recorded strength decayed by half every ``half_life_days`` since the
        last access (or creation). ``None`` for entries that do not track strength."""
        if entry.strength is None:
            return None
        since = entry.last_accessed or entry.created
        if since is None:
            return entry.strength
        days = max(0.0, (self.now - since).total_seconds() / 86400)
        return entry.strength * 0.5 ** (days / self.config.half_life_days)

    # -- consolidate and fuse --------------------------------------------------------------------

    def _subjects(self, entries: Iterable[Entry]) -> dict[tuple[str, str], list[Entry]]:
        groups: dict[tuple[str, str], list[Entry]] = defaultdict(list)
        for entry in entries:
            if entry.tags:
                groups[(entry.category, entry.tags[0])].append(entry)
        return groups

    def _new_entry(self, category: str, content: str, sources: list[Entry], extra: dict[str, Any]) -> tuple[dict[str, Any], str]:
        short = secrets.token_hex(6)
        tags = list(dict.fromkeys(t for s in sources for t in s.tags))
        raw: dict[str, Any] = {"id": short, "category": category, "content": content, "created": _stamp(self.now),
                               "agent": "lorekeeper", "tags": tags, "source": "compaction",
                               "source_entries": [s.id for s in sources]}
        refs = list({(r.path, r.symbol): r.model_dump(exclude_none=True) for s in sources for r in s.refs
                     if not r.rejected}.values())
        if refs:
            raw["refs"] = refs
        raw.update(extra)
        self.new_entries.append(raw)
        return raw, f"{self.now:%Y%m%dT%H%M%SZ}-{short}.json"

    def consolidate(self, entries_dir: str) -> None:
        """Cold clusters — old (``consolidate_age_days``), rarely accessed, two or more on one subject
        (category and first tag), not in a protected category — become one protected learning entry
        with exemplar fragments, the period covered and the count; the sources get ``merged_into`` it.
        The index shows the exemplars; compacted/ lists every source fact."""
        cutoff = self.now - timedelta(days=self.config.consolidate_age_days)
        cold = [e for e in self.available() if not e.pinned and _created(e) < cutoff and e.created
                and (e.access_count or 0) <= self.config.consolidate_max_access and not e.raw.get("protected")
                and e.category not in self.config.protected]
        for (category, topic), group in sorted(self._subjects(cold).items()):
            if len(group) < 2:
                continue
            group.sort(key=lambda e: (-(e.access_count or 0), -(e.confidence or 0), _created(e)))
            first, last = min(_created(e) for e in group), max(_created(e) for e in group)
            # Exemplars stand for the cluster in the index: at most half of it, so that it gets smaller.
            keep = max(1, min(self.config.consolidate_exemplars, len(group) // 2))
            exemplars = list(dict.fromkeys(_first_sentence(e.content) for e in group[:keep]))
            rest = len(group) - len(exemplars)
            content = (f"Learned from {len(group)} {topic} memories ({first:%Y-%m-%d} to {last:%Y-%m-%d}):\n"
                       + "\n".join(f"- {x}" for x in exemplars) + (f"\n- …and {rest} more (see source_entries)" if rest else ""))
            raw, name = self._new_entry(category, content, group, {
                "protected": True, "kind": "learning",
                "consolidated": {"count": len(group), "from": _stamp(first), "to": _stamp(last)}})
            self._emit("consolidate", group, f"{len(group)} cold {category}/{topic} memories from {first:%Y-%m-%d} "
                                             f"to {last:%Y-%m-%d} become one learning", {"merged_into": raw["id"]},
                       result=raw, new_entry=raw, new_path=f"{entries_dir}/{name}")

    def fuse(self, entries_dir: str) -> None:
        """Related short entries of one category and topic (first tag), ``fuse_min_entries`` or more,
        become one entry listing every source fact once, word for word — faithful by construction."""
        short = [e for e in self.available() if len(e.content) <= self.config.fuse_max_chars and not e.pinned]
        for (category, topic), group in sorted(self._subjects(short).items()):
            group.sort(key=_created)
            for start in range(0, len(group), self.config.fuse_max_entries):
                chunk = group[start : start + self.config.fuse_max_entries]
                if len(chunk) < self.config.fuse_min_entries:
                    continue
                facts = list(dict.fromkeys(e.content.strip() for e in chunk))
                content = f"{topic} ({category}):\n" + "\n".join(_bullet(f) for f in facts)
                raw, name = self._new_entry(category, content, chunk, {})
                confidences = [e.confidence for e in chunk if e.confidence is not None]
                if confidences:
                    raw["confidence"] = min(confidences)
                self._emit("fuse", chunk, f"{len(chunk)} {category} entries about {topic} listed in one",
                           {"merged_into": raw["id"]}, result=raw, new_entry=raw, new_path=f"{entries_dir}/{name}")

    # -- compress --------------------------------------------------------------------------------

    def compress(self) -> None:
        """mnemonic's rule: entries (older than ``compress_age_days`` or weaker than
        ``compress_strength``) and longer than ``compress_lines`` lines get a ``summary`` of at most
        ``summary_chars`` characters and ``compressed_at``; the text itself stays."""
        for entry in self.available():
            if entry.summary or entry.content.count("\n") + 1 <= self.config.compress_lines:
                continue
            old = entry.created is not None and (self.now - entry.created).days > self.config.compress_age_days
            strength = self.strength(entry)
            weak = strength is not None and strength < self.config.compress_strength
            if not (old or weak):
                continue
            summary = summarize(entry.content, self.config.summary_chars)
            lines = entry.content.count("\n") + 1
            self._emit("compress", [entry], f"{lines} lines, {'older than ' + str(self.config.compress_age_days) + ' days' if old else 'weak'}: summarised",
                       {"summary": summary, "compressed_at": _stamp(self.now)})


def parse_duration(value: Any) -> timedelta | None:
    """A TTL: ISO 8601 (``P90D``, ``P2W``, ``PT12H``, ``P1Y2M``), ``30d``/``12h``, or a number of days."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return timedelta(days=value)
    text = str(value).strip().upper()
    match = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([DHWM]?)", text)
    if match:
        number, unit = float(match.group(1)), match.group(2) or "D"
        return {"D": timedelta(days=number), "H": timedelta(hours=number), "W": timedelta(weeks=number),
                "M": timedelta(minutes=number)}[unit]
    match = re.fullmatch(r"P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?", text)
    if not match or text == "P":
        return None
    y, mo, w, d, h, mi, s = (int(g) if g else 0 for g in match.groups())
    return timedelta(days=y * 365 + mo * 30 + w * 7 + d, hours=h, minutes=mi, seconds=s)


def summarize(text: str, limit: int) -> str:
    """A deterministic summary: the leading sentences (headings and list markers dropped) that fit in
    ``limit`` characters."""
    words: list[str] = []
    for line in text.splitlines():
        line = re.sub(r"^\s*(?:#+|[-*+]|\d+[.)])\s*", "", line).strip()
        if line and not line.startswith("```"):
            words.append(line)
    flat = " ".join(words)
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1]
    end = max(cut.rfind(". "), cut.rfind("; "))
    return (cut[: end + 1] if end > limit // 2 else cut.rsplit(" ", 1)[0]) + "…"


def _first_sentence(text: str) -> str:
    body = [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith(("#", "```"))]
    flat = " ".join(" ".join(body).split()) or " ".join(text.split())
    match = re.search(r"(.+?[.!?])(\s|$)", flat)
    sentence = match.group(1) if match else flat
    return sentence if len(sentence) <= 160 else sentence[:159] + "…"


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= 70 else flat[:69] + "…"


def _bullet(fact: str) -> str:
    lines = fact.splitlines()
    return "- " + "\n  ".join(lines)
