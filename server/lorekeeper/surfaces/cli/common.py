# pyright: standard
"""What every ``lore`` command shares: the typer app, the consoles, exit codes, and the helpers that
find the workspace, load memory, name an entry and print findings; and the entry point (:func:`run`)."""

from __future__ import annotations

import atexit
import errno
import gc as python_gc  # the name gc is the `lore gc` command below
import logging
import os
import sys
from datetime import datetime
from pathlib import Path
from typing import Any, NoReturn

import typer

from ... import __version__
from ...core.display import visible
from ...core.model import Entry, Finding, Severity
from ...facts import open_memory
from ...infra.safeio import UnsafeFile, dump_json
from ...infra.workers import allow_fork
from ...store import Journal, Refused, Store
from ...workspace import Workspace, WorkspaceNotFound

OK, PROBLEMS, USAGE, REFUSED, IO_ERROR = 0, 1, 2, 3, 4

app = typer.Typer(
    help="Lorekeeper keeps the memory of AI coding agents true and small.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


class _Console:
    """A Rich console made when first used: a command that prints JSON for machines (an agent's
    ``check-stale --json``) never imports Rich, ~12 ms of every run."""

    def __init__(self, stderr: bool = False):
        self._stderr = stderr
        self._console: Any = None

    def __getattr__(self, name: str) -> Any:
        if self._console is None:
            from rich.console import Console  # noqa: PLC0415

            self._console = Console(stderr=self._stderr, highlight=False, soft_wrap=True)
        return getattr(self._console, name)


out = _Console()
err = _Console(stderr=True)

JsonOption = typer.Option(False, "--json", help="Print JSON for machines instead of text for people.")


def _version(value: bool) -> None:
    if value:
        out.print(f"lore {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    ctx: typer.Context,
    root: Path | None = typer.Option(None, "--root", help="Workspace root (default: found from the current folder up, like git)."),
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Show the version."),
) -> None:
    ctx.obj = {"root": root}


# -- helpers ---------------------------------------------------------------------------------------


def workspace_of(ctx: typer.Context) -> Workspace:
    root = ctx.obj.get("root") if ctx.obj else None
    try:
        if root is not None:
            if not root.is_dir():
                _fail(f"--root {root}: no such folder", USAGE)
            return Workspace(root)
        return Workspace.discover()
    except WorkspaceNotFound as exc:
        _fail(str(exc), USAGE)
    raise AssertionError("unreachable")


def escape(text: str) -> str:
    """Text from memory (or from anything a memory names) made safe to print: Rich markup escaped, and
    control characters shown as escapes (:func:`.display.visible`) — never sent to the terminal."""
    from rich.markup import escape as markup_escape  # noqa: PLC0415 - see _Console

    return markup_escape(visible(str(text)))


def _fail(message: str, code: int) -> NoReturn:
    err.print(f"[bold red]error:[/] {escape(message)}")
    raise typer.Exit(code)


def _emit(data: Any) -> None:
    sys.stdout.write(dump_json(data, indent=2, ensure_ascii=False, default=str) + "\n")  # never NaN: always JSON


def _journal(ws: Workspace) -> Journal:
    return Journal(ws, argv=["lore", *sys.argv[1:]])


def _date(value: datetime | None) -> str:
    return value.astimezone().strftime("%Y-%m-%d %H:%M") if value else "unknown"


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _first_line(text: str, width: int = 88) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


_SEVERITY_STYLE = {Severity.error: "bold red", Severity.warning: "yellow", Severity.info: "cyan"}


def _change(before: int, after: int) -> str:
    """``1184 → 149 (87% fewer)``, ``0 → 120 (new)``, ``100 → 110 (10% more)``."""
    if before == after:
        return f"{before} (unchanged)"
    if before == 0:
        return f"0 → {after} (new)"
    pct = round(100 * abs(before - after) / before)
    return f"{before} → {after} ({pct}% {'fewer' if after < before else 'more'})"


def _finding_line(finding: Finding) -> str:
    """A finding the way linters print them: ``FILE:LINE: SEVERITY: MESSAGE (KIND)``."""
    style = _SEVERITY_STYLE[finding.severity]
    return (f"{escape(finding.source)}:{finding.line or 1}: [{style}]{finding.severity.value}[/]: "
            f"{escape(finding.message)} [dim]({finding.kind})[/]")


def _print_finding(finding: Finding) -> None:
    err.print(_finding_line(finding))


def _load(ws: Workspace, quiet_findings: bool = False) -> Store:
    store = open_memory(ws)
    if store.findings and not quiet_findings:
        errors = sum(f.severity == Severity.error for f in store.findings)
        err.print(f"[yellow]{len(store.findings)} problem(s) reading memory ({errors} error(s)); "
                  f"run `lore validate` for details[/]")
    return store


def _pick(store: Store, key: str) -> Entry:
    from ...app.edits import NoSuchEntry, find_entry

    try:
        return find_entry(store, key)
    except NoSuchEntry as exc:
        _fail(str(exc), PROBLEMS)
        raise


def _entry_line(entry: Entry, extra: str = "") -> str:
    state = "" if entry.live else " [dim](merged)[/]" if entry.merged_into else " [dim](superseded)[/]" if entry.superseded_by else " [dim](archived)[/]"
    return (f"[bold cyan]{escape(entry.id)}[/] [magenta]{escape(entry.category)}[/] "
            f"[dim]{escape(entry.where())}[/]{extra}{state}\n    {escape(_first_line(entry.content))}")


# -- commands --------------------------------------------------------------------------------------



def _print_llm_report(report: Any) -> None:
    """The LLM stage's line of a run: calls, tokens, what it did; then each rejection, veto and stop."""
    pairs = [a for a in report.accepted if a["op"] == "same-fact"]
    apart = [v for v in report.vetoed if v["op"] == "same-fact"]
    parts = [f"{len(report.accepted) - len(pairs)} accepted", f"{len(report.rejected)} rejected"]
    if len(report.vetoed) > len(apart):
        parts.append(f"{len(report.vetoed) - len(apart)} vetoed")
    if pairs or apart:
        parts.append(f"{_count(len(pairs), 'pair', 'pairs')} judged one fact, {len(apart)} two")
    if report.verdicts:
        counts = {v: sum(1 for x in report.verdicts if x["verdict"] == v) for v in ("holds", "stale", "unsure")}
        parts = [", ".join(f"{n} {v}" for v, n in counts.items() if n), f"{len(report.rejected)} rejected"]
    out.print(f"[dim]llm ({escape(report.model)}): {_count(report.calls, 'call', 'calls')}, {report.tokens} tokens"
              f"{f', {report.cached} kept from an earlier run' if report.cached else ''}; {'; '.join(parts)}[/]")
    for rejected in report.rejected:
        out.print(f"[yellow]llm rejected:[/] {escape(', '.join(rejected['sources']))}: {escape(rejected['reason'])}")
    for vetoed in report.vetoed:
        if vetoed["op"] == "same-fact":
            continue  # (pairs a model judged two facts: nothing was planned for them)
        out.print(f"[yellow]llm vetoed:[/] merging {escape(' and '.join(vetoed['sources']))}: {escape(vetoed['reason'])}"
                  " (both stay)")
    for offer in report.offered:
        out.print(f"[cyan]llm offers:[/] merging {escape(offer['entry'])} into {escape(offer['into'])}, judged one fact "
                  f"by {escape(offer['by'].removeprefix('llm:'))} where no rule says so: not planned; the editor offers "
                  f"it as a quick fix ({escape(offer['texts'][0])} / {escape(offer['texts'][1])})")
    if report.stopped:
        out.print(f"[yellow]llm stopped:[/] {escape(report.stopped)}")


def _say_recoveries() -> None:
    """What crash recovery did before a command (lorekeeper.journal's warnings) goes to stderr as
    ``lore: ...``: a rolled-back change is never silent."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("lore: %(message)s"))
    for name in ("lorekeeper.journal", "lorekeeper.infra.userlevel"):
        logger = logging.getLogger(name)
        logger.addHandler(handler)
        logger.propagate = False


def main() -> None:
    """Entry point of the ``lore`` console script. Errors the file system or a refusal causes end with a
    message and their own exit code, never a traceback."""
    # Loading a store allocates tens of thousands of objects that live to the end; the collector's
    # default thresholds walk them again and again (~20% of a cold check-stale at 10k entries).
    python_gc.set_threshold(100_000, 50, 1000)
    allow_fork()  # a command is one thread: it may split large batches over forked workers
    _say_recoveries()
    try:
        app(standalone_mode=True)
    except Refused as exc:
        err.print(f"[bold red]refused:[/] {escape(str(exc))}")
        sys.exit(REFUSED)
    except UnsafeFile as exc:
        err.print(f"[bold red]refused:[/] {escape(str(exc))}")
        sys.exit(REFUSED)
    except OSError as exc:
        where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        reason = exc.strerror or str(exc)
        hint = {errno.ENOSPC: " (the disk is full)", errno.EACCES: " (permission denied)", errno.EROFS: " (read-only file system)",
                errno.ENOTDIR: " (a path Lorekeeper needs as a folder is a file)", errno.EEXIST: ""}.get(exc.errno or 0, "")
        err.print(f"[bold red]error:[/] {escape(where + reason + hint)}; nothing more was done")
        sys.exit(IO_ERROR)


def run() -> None:
    """The ``lore`` console script: :func:`main`, then an exit that skips tearing the interpreter down.
    What a command printed is flushed and every exit handler runs (workers joined, logs flushed,
    temporary files removed), as at a normal exit; only freeing each of the process's objects one by
    one is skipped (tens of milliseconds after a large check, for nothing). A command that fails
    unexpectedly exits the normal way, with its traceback."""
    try:
        main()
        code = 0
    except SystemExit as exc:
        if isinstance(exc.code, int) or exc.code is None:
            code = exc.code or 0
        else:  # as Python does with a message for an exit code
            print(exc.code, file=sys.stderr)
            code = 1
    atexit._run_exitfuncs()  # pyright: ignore[reportPrivateUsage] - what a normal exit runs first
    try:
        sys.stdout.flush()
    except OSError:  # a closed pipe (`lore list | head`): Python's own exit status for it
        code = code or 120
    except ValueError:  # already closed: a server's stdio transport closes it when the client leaves
        pass
    try:
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    os._exit(code)


