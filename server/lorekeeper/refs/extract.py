# pyright: standard
"""Finding the references in a memory's text: file and folder paths, code symbols (and the names blocks of
code use), commands (package scripts, make, just and Task targets, console scripts, ``python -m``
modules), environment variables, versions and package-manager statements.

Precision matters more than recall here: an agent-memory linter that cries wolf is switched off. So the
extractor skips URLs, globs of one extension, placeholders, "e.g." lists, negative and historical mentions ("never
`console.log`", "the old `lib/types/` was removed", "if `.gitleaks.toml` exists"), output shown in
fenced blocks, ASCII trees, and slash tokens that are not paths. Each reference is *strong* (written the
way one names a file or command of this repository: a path with a folder and an extension, a command in
code) or *weak* (could be prose or something external); the checker reports a weak reference only when
git proves its target existed here and is gone."""

from __future__ import annotations

import posixpath
import re
import shlex
from pathlib import PurePosixPath
from typing import NamedTuple

from ..core.model import Ref
from .manifests import TOOL_PROJECT_FILES
from .versions import LIBRARIES


class Reference(NamedTuple):
    """One thing a memory names. ``line`` is the 0-based line within the entry's text. (A named tuple,
    not a frozen dataclass: as immutable, and four times quicker to make; a cold check makes several an
    entry.)"""

    kind: str  # path | symbol | script | make | just | task | tox | console | extra | group | module | package-manager | version | anchor | crate | glob
    target: str
    text: str
    line: int = 0
    strong: bool = True
    explicit: bool = False
    file: str | None = None  # symbol refs: the file it must be defined in
    runner: str | None = None  # scripts: npm, pnpm, yarn, bun
    alt: str | None = None  # another spelling of the same path (a tree entry without its label)
    scope: str | None = None  # the folder a command runs in (``cd dir &&``, ``make -C dir``, "from `dir/`")
    package: str | None = None  # the workspace package a command targets (``pnpm --filter NAME``)
    near: str | None = None  # symbols: the file the text places it in ("see `x` in `src/a.py`")
    block: int | None = None  # names code in a block uses: the line the block opens on (see ``_code_names``)

    def label(self) -> str:
        if self.kind == "anchor":
            return self.target
        return f"{self.file}:{self.target}" if self.file else self.target


CODE_EXTENSIONS = frozenset(
    "ts tsx mts cts js jsx mjs cjs py pyi go rs java kt kts rb php cs c h cc cpp hpp cxx swift scala ex exs erl hs ml"
    " lua r dart vue svelte astro json jsonc json5 yaml yml toml ini cfg conf xml md mdx mdc rst txt sh bash zsh fish"
    " ps1 bat sql prisma graphql gql proto css scss sass less html htm lock gradle properties tf hcl dockerfile"
    " env example sample tpl jinja j2 ipynb csv tsv".split()
)
KEYWORDS = frozenset(
    "true false null none nil undefined self this super async await return yield import export default from"
    " const let var def class function fn func type interface struct enum impl pub mod use new delete"
    " if else for while in of and or not is as with try catch except finally throw raise break continue"
    " int str float bool string number boolean any void object list dict set map tuple bytes char".split()
)
PNPM_BUILTINS = frozenset(
    "add install i remove rm uninstall update up upgrade exec dlx create init publish pack link unlink outdated"
    " list ls why audit store import fetch patch patch-commit rebuild prune setup env config root bin licenses"
    " deploy doctor approve-builds self-update dedupe run recursive -r --filter -F -w view info show".split()
)
YARN_BUILTINS = frozenset(
    "add install remove upgrade up why workspace workspaces dlx init info config cache link unlink pack publish"
    " set plugin node npm constraints dedupe explain rebuild version run create global outdated audit".split()
)
RUNNERS = ("npm", "pnpm", "yarn", "bun", "npx", "make", "just", "task", "uv", "poetry", "pdm", "hatch", "python", "python3")

_FENCE = re.compile(r"^\s*(```+|~~~+)\s*([\w+-]*)")
#: An address: a URL, or an e-mail (``user@host.tld``; not a package manager's pin, ``pnpm@10.23.0``). An e-mail starts only where a run of the
#: characters around an ``@`` starts, and e-mails that follow one another in one run (``a@b.com,c@d.com``)
#: are one match: the same text as matching each from where the last ended, but a run that holds no
#: e-mail is read once, not once from each of its characters. The local part is possessive (it stops only
#: at the ``@``) and the domain atomic (the longest that ends in ``.tld``, as it was alone), so no run is
#: read twice.
_URL = re.compile(r"\b(?:https?|ftp|file|ssh|git)://[^\s`]+|\bwww\.[^\s`]+"
                  r"|(?<![^\s`@])(?!(?:pnpm|yarn|bun|npm)@\d)(?:[^\s`@]++@(?>[^\s`@]+\.\w+))+")
#: A Markdown link to an address of another site, label and all.
_EXTERNAL_LINK = re.compile(r"\[[^\]\n]{0,300}\]\((?:https?|ftp)://[^)\s]{0,2000}\)")
#: An example given in parentheses, or running to the end of its clause ("such as X, Y"); the second
#: kind alone (see :func:`_without_examples`).
_EG = re.compile(r"\((?:e\.g\.|eg\.|for example|for instance|i\.e\.)[^)]*\)"
                 r"|(?:\b(?:e\.g\.|for example|for instance|such as|like(?=\s+`))|(?<=, )example\b)(?:[^.;\n]|\.(?=\S))*",
                 re.I)
_EG_CLAUSE = re.compile(r"(?:\b(?:e\.g\.|for example|for instance|such as|like(?=\s+`))|(?<=, )example\b)"
                        r"(?:[^.;\n]|\.(?=\S))*", re.I)
_SPAN = re.compile(r"`([^`\n]+)`")
_TREE_LINE = re.compile(r"[├└│┬┼]|^\s*[|`]--|^\s*\+--")
#: A negation ending the text before a reference (searched in the 30 or 40 characters before it). Its
#: words are looked for only where one of their first letters stands (searched for whether it matches,
#: in which the order of the words does not count).
_NEGATED_BEFORE = re.compile(
    r"(?=[nairfoldwue])(?:n't|\b(?:never|not|no|avoid|instead of|rather than|no longer|formerly|old|legacy|deprecated|"
    r"removed|deleted|replaced|without|if|unless|whether|used to|was|except))"
    r"(?:\s+(?:use|using|import|importing|call|calling|pass|passing|run|running|the|a|an|any|in|from|with|edit|edits|touch|add|to|"
    r"write|modify|commit)){0,2}"
    r"[\s,:(]*$",
    re.I,
)
_NEGATED_AFTER = re.compile(
    r"^[`'\")\s]*(?:[\w-]+\s+){0,3}(?:was|were|has been|have been|is|are|got|had been)\s+"
    r"(?:removed|deleted|deprecated|gone|renamed|replaced|dropped|retired|moved)|"
    r"^[`'\")\s]*(?:exists|is present|is missing|if present|no longer)",
    re.I,
)
_PATH_TOKEN = re.compile(r"(?<![\w@/.:~$%{<-])(\.{0,2}/?[\w.\-]+(?:/[\w.\-]+)+/?)")
_IDENT = re.compile(r"^[A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*(?:\(\))?$")
_PM = re.compile(r"\b(?:use|using|uses|prefer|prefers)\s+(npm|pnpm|yarn|bun)\b(?!\s*(?:run|exec|dlx|-))", re.I)
_PM_ONLY = re.compile(r"\b(npm|pnpm|yarn|bun)\s+only\b", re.I)
#: What may stand between a name and the version a memory states: "v20", "~5.4.5", "^18.3", ">= 3.10", "≥18.17.0"
#: (the least version of a range; a greatest, "<21", states none).
_AT_LEAST = r"\s+(?:v|[~^]|>=?\s*|≥\s*)?"
#: "Go 1.24+", and as a label: "**Go Version**: 1.24+", "Node.js: v20.11", "Python version 3.12".
_RUNTIME_VERSION = re.compile(r"\b(Go|Golang|Node(?:\.js|JS)?|Python|Rust)(?:\s+version)?(?:\*\*)?:?" + _AT_LEAST
                              + r"(\d+(?:\.\d+){0,2})(?!\w|\.\d)", re.I)
#: "React 18.3", "Vite 7", "Tailwind CSS v4": a library and the version a memory states (refs/versions.LIBRARIES).
_LIBRARY_VERSION = re.compile(r"\b(React|Vite|TypeScript|Next\.?js|Vue|SvelteKit|Svelte|Angular|Tailwind(?: ?CSS)?|Express|"
                              r"Astro|Nuxt|Vitest|Jest|Electron|Prisma|Zod|Playwright|ESLint|Storybook|Webpack|Remix)"
                              + _AT_LEAST + r"(\d+(?:\.\d+){0,2})(?!\w|\.\d)")
#: A package manager's version: "a pnpm 10.23.0 monorepo", "pnpm@10.23.0", "Yarn 4.5" (two parts at least: "npm 7" is
#: more often a count than a version).
_PM_VERSION = re.compile(r"\b(pnpm|yarn|bun|npm)(?:@|" + _AT_LEAST + r")(\d+\.\d+(?:\.\d+)?)(?!\w|\.\d)", re.I)
#: A code span that is a version alone (`10.23.0`, `v20`): read with the name before it ("pnpm `10.23.0`").
_VERSION_SPAN = re.compile(r"`(v?\d+(?:\.\d+)*)`")
#: A Rust toolchain's version written without the word Rust before it: "toolchain 1.93", "stable 1.97.0".
_RUST_TOOLCHAIN = re.compile(r"\b(?:toolchain|stable)\s+v?(1\.\d+(?:\.\d+)?)(?!\w|\.\d)", re.I)
_RUNTIMES = {"go": "go", "golang": "go", "node": "node", "node.js": "node", "nodejs": "node", "python": "python", "rust": "rust"}


