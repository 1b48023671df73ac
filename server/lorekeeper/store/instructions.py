"""Instruction files (CLAUDE.md, AGENTS.md, copilot-instructions, .cursor rules, memory-bank, ...): each
bullet, paragraph, table or code block is an entry whose id is its location (``CLAUDE.md:12``), and so
is a heading that names a file, folder or code (``### Main Model (`model/ui.go`)``).

Edits to these files are line-range replacements, so everything outside the edited lines stays as the
author wrote it."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import re
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

from ..core import text as core_text
from ..core.kinds import KINDS, Family
from ..core.model import PENDING, Entry, Finding, InFileIgnore, Location, Severity
from ..core.text import Fences, editor_lines
from ..infra import cache as cache_files
from ..workspace import Workspace
from .files import read_text_file

log = logging.getLogger("lorekeeper")


@cache
def _markdown() -> MarkdownIt:
    """The Markdown parser, built when the first instruction file is read (~20 ms of start-up otherwise)."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table")
#: In an instruction unit's ``raw``: the last line of the lists nested in a bullet.
LIST_END = "list_end"
#: For a nested list item: the line of the item it is nested in ("Build with `pnpm build`" under "- Node.js
#: API" is about that item).
PARENT_ITEM = "parent_item"
#: For an item of a top-level list a title introduces ("**Auto-Reloads (No Restart):**",
#: "**ClaudeCodeSession**", "Translations" right above the list): that title's text, which the item
#: completes or is about.
INTRO = "intro"
#: For a list item: the first line of its list, which its siblings share.
LIST = "list"
#: For an item of a numbered list (a step of a procedure): ``True``.
ORDERED = "ordered"

_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?")
_BOX = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+\[([ xX])\]\s")
#: For a task list's item ("- [ ] E2E testing"): its box, " " (to do) or "x" (done).
BOX = "box"
_FRONT_FENCE = re.compile(r"^---\s*$")

#: In a heading: a code span, a folder (`docs/`), a path with an extension or a file name, which make
#: the heading a unit of its own ("CI/CD", "React/TypeScript" do not; other headings only name the
#: section their lines are in).
_NAMES_A_PLACE = re.compile(r"`[^`]+`|[\w.\-]+(?:/[\w.\-]+)*/(?=[\s),;:]|$)|[\w.\-]+(?:/[\w.\-]+)+\.\w+\b"
                            r"|\b[\w\-]+\.(?:md|mdc|py|ts|tsx|js|jsx|mjs|cjs|go|rs|rb|java|kt|swift|cs|php|json|toml|ya?ml"
                            r"|sh|proto|sql|css|html|vue|svelte)\b")

#: A heading that is a file's title (``# CLAUDE.md``), not a place it describes.
_TITLE_ONLY = re.compile(r"^(?:CLAUDE|AGENTS|GEMINI|CRUSH|README|QWEN|WARP)\.md$", re.I)

#: Blocks that become entries when they stand on their own (not inside a list item).
_BLOCKS = {"paragraph_open": "paragraph", "fence": "code", "code_block": "code", "table_open": "table"}


def parse_instructions(text: str, relpath: str) -> list[tuple[int, int, str, str, str | None]]:
    """The entries of an instruction file as ``(start_line, end_line, kind, content, section)`` with
    1-based inclusive lines. Nested bullets are entries of their own; YAML front matter (``.mdc``) is
    skipped."""
    return [unit[:5] for unit in _units(text, relpath)]


#: An instruction unit: ``(start_line, end_line, kind, content, section, list_end, parent, intro, in_list,
#: box)``; ``list_end``: the last line of the lists nested in a bullet (``None``: it holds none); ``parent``:
#: the line of the item a nested item is in; ``intro``: the label a top-level list item's list follows;
#: ``in_list``: for a list item, its list's first line and whether it is numbered; ``box``: a task list
#: item's box, " " (to do) or "x" (done).
_Unit = tuple[int, int, str, str, "str | None", "int | None", "int | None", "str | None",
              "tuple[int, bool] | None", "str | None"]


