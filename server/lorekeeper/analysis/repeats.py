"""Facts that instruction files state more than once: the same line in CLAUDE.md and AGENTS.md, a
memory-bank item repeated in two of its files, a rule restated in copilot-instructions. Each agent that
loads two of those files pays for the fact twice, and the copies drift apart when one is edited.

Compaction never edits an instruction file by itself, so these are findings, not plan operations: every
copy but the kept one is a ``duplicate`` (the same text) or ``near-duplicate`` (the same fact in a few
more or other words: the verifier's keys, :func:`near`, and with the semantic stage the guard's
paraphrases) finding naming every location, with a fix that removes that copy
(:class:`~lorekeeper.core.model.RemoveRepeatFix`) unless it says more than the kept one, journaled and
undoable like every edit. Which copy is kept is the team's choice: ``[compaction] source_files`` (first
match wins); else the copy no other says more than, in the usual order of agent files below.

Invariant: reads only the store's entries; never merges across projects (:mod:`..facts.scope`)."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from fnmatch import fnmatchcase
from functools import lru_cache
from typing import Any

from ..core.candidates import rare_key_pairs
from ..core.model import Entry, Finding, RemoveRepeatFix, Severity
from ..core.text import ATX_HEADING, TEXT_CACHE, Fences, editor_lines, normalize
from ..facts.near import Said, contrasted, may_be_one, near, near_in_parts, says_more, turns_meaning, words_of
from ..facts.scope import apart, folder
from ..facts.scope import other_projects as apart_projects
from ..facts.verify import fact_key, fact_keys, fact_size, prepared
from ..store import FileChange, Operation, Store
from ..store.instructions import BOX, INTRO, LIST, LIST_END, ORDERED, PARENT_ITEM, replace_lines
from .compaction.search import groups_of_one_fact

_normal = lru_cache(maxsize=TEXT_CACHE)(normalize)

#: Which file's copy is kept when the team names none: the agent files most tools read first, then the
#: others in path order.
DEFAULT_SOURCES = ("AGENTS.md", "CLAUDE.md", "GEMINI.md", ".github/copilot-instructions.md", "CRUSH.md",
                   ".cursorrules", ".clinerules", ".windsurfrules",
                   # a memory bank's files in the order Cline's memory bank builds them: the brief first
                   "memory-bank/projectbrief.md", "memory-bank/productContext.md", "memory-bank/systemPatterns.md",
                   "memory-bank/techContext.md", "memory-bank/activeContext.md", "memory-bank/progress.md")

#: A unit must carry at least this many words that state something to count as a repeated fact ("- None",
#: "- TBD" and bare headings repeat harmlessly).
MIN_FACT_WORDS = 2


#: Words that state something a unit needs to be found restated in other words: a fragment ("Push
#: commits", "**Error Handling**") is close to many sentences about its topic.
PARAPHRASE_MIN_WORDS = 3


@dataclass(frozen=True)
class Repeat:
    """One fact stated by several instruction units: ``kept`` stays, each of ``copies`` may go."""

    kept: Entry
    copies: tuple[Entry, ...]
    exact: bool  # every copy is the same text as the kept one
    #: The other units of the group this fact was found in (each near one of its members, not this
    #: kept one): named with every copy, never removed for it.
    also: tuple[Entry, ...] = ()
    #: For a label that introduces a list (its one copy ends with ":"): the copies of the list's facts
    #: under it, removed with it.
    under: tuple[Entry, ...] = ()
    #: The copies that are steps of a numbered list some of whose steps are no copies: removing them
    #: would leave a procedure with steps missing (:func:`_steps_kept`).
    steps: frozenset[str] = frozenset()
    #: The copies the paragraph right after refers back to ("Use `bd update` with flags instead:", "These
    #: contain …"), which would read as nonsense without them (:func:`_steps_kept`).
    referred: frozenset[str] = frozenset()
    #: The copies nested in a list item where the kept one is nested in another that shares no word with it
    #: ("- Handles exchange-specific quirks" under "- **ccxt**" / "- Handle exchange-specific API quirks"
    #: under "- **Exchange Adapters**"): each item says what its own are about (:func:`_steps_kept`).
    nested: frozenset[str] = frozenset()
    #: The copies that title the list right under them, which is no copy ("**Phase 2: Function Parameter
    #: `any` Arrays** ✅ (59 files)" over what phase 2 did): without them the list reads as the title's before.
    titles: frozenset[str] = frozenset()
    #: The copies only a model judged the kept one's fact, each with who judged it (``llm:MODEL``): named,
    #: never removed for its word (:data:`JUDGED`).
    judged: tuple[tuple[str, str], ...] = ()

    def judged_by(self, copy: Entry) -> str:
        """Who alone judged ``copy`` this fact ("" where a rule or the guard did)."""
        return next((by for i, by in self.judged if i == copy.id), "")


def _source_rank(entry: Entry, sources: tuple[str, ...]) -> tuple[int, str, int]:
    path = entry.location.path
    first = next((i for i, pattern in enumerate(sources) if path == pattern or fnmatchcase(path, pattern)), len(sources))
    return (first, path, entry.location.start_line)


def _worth(entry: Entry) -> bool:
    """A line that states something by itself: not a label that introduces what follows ("**Multi-Chain
    Support**:", "When adding examples, use these categories:"), whose removal would orphan it."""
    text = entry.content.rstrip()
    return (entry.format == "instruction" and entry.live and entry.source != "heading" and not _introduces(text)
            and fact_size(text) >= MIN_FACT_WORDS)


def _introduces(text: str) -> bool:
    """A line that ends with a colon, as Latin or East Asian text writes it ("Organization:", "所有文檔中的依賴
    方向描述完全一致："): it introduces what follows."""
    return text.rstrip().rstrip("*_` ").endswith((":", "："))


#: A paragraph written as one bold span ("**Correct: no flicker, no hydration mismatch**").
_BOLD_ONLY = re.compile(r"^(\*\*|__)(?:(?!\1).)+\1$", re.S)


def _titles(entries: list[Entry]) -> set[str]:
    """The paragraphs written as one bold span right above a code block, a list or a table (one blank
    line at most between): titles of what follows ("**Correct: no flicker, no hydration mismatch**" over
    the correct example), which would be orphaned without them. They are repeats only with what they
    introduce (:func:`_intros`), never of a sentence that says the same."""
    out: set[str] = set()
    by_file: dict[str, list[Entry]] = {}
    for e in entries:
        if e.format == "instruction" and e.live:
            by_file.setdefault(e.location.path, []).append(e)
    for units in by_file.values():
        units.sort(key=lambda e: e.location.start_line)
        for title, after in itertools.pairwise(units):
            if (title.source == "paragraph" and _BOLD_ONLY.match(title.content.strip())
                    and after.source in ("code", "bullet", "table")
                    and after.location.start_line <= title.location.end_line + 2):
                out.add(title.id)
    return out


def _code_words(entry: Entry) -> int:
    """How many words a code block holds inside its fences (0: not a code block)."""
    if entry.source != "code":
        return 0
    lines = entry.content.splitlines()
    if lines and lines[0].lstrip().startswith(("```", "~~~")):
        lines = lines[1:-1] if len(lines) > 1 and lines[-1].lstrip().startswith(("```", "~~~")) else lines[1:]
    return sum(len(line.split()) for line in lines)


def _whole(units: list[Entry], order: tuple[str, ...]) -> list[Repeat]:
    """Code blocks written the same in several places (a command block copied from CLAUDE.md into
    copilot-instructions): the same text, whitespace aside, and two words or more."""
    blocks: dict[str, list[Entry]] = {}
    for e in units:
        if e.format == "instruction" and e.live and not _worth(e) and _code_words(e) >= MIN_FACT_WORDS:
            blocks.setdefault(" ".join(e.content.split()), []).append(e)
    out: list[Repeat] = []
    for group in blocks.values():
        if len(group) >= 2:
            kept, *copies = sorted(group, key=lambda e: _source_rank(e, order))
            out.append(Repeat(kept, tuple(copies), True))
    return out


def _run_after(entry: Entry, lines: dict[str, list[Entry]]) -> list[Entry]:
    """The list ``entry`` introduces: the bullets nested in it, or after a paragraph the bullets right
    after it in its file (one blank line at most between two of them), else what the subsections right
    under it hold."""
    siblings = lines.get(entry.location.path, [])
    nested = entry.raw.get(LIST_END) if entry.source == "bullet" else None
    if entry.source == "bullet" and not isinstance(nested, int):
        return []  # a bullet introduces only the list nested in it
    run: list[Entry] = []
    end = entry.location.end_line
    for e in siblings:
        if e.location.start_line <= entry.location.start_line:
            continue
        if e.source != "bullet" or e.location.start_line > end + 2 or (
                isinstance(nested, int) and e.location.start_line > nested):
            break
        run.append(e)
        end = e.location.end_line
    if not run and entry.section is not None and entry.source == "paragraph":
        # a paragraph that introduces the subsections under it ("Our selection prioritizes …:" then
        # "#### Primary Criteria" and its list): what they hold, up to the first line not under them
        under = entry.section + " > "
        for e in siblings:
            if e.location.start_line <= entry.location.start_line or e.source == "heading":
                continue  # (a subsection's heading that names a file is a unit, not a line of the list)
            if not (e.section or "").startswith(under):
                break
            run.append(e)
    return run


def _labels_and_lines(entries: Iterable[Entry], words: int) -> tuple[dict[str, list[Entry]], dict[str, list[Entry]]]:
    """The live instruction units that introduce what follows, of ``words`` words or more, grouped by
    their text; and every live instruction unit by file, in line order (what :func:`_run_after` reads)."""
    labels: dict[str, list[Entry]] = {}
    lines: dict[str, list[Entry]] = {}
    for e in entries:
        if e.format != "instruction" or not e.live:
            continue
        lines.setdefault(e.location.path, []).append(e)
        if e.source != "heading" and _introduces(e.content) and fact_size(e.content) >= words:
            labels.setdefault(_normal(e.content), []).append(e)
    for siblings in lines.values():
        siblings.sort(key=lambda e: e.location.start_line)
    return labels, lines


def _intros(entries: list[Entry], found: list[Repeat], order: tuple[str, ...]) -> list[Repeat]:
    """The labels that introduce a repeated list ("**Modular Architecture**: Discovery system is split
    into focused modules:" before the same modules in two files): a copy of a label, written the same, is
    a repeat when every bullet of its list is a copy that may go of a fact the kept label's list states,
    so that removing the label with its list leaves nothing behind that it introduced."""
    goes = {c.id: r.kept.id for r in found for c in r.copies if not says_more(c.content, r.kept.content)}
    fact = {e.id: r.kept.id for r in found for e in (r.kept, *r.copies)}  # each unit's repeat, by its kept copy
    labels, lines = _labels_and_lines(entries, MIN_FACT_WORDS)
    out: list[Repeat] = []
    for group in labels.values():
        if len(group) < 2:
            continue
        kept, *others = sorted(group, key=lambda e: _source_rank(e, order))
        listed = {fact[e.id] for e in _run_after(kept, lines) if e.id in fact}
        for other in others:
            run = _run_after(other, lines)
            if run and all(e.id in goes and fact[e.id] in listed for e in run):
                out.append(Repeat(kept, (other,), True, under=tuple(run)))
    return out


# -- near repeats ------------------------------------------------------------------------------------

def _side_by_side(a: Entry, b: Entry) -> bool:
    """Lines of agent files of two folders neither of which holds the other (``web/AGENTS.md``,
    ``worker/AGENTS.md``): no agent reads both, and each speaks for its own folder ("Update this file in
    the same PR" is about another file in each): never a repeat."""
    x, y = folder(a), folder(b)
    return x != y and not (x == "" or y.startswith(x + "/")) and not (y == "" or x.startswith(y + "/"))


def _own_items(a: Entry, b: Entry) -> bool:
    """Two list items of one file each nested in an item of its own (oxc's "Build with `pnpm build`" under
    "- JS/Rust hybrid CLI" and under "- Node.js API"): each completes what its item says, never a repeat."""
    x, y = a.raw.get(PARENT_ITEM), b.raw.get(PARENT_ITEM)
    return a.location.path == b.location.path and (x is not None or y is not None) and x != y


def _next_to(a: Entry, b: Entry) -> bool:
    """Two lines of one file side by side under one heading, in other words (cline's writing guide: "- "How I
    do X"" then "- "How You Can do X"", "Between these two titles, ..."; "- How to set up Braintrust" then
    "- How to set up Braintrust in 5 minutes"): written to be read together, as a contrast or a step
    further, never a repeat. (The same words twice in a row are.)"""
    return (a.location.path == b.location.path and (a.section or "") == (b.section or "")
            and (a.location.end_line + 1 == b.location.start_line or b.location.end_line + 1 == a.location.start_line)
            and _normal(a.content) != _normal(b.content))


def under_another_heading(copy: Entry, kept: Entry) -> bool:
    """A copy in the kept line's file under another heading, or in a list under another title: the line
    may be part of what its own section says (a step of each of two procedures, "**`telemetry/`**: …"
    under two folders' headings), so it is reported but not removed."""
    return (copy.format == kept.format == "instruction" and copy.location.path == kept.location.path
            and ((copy.section or "") != (kept.section or "") or copy.raw.get(INTRO) != kept.raw.get(INTRO)))


def in_another_list(copy: Entry, kept: Entry) -> bool:
    """A copy that is an item of a list whose label says something of every item ("**Auto-Reloads (No
    Restart):**" then "- `contents/config/groups.json` (groups and permissions)"; "**Don't:**", "Required:")
    where the kept one is not under that label: the item completes what the label says (that the file
    reloads, that it is to be avoided), which would go with it; so does a label that gives a status
    ("**Planned:**", "Experimental"). A label that names a topic ("**Core Files:**", "TypeScript Usage:")
    is a heading."""
    label = copy.raw.get(INTRO)
    return (isinstance(label, str) and _normal(label) != _normal(str(kept.raw.get(INTRO) or ""))
            and (turns_meaning(label) or bool(_STATUS.search(label))))


#: Words of a label that give its items a status ("**Planned:**", "TODO", "Experimental", "Done:"): an
#: item under it does not say what the same words elsewhere say.
_STATUS = re.compile(r"\b(?:planned|todo|to-?do|future|upcoming|roadmap|experimental|wip|in progress|proposed|"
                     r"backlog|ideas?|draft|legacy|obsolete|beta|alpha|done|completed|finished|resolved|fixed)\b",
                     re.I)


#: Why a copy stays though it repeats the kept one (:func:`why_stays`).
SAYS_MORE = "says more"
ANOTHER_HEADING = "under another heading of the same file"
ANOTHER_LIST = "an item of a list whose label says something of it"
A_STEP = "a step of a numbered list whose other steps stay"
REFERRED = "the paragraph after it refers back to it"
ANOTHER_ITEM = "nested in another item than the kept one"
ANOTHER_NUMBER = "under a heading of another number than the kept one's (Milestone 2 / Milestone 3)"
JUDGED = "only a model judged it the same fact"
ANOTHER_STATUS = "another status than the kept one's (done, planned, in progress)"
A_PARENT = "a list item with items nested under it"
A_POINTER = "a pointer to another file"
TOO_SHORT = "too short to say what it is about apart from its heading"
SIBLING_FILE = "in a file about another part, beside the kept one's (chatProductContext.md / driveProductContext.md)"
A_TITLE = "the title of the list right under it"
#: The reasons that are the copy's own file's: it needs the line where it is.
IN_PLACE = frozenset((ANOTHER_HEADING, ANOTHER_LIST, A_STEP, REFERRED, ANOTHER_ITEM, ANOTHER_NUMBER,
                      ANOTHER_STATUS, A_PARENT, A_POINTER, TOO_SHORT,
                      SIBLING_FILE, A_TITLE))

#: What says a memory-bank item's status: a mark it carries, or words of the label or heading it is under
#: ("## Completed Features", "### Under Development", "**Coming Soon:**", "## What Works").
_MARKS = {"done": "✅✔☑", "planned": "⬜☐⏳⏱📋", "doing": "🔄🚧"}
#: Words of a heading that say its items are in progress whatever else it holds (not "Current Status").
_DOING_OUTRIGHT = re.compile(r"\b(?:in progress|under development|ongoing|wip|working on|being (?:built|developed)|"
                             r"current(?:ly)? (?:work|focus|tasks?|sprint))\b", re.I)
_STATUS_WORDS = (
    ("done", re.compile(r"\b(?:done|completed?|finished|implemented|shipped|resolved|fixed|what works|achievements?|"
                        r"accomplished|delivered|recent(?:ly)? (?:changes|developments|updates|work))\b", re.I)),
    ("doing", re.compile(r"\b(?:in progress|current(?:ly)?|active|under development|ongoing|wip|working on|"
                         r"being (?:built|developed))\b", re.I)),
    ("planned", re.compile(r"\b(?:planned|plans?|todo|to-?do|future|upcoming|roadmap|next(?: steps?)?|coming soon|"
                           r"backlog|ideas?|proposed|wishlist|under consideration|considering|pending|remaining|"
                           r"not (?:yet )?(?:started|implemented)|known issues|technical debt|what(?:['’]s| is) left|"
                           r"left to (?:build|do|implement))\b", re.I)),
)
#: A Markdown link, or a file name written as code: what a pointer to another file is made of.
_POINTING = re.compile(r"\[[^\]]*\]\([^)]*\)|`[^`]*\.(?:md|mdc|txt)`|\b[\w.-]+\.mdc?\b")
#: What sends the reader to another file: "See … for …", "Refer to …", "More in …".
_SEE = re.compile(r"^[\s>*_-]*(?:see(?: also)?|refer to|check|more in|details in)\b", re.I)
#: The words a unit needs, literals aside, to say what it is about without its heading: "Error handling",
#: "Performance optimization" in two files are two files' own items.
_SHORT_MAX_WORDS = 3


#: A memory bank's own files, which share a word without being about two parts of the project.
_BANK_FILES = frozenset({"projectbrief", "productcontext", "systempatterns", "techcontext", "activecontext", "progress"})
_NAME_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def _sibling_files(a: str, b: str) -> bool:
    """Two files of one folder named alike for two parts of the project ("chatProductContext.md" /
    "driveProductContext.md", "phase2-completion-summary.md" / "AI_IMPLEMENTATION_SUMMARY.md"): the same
    generic line in each ("Responsive design for desktop and mobile") is each part's own."""
    fa, _, na = a.rpartition("/")
    fb, _, nb = b.rpartition("/")
    if fa != fb or na == nb:
        return False
    wa = [w.lower() for w in _NAME_WORDS.findall(na.rsplit(".", 1)[0])]
    wb = [w.lower() for w in _NAME_WORDS.findall(nb.rsplit(".", 1)[0])]
    if not wa or not wb or "".join(wa) in _BANK_FILES or "".join(wb) in _BANK_FILES:
        return False
    return wa[-1] == wb[-1] and wa[0] != wb[0]


def status(entry: Entry) -> str | None:
    """An item's status where its text, the label of its list or one of its headings (the nearest that
    says one) says it: "done", "doing", "planned"; ``None`` where nothing does."""
    for name, marks in _MARKS.items():
        if any(mark in entry.content for mark in marks):
            return name
    box = entry.raw.get(BOX)
    if box:
        return "planned" if box == " " else "done"
    # the label of its list and its nearest heading; then the headings above, from the nearest out, where
    # they name a status outright: "- Advanced caching strategies" under "## What's Left to Build > ###
    # Core Infrastructure Completion" is planned (a file's title over its sections, "# Active Context", or
    # a "## Current Status" over sections of their own, is about all it holds, done or not)
    headings = (entry.section or "").split(" > ")
    for where in (str(entry.raw.get(INTRO) or ""), headings[-1]):
        found = next((name for name, words in _STATUS_WORDS if words.search(where)), None)
        if found:
            return found
    for where in reversed(headings[:-1]):
        found = next((name for name, words in _STATUS_WORDS if words.search(where) and not (
            name == "doing" and not _DOING_OUTRIGHT.search(where))), None)
        if found:
            return found
    return None


def _pointer(entry: Entry) -> bool:
    """A line that points to another file ("See [projectbrief.md](./projectbrief.md) for project vision",
    "[testingStrategy.md](./testingStrategy.md) (testing)"): a link, not a fact."""
    rest = _POINTING.sub(" ", entry.content)
    return rest != entry.content and (fact_size(rest) < 3 or bool(_SEE.match(rest)))


def _too_short(copy: Entry, kept: Entry) -> bool:
    """Two short items, no name or number in them, in two places: each says what it says of its own
    heading ("Performance optimization" under a roadmap and under a sprint)."""
    return (fact_size(copy.content) <= _SHORT_MAX_WORDS and not re.search(r"[`\d]", copy.content)
            and (copy.location.path != kept.location.path or (copy.section or "") != (kept.section or "")))


def why_stays(copy: Entry, repeat: Repeat, losing: Callable[[str, str], str] | None = None) -> str | None:
    """Why ``copy`` must stay though it repeats ``repeat.kept``, else ``None`` (it may go): it says more
    (:data:`SAYS_MORE`), it is :func:`under_another_heading` (:data:`ANOTHER_HEADING`) or
    :func:`in_another_list` (:data:`ANOTHER_LIST`), a step of a numbered list whose other steps stay
    (:data:`A_STEP`), the paragraph after it refers back to it (:data:`REFERRED`), or ``losing`` (who
    would lose the fact were it removed from the copy's file: agents that read it without the kept
    one's, :meth:`..agents.ReadersOfBoth.losing`) names someone."""
    kept = repeat.kept
    if _normal(copy.content) != _normal(kept.content) and says_more(copy.content, kept.content):
        return SAYS_MORE
    if under_another_heading(copy, kept):
        return ANOTHER_HEADING
    if in_another_list(copy, kept):
        return ANOTHER_LIST
    if copy.id in repeat.steps:
        return A_STEP
    if copy.id in repeat.referred:
        return REFERRED
    if copy.id in repeat.nested:
        return ANOTHER_ITEM
    if copy.format == kept.format == "instruction" and _numbered_apart(copy, kept):
        return ANOTHER_NUMBER
    if copy.id in repeat.titles:
        return A_TITLE
    if copy.format == "instruction" and copy.source == "bullet" and isinstance(copy.raw.get(LIST_END), int) \
            and not repeat.under:
        return A_PARENT
    if copy.format == kept.format == "instruction" and status(copy) != status(kept):
        return ANOTHER_STATUS
    if copy.format == "instruction" and _pointer(copy):
        return A_POINTER
    if copy.format == kept.format == "instruction" and _too_short(copy, kept):
        return TOO_SHORT
    if copy.format == kept.format == "instruction" and _sibling_files(copy.location.path, kept.location.path):
        return SIBLING_FILE
    if repeat.judged_by(copy):
        return JUDGED
    if losing is not None and copy.location.path != kept.location.path:
        return losing(copy.location.path, kept.location.path) or None
    return None


#: A number a heading gives its section ("Milestone 2", "Phase 3", "Level 4", "v2").
_NUMBER = re.compile(r"\d+(?:\.\d+)*")
#: A section's place written before its title ("2. Vertex AI Client Optimization"), which numbers no phase.
_ENUMERATED = re.compile(r"^\s*\d+(?:\.\d+)*[.)]?\s+")


def _numbered_apart(copy: Entry, kept: Entry) -> bool:
    """A copy whose nearest heading numbers its section otherwise than the kept one's nearest heading,
    in the same words ("マイルストーン2: チャート描画" / "マイルストーン3: チャート描画", "Level 2" / "Level 4"): the same
    item in another phase, step or level of a plan says something else there."""
    a, b = (_ENUMERATED.sub("", (e.section or "").rsplit(" > ", 1)[-1]) for e in (copy, kept))
    na, nb = _NUMBER.findall(a), _NUMBER.findall(b)
    if not na or not nb or na == nb:
        return False
    return _normal(_NUMBER.sub(" ", a)) == _normal(_NUMBER.sub(" ", b)) or bool(
        set(_NUMBER.sub(" ", a).lower().split()) & set(_NUMBER.sub(" ", b).lower().split()))


def _near_pairs(units: list[Entry]) -> list[tuple[int, int]]:
    """Pairs of ``units`` (indexes) that :func:`near` joins, among those sharing their rarest words; or
    whose shorter states only what sentences of the longer do (:func:`near_in_parts`), in one scope (not
    under two headings of one file, where "**Updated by**: Re-enrichment" describes two fields)."""
    words = [words_of(e.content) for e in units]
    # a word many units write says nothing about which are one fact; the cap also bounds the pairs looked
    # at to 3 x 30 a unit, so that a repository with thousands of instruction lines stays fast on a save
    cap = min(30, max(8, len(units) // 10))
    return [pair for pair in rare_key_pairs(words, cap=cap, per_item=3)
            if near(units[pair[0]].content, units[pair[1]].content)
            or (near_in_parts(units[pair[0]].content, units[pair[1]].content)
                and not apart(units[pair[0]], units[pair[1]]))]


#: Pairs of texts (indexes) that state one fact in other words, each with the words of each side that state
#: it (the whole text, or a sentence of the longer one): the semantic stage's finder, where it is on. It is
#: also told where each text is (:func:`said_where`) and which of its pairs will be kept, for a model that
#: judges pairs.
Paraphrases = Callable[[list[str], list[str], Callable[[Said], bool]], list[Said]]


def said_where(entry: Entry) -> str:
    """Where a line is, for a judge that reads it without its file: "CLAUDE.md, under “Tech Stack”"."""
    path = entry.location.path
    return f"{path}, under “{entry.section}”" if entry.section else path


def repeats(entries: Iterable[Entry], sources: Iterable[str] = (), paraphrases: Paraphrases | None = None
            ) -> list[Repeat]:
    """The facts stated by two or more live instruction units, each with the copy to keep and the others.
    The copy kept is the one in the first file ``sources`` names (patterns of instruction files, first
    first); where they name none of the files, the copy no other says more than, the first of those by
    :data:`DEFAULT_SOURCES`, then path and line. ``paraphrases``: also join what it finds in other words
    (the semantic stage)."""
    chosen = tuple(sources)
    order = (*chosen, *DEFAULT_SOURCES)
    every = list(entries)
    titles = _titles(every)
    units = [e for e in every if _worth(e) and e.id not in titles]
    if len(units) < 2:
        return _steps_kept(every, _whole(every, order))

    with prepared(e.content for e in units):
        # one key per pair found near: the groups join them as they join the verifier's keys
        joined: dict[int, list[str]] = {}
        pairs = _near_pairs(units)
        judged: dict[frozenset[str], str] = {}  # the pairs only a model judged one fact, and who did
        worded: set[frozenset[str]] = set()  # the pairs only the semantic stage's guard found, in other words
        if paraphrases is not None:
            # in other words, only two statements of one scope: a document that names a topic in a list
            # ("- MCP servers") and describes it under another heading ("**MCP Marketplace**: Online catalog
            # of available MCP servers") says two things about it, and a nested file's `src/config/` is
            # another folder's
            # (a pair a model judged one fact passed the guard's refusals, which weigh negations; a word
            # that turns the meaning is the model's to weigh, and what it judges is never removed for it;
            # other projects and other folders' agent files stay apart whatever it says)
            def keeps(p: Said) -> bool:
                return (may_be_one(p.a, p.b) and not apart(units[p.i], units[p.j])
                        # (a model read both lines with where each is: two headings of one file are its to weigh)
                        or bool(p.by) and not apart_projects(units[p.i], units[p.j]) and folder(units[p.i]) == folder(units[p.j]))

            said = [p for p in paraphrases([e.content for e in units], [said_where(e) for e in units], keeps)
                    if keeps(p) and min(fact_size(p.a), fact_size(p.b)) >= PARAPHRASE_MIN_WORDS]
            ruled = {frozenset((units[i].id, units[j].id)) for i, j in pairs}
            worded = {pair for p in said if not p.by and (pair := frozenset((units[p.i].id, units[p.j].id))) not in ruled}
            ruled |= worded
            judged = {pair: p.by for p in said if p.by and (pair := frozenset((units[p.i].id, units[p.j].id))) not in ruled}
            pairs += [(p.i, p.j) for p in said]
        direct = {frozenset((units[i].id, units[j].id)) for i, j in pairs}
        for n, (i, j) in enumerate(pairs):
            joined.setdefault(i, []).append(f"\x01near{n}")
            joined.setdefault(j, []).append(f"\x01near{n}")
        position = {id(e): i for i, e in enumerate(units)}

        def keys(entry: Entry) -> list[str]:
            return [_normal(entry.content) + "\x00" + fact_key(entry.content), *fact_keys(entry.content),
                    *joined.get(position[id(entry)], ())]

        out: list[Repeat] = []
        loose: set[tuple[str, str]] = set()  # (kept, copy): a copy found only in other words, by the guard
        for _, group in groups_of_one_fact(units, keys):
            members = sorted(group, key=lambda e: _source_rank(e, order))
            first = len(out)
            while len(members) >= 2:
                kept = members[0]
                if _source_rank(kept, chosen)[0] == len(chosen):  # no file the team named: keep the fullest copy
                    kept = next((m for m in members if not any(says_more(o.content, m.content) for o in members)), kept)
                # every copy states the kept fact itself (the same keys, or found near it), not through a
                # chain of copies that each differ a little more
                mine = set(keys(kept)) - set(joined.get(position[id(kept)], ()))
                copies = tuple(m for m in members if m is not kept and not _side_by_side(kept, m)
                               and not _own_items(kept, m) and not _next_to(kept, m)
                               and not contrasted(kept.content, m.content) and (
                    mine & set(keys(m)) or frozenset((kept.id, m.id)) in direct))
                # the members the kept copy does not state the same as: a repeat of their own, if any
                members = [m for m in members if m is not kept and m not in copies]
                if copies:
                    exact = all(_normal(c.content) == _normal(kept.content) for c in copies)
                    by_model = tuple((c.id, by) for c in copies if not mine & set(keys(c))
                                     and (by := judged.get(frozenset((kept.id, c.id)), "")))
                    loose.update((kept.id, c.id) for c in copies if not mine & set(keys(c))
                                 and frozenset((kept.id, c.id)) in worded)
                    out.append(Repeat(kept, copies, exact, judged=by_model))
            # a unit left alone that states a copy's fact itself (the same words: "⬜ IPFS gateway rotation
            # and fallbacks" beside a copy "IPFS gateway rotation and fallbacks" of "⬜ **IPFS Gateway
            # Improvements**: Add gateway rotation and fallbacks", under another heading of the kept one's
            # file) is named with that copy's repeat; so is one found near a copy ("✅ Ethereum-based chain
            # support (…)" beside the copy "Ethereum-based chains (…)" of "Back up NFTs from Ethereum-based
            # chains (…)"): named, never removed for it
            for left in members:
                own = set(keys(left)) - set(joined.get(position[id(left)], ()))
                for k in range(first, len(out)):
                    if any(own & set(keys(e)) or frozenset((left.id, e.id)) in direct for e in out[k].copies):
                        out[k] = replace(out[k], also=(*out[k].also, left))
                        break
            if len(out) - first > 1:  # one group told in several repeats: each names the group's other units
                whole = {id(e) for r in out[first:] for e in (r.kept, *r.copies, *r.also)}
                for k in range(first, len(out)):
                    mine = {id(out[k].kept), *map(id, out[k].copies)}
                    rest = tuple(e for e in group if id(e) in whole and id(e) not in mine)
                    out[k] = replace(out[k], also=rest)
    out += _whole(every, order)
    out += _intros(every, out, order)
    out = _steps_kept(every, out)
    if loose:
        out = _in_other_words(out, loose)
    out.sort(key=lambda r: (r.kept.location.path, r.kept.location.start_line))
    return out


#: Why a copy found only in other words, within one memory split into files (:func:`one_memory`), is no
#: repeat at all: it says something of its own, or has a context of its own (a heading, a list, a status,
#: a file about another part). Found in the same words, such a copy is named and kept; found only by the
#: embedding and the guard among the files of one memory bank or rules folder, which each speak of one
#: aspect of the same few topics, it is mostly another fact on the topic ("Migration to an optimized A2A
#: server" / "Complete integration with optimized A2A server", "Load the comprehensive reflection
#: template" in the Level 3 workflow / "Load reflection template" in the Level 2 one). Across the files
#: of several agents (CLAUDE.md, copilot-instructions.md), where one file restates the other's rules for
#: its own agent, it is named and kept (docs/compaction.md, docs/performance.md).
_OWN_CONTEXT = frozenset((SAYS_MORE, ANOTHER_HEADING, ANOTHER_LIST, A_STEP, REFERRED, ANOTHER_ITEM,
                          ANOTHER_NUMBER, ANOTHER_STATUS, A_PARENT, A_POINTER, TOO_SHORT, SIBLING_FILE, A_TITLE))


#: The folders of a memory split into files, each file an aspect of it (a memory bank, a rules folder).
_MEMORY_FOLDERS = ("memory-bank/", ".cursor/rules/", ".windsurf/rules/", ".clinerules/", ".claude/rules/",
                   ".kiro/steering/", ".continue/rules/", ".augment/rules/", ".github/instructions/")


def one_memory(a: str, b: str) -> bool:
    """Whether two instruction files are one file, or two files of one memory split into files (the same
    memory bank or rules folder: ``memory-bank/progress.md`` and ``memory-bank/activeContext.md``), which
    one agent loads together, rather than the files of two agents (CLAUDE.md, copilot-instructions.md)."""
    if a == b:
        return True
    for kind in _MEMORY_FOLDERS:
        i, j = ("/" + a).find("/" + kind), ("/" + b).find("/" + kind)
        if i >= 0 and i == j and a[:i + len(kind)] == b[:i + len(kind)]:
            return True
    return False


def _in_other_words(found: list[Repeat], loose: set[tuple[str, str]]) -> list[Repeat]:
    """``found`` without the copies found only in other words (``loose``: kept and copy), in the kept one's
    memory, that have a reason of their own to stay (:data:`_OWN_CONTEXT`); a repeat left with no copy goes."""
    out: list[Repeat] = []
    for r in found:
        drop = {c.id for c in r.copies if (r.kept.id, c.id) in loose and one_memory(c.location.path, r.kept.location.path)
                and why_stays(c, r) in _OWN_CONTEXT}
        if not drop:
            out.append(r)
        elif len(drop) < len(r.copies):
            out.append(replace(r, copies=tuple(c for c in r.copies if c.id not in drop),
                               also=tuple(e for e in r.also if e.id not in drop)))
    return out


def _steps_kept(entries: list[Entry], found: list[Repeat]) -> list[Repeat]:
    """``found``, each repeat naming its copies that the paragraph right after refers back to, those nested
    in a list item that shares no word with the kept one's, and its
    copies that are steps of a numbered list not every step of which is a copy (beads'
    copilot-instructions.md: "2. **Claim task**" and "3. **Work on it**" repeat AGENTS.md, "1." and "4."
    do not): without them, the procedure there reads with steps missing. A numbered list all of whose
    steps repeat goes whole."""
    copies = {c.id for r in found for c in r.copies}
    steps: dict[tuple[str, object], list[str]] = {}
    by_file: dict[str, list[Entry]] = {}
    for e in entries:
        if e.format == "instruction" and e.live:
            by_file.setdefault(e.location.path, []).append(e)
            if e.raw.get(ORDERED):
                steps.setdefault((e.location.path, e.raw.get(LIST)), []).append(e.id)
    kept = {i for ids in steps.values() if not all(i in copies for i in ids) for i in ids}
    referred: set[str] = set()
    for units in by_file.values():
        units.sort(key=lambda e: e.location.start_line)
        for unit, after in itertools.pairwise(units):
            if (unit.id in copies and after.id not in copies and after.source == "paragraph"
                    and after.section == unit.section and after.location.start_line <= unit.location.end_line + 2
                    and _REFERS_BACK.search(after.content)):
                # a list the paragraph refers back to ("While these have slightly different semantics …"
                # after fastmcp's four object types) stays whole
                listed = unit.raw.get(LIST)
                referred.update(e.id for e in units if e.id in copies and (
                    e is unit or (listed is not None and e.raw.get(LIST) == listed)))
    titles = {unit.id for units in by_file.values() for unit, after in itertools.pairwise(units)
              if unit.id in copies and unit.source == "paragraph" and after.source == "bullet"
              and after.id not in copies and after.location.start_line == unit.location.end_line + 1}
    at = {(e.location.path, e.location.start_line): e for units in by_file.values() for e in units}

    def parent(e: Entry) -> str | None:
        line = e.raw.get(PARENT_ITEM)
        item = at.get((e.location.path, line)) if isinstance(line, int) else None
        return None if item is None else _normal(item.content.split("\n", 1)[0])

    nested = {c.id for r in found for c in r.copies
              if (mine := parent(c)) is not None and (theirs := parent(r.kept)) is not None
              and not words_of(mine) & words_of(theirs)}
    return [replace(r, steps=frozenset(c.id for c in r.copies if c.id in kept),
                    referred=frozenset(c.id for c in r.copies if c.id in referred),
                    titles=frozenset(c.id for c in r.copies if c.id in titles),
                    nested=frozenset(c.id for c in r.copies if c.id in nested))
            if any(c.id in kept or c.id in referred or c.id in titles or c.id in nested for c in r.copies)
            else r for r in found]


#: A paragraph that refers back to what stands above it: "These contain …", "Use `bd update` with flags
#: instead:", "Note: public packages use `build` instead."
_REFERS_BACK = re.compile(r"^(?:\*\*|__)?(?:(?:while|although|though|since|because|as|and|but|so|all|each|both|any|"
                          r"none|most|some|many|one|like|unlike)\s+(?:of\s+)?)?(?:these|this|those|such|they|it)\b"
                          r"|\binstead\b", re.I)


# -- a list written as a code block elsewhere ---------------------------------------------------------

#: A list item that names a command first: "`pytest --cov`: …", "**Python**: `filename:X user:y`".
_NAMED_FIRST = re.compile(r"^(?:(?:\*\*|__)[^*_\n]{1,60}(?:\*\*|__)\s*[:\-–—]?\s*)?`([^`\n]{3,})`")
_COMMENT = re.compile(r"\s+#(?:\s.*)?$")
_FENCE_INFO = re.compile(r"^\s*(?:```|~~~)\s*([\w+-]*)")
#: Code blocks of commands (the languages of shells and of no language); a block of source code is not
#: a list of commands.
_SHELLS = frozenset({"", "bash", "sh", "shell", "console", "zsh", "fish", "powershell", "ps1", "pwsh", "cmd",
                     "bat", "text", "txt", "plaintext"})


def _commands(block: Entry) -> dict[str, int]:
    """The lines of a block of shell commands (comments and blank lines aside, whitespace as one
    space), each with its line number; none for a block of another language."""
    lines = block.content.splitlines()
    info = _FENCE_INFO.match(lines[0]) if lines else None
    if info is None or info.group(1).lower() not in _SHELLS:
        return {}
    out: dict[str, int] = {}
    for k, line in enumerate(lines[1:-1] if len(lines) > 1 else (), start=1):
        command = " ".join(_COMMENT.sub("", line).split())
        if command and not command.startswith("#"):
            out.setdefault(command, block.location.start_line + k)
    return out


def listed_in_code(entries: Iterable[Entry]) -> list[tuple[Entry, list[Entry]]]:
    """Blocks of commands that another file lists item by item ("`pytest --cov`: Run tests with
    coverage" in CLAUDE.md, ``pytest --cov  # With coverage`` in AGENTS.md's block): each block with the
    list items that name one of its lines first, whole, in a code span — two lines or more by the items
    of one file, of the same folder's files (a command of a nested AGENTS.md runs in its folder). Two forms of one
    list; which to keep is the team's to say, so nothing here is removed."""
    live = [e for e in entries if e.format == "instruction" and e.live]
    blocks = [(b, c) for b in live if b.source == "code" and (c := _commands(b))]
    if not blocks:
        return []
    named: dict[str, list[Entry]] = {}
    for e in live:
        if e.source == "bullet" and (first := _NAMED_FIRST.match(e.content)):
            named.setdefault(" ".join(first.group(1).split()), []).append(e)
    out: list[tuple[Entry, list[Entry]]] = []
    for block, commands in blocks:
        by_file: dict[str, dict[str, Entry]] = {}
        lines: dict[str, set[str]] = {}
        for command in commands:
            for e in named.get(command, ()):
                if e.location.path != block.location.path and folder(e) == folder(block) and not apart_projects(e, block):
                    by_file.setdefault(e.location.path, {})[e.id] = e
                    lines.setdefault(e.location.path, set()).add(command)
        bullets = [e for path, items in by_file.items() if len(lines[path]) >= 2 for e in items.values()]
        if bullets:
            out.append((block, sorted(bullets, key=lambda e: (e.location.path, e.location.start_line))))
    return out


#: Words a label written the same in two files needs to be one copied fact, whatever it introduces
#: ("When adding new examples to `scenarios/`, also update `docs/index.html`:"; not "Run these commands:").
LABEL_FACT_WORDS = 6


def labels_alike(entries: Iterable[Entry], found: list[Repeat], order: tuple[str, ...] = DEFAULT_SOURCES
                 ) -> list[tuple[Entry, list[Entry]]]:
    """Labels written the same in two or more files whose lists are not copies of one another (a copy
    whose list is goes with it: a repeat of ``found``, see :func:`_intros`): each copy after the first,
    with the others. The label is one fact stated twice; which lines belong under it is the team's to
    say, so no fix."""
    labels, lines = _labels_and_lines(entries, LABEL_FACT_WORDS)
    removed = {c.id for r in found if r.under for c in r.copies}  # (labels that go with their lists)
    out: list[tuple[Entry, list[Entry]]] = []
    for group in labels.values():
        if len({e.location.path for e in group}) < 2:
            continue
        first, *rest = sorted(group, key=lambda e: _source_rank(e, order))
        if not _run_after(first, lines):
            continue  # (a label of a code block or of nothing: what it introduces is not a list to compare)
        out.extend((copy, [e for e in group if e is not copy]) for copy in rest
                   if copy.id not in removed and _run_after(copy, lines))
    return out


def _where(entry: Entry) -> str:
    return f"{entry.location.path}:{entry.location.start_line}"


def repeat_findings(entries: Iterable[Entry], sources: Iterable[str] = (), paraphrases: Paraphrases | None = None
                    ) -> list[Finding]:
    """One finding per copy that may go, naming the kept copy and every other one; one per code block
    whose commands other files list (:func:`listed_in_code`)."""
    entries = list(entries)
    sources = tuple(sources)
    findings: list[Finding] = []
    found = repeats(entries, sources, paraphrases)
    for repeat in found:
        every = (repeat.kept, *repeat.copies, *repeat.also)
        for copy in repeat.copies:
            same = _normal(copy.content) == _normal(repeat.kept.content)
            others = [e for e in every if e is not copy]
            also = ", ".join(_where(e) for e in others[1:])
            why = why_stays(copy, repeat)  # who reads which file: agents.who_reads_twice
            judge = repeat.judged_by(copy).removeprefix("llm:")
            findings.append(Finding(
                kind="duplicate" if same else "near-duplicate", severity=Severity.info,
                message=(f"{'repeats' if same else 'states the same fact as'} {_where(repeat.kept)}"
                         f"{f' (also {also})' if also else ''}"
                         + (f", as judged by {judge} (no rule tells them apart)" if judge else "")
                         + ("; this copy says more: bring it together by hand" if why == SAYS_MORE
                            else "; under another heading, which may need it too: bring them together by hand"
                            if why == ANOTHER_HEADING
                            else f"; an item of the list under “{copy.raw.get(INTRO)}”, which it completes: "
                            "bring them together by hand" if why == ANOTHER_LIST
                            else "; a step of a numbered list whose other steps are not repeats: "
                            "removing it would leave the procedure with a step missing" if why == A_STEP
                            else "; the paragraph after it refers back to it: bring them together by hand"
                            if why == REFERRED
                            else ": bring them together by hand" if why == JUDGED
                            else f"; {why}: bring them together by hand"
                            if why in (ANOTHER_STATUS, A_PARENT, A_POINTER, TOO_SHORT, SIBLING_FILE, A_TITLE)
                            else f"; the {len(repeat.under)} line(s) it introduces repeat too: it goes with them"
                            if repeat.under else ": an agent that loads both reads it twice")),
                source=copy.location.path, line=copy.location.start_line, entry=copy.id,
                fix=None if why else RemoveRepeatFix(entry=copy.id, kept=repeat.kept.id),
                related=[{"source": e.location.path, "line": e.location.start_line, "entry": e.id,
                          "message": "the copy kept" if e is repeat.kept else
                          "another copy" if e in repeat.copies else "the same fact, in other words"} for e in others]))
    for label, others in labels_alike(entries, found, (*sources, *DEFAULT_SOURCES)):
        findings.append(_by_hand("duplicate", label, others, "the same label, introducing other lines",
                                 f"repeats {', '.join(_where(o) for o in others)}, but the lines each introduces "
                                 "differ: bring them together by hand"))
    _, lines = _labels_and_lines(entries, MIN_FACT_WORDS)
    for block, bullets in listed_in_code(entries):
        findings.append(_by_hand("near-duplicate", block, bullets, "the same command, as a list item",
                                 f"its commands are listed as items too ({', '.join(_where(b) for b in bullets)}): an "
                                 "agent that loads both reads them twice; keep one form by hand",
                                 _same_label(block, bullets, lines)))
    return findings


def _same_label(block: Entry, bullets: list[Entry], lines: dict[str, list[Entry]]) -> list[dict[str, Any]]:
    """The two forms of one list under one label written the same ("Target repositories from key opinion
    leaders and expert organizations:" before the list in one file, before the block in the other): each
    copy of the label, named with them (it goes with the form that goes); none where the labels differ."""
    mine = _label_before(block, lines)
    if mine is None:
        return []
    theirs = {id(x): x for b in bullets if (x := _label_before(b, lines)) is not None
              and x.location.path != block.location.path and _normal(x.content) == _normal(mine.content)}
    return [{"source": x.location.path, "line": x.location.start_line, "entry": x.id,
             "message": "the same label, before each form"} for x in (mine, *theirs.values())] if theirs else []


def _label_before(unit: Entry, lines: dict[str, list[Entry]]) -> Entry | None:
    """The line right before ``unit`` in its file (at most one blank line between), where it introduces
    what follows ("…:")."""
    siblings = lines.get(unit.location.path, [])
    before = [e for e in siblings if e.location.end_line < unit.location.start_line]
    if not before:
        return None
    last = max(before, key=lambda e: e.location.end_line)
    if unit.location.start_line - last.location.end_line > 2 or last.source == "heading" or not _introduces(last.content):
        return None
    return last


def _by_hand(kind: str, unit: Entry, others: list[Entry], what: str, message: str,
             also: list[dict[str, Any]] | None = None) -> Finding:
    """A repeat with no fix (which form stays is the team's to say), on ``unit``, naming ``others``, each
    as ``what``, then ``also``."""
    return Finding(kind=kind, severity=Severity.info, message=message, source=unit.location.path,
                   line=unit.location.start_line, entry=unit.id,
                   related=[*({"source": o.location.path, "line": o.location.start_line, "entry": o.id, "message": what}
                              for o in others), *(also or ())])


def _without(text: str, start: int, end: int) -> str:
    """``text`` without lines ``start..end`` (1-based, inclusive), and without the second of two blank
    lines the removal would bring together."""
    text = replace_lines(text, start, end, None)
    lines = editor_lines(text, keepends=True)
    at = start - 1  # the line now where the removed ones began
    if 0 < at < len(lines) and not lines[at].strip() and not lines[at - 1].strip():
        del lines[at]
    return "".join(lines)


def _headings(lines: list[str]) -> list[tuple[int, int]]:
    """The ATX headings of Markdown ``lines`` outside fenced code: (index, level)."""
    fences = Fences()
    out: list[tuple[int, int]] = []
    for i, line in enumerate(lines):
        if not fences.code(line) and (m := ATX_HEADING.match(line)):
            out.append((i, len(m.group(1))))
    return out


def _holds(lines: list[str], heads: list[tuple[int, int]], k: int) -> bool:
    """Whether the section of heading ``k`` (its subsections too) holds a line that is not blank."""
    at, level = heads[k]
    end = next((i for i, lv in heads[k + 1:] if lv <= level), len(lines))
    return any(line.strip() for line in lines[at + 1:end])


def _no_empty_sections(before: str, after: str) -> str:
    """``after`` without the headings whose sections held something in ``before`` and hold nothing now
    (all their lines removed as repeats: beads' "### Priorities" over the five priorities AGENTS.md lists),
    nor a blank line that would double. Headings the removal left alone keep their place."""
    lines = editor_lines(after, keepends=True)
    old = editor_lines(before, keepends=True)
    had = [_holds(old, _headings(old), k) for k in range(len(_headings(old)))]
    heads = _headings(lines)
    if len(heads) != len(had):
        return after  # (a removed unit held a heading line: leave the file as the removal made it)
    k = len(heads) - 1
    while k >= 0:
        if had[k] and not _holds(lines, heads, k):
            at = heads[k][0]
            del lines[at]
            if at < len(lines) and not lines[at].strip() and (at == 0 or not lines[at - 1].strip()):
                del lines[at]
            del had[k]
            heads = _headings(lines)
            k = len(heads) - 1  # (a section above may hold nothing now either)
            continue
        k -= 1
    return "".join(lines)


#: The most words of a title (a label without a colon) that goes with the block it titles.
_TITLE_MAX_WORDS = 8


def _orphaned_labels(units: list[Entry], gone: set[str]) -> list[Entry]:
    """The labels of ``units`` (one file's, in line order) that would introduce nothing once ``gone`` is
    removed: a paragraph that ends with a colon, or a title of a few words and no sentence's end written
    as one bold span ("**Organization**") or over the list after it ("Core Rules"), whose block right after
    it (a code block, a list, up to the next paragraph or heading) all goes; and a list item ending with
    a colon all of whose nested items go. A bold sentence ("**Never push to main.**") is a rule of its
    own, never a label that goes."""
    out: list[Entry] = []
    for k, label in enumerate(units):
        if label.id in gone:
            continue
        text = label.content.strip()
        if label.source == "paragraph":
            run: list[Entry] = []
            end = label.location.end_line
            for unit in units[k + 1:]:
                if (unit.location.start_line > end + 2 or unit.source in ("paragraph", "heading")
                        or unit.section != label.section):
                    break
                run.append(unit)
                end = unit.location.end_line
            title = len(text.split()) <= _TITLE_MAX_WORDS and not text.rstrip("*_ ").endswith((".", "!", "?"))
            if not (_introduces(text) or (title and (_BOLD_ONLY.match(text) or (
                    run and run[0].raw.get(INTRO) == label.content)))):
                continue
        elif label.source == "bullet" and _introduces(text):
            run = [u for u in units if u.raw.get(PARENT_ITEM) == label.location.start_line]
        else:
            continue
        if run and all(u.id in gone for u in run):
            out.append(label)
    return out


def removal(store: Store, copies: Iterable[Entry], reason: str) -> Operation | None:
    """The journaled operation that removes ``copies`` (instruction units) from their files, several of
    one file as one change of it (from the bottom up, so that line numbers hold), with the labels and the
    headings they leave introducing nothing. ``None``: nothing to remove."""
    by_file: dict[str, list[Entry]] = {}
    for entry in copies:
        if entry.format != "instruction":
            raise ValueError(f"{entry.id} is not a line of an instruction file")
        by_file.setdefault(entry.location.path, []).append(entry)
    changes: list[FileChange] = []
    ids: list[str] = []
    for path, units in sorted(by_file.items()):
        # a label left introducing nothing goes with what it introduced
        lines = sorted((e for e in store.entries if e.format == "instruction" and e.live and e.location.path == path),
                       key=lambda e: e.location.start_line)
        units = [*units, *_orphaned_labels(lines, {u.id for u in units})]
        before = store.read_file(path)
        text = before.decode("utf-8-sig")
        for unit in sorted(units, key=lambda e: e.location.start_line, reverse=True):
            text = _without(text, unit.location.start_line, unit.location.end_line)
            ids.append(unit.id)
        after = _no_empty_sections(before.decode("utf-8-sig"), text).encode("utf-8")
        if before.startswith(b"\xef\xbb\xbf"):
            after = b"\xef\xbb\xbf" + after
        changes.append(FileChange(path, before, after))
    if not changes:
        return None
    return Operation(op="remove-repeat", reason=reason, changes=changes, entries=ids)
