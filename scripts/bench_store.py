"""Generate cluttered memory stores for the compaction benchmark, with the ground truth of which distinct
facts they hold.

A store is built from distinct base facts (four categories, tagged by topic) plus the clutter real
stores accumulate: exact duplicates with other case, punctuation or Markdown; reworded near-duplicates;
older versions superseded by newer ones; expired TTL notes; decayed low-strength notes; and old, never
read clusters. The distinct facts that must survive are the base facts (newest versions)."""

from __future__ import annotations

import json
import random
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

TOPICS = {
    "conventions": ["api", "testing", "styling", "naming", "logging", "imports"],
    "decisions": ["database", "auth", "hosting", "queue"],
    "patterns": ["caching", "retries", "pagination", "errors", "forms"],
    "pitfalls": ["timezones", "migrations", "flaky-tests", "memory", "ci"],
}
SUBJECTS = ["the billing service", "the checkout flow", "the admin dashboard", "the search indexer", "the mobile API",
            "the nightly export", "the webhook relay", "the image resizer", "the session store", "the audit log",
            "the feature flags", "the email sender", "the rate limiter", "the report builder", "the sync worker"]
VERBS = ["must validate input with zod before", "should log a request id when", "caches results for {n} minutes after",
         "retries up to {n} times when", "pages through results {n} at a time when", "times out after {n} seconds when",
         "writes an audit row whenever", "emits a metric each time", "uses UTC timestamps whenever",
         "skips the cache when"]
OBJECTS = ["calling an external provider", "reading from Postgres", "a user changes plans", "a job is retried",
           "a webhook arrives twice", "the queue is backed up", "a migration runs", "tests run in CI",
           "a customer exports data", "a session expires"]
NOW = datetime(2026, 11, 1, tzinfo=UTC)


def _stamp(dt: datetime) -> str:
    return dt.strftime("%Y-%m-%dT%H:%M:%SZ")


def build(root: Path, base_facts: int, seed: int = 11) -> dict[str, object]:
    """Write the store under ``root`` and return the facts that must survive compaction."""
    rng = random.Random(seed)
    entries_dir = root / ".lore" / "memory" / "entries"
    entries_dir.mkdir(parents=True, exist_ok=True)
    seen: set[str] = set()
    facts: list[dict] = []
    while len(facts) < base_facts:
        category = rng.choice(list(TOPICS))
        subject = rng.choice(SUBJECTS)
        if len(facts) >= 600:  # large stores: more subjects than the list holds (module names, no digits)
            subject += " of the " + "".join(rng.choice("bcdfghklmnprstvz") + rng.choice("aeiou") for _ in range(3)) + " module"
        text = f"{subject.capitalize()} {rng.choice(VERBS).format(n=rng.randint(2, 90))} {rng.choice(OBJECTS)}."
        shape = re.sub(r"\d+", "N", text)  # two facts differing only in a number would contradict each other
        if shape in seen:
            continue
        seen.add(shape)
        facts.append({"category": category, "tag": rng.choice(TOPICS[category]), "text": text,
                      "created": NOW - timedelta(days=rng.randint(5, 60))})
    rows: list[dict] = []
    survivors: list[str] = []
    counter = 0

    def add(text: str, fact: dict, created: datetime, **extra: object) -> str:
        nonlocal counter
        counter += 1
        entry_id = f"m{counter:06d}"
        rows.append({"id": entry_id, "category": fact["category"], "content": text, "created": _stamp(created),
                     "agent": rng.choice(["claude-code", "copilot", "cursor"]), "tags": [fact["tag"]], **extra})
        return entry_id

    for fact in facts:
        kind = rng.random()
        if kind < 0.12:  # the current fact replaces an older version with other numbers
            old = fact["text"].replace(fact["text"].split()[-1], "legacy " + fact["text"].split()[-1])
            old_id = add(old, fact, fact["created"] - timedelta(days=30))
            add(fact["text"], fact, fact["created"], supersedes=[old_id])
        else:
            add(fact["text"], fact, fact["created"])
        survivors.append(fact["text"])
        for _ in range(rng.choice([0, 0, 1, 1, 2])):  # exact duplicates in other dress
            dressed = rng.choice([fact["text"].lower(), fact["text"].rstrip(".") + "!", f"**{fact['text']}**",
                                  "  " + fact["text"].upper()])
            add(dressed, fact, fact["created"] - timedelta(days=rng.randint(1, 20)))
        if rng.random() < 0.3:  # a reworded near-duplicate: same words, another order
            words = fact["text"].rstrip(".").split()
            cut = rng.randint(2, len(words) - 2)
            add(" ".join(words[cut:] + words[:cut]).capitalize() + ".", fact,
                fact["created"] - timedelta(days=rng.randint(1, 20)))
    for i in range(base_facts // 5):  # expired sprint notes and decayed scratch notes
        fact = rng.choice(facts)
        add(f"Temporary note {i}: {fact['text'].lower()} (this sprint only)", fact, NOW - timedelta(days=40), ttl="P14D")
    for i in range(base_facts // 10):
        fact = rng.choice(facts)
        add(f"Scratch observation {i} while debugging {rng.choice(SUBJECTS)}.", fact, NOW - timedelta(days=90),
            strength=0.4, last_accessed=_stamp(NOW - timedelta(days=120)))
    rng.shuffle(rows)
    for row in rows:
        (entries_dir / f"20260101T000000Z-{row['id']}.json").write_text(json.dumps(row, indent=2) + "\n")
    return {"entries": len(rows), "facts": survivors}


def synthetic(root: Path, count: int, seed: int = 5) -> None:
    """A store of ``count`` entries for plan timing (the same mix, scaled)."""
    build(root, max(1, count * 10 // 23), seed)