def _units(text: str, relpath: str) -> list[_Unit]:
    lines = editor_lines(text)
    masked = list(lines)
    if lines and _FRONT_FENCE.match(lines[0]):
        for i in range(1, len(lines)):
            if _FRONT_FENCE.match(lines[i]):
                for j in range(i + 1):
                    masked[j] = ""
                break
    # tags read as blank lines are blank for the units too: a list item's map runs over them
    lines = _lone_tags(masked)
    tokens = _markdown().parse("\n".join(_nested_fences(lines)))
    out: list[_Unit] = []
    headings: list[tuple[int, str]] = []
    item_depth = 0
    # The list items we are inside, each with the line where its own text stops (its first child list)
    # and the line where the item stops.
    open_items: list[list[int]] = []
    intro: str | None = None  # the label that introduces the top-level list we are in
    lists: list[tuple[int, bool]] = []  # the lists we are in: first line, numbered
    for index, tok in enumerate(tokens):
        if tok.type == "heading_open" and tok.map:
            level = int(tok.tag[1])
            title = tokens[index + 1].content.strip() if index + 1 < len(tokens) else ""
            headings = [h for h in headings if h[0] < level]
            if item_depth == 0 and _NAMES_A_PLACE.search(title) and not _TITLE_ONLY.match(title.strip("`")) \
                    and title.strip("`").lower() != relpath.rsplit("/", 1)[-1].lower():
                # a heading that names what it describes ("### Main Model (`model/ui.go`)"): a unit, so
                # that what it names is checked like any line's
                out.append((tok.map[0] + 1, tok.map[1], "heading", title, _section(headings), None, None, None, None, None))
            headings = [*headings, (level, title)]
        elif tok.type == "list_item_open" and tok.map:
            item_depth += 1
            open_items.append([tok.map[0], tok.map[1], tok.map[1]])
        elif tok.type in ("bullet_list_open", "ordered_list_open") and tok.map:
            lists.append((tok.map[0] + 1, tok.type == "ordered_list_open"))
            if open_items:
                parent = open_items[-1]
                parent[1] = min(parent[1], tok.map[0])
            else:
                # a title on the line above the list, or one blank line above it
                above = next((u for u in reversed(out) if u[2] == "paragraph"), None)
                intro = above[3] if above is not None and tok.map[0] - 1 <= above[1] <= tok.map[0] \
                    and _titles_a_list(above[3]) else None
        elif tok.type in ("bullet_list_close", "ordered_list_close"):
            if lists:
                lists.pop()
            if not open_items:
                intro = None
        elif tok.type == "list_item_close":
            item_depth -= 1
            start, stop, whole = open_items.pop()
            body = _trim(lines, start, stop)
            if body:
                first, last, chunk = body
                content = "\n".join([_BULLET.sub("", chunk[0], count=1), *(c.strip() for c in chunk[1:])]).strip()
                box = _BOX.match(chunk[0])
                nested = _trim(lines, stop, whole) if stop < whole else None
                out.append((first + 1, last + 1, "bullet", content, _section(headings),
                            nested[1] + 1 if nested else None, open_items[-1][0] + 1 if open_items else None,
                            None if open_items else intro, lists[-1] if lists else None,
                            box.group(1).lower() if box else None))
        elif tok.type in _BLOCKS and tok.map and item_depth == 0:
            body = _trim(lines, tok.map[0], tok.map[1])
            if body:
                first, last, chunk = body
                kind = _BLOCKS[tok.type]
                # Code blocks keep their fences (and so their language) for reference extraction.
                content = "\n".join(chunk) if kind == "code" else "\n".join(c.strip() for c in chunk)
                if kind == "paragraph":
                    content = content.strip()
                out.append((first + 1, last + 1, kind, content.rstrip("\n"), _section(headings), None, None, None, None,
                            None))
    out.sort(key=lambda e: e[0])
    return [e for e in out if e[3].strip()]


