"""Running git on a workspace that may be someone else's. Lorekeeper only reads through git, so every
program a repository's configuration could make git run is switched off for its calls: the
file-system monitor hook (``core.fsmonitor``), clean / smudge / process filters, text conversion and
external diff drivers, signature checks that run ``gpg.program``, and fetches of missing objects. A
``.git/config`` never arrives through a clone, but a copied folder, an archive or a shared disk carry one.

Every call goes through :func:`git_command`: fixed arguments, no shell, the repository's drivers blanked
(``-c filter.NAME.clean=`` and so on: an empty command is no command to git)."""

from __future__ import annotations

import os
import subprocess
from functools import lru_cache
from pathlib import Path

#: Settings that make git run a program while it reads, switched off on every call.
_ALWAYS_OFF = ("core.fsmonitor=false", "log.showSignature=false", "diff.external=")
#: The keys of driver sections (``filter.NAME.KEY``, ``diff.NAME.KEY``) that name a program.
_DRIVER_KEYS = {"filter": ("clean", "smudge", "process"), "diff": ("textconv", "command")}
#: Subcommands that take ``--no-textconv`` / ``--no-ext-diff``.
_DIFFING = {"log": ("--no-textconv", "--no-ext-diff"), "show": ("--no-textconv", "--no-ext-diff"),
            "diff": ("--no-textconv", "--no-ext-diff"), "blame": ("--no-textconv",), "grep": ("--no-textconv",)}


def git_env() -> dict[str, str]:
    """The environment of a git call: no prompts, no fetching of missing objects (a partial clone would
    otherwise reach the network per blob), no optional locks (reads never block a user's git)."""
    return {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_NO_LAZY_FETCH": "1", "GIT_OPTIONAL_LOCKS": "0"}


def git_command(root: Path | str, *args: str) -> list[str]:
    """The argv of ``git ARGS`` run on ``root`` with every program the repository configures blanked
    (see the module's docstring) and paths printed as they are."""
    options = ["-c", "core.quotePath=false"]
    for setting in (*_ALWAYS_OFF, *_blanked_drivers(str(root))):
        options += ["-c", setting]
    sub, rest = (args[0], list(args[1:])) if args else ("", [])
    return ["git", "-C", str(root), *options, sub, *_DIFFING.get(sub, ()), *rest]


@lru_cache(maxsize=64)
def _blanked_drivers(root: str) -> tuple[str, ...]:
    """``NAME=`` for each filter and diff driver command the repository's configuration (with what it
    includes) defines. Asked once per workspace per process; ``git config`` itself runs no program."""
    try:
        proc = subprocess.run(["git", "-C", root, "config", "-z", "--get-regexp", r"^(filter|diff)\."],
                              capture_output=True, timeout=10, check=False, env=git_env())
    except (OSError, subprocess.SubprocessError):
        return ()
    blanked: list[str] = []
    for item in proc.stdout.decode("utf-8", "replace").split("\0"):
        name = item.split("\n", 1)[0]
        section, _, rest = name.partition(".")
        key = rest.rpartition(".")[2]
        if key in _DRIVER_KEYS.get(section, ()) and "=" not in name:
            blanked.append(f"{name}=")
    return tuple(dict.fromkeys(blanked))
