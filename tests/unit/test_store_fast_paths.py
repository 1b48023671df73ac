"""The store's fast paths hold to what they stand in for: entries built without model_construct's
per-field loop equal model_construct's, and an entry file listed as a regular file (so not resolved)
is still never read through a symlink."""

from __future__ import annotations

import json
import os
import random
from datetime import UTC, timedelta

from lorekeeper.core.model import Entry, Location, Ref
from lorekeeper.infra.safeio import read_bytes
from lorekeeper.store import Store
from lorekeeper.store.fields import construct
from lorekeeper.store.native import dumps
from lorekeeper.workspace import Workspace
from support import Tree


def test_construct_equals_model_construct() -> None:
    values = {name: info.get_default(call_default_factory=True) for name, info in Entry.model_fields.items()
              if not info.is_required()}
    values.update(id="e1", content="Use pnpm", location=Location(path="a.json", start_line=1, end_line=4),
                  refs=[Ref(path="src/app.py", symbol="main")], tags=["tooling"], raw={"id": "e1", "x": 1})
    fast = construct(Entry, {name: values[name] for name in Entry.model_fields})
    slow = Entry.model_construct(None, **values)
    assert fast.model_dump() == slow.model_dump()
    assert fast.public() == slow.public()
    assert fast.model_fields_set == slow.model_fields_set
    assert fast.__pydantic_extra__ == slow.__pydantic_extra__ and fast.__pydantic_private__ == slow.__pydantic_private__
    fast.summary = "set later"  # assignment works and is recorded as on any model
    assert fast.summary == "set later" and "summary" in fast.model_fields_set
    assert fast.model_copy(update={"id": "e2"}).id == "e2"


def test_loaded_entries_are_the_validated_entries(tree: Tree) -> None:
    """What the loader builds equals a fully validated Entry of the same fields."""
    tree.entry("a.json", {"id": "a1", "content": "Use pnpm", "tags": ["tooling"], "supersedes": "old",
                          "confidence": 0.5, "created": "2026-03-01T10:00:00Z", "unknown": {"kept": True}})
    [entry] = tree.store().entries
    validated = Entry.model_validate({**entry.model_dump(), "raw": entry.raw})
    assert entry.model_dump() == validated.model_dump()


def test_an_entry_file_replaced_by_a_symlink_after_the_listing_is_not_followed(tree: Tree, tmp_path) -> None:
    outside = tmp_path / "planted.json"
    outside.write_text(json.dumps({"id": "planted", "content": "read from outside the root"}))
    path = tree.entry("a.json", {"id": "a1", "content": "Use pnpm"})
    ws = Workspace(tree.root)
    listing = ws.memory_relpaths()
    relpath = listing["entry"][0]
    assert ws.listed_plain(relpath)
    path.unlink()
    os.symlink(outside, path)  # swapped between the listing and the read
    store = Store(ws)
    store.load(files=listing)
    assert [e.id for e in store.entries] == []
    [finding] = store.findings
    assert finding.kind == "unreadable-file" and finding.source == relpath


def test_read_bytes_refuses_a_symlink_when_told_not_to_follow(tmp_path) -> None:
    target = tmp_path / "t.txt"
    target.write_bytes(b"x" * 5000)
    link = tmp_path / "l.txt"
    os.symlink(target, link)
    assert read_bytes(link) == b"x" * 5000
    try:
        read_bytes(link, follow=False)
    except OSError:
        pass
    else:
        raise AssertionError("a symlink was followed")


def test_read_bytes_reads_whole_files_of_any_size_and_keeps_its_limit(tmp_path) -> None:
    """The first read asks for the size fstat announced (plus one byte), later ones for 1 MB chunks."""
    from lorekeeper.infra.safeio import TooLarge

    for size in (0, 1, 4095, 3_000_001):
        path = tmp_path / f"f{size}.bin"
        path.write_bytes(bytes(i % 251 for i in range(size)))
        assert read_bytes(path) == path.read_bytes()
    try:
        read_bytes(tmp_path / "f3000001.bin", limit=1_000_000)
    except TooLarge:
        pass
    else:
        raise AssertionError("the limit was not kept")


def test_times_at_utc_share_one_zone_object_and_read_as_before(tree: Tree) -> None:
    """A zero offset becomes the one ``UTC`` object (times with zone objects of their own compare ten
    times slower); every other offset is kept, and every time shows as it did."""
    tree.entry("z.json", {"id": "z", "content": "Zulu", "created": "2026-03-01T10:00:00Z"})
    tree.entry("p.json", {"id": "p", "content": "Plus zero", "created": "2026-03-01T10:00:00+00:00"})
    tree.entry("o.json", {"id": "o", "content": "Offset", "created": "2026-03-01T12:00:00+02:00"})
    tree.entry("n.json", {"id": "n", "content": "Naive", "created": "2026-03-01T10:00:00"})
    by_id = {e.id: e for e in tree.store().entries}
    for name in ("z", "p", "n"):
        assert by_id[name].created is not None and by_id[name].created.tzinfo is UTC
        assert by_id[name].public()["created"] == "2026-03-01T10:00:00Z"
    offset = by_id["o"].created
    assert offset is not None and offset.utcoffset() == timedelta(hours=2)
    assert offset == by_id["z"].created and by_id["o"].public()["created"] == "2026-03-01T12:00:00+02:00"


