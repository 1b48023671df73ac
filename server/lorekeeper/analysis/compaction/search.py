# pyright: standard
"""The candidate search of compaction and of the editor's duplicate findings: which pairs of memories
are close enough for the verifier to judge (shared words, scored with rapidfuzz), and which groups state
one fact; and what it keeps between runs and between saves (:class:`SearchMemo`: each text's features, the
near-identical pairs, the groups), so that a save costs what it changed. The planner (:mod:`.rules`)
asks here; nothing here plans."""

from __future__ import annotations

import hashlib
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from functools import cache, lru_cache
from itertools import compress
from itertools import count as counting
from operator import attrgetter, is_not, itemgetter, not_
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rapidfuzz import fuzz

from ...core import text
from ...core.model import Entry
from ...core.text import TEXT_CACHE, normalize, terms
from ...facts import updates
from ...facts.scope import other_projects
from ...facts.updates import anchors, context, marks_change, retired
from ...facts.verify import Comparison, compatible, fact_keys, fact_size
from ...infra.workers import fork_map
from .plan import PlanOperation

if TYPE_CHECKING:
    pass

_normal = lru_cache(maxsize=TEXT_CACHE)(normalize)
_id_of = attrgetter("id")
_content_of = attrgetter("content")
_sources_of = attrgetter("sources")


def created_or_epoch(entry: Entry) -> datetime:
    return entry.created or datetime(1970, 1, 1, tzinfo=UTC)


def rank(entry: Entry) -> tuple:
    """Which entry of a group that states one fact survives: one we must not edit (instruction files),
    then a pinned one, then the most complete (more references, then more words that carry facts), then
    the newest."""
    return (entry.format == "instruction", entry.pinned, len(entry.refs), fact_size(entry.content),
            created_or_epoch(entry), entry.confidence or 0.0, entry.id)


#: From this many entries on, shared words are counted by a sparse matrix product (scipy) instead of a
#: Python loop over postings: the loop's cost grows with the square of the store (the cap on a word's
#: postings grows with it), the product's barely.
SPARSE_FROM = 3000


def _sharing_loop(tokens: dict[str, set[str]], cap: int) -> list[tuple[str, str]]:
    """Pairs of ids (in order) that share two or more words, each held by at most ``cap`` entries (a
    word more common says nothing)."""
    postings: dict[str, list[str]] = defaultdict(list)
    for entry_id, words in tokens.items():
        for word in words:
            postings[word].append(entry_id)
    out: list[tuple[str, str]] = []
    for entry_id, words in tokens.items():
        shared: dict[str, int] = defaultdict(int)
        for word in words:
            posting = postings[word]
            if len(posting) > cap:
                continue
            for other in posting:
                if other > entry_id:
                    shared[other] += 1
        out.extend((entry_id, other) for other, count in shared.items() if count >= 2)
    return out


def _sharing_sparse(tokens: dict[str, set[str]], cap: int) -> list[tuple[str, str]]:
    """:func:`_sharing_loop` as a sparse matrix product: entries x words, times its transpose, gives
    how many words each two entries share; computed a block of rows at a time to bound memory."""
    import numpy as np  # noqa: PLC0415 - only large stores pay for the import
    from scipy import sparse  # noqa: PLC0415

    ids = sorted(tokens)
    counts: dict[str, int] = defaultdict(int)
    for words in tokens.values():
        for word in words:
            counts[word] += 1
    columns: dict[str, int] = {}
    rows: list[int] = []
    cols: list[int] = []
    for row, entry_id in enumerate(ids):
        for word in tokens[entry_id]:
            if 2 <= counts[word] <= cap:
                rows.append(row)
                cols.append(columns.setdefault(word, len(columns)))
    matrix = sparse.csr_matrix((np.ones(len(rows), dtype=np.int32), (np.array(rows, dtype=np.int64),
                                np.array(cols, dtype=np.int64))), shape=(len(ids), len(columns)))
    transposed = matrix.T.tocsr()
    out: list[tuple[str, str]] = []
    block = 512
    for start in range(0, len(ids), block):
        shared = (matrix[start:start + block] @ transposed).tocoo()
        keep = (shared.data >= 2) & (shared.col > shared.row + start)
        for row, col in zip((shared.row[keep] + start).tolist(), shared.col[keep].tolist(), strict=True):
            out.append((ids[row], ids[col]))
    return out


CANDIDATES_FILE = "candidates.json"