_FENCE_OPEN = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`\s]*)")


def _nested_fences(lines: list[str]) -> list[str]:
    """``lines`` where a fenced Markdown example that holds fenced code of its own (```` ```markdown ````
    … ```` ```python ```` … ```` ``` ```` … ```` ``` ````) has its outer fences lengthened, so that the
    parser ends it where its author did. CommonMark ends it at the first bare fence, and everything
    after it in the file reads inside out: prose as code, code as prose. Only an example written as
    Markdown (``markdown``, ``md``, ``mdx``) is read so, and only when the fences inside it pair up."""
    out = list(lines)
    i = 0
    while i < len(lines):
        opener = _FENCE_OPEN.match(lines[i])
        if not opener:
            i += 1
            continue
        char, size = opener.group("fence")[0], len(opener.group("fence"))
        if opener.group("info").lower() not in ("markdown", "md", "mdx"):
            i = _fence_end(lines, i + 1, char, size)
            continue
        depth, nested, j = 0, False, i + 1
        while j < len(lines):
            inner = _FENCE_OPEN.match(lines[j])
            if inner and inner.group("fence")[0] == char and len(inner.group("fence")) >= size:
                if inner.group("info"):
                    depth, nested = depth + 1, True
                elif lines[j].strip() == inner.group("fence"):
                    if depth == 0:
                        break
                    depth -= 1
            j += 1
        if nested and j < len(lines):
            longer = char * (size + 1)
            out[i] = lines[i].replace(opener.group("fence"), longer, 1)
            out[j] = lines[j].replace(char * size, longer, 1)
        i = j + 1
    return out


#: A line that is one tag of the author's own (``<example title="Data explorer">``, ``</rules>``), alone.
_LONE_TAG = re.compile(r"^ {0,3}</?([A-Za-z][\w.:-]*)(?:\s[^<>]*)?/?>\s*$")
#: Tags of HTML: what an author writes inside them is HTML, and CommonMark's reading of it stands.
_HTML_TAGS = frozenset((
    "a abbr address article aside audio b base basefont bdi bdo blockquote body br button canvas caption center "
    "cite code col colgroup data dd del details dfn dialog dir div dl dt em embed fieldset figcaption figure font "
    "footer form frame frameset h1 h2 h3 h4 h5 h6 head header hgroup hr html i iframe img input ins kbd label "
    "legend li link main mark menu menuitem meta nav noframes noscript object ol optgroup option output p param "
    "path picture pre q rp rt ruby s samp script search section select small source span strike strong style sub "
    "summary sup svg table tbody td template textarea tfoot th thead time title tr track tt u ul var video wbr"
).split())


#: A paragraph in one bold span ("**ClaudeAgentManager**"), or of a few words and no sentence's end
#: ("Toast usage", "Remix/ReactRouter Usage").
_BOLD_TITLE = re.compile(r"^(\*\*|__)[^*_\n]+\1:?$")
_SHORT_TITLE = re.compile(r"^[^\n.!?;,`|]{1,60}$")
#: Status marks before a title ("🔄 **State Manager Enhancement (40% Remaining)**", "✅ **Done**"): the title is
#: what follows them.
_LEADING_MARKS = re.compile(r"^(?:[^\w\s*_`\[(<>#|-]\ufe0f?\s*)+")


def _titles_a_list(paragraph: str) -> bool:
    """Whether a paragraph right above a list names what its items are about: a label ending with a colon
    ("**Auto-Reloads (No Restart):**"), a bold title ("**ClaudeCodeSession**", after a status mark: "🔄
    **State Manager Enhancement (40% Remaining)**") or a few words without a sentence's end ("Translations")."""
    text = _LEADING_MARKS.sub("", paragraph.strip())
    return (text.rstrip("*_` ").endswith(":") or bool(_BOLD_TITLE.match(text))
            or (bool(_SHORT_TITLE.match(text)) and len(text.split()) <= 5 and any(c.isalpha() for c in text)))


def _lone_tags(lines: list[str]) -> list[str]:
    """``lines`` where a tag of the author's own that stands alone where a block may start (after a blank
    line, a fence or another such tag) is read as a blank line. Prompt files wrap examples and rules in
    such tags (``<example title="…">`` then a fence); CommonMark reads the tag as the start of an HTML
    block that runs to the next blank line, so that the fence after it is no fence and the code after
    that reads as prose, and rules written between the tags are not read at all. Agents read the fence
    and the rules as their author wrote them, and so does every line-by-line reader here (:class:`Fences`)."""
    out = list(lines)
    fence: tuple[str, int] | None = None
    after_block = True  # at the start of a block: the file's start, after a blank line or a fence
    opened: list[str] = []  # the tags read as blank lines, still open
    for i, line in enumerate(lines):
        opener = _FENCE_OPEN.match(line)
        if fence is not None:
            if opener and opener.group("fence")[0] == fence[0] and len(opener.group("fence")) >= fence[1] \
                    and line.strip() == opener.group("fence"):
                fence = None
                after_block = True
            continue
        if opener:
            fence = (opener.group("fence")[0], len(opener.group("fence")))
            continue
        tag = _LONE_TAG.match(line)
        name = tag.group(1).lower() if tag else ""
        closing = line.lstrip().startswith("</")
        if tag and name not in _HTML_TAGS and (after_block or (closing and name in opened)):
            # the closing tag of one read so is markup wherever it stands (after a list item's last line)
            if closing and name in opened:
                del opened[len(opened) - 1 - opened[::-1].index(name):]
            elif not closing and not line.rstrip().endswith("/>"):
                opened.append(name)
            out[i] = ""
            after_block = True
            continue
        after_block = not line.strip()
    return out


def _fence_end(lines: list[str], start: int, char: str, size: int) -> int:
    """The line after the fence that closes a block opened before ``start``."""
    for j in range(start, len(lines)):
        closer = _FENCE_OPEN.match(lines[j])
        if closer and closer.group("fence")[0] == char and len(closer.group("fence")) >= size and not closer.group("info") \
                and lines[j].strip() == closer.group("fence"):
            return j + 1
    return len(lines)


