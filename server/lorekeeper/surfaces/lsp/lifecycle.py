# pyright: standard
"""The server's lifecycle: initialize (which folder), initialized (the first check, file watching,
settings), and the notifications that keep its state current — watched files, saves, configuration."""

from __future__ import annotations

import asyncio
import logging
import secrets
from typing import Any

from lsprotocol import types

from ...core.model import Finding
from .commands import suggest_compaction
from .diagnostics import publish, pull_mode, refresh_lenses
from .server import LoreServer
from .settings import layer

log = logging.getLogger("lorekeeper.lsp")


def register(server: LoreServer) -> None:
    @server.feature(types.INITIALIZE)
    def on_initialize(ls: LoreServer, params: types.InitializeParams) -> None:
        root = None
        if params.workspace_folders:
            root = ls.fs_path(params.workspace_folders[0].uri)
        root = root or params.root_path or (ls.fs_path(params.root_uri) if params.root_uri else None)
        ls.open_workspace(root)
        options = params.initialization_options
        if isinstance(options, dict):
            apply_settings(ls, options.get("lorekeeper", options))

    @server.feature(types.INITIALIZED)
    async def on_initialized(ls: LoreServer, params: types.InitializedParams) -> None:
        loop = asyncio.get_running_loop()
        progress = FirstCheckProgress(ls, loop)

        ls.first_snapshot = asyncio.Event()

        def early(findings: list[Finding]) -> None:  # (from the checking thread) stale memories first
            try:
                if pull_mode(ls):  # the first snapshot answers the pulls waiting; a later one asks for more
                    loop.call_soon_threadsafe(_answer_pulls, ls, findings)
                else:
                    loop.call_soon_threadsafe(publish, ls, findings)
            except RuntimeError:  # the loop closed: the client left
                pass

        ls.initial_check = asyncio.ensure_future(ls.write(ls.full_check, progress.step, early))
        try:
            await progress.begin()
            await _register_watchers(ls)
            findings = await ls.initial_check
        finally:
            progress.end(f"{len(ls.stale_entries())} stale memories" if ls.snapshot is not None else "not checked")
        publish(ls, findings)
        ls.tell_recoveries()
        await _pull_configuration(ls)
        suggest_compaction(ls)
        await loop.run_in_executor(None, ls.prepare_saves)  # built off the writer: saves go on meanwhile

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def on_watched(ls: LoreServer, params: types.DidChangeWatchedFilesParams) -> None:
        ws = ls.ws
        if ws is None:
            return
        paths = {p for p in (ls.relpath(c.uri) for c in params.changes) if p and not ws.is_own_output(p)}
        git = {p for p in paths if is_git_state(p)}
        if git:
            ls.schedule_git(git)
        paths = {p for p in paths if not p.startswith(".git/")}  # objects, locks, logs: nothing memory names
        structural = any(c.type != types.FileChangeType.Changed for c in params.changes)
        if paths:
            ls.schedule(paths, structural)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def on_save(ls: LoreServer, params: types.DidSaveTextDocumentParams) -> None:
        if ls.watching:
            return  # the file watcher reports it
        path = ls.relpath(params.text_document.uri)
        if path and ls.ws is not None and not ls.ws.is_own_output(path):
            ls.schedule({path})

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def on_open(ls: LoreServer, params: types.DidOpenTextDocumentParams) -> None:
        return None  # diagnostics are already published for every memory file

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def on_configuration(ls: LoreServer, params: types.DidChangeConfigurationParams) -> None:
        settings = params.settings
        if isinstance(settings, dict) and isinstance(settings.get("lorekeeper"), dict):
            apply_settings(ls, settings["lorekeeper"])
        else:
            await _pull_configuration(ls)