@cache
def source_version() -> str:
    """A hash of the modules the candidate search reads (this one, the update anchors, text terms)."""

    digest = hashlib.blake2b(digest_size=12)
    for module in (sys.modules[__name__], updates, text):
        try:
            digest.update(Path(module.__file__ or "").read_bytes())
        except OSError:
            digest.update(repr(id(module)).encode())
    return digest.hexdigest()


_Features = tuple[str, set[str], frozenset[str], tuple[frozenset[str], ...], bool, str | None]


def _features(text: str) -> _Features:
    """What the candidate search reads of a text: its normalised form, its terms, its anchors, the
    values it retires, whether it says something changed, its words in order (:func:`_sorted_words`)."""
    normal = _normal(text)
    return normal, set(terms(text)), anchors(text), retired(text), marks_change(text), _sorted_words(normal)


def _sorted_words(normal: str) -> str | None:
    """A text's words sorted and joined by one space: what rapidfuzz's ``token_sort_ratio`` compares
    (its ``ratio`` of the two), made once a text instead of once a pair. ``None`` where rapidfuzz splits
    words otherwise than Python: it does not split at U+0085 and U+00A0 (every other code point was
    compared; tests/unit/test_compaction_shortcuts.py holds the two to the same scores)."""
    if "\x85" in normal or "\xa0" in normal:
        return None
    return " ".join(sorted(normal.split()))


def _similarity(a: _Features, b: _Features, cutoff: float) -> float:
    """``fuzz.token_sort_ratio`` of two normalised texts, or 0 below ``cutoff``."""
    if a[5] is not None and b[5] is not None:
        return fuzz.ratio(a[5], b[5], score_cutoff=cutoff)
    return fuzz.token_sort_ratio(a[0], b[0], score_cutoff=cutoff)

#: What :meth:`Planner._judged` says of a candidate pair: (newer, older, similarity, the verifier's verdict).
Judgement = tuple[Entry, Entry, float, Comparison]


class Judged:
    """The contradiction search's last answer over a pool: its entries by id, the candidate pairs with
    their similarity, the pairs each entry is in, each pair's judgement and the pairs in conflict."""

    def __init__(self, entries: dict[str, Entry], scores: dict[tuple[str, str], float],
                 judged: dict[tuple[str, str], Judgement | None]) -> None:
        self.entries, self.scores = entries, scores
        #: The candidate search (and its update) this answer is about, where it was kept.
        self.met: tuple[_Candidates, int] | None = None
        self.members: dict[str, set[tuple[str, str]]] = defaultdict(set)
        self.judged: dict[tuple[str, str], Judgement | None] = {}
        self.conflicting: dict[tuple[str, str], Judgement] = {}
        for pair, judgement in judged.items():
            self.learn(pair, judgement)

    def learn(self, pair: tuple[str, str], judgement: Judgement | None) -> None:
        self.judged[pair] = judgement
        self.members[pair[0]].add(pair)
        self.members[pair[1]].add(pair)
        if judgement is not None and judgement[3].verdict == "conflict":
            self.conflicting[pair] = judgement

    def forget(self, pair: tuple[str, str]) -> None:
        if self.judged.pop(pair, False) is not False:
            _unindex(self.members, pair)
        self.conflicting.pop(pair, None)


def _unindex(index: dict[str, set[tuple[str, str]]], pair: tuple[str, str]) -> None:
    """Take a pair out of an index of each entry's pairs (an entry left with none leaves the index)."""
    for entry_id in pair:
        held = index.get(entry_id)
        if held is not None:
            held.discard(pair)
            if not held:
                del index[entry_id]


