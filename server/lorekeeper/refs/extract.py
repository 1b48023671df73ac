"""Finding the references in a memory's text: file and folder paths, code symbols, commands (package
scripts, make and just targets, console scripts, ``python -m`` modules) and package-manager statements.

Precision matters more than recall here: an agent-memory linter that cries wolf is switched off. So the
extractor skips URLs, globs, placeholders, "e.g." lists, negative and historical mentions ("never
`console.log`", "the old `lib/types/` was removed", "if `.gitleaks.toml` exists"), output shown in
fenced blocks, ASCII trees, and slash tokens that are not paths. Each reference is *strong* (written the
way one names a file or command of this repository: a path with a folder and an extension, a command in
code) or *weak* (could be prose or something external); the checker reports a weak reference only when
git proves its target existed here and is gone."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..model import Ref


@dataclass(frozen=True)
class Reference:
    """One thing a memory names. ``line`` is the 0-based line within the entry's text."""

    kind: str  # path | symbol | script | make | just | console | module | package-manager
    target: str
    text: str
    line: int = 0
    strong: bool = True
    explicit: bool = False
    file: str | None = None  # symbol refs: the file it must be defined in
    runner: str | None = None  # scripts: npm, pnpm, yarn, bun
    alt: str | None = None  # another spelling of the same path (a tree entry without its label)

    def label(self) -> str:
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
    " deploy doctor approve-builds self-update dedupe run recursive -r --filter -F -w".split()
)
YARN_BUILTINS = frozenset(
    "add install remove upgrade up why workspace workspaces dlx init info config cache link unlink pack publish"
    " set plugin node npm constraints dedupe explain rebuild version run create global outdated audit".split()
)
RUNNERS = ("npm", "pnpm", "yarn", "bun", "npx", "make", "just", "uv", "poetry", "pdm", "hatch", "python", "python3")

_FENCE = re.compile(r"^\s*(```+|~~~+)\s*([\w+-]*)")
_URL = re.compile(r"\b(?:https?|ftp|file|ssh|git)://\S+|\bwww\.\S+|\S+@\S+\.\w+")
_EG = re.compile(r"\((?:e\.g\.|eg\.|for example|for instance|i\.e\.)[^)]*\)|\b(?:e\.g\.|for example|for instance|such as)[^.;\n]*",
                 re.I)
_SPAN = re.compile(r"`([^`\n]+)`")
_TREE_LINE = re.compile(r"[├└│┬┼]|^\s*[|`]--|^\s*\+--")
_NEGATED_BEFORE = re.compile(
    r"(?:\bnever|\bnot|n't|\bno|\bavoid|\binstead of|\brather than|\bno longer|\bformerly|\bold|\blegacy|\bdeprecated|"
    r"\bremoved|\bdeleted|\breplaced|\bwithout|\bif|\bunless|\bwhether|\bused to|\bwas|\bexcept)"
    r"(?:\s+(?:use|using|import|importing|call|calling|run|running|the|a|an|any|in|from|with|edit|edits|touch|add|to|write|modify|commit)){0,2}"
    r"[\s,:(]*$",
    re.I,
)
_NEGATED_AFTER = re.compile(
    r"^[`'\")\s]*(?:was|were|has been|have been|is|are|got|had been)\s+(?:removed|deleted|deprecated|gone|renamed|replaced|dropped|retired)|"
    r"^[`'\")\s]*(?:exists|is present|is missing|if present|no longer)",
    re.I,
)
_PATH_TOKEN = re.compile(r"(?<![\w@/.:~$%{<-])(\.{0,2}/?[\w.\-]+(?:/[\w.\-]+)+/?)")
_IDENT = re.compile(r"^[A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*(?:\(\))?$")
_PM = re.compile(r"\b(?:use|using|uses|prefer|prefers)\s+(npm|pnpm|yarn|bun)\b(?!\s*(?:run|exec|dlx|-))", re.I)
_PM_ONLY = re.compile(r"\b(npm|pnpm|yarn|bun)\s+only\b", re.I)


def extract(text: str) -> list[Reference]:
    """Every reference in a memory's text, deduplicated, in order of appearance."""
    lines = text.split("\n")
    refs: list[Reference] = []
    fence: str | None = None
    lang = ""
    for i, line in enumerate(lines):
        opened = _FENCE.match(line)
        if fence is None and opened:
            fence, lang = opened.group(1), opened.group(2).lower()
            continue
        if fence is not None and line.strip().startswith(fence[:3]):
            fence = None
            continue
        if _TREE_LINE.search(line):
            continue  # ASCII trees are read whole below: their names hang from the tree's label
        refs.extend(_code_line(line, i, lang) if fence is not None else _prose_line(line, i))
    refs.extend(_trees(lines))
    seen: set[tuple[str, str, str | None]] = set()
    unique = []
    for ref in refs:
        key = (ref.kind, ref.target, ref.file)
        if key not in seen:
            seen.add(key)
            unique.append(ref)
    return unique


