"""What each agent loads: the instruction files every agent reads for a file of the repository, in its
order, with imports and size caps (:func:`loads`), what one instruction file is to each agent
(:func:`roles_of`), and the findings about loading (:func:`loading_findings`): a rule whose globs match
no file, lines past an agent's cap, imports that lead nowhere or in a circle, files an agent never reads,
front matter that cannot be read."""

from __future__ import annotations

import re
from collections.abc import Callable

from ...core.model import Finding, RemoveRepeatFix, Severity
from ...refs.globs import matcher
from ...workspace import Workspace
from .roles import AgentLoads, Loaded, Repo, Role, all_roles, imported, line_at, loads, roles_of
from .sources import Source
from .table import AGENTS, Agent, Cap

__all__ = ["AGENTS", "Agent", "AgentLoads", "Cap", "Loaded", "ReadersOfBoth", "Repo", "Role", "loading_findings", "loads",
           "loads_with", "roles_of", "who_reads_twice"]


def loading_findings(ws: Workspace, repo: Repo | None = None) -> list[Finding]:
    """Findings about how agents load the workspace's instruction files (one per file and problem)."""
    repo = repo or Repo(ws)
    roles = all_roles(repo)
    found: dict[tuple[str, int, str], Finding] = {}

    def add(path: str, line: int, kind: str, severity: Severity, message: str) -> None:
        key = (path, line, kind)
        if key in found:
            previous = found[key]
            if message not in previous.message:
                found[key] = previous.model_copy(update={"message": f"{previous.message}; {message}"})
            return
        found[key] = Finding(kind=kind, severity=severity, source=path, line=line, message=message)

    for path in repo.files:  # Claude Code's auto memory, where a repository keeps it
        if path.startswith(".claude/") and path.endswith("/MEMORY.md"):
            source = repo.source(path)
            if source is None:
                continue
            first = _auto_memory_cut(source.text)
            if first is not None:
                add(path, first, "past-cap", Severity.warning,
                    f"Claude Code loads the first {AUTO_MEMORY_LINES} lines or {AUTO_MEMORY_BYTES // 1024} KB of its auto "
                    f"memory MEMORY.md: if this is it, lines {first}–{len(source.text.splitlines())} are never loaded "
                    "(topic files it links are read on demand)")
    unmatched: dict[tuple[str, int, tuple[str, ...]], list[str]] = {}
    for agent_id, agent_roles in roles.items():
        agent = AGENTS[agent_id]
        for role in agent_roles:
            if role.how == "glob" and role.globs and not _matches_any(repo, role):
                unmatched.setdefault((role.path, role.field_line or 1, role.globs), []).append(agent.name)
            elif role.how == "never" and _worth_saying(role):
                add(role.path, 1, "never-loaded", Severity.info, f"{agent.name} never loads this file: {role.why}")
        _caps(repo, agent, agent_roles, add)
        if agent.imports:
            for role in agent_roles:
                if role.how in ("never", "unknown"):
                    continue
                answer = AgentLoads(agent)
                imported(repo, agent, role.path, answer, [role.path], 1)
                for path, line, kind, message in answer.problems:
                    add(path, line, kind, Severity.warning, message)
    for (path, line, globs), names in unmatched.items():
        add(path, line, "rule-never-loads", Severity.warning,
            f"no file of the repository matches {', '.join(globs)}: {_and(names)} never load{'s' if len(names) == 1 else ''} "
            "this rule")
    for role in roles["claude"]:
        source = repo.source(role.path) if "/.claude/rules/" in "/" + role.path else None
        if source is not None and "paths" not in source.front:
            unread = [f for f in ("globs", "applyTo", "fileMatchPattern") if f in source.front]
            if unread:
                add(role.path, _field_line(source, unread[0]) or 1, "unread-field", Severity.warning,
                    f"Claude Code reads only `paths` in a rule's front matter: `{unread[0]}` is ignored, so this rule "
                    "loads for every file")
    for source_path in {r.path for rs in roles.values() for r in rs}:
        source = repo.source(source_path)
        if source is None or source.front_problem is None or source_path.endswith(".mdc") or "/.windsurf/" in "/" + source_path:
            continue  # (Cursor and Windsurf write `globs: *.ts`, which is not YAML, and read it as written)
        line, problem = source.front_problem
        add(source_path, line, "invalid-front-matter", Severity.warning,
            f"the front matter is not valid YAML ({problem}): agents that read it as YAML ignore it, and a rule "
            "scoped by it may load for every file")
    return sorted(found.values(), key=lambda f: (f.source, f.line or 0, f.kind))


_TWICE = ": an agent that loads both reads it twice"
#: How a repeat finding that would remove its copy ends (:func:`..repeats.repeat_findings`).
_GOES = re.compile(r"(: an agent that loads both reads it twice|; the \d+ line\(s\) it introduces repeat too: it goes with them)$")


