"""Staleness on real repositories: `lore check-stale` on public repositories at fixed commits, every
finding scored against labels written by hand (tests/data/staleness/*.json).

Two variants per repository:
- ``head``: the repository at the labelled HEAD commit, as it is.
- ``old``: the same code, but the instruction files as they were at the labelled OLD commit (3-12 months
  earlier: as far back as the instruction files go, at most a year) and never touched since, which is the case the tool exists for: a team that did not update
  its CLAUDE.md. History after OLD is rewritten (``git fast-export | filter | git fast-import``) so that
  every commit keeps the instruction files at their OLD content; ``git blame`` then dates their lines
  as it would in that world, and every code change keeps its own commit. Rewritten commits are mapped
  back to the originals (fast-export/fast-import marks) to judge the commit a finding names.

Repositories come from ``--mirror DIR`` (git directories at DIR/owner+name/repo, or DIR/owner+name.git),
else they are cloned from GitHub into the cache folder. Nothing here runs in CI; tests use small fixtures.

Figures: precision of errors and of warnings (labelled findings only; unlabelled ones are listed so that
they can be labelled), recall of errors (and of errors or warnings) on the references labelled stale or
moved, the share of findings naming the right removing commit, cold time per repository, and the time from
launching the language server (cold) to its first published diagnostics."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pathspec

from lorekeeper.infra.userlevel import workspace_cache
from lorekeeper.workspace import INSTRUCTION_GLOBS, MARKDOWN_SUFFIXES, PLAIN_INSTRUCTION_NAMES

ROOT = Path(__file__).resolve().parent.parent
LABELS = ROOT / "tests" / "data" / "staleness"
LORE = Path(sys.executable).parent / "lore"
STALE_VERDICTS = {"stale", "moved"}
#: The files the ``old`` variant keeps as they were: every kind of instruction file Lorekeeper reads
#: (lorekeeper.workspace.INSTRUCTION_GLOBS), so that none of them is newer than the code it is judged by.
FROZEN = pathspec.GitIgnoreSpec.from_lines(INSTRUCTION_GLOBS)
#: Part of a built tree's stamp: a change to what is frozen rebuilds the ``old`` trees.
FROZEN_VERSION = hashlib.sha1("\n".join(INSTRUCTION_GLOBS).encode()).hexdigest()[:8]


def frozen(path: bytes) -> bool:
    """Whether the ``old`` variant keeps ``path`` (a path of the repository) as it was at OLD."""
    text = path.decode("utf-8", "surrogateescape")
    name = text.rsplit("/", 1)[-1]
    return (name.endswith(MARKDOWN_SUFFIXES) or name in PLAIN_INSTRUCTION_NAMES) and FROZEN.match_file(text)


def _git(cwd: Path, *args: str, check: bool = True, **kw: Any) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(cwd), *args], check=check, capture_output=True, **kw)


@dataclass
class Labelled:
    repo: str
    head: str
    old: str
    refs: list[dict[str, Any]]
    data: dict[str, Any]

    @property
    def slug(self) -> str:
        return self.repo.replace("/", "+")


def load_labels(folder: Path = LABELS) -> list[Labelled]:
    out = []
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        out.append(Labelled(data["repo"], data["head"], data["old"], data.get("refs", []), data))
    return out


def source_repo(item: Labelled, mirror: Path | None, cache: Path) -> Path:
    """A git directory holding the labelled commits."""
    if mirror:
        for candidate in (mirror / item.slug / "repo", mirror / f"{item.slug}.git", mirror / item.slug):
            if (candidate / "objects").is_dir() or (candidate / ".git").is_dir():
                return candidate
    target = cache / "git" / f"{item.slug}.git"
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "clone", "--bare", "-q", f"https://github.com/{item.repo}.git", str(target)], check=True)
    return target


def _stand_in_missing_blobs(repo: Path) -> int:
    """Snapshots can lack a few large blobs: stand them in with placeholders (replace refs) so that
    history queries work as in a full clone. Returns how many were missing."""
    out = _git(repo, "rev-list", "--objects", "--all", "--missing=print", check=False).stdout.decode()
    missing = [line[1:].strip() for line in out.splitlines() if line.startswith("?")]
    if not missing:
        return 0
    placeholder = subprocess.run(["git", "-C", str(repo), "hash-object", "-w", "--stdin"], input=b"(missing blob)\n",
                                 capture_output=True, check=True).stdout.decode().strip()
    for sha in missing:
        _git(repo, "update-ref", f"refs/replace/{sha}", placeholder, check=False)
    return len(missing)


def _filter_stream(stream: bytes) -> bytes:
    """Drop every change to an instruction file from a fast-export stream (commit messages and other
    ``data`` blocks are copied byte for byte)."""
    out: list[bytes] = []
    i, n = 0, len(stream)
    while i < n:
        end = stream.find(b"\n", i)
        end = n if end < 0 else end
        line = stream[i:end]
        i = end + 1
        if line.startswith(b"data "):
            size = int(line[5:])
            out.append(line + b"\n" + stream[i : i + size])
            i += size
            continue
        path = None
        if line.startswith(b"M "):
            path = line.split(b" ", 3)[3]
        elif line.startswith(b"D "):
            path = line[2:]
        if path is not None:
            if path.startswith(b'"'):
                path = path[1:-1]  # C-style quoted; instruction file names need no unescaping
            if frozen(path):
                continue
        out.append(line + b"\n")
    return b"".join(out)


def prepare(item: Labelled, variant: str, source: Path, cache: Path) -> tuple[Path, dict[str, str]]:
    """A work tree of the variant (reused when already built) and, for ``old``, the map from rewritten
    commit ids to the original ones."""
    tree = cache / "trees" / f"{item.slug}-{variant}"
    mapping_file = tree.parent / f"{item.slug}-{variant}.map.json"
    stamp = tree / ".git" / "lore-bench-ready"
    if stamp.is_file() and stamp.read_text().strip() == f"{item.head} {item.old} {FROZEN_VERSION}":
        return tree, json.loads(mapping_file.read_text()) if mapping_file.is_file() else {}
    shutil.rmtree(tree, ignore_errors=True)
    tree.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "clone", "-q", "--no-checkout", str(source), str(tree)], check=True)
    _git(tree, "fetch", "-q", "origin", "refs/replace/*:refs/replace/*", check=False)
    _stand_in_missing_blobs(tree)
    mapping: dict[str, str] = {}
    if variant == "head":
        _git(tree, "checkout", "-q", "-B", "bench", item.head)
    else:
        _git(tree, "branch", "-f", "bench-src", item.head)
        marks_in, marks_out = tree / ".git" / "export.marks", tree / ".git" / "import.marks"
        stream = _git(tree, "fast-export", "--no-data", "--reference-excluded-parents", "--signed-tags=strip",
                      "--tag-of-filtered-object=drop", f"--export-marks={marks_in}", "refs/heads/bench-src",
                      f"^{item.old}").stdout
        stream = _filter_stream(stream).replace(b"refs/heads/bench-src", b"refs/heads/bench")
        subprocess.run(["git", "-C", str(tree), "fast-import", "--quiet", "--force", f"--export-marks={marks_out}"],
                       input=stream, check=True, capture_output=True)
        original = dict(line.split() for line in marks_in.read_text().splitlines() if line.strip())
        rewritten = dict(line.split() for line in marks_out.read_text().splitlines() if line.strip())
        mapping = {rewritten[m]: original[m] for m in rewritten if m in original}
        _git(tree, "checkout", "-q", "-f", "bench")
        mapping_file.write_text(json.dumps(mapping))
    stamp.write_text(f"{item.head} {item.old} {FROZEN_VERSION}\n")
    return tree, mapping


@dataclass
class Outcome:
    repo: str
    variant: str
    seconds: float
    findings: list[dict[str, Any]]
    matched: list[tuple[dict[str, Any], dict[str, Any] | None]] = field(default_factory=list)
    recall_hits: int = 0
    recall_any: int = 0
    recall_total: int = 0
    commits_right: int = 0
    commits_named: int = 0
    error: str = ""


def _no_cache(tree: Path) -> None:
    """Cold: neither the tree's ``.lore/cache`` nor the user-level cache a tree without ``.lore/`` uses."""
    shutil.rmtree(tree / ".lore" / "cache", ignore_errors=True)
    shutil.rmtree(workspace_cache(tree), ignore_errors=True)


