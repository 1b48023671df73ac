"""Which instruction files each agent reads, and when: every file's *role* for an agent (always, for the
files of a folder, for files matching globs, when the model decides, only when mentioned, never), and from
the roles, what an agent loads for one file of the repository, in its order, with its imports and caps.
The rules and their sources are in :mod:`.table`."""

from __future__ import annotations

import bisect
import os
import subprocess
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from ...infra.gitcmd import git_command, git_env
from ...infra.tokens import count_tokens
from ...refs.globs import any_match
from ...workspace import Workspace
from .sources import Source, read_source
from .table import AGENTS, Agent, Cap

#: How a file is loaded: every time; for the files of a folder (``subtree``: Claude Code's, at launch above
#: where it starts and on demand below); for files matching globs; on the model's
#: judgement (a description); only when someone mentions it; never; or in a way nobody documents.
HOWS = ("always", "folder", "subtree", "glob", "chain", "maybe", "manual", "never", "unknown")


@dataclass(frozen=True)
class Role:
    """What one file is to one agent."""

    path: str
    how: str
    why: str
    #: The folder it speaks for: ``folder`` and ``subtree`` roles load for files under it; a ``glob`` role of
    #: a nested rule folder only for files under it ("" = the whole repository).
    folder: str = ""
    globs: tuple[str, ...] = ()  # glob: the patterns
    base: str = ""  # glob: the folder the patterns are relative to ("" = the root)
    order: tuple[Any, ...] = ()
    #: 1-based line of the field that scopes it (paths:, globs:...), for findings.
    field_line: int | None = None
    #: A ``folder`` role also loaded at start when the agent is started in or under the folder (Gemini CLI).
    at_start: bool = False
    #: A ``glob`` role whose description may still bring it in when no pattern matches (Copilot).
    described: bool = False

    def applies(self, target: str, cwd: str) -> tuple[bool | None, str]:
        """Whether the agent loads this file when working on ``target`` (started in ``cwd``): ``True``,
        ``False``, or ``None`` (the model decides), with why."""
        if self.how == "always":
            return True, self.why
        if self.how == "folder":
            if self.at_start and _under(cwd, self.folder):
                return True, f"{self.why}; loaded at start here, as it is started in {cwd}/"
            return _under(target, self.folder), self.why
        if self.how == "subtree":  # Claude Code: at launch above where it starts, on demand below
            if _under(cwd, self.folder):
                return True, f"loaded at launch: Claude Code is started in {cwd + '/' if cwd else 'the root'}, in or under {self.folder}/"
            if _under(self.folder, cwd) and _under(target, self.folder):
                return True, self.why
            if _under(target, self.folder):
                return False, (f"Claude Code loads a folder's file on demand below the folder it is started in "
                               f"({cwd}/); whether it loads {self.folder}/'s is not documented")
            return False, self.why
        if self.how == "chain":  # Codex: the folders from the root down to where it is started
            if _under(cwd, self.folder):
                return True, self.why
            if _under(target, self.folder):
                return False, (f"Codex reads AGENTS.md files from the root down to the folder it is started in "
                               f"({cwd + '/' if cwd else 'the root'}); started in {self.folder}/ it loads this one")
            return False, f"for work in {self.folder}/ (Codex started there)"
        if self.how == "glob":
            if self.folder and not _under(target, self.folder):
                return False, f"{self.why}: only for files under {self.folder}/"
            relative = _relative(target, self.base)
            hit = any_match(relative, list(self.globs)) if relative is not None else None
            if hit:
                return True, f"{self.why}: {hit} matches"
            if self.described:
                return None, f"{self.why}: no pattern matches ({', '.join(self.globs)}), but the model may apply it from its description"
            return False, f"{self.why}: no pattern matches ({', '.join(self.globs)})"
        if self.how == "maybe":
            return None, self.why
        return False, self.why


def _under(path: str, folder: str) -> bool:
    folder = folder.strip("/")
    return not folder or path == folder or path.startswith(folder + "/")


def _relative(path: str, base: str) -> str | None:
    if not base:
        return path
    return path[len(base) + 1:] if path.startswith(base + "/") else None


