# pyright: standard
"""The ``lore`` command: a thin layer that parses arguments, calls the engine and renders its answers
for people (colour, one line a thing) or machines (``--json``).

Exit codes: 0 success; 1 the command ran and found problems (error findings, no such entry or
operation); 2 usage error or no workspace; 3 a write was refused (a file changed underneath, already
undone, a ref outside the workspace)."""

from __future__ import annotations

import atexit
import errno
import gc as python_gc  # the name gc is the `lore gc` command below
import logging
import os
import re
import sys
from datetime import datetime
from pathlib import Path
from typing import Any, NoReturn

import typer
from pydantic import ValidationError

from .. import __version__
from ..core.display import visible
from ..core.model import DEFAULT_CATEGORY, Entry, Finding, Ref, ReplaceRefFix, ReplaceTextFix, Severity, finding_order
from ..facts import open_memory
from ..infra.safeio import UnsafeFile, dump_json, load_json
from ..infra.workers import allow_fork
from ..store import Journal, Record, Refused, Store
from ..store.journal import UnknownOperation
from ..workspace import PathOutsideRoot, Workspace, WorkspaceNotFound, init_workspace, resolve_inside

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
    from ..app.edits import NoSuchEntry, find_entry

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


@app.command()
def init(
    ctx: typer.Context,
    path: Path | None = typer.Argument(None, help="Folder to initialise (default: --root or the current folder)."),
    as_json: bool = JsonOption,
) -> None:
    """Create the store (.lore/memory/entries/, or .lean-spec/memory/ when LeanSpec is there) and a config file."""
    root = (path or (ctx.obj or {}).get("root") or Path.cwd()).resolve()
    if not root.is_dir():
        _fail(f"{root}: no such folder", USAGE)
    done = init_workspace(root)
    created, store = done.created, done.store
    for warning in done.warnings:
        err.print(f"[yellow]warning:[/] {escape(warning)}")
    if as_json:
        _emit({"root": str(root), "store": store.relative_to(root).as_posix(), "created": created})
        return
    if created:
        out.print(f"Initialised Lorekeeper in [bold]{escape(str(root))}[/]: created {', '.join(created)}")
    else:
        out.print(f"Lorekeeper is already set up in [bold]{escape(str(root))}[/]; nothing to do")


@app.command()
def add(
    ctx: typer.Context,
    fact: str = typer.Argument(..., help="The fact to remember, in one or a few sentences."),
    category: str = typer.Option(DEFAULT_CATEGORY, "--category", "-c", help="conventions, decisions, patterns, pitfalls, or any other word."),
    tag: list[str] = typer.Option([], "--tag", "-t", help="A tag; repeat for several."),
    ref: list[str] = typer.Option([], "--ref", "-r", help="Code it is about: PATH or PATH:SYMBOL; repeat for several."),
    agent: str | None = typer.Option(None, "--agent", help="Who wrote it (default: store.default_agent, $LORE_AGENT, or your user name)."),
    confidence: float | None = typer.Option(None, "--confidence", min=0.0, max=1.0, help="How sure, 0 to 1."),
    fmt: str = typer.Option("entry", "--format", help="entry (one JSON file) or mif (a *.memory.md file)."),
    as_json: bool = JsonOption,
) -> None:
    """Remember a fact. Skipped, and said so, when memory already holds the same text."""
    if fmt not in ("entry", "mif"):
        _fail(f"--format must be 'entry' or 'mif', not {fmt!r}", USAGE)
    ws = workspace_of(ctx)
    store = _load(ws, quiet_findings=as_json)
    who = agent or ws.config.default_agent or os.environ.get("LORE_AGENT") or os.environ.get("USER") or None
    try:
        result = store.add(fact, journal=_journal(ws), category=category, tags=tag,
                           refs=[Ref.parse(r) for r in ref], agent=who, confidence=confidence, fmt=fmt)
    except ValueError as exc:
        _fail(str(exc), REFUSED if "--ref" in str(exc) else USAGE)
        return
    except Refused as exc:
        _fail(str(exc), REFUSED)
        return
    if result.duplicate_of is not None:
        dup = result.duplicate_of
        if as_json:
            _emit({"status": "skipped", "reason": "duplicate", "duplicate_of": dup.id, "source": dup.location.path,
                   "line": dup.location.start_line})
        else:
            out.print(f"[yellow]skipped:[/] memory already says this in [bold]{escape(dup.where())}[/] (entry {escape(dup.id)})")
        return
    assert result.record is not None
    likely = _likely_duplicates(store, fact)
    if as_json:
        _emit({"status": "added", "id": result.entry_id, "path": result.path, "operation": result.record.id,
               "likely_duplicates": [{"id": e.id, "source": e.location.path, "line": e.location.start_line,
                                      "reason": why} for e, why in likely]})
    else:
        out.print(f"[green]added[/] {escape(str(result.entry_id))} → {escape(str(result.path))} "
                  f"[dim](operation {result.record.id}; `lore undo {result.record.id}` reverses it)[/]")
        for other, why in likely:
            err.print(f"[yellow]likely duplicate:[/] {escape(why)}: {escape(other.id)} ({escape(other.where())}); "
                      f"`lore compact{' --semantic' if 'other words' in why else ''} --dry-run` shows the merge")


