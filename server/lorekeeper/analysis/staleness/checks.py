# pyright: standard
"""The checks, one per reference kind, in a registry (:data:`CHECKS`).

Each check answers in two steps. ``now`` resolves the reference against the workspace as it is (no git)
and returns ``True`` when there is nothing more to say. ``judge`` takes every reference of its kind that
did not resolve and asks git, in batches, whether the target existed at the memory's baseline; only
then is it an error, and the removing commit is searched after the baseline only.

Severity by evidence: **error** when git (or a recorded verification) proves the target existed when
the memory was written and it is gone now; **warning** when the target is gone but that cannot be
proven (no git, a target created after the memory and deleted since); **info** when it never existed
for this memory."""

from __future__ import annotations

import json
import posixpath
import re
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import unquote

from rapidfuzz import fuzz, process

from ...core.model import Entry, Finding, ReplaceRefFix, ReplaceTextFix, Severity, VerifyFix
from ...refs.anchors import anchors
from ...refs.dependencies import declared, is_manifest, modules_in, names_in, provided_by
from ...refs.extract import BUN_BUILTINS, PNPM_BUILTINS, READ_BY_TOOLS, YARN_BUILTINS, Reference
from ...refs.fingerprint import SPECIFIC_KINDS, _config_value, fingerprinted
from ...refs.globs import matcher
from ...refs.history import GitHistory, parallel
from ...refs.index import LOCKFILES, CodeIndex, narrowed
from ...refs.manifests import TOOL_PROJECT_FILES, WELL_KNOWN_TOOLS, normal_extra, parse_manifest
from ...refs.symbols import LANGUAGES, FileSymbols, file_symbols, language_of, qualified_definition
from ...refs.versions import PACKAGES_MAX, declared_in_packages, declared_version, folders_up, patch_behind, version_matches
from ...workspace import ALWAYS_SKIPPED_DIRS, PathOutsideRoot
from .baseline import Baseline

if TYPE_CHECKING:
    from .checker import EntryResult, Pending, StalenessChecker

WORD = "word:"  # reverse-index keys "word:NAME": entries waiting for NAME to appear in some code file

#: Generated, dependency and runtime folders: references into them are not judged.
GENERATED = frozenset({"dist", "build", "out", "target", "node_modules", "coverage", ".next", ".nuxt", ".venv", "venv",
                       "__pycache__", ".cache", ".turbo", ".git", "tmp", ".tox"})
CODE_PATHSPECS = tuple(f"*{ext}" for ext in LANGUAGES)  # every file a symbol can be defined in
_MAX_FILES_PER_SYMBOL = 40


def code_pathspecs(index: CodeIndex) -> tuple[str, ...]:
    """:data:`CODE_PATHSPECS` without the vendored copies of dependencies the index leaves out of its code
    files (:attr:`CodeIndex.vendored`): a name is looked for in the past where it is looked for today."""
    return CODE_PATHSPECS + tuple(f":(exclude){folder}" for folder in index.vendored)


class Check(Protocol):
    def now(self, checker: StalenessChecker, item: Pending) -> bool: ...

    def judge(self, checker: StalenessChecker, items: list[Pending]) -> None: ...


def _baselines(checker: StalenessChecker, items: list[Pending]) -> dict[int, Baseline | None]:
    return {id(item): checker.baselines.of(item.entry, item.ref.line) for item in items}


def _committed(checker: StalenessChecker, items: list[Pending]) -> Iterator[tuple[Pending, Baseline, str]]:
    """Each item whose line has a committed baseline, with it and its commit: the others (a line not
    committed yet, no git) have no past to judge them by."""
    baselines = _baselines(checker, items)
    for item in items:
        baseline = baselines[id(item)]
        if baseline is not None and baseline.commit is not None:
            yield item, baseline, baseline.commit


def _unknown_past(checker: StalenessChecker) -> bool:
    """True when "it did not exist then" cannot be trusted (shallow or partial history)."""
    return not checker.history_trusted


# -- paths ------------------------------------------------------------------------------------------

_FILE_NAME = re.compile(r"^[\w.-]+\.[A-Za-z0-9]+$")  # `conftest.py`, `ajv-provider.ts` (not `README`)


