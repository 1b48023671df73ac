"""Fingerprints (refs/fingerprint.py): content hashes of exactly what a memory is about. The contract
read from the module: a file is hashed byte for byte; a symbol by the lines of its definition (so edits
elsewhere in the file, or lines added above it, leave it alone, while any edit inside it changes it); a
config key, a package script or a console script by its parsed value (so reformatting the file does not
matter); a make target or just recipe by its recipe lines; a folder by the list of files in it. Past
fingerprints are read from git. Real files in tmp_path, real git where history is needed."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from lorekeeper.core.model import Entry, Location
from lorekeeper.refs.extract import Reference
from lorekeeper.refs.fingerprint import Fingerprinter, Verifications
from lorekeeper.refs.history import GitHistory
from lorekeeper.refs.index import CodeIndex
from lorekeeper.workspace import Workspace
from support import Tree, commit

PAY = "import os\n\n\ndef charge(amount):\n    return amount\n\n\ndef refund(amount):\n    return -amount\n"


def printer(root: Path) -> Fingerprinter:
    """A fingerprinter over the workspace as it is now (the file list is read once per index)."""
    ws = Workspace(root)
    return Fingerprinter(CodeIndex(ws), GitHistory(ws.root))


def ref(kind: str, target: str, **fields) -> Reference:
    return Reference(kind, target, target, **fields)


def fp(tree: Tree, reference: Reference, base: str = "") -> str | None:
    return printer(tree.root).fingerprint(reference, base)


# -- files and folders --------------------------------------------------------------------------------

def test_a_file_is_hashed_byte_for_byte(tree: Tree) -> None:
    tree.write("app/pay.py", PAY)
    tree.write("copy/pay.py", PAY)
    first = fp(tree, ref("path", "app/pay.py"))
    assert first is not None and re.fullmatch(r"sha256:[0-9a-f]{16}", first)
    assert fp(tree, ref("path", "app/pay.py")) == first  # deterministic
    assert fp(tree, ref("path", "copy/pay.py")) == first  # content, not place
    tree.write("app/pay.py", PAY + "\n")  # one more newline
    assert fp(tree, ref("path", "app/pay.py")) != first
    tree.write("app/pay.py", PAY.replace("\n", "\r\n"))
    assert fp(tree, ref("path", "app/pay.py")) not in (first, None)


def test_a_missing_file_has_no_fingerprint(tree: Tree) -> None:
    tree.write("app/pay.py", PAY)
    assert fp(tree, ref("path", "app/gone.py")) is None
    assert fp(tree, ref("symbol", "charge", file="app/gone.py")) is None


def test_a_relative_path_resolves_from_the_base_folder_first(tree: Tree) -> None:
    tree.write("packages/api/src/routes.ts", "export const routes = ['api'];\n")
    tree.write("src/routes.ts", "export const routes = ['root'];\n")
    nested = fp(tree, ref("path", "src/routes.ts"), base="packages/api")
    root = fp(tree, ref("path", "src/routes.ts"))
    assert nested is not None and root is not None and nested != root
    assert nested == fp(tree, ref("path", "packages/api/src/routes.ts"))


def test_a_folder_is_the_list_of_its_files_not_their_content(tree: Tree) -> None:
    tree.write("src/a.ts", "export const a = 1;\n")
    tree.write("src/b.ts", "export const b = 1;\n")
    tree.write("srcx/c.ts", "export const c = 1;\n")  # shares the prefix "src", not the folder
    first = fp(tree, ref("path", "src/"))
    assert first is not None and fp(tree, ref("path", "src")) == first
    tree.write("src/a.ts", "export const a = 2;\n")
    tree.write("srcx/d.ts", "export {}\n")
    assert fp(tree, ref("path", "src/")) == first
    tree.write("src/nested/c.ts", "export {}\n")
    added = fp(tree, ref("path", "src/"))
    assert added != first
    (tree.root / "src/b.ts").unlink()
    assert fp(tree, ref("path", "src/")) not in (first, added)


# -- symbols ------------------------------------------------------------------------------------------

def test_a_symbol_is_its_definition_only(tree: Tree) -> None:
    tree.write("app/pay.py", PAY)
    charge = ref("symbol", "charge", file="app/pay.py")
    first = fp(tree, charge)
    assert first is not None and first != fp(tree, ref("symbol", "refund", file="app/pay.py"))
    # Another function, the imports, lines added above (the definition moves down): same fingerprint.
    tree.write("app/pay.py", "import os\nimport sys\n# money\n\n\ndef charge(amount):\n    return amount\n\n\n"
                             "def refund(amount):\n    return 0\n")
    assert fp(tree, charge) == first
    # Line endings are not part of the definition.
    tree.write("app/pay.py", PAY.replace("\n", "\r\n"))
    assert fp(tree, charge) == first
    # Any edit inside the definition, even in whitespace, is a change.
    tree.write("app/pay.py", PAY.replace("    return amount\n", "    return amount * 100\n"))
    assert fp(tree, charge) != first
    tree.write("app/pay.py", PAY.replace("    return amount\n", "    return  amount\n"))
    assert fp(tree, charge) != first
    tree.write("app/pay.py", PAY.replace("def charge(amount):", "def charge(amount, currency):"))
    assert fp(tree, charge) != first


def test_a_method_is_fingerprinted_apart_from_its_class(tree: Tree) -> None:
    source = "class Billing:\n    def charge(self):\n        return 1\n\n    def refund(self):\n        return 2\n"
    tree.write("app/billing.py", source)
    method, cls = ref("symbol", "Billing.charge", file="app/billing.py"), ref("symbol", "Billing", file="app/billing.py")
    before = fp(tree, method), fp(tree, cls)
    assert None not in before and before[0] != before[1]
    tree.write("app/billing.py", source.replace("return 2", "return 3"))  # the other method
    after = fp(tree, method), fp(tree, cls)
    assert after[0] == before[0] and after[1] != before[1]


def test_a_symbol_without_a_file_is_found_where_it_is_defined(tree: Tree) -> None:
    tree.write("app/pay.py", PAY)
    tree.write("app/other.py", "from app.pay import charge\n\ncharge(1)\n")  # mentions it, does not define it
    assert fp(tree, ref("symbol", "charge")) == fp(tree, ref("symbol", "charge", file="app/pay.py")) is not None
    assert fp(tree, ref("symbol", "nowhere_defined")) is None
    assert fp(tree, ref("symbol", "missing", file="app/pay.py")) is None


def test_typescript_symbols_through_tree_sitter(tree: Tree) -> None:
    source = "export function main() {\n  return start();\n}\n\nexport function start() {\n  return 1;\n}\n"
    tree.write("web/app.ts", source)
    main = ref("symbol", "main", file="web/app.ts")
    first = fp(tree, main)
    assert first is not None
    tree.write("web/app.ts", source.replace("return 1;", "return 2;"))
    assert fp(tree, main) == first
    tree.write("web/app.ts", source.replace("return start();", "return start() + 1;"))
    assert fp(tree, main) != first


def test_symbols_in_files_that_are_not_code_have_no_fingerprint(tree: Tree) -> None:
    tree.write("docs/guide.md", "# charge\n\ndef charge(): pass\n")
    tree.write("config/app.yaml", "charge: 1\n")
    assert fp(tree, ref("symbol", "charge", file="docs/guide.md")) is None
    assert fp(tree, ref("symbol", "charge", file="config/app.yaml")) is None


def test_a_module_qualified_symbol_has_the_fingerprint_of_its_definition(tree: Tree) -> None:
    tree.write("app/pay.py", PAY)
    ws = Workspace(tree.root)
    assert CodeIndex(ws).defined_in("pay.charge", "app/pay.py") is not None  # the checker finds it
    assert fp(tree, ref("symbol", "pay.charge", file="app/pay.py")) == fp(tree, ref("symbol", "charge", file="app/pay.py"))


# -- config values ------------------------------------------------------------------------------------

def test_a_json_key_is_its_value_whatever_the_formatting(tree: Tree) -> None:
    data = {"name": "x", "version": "1.0.0", "scripts": {"test": "vitest"}, "jest": {"a": 1, "b": [1, 2]}}
    tree.write("package.json", json.dumps(data, indent=2))
    test, jest = ref("symbol", "scripts.test", file="package.json"), ref("symbol", "jest", file="package.json")
    before = fp(tree, test), fp(tree, jest)
    assert None not in before
    reordered = {"jest": {"b": [1, 2], "a": 1}, "scripts": {"test": "vitest"}, "version": "2.0.0", "name": "x"}
    tree.write("package.json", json.dumps(reordered))  # one line, keys reordered, another key changed
    assert (fp(tree, test), fp(tree, jest)) == before
    tree.write("package.json", json.dumps({**data, "jest": {"a": 1, "b": [2, 1]}}))  # list order matters
    assert fp(tree, jest) != before[1] and fp(tree, test) == before[0]
    assert fp(tree, ref("symbol", "scripts.missing", file="package.json")) is None


def test_a_toml_key_is_its_value(tree: Tree) -> None:
    tree.write("pyproject.toml", '[tool.ruff]\nline-length = 100\ntarget-version = "py311"\n')
    key = ref("symbol", "tool.ruff.line-length", file="pyproject.toml")
    first = fp(tree, key)
    tree.write("pyproject.toml", '# lint\n[tool.ruff]\ntarget-version = "py312"\nline-length   =   100\n')
    assert fp(tree, key) == first is not None
    tree.write("pyproject.toml", '[tool.ruff]\nline-length = 120\n')
    assert fp(tree, key) != first


def test_config_values_by_dotted_path(tree: Tree) -> None:
    tree.write("package.json", json.dumps({"scripts": {"test:e2e": "playwright test"}, "a.b": {"c": 0},
                                           "list": [1, 2], "flag": False, "nothing": None}))
    tree.write("bad.json", "{not json")
    tree.write("pyproject.toml", "[project.scripts]\nacme = 'x:main'\n")
    values = printer(tree.root)
    assert values.config_value("package.json", "scripts.test:e2e") == "playwright test"
    assert values.config_value("package.json", "a.b.c") == 0  # a key holding a dot: the longest match
    assert values.config_value("package.json", "flag") is False
    assert values.config_value("package.json", "list.0") is None  # only objects are walked
    assert values.config_value("package.json", "nothing") is None
    assert values.config_value("pyproject.toml", "project.scripts.acme") == "x:main"
    assert values.config_value("bad.json", "a") is None
    assert values.config_value("gone.json", "a") is None


# -- commands -----------------------------------------------------------------------------------------

def test_a_package_script_is_its_command(tree: Tree) -> None:
    def write(scripts: dict, version: str = "1.0.0") -> None:
        tree.write("package.json", json.dumps({"name": "x", "version": version, "scripts": scripts}, indent=2))

    write({"build": "tsc", "test": "vitest"})
    build = ref("script", "build", runner="npm")
    first = fp(tree, build)
    assert first is not None
    write({"test": "jest", "lint": "eslint .", "build": "tsc"}, version="2.0.0")
    assert fp(tree, build) == first
    write({"build": "tsc -b && vite build"})
    assert fp(tree, build) != first
    assert fp(tree, ref("script", "deploy")) is None


def test_a_script_is_read_from_the_nearest_package_json(tree: Tree) -> None:
    tree.write("package.json", json.dumps({"scripts": {"build": "turbo build"}}))
    tree.write("apps/web/package.json", json.dumps({"scripts": {"build": "next build"}}))
    root, web = fp(tree, ref("script", "build")), fp(tree, ref("script", "build"), base="apps/web")
    assert None not in (root, web) and root != web
    assert fp(tree, ref("script", "build"), base="apps/other") == root  # no package.json there: the root's


def test_a_console_script_is_its_entry_point(tree: Tree) -> None:
    tree.write("pyproject.toml", '[project]\nname = "x"\nversion = "1"\n\n[project.scripts]\nacme = "x.cli:main"\n')
    acme = ref("console", "acme")
    first = fp(tree, acme)
    tree.write("pyproject.toml", '[project]\nname = "x"\nversion = "2"\n\n[project.scripts]\nacme = "x.cli:main"\n'
                                 'other = "x.o:main"\n')
    assert fp(tree, acme) == first is not None
    tree.write("pyproject.toml", '[project]\nname = "x"\n\n[project.scripts]\nacme = "x.cli:run"\n')
    assert fp(tree, acme) != first
    assert fp(tree, ref("console", "missing")) is None


def test_make_targets_and_just_recipes_are_their_recipes(tree: Tree) -> None:
    tree.write("Makefile", "build:\n\tgo build ./...\n\ndb-up:\n\tdocker compose up -d db\n")
    tree.write("justfile", "lint:\n    ruff check .\n\nfmt:\n    ruff format .\n")
    build, lint = ref("make", "build"), ref("just", "lint")
    before = fp(tree, build), fp(tree, lint)
    assert None not in before
    tree.write("Makefile", "# targets\n.PHONY: build\n\nbuild:\n\tgo build ./...\n\ndb-up:\n\tdocker compose up db\n")
    tree.write("justfile", "set shell := ['bash', '-c']\n\nlint:\n    ruff check .\n\nfmt:\n    ruff format src\n")
    assert (fp(tree, build), fp(tree, lint)) == before
    tree.write("Makefile", "build:\n\tgo build -race ./...\n")
    tree.write("justfile", "lint:\n    ruff check --fix .\n")
    after = fp(tree, build), fp(tree, lint)
    assert after[0] != before[0] and after[1] != before[1]
    assert fp(tree, ref("make", "db-up")) is None and fp(tree, ref("just", "fmt")) is None


def test_the_package_manager_is_the_declared_one_and_the_lockfiles(tree: Tree) -> None:
    tree.write("package.json", '{"name": "x"}\n')
    tree.write("package-lock.json", "{}\n")
    npm = fp(tree, ref("package-manager", "npm"))
    tree.write("package-lock.json", '{"lockfileVersion": 3}\n')  # the lockfile's content is not the point
    assert fp(tree, ref("package-manager", "pnpm")) == npm is not None  # nor the manager the memory names
    (tree.root / "package-lock.json").unlink()
    tree.write("pnpm-lock.yaml", "lockfileVersion: '9.0'\n")
    pnpm = fp(tree, ref("package-manager", "npm"))
    assert pnpm != npm
    tree.write("package.json", '{"name": "x", "packageManager": "pnpm@9.1.0"}\n')
    assert fp(tree, ref("package-manager", "npm")) not in (npm, pnpm)


@pytest.mark.parametrize("kind, target", [("module", "app.pay"), ("version", "node@20"), ("unknown", "x")])
def test_kinds_without_a_fingerprint(tree: Tree, kind: str, target: str) -> None:
    tree.write("app/pay.py", PAY)
    tree.write(".nvmrc", "20\n")
    assert fp(tree, ref(kind, target)) is None


# -- the past, from git -------------------------------------------------------------------------------

def test_fingerprints_at_a_past_commit(tree: Tree) -> None:
    tree.write("app/pay.py", PAY)
    tree.write("package.json", json.dumps({"scripts": {"build": "tsc"}}))
    tree.write("Makefile", "build:\n\tgo build ./...\n")
    commit(tree, "initial")
    first = printer(tree.root).history.head
    tree.write("app/pay.py", PAY.replace("return -amount", "return 0"))  # refund only
    tree.write("package.json", json.dumps({"scripts": {"build": "tsc -b"}}))
    tree.write("src/new.ts", "export {}\n")
    commit(tree, "second")
    now = printer(tree.root)
    charge, refund = ref("symbol", "charge", file="app/pay.py"), ref("symbol", "refund", file="app/pay.py")
    assert now.fingerprint_at(charge, "", first) == now.fingerprint(charge, "") is not None
    assert now.fingerprint_at(refund, "", first) not in (now.fingerprint(refund, ""), None)
    assert now.fingerprint_at(ref("path", "app/pay.py"), "", first) not in (now.fingerprint(ref("path", "app/pay.py"), ""), None)
    assert now.fingerprint_at(ref("script", "build"), "", first) not in (now.fingerprint(ref("script", "build"), ""), None)
    assert now.fingerprint_at(ref("make", "build"), "", first) == now.fingerprint(ref("make", "build"), "") is not None
    assert now.fingerprint_at(ref("path", "src/new.ts"), "", first) is None  # not there then
    # Folders and the package manager are judged only as they are now.
    assert now.fingerprint_at(ref("path", "app/"), "", first) is None
    assert now.fingerprint_at(ref("package-manager", "npm"), "", first) is None
    assert now.show(first, "app/pay.py") == PAY.encode() and now.show(first, "src/new.ts") is None


def test_last_change_of_a_line_range(tree: Tree) -> None:
    tree.write("CLAUDE.md", "- one\n- two\n- three\n")
    commit(tree, "first", date="2026-01-01T00:00:00Z")
    tree.write("CLAUDE.md", "- one\n- two, edited\n- three\n")
    second = commit(tree, "second", date="2026-02-01T00:00:00Z")
    prints = printer(tree.root)
    assert prints.last_change("CLAUDE.md", 1, 1).subject == "first"
    newest = prints.last_change("CLAUDE.md", 1, 3)
    assert newest.subject == "second" and newest.sha.startswith(second)
    assert prints.last_change("CLAUDE.md", 3, 9) is None  # beyond the file
    tree.write("CLAUDE.md", "- one\n- two, edited\n- three, uncommitted\n")
    prints = printer(tree.root)
    assert prints.last_change("CLAUDE.md", 1, 2).subject == "second"
    assert prints.last_change("CLAUDE.md", 2, 3) is None  # a line not committed yet: no date to trust


def test_blame_baseline_of_an_instruction_line(tree: Tree) -> None:
    tree.write("package.json", json.dumps({"scripts": {"build": "tsc"}}))
    tree.write("CLAUDE.md", "- Build with `npm run build`.\n- Read `src/a.ts`.\n")
    commit(tree, "initial", date="2026-02-01T00:00:00Z")
    written = printer(tree.root).fingerprint(ref("script", "build"), "")
    tree.write("package.json", json.dumps({"scripts": {"build": "vite build"}}))
    commit(tree, "vite", date="2026-03-01T00:00:00Z")
    prints = printer(tree.root)
    line = Entry(id="CLAUDE.md:1", content="Build with `npm run build`.", format="instruction",
                 location=Location(path="CLAUDE.md", start_line=1, end_line=1))
    script = ref("script", "build", runner="npm")
    since, recorded = prints.blame_baseline(line, [script, ref("path", "src/a.ts")], lambda _ref: "")
    assert since.startswith("written (") and "2026-02-01: initial" in since
    assert recorded == {"build": written}  # commands only: a path or symbol is not compared since written
    assert prints.blame_baseline(line, [ref("path", "src/a.ts")], lambda _ref: "") is None
    as_entry = line.model_copy(update={"format": "entry"})
    assert prints.blame_baseline(as_entry, [script], lambda _ref: "") is None  # entry files have their own baseline


def test_no_git_no_past(tree: Tree) -> None:
    tree.write("app/pay.py", PAY)
    prints = printer(tree.root)
    assert prints.fingerprint_at(ref("path", "app/pay.py"), "", "HEAD") is None
    assert prints.last_change("app/pay.py", 1, 1) is None
    line = Entry(id="CLAUDE.md:1", content="`npm run build`", format="instruction",
                 location=Location(path="CLAUDE.md", start_line=1, end_line=1))
    assert prints.blame_baseline(line, [ref("script", "build")], lambda _ref: "") is None


# -- recorded verifications ---------------------------------------------------------------------------

def _line(text: str, path: str = "CLAUDE.md") -> Entry:
    return Entry(id=f"{path}:3", content=text, format="instruction", location=Location(path=path, start_line=3, end_line=3))


def test_instruction_verifications_follow_the_text_not_the_line(tree: Tree) -> None:
    line = _line("Build with `npm run build`.")
    tree.write(".lore/memory/verified.json", json.dumps({"entries": {Verifications.key(line): {
        "entry": line.id, "verified": "2026-03-04T05:06:07Z", "fingerprints": {"build": "sha256:abc"}}}}))
    records = Verifications.load(Workspace(tree.root))
    moved = line.model_copy(update={"id": "CLAUDE.md:9", "location": Location(path="CLAUDE.md", start_line=9, end_line=9)})
    restyled = _line("build with **npm run build**")  # case and Markdown only
    for same in (line, moved, restyled):
        assert records.verified_at(same) == datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)
        assert records.baseline(same) == ("verified on 2026-03-04", {"build": "sha256:abc"})
    for other in (_line("Build with `npm run build:prod`."), _line("Build with `npm run build`.", path="AGENTS.md")):
        assert records.verified_at(other) is None and records.baseline(other) is None


@pytest.mark.parametrize("sidecar", ["{not json", '["a list"]', '{"entries": []}',
                                     '{"entries": {"CLAUDE.md::x": "not a record"}}'])
def test_a_broken_sidecar_means_nothing_was_verified(tree: Tree, sidecar: str) -> None:
    tree.write(".lore/memory/verified.json", sidecar)
    records = Verifications.load(Workspace(tree.root))
    line = _line("anything")
    assert records.verified_at(line) is None and records.baseline(line) is None


def test_a_verified_time_that_is_not_a_date_is_shown_as_written(tree: Tree) -> None:
    line = _line("Build with `npm run build`.")
    tree.write(".lore/memory/verified.json", json.dumps({"entries": {Verifications.key(line): {
        "verified": "yesterday", "fingerprints": {"build": "sha256:abc"}}}}))
    records = Verifications.load(Workspace(tree.root))
    assert records.verified_at(line) is None
    assert records.baseline(line) == ("verified on yesterday", {"build": "sha256:abc"})


def test_entry_files_keep_their_verification_in_their_own_fields(tree: Tree) -> None:
    tree.entry("v.json", {"id": "v", "content": "charge() returns the amount.", "verified": "2026-04-01T00:00:00Z",
                          "fingerprints": {"app/pay.py:charge": "sha256:1"}})
    tree.entry("h.json", {"id": "h", "content": "see pay", "verified": "2026-04-02T00:00:00Z",
                          "refs": [{"path": "app/pay.py", "hash": "sha256:2"}, {"path": "app/y.py"}]})
    tree.entry("n.json", {"id": "n", "content": "never verified", "fingerprints": {"a": "sha256:4"}})
    by_id = tree.store().by_id()
    records = Verifications.load(Workspace(tree.root))
    assert records.verified_at(by_id["v"]) == datetime(2026, 4, 1, tzinfo=UTC)
    assert records.baseline(by_id["v"]) == ("verified on 2026-04-01", {"app/pay.py:charge": "sha256:1"})
    # Without recorded fingerprints, the hashes written on the refs stand in.
    assert records.baseline(by_id["h"]) == ("verified on 2026-04-02", {"app/pay.py": "sha256:2"})
    assert records.verified_at(by_id["n"]) is None and records.baseline(by_id["n"]) is None
