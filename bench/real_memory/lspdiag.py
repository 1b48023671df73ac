#!/usr/bin/env python3
"""Collect the diagnostics `lore serve` publishes for a workspace (a stdlib-only LSP client).

usage: lspdiag.py ROOT --lore PATH [--quiet SECONDS] [--timeout SECONDS]
prints JSON: {path relative to ROOT: [diagnostic...]}.

The server is started in ROOT, initialised with ROOT as its only workspace folder, and read until its first
check has ended (the work-done progress it reports) and no diagnostics arrived for QUIET seconds, or TIMEOUT
passed; then it is shut down.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import subprocess
import threading
import time
import urllib.parse
from typing import Any


def _path_of(uri: str) -> str:
    return urllib.parse.unquote(uri[len("file://"):])


def run(root: str, lore: str, quiet: float = 4.0, timeout: float = 180.0, env: dict[str, str] | None = None,
        stats: dict[str, float] | None = None) -> dict[str, list[dict[str, Any]]]:
    """The diagnostics by path; ``stats`` (when given) gets the seconds from the start of the server to the end
    of its first check ("checked"), to its first and to its last published diagnostics ("first", "last"), and
    in all ("total", the quiet wait included)."""
    root = os.path.abspath(root)
    p = subprocess.Popen([lore, "serve"], cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, env=env)
    assert p.stdin is not None and p.stdout is not None
    stdin, stdout = p.stdin, p.stdout
    msgs: queue.Queue[dict[str, Any] | None] = queue.Queue()

    def reader() -> None:
        while True:
            headers = {}
            while True:
                line = stdout.readline()
                if not line:
                    msgs.put(None)
                    return
                text = line.decode().strip()
                if not text:
                    break
                k, v = text.split(":", 1)
                headers[k.lower()] = v.strip()
            msgs.put(json.loads(stdout.read(int(headers["content-length"]))))

    threading.Thread(target=reader, daemon=True).start()

    def send(obj: dict[str, Any]) -> None:
        data = json.dumps(obj).encode()
        stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
        stdin.flush()

    uri = "file://" + urllib.parse.quote(root)
    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "processId": os.getpid(), "rootUri": uri, "rootPath": root,
        "workspaceFolders": [{"uri": uri, "name": os.path.basename(root)}],
        "capabilities": {"textDocument": {"publishDiagnostics": {"relatedInformation": True, "codeDescriptionSupport": True,
                                                                 "dataSupport": True}},
                         "workspace": {"workspaceFolders": True, "configuration": True},
                         "window": {"workDoneProgress": True}}}})
    diags: dict[str, list[dict[str, Any]]] = {}
    last = start = time.time()
    inited = False
    progress: set[str] = set()  # tokens of the server's work-done progress not ended yet
    checking = False  # the first check reports progress: wait for its end
    while True:
        try:
            m = msgs.get(timeout=0.5)
        except queue.Empty:
            m = {}
        now = time.time()
        if m is None:
            break
        if m:
            if m.get("id") == 1 and "result" in m and not inited:
                send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
                inited = True
                last = now
            elif "method" in m and "id" in m:  # a request from the server
                res = None
                if m["method"] == "window/workDoneProgress/create":
                    progress.add(str(m["params"]["token"]))
                    checking = True
                if m["method"] == "workspace/configuration":
                    res = [None for _ in m["params"].get("items", [])]
                send({"jsonrpc": "2.0", "id": m["id"], "result": res})
            elif m.get("method") == "$/progress" and (m["params"].get("value") or {}).get("kind") == "end":
                progress.discard(str(m["params"]["token"]))
                if checking and not progress:
                    checking = False
                    last = now
                    if stats is not None:
                        stats.setdefault("checked", round(now - start, 2))
            elif m.get("method") == "textDocument/publishDiagnostics":
                diags[os.path.relpath(_path_of(m["params"]["uri"]), root)] = m["params"]["diagnostics"]
                last = now
                if stats is not None:
                    stats.setdefault("first", round(now - start, 2))
                    stats["last"] = round(now - start, 2)
        if inited and not checking and now - last > quiet:
            break
        if now - start > timeout:
            break
    try:
        send({"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": None})
        send({"jsonrpc": "2.0", "method": "exit", "params": None})
        p.wait(timeout=10)
    except Exception:
        p.kill()
    if stats is not None:
        stats["total"] = round(time.time() - start, 2)
    for found in diags.values():
        for x in found:
            for r in x.get("relatedInformation") or []:
                r["location"]["path"] = os.path.relpath(_path_of(r["location"]["uri"]), root)
    return diags


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("root")
    ap.add_argument("--lore", required=True, help="the lore executable")
    ap.add_argument("--quiet", type=float, default=4.0)
    ap.add_argument("--timeout", type=float, default=180.0)
    a = ap.parse_args()
    print(json.dumps(run(a.root, a.lore, quiet=a.quiet, timeout=a.timeout), indent=1))
