"""Configuration files are parsed once per workspace; every section is validated key by key: a bad
value falls back to its default with one message, the others apply."""

from __future__ import annotations

from lorekeeper.workspace import DEFAULT_MAX_FILE_BYTES, Workspace
from support import Tree


def test_each_bad_value_is_named_and_the_rest_apply(tree: Tree) -> None:
    tree.write(".lore/config.toml", """
[store]
max_file_bytes = -3
default_agent = "claude"
instruction_files = ["docs/agents/*.md", 7]

[compaction]
merge_threshold = "high"
budget = 900
fuse = "yes"
compress_strength = 1
protected = ["decisions"]
""")
    tree.write(".lean-spec/config.json", '{"memory": {"compaction": {"mergeThreshold": 70, "summaryChars": 300, "fuseMinEntries": -1}}}')
    ws = Workspace(tree.root)
    assert ws.config.default_agent == "claude" and ws.config.max_file_bytes == DEFAULT_MAX_FILE_BYTES
    assert ws.config.instruction_files == []
    assert [p.split(":")[1].split(" should")[0].strip() for p in ws.config.problems] == ["max_file_bytes", "instruction_files"]
    config = ws.compaction
    assert config.budget == 900 and config.summary_chars == 300 and config.protected == ["decisions"]
    assert config.merge_threshold == 70  # LeanSpec's value stands: the toml's is refused
    assert config.fuse is True and config.compress_strength == 1.0 and config.fuse_min_entries == 3
    assert any(p.startswith(".lore/config.toml [compaction]: merge_threshold should be int, got 'high'; using 50")
               for p in config.problems)
    assert any("fuseMinEntries should be int, got -1; using 3" in p for p in config.problems)
    assert len(config.problems) == 3
    assert ws.compaction is config  # read once


def test_a_broken_config_file_is_one_problem_and_defaults(tree: Tree) -> None:
    tree.write(".lore/config.toml", "[store\nmax_file_bytes = 1")
    ws = Workspace(tree.root)
    assert ws.config.max_file_bytes == DEFAULT_MAX_FILE_BYTES and len(ws.config.problems) == 1 and "using defaults" in ws.config.problems[0]
    assert ws.compaction.budget == 2000 and "compaction defaults used" in ws.compaction.problems[0]


def test_init_creates_the_store_and_a_config_once(tmp_path) -> None:
    from lorekeeper.workspace import init_workspace

    first = init_workspace(tmp_path)
    assert first.created == [".lore/memory/entries/", ".lore/memory/log/", ".lore/config.toml"] and not first.warnings
    assert Workspace(tmp_path).config.problems == []  # the config it writes is valid
    again = init_workspace(tmp_path)
    assert again.created == [] and again.warnings == []
    (tmp_path / ".lore/config.toml").unlink()
    (tmp_path / ".lore/config.toml").symlink_to(tmp_path / "elsewhere.toml")
    third = init_workspace(tmp_path)
    assert third.created == [] and third.warnings == [".lore/config.toml is a symlink; left alone"]
    assert not (tmp_path / "elsewhere.toml").exists()
