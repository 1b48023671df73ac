"""Looking at untrusted nested data without walking all of it.

A memory file's values come from others: a YAML alias bomb is a few hundred bytes that stand for a
billion values when walked, a JSON entry can nest two hundred levels, an integer can have thousands of
digits (which Python refuses to turn into text). Whatever formats such a value for a message, or decides
whether it is small enough to keep or print, goes through here: the work done is bounded by the answer's
size, never by the value's."""

from __future__ import annotations

import math
from collections.abc import Collection, Iterator, Mapping
from datetime import date, datetime
from typing import Any, cast

#: Digits of the largest integer Python turns into decimal text by default (``sys.int_info``); a larger
#: one cannot be written as JSON or in a message.
MAX_INT_DIGITS = 4300
#: Bits of the largest integer that has at most :data:`MAX_INT_DIGITS` digits.
MAX_INT_BITS = int(MAX_INT_DIGITS * math.log2(10))


class _Mark(str):
    """Punctuation written as is (a string value is written as its ``repr``)."""


def brief(value: object, limit: int = 80) -> str:
    """``repr(value)`` cut to about ``limit`` characters (``…`` marks a cut), built from as few of its
    parts as that needs: safe on shared or cyclic structures, huge collections, deep nesting and huge
    integers. Dicts, lists and tuples are written as Python writes them; other objects by their type
    name."""
    out: list[str] = []
    size = 0
    pending: list[Iterator[object]] = [iter((value,))]
    while pending and size <= limit:
        item = next(pending[-1], _END)
        if item is _END:
            pending.pop()
            continue
        if isinstance(item, _Mark):
            piece = str(item)
        elif isinstance(item, Mapping):
            pending.append(_mapping_parts(cast(Mapping[object, object], item)))
            continue
        elif isinstance(item, (list, tuple)):
            pending.append(_sequence_parts(cast("list[object] | tuple[object, ...]", item)))
            continue
        else:
            piece = _scalar(item, max(limit - size, 8))
        out.append(piece)
        size += len(piece)
    if any(next(rest, _END) is not _END for rest in reversed(pending)):
        out.append("…")
    return "".join(out)


_END = object()


def _mapping_parts(mapping: Mapping[object, object]) -> Iterator[object]:
    yield _Mark("{")
    for index, (key, item) in enumerate(mapping.items()):
        if index:
            yield _Mark(", ")
        yield key
        yield _Mark(": ")
        yield item
    yield _Mark("}")


def _sequence_parts(items: list[object] | tuple[object, ...]) -> Iterator[object]:
    opening, closing = ("[", "]") if isinstance(items, list) else ("(", ")")
    yield _Mark(opening)
    for index, item in enumerate(items):
        if index:
            yield _Mark(", ")
        yield item
    yield _Mark(closing)


def _scalar(value: object, room: int) -> str:
    """One value's text, at most about ``room`` characters of a string's (subclasses are written as
    their base type: their own ``repr`` is not trusted to be small)."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        if value.bit_length() > 64 * 3:  # over ~58 digits: no message needs them all
            digits = int(value.bit_length() * math.log10(2)) + 1
            return f"<integer of about {digits} digits>"
        return int.__repr__(value)
    if isinstance(value, float):
        return float.__repr__(value)
    if isinstance(value, str):
        if len(value) <= room:
            return str.__repr__(str(value))
        text = str.__repr__(str(value[:room]))
        return text[:-1] + "…" + text[-1]
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    return f"<{type(value).__name__}>"


def oversized(value: object, max_values: int, max_depth: int) -> bool:
    """Whether ``value`` holds more than ``max_values`` values (``value`` itself, each collection and
    each item, counted each time it is reached: a value shared through a YAML alias counts once per
    place) or holds a value inside more than ``max_depth`` nested collections. Stops as soon as either
    bound is passed."""
    budget = max_values
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        budget -= 1
        if budget < 0:
            return True
        if isinstance(item, Mapping):
            children: Collection[object] = cast(Mapping[object, object], item).values()
        elif isinstance(item, (list, tuple)):
            children = cast("list[object] | tuple[object, ...]", item)
        else:
            continue
        if len(children) > budget or (children and depth + 1 > max_depth):
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def too_large_int(value: Any) -> bool:
    """Whether ``value`` is an integer with more than :data:`MAX_INT_DIGITS` digits (Python cannot turn
    it into decimal text: no JSON, no message, no YAML)."""
    return isinstance(value, int) and value.bit_length() > MAX_INT_BITS