def who_reads_twice(ws: Workspace, findings: list[Finding], repo: Repo | None = None) -> list[Finding]:
    """Repeat findings between instruction files, saying which agents load both files (and so read the
    fact twice) instead of "an agent that loads both"; a copy that an agent reads without the kept one
    stays (its fix is dropped), and the finding says who would lose it."""
    repeats = [f for f in findings if f.kind in ("duplicate", "near-duplicate") and f.related
               and (_TWICE in f.message or isinstance(f.fix, RemoveRepeatFix))]
    if not repeats:
        return findings
    readers = ReadersOfBoth(repo or Repo(ws))
    out: list[Finding] = []
    for finding in findings:
        if finding not in repeats:
            out.append(finding)
            continue
        kept = next((str(r.get("source")) for r in finding.related or [] if r.get("message") == "the copy kept"),
                    str((finding.related or [{}])[0].get("source")))
        losing = readers.losing(finding.source, kept) if isinstance(finding.fix, RemoveRepeatFix) else ""
        if losing:
            out.append(finding.model_copy(update={"message": f"{_GOES.sub('', finding.message)}; it stays: {losing}",
                                                  "fix": None}))
            continue
        if _TWICE not in finding.message:
            out.append(finding)
            continue
        if kept == finding.source:
            said = f": every agent that loads {finding.source} reads it twice"
        else:
            always, some = readers(finding.source, kept)
            verb = "loads" if len(always) == 1 else "load"
            if always:
                said = f": {_and(always)} {verb} both files and read{'s' if len(always) == 1 else ''} it twice"
                if some:
                    said += f" ({_and(some)} for some files)"
            elif some:
                said = f": {_and(some)} may load both files (for some files) and read it twice"
            else:
                said = ": no agent loads both files, so none reads it twice"
        out.append(finding.model_copy(update={"message": finding.message.replace(_TWICE, said)}))
    return out


class ReadersOfBoth:
    """Which agents load two instruction files together (:func:`both_loaded_by`), for many pairs."""

    def __init__(self, repo: Repo):
        self.by_path = {agent_id: _roles_with_imports(repo, agent_id, agent_roles)
                        for agent_id, agent_roles in all_roles(repo).items()}

    def __call__(self, a: str, b: str) -> tuple[list[str], list[str]]:
        return both_loaded_by(self.by_path, a, b)

    def losing(self, copy: str, kept: str) -> str:
        """Who would lose a repeated fact removed from file ``copy`` (its copy kept in file ``kept``): the
        agents that load ``copy`` without ``kept``, said in words ("Claude Code reads CLAUDE.md without
        AGENTS.md"; a file an agent may or may not read: "Cursor may read …"); "" when none."""
        if copy == kept:
            return ""
        sure: list[str] = []
        maybe: list[str] = []
        for agent_id, paths in self.by_path.items():
            role = paths.get(copy)
            if not loads_with(role, paths.get(kept)):
                (maybe if role is None or role.how in _UNSURE else sure).append(AGENTS[agent_id].name)
        said = [f"{_and(sure)} read{'s' if len(sure) == 1 else ''} {copy} without {kept}"] if sure else []
        said += [f"{_and(maybe)} may read {copy} without {kept}"] if maybe else []
        return "; ".join(said)


#: How an agent may load a file without it being known that it does.
_UNSURE = ("unknown", "manual", "maybe")


def loads_with(copy: Role | None, kept: Role | None) -> bool:
    """Whether an agent that loads the file of ``copy`` loads the file of ``kept`` every time with it (or
    never loads the copy's file). A file it may load (by hand, by the model's choice, not documented) is
    counted as loaded; a file it may not is not counted on."""
    if copy is None or copy.how == "never":
        return True
    if kept is None or kept.how == "never" or kept.how in _UNSURE:
        return False
    if kept.how == "always":
        return True
    if kept.how in ("folder", "subtree", "chain") and copy.how in ("folder", "subtree", "chain", "glob"):
        return _ancestor(kept.folder, copy.folder) or kept.folder == copy.folder
    return False


def both_loaded_by(by_path: dict[str, dict[str, Role]], a: str, b: str) -> tuple[list[str], list[str]]:
    """The agents that load files ``a`` and ``b`` together for every file, and those that do for some."""
    always: list[str] = []
    some: list[str] = []
    for agent_id, paths in by_path.items():
        together = co_loaded(paths.get(a), paths.get(b))
        if together is not None:
            (always if together else some).append(AGENTS[agent_id].name)
    return always, some