class PathCheck:
    """Files and folders. Resolved relative to the command's folder or the instruction file's folder
    (and the folders above it), then the root; a bare file name anywhere in the tree; git-ignored,
    generated and runtime paths are never judged."""

    def now(self, checker: StalenessChecker, item: Pending) -> bool:
        ref, index = item.ref, checker.index
        try:
            checker.ws.check_inside(ref.target, item.base)  # judged here; read (if ever) by the index
        except PathOutsideRoot:
            return True  # text that climbs out of the root is not a reference we read
        spellings = [ref.target, *([ref.alt] if ref.alt else [])]
        bases = [item.base] if item.base else [""]
        if item.base and ref.scope is not None:
            bases.append(checker.base_of(item.entry))  # a command's folder, then the file's own
        candidates: list[str] = []
        for spelling in spellings:
            for base in bases:
                for c in index.candidates(spelling, base):
                    if c not in candidates:
                        candidates.append(c)
                        if spelling != ref.target:
                            item.data.setdefault("spelled", {})[c.rstrip("/")] = spelling
        found = next((c for c in candidates if index.exists(c)), None)
        if found:
            item.result.depends_on.add(found.rstrip("/"))
            return True
        # a path relative to a folder named above it under the same heading ("`src/core/prompts/
        # system-prompt/README.md`", then "`components/` - Shared sections")
        context = [c for folder in _context_folders(checker, item) if (c := f"{folder}/{ref.target}") not in candidates]
        # under the folder a rule's globs scope it to (`globs: packages/upgrade/**/*.test.tsx`: `./test/__helpers`)
        context += [c for folder in checker.rule_folders(item.entry) for c in index.candidates(ref.target, folder)
                    if c not in candidates and c not in context]
        # a module named without its extension (`src/utils/path` for `src/utils/path.ts`)
        context += [m for c in [*candidates, *context] for m in _module_files(c) if m not in context]
        found = next((c for c in context if index.exists(c)), None)
        if found:
            item.result.depends_on.add(found.rstrip("/"))
            return True
        item.data["context"] = context
        name = ref.target.rstrip("/")
        if "/" not in name and index.by_name.get(name):
            item.result.depends_on.add(index.by_name[name][0])  # `conftest.py`: one exists somewhere
            if not context:
                return True
            # under a folder named above (`components/` - Shared sections: `rules.ts`): what that folder
            # held when the memory was written decides; held by none, the one that exists holds
            item.data["named_elsewhere"] = True
        folder = ref.target.endswith("/")
        tail = _tail_of(index, name) if not folder else None
        item.result.depends_on.update(c.rstrip("/") for c in candidates)
        if tail is not None:
            # `common/debugLauncher.ts`: the end of a path that exists, a short form, unless the path
            # existed as written when the memory was written (`src/types.ts`, since moved into a package,
            # while `packages/core/src/types.ts` is another file): history says which (judge)
            item.result.depends_on.add(tail)
            item.data["tail"] = tail
            item.data["candidates"] = [c.rstrip("/") for c in candidates]
            return False
        if any(PurePosixPath(c).parts and PurePosixPath(c).parts[0] in GENERATED for c in candidates) or \
                any(index.ignored(c.rstrip("/")) or index.ignored(c.rstrip("/") + "/") for c in candidates):
            return True
        tail = _folder_tail_of(index, name) if folder else None
        if tail is not None:
            # `routes/` under a list of the server's folders, `browser-integration-tests/` for
            # `dev-packages/browser-integration-tests/`: the end of a folder that exists is a short form of
            # it, as for a file; judged only when the folder as written was there when its text entered
            item.result.depends_on.add(tail)
            item.data["tail"] = tail + "/"
            item.data["candidates"] = [c.rstrip("/") + "/" for c in candidates]
            return False
        item.data["candidates"] = [c.rstrip("/") + ("/" if folder else "") for c in candidates]
        return False

    def judge(self, checker: StalenessChecker, items: list[Pending]) -> None:
        history = checker.history
        if not history.available:
            for item in items:
                self._without_git(checker, item)
            return
        baselines = _baselines(checker, items)
        questions = [(b.commit, c) for item in items if (b := baselines[id(item)]) and b.commit
                     for c in item.data["candidates"]]
        questions += [("HEAD", c) for item in items for c in item.data["candidates"]]
        questions += [(at, c) for item in items if (b := baselines[id(item)]) and b.commit
                      for c in item.data.get("context", ()) for at in (b.commit, "HEAD")]
        answers = history.exists_at(questions)
        # Which commit deleted each path that existed then and is gone now: asked of git side by side
        # (the loop below then finds the answers in the history's memo).
        gone = {(c, b.commit) for item in items if (b := baselines[id(item)]) and b.commit
                for c in item.data["candidates"][:1] if answers.get((b.commit, c)) and not answers.get(("HEAD", c))}
        # and a path found under a folder named above it (judged when one such folder held it)
        for item in items:
            if (b := baselines[id(item)]) and b.commit and not any(answers.get((b.commit, c)) for c in item.data["candidates"]):
                held = [c for c in item.data.get("context", ()) if answers.get((b.commit, c))]
                if len(held) == 1 and not answers.get(("HEAD", held[0])):
                    gone.add((held[0], b.commit))
        spelled = {(c + ("/" if answers.get((since, c)) == "tree" else ""), since) for c, since in gone}
        # one git log for the paths of each baseline, the baselines side by side
        parallel(lambda since: history.prefetch_logs(
            since, [p.rstrip("/") + ("/" if p.endswith("/") else "") for p, s in spelled if s == since],
            "--diff-filter=DR", "--no-renames"), sorted({since for _, since in spelled}))
        removals = parallel(lambda q: history.removal(q[0], q[1]), sorted(spelled))
        # Where a path was moved to, and that place is gone too (moved again, deleted), `_gone` follows the
        # chain: its next questions asked together as well, per commit of the move.
        onward = {(r.moved_to, r.commit.sha) for r in removals
                  if r is not None and r.moved_to and not checker.index.exists(r.moved_to.rstrip("/"))}
        parallel(lambda since: history.prefetch_logs(since, [p for p, s in onward if s == since], "--diff-filter=DR",
                                                     "--no-renames"), sorted({since for _, since in onward}))
        # Paths that did not exist when the memory was written either: whether one was created and deleted
        # since, asked side by side as well (a bare file name is first looked for at the baseline).
        if not _unknown_past(checker):
            never = {(c, b.commit) for item in items if item.ref.strong and not item.data.get("tail")
                     and (b := baselines[id(item)]) and b.commit
                     and all((b.commit, c) in answers for c in item.data["candidates"])
                     and not any(answers[(b.commit, c)] for c in item.data["candidates"])
                     and ("/" in item.ref.target or not _FILE_NAME.match(item.ref.target))
                     for c in item.data["candidates"]}
            parallel(lambda since: history.prefetch_logs(
                since, [p.rstrip("/") + ("/" if p.endswith("/") else "") for p, s in never if s == since],
                "--diff-filter=D", "--no-renames", first=True), sorted({since for _, since in never}))
            parallel(lambda q: history.deleted_after(q[0], q[1]), sorted(never))
            # and, for lines of instruction files, when the reference's text entered the file (a line
            # re-worded after its target was gone is dated after it by blame): asked side by side too
            entering = {(item.ref.target.rstrip("/"), item.entry.location.path, b.commit) for item in items
                        if item.ref.strong and item.entry.format == "instruction"
                        and (b := baselines[id(item)])
                        and b.commit and not checker.baselines.verified(item.entry)
                        and all((b.commit, c) in answers for c in item.data["candidates"])
                        and not any(answers[(b.commit, c)] for c in item.data["candidates"])}
            history.prefetch_entered(entering)
        for item in items:
            baseline = baselines[id(item)]
            candidates = item.data["candidates"]
            what = "folder" if item.ref.target.endswith("/") else "file"
            if baseline is None or baseline.commit is None:
                if baseline is not None and baseline.uncommitted and item.ref.strong and not item.data.get("tail"):
                    checker.add(item, "unresolved-path", Severity.info,
                                f"{what} `{item.ref.target}` does not exist (this line is not committed yet)")
                continue
            if not all((baseline.commit, c) in answers for c in candidates):
                continue  # git could not answer: reported once as a history problem
            existed = [c for c in candidates if answers[(baseline.commit, c)]]
            if not existed:
                # relative to a folder named above: judged only when one such folder held it then
                held = {c for c in item.data.get("context", ()) if answers.get((baseline.commit, c))}
                existed = sorted(held) if len(held) == 1 else []
                item.data["in_context"] = bool(existed)
            if not existed and item.data.get("named_elsewhere"):
                continue  # a file of that name exists, and no folder named above held one then
            if not existed:
                existed = self._named_at_baseline(checker, item, baseline.commit)
            if not existed:
                if not item.data.get("tail"):
                    self._not_at_baseline(checker, item, baseline, what)
                elif item.ref.strong:  # a short form of a path that exists holds, unless it was the path itself
                    self._gone_since_entered(checker, item, baseline, what)  # when its text entered the file
                continue
            path = existed[0]
            spelled = item.data.get("spelled", {}).get(path.rstrip("/"))
            if spelled and item.ref.text.startswith("cd "):
                # what existed is the folder a `cd` names from where its block starts (`cd tools/b` after
                # `cd tools/a`, in a list of snippets each from the root): the finding names that one
                item.ref = item.ref._replace(target=spelled, alt=None)
            if answers.get((baseline.commit, path)) == "tree" and not path.endswith("/"):
                path += "/"
                what = "folder"
            if answers.get(("HEAD", path.rstrip("/"))):
                moved = _moved_in_worktree(checker, path) if what == "file" else None
                if moved:
                    new = PurePosixPath(moved).name if "/" not in item.ref.target else _respell(item.ref.target, path, moved)
                    checker.add(item, "moved-path", Severity.error,
                                f"`{item.ref.target}` was moved to `{new}` in the working tree (not committed yet)",
                                fix=ReplaceRefFix(old=item.ref.target, new=new))
                else:
                    checker.add(item, "stale-path", Severity.error,
                                f"{what} `{item.ref.target}` was deleted in the working tree (not committed yet)")
                continue
            self._gone(checker, item, path, baseline, what)

    def _gone_since_entered(self, checker: StalenessChecker, item: Pending, baseline: Baseline, what: str) -> bool:
        """A line of an instruction file rewritten after its target was gone (re-wrapped, a word changed
        around it): blame dates the line after the target's removal. The baseline of the reference is
        when its text entered the file; when the target existed then and is gone now, it is stale, from
        the commit that removed it."""
        entry = item.entry
        if entry.format != "instruction" or baseline.commit is None or checker.baselines.verified(entry):
            return False
        history = checker.history
        text = item.ref.target.rstrip("/")
        entered = history.entered(text, entry.location.path, baseline.commit)
        if entered is None or entered.sha == baseline.commit:
            return False
        if "/" not in text:
            # A name of one part (`docs/`) the file says more often now than when it entered: another mention
            # came since, and this line may be it (Archon's "Defaults to `docs/`", a setting's default written
            # after the repository's `docs/` was gone, while an older line named that folder): no date of
            # entry can be told for it. (A path of more parts is one thing, however often it is said.)
            now, then = (history.occurrences(text, entry.location.path, at) for at in (baseline.commit, entered.sha))
            if now is None or then is None or now > then:
                return False
        candidates = item.data["candidates"]
        answers = history.exists_at([(entered.sha, c) for c in candidates] + [("HEAD", c) for c in candidates])
        existed = [c for c in candidates if answers.get((entered.sha, c)) and not answers.get(("HEAD", c))]
        if not existed:
            return False
        path = existed[0]
        if answers.get((entered.sha, path)) == "tree" and not path.endswith("/"):
            path += "/"
            what = "folder"
        self._gone(checker, item, path, Baseline(entered.sha, f"written in {entered.short()}"), what)
        return True

    @staticmethod
    def _named_at_baseline(checker: StalenessChecker, item: Pending, commit: str) -> list[str]:
        """A bare file name (`ajv-provider.ts`) found nowhere today: the files of that name the tree held
        when the memory was written, nearest to the memory's folder first (what the name meant then); the
        end of a path (`modes/registry.ts`): the one file whose path ended so then."""
        name = item.ref.target
        last = name.rsplit("/", 1)[-1]
        if not _FILE_NAME.match(last) or ("/" in name and (not item.ref.strong or item.data.get("tail"))):
            return []  # (the end of a path that exists now: a short form of it, see `now`)
        # (not the copies under folders the tree is never read in: jest's `e2e/presets/*/node_modules/
        # jest-preset.js` fixtures are no file the index lists today either)
        paths = [p for p in checker.history.paths_named(commit, last) or []
                 if ALWAYS_SKIPPED_DIRS.isdisjoint(p.split("/")[:-1]) and not checker.index.ignored(p)]
        if "/" in name:
            # the end of a path (`modes/registry.ts` for `src/modes/registry.ts`), as a short form of a path
            # that exists now is read: the one file of the tree then whose path ends so
            paths = [p for p in paths if p.endswith("/" + name.removeprefix("./"))]
            return paths if len(paths) == 1 else []
        base = item.base or ""
        return sorted(paths, key=lambda p: (not p.startswith(base), p.count("/"), p))[:3]

    def _gone(self, checker: StalenessChecker, item: Pending, path: str, baseline: Baseline, what: str) -> None:
        history, index = checker.history, checker.index
        target = item.ref.target
        # (a path found relative to a folder named above is spelt out, not a bare name)
        bare = "/" not in target and not item.data.get("in_context")  # (`proto/` is the root's folder, not a name)
        removal = history.removal(path, baseline.commit or "")
        if removal is None and (merged := _merged_path(checker, item.entry, path, baseline.commit or "")):
            # the memory was written in a history merged in under a folder (a subtree): the path as
            # that folder holds it here
            removal, path = history.removal(merged, baseline.commit or ""), merged
        moved, since = (removal.moved_to, removal.commit.sha) if removal else (None, "")
        # A bare name (`ajv-provider.ts`) stayed true while the file kept its name: the commit that made
        # it false is the first of the chain that renamed or deleted it, not a move of its folder.
        decisive = removal
        last_place, deleted = None, None  # moved there, then deleted by that commit
        for _ in range(5):  # follow a chain of renames to a place that exists now
            if bare and decisive is not None and moved and PurePosixPath(moved).name == PurePosixPath(path).name:
                decisive = None
            if not moved or index.exists(moved):
                break
            later = history.removal(moved, since)
            if decisive is None:
                decisive = later
            if later is None or not later.moved_to:
                last_place, deleted = moved, later
                moved = None
                break
            moved, since = later.moved_to, later.commit.sha
        removal = decisive or removal
        when = f" in {removal.commit.describe()}" if removal else " after this memory was written"
        if item.data.get("named_elsewhere") and (moved and index.exists(moved) or what != "file" or removal is None):
            # a bare name read under a folder named above: said only of a file git shows deleted, or moved
            # within that folder, whose name then names a file not where the line puts it ("### Transports
            # (`ramalama/transports/`)", "`oci.py`", since moved to `ramalama/transports/oci/oci.py`): a
            # warning, with the new place. Moved with its folder (cline's `proto/cline/` under `apps/vscode/`),
            # it is still where the line puts it, in the folder whose own line says where it went.
            folder = path[: -len(target) - 1] if path.endswith("/" + target) else None
            if moved and index.exists(moved) and what == "file" and removal is not None and item.data.get("in_context") \
                    and folder and moved.startswith(folder + "/"):
                new = _respell(target, path, moved)
                checker.add(item, "moved-path", Severity.warning,
                            f"`{target}` (in `{folder}/`, named above) was moved to `{new}`{when}",
                            fix=None if _generated(index, moved) else ReplaceRefFix(old=target, new=new),
                            commit=removal.commit)
            return
        if moved and index.exists(moved):
            new = PurePosixPath(moved).name if bare else _respell(target, path, moved)
            if _module_files(target) and not _module_files(new):  # written as a module: a module it stays
                new = _as_module(new)
            fix: ReplaceRefFix | None = ReplaceRefFix(old=target, new=new)
            if target.endswith("/") and target not in item.ref.text:  # a folder written without its slash
                fix = ReplaceRefFix(old=target.rstrip("/"), new=new.rstrip("/"))  # ("the src folder")
            generated = _generated(index, moved)
            if generated:
                fix = None  # a memory is not pointed at a file no one is to edit
            checker.add(item, "moved-path", Severity.error, f"`{target}` was moved to `{new}`{when}{generated}",
                        fix=fix, commit=removal.commit if removal else None)
            return
        if removal and what == "file":
            copy = _same_content(checker, path, removal.commit.sha)
            if copy and item.data.get("named_elsewhere"):
                return
            if copy:
                new = _respell(target, path, copy)
                generated = _generated(index, copy)
                checker.add(item, "moved-path", Severity.error,
                            f"`{target}` was deleted{when}; the same content is now at `{new}`{generated}",
                            fix=None if generated else ReplaceRefFix(old=target, new=new), commit=removal.commit)
                return
        package = _package_of(index, path) if what == "file" else None
        if package is not None and item.data.get("named_elsewhere"):
            return
        if package is not None:
            new = _respell(target, path, package)
            checker.add(item, "moved-path", Severity.error, f"`{target}` was deleted{when}; it is now the package `{new}`",
                        fix=ReplaceRefFix(old=target, new=new), commit=removal.commit if removal else None)
            return
        if removal and deleted is not None and last_place and deleted.commit.sha != removal.commit.sha:
            # moved first (what made the memory's path false), deleted from its new place later
            checker.add(item, "stale-path", Severity.error,
                        f"{what} `{target}` was moved to `{_respell(target, path, last_place)}`{when}, then deleted in "
                        f"{deleted.commit.describe()}", commit=removal.commit)
            return
        # no commit found that removed it (its early history under another root, a subtree merged in):
        # what git shows is weaker, and so is the finding
        checker.add(item, "stale-path", Severity.error if removal else Severity.warning, f"{what} `{target}` was deleted{when}",
                    commit=removal.commit if removal else None)

    def _not_at_baseline(self, checker: StalenessChecker, item: Pending, baseline: Baseline, what: str) -> None:
        if not item.ref.strong or _unknown_past(checker):
            return
        if self._gone_since_entered(checker, item, baseline, what):
            return
        for candidate in item.data["candidates"]:
            deleted = checker.history.deleted_after(candidate, baseline.commit or "")
            if deleted:
                checker.add(item, "stale-path", Severity.warning,
                            f"{what} `{item.ref.target}` was deleted in {deleted.describe()} (it was created after "
                            f"this memory was {baseline.how})", commit=deleted)
                return
        if what == "file" and _typescript_source(checker.index, item):
            return  # `exports/client/index.js`: how an ES module import names `…/exports/client/index.ts`
        meant = _meant(checker, item.ref.target) if what == "file" else None
        if meant is not None:  # a wrong folder for a file that exists once, under a folder the path names
            checker.add(item, "unresolved-path", Severity.warning,
                        f"file `{item.ref.target}` does not exist (and did not when this memory was {baseline.how}); "
                        f"the one file of that name is `{meant}`", fix=ReplaceRefFix(old=item.ref.target, new=meant))
            return
        where = ""
        if what == "folder" and "/" not in item.ref.target.rstrip("/"):
            # a folder of one name was looked for where the file stands and above it, not in every folder
            # of the tree (`gpt-5/` in a list of `variants/`'s folders)
            where = " here (beside this file or above it)" if item.base else " at the root"
        checker.add(item, "unresolved-path", Severity.info,
                    f"{what} `{item.ref.target}` does not exist{where}, and did not when this memory was {baseline.how}")

    def _without_git(self, checker: StalenessChecker, item: Pending) -> None:
        """No history: a missing file that exists elsewhere under the same name probably moved."""
        if not item.ref.strong or item.data.get("tail") or item.data.get("named_elsewhere"):
            return
        target = item.ref.target
        what = "folder" if target.endswith("/") else "file"
        name = PurePosixPath(target).name
        elsewhere = checker.index.by_name.get(name, []) if "." in name else []
        if len(elsewhere) == 1:
            checker.add(item, "moved-path", Severity.warning,
                        f"`{target}` does not exist; `{elsewhere[0]}` has the same name (moved?)",
                        fix=ReplaceRefFix(old=target, new=elsewhere[0]))
        else:
            checker.add(item, "missing-path", Severity.warning, f"{what} `{target}` does not exist")


#: A module that became a package of the same name: the file the package's folder holds for it.
_PACKAGE_FILES = {".py": ("__init__.py",), ".rs": ("mod.rs",), ".ts": ("index.ts",), ".tsx": ("index.tsx", "index.ts"),
                  ".js": ("index.js",), ".mjs": ("index.mjs",), ".jsx": ("index.jsx", "index.js")}


def _package_of(index: Any, path: str) -> str | None:
    """The package folder a deleted module became (`processors/frameworks/rtvi.py` ->
    `processors/frameworks/rtvi/`, holding `__init__.py`), if it exists now."""
    pure = PurePosixPath(path)
    folder = str(pure.with_suffix(""))
    for name in _PACKAGE_FILES.get(pure.suffix, ()):
        if index.exists(f"{folder}/{name}"):
            return folder + "/"
    return None


def _merged_path(checker: StalenessChecker, entry: Entry, path: str, commit: str) -> str | None:
    """``path`` under the folder a history was merged into, when the memory's file was written there
    at its root or higher up (continue's `extensions/cli/AGENTS.md` was `AGENTS.md` in the CLI's own
    history: its `src/mcp.ts` is `extensions/cli/src/mcp.ts` here); ``None`` otherwise."""
    if entry.format != "instruction" or not commit or "/" not in entry.location.path:
        return None
    parts = entry.location.path.split("/")
    shorter = ["/".join(parts[k:]) for k in range(1, len(parts))]
    answers = checker.history.exists_at([(commit, entry.location.path), *((commit, s) for s in shorter)])
    if answers.get((commit, entry.location.path)):
        return None
    for k, suffix in enumerate(shorter, start=1):
        if answers.get((commit, suffix)):
            return "/".join(parts[:k]) + "/" + path
    return None


#: The files a module path written without its extension may be.
_MODULE_SUFFIXES = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".py", ".go", ".rs", "/index.ts", "/index.tsx", "/index.js",
                    "/__init__.py", "/mod.rs")


