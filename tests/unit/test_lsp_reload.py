"""Saving a memory file in the editor reads that file again and checks its entries, not the whole store:
after every kind of edit the server's state must be the state a fresh server builds from the same files
(every finding, every entry, in order), and the edits that only a full check can answer exactly must
fall back to one."""

from __future__ import annotations

import json
import operator
import shutil
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lorekeeper.surfaces.lsp.server import LoreServer
from support import Tree, commit

APP = "def main():\n    return 1\n\n\ndef helper():\n    return 2\n"
CLAUDE = ("# Notes\n\n- Start at `main()` in `src/app.py`.\n- `helper()` in `src/app.py` returns two.\n"
          "- Always run `make lint` before pushing.\n")


def _entry(tree: Tree, name: str, data: dict[str, Any]) -> str:
    tree.entry(f"{name}.json", data)
    return f".lore/memory/entries/{name}.json"


def _workspace(tree: Tree) -> dict[str, str]:
    tree.write("src/app.py", APP)
    tree.write("src/other.py", "def gone_soon():\n    return 3\n")
    paths = {
        "a": _entry(tree, "a", {"id": "a", "content": "The entry point is `main` in `src/app.py`.",
                                "refs": [{"path": "src/app.py", "symbol": "main"}]}),
        "b": _entry(tree, "b", {"id": "b", "content": "`helper` in `src/app.py` returns two.",
                                "refs": [{"path": "src/app.py", "symbol": "helper"}]}),
        "k": _entry(tree, "k", {"id": "k1", "content": "Deploys go through the staging cluster first."}),
        "m": _entry(tree, "m", {"id": "m1", "content": "Deploys call `gone_soon` in `src/other.py` first.",
                                "refs": [{"path": "src/other.py", "symbol": "gone_soon"}], "merged_into": "k1"}),
        "d": _entry(tree, "d", {"id": "d", "content": "The entry point is `main` in `src/app.py`."}),
    }
    tree.write("CLAUDE.md", CLAUDE)
    tree.write(".lore/memory/mif/n.memory.md", "---\nid: n\ntags: [api]\n---\n\nHandlers in `src/app.py` return JSON.\n")
    commit(tree, "initial")
    tree.write("src/other.py", "def renamed():\n    return 3\n")
    paths.update(claude="CLAUDE.md", mif=".lore/memory/mif/n.memory.md")
    return paths


def _state(ls: LoreServer) -> dict[str, Any]:
    snapshot = ls.snapshot
    assert snapshot is not None
    return {
        "findings": [f.model_dump(mode="json") for f in snapshot.findings],
        "entries": [e.model_dump(mode="json") for e in snapshot.store.entries],
        "live": [e.id for e in snapshot.store.live()],
        "live_ids": sorted(snapshot.store.live_ids()),
        "by_id": {k: e.model_dump(mode="json") for k, e in snapshot.store.by_id().items()},
        "file_entries": snapshot.file_entries,
        "by_entry": {k: [f.model_dump(mode="json") for f in v] for k, v in snapshot.by_entry.items()},
        "tokens": ls.memory_tokens(),  # (after a save: the last count updated from the changed entries)
    }


def _fresh(tree: Tree) -> dict[str, Any]:
    fresh = LoreServer()
    fresh.open_workspace(str(tree.root))
    fresh.full_check()
    return _state(fresh)


def _save(ls: LoreServer, tree: Tree, path: str, text: str) -> bool:
    """Write a memory file and tell the server, as a save does; whether the file alone was read again."""
    before, checker = ls.snapshot, ls.checker
    assert before is not None
    tree.write(path, text)
    findings = ls.refresh({path}, structural=False)
    after = ls.snapshot
    assert after is not None and after.generation == before.generation + 1
    if isinstance(findings, dict):  # the files whose findings changed: every one of them
        changed = {p for p in {*before.by_file, *after.by_file} if before.by_file.get(p) != after.by_file.get(p)}
        assert changed <= findings.keys(), changed - findings.keys()
        assert findings == {p: after.by_file.get(p, []) for p in findings}
    else:
        assert findings == list(after.findings)
    return ls.checker is checker


