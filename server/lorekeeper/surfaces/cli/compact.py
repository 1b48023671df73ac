# pyright: standard
"""``lore compact`` and ``lore gc``."""

from __future__ import annotations

import difflib
import re
from pathlib import Path
from typing import Any

import typer
from pydantic import ValidationError

from ...infra.safeio import load_json
from ...store import Refused
from ...workspace import Workspace
from .common import (
    IO_ERROR,
    REFUSED,
    USAGE,
    JsonOption,
    _change,
    _count,
    _emit,
    _fail,
    _journal,
    _load,
    _print_llm_report,
    app,
    err,
    escape,
    out,
    workspace_of,
)


def _run_compaction(ws: Workspace, only: list[str] | None, dry_run: bool, as_json: bool,
                    overrides: dict[str, Any], reviewed: str | None = None) -> None:
    """Plan, then preview (``dry_run``) or apply: shared by ``compact`` and ``gc``. ``reviewed``: the
    id of a plan the user previewed; applying refuses when the plan made now differs."""
    from ...analysis.semantic import SemanticUnavailable
    from ...app import compact as compaction

    try:
        config = compaction.settings(ws, **overrides)
    except ValidationError as exc:
        _fail("; ".join(f"--{'-'.join(str(e['loc'][0]).split('_'))}: {e['msg']}" for e in exc.errors()), USAGE)
        return
    store = _load(ws, quiet_findings=as_json)
    blocked = next((f for f in store.findings if f.kind == "invalid-store"), None)
    if blocked is not None:  # (with nothing to write it would say "nothing to compact" over a broken store)
        _fail(blocked.message, IO_ERROR)
        return
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
    if not plan.views:
        out.print("[dim]views: none (memory here is instruction files only, which agents load as they are: "
                  "no index.md to write)[/]")
    elif figures:
        out.print(f"[dim]views: {'; '.join(figures)}[/]")
    for conflict in plan.conflicts:
        out.print(f"[yellow]review:[/] {escape(conflict['message'])}")
    from ...analysis.repeats import repeats  # instruction files are never compacted: said, not done

    repeated = repeats(store.entries, config.source_files)
    if repeated:
        out.print(f"[dim]{_count(len(repeated), 'fact is', 'facts are')} stated more than once in instruction files: "
                  "`lore repeats` shows them and removes the extra copies[/]")
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