def _likely_duplicates(store: Store, fact: str) -> list[tuple[Entry, str]]:
    """What memory (as it was before the add) already says that the new fact repeats: in any format; in
    other words when the semantic stage is on. A failure to check is a warning, never a failed add: the
    entry is written already."""
    from ..analysis.compaction.semantic import likely_duplicates
    from ..analysis.semantic import SemanticUnavailable

    try:
        return likely_duplicates(store, fact, store.ws.compaction)
    except SemanticUnavailable as exc:
        err.print(f"[yellow]warning:[/] duplicates in other words not checked: {escape(str(exc))}")
        return []


@app.command("list")
def list_entries(
    ctx: typer.Context,
    category: str | None = typer.Option(None, "--category", "-c", help="Only this category."),
    fmt: str | None = typer.Option(None, "--format", help="Only this format: entry, mif or instruction."),
    show_all: bool = typer.Option(False, "--all", help="Include merged, superseded and archived entries."),
    as_json: bool = JsonOption,
) -> None:
    """List memory entries, in the order of their files."""
    if fmt is not None and fmt not in ("entry", "mif", "instruction"):
        _fail(f"--format must be entry, mif or instruction, not {fmt!r}", USAGE)
    ws = workspace_of(ctx)
    store = _load(ws, quiet_findings=as_json)
    entries = [e for e in store.entries
               if (show_all or e.live) and (category is None or e.category == category) and (fmt is None or e.format == fmt)]
    if as_json:
        _emit({"entries": [e.public() for e in entries], "count": len(entries)})
        return
    for entry in entries:
        out.print(_entry_line(entry))
    out.print(f"[dim]{_count(len(entries), 'entry', 'entries')}[/]")


@app.command()
def show(
    ctx: typer.Context,
    key: str = typer.Argument(..., help="An id (or a unique start of one), or a location such as CLAUDE.md:12."),
    as_json: bool = JsonOption,
) -> None:
    """Show one entry: every field, where it comes from, what happened to it, and its references."""
    from ..app.report import merged_from

    ws = workspace_of(ctx)
    store = _load(ws, quiet_findings=True)
    entry = _pick(store, key)
    from ..analysis.context.access import record

    record(ws, [entry.id])  # read: the access signal of the context score (kept in .lore/cache, not the file)
    ids = store.by_id()
    history = _journal(ws).history_of({entry.location.path}, {entry.id})
    refs = [{**r.model_dump(mode="json", exclude_none=True), "status": _ref_status(ws, r)} for r in entry.refs]
    merged = merged_from(store, entry)
    findings = [f for f in store.findings if f.source == entry.location.path
                and (entry.format != "instruction" or f.line in range(entry.location.start_line, entry.location.end_line + 1))]
    if as_json:
        _emit({"entry": entry.public(), "refs": refs, "merged_from": merged,
               "history": [r.summary() for r in history], "findings": [f.model_dump(mode="json") for f in findings]})
        return
    loc = entry.location
    rows: list[tuple[str, str]] = [
        ("id", entry.id),
        ("where", f"{loc.path}:{loc.start_line}" + (f"-{loc.end_line}" if loc.end_line != loc.start_line else "")
         + f" ({entry.format})"),
        ("category", entry.category),
        ("created", _date(entry.created) + ("" if entry.created_from == "field" else f" (from {entry.created_from})")),
    ]
    for label, value in (("section", entry.section), ("agent", entry.agent), ("source", entry.source),
                         ("confidence", entry.confidence), ("tags", ", ".join(entry.tags) or None),
                         ("verified", entry.verified and _date(entry.verified)), ("pinned", entry.pinned or None),
                         ("stale", entry.stale_reason), ("archived", entry.archived)):
        if value is not None:
            rows.append((label, str(value)))

    def linked(label: str, targets: list[str]) -> None:
        if targets:
            rows.append((label, ", ".join(t if t in ids else f"{t} (not in memory)" for t in targets)))

    linked("merged into", [entry.merged_into] if entry.merged_into else [])
    linked("superseded by", [entry.superseded_by] if entry.superseded_by else [])
    linked("supersedes", entry.supersedes)
    linked("merged from", merged)
    width = max(len(label) for label, _ in rows)
    for label, value in rows:
        out.print(f"[bold]{label:<{width}}[/]  {escape(value)}")
    out.print()
    out.print(escape(entry.content))
    if entry.summary:
        out.print(f"\n[bold]summary[/]  {escape(entry.summary)}")
    if refs:
        out.print("\n[bold]references[/]")
        for r, status in zip(entry.refs, refs, strict=False):
            style = "green" if status["status"] == "exists" else "red"
            out.print(f"  {escape(r.label())}  [{style}]{status['status']}[/]")
    extra = entry.public().get("extra")
    if extra:
        out.print("\n[bold]other fields[/]")
        for k, v in extra.items():
            out.print(f"  {escape(k)}: {escape(dump_json(v, ensure_ascii=False, default=str))}")
    if history:
        out.print("\n[bold]history[/]")
        for record in history:
            out.print(f"  {escape(record.id)}  {escape(record.op):<8} {escape(record.reason)}")
    for finding in findings:
        _print_finding(finding)


