# pyright: standard
"""The YAML reader of MIF front matter: ruamel.yaml's round-trip loader with bounds, because a memory
file may come from anyone.

- **Nesting** deeper than :data:`MAX_DEPTH` collections (flow ``[[[`` / ``{{{``, or block indentation)
  is refused where the scanner meets it: ruamel's scanner slows down with every open flow level (a
  160 KB ``[[[…]]]`` took seconds), and deeper levels exhaust the stack.
- **Aliases** may make the document stand for at most :data:`ALIAS_VALUES` values more than it holds as
  written, and never for a cycle: an alias bomb (nine anchors of nine aliases each, ~600 bytes) is
  cheap to read as shared references but stands for 9^9 values to whatever walks it later (a message
  that formats it, a serialiser).
- **Scalars** that name no real value (``2026-02-30``, an integer of more than 4,300 digits, which
  Python cannot write back as text) are refused with their line, not raised as ``ValueError``.

Every refusal is a ``ruamel.yaml`` ``MarkedYAMLError`` with the mark of what was refused, so the caller
reports it like any other YAML error: one finding on the file, with its line."""

from __future__ import annotations

from typing import Any

from ruamel.yaml.composer import Composer
from ruamel.yaml.constructor import RoundTripConstructor
from ruamel.yaml.error import MarkedYAMLError
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from ruamel.yaml.scanner import RoundTripScanner

from ..core.bounded import MAX_INT_DIGITS, brief, too_large_int

#: Collections open at once (flow and block together) in front matter; a memory needs a handful.
MAX_DEPTH = 32
#: How many values aliases may add to the front matter, counted as if each alias were written out.
ALIAS_VALUES = 10_000


#: What ruamel's constructors raise, besides its own errors, on values no Python object can hold (an
#: impossible date, an integer too long to read or with no digits, a key that cannot be hashed).
_VALUE_ERRORS = (ValueError, TypeError, ArithmeticError, LookupError, AttributeError)


class FrontMatterError(MarkedYAMLError):
    """Front matter refused for its shape (too deep, aliases that expand too far, an impossible value)."""


class _Scanner(RoundTripScanner):
    def _deeper(self) -> None:
        if len(self.flow_context) + len(self.indents) >= MAX_DEPTH:
            raise FrontMatterError(problem=f"front matter nests more than {MAX_DEPTH} levels deep",
                                   problem_mark=self.reader.get_mark())

    def fetch_flow_collection_start(self, TokenClass: Any, to_push: str) -> None:  # noqa: N803 - ruamel's name
        self._deeper()
        super().fetch_flow_collection_start(TokenClass, to_push)

    def add_indent(self, column: int) -> bool:
        if self.indent < column:
            self._deeper()
        return super().add_indent(column)


class _Composer(Composer):
    def __init__(self, loader: Any = None) -> None:
        super().__init__(loader)
        self.warn_double_anchors = False  # a reused anchor name is valid YAML (the later one counts)
        self.aliases = 0

    def return_alias(self, a: Any) -> Any:
        self.aliases += 1
        return super().return_alias(a)


class _Constructor(RoundTripConstructor):
    def construct_document(self, node: Any) -> Any:
        composer = self.loader.composer if self.loader is not None else None
        if getattr(composer, "aliases", 1):
            _check_aliases(node)
        try:
            return super().construct_document(node)
        except _VALUE_ERRORS as exc:  # one the checks below did not place: the document's start
            raise FrontMatterError(problem=f"front matter cannot be read ({_reason(exc)})",
                                   problem_mark=node.start_mark) from None

    def check_mapping_key(self, node: Any, key_node: Any, mapping: Any, key: Any, value: Any) -> bool:
        try:
            return super().check_mapping_key(node, key_node, mapping, key, value)
        except _VALUE_ERRORS as exc:  # a key holding a list cannot be looked up
            raise FrontMatterError(problem=f"this key cannot be a key ({_reason(exc)})",
                                   problem_mark=key_node.start_mark) from None

    def check_set_key(self, node: Any, key_node: Any, setting: Any, key: Any) -> None:
        try:
            super().check_set_key(node, key_node, setting, key)
        except _VALUE_ERRORS as exc:
            raise FrontMatterError(problem=f"this set member cannot be one ({_reason(exc)})",
                                   problem_mark=key_node.start_mark) from None

    def construct_non_recursive_object(self, node: Any, tag: str | None = None) -> Any:
        try:
            data = super().construct_non_recursive_object(node, tag)
        except _VALUE_ERRORS as exc:
            raise FrontMatterError(problem=_impossible(node, exc), problem_mark=node.start_mark) from None
        if too_large_int(data):
            raise FrontMatterError(problem=f"{brief(node.value, 24)} is an integer of more than "
                                   f"{MAX_INT_DIGITS:,} digits", problem_mark=node.start_mark)
        return data


