"""The README's quick start: scripts/try runs end to end on the bundled example workspace."""

from __future__ import annotations

import os
import subprocess

from support import REPO


def test_scripts_try_shows_the_example_workspace(tmp_path) -> None:
    env = {**os.environ, "TMPDIR": str(tmp_path), "NO_COLOR": "1"}
    proc = subprocess.run([str(REPO / "scripts" / "try")], capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = proc.stdout
    assert "34 live entries" in out and "instruction files     4 files" in out
    assert "none: every memory file reads cleanly" in out
    assert "5c07b9e1aa19 patterns" in out  # search found the Stripe entry despite the typo
    assert "src/payments/stripe.ts:StripeClient.createCharge  exists" in out
    assert "added " in out and "skipped: memory already says this" in out
    assert "undid " in out
    assert "would apply: 1 supersede, 1 dedup;" in out and "nothing was written (--dry-run)" in out
    assert "34 memories checked: every reference holds" in out  # before the refactor: clean
    after = out.split("After a refactor")[1]
    assert 'CLAUDE.md:10: error: script "test:e2e" is not defined in package.json (removed in ' in after
    assert "`src/lib/logger.ts` was moved to `src/lib/log.ts`" in after and "fix: use `src/lib/log.ts`" in after
    assert "`StripeClient.refund` is no longer defined" in after
    assert "13 error(s)" in after
    work = next(tmp_path.glob("lorekeeper-try.*/acme-shop"))
    assert (work / ".git").is_dir() and list((work / ".lore/memory/log").glob("*.json"))