def _as_module(path: str) -> str:
    for suffix in sorted(_MODULE_SUFFIXES, key=len, reverse=True):
        if path.endswith(suffix):
            return path[: -len(suffix)]
    return path


#: TypeScript's sources of the JavaScript file an ES module import names (`./client.js` imports `client.ts`).
_TYPESCRIPT_SOURCES = {".js": (".ts", ".tsx"), ".jsx": (".tsx",), ".mjs": (".mts",), ".cjs": (".cts",)}


def _typescript_source(index: CodeIndex, item: Pending) -> bool:
    """Whether a ``.js`` path that never existed names a TypeScript source that does, as the import
    specifiers of TypeScript's ES modules write it: where the path would be, or as the end of one path."""
    pure = PurePosixPath(item.ref.target)
    for ext in _TYPESCRIPT_SOURCES.get(pure.suffix, ()):
        for path in [*item.data.get("candidates", ()), *item.data.get("context", ()), item.ref.target]:
            source = str(PurePosixPath(path).with_suffix(ext))
            if index.exists(source) or (path == item.ref.target and _tail_of(index, source)):
                return True
    return False


def _module_files(path: str) -> list[str]:
    """``src/utils/path`` -> ``src/utils/path.ts``, ``src/utils/path/index.ts``...: for a path of two parts
    or more whose last has no extension."""
    if path.endswith("/") or "/" not in path or "." in PurePosixPath(path).name:
        return []
    return [path + suffix for suffix in _MODULE_SUFFIXES]


def _context_folders(checker: StalenessChecker, item: Pending) -> list[str]:
    """The folders above a relative path of an instruction file (see ``folders_before``)."""
    target = item.ref.target
    if item.ref.kind != "path" or item.ref.scope is not None or target.startswith(("/", "./", "../", "~", "@")):
        return []
    return checker.folders_before(item.entry, item.ref)


def _tail_of(index: Any, path: str) -> str | None:
    """An existing file whose path ends with ``path`` (two or more components, written relative:
    `common/debugLauncher.ts` for `src/client/testing/common/debugLauncher.ts`), the first of them."""
    parts = PurePosixPath(path).parts
    if len(parts) < 2 or path.startswith(("/", "./", "../")) or ".." in parts:
        return None
    return next((p for p in index.by_name.get(parts[-1], []) if p.endswith("/" + path)), None)


def _folder_tail_of(index: Any, path: str) -> str | None:
    """An existing folder whose path ends with ``path`` (`routes` for `server/routes`), the first of them."""
    parts = PurePosixPath(path).parts
    if not parts or path.startswith(("/", "./", "../")) or ".." in parts:
        return None
    return next((p for p in index.dirs_by_name.get(parts[-1], []) if p.endswith("/" + path)), None)


def _meant(checker: StalenessChecker, target: str) -> str | None:
    """The file a wrong path means, when that is clear: the only file of its name in the tree, under a
    folder the path also names (`src/client/testing/testController/common/debugLauncher.ts` ->
    `src/client/testing/common/debugLauncher.ts`), and not a name many projects have in many places."""
    parts = PurePosixPath(target).parts
    if len(parts) < 2 or not _FILE_NAME.match(parts[-1]) or parts[-1].lower() in _COMMON_NAMES:
        return None
    found = checker.index.by_name.get(parts[-1], [])
    if len(found) != 1:
        return None
    folders = set(PurePosixPath(found[0]).parts[:-1])
    return found[0] if folders & set(parts[:-1]) else None


#: File names too common to say which file a wrong path meant.
_COMMON_NAMES = frozenset("index.ts index.js index.tsx main.py __init__.py utils.py utils.ts types.ts config.ts config.py"
                          " package.json readme.md setup.py conftest.py mod.rs lib.rs main.rs main.go".split())


def _respell(target: str, old: str, new: str) -> str:
    """The new place spelt as the memory spelt the old one (relative to the same folder when it was)."""
    old_clean, new_clean = old.rstrip("/"), new.rstrip("/")
    spelled = target.rstrip("/")
    suffix = "/" if target.endswith("/") or new.endswith("/") else ""
    if old_clean.endswith("/" + spelled) and old_clean != spelled:
        prefix = old_clean[: -len(spelled) - 1]
        if new_clean.startswith(prefix + "/"):
            return new_clean[len(prefix) + 1 :] + suffix
    return new_clean + suffix


def _moved_in_worktree(checker: StalenessChecker, path: str) -> str | None:
    """Where a file deleted in the working tree went, when it was renamed there (not committed): a rename
    staged in the index, else the one file git does not track yet, or added to the index, whose content
    is what HEAD holds for it."""
    staged = checker.history.staged_renames().get(path)
    if staged is not None and checker.index.exists(staged):
        return staged  # `git mv`, perhaps edited since: git's rename detection says where it went
    before = checker.history.read_at([("HEAD", path)]).get(("HEAD", path))
    if before is None:
        return None
    same = [p for p in checker.history.new_in_worktree() if p != path and checker.index.read(p) == before]
    return same[0] if len(same) == 1 else None


def _same_content(checker: StalenessChecker, path: str, removal_sha: str) -> str | None:
    """Where a deleted file went when git did not record a rename (deleted in one commit, added in
    another): a file of the same name whose content is what the file held before its deletion."""
    name = PurePosixPath(path).name
    others = [p for p in checker.index.by_name.get(name, []) if p != path]
    if not others:
        return None
    before = checker.history.read_at([(f"{removal_sha}^", path)]).get((f"{removal_sha}^", path))
    if before is None:
        return None
    same = [p for p in others if checker.index.read(p) == before]
    return same[0] if len(same) == 1 else None


# -- symbols ----------------------------------------------------------------------------------------

class SymbolCheck:
    """Code symbols. A name written in text that the code still mentions (defining it, or using an
    external API of that name) is not stale. A name the code no longer mentions at all is stale only if
    the code *defined* it when the memory was written (a dotted name as a member of that class or
    module); otherwise it was never the project's symbol (a tool, an option, an i18n key). A symbol
    named in ``refs`` with its file is checked in that file."""

    def now(self, checker: StalenessChecker, item: Pending) -> bool:
        ref = item.ref
        if not ref.file:
            return False  # resolved in one pass over the code with the others (judge)
        path = checker.index.resolve(ref.file, checker.base_of(item.entry))
        if path is None:
            return True  # the path reference reports the missing file
        item.result.depends_on.add(path)
        if _defined_in_file(checker, ref.target, path):
            return True
        if language_of(path) is None and not path.endswith((".json", ".toml")):
            return True  # a file we cannot parse: do not guess
        item.data["file"] = path
        return False

    def judge(self, checker: StalenessChecker, items: list[Pending]) -> None:
        index = checker.index
        text = [i for i in items if not i.ref.file]
        members = {i.ref.target: m for i in text if (m := _member(i.ref.target))}
        mentions = index.files_mentioning({i.ref.target for i in text} | set(members.values()))
        unknown: list[Pending] = []
        for item in text:
            files = mentions[item.ref.target]
            if files:
                # Defined here or an external API used here: either way not stale while the code mentions
                # it, so nothing is parsed; the verdict can change only when one of these files changes.
                item.result.depends_on.update(files)
                continue
            member = members.get(item.ref.target)
            if member and not mentions[member]:
                item.data["member"] = member  # `hl.human_as_tool()`: the name itself is mentioned nowhere either
            # Mentioned nowhere: the verdict changes only if some code file starts to mention the name,
            # and it is stale only if the code defined it when the memory was written.
            item.result.depends_on.add(WORD + item.ref.target.rsplit(".", 1)[-1])
            unknown.append(item)
        explicit = [i for i in items if i.ref.file]
        if not checker.history.available:
            for item in explicit:
                checker.add(item, "unresolved-symbol", Severity.warning,
                            f"`{item.ref.target}` is not defined in `{item.data['file']}`")
            return
        self._judge_text(checker, unknown)
        self._judge_explicit(checker, explicit)

    def _judge_text(self, checker: StalenessChecker, items: list[Pending]) -> None:
        history = checker.history
        baselines = _baselines(checker, items)
        by_commit: dict[str, list[Pending]] = {}
        for item in items:
            baseline = baselines[id(item)]
            if baseline and baseline.commit:
                by_commit.setdefault(baseline.commit, []).append(item)
        commits = list(by_commit)
        answers = parallel(lambda c: history.grep_at(c, {w for i in by_commit[c] for w in _words(i.ref.target)},
                                                     code_pathspecs(checker.index)), commits)
        envs: list[tuple[Pending, str, list[str]]] = []  # names the code may have read from the environment
        for commit, found in zip(commits, answers, strict=True):
            group = by_commit[commit]
            if found is None:
                continue  # git could not answer: reported as a history problem
            wanted: dict[int, list[str]] = {}
            alone: dict[int, list[str]] = {}  # the files that held a member's own name (see `_member`)
            for item in group:
                parts = _words(item.ref.target)
                files = set(found.get(parts[-1], set())) if parts else set()
                if item.data.get("member"):
                    alone[id(item)] = sorted(files, key=lambda p: _defining_first(parts[-1], p))[:_MAX_FILES_PER_SYMBOL]
                for word in parts[:-1]:
                    files = narrowed(files, found.get(word, set()), word)
                wanted[id(item)] = sorted(files, key=lambda p: _defining_first(item.ref.target, p))[:_MAX_FILES_PER_SYMBOL]
            symbols = _symbols_at(checker, commit, {p for files in (*wanted.values(), *alone.values()) for p in files})
            defined: list[tuple[Pending, list[str]]] = []
            for item in group:
                defining = [p for p in wanted[id(item)] if p in symbols
                            and qualified_definition(symbols[p], item.ref.target, p) is not None]
                if not defining and id(item) in alone:
                    # `hl.human_as_tool()`: `hl` an instance, not a class; the method alone was the project's.
                    defining = [p for p in alone[id(item)] if p in symbols
                                and qualified_definition(symbols[p], item.data["member"], p) is not None]
                    item.data["alone"] = bool(defining)
                near = item.ref.near
                if not defining and near:
                    # "see `x` in `src/a.py`": the memory placed the name in a file that held it then.
                    base = checker.base_of(item.entry)
                    defining = [p for p in wanted[id(item)] if p in checker.index.candidates(near, base)]
                if defining:  # else never the project's symbol when the memory was written: an external name
                    defined.append((item, defining))
                elif _ENV_NAME.fullmatch(item.ref.target) and wanted[id(item)]:
                    envs.append((item, commit, wanted[id(item)]))
            defined = _anchored(checker, defined)
            # when each name left the files that defined it: one question of git for the names of the same files
            by_files: dict[tuple[str, ...], set[str]] = {}
            for item, defining in defined:
                by_files.setdefault(tuple(defining), set()).add(_last(item))
            asked = list(by_files.items())
            left = dict(zip(by_files, parallel(lambda q, at=commit: history.word_changes(q[1], at, q[0]), asked), strict=True))
            changes = [left[tuple(defining)][_last(item)] for item, defining in defined]
            moved = _members_moved(checker, commit, [item for item, _ in defined])
            for (item, defining), change in zip(defined, changes, strict=True):
                last = item.ref.target.rsplit(".", 1)[-1]
                baseline = baselines[id(item)]
                when = _removed_when(checker, last, defining, change)
                then = f"it was in `{defining[0]}` when this memory was {baseline.how if baseline else 'written'}"
                if id(item) in moved:  # `A.m` gone, and `m` is now a member of one other type only
                    now, path = moved[id(item)]
                    old_owner, new_owner = item.ref.target.rsplit(".", 1)[0], now.rsplit(".", 1)[0]
                    written = item.ref.text.strip("`").removesuffix("()")
                    fix = ReplaceRefFix(old=written, new=written.replace(old_owner, new_owner, 1)) \
                        if written.startswith(old_owner) else None
                    checker.add(item, "stale-symbol", Severity.error,
                                f"`{item.ref.target}` is no longer defined ({when}; {then}); it is now `{now}` in "
                                f"`{path}`", fix=fix, commit=change)
                    continue
                called = f"`{item.data['member']}` (called as `{item.ref.target}`)" if item.data.get("alone") else f"`{item.ref.target}`"
                checker.add(item, "stale-symbol", Severity.error,
                            f"{called} is no longer defined anywhere in the code ({when}; {then})", commit=change)

        if envs:
            _gone_env_reads(checker, envs, baselines)

    def _judge_explicit(self, checker: StalenessChecker, items: list[Pending]) -> None:
        history = checker.history
        baselines = _baselines(checker, items)
        blobs = history.read_at([(b.commit, i.data["file"]) for i in items if (b := baselines[id(i)]) and b.commit])

        def defined_then(item: Pending) -> str | None:
            """The baseline commit when the file named the symbol then (the memory was true), else None."""
            baseline = baselines[id(item)]
            if baseline is None or not baseline.commit:
                return None
            then = blobs.get((baseline.commit, item.data["file"]))
            return baseline.commit if then is not None and _defined_in_bytes(item.data["file"], then, item.ref.target) else None

        commits = [defined_then(item) for item in items]
        changes = parallel(lambda pair: history.word_change(pair[0].ref.target.rsplit(".", 1)[-1], pair[1], [pair[0].data["file"]])
                           if pair[1] else None, list(zip(items, commits, strict=True)))
        for item, commit, change in zip(items, commits, changes, strict=True):
            path, target = item.data["file"], item.ref.target
            baseline = baselines[id(item)]
            if commit:
                last = target.rsplit(".", 1)[-1]
                elsewhere = [p for p in checker.index.where_defined(target) if p != path]
                where = f"; it is now defined in `{elsewhere[0]}`" if elsewhere else ""
                checker.add(item, "stale-symbol", Severity.error,
                            f"`{target}` is no longer defined in `{path}` ({_removed_when(checker, last, [path], change)}{where})",
                            commit=change)
                continue
            if baseline is None or baseline.commit is None or (baseline.commit, path) in blobs or not _unknown_past(checker):
                checker.add(item, "unresolved-symbol", Severity.info if baseline and baseline.commit else Severity.warning,
                            f"`{target}` is not defined in `{path}`"
                            + (f", and was not when this memory was {baseline.how}" if baseline and baseline.commit else ""))


