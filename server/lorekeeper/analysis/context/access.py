"""How often, and how lately, agents and people read each memory: explicit reads (`lore show`, MCP
`query` results) counted in ``.lore/cache/access.json`` — never in the memory files, so reading changes
no file anyone reviews or commits, and no journal record. The context score's access signal adds these
counts to an entry's own ``access_count`` / ``last_accessed`` (mnemonic keeps those in the file).

Recall itself is not counted: what recall shows would then change what recall shows next, and agents'
prompt caches depend on it staying the same."""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime

from ...core.model import Entry, stamp
from ...infra import cache as cache_files
from ...workspace import Workspace

FILE = "access.json"
#: Entries kept in the file at most (the least recently read are dropped first).
LIMIT = 50_000


def _read(ws: Workspace) -> dict[str, list[object]]:
    data: object = cache_files.read_json(ws.root, ws.cache_dir, FILE)
    reads: object = data.get("reads") if isinstance(data, dict) else None  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    if not isinstance(reads, dict):
        return {}
    out: dict[str, list[object]] = {}
    for key, value in reads.items():  # pyright: ignore[reportUnknownVariableType]
        if isinstance(key, str) and isinstance(value, list) and len(value) == 2:  # pyright: ignore[reportUnknownArgumentType]
            out[key] = list(value)  # pyright: ignore[reportUnknownArgumentType]
    return out


def record(ws: Workspace, ids: Iterable[str], now: datetime | None = None) -> None:
    """Count one read of each entry (best effort: a cache that cannot be written loses the count)."""
    wanted = list(dict.fromkeys(ids))
    if not wanted or not cache_files.usable(ws.root, ws.cache_dir):
        return
    moment = stamp(now)
    reads = _read(ws)
    for entry_id in wanted:
        count = reads.get(entry_id, [0, ""])[0]
        reads[entry_id] = [(count if isinstance(count, int) else 0) + 1, moment]
    if len(reads) > LIMIT:
        reads = dict(sorted(reads.items(), key=lambda kv: str(kv[1][1]), reverse=True)[:LIMIT])
    cache_files.write(ws.root, ws.cache_dir, FILE, json.dumps({"version": 1, "reads": reads}).encode("utf-8"))


def with_reads(ws: Workspace, entries: list[Entry]) -> list[Entry]:
    """The entries with the reads counted here added to their own access fields (copies where changed)."""
    reads = _read(ws)
    if not reads:
        return entries
    out: list[Entry] = []
    for entry in entries:
        seen = reads.get(entry.id)
        if seen is None:
            out.append(entry)
            continue
        count, when = seen
        try:
            last = datetime.fromisoformat(str(when).replace("Z", "+00:00"))
        except ValueError:
            last = None
        latest = max((m for m in (entry.last_accessed, last) if m is not None), default=None)
        total = (entry.access_count or 0) + (count if isinstance(count, int) and count > 0 else 0)
        out.append(entry.model_copy(update={"access_count": total, "last_accessed": latest}))
    return out