@app.command("repeats")
def repeats_command(
    ctx: typer.Context,
    keep: list[str] = typer.Option([], "--keep", metavar="FILE", help="The instruction file (path or glob) whose copy "
                                   "is kept; give it again to rank more. Default: [compaction] source_files, then "
                                   "AGENTS.md, CLAUDE.md, GEMINI.md, .github/copilot-instructions.md, then path order."),
    apply: bool = typer.Option(False, "--apply", help="Remove the other copies (one journaled operation: "
                               "`lore undo --last` puts them back)."),
    semantic: bool = typer.Option(False, "--semantic", help="Also find facts restated in other words (local "
                                  "embeddings, each pair decided by the verifier's guard; as `semantic_dedup` does)."),
    llm: bool = typer.Option(False, "--llm", help="With --semantic (implied): also ask the configured model about "
                             "the nearer pairs the guard does not vouch for and no rule tells apart; what it judges "
                             "one fact is named, never removed for its word (see docs/llm.md)."),
    as_json: bool = JsonOption,
) -> None:
    """Facts that instruction files state more than once (CLAUDE.md and AGENTS.md, a memory bank's files,
    copilot-instructions...): each with the copy kept and the copies that would go, and the removal as a
    diff. `--apply` writes it. A copy that says more than the kept one stays, to be merged by hand; so does
    a copy under another heading of the kept one's file, or in a file an agent reads without the kept one's."""
    from ...analysis.agents import ReadersOfBoth, Repo
    from ...analysis.diagnose import paraphrase_finder
    from ...analysis.repeats import IN_PLACE, JUDGED, SAYS_MORE, removal, repeats
    from ...app import compact as compaction
    from ...app import edits

    ws = workspace_of(ctx)
    config = compaction.settings(ws, semantic=True if semantic or llm else None)
    sources = [*keep, *config.source_files]
    stage = None
    if llm:
        from ...analysis.llm import open_stage

        stage, problems = open_stage(ws)
        for problem in problems:
            err.print(f"[yellow]warning:[/] --llm: {escape(problem)}"
                      + ("; the guard alone decides" if stage is None and problem.startswith("no model") else ""))
    store = _load(ws, quiet_findings=as_json)
    finder = paraphrase_finder(store, config, stage.same_facts if stage is not None else None)
    found = repeats(store.entries, sources, finder)
    if stage is not None:
        stage.save()  # (kept before anything is written: a refused removal does not ask again)
    stays = edits.staying(store, found)
    removable = [c for r in found for c in r.copies if c.id not in stays]
    preview = removal(store, removable, "preview") if removable else None
    # a file whose every fact another file states: the removal leaves it empty (said, so that one may
    # rather delete it, or keep the copy there)
    emptied = [c.path for c in preview.changes if not (c.after or b"").strip()] if preview is not None else []
    record = None
    if apply and removable:
        try:
            record = edits.remove_repeats(store, _journal(ws), sources, paraphrases=finder,
                                          only=[(c.id, r.kept.id) for r in found for c in r.copies if c in removable])
        except Refused as exc:
            _fail(str(exc), REFUSED)

    def where(entry: Any) -> dict[str, Any]:
        return {"path": entry.location.path, "line": entry.location.start_line, "id": entry.id, "text": entry.content}

    readers = ReadersOfBoth(Repo(ws)) if found else None

    def read_twice(copy: Any, kept: Any) -> tuple[list[str], list[str]]:
        if readers is None or copy.location.path == kept.location.path:
            return [], []
        return readers(copy.location.path, kept.location.path)

    if as_json:
        _emit({"repeats": [{"kept": where(r.kept), "copies": [
            {**where(c), "same_text": r.exact or c.content.split() == r.kept.content.split(),
             "removable": c.id not in stays, "stays_because": stays.get(c.id), "judged_by": r.judged_by(c) or None,
             "read_twice_by": read_twice(c, r.kept)[0], "read_twice_sometimes_by": read_twice(c, r.kept)[1]}
            for c in r.copies], "also": [where(e) for e in r.also]} for r in found],
            "removable": len(removable), "emptied": emptied, "applied": record.id if record is not None else None,
            **({"llm": stage.report.to_json()} if stage is not None else {})})
        return
    if stage is not None:
        _print_judged(stage.report)
    if not found:
        out.print("no fact is stated twice in the instruction files")
        return
    for repeat in found:
        kept = repeat.kept
        out.print(f"[bold]{escape(kept.location.path)}:{kept.location.start_line}[/] kept: {escape(_one_line(kept.content))}")
        for copy in repeat.copies:
            why = stays.get(copy.id)
            note = ("says more: stays" if why == SAYS_MORE else f"stays: {why}" if why
                    else "would go" if not apply else "removed")
            if repeat.judged_by(copy):
                note += f"; as judged by {repeat.judged_by(copy).removeprefix('llm:')}"
            always, some = read_twice(copy, kept)
            if always or some:
                note += "; read twice by " + ", ".join(always + [f"{name} (some files)" for name in some])
            out.print(f"  {escape(copy.location.path)}:{copy.location.start_line} [dim]({note})[/] {escape(_one_line(copy.content))}")
        for other in repeat.also:
            out.print(f"  {escape(other.location.path)}:{other.location.start_line} [dim](the same fact; stays)[/] "
                      f"{escape(_one_line(other.content))}")
    if not apply:
        for change in preview.changes if preview is not None else []:
            before = (change.before or b"").decode("utf-8-sig").splitlines(keepends=True)
            after = (change.after or b"").decode("utf-8-sig").splitlines(keepends=True)
            for line in difflib.unified_diff(before, after, f"a/{change.path}", f"b/{change.path}", n=1):
                text = line.rstrip("\n")
                style = "red" if text.startswith("-") and not text.startswith("---") else "cyan" if text.startswith("@@") else ""
                out.print(f"[{style}]{escape(text)}[/]" if style else escape(text))
    more = sum(why == SAYS_MORE for why in stays.values())
    placed = sum(why in IN_PLACE for why in stays.values())
    judged = sum(why == JUDGED for why in stays.values())
    lost = len(stays) - more - placed - judged
    tail = ((f"; {more} say more and stay" if more else "")
            + (f"; {placed} stay where their file needs them" if placed else "")
            + (f"; {judged} only a model judged the same fact: they stay, to bring together by hand" if judged else "")
            + (f"; {lost} stay for the agents that read only them" if lost else ""))
    for path in emptied:
        out.print(f"[yellow]{escape(path)} {'is left' if apply else 'would be left'} empty:[/] every fact it held "
                  "is stated elsewhere")
    if apply:
        out.print(f"[bold]removed:[/] {_count(len(removable), 'copy', 'copies')}{tail}"
                  + ("; `lore undo --last` puts them back" if record is not None else ""))
    else:
        out.print(f"[bold]{_count(len(found), 'fact', 'facts')} stated more than once:[/] "
                  f"{_count(len(removable), 'copy', 'copies')} would go{tail}"
                  + (" [dim](`lore repeats --apply` removes them)[/]" if removable else ""))


def _print_judged(report: Any) -> None:
    """The model's line of `lore repeats --llm`: calls, tokens, pairs judged one fact and two."""
    judged = sum(a["op"] == "same-fact" for a in report.accepted)
    apart = sum(v["op"] == "same-fact" for v in report.vetoed)
    out.print(f"[dim]llm ({escape(report.model)}): {_count(report.calls, 'call', 'calls')}, {report.tokens} tokens"
              f"{f', {report.cached} pairs kept from an earlier run' if report.cached else ''}; "
              f"{_count(judged, 'pair', 'pairs')} judged one fact, {apart} two[/]")
    for rejected in report.rejected:
        out.print(f"[yellow]llm rejected:[/] {escape(' / '.join(rejected['sources'][:2]))}: {escape(rejected['reason'])}")
    if report.stopped:
        out.print(f"[yellow]llm stopped:[/] {escape(report.stopped)}")


def _one_line(text: str, width: int = 100) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"