def _depth(folder: str) -> int:
    return 0 if not folder else folder.count("/") + 1


def _folder(path: str) -> str:
    return path.rpartition("/")[0]


class Repo:
    """The repository's files as agents find them (git-visible files, plus the files agents read that are
    usually git-ignored, such as CLAUDE.local.md), read once."""

    def __init__(self, ws: Workspace):
        self.ws = ws
        listing = ws.rel_files()
        self._set = set(listing)
        ignored = _tracked_but_ignored_once(ws, listing, self._set)
        self._set.update(ignored)  # (agents read what git tracks, even where .gitignore says otherwise)
        self.files = sorted(self._set)  # (sorted: the files under a folder are one run, see under())
        self._sources: dict[tuple[str, str], Source | None] = {}
        self._present: dict[str, frozenset[str]] = {}
        self._named: dict[str, list[str]] = {}
        #: What :func:`all_roles` found, once per listing (each check asks for it two or three times).
        self.roles: dict[str, list[Role]] | None = None
        folders = {""}
        for path in self.files:
            folder = _folder(path)
            while folder not in folders:
                folders.add(folder)
                folder = _folder(folder)
        self._folders = folders
        self.folders = sorted(folders, key=lambda f: (_depth(f), f))

    def exists(self, path: str) -> bool:
        """Whether ``path`` is listed, or is a file git ignores (``CLAUDE.local.md``): in a folder of the
        listing, from its entries, read once (:meth:`named` asks in every folder of the tree); elsewhere
        (an ignored folder, an import's path) asked for that file alone."""
        if path in self._set:
            return True
        folder, _, name = path.rpartition("/")
        if folder not in self._folders:  # a folder the walk did not enter (ignored, or behind a link)
            return os.path.isfile(os.path.join(self.ws.root, path))
        present: frozenset[str] | None = self._present.get(folder)
        if present is None:
            try:
                with os.scandir(os.path.join(self.ws.root, folder)) as listing:
                    present = frozenset(e.name for e in listing if e.is_file())
            except OSError:
                present = frozenset[str]()
            self._present[folder] = present
        return name in present

    def named(self, name: str) -> list[str]:
        """Files called ``name`` in any folder (git-ignored ones too), the root's first."""
        found = self._named.get(name)
        if found is None:
            found = self._named[name] = [p for f in self.folders for p in [f"{f}/{name}" if f else name]
                                         if self.exists(p)]
        return list(found)

    def under(self, prefix: str, suffixes: tuple[str, ...]) -> list[str]:
        """The files whose path starts with ``prefix`` and ends with one of ``suffixes``, in order: the run
        of sorted paths that start with it (asked for every folder of a large tree)."""
        out: list[str] = []
        files = self.files
        for k in range(bisect.bisect_left(files, prefix), len(files)):  # (an islice would step from the first)
            path = files[k]
            if not path.startswith(prefix):
                break
            if path.endswith(suffixes):
                out.append(path)
        return out

    def source(self, path: str, imports: str = "") -> Source | None:
        key = (path, imports)
        if key not in self._sources:
            try:
                self.ws.check_inside(path)
                full = os.path.join(self.ws.root, path)
                with open(full, encoding="utf-8", errors="replace") as handle:
                    text = handle.read(self.ws.config.max_file_bytes + 1)
            except (OSError, ValueError):
                self._sources[key] = None
            else:
                self._sources[key] = read_source(path, text, imports)
        return self._sources[key]


_AGENT_DIRS = (".claude/", ".cursor/", ".github/", ".windsurf/", ".kiro/", ".clinerules", ".continue/", ".augment/")
_AGENT_NAMES = frozenset({"CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", "AGENTS.override.md", "GEMINI.md", "rules.md",
                          ".cursorrules", ".windsurfrules", ".continuerules"})


_TRACKED_IGNORED: dict[int, tuple[Any, list[str]]] = {}