#: A line that starts a block of its own (a heading, a list item, a quote, a table row): it goes on with no
#: sentence of the line above.
_STARTS_BLOCK = re.compile(r"^\s*(?:#|>|\||[-*+]\s|\d+[.)]\s|$)")
#: A line whose text is no sentence the next line may go on with: a heading, a table row, a fence.
_NO_SENTENCE = re.compile(r"^\s*(?:#|\||```|~~~)")


def extract(text: str) -> list[Reference]:
    """Every reference in a memory's text, once a line, in order of appearance."""
    lines = text.split("\n")
    refs: list[Reference] = []
    fence: str | None = None
    lang = ""
    opened_at = 0  # the line the open block starts on
    cwd: str | None = None  # the folder a shell block has changed into (`cd dir`)
    made: set[str] = set()  # what the block's commands created (`mkdir dir`, `git clone URL`)
    # A tree needs box-drawing characters (not ASCII), "--" or "|": most texts have none of them.
    drawn = not text.isascii()
    tabled = False  # a table drew a tree in its first column
    for i, line in enumerate(lines):
        opened = _FENCE.match(line)
        if fence is None and opened:
            fence, lang, cwd, made, opened_at = opened.group(1), opened.group(2).lower(), None, set(), i
            continue
        if fence is not None and line.strip().startswith(fence[:3]):
            fence = None
            continue
        if (drawn or "--" in line or "|" in line) and (_TREE_LINE.search(line) or _SPACER.match(line)):
            row = _TABLE_TREE_ROW.match(line) if fence is None else None
            if row and not _TREE_LINE.search(row.group(2)):
                # a table whose first column draws a tree (fastmcp's "| `├─tools/` | Tool implementations +
                # `ToolManager` |"): the tree is read below, the other cells as any line
                tabled = True
                refs.extend(_prose_line(row.group(2), i))
            continue  # ASCII trees are read whole below: their names hang from the tree's label
        if fence is not None:
            found, cwd = _code_line(line, i, lang, cwd, made, opened_at)
            refs.extend(found)
        else:
            # the sentence a line goes on with ("… Do not add a" / "`tailwind.config.js` that …"), and the one
            # it goes on into ("`src/old.ts`" / "was removed"): a negation reaches over the break
            before = lines[i - 1] if i else ""
            after = lines[i + 1] if i + 1 < len(lines) else ""
            goes_on = before.strip() and not _STARTS_BLOCK.match(line) and not _NO_SENTENCE.match(before)
            goes_into = after.strip() and not _STARTS_BLOCK.match(after) and not _NO_SENTENCE.match(after) \
                and not _NO_SENTENCE.match(line)
            refs.extend(_prose_line(line, i, before[-60:] if goes_on else "", after[:60] if goes_into else ""))
    if drawn or "--" in text:
        refs.extend(_trees(lines))
    if tabled:  # the first column's code spans, row by row, as the lines of a tree
        refs.extend(_trees([m.group(1) if (m := _TABLE_TREE_ROW.match(line)) else "" for line in lines]))
    # once a line, so that every line that holds a reference is marked (a block of five `bazel` commands
    # after Bazel was dropped: five); a name code in a block uses, once a block
    seen: set[tuple[str, str, str | None, str | None, str | None, int]] = set()
    unique = []
    for ref in refs:
        key = (ref.kind, ref.target, ref.file, ref.scope, ref.package, ref.line if ref.block is None else -1 - ref.block)
        if key not in seen:
            seen.add(key)
            unique.append(ref)
    return unique


_BRANCH = re.compile(r"^(?P<prefix>[ \t│|]*)(?:├|└|\||`|\+)(?:──|─|--)+[ \t]*(?P<name>[^\s#]+)")
_SPACER = re.compile(r"^[ \t]*[│|][ \t│|]*$")  # a tree's spacer line: only its vertical rules
#: A table row whose first cell is one code span: that span, and the rest of the row.
_TABLE_TREE_ROW = re.compile(r"^[ \t]*\|[ \t]*`([^`|]*)`[ \t]*(\|.*)$")
_LABEL = re.compile(r"^\s*(?P<label>[\w.\-]+(?:/[\w.\-]+)*/?)\s*(?:#.*)?$")


def _trees(lines: list[str]) -> list[Reference]:
    """Paths drawn as ASCII trees. A tree is rooted at its label (the line above it, ``src/``); when the
    label is the project's own name its entries are relative to the root instead, so each path also
    carries the spelling without the label. An entry's parent is the nearest entry above it drawn
    further left; spacer lines (``│   │``) do not end the tree. Tree entries are weak references:
    reported only when git shows they existed."""
    refs: list[Reference] = []
    i = 0
    while i < len(lines):
        if not _BRANCH.match(lines[i]):
            i += 1
            continue
        above = _LABEL.match(lines[i - 1]) if i > 0 else None
        label = above.group("label").rstrip("/") if above and above.group("label") not in (".", "./") else None
        if label and above and above.group("label").endswith("/"):
            root = _as_path(label + "/")  # the tree's root folder (`.spec/`), weak like its entries
            if root:
                refs.append(Reference("path", root, label + "/", i - 1, strong=False))
        stack: list[tuple[int, str]] = []  # (column of the branch, name) of the entries above
        while i < len(lines) and (_BRANCH.match(lines[i]) or _SPACER.match(lines[i])):
            match = _BRANCH.match(lines[i])
            if match:
                column = len(match.group("prefix").expandtabs(4))
                name = match.group("name")
                while stack and stack[-1][0] >= column:
                    stack.pop()
                inner = "/".join([*(n for _, n in stack), name.rstrip("/")]) + ("/" if name.endswith("/") else "")
                path = _as_path(f"{label}/{inner}" if label else inner)
                if path:
                    refs.append(Reference("path", path, name, i, strong=False,
                                          alt=_as_path(inner) if label else None))
                stack.append((column, name.rstrip("/")))
            i += 1
    return refs


def from_explicit(ref: Ref) -> list[Reference]:
    """A ref written in the entry's ``refs`` (or MIF ``code_refs``): always strong."""
    path = ref.path.strip()
    out = [Reference("path", path, path, explicit=True)]
    if ref.symbol:
        out.append(Reference("symbol", ref.symbol.strip(), ref.symbol, explicit=True, file=path))
    return out


_OUTPUT_LANGS = frozenset({"text", "txt", "output", "log", "plain", "plaintext", "diff", "json", "yaml", "toml", "xml", "html"})
_SESSION_LANGS = frozenset({"console", "shell-session", "sh-session", "terminal"})


def _code_line(line: str, i: int, lang: str, cwd: str | None,
               made: set[str] | None = None, block: int = 0) -> tuple[list[Reference], str | None]:
    """A line inside a fenced block: commands only, and only where the block holds commands. ``cwd``
    is the folder earlier lines of the block changed into; ``made``, what they created."""
    if lang in _OUTPUT_LANGS:
        return [], cwd
    stripped = line.strip()
    if lang in _SESSION_LANGS or stripped.startswith(("$ ", "> ")):
        if not stripped.startswith(("$ ", "> ", "# ")) and lang in _SESSION_LANGS:
            return [], cwd  # output lines of a terminal session
        stripped = stripped[2:]
    if lang == "mermaid":
        return _diagram_paths(line, i), cwd
    if lang in _SOURCE_LANGS:
        return [r._replace(block=block) for r in _code_names(line, i)], cwd
    if lang and lang not in _SHELL_LANGS:
        return [], cwd  # other languages shown as an example
    if stripped.startswith("#"):
        return [], cwd
    start = cwd
    found, cwd = _shell(stripped, i, cwd, made)
    other = _ALTERNATIVE.search(stripped) if "#" in stripped else None
    if other and other.group("command").split()[0] in _COMMAND_STARTERS:
        # `make build   # or: bazel build //...`: a comment that gives another command for the same job
        found += _shell(other.group("command"), i, start, made)[0]
    if lang in _SCRIPT_LANGS:
        known = {r.target for r in found if r.kind == "symbol"}
        found += [r._replace(block=block) for r in _script_names(stripped, i) if r.target not in known]
    return found, cwd


#: A shell comment that gives another command for the same job: ``make test  # or: bazel test //...``.
_ALTERNATIVE = re.compile(r"(?:^|\s)#\s*(?:or|alternatively)(?:\s*[:,]\s*|\s+)(?P<command>[\w./-][^#]*)$", re.I)
#: The languages of source code shown in a block, whose names a memory may hold after the code dropped them.
_SOURCE_LANGS = frozenset({"ts", "tsx", "typescript", "js", "jsx", "javascript", "mjs", "py", "python", "go", "golang",
                           "rust", "rs", "java", "kotlin", "kt", "swift", "ruby", "rb", "php", "cs", "csharp"})
#: A name of more than one word in code: camelCase, snake_case, PascalCase of two humps or more.
_COMPOUND_NAME = re.compile(r"(?<![\w$])(?:[a-z][a-z0-9]*(?:[A-Z][a-z0-9]+)+|[a-z][a-z0-9]*(?:_[a-z0-9]+)+"
                            r"|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+)(?![\w$])")
#: A name the block declares itself (an example's own function, class or variable), not one of the project's.
_DECLARED = re.compile(r"\b(?:def|function|class|interface|type|struct|enum|fn|func|const|let|var|val)\s+\*?([A-Za-z_$][\w$]*)")
#: What a line of code says that is not code: a string literal, a comment to the end of the line.
_NOT_CODE = re.compile(r"\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'|`[^`\n]*`|(?:#|//).*$")


#: A variable read from the environment in code: ``process.env.X``, ``os.Getenv("X")``, ``os.environ["X"]``.
_ENV_READ = re.compile(r"(?:\benv\.|(?:getenv|Getenv|LookupEnv|environ(?:\.get)?|env::var|getEnv)\s*[(\[]\s*[\"'])"
                       r"([A-Z][A-Z0-9_]{2,})\b")