def _trim(lines: list[str], start: int, stop: int) -> tuple[int, int, list[str]] | None:
    stop = min(stop, len(lines))
    while stop > start and not lines[stop - 1].strip():
        stop -= 1
    if stop <= start:
        return None
    return start, stop - 1, lines[start:stop]


def _section(headings: list[tuple[int, str]]) -> str | None:
    return " > ".join(h[1] for h in headings) or None


_IGNORE = re.compile(r"<!--\s*lore-ignore\b(?P<kinds>[^:>]*?)(?::(?P<reason>.*?))?\s*-->")
_KIND_WORD = re.compile(r"[a-z][a-z-]*")


def ignore_comments(lines: list[str], relpath: str) -> tuple[dict[int, InFileIgnore], list[Finding]]:
    """The ``<!-- lore-ignore[ KIND...]: reason -->`` comments of a Markdown memory file, by 1-based line,
    outside fenced code (an example of the comment is not one). A comment without a reason, or naming a
    kind that does not exist, ignores nothing and is a finding."""

    known = set(KINDS) | {f.value for f in Family}
    found: dict[int, InFileIgnore] = {}
    problems: list[Finding] = []
    fences = Fences()
    for number, line in enumerate(lines, 1):
        if fences.code(line) or "lore-ignore" not in line:
            continue
        match = _IGNORE.search(line)
        if match is None:
            continue
        kinds = tuple(_KIND_WORD.findall(match.group("kinds").replace(",", " ")))
        reason = (match.group("reason") or "").strip()
        unknown = [k for k in kinds if k not in known]
        if not reason or unknown:
            why = (f"unknown finding kind {', '.join(unknown)} (docs/staleness.md#finding-kinds lists them)" if unknown
                   else "it gives no reason (write <!-- lore-ignore: why this finding does not apply -->)")
            problems.append(Finding(kind="invalid-suppression", severity=Severity.warning, source=relpath, line=number,
                                    message=f"this lore-ignore comment ignores nothing: {why}"))
            continue
        found[number] = InFileIgnore(kinds=kinds, reason=reason, line=number)
    return found, problems


def ignores_of(comments: dict[int, InFileIgnore], lines: list[str], start: int, end: int) -> list[InFileIgnore]:
    """The comments that cover the memory on lines ``start..end`` (1-based): those on its lines, and those
    standing alone on the lines right above it."""
    mine = [comments[n] for n in range(start, end + 1) if n in comments]
    above = start - 1
    while above >= 1 and above in comments and lines[above - 1].strip().startswith("<!--") \
            and lines[above - 1].strip().endswith("-->"):
        mine.append(comments[above])
        above -= 1
    return mine


UNITS_CACHE = "units.json"


@cache
def _units_version() -> str:
    """A hash of everything the units of a text depend on besides the text and its file's name: this
    module's source, the text helpers', and markdown-it's version (its ``__init__.py``, which states it,
    read without importing the parser: a load whose files are all cached never needs it)."""
    spec = importlib.util.find_spec("markdown_it")
    digest = hashlib.blake2b(digest_size=12)
    for module_file in (__file__, core_text.__file__, spec.origin if spec is not None else None):
        try:
            digest.update(Path(module_file or "").read_bytes())
        except OSError:  # no source to read (a frozen install): never reuse across runs
            digest.update(repr(id(module_file)).encode())
    return digest.hexdigest()


def _decode_unit(raw: Any) -> _Unit | None:
    """A stored unit back to its tuple, or ``None`` when the record is not one."""
    if not isinstance(raw, list) or len(cast(list[Any], raw)) != 10:
        return None
    start, end, kind, content, section, list_end, parent, intro, in_list, box = cast(list[Any], raw)
    if not (isinstance(start, int) and isinstance(end, int) and isinstance(kind, str) and isinstance(content, str)
            and (section is None or isinstance(section, str)) and (intro is None or isinstance(intro, str))
            and (list_end is None or isinstance(list_end, int)) and (parent is None or isinstance(parent, int))
            and box in (None, " ", "x")):
        return None
    listed: tuple[int, bool] | None = None
    if in_list is not None:
        pair = cast(list[Any], in_list) if isinstance(in_list, list) else []
        if not (len(pair) == 2 and isinstance(pair[0], int) and isinstance(pair[1], bool)):
            return None
        listed = (pair[0], pair[1])
    return (start, end, kind, content, section, list_end, parent, intro, listed, box)