def _tracked_but_ignored_once(ws: Workspace, files: list[str], listed: set[str]) -> list[str]:
    """:func:`_tracked_but_ignored`, asked once per listing of the tree (a save in the editor reuses it)."""
    known = _TRACKED_IGNORED.get(id(ws))
    if known is not None and known[0] is files:
        return known[1]
    found = _tracked_but_ignored(ws, listed)
    _TRACKED_IGNORED.clear()  # (one workspace at a time is enough: the listing changes only with the tree)
    _TRACKED_IGNORED[id(ws)] = (files, found)
    return found


def _tracked_but_ignored(ws: Workspace, listed: set[str]) -> list[str]:
    """Agent files git tracks in folders ``.gitignore`` ignores (``git add -f .kiro/steering/x.md`` under an
    ignored ``.kiro/*``): the walk of the tree leaves them out, and every agent reads them."""
    if not (ws.root / ".git").exists():
        return []
    try:
        proc = subprocess.run(git_command(ws.root, "ls-files", "-z", "--cached", "--ignored", "--exclude-standard"),
                              env=git_env(), capture_output=True, timeout=20, check=False)
    except (OSError, subprocess.SubprocessError):
        return []
    if proc.returncode != 0:
        return []
    out: list[str] = []
    for raw in proc.stdout.split(b"\0"):
        path = raw.decode("utf-8", "replace")
        name = path.rsplit("/", 1)[-1]
        if not path or path in listed:
            continue
        if name in _AGENT_NAMES or any("/" + d in "/" + path for d in _AGENT_DIRS):
            out.append(path)
    return out


# -- the roles, agent by agent -------------------------------------------------------------------------

_CLAUDE_FILES = ("CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md")


def _scoped(repo: Repo, path: str, fields: tuple[str, ...], why: str, *, folder: str = "", order: tuple[Any, ...],
            default: str = "always", empty: str = "never", broken: str = "unknown", described: bool = False) -> Role:
    """A rule scoped by globs in its front matter (``paths:``, ``applyTo:``, ``globs:``...), read relative to
    ``folder`` (a nested rule folder's, whose rules are for its files only). ``default``: what a rule
    without the field is (``always``, ``manual``, or ``subtree``/``folder`` for a nested one). ``broken``:
    what the agent does with front matter that is not YAML (Claude Code and Cline load the rule everywhere).
    ``described``: a description may still bring the rule in (Copilot)."""
    source = repo.source(path)
    if source is not None and source.front_problem is not None:
        if broken == "always":
            return Role(path, default if default in ("subtree", "folder") else "always",
                        f"{why}: its front matter is not valid YAML, so it is ignored and the rule loads for every file"
                        + (f" under {folder}/" if folder else ""), folder=folder, order=order)
        return Role(path, "unknown", f"{why}: its front matter is not valid YAML; what happens then is not documented",
                    order=order)
    globs = source.globs(*fields) if source else None
    line = _field_line(source, fields) if source else None
    if globs is None:
        said = {"always": "loaded always", "manual": "loaded only when attached or mentioned",
                "subtree": f"loaded when working under {folder}/", "folder": f"loaded for files under {folder}/"}[default]
        return Role(path, default, f"{why} (no {fields[0]}: {said})", folder=folder, order=order)
    if not globs:
        return Role(path, empty, f"{why}: {fields[0]} is empty, so it never loads", order=order, field_line=line)
    if any(g.strip() in ("**", "**/*") for g in globs) and not folder:
        return Role(path, "always", f"{why} ({fields[0]}: {', '.join(globs)})", order=order, field_line=line)
    has_description = described and bool(source and source.field("description"))
    return Role(path, "glob", f"{why} ({fields[0]})", folder=folder, globs=tuple(globs), base=folder, order=order,
                field_line=line, described=has_description)


def _field_line(source: Source, fields: tuple[str, ...]) -> int | None:
    lines = source.text.splitlines()
    for number in range(2, max(2, source.body_line - 1)):
        text = lines[number - 1] if number - 1 < len(lines) else ""
        if any(text.startswith(f + ":") or text.startswith(f + " :") for f in fields):
            return number
    return None