def run_lore(tree: Path) -> tuple[list[dict[str, Any]], float, str]:
    _no_cache(tree)
    # A fresh checkout's index marks every file "racily clean" until some git command refreshes it (any
    # `git status` a developer runs does): without this, each `git status` of the check re-hashes the tree.
    _git(tree, "update-index", "-q", "--refresh", check=False)
    start = time.perf_counter()
    proc = subprocess.run([str(LORE), "check-stale", "--json"], cwd=tree, capture_output=True, text=True, timeout=900)
    elapsed = time.perf_counter() - start
    try:
        return json.loads(proc.stdout).get("findings", []), elapsed, ""
    except ValueError:
        return [], elapsed, (proc.stderr or proc.stdout)[-500:]


def lsp_first(tree: Path) -> float | None:
    """Seconds from launching `lore serve` on the tree (cold: no cache) to the editor's first result: the
    answer to a pulling client's first ``workspace/diagnostic`` request; ``None`` on failure."""
    import asyncio

    from bench import _startup  # scripts/bench.py; imported late: it imports this module

    _no_cache(tree)
    try:
        return asyncio.run(_startup(tree, pull=True))
    except Exception:  # noqa: BLE001 - a benchmark row says "failed" rather than stopping the run
        return None


def lsp_save(tree: Path, edits: int = 8) -> tuple[str, float] | None:
    """The tree's largest instruction file, and the median seconds from saving it in the editor to its
    republished diagnostics (``bench._memory_save_latency``); ``None`` without one, or on failure."""
    import asyncio

    from bench import _memory_save_latency
    from lorekeeper.workspace import Workspace

    files = [tree / p for p in Workspace(tree).memory_relpaths()["instruction"] if (tree / p).is_file()]  # (not a broken link)
    if not files:
        return None
    target = max(files, key=lambda p: p.stat().st_size)
    try:
        timings = sorted(asyncio.run(_memory_save_latency(tree, target, edits)))
    except Exception:  # noqa: BLE001 - a benchmark row says "failed" rather than stopping the run
        return None
    return target.relative_to(tree).as_posix(), timings[len(timings) // 2]


def _norm(target: str) -> str:
    return target.strip().strip("`").removeprefix("./").removeprefix("**/").rstrip("/")


#: Label kinds a finding kind can be about (labels call commands "command" when they name no script).
_LABEL_KINDS = {"path": {"path", "folder", "other"}, "symbol": {"symbol", "other", "module"},
                "script": {"script", "command", "other"}, "make-target": {"make", "command", "other"},
                "just-recipe": {"just", "command", "other"}, "console-script": {"console", "command", "other", "script"},
                "module": {"module", "command", "other", "path"}, "package-manager": {"command", "other"},
                "version": {"other", "command", "path"}, "tox-env": {"command", "script"},
                "tool": {"command", "other"}, "package": {"module", "other", "symbol", "path"},
                "value": {"other", "path"}, "dependency": {"other", "command", "module", "path", "script"}}


def _finding_family(kind: str) -> str:
    return kind.split("-", 1)[1] if kind.startswith(("stale-", "moved-", "missing-", "unresolved-")) else kind


def match(finding: dict[str, Any], refs: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The label a finding is about: same file, a compatible kind and the same target (paths compared
    without ./ and trailing /) within three lines, the nearest first; failing that, a label near the line
    whose text holds the target; failing that, the same target farther away (a finding on line 20 is not
    about a label of the same name on line 152 when line 20's own label writes it)."""
    source, target = finding.get("source", ""), _norm(finding.get("ref") or "")
    line = finding.get("line") or 0
    kinds = _LABEL_KINDS.get(_finding_family(finding.get("kind", "")))
    same_file = [r for r in refs if r["file"] == source and (kinds is None or r.get("kind") in kinds)] or \
        [r for r in refs if r["file"] == source]
    # A stated version is labelled "node 20" or "node@20" (the finding's ref).
    exact = [r for r in same_file if _norm(r.get("target") or "") in (target, target.split(":")[-1])
             or _norm(r.get("target") or "").lower().replace(" ", "@") == target.lower()]
    if exact and min(abs((r.get("line") or 0) - line) for r in exact) <= 3:
        return min(exact, key=lambda r: abs((r.get("line") or 0) - line))
    # A path the memory writes relative to a folder named above it ("core/compaction.ts" under
    # "packages/coding-agent/src/"), labelled by its full path.
    tail = [r for r in same_file if "/" in target and _norm(r.get("target") or "").endswith("/" + target)
            and abs((r.get("line") or 0) - line) <= 3]
    if tail:
        return min(tail, key=lambda r: abs((r.get("line") or 0) - line))
    # A tree drawn from a folder named as the repository (`phoenix/` then `├── app/`): the finding spells
    # the path from that folder, the label from the root, on the same line.
    under = [r for r in same_file if (r.get("line") or 0) == line and (t := _norm(r.get("target") or ""))
             and target.endswith("/" + t)]
    if under:
        return under[0]
    near = [r for r in same_file if target and _written_in(target, r.get("text") or "") and abs((r.get("line") or 0) - line) <= 3]
    if near:
        return min(near, key=lambda r: abs((r.get("line") or 0) - line))
    # the same target labelled farther away (a label's line off by more than a few)
    return min(exact, key=lambda r: abs((r.get("line") or 0) - line)) if exact else None


def _written_in(target: str, text: str) -> bool:
    """Whether a label's text writes what a finding is about: the target itself, in any case ("radix" in
    "Radix"), or a stated version's number, with its name where the label writes one ("npm:react@18.3"
    in "React 18.3", "rust@1.93" in "toolchain 1.93")."""
    low = text.lower()
    name, _, version = target.lower().removeprefix("npm:").rpartition("@")
    if not version or not name:
        return target.lower() in low
    return re.search(r"(?<![\d.])" + re.escape(version) + r"(?![\d])", low) is not None


def _merged_by(source: Path | None, named: str, merge: str) -> bool:
    """Whether the commit ``named`` came in with the merge ``merge`` (on its merged branch: reachable from it,
    not from its first parent). Labels name the first-parent merge that removed a thing; a finding names
    the branch's commit that did."""
    if source is None or len(named) < 7:
        return False
    git_dir = source / ".git" if (source / ".git").is_dir() else source

    def ancestor(a: str, b: str) -> bool:
        return subprocess.run(["git", "--git-dir", str(git_dir), "merge-base", "--is-ancestor", a, b],
                              capture_output=True).returncode == 0
    return ancestor(named, merge) and not ancestor(named, merge + "^1")


def score(item: Labelled, variant: str, findings: list[dict[str, Any]], seconds: float, mapping: dict[str, str],
          source: Path | None = None) -> Outcome:
    refs = [r for r in item.refs if r.get("variant") == variant]
    outcome = Outcome(item.repo, variant, seconds, findings)
    for finding in findings:
        if finding.get("severity") not in ("error", "warning"):
            continue
        label = match(finding, refs)
        outcome.matched.append((finding, label))
        if label and label["verdict"] in STALE_VERDICTS and label.get("removed_in"):
            named = finding.get("commit") or _sha_in(finding.get("message", ""))
            if named:
                outcome.commits_named += 1
                original = next((o for n, o in mapping.items() if n.startswith(named)), named)
                if original.startswith(label["removed_in"][: len(original)]) or label["removed_in"].startswith(original[:7]) \
                        or _merged_by(source, original, label["removed_in"]):
                    outcome.commits_right += 1
    stale = [r for r in refs if r["verdict"] in STALE_VERDICTS]
    outcome.recall_total = len(stale)
    for ref in stale:
        hits = [f for f, lab in outcome.matched if lab is ref]
        if any(f["severity"] == "error" for f in hits):
            outcome.recall_hits += 1
        if hits:
            outcome.recall_any += 1
    return outcome


def _sha_in(message: str) -> str | None:
    m = re.search(r"\b(?:in|deleted in|removed in|moved to `[^`]*` in) ([0-9a-f]{7,40})\b", message)
    return m.group(1) if m else None


def _ratio(a: int, b: int) -> str:
    return f"{a / b:.2f}" if b else "-"


def bench_real_stale(mirror: Path | None, cache: Path, only: list[str] | None, unlabelled_out: Path | None,
                     verbose: bool) -> dict[str, Any]:
    items = [i for i in load_labels() if not only or any(o in i.repo for o in only)]
    if not items:
        print(f"real-stale: no labelled repositories in {LABELS.relative_to(ROOT)}")
        return {}
    print(f"real-stale: {len(items)} repositories, instruction files at HEAD and as they were 3-12 months earlier")
    print(f"{'repository':<34} {'var':<4} {'time':>6} {'err':>4} {'TP':>3} {'FP':>3} {'?':>3} {'warn':>5} {'TP':>3} "
          f"{'FP':>3} {'?':>3} {'recall':>7} {'commit':>7} {'lsp':>6} {'save':>6}")
    outcomes: list[Outcome] = []
    unlabelled: list[dict[str, Any]] = []
    lsp_seconds: list[float] = []
    save_seconds: list[float] = []
    for item in items:
        source = source_repo(item, mirror, cache)
        for variant in ("head", "old"):
            tree, mapping = prepare(item, variant, source, cache)
            findings, seconds, error = run_lore(tree)
            first = lsp_first(tree)
            lsp_seconds.append(first if first is not None else float("inf"))
            # Saving the largest instruction file in the editor (at HEAD: the file as people edit it now).
            saved = lsp_save(tree) if variant == "head" else None
            if saved is not None:
                save_seconds.append(saved[1])
            outcome = score(item, variant, findings, seconds, mapping, source)
            outcome.error = error
            outcomes.append(outcome)
            counts = _counts([outcome])
            print(f"{item.repo:<34} {variant:<4} {seconds:>6.1f} {counts['errors']:>4} {counts['error_tp']:>3} "
                  f"{counts['error_fp']:>3} {counts['error_unlabelled']:>3} {counts['warnings']:>5} {counts['warning_tp']:>3} "
                  f"{counts['warning_fp']:>3} {counts['warning_unlabelled']:>3} "
                  f"{outcome.recall_hits:>3}/{outcome.recall_total:<3} {outcome.commits_right:>3}/{outcome.commits_named:<3} "
                  f"{lsp_seconds[-1]:>6.1f} {f'{saved[1]:.2f}' if saved else '-':>6}"
                  + (f"  FAILED: {error}" if error else ""))
            for finding, label in outcome.matched:
                if label is None:
                    unlabelled.append({"repo": item.repo, "variant": variant, **finding})
                if verbose and (label is None or (label["verdict"] in STALE_VERDICTS) != (finding["severity"] == "error")):
                    verdict = label["verdict"] if label else "UNLABELLED"
                    print(f"    {finding['severity']:<7} {verdict:<10} {finding['source']}:{finding.get('line')}: {finding['message'][:150]}")
            if verbose:  # the stale references no error was about
                hit = {id(label) for finding, label in outcome.matched if label is not None and finding["severity"] == "error"}
                for ref in item.refs:
                    if ref.get("variant") == variant and ref["verdict"] in STALE_VERDICTS and id(ref) not in hit:
                        print(f"    MISSED  {ref['verdict']:<10} {ref['file']}:{ref.get('line')}: {ref.get('kind')} "
                              f"`{ref.get('target')}` ({(ref.get('note') or '')[:100]})")
    totals = _counts(outcomes)
    recall_hits = sum(o.recall_hits for o in outcomes)
    recall_any = sum(o.recall_any for o in outcomes)
    recall_total = sum(o.recall_total for o in outcomes)
    summary = {
        "repositories": len(items),
        "error_precision_head": _precision(_counts([o for o in outcomes if o.variant == "head"]), "error"),
        "error_precision_old": _precision(_counts([o for o in outcomes if o.variant == "old"]), "error"),
        "error_precision": _precision(totals, "error"),
        "warning_precision": _precision(totals, "warning"),
        "errors": totals["errors"], "warnings": totals["warnings"],
        "unlabelled": totals["error_unlabelled"] + totals["warning_unlabelled"],
        "recall_errors": round(recall_hits / recall_total, 3) if recall_total else None,
        "recall_any": round(recall_any / recall_total, 3) if recall_total else None,
        "stale_labelled": recall_total,
        "commits_right": f"{sum(o.commits_right for o in outcomes)}/{sum(o.commits_named for o in outcomes)}",
        "max_seconds": round(max(o.seconds for o in outcomes), 1),
        "median_seconds": round(sorted(o.seconds for o in outcomes)[len(outcomes) // 2], 1),
        "max_lsp_first_seconds": round(max(lsp_seconds), 1),
        "max_lsp_save_seconds": round(max(save_seconds), 2) if save_seconds else None,
        "median_lsp_save_seconds": round(sorted(save_seconds)[len(save_seconds) // 2], 2) if save_seconds else None,
    }
    print("real-stale: " + json.dumps(summary))
    print("targets: error precision >= 0.9 at HEAD and in the time-travel runs, recall >= 0.8, every repository under 10 s, "
          "first diagnostics in the editor within 1 s of launch; save: an instruction file's save to its republished diagnostics")
    if unlabelled_out is not None:
        unlabelled_out.write_text(json.dumps(unlabelled, indent=1))
        print(f"real-stale: {len(unlabelled)} unlabelled findings written to {unlabelled_out}")
    return summary


def _counts(outcomes: list[Outcome]) -> dict[str, int]:
    counts = {f"{s}_{k}": 0 for s in ("error", "warning") for k in ("tp", "fp", "unlabelled")}
    counts["errors"] = counts["warnings"] = 0
    for outcome in outcomes:
        for finding, label in outcome.matched:
            severity = finding["severity"]
            counts[severity + "s"] += 1
            if label is None:
                counts[f"{severity}_unlabelled"] += 1
            elif label["verdict"] == "ambiguous":
                continue  # neither right nor wrong
            elif label["verdict"] in STALE_VERDICTS or (severity == "warning" and label["verdict"] == "never"):
                counts[f"{severity}_tp"] += 1
            else:
                counts[f"{severity}_fp"] += 1
    return counts


def _precision(counts: dict[str, int], severity: str) -> float | None:
    judged = counts[f"{severity}_tp"] + counts[f"{severity}_fp"]
    return round(counts[f"{severity}_tp"] / judged, 3) if judged else None


def default_cache() -> Path:
    return Path(os.environ.get("LORE_BENCH_CACHE", Path.home() / ".cache" / "lorekeeper-bench"))
