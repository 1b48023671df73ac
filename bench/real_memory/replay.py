#!/usr/bin/env python3
"""Replay the history of chosen files of a source repository into a fresh git workspace.

usage: replay.py SRC_GIT_DIR REV OUT_DIR OWNER/NAME FILE [FILE...]

Every commit (up to REV) that touched one of FILE is made again in OUT_DIR with the same author name,
author date and committer date, so `git blame` in OUT_DIR gives each line the date of its own original
commit. Symlinks stay symlinks. Emails are replaced (name@replay.invalid); each message is the original
subject and "replayed from OWNER+NAME@<sha>". The same inputs give the same commits (same hashes).
"""

from __future__ import annotations

import os
import subprocess
import sys


def _git(git_dir: str, *args: str) -> bytes:
    return subprocess.run(["git", "--git-dir", git_dir, *args], check=True, capture_output=True).stdout


def replay(src: str, rev: str, out: str, repo: str, files: list[str]) -> int:
    """Replay into OUT (created; must not hold a repository yet); returns the number of commits made."""
    os.makedirs(out, exist_ok=True)
    subprocess.run(["git", "init", "-q", "-b", "main", out], check=True)
    log = _git(src, "log", "--reverse", "--format=%H%x00%an%x00%aI%x00%cI%x00%s", rev, "--", *files).decode()
    slug = repo.replace("/", "+")
    made = 0
    for line in log.splitlines():
        sha, name, adate, cdate, subject = line.split("\x00")
        for f in files:
            dst = os.path.join(out, f)
            listed = _git(src, "ls-tree", sha, "--", f).decode().strip()
            if os.path.lexists(dst):
                os.remove(dst)
            if not listed:
                continue
            mode, _kind, blob = listed.split("\t")[0].split()
            data = _git(src, "cat-file", "blob", blob)
            os.makedirs(os.path.dirname(dst) or ".", exist_ok=True)
            if mode == "120000":
                os.symlink(data.decode(), dst)
            else:
                with open(dst, "wb") as fh:
                    fh.write(data)
        subprocess.run(["git", "-C", out, "add", "-A"], check=True)
        if subprocess.run(["git", "-C", out, "diff", "--cached", "--quiet"]).returncode == 0:
            continue
        email = name.replace(" ", ".") + "@replay.invalid"
        env = dict(os.environ, GIT_AUTHOR_NAME=name, GIT_AUTHOR_EMAIL=email, GIT_COMMITTER_NAME=name,
                   GIT_COMMITTER_EMAIL=email, GIT_AUTHOR_DATE=adate, GIT_COMMITTER_DATE=cdate)
        message = f"{subject}\n\nreplayed from {slug}@{sha}"
        subprocess.run(["git", "-C", out, "-c", "commit.gpgsign=false", "commit", "-q", "--no-verify", "-m", message],
                       check=True, env=env)
        made += 1
    return made


def main() -> None:
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    src, rev, out, repo, *files = sys.argv[1:]
    print(f"{out}: {replay(src, rev, out, repo, files)} commits replayed")


if __name__ == "__main__":
    main()
