"""Instruction files: discovery at the usual places and nested, .gitignore respected, one entry per
bullet / paragraph / block with exact line ranges, edits that keep the rest of the file intact."""

from __future__ import annotations

from lorekeeper.store.instructions import parse_instructions, replace_lines
from lorekeeper.workspace import Workspace
from support import Tree

CLAUDE = """\
# Project

Intro paragraph
on two lines.

## Testing

- Run `pnpm test:e2e` before pushing.
  It needs docker running.
- Use vitest
  - mocks live in `test/mocks/`
  - never mock the database

1. First numbered step
2. Second numbered step

```bash
pnpm dev
```

| Command | What |
|---|---|
| make db | starts db |
"""


def test_parse_gives_one_entry_per_bullet_paragraph_and_block() -> None:
    got = [(start, end, kind, content, section) for start, end, kind, content, section in parse_instructions(CLAUDE, "CLAUDE.md")]
    assert got == [
        (3, 4, "paragraph", "Intro paragraph\non two lines.", "Project"),
        (8, 9, "bullet", "Run `pnpm test:e2e` before pushing.\nIt needs docker running.", "Project > Testing"),
        (10, 10, "bullet", "Use vitest", "Project > Testing"),
        (11, 11, "bullet", "mocks live in `test/mocks/`", "Project > Testing"),
        (12, 12, "bullet", "never mock the database", "Project > Testing"),
        (14, 14, "bullet", "First numbered step", "Project > Testing"),
        (15, 15, "bullet", "Second numbered step", "Project > Testing"),
        (17, 19, "code", "```bash\npnpm dev\n```", "Project > Testing"),
        (21, 23, "table", "| Command | What |\n|---|---|\n| make db | starts db |", "Project > Testing"),
    ]


def test_cursor_rule_front_matter_is_not_an_entry() -> None:
    text = "---\ndescription: testing\nglobs: ['src/**']\n---\n\n- Tests sit next to code.\n"
    assert [(s, e, c) for s, e, _, c, _ in parse_instructions(text, ".cursor/rules/t.mdc")] == [(6, 6, "Tests sit next to code.")]


def test_discovery_covers_usual_places_nested_files_and_respects_gitignore(tree: Tree) -> None:
    for path in ("CLAUDE.md", "AGENTS.md", ".github/copilot-instructions.md", ".cursor/rules/style.mdc",
                 "memory-bank/activeContext.md", ".claude/projects/x/memory/MEMORY.md", "packages/api/AGENTS.md",
                 "packages/web/src/CLAUDE.md", "build/CLAUDE.md", "node_modules/pkg/CLAUDE.md",
                 "docs/README.md", "vendor/AGENTS.md", "vendor/keep/AGENTS.md", "notes/x.memory.md"):
        tree.write(path, "- a fact\n" if not path.endswith(".memory.md") else "---\nid: m\n---\nbody\n")
    tree.write(".gitignore", "build/\n")
    tree.write("vendor/.gitignore", "AGENTS.md\n!keep/AGENTS.md\n")
    files = Workspace(tree.root).memory_files()
    found = sorted(p.relative_to(tree.root).as_posix() for p in files["instruction"])
    assert found == [".claude/projects/x/memory/MEMORY.md", ".cursor/rules/style.mdc", ".github/copilot-instructions.md",
                     "AGENTS.md", "CLAUDE.md", "memory-bank/activeContext.md", "packages/api/AGENTS.md",
                     "packages/web/src/CLAUDE.md", "vendor/keep/AGENTS.md"]
    assert [p.name for p in files["mif"]] == ["x.memory.md"]


def test_instruction_entries_know_their_file_and_lines(tree: Tree) -> None:
    tree.write("packages/api/AGENTS.md", "# API\n\n- Handlers live in `routes/`.\n- Validate with zod.\n")
    store = tree.store()
    assert [(e.id, e.location.start_line, e.location.end_line, e.format) for e in store.entries] == [
        ("packages/api/AGENTS.md:3", 3, 3, "instruction"),
        ("packages/api/AGENTS.md:4", 4, 4, "instruction"),
    ]
    assert store.find("packages/api/AGENTS.md:4")[0].content == "Validate with zod."


