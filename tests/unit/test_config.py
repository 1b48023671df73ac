"""Configuration files are parsed once per workspace; every section is validated key by key: a bad
value falls back to its default with one message, the others apply."""

from __future__ import annotations

import math
from datetime import UTC, datetime

from lorekeeper.facts import open_memory
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


def _accepted(model: type, name: str) -> list[object]:
    from pydantic import ValidationError

    out = []
    for value in (0, 1, 2, -1, 10**18, 0.0, 0.5, 1e308, math.inf, -math.inf, math.nan, True, "x"):
        try:
            model.model_validate({name: value})
        except ValidationError:
            continue
        out.append(value)
    return out


def test_every_value_the_settings_accept_is_used_without_a_crash(tree: Tree) -> None:
    """What a schema accepts, the code must survive: each setting at each extreme it accepts (zero, one,
    huge, infinite), planned and rendered on a small store that every rule has something to do in."""
    from lorekeeper.analysis.compaction import plan_compaction
    from lorekeeper.app.context import render_context
    from lorekeeper.core.settings.compaction import CompactionConfig
    from lorekeeper.core.settings.context import ContextConfig

    for i in range(8):
        tree.entry(f"e{i}.json", {"id": f"e{i}", "content": ("Use pnpm for installs. " if i % 2 else "Deploys go out Tuesday. ")
                   * (1 + i * 30), "tags": ["build"], "created": f"2025-0{i + 1}-01T00:00:00Z", "access_count": 0})
    for i in range(8, 14):
        tree.entry(f"e{i}.json", {"id": f"e{i}", "content": f"Old note about releases {i}.", "tags": ["release"],
                                  "created": "2024-01-01T00:00:00Z", "last_accessed": "2024-06-01T00:00:00Z",
                                  "strength": 0.5, "access_count": 1, "category": "patterns", **({"ttl": "P30D"} if i == 8 else {})})
    tree.write("CLAUDE.md", "# Build\n- Use pnpm.\n- Run `make test`.\n")
    ws = Workspace(tree.root)
    store = open_memory(ws)
    now = datetime(2026, 11, 1, tzinfo=UTC)
    tried = 0
    for name in CompactionConfig.model_fields:
        for value in _accepted(CompactionConfig, name) if name not in ("problems", "semantic_dedup", "semantic_model") else []:
            plan_compaction(store, CompactionConfig.model_validate({name: value}), now=now)
            tried += 1
    for name in ContextConfig.model_fields:
        for value in _accepted(ContextConfig, name) if name != "problems" else []:
            render_context(ws, store, config=ContextConfig.model_validate({name: value}), now=now, remember=False)
            tried += 1
    assert tried > 100
    assert 0 not in _accepted(CompactionConfig, "fuse_max_entries") and 0 not in _accepted(CompactionConfig, "half_life_days")


def test_settings_are_values_changed_only_by_copying() -> None:
    """An override is a copy: the language server's session settings never change under it (an offer to
    compact once switched semantic duplicates off for the rest of a session, and an editor compaction with
    the model left the model on)."""
    import pytest
    from pydantic import ValidationError

    from lorekeeper.core.settings.compaction import CompactionConfig
    from lorekeeper.core.settings.context import ContextConfig

    session = CompactionConfig(semantic_dedup=True)
    offer = session.with_overrides(semantic_dedup=False, llm_assisted=False)
    editor = session.with_overrides(llm_assisted=True)
    assert (session.semantic_dedup, session.llm_assisted) == (True, False)
    assert (offer.semantic_dedup, editor.llm_assisted) == (False, True)
    with pytest.raises(ValidationError):
        session.budget = 10  # type: ignore[misc]
    with pytest.raises(ValidationError):
        session.with_overrides(min_strength=2.0)  # out of range, as in a file
    context = ContextConfig()
    assert context.with_overrides(budget=100).budget == 100 and context.budget is None
