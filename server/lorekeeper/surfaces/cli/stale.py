# pyright: standard
"""``lore`` commands about staleness: check-stale, verify, review."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer

from ...core.model import Entry, Finding, ReplaceRefFix, ReplaceTextFix, Severity, finding_order
from ...facts import open_memory
from ...store import Journal, Record, Refused, Store
from ...workspace import Workspace
from .common import (
    _SEVERITY_STYLE,
    PROBLEMS,
    REFUSED,
    USAGE,
    JsonOption,
    _count,
    _emit,
    _entry_line,
    _fail,
    _finding_line,
    _journal,
    _load,
    _pick,
    _print_llm_report,
    app,
    err,
    escape,
    out,
    workspace_of,
)
from .formats import github, sarif


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
    fmt: str = typer.Option("text", "--format", help="text, json (as --json), sarif (SARIF 2.1.0, for code "
                            "scanning) or github (GitHub Actions annotations)."),
) -> None:
    """Report memories whose references the code made false: deleted or moved files, removed symbols,
    scripts and targets, a contradicted package manager, code changed since verified. Exit 1 on errors."""
    from ...analysis.staleness import mark_stale
    from ...analysis.staleness.cache import check_cached

    if fmt not in _FORMATS:
        _fail(f"--format must be one of {', '.join(_FORMATS)}, not {fmt!r}", USAGE)
    if as_json and fmt not in ("text", "json"):
        _fail(f"--json and --format {fmt} ask for two formats; give one", USAGE)
    as_json = as_json or fmt == "json"
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
    if fmt == "sarif":
        _emit(sarif(findings, report.suppressed))
    elif fmt == "github":
        sys.stdout.write("".join(line + "\n" for line in github(findings)))
    elif as_json:
        data: dict[str, Any] = {"findings": [_finding_json(f) for f in findings],
                                "suppressed": [_finding_json(f) for f in report.suppressed]}
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
        ignored = (escape(f"; {len(report.suppressed)} ignored (lore-ignore comments, [[staleness.ignore]] rules)")
                   if report.suppressed else "")
        if findings:
            out.print(f"[dim]{_count(checked, 'memory', 'memories')} checked: {errors} error(s), "
                      f"{len(findings) - errors} other finding(s){ignored}[/]")
        else:
            out.print(f"[green]{_count(checked, 'memory', 'memories')} checked: every reference holds[/]"
                      + (f"[dim]{ignored}[/]" if ignored else ""))
        if stage is not None and stage.client is not None:
            _print_llm_report(stage.report)
        if mark:
            out.print(f"marked {_count(len(marked), 'entry', 'entries')} stale"
                      + (f"; {len(unmarked)} instruction-file entr{'y' if len(unmarked) == 1 else 'ies'} left as written"
                         if unmarked else "") + " (`lore review` walks through them)")
    if errors:
        raise typer.Exit(PROBLEMS)


_FORMATS = ("text", "json", "sarif", "github")


def _judge_staleness(ws: Workspace, findings: list[Finding], wanted: bool, asked: bool) -> tuple[Any, list[Finding]]:
    """The model's ``llm-stale`` findings: asked now when ``wanted`` (``--llm``, or ``llmAssisted``) and
    ``stalenessCheck`` is on, else those an earlier run kept (no request). (stage or None, findings)."""
    from ...analysis.llm import open_stage
    from ...analysis.staleness import StalenessChecker
    from ...analysis.staleness.llm import judge_findings, remembered_findings, to_judge

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
    if finding.suppressed is not None:
        data["suppressed"] = finding.suppressed
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
    from ...analysis.staleness import StalenessChecker, verify_entries
    from ...analysis.staleness.actions import distinct

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
    from ...analysis.diagnose import conflicts as find_conflicts
    from ...analysis.staleness import StalenessChecker, apply_fix, archive_entry, check_workspace, verify_entries
    from ...analysis.staleness.llm import remembered_findings
    from ...app.report import review_queue

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
    from ...analysis.compaction.actions import keep_both, keep_one

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


