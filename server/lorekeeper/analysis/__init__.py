"""The engine's features, each a package or module: staleness, memory findings (duplicates, conflicts,
supersession), compaction plans, budgeted context, search, local embeddings, the LLM client.

Invariant: data in, findings and plans out; no protocol library (pygls, lsprotocol, mcp, typer, rich),
no terminal, no JSON-RPC. Writes go through the store's journal only."""
