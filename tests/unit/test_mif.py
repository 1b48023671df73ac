"""MIF level 3 (*.memory.md): mapping to entries, round trips that keep comments and order, bad input."""

from __future__ import annotations

from datetime import UTC, datetime

from lorekeeper.core.model import Severity
from lorekeeper.store.mif import MifDocument
from support import Tree

MIF = """\
---
id: 550e8400-e29b-41d4-a716-446655440000
type: semantic
namespace: _semantic/decisions/project
created: 2026-01-23T10:30:00Z
title: "Use JWT for auth"  # quoted on purpose
tags:
  - auth
  - security
temporal:
  ttl: P90D
  decay:
    model: exponential
    strength: 0.85
  access_count: 5
provenance:
  source_type: user_explicit
  agent: claude-opus-4
  confidence: 0.95
code_refs:
  - file: src/auth/handler.ts
    line: 42
    symbol: authenticateUser
    type: function
x-custom: {keep: me}
---

# Use JWT for auth

Tokens expire after **15 minutes**.
"""


def test_maps_mif_fields_to_an_entry(tree: Tree) -> None:
    tree.write(".claude/mnemonic/auth.memory.md", MIF)
    store = tree.store()
    assert store.findings == []
    [entry] = store.entries
    assert entry.format == "mif"
    assert entry.id == "550e8400-e29b-41d4-a716-446655440000"
    assert entry.category == "decisions"  # from the namespace
    assert entry.content.startswith("# Use JWT for auth") and "15 minutes" in entry.content
    assert entry.tags == ["auth", "security"]
    assert entry.agent == "claude-opus-4" and entry.confidence == 0.95
    assert entry.strength == 0.85 and entry.ttl == "P90D" and entry.access_count == 5
    assert entry.created == datetime(2026, 1, 23, 10, 30, tzinfo=UTC)
    [ref] = entry.refs
    assert (ref.path, ref.symbol, ref.lines) == ("src/auth/handler.ts", "authenticateUser", 42)


def test_round_trip_keeps_comments_quotes_order_and_body(tree: Tree) -> None:
    path = tree.write("notes/auth.memory.md", MIF)
    store = tree.store()
    [entry] = store.entries
    assert store.change_for(entry, {}).after == path.read_bytes()  # untouched: byte-identical
    after = store.change_for(entry, {"tags": ["auth", "security", "jwt"], "confidence": 0.7,
                                     "merged_into": "other"}).after.decode()
    assert '  # quoted on purpose' in after and 'title: "Use JWT for auth"' in after
    assert "x-custom: {keep: me}" in after
    assert "  - jwt\n" in after  # list style of the file kept
    assert "  confidence: 0.7\n" in after and "merged_into: other\n" in after
    keys = [line.split(":")[0] for line in after.split("---")[1].splitlines() if line and not line.startswith(" ")]
    assert keys[:6] == ["id", "type", "namespace", "created", "title", "tags"]
    assert after.endswith("# Use JWT for auth\n\nTokens expire after **15 minutes**.\n")
    doc = MifDocument.parse(after)
    assert doc.front["temporal"]["decay"]["strength"] == 0.85


def test_changing_the_body_keeps_front_matter_text(tree: Tree) -> None:
    tree.write("a.memory.md", MIF)
    store = tree.store()
    [entry] = store.entries
    after = store.change_for(entry, {"content": "Tokens expire after 30 minutes."}).after.decode()
    assert after.startswith(MIF.split("---\n\n")[0])
    assert after.endswith("---\nTokens expire after 30 minutes.\n")


def test_new_mif_file_reads_back(tree: Tree) -> None:
    from lorekeeper.core.model import Ref

    store = tree.store()
    result = store.add("Prefer zod for validation", journal=tree.journal(), category="decisions", tags=["api"],
                       refs=[Ref(path="src/schema.ts", symbol="Order")], agent="me", fmt="mif")
    assert result.path and result.path.endswith(".memory.md") and "prefer-zod-for-validation" in result.path
    [entry] = tree.store().entries
    assert entry.id == result.entry_id and entry.category == "decisions" and entry.agent == "me"
    assert entry.refs[0].path == "src/schema.ts" and entry.refs[0].symbol == "Order"


def test_bad_mif_files_give_findings_with_lines(tree: Tree) -> None:
    tree.write("no-front.memory.md", "# just markdown\n")
    tree.write("unclosed.memory.md", "---\nid: x\n")
    tree.write("bad-yaml.memory.md", "---\nid: x\ntags: [a, b\ncreated: now\n---\nbody\n")
    tree.write("no-id.memory.md", "---\ntitle: hi\n---\nbody\n")
    tree.write("bad-refs.memory.md", "---\nid: r\ncode_refs:\n  - file: ../../etc/passwd\n---\nbody\n")
    tree.write("ok.memory.md", "---\nid: ok\n---\nfine\n")
    store = tree.store()
    assert sorted(e.id for e in store.entries) == ["ok", "r"]
    by = {f.source: f for f in store.findings}
    assert "does not start with '---'" in by["no-front.memory.md"].message
    assert "not closed" in by["unclosed.memory.md"].message
    assert by["bad-yaml.memory.md"].kind == "invalid-mif" and by["bad-yaml.memory.md"].line in (3, 4)
    assert by["no-id.memory.md"].kind == "missing-field"
    refused = by["bad-refs.memory.md"]
    assert refused.kind == "ref-outside-root" and refused.line == 3 and refused.severity == Severity.error
