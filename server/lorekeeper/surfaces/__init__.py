"""The three ways in: the command line (:mod:`.cli`), the language server (:mod:`.lsp`) and the MCP
server (:mod:`.mcp`).

Invariant: translate and render, nothing else; they never import each other, and they are the only
modules that import a protocol or terminal library."""
