"""What makes a large plan fast changes nothing it plans: a summary is computed without the statement's
tokens, the prechecks that skip a pattern skip it only where it cannot match, and a plan computed over
worker processes is the plan computed here."""

from __future__ import annotations

import importlib
import json
import re
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rapidfuzz import fuzz

from lorekeeper.analysis.compaction import CompactionConfig, plan_compaction, rules, search
from lorekeeper.core.text import CaseBlind
from lorekeeper.facts import parse, updates, verify
from lorekeeper.infra.workers import worker_count
from support import REPO, Tree

score = importlib.import_module("lorekeeper.analysis.context.score")  # (the package's `score` is a function)
DATA = REPO / "tests" / "data" / "compaction"
NOW = datetime(2026, 11, 1, tzinfo=UTC)


def _labelled_texts() -> list[str]:
    texts: list[str] = []
    for name in ("pairs.jsonl", "real_pairs.jsonl", "heldout.jsonl"):
        for line in (DATA / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                pair = json.loads(line)
                texts += [pair["a"], pair["b"]]
    for path in sorted((DATA / "stores").glob("*.json")):
        if not path.name.endswith(".truth.json"):
            texts += [e["content"] for e in json.loads(path.read_text(encoding="utf-8"))]
    return texts


#: Changes said outright, one for each word that lets a text through :func:`updates.changes_in`'s precheck.
CHANGES = ["We got rid of `moment` from the dashboard.", "Switched CI from Travis CI to GitHub Actions.",
           "Changed the API timeout from 10s to 30s.", "`LOG_LEVEL` was renamed to `APP_LOG_LEVEL`.",
           "Use `pnpm changeset` instead of `npm version patch`.", "Prefer Vitest rather than Jest from now on.",
           "Do not use `moment` in the dashboard any more.", "There is no `setup.py` any longer.",
           "`make lint` is no longer used.", "RabbitMQ was removed from the stack.", "Redis was replaced by Valkey.",
           "Migrated off RabbitMQ in March.", "Moved `src/lib` to `packages/core`.", "Stopped using `lodash` in the API.",
           "The queue changed: SQS -> Kafka.", "We retired the `legacy-api` from production."]
TEXTS = _labelled_texts() + CHANGES

#: Words and literals the patterns turn on, to be strung together; and single characters, to be anything.
_PIECES = ["the", "Use", "use", "not", "don't", "from", "to", "moved", "migrated", "switched", "now", "any more",
           "got rid of", "replaced", "with", "removed", "was", "is", "no longer", "instead of", "there is no",
           "UTC+2", "GMT - 3", "10:30", "v18.3.1", "^18", "~2.4", ">=3", "10ms", "5 minutes", "30s", "1,000", "٣",
           "１", "²", "src/app.ts", "./a/b/", ".env", "package.json", "FOO_BAR", "fooBar", "snake_case", "node-v20",
           "api-svc", "os.path.join()", "https://x.io/a#b", "??", "||", "->", "=>", "→", "**bold**", "__x__", "_y",
           "~~z~~", "# Title", "- item", "1. one", "2) two", "`pnpm`", "`cargo insta review`", "`a b 2`",
           "`packages/ui`", "one", "three", "Jest", "Vitest", "`jest`", "Redis", "e.g.", "x.Y", "a-b", ":", "=",
           ".", ",", ";", "!", "?", "(", ")", "\n", "'s", "N'T", "UTC", "GMT", "+ 5", "café", "Ab", "abC", "v", "5",
           "x``a` b`", "``", "-", "/", "_", "runs!", "Foo.", "ABC", "a'b", "NOW", "Switched", "ſwitched", "MOVED",
           "Any More", "no  Longer", "\u212aept", "İnstead", "THERE", "Errors", "crashed", "failing", "bug", "bugs",
           "we chose", "chosen  over", "in favor of", "DO NOT", "never", "Gotcha", "caveats", "decided"]
_ALPHABET = "aZbY09٣１²`:/_?|&=-.#*~+)(!<>^,; \n\t'\"@[]{}→éİK"
ANY_TEXT = st.one_of(
    st.text(alphabet=_ALPHABET, max_size=60),
    st.lists(st.sampled_from(_PIECES), max_size=14).map(" ".join),
    st.lists(st.sampled_from(_PIECES), max_size=14).map("".join),
)


def _statement_summary(text: str) -> verify.Summary:
    """The summary as it was computed from the full statement, before :func:`verify._summarize`."""
    statement = parse.parse(text)
    code = tuple((stem, tuple(forms)) for stem, forms in sorted(statement.code_words.items()))
    return statement.key, len(statement.tokens), statement.flat, code


def _type_by_three_scans(text: str) -> str:
    """What :func:`score._type_of_text` answers, one pattern after another over the whole text."""
    patterns, text = (score._TEXT_LOWER, text.lower()) if text.isascii() else (score._TEXT, text)
    return next((kind for kind in ("error", "decision", "caveat") if patterns[kind].search(text)), "fact")


def _changes_by_sentence(text: str) -> tuple[updates.Change, ...]:
    """:func:`updates.changes_in` without its whole-text precheck."""
    return tuple(dict.fromkeys(c for s in updates._sentences(text) for c in updates._changes_in_sentence(s)))


def _scanned(pattern: re.Pattern[str], text: str) -> list[tuple[tuple[int, int], str | None]]:
    return [(m.span(), m.lastgroup) for m in pattern.finditer(text)]


_CASE_BLIND = (updates._MARKERS, updates._TRIGGER, updates._CHANGE_WORD)


def _case_blind_answers(text: str) -> list[bool]:
    return [blind.occurs(text) for blind in _CASE_BLIND]


def _ignorecase_answers(text: str) -> list[bool]:
    return [re.search(blind.pattern, text, re.IGNORECASE) is not None for blind in _CASE_BLIND]


def test_a_case_blind_pattern_is_written_in_lower_case() -> None:
    assert CaseBlind(r"\bnow\b").occurs("Effective NOW.")
    assert not CaseBlind(r"\bnow\b").occurs("Nowhere")
    assert CaseBlind(r"\bkept\b").occurs("\u212aept")  # the Kelvin sign folds to k: IGNORECASE decides
    for pattern in (r"\bNow\b", r"\S+moved"):
        with pytest.raises(ValueError):
            CaseBlind(pattern)


def test_summaries_and_prechecks_on_the_labelled_texts() -> None:
    assert all(_changes_by_sentence(text) for text in CHANGES), "each states a change"
    for text in TEXTS:
        assert _scanned(parse.LITERAL_SCAN, text) == _scanned(parse.LITERAL, text), text
        assert _case_blind_answers(text) == _ignorecase_answers(text), text
        assert verify._summarize(text) == _statement_summary(text), text
        assert updates.changes_in.__wrapped__(text) == _changes_by_sentence(text), text
        assert score._type_of_text(text) == _type_by_three_scans(text), text


@given(ANY_TEXT)
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_summaries_and_prechecks_on_any_text(text: str) -> None:
    assert verify._summarize(text) == _statement_summary(text)
    assert updates.changes_in.__wrapped__(text) == _changes_by_sentence(text)
    assert _scanned(parse.LITERAL_SCAN, text) == _scanned(parse.LITERAL, text)
    assert _case_blind_answers(text) == _ignorecase_answers(text)
    assert score._type_of_text(text) == _type_by_three_scans(text)
    # A precheck may let through a text the pattern does not match, never the other way round.
    if parse.LITERAL.search(text):
        assert parse.MAY_HOLD_LITERAL.search(text)
    if parse.MARKUP.search(text):
        assert parse.MAY_HOLD_MARKUP.search(text)


#: Words apart, and the whitespace rapidfuzz and Python split at differently (U+0085, U+00A0) or alike.
_WORDS = st.lists(st.sampled_from(["a", "b", "ab", "é", "ǅ", "ß", "x_y", "1", " ", "  ", "\t", "\n", "\x85", "\xa0",
                                   "\u2028", "\u3000", "\x1c", "\u200b"]), max_size=12).map("".join)


@given(_WORDS, _WORDS, st.sampled_from([0, 50, 85, 100]))
@settings(max_examples=800, deadline=None)
def test_sorted_words_score_as_token_sort_ratio(a: str, b: str, cutoff: int) -> None:
    """The candidate search scores two texts with their words sorted once a text: the same score as
    rapidfuzz's token_sort_ratio, or 0 where that is below the cutoff, whatever separates the words."""
    want = fuzz.token_sort_ratio(a, b)
    left = (a, set(), frozenset(), (), False, search._sorted_words(a))
    right = (b, set(), frozenset(), (), False, search._sorted_words(b))
    assert search._similarity(left, right, cutoff) == (want if want >= cutoff else 0)


def test_sorted_words_on_the_labelled_texts() -> None:
    features = [search._features(text) for text in TEXTS[:400]]
    for a, b in zip(features, features[1:], strict=False):
        want = fuzz.token_sort_ratio(a[0], b[0])
        assert search._similarity(a, b, 50) == (want if want >= 50 else 0)


def test_candidate_pairs_read_through_a_kept_memo_are_the_same(tmp_path: Path) -> None:
    """The language server keeps what the candidate search read of each text, and found, between saves:
    the pairs are those of a fresh search after texts changed, and the memo forgets texts gone."""
    stores = _stores()
    tree = Tree(tmp_path)
    entries = stores[-1][:600]
    for entry in entries:
        tree.entry(f"{entry['id']}.json", entry)
    pool = [e for e in tree.store().entries if e.live]
    memo = search.SearchMemo()
    assert search.candidate_pairs(pool, 50, memo) == search.candidate_pairs(pool, 50)
    assert len(memo.features) == len({e.content for e in pool})
    for step in range(1, 4):  # a few entries edited: the last search is updated
        edited = [e.model_copy(update={"content": e.content + " now"}) if i % 97 == step else e
                  for i, e in enumerate(pool)]
        last = memo.sharing
        assert search.candidate_pairs(edited, 50, memo) == search.candidate_pairs(edited, 50)
        assert memo.sharing is last
    edited = [e.model_copy(update={"content": e.content + " now"}) if i % 3 == 0 else e for i, e in enumerate(pool)]
    fresh = search.candidate_pairs(edited, 50)
    assert search.candidate_pairs(edited, 50, memo) == fresh  # a third changed: searched again
    assert fresh != search.candidate_pairs(pool, 50)  # the edits changed what is found
    smaller = edited[:100]
    assert search.candidate_pairs(smaller, 50, memo) == search.candidate_pairs(smaller, 50)
    assert set(memo.features) == {e.content for e in smaller}  # the rest was forgotten


#: Few words, so that texts share many, and a word's count crosses two and the cap as texts change.
_VOCABULARY = ["use", "pnpm", "npm", "run", "tests", "with", "vitest", "jest", "the", "api", "port", "is", "3000",
               "8080", "not", "build", "`make`", "docs", "in", "src", "lint", "before", "commit", "deploy"]
_SHORT_TEXT = st.lists(st.sampled_from(_VOCABULARY), min_size=2, max_size=7).map(" ".join)
_EDIT = st.tuples(st.sampled_from(["edit", "add", "remove"]), st.integers(0, 10_000), _SHORT_TEXT)


def _pair_texts() -> list[str]:
    """Both sides of every labelled pair: texts that state one fact in other words, or conflict."""
    texts: list[str] = []
    for name in ("pairs.jsonl", "real_pairs.jsonl"):
        for line in (DATA / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                pair = json.loads(line)
                texts += [pair["a"], pair["b"]]
    return texts


_PAIR_TEXTS = _pair_texts()
#: Texts that join in chains: the first two share their normalised text, the second and third a fact key,
#: the first and third nothing ("Use react ^18.3.1" / "Use `react` ~18.3.1" / "We use react ~18.3.1").
_CHAINED = ["Use react ^18.3.1", "Use react ~18.3.1", "use React ~18.3.1.", "We use react ~18.3.1",
            "Always use react ~18.3.1", "Use react 18.3.1", "Use `react` ~18.3.1", "Run tests with pytest, then lint",
            "Run the tests with pytest, then lint", "then lint, run tests with pytest", "Run tests and use pnpm",
            "run tests, use pnpm", "Use pnpm, run tests", "use pnpm; run tests", "Use pnpm and run tests",
            "The port is 3000 and the host is localhost", "the port is 3000, the host is localhost",
            "The host is localhost and the port is 3000", "Use pnpm.", "use **pnpm**", "Always use pnpm",
            "Do not use npm", "Don't use npm", "Never use npm", "The API timeout is 30s.", "The API timeout is 10s."]
#: An entry as the planner sees it: which labelled text, its form (an instruction bullet is never
#: rewritten), pinned or not, how old.
_AN_ENTRY = st.tuples(st.integers(0, 10**6), st.sampled_from(["entry", "entry", "instruction"]), st.booleans(),
                      st.integers(1, 28))


def _entry(number: int, drawn: tuple[int, str, bool, int]):
    from lorekeeper.core.model import Entry, Location

    text, form, pinned, day = drawn
    return Entry(id=f"e{number:03}", content=_PAIR_TEXTS[text % len(_PAIR_TEXTS)] if text % 3 == 0 else _CHAINED[text % len(_CHAINED)],
                 format=form, pinned=pinned, created=datetime(2026, 10, day, tzinfo=UTC),
                 location=Location(path=f"m/e{number:03}.json"))


def _found(planner: rules.Planner) -> tuple[Any, ...]:
    return (sorted((op.op, tuple(op.sources), (op.result or {}).get("id")) for op in planner.operations),
            sorted(planner.consumed), [(c["entries"], c["reason"]) for c in planner.conflicts])


@given(st.lists(_AN_ENTRY, min_size=3, max_size=30),
       st.lists(st.lists(st.tuples(st.sampled_from(["edit", "add", "remove", "copy"]), st.integers(0, 999), _AN_ENTRY),
                         min_size=1, max_size=4), max_size=5))
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_kept_grouping_finds_what_a_fresh_plan_finds(start: list[tuple[int, str, bool, int]],
                                                      steps: list[list[tuple[str, int, tuple[int, str, bool, int]]]]) -> None:
    """The language server groups again only the entries joined through keys to those a save changed:
    after entries are edited, added, removed or read again (another object, the same fields), the
    groups, what they consume and the conflicts found after are a fresh plan's."""
    config = CompactionConfig()
    entries = [_entry(i, drawn) for i, drawn in enumerate(start)]
    memo = search.SearchMemo()
    numbers = len(entries)
    for step in [[], *steps]:
        for kind, at, drawn in step:
            if kind == "add" or not entries:
                entries.append(_entry(numbers, drawn))
                numbers += 1
            elif kind == "edit":
                old = entries[at % len(entries)]
                entries[at % len(entries)] = _entry(int(old.id[1:]), drawn)
            elif kind == "copy":
                entries[at % len(entries)] = entries[at % len(entries)].model_copy()
            else:
                del entries[at % len(entries)]
        kept = rules.Planner(entries, config, NOW)
        kept.search = memo
        kept.same_facts()
        kept.find_conflicts()
        fresh = rules.Planner(entries, config, NOW)
        fresh.dedup()
        fresh.merge()
        assert _found(kept) == _found(fresh)
        assert memo.grouped is not None and set(memo.grouped.entries) == {e.id for e in entries}
    if steps:
        assert memo.grouped.regrouped <= {e.id for e in entries} | {f"e{n:03}" for n in range(numbers)}


def test_a_kept_search_asks_the_verifier_only_about_pairs_of_new_texts(monkeypatch: pytest.MonkeyPatch) -> None:
    """After a save, the contradictions are found again over every candidate pair, but the verifier is
    asked only about pairs with a text it did not judge in the last search; the answer is a fresh one's."""
    from lorekeeper.core.model import Entry, Location

    def entry(name: str, text: str) -> Entry:
        return Entry(id=name, content=text, location=Location(path=f"{name}.json"))

    asked: list[list[tuple[str, str]]] = []
    real = rules.compare_all

    def counted(pairs: list[tuple[str, str]]) -> list[verify.Comparison]:
        asked.append(list(pairs))
        return real(pairs)

    monkeypatch.setattr(rules, "compare_all", counted)
    entries = [entry("a", "The API timeout is 30 seconds."), entry("b", "The API timeout is 60 seconds."),
               entry("c", "The retry limit is 3 attempts."), entry("d", "The retry limit is 5 attempts.")]
    memo = rules.SearchMemo()

    def search() -> tuple[list[list[str]], list[tuple[str, str]]]:
        """The contradictions a kept search finds, and the pairs it asked the verifier about."""
        asked.clear()
        kept = rules.Planner(entries, CompactionConfig(), NOW)
        kept.search = memo
        kept.same_facts()
        kept.find_conflicts()
        pairs = [pair for call in asked for pair in call]
        fresh = rules.Planner(entries, CompactionConfig(), NOW)
        fresh.dedup()
        fresh.merge()
        assert _found(kept) == _found(fresh)
        return sorted(sorted(c["entries"]) for c in kept.conflicts), pairs

    found, pairs = search()
    assert found == [["a", "b"], ["c", "d"]] and len(pairs) >= 2
    entries[3] = entry("d", "The retry limit is 7 attempts.")  # saved: c and d still disagree
    found, pairs = search()
    assert found == [["a", "b"], ["c", "d"]]
    assert pairs and all("The retry limit is 7 attempts." in pair for pair in pairs)
    entries[1] = entry("b", "Deploys go through staging.")  # no longer about the timeout
    found, pairs = search()
    assert found == [["c", "d"]]
    assert all("Deploys go through staging." in pair for pair in pairs)
    found, pairs = search()  # nothing changed: nothing asked
    assert found == [["c", "d"]] and pairs == []


def test_kept_grouping_follows_a_chain_of_keys() -> None:
    """a shares its normalised text with b, b a fact key with c (b merges into c): when a changes, b and
    c are grouped again together, not b alone."""
    from lorekeeper.core.model import Entry, Location

    def entry(name: str, text: str) -> Entry:
        return Entry(id=name, content=text, location=Location(path=f"{name}.json"))

    entries = [entry("a", "Use react ^18.3.1"), entry("b", "Use `react` ~18.3.1"), entry("c", "We use react ~18.3.1")]
    memo = search.SearchMemo()
    for step in range(2):
        if step:
            entries[0] = entry("a", "Use react ^18.3.2")
        kept = rules.Planner(entries, CompactionConfig(), NOW)
        kept.search = memo
        kept.same_facts()
        assert [(op.op, op.sources, (op.result or {}).get("id")) for op in kept.operations] == [("merge", ["b"], "c")]
    assert memo.grouped is not None and memo.grouped.regrouped == {"a", "b", "c"}


@given(st.lists(_SHORT_TEXT, min_size=5, max_size=60), st.lists(st.lists(_EDIT, min_size=1, max_size=6), max_size=6),
       st.sampled_from([3, 6, 50]), st.sampled_from([50, 85]))
@settings(max_examples=150, deadline=None)
def test_updated_sharing_search_finds_what_a_fresh_one_finds(texts: list[str], steps: list[list[tuple[str, int, str]]],
                                                             cap: int, threshold: int) -> None:
    """After entries are edited, added and removed, the near-identical pairs of the updated search are
    those of a search over the new pool from nothing, whichever words cross two or the cap."""
    read = {f"e{i:03}": search._features(text) for i, text in enumerate(texts)}
    sharing = search._Sharing(threshold, cap, read)
    fresh_ids = len(texts)
    for step in steps:
        read = dict(read)
        for kind, at, text in step:
            ids = sorted(read)
            if kind == "add" or not ids:
                read[f"e{fresh_ids:03}"] = search._features(text)
                fresh_ids += 1
            elif kind == "edit":
                read[ids[at % len(ids)]] = search._features(text)
            else:
                del read[ids[at % len(ids)]]
        assert sharing.update(read), "a few changes update the search"
        assert sharing.pairs == search._Sharing(threshold, cap, read).pairs
        assert sharing.read == read


#: Texts the candidate search meets otherwise than by wording: they hold an anchor, retire a value or say
#: something changed (from the labelled pairs), and texts that join in chains; few, so that an anchor's
#: group passes the cap of 50 in a pool of a hundred and more.
_MEETING = [t for t in _PAIR_TEXTS if (lambda f: f[2] or f[3] or f[4])(search._features(t))][:24] + _CHAINED[:8] + [
    "The API timeout is now 10s.", "We got rid of `moment` from the dashboard.",
    "Large uploads through the gateway often hit the API timeout while the storage backend is still writing chunks.",
    "When debugging flaky integration suites, raise the API timeout locally and rerun them twice."]
_POOL_EDIT = st.tuples(st.sampled_from(["edit", "insert", "remove", "copy", "swap", "reuse-id"]),
                       st.integers(0, 999), st.integers(0, len(_MEETING) - 1))


def _meeting_entry(number: int, text: int, entry_id: str | None = None):
    from lorekeeper.core.model import Entry, Location

    return Entry(id=entry_id or f"e{number:03}", content=_MEETING[text], location=Location(path=f"m/e{number:03}.json"))


@given(st.lists(st.integers(0, len(_MEETING) - 1), min_size=2, max_size=130),
       st.lists(st.lists(_POOL_EDIT, min_size=1, max_size=4), max_size=6))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_kept_candidate_search_finds_what_a_fresh_one_finds(start: list[int], steps: list[list[tuple[str, int, int]]]) -> None:
    """The language server's candidate search is updated after a save, looking only at the entries that
    changed (another object where the pool held one, entries inserted or removed): the pairs are a fresh
    search's, whatever anchor groups cross two or the cap, whichever texts retire a value, and where an
    id comes to be used twice."""
    entries = [_meeting_entry(i, text) for i, text in enumerate(start)]
    numbers = len(entries)
    memo = search.SearchMemo()
    for step in [[], *steps]:
        for kind, at, text in step:
            place = at % len(entries) if entries else 0
            if kind == "insert" or not entries:
                entries.insert(place, _meeting_entry(numbers, text))
                numbers += 1
            elif kind == "edit":
                entries[place] = _meeting_entry(numbers, text, entries[place].id)
            elif kind == "copy":
                entries[place] = entries[place].model_copy()
            elif kind == "swap":
                other = (place + 1 + at // 7) % len(entries)
                entries[place], entries[other] = entries[other], entries[place]
            elif kind == "reuse-id":
                entries[place] = _meeting_entry(numbers, text, entries[(place + 1) % len(entries)].id)
            else:
                del entries[place]
        assert search.candidate_pairs(entries, 50, memo) == search.candidate_pairs(entries, 50)


def test_a_kept_candidate_search_is_updated_not_searched_again() -> None:
    """One entry saved, inserted or removed in a pool of 200: the kept search is updated (the same
    object), finds a fresh search's pairs, and the pairs change with the text."""
    entries = [_meeting_entry(i, i % len(_MEETING)) for i in range(200)]
    memo = search.SearchMemo()
    first = search.candidate_pairs(entries, 50, memo)
    kept = memo.met
    assert kept is not None and first == search.candidate_pairs(entries, 50)
    saves = [lambda: entries.__setitem__(40, _meeting_entry(40, 3)), lambda: entries.insert(90, _meeting_entry(500, 5)),
             lambda: entries.__delitem__(150), lambda: None]
    for save in saves:
        save()
        again = search.candidate_pairs(entries, 50, memo)
        assert memo.met is kept and memo.sharing is kept.sharing
        assert again == search.candidate_pairs(entries, 50)
    assert again != first


def test_a_kept_candidate_search_answers_again_a_change_whose_words_another_save_took() -> None:
    """A text that says something changed meets the entries that share two of its words; when a save
    gives another entry those words (or takes them away), the unchanged text is answered again."""
    from lorekeeper.core.model import Entry, Location

    def entry(name: str, text: str) -> Entry:
        return Entry(id=name, content=text, location=Location(path=f"{name}.json"))

    entries = [entry("a", "The API timeout is now 10s."), entry("b", "Nightly jobs send a report to the team."),
               *(entry(f"z{i}", f"Module {i} keeps its own fixtures.") for i in range(12))]
    memo = search.SearchMemo()
    assert ("a", "b") not in search.candidate_pairs(entries, 50, memo)
    kept = memo.met
    for text, met in (("Large uploads through the gateway often hit the API timeout while the storage backend is still "
                       "writing chunks.", True), ("Nightly jobs send a report to the team.", False)):
        entries[1] = entry("b", text)
        pairs = search.candidate_pairs(entries, 50, memo)
        assert memo.met is kept and pairs == search.candidate_pairs(entries, 50)
        assert (("a", "b") in pairs) is met
        assert ("a", "b") not in memo.sharing.pairs  # met through the change, not the wording


def _plan_json(root: Path, entries: list[dict[str, Any]]) -> str:
    tree = Tree(root)
    for entry in entries:
        tree.entry(f"{entry['id']}.json", entry)
    plan = plan_compaction(tree.store(), CompactionConfig(), now=NOW)
    operations = [{**op.to_json(), "updates": [[e.id, f] for e, f in op.updates], "new_entry": op.new_entry,
                   "new_path": op.new_path} for op in plan.operations]
    return json.dumps({"operations": operations, "conflicts": plan.conflicts, "views": plan.views,
                       "tokens": plan.tokens, "hashes": plan.hashes}, sort_keys=True, default=str)


def _stores() -> list[list[dict[str, Any]]]:
    """The realistic stores, and one store of every labelled pair (merges and conflicts aplenty)."""
    stores = [json.loads(p.read_text(encoding="utf-8")) for p in sorted((DATA / "stores").glob("*.json"))
              if not p.name.endswith(".truth.json")]
    pairs: list[dict[str, Any]] = []
    for name in ("pairs.jsonl", "real_pairs.jsonl", "heldout.jsonl"):
        for line in (DATA / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                pair = json.loads(line)
                for side, month in (("a", 1), ("b", 3)):
                    pairs.append({"id": f"{name[:4]}-{pair['id']}-{side}", "content": pair[side], "tags": ["t"],
                                  "category": "conventions", "created": f"2026-{month:02d}-01T00:00:00Z"})
    return [*stores, pairs]


@pytest.mark.skipif(sys.platform != "linux", reason="workers are forked on Linux only")
def test_a_plan_over_worker_processes_is_the_serial_plan(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from lorekeeper.infra import workers

    monkeypatch.setattr(workers, "_allowed", True)  # as the command line does
    for number, entries in enumerate(_stores()):
        monkeypatch.setenv("LORE_WORKERS", "1")
        serial = _plan_json(tmp_path / f"serial{number}", entries)
        monkeypatch.setenv("LORE_WORKERS", "2")
        assert worker_count(len(entries)) == 2
        for cached in (parse.parse, verify._summary):  # as a new process: nothing known in memory
            cached.cache_clear()
        assert _plan_json(tmp_path / f"parallel{number}", entries) == serial
