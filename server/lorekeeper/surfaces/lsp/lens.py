# pyright: standard
"""Code lens: at the top of an instruction file, which agents load it ("Loaded by Claude Code, Codex ·
sometimes: Cursor · never by Windsurf"); on the memories worth a look — those with references, or with a problem — "N references ·
verified DATE" (or "· 1 problem"); in code files (setting ``codeLensInCode``), "N memories reference
this file". A bullet with neither gets no lens: a lens on every line doubles the height of an
instruction file for nothing. Clicking a lens shows what it says in full, and changes nothing."""

from __future__ import annotations

from lsprotocol import types

from ...analysis.agents import roles_of
from ...analysis.agents.render import lens_title
from .commands import agent_repo
from .names import Command
from .server import LoreServer


def register(server: LoreServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_CODE_LENS)
    def on_code_lens(ls: LoreServer, params: types.CodeLensParams) -> list[types.CodeLens]:
        # Reads the current state; never waits for a re-check.
        uri = params.text_document.uri
        snapshot = ls.snapshot
        relpath = ls.relpath(uri)
        if snapshot is None or relpath is None:
            return []
        entries = snapshot.entries_in(relpath) if ls.settings.codeLensInMemory else []
        lenses = []
        if entries and entries[0].format == "instruction" and ls.ws is not None:
            title = lens_title(roles_of(ls.ws, relpath, agent_repo(ls)))
            if title:  # what the agents make of this file, at its top
                lenses.append(types.CodeLens(
                    range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)),
                    command=types.Command(title=title, command=Command.LOADS_OF, arguments=[relpath])))
        problems = snapshot.problem_counts()
        for entry in entries:
            count = len(snapshot.checked.references(entry))
            found = problems.get(entry.id, 0)
            if not count and not found:
                continue
            when = snapshot.checked.verified_at(entry)
            parts = [f"{count} reference{'s' if count != 1 else ''}", f"verified {when:%Y-%m-%d}" if when else "not verified"]
            if found:
                parts.append(f"{found} problem{'s' if found != 1 else ''}")
            line = entry.location.start_line - 1
            lenses.append(types.CodeLens(
                range=types.Range(start=types.Position(line=line, character=0), end=types.Position(line=line, character=0)),
                command=types.Command(title=" · ".join(parts), command=Command.DESCRIBE, arguments=[entry.id])))
        if not snapshot.entries_in(relpath) and ls.settings.codeLensInCode:
            dependants = snapshot.checked.dependants(relpath)
            if dependants:
                lenses.append(types.CodeLens(
                    range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)),
                    command=types.Command(title=f"{len(dependants)} memor{'y references' if len(dependants) == 1 else 'ies reference'} this file",
                                          command=Command.CHECK_STALE, arguments=[])))
        return lenses