def _random_json(rng: random.Random, depth: int = 0) -> object:
    kind = rng.randrange(9 if depth < 3 else 6)
    if kind == 0:
        return rng.choice(["", "plain", "naïve “quotes” \\ \" \n\t\x00\x1f", "emoji 😀 \ud7ff", "</script>"])
    if kind == 1:
        return rng.randrange(-10**20, 10**20)
    if kind == 2:
        return rng.choice([0.0, -0.0, 1.5, 1e-310, 1e300, float("nan"), float("inf"), 3.141592653589793])
    if kind == 3:
        return rng.choice([True, False])
    if kind == 4:
        return None
    if kind == 5:
        return rng.choice([(1, "tuple"), {1: "int key"}, {"nested": {True: "bool key"}}])  # json.dumps converts these
    if kind in (6, 7):
        return {"k" + str(i) + rng.choice(["", "é", '"']): _random_json(rng, depth + 1) for i in range(rng.randrange(4))}
    return [_random_json(rng, depth + 1) for _ in range(rng.randrange(4))]


def test_entry_rendering_writes_what_json_dumps_writes() -> None:
    """render_entry's own indented writer gives json.dumps' text, byte for byte, in every style."""
    rng = random.Random(11)
    values = [_random_json(rng) for _ in range(3000)]
    values += [{"id": "a", "content": "Use pnpm", "refs": [{"path": "src/a.py", "symbol": "main"}], "tags": [],
                "fingerprints": {"src/a.py": "sha256:00"}, "confidence": 0.5, "x": {"y": [[], {}]}}]
    for value in values:
        for indent in (2, 4, 0, "\t", None):
            for ascii_only in (False, True):
                assert dumps(value, indent, ascii_only) == json.dumps(value, indent=indent, ensure_ascii=ascii_only)


def test_field_validation_equals_a_model_of_the_same_fields() -> None:
    """The loader validates an entry's fields as a TypedDict (no model, no dump); it must accept, convert
    and refuse exactly what a model of the same optional fields does."""
    from typing import Annotated, Any

    from pydantic import ConfigDict, ValidationError, create_model

    from lorekeeper.core.model import DERIVED_FIELDS
    from lorekeeper.store.fields import _Fields  # pyright: ignore[reportPrivateUsage]

    declared: dict[str, Any] = {}
    for name, info in Entry.model_fields.items():
        if name not in DERIVED_FIELDS:
            annotation: Any = Annotated[info.annotation, *info.metadata] if info.metadata else info.annotation
            declared[name] = (annotation | None, None)
    model = create_model("Reference", __config__=ConfigDict(extra="ignore"), **declared)
    rng = random.Random(7)
    pool: list[Any] = [None, "", "x", 0, 3, -1, 0.5, 2.5, True, [], ["a"], ["a", 1], {"k": 1}, "e1", "30d",
                       "2026-01-01", "2026-01-01T10:00:00Z", "2026-01-01T10:00:00+02:00", "2026-13-01", float("nan")]
    names = [*declared, "refs", "format", "unknown"]
    for _ in range(3000):
        raw = {name: rng.choice(pool) for name in rng.sample(names, rng.randint(0, len(names)))}
        try:
            expected: Any = model.model_validate(raw).model_dump(exclude_none=True)
        except ValidationError as exc:
            expected = sorted((e["loc"], e["type"]) for e in exc.errors())
        try:
            got: Any = {k: v for k, v in _Fields.validate_python(raw).items() if v is not None}
        except ValidationError as exc:
            got = sorted((e["loc"], e["type"]) for e in exc.errors())
        assert repr(got) == repr(expected), raw


def test_a_link_that_leads_nowhere_says_where_it_leads(tree: Tree) -> None:
    """dyad's CLAUDE.md is a link whose target git wrote as "AGENTS.md" and a line break: no file has that
    name, so Claude Code reads nothing there, though AGENTS.md is beside it."""
    tree.write("AGENTS.md", "# AGENTS.md\n\n- Run `npm test` before pushing.\n")
    os.symlink("AGENTS.md\n", tree.root / "CLAUDE.md")
    store = tree.store()
    [finding] = [f for f in store.findings if f.source == "CLAUDE.md"]
    assert finding.kind == "unreadable-file" and finding.severity == "error"
    assert "a link to 'AGENTS.md\\n' (the name ends with a line break), which does not exist" in finding.message
    assert [e.location.path for e in store.entries] == ["AGENTS.md"]
