"""Helpers of the hand-written labels (truth_src/*.py): locations are given as (file, exact substring) and
resolved to 1-based line numbers in the store, failing loudly when a substring is missing or ambiguous;
the truth is serialised exactly as the committed truth/<store>.json files were.

Every truth_src script runs the same way (:func:`cli`):

    python truth_src/<store>.py STORE_DIR [--source OWNER/NAME=GIT_DIR ...] [--mirror DIR] [--out FILE]

It computes the truth from the built store (and, for the entries stores, the source repositories), then
compares it byte for byte with truth/<store>.json (exit 1 when they differ), or writes it to FILE."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
TRUTH_DIR = HERE / "truth"


def norm(s: str) -> str:
    s = unicodedata.normalize("NFKC", s).lower()
    s = re.sub(r"[✅⬜❌✓☐🚨]", " ", s)
    s = re.sub(r"^\s*(?:[-*+]|\d+[.)])\s+", "", s)
    s = re.sub(r"[`*_~]", "", s)
    s = re.sub(r"[^\w\s./:@+#-]", " ", s)
    s = re.sub(r"[.:;,!]+(\s|$)", r"\1", s)
    return " ".join(s.split())


class Store:
    """The memory files of a built store, read once each."""

    def __init__(self, root: str | os.PathLike[str]):
        self.root = str(root)
        self._cache: dict[str, list[str]] = {}

    def lines(self, f: str) -> list[str]:
        if f not in self._cache:
            with open(os.path.join(self.root, f), encoding="utf-8") as fh:
                self._cache[f] = fh.read().split("\n")
        return self._cache[f]

    def loc(self, f: str, needle: str, nth: int | None = None) -> dict[str, Any]:
        hits = [i for i, line in enumerate(self.lines(f)) if needle in line]
        if not hits:
            raise SystemExit(f"not found: {f}: {needle!r}")
        if len(hits) > 1 and nth is None:
            raise SystemExit(f"ambiguous ({len(hits)}x at {[h + 1 for h in hits]}): {f}: {needle!r}")
        i = hits[nth or 0]
        return {"file": f, "line": i + 1, "text": self.lines(f)[i].strip()}


def dumps(truth: dict[str, Any]) -> str:
    """The truth file's text (key order as given, then "format")."""
    truth.setdefault("format", 1)
    return json.dumps(truth, indent=1, ensure_ascii=False) + "\n"


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def counts(truth: dict[str, Any]) -> dict[str, int]:
    return {k: len(v) for k, v in truth.items() if isinstance(v, list)}


def cli(store: str, make: Callable[[str, Any], dict[str, Any]]) -> None:
    """The command line of a truth_src script (see the module's docstring)."""
    ap = argparse.ArgumentParser(description=f"the truth of the store {store}, from its hand-written labels")
    ap.add_argument("store_dir", help=f"the built store (build.py DEST puts it in DEST/{store})")
    ap.add_argument("--source", action="append", default=[], metavar="OWNER/NAME=GIT_DIR",
                    help="a git directory of a source repository (entries stores)")
    ap.add_argument("--mirror", help="a folder of git directories OWNER+NAME/repo (entries stores)")
    ap.add_argument("--out", help="write the truth here instead of comparing it with truth/<store>.json")
    a = ap.parse_args()
    sys.path.insert(0, str(HERE))
    import build  # here, not at the top: build imports the truth_src modules

    sources = build.Sources(build.parse_sources(a.source), a.mirror, Path(a.store_dir).resolve().parent / "sources")
    text = dumps(make(a.store_dir, sources))
    if a.out:
        Path(a.out).write_text(text, encoding="utf-8")
        print(a.out, sha256(text), counts(json.loads(text)))
        return
    committed = (TRUTH_DIR / f"{store}.json").read_text(encoding="utf-8")
    same = committed == text
    print(f"{store}: {'same as' if same else 'DIFFERS from'} truth/{store}.json (sha256 {sha256(text)})")
    sys.exit(0 if same else 1)