class UnitsCache:
    """The units of the instruction files read before, kept between runs in ``.lore/cache/units.json``
    (keyed by the file's name and a hash of its text): Markdown is parsed again only for a file that
    changed. One object per load of the store; :meth:`save` writes what it used and learnt."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self.version = _units_version()
        data: Any = cache_files.read_json_kept(ws.root, ws.cache_dir, UNITS_CACHE)  # not to be changed
        kept = cast(dict[str, Any], data) if isinstance(data, dict) else {}
        files: Any = kept.get("files") if kept.get("version") == self.version else None
        self.stored: dict[str, Any] = cast(dict[str, Any], files) if isinstance(files, dict) else {}
        self.used: dict[str, Any] = {}
        self.fresh = False

    def units(self, text: str, relpath: str) -> list[_Unit]:
        key = relpath + "\x00" + hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
        raw: Any = self.stored.get(key)
        if isinstance(raw, list):
            decoded = [_decode_unit(unit) for unit in cast(list[Any], raw)]
            if all(unit is not None for unit in decoded):
                self.used[key] = raw
                return [unit for unit in decoded if unit is not None]
        units = _units(text, relpath)
        self.used[key] = [[*unit[:8], list(unit[8]) if unit[8] is not None else None, unit[9]] for unit in units]
        self.fresh = True
        return units

    def save(self, keep_unused: bool = False) -> None:
        """Write the units of the files read (and, ``keep_unused``: a load of some files only, those of the
        others as stored), when they differ from what is stored."""
        files = {**self.stored, **self.used} if keep_unused else self.used
        if not self.fresh and files.keys() == self.stored.keys():
            return
        data = {"version": self.version, "files": files}
        body = json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "surrogatepass")
        cache_files.write_json_kept(self.ws.root, self.ws.cache_dir, UNITS_CACHE, data, body)
        log.debug("units cache: %d files", len(files))


def read_instruction_file(ws: Workspace, path: Path, relpath: str | None = None,
                          units_cache: UnitsCache | None = None, dated: bool = True) -> tuple[list[Entry], list[Finding]]:
    """An instruction file's units as entries, each ``created`` when the file was (:meth:`Workspace.created_time`),
    or, ``dated=False``, with no date yet (``created_from`` "pending": see :meth:`Store.dated`)."""
    relpath = relpath or ws.rel(path)
    text_file, problem = read_text_file(path, relpath, ws.config.max_file_bytes)
    if problem:
        return [], [problem]
    assert text_file is not None
    created, created_from = ws.created_time(path, relpath) if dated else (None, PENDING)
    entries: list[Entry] = []
    comments: dict[int, InFileIgnore] = {}
    problems: list[Finding] = []
    lines: list[str] = []
    if "lore-ignore" in text_file.text:
        lines = editor_lines(text_file.text)
        comments, problems = ignore_comments(lines, relpath)
    units = units_cache.units(text_file.text, relpath) if units_cache is not None else _units(text_file.text, relpath)
    for start, end, kind, content, section, list_end, parent, intro, in_list, box in units:
        entries.append(
            Entry(
                id=f"{relpath}:{start}",
                content=content,
                category="instructions",
                created=created,
                created_from=created_from,
                source=kind,
                format="instruction",
                location=Location(path=relpath, start_line=start, end_line=end),
                section=section,
                ignores=ignores_of(comments, lines, start, end) if comments else [],
                raw={**({LIST_END: list_end} if list_end else {}), **({PARENT_ITEM: parent} if parent else {}),
                     **({INTRO: intro} if intro else {}), **({BOX: box} if box else {}),
                     **({LIST: in_list[0], **({ORDERED: True} if in_list[1] else {})} if in_list else {})},
            )
        )
    return entries, problems


def replace_lines(text: str, start: int, end: int, new_text: str | None) -> str:
    """Replace 1-based inclusive lines ``start..end`` of ``text`` with ``new_text`` (``None`` removes
    them), keeping the file's line endings everywhere else."""
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = editor_lines(text, keepends=True)
    if not (1 <= start <= end <= len(lines)):
        raise ValueError(f"lines {start}-{end} are outside the file ({len(lines)} lines)")
    tail_newline = lines[end - 1][len(lines[end - 1].rstrip("\r\n")) :] or ""
    replacement = []
    if new_text is not None:
        body = new_text.rstrip("\r\n").replace("\r\n", "\n").split("\n")
        replacement = [line + newline for line in body]
        if not tail_newline and replacement:
            replacement[-1] = replacement[-1][: -len(newline)]
    return "".join(lines[: start - 1] + replacement + lines[end:])
