# pyright: standard
"""``lore loads``: what each agent loads for a file of the repository."""

from __future__ import annotations

import typer

from ...analysis.agents import AGENTS, AgentLoads, loads
from ...analysis.agents.render import HOW, to_json
from ...workspace import PathOutsideRoot, Workspace
from .common import USAGE, JsonOption, _emit, _fail, app, escape, out, workspace_of
from .stale import _memory_path


@app.command("loads")
def loads_command(
    ctx: typer.Context,
    path: str = typer.Argument(..., help="A file of the repository (it need not exist yet)."),
    agent: list[str] = typer.Option(None, "--agent", "-a", help="Only these agents: " + ", ".join(AGENTS) + " (or all)."),
    cwd: str = typer.Option("", "--cwd", help="The folder the agent is started in (Codex reads AGENTS.md files from the "
                            "root down to it); default: the root."),
    as_json: bool = JsonOption,
) -> None:
    """Show, for a file, the instruction files each agent loads: in its order, why (always, a glob that
    matches, the file's folder, an import), their tokens against the agent's caps, what falls past a cap,
    and the files it does not load and why."""
    ws = workspace_of(ctx)
    wanted = [a for name in agent or ["all"] for a in (list(AGENTS) if name == "all" else [name])]
    unknown = [a for a in wanted if a not in AGENTS]
    if unknown:
        _fail(f"unknown agent {', '.join(unknown)}: choose from {', '.join(AGENTS)} or all", USAGE)
    target = _inside(ws, path)
    folder = _inside(ws, cwd).rstrip("/") if cwd else ""
    answers = loads(ws, target, list(dict.fromkeys(wanted)), cwd=folder)
    if as_json:
        _emit({"path": target, "cwd": folder, "agents": [to_json(a) for a in answers]})
        return
    for answer in answers:
        _print(answer)


def _inside(ws: Workspace, path: str) -> str:
    relative = _memory_path(ws, path).strip("/")
    try:
        ws.check_inside(relative or ".")
    except PathOutsideRoot as exc:
        _fail(str(exc), USAGE)
    return "" if relative == "." else relative


def _print(answer: AgentLoads) -> None:
    agent = answer.agent
    loaded = [f for f in answer.files if f.loaded]
    maybe = [f for f in answer.files if f.loaded is None]
    caps = "; ".join(c.describe() for c in agent.caps) or "no documented size limit"
    out.print(f"[bold]{escape(agent.name)}[/] — {len(loaded)} file{'s' if len(loaded) != 1 else ''}, "
              f"{answer.tokens:,} tokens [dim]({escape(caps)})[/]")
    if not answer.files:
        out.print("  [dim]nothing[/]")
    number = 0
    for item in answer.files:
        if item.loaded:
            number += 1
        label = f"{number:>2}." if item.loaded else " ? "
        indent = "  " if item.how == "import" else ""
        out.print(f"  {label} {indent}{escape(item.path)} [dim]{item.tokens:,} tokens · {HOW[item.how]}: "
                  f"{escape(item.why)}[/]")
        if item.cut:
            first, last, cap = item.cut
            what = "the whole file is skipped" if item.skipped else f"lines {first}–{last} are never loaded"
            out.print(f"      [yellow]past the cap ({escape(cap)}): {what}[/]")
    if maybe:
        out.print(f"  [dim]?: the model decides whether to load {'it' if len(maybe) == 1 else 'them'}[/]")
    for item in answer.not_loaded:
        out.print(f"   [dim]- not loaded: {escape(item.path)} — {escape(item.why)}[/]")
    for gap in agent.undocumented:
        out.print(f"   [dim]  not documented: {escape(gap)}[/]")
    out.print()