_TEST_PATH = re.compile(r"(?:^|/)(?:__tests__|tests?|spec|e2e|fixtures?)/|[._-](?:test|spec)\.[^/]+$")


def _defining_first(symbol: str, path: str) -> tuple[bool, bool, int, str]:
    """The order in which files that mention a symbol are parsed for its definition (at most
    ``_MAX_FILES_PER_SYMBOL`` of them): a file named after it, then code before tests, shallower
    before deeper (cline's `ModelFamily`, used by 44 files, is defined in `src/shared/prompts.ts`). A file
    is named after it whatever its separators (dyad's `IpcClient` in `src/ipc/ipc_client.ts`, which more
    than 40 files of the folders before `src/ipc/` used)."""
    name, plain = (text.lower().replace("_", "").replace("-", "") for text in (symbol.rsplit(".", 1)[-1], path))
    return (name not in plain, bool(_TEST_PATH.search(path)), path.count("/"), path)


def _anchored(checker: StalenessChecker, defined: list[tuple[Pending, list[str]]]) -> list[tuple[Pending, list[str]]]:
    """Of the names gone from the code, those a block of code uses are kept only where the block is about the
    project's code: another name of the same block was defined with it, when the memory was written, in
    a file that is gone from the code too, or is defined there now (``useView`` beside ``toggleSortOrder``
    in ``ViewContext.tsx``), or the memory is a file nested in a folder that held the file defining it
    (``statusCollector.SetSyncStatus(mcpv1alpha1.SyncPhaseFailed, …)`` in ``cmd/thv-operator/CLAUDE.md``,
    both defined under ``cmd/thv-operator/`` then). An example's names have no such partner: a component
    made up to show an SDK (``<RunDetails id={id} />``) that the project once had elsewhere, a prop of a
    sample component."""
    blocks: dict[tuple[str, int], list[tuple[Pending, set[str]]]] = {}
    for item, defining in defined:
        if item.ref.block is not None:
            blocks.setdefault((item.entry.id, item.ref.block), []).append((item, set(defining)))
    kept = []
    for item, defining in defined:
        block = item.ref.block
        if block is None:
            kept.append((item, defining))
            continue
        files = set(defining)
        if any(other.ref.target != item.ref.target and files & where for other, where in blocks[(item.entry.id, block)]):
            kept.append((item, defining))
            continue
        folder = item.entry.location.path.rpartition("/")[0]
        if folder and any(path.startswith(folder + "/") for path in files):
            kept.append((item, defining))  # a nested file about its folder's code
            continue
        names = {r.target for r in checker.references(item.entry) if r.block == block and r.target != item.ref.target}
        if any(names.intersection(symbols.definitions) for path in files
               if (symbols := checker.index.symbols(path)) is not None):
            kept.append((item, defining))
    return kept


#: An environment variable's name: ``DSN``, ``OPENAI_API_KEY``.
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*")


def _env_read(name: str) -> re.Pattern[bytes]:
    """Code reading ``name`` from the environment: ``os.Getenv("DSN")``, ``os.environ["DSN"]``,
    ``os.getenv('DSN', ...)``, ``process.env.DSN``, ``process.env["DSN"]``, ``import.meta.env.DSN``,
    ``env::var("DSN")``, ``System.getenv("DSN")``, ``ENV["DSN"]``, ``Deno.env.get("DSN")``."""
    quoted = rb"[\"'`]" + re.escape(name.encode()) + rb"[\"'`]"
    return re.compile(rb"(?:getenv|Getenv|LookupEnv|environ(?:\.get)?|env::var(?:_os)?|env\.get|ENV|Setenv|getEnv)\s*[(\[]\s*"
                      + quoted + rb"|\benv\.(?:" + re.escape(name.encode()) + rb")\b|\benv\[\s*" + quoted)


def _gone_env_reads(checker: StalenessChecker, envs: list[tuple[Pending, str, list[str]]],
                    baselines: dict[int, Baseline | None]) -> None:
    """``DSN=postgres://… go test ./...``, ``process.env.FEATURE_FLAG``: a variable the code read from the
    environment when the memory was written, that no code, build, CI or configuration file names now.
    An error, or a warning where libraries read such a variable on their own (``*_API_KEY``, ``AWS_*``)."""
    index, history = checker.index, checker.history
    blobs = history.read_at({(commit, p) for _, commit, paths in envs for p in paths})
    read: list[tuple[Pending, str, list[str]]] = []
    for item, commit, paths in envs:
        pattern = _env_read(item.ref.target)
        readers = [p for p in paths if (data := blobs.get((commit, p))) is not None and pattern.search(data)]
        if readers:
            read.append((item, commit, readers))
    if not read:
        return
    names = {item.ref.target for item, _, _ in read}
    named: set[str] = set()
    for path in index.files:
        if not (_runs_tools(path) or _is_config(path) or path.endswith((".sh", ".bash", ".env", ".yml", ".yaml"))
                or "/.env" in "/" + path):
            continue
        data = index.read(path)
        if data is None:
            continue
        for name in names - named:
            if name.encode() in data and re.search(rb"(?<![\w])" + re.escape(name.encode()) + rb"(?![\w])", data):
                named.add(name)
                for item, _, _ in read:
                    if item.ref.target == name:
                        item.result.depends_on.add(path)
    read = [r for r in read if r[0].ref.target not in named]
    changes = parallel(lambda r: history.word_change(r[0].ref.target, r[1], r[2]), read)
    for (item, _, readers), change in zip(read, changes, strict=True):
        baseline = baselines[id(item)]
        when = f"removed in {change.describe()}" if change else "removed after this memory was written"
        severity = Severity.warning if READ_BY_TOOLS.search(item.ref.target) else Severity.error
        checker.add(item, "stale-env", severity,
                    f"the code no longer reads the environment variable `{item.ref.target}` ({when}; `{readers[0]}` read it "
                    f"when this memory was {baseline.how if baseline else 'written'}, and no code, build, CI or "
                    f"configuration file names it now)", commit=change)


def _last(item: Pending) -> str:
    """The name a symbol reference looks for in code: its last part (``Class.method`` -> ``method``)."""
    return item.ref.target.rsplit(".", 1)[-1]


def _member(target: str) -> str | None:
    """The member a dotted name calls on something that is not a class or module of the project
    (``hl.human_as_tool``: ``hl`` an instance), when the member's own name is of more than one word
    (``human_as_tool``, ``requireApproval``): it is judged alone when the dotted name was never defined."""
    if "." not in target:
        return None
    last = target.rsplit(".", 1)[-1]
    return last if len(last) >= 6 and ("_" in last.strip("_") or _CAMEL_HUMP.search(last)) else None


_CAMEL_HUMP = re.compile(r"[a-z][A-Z]")


def _words(target: str) -> list[str]:
    return [w for w in re.split(r"[.]", target) if w]


#: What the head of a generated file says ("// Code generated by protoc-gen-go. DO NOT EDIT.", "@generated").
_GENERATED_MARK = re.compile(rb"do not edit|@generated|auto-?generated|code generated by|this file (?:is|was) generated",
                             re.IGNORECASE)


def _generated(index: Any, path: str) -> str:
    """Where the file ``path`` says in its first lines that it is generated: what a finding adds about it
    (its fix then offers nothing: a memory is not pointed at a file no one is to edit); else ``""``."""
    data = index.read(path) if not path.endswith("/") else None
    return "; it is generated (marked not to be edited by hand)" if data and _GENERATED_MARK.search(data[:1024]) else ""


def _members_moved(checker: StalenessChecker, commit: str, items: list[Pending]) -> dict[int, tuple[str, str]]:
    """For the members ``Type.member`` that are gone: where one other type defines that member now and did
    not at ``commit`` (when the memory was written), the one such ``Other.member`` and its file (the
    member moved there: `PeepholeOptimizations::run_in_loop`, now `Compressor::run_in_loop`). Several
    such types, or one that had the member then too: none (another thing of that name)."""
    members = {id(item): item.ref.target.rsplit(".", 1) for item in items if item.ref.target.count(".") == 1}
    members = {k: (owner, member) for k, (owner, member) in members.items() if len(member) >= 4 and owner}
    if not members:
        return {}
    index = checker.index
    mentioning = index.files_mentioning({member for _, member in members.values()})
    out: dict[int, tuple[str, str]] = {}
    for key, (owner, member) in members.items():
        found = [(name, path) for path in mentioning.get(member, [])[:_MAX_FILES_PER_SYMBOL]
                 if (symbols := index.symbols(path)) is not None
                 for name in symbols.definitions if name.count(".") == 1 and name.endswith("." + member)
                 and name != f"{owner}.{member}"]
        if len({name for name, _ in found}) != 1 or len(found) != 1:
            continue
        name, path = found[0]
        then = _symbols_at(checker, commit, {path}).get(path)
        if then is not None and name in then.definitions:
            continue  # that type had it when the memory was written: another member of the same name
        out[key] = (name, path)
    return out


def _symbols_at(checker: StalenessChecker, commit: str, paths: set[str]) -> dict[str, FileSymbols]:
    """The symbols of files as they were at ``commit``: parsed once per checker (a commit never changes;
    an editor's checker asks again after every save of a file whose name went missing)."""
    parsed = checker.parsed_at
    missing = [p for p in sorted(paths) if (commit, p) not in parsed]
    if missing:
        blobs = checker.history.read_at([(commit, p) for p in missing])
        for (c, p), data in blobs.items():
            if data is not None:
                parsed[(c, p)] = file_symbols(p, data)
    return {p: parsed[(commit, p)] for p in paths if (commit, p) in parsed}


def _defined_in_file(checker: StalenessChecker, symbol: str, path: str) -> bool:
    if checker.index.verified_fingerprint(path, symbol) is not None:
        return True  # verified there, and the file has not changed since
    if path.endswith((".json", ".toml")):
        return checker.fingerprints.config_value(path, symbol) is not None
    return checker.index.defined_in(symbol, path) is not None


def _defined_in_bytes(path: str, data: bytes, symbol: str) -> bool:
    if path.endswith((".json", ".toml")):

        return _config_value(path, data, symbol) is not None
    return qualified_definition(file_symbols(path, data), symbol, path) is not None


def _removed_when(checker: StalenessChecker, word: str, paths: list[str], change: Any) -> str:
    """How a finding names the removal of a name: the commit, or the uncommitted changes."""
    history = checker.history
    if any(p in history.dirty() for p in paths) and history.in_head(word, tuple(paths)):
        return "removed in uncommitted changes" + (f"; last changed in {change.describe()}" if change else "")
    return f"removed in {change.describe()}" if change else "removed after this memory was written"


# -- scripts, make targets, just recipes, console scripts --------------------------------------------

_NOUNS = {"script": ("stale-script", "script"), "make": ("stale-make-target", "make target"),
          "just": ("stale-just-recipe", "just recipe"), "task": ("stale-task", "task"),
          "tox": ("stale-tox-env", "tox environment"),
          "console": ("stale-console-script", "console script"),
          "extra": ("stale-extra", "extra"), "group": ("stale-dependency-group", "dependency group")}


def _goals(ref: Reference) -> frozenset[str]:
    """The names the command holding ``ref`` asks for besides it (``make unkey dev seed local``): a
    Makefile may make a rule for one of them that takes the others."""
    if ref.kind != "make":
        return frozenset()
    return frozenset(w for w in ref.text.split() if not w.startswith("-") and "=" not in w) - {ref.target}


def _defined_as(ref: Reference) -> str:
    """The name a manifest defines for what ``ref`` names: extras and dependency groups by their
    normal form under their prefix (``extra:krisp``)."""
    return f"{ref.kind}:{normal_extra(ref.target)}" if ref.kind in ("extra", "group") else ref.target


