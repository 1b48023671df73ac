# pyright: standard
"""The ``lore`` command: a thin layer that parses arguments, calls the engine and renders its answers
for people (colour, one line a thing) or machines (``--json``). The commands live by area
(:mod:`.memory`, :mod:`.stale`, :mod:`.compact`); what they share is in :mod:`.common`.

Exit codes: 0 success; 1 the command ran and found problems (error findings, no such entry or
operation); 2 usage error or no workspace; 3 a write was refused (a file changed underneath, already
undone, a ref outside the workspace)."""

from . import memory, stale, compact, agents  # noqa: I001 - each module registers its commands on the app, in this order
from .common import app, main, run, workspace_of

__all__ = ["agents", "app", "compact", "main", "memory", "run", "stale", "workspace_of"]
