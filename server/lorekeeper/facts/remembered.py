# pyright: standard
"""What the verifier made of each memory text, kept between runs in ``.lore/cache/facts.json``.

Reducing a text to its fact (:func:`.parse.parse`) costs ~100-200 µs, and grouping needs it for every
text of the store: a second of every plan and of the editor's first check at 10,000 entries. The
summary grouping needs (:func:`.verify._summary`: the fact keys, the size, the words written as code)
is small, so it is stored by a hash of the text and read back on the next run.

A summary is only ever reused by the rules that computed it: the cache's key is a hash of the source
of the modules that decide it (the verifier and its vocabulary), of the stemmer's version and of the
Unicode tables, so a changed rule reads none of the old summaries. A text that changed has another
hash. A missing, corrupt or foreign cache costs one parse per text, never a wrong answer.

    with remembered_facts(store.ws, (e.content for e in store.entries)):
        plan = ...   # summaries of texts seen before come from the cache; new ones are saved after
"""

from __future__ import annotations

import hashlib
import json
import logging
import unicodedata
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

from ..core.text import text_key
from ..infra import cache as cache_files
from ..workspace import Workspace
from . import parse, updates, verify, vocabulary

log = logging.getLogger("lorekeeper")

CACHE_FILE = "facts.json"


@cache
def rules_version() -> str:
    """A hash of everything a summary depends on besides its text."""
    import snowballstemmer

    digest = hashlib.blake2b(digest_size=12)
    for module in (parse, updates, verify, vocabulary):
        try:
            digest.update(Path(module.__file__ or "").read_bytes())
        except OSError:  # no source to read (a frozen install): never reuse across runs
            digest.update(repr(id(module)).encode())
    digest.update(f"{getattr(snowballstemmer, '__version__', '')}|{unicodedata.unidata_version}".encode())
    return digest.hexdigest()


def _decode(raw: Any) -> verify.Summary | None:
    """A stored summary back to the verifier's tuple, or ``None`` when it is not one."""
    if not (isinstance(raw, list) and len(raw) == 4):
        return None
    key, size, flat, code = raw
    if not (isinstance(key, str) and isinstance(size, int) and (flat is None or isinstance(flat, str))
            and isinstance(code, list)):
        return None
    if not code:
        return key, size, key if flat is None else flat, ()  # most texts write no word as code
    try:
        words = tuple((str(stem), tuple(str(f) for f in forms)) for stem, forms in code)
    except (TypeError, ValueError):
        return None
    return key, size, key if flat is None else flat, words


def _encode(summary: verify.Summary) -> list[Any]:
    key, size, flat, code = summary
    return [key, size, None if flat == key else flat, [[stem, list(forms)] for stem, forms in code]]


def _decode_verdict(raw: Any) -> verify.Comparison | None:
    if not (isinstance(raw, list) and len(raw) == 4 and raw[0] in ("same", "conflict", "different")
            and all(isinstance(v, str | None) for v in raw[1:]) and isinstance(raw[1], str)):
        return None
    return verify.Comparison(raw[0], raw[1], raw[2], raw[3])


def _encode_verdict(verdict: verify.Comparison) -> list[Any]:
    return [verdict.verdict, verdict.reason, verdict.old, verdict.new]


#: Records decoded before, by key, with the record they were decoded from: a process that reads the
#: cache again unchanged (the language server after each save, see :func:`.cache.read_json_kept`) is
#: handed the same record objects, and decodes each once.
_decoded: dict[str, tuple[Any, Any]] = {}


def _decoded_as(key: str, raw: Any, decode: Any) -> Any:
    known = _decoded.get(key)
    if known is not None and known[0] is raw:
        return known[1]
    found = decode(raw)
    if found is not None:
        _decoded[key] = (raw, found)
    return found


class _Remembered:
    """The cache file's records, decoded when asked for; what the run learnt, to be written back."""

    def __init__(self, summaries: dict[str, Any], verdicts: dict[str, Any]) -> None:
        self.stored, self.stored_pairs = summaries, verdicts
        self.used: set[str] = set()
        self.used_pairs: set[str] = set()
        self.fresh: dict[str, Any] = {}
        self.fresh_pairs: dict[str, Any] = {}
        if len(_decoded) > 2 * (len(summaries) + len(verdicts)) + 1000:
            _decoded.clear()  # mostly records of another workspace, or of texts gone

    def summary(self, text: str) -> verify.Summary | None:
        key = text_key(text)
        found = _decoded_as(key, self.stored.get(key), _decode)
        if found is not None:
            self.used.add(key)
        return found

    def verdict(self, a: str, b: str) -> verify.Comparison | None:
        key = text_key(a) + text_key(b)
        found = _decoded_as(key, self.stored_pairs.get(key), _decode_verdict)
        if found is not None:
            self.used_pairs.add(key)
        return found

    def learn_summary(self, text: str, summary: verify.Summary) -> None:
        key = text_key(text)
        if key not in self.used:
            self.fresh[key] = _encode(summary)

    def learn_verdict(self, a: str, b: str, verdict: verify.Comparison) -> None:
        key = text_key(a) + text_key(b)
        if key not in self.used_pairs:
            self.fresh_pairs[key] = _encode_verdict(verdict)


@contextmanager
def remembered_facts(ws: Workspace, texts: Iterable[str], save: bool = True) -> Iterator[None]:
    """Reuse the stored summaries and verdicts while the block runs; store what it learnt after. What
    is kept: everything the block asked for (the texts of new entries too, so a plan run twice computes
    nothing twice) and the earlier records of ``texts`` (the texts in memory now). ``save=False``: what
    was learnt is kept in this process only (:func:`.cache.keep_json`), for the next block, and written
    by the next that saves (the language server after a save: a few new texts are not worth rewriting
    the file, ~15 ms at 10k entries)."""
    version = rules_version()
    data = cache_files.read_json_kept(ws.root, ws.cache_dir, CACHE_FILE)  # not to be changed
    if not isinstance(data, dict) or data.get("version") != version:
        data = {}
    summaries, verdicts = data.get("texts"), data.get("pairs")
    memory = _Remembered(summaries if isinstance(summaries, dict) else {},
                         verdicts if isinstance(verdicts, dict) else {})
    verify.attach(memory)
    try:
        yield
    finally:
        verify.detach(memory)
        if save:
            _save(ws, version, memory, {text_key(t) for t in texts})
        elif memory.fresh or memory.fresh_pairs:
            cache_files.keep_json(ws.root, ws.cache_dir, CACHE_FILE, {
                "version": version, "texts": {**memory.stored, **memory.fresh},
                "pairs": {**memory.stored_pairs, **memory.fresh_pairs}})


def _save(ws: Workspace, version: str, memory: _Remembered, present: set[str]) -> None:
    kept = {k: v for k, v in memory.stored.items() if k in present or k in memory.used}
    kept_pairs = {k: v for k, v in memory.stored_pairs.items()
                  if (k[:24] in present and k[24:] in present) or k in memory.used_pairs}
    if not memory.fresh and not memory.fresh_pairs and len(kept) == len(memory.stored) \
            and len(kept_pairs) == len(memory.stored_pairs):
        return
    kept.update(memory.fresh)
    kept_pairs.update(memory.fresh_pairs)
    data = {"version": version, "texts": kept, "pairs": kept_pairs}
    body = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    cache_files.write_json_kept(ws.root, ws.cache_dir, CACHE_FILE, data, body.encode("utf-8", "surrogatepass"))
    log.debug("facts cache: %d texts and %d pairs new", len(memory.fresh), len(memory.fresh_pairs))