class ManifestNameCheck:
    """A name a manifest defines: package.json scripts, make targets, just recipes, pyproject scripts.
    Looked up in the manifests in scope (the folder a command runs in, the workspace package it
    targets, the instruction file's folder, up to the root); names that are dependencies' executables,
    runner built-ins or well-known tools are not the project's; a manifest with names that cannot be
    known statically (includes we cannot read, ``$(VAR)`` targets) is not judged."""

    def now(self, checker: StalenessChecker, item: Pending) -> bool:
        ref, index = item.ref, checker.index
        name = _defined_as(ref)
        if ref.package == "*":
            return True  # a recursive run: any package may define it, or none (pnpm -r skips those)
        if ref.scope and not index.exists(ref.scope):
            return True  # `cd gone && npm run lint`: the missing folder is the finding, not its scripts
        folder = item.base
        if ref.package:
            found = index.package_folder(ref.package)
            if found is None:
                return True  # a package this checker cannot place: do not guess
            folder = found
        manifests = index.manifests_in_scope(ref.kind, folder)
        if not manifests:
            return True
        item.result.depends_on.update(m.path for m in manifests)
        goals = _goals(ref)
        if any(m.defines(name, goals) for m in manifests):
            return True
        if ref.kind == "console" or (ref.kind == "script" and ref.runner != "npm"):
            # (`npm run X` runs package.json's scripts only: a dependency's executable is no script for npm)
            builtins = {"pnpm": PNPM_BUILTINS, "yarn": YARN_BUILTINS, "bun": BUN_BUILTINS}.get(ref.runner or "", frozenset())
            if name in builtins or name in WELL_KNOWN_TOOLS or name in index.binaries(folder) \
                    or name.split(":")[0] in index.binaries(folder):
                return True  # `pnpm vitest`, `uv run pytest`: a dependency's executable
        if any(m.dynamic for m in manifests):
            return True
        # Defined by another package of the workspace: the memory may mean that one, unless the manifest
        # in scope defined it when the memory was written (judged below).
        item.data["elsewhere"] = [] if ref.package else \
            [m.path for m in index.all_manifests(ref.kind) if m.defines(name, goals)]
        item.data["manifests"] = [m.path for m in manifests]
        item.data["prefixes"] = {m.path: m.prefix for m in manifests if m.prefix}  # included Taskfiles' namespaces
        return False

    def judge(self, checker: StalenessChecker, items: list[Pending]) -> None:
        history = checker.history
        baselines = _baselines(checker, items)
        blobs = history.read_at([(b.commit, path) for item in items if (b := baselines[id(item)]) and b.commit
                                 for path in (*item.data["manifests"], *item.data["elsewhere"])])
        # When each command the manifests in scope did not define at its line's blame entered its file
        # (see `_entered`): asked of git side by side, one log of each file for several.
        late: dict[tuple[str, str], set[str]] = {}
        for item in items:
            if (b := baselines[id(item)]) and b.commit and self._may_have_entered(checker, item) \
                    and not _defining(item.data["manifests"], _defined_as(item.ref), b.commit, blobs, item.data["prefixes"]):
                late.setdefault((item.entry.location.path, b.commit), set()).add(f"run {item.ref.target}")
        history.prefetch_entered((t, p, at) for (p, at), ts in late.items() for t in ts)
        # Which commit removed each command from the manifest that defined it: asked of git side by side
        # (the loop below finds the answers in the history's memo).
        wheres = {id(item): self._defined_then(checker, item, baselines[id(item)], blobs) for item in items}
        parallel(lambda q: history.word_change(q[0], q[1], [q[2]]), sorted({
            (_needle(item.ref.target, where[1], item.data["prefixes"]), where[0], where[1]) for item in items
            if (where := wheres[id(item)]) is not None and where[1]}))
        for item in items:
            kind, noun = _NOUNS[item.ref.kind]
            name = item.ref.target
            baseline = baselines[id(item)]
            label = f'{noun} "{name}"'
            if baseline is None or baseline.commit is None:
                if item.ref.strong and not history.available and item.ref.kind in ("script", "make", "just", "task", "tox"):
                    checker.add(item, kind, Severity.warning, f"{label} is not defined in {item.data['manifests'][0]}")
                continue
            since, defined_then, blobs_then = wheres[id(item)] or (baseline.commit, None, blobs)
            elsewhere = item.data["elsewhere"]
            if defined_then:
                change = history.word_change(_needle(name, defined_then, item.data["prefixes"]), since, [defined_then])
                when = f"removed in {change.describe()}" if change else "removed after this memory was written"
                # Gone from where the memory runs it. Another package that had one of that name when the
                # memory was written may be the one it means: a warning, not a proof. One that has it only
                # since (the script moved with its package) is where to run it now.
                meant = _defining(elsewhere, _defined_as(item.ref), since, blobs_then)
                if meant:
                    checker.add(item, kind, Severity.warning,
                                f"{label} is not defined in {defined_then} any more ({when}); "
                                f"`{meant[0]}` defines one", commit=change)
                elif elsewhere:
                    checker.add(item, kind, Severity.error,
                                f"{label} is not defined in {defined_then} any more ({when}); "
                                f"`{min(elsewhere, key=_nearest_root)}` defines one since", commit=change)
                else:
                    checker.add(item, kind, Severity.error, f"{label} is not defined in {defined_then} ({when})",
                                commit=change)
            elif elsewhere:
                continue  # never this manifest's: the memory may mean the other package's
            elif item.ref.strong and item.ref.kind != "console" and not _unknown_past(checker):
                checker.add(item, "unresolved-" + kind.split("-", 1)[1], Severity.info,
                            f"{label} is not defined in {item.data['manifests'][0]}, and was not when this memory "
                            f"was {baseline.how}")

    def _defined_then(self, checker: StalenessChecker, item: Pending, baseline: Any,
                      blobs: dict[tuple[str, str], bytes | None]) -> tuple[str, str | None, dict[tuple[str, str], bytes | None]] | None:
        """The commit a command is judged from (its line's blame, or when the command entered the file if
        the line was rewritten after it was gone), the manifest in scope that defined it then (``None``
        if none did), and the manifests' contents read; ``None`` without a baseline."""
        if baseline is None or baseline.commit is None:
            return None
        defined = _defined_as(item.ref)
        since = baseline.commit
        prefixes = item.data["prefixes"]
        defined_then = next(iter(_defining(item.data["manifests"], defined, since, blobs, prefixes)), None)
        if not defined_then and (entered := self._entered(checker, item, since)) is not None:
            # a line rewritten after the script was gone (`npm run compile` made `bun run compile`
            # after the move): judged from when the command entered the file
            paths = [*item.data["manifests"], *item.data["elsewhere"]]
            read = checker.history.read_at([(entered.sha, path) for path in paths])
            entered_then = next(iter(_defining(item.data["manifests"], defined, entered.sha, read, prefixes)), None)
            if entered_then:
                return entered.sha, entered_then, {**blobs, **read}
        return since, defined_then, blobs

    @staticmethod
    def _may_have_entered(checker: StalenessChecker, item: Pending) -> bool:
        """Whether a command's line may be younger than the command (see :meth:`_entered`)."""
        return item.entry.format == "instruction" and f"run {item.ref.target}" in item.ref.text \
            and not checker.baselines.verified(item.entry)

    def _entered(self, checker: StalenessChecker, item: Pending, at: str) -> Any:
        """When a command (`… run NAME`) entered its instruction file, where that is before the line's
        last change ``at`` (the line was rewritten since), else ``None``."""
        if not self._may_have_entered(checker, item):
            return None
        entered = checker.history.entered(f"run {item.ref.target}", item.entry.location.path, at)
        return entered if entered is not None and entered.sha != at else None


def _needle(name: str, manifest: str, prefixes: dict[str, str] | None = None) -> str:
    """What `git log -S` looks for to tell when a command left its manifest: a package.json script as a
    quoted key, a task of an included Taskfile without its namespace, a tox environment by its section, a
    Hatch environment's script by its environment's tables, any other by its name."""
    prefix = (prefixes or {}).get(manifest, "")
    if manifest.endswith("tox.ini"):
        return f"testenv:{name}"  # (its section: the name alone may be said in other environments' commands)
    if manifest.endswith("pyproject.toml") and ":" in name:
        return f"envs.{name.split(':', 1)[0]}"  # a Hatch environment's script (`test:unit`): its tables
    return f'"{name}"' if manifest.endswith("package.json") else name.removeprefix(prefix)


def _nearest_root(path: str) -> tuple[int, str]:
    return path.count("/"), path


def _defining(paths: list[str], name: str, at: str, read: dict[tuple[str, str], bytes | None],
              prefixes: dict[str, str] | None = None) -> list[str]:
    """The manifests of ``paths`` that defined ``name`` at the commit ``at`` (their contents ``read``); an
    included Taskfile's tasks under the namespace ``prefixes`` gives it."""
    prefixes = prefixes or {}
    return [path for path in paths if (data := read.get((at, path))) is not None
            and (manifest := parse_manifest(path, data, "task" if path in prefixes else None)) is not None
            and replace(manifest, prefix=prefixes.get(path, "")).defines(name)]


# -- python modules -------------------------------------------------------------------------------

class ModuleCheck:
    """``python -m pkg.mod``: a module of a local package (``pkg/`` or ``src/pkg/``)."""

    def now(self, checker: StalenessChecker, item: Pending) -> bool:
        index = checker.index
        parts = item.ref.target.split(".")
        roots = [f"{item.base}/" if item.base else "", *([] if not item.base else [""]), "src/"]
        for root in roots:
            stem = root + "/".join(parts)
            for candidate in (stem + ".py", stem + "/__init__.py", stem + "/__main__.py"):
                if index.exists(candidate):
                    item.result.depends_on.add(candidate)
                    return True
        local = [root + parts[0] for root in roots if index.exists(root + parts[0] + "/__init__.py")
                 or index.exists(root + parts[0] + ".py")]
        if not local or len(parts) == 1:
            return True  # a module of some installed package
        item.result.depends_on.add(local[0])
        stem = f"{local[0]}/{'/'.join(parts[1:])}"
        item.data["candidates"] = [stem + ".py", stem + "/__main__.py", stem + "/__init__.py"]
        return False

    def judge(self, checker: StalenessChecker, items: list[Pending]) -> None:
        history = checker.history
        baselines = _baselines(checker, items)
        answers = history.exists_at([(b.commit, c) for i in items if (b := baselines[id(i)]) and b.commit
                                     for c in i.data["candidates"]])
        for item in items:
            baseline = baselines[id(item)]
            if baseline is None or baseline.commit is None:
                if not history.available:
                    checker.add(item, "stale-module", Severity.warning,
                                f"module `{item.ref.target}` does not exist in its local package")
                continue
            existed = [c for c in item.data["candidates"] if answers.get((baseline.commit, c))]
            if existed:
                removal = history.removal(existed[0], baseline.commit)
                when = f" in {removal.commit.describe()}" if removal else ""
                checker.add(item, "stale-module", Severity.error, f"module `{item.ref.target}` was deleted{when}",
                            commit=removal.commit if removal else None)
            elif not _unknown_past(checker):
                checker.add(item, "unresolved-module", Severity.info,
                            f"module `{item.ref.target}` does not exist, and did not when this memory was {baseline.how}")


# -- package manager ------------------------------------------------------------------------------

class PackageManagerCheck:
    """"Use pnpm" against the ``packageManager`` field and the lockfiles: an error when the memory
    matched the repository when it was written, a warning when it never did."""

    def now(self, checker: StalenessChecker, item: Pending) -> bool:
        index = checker.index
        declared, locks = index.package_managers(item.base)
        manifest = index.package_json(item.base)
        if manifest is None and not locks:
            return True
        if manifest is not None:
            item.result.depends_on.add(manifest.path)
        item.result.depends_on.update(locks.values())
        evidence = ({declared} if declared else set()) | set(locks)
        if not evidence or item.ref.target in evidence:
            return True
        actual = declared or sorted(locks)[0]
        why = f'packageManager is "{declared}"' if declared else f"the lockfile is {locks[actual]}"
        item.data.update(actual=actual, why=why, manifest=manifest.path if manifest else None)
        return False

    def judge(self, checker: StalenessChecker, items: list[Pending]) -> None:

        history = checker.history
        baselines = _baselines(checker, items)
        for item in items:
            baseline = baselines[id(item)]
            message = f"memory says to use {item.ref.target}, but this repository uses {item.data['actual']} ({item.data['why']})"
            fix = ReplaceTextFix(old=item.ref.target, new=item.data["actual"])
            severity = Severity.error
            if baseline is not None and baseline.commit:
                folder = item.data["manifest"].rsplit("/", 1)[0] + "/" if item.data["manifest"] and "/" in item.data["manifest"] else ""
                paths = [folder + name for name in LOCKFILES] + ([item.data["manifest"]] if item.data["manifest"] else [])
                then = history.exists_at([(baseline.commit, p) for p in paths])
                managers = {LOCKFILES[p.rsplit("/", 1)[-1]] for (c, p), kind in then.items() if kind and p.rsplit("/", 1)[-1] in LOCKFILES}
                if then and item.ref.target not in managers and managers:
                    severity = Severity.warning
                    message += f"; it already did when this memory was {baseline.how}"
            checker.add(item, "stale-package-manager", severity, message, fix=fix)


# -- stated versions ------------------------------------------------------------------------------

_MAX_VERSION_COMMITS = 300  # commits to a manifest since the memory was written, read to date a change


