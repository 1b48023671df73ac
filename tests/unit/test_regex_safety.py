"""Regular expressions on hostile text. Everything in a workspace may come from someone else through git,
and Lorekeeper reads memory text with many patterns: one crafted line must not stall `check-stale`,
`compact` or the language server. Each test below gives one pattern (or the loop around it), through the
function that uses it, 100 KB of the input that made it quadratic or worse ("issue:" marks the inputs
issue 46 measured): seconds to minutes before, milliseconds now. The limit is generous, so that a busy
machine does not fail it.

The second half checks that each rewritten pattern finds what the original found on ordinary text (the
originals are written out here)."""

from __future__ import annotations

import itertools
import re
import string
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lorekeeper.analysis.llm import guard as llm_guard
from lorekeeper.analysis.staleness import check_workspace, checks
from lorekeeper.core.settings.llm import _KEY_NAME
from lorekeeper.facts import parse, semantic_guard, updates
from lorekeeper.facts.tagging import tools
from lorekeeper.refs import dependencies, extract
from lorekeeper.refs.manifests import parse_manifest
from lorekeeper.refs.symbols import file_symbols
from lorekeeper.store import mif
from lorekeeper.store.positions import _JSON_STRING, finding_span
from lorekeeper.surfaces.lsp.diagnostics import ref_span
from lorekeeper.workspace import Workspace
from support import Tree, commit

N = 100_000
LIMIT = 2.0  # seconds: each case below takes well under a second now
#: Cases that read a name from each character, at most 255 characters each (see parse.LITERAL_OTHER), or
#: that find tens of thousands of references or literals: linear, but more work.
LIMITS = {"issue: -1 repeated (_LITERAL_SCAN)": 5.0, "issue: a/b repeated (_SCOPE_WORD before each path)": 5.0,
          "a dashed name that never ends (_LITERAL_SCAN: a file name, an identifier)": 5.0,
          "a shell block of $ and names that never end (_script_names)": 5.0}


