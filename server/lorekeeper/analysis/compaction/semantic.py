"""The semantic rule of compaction (``lore compact --semantic``, config ``semanticDedup``): entries that
state one fact in other words become one, across categories and formats.

Candidates are nearest neighbours by cosine (:func:`.vectors.neighbours`); :func:`.guard.vouch` decides
each pair, the verifier first. The keeper is the text that says more (the newer when both say as much);
it gains the other's references and tags, and the other gets ``merged_into`` it, as in stage 1. An
instruction-file bullet is never edited: an entry merges into it only when the bullet says at least as
much; otherwise both stay."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Generator, Sequence
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ...core.model import Entry, newer_and_older
from ...core.settings.compaction import CompactionConfig
from ...core.text import terms
from ...facts import remembered, verify, vocabulary
from ...facts import semantic_guard as guard
from ...facts.near import Said, sentences
from ...facts.parse import stem as stem_of
from ...facts.remembered import remembered_facts
from ...facts.scope import apart, is_history, other_projects
from ...facts.semantic_guard import SUBSUMED_MARGIN, Vouch, vouch
from ...facts.subjects import named_apart
from ...facts.verify import compatible, fact_keys, fact_size
from ...infra import cache as cache_files
from ...store import Store
from ...workspace import Workspace
from ..semantic.embed import load_embedder
from ..semantic.vectors import cached_neighbours, cached_vectors, vectors_for

if TYPE_CHECKING:
    from .rules import Planner


def candidates(planner: Planner) -> list[tuple[Entry, Entry, float]]:
    """Pairs of available entries (older, newer, cosine) close enough for the guard to look at."""
    config = planner.config
    conflicted = planner.conflicted()
    pool = [e for e in planner.available(writable_only=False) if e.id not in conflicted]
    if len(pool) < 2 or planner.ws is None:
        return []
    model = config.semantic_model
    texts = [e.content for e in pool]
    vectors = vectors_for(planner.ws, texts, f"st:{model}", lambda: load_embedder(model))
    floor = max(0.0, config.semantic_threshold - SUBSUMED_MARGIN)
    out: list[tuple[Entry, Entry, float]] = []
    for i, j, cosine in cached_neighbours(planner.ws, f"st:{model}", texts, vectors, floor):
        newer, older = newer_and_older(pool[i], pool[j])
        out.append((older, newer, cosine))
    return out


#: How alike two memories' embeddings are, at least, for the renderings to date the older under the newer as
#: perhaps of one subject (:func:`near_subjects`). Chosen on the labelled pairs of the held-out entries store
#: (bench/real_memory): at 0.6, pairs each the other's nearest that no rule relates are 16 updates, 3 same
#: facts, 1 ambiguous and 7 others before their form is read (3 of two subjects, such as "`registry.toml` -
#: Tool registry mappings" / "`registry:` - New tools in `registry.toml`", which two opening code spans
#: name apart); at 0.5, 21 updates and 17 others; at 0.7, 12 and 6.
SUBJECT_COSINE = 0.6


def near_subjects(ws: Workspace, config: CompactionConfig, entries: Sequence[Entry], embed: bool = True
                  ) -> list[tuple[str, str]]:
    """Pairs of live memories (ids) that may speak of one subject by meaning: in one scope, not named apart
    by their form (:func:`lorekeeper.facts.subjects.named_apart`: two labels, two commands), each the
    other's nearest by embedding, at :data:`SUBJECT_COSINE` or more, one of them at least an entry (two
    lines of instruction files are the repeats'). A relation only dates the older under the newer
    (:mod:`..context.timeline`): an update told in new words ("`src/preload.ts` defines the renderer
    allowlist" / "The preload allowlist is auto-derived from contracts") is no longer shown as an undated
    equal of what replaced it. ``embed=False``: only the memories whose vectors are cached take part (the
    model is never loaded). Raises what :func:`.vectors.vectors_for` raises (the model unavailable, or
    vectors pending in the editor)."""
    pool = [e for e in entries if e.live and e.source != "heading" and not is_history(e.content)]
    if len(pool) < 2 or not any(e.format != "instruction" for e in pool):
        return []
    model = config.semantic_model
    if embed:
        vectors = vectors_for(ws, [e.content for e in pool], f"st:{model}", lambda: load_embedder(model))
    else:
        held, vectors = cached_vectors(ws, [e.content for e in pool], f"st:{model}")
        pool = [pool[i] for i in held]
    nearest: dict[int, tuple[float, int]] = {}
    for i, j, cosine in cached_neighbours(ws, f"st:{model}", [e.content for e in pool], vectors, SUBJECT_COSINE,
                                          use="subjects"):
        if apart(pool[i], pool[j]):
            continue
        for x, y in ((i, j), (j, i)):
            if cosine > nearest.get(x, (-1.0, -1))[0]:
                nearest[x] = (cosine, y)
    out: list[tuple[str, str]] = []
    for i, (_, j) in sorted(nearest.items()):
        a, b = pool[i], pool[j]
        if i < j and nearest.get(j, (0.0, -1))[1] == i and not a.format == b.format == "instruction" \
                and not named_apart(a.content, b.content):
            out.append((a.id, b.id))
    return out


def semantic_merge(planner: Planner) -> None:
    """Merge the pairs the guard vouches for (most similar first)."""
    keepers: set[str] = set()
    if planner.ws is None:
        return
    with remembered_vouches(planner.ws, planner.config) as judge:
        _merge_pairs(planner, judge, keepers)


def _merge_pairs(planner: Planner, judge: Callable[[str, str, float], Vouch], keepers: set[str]) -> None:
    for older, newer, cosine in candidates(planner):
        if older.id in planner.consumed or newer.id in planner.consumed:
            continue
        if newer.id in older.coexists_with or older.id in newer.coexists_with or other_projects(older, newer):
            continue
        if older.format == "instruction" and newer.format == "instruction":
            continue
        verdict = judge(older.content, newer.content, cosine)
        if not verdict.ok:
            continue
        # the one that says more; where neither does, the newer wording: were the two an update told in
        # other words ("Using `CI=1` makes sure …" / "The test script already sets `CI=1` …"), the current
        # value stays in view, the older one in its merged_into record
        keeper = older if verdict.keeper == "a" else newer
        instruction = next((e for e in (older, newer) if e.format == "instruction"), None)
        if instruction is not None and keeper is not instruction:
            if verdict.keeper:
                continue  # the entry says more than the bullet: merging it would lose that
            keeper = instruction
        other = newer if keeper is older else older
        if other.id in keepers or not planner.writable(other):
            continue
        keepers.add(keeper.id)
        planner.emit_merge("semantic", keeper, [other],
                           f"states the same fact as {keeper.id} in other words ({verdict.reason}): "
                           f"{' '.join(keeper.content.split())[:80]}")


def offered(planner: Planner, same: SameFacts) -> list[tuple[Entry, Entry, str]]:
    """Pairs of entries (the one to merge, the one it merges into, who judged them one fact) that ``same``
    judges one fact, of the close pairs the guard did not vouch for and nothing tells apart
    (:func:`.guard.refusal`), nearest first: offered as merges, never planned on a model's word. The one
    kept is the one that says more, else the newer. Pairs of two instruction lines are the repeats' (they
    are asked there, :func:`paraphrases`); an instruction line is never merged into an entry."""
    if planner.ws is None:
        return []
    left: list[tuple[float, Entry, Entry]] = []
    with remembered_vouches(planner.ws, planner.config) as judge:
        for older, newer, cosine in candidates(planner):
            if (older.id in planner.consumed or newer.id in planner.consumed or newer.id in older.coexists_with
                    or older.id in newer.coexists_with or other_projects(older, newer)
                    or (older.format == "instruction" and newer.format == "instruction")):
                continue
            a, b = older.content, newer.content
            if judge(a, b, cosine).ok or not (_says(a) and _says(b)) or guard.refusal(a, b):
                continue
            left.append((cosine, older, newer))
    left.sort(key=lambda c: (-c[0], c[1].id, c[2].id))
    answers = same([(o.content, n.content, _entry_where(o), _entry_where(n)) for _, o, n in left]) if left else []
    out: list[tuple[Entry, Entry, str]] = []
    for (_, older, newer), by in zip(left, answers, strict=True):
        if not by:
            continue
        keeper = older if fact_size(older.content) > fact_size(newer.content) else newer
        if older.format == "instruction" or newer.format == "instruction":
            keeper = older if older.format == "instruction" else newer  # (a bullet is never edited)
        other = newer if keeper is older else older
        if planner.writable(other):
            out.append((other, keeper, by))
    return out


def _entry_where(entry: Entry) -> str:
    """Where an entry is, for a judge that reads it alone: its category and tags, or its file and heading."""
    if entry.format == "instruction":
        return f"{entry.location.path}, under “{entry.section}”" if entry.section else entry.location.path
    tags = f", tags {', '.join(entry.tags)}" if entry.tags else ""
    return f"a memory entry of the category {entry.category}{tags}"


def offer_merges(planner: Planner, llm: Any) -> None:
    """The merges :func:`offered` finds with the LLM stage's model, in its report (``offered``): listed by
    `lore compact --semantic --llm`, each a quick fix in the editor (from the kept verdicts)."""
    for other, keeper, by in offered(planner, llm.same_facts):
        llm.report.offered.append({"entry": other.id, "into": keeper.id, "by": by,
                                   "texts": [" ".join(other.content.split())[:80], " ".join(keeper.content.split())[:80]]})


VOUCH_FILE = "vouches.json"


@cache
def _guard_version() -> str:

    digest = hashlib.blake2b(remembered.rules_version().encode(), digest_size=12)
    for module in (guard, verify, vocabulary):
        try:
            digest.update(Path(module.__file__ or "").read_bytes())
        except OSError:
            digest.update(repr(id(module)).encode())
    return digest.hexdigest()


def _stored_pairs(data: Any, version: str) -> dict[str, Vouch]:
    """The verdicts of a cache file written under ``version``; anything malformed is left out."""
    if not isinstance(data, dict):
        return {}
    table = cast(dict[str, Any], data)
    pairs: object = table.get("pairs")
    if table.get("version") != version or not isinstance(pairs, dict):
        return {}
    out: dict[str, Vouch] = {}
    for key, raw in cast(dict[str, Any], pairs).items():
        if isinstance(raw, list) and len(cast(list[Any], raw)) == 3:
            ok, reason, keeper = cast(list[Any], raw)
            if isinstance(ok, bool) and isinstance(reason, str) and keeper in ("", "a", "b"):
                out[key] = Vouch(ok, reason, cast(str, keeper))
    return out


@contextmanager
def remembered_vouches(ws: Workspace, config: CompactionConfig) -> Generator[Callable[[str, str, float], Vouch]]:
    """The guard's verdicts of earlier runs, by the pair's texts and cosine (deterministic: vectors are
    read from the cache), under a key that changes with the guard's and the verifier's source, the model
    and the threshold; what this run decides is kept for the next. A warm plan reads no text."""
    version = f"{_guard_version()}|{config.semantic_model}|{config.semantic_threshold}"
    stored = _stored_pairs(cache_files.read_json(ws.root, ws.cache_dir, VOUCH_FILE), version)
    used: dict[str, Any] = {}

    def judge(a: str, b: str, cosine: float) -> Vouch:
        key = f"{remembered.text_key(a)}{remembered.text_key(b)}{cosine:.4f}"
        raw = stored.get(key)
        if raw is not None:
            used[key] = [raw.ok, raw.reason, raw.keeper]
            return raw
        verdict = vouch(a, b, cosine, config.semantic_threshold)
        used[key] = [verdict.ok, verdict.reason, verdict.keeper]
        return verdict

    yield judge
    if used.keys() != stored.keys():
        body = json.dumps({"version": version, "pairs": used}, separators=(",", ":"), ensure_ascii=False)
        cache_files.write(ws.root, ws.cache_dir, VOUCH_FILE, body.encode("utf-8", "surrogatepass"))


#: Who judges pairs of texts the guard does not vouch for (a model): given each pair's texts and where each
#: is (``(a, b, where_a, where_b)``), who judged it one fact (``llm:MODEL``), or ``None`` (another fact, or
#: no answer).
SameFacts = Callable[[list[tuple[str, str, str, str]]], list[str | None]]


def paraphrases(ws: Workspace, config: CompactionConfig, texts: list[str], same: SameFacts | None = None,
                where: list[str] | None = None, kept: Callable[[Said], bool] | None = None) -> list[Said]:
    """Pairs of ``texts`` (their indexes) that state one fact in other words: nearest neighbours by cosine,
    each vouched for by the guard (the verifier first), as the semantic rule merges entries; and a
    sentence of a longer text that a shorter one states (:func:`_in_parts`). Each pair comes with the
    words of each side that say the fact. For the facts instruction files repeat (:mod:`..repeats`),
    which are reported, never merged. ``same``: also ask it about the nearer pairs the guard did not
    vouch for and nothing tells apart (:func:`_judged`), telling it ``where`` each text is; also about the
    pairs the guard vouched for that the caller will not keep (``kept``: its own rules of scope and of words
    that turn the meaning, which the judge may weigh)."""
    if len(texts) < 2:
        return []
    model = config.semantic_model
    parts, owners = _sentences_of(texts)
    # one call: the texts and their sentences embedded (and cached) together
    both = vectors_for(ws, texts + parts, f"st:{model}", lambda: load_embedder(model))
    vectors = both[:len(texts)]
    floor = max(0.0, config.semantic_threshold - SUBSUMED_MARGIN)
    found: list[Said] = []
    near = cached_neighbours(ws, f"st:{model}", texts, vectors, floor, use="repeats")
    left: list[tuple[float, Said]] = []  # the pairs the guard did not vouch for: a judge's to weigh
    with remembered_vouches(ws, config) as judge:
        for i, j, cosine in near:
            if judge(texts[i], texts[j], cosine).ok:
                found.append(Said(i, j, texts[i], texts[j]))
            else:
                left.append((cosine, Said(i, j, texts[i], texts[j])))
        found += _in_parts(texts, vectors, parts, owners, both[len(texts):], judge, floor,
                           {(p.i, p.j) for p in found}, left)
    if same is not None:
        dropped = [p for p in found if kept is not None and not kept(p)]
        left += [(1.0, p) for p in dropped]
        found += _judged(left, [p for p in found if p not in dropped], same, where or [""] * len(texts))
    return found


def _judged(left: list[tuple[float, Said]], found: list[Said], same: SameFacts, where: list[str]) -> list[Said]:
    """The pairs ``same`` judges one fact, of those the guard did not vouch for (``left``: two texts, or a
    sentence of a longer text and a shorter one, each with its cosine), nearest first: those no pair of
    ``found`` holds, each side stating something (three words or more besides its names) and nothing
    telling them apart (:func:`.guard.refusal`): "`REDIS_URL` - Redis cache connection" and "**Job queue**:
    … `REDIS_JOBS_URL`" are never asked about, whatever a model would say. How many labelled pairs of the
    memory-bank and paraphrase stores of ``bench/real_memory`` are asked: ``bench/real_memory/judged.py``."""
    seen = {(min(p.i, p.j), max(p.i, p.j)) for p in found}
    asked: list[Said] = []
    for _, said in sorted(left, key=lambda c: (-c[0], min(c[1].i, c[1].j), max(c[1].i, c[1].j))):
        pair = (min(said.i, said.j), max(said.i, said.j))
        if pair in seen or said.a == said.b or not (_says(said.a) and _says(said.b)) or guard.refusal(said.a, said.b):
            continue
        seen.add(pair)
        asked.append(said)
    if not asked:
        return []
    answers = same([(said.a, said.b, where[said.i], where[said.j]) for said in asked])
    return [said._replace(by=by) for said, by in zip(asked, answers, strict=True) if by]


#: Sentences of a text looked at in :func:`_in_parts`, at most (a long paragraph's first ones).
PARTS_PER_TEXT = 6


def _sentences_of(texts: list[str]) -> tuple[list[str], list[int]]:
    """The sentences that state something of each text of two or more (its first
    :data:`PARTS_PER_TEXT`), and the index of the text of each."""
    parts: list[str] = []
    owners: list[int] = []
    for i, text in enumerate(texts):
        split = sentences(text)
        if len(split) < 2:
            continue
        for part in split[:PARTS_PER_TEXT]:
            if _says(part):
                parts.append(part)
                owners.append(i)
    return parts, owners


def _in_parts(texts: list[str], vectors: np.ndarray, parts: list[str], owners: list[int], part_vectors: np.ndarray,
              judge: Callable[[str, str, float], Vouch], floor: float, seen: set[tuple[int, int]],
              left: list[tuple[float, Said]] | None = None) -> list[Said]:
    """A shorter text that states one sentence of a longer one in other words (deadonfilm's CLAUDE.md:
    "**Testing**: Ship tests with new code in the same commit. Assert payload contents, not just that
    functions were called. …"; its copilot-instructions: "**Ship tests with code** — in the same commit,
    never deferred", "**Assert deeply** — verify payload shape and values, not just that functions were
    called"): the whole longer text is too far from either. The guard vouches for the sentence and the
    shorter text read in both orders; the pair comes with that sentence. The pairs it does not vouch for go
    to ``left``, each with its cosine."""
    if not parts:
        return []
    sizes = [fact_size(text) for text in texts]
    best: dict[tuple[int, int], tuple[float, str]] = {}
    for start in range(0, len(parts), 1024):
        sims = part_vectors[start:start + 1024] @ vectors.T
        rows, cols = np.nonzero(sims >= floor)
        for row, j in zip(rows.tolist(), cols.tolist(), strict=True):
            i = owners[start + row]
            pair = (min(i, j), max(i, j))
            cosine = float(sims[row, j])
            # the other text is the shorter: it states the sentence, the longer says more around it
            if (j == i or pair in seen or sizes[j] >= sizes[i] or cosine <= best.get(pair, (-1.0, ""))[0]
                    or not _says(texts[j])):
                continue
            best[pair] = (cosine, parts[start + row])
    out: list[Said] = []
    for (i, j), (cosine, part) in sorted(best.items(), key=lambda item: (-item[1][0], item[0])):
        longer, shorter = (i, j) if sizes[i] > sizes[j] else (j, i)
        said = Said(i, j, part if longer == i else texts[i], part if longer == j else texts[j])
        if judge(part, texts[shorter], cosine).ok and judge(texts[shorter], part, cosine).ok:
            out.append(said)
        elif left is not None:
            left.append((cosine, said))
    return out


#: Words a text must write outside its code spans and parentheses to state something of its own: a
#: sentence ("Decompose:" is none), and the shorter text (fastmcp's list item "**Resource Templates**
#: (`src/resources/`)" names a thing; "Note that while resources and resource templates are different
#: objects, they are both in `src/resources/`." says where it lives).
_PART_MIN_WORDS = 3
_NAMES = re.compile(r"`[^`\n]*`|\([^()\n]*\)")
_WORD = re.compile(r"[^\W\d_][\w'’-]*")


def _says(text: str) -> bool:
    return len(_WORD.findall(_NAMES.sub(" ", text))) >= _PART_MIN_WORDS


def likely_duplicates(store: Store, text: str, config: CompactionConfig) -> list[tuple[Entry, str]]:
    """Live entries of any format that state the fact of ``text`` (the verifier's keys), and, with the
    semantic stage on, those the guard vouches for among its nearest neighbours: what ``lore add`` warns
    about. ``store`` is memory before the new entry. Nothing is merged here."""
    others = [e for e in store.entries if e.live]
    with remembered_facts(store.ws, (e.content for e in others)):
        keys = set(fact_keys(text))
        found = [(e, "states the same fact") for e in others
                 if keys & set(fact_keys(e.content)) and compatible(e.content, text)]
    if not config.semantic_dedup or not others:
        return found
    seen = {e.id for e, _ in found}
    model = config.semantic_model
    vectors = vectors_for(store.ws, [text, *(e.content for e in others)], f"st:{model}", lambda: load_embedder(model))
    cosines = vectors[1:] @ vectors[0]
    floor = max(0.0, config.semantic_threshold - SUBSUMED_MARGIN)
    nearest: list[int] = cosines.argsort()[::-1][:8].tolist()
    for index in nearest:
        other, cosine = others[index], float(cosines[index])
        if cosine < floor or other.id in seen:
            continue
        verdict = vouch(other.content, text, cosine, config.semantic_threshold)
        if verdict.ok:
            found.append((other, f"states the same fact in other words ({verdict.reason})"))
    return found


#: Average cosine within a cluster of related (not duplicate) entries that fuse lists in one. Related
#: conventions ("Run unit tests with pytest -q", "Mark slow tests with ...", "Integration tests need
#: Docker") score 0.2-0.6 with MiniLM, unrelated facts of one project mostly under 0.15. A wrong group
#: loses nothing (each fact is listed word for word, and undo splits it again); a missed one costs tokens.
FUSE_COSINE = 0.2
#: Categories larger than this are not clustered (the average-linkage matrix grows with the square).
FUSE_MAX_CATEGORY = 4000


def semantic_fuse(planner: Planner, entries_dir: str) -> None:
    """Related short entries of one category that no tag groups — a cluster by average-linkage cosine
    of at least :data:`FUSE_COSINE` and ``fuse_min_entries`` or more — are fused as stage 1 fuses a tag:
    one entry listing each source fact once, word for word (no model writes anything)."""
    from scipy.cluster import hierarchy  # pyright: ignore[reportMissingTypeStubs]

    if planner.ws is None:
        return
    by_category: dict[str, list[Entry]] = {}
    for entry in planner.fusible():
        if entry.format != "instruction":
            by_category.setdefault(entry.category, []).append(entry)
    model = planner.config.semantic_model
    for category, group in sorted(by_category.items()):
        if not planner.config.fuse_min_entries <= len(group) <= FUSE_MAX_CATEGORY:
            continue
        vectors = vectors_for(planner.ws, [e.content for e in group], f"st:{model}", lambda: load_embedder(model))
        tree: Any = hierarchy.linkage(vectors.astype("float64"), method="average", metric="cosine")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        labels: list[int] = hierarchy.fcluster(tree, t=1.0 - FUSE_COSINE, criterion="distance").tolist()  # pyright: ignore[reportUnknownMemberType]
        clusters: dict[int, list[Entry]] = {}
        for entry, label in zip(group, labels, strict=True):
            clusters.setdefault(label, []).append(entry)
        for members in sorted(clusters.values(), key=lambda m: min(e.id for e in m)):
            if len(members) < planner.config.fuse_min_entries:
                continue
            topic, named = _topic(members)
            if len(named) >= planner.config.fuse_min_entries:
                planner.fuse_group(category, topic, named, entries_dir, "entries about")


#: Words too general to be what a cluster is about.
_GENERAL = frozenset("use used uses using run runs make makes get gets set sets need needs keep keeps one all"
                     " always never not no do does via only also each every new before after when".split())


def _topic(entries: list[Entry]) -> tuple[str, list[Entry]]:
    """The word most of the entries share (a stem, so "tests" and "test" count as one) and the entries
    that write it: a cluster is fused only over what it is visibly about."""

    stems: dict[str, set[str]] = {}
    shown: dict[str, str] = {}  # a stem as the entries write it, the shortest form
    for entry in entries:
        stems[entry.id] = set()
        for word in terms(entry.content):
            if word.isalpha() and word not in _GENERAL and len(word) > 2:
                stem = stem_of(word)
                stems[entry.id].add(stem)
                shown[stem] = min(shown.get(stem, word), word, key=lambda w: (len(w), w))
    counts: dict[str, int] = {}
    for found in stems.values():
        for stem in found:
            counts[stem] = counts.get(stem, 0) + 1
    if not counts:
        return "related", []
    topic = max(sorted(counts), key=lambda w: counts[w])
    return shown[topic], [e for e in entries if topic in stems[e.id]]
