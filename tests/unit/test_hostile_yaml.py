"""Hostile values in memory files: YAML alias bombs, impossible dates, integers Python cannot write, deep
nesting, oversized unknown data in refs and fields. Each is one finding on its file, with its line; the
other entries keep loading; every command returns at once. A fuzz test reads random front matter
through the store and asserts that nothing but findings ever comes out."""

from __future__ import annotations

import json
import os
import subprocess
import time
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lorekeeper.core.bounded import brief, oversized
from lorekeeper.core.model import Finding
from lorekeeper.facts import open_memory
from lorekeeper.infra.safeio import dump_json
from lorekeeper.store import Store
from lorekeeper.store.mif import MifDocument, MifError, update_mif
from lorekeeper.workspace import Workspace, read_config_files
from support import LORE, Tree

OK = "---\nid: ok1\ntype: semantic\ntitle: fine\n---\n\nUse pnpm, not npm.\n"

#: Nine anchors of nine aliases each (~550 bytes): 9^9 values to whatever walks it.
_LAUGHS = "".join(
    f"{key}: &a{i} [{', '.join(['lol'] * 9 if i == 0 else [f'*a{i - 1}'] * 9)}]\n"
    for i, key in enumerate("xyzwvutsr"))
BOMB_IN_CODE_REFS = f"---\nid: bombA\ntype: semantic\ntitle: bomb\n{_LAUGHS}code_refs: [*a8]\n---\n\nBomb.\n"
BOMB_IN_A_REF_KEY = (f"---\nid: bombB\ntype: semantic\ntitle: bomb\n{_LAUGHS}code_refs:\n  - file: src/a.ts\n"
                     "    extra: *a8\n---\n\nBomb.\n")
CODE_REFS_LINE = 14


def run(root: Path, *args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    """The `lore` command, failed by the test if it does not return within ``timeout`` seconds."""
    return subprocess.run([str(LORE), *args], cwd=root, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "NO_COLOR": "1", "LORE_AGENT": "tester"})


def only_finding(store: Store, source: str) -> Finding:
    [finding] = [f for f in store.findings if f.source == source]
    return finding


def assert_ok_entry_intact(store: Store) -> None:
    [ok] = [e for e in store.entries if e.id == "ok1"]
    assert ok.content == "Use pnpm, not npm." and ok.live


# -- alias bombs --------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [BOMB_IN_CODE_REFS, BOMB_IN_A_REF_KEY], ids=["code_refs", "unknown-ref-key"])
def test_an_alias_bomb_is_one_finding_and_every_command_returns(tree: Tree, text: str) -> None:
    assert len(text.encode()) < 650
    tree.write("ok.memory.md", OK)
    tree.write("bomb.memory.md", text)
    started = time.perf_counter()
    store = tree.store()
    assert time.perf_counter() - started < 5
    finding = only_finding(store, "bomb.memory.md")
    assert (finding.kind, finding.line) == ("invalid-mif", CODE_REFS_LINE)
    assert "aliases make field 'code_refs' stand for more than 10,000 values" in finding.message
    assert_ok_entry_intact(store)
    out = {}
    for command in ("validate", "status", "list --json", "show ok1", "check-stale"):
        proc = run(tree.root, *command.split())  # within run()'s timeout
        assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, (command, proc.stderr)
        out[command] = proc.stdout
    assert f"bomb.memory.md:{CODE_REFS_LINE}: error: aliases make" in out["validate"]
    assert [e["id"] for e in json.loads(out["list --json"])["entries"]] == ["ok1"]


def test_mcp_query_answers_beside_an_alias_bomb(tree: Tree) -> None:
    from lorekeeper.surfaces.mcp.server import Lore, Session

    tree.write("ok.memory.md", OK)
    tree.write("bomb.memory.md", BOMB_IN_A_REF_KEY)
    answer = Lore(tree.root, Session()).query("pnpm", 10, False, 8000)
    assert [r["id"] for r in answer["results"]] == ["ok1"]
    json.dumps(answer)