def test_each_kind_of_memory_edit_leaves_the_state_a_fresh_server_builds(tree: Tree) -> None:
    paths = _workspace(tree)
    ls = LoreServer()
    ls.open_workspace(str(tree.root))
    ls.full_check()
    start = _state(ls)
    assert start == _fresh(tree)
    kinds = {f["kind"] for f in start["findings"]}
    assert "duplicate" in kinds and "stale-symbol" not in kinds, kinds  # d repeats a
    assert "m1" not in start["live"]

    k_json = json.loads((tree.root / paths["k"]).read_text())
    steps: list[tuple[str, str, str]] = [
        # (what, file, its new text)
        ("a symbol that was there when the memory was written, and is gone", paths["a"], json.dumps(
            {"id": "a", "content": "Cleanup is `gone_soon` in `src/other.py`.",
             "refs": [{"path": "src/other.py", "symbol": "gone_soon"}]})),
        ("the same text, another ref", paths["a"], json.dumps(
            {"id": "a", "content": "Cleanup is `gone_soon` in `src/other.py`.",
             "refs": [{"path": "src/app.py", "symbol": "helper"}]})),
        ("the ref back", paths["a"], json.dumps(
            {"id": "a", "content": "Cleanup is `gone_soon` in `src/other.py`.",
             "refs": [{"path": "src/other.py", "symbol": "gone_soon"}]})),
        ("a duplicate no longer", paths["d"], json.dumps({"id": "d", "content": "The CLI entry point lives in `src/app.py`."})),
        ("a link's target renamed: the merged entry is live again", paths["k"], json.dumps({**k_json, "id": "k2"})),
        ("the target back: hidden again", paths["k"], json.dumps(k_json)),
        ("invalid JSON", paths["b"], '{\n  "id": "b",\n  "content": "oops",\n'),
        ("valid again, and stale", paths["b"], json.dumps({"id": "b", "content": "`helper2` in `src/app.py` returns two.",
                                                           "refs": [{"path": "src/app.py", "symbol": "helper2"}]})),
        ("a bullet added above the others", paths["claude"],
         CLAUDE.replace("# Notes\n\n", "# Notes\n\n- `gone_soon()` in `src/other.py` cleans up.\n")),
        ("a bullet removed: the lines below move up", paths["claude"], CLAUDE.replace("- Start at `main()` in `src/app.py`.\n", "")),
        ("a MIF file", paths["mif"], "---\nid: n\ntags: [api]\n---\n\nHandlers in `src/handlers.py` return JSON.\n"),
        ("an entry states another's text: a duplicate", paths["d"],
         json.dumps({"id": "d", "content": "`helper2` in `src/app.py` returns two."})),
    ]
    for what, path, text in steps:
        assert _save(ls, tree, path, text), f"{what}: read everything again"
        assert _state(ls) == _fresh(tree), what
    final = _state(ls)
    kinds = {f["kind"] for f in final["findings"]}
    assert {"duplicate", "stale-symbol", "unresolved-symbol"} <= kinds and "invalid-json" not in kinds, kinds
    assert "m1" not in final["live"]


def test_edits_only_a_full_check_answers_fall_back_to_one(tree: Tree) -> None:
    paths = _workspace(tree)
    ls = LoreServer()
    ls.open_workspace(str(tree.root))
    ls.full_check()
    # An id another file uses: results are kept by id.
    clash = json.dumps({"id": "a", "content": "`helper` in `src/app.py` returns two."})
    assert not _save(ls, tree, paths["b"], clash)
    assert _state(ls) == _fresh(tree)
    assert "duplicate-id" in {f.kind for f in ls.snapshot.findings}
    # Any file, while an id is used twice: which of two entries a result is about is the full check's
    # order (a link of the clashing entry may lead nowhere after this save and revive it).
    assert not _save(ls, tree, paths["d"], json.dumps({"id": "d", "content": "The CLI starts in `src/app.py`."}))
    assert _state(ls) == _fresh(tree)
    # Back to its own id: the id it had is another file's, so everything again; then the file alone.
    assert not _save(ls, tree, paths["b"], json.dumps({"id": "b", "content": "`helper` in `src/app.py` returns 2."}))
    assert _save(ls, tree, paths["b"], json.dumps({"id": "b", "content": "`helper` in `src/app.py` returns two."}))
    assert _state(ls) == _fresh(tree)
    # Found by the random sequences: m1 takes k1's id, merged into a; a's file renames a, so m1 is
    # revived, and its result is the one kept for the id k1.
    m = {"id": "k1", "content": "Deploys call `gone_soon` in `src/other.py` first.", "merged_into": "a",
         "refs": [{"path": "src/other.py", "symbol": "gone_soon"}]}
    assert not _save(ls, tree, paths["m"], json.dumps(m))
    assert _state(ls) == _fresh(tree)
    assert not _save(ls, tree, paths["a"], json.dumps({"id": "a2", "content": "The entry point is `main` in `src/app.py`."}))
    assert _state(ls) == _fresh(tree)
    # The configuration: how every file is read may change.
    checker = ls.checker
    tree.write(".lore/config.toml", "[compaction]\ncompress_lines = 2\n")
    ls.refresh({".lore/config.toml"}, structural=False)
    assert ls.checker is not checker
    assert _state(ls) == _fresh(tree)
    # A file created (a structural change) is read with everything else.
    checker = ls.checker
    new = _entry(tree, "z", {"id": "z", "content": "A new fact about `helper`."})
    ls.refresh({new}, structural=True)
    assert ls.checker is not checker and "z" in ls.snapshot.by_id
    assert _state(ls) == _fresh(tree)


