"""Copy the bundled example workspace somewhere, make it a git repository, and optionally commit the
refactor that makes some of its memories stale. Shared by scripts/try, scripts/e2e-neovim and the tests.

    python scripts/example_workspace.py DEST [--refactor]
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
IDENTITY = {"GIT_AUTHOR_NAME": "Acme Dev", "GIT_AUTHOR_EMAIL": "dev@acme.example",
            "GIT_COMMITTER_NAME": "Acme Dev", "GIT_COMMITTER_EMAIL": "dev@acme.example"}


def _git(work: Path, *args: str, date: str | None = None) -> None:
    env = {**os.environ, **IDENTITY}
    if date:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = date
    subprocess.run(["git", "-C", str(work), *args], check=True, capture_output=True, env=env)


def make(dest: Path) -> Path:
    """A fresh copy of examples/acme-shop at ``dest``, committed as one initial import."""
    shutil.copytree(REPO / "examples" / "acme-shop", dest)
    _git(dest, "init", "-q", "-b", "main")
    _git(dest, "add", "-A")
    _git(dest, "commit", "-q", "-m", "acme-shop: initial import", date="2026-04-01T10:00:00Z")
    return dest


def refactor(work: Path) -> None:
    """A refactor, as teams do: the e2e suite and the seed script go, the logger is renamed, refunds move
    out of StripeClient."""
    pkg = json.loads((work / "package.json").read_text())
    for script in ("test:e2e", "db:seed"):
        del pkg["scripts"][script]
    (work / "package.json").write_text(json.dumps(pkg, indent=2) + "\n")
    stripe = work / "src/payments/stripe.ts"
    stripe.write_text(re.sub(r"\n  async refund\(.*?\n  }\n", "\n", stripe.read_text(), flags=re.S))
    _git(work, "mv", "src/lib/logger.ts", "src/lib/log.ts")
    server = work / "src/server.ts"
    server.write_text(server.read_text().replace("./lib/logger.js", "./lib/log.js"))
    _git(work, "rm", "-rq", "e2e", "scripts/seed.ts")
    _git(work, "commit", "-qam", "Move e2e tests to the platform repo; rename logger; refunds go through the ledger service",
         date="2026-09-14T16:30:00Z")


if __name__ == "__main__":
    target = make(Path(sys.argv[1]))
    if "--refactor" in sys.argv[2:]:
        refactor(target)
