"""Which model the LLM stage talks to, and how much it may spend: ``[llm]`` in ``.lore/config.toml``, with
the environment variables ``LORE_LLM_BASE_URL``, ``LORE_LLM_MODEL`` and ``LORE_LLM_API_KEY`` over it.

The key is read from the environment only (``LORE_LLM_API_KEY``, or the variable ``api_key_env`` names),
kept in memory, and never written, logged or shown. A repository's configuration comes with every branch
anyone sends you, so it may point the stage only at a model on this machine (a loopback address: Ollama,
llama.cpp, LM Studio); a remote endpoint — where memory text and the key would go — is chosen by you, in
your environment (``LORE_LLM_BASE_URL``). The same holds for ``api_key_env``: only a variable whose name
ends in ``_API_KEY`` or ``_TOKEN`` is read, and only when the endpoint is one you chose or a local one."""

from __future__ import annotations

import ipaddress
import os
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, Field, StrictFloat, StrictInt, StrictStr

from . import ConfigFiles, settle

BASE_URL_ENV = "LORE_LLM_BASE_URL"
MODEL_ENV = "LORE_LLM_MODEL"
KEY_ENV = "LORE_LLM_API_KEY"
#: Most entries one call may carry (the issue's batch cap).
MAX_BATCH = 10
_KEY_NAME = re.compile(r"[A-Z][A-Z0-9_]*(?:_API_KEY|_TOKEN)")


class LLMConfig(BaseModel):
    base_url: StrictStr = ""
    model: StrictStr = ""
    #: The environment variable holding the key (never the key itself).
    api_key_env: StrictStr = ""
    #: Budget of one run: prompt and completion tokens together, and calls.
    max_tokens: StrictInt = Field(default=20000, ge=0)
    max_calls: StrictInt = Field(default=20, ge=0)
    #: Most entries in one call (at most 10) and the longest answer asked for.
    batch: StrictInt = Field(default=MAX_BATCH, ge=2, le=MAX_BATCH)
    answer_tokens: StrictInt = Field(default=800, ge=16)
    timeout: StrictFloat = Field(default=60.0, gt=0)
    retries: StrictInt = Field(default=2, ge=0, le=5)


@dataclass
class Endpoint:
    """A model the stage may call, with the key (kept out of ``repr``)."""

    base_url: str
    model: str
    config: LLMConfig
    api_key: str | None = field(default=None, repr=False)


def is_loopback(url: str) -> bool:
    host = (urlsplit(url).hostname or "").strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def limits(files: ConfigFiles, problems: list[str] | None = None) -> LLMConfig:
    """``[llm]`` as configured (each bad value at its default, said in ``problems``): the budgets and batch
    size apply whichever model answers."""
    values: dict[str, Any] = settle(LLMConfig, [(".lore/config.toml [llm]", files.section("llm"))],
                                    problems if problems is not None else [])
    return LLMConfig(**values)


def endpoint(files: ConfigFiles, environ: dict[str, str] | None = None) -> tuple[Endpoint | None, list[str]]:
    """The configured endpoint, or ``None`` with why; and the problems met on the way."""
    env = os.environ if environ is None else environ
    problems: list[str] = []
    config = limits(files, problems)
    chosen = env.get(BASE_URL_ENV, "").strip()
    base_url = chosen or config.base_url.strip()
    model = env.get(MODEL_ENV, "").strip() or config.model.strip()
    if not base_url or not model:
        missing = " and ".join(n for n, v in (("a base URL", base_url), ("a model", model)) if not v)
        return None, [*problems, f"no model is configured ({missing} missing: set {BASE_URL_ENV} and {MODEL_ENV}, "
                                 "or [llm] base_url and model in .lore/config.toml)"]
    if urlsplit(base_url).scheme not in ("http", "https"):
        return None, [*problems, f"the LLM base URL must start with http:// or https:// (got {base_url[:80]!r})"]
    if not chosen and not is_loopback(base_url):
        return None, [*problems, f"[llm] base_url {base_url[:80]!r} in .lore/config.toml is not on this machine: a "
                                 f"repository's configuration may only name a local model; set {BASE_URL_ENV} to "
                                 "send memory to a remote endpoint"]
    key = env.get(KEY_ENV) or None
    if key is None and config.api_key_env:
        if not _KEY_NAME.fullmatch(config.api_key_env):
            problems.append(f"[llm] api_key_env {config.api_key_env[:60]!r} ignored: it must name a variable ending "
                            "in _API_KEY or _TOKEN")
        else:
            key = env.get(config.api_key_env) or None
    return Endpoint(base_url, model, config, key), problems
