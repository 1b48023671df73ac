"""What a memory is about, beyond its words: the project or package it names (``project:api`` tags), the
folder a nested instruction file applies to, and whether an item is history (struck through, marked
done) rather than a current claim.

Two memories in different scopes may state different values and both be true ("Python 3.13+" for one
project, "3.12+" for another; a nested AGENTS.md that overrides the root one for its folder): they are
never a conflict, and never merged or fused into one, which would lose one project's fact. A memory
with no scope tag is about the whole repository and may meet any other.

Invariant: pure functions of an entry's fields (no I/O)."""

from __future__ import annotations

import re
from functools import lru_cache
from posixpath import dirname

from ..core.model import Entry
from ..store.instructions import INTRO
from .near import turns_meaning

#: Tags that name what a memory is about: ``project:api``, ``package/web``, ``service=billing``...
_SCOPE_TAG = re.compile(r"^(?:project|package|pkg|service|app|repo|module|crate|workspace)[:/=](.+)$", re.I)

#: Instruction files that apply to the folder they are in (and below), so that two of them in different
#: folders may say different things.
_FOLDER_FILES = frozenset({"agents.md", "claude.md", "gemini.md", "crush.md", "agents.override.md",
                           "claude.local.md"})


def scope_tags(entry: Entry) -> frozenset[str]:
    """The projects, packages or services an entry's tags name (lower case); empty: the whole repository."""
    return _scope_tags(tuple(entry.tags))


@lru_cache(maxsize=4096)
def _scope_tags(tags: tuple[str, ...]) -> frozenset[str]:
    return frozenset(m.group(1).strip().lower() for m in map(_SCOPE_TAG.match, tags) if m and m.group(1).strip())


def folder(entry: Entry) -> str:
    """The folder an instruction file's line applies to: its file's folder for nested agent files
    (``services/api/AGENTS.md``), else the repository root (``""``)."""
    if entry.format != "instruction":
        return ""
    path = entry.location.path.replace("\\", "/")
    name = path.rsplit("/", 1)[-1].lower()
    return dirname(path) if name in _FOLDER_FILES else ""


def other_projects(a: Entry, b: Entry) -> bool:
    """Both entries name projects (or packages...) and no project in common: facts of different
    projects, never one fact, never a conflict."""
    sa, sb = scope_tags(a), scope_tags(b)
    return bool(sa) and bool(sb) and not sa & sb


def apart(a: Entry, b: Entry) -> bool:
    """Different scopes: different projects, lines of agent files of different folders (a nested file
    overrides the root one for its folder), or lines of one instruction file under different headings
    (a file describes each component in its own section: "**Entry point**: `server/src/index.ts`" under
    Backend, "**Entry point**: `src/main.tsx`" under Frontend) or in lists under different titles ("**ClaudeAgentManager**"
    then its list, "**ClaudeCodeSession**" then its own). Two such memories are never a conflict."""
    if other_projects(a, b) or folder(a) != folder(b):
        return True
    return (a.format == b.format == "instruction" and a.location.path == b.location.path
            and ((a.section or "") != (b.section or "") or a.raw.get(INTRO) != b.raw.get(INTRO)))


#: What a list's label says of each of its items that their own words do not: they are to be avoided
#: ("❌ **Don't:**", "**Avoid:**", "Incorrect:"), or not yet so or no longer ("**Planned:**", "Legacy").
_TURNING_LABEL = re.compile(r"[❌✗✘🚫⛔]|\b(?:incorrect|wrong|bad|anti-?patterns?|planned|todo|future|upcoming|"
                            r"roadmap|experimental|wip|proposed|backlog|ideas?|draft|legacy|obsolete|deprecated)\b",
                            re.I)


def said_by_its_label(entry: Entry) -> bool:
    """An item of a list whose label turns what the item says ("❌ **Don't:**" over "Use inline styles
    instead of Tailwind": the file says not to): read alone, it says the opposite of what its file says,
    or what is not yet so. Never a side of a conflict."""
    if entry.format != "instruction":
        return False
    if entry.source == "bullet" and _WRONG_MARK.match(entry.content):
        return True  # an item marked wrong ("- ❌ Root-level `.md` files")
    label = entry.raw.get(INTRO)
    if label is None and entry.source == "bullet":
        # a list right under a heading that turns it ("### ❌ NEVER Do These:" over "1. **Hardcode localhost**
        # in production code")
        label = (entry.section or "").rsplit(" > ", 1)[-1] or None
    return isinstance(label, str) and (turns_meaning(label) or _TURNING_LABEL.search(label) is not None)


#: A list item marked as what not to do.
_WRONG_MARK = re.compile(r"^\s*(?:❌|🚫|⛔|✗|✘)")


def one_document(a: Entry, b: Entry) -> bool:
    """Two lines of one instruction file: parts of one document, written by people who read both. A file
    gives a default and its exception, an example after the default, the tool of each client, the
    "Incorrect" case and then the "Correct" one, in lines of one section; read apart, such lines look
    opposed. A disagreement worth reporting is between files, where one may have gone stale while the
    other changed: two lines of one file are never a conflict."""
    return a.format == b.format == "instruction" and a.location.path == b.location.path


# A struck-through item ("~~**File Extension Detection**: ...~~"), or one marked done, fixed or resolved:
# what was, not what is.
_MARKER = r"(?:[-*+]|\d+[.)])\s+"
_STRUCK = re.compile(rf"^\s*(?:{_MARKER})?(?:\[[ xX]\]\s*)?~~(?P<struck>.+?)~~(?P<rest>.*)$", re.S)
_DONE = re.compile(
    rf"^\s*(?:{_MARKER})?(?:\[[xX]\]|[✅✔☑]|(?:\*\*|__)?(?:resolved|fixed|done|completed|deprecated|obsolete|removed)"
    r"(?:\*\*|__)?\s*[:\-–—)])", re.I)
_DONE_END = re.compile(r"[(\[]\s*(?:resolved|fixed|done|completed|obsolete|no longer (?:used|true|needed))\s*[)\]]\W*$", re.I)


def is_history(text: str) -> bool:
    """Whether a memory records what was rather than what is: struck through (all but a few closing
    words), or marked resolved, fixed, done or completed at its start or end."""
    struck = _STRUCK.match(text)
    if struck:
        rest = struck.group("rest").strip()
        # what follows the struck text: a few closing words, or items that say it is done ("- ✅ Fixed: ...")
        if len(rest) <= max(12, len(struck.group("struck")) // 3) or all(
                _DONE.match(line) for line in rest.splitlines() if line.strip()):
            return True
    return bool(_DONE.match(text) or _DONE_END.search(text))