def _ref_status(ws: Workspace, ref: Ref) -> str:
    if ref.rejected:
        return "refused: outside the workspace"
    try:
        path = resolve_inside(ws.root, ref.path)
    except PathOutsideRoot:
        return "refused: outside the workspace"
    return "exists" if path.exists() else "not found"


@app.command()
def search(
    ctx: typer.Context,
    query: str = typer.Argument(..., help="Words to look for; misspellings and word starts match too."),
    limit: int = typer.Option(10, "--limit", "-n", min=1, help="At most this many results."),
    show_all: bool = typer.Option(False, "--all", help="Include merged, superseded and archived entries."),
    as_json: bool = JsonOption,
) -> None:
    """Find entries by content and tags (BM25 with fuzzy matching), best first."""
    from ..analysis.search import SearchIndex

    ws = workspace_of(ctx)
    store = _load(ws, quiet_findings=as_json)
    index = SearchIndex(store.entries if show_all else store.live())
    hits = index.search(query, limit=limit)
    if as_json:
        _emit({"query": query, "results": [{"score": round(h.score, 4), "matched": h.matched, **h.entry.public()} for h in hits]})
        return
    if not hits:
        out.print(f"[dim]nothing in memory matches {escape(query)!r}[/]")
        return
    for hit in hits:
        out.print(_entry_line(hit.entry, f" [green]{hit.score:.2f}[/]"))


@app.command()
def log(
    ctx: typer.Context,
    limit: int = typer.Option(20, "--limit", "-n", min=1, help="Show this many operations, newest first."),
    as_json: bool = JsonOption,
) -> None:
    """Show the journal: the operations commands made to memory, newest first."""
    from ..app.report import log_rows

    ws = workspace_of(ctx)
    records, problems = _journal(ws).records()
    rows = log_rows(records, limit)
    if as_json:
        _emit({"operations": rows, "findings": [p.model_dump(mode="json") for p in problems]})
        return
    for problem in problems:
        _print_finding(problem)
    if not rows:
        out.print("[dim]the journal is empty: no command has changed memory yet[/]")
        return
    for row in rows:
        mark = f" [dim](undone by {escape(row['undone_by'])})[/]" if row["undone_by"] else ""
        when = _date(datetime.fromisoformat(row["time"]))
        stage = f" [blue]{escape('[' + row['stage'] + ']')}[/]" if row["stage"] else ""
        out.print(f"[bold cyan]{escape(row['id'])}[/] {when} [magenta]{escape(row['op'])}[/]{stage} {escape(row['reason'])}{mark}")
        files = row["files"]
        shown = ", ".join(escape(p) for p in files[:LOG_FILES_SHOWN])
        more = f" and {len(files) - LOG_FILES_SHOWN:,} more (--json lists them)" if len(files) > LOG_FILES_SHOWN else ""
        out.print(f"    [dim]{escape(row['argv'])} · {shown}{more}[/]")


#: Files ``lore log`` names per operation (a verification of 10,000 entries is one operation).
LOG_FILES_SHOWN = 5


@app.command()
def undo(
    ctx: typer.Context,
    op: str | None = typer.Argument(None, help="The operation to reverse (an id from `lore log`)."),
    last: bool = typer.Option(False, "--last", help="Reverse every operation of the most recent command, newest first."),
    force: bool = typer.Option(False, "--force", help="Undo even if a file changed since (the current text is journaled)."),
    as_json: bool = JsonOption,
) -> None:
    """Reverse an operation, restoring the files exactly as they were. An undo can itself be undone."""
    if bool(op) == last:
        _fail("give an operation id or --last (not both)", USAGE)
    ws = workspace_of(ctx)
    journal = _journal(ws)
    try:
        undone = journal.undo_last(force=force) if last else journal.undo(str(op), force=force)
        if undone is None:
            _fail("nothing to undo: every command in the journal is already undone", PROBLEMS)
            return
        done: list[Record] = [undone]
    except UnknownOperation as exc:
        _fail(str(exc), PROBLEMS)
        return
    except Refused as exc:
        _fail(str(exc), REFUSED)
        return
    if as_json:
        _emit({"undone": [u for r in done for u in r.undone], "operations": [r.summary() for r in done]})
        return
    for record in done:
        files = [c.path for c in record.changes]
        shown = ", ".join(escape(p) for p in files[:8]) + (f" and {len(files) - 8} more" if len(files) > 8 else "")
        out.print(f"[green]undid[/] {', '.join(record.undone[:5])}{' …' if len(record.undone) > 5 else ''} "
                  f"[dim]({len(record.undone)} operation(s), as operation {record.id}; files restored: {shown})[/]")