class VersionCheck:
    """"Go 1.24", "Node 20", "Python 3.11": compared with what the project declares (go.mod, .nvmrc,
    engines, .python-version, requires-python, rust-toolchain, rust-version). A warning when the
    declaration matched the memory at its baseline and says something else now."""

    def now(self, checker: StalenessChecker, item: Pending) -> bool:
        tool, _, stated = item.ref.target.rpartition("@")  # (`npm:@remix-run/react@2.1.0`)
        index = checker.index

        def nearest(names: tuple[str, ...], base: str) -> str | None:
            # (a file git ignores is one developer's: a local `.python-version` is no declaration)
            path = index.nearest(names, base)
            return None if path is None or index.ignored(path) else path

        declared = declared_version(tool, item.base, nearest, index.read)
        packages: list[str] = []
        if declared is None:
            # a library no manifest up from the memory declares: the workspace's packages, where those
            # that declare it agree (`web/package.json` for "React 18.3" in the root's AGENTS.md)
            manifests = sorted(index.by_name.get("package.json", []), key=_nearest_root)
            inside = declared_in_packages(tool, manifests, index.read)
            item.result.depends_on.update(manifests if len(manifests) <= PACKAGES_MAX else ())
            if inside is None:
                return True
            packages, value = inside
            declared = (packages[0], value)
        path, value = declared
        item.result.depends_on.add(path)
        if version_matches(stated, value):
            return True
        item.data.update(tool=tool, stated=stated, path=path, now=value, packages=packages)
        return False

    def judge(self, checker: StalenessChecker, items: list[Pending]) -> None:
        history = checker.history
        for item, baseline, commit in _committed(checker, items):

            def read_then(path: str, commit: str = commit) -> bytes | None:
                return history.read_at([(commit, path)]).get((commit, path))

            def nearest_then(names: tuple[str, ...], base: str, commit: str = commit) -> str | None:
                for folder in folders_up(base):
                    paths = [f"{folder}/{name}" if folder else name for name in names]
                    found = history.exists_at([(commit, p) for p in paths])
                    hit = next((p for p in paths if found.get((commit, p)) == "blob"), None)
                    if hit:
                        return hit
                return None

            then = declared_version(item.data["tool"], item.base, nearest_then, read_then)
            if then is None and item.data["packages"]:
                read = history.read_at([(commit, p) for p in item.data["packages"]])
                inside = declared_in_packages(item.data["tool"], item.data["packages"],
                                              lambda p, read=read, commit=commit: read.get((commit, p)))
                then = (inside[0][0], inside[1]) if inside else None
            if then is None or not version_matches(item.data["stated"], then[1]):
                continue  # the memory did not match the project even then: not a drift we can prove
            if then[0] != item.data["path"]:
                continue  # declared in another file then (`.python-version` now, `pyproject.toml` then): not one value that changed
            change = _version_change(checker, item, commit)
            if change is None and item.data["tool"] in ("pnpm", "yarn", "bun", "npm"):
                # too many commits to read one by one (a release bumps package.json each time): when the pin
                # `pnpm@9.5.0` last changed how often it occurs
                change = history.word_change(f"{item.data['tool']}@{then[1]}", commit, [item.data["path"]])
            # the first change may have set another value than today's (go 1.24.0 -> 1.25.0 there, 1.26.4 later)
            first = ""
            if change is not None:
                sha = change.sha
                there = declared_version(item.data["tool"], item.base,
                                         lambda names, base, sha=sha: nearest_then(names, base, sha),
                                         lambda path, sha=sha: read_then(path, sha))
                first = f"first changed to {there[1]} in {change.describe()}" if there and there[1] != item.data["now"] \
                    else f"changed in {change.describe()}"
            # an error: the memory matched the project when it was written and states another release now;
            # a warning when only the patch moved on ("Remix 2.17.4", 2.17.5 now): right in all it implies
            patch = patch_behind(item.data["stated"], item.data["now"])
            checker.add(item, "stale-version", Severity.warning if patch else Severity.error,
                        f"{item.data['tool'].removeprefix('npm:')} {item.data['stated']}: `{item.data['path']}` now says {item.data['now']} "
                        + (f"({first}; " if first else "(")
                        + f"it said {then[1]} when this memory was {baseline.how})", commit=change)


def _version_change(checker: StalenessChecker, item: Pending, since: str) -> Any:
    """The first commit after ``since`` whose declaration (in the file that declares it now) no longer
    matches the memory; ``None`` when git cannot say (the file moved, history too long)."""
    history, path = checker.history, item.data["path"]
    log = history._log(since, [path])
    if not log or len(log) > _MAX_VERSION_COMMITS:
        return None
    commits = [c for c, _ in reversed(log)]  # oldest first
    contents = history.read_at([(c.sha, path) for c in commits])
    for c in commits:
        data = contents.get((c.sha, path))
        if data is None:
            return None
        declared = declared_version(item.data["tool"], item.base, lambda names, base: path if PurePosixPath(path).name in names else None,
                                    lambda p, data=data: data if p == path else None)
        if declared is not None and not version_matches(item.data["stated"], declared[1]):
            return c
    return None


# -- crates of a Cargo workspace ----------------------------------------------------------------------


def _crate_name(data: bytes | None) -> str | None:
    """The ``[package] name`` of a Cargo.toml (``None``: no package, or not TOML)."""
    if data is None:
        return None
    try:
        package = tomllib.loads(data.decode("utf-8", "replace")).get("package")
    except (tomllib.TOMLDecodeError, ValueError):
        return None
    name = package.get("name") if isinstance(package, dict) else None
    return name if isinstance(name, str) else None


def _crate_key(name: str) -> str:
    return name.replace("-", "_")


class CrateCheck:
    """``cargo run -p oxc_linter``: a package of the Cargo workspace (a Cargo.toml's ``[package] name``).
    An error when a Cargo.toml of the tree named it when the memory was written and none does now."""

    def __init__(self) -> None:
        #: The Cargo manifests and the package names they declare, read once per check (the check's own
        #: memo of baselines, made anew by every check, says which check it is).
        self._known: tuple[Any, list[str], set[str]] | None = None

    def now(self, checker: StalenessChecker, item: Pending) -> bool:
        index = checker.index
        known = self._known
        if known is None or known[0] is not checker._baselines:  # pyright: ignore[reportPrivateUsage]
            manifests = sorted(p for p in index.files if p == "Cargo.toml" or p.endswith("/Cargo.toml"))
            names = {_crate_key(n) for p in manifests if (n := _crate_name(index.read(p)))}
            known = self._known = (checker._baselines, manifests, names)  # pyright: ignore[reportPrivateUsage]
        _, manifests, names = known
        if not manifests:
            return True  # not a Rust workspace (or not this part of it): nothing to judge against
        item.result.depends_on.update(manifests)
        if _crate_key(item.ref.target) in names:
            return True
        item.data["manifests"] = manifests
        return False

    def judge(self, checker: StalenessChecker, items: list[Pending]) -> None:
        history = checker.history
        for item, baseline, commit in _committed(checker, items):
            name = item.ref.target
            found = history.grep_at(commit, [name, name.replace("_", "-")], ("*Cargo.toml",))
            if found is None:
                continue
            then = sorted({p for paths in found.values() for p in paths})
            blobs = history.read_at([(commit, p) for p in then])
            defined = next((p for p in then if (n := _crate_name(blobs.get((commit, p))))
                            and _crate_key(n) == _crate_key(name)), None)
            if defined is None:
                if item.ref.strong and not _unknown_past(checker):
                    checker.add(item, "unresolved-crate", Severity.info,
                                f"no Cargo.toml of this workspace names the package `{name}`, and none did when this "
                                f"memory was {baseline.how}")
                continue
            removal = history.removal(defined, commit)
            change = removal.commit if removal else history.word_change(name, commit, [defined])
            if removal:
                when = f" (`{defined}` was {'moved' if removal.moved_to else 'deleted'} in {removal.commit.describe()})"
            elif change:
                when = f" (`{defined}` stopped naming it in {change.describe()})"
            else:
                when = f" (`{defined}` named it when this memory was {baseline.how})"
            checker.add(item, "stale-crate", Severity.error,
                        f"no Cargo.toml of this workspace names the package `{name}` any more{when}", commit=change)


# -- npm packages of the workspace --------------------------------------------------------------------

class WorkspacePackageCheck:
    """``@formbricks/eslint-config``: an npm package of a scope some package.json of the workspace names
    itself under (``@formbricks/web``). An error when a package.json of the tree was that package when the
    memory was written and now names another package (renamed: ``@formbricks/config-eslint``); a warning when
    that package.json is gone (the package may live on elsewhere, published from another repository).
    Another scope's packages (``@types/node``) are dependencies, not judged."""

    def __init__(self) -> None:
        #: The workspace's package.json files by package name, read once per check (as :class:`CrateCheck`).
        self._known: tuple[Any, dict[str, str]] | None = None

    def now(self, checker: StalenessChecker, item: Pending) -> bool:
        known = self._known
        if known is None or known[0] is not checker._baselines:  # pyright: ignore[reportPrivateUsage]
            names = {m.package_name: m.path for m in checker.index.all_manifests("script") if m.package_name}
            known = self._known = (checker._baselines, names)  # pyright: ignore[reportPrivateUsage]
        names = known[1]
        if item.ref.target in names:
            return True
        scope = item.ref.target.split("/", 1)[0] + "/"
        mine = [path for name, path in names.items() if name.startswith(scope)]
        if not mine:
            return True  # another project's package
        item.result.depends_on.update(mine)
        return False

    def judge(self, checker: StalenessChecker, items: list[Pending]) -> None:
        history, index = checker.history, checker.index
        for item, _, commit in _committed(checker, items):
            name = item.ref.target
            found = history.grep_at(commit, [name], ("*package.json",))
            if not found:
                continue
            paths = sorted(p for p in found.get(name, ()) if ALWAYS_SKIPPED_DIRS.isdisjoint(p.split("/")[:-1]))
            blobs = history.read_at([(commit, p) for p in paths])
            then = next((p for p in paths if _package_name(blobs.get((commit, p))) == name), None)
            if then is None:
                continue  # not this workspace's when the memory was written either
            now = index.manifest(then) if index.exists(then) else None
            if now is not None and now.package_name and now.package_name != name:
                change = history.word_change(name, commit, [then])
                when = f" in {change.describe()}" if change else " after this memory was written"
                checker.add(item, "stale-package", Severity.error,
                            f"the package `{name}` is now `{now.package_name}`: `{then}` renamed it{when}",
                            fix=ReplaceRefFix(old=name, new=now.package_name), commit=change)
            elif now is None:
                removal = history.removal(then, commit)
                checker.add(item, "stale-package", Severity.warning,
                            f"no package.json of this workspace names the package `{name}` any more (`{then}` was "
                            f"{_gone_how(removal)})", commit=removal.commit if removal else None)


def _gone_how(removal: Any) -> str:
    """How a file left the tree: "deleted in <commit>", "moved in <commit>" (a :class:`Removal`), or when
    git cannot say."""
    if removal is None:
        return "deleted after this memory was written"
    return f"{'moved' if removal.moved_to else 'deleted'} in {removal.commit.describe()}"


def _package_name(data: bytes | None) -> str | None:
    """The ``name`` of a package.json's text."""
    if data is None:
        return None
    try:
        value = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return None
    name = value.get("name") if isinstance(value, dict) else None
    return name if isinstance(name, str) else None


# -- tools that run where a file of theirs is -----------------------------------------------------------

class ToolCheck:
    """``bazel test //pkg/cache:cache_test``: a tool that runs only where a file of its own is
    (:data:`~lorekeeper.refs.manifests.TOOL_PROJECT_FILES`: Bazel's ``MODULE.bazel`` or ``WORKSPACE``). An
    error when the tree held such a file when the memory was written and holds none now, anywhere (one
    moved into a folder may be where the memory means to run it)."""

    def now(self, checker: StalenessChecker, item: Pending) -> bool:
        names = TOOL_PROJECT_FILES[item.ref.target]
        found = next((p for name in names for p in checker.index.by_name.get(name, ())), None) \
            or next((d for name in names for d in checker.index.dirs_by_name.get(name, ())), None)
        if found:
            item.result.depends_on.add(found)
            return True
        item.result.depends_on.update(names)
        return False

    def judge(self, checker: StalenessChecker, items: list[Pending]) -> None:
        history = checker.history
        for item, _, commit in _committed(checker, items):
            names = TOOL_PROJECT_FILES[item.ref.target]
            then: list[str] = []
            for name in names:
                paths = history.paths_named(commit, name)
                if paths is None:
                    then = []
                    break  # git could not answer: reported as a history problem
                then += [p for p in paths if ALWAYS_SKIPPED_DIRS.isdisjoint(p.split("/")[:-1])]
            if not then:
                continue  # none then either: the memory's plan, or another project's tool
            path = min(then, key=_nearest_root)
            removal = history.removal(path, commit)
            quoted = [f"`{n}`" for n in names]
            spelled = quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]
            checker.add(item, "stale-tool", Severity.error,
                        f"`{item.ref.target}` runs where {spelled} is; `{path}` was {_gone_how(removal)}, and the repository has "
                        f"none now", commit=removal.commit if removal else None)


# -- globs --------------------------------------------------------------------------------------------


def _literal_folder(pattern: str) -> str:
    """The folders of a glob before its first wildcard (``src/prompts/system*.md`` -> ``src/prompts``)."""
    head = re.split(r"[*?\[{]", pattern, maxsplit=1)[0]
    return head.rsplit("/", 1)[0] if "/" in head else ""