#: Blocks of a shell script (not a session typed at a prompt): their variables and functions are a script's.
_SCRIPT_LANGS = frozenset({"sh", "bash", "shell", "zsh"})
#: A variable of more than one word a script expands (``"$WINDSURF_FILE"``, ``${AGENT_TYPE}``), one it sets
#: (``ALL_AGENTS=(claude gemini)``), a function of more than one word it calls (``update_agent_file "$F"``).
_SCRIPT_NAME = re.compile(r"\$\{?([A-Za-z][A-Za-z0-9]*_\w+)|^([A-Za-z][A-Za-z0-9]*_\w*)\+?=|(?:^|[;&|]\s*|\)\s+)"
                          r"([a-z][a-z0-9]*(?:_[a-z0-9]+)+)(?=\s|$)")


def _script_names(line: str, i: int) -> list[Reference]:
    """The names a line of a shell script in a block uses (see ``_SCRIPT_NAME``): weak references, judged
    as code names are (stale only where the project's scripts defined one then and nothing names it now),
    except variables tools read on their own (``$GITHUB_TOKEN``)."""
    out: dict[str, Reference] = {}
    for match in _SCRIPT_NAME.finditer(line):
        name = match.group(1) or match.group(2) or match.group(3)
        if name not in out and not READ_BY_TOOLS.search(name) and name.lower() not in KEYWORDS:
            out[name] = Reference("symbol", name, name, i, strong=False)
    return list(out.values())


def _code_names(line: str, i: int) -> list[Reference]:
    """The project's names a line of source code in a block uses (``const { layout, toggleSortOrder } =
    useView();``, ``@hl.require_approval()``): names of more than one word, outside strings and comments,
    that the line does not declare. Weak references: stale only where the code defined the name when
    the memory was written and mentions it nowhere now, beside another name of the block (see
    ``checks._anchored``)."""
    env = [Reference("symbol", m.group(1), m.group(1), i, strong=False) for m in _ENV_READ.finditer(line)]
    code = _NOT_CODE.sub(" ", line)
    if not _COMPOUND_NAME.search(code):
        return env
    declared = set(_DECLARED.findall(code))
    names = dict.fromkeys(m.group(0) for m in _COMPOUND_NAME.finditer(code))
    return env + [Reference("symbol", name, name, i, strong=False) for name in names
                  if name not in declared and len(name) >= 6 and name.lower() not in KEYWORDS]


def _diagram_paths(line: str, i: int) -> list[Reference]:
    """The files a Mermaid diagram's labels name (``A[Extension entry<br/>src/extension.ts]``): paths
    with a folder and a code extension only (the rest of a diagram is its own syntax)."""
    out = []
    for match in _PATH_TOKEN.finditer(line.replace("<br/>", " ").replace("<br>", " ")):
        path = _as_path(match.group(1))
        if path and "/" in path.rstrip("/") and _has_code_extension(path):
            out.append(Reference("path", path, match.group(1), i, strong=True))
    return out


_SHELL_LANGS = frozenset({"sh", "bash", "shell", "zsh", "fish", "console", "shell-session", "sh-session", "terminal",
                          "cmd", "powershell", "ps1", "make", "makefile"})
#: A folder named in prose ("inside the src folder", "the webview-ui directory"): a weak reference, so
#: judged only where history shows that folder existed when the memory was written and is gone now.
_NAMED_FOLDER = re.compile(r"\bthe ([A-Za-z0-9][\w.-]*[A-Za-z0-9]) (?:folder|directory)\b")
#: A folder named after "inside the" with a name no English word has ("Anything inside the webview-ui"):
#: joined by hyphens or underscores, lower case; weak, like "the src folder".
_INSIDE_THE = re.compile(r"\b(?:in|inside|within|under) the ([a-z][a-z0-9]*(?:[-_][a-z0-9]+)+)\b(?![-/\w]|\.\w)")
_FOLDER_AFTER = re.compile(r"\s+(?:folder|directory)\b")
_FOLDER_NAME = re.compile(r"^[A-Za-z0-9][\w.-]*$")
#: Words "the ... folder" says that name no folder of the project.
_NOT_FOLDER_NAMES = frozenset(
    "same current parent root project repo repository following whole entire new old main top base home working "
    "temp temporary right wrong correct appropriate relevant respective specified given target destination output "
    "source user workspace installation install config configuration cache data shared package packages".split())
_SCOPE_WORD = re.compile(r"\b(?:from|in|inside|within|under)\s+(?:the\s+)?$", re.I)


def _mentions(low: str | None, *words: str) -> bool:
    """Whether a case-insensitive pattern that needs one of ``words`` can match: ``low`` is the line in
    lower case when it is ASCII (``None`` otherwise: Unicode case folding is the pattern's to judge)."""
    return low is None or any(w in low for w in words)


#: A Markdown link to a heading: ``[text](docs/dev.md#setup)``, ``[text](#setup)``.
_ANCHOR_LINK = re.compile(r"\]\((?P<file>[^()\s#<>]*)#(?P<anchor>[^()\s#]+)(?:\s+\"[^\"]*\")?\)")
_MARKDOWN_FILE = re.compile(r"\.(?:md|mdx|mdc|markdown)$", re.IGNORECASE)


#: A file named to an agent: an import or mention ``@docs/api.md`` (Claude Code, Gemini CLI, Cursor), a
#: Cursor rule link ``[x](mdc:src/a.ts)``, a Kiro reference ``#[[file:src/a.ts]]``. The ``@`` form needs an
#: extension (``@types/node``, ``@user`` are not files) and stands at the start or after a space or bracket.
_AGENT_FILE = re.compile(r"(?:(?<![^\s(\[{\"'])@(?P<at>(?:\.{1,2}/)?[\w][\w.\-/]*\.[A-Za-z][A-Za-z0-9]{0,9})(?![\w/@])"
                         r"|\(mdc:(?P<mdc>[^)\s]+)\)|#\[\[file:(?P<kiro>[^\]\s]+)\]\])")


def _agent_files(line: str, i: int) -> list[Reference]:
    refs: list[Reference] = []
    for match in _AGENT_FILE.finditer(line):
        token = match.group("at") or match.group("mdc") or match.group("kiro")
        path = _as_path(token.rstrip(".,;:"))
        if path:
            refs.append(Reference("path", path, match.group(0), i, strong=True))
    return refs


def _anchor_links(line: str, i: int) -> list[Reference]:
    """Links to a heading of this Markdown file or another (``target`` is ``FILE#anchor``, ``file`` the file
    as written, ``None`` for this file). A link to another site, or to a file that is not Markdown, is not one."""
    refs: list[Reference] = []
    for match in _ANCHOR_LINK.finditer(line):
        file = match.group("file")
        if file and (":" in file or not _MARKDOWN_FILE.search(file)):
            continue
        refs.append(Reference("anchor", f"{file}#{match.group('anchor')}", match.group(0), i, file=file or None))
    return refs


def _prose_line(line: str, i: int, above: str = "", below: str = "") -> list[Reference]:
    # Each pattern below needs a word or character the line may not hold; looking for it first spares
    # most lines most of the patterns (a cold check extracts every memory's text).
    low = line.lower() if line.isascii() else None
    clean = line
    if "](" in line and "://" in line:
        # a link to another site names what is there: its label too ("[`docs/drive/`](https://github.com/
        # prisma/ignite/tree/main/docs/drive)" is another repository's folder)
        clean = _EXTERNAL_LINK.sub(lambda m: " " * len(m.group(0)), clean)
    clean = _URL.sub(lambda m: " " * len(m.group(0)), clean) if "://" in clean or "www." in clean or "@" in clean else clean
    examples = ""
    if _mentions(low, "e.g.", "eg.", "i.e.", "for ", "such as", ", example", "like `"):
        without = _without_examples(clean)
        if without != clean:  # the examples alone, in place
            examples = "".join(c if w == " " else " " for c, w in zip(clean, without, strict=True))
        clean = without
    refs: list[Reference] = _anchor_links(line, i) if "](" in line and "#" in line else []
    if "@" in line or "mdc:" in line or "[[file:" in line:
        refs.extend(_agent_files(line, i))
    refs.extend(_prose_text(clean, low, i, above, below))
    if examples.strip():
        # What an example names may be made up ("e.g. `src/components/Button.tsx`"): weak, so that it is
        # reported only where history shows it existed when the memory was written and is gone now.
        known = {(r.kind, r.target) for r in refs}
        refs.extend(r._replace(strong=False) for r in _prose_text(examples, low, i, above, below) if (r.kind, r.target) not in known)
    return refs