class SearchMemo:
    """What the duplicate search read and found, kept by a caller that searches again after a small
    change (the language server after a save). Each text is read once; a search over a pool that
    differs from the last one in a few entries groups again only the entries joined to those through
    keys (:meth:`Grouped.update`) and searches again only the near-identical pairs those entries can
    be part of (:meth:`_Sharing.update`), and finds what a fresh search finds."""

    def __init__(self) -> None:
        self.features: dict[str, _Features] = {}
        self.contexts: dict[str, frozenset[str]] = {}
        self.sharing: _Sharing | None = None
        #: The last candidate search, updated after a save (:class:`_Candidates`).
        self.met: _Candidates | None = None
        self.grouped: Grouped | None = None
        #: The verifier's verdicts on the last search's candidate pairs, by (older text, newer text).
        self.verdicts: dict[tuple[str, str], Comparison] = {}
        self.judged: Judged | None = None
        #: What :func:`lorekeeper.analysis.diagnose.duplicate_findings` reported of each operation found, by the
        #: operation's ``id()``: (the operation, its entries, the findings); and the grouping (and its
        #: version) whose operations these are.
        self.reported: dict[int, tuple[Any, tuple[Entry, ...], list[Any]]] = {}
        self.reported_for: tuple[Grouped, int] | None = None
        #: The near merges of the last search (:meth:`.rules.Planner.near_merge`), found anew each time.
        self.near_ops: list[Any] = []
        #: What :mod:`lorekeeper.analysis.diagnose` kept of its other answers, by kind, with the serial of the
        #: store they are about (see :meth:`.Store.changes_since`).
        self.diagnosed: dict[str, tuple[int, Any]] = {}

    def adopt(self, other: SearchMemo) -> None:
        """Take the candidate search ``other`` made (and what it read), for this memo's next search to
        update (see :meth:`lorekeeper.surfaces.lsp.server.LoreServer.prepare_saves`)."""
        self.met, self.sharing = other.met, other.sharing
        self.features.update(other.features)
        self.contexts.update(other.contexts)

    def read(self, texts: list[str]) -> list[_Features]:
        """The features of ``texts`` (in order), see :func:`_through`."""
        found, self.features = _through(self.features, _features, texts)
        return found

    def context(self, texts: list[str]) -> list[frozenset[str]]:
        """:func:`.updates.context` of ``texts`` (in order), see :func:`_through`."""
        found, self.contexts = _through(self.contexts, context, texts)
        return found

    def feature(self, text: str) -> _Features:
        """The features of one text, read once (a save's texts: too few to fork for)."""
        found = self.features.get(text)
        if found is None:
            found = self.features[text] = _features(text)
        return found

    def context_of(self, text: str) -> frozenset[str]:
        """:func:`.updates.context` of one text, read once."""
        found = self.contexts.get(text)
        if found is None:
            found = self.contexts[text] = context(text)
        return found

    def candidates(self, pool: list[Entry], threshold: int) -> dict[tuple[str, str], float]:
        """:func:`candidate_pairs` of ``pool``: the last search updated where a few entries changed
        (:meth:`_Candidates.update`), else searched from nothing."""
        kept, self.met = self.met, None  # until it is this search's, whole
        if kept is None or kept.threshold != threshold or not kept.update(pool, self):
            kept = _Candidates(pool, threshold, self)
        self.met, self.sharing = kept, kept.sharing
        if len(self.features) > 2 * len(pool) + 100:  # mostly texts saved over since: forgotten
            texts = list(map(_content_of, pool))
            self.read(texts)
            if self.contexts:
                self.context(texts)
        return kept.pairs()


def _through(kept: dict[str, Any], read: Callable[[str], Any], texts: list[str]) -> tuple[list[Any], dict[str, Any]]:
    """``[read(t) for t in texts]``, the texts ``kept`` lacks read (over worker processes when they are
    many) and added to it; and the dict to keep: texts no longer asked about are forgotten once they are
    as many as those that are."""
    missing = [t for t in dict.fromkeys(texts) if t not in kept] if not kept.keys() >= set(texts) else []
    kept.update(zip(missing, fork_map(read, missing), strict=True))
    found = list(map(kept.__getitem__, texts))
    if len(kept) > 2 * len(texts) + 100:
        kept = {t: kept[t] for t in texts}
    return found, kept


#: A search over a pool this much changed (a share of it) starts again rather than updating the last.
_UPDATE_AT_MOST = 0.05


def changes_between(last: dict[str, Any], now: dict[str, Any]) -> tuple[list[str], list[str]] | None:
    """The ids whose value is another object in ``now`` than in ``last`` (added ones too), and the ids
    gone; ``None`` where they are too many to update an answer rather than start again."""
    ids = list(now)
    if len(last) == len(ids) and list(last) == ids:  # after a save, the same ids in the same order: at C speed
        changed = list(compress(ids, map(is_not, now.values(), last.values())))
        gone: list[str] = []
    else:
        changed = [i for i, value in now.items() if last.get(i) is not value]
        gone = [i for i in last if i not in now]
    if len(changed) + len(gone) > max(10, _UPDATE_AT_MOST * len(now)):
        return None
    return changed, gone


