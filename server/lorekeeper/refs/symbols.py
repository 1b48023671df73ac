# pyright: standard
"""Which symbols a code file defines, and which identifiers it mentions.

Python goes through ``ast``; JavaScript, TypeScript, Go, Rust and Java through tree-sitter grammars; Ruby,
PHP, C#, Kotlin, Swift and Protocol Buffers by the lines that declare a type or a function; shell scripts
by their functions and the variables they set.
A definition is recorded under its own name and qualified by its container (``StripeClient.createCharge``,
``Server.Start`` for a Go method, ``A.go`` for a method in ``impl A``), with its line range so that a
fingerprint can cover the symbol's body only."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

_IDENT = re.compile(rb"[A-Za-z_$][A-Za-z0-9_$]*")


@dataclass
class FileSymbols:
    """Definitions (qualified and plain name -> 1-based (start, end) lines) and every identifier used."""

    definitions: dict[str, tuple[int, int]] = field(default_factory=dict)
    identifiers: set[str] = field(default_factory=set)

    def add(self, names: list[str], start: int, end: int) -> None:
        for i in range(len(names)):
            self.definitions.setdefault(".".join(names[i:]), (start, end))


LANGUAGES = {
    ".py": "python", ".pyi": "python",
    ".js": "javascript", ".jsx": "javascript", ".mjs": "javascript", ".cjs": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
    ".go": "go", ".rs": "rust", ".java": "java",
    ".rb": "ruby", ".rake": "ruby", ".php": "php", ".cs": "csharp", ".kt": "kotlin", ".kts": "kotlin",
    ".swift": "swift", ".proto": "proto", ".sh": "shell", ".bash": "shell",
}

_MODIFIERS = (rb"(?:(?:public|private|protected|internal|fileprivate|open|static|final|abstract|sealed|override|virtual|"
              rb"async|suspend|inline|data|enum|annotation|inner|value|partial|readonly|mutating|class|new|unsafe|extern)"
              rb"[ \t]+)*")
#: Definitions of the languages read without a grammar: a line that declares a type (``cls``) or a function or
#: member (``fn``), by the keyword that opens it. Enough to say whether a name is defined, and where.
_DECLARATIONS: dict[str, re.Pattern[bytes]] = {
    "ruby": re.compile(rb"^(?P<indent>[ \t]*)(?:def[ \t]+(?:self\.)?(?P<fn>[A-Za-z_]\w*[?!=]?)"
                       rb"|(?:class|module)[ \t]+(?P<cls>[A-Z]\w*(?:::[A-Z]\w*)*))", re.M),
    "php": re.compile(rb"^(?P<indent>[ \t]*)" + _MODIFIERS + rb"(?:function[ \t]+&?(?P<fn>[A-Za-z_]\w*)"
                      rb"|(?:class|interface|trait|enum)[ \t]+(?P<cls>[A-Za-z_]\w*))", re.M),
    "csharp": re.compile(rb"^(?P<indent>[ \t]*)" + _MODIFIERS + rb"(?:(?:class|interface|struct|record|enum)[ \t]+"
                         rb"(?P<cls>[A-Za-z_]\w*)|[\w<>\[\],.?]+[ \t]+(?P<fn>[A-Z]\w*)[ \t]*[(<])", re.M),
    "kotlin": re.compile(rb"^(?P<indent>[ \t]*)" + _MODIFIERS + rb"(?:fun[ \t]+(?:<[^>]*>[ \t]*)?(?:[\w.]+\.)?"
                         rb"(?P<fn>[A-Za-z_]\w*)|(?:class|object|interface)[ \t]+(?P<cls>[A-Za-z_]\w*))", re.M),
    "swift": re.compile(rb"^(?P<indent>[ \t]*)" + _MODIFIERS + rb"(?:func[ \t]+(?P<fn>[A-Za-z_]\w*)"
                        rb"|(?:struct|enum|protocol|extension|actor|class)[ \t]+(?P<cls>[A-Za-z_]\w*))", re.M),
    "proto": re.compile(rb"^(?P<indent>[ \t]*)(?:(?:message|service|enum)[ \t]+(?P<cls>[A-Za-z_]\w*)"
                        rb"|rpc[ \t]+(?P<fn>[A-Za-z_]\w*)|(?P<value>[A-Z][A-Z0-9_]*)[ \t]*=[ \t]*-?\d+[ \t]*[;\[])", re.M),
}


def language_of(path: str) -> str | None:
    dot = path.rfind(".")
    return LANGUAGES.get(path[dot:].lower()) if dot >= 0 else None


def qualified_definition(symbols: FileSymbols, name: str, path: str) -> tuple[int, int] | None:
    """Where a file defines ``name``: as written (``Class.method``, ``helper``), or qualified by the
    file's module path (``utils.parse_date`` in ``.../utils.py``, ``pkg.utils.parse_date``)."""
    found = symbols.definitions.get(name)
    if found is not None or "." not in name:
        return found
    parts = name.split(".")
    stem = path.rsplit(".", 1)[0]
    for suffix in ("/__init__", "/index", "/mod"):
        stem = stem.removesuffix(suffix)
    module = stem.split("/")
    for k in range(1, len(parts)):
        prefix, rest = parts[:k], ".".join(parts[k:])
        if module[-k:] == prefix and rest in symbols.definitions:
            return symbols.definitions[rest]
    return None