def test_unchanged_files_share_their_entries_with_the_last_state(tree: Tree) -> None:
    paths = _workspace(tree)
    ls = LoreServer()
    ls.open_workspace(str(tree.root))
    ls.full_check()
    before = ls.snapshot
    assert _save(ls, tree, paths["a"], json.dumps({"id": "a", "content": "The entry point is `main`, in `src/app.py`."}))
    after = ls.snapshot
    assert after.store is not before.store
    assert after.by_id["b"] is before.by_id["b"] and after.by_id["a"] is not before.by_id["a"]
    assert before.by_id["a"].content == "The entry point is `main` in `src/app.py`."  # the old state is untouched
    assert ls.checker is not None and ls.checker.checked == ["a"]  # its entry alone was checked
    # The store was patched, not assembled again: the positions, links and liveness carried over.
    layout = after.store._layout
    assert layout is not None and layout.as_read[layout.position["a"]] is after.by_id["a"]
    assert [after.store.entries[at].id for at in layout.linked] == ["m1"]
    # A bullet added moves the lines below it: the store is assembled again, and lays itself out anew.
    assert _save(ls, tree, paths["claude"], CLAUDE + "- Releases are tagged on main.\n")
    assert ls.snapshot.store._layout is None
    assert _state(ls) == _fresh(tree)


def test_a_save_reports_the_groups_it_did_not_touch_as_before(tree: Tree) -> None:
    """The findings of a duplicate group no save touched are kept (at 12k entries a save made ~3,900
    anew); a group whose entry was saved is reported anew."""
    paths = _workspace(tree)
    ls = LoreServer()
    ls.open_workspace(str(tree.root))
    ls.full_check()

    def duplicates() -> list:
        assert ls.snapshot is not None
        return [f for f in ls.snapshot.findings if f.kind == "duplicate"]

    before = duplicates()
    assert {f.entry for f in before} == {"d"}  # d repeats a
    assert _save(ls, tree, paths["b"], json.dumps({"id": "b", "content": "`helper` in `src/app.py` returns 2."}))
    assert all(map(operator.is_, duplicates(), before)) and len(duplicates()) == 1
    assert _save(ls, tree, paths["d"], json.dumps({"id": "d", "content": "The entry point is `main` in `src/app.py`",
                                                   "tags": ["cli"]}))
    after = duplicates()
    assert {f.entry for f in after} == {"d"} and not any(map(operator.is_, after, before))
    assert _state(ls) == _fresh(tree)


