"""``safeio.load_json`` reads with pydantic-core's parser first and ``json.loads`` where that one refuses:
the two must give the same value, or the same error, for any text. ``safeio.json_text`` writes with
pydantic-core: what it writes reads back as what json.dumps writes."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lorekeeper.infra.safeio import json_text, load_json


def _outcome(read: Any, text: str | bytes) -> tuple[str, str]:
    """What a reader makes of a text: its value written back canonically (NaN and -0.0 kept apart, key
    order kept), or its error's type and message."""
    try:
        value = read(text)
    except (ValueError, RecursionError) as exc:
        return "error", f"{type(exc).__name__}: {exc}"
    return "value", json.dumps(value, sort_keys=False, ensure_ascii=True) + "|" + _floats(value)


def _floats(value: Any) -> str:
    """Every float's exact form (repr tells -0.0 from 0.0, and int 1 from float 1.0)."""
    if isinstance(value, float):
        return "nan" if math.isnan(value) else repr(value)
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, int):
        return "i" + str(value)
    if isinstance(value, str):
        return ""
    if isinstance(value, dict):
        return "{" + ",".join(_floats(v) for v in value.values()) + "}"
    return "[" + ",".join(_floats(v) for v in value) + "]"


def _reference(text: str | bytes) -> Any:
    """What load_json did before: json.loads, with nesting too deep reported as a ValueError."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("JSON nested too deeply to read") from None


_scalars = (st.none() | st.booleans() | st.integers(min_value=-(10**40), max_value=10**40)
            | st.floats(allow_nan=True, allow_infinity=True) | st.text())
_values = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=4)
                       | st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=20)


@settings(max_examples=400, deadline=None)
@given(_values, st.booleans(), st.sampled_from([None, 2]))
def test_any_json_text_reads_as_json_loads_reads_it(value: Any, ascii_only: bool, indent: int | None) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only, indent=indent)
    assert _outcome(load_json, text) == _outcome(_reference, text)
    data = text.encode("utf-8")
    assert _outcome(load_json, data) == _outcome(_reference, data)


_PIECES = [*'{}[]",:0123456789.eE+-aNIfinty\\u \t\n\ud800', "\\ud800", "null", "true", '"a":']


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=30).map("".join))
def test_malformed_or_odd_texts_get_json_loads_answer(text: str) -> None:
    assert _outcome(load_json, text) == _outcome(_reference, text)


@pytest.mark.parametrize("text", [
    '{"a": 1, "a": 2}',  # the last of a repeated key
    '{"s": "\\ud800"}',  # a lone surrogate escape: pydantic-core refuses it, json.loads reads it
    '{"s": "\\ud83d\\ude00"}',
    '{"f": NaN, "g": Infinity, "h": -Infinity, "z": -0.0, "big": 1e400}',
    '{"n": 123456789012345678901234567890, "x": 12345678901234567890.5}',
    "[" + "9" * 4300 + "]",  # the longest int json.loads reads
    "[" + "9" * 4301 + "]",
    "[" * 300 + "]" * 300,  # deeper than pydantic-core reads
    "[" * 100000 + "]" * 100000,  # deeper than json.loads reads: a ValueError, not a RecursionError
    '{"a": 1} x', '{"a": [1, 2,]}', "{'a': 1}", "", "\ufeff{}", '{"a": "\t"}',
    b'\xef\xbb\xbf{"a": 1}', b'{"a": "\xed\xa0\x80"}', b'{"a": "\xff"}', '{"a": "é"}'.encode("utf-16"),
])
def test_texts_the_two_parsers_read_differently_get_json_loads_answer(text: str | bytes) -> None:
    assert _outcome(load_json, text) == _outcome(_reference, text)


def test_a_malformed_entry_still_reports_json_loads_line_and_column() -> None:
    with pytest.raises(json.JSONDecodeError) as caught:
        load_json('{\n  "id": "a",\n  "content": oops\n}')
    assert (caught.value.lineno, caught.value.colno) == (3, 14)


_keys = st.text(max_size=6) | st.sampled_from(["\udcff", "caf\xe9", "\u2028"])  # a file name's undecodable byte


@settings(max_examples=400, deadline=None)
@given(st.recursive(_scalars | st.sampled_from(["\udcff.json", "\ud800"]), lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(_keys, inner, max_size=4), max_leaves=20))
def test_json_text_reads_back_as_json_dumps_does(value: Any) -> None:
    assert _outcome(load_json, json_text(value)) == _outcome(json.loads, json.dumps(value))