def file_symbols(path: str, data: bytes) -> FileSymbols:
    """Parse one file; an unparsable file yields its identifiers only (never an exception)."""
    symbols = FileSymbols(identifiers={m.decode("ascii") for m in _IDENT.findall(data)})
    lang = language_of(path)
    if lang == "python":
        _python(data, symbols)
    elif lang == "shell":
        _shell(data, symbols)
    elif lang in _DECLARATIONS:
        _declarations(_DECLARATIONS[lang], data, symbols)
    elif lang is not None:
        _tree_sitter(lang, data, symbols)
    return symbols


def _declarations(pattern: re.Pattern[bytes], data: bytes, symbols: FileSymbols) -> None:
    """Definitions by their opening line: a type opens a scope for what is declared more indented after
    it (``Account#sync_data`` is recorded as ``Account.sync_data`` too), until a line at its indentation."""
    scopes: list[tuple[int, list[str]]] = []  # (indentation, name) of the types around the current line
    for match in pattern.finditer(data):
        indent = len(match.group("indent").expandtabs(4))
        while scopes and scopes[-1][0] >= indent:
            scopes.pop()
        line = data.count(b"\n", 0, match.start()) + 1
        value = match.groupdict().get("value")  # a proto enum's value (`GENERATE_EXPLANATION = 29;`)
        name = (match.group("cls") or match.group("fn") or value or b"").decode("utf-8", "replace")
        if not name:
            continue
        parts = name.replace("::", ".").split(".")
        symbols.add([*(p for _, scope in scopes for p in scope), *parts], line, line)
        if match.group("cls"):
            scopes.append((indent, parts))


#: A shell script's definitions: its functions (``update_agent_file() {``, ``function log {``) and the
#: variables it sets (``WINDSURF_FILE="$ROOT/x"``, ``export AGENT_TYPE=``, ``ALL_AGENTS=(claude gemini)``), also
#: after ``;`` on a line of several (``CLAUDE_FILE="…"; WINDSURF_FILE="…"``).
_SHELL_DEFINITION = re.compile(
    rb"(?:^|;|&&)[ \t]*(?:function[ \t]+(?P<fn>[A-Za-z_][\w-]*)|(?P<call>[A-Za-z_][\w-]*)[ \t]*\(\)"
    rb"|(?:(?:export|readonly|local|declare(?:[ \t]+-\w+)*)[ \t]+)?(?P<var>[A-Za-z_]\w*)\+?=)", re.M)


def _shell(data: bytes, symbols: FileSymbols) -> None:
    for match in _SHELL_DEFINITION.finditer(data):
        name = (match.group("fn") or match.group("call") or match.group("var")).decode("utf-8", "replace")
        line = data.count(b"\n", 0, match.start()) + 1
        symbols.add([name], line, line)


