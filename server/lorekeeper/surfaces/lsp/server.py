# pyright: standard
"""``lore serve``: the language server. This module holds the server's state and its lifecycle; each
feature area registers its handlers from its own module. The engine decides; this layer translates
findings, entries and plans into LSP types.

Nothing but JSON-RPC goes to stdout: logging goes to stderr and ``window/logMessage``."""

from __future__ import annotations

import asyncio
import gc
import itertools
import logging
import os
import subprocess
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.uris import from_fs_path, to_fs_path

from ... import __version__
from ...analysis.agents import Repo, loading_findings
from ...analysis.compaction.rules import SearchMemo
from ...analysis.diagnose import memory_findings
from ...analysis.staleness import StalenessChecker
from ...analysis.staleness.llm import remembered_findings
from ...app.report import memory_tokens, tokens_of
from ...core.model import Entry, Finding
from ...core.settings.compaction import CompactionConfig
from ...facts import open_memory
from ...infra.gitcmd import git_command, git_env
from ...infra.safeio import read_bytes
from ...infra.workers import collection_paused
from ...store import Journal, Operation, Store
from ...store.journal import recover
from ...workspace import Workspace, WorkspaceNotFound, find_root
from .settings import Settings
from .state import Snapshot

log = logging.getLogger("lorekeeper.lsp")

class _Protocol(LanguageServerProtocol):
    """pygls's protocol, keeping no document text: the server reads memory from disk, never from an
    editor's buffers, so an open document is remembered by its URI alone (which documents are open is
    what ``lore.context`` asks). A 50 MB file opened, or a burst of edits to it, costs nothing."""

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: types.DidOpenTextDocumentParams):
        item = params.text_document
        self.workspace.put_text_document(types.TextDocumentItem(uri=item.uri, language_id=item.language_id,
                                                                version=item.version, text=""))
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_OPEN)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams):
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield handler, (params,), None


