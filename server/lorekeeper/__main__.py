"""``python -m lorekeeper``: the ``lore`` command."""

from .surfaces.entry import run

run()