def claude_roles(repo: Repo) -> list[Role]:
    roles: list[Role] = []
    has_claude = any(repo.exists(name) for name in _CLAUDE_FILES)
    for rank, name in enumerate(("CLAUDE.md", ".claude/CLAUDE.md")):
        if repo.exists(name):
            roles.append(Role(name, "always", "the repository's CLAUDE.md, loaded at start", order=(0, rank)))
    for path in repo.under(".claude/rules/", (".md",)):
        roles.append(_scoped(repo, path, ("paths",), "a rule of .claude/rules", order=(0, 2, path), broken="always"))
    if repo.exists("CLAUDE.local.md"):
        roles.append(Role("CLAUDE.local.md", "always", "your local CLAUDE.md, loaded at start after CLAUDE.md", order=(0, 3)))
    for folder in repo.folders[1:]:
        for rank, name in enumerate(("CLAUDE.md", "CLAUDE.local.md")):
            path = f"{folder}/{name}"
            if repo.exists(path):
                roles.append(Role(path, "subtree", f"loaded when Claude reads or edits a file under {folder}/",
                                  folder=folder, order=(_depth(folder), rank, folder)))
        for path in repo.under(f"{folder}/.claude/rules/", (".md",)):
            if path.count("/.claude/rules/") == 1:
                roles.append(_scoped(repo, path, ("paths",), f"a rule of {folder}/.claude/rules", folder=folder,
                                     order=(_depth(folder), 2, path), default="subtree", broken="always"))
    for path in repo.named("AGENTS.md"):
        folder = _folder(path)
        own_claude = any(repo.exists(f"{folder}/{n}" if folder else n) for n in _CLAUDE_FILES)
        if has_claude or own_claude:
            roles.append(Role(path, "never", "Claude Code reads AGENTS.md only where no CLAUDE.md, .claude/CLAUDE.md or "
                              "CLAUDE.local.md exists (here one does)", order=(99, path)))
        elif not folder:
            roles.append(Role(path, "always", "AGENTS.md, read at start because no CLAUDE.md exists", order=(0, 0)))
        else:
            roles.append(Role(path, "subtree", f"AGENTS.md, read when Claude reads a file under {folder}/ (no CLAUDE.md "
                              "there)", folder=folder, order=(_depth(folder), 0, folder)))
    return roles


def codex_roles(repo: Repo) -> list[Role]:
    roles: list[Role] = []
    for folder in repo.folders:
        names = [f"{folder}/{n}" if folder else n for n in ("AGENTS.override.md", "AGENTS.md")]
        present = [p for p in names if repo.exists(p)]
        if not present:
            continue
        first = present[0]
        where = f"{folder}/" if folder else "the root"
        roles.append(Role(first, "chain", f"{PurePosixPath(first).name} of {where}, on the way from the root to where Codex "
                          "is started", folder=folder, order=(_depth(folder), folder)))
        for other in present[1:]:
            roles.append(Role(other, "never", f"Codex reads {PurePosixPath(first).name} in this folder instead "
                              "(one file a folder, AGENTS.override.md first)", order=(99, other)))
    return roles


def copilot_roles(repo: Repo) -> list[Role]:
    roles: list[Role] = []
    if repo.exists(".github/copilot-instructions.md"):
        roles.append(Role(".github/copilot-instructions.md", "always", "the repository's copilot-instructions.md",
                          order=(0, 0)))
    for path in repo.under(".github/instructions/", (".instructions.md",)):
        roles.append(_scoped(repo, path, ("applyTo",), "an .instructions.md file", order=(1, path), default="manual",
                             described=True))
    for path in repo.under(".claude/rules/", (".md",)):
        roles.append(_scoped(repo, path, ("paths",), "a Claude rule, which Copilot reads as instructions", order=(1, path)))
    for path in repo.named("AGENTS.md"):
        if "/" not in path:
            roles.append(Role(path, "always", "AGENTS.md at the root (setting chat.useAgentsMdFile)", order=(2, path)))
        else:
            roles.append(Role(path, "maybe", "a nested AGENTS.md: with the experimental chat.useNestedAgentsMdFiles, "
                              "its path is offered and the model decides", order=(3, path)))
    for name in _CLAUDE_FILES:
        if repo.exists(name):
            roles.append(Role(name, "always", f"{name} (setting chat.useClaudeMdFile)", order=(2, name)))
    return roles


