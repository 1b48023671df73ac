# pyright: standard
"""``lore`` commands about memory itself: init, add, list, show, search, log, undo, recover, status,
context, validate."""

from __future__ import annotations

import os
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import typer

from ...analysis.agents import loading_findings
from ...core.display import visible
from ...core.model import DEFAULT_CATEGORY, Entry, Ref, Severity, finding_order
from ...facts import open_memory
from ...infra.safeio import dump_json
from ...store import Journal, Record, Refused, Store
from ...store.journal import UnknownOperation
from ...workspace import PathOutsideRoot, Workspace, init_workspace, resolve_inside
from .common import (
    PROBLEMS,
    REFUSED,
    USAGE,
    JsonOption,
    _count,
    _date,
    _emit,
    _entry_line,
    _fail,
    _finding_line,
    _journal,
    _load,
    _pick,
    _print_finding,
    app,
    err,
    escape,
    out,
    workspace_of,
)


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
    from ...analysis.compaction.semantic import likely_duplicates
    from ...analysis.semantic import SemanticUnavailable

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
    from ...app.report import merged_from

    ws = workspace_of(ctx)
    store = _load(ws, quiet_findings=True)
    entry = _pick(store, key)
    from ...analysis.context.access import record

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
    from ...analysis.search import SearchIndex

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
    from ...app.report import log_rows

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
    from ...store.journal import recover_explicitly

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
    from ...app.report import describe_tokens
    from ...app.report import status as report_status

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
    reached = ("not reached" if not auto["exceeded"] else
               "reached, and compacted since the last change: the rules have nothing left to do; raise the "
               "budget, or archive (`lore gc`)" if auto.get("compacted_since_change") else
               "[yellow]reached: run `lore compact`[/]")
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
    from ...app.context import render_context

    if fmt not in ("md", "json"):
        _fail(f"--format must be md or json, not {fmt!r}", USAGE)
    ws = workspace_of(ctx)
    for problem in ws.context.problems:
        err.print(f"[yellow]warning:[/] {escape(problem)}")
    from ...analysis.staleness.cache import check_cached

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
    missing fields, oversized or binary files, references outside the workspace; how agents load the
    instruction files (rules that never load, lines past a cap, imports that lead nowhere); and journal
    records that cannot be used. Exit 1 on any error."""
    ws = workspace_of(ctx)
    store = open_memory(ws)
    journal_findings = Journal(ws).records()[1]  # records that cannot be used (damaged, crafted)
    findings = sorted([*store.findings, *loading_findings(ws), *journal_findings], key=finding_order)
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


