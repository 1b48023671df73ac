"""The ``lore`` console script: the command line (:mod:`.cli`) with the two servers as commands. The
servers are imported only when started, and the command line never imports them: this module is the one
place the three surfaces meet."""

from __future__ import annotations

from pathlib import Path

import typer

from ..workspace import WorkspaceNotFound, find_root
from .cli import app, workspace_of
from .cli import run as run_cli


@app.command()
def serve(
    tcp: str | None = typer.Option(None, "--tcp", help="Listen on HOST:PORT instead of stdio."),
) -> None:
    """Run the language server (stdio by default) for VS Code, Neovim, Emacs, Helix and any LSP client."""
    from .lsp.main import main as serve_main  # (pygls is imported only to serve)

    serve_main(tcp)


@app.command()
def mcp(ctx: typer.Context, start: Path | None = typer.Option(
        None, "--from", help="Find the workspace from this folder up, as git does (what an editor passes as "
                             "${workspaceFolder}, which may be a subfolder).")) -> None:
    """Run the MCP server (stdio) for Claude Code, Cursor, VS Code and any MCP client: recall, store, query,
    check_stale, compact and more (docs/mcp.md)."""
    from .mcp import serve as serve_mcp  # (the MCP SDK is imported only to serve)

    if ctx.obj and ctx.obj.get("root") is not None:
        serve_mcp(workspace_of(ctx).root)
        return
    try:
        root = find_root(start)
    except WorkspaceNotFound as exc:
        # served anyway: the client shows this answer to each call, not only "connection closed"
        serve_mcp(None, f"{exc}. Start the server in the project's folder, or pass --from FOLDER or --root FOLDER "
                        "(docs/mcp.md)")
        return
    serve_mcp(root)


def run() -> None:
    """The console script."""
    run_cli()


if __name__ == "__main__":
    run()
