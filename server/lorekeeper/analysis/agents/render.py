"""What agents load, as data (``--json``, MCP, the editor) and as Markdown (the editor's read-only document,
MCP's text), and what one instruction file is to each agent in a line (the editor's code lens)."""

from __future__ import annotations

from typing import Any

from .roles import AgentLoads, Loaded, Role
from .table import AGENTS

HOW = {"always": "always", "folder": "folder", "subtree": "folder", "glob": "matches", "chain": "folder chain", "import": "import",
       "maybe": "model decides", "manual": "mentioned only", "never": "never", "unknown": "undocumented"}


def to_json(answer: AgentLoads) -> dict[str, Any]:
    agent = answer.agent
    return {"agent": agent.id, "name": agent.name, "tokens": answer.tokens, "order": agent.order,
            "order_source": agent.order_source,
            "caps": [{"limit": c.limit, "unit": c.unit, "per": c.per, "past": c.past, "source": c.source} for c in agent.caps],
            "undocumented": list(agent.undocumented),
            "files": [_item(f) for f in answer.files], "not_loaded": [_item(f) for f in answer.not_loaded]}


def _item(item: Loaded) -> dict[str, Any]:
    data: dict[str, Any] = {"path": item.path, "how": item.how, "why": item.why, "loaded": item.loaded,
                            "tokens": item.tokens}
    if item.via:
        data["via"] = item.via
    if item.cut:
        data["cut"] = {"from": item.cut[0], "to": item.cut[1], "cap": item.cut[2], "skipped": item.skipped}
    return data


def to_markdown(target: str, answers: list[AgentLoads], cwd: str = "") -> str:
    """The answer for ``target`` as a Markdown document (a section an agent)."""
    where = f" (started in {cwd}/)" if cwd else ""
    lines = [f"# What agents load for `{target or '.'}`{where}", ""]
    for answer in answers:
        agent = answer.agent
        loaded = [f for f in answer.files if f.loaded]
        caps = "; ".join(c.describe() for c in agent.caps) or "no documented size limit"
        lines += [f"## {agent.name}: {len(loaded)} file{'s' if len(loaded) != 1 else ''}, {answer.tokens:,} tokens", "",
                  f"Order: {agent.order} ([source]({agent.order_source})). Size: {caps}.", ""]
        number = 0
        for item in answer.files:
            if item.loaded:
                number += 1
            mark = f"{number}." if item.loaded else "-"
            indent = "   " if item.how == "import" else ""
            lines.append(f"{indent}{mark} `{item.path}` ({item.tokens:,} tokens) — {HOW[item.how]}: {item.why}"
                         + ("" if item.loaded else " *(the model decides)*"))
            if item.cut:
                first, last, cap = item.cut
                lines.append(f"{indent}   **past the cap** ({cap}): "
                             + ("the whole file is skipped" if item.skipped else f"lines {first}–{last} are never loaded"))
        if not answer.files:
            lines.append("Nothing.")
        if answer.not_loaded:
            lines += ["", "Not loaded:", ""]
            lines += [f"- `{item.path}` — {item.why}" for item in answer.not_loaded]
        if agent.undocumented:
            lines += ["", "Not documented: " + "; ".join(agent.undocumented) + "."]
        lines.append("")
    return "\n".join(lines)


_LOADED = ("always",)
_SOMETIMES = ("folder", "subtree", "glob", "chain", "maybe", "manual", "unknown")


def lens_title(roles: dict[str, Role | None]) -> str | None:
    """One line on what an instruction file is to the agents that read it: "Loaded by Claude Code, Codex ·
    for some files: Cursor · never: Windsurf". ``None`` when no agent reads it."""
    always = [AGENTS[a].name for a, r in roles.items() if r is not None and r.how in _LOADED]
    some = [AGENTS[a].name for a, r in roles.items() if r is not None and r.how in _SOMETIMES]
    never = [AGENTS[a].name for a, r in roles.items() if r is not None and r.how == "never"]
    parts: list[str] = []
    if always:
        parts.append("Loaded by " + ", ".join(always))
    if some:
        parts.append(("sometimes: " if always else "Loaded sometimes by ") + ", ".join(some))
    if never:
        parts.append("never by " + ", ".join(never))
    return " · ".join(parts) if parts else None


def roles_text(path: str, roles: dict[str, Role | None]) -> str:
    """Each agent's role for one file, in full (what the lens summarises)."""
    lines = [f"{path}:"]
    for agent_id, role in roles.items():
        name = AGENTS[agent_id].name
        if role is None:
            lines.append(f"- {name}: not a file it reads")
        else:
            scope = f" ({', '.join(role.globs)})" if role.globs else ""
            lines.append(f"- {name}: {HOW[role.how]}{scope} — {role.why}")
    return "\n".join(lines)