@pytest.mark.parametrize("shape", ["cycle", "merge-key-bomb"])
def test_cyclic_aliases_and_merge_key_bombs_are_refused(tree: Tree, shape: str) -> None:
    if shape == "cycle":
        text = "---\nid: c\ntitle: t\nloop: &l [a, *l]\n---\nBody.\n"
        expected = ("refers to a collection that holds it", 4)
    else:
        maps = "m0: &m0 {k: [v, v, v, v, v, v, v, v, v]}\n" + "".join(
            f"m{i}: &m{i}\n  <<: *m{i - 1}\n  k{i}: [{', '.join([f'*m{i - 1}'] * 9)}]\n" for i in range(1, 9))
        text = f"---\nid: c\ntitle: t\n{maps}code_refs: [*m8]\n---\nBody.\n"
        expected = ("stand for more than 10,000 values", text[: text.index("code_refs")].count("\n") + 1)
    tree.write("ok.memory.md", OK)
    tree.write("c.memory.md", text)
    store = tree.store()
    finding = only_finding(store, "c.memory.md")
    assert expected[0] in finding.message and finding.line == expected[1]
    assert_ok_entry_intact(store)


def test_a_few_aliases_still_read(tree: Tree) -> None:
    tree.write("a.memory.md", "---\nid: a\ntitle: t\nbase: &b {file: src/a.ts, symbol: run}\n"
                              "code_refs: [*b, *b]\ntags: &t [x, y]\nalso: *t\n---\nRun it.\n")
    store = tree.store()
    assert store.findings == []
    [entry] = store.entries
    assert [r.path for r in entry.refs] == ["src/a.ts", "src/a.ts"] and entry.tags == ["x", "y"]


def test_a_ref_with_unknown_data_over_the_bound_is_refused_alone(tree: Tree) -> None:
    # Under the alias bound (4^5 values) but far more than a reference holds.
    laughs = "".join(f"{k}: &a{i} [{', '.join(['lol'] * 4 if i == 0 else [f'*a{i - 1}'] * 4)}]\n"
                     for i, k in enumerate("xyzwv"))
    tree.write("r.memory.md", f"---\nid: r\ntitle: t\n{laughs}code_refs:\n  - file: src/a.ts\n    note: kept\n"
                              "  - file: src/b.ts\n    extra: *a4\n---\nTwo refs.\n")
    tree.entry("n.json", {"id": "n", "content": "Native.", "refs": [{"path": "src/c.ts", "nested": [[[[["deep"]]]]]},
                                                                    {"path": "src/d.ts", "kind": "file"}]})
    store = tree.store()
    by_id = {e.id: e for e in store.entries}
    assert [(r.path, r.model_extra) for r in by_id["r"].refs] == [("src/a.ts", {"note": "kept"})]
    assert [r.path for r in by_id["n"].refs] == ["src/d.ts"]
    refused = {(f.source, f.line) for f in store.findings if f.kind == "invalid-ref"}
    assert refused == {("r.memory.md", 9), (".lore/memory/entries/n.json", 4)}
    assert all("holds more than a reference needs" in f.message and len(f.message) < 300
               for f in store.findings if f.kind == "invalid-ref")
    assert len(run(tree.root, "list", "--json").stdout) < 10_000


# -- impossible scalars -------------------------------------------------------------------------------

@pytest.mark.parametrize(("front", "line"), [
    ("reviewed: 2026-02-30\n", 4),
    ("created: 2026-02-30\n", 4),
    ("temporal:\n  last_accessed: 2026-02-30T10:00:00Z\n", 5),
    ("code_refs:\n  - file: a.ts\n    when: 2026-02-30\n", 6),
    ("odd: [2026-01-01, 2026-13-01]\n", 4),
    ("zone: 2026-01-01T10:00:00+99:00\n", 4),
])
def test_an_impossible_date_in_any_key_is_one_finding(tree: Tree, front: str, line: int) -> None:
    tree.write("ok.memory.md", OK)
    tree.write("d.memory.md", f"---\nid: d\ntitle: t\n{front}---\nDated.\n")
    store = tree.store()
    finding = only_finding(store, "d.memory.md")
    assert (finding.kind, finding.line) == ("invalid-mif", line)
    assert "is not a real date or time" in finding.message
    assert_ok_entry_intact(store)
    if front.startswith("reviewed"):  # the issue's own input, through the command that crashed
        proc = run(tree.root, "validate")
        assert proc.returncode == 1 and "Traceback" not in proc.stderr and f"d.memory.md:{line}: error:" in proc.stdout


