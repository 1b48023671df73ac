"""Code lens: on each memory, "N references · verified DATE"; in code files (setting
``codeLensInCode``), "N memories reference this file"."""

from __future__ import annotations

from lsprotocol import types

from .server import LoreServer


def register(server: LoreServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_CODE_LENS)
    def on_code_lens(ls: LoreServer, params: types.CodeLensParams) -> list[types.CodeLens]:
        # Reads the current state; never waits for a re-check.
        uri = params.text_document.uri
        entries = ls.entries_at(uri)
        lenses = []
        for entry in entries:
            count = len(ls.checker.references(entry)) if ls.checker else 0
            verified = f"verified {entry.verified:%Y-%m-%d}" if entry.verified else "not verified"
            line = entry.location.start_line - 1
            lenses.append(types.CodeLens(
                range=types.Range(start=types.Position(line=line, character=0), end=types.Position(line=line, character=0)),
                command=types.Command(title=f"{count} reference{'s' if count != 1 else ''} · {verified}",
                                      command="lore.verify", arguments=[entry.id])))
        relpath = ls.relpath(uri)
        if not entries and relpath and ls.settings.get("codeLensInCode") and ls.checker is not None:
            dependants = ls.checker.reverse_index().get(relpath, set())
            if dependants:
                lenses.append(types.CodeLens(
                    range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)),
                    command=types.Command(title=f"{len(dependants)} memor{'y references' if len(dependants) == 1 else 'ies reference'} this file",
                                          command="lore.checkStale", arguments=[])))
        return lenses
