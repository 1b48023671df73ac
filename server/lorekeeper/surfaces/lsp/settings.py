"""The server's settings (the ``lorekeeper`` section of the client's configuration), declared once as a
pydantic model: each key is validated on its own, so one bad value is ignored (with one message that
names it) and the others still apply."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr, ValidationError

from ...core.settings.compaction import DEFAULT_BUDGET


class Settings(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    #: Changes closer together than this (milliseconds) are a burst, re-checked once it stops; a lone change
    #: (a save) is re-checked at once.
    debounceMs: StrictInt = Field(default=50, ge=0)
    #: Show "N memories reference this file" lenses in code files.
    codeLensInCode: StrictBool = False
    #: Token budget of the memory index (also the status bar's reference figure).
    budget: StrictInt = Field(default=DEFAULT_BUDGET, gt=0)
    #: Where the documentation is published; a diagnostic's link points under it. Empty: the docs
    #: shipped with the installed package.
    docsUrl: StrictStr | None = None
    #: The client answers ``lorekeeper/chat`` requests with the editor's language model (the VS Code
    #: extension sets it from ``lorekeeper.analysis.llm.useEditorModel`` in its initialization options).
    editorModel: StrictBool = False
    #: Code lenses on memories in memory files ("2 references · verified DATE").
    codeLensInMemory: StrictBool = True
    #: A severity per finding family (``staleness``, ``duplication``, ``conflict``, ``links``, ``schema``,
    #: ``size``, ``journal``, ``history``) or per kind (``near-duplicate``; a kind wins over its family):
    #: ``error``, ``warning``, ``information``, ``hint``, or ``off`` (not shown).
    severity: dict[str, Literal["error", "warning", "information", "hint", "off"]] = Field(default_factory=dict)


_EXPECTED = {"debounceMs": "int", "codeLensInCode": "bool", "budget": "int", "docsUrl": "str", "editorModel": "bool",
             "codeLensInMemory": "bool", "severity": "an object of error/warning/information/hint/off"}


def layer(current: Settings, values: dict[str, Any]) -> tuple[Settings, list[str]]:
    """``current`` with the known keys of ``values`` applied one by one; returns the new settings and a
    description of each value that was ignored (``key=value (expected type)``)."""
    problems: list[str] = []
    merged = current.model_dump()
    for key, value in values.items():
        if key not in Settings.model_fields:
            continue  # the client's own settings (server.path, ...) share the section
        if key == "docsUrl" and value == "":
            value = None
        try:
            Settings.model_validate({**merged, key: value})
        except ValidationError as exc:
            detail = exc.errors()[0]
            expected = _EXPECTED[key] if detail["type"].endswith("_type") else detail["msg"].lower()
            problems.append(f"{key}={value!r} (expected {expected})")
            continue
        merged[key] = value
    return Settings.model_validate(merged), problems