def test_replacing_an_entry_keeps_everything_else_byte_for_byte(tree: Tree) -> None:
    text = CLAUDE.replace("\n", "\r\n")
    path = tree.write("CLAUDE.md", text.encode())
    store = tree.store()
    [entry] = store.find("CLAUDE.md:8")
    change = store.change_for(entry, {"content": "- Run `pnpm test` before pushing."})
    after = change.after.decode()
    assert change.before == path.read_bytes()
    assert after == text.replace("- Run `pnpm test:e2e` before pushing.\r\n  It needs docker running.\r\n",
                                 "- Run `pnpm test` before pushing.\r\n")


def test_replace_lines_edges() -> None:
    assert replace_lines("a\nb\nc", 3, 3, "z") == "a\nb\nz"
    assert replace_lines("a\nb\nc\n", 2, 2, None) == "a\nc\n"
    assert replace_lines("a\nb\n", 1, 1, "x\ny") == "x\ny\nb\n"


def test_a_dependency_copied_into_vendor_brings_no_memory(tree: Tree) -> None:
    # grafana/k6 vendors Go modules whose own AGENTS.md / CLAUDE.md describe their trees, not k6's
    for path in ("AGENTS.md", "vendor/go.opentelemetry.io/otel/AGENTS.md", "vendor/go.opentelemetry.io/otel/CLAUDE.md",
                 "tools/vendor/github.com/grafana/sobek/AGENTS.md", "php/vendor/acme/lib/CLAUDE.md",
                 "docs/vendor/AGENTS.md"):
        tree.write(path, "- a fact\n")
    tree.write("vendor/modules.txt", "# go.opentelemetry.io/otel v1.38.0\n")
    tree.write("tools/vendor/modules.txt", "# github.com/grafana/sobek v0.0.0\n")
    tree.write("php/vendor/autoload.php", "<?php\n")
    found = sorted(p.relative_to(tree.root).as_posix() for p in Workspace(tree.root).memory_files()["instruction"])
    assert found == ["AGENTS.md", "docs/vendor/AGENTS.md"]  # a folder named vendor that holds no copied modules is read


def test_units_are_read_again_from_the_cache_until_the_file_changes(tree: Tree) -> None:
    """A second load takes each unchanged file's units from `.lore/cache/units.json` (no Markdown parsed);
    a file that changed, a cache of another version or a broken record is parsed again."""
    import json

    from lorekeeper.facts import open_memory

    tree.write(".lore/config.toml", "")
    tree.write("CLAUDE.md", CLAUDE)
    tree.write("AGENTS.md", "- Use uv.\n")
    ws = Workspace(tree.root)
    first = {e.id: e.content for e in open_memory(ws).entries}
    cache_file = ws.cache_dir / "units.json"
    data = json.loads(cache_file.read_text())
    assert sorted(key.split("\x00")[0] for key in data["files"]) == ["AGENTS.md", "CLAUDE.md"]
    # what the cache says is what a load gives: a record changed by hand shows through
    [key] = [k for k in data["files"] if k.startswith("AGENTS.md")]
    data["files"][key][0][3] = "- Use uv (from the cache)."
    cache_file.write_text(json.dumps(data))
    again = {e.id: e.content for e in open_memory(Workspace(tree.root)).entries}
    assert again == {**first, "AGENTS.md:1": "- Use uv (from the cache)."}
    tree.write("AGENTS.md", "- Use uv.\n- Run `just test`.\n")  # changed: parsed, and the old record dropped
    changed = {e.id: e.content for e in open_memory(Workspace(tree.root)).entries}
    assert changed["AGENTS.md:1"] == first["AGENTS.md:1"] and "just test" in changed["AGENTS.md:2"]
    assert len(json.loads(cache_file.read_text())["files"]) == 2
    for broken in ({**data, "version": "another"}, {**data, "files": {key: [[1, "x"]]}}):
        cache_file.write_text(json.dumps(broken))
        tree.write("AGENTS.md", "- Use uv.\n")
        assert {e.id: e.content for e in open_memory(Workspace(tree.root)).entries} == first