def _prose_text(clean: str, low: str | None, i: int, above: str = "", below: str = "") -> list[Reference]:
    """The references of a prose line's text ``clean`` (links, URLs and, where asked, examples blanked
    out); ``low``: the whole line in lower case, where it is ASCII (words looked for first); ``above``: the
    line before, where this one goes on with its sentence; ``below``: the line after, where it goes on
    into it."""
    refs: list[Reference] = []
    scopes: list[str] = []
    lead = _BOLD_FOLDER.match(clean) if "**" in clean else None
    if lead and lead.group(1).lower() not in _ANY_FOLDERS:
        # "- **integration_tests/** - Integration test suite": a list of the project's folders
        refs.append(Reference("path", lead.group(1), lead.group(1), i, strong=True))
    for match in _SPAN.finditer(clean) if "`" in clean else ():
        if _negated(clean, match.start(), match.end(), above, below):
            continue
        span = match.group(1).strip()
        if _BRANCH_PREFIX.fullmatch(span) and _about_branches(clean, match.start(), match.end()):
            continue  # "Always use `claude/` for agent work" under "**Branch Prefix**": a branch's name
        found = _span(span, i)
        if len(found) == 1 and found[0].kind == "symbol" and not found[0].strong \
                and _FOLDER_AFTER.match(clean, match.end()) and _FOLDER_NAME.match(span):
            found = [Reference("path", span + "/", span, i, strong=False)]  # "the `scripts` folder"
        placed = _PLACED_IN.match(clean, match.end())
        if placed and found and found[0].kind == "symbol":
            where = _as_path(placed.group(1))
            found = [found[0]._replace(near=where)] if where else found
        refs.extend(found)
        if len(found) == 1 and found[0].kind == "path" and not _has_code_extension(found[0].target) \
                and _ends_with(_SCOPE_WORD, clean, match.start(), words=2):
            scopes.append(found[0].target.rstrip("/"))
    plain = _SPAN.sub(lambda m: " " * len(m.group(0)), clean) if "`" in clean else clean
    for match in _NAMED_FOLDER.finditer(plain) if _mentions(low, "folder", "director") else ():
        name = match.group(1)
        if name.lower() not in _NOT_FOLDER_NAMES and not _negated(plain, match.start(), match.end(), above, below):
            refs.append(Reference("path", name + "/", name, i, strong=False))  # "the src folder"
    for match in _INSIDE_THE.finditer(plain) if _mentions(low, "the ") else ():
        name = match.group(1)
        if not _negated(plain, match.start(), match.end(), above, below) and not any(r.target == name + "/" for r in refs):
            refs.append(Reference("path", name + "/", name, i, strong=False))  # "anything inside the webview-ui"
    if "npm" in plain or "yarn" in plain or "run" in plain or "python" in plain:
        refs.extend(_prose_commands(plain, i))
    for match in _PATH_TOKEN.finditer(plain) if "/" in plain else ():
        token = match.group(1).rstrip(".,;:)")
        if _negated(plain, match.start(), match.end(), above, below) or plain[max(0, match.start(1) - 2) : match.start(1)] == "\\*":
            continue  # (`services/\*_/_.server.ts`: a glob whose stars were escaped for Markdown)
        path = _as_path(token)
        if path and _NAMED_STACK.fullmatch(path):
            continue  # "the main TypeScript/Vue.js application", "React/Next.js best practices"
        if path:
            strong = _has_code_extension(path) and "/" in path.rstrip("/")
            refs.append(Reference("path", path, token, i, strong=strong))
            if not _has_code_extension(path) and _ends_with(_SCOPE_WORD, plain, match.start(), words=2):
                scopes.append(path.rstrip("/"))
    for match in list(_PM.finditer(plain)) + list(_PM_ONLY.finditer(plain)) if _mentions(low, "npm", "yarn", "bun") else ():
        if not _NEGATED_BEFORE.search(plain[max(0, match.start() - 30) : match.start()]) \
                and not _ends_with(_NEGATED_END, plain, match.start(), words=1):
            refs.append(Reference("package-manager", match.group(1).lower(), match.group(0), i))
    # versions are read where a code span holds a version alone too ("Node.js `20.11.1`")
    versions = plain if "`" not in clean or not _DIGIT.search(clean) else _SPAN.sub(
        lambda m: f" {m.group(1)} " if _VERSION_SPAN.fullmatch(m.group(0)) else " " * len(m.group(0)), clean)
    for match in _RUNTIME_VERSION.finditer(versions) if _mentions(low, "go", "node", "python", "rust") else ():
        tool, version = _RUNTIMES[match.group(1).lower()], match.group(2)
        if ("." in version or tool == "node") and not _negated(versions, match.start(), match.end(), above, below):
            refs.append(Reference("version", f"{tool}@{version}", match.group(0), i, strong=False))
    for match in _RUST_TOOLCHAIN.finditer(versions) if _mentions(low, "rust", "cargo") else ():
        # "Rust 2024 edition, toolchain 1.93", "the project builds on stable 1.97.0" (of a line about Rust)
        if not _negated(versions, match.start(), match.end(), above, below):
            refs.append(Reference("version", f"rust@{match.group(1)}", match.group(0), i, strong=False))
    for match in _PM_VERSION.finditer(versions) if _mentions(low, "npm", "yarn", "bun") else ():
        if not _negated(versions, match.start(), match.end(), above, below):
            refs.append(Reference("version", f"{match.group(1).lower()}@{match.group(2)}", match.group(0), i, strong=False))
    for match in _LIBRARY_VERSION.finditer(versions) if _DIGIT.search(versions) else ():
        package = LIBRARIES.get(match.group(1).lower())
        if package and not _negated(versions, match.start(), match.end(), above, below):
            refs.append(Reference("version", f"npm:{package}@{match.group(2)}", match.group(0), i, strong=False))
    if len(set(scopes)) == 1:
        # "run `npm test` from `clients/web/`": the commands of the sentence run in that folder.
        scope = scopes[0]
        refs = [r._replace(scope=scope) if r.kind in _COMMAND_KINDS and r.scope is None and r.package is None else r
                for r in refs]
    return refs


_DIGIT = re.compile(r"\d")
_COMMAND_KINDS = frozenset({"script", "make", "just", "task", "console", "tox"})
#: What follows a code span that places it in a file ("`x` (the helper) is defined in `src/a.py`"), matched
#: where the span ends. An aside in parentheses is read up to 200 characters: read whole, a "(" without
#: its ")" would be read to the line's end after every span.
_PLACED_IN = re.compile(r"\s*+(?:\([^)]{0,200}\)\s*+)?(?:is\s+|are\s+|lives\s+|defined\s+)?(?:in|from|inside|of)"
                        r"\s+`([^`\s]+)`")
#: The longest word :func:`_ends_with` is given a pattern for ("inside", "within", "never").
_LONGEST_WORD = 6


def _ends_with(pattern: re.Pattern[str], text: str, end: int, words: int) -> bool:
    """Whether ``pattern``, anchored with ``$``, matches a tail of ``text[:end]``, the tail being at most
    ``words`` words of :data:`_LONGEST_WORD` characters, each with the whitespace after it. Only that tail
    is searched (whitespace is skipped from the end, then a word, ``words`` times), so a line with many
    matches is not searched whole before each."""
    start = end
    for _ in range(words):
        while start > 0 and text[start - 1].isspace():
            start -= 1
        stop = max(0, start - _LONGEST_WORD)
        while start > stop and not text[start - 1].isspace():
            start -= 1
    return pattern.search(text, start, end) is not None


def _without_examples(text: str) -> str:
    """``text`` with the examples :data:`_EG` finds blanked out, in linear time. A parenthesised example
    needs a ")", so it is looked for only in the text up to the last one (each "(e.g." after it would
    be read to the end, in vain); an example of the other kind found there is matched again in the whole
    text, where it may run on past that ")"."""
    close = text.rfind(")") + 1
    out: list[str] = []
    pos = 0
    while True:
        match = _EG.search(text, pos, close) if pos < close else None
        if match is None or not match.group(0).startswith("("):
            match = _EG_CLAUSE.match(text, match.start()) if match else _EG_CLAUSE.search(text, max(pos, close))
        if match is None:
            break
        out += [text[pos : match.start()], " " * len(match.group(0))]
        pos = match.end()  # (never empty: each kind starts with its words)
    out.append(text[pos:])
    return "".join(out)


#: A code span that may name a branch prefix rather than a folder: one name and a slash (`claude/`).
_BRANCH_PREFIX = re.compile(r"[\w.-]+/")
_BRANCH_WORD = re.compile(r"\bbranch(?:es)?\b", re.I)
#: Technologies named with a slash in prose, the last a library written "Name.js": `TypeScript/Vue.js`.
_NAMED_STACK = re.compile(r"(?:[A-Z][\w+#-]*/)+[A-Z][A-Za-z0-9]*\.js")


def _about_branches(text: str, start: int, end: int) -> bool:
    """Whether a span at ``text[start:end]`` is a branch's name or prefix: the word "branch" right
    after it ("`cursor/` branch") or in the label that starts its line ("**Branch Prefix**: use ...")."""
    if _BRANCH_WORD.match(text, end + 1) or _BRANCH_WORD.match(text, end + 2):
        return True
    label = re.match(r"\s*(?:[-*+]\s+|\d+\.\s+)?\*\*([^*]{1,40})\*\*", text)
    return bool(label and label.end() <= start and _BRANCH_WORD.search(label.group(1)))


def _negated(text: str, start: int, end: int, above: str = "", below: str = "") -> bool:
    """Whether the reference at ``text[start:end]`` is said not to be used, or to be gone; ``above`` and
    ``below``: the lines around, where the reference's line goes on with their sentence (formbricks' "… Do
    not add a" / "`tailwind.config.js` that nothing `@config`s")."""
    before, after = text[max(0, start - 40) : start], text[end : end + 40]
    if above and start < 40:
        before = (above + " " + before)[-40:]
    if below and len(text) - end < 40:
        after = (after + " " + below)[:40]
    return bool(_NEGATED_BEFORE.search(before) or _NEGATED_AFTER.search(after))


_COMMAND_STARTERS = frozenset(RUNNERS) | {"cd", "go", "cargo", "git", "pytest", "node", "deno", "tsx", "bash", "sh", "bunx",
                                           "uvx", "ruff", "mypy", "docker", "gradle", "mvn", "tox"} | set(TOOL_PROJECT_FILES)
_CALL = re.compile(r"^([A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*)\((?:[^()]|\([^()]*\))*\)$")


#: An npm package of a scope (``@formbricks/eslint-config``): a package of the workspace, where a package.json
#: of it names that scope (judged in the check), else another project's.
_SCOPED_PACKAGE = re.compile(r"@[a-z0-9][a-z0-9._-]*/[a-z0-9][a-z0-9._-]*")
_FILE_LIKE = re.compile(r"\.(?:md|mdc|txt|json|ya?ml|toml|[cm]?[jt]sx?|py)$")  # `@docs/api.md`: a file named to an agent