@app.command()
def recover(
    ctx: typer.Context,
    force: bool = typer.Option(False, "--force", help="Also roll back batches this machine did not sign (no key, or they came with the files)."),
) -> None:
    """Roll back changes a killed process left half applied, files outside the store included. Every
    command already rolls back on its own what it safely can (the store's files, batches this machine
    wrote); this finishes the rest."""
    from ..store.journal import recover_explicitly

    ws = workspace_of(ctx)
    messages = recover_explicitly(ws, force=force)
    if not messages:
        out.print("nothing to recover: no change was interrupted")
        return
    for message in messages:
        out.print(escape(message))


@app.command()
def status(ctx: typer.Context, as_json: bool = JsonOption) -> None:
    """Summarise memory: where it lives, how much there is, in which formats and categories, its size in tokens."""
    from ..app.report import describe_tokens
    from ..app.report import status as report_status

    ws = workspace_of(ctx)
    store = _load(ws, quiet_findings=True)
    records, _ = Journal(ws).records()
    data = report_status(ws, store, records)
    if as_json:
        _emit(data)
        return
    live, files, by_format = store.live(), data["files"], data["by_format"]
    by_category, severities = data["by_category"], data["findings"]
    out.print(f"[bold]Workspace[/] {escape(str(ws.root))}  [dim](store: {escape(data['store'])}/)[/]")
    out.print(f"[bold]{len(live)}[/] live entries ({len(store.entries) - len(live)} merged, superseded or archived); "
              f"{describe_tokens(data['tokens'])} (cl100k)")
    labels = {"entry": "entry files", "mif": "MIF files", "instruction": "instruction files"}
    for fmt, label in labels.items():
        if files.get(fmt):
            out.print(f"  {label:<18} {files[fmt]:>4} files  {by_format.get(fmt, 0):>5} entries")
    out.print("[bold]Categories[/]  " + ", ".join(f"{escape(c)} {n}" for c, n in by_category.items()))
    if store.findings:
        out.print(f"[yellow]Problems[/]    {severities['error']} error(s), {severities['warning']} warning(s): run `lore validate`")
    else:
        out.print("[green]Problems[/]    none: every memory file reads cleanly")
    out.print(f"[bold]Journal[/]     {data['operations']} operation(s) (`lore log`)")
    out.print(_context_status(data["context"]))


def _context_status(data: dict[str, Any]) -> str:
    """``Context  1689 of 2000 tokens (auto-compaction at 90%: 1800, not reached); 2 stale; last compaction ...``."""
    auto = data["auto_compact"]
    reached = "[yellow]reached: run `lore compact`[/]" if auto["exceeded"] else "not reached"
    last = data["last_compaction"]
    when = f"{_date(datetime.fromisoformat(last['time']))} ({escape(last['operation'])})" if last else "never"
    return (f"[bold]Context[/]     {data['tokens']} of {data['budget']} tokens in the full store "
            f"(auto-compaction at {round(auto['threshold'] * 100)}%: {auto['at_tokens']}, {reached}); "
            f"{data['stale']} stale; last compaction {when}")


@app.command()
def context(
    ctx: typer.Context,
    budget: int | None = typer.Option(None, "--budget", min=0, help="Token budget (default: [context] budget, "
                                         "else the index.md budget, 2000)."),
    focus: list[str] = typer.Option([], "--focus", "-f", help="A workspace path (file or folder) or a query the agent "
                                    "works on; repeat for several."),
    fmt: str = typer.Option("md", "--format", help="md (the rendered memory only) or json."),
) -> None:
    """Render the memory an agent should load now, within a token budget: the best entries full, others
    compressed or as one-line placeholders, the rest counted as left out. Writes no memory file."""
    from ..app.context import render_context

    if fmt not in ("md", "json"):
        _fail(f"--format must be md or json, not {fmt!r}", USAGE)
    ws = workspace_of(ctx)
    for problem in ws.context.problems:
        err.print(f"[yellow]warning:[/] {escape(problem)}")
    from ..analysis.staleness.cache import check_cached

    # Stale memories weigh less: the same findings the editor and MCP recall use (cached between runs).
    findings = check_cached(ws).findings
    result = render_context(ws, _load(ws, quiet_findings=True), budget=budget, focus=focus, findings=findings)
    if fmt == "json":
        _emit(result.to_json())
        return
    sys.stdout.write(visible(result.text))


@app.command()
def validate(ctx: typer.Context, as_json: bool = JsonOption) -> None:
    """Report memory files that cannot be read as they should: invalid JSON or YAML, wrong field types,
    missing fields, oversized or binary files, references outside the workspace; and journal records
    that cannot be used. Exit 1 on any error."""
    ws = workspace_of(ctx)
    store = open_memory(ws)
    journal_findings = Journal(ws).records()[1]  # records that cannot be used (damaged, crafted)
    findings = sorted([*store.findings, *journal_findings], key=finding_order)
    errors = sum(f.severity == Severity.error for f in findings)
    if as_json:
        _emit({"findings": [f.model_dump(mode="json") for f in findings], "entries": len(store.entries)})
    else:
        for finding in findings:
            out.print(_finding_line(finding))
        summary = f"{_count(len(store.entries), 'entry', 'entries')} read, {errors} error(s), {len(findings) - errors} warning(s)"
        out.print(f"[dim]{summary}[/]" if findings else f"[green]{summary}[/]")
    if errors:
        raise typer.Exit(PROBLEMS)


