"""Token counts in batches: the same numbers as counting each text, whether workers count them or not."""

from __future__ import annotations

import json
import sys

import pytest

from lorekeeper.core.text import text_key
from lorekeeper.infra import tokens, workers
from lorekeeper.infra.tokens import TokenMemo, count_each, count_tokens
from lorekeeper.workspace import Workspace
from support import Tree

TEXTS = ["Use pnpm, not npm.", "", "<|endoftext|> is text here, not a special token", "naïve café — ünïcödé",
         "def f(x):\n    return x\n" * 40, "Use pnpm, not npm."]


def test_a_batch_counts_what_each_text_counts() -> None:
    counted = count_each(TEXTS)
    assert counted == {text: count_tokens(text) for text in TEXTS}
    assert counted["Use pnpm, not npm."] > 3 and counted[""] == 0
    known = {"Use pnpm, not npm.": -1}  # known texts are not counted again
    assert count_each(TEXTS, known=known)["Use pnpm, not npm."] == -1
    assert set(known) == set(TEXTS)


@pytest.mark.skipif(sys.platform != "linux", reason="workers are forked on Linux only")
def test_a_large_batch_counted_by_workers_counts_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = [f"Entry {i}: the retry limit is {i % 17} and the timeout {i}s." * (1 + i % 5) for i in range(600)]
    serial = {text: count_tokens(text) for text in texts}
    monkeypatch.setattr(workers, "_allowed", True)
    monkeypatch.setenv("LORE_WORKERS", "2")
    monkeypatch.setattr(tokens, "PARALLEL_MIN_CHARS", 1)
    forked: list[int] = []
    real = workers.fork_map

    def spy(fn, items, **kwargs):  # noqa: ANN001, ANN003, ANN202 - the real fork_map, watched
        forked.append(workers.worker_count(len(items), kwargs.get("min_items", workers.PARALLEL_MIN)))
        return real(fn, items, **kwargs)

    monkeypatch.setattr(tokens, "fork_map", spy)
    assert count_each(texts) == serial
    assert forked == [2], "the batch went to two workers"


def test_the_memo_counts_a_text_once() -> None:
    memo = TokenMemo()
    memo.many(TEXTS[:3])
    assert set(memo.known) == set(TEXTS[:3])
    assert [memo(text) for text in TEXTS] == [count_tokens(text) for text in TEXTS]
    memo.known["Use pnpm, not npm."] = 999  # what it knows is what it answers
    assert memo("Use pnpm, not npm.") == 999


def remembered(ws: Workspace, texts: list[str]) -> dict[str, int]:
    """What a run's memo answers for ``texts`` (asked in a batch and one by one), and saves after."""
    memo = TokenMemo(ws=ws)
    memo.many(texts[:1])
    answers = {text: memo(text) for text in texts}
    memo.save()
    return answers


def test_counts_are_remembered_between_runs_and_never_trusted_blindly(tree: Tree) -> None:
    ws = Workspace(tree.root)
    texts = ["Use pnpm, not npm.", "The retry limit is 5.", "Use pnpm, not npm."]
    first = remembered(ws, texts)
    assert first == {text: count_tokens(text) for text in texts}
    path = ws.cache_dir / tokens.CACHE_FILE
    data = json.loads(path.read_text())
    assert sorted(data["counts"].values()) == sorted(first.values())
    # A later run reads the counts it finds (a planted one shows it), counts only new texts, and keeps
    # the counts of the texts it was asked about.
    data["counts"][text_key("The retry limit is 5.")] = 77
    path.write_text(json.dumps(data))
    later = remembered(ws, ["The retry limit is 5.", "A new text here."])
    assert later == {"The retry limit is 5.": 77, "A new text here.": count_tokens("A new text here.")}
    assert set(json.loads(path.read_text())["counts"]) == {text_key("The retry limit is 5."), text_key("A new text here.")}
    # Another encoding or tiktoken version, a corrupt file or a value that is no count: counted again.
    for planted in ({**data, "version": "other|tiktoken 0"}, {"version": data["version"], "counts": {
            text_key("The retry limit is 5."): "77"}}, "not json {"):
        path.write_text(planted if isinstance(planted, str) else json.dumps(planted))
        assert remembered(ws, ["The retry limit is 5."]) == {"The retry limit is 5.": count_tokens("The retry limit is 5.")}
    # Nothing new and nothing to drop: the file is not written again.
    remembered(ws, ["The retry limit is 5."])
    before = path.stat()
    assert remembered(ws, ["The retry limit is 5."]) == {"The retry limit is 5.": count_tokens("The retry limit is 5.")}
    assert (path.stat().st_ino, path.stat().st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