def _roles_with_imports(repo: Repo, agent_id: str, roles: list[Role]) -> dict[str, Role]:
    """Each file's role for the agent, a file imported taking the role of the file that imports it."""
    agent = AGENTS[agent_id]
    by_path = {r.path: r for r in roles}
    if agent.imports:
        for role in roles:
            if role.how in ("never", "unknown", "manual"):
                continue
            answer = AgentLoads(agent)
            for item in imported(repo, agent, role.path, answer, [role.path], 1):
                by_path.setdefault(item.path, role)
    return by_path


def co_loaded(a: Role | None, b: Role | None) -> bool | None:
    """Whether an agent loads two files together: ``True`` for every file, ``False`` for some files (when
    it works in a folder both speak for, or a glob matches), ``None`` never (or not known: a file the model
    picks, one mentioned by hand, a behaviour no one documents)."""
    if a is None or b is None or {a.how, b.how} & {"never", "unknown", "manual", "maybe"}:
        return None
    if a.how == b.how == "always":
        return True
    scoped = [r for r in (a, b) if r.how in ("folder", "subtree", "chain")]
    if len(scoped) == 2:  # two folders' files: together only where one folder holds the other
        x, y = scoped[0].folder, scoped[1].folder
        if not (x == y or not x or not y or x.startswith(y + "/") or y.startswith(x + "/")):
            return None
    return False


def _field_line(source: Source, name: str) -> int | None:
    lines = source.text.splitlines()
    return next((n for n in range(2, source.body_line) if n - 1 < len(lines) and lines[n - 1].startswith(name + ":")), None)


#: Claude Code's auto memory loads at start up to this many lines or bytes, whichever comes first
#: (https://code.claude.com/docs/en/memory#how-it-works).
AUTO_MEMORY_LINES = 200
AUTO_MEMORY_BYTES = 25 * 1024


def _auto_memory_cut(text: str) -> int | None:
    """The first line of an auto memory file that Claude Code does not load (``None``: all of it loads)."""
    lines = text.splitlines(keepends=True)
    size = 0
    for number, line in enumerate(lines, 1):
        size += len(line.encode("utf-8"))
        if number > AUTO_MEMORY_LINES or size > AUTO_MEMORY_BYTES:
            return number
    return None


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _matches_any(repo: Repo, role: Role) -> bool:
    """Whether some file of the repository matches the role's globs, read from its base folder, or, more
    loosely, as a file name anywhere (a tool may read ``*.ts`` so): a rule is said to never load only
    when neither reading finds a file."""
    globs = list(role.globs)
    base = role.base + "/" if role.base else ""
    loose = matcher(tuple([*globs, *(f"**/{g}" for g in globs if "/" not in g.strip("/"))]))
    for path in repo.files:
        if base and not path.startswith(base):
            continue
        if loose.match(path[len(base):]):
            return True
    return False


def _worth_saying(role: Role) -> bool:
    """Files never loaded that are worth a note: a Cursor rule written as .md, an AGENTS.md that Codex
    skips for the override next to it. (AGENTS.md next to a CLAUDE.md is a choice, not a problem.)"""
    return role.why.startswith(("Cursor reads only .mdc", "Codex reads AGENTS.override.md"))


def _caps(repo: Repo, agent: Agent, roles: list[Role], report: Callable[[str, int, str, Severity, str], None]) -> None:
    for cap in agent.caps:
        if cap.per == "file":
            for role in roles:
                source = repo.source(role.path)
                if source is None or role.how in ("never", "unknown") or not cap.covers(role.path):
                    continue
                size = len(source.text) if cap.unit == "chars" else source.bytes
                if size > cap.limit and "skipped" not in cap.past:
                    first = line_at(source.text, cap.limit, cap.unit)
                    last = len(source.text.splitlines())
                    report(role.path, first, "past-cap", Severity.warning,
                           f"{agent.name} reads {cap.limit:,} {cap.unit} of a file: lines {first}–{last} are never loaded")
        else:  # a total over the chain of folders (Codex): from the root down to each file's folder
            chain = sorted((r for r in roles if r.how == "chain"), key=lambda r: r.order)
            for role in chain:
                spent = sum(s.bytes for r in chain if r is not role and _ancestor(r.folder, role.folder)
                            for s in [repo.source(r.path)] if s is not None)
                source = repo.source(role.path)
                if source is None or spent + source.bytes <= cap.limit:
                    continue
                room = max(cap.limit - spent, 0)
                first, last = line_at(source.text, room, "bytes"), len(source.text.splitlines())
                above = " with the AGENTS.md files above it" if spent else ""
                report(role.path, first, "past-cap", Severity.warning,
                       f"{agent.name} stops reading at {cap.limit // 1024} KiB{above}: lines {first}–{last} are never loaded")


def _ancestor(folder: str, of: str) -> bool:
    return folder == "" or of.startswith(folder + "/")