class LoreServer(LanguageServer):
    """The language server and the state it keeps between requests.

    State is one immutable :class:`~.state.Snapshot`: requests read ``self.snapshot`` once and never
    wait. Writers (checks, re-checks, commands) run on one writer thread (:meth:`write`), one at a time
    under ``self.lock``, and publish the next snapshot whole; the event loop only hands them over and
    awaits them, so no handler ever waits on the lock there and hover answers while a check runs. Since
    a check reads the files only once it holds the lock, a check that starts later always lands later,
    and the newest state wins by construction. A check asked for while another ran is skipped when a
    check that started after the request already landed."""

    def __init__(self) -> None:
        # No document changes are asked for (the server reads files from disk, on save and on file events).
        super().__init__("lorekeeper", __version__, protocol_cls=_Protocol,
                         text_document_sync_kind=types.TextDocumentSyncKind.None_)
        self._ws: Workspace | None = None
        self.snapshot: Snapshot | None = None
        self._checker: StalenessChecker | None = None
        self.config = CompactionConfig()
        self.settings = Settings()
        self.last_findings: dict[str, list[Finding]] = {}  # what was last pushed, by memory file
        #: Serialises writers (checks, re-checks, commands); requests read ``snapshot`` without it.
        self.lock = threading.RLock()
        #: The one thread writers run on (:meth:`write`): the event loop never takes :attr:`lock`.
        self.writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lore-writer")
        #: What follows a re-check the server scheduled itself (publishing, offers): set by the wiring
        #: (:mod:`.main`), which knows the features.
        self.after_check: Callable[[LoreServer, Any], None] | None = None
        self._tickets = itertools.count(1)  # each check request takes the next number
        self._covered = 0  # every request numbered up to this is answered by the current snapshot
        self._pending: set[str] = set()
        self._structural = False
        self._debounce: asyncio.TimerHandle | None = None
        self._last_change = float("-inf")  # loop time of the last change scheduled
        self._journal: tuple[Any, list] | None = None
        #: What the duplicate search read of each memory text and found, kept between checks (under the lock).
        self._search = SearchMemo()
        #: Tokens of each memory text, kept between stores: a save recounts the texts it changed.
        self._token_counts: dict[str, int] = {}
        #: The last count (by scope) and the store it is of (the serial), for the next to update.
        self._tokens: tuple[int, dict[str, int]] | None = None
        self.watching = False
        #: Git state changes waiting for their re-check (:meth:`schedule_git`), and the index's staged
        #: changes as the last re-check saw them.
        self._git_pending: set[str] = set()
        self._git_debounce: asyncio.TimerHandle | None = None
        self._staged: tuple[str, ...] = ()
        #: The files the last workspace diagnostic report named (their findings): a file that has none at
        #: the next one is reported empty, so that the client clears it.
        self.workspace_reported: set[str] = set()
        self.initial_check: asyncio.Future | None = None  # the first full check, awaited by pull requests
        #: Set once the first check's references are checked (its first snapshot): a client that can be
        #: asked to pull again is answered from then on, and asked again when the check is whole.
        self.first_snapshot: asyncio.Event | None = None
        #: Edits handed to the client (references that follow a rename), journaled as they reach disk:
        #: the user may accept only some of them.
        self.pending_edits: list[tuple[Any, float]] = []
        #: The user was asked to compact since memory passed the auto-compaction threshold.
        self.compaction_suggested = False
        #: What crash recovery did at the last loads (a rolled-back change), not yet told to the user.
        self.recovery_notes: list[str] = []

    # -- the current state (read-only views of the snapshot) -------------------------------------

    @property
    def ws(self) -> Workspace | None:
        return self.snapshot.ws if self.snapshot is not None else self._ws

    @property
    def store(self) -> Store | None:
        return self.snapshot.store if self.snapshot is not None else None

    @property
    def checker(self) -> StalenessChecker | None:
        """The writer's checker (the state the next re-check starts from): for code on the writer thread."""
        return self._checker if self.snapshot is not None else None

    # -- paths -----------------------------------------------------------------------------------

    def uri(self, relpath: str) -> str:
        assert self.ws is not None
        return from_fs_path(str(self.ws.root / relpath)) or ""

    @staticmethod
    def fs_path(uri: str | None) -> str | None:
        """The filesystem path of a ``file:`` URI (``None`` for other schemes)."""
        if not uri or urlparse(uri).scheme != "file":
            return None
        return to_fs_path(uri)

    def relpath(self, uri: str) -> str | None:
        """The workspace-relative path of a ``file:`` URI inside the workspace, else ``None``."""
        if self.ws is None:
            return None
        parsed = urlparse(uri)
        if parsed.scheme != "file":
            return None
        path = Path(unquote(parsed.path))
        try:
            return Path(os.path.realpath(path)).relative_to(self.ws.root).as_posix()
        except ValueError:
            return None

    # -- loading and checking --------------------------------------------------------------------

    def open_workspace(self, root_path: str | None) -> None:
        """Find the workspace from the client's root folder (like git does from a folder)."""
        if not root_path:
            return
        try:
            ws = Workspace(find_root(Path(root_path)))
        except WorkspaceNotFound:
            ws = Workspace(Path(root_path))
        self._ws = ws
        self.config = ws.compaction  # a frozen value: replaced, never changed

    def full_check(self, progress: Callable[[str, int], None] | None = None,
                   early: Callable[[list[Finding]], None] | None = None) -> list[Finding]:
        """Load every memory file and check everything; returns all findings. Runs off the event loop.
        Skipped (the current findings are returned) when a check that began after this one was asked
        for has landed meanwhile: it read every file this one would. ``progress(message, percent)`` is
        told as each phase starts (called from the thread that checks). ``early(findings)`` is given, as
        each snapshot is published before the whole check's: first what the working tree alone says (the
        files' own problems, how agents load them, and the files and folders memories name that are not
        there, whose history is still being read), then the findings that are final once the references
        are checked, before the search for duplicates and conflicts, so that an editor shows them first."""
        if self.ws is None:
            return []
        step = progress or (lambda message, percent: None)
        ticket = next(self._tickets)
        with self.lock:
            if ticket <= self._covered and self.snapshot is not None:
                return self.all_findings()
            covers = next(self._tickets)  # every request made so far is older than what we read now
            with collection_paused():  # the check builds what lives on (collecting cost ~30% of it at 10k)
                ws = Workspace(self.ws.root)
                step("reading memory files", 0)
                # Checking needs no file's creation date (a line is dated by its own commit); asking git for
                # them walks the whole history, so it runs beside the check, for what comes after it.
                store = open_memory(ws, dates=False)
                ws.date_in_background()
                self.recovery_notes.extend(store.recovered)
                step(f"checking the references of {len(store.entries)} memories", 30)
                checker = StalenessChecker(ws, store)
                repo = Repo(ws)  # (the agents' view of the tree, for the early findings and the last ones)
                own = [*store.findings, *loading_findings(ws, repo)]

                def tree(missing: list[Finding]) -> None:  # (before git is asked: the working tree's answer)
                    assert early is not None
                    self._publish_snapshot(Snapshot.build(self._next_generation(), ws, store, checker, self.config,
                                                          own, staleness=missing))
                    early(self.all_findings())

                checker.check(on_tree=tree if early is not None else None)
                kept = _kept_verdicts(ws, checker)
                if early is not None:  # a first snapshot: hover, lenses and fixes work on it at once
                    self._checker = checker
                    self._publish_snapshot(Snapshot.build(self._next_generation(), ws, store, checker, self.config,
                                                          [*own, *kept]))
                    early(self.all_findings())
                step("looking for duplicates and conflicts", 70)
                store = store.dated()  # (duplicates and conflicts are ordered by when memories were written)
                checker.dated(store)
                found = self._memory_findings(store, repo, ws, checker, kept if early is not None else None,
                                              lambda: early(self.all_findings()) if early is not None else None, step)
                found += kept
                step("preparing diagnostics", 90)
                self._checker = checker
                self._publish_snapshot(Snapshot.build(self._next_generation(), ws, store, checker, self.config, found))
                self._covered = covers
            _settle_heap()
            return self.all_findings()

    def _memory_findings(self, store: Store, repo: Repo, ws: Workspace, checker: StalenessChecker,
                         shown: list[Finding] | None, told: Callable[[], None],
                         step: Callable[[str, int], None]) -> list[Finding]:
        """:func:`memory_findings` of the check. On a first check (``shown``: the staleness findings it
        publishes with them) with the semantic stage on, found first from the vectors the cache holds:
        where texts had none, what needs no model is published at once (then ``told``), and the search
        is made again with the model, which embeds those texts (seconds, on a cold cache)."""
        if shown is None or not self.config.semantic_dedup:
            return memory_findings(store, self.config, self._search, repo=repo)
        from ...analysis.semantic import VectorsPending, cached_only

        try:
            with cached_only() as pending:
                found = memory_findings(store, self.config, self._search, repo=repo)
        except VectorsPending:  # (asked for where no one expected it: the search is made with the model)
            return memory_findings(store, self.config, self._search, repo=repo)
        if not pending.texts:
            return found
        self._publish_snapshot(Snapshot.build(self._next_generation(), ws, store, checker, self.config,
                                              [*found, *shown]))
        told()
        step(f"embedding {len(pending.texts)} texts to find what is said twice in other words", 80)
        return memory_findings(store, self.config, self._search, repo=repo)

    def prepare_saves(self) -> None:
        """After the first check: build the candidate search that a memory save updates, where that check
        read the candidate pairs from the cache instead (else the first save builds it: ~1 s at 10k
        entries). It is built off the writer lock, from the entries the check searched (the live ones
        no group took), and kept only if no memory save came meanwhile (that save built one)."""
        with self.lock:
            snapshot = self.snapshot
            if snapshot is None or self._search.sharing is not None:
                return
            grouped = self._search.grouped
            taken = {i for op in grouped.operations for i in op.sources} if grouped is not None else set()
            pool = [e for e in snapshot.store.live() if e.id not in taken]
        built = SearchMemo()
        built.candidates(pool, self.config.merge_threshold)  # (reads only the texts it is given)
        with self.lock:
            if self.snapshot is not None and self.snapshot.store is snapshot.store and self._search.sharing is None:
                self._search.adopt(built)

    def _next_generation(self) -> int:
        return self.snapshot.generation + 1 if self.snapshot is not None else 1

    def _publish_snapshot(self, snapshot: Snapshot) -> None:
        current = self.snapshot
        if current is not None and snapshot.generation <= current.generation:  # cannot happen under the lock
            log.warning("dropped snapshot %d: %d is current", snapshot.generation, current.generation)
            return
        self.snapshot = snapshot

    def refresh(self, changed: set[str], structural: bool = True) -> list[Finding] | dict[str, list[Finding]]:
        """After files changed on disk: memory files reload the store (and everything is re-checked:
        all findings are returned, or, after a save read alone, those of the files whose findings
        changed, by file); code files re-check only the entries that depend on them (the findings of
        their memory files are returned, by file)."""
        if self.snapshot is None:
            return self.full_check()
        assert self.ws is not None
        memory = self._memory_changed(changed)
        if memory:
            self.settle_edits()
            self._reconcile(memory)
            found = None if structural else self.reload_memory(memory)
            return found if found is not None else self.full_check()
        with self.lock:
            snapshot, checker = self.snapshot, self._checker
            assert checker is not None
            checker.recheck(changed, structural=structural)
            touched = {path for path in map(snapshot.store_path, checker.checked) if path is not None}
            self._publish_snapshot(snapshot.after_recheck(self._next_generation(), checker))
            return self.findings_of_files(touched)

    def _memory_changed(self, changed: set[str]) -> set[str]:
        """The memory files among changed paths: files that configure or hold memory by their name, and
        files the store reads under another name (``CLAUDE.md`` a symlink to ``CONTRIBUTING.md``: a save
        through the link changes the file it leads to). A link's name is given as the file it leads to."""
        snapshot = self.snapshot
        assert self.ws is not None and snapshot is not None
        store = snapshot.store
        real = {alias: path for path, aliases in snapshot.ws.aliases.items() for alias in aliases}
        return {real.get(p, p) for p in changed if self.ws.reloads_store(p) or store.holds(p)}

    def reload_memory(self, changed: set[str]) -> list[Finding] | dict[str, list[Finding]] | None:
        """After memory files were modified in place (saved; none created or deleted): read only those
        files again and check only their entries, against the code the last check indexed; the findings
        about memory as a whole (duplicates, contradictions, supersession) are found again over every
        entry. Returns the findings of the files whose findings changed, by file (every finding, where
        that is not known: see :meth:`Snapshot.build`), or ``None`` where only a full check gives the
        same answer (a configuration or verification file changed, a half-applied change was rolled
        back, see :meth:`Store.reloaded` and :meth:`StalenessChecker.reload`)."""
        with self.lock:
            snapshot = self.snapshot
            if snapshot is None:
                return None
            ws = snapshot.ws
            if any(path in ws.CONFIG_FILES for path in changed):
                return None
            recovered = recover(ws, sweep=False)
            if recovered:
                self.recovery_notes.extend(recovered)
                return None
            with collection_paused():  # as in a full check: what this builds lives on, the rest is freed
                store = snapshot.store.reloaded(changed)
                checker = self._checker
                if store is None or checker is None or not checker.reload(store, changed):
                    return None
                found = memory_findings(store, self.config, self._search, save=False)  # saved by full checks
                found += _kept_verdicts(ws, checker)
                self._publish_snapshot(Snapshot.build(self._next_generation(), ws, store, checker, self.config,
                                                      found, file_entries=snapshot.file_entries_after(store, changed),
                                                      previous=snapshot))
            touched = self.snapshot.touched if self.snapshot is not None else None
            return self.findings_of_files(touched) if touched is not None else self.all_findings()

    def expect_edit(self, operation: Any, seconds: float = 600.0) -> None:
        """An operation whose files the client will write (if the user accepts): journaled by
        :meth:`settle_edits` file by file, as its changes reach disk."""
        self.pending_edits.append((operation, time.monotonic() + seconds))

    def settle_edits(self) -> None:
        """Journal the changes of pending client edits that are now on disk (each file holds what the edit
        writes); the rest wait, and are forgotten once they expire (the user left them unticked)."""

        if not self.pending_edits or self.ws is None:
            return
        still: list[tuple[Any, float]] = []
        for operation, deadline in self.pending_edits:
            landed, waiting = [], []
            for change in operation.changes:
                try:
                    current = read_bytes(self.ws.root / change.path, root=self.ws.root)
                except OSError:
                    current = None
                (landed if current == change.after else waiting).append(change)
            if landed:
                try:
                    Journal(self.ws, command="editor", argv=["lore", "serve"]).record(Operation(
                        op=operation.op, reason=operation.reason, changes=landed, entries=operation.entries))
                except Exception as exc:
                    log.warning("journal: edit not recorded: %s", exc)
            if waiting and time.monotonic() < deadline:
                operation.changes = waiting
                still.append((operation, deadline))
        self.pending_edits = still

    def _reconcile(self, paths: set[str]) -> None:
        """A memory file changed outside Lorekeeper: if that undid an operation (the editor's undo after a
        quick fix), the journal records it, so that the journal and the files agree."""

        assert self.ws is not None
        try:
            journal = Journal(self.ws, command="editor", argv=["lore", "serve"], sweep=False)
            for record in journal.reconcile(paths, self.journal_records()):
                log.info("journal: %s", record.reason)
        except Exception as exc:  # the journal is a record; failing to update it must not stop checking
            log.warning("journal not reconciled: %s", exc)

    def journal_records(self) -> list:
        """The journal's records, read again only when the log folder changed (hover reads them)."""
        if self.ws is None:
            return []

        folder = self.ws.log_dir
        try:
            stamp = (folder.stat().st_mtime_ns, sum(1 for _ in folder.iterdir()))
        except OSError:
            return []
        if self._journal is None or self._journal[0] != stamp:
            self._journal = (stamp, Journal(self.ws).records()[0])
        return self._journal[1]

    def memory_tokens(self) -> dict[str, int]:
        """The memory's size in tokens, by scope (:func:`..report.memory_tokens`), counted once a store."""
        snapshot = self.snapshot
        if snapshot is None:
            return {"entries": 0, "instructions": 0}
        if "tokens" not in snapshot.memo:

            store = snapshot.store
            if len(self._token_counts) > 2 * len(store.entries) + 100:
                self._token_counts = {}  # mostly texts no longer in memory
            last = self._tokens
            changes = store.changes_since(last[0]) if last is not None else None
            if last is not None and changes is not None:  # a save: the last count, less what it changed
                less = tokens_of([e for e in changes[0] if e.live], self._token_counts)
                more = tokens_of([e for e in changes[1] if e.live], self._token_counts)
                tokens = {scope: n - less[scope] + more[scope] for scope, n in last[1].items()}
            else:
                tokens = memory_tokens(store, self._token_counts)
            self._tokens = (store.serial, tokens)
            snapshot.memo["tokens"] = tokens
        return snapshot.memo["tokens"]

    def entry_by_id(self, entry_id: str | None) -> Entry | None:
        return self.snapshot.by_id.get(entry_id) if entry_id and self.snapshot is not None else None

    def entries_at(self, uri: str, line: int | None = None) -> list[Entry]:
        """The entries a document holds (at a 0-based line, for instruction files)."""
        relpath = self.relpath(uri)
        snapshot = self.snapshot
        if relpath is None or snapshot is None:
            return []
        return snapshot.entries_in(relpath, line)

    def findings_of_files(self, files: set[str]) -> dict[str, list[Finding]]:
        """The current findings of some memory files only: what a code change can have touched."""
        snapshot = self.snapshot
        return {path: list(snapshot.by_file.get(path, [])) for path in files} if snapshot is not None else {}

    async def first_check_answered(self) -> None:
        """Wait until a pull can be answered: the first check's first snapshot, for a client that takes a
        refresh (it is asked to pull again when the check is whole), else the whole first check."""
        check = self.initial_check
        if check is None or check.done():
            return
        caps = self.client_capabilities.workspace
        refreshes = bool(caps and caps.diagnostics and caps.diagnostics.refresh_support)
        ready = self.first_snapshot
        if not refreshes or ready is None:
            await check
            return
        waiter = asyncio.ensure_future(ready.wait())
        done, _ = await asyncio.wait({check, waiter}, return_when=asyncio.FIRST_COMPLETED)
        if waiter not in done:
            waiter.cancel()

    def all_findings(self) -> list[Finding]:
        return list(self.snapshot.findings) if self.snapshot is not None else []

    def stale_entries(self) -> set[str]:
        """The memories whose references the code made false: what the status bar and "Check Stale
        Memories" both count."""
        return self.snapshot.stale_entries() if self.snapshot is not None else set()

    def problem_counts(self) -> dict[str, int]:
        """Entry id -> how many warnings and errors it has now (information findings do not count)."""
        return self.snapshot.problem_counts() if self.snapshot is not None else {}

    # -- scheduling ------------------------------------------------------------------------------

    def schedule(self, paths: set[str], structural: bool = False) -> None:
        """Re-check the dependants of changed files. A change after a quiet moment (a save) is re-checked
        at once; changes that follow each other within ``debounceMs`` (a branch switch, a formatter
        over many files) are gathered and re-checked together once they stop.
        ``structural``: files were created or deleted (the file list must be walked again)."""
        self._pending |= paths
        self._structural = self._structural or structural
        loop = asyncio.get_running_loop()
        delay = self.settings.debounceMs / 1000
        now = loop.time()
        burst = now - self._last_change < delay
        self._last_change = now
        if self._debounce is not None:
            self._debounce.cancel()
            self._debounce = None
        if burst:
            self._debounce = loop.call_later(delay, lambda: asyncio.ensure_future(self._run_pending()))
        else:
            asyncio.ensure_future(self._run_pending())

    def schedule_git(self, paths: set[str]) -> None:
        """Git's own state changed (a commit, a checkout, a reset: HEAD or a ref; a `git add` or `git mv`:
        the index). What memory's references mean depends on history, so a new HEAD re-checks everything;
        an index change re-checks the paths whose staged state changed (a staged rename is a move), and
        nothing when none did (editors rewrite the index often)."""
        self._git_pending |= {"head" if p != ".git/index" else "index" for p in paths}
        if self._git_debounce is not None:
            self._git_debounce.cancel()
        delay = max(self.settings.debounceMs / 1000, 0.2)  # a commit writes several files in a row
        self._git_debounce = asyncio.get_running_loop().call_later(
            delay, lambda: asyncio.ensure_future(self._run_git()))

    async def _run_git(self) -> None:
        kinds, self._git_pending = self._git_pending, set()
        self._git_debounce = None
        if self.ws is None or not kinds:
            return
        staged = await asyncio.get_running_loop().run_in_executor(None, self._staged_changes)
        before, self._staged = self._staged, staged
        if "head" in kinds:
            findings: Any = await self.write(self.full_check)
        else:
            if staged == before:
                return
            paths = {path for line in (set(staged) ^ set(before)) for path in line.split("\x00")[1:] if path}
            if not paths:
                return
            findings = await self.write(self.refresh, paths, True)
        if self.after_check is not None:
            self.after_check(self, findings)

    def _staged_changes(self) -> tuple[str, ...]:
        """What the index holds that HEAD does not: one ``STATUS\x00PATH[\x00NEW]`` per staged change."""
        assert self.ws is not None
        try:
            proc = subprocess.run(git_command(self.ws.root, "diff", "--cached", "-z", "--name-status", "-M", "HEAD"),
                                  capture_output=True, timeout=10, check=False, env=git_env())
        except (OSError, subprocess.TimeoutExpired):
            return ()
        parts = proc.stdout.decode("utf-8", "replace").split("\x00") if proc.returncode == 0 else []
        out: list[str] = []
        i = 0
        while i < len(parts) - 1:
            status = parts[i]
            width = 3 if status[:1] in ("R", "C") else 2
            out.append("\x00".join(parts[i:i + width]))
            i += width
        return tuple(sorted(out))

    async def write(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run ``fn(*args)`` on the writer thread, holding the writer lock, and return what it returns:
        how every handler changes state. The event loop awaits; it never blocks on the lock."""
        return await asyncio.get_running_loop().run_in_executor(self.writer, partial(self._locked, fn, *args))

    def _locked(self, fn: Callable[..., Any], *args: Any) -> Any:
        with self.lock:
            return fn(*args)

    async def _run_pending(self) -> None:
        paths, self._pending = self._pending, set()
        structural, self._structural = self._structural, False
        if not paths:
            return
        findings = await self.write(self.refresh, paths, structural)
        if self.after_check is not None:
            self.after_check(self, findings)

    def tell_recoveries(self) -> None:
        """Show what crash recovery did (on the event loop): a rolled-back change is never silent."""
        notes, self.recovery_notes = self.recovery_notes, []
        for note in notes:
            self.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=f"Lorekeeper: {note}"))


def _kept_verdicts(ws: Workspace, checker: StalenessChecker) -> list[Finding]:
    """What a model judged stale in an earlier ``lore check-stale --llm`` (kept answers, for the same
    memory text and code: no request, no cost), shown with the full check's diagnostics. A failure here
    only loses these hints."""
    try:

        return remembered_findings(ws, checker.findings(), checker)
    except Exception as exc:  # optional: never break the check
        log.warning("kept model verdicts not read: %s", exc)
        return []


def _settle_heap() -> None:
    """After a full check: collect what the previous state left, then freeze what is alive, so that the
    collector's full passes stop walking the store's objects while the user types (a pass over a large
    store costs hundreds of milliseconds, and would land on random saves)."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()
