"""Settings as frozen values: what the configuration files say (:class:`ConfigFiles`, read by
:func:`lorekeeper.workspace.read_config_files` from ``.lore/config.toml`` and the ``memory`` section of
``.lean-spec/config.json``, LeanSpec's layout, camelCase keys accepted), and one pydantic model per section
(:mod:`.compaction`, :mod:`.context`, :mod:`.llm`). :func:`settle` validates a section key by key, so one
bad value falls back to its default with one message naming it, and the rest apply. Unknown keys are
other tools' settings and are ignored. A setting changes only by copying (``with_overrides``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from ..bounded import brief

TOML = ".lore/config.toml"
LEAN = ".lean-spec/config.json"


@dataclass
class ConfigFiles:
    """What the configuration files say, parsed once (a missing file is an empty section)."""

    toml: dict[str, Any] = field(default_factory=dict)
    #: ``.lean-spec/config.json``'s ``memory`` section, when there is one.
    lean_memory: dict[str, Any] | None = None
    #: Files that could not be read or parsed, with why.
    problems: list[str] = field(default_factory=list)
    toml_broken: bool = False

    def section(self, name: str) -> Any:
        return self.toml.get(name, {})


def snake(key: str) -> str:
    """``mergeThreshold`` / ``merge-threshold`` -> ``merge_threshold``."""
    out = "".join("_" + c.lower() if c.isupper() else c for c in key)
    return out.replace("-", "_").lstrip("_")


M = TypeVar("M", bound=BaseModel)


def _type_name(model: type[BaseModel], name: str) -> str:
    annotation = model.model_fields[name].annotation
    return getattr(annotation, "__name__", None) or str(annotation).replace("typing.", "")


def settle(model: type[M], sources: list[tuple[str, Any]], problems: list[str],
           message: str = "{where}: {key} should be {type}, got {value}; using {default!r}") -> dict[str, Any]:
    """The values of ``sources`` (``(where, table)`` pairs, later ones winning) that ``model`` accepts,
    validated one key at a time against the field's type and constraints; each value refused adds a
    problem (``message`` names where, the key, the type, the value, shown cut short by
    :func:`.bounded.brief` since the file may come from anyone, and the default used instead)."""
    accepted: dict[str, Any] = {}
    defaults = model()
    for where, table in sources:
        if not isinstance(table, dict):
            continue
        items: dict[Any, Any] = table  # pyright: ignore[reportUnknownVariableType] - a parsed file: anything
        for key, value in items.items():
            name = snake(str(key))
            if name not in model.model_fields or name == "problems":
                continue
            try:
                model.model_validate({**accepted, name: value})
            except ValidationError:
                problems.append(message.format(where=where, key=key, type=_type_name(model, name), value=brief(value),
                                               default=getattr(defaults, name)))
                continue
            accepted[name] = value
    return accepted