def _span(span: str, i: int) -> list[Reference]:
    words = span.split()
    first = words[0] if words else ""
    if first.startswith("@") and _SCOPED_PACKAGE.fullmatch(span) and not _FILE_LIKE.search(span):
        return [Reference("npm-package", span, span, i, strong=False)]
    if ("*" in span or "?" in span) and " " not in span:
        glob = _glob(span)
        return [Reference("glob", glob, span, i, strong=True)] if glob else []
    if first in _COMMAND_STARTERS or first.startswith("./"):
        if first.startswith("./") and " " not in span:
            path = _as_path(span)
            return [Reference("path", path, span, i, strong=True)] if path else []
        return _shell(span, i, None)[0]
    if span.startswith("@") and (_IDENT.match(span[1:]) or _CALL.match(span[1:])):
        span = span[1:]  # a decorator, `@hl.require_approval()`, names its function
    call = _CALL.match(span) if "(" in span else None
    if call and not _IDENT.match(span):
        span = call.group(1) + "()"  # `withRetry(fn, 3)`: the function is the reference
    if " " in span:
        assigned = _ASSIGNED.match(span)  # `GENERATE_EXPLANATION = 29`: an enum member, a constant
        if assigned and _IDENT.match(name := assigned.group(1)) and ("_" in name or _CAMEL.search(name)) \
                and name.lower() not in KEYWORDS:
            return [Reference("symbol", name.replace("::", "."), span, i, strong=True)]
        return []
    path = _as_path(span)
    if path:
        # A folder-qualified name with an extension, or a folder: strong. A bare file name: weak.
        strong = ("/" in path.rstrip("/") and (_has_code_extension(path) or path.endswith("/"))) or path.endswith("/")
        return [Reference("path", path, span, i, strong=strong)]
    if _IDENT.match(span):
        name = span.removesuffix("()").replace("::", ".").replace("#", ".")
        if name.lower() in KEYWORDS or len(name) < 3 or name.isdigit():
            return []
        # Dotted names, calls and multi-word identifiers look like code; a plain word could be prose.
        strong = "." in name or span.endswith("()") or "_" in name or bool(_CAMEL.search(name))
        return [Reference("symbol", name, span, i, strong=strong)]
    return []


#: A name given a value in code (`MAX_RETRIES = 3`, `GENERATE_EXPLANATION = 29`), not a comparison.
_ASSIGNED = re.compile(r"^([A-Za-z_][\w:]*)\s*=\s*(?:\d+|\"[^\"]*\"|'[^']*'|[A-Za-z_][\w.]*)[,;]?$")

#: Words for folders in general, not a folder's name ("- **subdirectories/** - Domain-specific API code").
_ANY_FOLDERS = frozenset("subdirectories/ subdirs/ subfolders/ directories/ folders/ dirs/ others/ other/ misc/".split())
#: A list item led by one folder's name in bold ("- **lib/** - SDK for embedding nuclei"); folders of
#: more parts are paths wherever they stand.
_BOLD_FOLDER = re.compile(r"^\s*(?:(?:[-*+]|\d+\.)\s+)?\*\*([A-Za-z_][\w.-]*/)\*\*(?!\w)")

_GLOB = re.compile(r"(?:\./)?[\w.\-]+(?:/[\w.\-*?{},]+)+")


def _glob(span: str) -> str | None:
    """A glob naming files of this repository: folders, then a wildcard (``browser_use/agent/system_prompt*.md``,
    ``src/**/*.test.ts``); not a bare ``*.ts`` (any project has those), nor a URL or an absolute path."""
    if "/" not in span:
        return _name_glob(span)
    if not _GLOB.fullmatch(span) or "**" == span.split("/", 1)[0]:
        return None
    head = re.split(r"[*?{]", span, maxsplit=1)[0]
    if "/" not in head or any(part in ("..", "") for part in head.rstrip("/").split("/")):
        return None
    return span.removeprefix("./")


_NAME_GLOB = re.compile(r"[\w.\-*?]+\.(\w+)")


def _name_glob(span: str) -> str | None:
    """A glob of file names, read at any depth as a glob without a folder is (``*_test.py`` ->
    ``**/*_test.py``), when it says more than an extension: ``*_test.py``, ``*.test.ts``, ``test_*.py``;
    not ``*.py`` (a language, not this project's files)."""
    match = _NAME_GLOB.fullmatch(span)
    if not match or match.group(1).lower() not in CODE_EXTENSIONS or span.startswith("."):
        return None
    literal = re.sub(r"[*?.]", "", span.rsplit(".", 1)[0])
    return f"**/{span}" if len(literal) >= 3 else None


def _as_path(token: str) -> str | None:
    """The workspace-relative path a token names, or None when it is not a path of this repository
    (URL, glob, placeholder, absolute, home, npm scope, route, version, JSON-RPC method...)."""
    if "/" not in token and "." not in token:
        return None  # (neither a folder nor a file name with an extension or a leading dot)
    token = token.strip().strip("'\"")
    if not token or _NOT_IN_PATH.search(token) or "..." in token or token.startswith(("@", "~", "/", "-", "#")):
        return None
    if _PLACEHOLDER.search(token) or _PLACEHOLDER_NAME.search(token):
        return None
    token = token.removeprefix("./")
    parts = [p for p in token.rstrip("/").split("/") if p]
    if not parts or any(p == ".." for p in parts):
        return None
    if all(_VERSION_PART.fullmatch(p) for p in parts):
        return None  # versions, dates, fractions
    if "/" in token:
        return token
    if "." in token.strip(".") or token.startswith("."):
        ext = token.rsplit(".", 1)[-1].lower()
        if token.startswith(".") and token.count(".") == 1:
            # A dotfile (.gitignore, .nvmrc), but not an extension (.js) nor .env-style runtime files.
            return None if ext in CODE_EXTENSIONS else token
        if ext in CODE_EXTENSIONS and not _JS_PRODUCT.fullmatch(token):  # Node.js, Next.js
            return token
    return None


def _has_code_extension(path: str) -> bool:
    name = path.rstrip("/").rsplit("/", 1)[-1]
    return "." in name and name.rsplit(".", 1)[-1].lower() in CODE_EXTENSIONS


_SCRIPT = r"([\w][\w:.\-/@]*)"
#: A name that stands for any name: ``<script>``, ``{name}``, ``[task]``, ``...``, ``X``, ``NAME``.
_ANY_NAME = re.compile(r"<[^<>]*>|\{[^{}]*\}|\[[^\[\]]*\]|\.\.\.|…|[A-Z]|NAME|SCRIPT|TASK|TARGET|COMMAND|CMD")
# (compiled once: these run on every line of every memory)
#: A name that stands for others inside a name (`build:<directory_name>`, `watch:*`) or a whole name in
#: capitals joined by underscores (`cargo test -p CRATE_NAME`).
_ANY_NAME_IN = re.compile(r"<[^<>]*>|\{[^{}]*\}|\*|^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")


def _any_name(name: str) -> bool:
    """Whether a script, target or package name stands for any name rather than one (:data:`_ANY_NAME`)."""
    return bool(_ANY_NAME.fullmatch(name) or _ANY_NAME_IN.search(name))


_NEGATED_END = re.compile(r"\b(never|not|don't|no)\s*$", re.I)
_CAMEL = re.compile(r"[a-z][A-Z]")
_NOT_IN_PATH = re.compile(r"[*?\[\]{}<>$%|\\=,;:]")  # globs, placeholders, variables, lists, URLs
_PLACEHOLDER = re.compile(r"\bpath/to\b|\byour[-_]|\bfoo\b|\bbar\b|\bexample\.com\b|\bxxx\b", re.I)
#: A name made up to be replaced (case counts): `my_script.py`, `myagent.py`, `test_action_EventNameHere.py`.
_PLACEHOLDER_NAME = re.compile(r"(?:^|/)(?:my[-_][a-z]|my(?:agent|app|project|module|script|package|service)\b)|[a-z]Here\b")
_VERSION_PART = re.compile(r"v?\d+(\.\d+)*")
_JS_PRODUCT = re.compile(r"[A-Z][A-Za-z]*\.js")
_RUN_SCRIPT = re.compile(rf"\b(npm|pnpm|yarn|bun)\s+run\s+{_SCRIPT}")
_NPM_LIFECYCLE = re.compile(r"\bnpm\s+(test|start|stop|restart)\b")
#: (one space or tab after the runner: a wider gap is a code span blanked out, "pnpm `10.23.0` and Node")
_PM_SHORTHAND = re.compile(rf"\b(pnpm|yarn)[ \t](?!run\b){_SCRIPT}")
#: ``uv run X``, ``hatch run test:unit`` (a Hatch environment's script) in running text.
_PY_RUN = re.compile(r"\b(uv|poetry|pdm|hatch)\s+run\s+([\w./\-]+(?::[\w.\-]+)*)")
_PY_MODULE = re.compile(r"\bpython3?\s+-m\s+([A-Za-z_][\w.]*)")


def _prose_commands(text: str, i: int) -> list[Reference]:
    """Commands written in running text without backticks ("then npm run build"): scripts only, and
    ``pnpm X`` / ``yarn X`` weak unless the name looks like a script (``test:e2e``)."""
    refs: list[Reference] = []
    for m in _RUN_SCRIPT.finditer(text):
        if not _any_name(m.group(2).rstrip(".:")):
            refs.append(Reference("script", m.group(2).rstrip(".:"), m.group(0), i, runner=m.group(1)))
    for m in _NPM_LIFECYCLE.finditer(text):
        refs.append(Reference("script", m.group(1), m.group(0), i, runner="npm"))
    for m in _PM_SHORTHAND.finditer(text):
        name = m.group(2).rstrip(".:")
        builtins = PNPM_BUILTINS if m.group(1) == "pnpm" else YARN_BUILTINS
        if name in builtins or name.startswith("-") or _any_name(name) or _VERSION_PART.fullmatch(name):
            continue  # ("a pnpm 10.23.0 monorepo": the version of pnpm, not a script)
        strong = ":" in name or "-" in name
        refs.append(Reference("script", name, m.group(0), i, strong=strong, runner=m.group(1)))
    for m in _PY_RUN.finditer(text):
        target = m.group(2).rstrip(".")
        if not (target.endswith(".py") or "/" in target) and target not in ("python", "python3"):
            refs.append(Reference("console", target, m.group(0), i, strong=False, runner=m.group(1)))
    for m in _PY_MODULE.finditer(text):
        refs.append(Reference("module", m.group(1), m.group(0), i))
    return refs