_BRANCH = re.compile(r"^(?P<prefix>[ \t│|]*)(?:├|└|\||`|\+)(?:──|─|--)+[ \t]*(?P<name>[^\s#]+)")
_LABEL = re.compile(r"^\s*(?P<label>[\w.\-]+(?:/[\w.\-]+)*/?)\s*(?:#.*)?$")


def _trees(lines: list[str]) -> list[Reference]:
    """Paths drawn as ASCII trees. A tree is rooted at its label (the line above it, ``src/``); when the
    label is the project's own name its entries are relative to the root instead, so each path also
    carries the spelling without the label. Tree entries are weak references: reported only when git
    shows they existed."""
    refs: list[Reference] = []
    i = 0
    while i < len(lines):
        if not _BRANCH.match(lines[i]):
            i += 1
            continue
        above = _LABEL.match(lines[i - 1]) if i > 0 else None
        label = above.group("label").rstrip("/") if above and above.group("label") not in (".", "./") else None
        stack: list[str] = []
        while i < len(lines) and (_BRANCH.match(lines[i]) or lines[i].strip() in ("│", "|")):
            match = _BRANCH.match(lines[i])
            if match:
                depth = len(match.group("prefix").expandtabs(4)) // 4
                name = match.group("name")
                stack = stack[:depth]
                inner = "/".join([*stack, name.rstrip("/")]) + ("/" if name.endswith("/") else "")
                path = _as_path(f"{label}/{inner}" if label else inner)
                if path:
                    refs.append(Reference("path", path, name, i, strong=False,
                                          alt=_as_path(inner) if label else None))
                stack.append(name.rstrip("/"))
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


def _code_line(line: str, i: int, lang: str) -> list[Reference]:
    """A line inside a fenced block: commands only, and only where the block holds commands."""
    if lang in _OUTPUT_LANGS:
        return []
    stripped = line.strip()
    if lang in _SESSION_LANGS or stripped.startswith(("$ ", "> ")):
        if not stripped.startswith(("$ ", "> ", "# ")) and lang in _SESSION_LANGS:
            return []  # output lines of a terminal session
        stripped = stripped[2:]
    if lang and lang not in ("sh", "bash", "shell", "zsh", "fish", "console", "shell-session", "sh-session",
                             "terminal", "cmd", "powershell", "ps1", "make", "makefile"):
        return []  # source code shown as an example
    return _commands(stripped, i, in_code=True)


def _prose_line(line: str, i: int) -> list[Reference]:
    clean = _URL.sub(lambda m: " " * len(m.group(0)), line)
    clean = _EG.sub(lambda m: " " * len(m.group(0)), clean)
    refs: list[Reference] = []
    for match in _SPAN.finditer(clean):
        if _negated(clean, match.start(), match.end()):
            continue
        refs.extend(_span(match.group(1).strip(), i))
    plain = _SPAN.sub(lambda m: " " * len(m.group(0)), clean)
    refs.extend(_commands(plain, i, in_code=False))
    for match in _PATH_TOKEN.finditer(plain):
        token = match.group(1).rstrip(".,;:)")
        if _negated(plain, match.start(), match.end()):
            continue
        path = _as_path(token)
        if path:
            strong = _has_code_extension(path) and "/" in path.rstrip("/")
            refs.append(Reference("path", path, token, i, strong=strong))
    for match in list(_PM.finditer(plain)) + list(_PM_ONLY.finditer(plain)):
        if not _NEGATED_BEFORE.search(plain[: match.start()][-30:]) and not re.search(r"\b(never|not|don't|no)\s*$", plain[: match.start()], re.I):
            refs.append(Reference("package-manager", match.group(1).lower(), match.group(0), i))
    return refs


def _negated(text: str, start: int, end: int) -> bool:
    return bool(_NEGATED_BEFORE.search(text[max(0, start - 40) : start]) or _NEGATED_AFTER.search(text[end : end + 40]))