def test_findings_kept_between_saves_change_with_the_entries_they_are_about(tree: Tree) -> None:
    """Supersession, long entries and contradictions are found again from the entries a save changed
    (the rest of the answer is kept): each edit that changes one of them, and edits that change an
    entry they are about without changing the finding, leave the state a fresh server builds."""
    tree.write(".lore/config.toml", "[compaction]\ncompress_lines = 2\n")
    tree.write("CLAUDE.md", "# Notes\n\n- The API timeout is 30 seconds.\n")
    paths = {name: _entry(tree, name, {"id": name, "content": text}) for name, text in (
        ("e0", "Deploys go through staging."), ("e1", "Run `make lint` first."),
        ("e2", "The API timeout is 60 seconds."), ("e3", "Handlers return JSON."))}
    commit(tree, "initial")
    ls = LoreServer()
    ls.open_workspace(str(tree.root))
    ls.full_check()

    def kinds() -> dict[str, set[str]]:
        assert ls.snapshot is not None
        found: dict[str, set[str]] = {}
        for f in ls.snapshot.findings:
            found.setdefault(f.kind, set()).add(f.entry or "")
        return found

    def save(name: str, data: dict[str, Any]) -> None:
        assert _save(ls, tree, paths[name], json.dumps({"id": name, **data})), name
        assert _state(ls) == _fresh(tree), data

    assert kinds()["contradiction"] == {"e2", tree_bullet_id(ls)}
    save("e0", {"content": "Deploys go through staging.", "supersedes": "gone"})  # the same id: now dangling
    assert kinds()["dangling-supersedes"] == {"e0"}
    save("e1", {"content": "Run `make lint` first.", "supersedes": "e0"})
    save("e0", {"content": "Deploys go through staging.", "supersedes": "e1"})  # a cycle, nothing dangling
    assert kinds()["supersession-cycle"] == {"e0", "e1"} and "dangling-supersedes" not in kinds()
    save("e3", {"content": "Handlers return JSON, always."})  # another entry: the cycle stands as found
    assert kinds()["supersession-cycle"] == {"e0", "e1"}
    save("e1", {"content": "Run `make lint` first."})  # the cycle broken
    assert "supersession-cycle" not in kinds()
    save("e3", {"content": "Handlers:\n- return JSON\n- log the request"})  # long now
    assert kinds()["verbose-entry"] == {"e3"}
    save("e3", {"content": "Handlers:\n- return JSON\n- log each request", "summary": "Handlers return JSON."})
    assert "verbose-entry" not in kinds()
    save("e2", {"content": "The API timeout is 60 seconds.", "tags": ["api"]})  # the same contradiction
    save("e2", {"content": "The API timeout is 30 seconds."})  # a duplicate of the bullet, not a contradiction
    assert "contradiction" not in kinds() and "duplicate" in kinds()
    save("e2", {"content": "The API timeout is 60 seconds."})
    # A duplicate of e2 (one of the two is left out of the search for contradictions), then entries
    # leave the live ones, which moves the others in the list the search goes through.
    save("e3", {"content": "The API timeout is 60 seconds!"})
    assert len(kinds()["duplicate"] & {"e2", "e3"}) == 1
    save("e1", {"content": "Run `make lint` first.", "merged_into": "e0"})
    save("e3", {"content": "The API timeout is 60 seconds!", "merged_into": "e2"})  # no duplicate now
    assert "duplicate" not in kinds() and kinds()["contradiction"] == {"e2", tree_bullet_id(ls)}
    save("e1", {"content": "Run `make lint` first."})  # back
    # The bullet moves down a line: its contradiction is reported on the line it is on now.
    assert _save(ls, tree, "CLAUDE.md", "# Notes\n\n- Tag releases on main.\n- The API timeout is 30 seconds.\n")
    assert _state(ls) == _fresh(tree)
    assert {f.line for f in ls.snapshot.findings if f.kind == "contradiction" and f.source == "CLAUDE.md"} == {4}


def tree_bullet_id(ls: LoreServer) -> str:
    assert ls.snapshot is not None
    return next(e.id for e in ls.snapshot.store.entries if e.format == "instruction")


def test_a_memory_file_behind_a_symlink_is_read_again_whichever_name_is_saved(tree: Tree) -> None:
    """CLAUDE.md a symlink to CONTRIBUTING.md (biomejs/biome): the store reads CONTRIBUTING.md, whose name
    is no memory file's. A save through either name changes that file, and the watcher may report either."""
    tree.write("src/app.py", APP)
    tree.write("CONTRIBUTING.md", CLAUDE)
    (tree.root / "CLAUDE.md").symlink_to("CONTRIBUTING.md")
    commit(tree, "initial")
    ls = LoreServer()
    ls.open_workspace(str(tree.root))
    ls.full_check()
    assert ls.snapshot.file_entries.keys() == {"CONTRIBUTING.md"}
    for n, saved in enumerate(("CONTRIBUTING.md", "CLAUDE.md")):
        text = CLAUDE + f"- The retry helper lives in `src/gone_{n}.py`.\n"
        assert _save(ls, tree, saved, text), saved
        assert f"src/gone_{n}.py" in {f.ref for f in ls.snapshot.findings}, saved
        assert _state(ls) == _fresh(tree)


_TEXTS = ["The entry point is `main` in `src/app.py`.", "the entry point is `main` in `src/app.py`",
          "Cleanup is `gone_soon` in `src/other.py`.", "The API timeout is 30 seconds.",
          "The API timeout is 60 seconds.", "`helper` in `src/app.py` returns two.", "Deploys go through staging.",
          "Releases:\n- tag on main\n- build the wheel\n- publish it"]  # (long: over compress_lines)