class _Sharing:
    """The near-identical pairs of one pool (ids in order, with their similarity): entries that share
    two or more words held by at most ``cap`` entries, scored at ``threshold`` or more; with who holds
    each word, to find them again after a few entries changed."""

    def __init__(self, threshold: float, cap: int, read: dict[str, _Features]) -> None:
        self.threshold, self.cap = threshold, cap
        self.read = dict(read)
        self.holders: dict[str, set[str]] = defaultdict(set)
        for entry_id, features in read.items():
            for word in features[1]:
                self.holders[word].add(entry_id)
        tokens = {entry_id: features[1] for entry_id, features in read.items()}
        sharing = _sharing_sparse if len(tokens) >= SPARSE_FROM else _sharing_loop
        self.pairs: dict[tuple[str, str], float] = {}
        #: Each entry's pairs (to drop them when it changes), and the pairs the last update dropped or found.
        self.of: dict[str, set[tuple[str, str]]] = defaultdict(set)
        self.touched: set[tuple[str, str]] = set()
        for a, b in sharing(tokens, cap):
            score = _similarity(read[a], read[b], threshold)
            if score >= threshold:
                self._add((a, b), score)

    def _add(self, pair: tuple[str, str], score: float) -> None:
        self.pairs[pair] = score
        self.of[pair[0]].add(pair)
        self.of[pair[1]].add(pair)

    def update(self, read: dict[str, _Features]) -> bool:
        """Make this the search over ``read`` (the new pool's features by id). A pair neither of whose
        entries changed, and that shares no word whose count crossed the bounds (two, ``cap``), is found
        as before; the pairs of the other entries are searched again. False (and this search no longer
        usable) where too much changed."""
        found = changes_between(self.read, read)
        if found is None:
            return False
        changed, gone = found
        self.apply({entry_id: read[entry_id] for entry_id in changed}, gone)
        return True

    def apply(self, new: dict[str, _Features], gone: Iterable[str]) -> None:
        """Update the search: the entries ``new`` (id -> features) were added or changed (or read
        again), those ``gone`` left the pool. :attr:`touched`: the pairs dropped and found again."""
        changed, gone = list(new), list(gone)
        read = new
        touched: set[str] = set()
        for entry_id in (*changed, *gone):
            if entry_id in self.read:
                touched |= self.read[entry_id][1]
        for entry_id in changed:
            touched |= read[entry_id][1]
        before = {w: len(self.holders.get(w, ())) for w in touched}
        for entry_id in (*changed, *gone):
            old = self.read.pop(entry_id, None)
            for word in old[1] if old is not None else ():
                self.holders[word].discard(entry_id)
        for entry_id in changed:
            self.read[entry_id] = read[entry_id]
            for word in read[entry_id][1]:
                self.holders[word].add(entry_id)

        def counts(n: int) -> bool:
            return 2 <= n <= self.cap

        dirty = set(changed) | set(gone)
        for word in touched:
            now = len(self.holders.get(word, ()))
            if counts(now) != counts(before[word]):
                dirty |= self.holders.get(word, set())
            if not now:
                self.holders.pop(word, None)
        dropped: set[tuple[str, str]] = set()
        for entry_id in dirty:
            dropped |= self.of.pop(entry_id, set())
        for pair in dropped:
            del self.pairs[pair]
            _unindex(self.of, pair)
        self.touched = dropped
        seen: set[tuple[str, str]] = set()
        for entry_id in dirty:
            if entry_id not in self.read:
                continue
            shared: dict[str, int] = defaultdict(int)
            for word in self.read[entry_id][1]:
                holders = self.holders[word]
                if len(holders) <= self.cap:
                    for other in holders:
                        shared[other] += 1
            for other, count in shared.items():
                if count < 2 or other == entry_id:
                    continue
                pair = (entry_id, other) if entry_id < other else (other, entry_id)
                if pair in seen:
                    continue
                seen.add(pair)
                score = _similarity(self.read[pair[0]], self.read[pair[1]], self.threshold)
                if score >= self.threshold:
                    self._add(pair, score)
                    self.touched.add(pair)


def supersession_cycles(edges: dict[str, list[str]]) -> tuple[set[str], list[dict[str, Any]]]:
    """The entries in ``supersedes`` cycles (``edges``: id -> the ids it supersedes), and each cycle
    found, as a conflict."""
    cycles: list[dict[str, Any]] = []
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
                        cycles.append({"kind": "supersession-cycle", "entries": cycle,
                                       "message": "supersedes links form a cycle: " + " -> ".join(cycle + [child])})
                elif not state.get(child):
                    stack.append((child, 0))
            else:
                state[node] = 2
                path.pop()
    return members, cycles


def _group_keys(entry: Entry) -> tuple[str, ...]:
    """The keys through which :meth:`Planner.same_facts` can put an entry in a group: its normalised
    text (:meth:`Planner.dedup`'s groups share it) and its fact keys (:meth:`Planner.merge`'s)."""
    found = ("n" + _normal(entry.content), *("k" + k for k in fact_keys(entry.content) if k.strip("\x00")))
    return tuple(dict.fromkeys(found))