def _python(data: bytes, symbols: FileSymbols) -> None:
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # nested too deep: no symbols, no crash
        return

    def visit(node: ast.AST, scope: list[str]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names = [*scope, child.name]
                symbols.add(names, child.lineno, child.end_lineno or child.lineno)
                visit(child, names if isinstance(child, ast.ClassDef) else scope)
            elif isinstance(child, (ast.Assign, ast.AnnAssign)) and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                targets = child.targets if isinstance(child, ast.Assign) else [child.target]
                for target in targets:
                    if isinstance(target, ast.Name):
                        symbols.add([*scope, target.id], child.lineno, child.end_lineno or child.lineno)
            elif isinstance(child, (ast.If, ast.Try, ast.With)):
                visit(child, scope)

    try:
        visit(tree, [])
    except RecursionError:
        return


# Node types that define a name (its ``name`` field), and those that open a scope for their children.
_DEFINES = {
    "function_declaration", "generator_function_declaration", "class_declaration", "abstract_class_declaration",
    "method_definition", "interface_declaration", "type_alias_declaration", "enum_declaration",
    "variable_declarator", "public_field_definition", "method_signature",
    # the members of a type's shape: an enum's (`ClineDefaultTool.GENERATE_EXPLANATION`), an interface's
    # (`PromptVariant.componentOverrides`)
    "enum_assignment", "property_signature",
    "type_spec", "method_declaration", "const_spec", "var_spec",
    "function_item", "struct_item", "enum_item", "trait_item", "const_item", "static_item", "mod_item",
    "type_item", "macro_definition", "union_item",
    "record_declaration", "constructor_declaration", "field_declaration",
}
_SCOPES = {"class_declaration", "abstract_class_declaration", "interface_declaration", "struct_item", "enum_item",
           "trait_item", "mod_item", "record_declaration", "enum_declaration"}
_BODIES = {"statement_block", "function_body", "block"}  # locals inside functions are not definitions


@cache
def _parser(lang: str) -> Any:
    from tree_sitter import Language, Parser

    loaders: dict[str, Callable[[], Any]] = {
        "javascript": lambda: __import__("tree_sitter_javascript").language(),
        "typescript": lambda: __import__("tree_sitter_typescript").language_typescript(),
        "tsx": lambda: __import__("tree_sitter_typescript").language_tsx(),
        "go": lambda: __import__("tree_sitter_go").language(),
        "rust": lambda: __import__("tree_sitter_rust").language(),
        "java": lambda: __import__("tree_sitter_java").language(),
    }
    return Parser(Language(loaders[lang]()))


def _tree_sitter(lang: str, data: bytes, symbols: FileSymbols) -> None:
    try:
        tree = _parser(lang).parse(data)
    except Exception:  # a grammar that fails to load or parse leaves identifiers only
        return
    stack: list[tuple[Any, list[str]]] = [(tree.root_node, [])]
    while stack:
        node, scope = stack.pop()
        child_scope = scope
        kind = node.type
        if kind in _DEFINES:
            name_node = node.child_by_field_name("name")
            if kind == "field_declaration" and name_node is None:  # Java fields: name sits on the declarator
                declarator = node.child_by_field_name("declarator")
                name_node = declarator.child_by_field_name("name") if declarator is not None else None
            if name_node is not None:
                name = name_node.text.decode("utf-8", "replace")
                names = [*scope, name]
                if kind == "method_declaration" and lang == "go":
                    receiver = _go_receiver(node)
                    names = [receiver, name] if receiver else [name]
                symbols.add(names, node.start_point[0] + 1, node.end_point[0] + 1)
                if kind in _SCOPES:
                    child_scope = names
        elif kind == "property_identifier" and node.parent is not None and node.parent.type == "enum_body":
            symbols.add([*scope, node.text.decode("utf-8", "replace")], node.start_point[0] + 1, node.end_point[0] + 1)
        elif kind == "impl_item":
            type_node = node.child_by_field_name("type")
            if type_node is not None:
                child_scope = [*scope, type_node.text.decode("utf-8", "replace").split("<")[0]]
        if kind in _BODIES and node.parent is not None and node.parent.type not in ("class_body",):
            if node.parent.type not in ("program", "source_file", "declaration_list", "mod_item"):
                continue
        stack.extend((child, child_scope) for child in reversed(node.children))


def _go_receiver(node: Any) -> str | None:
    receiver = node.child_by_field_name("receiver")
    if receiver is None:
        return None
    words = re.findall(rb"[A-Za-z_][A-Za-z0-9_]*", receiver.text.split(b"[")[0])
    return words[-1].decode() if words else None  # "(s *Server)": the last word is the type