_IDS = ["e0", "e1", "e2", "k1"]
_REFS = [None, {"path": "src/app.py", "symbol": "helper"}, {"path": "src/other.py", "symbol": "gone_soon"}]
_BULLETS = ["Start at `main()` in `src/app.py`.", "The API timeout is 30 seconds.", "Run `make lint` first.",
            "`gone_soon()` in `src/other.py` cleans up.", "Deploys go through staging."]
_EDITS = st.one_of(
    st.tuples(st.just("entry"), st.integers(0, 3), st.sampled_from(_IDS), st.sampled_from(_TEXTS),
              st.sampled_from([None, "k1", "e0", "gone", "CLAUDE.md:3", "CLAUDE.md:4"]), st.sampled_from(_REFS),
              st.sampled_from(["merged_into", "superseded_by", "supersedes"])),
    st.tuples(st.just("broken"), st.integers(0, 3)),
    st.tuples(st.just("claude"), st.lists(st.sampled_from(_BULLETS), max_size=4)),
    st.tuples(st.just("mif"), st.sampled_from(_TEXTS)),
)


@given(st.lists(_EDITS, min_size=1, max_size=5))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_any_sequence_of_memory_saves_leaves_the_state_a_fresh_server_builds(edits: list[tuple[Any, ...]]) -> None:
    """Saves of entries (ids, links to entries and to bullets, ``supersedes`` that lead nowhere or make a
    cycle, refs, texts that repeat, contradict each other or are long enough to compress), broken files,
    bullets and a MIF file, in any order: after each, the server's state is a fresh server's, whether
    the file alone was read again or everything was, and whether the store was patched or assembled
    again (the findings kept between saves and updated from the entries a save changed included)."""
    tree = Tree(Path(tempfile.mkdtemp(prefix="lore-reload-")))
    try:
        tree.write("src/app.py", APP)
        tree.write("src/other.py", "def gone_soon():\n    return 3\n")
        for n, entry_id in enumerate(_IDS):
            _entry(tree, f"f{n}", {"id": entry_id, "content": _TEXTS[n]})
        tree.write("CLAUDE.md", CLAUDE)
        tree.write(".lore/memory/mif/n.memory.md", "---\nid: n\n---\n\nHandlers return JSON.\n")
        tree.write(".lore/config.toml", "[compaction]\ncompress_lines = 2\n")
        commit(tree, "initial")
        tree.write("src/other.py", "def renamed():\n    return 3\n")
        ls = LoreServer()
        ls.open_workspace(str(tree.root))
        ls.full_check()
        for edit in edits:
            if edit[0] == "entry":
                _, n, entry_id, text, link, ref, field = edit
                data: dict[str, Any] = {"id": entry_id, "content": text}
                if link:
                    data[field] = link
                if ref:
                    data["refs"] = [ref]
                path, body = f".lore/memory/entries/f{edit[1]}.json", json.dumps(data)
            elif edit[0] == "broken":
                path, body = f".lore/memory/entries/f{edit[1]}.json", '{"id": "x", "content": '
            elif edit[0] == "claude":
                path, body = "CLAUDE.md", "# Notes\n\n" + "".join(f"- {b}\n" for b in edit[1])
            else:
                path, body = ".lore/memory/mif/n.memory.md", f"---\nid: n\n---\n\n{edit[1]}\n"
            _save(ls, tree, path, body)
            assert _state(ls) == _fresh(tree), edit
    finally:
        shutil.rmtree(tree.root, ignore_errors=True)


def test_the_first_save_after_a_check_from_the_cache_updates_a_search_built_after_it(tree: Tree) -> None:
    """A first check that finds the candidate pairs in the cache builds no search for saves to update:
    prepare_saves builds it after that check (the first save at 10k entries took ~1 s), and saves then
    update it, with the state of a fresh server."""
    paths = _workspace(tree)
    first = LoreServer()
    first.open_workspace(str(tree.root))
    first.full_check()  # (no cache yet: the pairs are searched, and kept)
    assert first._search.met is not None
    ls = LoreServer()
    ls.open_workspace(str(tree.root))
    ls.full_check()
    assert ls._search.met is None  # read from the cache
    before = ls.snapshot
    ls.prepare_saves()
    built = ls._search.met
    assert built is not None and ls.snapshot is before  # the same findings: nothing republished
    assert _save(ls, tree, paths["b"], json.dumps({"id": "b", "content": "`helper` in `src/app.py` returns 2."}))
    assert ls._search.met is built and built.round == 1  # updated, not searched again
    assert _state(ls) == _fresh(tree)
    ls.prepare_saves()  # (once built, nothing to do)
    assert ls._search.met is built