def timed(call: Callable[[], Any]) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def _names_only_in_one() -> None:
    names = ["".join(letters) for letters in itertools.product(string.ascii_lowercase, repeat=3)][: N // 7]
    text, other = " ".join(f"x N{name}" for name in names), "z " * (N // 2)
    semantic_guard._only(semantic_guard.names(text), semantic_guard.names(other), other)


HOSTILE: dict[str, Callable[[], Any]] = {
    # references (check-stale, the language server): refs/extract.py
    "issue: `npm + spaces (_SEGMENTS)": lambda: extract.extract("`npm " + " " * N + "x`"),
    "issue: a/b repeated (_SCOPE_WORD before each path)": lambda: extract.extract("a/b " * (N // 4)),
    "issue: x@aaaa (_URL)": lambda: extract.extract("x@" + "a" * N),
    "a run before an @ (_URL)": lambda: extract.extract("a" * N + "@"),
    "a shell comment of or and spaces (_ALTERNATIVE)": lambda: extract.extract(
        "```bash\nmake build # or" + " " * N + "#\nmake x " + "# or a" * (N // 6) + "\n```"),
    "a scope word searched for before each span (_SCOPE_WORD)": lambda: extract.extract("in " * (N // 3) + "`a/` " * 2000),
    "a negation searched for before each npm (_NEGATED_END)": lambda: extract.extract("no " * (N // 3) + "use npm " * 2000),
    # (300 KB: these two failed in a tight loop of the engine, 100 KB took one or two seconds)
    "(e.g. without ) (_EG)": lambda: extract.extract("(e.g. " * (3 * N // 6)),
    "( after each span (_PLACED_IN)": lambda: extract.extract("`foo` (" * (3 * N // 7)),
    # literals (compact): compaction/verify.py
    "issue: - x 100,000 (_RAW_NUMBER, _LITERAL_SCAN)": lambda: parse.parse("-" * N),
    "issue: -1 repeated (_LITERAL_SCAN)": lambda: parse.parse("-1" * (N // 2)),
    "signs without a digit (_RAW_NUMBER)": lambda: parse.parse("!" * N),
    "dots (_LITERAL_SCAN: a path)": lambda: parse.parse("." * N + "_"),
    "a dashed name that never ends (_LITERAL_SCAN: a file name, an identifier)": lambda: parse.parse("a-" * (N // 2)),
    "blank lines (_MARKUP)": lambda: parse.parse("x" + "\n" * N + "*y*"),
    # updates said outright (compact): compaction/updates.py
    "a run before `was removed` (_PATTERNS, _ARROW)": lambda: updates.changes_in("a" * N + " was removed"),
    "a run before `is no longer used` (_PATTERNS, _ARROW)": lambda: updates.changes_in("a-" * (N // 2) + " is no longer used ->"),
    "a name before each version (versions_in)": lambda: updates.versions_in("node 1 " * (N // 7)),
    "moved, never to (_MOVED_TO)": lambda: list(updates._MOVED_TO.finditer("moved " * (N // 6))),
    "spaces in a retired phrase (_alternatives)": lambda: updates._alternatives("a" + " " * N + "b"),
    # the semantic stage's guard: semantic/guard.py
    "a run of an e-mail's characters (_EMAIL)": lambda: semantic_guard.names("+" * N),
    "a run of a path's characters (_PATHISH)": lambda: semantic_guard.names("." * N),
    "capitalised names looked for in the other text (_only)": _names_only_in_one,
    # the LLM stage's guard: llm/guard.py
    "spaces in a sentence (_CLAUSE_BREAK)": lambda: llm_guard.clauses("a" + " " * N + "b"),
    "spaces in a clause (_SEGMENT)": lambda: llm_guard._SEGMENT.split("a" + " " * N + "b"),
    "negations without a scope end (_polarity)": lambda: llm_guard._polarity("not " * 5000 + "x " * 40000),
    # files a repository commits: MIF front matter, Makefiles
    "a key that never reaches its colon (mif)": lambda: mif._top_level_blocks("a" + " " * N + "\n"),
    "a rule that never reaches its colon (Makefile)": lambda: parse_manifest("Makefile", ("a" + " " * N + "\n").encode()),
    "a tox env_list of many braces and an unclosed one": lambda: parse_manifest(
        "tox.ini", ("[tox]\nenv_list = " + "{a,b}" * (N // 5) + ", {" + "a," * N + "\n[testenv:" + "x-" * N + "]\n").encode()),
    "a task that never reaches its colon (Taskfile)": lambda: parse_manifest(
        "Taskfile.yml", ("tasks:\n  a" + " " * N + "\n  " + "b " * (N // 2) + "\n").encode()),
    "a dashed or dotted name that never ends (tools named in words)": lambda: (
        list(dependencies.names_in("a-" * (N // 2))), list(dependencies.names_in("a." * (N // 2) + "/x"))),
    "a go.mod of blank lines and a module path that never ends": lambda: (
        dependencies.declared("go.mod", b"\n" * N), dependencies.declared("go.mod", ("a." * (N // 2)).encode()),
        list(dependencies.modules_in("`" + "a." * (N // 2) + "`"))),
    "Go modules in prose and by name that never end (_GO_MODULE_PROSE, _GO_MODULE_NAME)": lambda: (
        list(dependencies.modules_in("a/" + "b." * (N // 2))), list(dependencies.modules_in("a" + "/b" * (N // 2) + "`")),
        list(dependencies.modules_in("`a" + "-b" * (N // 2))), list(dependencies.modules_in("x/" * (N // 2)))),
    "a package manager pinned again and again, a version that never ends (_PM_VERSION, _URL)": lambda: (
        extract.extract("pnpm@1." * (N // 7)), extract.extract("pnpm " + "1." * (N // 2) + "x"),
        extract.extract("pnpm `" + "1." * (N // 2))),
    "a stated default that never closes, a typed default that never ends (_STATED_DEFAULT, _typed_defaults)": lambda: (
        list(checks._STATED_DEFAULT.finditer("`a_b` (default: `" + "1" * N)),
        list(checks._STATED_DEFAULT.finditer("`a_b` " * (N // 6))),
        list(checks._typed_defaults("a_b").finditer(b"a_b: " + b"x" * N + b" = \"" + b"y" * N)),
        list(checks._typed_defaults("a_b").finditer(b"a_b:" * (N // 4)))),
    "a bold folder name that never closes (a list of folders)": lambda: extract.extract("- **" + "a" * N + "/*"),
    "a block of source: names, strings, declarations that never end (_code_names)": lambda: (
        extract.extract("```ts\n" + "aB" * (N // 2) + "\n" + '"' + "\\a" * (N // 2) + "\nconst " + " " * N + "x\n```"),
        extract.extract("```ts\n" + "a_" * (N // 2) + "\n" + "process.env." * (N // 12) + "\n```")),
    "a shell block of $ and names that never end (_script_names)": lambda: extract.extract(
        "```bash\n" + "${A_" * (N // 4) + "\n" + "a_b" * (N // 3) + "=\n" + ") " * (N // 2) + "a_b\n```"),
    "a glob of file names that never ends (_name_glob)": lambda: extract.extract("`" + "*a" * (N // 2) + ".py`"),
    "a shell script whose definitions never end (shell symbols)": lambda: file_symbols(
        "a.sh", ("function " + " " * N + "\n" + ";" * N + "\n" + "a" * N + "(" + "\n").encode()),
    "a pattern rule of many % (Makefile)": lambda: parse_manifest("Makefile", b"%-%-%-%-%-%-%-%-%-%-%-%x: y\n")
    .defines("-" * 60 + "y"),
    "a condition on the goals that never closes (Makefile)": lambda: parse_manifest(
        "Makefile", b"ifneq ($(filter " + b"a " * N + b" " * N + b"\n%:\n\t@:\n"),
    # tags (300 KB: counting backticks again before each name was quick, but not quick enough)
    "an ambiguous tool name again and again (tools)": lambda: tools("make " * (3 * N // 5)),
}


@pytest.mark.parametrize("case", HOSTILE)
def test_hostile_text_is_read_in_linear_time(case: str) -> None:
    assert timed(HOSTILE[case]) < LIMITS.get(case, LIMIT)


WHOLE: dict[str, Callable[[], Any]] = {
    "a code span's literal (parse.LITERAL)": lambda: parse.parse("`" + "-1" * (N // 2) + "`"),
    "a code span's kind (parse.PATH_NAME)": lambda: parse.PATH_NAME.fullmatch("`" + "-" * N + "!"),
    "a code span's kind (parse.ENV_NAME)": lambda: parse.ENV_NAME.fullmatch("A" * N + "!"),
    "a product name (extract._JS_PRODUCT)": lambda: extract._JS_PRODUCT.fullmatch("A" * N + "!"),
    "an entry file's content (positions._JSON_STRING)": lambda: _JSON_STRING.match('"' + '\\"' * (N // 2)),
    "the API key's variable (llm.settings._KEY_NAME)": lambda: _KEY_NAME.fullmatch("A_" * (N // 2) + "!"),
}


@pytest.mark.parametrize("case", WHOLE)
def test_patterns_matched_whole_stay_linear(case: str) -> None:
    """Patterns a scan of every position of a text finds quadratic, left as they are: they are only ever
    matched from one position (``fullmatch``, ``match``), where each fails in one pass."""
    assert timed(WHOLE[case]) < LIMIT


def test_stated_values_read_each_config_file_once(tree: Tree) -> None:
    """A memory stating thousands of numbers about a large config file: each number was searched for in
    both versions of the file."""
    tree.write("pyproject.toml", "values = [" + ", ".join(str(i) for i in range(40_000)) + "]\n")
    tree.write("CLAUDE.md", "- Values in `pyproject.toml`: " + " ".join(str(i) for i in range(10, 30_000)) + ".\n")
    commit(tree, "initial", date="2026-01-15T00:00:00Z")
    tree.write("pyproject.toml", "values = [" + ", ".join(str(i) for i in range(40_000) if i != 100) + "]\n")
    commit(tree, "drop 100", date="2026-03-01T00:00:00Z")
    start = time.perf_counter()
    findings, _ = check_workspace(Workspace(tree.root))
    assert time.perf_counter() - start < 5.0  # (a whole check of a git repository: a looser limit; a minute before)
    assert [(f.kind, f.message.split(" as it did")[0]) for f in findings if f.kind == "stale-value"] == [
        ("stale-value", "`pyproject.toml` no longer contains 100,")]


def test_many_findings_in_one_entry_are_placed_in_linear_time(tree: Tree) -> None:
    """The language server places each finding of an entry in its file: the entry's ``content`` string was
    found again (the file scanned, the string matched) for each of them."""
    tree.entry("a.json", {"id": "aaaaaaaaaaaa", "category": "conventions", "created": "2026-01-01T00:00:00Z",
                          "content": " ".join(f"`d{i}/x.ts`" for i in range(N // 10))})
    findings, _ = check_workspace(Workspace(tree.root))
    assert len(findings) == N // 10
    entry = tree.store().by_id()["aaaaaaaaaaaa"]
    lines = (tree.root / findings[0].source).read_text().splitlines()

    def place_all() -> None:
        for finding in findings:
            assert ref_span(lines, finding_span(tree.root, finding, entry, lines), finding.ref or "") is not None

    assert timed(place_all) < LIMIT


# -- the same matches on ordinary text -----------------------------------------------------------------

ORDINARY = [
    "Use pnpm, not npm or yarn.",
    "Run `pnpm test:e2e` from `clients/web/` before pushing; see https://example.com/docs for details.",
    "Mail ops@acme.io or a@b.com,c@d.co.uk (e.g. for access); git@github.com:acme/shop.git is the remote.",
    "Deploy with `cd infra && make deploy ENV=prod | tee log.txt; echo done` (for example `make plan`).",
    "The helper `withRetry(fn, 3)` (see the notes) is defined in `src/lib/retry.ts`, never in `old/`.",
    "We moved CI from Travis CI to GitHub Actions; `LOG_LEVEL` was renamed to `APP_LOG_LEVEL`.",
    "RabbitMQ was removed—Kafka was removed too. `setup.py` is no longer used; use `a` -> `b`, x->y.",
    "Node 20.11 and python 3.11 are pinned; React is at ^19.0.0, timeout 30s, retries: 3, port 5432.",
    "- **Decided**: keep `src/api/config.ts` and `.env.example`\n\n\n  1. run `uv run pytest tests/unit`\n- done",
    "Replaced ESLint + Prettier with Biome, and Jest & Mocha with Vitest. Staging moved to `us-east-1`.",
    "@my-org/pkg-a and node-v18 and foo.ts.bak, see v1.2.3-beta and UTC+05:30, 12:30, >= 2.0, a => b.",
    "Never run `pnpm test:int` in parallel, both bind port 5433 - see (the docs); don't use moment: it's old.",
]


def blank(pattern: re.Pattern[str], text: str) -> str:
    return pattern.sub(lambda m: " " * len(m.group(0)), text)


def matches(pattern: re.Pattern[str], text: str) -> list[tuple[tuple[int, int], dict[str, str | None]]]:
    return [(m.span(), m.groupdict()) for m in pattern.finditer(text)]


_TOKEN = r"(?:`[^`]+`|[^\s`,;:()\"]+)"
_PHRASE = rf"{_TOKEN}(?:\s+{_TOKEN}){{0,3}}"
_BE = r"(?:was|were|has\s+been|have\s+been|got|had\s+been|is\s+now|are\s+now)"
#: The original patterns, as they were before they were made linear.
ORIGINAL = {
    "extract._URL": re.compile(r"\b(?:https?|ftp|file|ssh|git)://[^\s`]+|\bwww\.[^\s`]+|[^\s`@]+@[^\s`@]+\.\w+"),
    "extract._EG": re.compile(r"\((?:e\.g\.|eg\.|for example|for instance|i\.e\.)[^)]*\)|\b(?:e\.g\.|for example|"
                              r"for instance|such as)[^.;\n]*", re.I),
    "extract._SEGMENTS": re.compile(r"\s*(?:&&|\|\||;|(?<![|])\|(?![|]))\s*"),
    "extract._SCOPE_WORD": re.compile(r"\b(?:from|in|inside|within|under)\s+(?:the\s+)?$", re.I),
    "extract._NEGATED_END": re.compile(r"\b(never|not|don't|no)\s*$", re.I),
    "extract._PLACED_IN": re.compile(r"^\s*(?:\([^)]*\)\s*)?(?:is\s+|are\s+|lives\s+|defined\s+)?(?:in|from|inside|of)"
                                     r"\s+`([^`\s]+)`"),
    "extract._NEGATED_BEFORE": re.compile(
        r"(?:\bnever|\bnot|n't|\bno|\bavoid|\binstead of|\brather than|\bno longer|\bformerly|\bold|\blegacy|"
        r"\bdeprecated|\bremoved|\bdeleted|\breplaced|\bwithout|\bif|\bunless|\bwhether|\bused to|\bwas|\bexcept)"
        r"(?:\s+(?:use|using|import|importing|call|calling|run|running|the|a|an|any|in|from|with|edit|edits|touch|"
        r"add|to|write|modify|commit)){0,2}[\s,:(]*$", re.I),
    "parse.RAW_NUMBER": re.compile(r"[<>=!~^+\-]*\d+(?:[.,:]\d+)*"),
    "parse.MARKUP": re.compile(r"(\*\*|__|(?<!\w)[*_](?=\w)|(?<=\w)[*_](?!\w)|^#+\s|^\s*(?:[-*+]|\d+[.)])\s+|~~)",
                                 re.M),
    "updates._PATTERNS[renamed]": re.compile(rf"(?P<old>{_TOKEN})\s+{_BE}\s+(?:now\s+)?(?:renamed|moved)\s+to\s+"
                                             rf"(?P<new>{_PHRASE})", re.I),
    "updates._PATTERNS[replaced]": re.compile(rf"(?P<old>{_TOKEN}(?:\s+{_TOKEN})?)\s+{_BE}\s+(?:now\s+)?replaced\s+"
                                              rf"(?:with|by)\s+(?P<new>{_PHRASE})", re.I),
    "updates._PATTERNS[removed]": re.compile(rf"(?P<old>{_TOKEN}(?:\s+{_TOKEN})?)\s+{_BE}\s+"
                                             rf"(?:{'|'.join(updates._REMOVED)})\b", re.I),
    "updates._PATTERNS[no longer]": re.compile(rf"(?P<old>{_TOKEN})\s+(?:is|are)\s+no\s+longer\s+(?:used|needed|"
                                               rf"required|supported|in\s+use|maintained)", re.I),
    "updates._ARROW": re.compile(rf"(?P<old>{_TOKEN})\s*(?:->|→|=>)\s*(?P<new>{_TOKEN})"),
    "updates._MOVED_TO": re.compile(r"\b(?:moved|migrated|switched|changed|renamed|upgraded|bumped|repointed|pointed|"
                                    r"relocated)\b[^.;]*?\bto\s+(?P<new>`[^`]+`)", re.I),
    "updates._LIST_SEPARATOR": re.compile(r"\s+[+&]\s+|\s*,\s*|\s+and\s+"),
    "semantic._EMAIL": re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"),
    "semantic._PATHISH": re.compile(r"[\w.@{}~-]*/[\w./@{}~-]+"),
    "llm._CLAUSE_BREAK": re.compile(r"`[^`\n]*`|\b(?:https?|ftp|ssh|git)://\S+|(?P<cut>\s*[;—–()]\s*|:\s+|\s+-\s+"
                                    r"|,\s+(?=(?:and|but|so|because|since|which|who|whereas|while)\b))"),
    "llm._SEGMENT": re.compile(r",\s+|\s+(?:and|or)\s+"),
    "mif._TOP_LEVEL_KEY": re.compile(r"""^(?:"([^"]+)"|'([^']+)'|([^\s#'"][^:]*?))\s*:(?:\s|$)"""),
    "manifests._MAKE_RULE": re.compile(r"^(?P<targets>[^\s:=#\t][^:=#]*?)\s*(?P<colons>::?)(?!=)(?P<rest>.*)$"),
}
_LITERAL_OTHER = parse.LITERAL_OTHER.replace(
    r"[\w.-]{1,255}+(?:/[\w.-]{1,255}+)+/?", r"[\w.-]+(?:/[\w.-]+)+/?").replace(
    r"\b(?=\w)[\w-]{1,255}+(?:\.[\w-]{1,255}+){0,16}\.", r"\b(?=\w)[\w-]+(?:\.[\w-]+)*\.").replace(
    r"\b[A-Za-z]\w{0,254}+(?:-\w{1,255}+){0,16}-v?\d+\b", r"\b[A-Za-z][\w]*(?:-[\w]+)*-v?\d+\b")
ORIGINAL["parse.LITERAL_SCAN"] = re.compile(
    r"(?P<code>`[^`]+`)|(?<!\w)(?!(?:[a-z]+|[A-Z][a-z]*)(?:[\s,;!?)\]}\"'(]|\.(?:\s|\Z)|\Z))(?:" + _LITERAL_OTHER + ")")
ORIGINAL["parse.LITERAL"] = re.compile(r"(?P<code>`[^`]+`)|" + _LITERAL_OTHER)


def test_the_originals_here_are_the_ones_that_were_replaced() -> None:
    # (the bounded literals are written back unbounded above: a replace that found nothing would leave
    # them bounded, and the comparisons below would compare a pattern with itself)
    assert "255" not in _LITERAL_OTHER and "{0,16}" not in _LITERAL_OTHER


def test_extract_finds_what_it_found() -> None:
    for text in ORDINARY + [line for paragraph in ORDINARY for line in paragraph.split("\n")]:
        assert blank(extract._URL, text) == blank(ORIGINAL["extract._URL"], text)
        assert extract._without_examples(text) == blank(ORIGINAL["extract._EG"], text)
        assert extract._SEGMENTS.split(text) == ORIGINAL["extract._SEGMENTS"].split(text)
        for end in range(len(text) + 1):
            assert extract._ends_with(extract._SCOPE_WORD, text, end, words=2) == bool(
                ORIGINAL["extract._SCOPE_WORD"].search(text[:end]))
            assert extract._ends_with(extract._NEGATED_END, text, end, words=1) == bool(
                ORIGINAL["extract._NEGATED_END"].search(text[:end]))
            placed, original = extract._PLACED_IN.match(text, end), ORIGINAL["extract._PLACED_IN"].match(text[end:])
            assert (placed and placed.groups()) == (original and original.groups())
            window = text[max(0, end - 40) : end]
            assert bool(extract._NEGATED_BEFORE.search(window)) == bool(
                ORIGINAL["extract._NEGATED_BEFORE"].search(window))
    for scoped in ("in `a/`", "inside the  `a/`", "(from `a/`", "within\tthe\t`a/`", "thein `a/`", "under the the `a/`"):
        end = scoped.index("`")
        assert extract._ends_with(extract._SCOPE_WORD, scoped, end, words=2) == bool(
            ORIGINAL["extract._SCOPE_WORD"].search(scoped[:end]))


def test_literals_and_markup_are_read_as_they_were() -> None:
    def tagged(m: re.Match[str]) -> str:
        return f"<{m.lastgroup}:{m.group(0)}>"

    for text in ORDINARY:
        assert parse.LITERAL_SCAN.sub(tagged, text) == ORIGINAL["parse.LITERAL_SCAN"].sub(tagged, text)
        assert parse.MARKUP.sub("|", text) == ORIGINAL["parse.MARKUP"].sub("|", text)
        assert parse.RAW_NUMBER.findall(text) == ORIGINAL["parse.RAW_NUMBER"].findall(text)
        for word in text.replace("`", " ").split():
            new, old = parse.LITERAL.fullmatch(word), ORIGINAL["parse.LITERAL"].fullmatch(word)
            assert (new and tagged(new)) == (old and tagged(old))


def test_updates_are_read_as_they_were() -> None:
    patterns = dict(zip(["renamed", "replaced", "removed", "no longer"],
                        [p for i, (_, p) in enumerate(updates._PATTERNS) if i in (2, 4, 5, 9)], strict=True))
    for text in ORDINARY:
        for name, pattern in patterns.items():
            assert matches(pattern, text) == matches(ORIGINAL[f"updates._PATTERNS[{name}]"], text), name
        assert matches(updates._ARROW, text) == matches(ORIGINAL["updates._ARROW"], text)
        assert [m.group("new") for m in updates._MOVED_TO.finditer(text)] == [
            m.group("new") for m in ORIGINAL["updates._MOVED_TO"].finditer(text)]
        assert updates._LIST_SEPARATOR.split(text) == ORIGINAL["updates._LIST_SEPARATOR"].split(text)
        expected: dict[str, str] = {}  # versions_in as it was: the words before each version, read again
        for sentence in re.split(r"(?<=[.;!?])\s+", text):
            for match in updates._VERSION_NUMBER.finditer(sentence):
                before = updates._NAME_WORD.findall(sentence[: match.start()])[-5:]
                reach = before if ("." in match.group(0) or match.group(0)[:1] in "<>=!~^") else before[-1:]
                name = next((n for n in map(updates._known_name, reversed(reach)) if n), None)
                if name and name not in expected:
                    expected[name] = match.group(0)
        assert updates.versions_in(text) == expected
    # (the name word "react+19.0.1" runs on past the version's start: read as far as it, "react+", no name)
    assert updates.versions_in("Node 20 and python 3.11; react+19.0.1") == {"node": "20", "python": "3.11"}
    assert [c.old for c in updates.changes_in("RabbitMQ was removed—Kafka was removed too.")] == ["RabbitMQ",
                                                                                                 "—Kafka"]


def test_guards_read_as_they_did() -> None:
    for text in ORDINARY:
        assert semantic_guard._emails(text) == ORIGINAL["semantic._EMAIL"].findall(text)
        assert semantic_guard._PATHISH.findall(text) == ORIGINAL["semantic._PATHISH"].findall(text)
        assert matches(llm_guard._CLAUSE_BREAK, text) == matches(ORIGINAL["llm._CLAUSE_BREAK"], text)
        assert llm_guard._SEGMENT.split(text) == ORIGINAL["llm._SEGMENT"].split(text)
    mine, theirs = semantic_guard.names("Alembic runs in CI, with Next.js and SSH"), (set(), set())
    for other in ("alembic, next.js and ssh-key", "Alembicx nextjs sshd", "the docs", "x-alembic next.jsx"):
        # (as it was: each name searched for; an exact name the other writes as it is counts as written)
        assert semantic_guard._only(mine, theirs, other) == {
            n for n in mine[0] if not re.search(r"(?<![\w./-])" + re.escape(n.strip("`")) + r"(?![\w-])", other.lower())} | {
            n for n in mine[1] if not re.search(r"\b" + re.escape(n), other.lower())}
    assert semantic_guard._emails("a@b.com,c@d.co.uk+e@f.io") == ["a@b.com", "c@d.co.uk", "+e@f.io"]
    plain, scoped, heads = llm_guard._polarity(
        "Never run `pnpm test:int` in parallel, both bind port 5433; do not use moment and never Jest")
    assert (scoped, heads) == ({"run", "parallel", "use", "moment", "jest"}, {"run", "use", "jest"})
    assert {"bind", "port"} <= plain


def test_files_of_the_repository_are_read_as_they_were() -> None:
    for line in ["title: A fact\n", "  indented: no\n", "key with spaces  : value\n", '"quoted key": 1\n', "a:b: c\n",
                 "x:\n", "# comment: no\n", "tags:   \n", "url: https://x\n", "  \n", ":: odd\n", "a b c\n"]:
        new, old = mif._TOP_LEVEL_KEY.match(line), ORIGINAL["mif._TOP_LEVEL_KEY"].match(line)
        assert (new and (new.span(), new.groups())) == (old and (old.span(), old.groups())), line
    for line in ["build test: deps", "all:", "a b  :: c", "x := 1", "%.o : %.c", "target:=x", "t  :  r", "a#b: c", ".PHONY: a b"]:
        from lorekeeper.refs.manifests import _MAKE_RULE

        new, old = _MAKE_RULE.match(line), ORIGINAL["manifests._MAKE_RULE"].match(line)
        assert (new and (new.span(), new.groups())) == (old and (old.span(), old.groups())), line
    manifest = parse_manifest("Makefile", b"%.o: %.c\n\tcc $<\na%b%c:\n\techo $*\n")
    assert manifest is not None
    # make takes the first % of a pattern rule as its stem, the others as written
    assert manifest.defines("main.o") and manifest.defines("aXb%c") and not manifest.defines("aXbYc")


def test_tools_in_code_and_stated_values_are_found_as_they_were(tmp_path: Path) -> None:
    assert tools("make sure of it; then `make build` and git") == ["make"]
    assert tools("`git` then make") == ["git"]
    assert tools("run Make, `uv` and jest") == ["make", "uv"]
    old = b'line-length = 100\nversion = "1.2.3"\nx = 100.5 v20 _30 a.40'
    runs = set(re.findall(rb"[\w.]+", old))
    for number in ["100", "1.2.3", "1.2", "100.5", "20", "30", "40", "3"]:
        word = re.compile(rb"(?<![\w.])" + re.escape(number.encode()) + rb"(?![\w.])")
        assert (number.encode() in runs) == bool(word.search(old)), number
