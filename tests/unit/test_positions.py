"""Positions (positions.py): the 0-based (line, character) spans that diagnostics and hovers point at —
the ``content`` value of a JSON entry, the body of a MIF file, the lines of an instruction-file entry, a
schema finding's line — read from real files in tmp_path, with CRLF, a BOM, tabs and non-ASCII text."""

from __future__ import annotations

from pathlib import Path

import pytest

from lorekeeper.core.model import Entry, Finding, Location, Severity
from lorekeeper.store.positions import entry_span, finding_span, line_span
from support import Tree


def loaded(tree: Tree) -> dict[str, Entry]:
    return tree.store().by_id()


def text_at(root: Path, relpath: str, span: tuple[int, int, int, int]) -> str:
    """What a single-line span covers in the file (as an editor shows it: no BOM, no line ending)."""
    first, start, last, end = span
    assert first == last, span
    return (root / relpath).read_text(encoding="utf-8-sig").splitlines()[first][start:end]


def entry(fmt: str, path: str, start: int = 1, end: int = 1) -> Entry:
    return Entry(id="x", content="x", format=fmt, location=Location(path=path, start_line=start, end_line=end))


def finding(**fields) -> Finding:
    return Finding(**{"kind": "k", "severity": Severity.warning, "message": "m", "source": "CLAUDE.md", **fields})


# -- JSON entries -------------------------------------------------------------------------------------

def test_a_json_entry_points_at_its_content_value(tree: Tree) -> None:
    tree.entry("a.json", '{\n  "id": "a",\n  "content": "Use pnpm",\n  "tags": []\n}\n')
    tree.entry("b.json", '{\n  "id": "b",\n  "tags": [],\n  "content": "Last key"\n}\n')
    by_id = loaded(tree)
    span = entry_span(tree.root, by_id["a"])
    assert span == (2, 13, 2, 23)
    assert text_at(tree.root, ".lore/memory/entries/a.json", span) == '"Use pnpm"'  # the trailing comma is left out
    span = entry_span(tree.root, by_id["b"])
    assert span[0] == 3 and text_at(tree.root, ".lore/memory/entries/b.json", span) == '"Last key"'


def test_bom_crlf_tabs_escapes_and_non_ascii_text(tree: Tree) -> None:
    raw = '\ufeff{\r\n\t"id": "c",\r\n\t"content": "café \\"q\\", 中文: x"\r\n}\r\n'
    tree.entry("c.json", raw.encode("utf-8"))
    span = entry_span(tree.root, loaded(tree)["c"])
    assert span == (2, 12, 2, 31)  # characters, not bytes (é and 中文 are 7 bytes); the BOM is not a column
    assert text_at(tree.root, ".lore/memory/entries/c.json", span) == '"café \\"q\\", 中文: x"'


def test_only_the_top_level_content_key_counts(tree: Tree) -> None:
    tree.entry("n.json", '{\n  "id": "n",\n  "meta": {\n    "content": "nested"\n  },\n  "content": "top"\n}\n')
    span = entry_span(tree.root, loaded(tree)["n"])
    assert span[0] == 5 and text_at(tree.root, ".lore/memory/entries/n.json", span) == '"top"'


def test_a_content_value_on_the_next_line_falls_back_to_the_first_line(tree: Tree) -> None:
    tree.entry("w.json", '{\n  "id": "w",\n  "content":\n    "wrapped"\n}\n')
    assert entry_span(tree.root, loaded(tree)["w"]) == (0, 0, 0, 1)


def test_a_one_line_entry_file_points_at_its_content_value_only(tree: Tree) -> None:
    tree.entry("o.json", '{"id": "o", "content": "one \\"quoted\\" line", "tags": ["x"]}')
    span = entry_span(tree.root, loaded(tree)["o"])
    assert text_at(tree.root, ".lore/memory/entries/o.json", span) == '"one \\"quoted\\" line"'


# -- MIF files ----------------------------------------------------------------------------------------

def test_a_mif_file_points_at_its_body_without_trailing_blank_lines(tree: Tree) -> None:
    text = "---\nid: m\ncreated: 2026-01-01T00:00:00Z\ntags:\n  - a\n---\n\n# Title\n\nBody text.\n\n\n"
    tree.write(".lore/memory/mif/m.memory.md", text)
    tree.write(".lore/memory/mif/r.memory.md", text.replace("id: m", "id: r").replace("\n", "\r\n"))
    by_id = loaded(tree)
    assert entry_span(tree.root, by_id["m"]) == (6, 0, 9, len("Body text."))
    assert entry_span(tree.root, by_id["r"]) == (6, 0, 9, len("Body text."))  # CRLF: same lines, no \r


def test_mif_files_without_a_body_or_front_matter(tree: Tree) -> None:
    assert entry_span(tree.root, entry("mif", "x.md"), ["---", "---", "body"]) == (2, 0, 2, 4)
    assert entry_span(tree.root, entry("mif", "x.md"), ["---", "id: m", "---"]) == (2, 0, 2, 3)  # clamped to the file
    assert entry_span(tree.root, entry("mif", "x.md"), ["no front matter", "body"]) == (0, 0, 1, 4)
    assert entry_span(tree.root, entry("mif", "x.md"), ["---", "id: [", "---", "body"]) == (0, 0, 3, 4)  # bad YAML


# -- instruction files --------------------------------------------------------------------------------