#: A separator of shell commands with the whitespace around it. The whitespace before it is read only
#: from where it starts, and possessively: a run of whitespace is read once, not once from each of its
#: characters (from any of them the outcome is the same).
_SEGMENTS = re.compile(r"(?:(?<!\s)\s++)?(?:&&|\|\||;|(?<![|])\|(?![|]))\s*")
_ENV_ASSIGN = re.compile(r"^[A-Za-z_]\w*=")
_ENV_SET = re.compile(r"[A-Z][A-Z0-9_]{2,}")
#: Environment variables libraries and tools read on their own: a project that stopped naming one in its code
#: may still depend on it (an SDK reads ``OPENAI_API_KEY`` itself; `gh` reads ``GITHUB_TOKEN``).
READ_BY_TOOLS = re.compile(r"(?:_API_KEY|_TOKEN|_SECRET|_KEY)$|^(?:PATH|HOME|USER|PWD|SHELL|CI|DEBUG|NODE_ENV|NODE_OPTIONS|"
                           r"DATABASE_URL|LOG_LEVEL|RUST_LOG|RUST_BACKTRACE|GOFLAGS|GOPATH|GOOS|GOARCH|PYTHONPATH|"
                           r"VIRTUAL_ENV|TZ|LANG|TERM|EDITOR|(?:AWS|AZURE|GOOGLE|GCP|GITHUB|OTEL|HTTP|HTTPS|NO|XDG|LC|NPM|"
                           r"CARGO|RUSTUP|UV|PIP|PYTHON)_\w+)$")
_PREFIXES = frozenset({"sudo", "time", "exec", "env", "command", "nohup"})
#: Commands whose arguments are not paths of this repository (messages, URLs, images, packages).
_NO_PATH_ARGS = frozenset({"git", "echo", "printf", "curl", "wget", "export", "gh", "open", "brew", "apt", "apt-get",
                           "pip", "pip3", "npx", "bunx", "uvx", "docker", "podman", "kubectl", "helm", "cargo", "rustup",
                           "npm", "pnpm", "yarn", "bun", "ssh", "scp", "set", "alias", "source", ".", "gcloud", "aws",
                           "az", "terraform", "go"})
_FLAG_VALUES = {  # flags that take a value, per command (so that the value is not read as a name)
    "make": {"-C", "--directory", "-f", "--file", "--makefile", "-j", "--jobs", "-l", "-o", "-W", "-I"},
    "just": {"-f", "--justfile", "-d", "--working-directory", "--set", "--shell", "--dotenv-filename", "--dotenv-path"},
    "npm": {"--prefix", "-w", "--workspace"},
    "pnpm": {"--filter", "-F", "-C", "--dir", "--workspace-concurrency", "--reporter", "--filter-prod"},
    "yarn": {"--cwd"},
    "bun": {"--cwd", "--filter"},
    "uv": {"--with", "--package", "--directory", "--project", "--extra", "--group", "--python", "-p", "--env-file",
           "--with-requirements", "--index", "--only-group"},
    "poetry": {"-C", "--directory", "-P", "--project"},
    "pdm": {"-p", "--project"},
    "hatch": {"-e", "--env"},
    "uvx": {"--from", "--with", "-p", "--python", "--with-requirements", "--with-editable", "--index", "--env-file"},
    "python": {"-W", "-X", "-c"},
    "task": {"-d", "--dir", "-t", "--taskfile", "-o", "--output", "-C", "--concurrency", "-I", "--interval"},
    "docker-build": {"-f", "--file", "-t", "--tag", "--target", "--build-arg", "--platform", "--label", "--network",
                     "--secret", "--ssh", "--cache-from", "--cache-to", "--progress", "-o", "--output",
                     "--build-context", "--iidfile", "--shm-size", "--ulimit", "--add-host", "-m", "--memory"},
    "docker-compose": {"-f", "--file", "-p", "--project-name", "--profile", "--env-file", "--project-directory",
                       "--ansi", "--parallel", "--progress"},
}


def _tokens(segment: str) -> list[str]:
    try:
        return shlex.split(segment, posix=True)
    except ValueError:
        return segment.split()


def _join(cwd: str | None, path: str) -> str:
    return str(PurePosixPath(cwd) / path) if cwd else path


#: The folder of commands run after a `cd` to a folder the text does not name: none of them is judged.
ELSEWHERE = "\x00elsewhere"
#: A folder written as a placeholder: `packages/<name>`, `apps/{app}`, `examples/[example]`, `path/to/x`.
_PLACEHOLDER_FOLDER = re.compile(r"[<>{}\[\]*]|\.\.\.|…|\bpath/to\b|\byour[-_]", re.I)


def _shell(text: str, i: int, cwd: str | None, made: set[str] | None = None) -> tuple[list[Reference], str | None]:
    """Commands in a shell line (or a backticked command): each ``&&``/``;``/``|`` segment is parsed
    into its command, flags and arguments. ``cd DIR`` moves ``cwd`` for the segments and lines that
    follow; ``make -C DIR``, ``pnpm --filter PKG``, ``npm --prefix DIR`` scope their own command.
    ``made``: the paths earlier commands of the block create (added to here); what is in them is not
    a reference to the repository (`mkdir test-tsp && cd test-tsp`, `cat > notes/new.md`)."""
    refs: list[Reference] = []
    made = set() if made is None else made
    start, last = cwd, ""
    text, alternatives = _script_alternatives(_without_comment(text))
    for segment in _SEGMENTS.split(text):
        tokens = _tokens(segment)
        while tokens and (_ENV_ASSIGN.match(tokens[0]) or tokens[0] in _PREFIXES):
            name = tokens.pop(0).split("=", 1)[0]
            if _ENV_SET.fullmatch(name):  # `DSN=postgres://… go test`: a variable the code is to read
                refs.append(Reference("symbol", name, name, i, strong=False))
        if not tokens:
            continue
        command, args = tokens[0], tokens[1:]
        if cwd == ELSEWHERE and not (command == "cd" and "show-toplevel" in segment):
            last = command  # run in a folder the text does not name (`cd packages/<name> && yarn test`)
            continue
        if command == "python3":
            command = "python"
        made.update(posixpath.normpath(_join(cwd, path)) for path in _created(command, args))
        found, cwd = _one_command(command, args, segment.strip(), i, cwd)
        refs.extend(r for r in found if not (r.kind == "path" and _inside(r.target, made)))
        last = command
    for ref in [r for r in refs if r.kind == "script" and r.target in alternatives]:
        refs.extend(ref._replace(target=other, strong=False) for other in alternatives[ref.target])
    # `cd web && pnpm build`: the folder of that line's commands; the lines below start where this one
    # did (a block of such lines lists commands each run from the root). A line that only changes folder
    # (`cd web`) moves the lines below.
    return refs, cwd if last == "cd" else start


#: A script written with its alternatives, no space around the bars: `pnpm run test:unit|components|types`.
_ALTERNATIVES = re.compile(r"\b(?:npm|pnpm|yarn|bun)(?:\s+run)?\s+(?P<name>[A-Za-z][\w:.-]*)(?P<more>(?:\|[A-Za-z][\w:.-]*)+)"
                           r"(?=\s|$)")
#: Commands a script's output is piped into (`pnpm test|tee log`): a pipe, not alternatives.
_PIPED_INTO = frozenset("grep egrep rg head tail tee less more sort uniq wc jq xargs cat awk sed cut tr column bat".split())


def _script_alternatives(text: str) -> tuple[str, dict[str, list[str]]]:
    """``text`` with the alternatives of a script cut off, and the alternatives by the script written
    first. An alternative without a colon takes the first's prefix (`test:unit|components` names
    `test:components`); `test:unit|test:e2e` names both as written. Read weakly: an alternative is judged
    only when it was defined and is gone."""
    found: dict[str, list[str]] = {}
    for m in reversed(list(_ALTERNATIVES.finditer(text))):
        name, more = m.group("name"), m.group("more").split("|")[1:]
        if any(alt in _PIPED_INTO for alt in more):
            continue
        prefix = name.rsplit(":", 1)[0] + ":" if ":" in name else ""
        found.setdefault(name, []).extend(alt if ":" in alt else prefix + alt for alt in more)
        text = text[:m.start("more")] + text[m.end("more"):]
    return text, found


def _created(command: str, args: list[str]) -> list[str]:
    """The paths a command creates: ``mkdir``/``touch`` arguments, a clone's folder, a redirection's or
    ``tee``'s file."""
    out = [args[k + 1] for k, arg in enumerate(args[:-1]) if arg in (">", ">>")]
    positional = [arg for arg in args if not arg.startswith("-")]
    if command in ("mkdir", "touch", "tee"):
        out += positional
    elif command == "git" and positional[:1] == ["clone"] and len(positional) > 1:
        url = positional[1].rstrip("/")
        out.append(positional[2] if len(positional) > 2 else url.rsplit("/", 1)[-1].removesuffix(".git"))
    return [path for path in out if path and not path.startswith(("/", "~", "$", "<"))]


def _inside(target: str, made: set[str]) -> bool:
    if not made:
        return False
    clean = posixpath.normpath(target)
    return any(clean == path or clean.startswith(path + "/") for path in made)


def _without_comment(text: str) -> str:
    """A shell line without its comment: from a ``#`` that starts a word outside quotes (``make check  #
    Typecheck and lint`` is ``make check``)."""
    if "#" not in text:
        return text
    quote = ""
    for at, char in enumerate(text):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (at == 0 or text[at - 1] in " \t"):
            return text[:at].rstrip()
    return text