def _cursor_rule(repo: Repo, path: str, folder: str) -> Role:
    source = repo.source(path)
    front = source.front if source else {}
    where = f"a rule of {folder}/.cursor/rules" if folder else "a rule of .cursor/rules"
    order = (_depth(folder), path)
    if front.get("alwaysApply") is True:
        return Role(path, "always" if not folder else "folder", f"{where} (alwaysApply: true)"
                    + (f", for files under {folder}/" if folder else ""), folder=folder, order=order)
    globs = source.globs("globs") if source else None
    if globs:
        line = _field_line(source, ("globs",)) if source else None
        return Role(path, "glob", f"{where} (globs)", folder=folder, globs=tuple(globs), base=folder, order=order,
                    field_line=line)
    if front.get("description"):
        return Role(path, "maybe", f"{where}: the model decides from its description", order=order)
    return Role(path, "manual", f"{where} with no alwaysApply, globs or description: only when you @-mention it",
                order=order)


def cursor_roles(repo: Repo) -> list[Role]:
    roles: list[Role] = []
    for path in repo.files:
        if "/.cursor/rules/" not in "/" + path:
            continue
        folder = path.split(".cursor/rules/", 1)[0].rstrip("/")
        if path.endswith(".mdc"):
            roles.append(_cursor_rule(repo, path, folder))
        elif path.endswith(".md"):
            roles.append(Role(path, "never", "Cursor reads only .mdc files in .cursor/rules; a plain .md file there is "
                              "ignored", order=(99, path)))
    if repo.exists(".cursorrules"):
        roles.append(Role(".cursorrules", "always", ".cursorrules (the legacy single file, still read)", order=(0, "~")))
    for path in repo.named("AGENTS.md"):
        roles.append(Role(path, "always", "AGENTS.md at the root", order=(0, "~~")) if "/" not in path else
                     Role(path, "unknown", "a nested AGENTS.md: whether Cursor reads it is not documented", order=(99, path)))
    return sorted(roles, key=lambda r: r.order)


def gemini_roles(repo: Repo) -> list[Role]:
    roles: list[Role] = []
    for path in repo.named("GEMINI.md"):
        folder = _folder(path)
        if not folder:
            roles.append(Role(path, "always", "GEMINI.md at the root, loaded at start", order=(0,)))
        else:
            roles.append(Role(path, "folder", f"loaded when a tool first touches a file under {folder}/", folder=folder,
                              order=(_depth(folder), folder), at_start=True))
    return roles


_WINDSURF_TRIGGERS = {"always_on": "always", "glob": "glob", "model_decision": "maybe", "manual": "manual"}


def windsurf_roles(repo: Repo) -> list[Role]:
    roles: list[Role] = []
    for path in repo.files:
        if "/.windsurf/rules/" not in "/" + path or not path.endswith(".md"):
            continue
        source = repo.source(path)
        trigger = str(source.field("trigger") or "") if source else ""
        how = _WINDSURF_TRIGGERS.get(trigger)
        folder = path.split(".windsurf/rules/", 1)[0].rstrip("/")
        where = f"a Windsurf rule of {folder}/" if folder else "a Windsurf rule"
        order = (path.count("/"), path)
        if how is None:
            roles.append(Role(path, "unknown", f"{where} with trigger {trigger or '(none)'}: what Windsurf does "
                              "with it is not documented", order=order))
        elif how == "glob":
            globs = source.globs("globs") if source else None
            line = _field_line(source, ("globs",)) if source else None
            roles.append(Role(path, "glob", f"{where} (trigger: glob)", folder=folder, globs=tuple(globs or ()), base=folder,
                              order=order, field_line=line) if globs else
                         Role(path, "never", f"{where} with trigger: glob and no globs", order=order))
        elif how == "always" and folder:
            roles.append(Role(path, "folder", f"{where} (trigger: always_on), for files under {folder}/", folder=folder,
                              order=order))
        else:
            roles.append(Role(path, how, f"{where} (trigger: {trigger})", order=order))
    for path in repo.named("AGENTS.md"):
        folder = _folder(path)
        roles.append(Role(path, "always", "AGENTS.md at the root: an always-on rule", order=(0, "~")) if not folder else
                     Role(path, "folder", f"AGENTS.md in {folder}/: a glob rule for {folder}/**", folder=folder,
                          order=(_depth(folder), path)))
    if repo.exists(".windsurfrules"):
        roles.append(Role(".windsurfrules", "always", ".windsurfrules (the legacy single file)", order=(0, "~~")))
    return sorted(roles, key=lambda r: r.order)


