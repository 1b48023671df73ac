"""The speed benchmark's workspace and floor (issue "Fast at every size").

A git repository of N Python files and M entries, each entry referencing one function (``refs`` with
``path`` and ``symbol``) and naming it in its text. The floor is a plain Python process that parses
every entry file and reads and hashes every referenced file: what any checker must at least do."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

from bench_workspace import git

#: Run as ``python - ROOT`` by the benchmark: the floor, interpreter start included like `lore`'s.
FLOOR = r"""
import hashlib, json, os, sys
root = sys.argv[1]
folder = os.path.join(root, ".lore", "memory", "entries")
paths = set()
for name in os.listdir(folder):
    with open(os.path.join(folder, name), "rb") as fh:
        data = json.loads(fh.read())
    for ref in data.get("refs", ()):
        paths.add(ref["path"])
for path in paths:
    try:
        with open(os.path.join(root, path), "rb") as fh:
            hashlib.sha256(fh.read()).digest()
    except OSError:
        pass
"""

#: Run as ``python - ROOT``: the I/O any `verify --all` must do, in a plain Python process. Every entry file
#: gets new bytes (fingerprints and a time are recorded in each), written the safe way Lorekeeper writes
#: (a temporary file in the same folder, one flush of the file system, a rename over the file). Here each
#: file gets its own bytes back.
VERIFY_FLOOR = r"""
import ctypes, os, sys
folder = os.path.join(sys.argv[1], ".lore", "memory", "entries")
names = sorted(os.listdir(folder))
for name in names:
    with open(os.path.join(folder, name), "rb") as fh:
        data = fh.read()
    fd = os.open(os.path.join(folder, "." + name + ".tmp"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    os.write(fd, data)
    os.close(fd)
fd = os.open(folder, os.O_RDONLY)
ctypes.CDLL(None).syncfs(fd)
for name in names:
    os.replace(os.path.join(folder, "." + name + ".tmp"), os.path.join(folder, name))
os.fsync(fd)
os.close(fd)
"""


def build(root: Path, entries: int, files: int = 3000, seed: int = 13) -> None:
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    functions: list[tuple[str, str]] = []
    for i in range(files):
        path = f"pkg/area{i % 50}/module_{i}.py"
        names = [f"step_{i}_{k}" for k in range(8)]
        body = [f'"""Module {i}."""\n\nimport os\n']
        for k, name in enumerate(names):
            body.append(f"\ndef {name}(value, *, scale={k}):\n    \"\"\"Step {k}.\"\"\"\n"
                        f"    total = value * scale\n    if total > {k * 10}:\n        return os.sep\n    return total\n")
        body.append(f"\n\nclass Worker{i}:\n    def run(self, job):\n        return step_{i}_0(job)\n")
        full = root / path
        full.parent.mkdir(parents=True, exist_ok=True)
        full.write_text("".join(body))
        functions.extend((path, name) for name in names)
    store = root / ".lore" / "memory" / "entries"
    store.mkdir(parents=True, exist_ok=True)
    for n in range(entries):
        path, name = rng.choice(functions)
        data = {"id": f"m{n:05d}", "content": f"`{name}` scales the value before case {n} is stored.",
                "category": ["conventions", "decisions", "patterns", "pitfalls"][n % 4],
                "refs": [{"path": path, "symbol": name}]}
        (store / f"20260101T000000Z-m{n:05d}.json").write_text(json.dumps(data, indent=2) + "\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")


if __name__ == "__main__":
    build(Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 3000)