def _span(span: str, i: int) -> list[Reference]:
    first = span.split()[0] if span.split() else ""
    if first in RUNNERS or first.startswith("./"):
        if first.startswith("./") and " " not in span:
            path = _as_path(span)
            return [Reference("path", path, span, i, strong=True)] if path else []
        return _commands(span, i, in_code=True)
    if " " in span:
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
        strong = "." in name or span.endswith("()") or "_" in name or bool(re.search(r"[a-z][A-Z]", name))
        return [Reference("symbol", name, span, i, strong=strong)]
    return []


def _as_path(token: str) -> str | None:
    """The workspace-relative path a token names, or None when it is not a path of this repository
    (URL, glob, placeholder, absolute, home, npm scope, route, version, JSON-RPC method...)."""
    token = token.strip().strip("'\"")
    if not token or any(c in token for c in "*?[]{}<>$%|\\=,;:") or "..." in token or token.startswith(("@", "~", "/", "-", "#")):
        return None
    if re.search(r"\bpath/to\b|\byour[-_]|\bfoo\b|\bbar\b|\bexample\.com\b|\bxxx\b", token, re.I):
        return None
    token = token.removeprefix("./")
    parts = [p for p in token.rstrip("/").split("/") if p]
    if not parts or any(p == ".." for p in parts):
        return None
    if all(re.fullmatch(r"v?\d+(\.\d+)*", p) for p in parts):
        return None  # versions, dates, fractions
    if "/" in token:
        return token
    if "." in token.strip(".") or token.startswith("."):
        ext = token.rsplit(".", 1)[-1].lower()
        if token.startswith(".") and token.count(".") == 1:
            # A dotfile (.gitignore, .nvmrc), but not an extension (.js) nor .env-style runtime files.
            return None if ext in CODE_EXTENSIONS else token
        if ext in CODE_EXTENSIONS and not re.fullmatch(r"[A-Z][A-Za-z]*\.js", token):  # Node.js, Next.js
            return token
    return None


def _has_code_extension(path: str) -> bool:
    name = path.rstrip("/").rsplit("/", 1)[-1]
    return "." in name and name.rsplit(".", 1)[-1].lower() in CODE_EXTENSIONS


_SCRIPT = r"([\w][\w:.\-/@]*)"


def _commands(text: str, i: int, in_code: bool) -> list[Reference]:
    """Commands that name something this repository defines. ``make`` and ``just`` count only in code:
    in prose they are English words ("make sure", "just run")."""
    refs: list[Reference] = []
    for m in re.finditer(rf"\b(npm|pnpm|yarn|bun)\s+run\s+{_SCRIPT}", text):
        refs.append(Reference("script", m.group(2).rstrip(".:"), m.group(0), i, runner=m.group(1)))
    for m in re.finditer(r"\bnpm\s+(test|start|stop|restart)\b", text):
        refs.append(Reference("script", m.group(1), m.group(0), i, runner="npm"))
    for m in re.finditer(rf"\b(pnpm|yarn)\s+(?!run\b){_SCRIPT}", text):
        name = m.group(2).rstrip(".:")
        builtins = PNPM_BUILTINS if m.group(1) == "pnpm" else YARN_BUILTINS
        if name in builtins or name.startswith("-"):
            continue
        # "pnpm test:e2e" in prose is a script; "pnpm and yarn" is a sentence: weak unless code-like.
        strong = in_code or ":" in name or "-" in name
        refs.append(Reference("script", name, m.group(0), i, strong=strong, runner=m.group(1)))
    if in_code:
        for m in re.finditer(r"(?:^|[;&|]\s*)make\s+((?:-\S+\s+)*)([\w][\w.\-/]*)", text):
            if not m.group(1):
                refs.append(Reference("make", m.group(2), m.group(0).strip(), i))
        for m in re.finditer(r"(?:^|[;&|]\s*)just\s+([\w][\w\-]*)", text):
            refs.append(Reference("just", m.group(1), m.group(0).strip(), i))
    for m in re.finditer(r"\b(uv|poetry|pdm|hatch)\s+run\s+([\w./\-]+)", text):
        target = m.group(2)
        if target.endswith(".py") or "/" in target:
            path = _as_path(target)
            if path:
                refs.append(Reference("path", path, target, i))
        elif target not in ("python", "python3"):
            refs.append(Reference("console", target, m.group(0), i, strong=in_code))
    for m in re.finditer(r"\bpython3?\s+-m\s+([A-Za-z_][\w.]*)", text):
        refs.append(Reference("module", m.group(1), m.group(0), i))
    for m in re.finditer(r"\bpython3?\s+((?:\./)?[\w./\-]+\.py)\b", text):
        path = _as_path(m.group(1))
        if path:
            refs.append(Reference("path", path, m.group(1), i))
    return refs