@pytest.mark.parametrize("number", ["9" * 5000, "-" + "9" * 5000, "0x" + "f" * 4000, "0o" + "7" * 6000])
def test_an_integer_too_long_to_write_is_one_finding(tree: Tree, number: str) -> None:
    tree.write("ok.memory.md", OK)
    tree.write("big.memory.md", f"---\nid: big\ntitle: t\nscore: {number}\n---\nBig.\n")
    store = tree.store()
    finding = only_finding(store, "big.memory.md")
    assert (finding.kind, finding.line) == ("invalid-mif", 4)
    assert "integer of more than 4,300 digits" in finding.message and len(finding.message) < 200
    assert_ok_entry_intact(store)
    for command in (["validate"], ["list", "--json"], ["status"]) if number == "9" * 5000 else ():
        proc = run(tree.root, *command)
        assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, (command, proc.stderr)


def test_a_native_entry_with_a_huge_integer_is_one_finding(tree: Tree) -> None:
    tree.entry("ok.json", {"id": "ok1", "content": "Use pnpm, not npm."})
    tree.entry("big.json", '{"id": "big", "content": "Big.", "score": ' + "9" * 5000 + "}")
    store = tree.store()
    finding = only_finding(store, ".lore/memory/entries/big.json")
    assert finding.kind == "invalid-json" and finding.line == 1
    assert_ok_entry_intact(store)


# -- deep nesting -------------------------------------------------------------------------------------

@pytest.mark.parametrize(("value", "line"), [
    ("[" * 80_000 + "]" * 80_000, 4),  # 160 KB of flow nesting
    ("{a: " * 40_000 + "}" * 40_000, 4),
    ("[a, " * 40_000 + "]" * 40_000, 4),
    ("\n" + "".join(" " * i + f"k{i}:\n" for i in range(1, 560)) + " " * 560 + "v: 1", 36),  # block nesting
    ("\n" + "- " * 80_000 + "x", 5),
])
def test_deep_nesting_is_one_finding_read_at_once(tree: Tree, value: str, line: int) -> None:
    text = f"---\nid: deep\ntitle: t\nx: {value}\n---\nDeep.\n"
    started = time.perf_counter()
    with pytest.raises(MifError) as refused:
        MifDocument.parse(text)
    assert time.perf_counter() - started < 0.5  # refused where the reader meets it, not after reading it all
    assert "nests more than 32 levels deep" in refused.value.message
    tree.write("ok.memory.md", OK)
    tree.write("deep.memory.md", text)
    store = tree.store()
    finding = only_finding(store, "deep.memory.md")
    assert (finding.kind, finding.line) == ("invalid-mif", line)
    assert_ok_entry_intact(store)


def test_unknown_fields_too_large_to_show_are_described_not_serialised(tree: Tree) -> None:
    deep = "[" * 150 + "]" * 150
    tree.entry("w.json", '{"id": "w", "content": "Wide.", "small": {"a": [1, 2]}, "x": [' + ",".join([deep] * 2000) + "]}")
    started = time.perf_counter()
    listing = run(tree.root, "list", "--json")
    assert time.perf_counter() - started < 10 and len(listing.stdout) < 10_000
    [entry] = json.loads(listing.stdout)["entries"]
    assert entry["extra"]["small"] == {"a": [1, 2]}
    assert entry["extra"]["x"].startswith("<list not shown: over 1000 values")
    assert tree.store().entries[0].raw["x"][0][0]  # the file's own data is untouched


# -- configuration ------------------------------------------------------------------------------------

