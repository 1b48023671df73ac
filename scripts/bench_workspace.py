"""Generate a benchmark workspace: a git repository of a few thousand code files, a package.json with
scripts, and N memory entries referencing files, symbols and scripts (about 8% of them stale after a
refactor commit, the rate seen in real repositories). Used by scripts/bench; deterministic for a seed."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

GIT_ENV = {"GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
           "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "bench@example.com"}


def git(root: Path, *args: str, date: str = "2026-01-01T00:00:00Z") -> None:
    env = {**os.environ, **GIT_ENV, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    subprocess.run(["git", "-C", str(root), *args], check=True, env=env, capture_output=True)


def build(root: Path, entries: int, files: int = 3000, seed: int = 7) -> dict[str, int]:
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    modules: list[tuple[str, list[str]]] = []
    for i in range(files):
        area = f"area{i % 40}"
        if i % 3 == 0:
            path = f"src/{area}/mod_{i}.py"
            names = [f"handle_{i}_{k}" for k in range(6)]
            body = "\n\n".join(f"def {n}(x):\n    return x + {k}\n" for k, n in enumerate(names))
            body += f"\n\nclass Service{i}:\n    def run(self):\n        return {i}\n"
            names.append(f"Service{i}.run")
        else:
            path = f"src/{area}/comp_{i}.ts"
            names = [f"render{i}x{k}" for k in range(6)]
            body = "\n".join(f"export function {n}(a: number) {{\n  return a * {k};\n}}\n" for k, n in enumerate(names))
            body += f"\nexport class Store{i} {{\n  load() {{ return {i}; }}\n}}\n"
            names.append(f"Store{i}.load")
        full = root / path
        full.parent.mkdir(parents=True, exist_ok=True)
        full.write_text(body)
        modules.append((path, names))
    scripts = {f"task:{k}": f"node tools/task{k}.js" for k in range(60)}
    (root / "package.json").write_text(json.dumps({"name": "bench", "packageManager": "pnpm@9.0.0",
                                                   "scripts": scripts}, indent=2) + "\n")
    (root / "pnpm-lock.yaml").write_text("lockfileVersion: '9.0'\n")
    store = root / ".lore" / "memory" / "entries"
    store.mkdir(parents=True, exist_ok=True)
    for n in range(entries):
        path, names = rng.choice(modules)
        symbol = rng.choice(names)
        kind = n % 4
        if kind == 0:
            content = f"Fact {n}: `{symbol}` in `{path}` handles case {n}."
            data = {"id": f"e{n:05d}", "content": content, "tags": [path.split("/")[1]]}
        elif kind == 1:
            data = {"id": f"e{n:05d}", "content": f"Fact {n}: see the helper for case {n}.",
                    "refs": [{"path": path, "symbol": symbol}]}
        elif kind == 2:
            data = {"id": f"e{n:05d}", "content": f"Fact {n}: run `pnpm task:{n % 60}` after changing {path}."}
        else:
            data = {"id": f"e{n:05d}", "content": f"Fact {n}: plain prose about conventions number {n}, no references."}
        data["category"] = ["conventions", "decisions", "patterns", "pitfalls"][n % 4]
        (store / f"20260101T000000Z-e{n:05d}.json").write_text(json.dumps(data, indent=2) + "\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    # The refactor: about 8% of what memories reference goes away (files deleted, one in ten renamed).
    for path, _ in rng.sample(modules, len(modules) * 8 // 100):
        if rng.random() < 0.1:
            git(root, "mv", path, path.replace("/mod_", "/moved_").replace("/comp_", "/moved_"))
        else:
            git(root, "rm", "-q", path)
    pkg = json.loads((root / "package.json").read_text())
    for k in range(0, 60, 12):
        del pkg["scripts"][f"task:{k}"]
    (root / "package.json").write_text(json.dumps(pkg, indent=2) + "\n")
    git(root, "commit", "-q", "-am", "Refactor", date="2026-06-01T00:00:00Z")
    return {"files": files, "entries": entries}


if __name__ == "__main__":
    build(Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 3000)