def _split_flags(command: str, args: list[str]) -> tuple[dict[str, str], list[str]]:
    """Flags (with their values, ``--flag=value`` too) before the first positional argument, and the
    arguments from there on."""
    takes = _FLAG_VALUES.get(command, set())
    flags: dict[str, str] = {}
    j = 0
    while j < len(args) and args[j].startswith("-") and args[j] != "--":
        flag, eq, value = args[j].partition("=")
        if eq:
            flags[flag] = value
        elif flag in takes and j + 1 < len(args):
            flags[flag] = args[j + 1]
            j += 1
        elif command == "make" and flag.startswith("-C") and len(flag) > 2:
            flags["-C"] = flag[2:]
        else:
            flags[flag] = ""
        j += 1
    return flags, args[j:]


def _path_args(args: list[str], segment: str, i: int, cwd: str | None, packages: bool = False) -> list[Reference]:
    """Arguments that name paths: ``go test ./internal/x``, ``pytest tests/unit/test_a.py::test_b``.
    ``packages``: the arguments are Go packages, so ``./internal/llm/prompt`` is a folder, named for sure."""
    refs = []
    for arg in args:
        if arg.startswith("-") or "=" in arg or "/" not in arg or arg.startswith(("http:", "https:")):
            continue
        token = re.sub(r"::.*$", "", arg)
        token = re.sub(r"/\.\.\.$", "/", token)
        if token in ("./", "."):
            continue
        path = _as_path(token)
        if path:
            strong = "/" in path.rstrip("/") and _has_code_extension(path)
            if packages and arg.startswith("./") and not _has_code_extension(path):
                path, strong = path.rstrip("/") + "/", True  # `./internal/llm/prompt`: a package's folder
            refs.append(Reference("path", _join(cwd, path), arg, i, strong=strong))
    return refs


def _one_command(command: str, args: list[str], segment: str, i: int,
                 cwd: str | None) -> tuple[list[Reference], str | None]:
    refs: list[Reference] = []
    if command == "cd":
        target = args[0] if args else ""
        if "show-toplevel" in segment:
            return [], None  # `cd "$(git rev-parse --show-toplevel)"`: the root
        if target == ".." and cwd:
            parent = str(PurePosixPath(cwd).parent)
            return [], None if parent == "." else parent
        plain = target and not target.startswith(("~", "/", "$", "-")) and target != ".."
        # `cd client`: whatever cd is given is a folder, a bare word included.
        path = (_as_path(target) or (target if re.fullmatch(r"\w[\w.\-]*", target) else None)) if plain else None
        if not path:
            # a placeholder (`packages/<name>`): what runs there is nothing the text says where to find; a
            # home folder or a variable is mostly this repository's own checkout (`cd ~/code/app`)
            return [], ELSEWHERE if _PLACEHOLDER_FOLDER.search(target) else None
        folder = _join(cwd, path.rstrip("/"))
        # after an earlier `cd` of the block, the folder may be meant from where the block starts (a list
        # of snippets, each from the root: `cd tools/a` ... `cd tools/b`): either spelling holds
        alt = path.rstrip("/") + "/" if cwd and not path.startswith(".") else None
        return [Reference("path", folder + "/", segment, i, strong=True, alt=alt)], folder
    if command.rsplit("/", 1)[-1] in ("gradlew", "gradle", "mvn", "mvnw"):
        return _jvm_tests(command, args, segment, i, cwd), cwd
    if command in TOOL_PROJECT_FILES and args and not args[0].startswith("-"):
        # `bazel test //pkg/cache:cache_test`: the tool runs where a file of its own is (MODULE.bazel)
        return [Reference("tool", command, segment, i, scope=cwd)], cwd
    if command.startswith("./") or (command.endswith((".sh", ".py", ".ts", ".js", ".mjs")) and "/" in command):
        path = _as_path(command)
        if path:
            refs.append(Reference("path", _join(cwd, path), command, i, strong=True))
        return refs + _path_args(args, segment, i, cwd), cwd
    flags, rest = _split_flags(command, args)
    if command == "make":
        scope = flags.get("-C") or flags.get("--directory")
        where = _join(cwd, scope) if scope else cwd
        if scope and _as_path(scope):
            refs.append(Reference("path", (where or "").rstrip("/") + "/", segment, i, strong=True))
        for target in rest:
            if "=" not in target and not target.startswith("-") and re.fullmatch(r"[\w][\w.\-/]*", target):
                refs.append(Reference("make", target, segment, i, scope=where))
        return refs, cwd
    if command == "just":
        scope = flags.get("-d") or flags.get("--working-directory")
        recipe = next((a for a in rest if "=" not in a), None)
        if recipe and re.fullmatch(r"[A-Za-z_][\w\-]*(?:::[\w\-]+)*", recipe):
            refs.append(Reference("just", recipe.split("::")[0], segment, i, scope=_join(cwd, scope) if scope else cwd))
        return refs, cwd
    if command == "task":
        # Task (taskfile.dev): `task lint test`, `task test:unit PKG=./x/...` (variables are no tasks),
        # `task -d web build`; a Taskfile given by name (`-t`) is not looked for; what follows `--` is the
        # task's own arguments
        if not ({"-t", "--taskfile", "-g", "--global", "-l", "--list", "-a", "--list-all", "--init", "-i"} & flags.keys()):
            scope = flags.get("-d") or flags.get("--dir")
            where = _join(cwd, scope) if scope else cwd
            for name in rest:
                if name == "--":
                    break
                if "=" not in name and re.fullmatch(r"[A-Za-z_][\w.\-]*(?::[\w.\-]+)*", name):
                    refs.append(Reference("task", name, segment, i, scope=where))
        return refs, cwd
    if command == "uvx" and rest[:1] and rest[0] in _PROJECT_RUNNERS:
        # `uvx hatch run test:unit`, `uvx tox -e lint`: a runner fetched for the run, run on this project
        return _one_command(rest[0], rest[1:], segment, i, cwd)
    if command == "tox":
        return _tox(args, segment, i, cwd), cwd
    if command in ("npm", "pnpm", "yarn", "bun"):
        return _package_script(command, flags, rest, segment, i, cwd), cwd
    if command in ("uv", "poetry", "pip", "pip3"):
        refs.extend(_extras(command, args, segment, i, cwd))
        if rest and f"{command} {rest[0]}" in TOOL_PROJECT_FILES:
            refs.append(Reference("tool", f"{command} {rest[0]}", segment, i, scope=cwd))  # `uv sync`: the project
    if command in ("uv", "poetry", "pdm", "hatch", "rye"):
        if not rest or rest[0] != "run":
            return refs, cwd
        run_flags, run_args = _split_flags("uv" if command == "uv" else command, rest[1:])
        if command == "hatch":
            run_args = [a for a in run_args if not a.startswith(("+", "-"))]  # `+py=3.12`: a matrix variable
        if not run_args:
            return [], cwd
        where = cwd
        for key in ("--directory", "--project", "-C", "-p"):
            if run_flags.get(key):
                where = _join(cwd, run_flags[key])
        target, more = run_args[0], run_args[1:]
        if target in ("python", "python3"):
            return refs + _python(more, segment, i, where), cwd
        if target == "tox":
            return refs + _tox(more, segment, i, where), cwd
        if target.endswith(".py") or "/" in target:
            path = _as_path(target)
            if path:
                refs.append(Reference("path", _join(where, path), target, i, strong=True))
        elif re.fullmatch(r"[\w][\w.:\-]*", target):
            refs.append(Reference("console", target, segment, i, runner=command, scope=where,
                                  package=run_flags.get("--package")))
        return refs + _path_args(more, segment, i, where), cwd
    if command == "python":
        return _python(args, segment, i, cwd), cwd
    if command == "go":
        if rest and rest[0] in ("test", "run", "build", "vet", "generate", "install", "list"):
            refs.extend(_path_args(rest[1:], segment, i, cwd, packages=True))
        return refs, cwd
    if command == "git" and rest[:1] in (["add"], ["rm"], ["restore"], ["diff"], ["log"]):
        return _git_paths(rest[1:], segment, i, cwd), cwd
    if command == "cargo":
        return _cargo_packages(args, segment, i, cwd), cwd
    if command in _NO_PATH_ARGS:
        if command in ("docker", "podman"):
            refs.extend(_container_file(rest, segment, i, cwd))
        return refs, cwd
    return _path_args(rest, segment, i, cwd), cwd


#: Flags that name extras (``extra``) or dependency groups (``group``) of the project's pyproject.toml.
_EXTRA_FLAGS = {
    "uv": {"--extra": "extra", "--no-extra": "extra", "--group": "group", "--no-group": "group", "--only-group": "group"},
    "poetry": {"-E": "extra", "--extras": "extra", "--with": "group", "--without": "group", "--only": "group"},
}  # (pdm's -G names a group or an extra alike: not read)
#: ``pip install -e ".[dev,test]"``: the project's own extras.
_LOCAL_EXTRAS = re.compile(r"^\.?/?\[([\w.\-]+(?:\s*,\s*[\w.\-]+)*)\]$")
_EXTRA_NAME = re.compile(r"[A-Za-z0-9][\w.\-]*")


def _extras(command: str, args: list[str], segment: str, i: int, cwd: str | None) -> list[Reference]:
    """The extras and dependency groups a command installs or leaves out: ``uv sync --no-extra krisp``,
    ``uv sync --group docs``, ``poetry install -E pdf --with docs``, ``pip install -e ".[dev]"``."""
    if command in ("pip", "pip3") or args[:1] == ["pip"]:
        tail = args[1:] if args[:1] == ["pip"] else args
        if tail[:1] != ["install"]:
            return []
        out = []
        for arg in tail[1:]:
            local = _LOCAL_EXTRAS.match(arg)
            for name in local.group(1).split(",") if local else ():
                out.append(Reference("extra", name.strip(), segment, i, scope=cwd, runner=command))
        return out
    flags = _EXTRA_FLAGS.get(command, {})
    where = cwd
    out: list[Reference] = []
    for k, arg in enumerate(args):
        flag, eq, value = arg.partition("=")
        if flag in ("--directory", "--project", "-C") and (value or k + 1 < len(args)):
            where = _join(cwd, value or args[k + 1])
        kind = flags.get(flag)
        if kind is None or not (eq or k + 1 < len(args)):
            continue
        for name in re.split(r"[\s,]+", value if eq else args[k + 1]):
            if _EXTRA_NAME.fullmatch(name) and not _ANY_NAME.fullmatch(name):
                out.append(Reference(kind, name, segment, i, scope=where, runner=command))
    return [r._replace(scope=where) for r in out]