@app.command("check-stale")
def check_stale(
    ctx: typer.Context,
    paths: list[str] = typer.Argument(None, help="Only the memory files (or folders of them) given."),
    mark: bool = typer.Option(False, "--mark", help="Record stale_reason on entries with errors, and on those the "
                              "model judged stale with --llm (journaled, undoable)."),
    llm: bool = typer.Option(False, "--llm", help="Ask the configured model whether memories whose references changed "
                             "still hold; a 'stale' verdict is a warning, never a deletion (config: llmAssisted, "
                             "stalenessCheck, [llm]; see docs/llm.md)."),
    as_json: bool = JsonOption,
) -> None:
    """Report memories whose references the code made false: deleted or moved files, removed symbols,
    scripts and targets, a contradicted package manager, code changed since verified. Exit 1 on errors."""
    from ..analysis.staleness import mark_stale
    from ..analysis.staleness.cache import check_cached

    ws = workspace_of(ctx)
    wanted = [_memory_path(ws, p) for p in paths or []]
    if wanted:
        memory = [ws.rel(p) for group in ws.memory_files().values() for p in group]
        unknown = [w for w in wanted if not any(m == w.rstrip("/") or m.startswith(w.rstrip("/") + "/") for m in memory)]
        if unknown:
            _fail(f"no memory files at {', '.join(unknown)}", USAGE)
    report = check_cached(ws, wanted)
    findings = report.findings
    stage, judged = _judge_staleness(ws, findings, llm or ws.compaction.llm_assisted, asked=llm)
    findings = sorted([*findings, *judged], key=finding_order)
    marked: list[Record] = []
    unmarked: list[Entry] = []
    if mark:
        try:
            marked, unmarked = mark_stale(open_memory(ws), findings, _journal(ws), stage.stage if stage else "")
        except Refused as exc:
            _fail(str(exc), REFUSED)
    errors = sum(f.severity == Severity.error for f in findings)
    if as_json:
        data: dict[str, Any] = {"findings": [_finding_json(f) for f in findings]}
        if mark:
            data["marked"] = [r.entries[0] for r in marked]
            data["operations"] = [r.id for r in marked]
        if stage is not None and stage.client is not None:
            data["llm"] = stage.report.to_json()
        _emit(data)
    else:
        for finding in findings:
            out.print(_finding_line(finding))
            for other in finding.related or []:
                out.print(f"    [dim]also {escape(str(other.get('source')))}: {escape(str(other.get('message')))}[/]")
            if isinstance(finding.fix, (ReplaceRefFix, ReplaceTextFix)):
                out.print(f"    [green]fix:[/] use `{escape(finding.fix.new)}`")
        checked = report.checked
        if findings:
            out.print(f"[dim]{_count(checked, 'memory', 'memories')} checked: {errors} error(s), "
                      f"{len(findings) - errors} other finding(s)[/]")
        else:
            out.print(f"[green]{_count(checked, 'memory', 'memories')} checked: every reference holds[/]")
        if stage is not None and stage.client is not None:
            _print_llm_report(stage.report)
        if mark:
            out.print(f"marked {_count(len(marked), 'entry', 'entries')} stale"
                      + (f"; {len(unmarked)} instruction-file entr{'y' if len(unmarked) == 1 else 'ies'} left as written"
                         if unmarked else "") + " (`lore review` walks through them)")
    if errors:
        raise typer.Exit(PROBLEMS)


def _judge_staleness(ws: Workspace, findings: list[Finding], wanted: bool, asked: bool) -> tuple[Any, list[Finding]]:
    """The model's ``llm-stale`` findings: asked now when ``wanted`` (``--llm``, or ``llmAssisted``) and
    ``stalenessCheck`` is on, else those an earlier run kept (no request). (stage or None, findings)."""
    from ..analysis.llm import open_stage
    from ..analysis.staleness import StalenessChecker
    from ..analysis.staleness.llm import judge_findings, remembered_findings, to_judge

    if not to_judge(findings):
        if asked:
            err.print("[dim]llm: no memory has a changed reference to judge[/]")
        return None, []
    if wanted and not ws.compaction.staleness_check:
        err.print("[yellow]warning:[/] llm: stalenessCheck is off in the configuration; no memory is judged")
        wanted = False
    if not wanted:
        return None, remembered_findings(ws, findings)
    stage, problems = open_stage(ws)
    for problem in problems:
        err.print(f"[yellow]warning:[/] llm: {escape(problem)}")
    if stage is None:
        err.print("[yellow]warning:[/] llm: no model to ask; the checker's findings stand")
        return None, []
    judged = stage.run("staleness judgement", judge_findings, stage, StalenessChecker(ws, open_memory(ws)), findings) or []
    stage.save()
    return stage, judged