_KIRO = {"always": "always", "filematch": "glob", "manual": "manual", "auto": "maybe"}


def kiro_roles(repo: Repo) -> list[Role]:
    roles: list[Role] = []
    for path in repo.files:
        if "/.kiro/steering/" in "/" + path and not path.startswith(".kiro/steering/") and path.endswith(".md"):
            roles.append(Role(path, "unknown", "a steering file of a nested .kiro folder: whether Kiro reads it is not "
                              "documented", order=(9, path)))
    for path in repo.under(".kiro/steering/", (".md",)):
        source = repo.source(path)
        inclusion = str(source.field("inclusion") or "always") if source else "always"
        how = _KIRO.get(inclusion.lower(), "unknown")
        if how == "glob":
            globs = source.globs("fileMatchPattern") if source else None
            line = _field_line(source, ("fileMatchPattern",)) if source else None
            roles.append(Role(path, "glob", "a steering file (inclusion: fileMatch)", globs=tuple(globs or ()),
                              order=(0, path), field_line=line) if globs else
                         Role(path, "never", "a steering file with inclusion: fileMatch and no fileMatchPattern", order=(0, path)))
        else:
            roles.append(Role(path, how, f"a steering file (inclusion: {inclusion})", order=(0, path)))
    if repo.exists("AGENTS.md"):
        roles.append(Role("AGENTS.md", "always", "AGENTS.md at the root", order=(1,)))
    return roles


_CLINE_SKIPPED = (".clinerules/workflows/", ".clinerules/hooks/", ".clinerules/skills/")


def cline_roles(repo: Repo) -> list[Role]:
    roles: list[Role] = []
    for path in repo.under(".clinerules/", (".md", ".txt")):
        if path.startswith(_CLINE_SKIPPED):
            continue
        roles.append(_scoped(repo, path, ("paths",), "a rule of .clinerules", order=(0, path), broken="always"))
    if repo.exists(".clinerules") and os.path.isfile(os.path.join(repo.ws.root, ".clinerules")):
        roles.append(Role(".clinerules", "always", ".clinerules (a single file)", order=(0, "")))
    for name in ("AGENTS.md", ".cursorrules", ".windsurfrules"):
        if repo.exists(name):
            roles.append(Role(name, "always", f"{name}: Cline detects it, on unless you turn it off in its rules panel",
                              order=(1, name)))
    for path in repo.under(".cursor/rules/", (".mdc",)):
        roles.append(Role(path, "always", "a Cursor rule: Cline detects it, on unless you turn it off in its rules panel",
                          order=(1, path)))
    return roles


def continue_roles(repo: Repo) -> list[Role]:
    roles: list[Role] = []
    for path in repo.under(".continue/rules/", (".md",)):
        source = repo.source(path)
        front = source.front if source else {}
        order = (0, path)
        globs = source.globs("globs") if source else None
        line = _field_line(source, ("globs",)) if source else None
        if front.get("regex"):
            roles.append(Role(path, "maybe", "a Continue rule with regex: when a file in context matches it", order=order))
        elif front.get("alwaysApply") is True:
            roles.append(Role(path, "always", "a Continue rule (alwaysApply: true)", order=order))
        elif globs:
            roles.append(Role(path, "glob", "a Continue rule (globs)", globs=tuple(globs), order=order, field_line=line))
        elif front.get("alwaysApply") is False:
            roles.append(Role(path, "maybe" if front.get("description") else "manual",
                              "a Continue rule (alwaysApply: false): " + ("the model may pull it by its description"
                                                                         if front.get("description") else "only when invoked"),
                              order=order))
        else:
            roles.append(Role(path, "always", "a Continue rule with no globs", order=order))
    for path in repo.named("rules.md"):
        folder = _folder(path)
        if not folder or path.startswith(".continue/"):
            continue
        source = repo.source(path)
        globs = source.globs("globs") if source else None
        roles.append(Role(path, "glob", f"a rules.md next to the code: for files under {folder}/",
                          globs=tuple(f"**/{g}" for g in globs) if globs else ("**/*",), base=folder, order=(1, path)))
    if repo.exists("AGENTS.md"):
        roles.append(Role("AGENTS.md", "always", "AGENTS.md at the root (always applied)", order=(2,)))
    if repo.exists(".continuerules"):
        roles.append(Role(".continuerules", "always", ".continuerules (the legacy single file)", order=(2, "~")))
    return roles