def _jvm_tests(command: str, args: list[str], segment: str, i: int, cwd: str | None) -> list[Reference]:
    """``./gradlew test --tests "com.acme.unit.ApplyToFileHandlerTest.should*"`` and ``mvn test
    -Dtest=ApplyToFileHandlerTest#shouldApply``: the test class they run (a symbol), and the wrapper script."""
    refs: list[Reference] = []
    if command.startswith("./"):
        path = _as_path(command)
        if path:
            refs.append(Reference("path", _join(cwd, path), command, i, strong=True))
    for j, arg in enumerate(args):
        if arg == "--tests" and j + 1 < len(args):
            pattern = args[j + 1]
        elif arg.startswith(("--tests=", "-Dtest=")):
            pattern = arg.split("=", 1)[1]
        else:
            continue
        for one in pattern.split(","):
            parts = [p for p in one.split("#", 1)[0].split(".") if p and not any(c in p for c in "*?")]
            classes = [p for p in parts if p[0].isupper() and _IDENT.match(p)]
            if classes and len(classes[-1]) >= 3:
                refs.append(Reference("symbol", classes[-1], segment, i, strong=True))
    return refs


def _git_paths(args: list[str], segment: str, i: int, cwd: str | None) -> list[Reference]:
    """The files ``git add CHANGELOG.md package-lock.json`` names: paths, and file names with an extension
    (``.`` and flags are not). Weak: a file made by a build step may be named before it exists."""
    refs: list[Reference] = []
    for arg in args:
        if arg.startswith("-") or arg in (".", "--") or any(c in arg for c in "*?[{$<"):
            continue
        path = _as_path(arg)
        if path and (_has_code_extension(path) or "/" in path):
            refs.append(Reference("path", _join(cwd, path), arg, i, strong=False))
    return refs


_CARGO_PACKAGE_COMMANDS = frozenset({"run", "test", "build", "check", "bench", "clippy", "doc", "fmt", "nextest", "insta"})


def _cargo_packages(args: list[str], segment: str, i: int, cwd: str | None) -> list[Reference]:
    """``cargo run -p oxc_linter``, ``cargo test --package=x``: the workspace crate a command targets."""
    words = [a for a in args if not a.startswith("+")]  # `cargo +nightly test`
    if not words or words[0] not in _CARGO_PACKAGE_COMMANDS:
        return []
    refs: list[Reference] = []
    rest = words[1:]
    for j, arg in enumerate(rest):
        name = None
        if arg in ("-p", "--package") and j + 1 < len(rest):
            name = rest[j + 1]
        elif arg.startswith("--package="):
            name = arg.split("=", 1)[1]
        elif arg.startswith("-p") and len(arg) > 2 and not arg.startswith("--"):
            name = arg[2:]
        if name and re.fullmatch(r"[A-Za-z_][\w\-]*", name) and not _any_name(name):
            refs.append(Reference("crate", name, segment, i, scope=cwd))
    return refs


def _container_file(rest: list[str], segment: str, i: int, cwd: str | None) -> list[Reference]:
    """The file ``docker build -f FILE`` / ``docker buildx build -f`` / ``docker compose -f FILE`` names (the
    subcommand's own flags; docker's other arguments are images, tags and contexts, not memory's paths)."""
    sub, tail = (rest[0], rest[1:]) if rest else ("", [])
    if sub == "buildx" and tail[:1] == ["build"]:
        sub, tail = "build", tail[1:]
    if sub not in ("build", "compose"):
        return []
    flags, _ = _split_flags(f"docker-{sub}", tail)
    value = flags.get("-f") or flags.get("--file")
    path = _as_path(value) if value else None
    return [Reference("path", _join(cwd, path), segment, i, strong=True)] if path else []


#: Runners `uvx` may fetch whose commands name this project's own environments and scripts.
_PROJECT_RUNNERS = frozenset({"hatch", "tox", "pdm", "poetry"})
#: tox's flags that take a value (``-e`` is read apart).
_TOX_VALUES = {"-c", "--conf", "--root", "--workdir", "-x", "--override", "-m", "-f", "-n", "-p", "--parallel",
               "--installpkg", "--hashseed", "--result-json", "--discover", "-r", "--recreate-pkg"}
_TOX_ENV = re.compile(r"[A-Za-z_][\w.\-]*")


def _tox(args: list[str], segment: str, i: int, cwd: str | None) -> list[Reference]:
    """tox's environments: ``tox -e lint``, ``tox run -e ruff,type_check -- -k x``, ``tox r --env docs``
    (names of the tox file of the folder run in). With a configuration given (``-c``) nothing is read; a
    name made of braces, variables or placeholders is no environment's name."""
    envs: list[str] = []
    j = 0
    while j < len(args) and args[j] != "--":
        arg = args[j]
        flag, eq, value = arg.partition("=")
        if flag in ("-c", "--conf"):
            return []
        if flag in ("-e", "--env"):
            if not eq and j + 1 < len(args):
                value, j = args[j + 1], j + 1
            envs.extend(value.split(","))
        elif flag in _TOX_VALUES and not eq and j + 1 < len(args) and not args[j + 1].startswith("-"):
            j += 1  # (its value; `-p` may have none: `tox -p -e lint`)
        j += 1
    return [Reference("tox", env.strip(), segment, i, scope=cwd) for env in envs
            if _TOX_ENV.fullmatch(env.strip()) and not _ANY_NAME.fullmatch(env.strip()) and not env.strip().isupper()]


def _python(args: list[str], segment: str, i: int, cwd: str | None) -> list[Reference]:
    flags, rest = _split_flags("python", args)
    if "-m" in args:
        index = args.index("-m")
        if args[index + 1:index + 2] == ["tox"]:
            return _tox(args[index + 2:], segment, i, cwd)
        if index + 1 < len(args) and re.fullmatch(r"[A-Za-z_][\w.]*", args[index + 1]):
            return [Reference("module", args[index + 1], segment, i, scope=cwd)] + _path_args(args[index + 2 :], segment, i, cwd)
        return []
    if "-c" in flags:
        return []
    refs = []
    if rest and rest[0].endswith(".py"):
        path = _as_path(rest[0])
        if path:
            refs.append(Reference("path", _join(cwd, path), rest[0], i, strong=True))
        rest = rest[1:]
    return refs + _path_args(rest, segment, i, cwd)


_NPM_RUN_ALIASES = frozenset({"run", "run-script", "rum", "urn"})
_NPM_SCRIPT_COMMANDS = {"test": "test", "t": "test", "tst": "test", "start": "start", "stop": "stop", "restart": "restart"}
BUN_BUILTINS = frozenset("install i add a remove rm test build x create init upgrade pm link unlink publish outdated update"
                         " patch audit info exec repl".split())


def _package_script(runner: str, flags: dict[str, str], rest: list[str], segment: str, i: int,
                    cwd: str | None) -> list[Reference]:
    """``npm run X``, ``pnpm X``, ``yarn workspace PKG X``, ``bun run X``... as a script reference with
    the folder or workspace package it runs in."""
    where = cwd
    package = None
    for key in ("--prefix", "-C", "--dir", "--cwd"):
        if flags.get(key):
            where = _join(cwd, flags[key])
    for key in ("--filter", "-F", "-w", "--workspace"):
        if flags.get(key):
            package = flags[key]
    if runner == "pnpm" and ("-r" in flags or "--recursive" in flags) and package is None:
        package = "*"
    if runner == "pnpm" and "-w" in flags and not flags["-w"]:
        where, package = "", None  # --workspace-root
    if not rest:
        return []
    first, more = rest[0], rest[1:]
    if runner == "yarn" and first == "workspace" and len(more) >= 2:
        package, first, more = more[0], more[1], more[2:]
    if first in _NPM_RUN_ALIASES or (runner != "npm" and first == "run"):
        run_flags, run_args = _split_flags(runner, more)
        if not run_args:
            return []
        name = run_args[0]
        if _any_name(name):
            return []  # `npm run <script>`, `npm run X`, `npm run watch:*`: any script, not one named so
        if runner == "bun" and (name.endswith((".ts", ".js", ".tsx", ".mjs")) or "/" in name):
            path = _as_path(name)
            return [Reference("path", _join(where, path), name, i, strong=True)] if path else []
        # npm reads its own flags anywhere before `--`: `npm run build --if-present` (GitHub's Node CI
        # template) makes the script optional too.
        after = run_args[1:]
        after = after[: after.index("--")] if "--" in after else after
        if "--if-present" in flags or "--if-present" in run_flags or "--if-present" in after:
            return []
        return [Reference("script", name, segment, i, runner=runner, scope=where, package=package)]
    if runner == "npm":
        name = _NPM_SCRIPT_COMMANDS.get(first)
        return [Reference("script", name, segment, i, runner=runner, scope=where, package=package)] if name else []
    builtins = {"pnpm": PNPM_BUILTINS, "yarn": YARN_BUILTINS, "bun": BUN_BUILTINS}[runner]
    if first in builtins or first.startswith("-") or not re.fullmatch(_SCRIPT, first) or _any_name(first):
        return []
    if runner == "bun" and (first.endswith((".ts", ".js", ".tsx", ".mjs")) or "/" in first):
        path = _as_path(first)
        return [Reference("path", _join(where, path), first, i, strong=True)] if path else []
    return [Reference("script", first, segment, i, runner=runner, scope=where, package=package)]