def _print_llm_report(report: Any) -> None:
    """The LLM stage's line of a run: calls, tokens, what it did; then each rejection, veto and stop."""
    parts = [f"{len(report.accepted)} accepted", f"{len(report.rejected)} rejected"]
    if report.vetoed:
        parts.append(f"{len(report.vetoed)} vetoed")
    if report.verdicts:
        counts = {v: sum(1 for x in report.verdicts if x["verdict"] == v) for v in ("holds", "stale", "unsure")}
        parts = [", ".join(f"{n} {v}" for v, n in counts.items() if n), f"{len(report.rejected)} rejected"]
    out.print(f"[dim]llm ({escape(report.model)}): {_count(report.calls, 'call', 'calls')}, {report.tokens} tokens"
              f"{f', {report.cached} kept from an earlier run' if report.cached else ''}; {'; '.join(parts)}[/]")
    for rejected in report.rejected:
        out.print(f"[yellow]llm rejected:[/] {escape(', '.join(rejected['sources']))}: {escape(rejected['reason'])}")
    for vetoed in report.vetoed:
        out.print(f"[yellow]llm vetoed:[/] merging {escape(' and '.join(vetoed['sources']))}: {escape(vetoed['reason'])}"
                  " (both stay)")
    if report.stopped:
        out.print(f"[yellow]llm stopped:[/] {escape(report.stopped)}")


def _memory_path(ws: Workspace, path: str) -> str:
    """A PATH argument as a workspace-relative path (it may be given relative to the current folder)."""
    full = (Path.cwd() / path).resolve()
    try:
        return full.relative_to(ws.root).as_posix()
    except ValueError:
        return path


def _finding_json(finding: Finding) -> dict[str, Any]:
    data = {"entry": finding.entry, "source": finding.source, "line": finding.line, "kind": finding.kind,
            "severity": finding.severity.value, "message": finding.message, "ref": finding.ref,
            "fix": finding.fix.model_dump() if finding.fix else None,
            "commit": finding.commit}
    if finding.related:
        data["related"] = finding.related
    return data


@app.command()
def verify(
    ctx: typer.Context,
    keys: list[str] = typer.Argument(None, help="Entries to verify (ids, id starts, or FILE:LINE)."),
    all_entries: bool = typer.Option(False, "--all", help="Verify every live entry."),
    as_json: bool = JsonOption,
) -> None:
    """Record that memories were checked: fingerprints of what each references (a symbol's body, a
    script's command, a file's content) and the time. Later changes show as "changed since verified"."""
    from ..analysis.staleness import StalenessChecker, verify_entries
    from ..analysis.staleness.actions import distinct

    if bool(keys) == all_entries:
        _fail("give entry ids or --all (not both)", USAGE)
    ws = workspace_of(ctx)
    store = _load(ws, quiet_findings=as_json)
    entries = store.live() if all_entries else distinct([_pick(store, key) for key in keys])
    checker = StalenessChecker(ws, store)
    try:
        records = verify_entries(checker, entries, _journal(ws))
    except Refused as exc:
        _fail(str(exc), REFUSED)
        return
    checker.save()
    if as_json:
        _emit({"verified": [e.id for e in entries], "operations": [r.id for r in records]})
        return
    out.print(f"[green]verified[/] {_count(len(entries), 'entry', 'entries')} "
              f"[dim]({_count(len(records), 'operation', 'operations')}; `lore undo --last` reverses)[/]")


_REVIEW_CHOICES = {"k": "keep (re-verify)", "u": "update the reference", "a": "archive", "s": "skip", "q": "quit"}


@app.command()
def review(ctx: typer.Context) -> None:
    """Walk through stale memories (marked or found now): keep and re-verify, update the reference to
    its new place, or archive. Each choice is journaled and undoable."""
    from ..analysis.diagnose import conflicts as find_conflicts
    from ..analysis.staleness import StalenessChecker, apply_fix, archive_entry, check_workspace, verify_entries
    from ..analysis.staleness.llm import remembered_findings
    from ..app.report import review_queue

    ws = workspace_of(ctx)
    findings, checker = check_workspace(ws)
    findings += remembered_findings(ws, findings, checker)  # a model's verdicts kept by `check-stale --llm`
    store = checker.store
    journal = _journal(ws)
    queue = review_queue(store, findings, find_conflicts(store, ws.compaction))
    if not queue:
        out.print("[green]nothing to review: no stale, marked or conflicting memories[/]")
        return
    disagreements = queue.conflicts
    done = 0
    for number, (entry, found) in enumerate(queue.stale, 1):
        out.print(f"\n[bold]{number}/{len(queue.stale)}[/] {_entry_line(entry)}")
        for finding in found:
            out.print(f"  [{_SEVERITY_STYLE[finding.severity]}]{finding.severity.value}[/]: {escape(finding.message)}")
        fixable = next((f for f in found if isinstance(f.fix, (ReplaceRefFix, ReplaceTextFix))), None)
        options = [c for c in _REVIEW_CHOICES if c != "u" or fixable]
        if entry.format == "instruction":
            options = [c for c in options if c != "a"]
        prompt = ", ".join(f"[{c}] {_REVIEW_CHOICES[c]}" for c in options)
        try:
            choice = typer.prompt(prompt, default="s").strip().lower()[:1]
            while choice not in options:
                choice = typer.prompt(f"choose one of {'/'.join(options)}", default="s").strip().lower()[:1]
        except typer.Abort:  # end of input or Ctrl-C: stop, keeping what was done
            out.print()
            break
        try:
            if choice == "q":
                break
            if choice == "k":
                verify_entries(StalenessChecker(ws, store), [entry], journal)
                out.print("  [green]kept and verified[/]")
            elif choice == "u" and fixable is not None:
                record = apply_fix(store, entry, fixable.fix, journal, fixable.message)
                out.print(f"  [green]updated[/] ({record.id})" if record else "  [yellow]nothing to change[/]")
            elif choice == "a":
                archive_entry(store, entry, journal, reason="; ".join(f.message for f in found))
                out.print("  [green]archived[/]")
            else:
                continue
            done += 1
        except (Refused, ValueError) as exc:
            err.print(f"  [red]refused:[/] {escape(str(exc))}")
    else:
        done += _review_conflicts(store, disagreements, journal)
    out.print(f"\n[dim]{_count(done, 'change', 'changes')} made; `lore log` lists them, `lore undo --last` reverses them[/]")