class Grouped:
    """What :meth:`Planner.same_facts` found over a pool: its entries by id, each entry's keys, who
    holds each key, and the operations; with the entries to group again after an update."""

    def __init__(self, settings: dict[str, Any], entries: dict[str, Entry], operations: list[PlanOperation]) -> None:
        self.settings = settings
        self.entries = entries
        self.keys = {i: _group_keys(e) for i, e in entries.items()}
        self.holders: dict[str, set[str]] = defaultdict(set)
        for entry_id, keys in self.keys.items():
            for key in keys:
                self.holders[key].add(entry_id)
        self.operations = list(operations)
        self.regrouped: set[str] = set()
        #: The operations each entry is in (a source, or the survivor), by ``id()`` of the operation.
        self.ops_of: dict[str, dict[int, PlanOperation]] = defaultdict(dict)
        self._index(self.operations)
        self.version = 0  # how many times :meth:`regroup` changed the operations

    def _index(self, operations: Iterable[PlanOperation], drop: bool = False) -> None:
        for op in operations:
            survivor = (op.result or {}).get("id")
            for entry_id in (*op.sources, *((survivor,) if survivor else ())):
                if drop:
                    held = self.ops_of.get(entry_id)
                    if held is not None:
                        held.pop(id(op), None)
                        if not held:
                            del self.ops_of[entry_id]
                else:
                    self.ops_of[entry_id][id(op)] = op

    def regroup(self, again: list[PlanOperation]) -> tuple[list[PlanOperation], list[PlanOperation]]:
        """The operations after grouping :attr:`regrouped` again: those of the last answer that hold none
        of them, then ``again`` (their new groups). Returns the operations dropped and added."""
        dropped: dict[int, PlanOperation] = {}
        for entry_id in self.regrouped:
            dropped.update(self.ops_of.get(entry_id, {}))
        self._index(dropped.values(), drop=True)
        self._index(again)
        if dropped:
            self.operations = list(compress(self.operations, map(not_, map(dropped.__contains__, map(id, self.operations)))))
        self.operations += again
        self.version += 1
        return list(dropped.values()), list(again)

    def update(self, entries: dict[str, Entry]) -> bool:
        """Make this the answer's starting point over ``entries``: :attr:`regrouped` is every entry
        joined through keys to one added, removed or changed, old keys and new. False (and this no
        longer usable) where too much changed."""
        found = changes_between(self.entries, entries)
        if found is None:
            return False
        self.entries = entries
        self._regroup(*found)
        return True

    def apply(self, new: dict[str, Entry], gone: list[str]) -> bool:
        """:meth:`update`, told what changed: the entries ``new`` (by id) were added or changed, the ids
        ``gone`` left."""
        if len(new) + len(gone) > max(10, _UPDATE_AT_MOST * len(self.entries)):
            return False
        for entry_id in gone:
            self.entries.pop(entry_id, None)
        self.entries.update(new)
        self._regroup(list(new), gone)
        return True

    def _regroup(self, changed: list[str], gone: list[str]) -> None:
        entries = self.entries
        start: set[str] = set()
        for entry_id in (*changed, *gone):
            for key in self.keys.pop(entry_id, ()):
                start.add(key)
                self.holders[key].discard(entry_id)
        for entry_id in changed:
            self.keys[entry_id] = _group_keys(entries[entry_id])
            for key in self.keys[entry_id]:
                start.add(key)
                self.holders[key].add(entry_id)
        reached: set[str] = set(changed) | set(gone)
        keys_seen: set[str] = set()
        waiting = list(start)
        while waiting:
            key = waiting.pop()
            if key in keys_seen:
                continue
            keys_seen.add(key)
            for entry_id in self.holders.get(key, ()):
                if entry_id not in reached:
                    reached.add(entry_id)
                    waiting.extend(self.keys[entry_id])
        for key in start:
            if not self.holders.get(key, True):
                del self.holders[key]
        self.regrouped = reached


def candidate_pairs(pool: list[Entry], threshold: int, memo: SearchMemo | None = None
                     ) -> dict[tuple[str, str], float]:
    """Pairs of entries (ids in order) worth asking the verifier about, with their similarity. What it
    reads of each text is read over worker processes for a large store; ``memo`` keeps it, and what the
    last search found, between calls (:meth:`SearchMemo.candidates`)."""
    if memo is not None:
        return memo.candidates(pool, threshold)
    texts_of_pool = list(map(_content_of, pool))
    return _pairs_of(pool, threshold, fork_map(_features, texts_of_pool), lambda: fork_map(context, texts_of_pool))


