"""Truth of the store paraphrase-deadonfilm (chenders/deadonfilm at dbe2e746080c): CLAUDE.md and
.github/copilot-instructions.md with their history replayed. The copilot file restates CLAUDE.md's
rules in other words: labelled paraphrase pairs (for the semantic stage's recall) and near-miss pairs
(same topic, different facts: must never merge or conflict). Written by reading both files before
running Lorekeeper on the store."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from truthlib import Store, cli  # noqa: E402

STORE = "paraphrase-deadonfilm"
C, P = "CLAUDE.md", ".github/copilot-instructions.md"

G = [
 ("guard rows[0] with optional chaining and fallback; guard config spreads", "paraphrase", ["rows[0]"],
  [(C, "- **Null safety**: Always guard `rows[0]`"), (P, "- **Null safety**: guard `rows[0]`")]),
 ("guard every rows[0] access", "paraphrase", ["rows[0]"],
  [(C, "- Guard ALL `rows[0]` access"), (P, "**ALWAYS guard `rows[0]`**")]),
 ("DRY: extract shared logic before duplicating across desktop/mobile views", "paraphrase", ["DRY"],
  [(C, "- **DRY**: Extract helpers"), (P, "- **DRY**: extract repeated logic")]),
 ("WCAG AA contrast, aria-label on icon-only controls, 44x44px touch targets", "near", ["4.5:1", "44x44px"],
  [(C, "- **Accessibility**: All text must meet WCAG AA"), (P, "- **Accessibility**: all text must meet WCAG AA")]),
 ("external links use target=_blank rel=nofollow noopener noreferrer", "near", ["nofollow noopener noreferrer"],
  [(C, "- **External links**: All links to external domains"), (P, "- **External links**: all links to external domains")]),
 ("source attribution must be provable", "near", ["provable"],
  [(C, "- **Source attribution must be provable**"), (P, "- **Source attribution must be provable**")]),
 ("pg auto-parses JSON columns: type them as the parsed type", "paraphrase", ["MyType[]"],
  [(C, "- **Type safety**: `pg` auto-parses JSON columns"), (P, "- **JSON columns**: `pg` auto-parses")]),
 ("use unknown instead of any", "paraphrase", ["unknown"],
  [(C, "- **Type safety**: `pg` auto-parses JSON columns"), (P, "- **No `any`** — use `unknown`")]),
 ("combine AbortSignals with AbortSignal.any(), never ??", "paraphrase", ["AbortSignal.any()"],
  [(C, "- **AbortSignal**: Combine caller signals"), (P, "- **AbortSignal**: combine signals")]),
 ("ship tests with new code in the same commit", "paraphrase", ["same commit"],
  [(C, "- **Testing**: Ship tests with new code in the same commit"), (P, "- **Ship tests with code**")]),
 ("assert payload contents, not only that functions were called", "paraphrase", ["payload"],
  [(C, "- **Testing**: Ship tests with new code in the same commit"), (P, "- **Assert deeply**")]),
 ("mock data types must match real SQL output types", "paraphrase", ["SQL"],
  [(C, "- **Testing**: Ship tests with new code in the same commit"), (P, "- **Mock data must match real SQL types**")]),
 ("when renaming, update every variable, comment and error message", "paraphrase", ["renam"],
  [(C, "When renaming functions, changing APIs, or refactoring modules"), (P, "- **Naming consistency**: when renaming functions")]),
 ("route handlers stay under 60 lines; queries go to server/src/lib/db/", "paraphrase", ["60 lines"],
  [(C, "- Keep route handlers under 60 lines"), (P, "Route handlers and library functions should stay under 60 lines")]),
 ("never swallow errors silently; log with pino", "paraphrase", ["pino"],
  [(C, "- Never leave `catch` blocks that swallow errors silently"), (P, "- **Error handling**: never swallow errors silently")]),
 ("early returns over deep nesting (guard clauses at the top)", "paraphrase", ["early return"],
  [(C, "- Prefer early returns over deep nesting"), (P, "- **Early returns** over deep nesting")]),
 ("modifying an untested file: create a test file with happy-path and error tests", "identical", ["untested file"],
  [(C, "- When modifying an untested file, create a test file"), (P, "- **When modifying an untested file**")]),
 ("files that must remain JS/CJS", "paraphrase", ["eslint.config.js", "newrelic.cjs"],
  [(C, "These must remain JS/CJS for tooling compatibility"), (P, "Must remain JS/CJS:")]),
 ("test happy path, error handling and edge cases", "split", ["happy"],
  [(C, "- Happy-path test (valid input"), (C, "- Error-handling test (database error"), (C, "- Edge case test (empty results"), (P, "- **Test all paths**: happy path")]),
 ("SQL: parameterized queries, never string interpolation (repeated within copilot)", "paraphrase", ["parameterized"],
  [(P, "3. **NEVER use string interpolation in SQL**"), (P, "- **SQL**: always parameterized queries")]),
 ("npm run dev starts Docker, Vite on :5173 and tsx watch on :8080 (repeated within CLAUDE.md)", "paraphrase", [":5173"],
  [(C, "- `npm run dev` - Start Docker (DB + Redis)"), (C, "- `npm run dev` starts Docker Compose")]),
 ("Vite proxies /api and /admin/api to the backend (repeated within CLAUDE.md)", "paraphrase", ["/admin/api"],
  [(C, "- **Vite proxy**: `/api` and `/admin/api` proxy to `localhost:8080`"), (C, "- Vite proxies `/api` and `/admin/api` requests to the backend")]),
 ("PostgreSQL connection string is DATABASE_URL (repeated within CLAUDE.md)", "paraphrase", ["DATABASE_URL"],
  [(C, "- **Database**: PostgreSQL 16 via `pg`"), (C, "- `DATABASE_URL` - PostgreSQL connection string")]),
 ("Redis cache connection is REDIS_URL (repeated within CLAUDE.md)", "paraphrase", ["REDIS_URL"],
  [(C, "- **Caching**: Redis 7 via `ioredis`"), (C, "- `REDIS_URL` - Redis cache connection")]),
 ("BullMQ jobs use a separate Redis at REDIS_JOBS_URL (repeated within CLAUDE.md)", "paraphrase", ["REDIS_JOBS_URL"],
  [(C, "- **Job queue**: BullMQ on separate Redis instance"), (C, "- `REDIS_JOBS_URL` - Redis for BullMQ jobs")]),
]
def truth(store_dir, sources=None):
    """The truth of the store built in STORE_DIR (the sources are not needed)."""
    S = Store(store_dir)
    facts, dups = [], []
    for i, (text, kind, lits, locs) in enumerate(G, 1):
        found = [S.loc(f, n) for f, n in locs]
        facts.append({"id": f"f{i}", "text": text, "literals": lits, "locations": found, "current": True})
        dups.append({"fact": f"f{i}", "kind": kind, "identical": kind == "identical", "locations": found})

    def nc(a, b, why):
        return {"a": S.loc(*a), "b": S.loc(*b), "why": why}

    not_conflicts = [
     nc((C, "- `REDIS_URL` - Redis cache connection"), (C, "- `REDIS_JOBS_URL` - Redis for BullMQ jobs"), "near-miss: two Redis instances"),
     nc((C, "- **Caching**: Redis 7 via `ioredis`"), (C, "- **Job queue**: BullMQ on separate Redis instance"), "near-miss: cache vs job queue"),
     nc((C, "- `npm test` - Vitest"), (C, "- `npm run test:e2e` - Playwright"), "near-miss: two test commands, two runners (unit vs e2e)"),
     nc((C, "- `npm run format` - Prettier (write)"), (C, "- `npm run format:check` - Prettier (check only)"), "near-miss: write vs check"),
     nc((C, "- `cd server && npm run migrate:up`"), (C, "- `cd server && npm run migrate:down`"), "near-miss: up vs down"),
     nc((C, "- `npm run build` - TypeScript check"), (C, "- `npm run build:server`"), "near-miss: frontend vs server build"),
     nc((C, "- **AbortSignal**: Combine caller signals"), (C, "- **Null safety**: Always guard `rows[0]`"),
        "'never ??' for timeouts vs '?? 0' for null safety: different subjects"),
     nc((P, "- **AbortSignal**: combine signals"), (P, "- **Null safety**: guard `rows[0]`"), "as above, in copilot"),
     nc((C, "- `PORT` - Server port (default: 8080)"), (C, "- `npm run dev` starts Docker Compose"), "8080 backend vs 5437/6379 services: different ports of different things"),
     nc((C, "- `npm run test:coverage`"), (C, "- `npm run test:all`"), "near-miss: coverage vs all"),
     nc((C, "- **External links**: All links to external domains"), (P, "- **External links**: all links to external domains"),
        "CLAUDE.md adds an exception (sourceReliable may drop nofollow); the shorter copilot rule is not contradicted"),
     nc((C, "- `OMDB_API_KEY`, `TRAKT_API_KEY`"), (C, "- `OPENAI_API_KEY`, `GOOGLE_AI_API_KEY`"), "near-miss: different optional keys"),
    ]
    return {
      "store": STORE,
      "source": {"repo": "chenders/deadonfilm", "commit": "dbe2e746080c478ef8ca25aaf7cc3b619d6aa541", "files": [C, P]},
      "notes": "duplicates are mostly paraphrase pairs (same rule in other words) between CLAUDE.md and copilot-instructions, and a few "
               "inside one file; a CLAUDE.md bullet holding several rules is paired with each copilot bullet it restates. "
               "not_conflicts are near-miss pairs: same topic, different facts.",
      "facts": facts, "duplicates": dups, "updates": [], "disagreements": [], "not_conflicts": not_conflicts}


if __name__ == "__main__":
    cli(STORE, truth)