class GlobCheck:
    """``browser_use/agent/system_prompt*.md``: some file must match. An error when files matched when the
    memory was written and none does now, naming what became of the first of them."""

    def now(self, checker: StalenessChecker, item: Pending) -> bool:
        index = checker.index
        pattern = item.ref.target
        bases = [item.base, ""] if item.base else [""]
        for base in bases:
            full = f"{base}/{pattern}" if base else pattern
            folder = _literal_folder(full)
            if folder and not index.exists(folder):
                continue
            item.result.depends_on.add(folder or ".")
            match = matcher((full,))
            if any(match.match(p) for p in index.files if not folder or p.startswith(folder + "/")):
                return True
        item.data["patterns"] = [f"{b}/{pattern}" if b else pattern for b in bases]
        return False

    def judge(self, checker: StalenessChecker, items: list[Pending]) -> None:
        history = checker.history
        for item, baseline, commit in _committed(checker, items):
            then = history.paths_at(commit)
            if then is None:
                continue
            matched: list[str] = []
            for full in item.data["patterns"]:
                folder = _literal_folder(full)
                match = matcher((full,))
                matched = sorted(p for p in then if (not folder or p.startswith(folder + "/")) and match.match(p))
                if matched:
                    break
            if not matched:
                continue  # it matched nothing then either: a pattern for files to come, or not a path
            first = matched[0]
            removal = history.removal(first, commit)
            others = f" and {len(matched) - 1} more" if len(matched) > 1 else ""
            if removal and removal.moved_to:
                what = f"`{first}`{others} matched it; `{first}` was moved to `{removal.moved_to}` in {removal.commit.describe()}"
            elif removal:
                what = f"`{first}`{others} matched it; `{first}` was deleted in {removal.commit.describe()}"
            else:
                what = f"`{first}`{others} matched it when this memory was {baseline.how}"
            written = item.ref.target.removeprefix("**/") if "/" not in item.ref.text else item.ref.target
            checker.add(item, "stale-path", Severity.error, f"no file matches `{written}` any more ({what})",
                        commit=removal.commit if removal else None)


# -- links to headings -------------------------------------------------------------------------------


class AnchorCheck:
    """``[text](docs/dev.md#setup)`` and ``[text](#setup)``: the heading must be in the file the link leads
    to (the link read relative to the memory file, as Markdown reads it). A missing file is the path
    check's; a missing heading is a warning (renderers make anchors slightly differently, and a heading
    renamed long ago is not proven by git here), with a fix when one heading's anchor is close to it."""

    def now(self, checker: StalenessChecker, item: Pending) -> bool:
        entry, ref = item.entry, item.ref
        if entry.format == "entry":
            return True  # a JSON entry has no headings of its own, nor a folder links are relative to
        folder = PurePosixPath(entry.location.path).parent
        if ref.file is None:
            path = entry.location.path
        else:
            joined = posixpath.normpath(str(folder / unquote(ref.file)))
            path = joined if not joined.startswith("../") and joined != ".." else ""
        if not path or not checker.index.exists(path):
            return True  # not in the workspace: the path check says so, or the link leaves it
        data = checker.index.read(path)
        if data is None:
            return True
        item.result.depends_on.add(path)
        anchor = unquote(ref.target.rpartition("#")[2]).lower()
        found = anchors(data.decode("utf-8", "replace"))
        if anchor in found or anchor.startswith("l") and anchor[1:].replace("-l", "").isdigit():
            return True  # (#L12, #L12-L20: a line of the file, as a code host shows it)
        item.data.update(path=path, anchor=anchor, anchors=found)
        return False

    def judge(self, checker: StalenessChecker, items: list[Pending]) -> None:
        for item in items:
            anchor, path = item.data["anchor"], item.data["path"]
            close = process.extract(anchor, sorted(item.data["anchors"]), scorer=fuzz.ratio, score_cutoff=80, limit=2)
            fix = None
            if len(close) == 1:
                old = item.ref.target
                fix = ReplaceTextFix(old=old, new=old.rpartition("#")[0] + "#" + close[0][0])
            where = "this file" if item.ref.file is None else f"`{path}`"
            checker.add(item, "missing-anchor", Severity.warning,
                        f"no heading of {where} has the anchor #{anchor}"
                        + (f" (did you mean #{close[0][0]}?)" if fix else ""), fix=fix)


CHECKS: dict[str, Any] = {
    "path": PathCheck(),
    "symbol": SymbolCheck(),
    "script": ManifestNameCheck(),
    "make": ManifestNameCheck(),
    "just": ManifestNameCheck(),
    "task": ManifestNameCheck(),
    "tox": ManifestNameCheck(),
    "console": ManifestNameCheck(),
    "extra": ManifestNameCheck(),
    "group": ManifestNameCheck(),
    "module": ModuleCheck(),
    "package-manager": PackageManagerCheck(),
    "version": VersionCheck(),
    "anchor": AnchorCheck(),
    "crate": CrateCheck(),
    "tool": ToolCheck(),
    "npm-package": WorkspacePackageCheck(),
    "glob": GlobCheck(),
}


# -- tools and libraries a project dropped ------------------------------------------------------------

#: Words before a name that say it is what the project left ("migrated from Radix", "black (replaced by
#: ruff)" is told after): the memory states the change, not the use.
_LEFT = re.compile(r"\b(?:from|migrat\w*|switch\w*|mov\w*|replac\w*|instead of|rather than|formerly|previously|"
                   r"no longer|dropp\w*|remov\w*|deprecat\w*|legacy|old|was|were|not|never|avoid|don't|do not)\b[^.;:]{0,24}$",
                   re.I)
_LEFT_AFTER = re.compile(r"^[^.;]{0,30}\b(?:replaced|removed|dropped|deprecated|migrated|no longer|was|were|gone|"
                         r"(?:->|→)|in favou?r of)\b|^\s*(?:->|→)", re.I)
#: Files whose naming a tool says the project still runs it: build, task and CI files, hooks, tool
#: configuration, manifests (package.json's scripts).
_RUNS_TOOLS = frozenset(("Makefile", "makefile", "GNUmakefile", "justfile", "Justfile", ".justfile", "Taskfile.yml",
                         "Taskfile.yaml", "noxfile.py", "setup.py", ".pre-commit-config.yaml", ".flake8", ".pylintrc",
                         "pylintrc", ".isort.cfg", "Dockerfile", "Containerfile", "package.json", "lerna.json",
                         "turbo.json", "nx.json", ".babelrc", ".mocharc.json", ".mocharc.yml", "Procfile"))
_RUNS_TOOLS_FORMS = (".mk", ".toml", ".cfg", ".ini")
_RUNS_TOOLS_STARTS = ("Dockerfile", "Containerfile", ".eslintrc", ".prettierrc", "eslint.config", "prettier.config",
                      "jest.config", "vitest.config", "webpack.config", "rollup.config", "babel.config", "vite.config",
                      "tsup.config", "karma.conf", "cypress.config", "playwright.config", ".stylelintrc", "tox.ini")


