"""``lore serve``: the language server. This module holds the server's state and its lifecycle; each
feature area registers its handlers from its own module. The engine decides; this layer translates
findings, entries and plans into LSP types.

Nothing but JSON-RPC goes to stdout: logging goes to stderr and ``window/logMessage``."""

from __future__ import annotations

import asyncio
import logging
import time
import os
import threading
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from .. import __version__
from ..compaction.config import CompactionConfig
from ..safeio import read_bytes
from ..diagnose import memory_findings
from ..model import Finding, Severity
from ..staleness import StalenessChecker
from ..store import Store
from ..workspace import Workspace, WorkspaceNotFound, find_root

log = logging.getLogger("lorekeeper.lsp")

DEFAULT_SETTINGS: dict[str, Any] = {"debounceMs": 200, "codeLensInCode": False, "budget": 2000}


class LoreServer(LanguageServer):
    """The language server and the state it keeps between requests."""

    def __init__(self) -> None:
        super().__init__("lorekeeper", __version__)
        self.ws: Workspace | None = None
        self.store: Store | None = None
        self.checker: StalenessChecker | None = None
        self.config = CompactionConfig()
        self.settings: dict[str, Any] = dict(DEFAULT_SETTINGS)
        self.memory_findings: list[Finding] = []
        self.last_findings: dict[str, list[Finding]] = {}  # what was last pushed, by memory file
        # Serialises writers (re-checks, commands); requests read the current state without waiting.
        self.lock = threading.RLock()
        self._pending: set[str] = set()
        self._structural = False
        self._entry_files: dict[str, str] = {}  # entry id -> its memory file
        self._by_id: dict[str, Any] = {}
        self._tokens: tuple[Any, dict[str, int]] | None = None
        self.fuse_cache: tuple[Any, dict[str, Any]] | None = None
        self._journal: tuple[Any, list] | None = None
        self._file_entries: dict[str, list[str]] = {}
        self._memory_by_file: dict[str, list[Finding]] = {}
        self._debounce: asyncio.TimerHandle | None = None
        self.watching = False
        self.initial_check: asyncio.Future | None = None  # the first full check, awaited by pull requests
        #: Edits handed to the client (references that follow a rename), journaled as they reach disk:
        #: the user may accept only some of them.
        self.pending_edits: list[tuple[Any, float]] = []
        self._generation = 0  # full checks started
        self._landed = 0  # the newest whose result is the current state

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

    def entries_at(self, uri: str, line: int | None = None) -> list:
        """The entries a document holds (at a 0-based line, for instruction files)."""
        relpath = self.relpath(uri)
        if relpath is None or self.store is None:
            return []
        found = [e for e in self.store.entries if e.location.path == relpath]
        if line is None:
            return found
        return [e for e in found if e.format != "instruction" or e.location.start_line <= line + 1 <= e.location.end_line]

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
            self.ws = Workspace(find_root(Path(root_path)))
        except WorkspaceNotFound:
            self.ws = Workspace(Path(root_path))
        self.config = CompactionConfig.load(self.ws.root)

    def full_check(self) -> list[Finding]:
        """Load every memory file and check everything; returns all findings. Runs off the event loop,
        and builds the new state aside: requests keep reading the previous one until it is swapped in."""
        if self.ws is None:
            return []
        with self.lock:  # checks may overlap (start-up, quick saves): each knows which it is
            self._generation += 1
            mine = self._generation
        ws = Workspace(self.ws.root)
        store = Store.open(ws)
        checker = StalenessChecker(ws, store)
        checker.check()
        found = memory_findings(store, self.config)
        with self.lock:
            if mine < self._landed:  # a check that started later (read the files later) already landed
                log.info("dropped the result of check %d: check %d is newer", mine, self._landed)
                return self.all_findings()
            self._landed = mine
            self.ws, self.store, self.checker, self.memory_findings = ws, store, checker, found
            self._entry_files = {e.id: e.location.path for e in store.entries}
            self._by_id = {e.id: e for e in store.entries}
            self._file_entries = {}
            for entry in store.entries:
                self._file_entries.setdefault(entry.location.path, []).append(entry.id)
            self._memory_by_file = {}
            for finding in found:
                self._memory_by_file.setdefault(finding.source, []).append(finding)
            return self.all_findings()

    def refresh(self, changed: set[str], structural: bool = True) -> list[Finding] | dict[str, list[Finding]]:
        """After files changed on disk: memory files reload the store (and everything is re-checked:
        all findings are returned); code files re-check only the entries that depend on them (the
        findings of their memory files are returned, by file)."""
        if self.ws is None or self.store is None or self.checker is None:
            return self.full_check()
        memory = {p for p in changed if self._is_memory(p)}
        if memory:
            self.settle_edits()
            self._reconcile(memory)
            return self.full_check()
        with self.lock:
            self.checker.recheck(changed, structural=structural)
            return self.findings_of_files({self._entry_files.get(i, "") for i in self.checker.checked} - {""})

    def expect_edit(self, operation: Any, seconds: float = 600.0) -> None:
        """An operation whose files the client will write (if the user accepts): journaled by
        :meth:`settle_edits` file by file, as its changes reach disk."""
        self.pending_edits.append((operation, time.monotonic() + seconds))

    def settle_edits(self) -> None:
        """Journal the changes of pending client edits that are now on disk (each file holds what the edit
        writes); the rest wait, and are forgotten once they expire (the user left them unticked)."""
        from ..store import Journal, Operation  # noqa: PLC0415

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
        from ..store import Journal  # noqa: PLC0415

        assert self.ws is not None
        try:
            for record in Journal(self.ws, command="editor", argv=["lore", "serve"]).reconcile(paths):
                log.info("journal: %s", record.reason)
        except Exception as exc:  # the journal is a record; failing to update it must not stop checking
            log.warning("journal not reconciled: %s", exc)

    def _is_memory(self, relpath: str) -> bool:
        """Whether a change to this file reloads the store: a memory file (the workspace decides, for
        every surface alike), or a file that configures how memory is read."""
        assert self.ws is not None
        return self.ws.is_memory_path(relpath) or relpath in (".lore/config.toml", ".lean-spec/config.json")

    def journal_records(self) -> list:
        """The journal's records, read again only when the log folder changed (hover reads them)."""
        if self.ws is None:
            return []
        from ..store import Journal  # noqa: PLC0415

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
        store = self.store
        if store is None:
            return {"entries": 0, "instructions": 0}
        if self._tokens is None or self._tokens[0] is not store:
            from ..report import memory_tokens  # noqa: PLC0415 - loads the tokenizer only when asked

            self._tokens = (store, memory_tokens(store))
        return self._tokens[1]

    def entry_by_id(self, entry_id: str | None):
        return self._by_id.get(entry_id) if entry_id else None

    def findings_of_files(self, files: set[str]) -> dict[str, list[Finding]]:
        """The current findings of some memory files only: what a code change can have touched."""
        assert self.checker is not None
        out = {}
        for path in files:
            stale = [f for i in self._file_entries.get(path, []) for f in
                     (self.checker.results[i].findings if i in self.checker.results else [])]
            out[path] = [*self._memory_by_file.get(path, []), *stale]
        return out

    def all_findings(self) -> list[Finding]:
        stale = self.checker.findings() if self.checker else []
        return [*self.memory_findings, *stale]

    def stale_entries(self) -> set[str]:
        """The memories whose references the code made false (a warning or an error of a staleness kind):
        what the status bar and "Check Stale Memories" both count."""
        from .actions import STALE_KINDS  # noqa: PLC0415

        return {f.entry for f in self.all_findings()
                if f.entry and f.kind.startswith(STALE_KINDS) and f.severity != Severity.info}

    def problem_counts(self) -> dict[str, int]:
        """Entry id -> how many warnings and errors it has now (information findings do not count)."""
        counts: dict[str, int] = {}
        for finding in self.all_findings():
            if finding.entry and finding.severity != Severity.info:
                counts[finding.entry] = counts.get(finding.entry, 0) + 1
        return counts

    # -- scheduling ------------------------------------------------------------------------------

    def schedule(self, paths: set[str], structural: bool = False) -> None:
        """Re-check after a quiet period (``debounceMs``): a burst of saves costs one re-check.
        ``structural``: files were created or deleted (the file list must be walked again)."""
        self._pending |= paths
        self._structural = self._structural or structural
        loop = asyncio.get_running_loop()
        if self._debounce is not None:
            self._debounce.cancel()
        delay = max(0, int(self.settings.get("debounceMs", 200))) / 1000
        self._debounce = loop.call_later(delay, lambda: asyncio.ensure_future(self._run_pending()))

    async def _run_pending(self) -> None:
        paths, self._pending = self._pending, set()
        structural, self._structural = self._structural, False
        if not paths:
            return
        loop = asyncio.get_running_loop()
        findings = await loop.run_in_executor(None, self.refresh, paths, structural)
        from .diagnostics import publish  # noqa: PLC0415 - feature module imports this one

        publish(self, findings)


def create_server() -> LoreServer:
    """A server with every feature registered."""
    from . import actions, diagnostics, hover, lens  # noqa: PLC0415

    server = LoreServer()
    for feature in (diagnostics, hover, actions, lens):
        feature.register(server)
    return server


def main(tcp: str | None = None) -> None:
    """Run the server over stdio (or TCP ``HOST:PORT``); logs go to stderr."""
    logging.basicConfig(level=os.environ.get("LORE_LOG_LEVEL", "WARNING"), format="%(name)s: %(message)s")
    # A client cancels requests the server has already answered: routine, not worth a line in the
    # editor's output at every start.
    logging.getLogger("pygls.protocol.json_rpc").addFilter(
        lambda record: "Cancel notification for unknown message id" not in record.getMessage())
    server = create_server()
    if tcp:
        host, _, port = tcp.rpartition(":")
        server.start_tcp(host or "127.0.0.1", int(port))
    else:
        from .transport import start_io  # noqa: PLC0415

        start_io(server)
