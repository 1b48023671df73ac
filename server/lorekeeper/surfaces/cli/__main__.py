"""``python -m lorekeeper.surfaces.cli``: the command line (without the servers; ``lore`` has them)."""

from . import run

run()