def configure(yaml: Any) -> None:
    """Make ``yaml`` (a round-trip ``ruamel.yaml.YAML``) read with the bounds above."""
    yaml.Scanner = _Scanner
    yaml.Composer = _Composer
    yaml.Constructor = _Constructor
    yaml.max_depth = 2 * MAX_DEPTH  # the composer's own bound, behind the scanner's


def _reason(exc: BaseException) -> str:
    """An exception's message, cut short (it may quote the value)."""
    return brief(str(exc), 80).strip("'\"")


def _impossible(node: Any, exc: BaseException) -> str:
    """Why a scalar that looks like a date or a number cannot be one."""
    while exc.__context__ is not None and isinstance(exc.__context__, (ValueError, OverflowError)):
        exc = exc.__context__  # ruamel re-raises the date's own complaint as an int() one
    tag = str(node.tag).rpartition(":")[2]
    text = brief(node.value, 40) if isinstance(node, ScalarNode) else "this value"
    reason = _reason(exc)
    if tag == "int" and "digits" in reason:
        return f"{text} is an integer of more than {MAX_INT_DIGITS:,} digits"
    if tag == "timestamp":
        return f"{text} is not a real date or time ({reason})"
    kind = _KINDS.get(tag) or f"a {tag or 'value'}"
    return f"{text} cannot be read as {kind} ({reason})"


_KINDS = {"int": "an integer", "float": "a number", "bool": "true or false", "binary": "base64 data"}


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _check_aliases(root: Node) -> None:
    """Refuse a document whose aliases make it stand for more than :data:`ALIAS_VALUES` values beyond
    those written, or for a cycle. Each node is visited once: its expanded size is the sum of its
    children's, kept per node, so an alias bomb is measured without being walked."""
    expanded: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        key = id(node)
        if finished:
            on_path.discard(key)
            # capped, so that a bomb's sizes stay small numbers: anything over the cap is refused anyway
            expanded[key] = min(1 + sum(expanded[id(child)] for child in _children(node)), 1 << 62)
            continue
        if key in expanded:
            continue
        if key in on_path:
            raise _refusal(root, node, "an alias in {where} refers to a collection that holds it")
        on_path.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node) if id(child) not in expanded)
    if expanded[id(root)] - len(expanded) > ALIAS_VALUES:
        # named after the top-level entry that stands for the most values
        worst = (max(root.value, key=lambda pair: expanded[id(pair[0])] + expanded[id(pair[1])])[0]
                 if isinstance(root, MappingNode) else root)
        raise _refusal(root, worst, f"aliases make {{where}} stand for more than {ALIAS_VALUES:,} values "
                                    "beyond those written")


def _refusal(root: Node, node: Node, problem: str) -> FrontMatterError:
    """``problem`` (``{where}``: the top-level field that holds ``node``) at that field's line."""
    field = _field_of(root, node)
    where = f"field {brief(field.value, 40)}" if isinstance(field, ScalarNode) else "the front matter"
    return FrontMatterError(problem=problem.format(where=where), problem_mark=(field or node).start_mark)


def _field_of(root: Node, node: Node) -> Node | None:
    """The top-level key whose entry holds ``node`` (each node looked at once, aliases not followed again)."""
    if not isinstance(root, MappingNode):
        return None
    seen: set[int] = set()
    for key, value in root.value:
        stack = [key, value]
        while stack:
            item = stack.pop()
            if item is node:
                return key
            if id(item) not in seen:
                seen.add(id(item))
                stack.extend(_children(item))
    return None


__all__ = ["ALIAS_VALUES", "MAX_DEPTH", "FrontMatterError", "configure"]