def _review_conflicts(store: Store, disagreements: list[dict[str, Any]], journal: Journal) -> int:
    """Walk through memories that disagree: keep the newer, keep the older, say both are true (the pair
    is not reported again), or skip (both stay, and are reported again)."""
    from ..analysis.compaction.actions import keep_both, keep_one

    ids = store.by_id()
    done = 0
    for number, conflict in enumerate(disagreements, 1):
        newer, older = (ids.get(i) for i in conflict["entries"])
        if newer is None or older is None:
            continue
        out.print(f"\n[bold]conflict {number}/{len(disagreements)}[/] {escape(conflict.get('reason', ''))}")
        out.print(f"  newer: {_entry_line(newer)}")
        out.print(f"  older: {_entry_line(older)}")
        try:
            choice = typer.prompt("[n] keep the newer, [o] keep the older, [b] both are true, [s] skip, [q] quit",
                                  default="s").strip().lower()[:1]
        except typer.Abort:
            out.print()
            break
        if choice == "q":
            break
        if choice not in ("n", "o", "b"):
            continue
        try:
            if choice == "b":
                keep_both(store, newer, older, journal)
                out.print("  [green]both kept; this pair is not reported again[/]")
            else:
                keep, drop = (newer, older) if choice == "n" else (older, newer)
                keep_one(store, keep, drop, journal)
                out.print(f"  [green]kept {escape(keep.id)}[/]")
            done += 1
        except (Refused, ValueError) as exc:
            err.print(f"  [red]refused:[/] {escape(str(exc))}")
    return done


def _run_compaction(ws: Workspace, only: list[str] | None, dry_run: bool, as_json: bool,
                    overrides: dict[str, Any], reviewed: str | None = None) -> None:
    """Plan, then preview (``dry_run``) or apply: shared by ``compact`` and ``gc``. ``reviewed``: the
    id of a plan the user previewed; applying refuses when the plan made now differs."""
    from ..analysis.semantic import SemanticUnavailable
    from ..app import compact as compaction

    try:
        config = compaction.settings(ws, **overrides)
    except ValidationError as exc:
        _fail("; ".join(f"--{'-'.join(str(e['loc'][0]).split('_'))}: {e['msg']}" for e in exc.errors()), USAGE)
        return
    store = _load(ws, quiet_findings=as_json)
    try:
        made = compaction.plan(ws, store, config=config, only=only)
    except ValueError as exc:
        _fail(str(exc), USAGE)
        return
    except SemanticUnavailable as exc:
        _fail(f"--semantic: {exc}", USAGE)
        return
    for problem in made.problems:
        err.print(f"[yellow]warning:[/] {escape(problem)}")
    records = []
    if not dry_run:
        try:
            records = compaction.apply(made, _journal(ws), reviewed)
        except compaction.MemoryChanged as exc:
            _fail(f"{exc} with `lore compact --dry-run`", REFUSED)
        except Refused as exc:
            _fail(str(exc), REFUSED)
    plan = made.plan
    if as_json:
        data = made.summary()
        data["dry_run"] = dry_run
        if not dry_run:
            data["journal"] = [r.id for r in records]
        _emit(data)
        return
    if dry_run:
        for line in made.diff().splitlines():
            style = ("green" if line.startswith("+") and not line.startswith("+++") else
                     "red" if line.startswith("-") and not line.startswith("---") else
                     "bold" if line.startswith("#") else "cyan" if line.startswith("@@") else "")
            out.print(f"[{style}]{escape(line)}[/]" if style else escape(line))
    counts: dict[str, int] = {}
    for op in plan.operations:
        counts[op.op] = counts.get(op.op, 0) + 1
    summary = ", ".join(f"{n} {op}" for op, n in counts.items()) or "nothing to compact"
    verb = "would apply" if dry_run else "applied"
    out.print(f"[bold]{verb}:[/] {summary}; tokens {_change(plan.tokens_before, plan.tokens_after)}"
              f" [dim](plan {made.id})[/]")
    figures = [f"{name} {_change(*plan.tokens[key])}" for name, key in (("index.md", "index"), ("compacted/", "compacted"))
               if key in plan.tokens]
    if figures:
        out.print(f"[dim]views: {'; '.join(figures)}[/]")
    for conflict in plan.conflicts:
        out.print(f"[yellow]review:[/] {escape(conflict['message'])}")
    if made.stage is not None:
        _print_llm_report(made.stage.report)
    if not dry_run and records:
        out.print(f"[dim]{_count(len(records), 'operation', 'operations')} journaled; `lore undo --last` reverses them[/]")
    elif dry_run:
        out.print(f"[dim]nothing was written (--dry-run); `lore compact --plan {made.id}` applies exactly this plan[/]")