class FirstCheckProgress:
    """``$/progress`` for the first check (seconds on a large store), where the client shows progress:
    the check starts at once; the token is created meanwhile, and each phase the check reaches is
    reported on it. Changes that arrive while it runs are queued and checked right after."""

    def __init__(self, ls: LoreServer, loop: asyncio.AbstractEventLoop):
        self.ls = ls
        self.loop = loop
        self.token: str | None = None
        self.latest: tuple[str, int] = ("starting", 0)
        self.done = False

    def step(self, message: str, percent: int) -> None:
        """A phase started (called from the checking thread)."""
        try:
            self.loop.call_soon_threadsafe(self._report, message, percent)
        except RuntimeError:  # the loop closed (the client left mid-check): nobody to tell
            pass

    async def begin(self) -> None:
        caps = self.ls.client_capabilities.window
        if not (caps and caps.work_done_progress):
            return
        token = f"lorekeeper-first-check-{secrets.token_hex(4)}"
        try:
            await asyncio.wait_for(self.ls.work_done_progress.create_async(token), 10)
        except Exception as exc:  # a client that refuses or does not answer: no progress, same check
            log.warning("progress not created: %s", exc)
            return
        if self.done:
            return
        self.token = token
        message, percent = self.latest
        self.ls.work_done_progress.begin(token, types.WorkDoneProgressBegin(
            title="Lorekeeper", message=message, percentage=percent, cancellable=False))

    def _report(self, message: str, percent: int) -> None:
        self.latest = (message, percent)
        if self.token is not None and not self.done:
            self.ls.work_done_progress.report(self.token, types.WorkDoneProgressReport(message=message, percentage=percent))

    def end(self, message: str) -> None:
        self.done = True
        if self.token is not None:
            self.ls.work_done_progress.end(self.token, types.WorkDoneProgressEnd(message=message))


def _answer_pulls(ls: LoreServer, findings: list[Finding]) -> None:
    """A first-check snapshot is published: pulls wait for the first, and are asked again after a later."""
    ready = ls.first_snapshot
    if ready is not None and not ready.is_set():
        ready.set()
    else:
        publish(ls, findings)


def is_git_state(path: str) -> bool:
    """Whether a path is where git keeps what HEAD is, a branch or tag points to, or what is staged."""
    return path in (".git/HEAD", ".git/index", ".git/packed-refs") or path.startswith(".git/refs/")


async def _register_watchers(ls: LoreServer) -> None:
    caps = ls.client_capabilities.workspace
    dynamic = bool(caps and caps.did_change_watched_files and caps.did_change_watched_files.dynamic_registration)
    if not dynamic:
        return
    try:
        await ls.client_register_capability_async(types.RegistrationParams(registrations=[types.Registration(
            id="lorekeeper-watch", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=types.DidChangeWatchedFilesRegistrationOptions(
                # git's state too (editors leave .git out of "**/*"): a commit or a staged move re-checks
                watchers=[types.FileSystemWatcher(glob_pattern="**/*"),
                          *(types.FileSystemWatcher(glob_pattern=f".git/{name}")
                            for name in ("HEAD", "index", "packed-refs", "refs/**"))]))]))
        ls.watching = True
    except Exception as exc:  # a client that refuses keeps the didSave fallback
        log.warning("file watching not registered: %s", exc)


async def _pull_configuration(ls: LoreServer) -> None:
    caps = ls.client_capabilities.workspace
    if not (caps and caps.configuration):
        return
    try:
        result = await ls.workspace_configuration_async(types.ConfigurationParams(
            items=[types.ConfigurationItem(section="lorekeeper")]))
    except Exception as exc:
        log.warning("workspace/configuration failed: %s", exc)
        return
    if result and isinstance(result[0], dict):
        apply_settings(ls, result[0])


def apply_settings(ls: LoreServer, values: dict[str, Any]) -> None:
    """Layer settings over the current ones; a value of the wrong type is ignored, with one message. A
    change of how findings are shown (severities) republishes them."""
    before = ls.settings
    ls.settings, problems = layer(ls.settings, values)
    if ls.settings.severity != before.severity and ls.snapshot is not None:
        ls.last_findings.clear()  # every file again: the same findings, shown otherwise
        publish(ls, ls.all_findings())
    elif ls.settings.codeLensInMemory != before.codeLensInMemory:
        refresh_lenses(ls)
    if values.get("budget") == ls.settings.budget:  # sent and valid: it overrides .lore/config.toml's
        ls.config = ls.config.with_overrides(budget=ls.settings.budget)
    if problems:
        ls.window_show_message(types.ShowMessageParams(
            type=types.MessageType.Warning,
            message="Lorekeeper: ignored invalid settings, using defaults: " + ", ".join(problems)))
