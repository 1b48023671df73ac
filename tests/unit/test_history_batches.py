"""Questions to git asked together give the answers asked one at a time: which commit removed each path
(one `git log` for many paths) and when each text entered a file (one `git log -p` for many texts)."""

from __future__ import annotations

from lorekeeper.refs.history import GitHistory
from support import Tree, commit, git


def test_batched_history_answers_are_the_single_ones(tree: Tree) -> None:
    tree.write("src/a.ts", "a\n")
    tree.write("src/b.ts", "b\n")
    tree.write("lib/c.ts", "c\n")
    tree.write("lib/d/e.ts", "e\n")
    tree.write("AGENTS.md", "- see `src/a.ts`\n")
    first = commit(tree, "one", date="2026-01-01T10:00:00Z")
    tree.write("AGENTS.md", "- see `src/a.ts`\n- and `lib/c.ts`\n")
    git(tree.root, "mv", "src/a.ts", "src/a2.ts")
    commit(tree, "two", date="2026-01-02T10:00:00Z")
    git(tree.root, "rm", "-rq", "lib")
    tree.write("AGENTS.md", "- see `src/a2.ts`\n- and `lib/c.ts`, `src/b.ts`\n")
    commit(tree, "three", date="2026-01-03T10:00:00Z")
    full = git(tree.root, "rev-parse", first).strip()
    head = git(tree.root, "rev-parse", "HEAD").strip()
    paths = ["src/a.ts", "src/b.ts", "lib/c.ts", "lib/d/", "nowhere.ts"]
    texts = ["src/a.ts", "lib/c.ts", "src/b.ts", "src/a2.ts", "never.ts"]

    single = GitHistory(tree.root, None)
    expected = [(single.removal(p, full), single.deleted_after(p, full)) for p in paths]
    entered = [single.entered(t, "AGENTS.md", head) for t in texts]

    batched = GitHistory(tree.root, None)
    batched.prefetch_logs(full, paths, "--diff-filter=DR", "--no-renames")
    batched.prefetch_logs(full, paths, "--diff-filter=D", "--no-renames", first=True)
    batched.entered_many(texts, "AGENTS.md", head)
    asked: list[str] = []
    run = batched._run
    batched._run = lambda *args, **kw: asked.append(args[0]) or run(*args, **kw)  # type: ignore[method-assign]
    got = [(batched.removal(p, full), batched.deleted_after(p, full)) for p in paths]
    assert [(r and (r.commit.sha, r.moved_to), d and d.sha) for r, d in got] == \
        [(r and (r.commit.sha, r.moved_to), d and d.sha) for r, d in expected]
    assert [c and c.sha for c in (batched.entered(t, "AGENTS.md", head) for t in texts)] == [c and c.sha for c in entered]
    assert "log" not in asked  # every log answer came from the batches (renames are asked with `show`)
    # (`src/a.ts` left the file when it became `src/a2.ts`: not in it at HEAD, it entered nothing)
    assert [e and e.subject for e in entered] == [None, "two", "three", "three", None]


def test_a_text_that_left_a_file_and_came_back_entered_when_it_came_back(tree: Tree) -> None:
    """inspector's AGENTS.md: `npm run dev` of the root's scripts, removed with them, and said again
    months later of a client's dev server: the text in the file now entered with the later line."""
    tree.write("AGENTS.md", "- Dev: `npm run dev`\n- Build: `npm run build`\n")
    commit(tree, "one", date="2026-01-01T10:00:00Z")
    tree.write("AGENTS.md", "- Build: `npm run build`\n")
    commit(tree, "two", date="2026-01-02T10:00:00Z")
    tree.write("AGENTS.md", "- Build: `npm run build`\n- The web client: `npm run dev` serves a stub.\n")
    commit(tree, "three", date="2026-01-03T10:00:00Z")
    tree.write("AGENTS.md", "- Build: `npm run build` (all packages)\n- The web client: `npm run dev` serves a stub.\n")
    commit(tree, "four", date="2026-01-04T10:00:00Z")
    head = git(tree.root, "rev-parse", "HEAD").strip()
    texts = ["run dev", "run build"]
    single = [GitHistory(tree.root, None).entered(t, "AGENTS.md", head) for t in texts]
    batched = GitHistory(tree.root, None)
    batched.entered_many(texts, "AGENTS.md", head)
    assert [c and c.subject for c in single] == ["three", "one"]  # (a line rewritten around it: still "one")
    assert [c and c.sha for c in (batched.entered(t, "AGENTS.md", head) for t in texts)] == [c and c.sha for c in single]


def test_when_names_left_their_files_asked_together_is_asked_one_at_a_time(tree: Tree) -> None:
    """`word_changes` (one `git log -G` for the names that left the same files) gives each name the commit
    `word_change` gives it alone: names removed in different commits, one whose line was only edited
    later (a diff line holds it, its count unchanged), one moved with its file and removed after, and a
    rename that swaps one name for another in the same commit."""
    tree.write("src/task.ts", "initiateTaskLoop()\nsaveCheckpoint()\nrevertChanges()\ndiffViewProvider\nfooBar\n")
    first = commit(tree, "one", date="2026-01-01T10:00:00Z")
    tree.write("src/task.ts", "initiateTaskLoop()\nrevertChanges()\ndiffViewProvider // edited\nfooBar\n")
    commit(tree, "drop saveCheckpoint", date="2026-01-02T10:00:00Z")
    tree.write("src/task.ts", "initiateTaskLoop()\nrevertChanges()\ndiffViewProvider // edited\nbazQux\n")
    commit(tree, "rename fooBar", date="2026-01-03T10:00:00Z")
    (tree.root / "apps").mkdir()
    git(tree.root, "mv", "src", "apps/src")
    commit(tree, "move to apps", date="2026-01-04T10:00:00Z")
    tree.write("apps/src/task.ts", "diffViewProvider // edited\nbazQux\n")
    commit(tree, "sdk migration", date="2026-01-05T10:00:00Z")
    full = git(tree.root, "rev-parse", first).strip()
    words = ["initiateTaskLoop", "saveCheckpoint", "revertChanges", "diffViewProvider", "fooBar", "bazQux", "neverThere"]
    single = GitHistory(tree.root, None)
    alone = {w: (c.subject if (c := single.word_change(w, full, ["src/task.ts"])) else None) for w in words}
    together = {w: (c.subject if c else None) for w, c in GitHistory(tree.root, None).word_changes(words, full, ["src/task.ts"]).items()}
    assert together == alone
    assert alone["initiateTaskLoop"] == "sdk migration" and alone["saveCheckpoint"] == "drop saveCheckpoint"
    assert alone["fooBar"] == "rename fooBar" and alone["neverThere"] is None