def test_config_values_too_large_to_write_are_problems_not_crashes(tree: Tree) -> None:
    tree.write(".lore/config.toml", "[store]\nmax_file_bytes = [0x" + "f" * 5000 + "]\n"
                                    "default_agent = [" + ", ".join(["[1, [2, [3]]]"] * 20_000) + "]\n")
    tree.write("ok.memory.md", OK)
    ws = Workspace(tree.root)
    problems = [p for p in ws.config.problems if "should be" in p]
    assert len(problems) == 2 and all(len(p) < 300 for p in problems)
    assert "<integer of about" in problems[0]
    proc = run(tree.root, "validate")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr and len(proc.stdout) < 2000
    assert isinstance(read_config_files(tree.root).toml["store"]["default_agent"], list)


# -- bounded formatting -------------------------------------------------------------------------------

def test_brief_and_oversized_stop_early_on_bombs_cycles_and_huge_values() -> None:
    bomb: list[object] = ["lol"] * 9
    for _ in range(12):
        bomb = [bomb] * 9  # 9^13 values as shared references
    loop: list[object] = [1]
    loop.append(loop)
    started = time.perf_counter()
    assert brief(bomb).startswith("[" * 13 + "'lol', 'lol'") and len(brief(bomb)) < 100
    assert brief(loop).startswith("[1, [1, [1,") and brief(loop).endswith("…")
    assert brief(10**5000) == "<integer of about 5001 digits>"
    assert brief("x" * 10**6, 10) == "'xxxxxxxxxx…'"
    assert brief({"a": (1, None), "b": "it's"}) == repr({"a": (1, None), "b": "it's"})
    assert oversized(bomb, 10_000, 100) and oversized(loop, 10_000, 50)
    assert oversized(list(range(10**6)), 100, 1) and not oversized({"a": [1, {"b": 2}]}, 5, 3)
    assert oversized({"a": [1, {"b": 2}]}, 5, 2) and oversized({"a": [1, {"b": 2}]}, 4, 3)
    assert time.perf_counter() - started < 0.5


# -- fuzz: random front matter never crashes ----------------------------------------------------------

#: Values YAML reads, or tries to: impossible dates, special floats, tags (unknown, inert or wrong).
_ODD = [
    "2026-02-30", "2026-13-01", "0000-01-01", "2026-01-01T25:61:00Z", "2026-01-01T10:00:00+99:00",
    "2026-01-01 10:00:00.9999999999 -05", "2026-03-01", "2026-03-01T10:00:00Z", "1e99999", "-.inf", ".nan", ".NaN",
    "0x_", "1_000", "~", "null", "true", "yes", "''", '""', "'quoted'", '"\\u0000\\x1b"', "!!binary aGVsbG8=",
    "!!binary ###", "!!int abc", "!!float x", "!!timestamp nope", "!!python/object/apply:os.system [ls]",
    "!!set {a, b}", "!!omap [a: 1]", "!custom x", "|\n  literal", ">-\n  folded", "src/a.ts", "\u202e", "\U0001f600",
    "12:30:45", "1:2:3:4:5", "+12", "-0", "0.", ".5", "1e3",
]
#: Lines that break the YAML around them, added at the end of the front matter.
_BROKEN = ["", "&a x\n", "*a\n", "y: *zz\n", "- x\n", "a: [\n", "\t\n", "? [a]: b\n", "z: `x\n", "z: @x\n",
           "%YAML 1.1\n", "z: \x00\n", "z: \x1b[2J\n", "z: \x85\n", "z: \ufeff\n", "z: a\u2028b\n", "z: \r\n",
           "z: {a: [}\n", "z: 1\nz: 2\n"]
_KEYS = ["id", "title", "type", "namespace", "created", "reviewed", "tags", "code_refs", "confidence",
         "supersedes", "archived", "merged_into", "provenance", "temporal", "file", "line", "symbol", "<<",
         "x-custom", "content", "pinned", "access_count", "? complex", "'quoted key'", '"k"', "1", "null", "[a]"]
#: Integers around the 4,300 digits Python writes as text, in each notation YAML reads.
_long_ints = st.tuples(st.sampled_from(["", "-", "0x", "0o", "0b"]), st.sampled_from([4000, 4300, 4301, 5000, 15000])).map(
    lambda form: form[0] + {"0x": "f", "0o": "7", "0b": "1"}.get(form[0], "9") * form[1])