def _runs_tools(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return name in _RUNS_TOOLS or name.endswith(_RUNS_TOOLS_FORMS) or name.startswith(_RUNS_TOOLS_STARTS) \
        or path.startswith((".github/workflows/", ".gitlab-ci", ".circleci/", ".buildkite/")) or name == ".gitlab-ci.yml"


#: A tool's directive in a comment (`// biome-ignore lint/x`, `# pyright: ignore[reportAny]`, `/* eslint-disable */`,
#: `# pylint: disable=x`): it names the tool but does not use it, and outlives it (another tool may read it:
#: oxlint reads `eslint-disable`, ty and basedpyright read `pyright:` comments).
_PRAGMA = re.compile(rb"-(?:ignore|disable|enable)\b|:[ \t]*(?:ignore|disable|enable|skip|basic|standard|strict)\b")
#: The manifests of a memory's baseline looked for when the tree has them no more, at so many baselines at most
#: (a listing of the tree each).
_MANIFEST_NAMES = ("pyproject.toml", "package.json", "requirements.txt", "requirements-dev.txt", "go.mod")
_GONE_MANIFEST_BASELINES = 8
#: More code files than this naming a tool, and they are not read one by one: the project has to do with it.
_PRAGMA_FILES_MAX = 200


def _used_in_code(index: CodeIndex, words: set[str], mentioned: dict[str, list[str]]) -> bool | str:
    """Whether a code file names one of ``words`` otherwise than in a directive of the tool (:data:`_PRAGMA`)
    or as the past (:data:`_PAST_MENTION`): ``True``; ``False`` when none names it; the first file when only
    such mentions do."""
    files = sorted({path for word in words for path in mentioned.get(word, ())})
    if len(files) > _PRAGMA_FILES_MAX:
        return True
    patterns = [re.compile(rb"(?<![A-Za-z0-9_$])" + re.escape(w.encode()) + rb"(?![A-Za-z0-9_$])") for w in sorted(words)]
    for path in files:
        data = index.read(path)
        if data is None:
            return True
        if any(_named_alive(data, pattern) for pattern in patterns):
            return True
    return files[0] if files else False


#: What a line says before a name it speaks of as the past: "this repo no longer runs MkDocs", "Mirrors the
#: previous Biome formatter profile", "replaced flake8 with ruff".
_PAST_MENTION = re.compile(rb"\b(?:no longer|formerly|previous(?:ly)?|used to|replaced|migrated (?:away )?from|"
                           rb"deprecated|removed|dropped|instead of)\b[^\n.;]{0,40}$", re.I)


def _named_alive(data: bytes, pattern: re.Pattern[bytes]) -> bool:
    """Whether ``data`` names what ``pattern`` finds somewhere other than in a directive left for it
    (:data:`_PRAGMA`) or in words about the past (:data:`_PAST_MENTION`)."""
    for match in pattern.finditer(data):
        if _PRAGMA.match(data, match.end()):
            continue
        start = max(data.rfind(b"\n", 0, match.start()) + 1, match.start() - 80)
        if not _PAST_MENTION.search(data, start, match.start()):
            return True
    return False


def gone_dependencies(checker: StalenessChecker, entries: list[Entry]) -> None:
    """A tool or library a memory names in words ("Formatting: black + isort", "make lint  # Run flake8",
    "Reuse Radix primitives") that a manifest of the project declared when the memory was written, and
    that none declares now and no build, CI or configuration file nor code names: an error (the project
    dropped it; the memory would have an agent use it). Names of a known vocabulary only (:mod:`...refs.dependencies`),
    never one the line says the project left ("migrated from Radix")."""
    index, history = checker.index, checker.history
    manifests = sorted((p for p in index.files if is_manifest(p)), key=_nearest_root)
    if not manifests or len(manifests) > PACKAGES_MAX:
        return
    now = frozenset().union(*(declared(p, data) for p in manifests if (data := index.read(p)) is not None))
    asked: list[tuple[Entry, str, int]] = []
    go = any(p.endswith("go.mod") for p in manifests)
    for entry in entries:
        text = entry.content
        named = [*names_in(text), *(modules_in(text) if go and ("`" in text or "/" in text) else ())]
        if not named:
            continue
        checker.results[entry.id].depends_on.update(manifests)
        for name, start, end in named:
            if provided_by(name, now) or _LEFT.search(text[max(0, start - 40):start]) or _LEFT_AFTER.search(text[end:end + 40]):
                continue
            line = text.count("\n", 0, start)
            if (entry, name, line) not in asked:  # (once a line)
                asked.append((entry, name, line))
    if not asked or not history.available:
        return
    # named by a build, CI or configuration file: run another way (a pre-commit hook, a CI step)
    names = {name for _, name, _ in asked}
    running: set[str] = set()
    for path in sorted(p for p in index.files if _runs_tools(p)):
        data = index.read(path)
        if data is None:
            continue
        low = data.lower()
        for name in names - running:
            written = name.removeprefix("go:").encode()  # (`go install github.com/x/tool@v1` in a Makefile)
            if written not in low:
                continue
            pattern = re.compile(rb"(?<![\w-])" + re.escape(written) + rb"(?![\w-])")
            if _named_alive(low, pattern):
                running.add(name)
            for entry, asked_name, _ in asked:
                if asked_name == name:
                    checker.results[entry.id].depends_on.add(path)
    asked = [a for a in asked if a[1] not in running]
    # named in code (an import, a comment that compares with it: "Study … other minifiers (Terser,
    # esbuild)"): the project still has to do with it; not by a directive left for it (`// biome-ignore`)
    probes = {name: {word, word.capitalize()} for name in {a[1] for a in asked}
              for word in [re.sub(r"/v\d+$", "", name).rsplit("/", 1)[-1].split(" ", 1)[0].replace(".", "")]}
    mentioned = index.files_mentioning({w for words in probes.values() for w in words})
    for entry, name, _ in asked:
        checker.results[entry.id].depends_on.update(WORD + w for w in probes[name])
    used = {name: _used_in_code(index, probes[name], mentioned) for name in {a[1] for a in asked}}
    asked = [a for a in asked if used[a[1]] is not True]
    if not asked:
        return
    baselines = {(entry.id, line): checker.baselines.of(entry, line) for entry, _, line in asked}
    blobs = history.read_at({(b.commit, p) for b in baselines.values() if b is not None and b.commit for p in manifests})
    found: list[tuple[Entry, str, int, Baseline, str, str]] = []
    undeclared: list[tuple[Entry, str, int, Baseline]] = []
    for entry, name, line in asked:
        baseline = baselines[(entry.id, line)]
        if baseline is None or baseline.commit is None:
            continue
        then = next(((p, providers) for p in manifests if (data := blobs.get((baseline.commit, p))) is not None
                     and (providers := provided_by(name, declared(p, data)))), None)
        if then is not None:
            found.append((entry, name, line, baseline, then[0], then[1][0]))
        else:
            undeclared.append((entry, name, line, baseline))
    # none of today's manifests declared it then: those the tree had then and has no more (a pyproject.toml
    # deleted with the Python code it described, the package.json of an app removed), for a few baselines
    gone: dict[str, list[str]] = {}
    for commit in sorted({b.commit for _, _, _, b in undeclared if b.commit})[:_GONE_MANIFEST_BASELINES]:
        paths = sorted({p for name in _MANIFEST_NAMES for p in history.paths_named(commit, name) or ()
                        if p not in index.files and not set(PurePosixPath(p).parts[:-1]) & (GENERATED | ALWAYS_SKIPPED_DIRS)},
                       key=_nearest_root)
        gone[commit] = paths if len(paths) <= PACKAGES_MAX else []
    blobs = history.read_at({(commit, p) for commit, paths in gone.items() for p in paths})
    for entry, name, line, baseline in undeclared:
        at = baseline.commit or ""
        then = next(((p, providers) for p in gone.get(at, ()) if (data := blobs.get((at, p))) is not None
                     and (providers := provided_by(name, declared(p, data)))), None)
        if then is not None:
            found.append((entry, name, line, baseline, then[0], then[1][0]))
    changes = parallel(lambda q: _dependency_change(history, q[0], q[1], q[2]),
                       [(name, b.commit or "", path) for _, name, _, b, path, _ in found])
    for (entry, name, line, baseline, path, package), change in zip(found, changes, strict=True):
        when = f"removed in {change.describe()}" if change else "removed after this memory was written"
        directives = f" (`{used[name]}` names it only in a directive left for it or as the past)" if used[name] else ""
        name, package = name.removeprefix("go:"), package.removeprefix("go:")
        dropped = f"`{package}`" if package.rstrip("/") != name else "it"
        checker.results[entry.id].findings.append(Finding(
            kind="stale-dependency", severity=Severity.error, source=entry.location.path,
            line=checker.baselines.line_of(entry, line), entry=entry.id, ref=name,
            commit=getattr(change, "sha", None),
            message=f"{name}: `{path}` declared {dropped} when this memory was {baseline.how}; no manifest does now "
                    f"({when}) and no build, CI or configuration file nor code names it{directives}"))


def _dependency_change(history: GitHistory, name: str, since: str, path: str) -> Any:
    """The first commit after ``since`` whose ``path`` no longer declares what provides ``name`` (a word
    count would date `pyright` by the commit that added `[tool.basedpyright]`); where the file has too
    many commits to read, the last that changed how often the package's name occurs in it."""
    log = history._log(since, [path])
    if log and len(log) <= _MAX_VERSION_COMMITS:
        commits = [c for c, _ in reversed(log)]  # oldest first
        contents = history.read_at([(c.sha, path) for c in commits])
        for c in commits:
            data = contents.get((c.sha, path))
            if data is None or not provided_by(name, declared(path, data)):
                return c
    return history.word_change(name.removeprefix("go:"), since, [path])


# -- checks of a whole entry, after its references ---------------------------------------------------

def changed_since_verified(checker: StalenessChecker, entry: Entry, result: EntryResult) -> None:
    """What a memory is about (a symbol's body, a script's command, a config key) changed since it was
    verified (warning) or, for an instruction line never verified, since it was written (info)."""
    if checker.counter_example(entry):
        return
    refs = checker.references(entry)
    baseline = checker.verified_baseline(entry)
    kinds = None
    if baseline is None:
        baseline = checker.fingerprints.blame_baseline(entry, refs, lambda ref: checker.base_of(entry, ref))
        kinds = SPECIFIC_KINDS  # what a line's git baseline records
    if baseline is None:
        return
    since, recorded = baseline
    gone = {f.ref for f in result.findings}
    for ref in fingerprinted(refs, kinds):
        if ref.label() in gone or ref.label() not in recorded:
            continue
        current = checker.fingerprints.fingerprint(ref, checker.base_of(entry, ref))
        if current is not None and current != recorded[ref.label()] and not (
                kinds is None and checker.fingerprints.legacy_fingerprint(ref, checker.base_of(entry, ref))
                == recorded[ref.label()]):
            # An explicit verification is a promise someone checked; a blame baseline is a guess.
            severity = Severity.warning if since.startswith("verified") else Severity.info
            result.findings.append(Finding(
                kind="changed-since-verified", severity=severity, source=entry.location.path,
                line=checker.baselines.line_of(entry, ref.line), entry=entry.id, ref=ref.label(),
                message=f"`{ref.label()}` changed since this memory was {since}"
                        + (_then_and_now(checker, entry, ref) if kinds is not None else ""),
                fix=VerifyFix(entry=entry.id)))


def _then_and_now(checker: StalenessChecker, entry: Entry, ref: Reference) -> str:
    """A script's command when the line was written and now (": `tsc --build` then, `tsc --build --force`
    now"), or nothing when either cannot be read."""
    sha = checker.fingerprints.baseline_commit(entry)
    base = checker.base_of(entry, ref)
    then = checker.fingerprints.command(ref, base, sha) if sha else None
    now = checker.fingerprints.command(ref, base)
    if then is None or now is None or then == now:
        return ""
    then, now = (" ".join(c.split()).replace("`", "'") for c in (then, now))
    return f": `{_around_change(then, now)}` then, `{_around_change(now, then)}` now"


def _around_change(text: str, other: str, limit: int = 70, context: int = 24) -> str:
    """``text`` as shown beside ``other``: whole when short, else from a little before where the two
    differ to a little after, "…" where it is cut (a long `nx run-many …` whose exclude list grew)."""
    if len(text) <= limit and len(other) <= limit:
        return text
    start = 0
    while start < min(len(text), len(other)) and text[start] == other[start]:
        start += 1
    end = 0
    while end < min(len(text), len(other)) - start and text[-1 - end] == other[-1 - end]:
        end += 1
    space = text.rfind(" ", 0, max(0, start - context // 2))  # from the start of a word, where one is near
    left = space + 1 if space >= 0 and start - space <= 2 * context else max(0, start - context)
    if left and text[left - 1] != " " and 0 <= (after := text.find(" ", left, start)):
        left = after + 1
    right = min(len(text), max(len(text) - end + context, left + limit // 2))
    shown = text[left:right]
    if len(shown) > limit:
        shown = shown[: limit - 1]
        right = left + len(shown)
    return ("…" if left else "") + shown + ("…" if right < len(text) else "")


_NUMBER = re.compile(r"(?<![\w.])(\d+(?:\.\d+)+|\d{2,})(?![\w])")
_WORD_RUN = re.compile(rb"[\w.]+")
_CONFIG_SUFFIXES = (".toml", ".json", ".jsonc", ".yaml", ".yml", ".ini", ".cfg", ".conf", ".properties", ".editorconfig",
                    ".nvmrc", ".node-version", ".python-version", ".tool-versions", ".env.example")


def _is_config(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return name.endswith(_CONFIG_SUFFIXES) or name in ("Dockerfile", ".editorconfig", ".nvmrc", ".python-version",
                                                       ".tool-versions", ".node-version")


def stated_values(checker: StalenessChecker, entry: Entry, result: EntryResult) -> None:
    """Numbers a memory states ("line length is 100", "Node 20.11") that the configuration file it
    references held when the memory was written or verified, and holds no more."""
    numbers = set(_NUMBER.findall(entry.content))
    # Runtime versions are the version check's ("Node 20" against .nvmrc): one finding, not two.
    numbers -= {r.target.rsplit("@", 1)[1] for r in checker.references(entry) if r.kind == "version"}
    if not numbers or not checker.history.available:
        return
    files = []
    for ref in checker.references(entry):
        if ref.kind == "path":
            path = checker.index.resolve(ref.target, checker.base_of(entry, ref))
            if path and not path.endswith("/") and _is_config(path):
                files.append((ref, path))
    if not files:
        return
    baseline = checker.baselines.of_entry(entry)
    if baseline is None or baseline.commit is None:
        return
    olds = checker.history.read_at([(baseline.commit, path) for _, path in files])
    for ref, path in files:
        old, new = olds.get((baseline.commit, path)), checker.index.read(path)
        if old is None or new is None:
            continue
        # A number written whole in a file (no word character or "." on either side) is one of its runs
        # of those characters: each file is read once, not once for each number the memory states.
        in_old, in_new = set(_WORD_RUN.findall(old)), set(_WORD_RUN.findall(new))
        for number in sorted(numbers):
            if number.encode() in in_old and number.encode() not in in_new:
                result.findings.append(Finding(
                    kind="stale-value", severity=Severity.warning, source=entry.location.path,
                    line=checker.baselines.line_of(entry, ref.line), entry=entry.id, ref=ref.label(),
                    message=f"`{path}` no longer contains {number}, as it did when this memory was {baseline.how}"))


#: A parameter's default a memory states: "`max_steps` (default: `100`)", "`step_timeout` defaults to `120`". The
#: name is compound (`max_steps`, `stepTimeout`: a plain `timeout` is everybody's) and the value a literal.
_STATED_DEFAULT = re.compile(
    r"`(?P<name>[a-z][a-z0-9]*(?:_[a-z0-9]+)+|[a-z][a-z0-9]*(?:[A-Z][a-z0-9]+)+)`\s*"
    r"(?:\(\s*default(?:s to)?\s*[:=]?\s*|defaults?\s+(?:to|is)\s+)"
    r"`(?P<value>-?\d+(?:\.\d+)?|True|False|None|true|false|null|\"[^\"`\n]{0,60}\"|'[^'`\n]{0,60}')`")
#: Files whose defaults are not the code's (tests and examples set their own).
_NOT_DEFAULTS = re.compile(r"(?:^|/)(?:tests?|__tests__|spec|examples?|docs?)/|(?:^|/)test_[^/]*$|_test\.\w+$|\.(?:test|spec)\.\w+$")


def _typed_defaults(name: str) -> re.Pattern[bytes]:
    """``name: TYPE = VALUE`` — a typed parameter's or field's default (a call's ``name=VALUE`` is none)."""
    return re.compile(rb"(?<![\w.$])" + re.escape(name.encode()) + rb"[ \t]*\??:[ \t]*[^=\n,;(){}]{1,80}?[ \t]*=[ \t]*"
                      rb"(-?\d+(?:\.\d+)?|True|False|None|true|false|null|\"[^\"\n]{0,60}\"|'[^'\n]{0,60}')(?![\w.])")


def stated_defaults(checker: StalenessChecker, entry: Entry, result: EntryResult) -> None:
    """A parameter's default a memory states ("`max_steps` (default: `100`)") that the code's typed
    definitions of that name gave when the memory was written and none gives now, while some give
    another (browser-use's 500): a warning naming the value now. Not judged where a definition still
    gives the stated value, where none gives one, or for names of tests and examples."""
    stated = [(m.group("name"), m.group("value"), entry.content.count("\n", 0, m.start()))
              for m in _STATED_DEFAULT.finditer(entry.content)] if "default" in entry.content else []
    if not stated or not checker.history.available:
        return
    index, history = checker.index, checker.history
    mentioned = index.files_mentioning({name for name, _, _ in stated})
    for name, value, line in stated:
        pattern = _typed_defaults(name)
        now: dict[str, str] = {}
        for path in mentioned.get(name, ()):
            if _NOT_DEFAULTS.search(path) or (data := index.read(path)) is None:
                continue
            for match in pattern.finditer(data):
                now.setdefault(match.group(1).decode("utf-8", "replace"), path)
        result.depends_on.add(WORD + name)
        if not now or value in now:
            continue
        baseline = checker.baselines.of(entry, line)
        if baseline is None or baseline.commit is None:
            continue
        files = (history.grep_at(baseline.commit, [name], code_pathspecs(checker.index)) or {}).get(name, set())
        files = sorted(p for p in files if not _NOT_DEFAULTS.search(p))[:_MAX_FILES_PER_SYMBOL]
        then = history.read_at([(baseline.commit, p) for p in files])
        held = next(((p, m.group(0)) for p in files if (data := then.get((baseline.commit, p))) is not None
                     for m in pattern.finditer(data) if m.group(1).decode("utf-8", "replace") == value), None)
        if held is None:
            continue  # the code did not give that default then either: nothing we can say changed
        path, written = held
        change = history.word_change(written.decode("utf-8", "replace"), baseline.commit, [path])
        values = ", ".join(sorted(now)[:3])
        where = now[sorted(now)[0]]
        result.findings.append(Finding(
            kind="stale-value", severity=Severity.warning, source=entry.location.path,
            line=checker.baselines.line_of(entry, line), entry=entry.id, ref=name, commit=getattr(change, "sha", None),
            message=f"`{name}` defaults to {values} now (`{where}`); `{path}` gave it {value} when this memory was "
                    f"{baseline.how}" + (f" (changed in {change.describe()})" if change else "")))


def post_checks() -> list[Callable[[StalenessChecker, Entry, EntryResult], None]]:
    return [changed_since_verified, stated_values, stated_defaults]