ROLES: dict[str, Callable[[Repo], list[Role]]] = {
    "claude": claude_roles, "codex": codex_roles, "copilot": copilot_roles, "cursor": cursor_roles,
    "gemini": gemini_roles, "windsurf": windsurf_roles, "kiro": kiro_roles, "cline": cline_roles,
    "continue": continue_roles,
}


# -- what an agent loads for one file ------------------------------------------------------------------


@dataclass
class Loaded:
    """One file an agent loads (or could, or does not), in its order."""

    path: str
    how: str  # always | folder | glob | chain | import | maybe | manual | never | unknown
    why: str
    loaded: bool | None  # None: the model decides
    tokens: int = 0
    bytes: int = 0
    #: Lines past the agent's cap: (first, last, what the cap is), 1-based.
    cut: tuple[int, int, str] | None = None
    skipped: bool = False  # the whole file is past a cap
    via: str | None = None  # an import: "CLAUDE.md:3"


@dataclass
class AgentLoads:
    agent: Agent
    files: list[Loaded] = field(default_factory=list)  # loaded (and maybe), in order
    not_loaded: list[Loaded] = field(default_factory=list)
    problems: list[tuple[str, int, str, str]] = field(default_factory=list)  # (path, line, kind, message)

    @property
    def tokens(self) -> int:
        return sum(f.tokens for f in self.files if f.loaded and not f.skipped)


def loads(ws: Workspace, target: str, agents: Iterable[str] | None = None, cwd: str = "",
          repo: Repo | None = None) -> list[AgentLoads]:
    """What each agent loads when working on ``target`` (a workspace-relative path), started in ``cwd``."""
    repo = repo or Repo(ws)
    answers: list[AgentLoads] = []
    for agent_id in agents or list(AGENTS):
        agent = AGENTS[agent_id]
        answer = AgentLoads(agent)
        roles = sorted(ROLES[agent_id](repo), key=lambda r: r.order)
        for role in roles:
            loaded, why = role.applies(target, cwd)
            item = Loaded(role.path, role.how, why, loaded)
            if loaded is False:
                answer.not_loaded.append(item)
                continue
            answer.files.append(item)
            if agent.imports:
                answer.files.extend(imported(repo, agent, role.path, answer, [role.path], 1))
        loaded = {f.path for f in answer.files if f.loaded}
        answer.not_loaded = [f for f in answer.not_loaded if f.path not in loaded]  # (a file imported all the same)
        _same_files(repo, answer)
        _measure(repo, answer)
        answers.append(answer)
    return answers