_scalars = st.one_of(st.sampled_from(_ODD), _long_ints, st.integers().map(str), st.floats().map(repr),
                     st.text(st.characters(codec="utf-8", categories=["L", "N", "P", "S", "Zs"]), max_size=12))
_anchor = st.sampled_from(["", "", "", "&d ", "&e ", "&a "])
_alias = st.sampled_from(["*a", "*b", "*c"])


def _node():
    leaf = st.one_of(st.tuples(st.just("scalar"), _scalars), st.tuples(st.just("alias"), _alias))
    return st.recursive(leaf, lambda inner: st.one_of(
        st.tuples(st.just("seq"), _anchor, st.booleans(), st.lists(inner, max_size=4)),
        st.tuples(st.just("map"), _anchor, st.booleans(), st.lists(st.tuples(st.sampled_from(_KEYS), inner), max_size=4)),
    ), max_leaves=12)


def _flow(node) -> str:
    kind = node[0]
    if kind in ("scalar", "alias"):
        return node[1]
    items = node[3]
    if kind == "seq":
        return node[1] + "[" + ", ".join(_flow(i) for i in items) + "]"
    return node[1] + "{" + ", ".join(f"{k}: {_flow(v)}" for k, v in items) + "}"


def _block(node, indent: int) -> str:
    """The text after ``key:`` or ``-`` for ``node``, nested lines at ``indent``."""
    kind = node[0]
    if kind in ("scalar", "alias") or node[2] or not node[3]:
        return " " + _flow(node) + "\n"
    pad = " " * indent
    head = (" " + node[1].strip() if node[1] else "") + "\n"
    if kind == "seq":
        return head + "".join(pad + "-" + _block(item, indent + 2) for item in node[3])
    return head + "".join(pad + key + ":" + _block(value, indent + 2) for key, value in node[3])


#: Anchors ``a``, ``b`` and ``c``, defined first (else most aliases would name nothing).
_ANCHORS = "base: &a [1, 2]\nmore: &b {file: src/a.ts, k: v}\nwhen: &c 2026-01-01\n"
#: A billion laughs of some size: ``levels`` anchors of ``fan`` aliases each.
_laughs = st.one_of(st.just(""), st.tuples(st.integers(1, 9), st.integers(2, 9)).map(lambda shape: "".join(
    f"l{i}: &{'abc'[i % 3] if i == shape[0] - 1 else f'l{i}'} [{', '.join(['x' if i == 0 else f'*l{i - 1}'] * shape[1])}]\n"
    for i in range(shape[0]))))
_fronts = st.tuples(_laughs, st.lists(st.tuples(st.sampled_from(_KEYS), _node()), max_size=6)).map(
    lambda parts: _ANCHORS + parts[0] + "".join(key + ":" + _block(value, 2) for key, value in parts[1]))
_count = iter(range(10**9))


@settings(max_examples=200, deadline=timedelta(seconds=3),
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.large_base_example])
@given(front=_fronts, with_id=st.booleans(), junk=st.sampled_from(_BROKEN))
def test_random_front_matter_is_read_or_reported_never_raised(tree: Tree, front: str, with_id: bool, junk: str) -> None:
    for old in tree.root.glob("*.memory.md"):
        old.unlink()
    relpath = f"f{next(_count)}.memory.md"  # a new name each time: no cache answers for the file
    text = "---\n" + ("id: fuzz\n" if with_id else "") + front + junk + "---\n\nA fuzzed memory.\n"
    tree.write(relpath, text)
    store = open_memory(Workspace(tree.root))
    lines = text.count("\n") + 1
    for finding in store.findings:
        assert finding.source == relpath and finding.line is not None and 1 <= finding.line <= lines, finding
        assert len(finding.message) < 600
    json.dumps([f.model_dump(mode="json") for f in store.findings])
    for entry in store.entries:
        dump_json(entry.public(), default=str)
        brief(entry.raw)
        try:
            update_mif(text, {"tags": ["fuzzed"]})
        except ValueError:
            pass