@app.command()
def compact(
    ctx: typer.Context,
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the plan as a diff of the files it would change; write nothing."),
    only: str | None = typer.Option(None, "--only", help="Comma-separated operations: supersede, dedup, merge, semantic, archive, consolidate, fuse, compress (views alone: 'views')."),
    budget: int | None = typer.Option(None, "--budget", min=100, help="Token budget of index.md (default 2000)."),
    semantic: bool = typer.Option(False, "--semantic", help="Also merge entries that state one fact in other words "
                                  "(local embeddings, every merge verified; config: semanticDedup)."),
    llm: bool = typer.Option(False, "--llm", help="Let the configured model write fused entries and summaries and "
                             "confirm semantic merges (every answer checked by a guard; config: llmAssisted, [llm]; "
                             "see docs/llm.md)."),
    reviewed: str | None = typer.Option(None, "--plan", metavar="ID|FILE",
                                           help="Apply only the plan previewed with --dry-run: its id, or the file "
                                                "its --json output was saved to. Refused if memory changed since."),
    as_json: bool = JsonOption,
) -> None:
    """Compact memory with deterministic rules: dedup, merge near-duplicates, follow supersession, fuse
    related entries, compress verbose ones, archive expired ones, consolidate cold clusters; regenerate
    index.md (within the token budget) and compacted/. Nothing is deleted; every operation is undoable."""
    ws = workspace_of(ctx)
    selected = [o.strip() for o in only.split(",") if o.strip()] if only else None
    _run_compaction(ws, selected, dry_run, as_json, {"budget": budget, "semantic_dedup": True if semantic else None,
                                                     "llm_assisted": True if llm else None},
                    _plan_arg(reviewed) if reviewed else None)


def _plan_arg(value: str) -> str:
    """A plan id, given as itself or as a file holding `lore compact --dry-run --json` output."""
    path = Path(value)
    if re.fullmatch(r"[0-9a-f]{12}", value) and not path.is_file():
        return value
    try:
        data = load_json(path.read_text(encoding="utf-8"))
        plan = data.get("plan") if isinstance(data, dict) else None
    except (OSError, ValueError) as exc:
        _fail(f"--plan {value}: not a plan id, and not a readable plan file ({exc})", USAGE)
        raise  # _fail exits; this line only tells type checkers
    if not isinstance(plan, str):
        _fail(f"--plan {value}: the file holds no plan id (save `lore compact --dry-run --json` output)", USAGE)
    return plan


@app.command()
def gc(
    ctx: typer.Context,
    dry_run: bool = typer.Option(False, "--dry-run", help="Show what would change; write nothing."),
    archive: bool = typer.Option(False, "--archive", help="Archive expired, decayed or too old entries."),
    compress: bool = typer.Option(False, "--compress", help="Summarise verbose old or weak entries."),
    compress_only: bool = typer.Option(False, "--compress-only", help="Only compress (no archiving)."),
    compress_threshold: int | None = typer.Option(None, "--compress-threshold", min=1, help="Lines above which an entry is verbose (default 100)."),
    min_strength: float | None = typer.Option(None, "--min-strength", min=0.0, max=1.0, help="Archive below this decayed strength (default 0.1)."),
    max_age: int | None = typer.Option(None, "--max-age", min=1, help="Archive entries older than this many days (default: no limit)."),
    llm: bool = typer.Option(False, "--llm", help="Let the configured model write the summaries of --compress (each "
                             "checked by the summary guard; the deterministic summary otherwise; see docs/llm.md)."),
    as_json: bool = JsonOption,
) -> None:
    """Maintenance as mnemonic users know it: the archive and compress operations of `lore compact`
    (both unless one is chosen). Pinned entries and protected categories are never archived."""
    ws = workspace_of(ctx)
    if compress_only:
        ops = ["compress"]
    elif archive or compress:
        ops = [op for op, on in (("archive", archive), ("compress", compress)) if on]
    else:
        ops = ["archive", "compress"]
    _run_compaction(ws, ops, dry_run, as_json, {"compress_lines": compress_threshold, "min_strength": min_strength,
                                                "max_age_days": max_age, "llm_assisted": True if llm else None})


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
    try:
        sys.stderr.flush()
    except OSError:
        pass
    os._exit(code)


if __name__ == "__main__":
    run()