def imported(repo: Repo, agent: Agent, path: str, answer: AgentLoads, chain: list[str], depth: int) -> list[Loaded]:
    """The files ``path`` imports, depth first, each after its importer."""
    source = repo.source(path, agent.imports)
    if source is None:
        return []
    out: list[Loaded] = []
    for imp in source.imports:
        where = f"{path}:{imp.line}"
        if imp.target.startswith(("~/", "/")):
            answer.not_loaded.append(Loaded(imp.target, "import", f"imported at {where}, outside the repository: "
                                            "not read here", False, via=where))
            continue
        folder = _folder(path) if agent.imports == "at" else ""
        joined = os.path.normpath(os.path.join(folder, imp.target)).replace(os.sep, "/")
        if joined.startswith("../") or joined == "..":
            answer.not_loaded.append(Loaded(imp.target, "import", f"imported at {where}, outside the repository",
                                            False, via=where))
            continue
        if joined in chain:
            answer.problems.append((path, imp.line, "import-cycle",
                                    f"{agent.name} imports {imp.target} here, which imports this file again "
                                    f"({' -> '.join([*chain, joined])}): the loop is cut"))
            continue
        if not repo.exists(joined):
            answer.problems.append((path, imp.line, "broken-import",
                                    f"{agent.name} imports {imp.target} here, and it does not exist: nothing is imported"))
            answer.not_loaded.append(Loaded(joined, "import", f"imported at {where}, and it does not exist", False, via=where))
            continue
        if depth > agent.import_depth:
            answer.not_loaded.append(Loaded(joined, "import", f"imported at {where}, past {agent.name}'s "
                                            f"{agent.import_depth} levels of imports", False, via=where))
            continue
        out.append(Loaded(joined, "import", f"imported at {where}", True, via=where))
        out.extend(imported(repo, agent, joined, answer, [*chain, joined], depth + 1))
    return out


def _same_files(repo: Repo, answer: AgentLoads) -> None:
    """A file loaded under two names (CLAUDE.md a symlink to AGENTS.md): Gemini CLI reads it once (it
    documents so); for the others the second name is said to be the same file."""
    seen: dict[str, str] = {}
    kept: list[Loaded] = []
    for item in answer.files:
        real = os.path.realpath(os.path.join(repo.ws.root, item.path))
        first = seen.setdefault(real, item.path)
        if first == item.path:
            kept.append(item)
        elif answer.agent.id == "gemini":
            answer.not_loaded.append(Loaded(item.path, item.how, f"the same file as {first} (a link): read once", False))
        else:
            item.why += f" (the same file as {first}, a link: whether it is read twice is not documented)"
            kept.append(item)
    answer.files = kept


def _measure(repo: Repo, answer: AgentLoads) -> None:
    """Each file's size, and what falls past the agent's caps (in load order: a total cap is spent by
    the files before)."""
    spent = 0
    for item in answer.files:
        source = repo.source(item.path)
        if source is None:
            continue
        item.bytes, item.tokens = source.bytes, source.tokens
        if not item.loaded:
            continue
        for cap in answer.agent.caps:
            if not cap.covers(item.path):
                continue
            size = len(source.text) if cap.unit == "chars" else item.bytes
            room = cap.limit - (spent if cap.per == "total" else 0)
            if size <= room:
                continue
            last = len(source.text.splitlines())
            if "skipped" in cap.past:
                item.skipped, item.tokens = True, 0
                item.cut = (1, last, cap.describe())
            else:
                head = _head(source.text, max(room, 0), cap.unit)
                item.cut = (head.count("\n") + 1, last, cap.describe())
                item.tokens = count_tokens(head)  # what the agent reads of it
        if any(cap.per == "total" for cap in answer.agent.caps):
            spent += item.bytes


def _head(text: str, limit: int, unit: str) -> str:
    """The first ``limit`` bytes or characters of ``text``."""
    return text.encode("utf-8")[:limit].decode("utf-8", "ignore") if unit == "bytes" else text[:limit]


def line_at(text: str, limit: int, unit: str) -> int:
    """The 1-based line holding the first character past ``limit`` (bytes or characters)."""
    return _head(text, limit, unit).count("\n") + 1


def roles_of(ws: Workspace, path: str, repo: Repo | None = None) -> dict[str, Role | None]:
    """What one instruction file is to each agent (``None``: not a file that agent reads)."""
    repo = repo or Repo(ws)
    return {agent_id: next((r for r in ROLES[agent_id](repo) if r.path == path), None) for agent_id in AGENTS}


def all_roles(repo: Repo) -> dict[str, list[Role]]:
    """Each agent's roles in the repository, found once per :class:`Repo` (read, never changed)."""
    if repo.roles is None:
        repo.roles = {agent_id: ROLES[agent_id](repo) for agent_id in AGENTS}
    return repo.roles


def cap_of(agent: Agent) -> Cap | None:
    return agent.caps[0] if agent.caps else None