def test_instruction_entries_span_their_lines_without_indentation(tree: Tree) -> None:
    tree.write("CLAUDE.md", "# T\n\n  - indented bullet\n    continued here\n- two\n    - nested\n")
    by_id = loaded(tree)
    assert entry_span(tree.root, by_id["CLAUDE.md:3"]) == (2, 2, 3, len("    continued here"))
    assert entry_span(tree.root, by_id["CLAUDE.md:5"]) == (4, 0, 4, 5)
    assert entry_span(tree.root, by_id["CLAUDE.md:6"]) == (5, 4, 5, len("    - nested"))


def test_instruction_entries_in_a_crlf_file_with_a_bom(tree: Tree) -> None:
    tree.write("AGENTS.md", "\ufeff- first\r\n- second bullet\r\n".encode("utf-8"))
    by_id = loaded(tree)
    assert entry_span(tree.root, by_id["AGENTS.md:1"]) == (0, 0, 0, len("- first"))
    assert entry_span(tree.root, by_id["AGENTS.md:2"]) == (1, 0, 1, len("- second bullet"))


def test_an_entry_after_a_unicode_line_separator_is_on_the_editors_line(tree: Tree) -> None:
    tree.write("CLAUDE.md", "# T\n\nIntro with a \u2028 separator.\n\n- bullet\n")
    [bullet] = [e for e in tree.store().entries if e.content == "bullet"]
    assert entry_span(tree.root, bullet)[0] == 4  # line 5 as the editor numbers it


def test_lines_that_are_gone_give_empty_spans_and_lines_past_the_end_clamp(tree: Tree) -> None:
    tree.write("CLAUDE.md", "- a\n- bb\n")
    assert entry_span(tree.root, entry("instruction", "gone.md", 3, 4)) == (2, 0, 3, 0)
    assert entry_span(tree.root, entry("instruction", "CLAUDE.md", 40, 42)) == (1, 0, 1, 4)
    assert entry_span(tree.root, entry("entry", "gone.json")) == (0, 0, 0, 0)


def test_given_lines_are_used_instead_of_the_file(tree: Tree) -> None:
    tree.write("CLAUDE.md", "- on disk\n")
    assert entry_span(tree.root, entry("instruction", "CLAUDE.md"), ["    - in the editor buffer"]) == (0, 4, 0, 26)


# -- line_span ----------------------------------------------------------------------------------------

def test_line_span_clamps_to_the_file() -> None:
    lines = ["first", "  second", "", "\tfourth"]
    assert line_span(lines, 2) == (1, 2, 1, 8)
    assert line_span(lines, 1, 4) == (0, 0, 3, 7)
    assert line_span(lines, 4) == (3, 1, 3, 7)  # a tab is one character of indentation
    assert line_span(lines, 9) == (3, 1, 3, 7)
    assert line_span(lines, 2, 1) == (1, 2, 1, 8)  # an end before the start is the start
    assert line_span(lines, 3) == (2, 0, 2, 0)
    assert line_span([], 5, 7) == (4, 0, 6, 0)


def test_line_span_clamps_a_line_below_one() -> None:
    assert line_span(["a", "  bcd"], 0) == (0, 0, 0, 1)


# -- findings -----------------------------------------------------------------------------------------

def test_schema_findings_point_at_their_field_line(tree: Tree) -> None:
    tree.entry("t.json", '{\n  "id": "t",\n  "content": "x",\n  "tags": "nope"\n}\n')
    store = tree.store()
    [problem] = [f for f in store.findings if f.field == "tags"]
    # The entry is known, but a finding about a field points at the field, not at the text.
    assert finding_span(tree.root, problem, store.by_id()["t"]) == (3, 2, 3, len('  "tags": "nope"'))


def test_a_parse_error_points_at_its_column_even_after_a_bom(tree: Tree) -> None:
    tree.entry("j.json", '\ufeff{\n  "id": "j"\n  "content": "x"\n}\n'.encode("utf-8"))
    [problem] = tree.store().findings
    assert (problem.kind, problem.line, problem.column) == ("invalid-json", 3, 3)
    span = finding_span(tree.root, problem, None)
    assert span == (2, 2, 2, len('  "content": "x"'))
    assert (tree.root / problem.source).read_text(encoding="utf-8-sig").splitlines()[2][span[1]] == '"'


def test_finding_span_rules(tree: Tree) -> None:
    tree.write("CLAUDE.md", "# T\n\n  - indented bullet\n")
    lines = ["# T", "", "  - indented bullet"]
    bullet = entry("instruction", "CLAUDE.md", 3, 3)
    assert finding_span(tree.root, finding(line=3, column=7), None) == (2, 6, 2, 19)  # read from the file
    assert finding_span(tree.root, finding(line=3, column=7, field="x"), None) == (2, 2, 2, 19)  # a field: whole line
    assert finding_span(tree.root, finding(line=None), None) == (0, 0, 0, 3)  # no line: the first
    assert finding_span(tree.root, finding(line=1, entry="x"), bullet, lines) == (2, 2, 2, 19)  # the entry's text
    assert finding_span(tree.root, finding(line=1, field="content"), bullet, lines) == (0, 0, 0, 3)


@pytest.mark.parametrize("text", ["a\nb\n", "a\r\nb", "a\rb\r\n\r\nc", "one \u2028 line\x0c still\u0085 one\n", "", "\n"])
def test_editor_lines_break_only_where_editors_do_and_keep_every_character(text: str) -> None:
    from lorekeeper.core.text import editor_lines

    assert "".join(editor_lines(text, keepends=True)) == text
    breaks = text.count("\r\n") + text.replace("\r\n", "").count("\r") + text.replace("\r\n", "").count("\n")
    assert len(editor_lines(text)) == breaks + (0 if not text or text.endswith(("\n", "\r")) else 1)
    assert all("\n" not in line and "\r" not in line for line in editor_lines(text))