def _pairs_of(pool: list[Entry], threshold: int, features: list[_Features],
              read_contexts: Callable[[], list[frozenset[str]]]) -> dict[tuple[str, str], float]:
    """:func:`candidate_pairs` from nothing: ``features`` are the pool's in order, ``read_contexts``
    gives their :func:`.updates.context` (asked only where some text retires a value or says something
    changed)."""
    read = dict(zip(map(_id_of, pool), features, strict=True))
    cap = max(50, len(pool) // 100)
    pairs = dict(_Sharing(threshold, cap, read).pairs)
    # Updates in other words share little wording: they meet through what the update turns on.
    by_anchor: dict[str, list[Entry]] = defaultdict(list)
    anchored = list(map(itemgetter(2), features))
    for entry, found_anchors in zip(compress(pool, anchored), compress(anchored, anchored), strict=True):
        for anchor in found_anchors:
            by_anchor[anchor].append(entry)
    holders: dict[str, set[str]] = defaultdict(set)
    # The positions (in the pool) of the texts that retire a value or say something changed.
    changing = list(compress(range(len(features)), map(any, map(itemgetter(3, 4), features))))
    contexts: list[frozenset[str]] = []
    if changing:
        contexts = read_contexts()
        for other, tokens_of_other in zip(pool, contexts, strict=True):
            for token in tokens_of_other:
                holders[token].add(other.id)
    for at in changing:
        entry = pool[at]
        for other_id in _met_by_change(features[at], contexts[at], holders, cap)[0] - {entry.id}:
            pairs.setdefault((min(entry.id, other_id), max(entry.id, other_id)), 0)
    for members in by_anchor.values():
        if len(members) < 2 or len(members) > cap:
            continue
        for i, entry in enumerate(members):
            for other in members[i + 1:]:
                if read[entry.id][1] & read[other.id][1]:
                    pair = (min(entry.id, other.id), max(entry.id, other.id))
                    pairs.setdefault(pair, 0)
    return pairs


def _met_by_change(features: _Features, tokens: frozenset[str], holders: dict[str, set[str]], cap: int
                   ) -> tuple[set[str], set[str]]:
    """The ids of the entries a text that retires a value or says something changed (``features``, its
    context ``tokens``) is to be compared with, given who holds each context token: those that state a
    value it retires, and, for "... now ...", those that share two of its words held by at most ``cap``
    entries. And the tokens whose holders that answer read."""
    _, _, _, retires, says_change, _ = features
    found: set[str] = set()
    asked: set[str] = set()
    for wanted in retires:  # the entries that state a value this one retires
        found |= set.intersection(*(holders.get(t, set()) for t in wanted))
        asked |= wanted
    if says_change:  # "... now ...": the entries that share two of its words
        counts: dict[str, int] = defaultdict(int)
        for token in tokens:
            if not token.startswith("="):
                asked.add(token)
                held = holders.get(token, ())
                if len(held) <= cap:
                    for other_id in held:
                        counts[other_id] += 1
        found |= {i for i, n in counts.items() if n >= 2}
    return found, asked


def _delta(last: list[Entry], now: list[Entry]) -> tuple[list[Entry], list[Entry]]:
    """The entries of ``last`` that are not in ``now`` where they were, and those of ``now`` that take
    their place, compared by identity at C speed: the positions that hold another object, for pools of
    one size; else the span where the two differ (what comes before it and after it is the same objects
    in the same order: a save changes one file's entries, which are read one after another)."""
    if len(last) == len(now):
        moved = list(compress(counting(), map(is_not, last, now)))
        return [last[i] for i in moved], [now[i] for i in moved]
    same = min(len(last), len(now))
    start = next(compress(counting(), map(is_not, last, now)), same)
    tail = next(compress(counting(), map(is_not, reversed(last), reversed(now))), same)
    tail = min(tail, same - start)
    return last[start:len(last) - tail], now[start:len(now) - tail]


class _Candidates:
    """The candidate search's last answer over a pool (:func:`candidate_pairs`), kept by a
    :class:`SearchMemo` and updated after a save by looking only at the entries that changed: their
    near-identical pairs (:class:`_Sharing`), the anchor groups they left or joined, and the texts
    that retire a value or say something changed whose answer reads a context token they hold or
    held. A pool whose ids repeat is searched from nothing every time."""

    def __init__(self, pool: list[Entry], threshold: int, memo: SearchMemo) -> None:
        self.threshold, self.cap = threshold, max(50, len(pool) // 100)
        self.pool = list(pool)
        texts = list(map(_content_of, pool))
        ids = list(map(_id_of, pool))
        features = memo.read(texts)
        self.ids = set(ids)
        self.fixed: dict[tuple[str, str], float] | None = None
        #: The pairs the last update may have dropped, found or scored otherwise; the entries it found
        #: added or changed, and the ids it found gone; and how many updates this search took.
        self.touched: set[tuple[str, str]] = set()
        self.moved: tuple[list[Entry], list[str]] = ([], [])
        self.round = 0
        read = dict(zip(ids, features, strict=True))
        self.sharing = _Sharing(threshold, self.cap, read)
        if len(self.ids) != len(ids):  # (the pairs of an id used twice are as a fresh search finds them)
            self.fixed = _pairs_of(pool, threshold, features, lambda: memo.context(texts))
            return
        self.extra: dict[tuple[str, str], int] = defaultdict(int)  # pairs met otherwise than by wording
        self.groups: dict[str, set[str]] = defaultdict(set)  # anchor -> the ids of the texts that hold it
        self.grouped: dict[str, set[tuple[str, str]]] = {}  # anchor -> the pairs its group makes
        for entry_id, found in read.items():
            for anchor in found[2]:
                self.groups[anchor].add(entry_id)
        for anchor in list(self.groups):
            self._group(anchor)
        self.contexts: dict[str, frozenset[str]] | None = None  # by id, once a text retires or says "now"
        self.holders: dict[str, set[str]] = defaultdict(set)
        self.met: dict[str, tuple[set[tuple[str, str]], set[str]]] = {}  # id -> its pairs, the tokens asked
        self.askers: dict[str, set[str]] = defaultdict(set)  # token -> the ids whose answer asked it
        if any(map(_changing, features)):
            self._read_contexts(texts, memo)
        #: The pairs (kept up to date by each update: a save at 10k entries changes a few of thousands).
        self._pairs: dict[tuple[str, str], float] = dict.fromkeys(self.extra, 0)
        self._pairs.update(self.sharing.pairs)
        self.touched = set()

    def pairs(self) -> dict[tuple[str, str], float]:
        return dict(self.fixed if self.fixed is not None else self._pairs)

    def update(self, pool: list[Entry], memo: SearchMemo) -> bool:
        """Make this the search over ``pool``; False (and this no longer usable) where it cannot be
        updated: ids repeat, the cap moved, or more than a few entries changed. :attr:`touched` and
        :attr:`moved` say what changed."""
        self.touched = set()
        if not self._update(pool, memo):
            return False
        pairs, sharing, extra = self._pairs, self.sharing.pairs, self.extra
        for pair in self.touched:
            if pair in sharing:
                pairs[pair] = sharing[pair]
            elif pair in extra:
                pairs[pair] = 0
            else:
                pairs.pop(pair, None)
        self.round += 1
        return True

    def _update(self, pool: list[Entry], memo: SearchMemo) -> bool:
        if self.fixed is not None or max(50, len(pool) // 100) != self.cap:
            return False
        before, after = _delta(self.pool, pool)
        if len(before) + len(after) > max(10, _UPDATE_AT_MOST * len(pool)):
            return False
        old_ids = list(map(_id_of, before))
        new_ids = list(map(_id_of, after))
        left = set(old_ids)
        if len(set(new_ids)) != len(new_ids) or any(i in self.ids and i not in left for i in new_ids):
            return False  # an id now used twice
        read = self.sharing.read
        old = {i: read[i] for i in old_ids}
        new = {i: memo.feature(e.content) for i, e in zip(new_ids, after, strict=True)}
        gone = left.difference(new_ids)
        self.sharing.apply(new, gone)
        self.touched |= self.sharing.touched
        self.moved = (list(after), list(gone))
        self.ids.difference_update(gone)
        self.ids.update(new_ids)
        self.pool = list(pool)
        touched: set[str] = set()
        for entry_id, found in old.items():
            for anchor in found[2]:
                self.groups[anchor].discard(entry_id)
                touched.add(anchor)
        for entry_id, found in new.items():
            for anchor in found[2]:
                self.groups[anchor].add(entry_id)
                touched.add(anchor)
        for anchor in touched:
            self._group(anchor)
        if self.contexts is None:
            if any(map(_changing, new.values())):
                self._read_contexts(list(map(_content_of, pool)), memo)
            return True
        contexts, holders = self.contexts, self.holders
        tokens: set[str] = set()
        for entry_id in old_ids:
            for token in contexts.pop(entry_id):
                holders[token].discard(entry_id)
                tokens.add(token)
        for entry_id, entry in zip(new_ids, after, strict=True):
            contexts[entry_id] = found = memo.context_of(entry.content)
            for token in found:
                holders[token].add(entry_id)
                tokens.add(token)
        again = left.union(new_ids)
        for token in tokens:
            again.update(self.askers.get(token, ()))
            if not holders.get(token, True):
                del holders[token]
        for entry_id in again:
            self._meet(entry_id)
        return True

    def _group(self, anchor: str) -> None:
        """Find again the pairs one anchor's group makes: entries that share the anchor and a term, in
        a group of two up to the cap."""
        for pair in self.grouped.pop(anchor, ()):
            self._drop(pair)
        members = self.groups.get(anchor)
        if not members:
            self.groups.pop(anchor, None)
            return
        if len(members) < 2 or len(members) > self.cap:
            return
        read = self.sharing.read
        ordered = sorted(members)
        made = {(a, b) for i, a in enumerate(ordered) for b in ordered[i + 1:] if read[a][1] & read[b][1]}
        if made:
            self.grouped[anchor] = made
            self.touched |= made
            for pair in made:
                self.extra[pair] += 1

    def _read_contexts(self, texts: list[str], memo: SearchMemo) -> None:
        """Read every text's context (the first time a text retires a value or says something changed),
        and answer every such text."""
        self.contexts = dict(zip(map(_id_of, self.pool), memo.context(texts), strict=True))
        for entry_id, tokens in self.contexts.items():
            for token in tokens:
                self.holders[token].add(entry_id)
        for entry_id, found in self.sharing.read.items():
            if _changing(found):
                self._meet(entry_id)

    def _meet(self, entry_id: str) -> None:
        """Answer again which entries a text that retires a value or says something changed meets."""
        last = self.met.pop(entry_id, None)
        if last is not None:
            for pair in last[0]:
                self._drop(pair)
            for token in last[1]:
                askers = self.askers.get(token)
                if askers is not None:
                    askers.discard(entry_id)
                    if not askers:
                        del self.askers[token]
        found = self.sharing.read.get(entry_id)
        if found is None or not _changing(found):
            return
        assert self.contexts is not None
        others, asked = _met_by_change(found, self.contexts[entry_id], self.holders, self.cap)
        pairs = {(min(entry_id, other), max(entry_id, other)) for other in others if other != entry_id}
        self.met[entry_id] = (pairs, asked)
        self.touched |= pairs
        for pair in pairs:
            self.extra[pair] += 1
        for token in asked:
            self.askers[token].add(entry_id)

    def _drop(self, pair: tuple[str, str]) -> None:
        self.touched.add(pair)
        left = self.extra[pair] - 1
        if left:
            self.extra[pair] = left
        else:
            del self.extra[pair]


def _changing(features: _Features) -> bool:
    """Whether a text retires a value or says something changed."""
    return bool(features[3]) or features[4]


def groups_of_one_fact(entries: list[Entry], keys_of: Any, *, one_key: bool = False) -> list[tuple[Entry, list[Entry]]]:
    """Groups of two or more entries that state one fact: joined through any shared key (union-find),
    then split so that every member is :func:`compatible` with the first of its group. Each comes with
    its survivor, the member of highest :func:`rank` (the first in order of those of equal rank, as
    ``max`` picks it): the first of its part, which takes the members in order of rank. ``one_key``:
    ``keys_of`` gives each entry one key, so that entries are joined exactly when their keys are equal
    (the same groups, in the same order, with no union-find)."""
    joined: dict[Any, list[Entry]] = defaultdict(list)
    if one_key:
        for entry in entries:
            key = keys_of(entry)[0]
            if key.strip("\x00"):
                joined[key].append(entry)
    else:
        parent = list(range(len(entries)))

        def find(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        first: dict[str, int] = {}
        for i, entry in enumerate(entries):
            for key in keys_of(entry):
                if not key.strip("\x00"):
                    continue
                if key in first:
                    parent[find(i)] = find(first[key])
                else:
                    first[key] = i
        for i, entry in enumerate(entries):
            joined[find(i)].append(entry)
    groups: list[tuple[Entry, list[Entry]]] = []
    for members in joined.values():
        if len(members) < 2:
            continue
        parts: list[list[Entry]] = []
        for entry in sorted(members, key=rank, reverse=True):
            home = next((p for p in parts if compatible(p[0].content, entry.content)
                         and not other_projects(p[0], entry)), None)
            if home is None:
                parts.append([entry])
            else:
                home.append(entry)
        if len(parts) == 1:  # (most groups: no split, the members in their order)
            groups.append((parts[0][0], members))
            continue
        order = {id(e): i for i, e in enumerate(members)}
        groups.extend((p[0], sorted(p, key=lambda e: order[id(e)])) for p in parts if len(p) > 1)
    return groups
