"""Memories that may speak of one subject, though the verifier cannot tell that one replaces the other.

Real memory records a change as a new statement in new words: "`make lint` or `uv run ruff check src` -
Run code linting" becomes "`uv run ruff check src tests`: lint the codebase"; "Run solar-cli locally: …"
becomes "Run home-mcp locally: …"; "**Bot Framework**: Built on `python-telegram-bot` …" becomes
"**Bot Framework**: Built on `aiogram` v3 …". The verifier calls a pair a conflict only when it can say
what differs (:mod:`.updates`); these pairs it cannot, and shown side by side, undated, the older reads
as current as much as the newer.

So the renderings ask here, and date the older of two *related* memories under the newer ("older,
2025-05-25: …") rather than call either replaced: a relation is a reason to show a date, never to drop,
merge or flag anything. Two memories are related when, in one scope (:func:`.scope.apart`), they

- open with the same label ("Run tests:", "**Bot Framework**:"; two different labels name two subjects);
- run the same command (the same tool and subcommand: `uv run ruff check .` / `uv run ruff check --fix .`);
- open with the same three words, one of them a content word ("MCP servers are configured …" / "MCP
  servers are assembled …"; not two command lines: "npm run release:minor" / "npm run release:patch");
- are two sentences that open with the same code span, the thing they speak of ("`main` is currently the
  V2 rework." / "`main` is the current stable line (v2)"; not a list of spans: "`id`, `name`, …");
- are two command lines whose comments say they do the same ("npm run version:minor  # For new features"
  / "npm run release:minor  # New features": a script renamed);
- share most of their prose words (at least half, and two or more);
- are two sentences (four words or more, no label; not a lead-in ending in a colon, not a table row; not
  both running commands or opening with two different code spans, which would be two subjects) where one's prose words, two or more, are all among the
  other's ("Do not use type annotations." / "Add types where sensible, but avoid overly verbose
  annotations."), or that name a folder and its subfolder with a prose word in common ("… move it to
  `_blueprint/archive/`" / "Completed specs move to `_blueprint/archive/features/` …"), or two sibling
  folders with two (`_blueprint/implement/` / `_blueprint/features/`, "plan mode"); or
- are one sentence with one name swapped ("Build solar-cli image: `docker build -t solar-cli:latest …`"); or
- one says there is none of something yet ("Early-stage; no projects yet.") and the other names it
  ("Projects live in `projects/`, each with its own `pyproject.toml`"); or
- are two short statements of one job done with another tool, of one language or a task runner
  ("Format code with Black and Flake8 conventions." / "Lint and format with `make lint`.").

A name swapped in one pair is swapped in the labels too: "Run solar-cli locally: …" / "Run home-mcp
locally: …" relate "**solar-cli** — CLI agent …" and "**home-mcp** — MCP server …".

Invariant: pure functions of the entries (texts, scopes); no I/O."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz import fuzz

from ..core.candidates import rare_key_pairs
from ..core.model import Entry
from ..core.text import TEXT_CACHE
from .parse import stem
from .scope import apart, is_history
from .updates import context, jobs_of, qualified_apart
from .verify import fact_key
from .vocabulary import tools_in

#: Commands that run another tool: a command's head is the runner, the tool and its subcommand.
_RUNNERS = frozenset(("uv run", "poetry run", "pipenv run", "pdm run", "hatch run", "npm run", "pnpm run", "yarn run",
                      "bun run", "python -m", "python3 -m", "bundle exec", "php artisan", "npx", "bunx", "pnpx"))
#: Tools whose first argument is the subcommand (`cargo test`, `make lint`, `docker build`).
_TOOLS = frozenset("cargo go make just docker git uv npm pnpm yarn bun dotnet mix rake composer gradle mvn kubectl"
                   " helm terraform deno".split())
#: A leading label: "**Bot Framework**:", "**Run dev server:**", "Run tests:" (a few words before a colon).
_LABEL = re.compile(r"^\s*(?:(?:[-*+]|\d+[.)])\s+)?(?:\*\*(?P<bold>[^*`]{2,60}?):?\*\*:?|(?P<plain>[A-Za-z][^:`*\n]{1,50}):)(?:\s|$)")
_CODE = re.compile(r"`([^`\n]+)`")
_OPENING = re.compile(r"^\s*(?:(?:[-*+]|\d+[.)])\s+)?`([^`\n]+)`")
_DIGITS = re.compile(r"\d+")
_WORDS = re.compile(r"[A-Za-z0-9][\w'-]*")
#: A name-like token: words joined by a hyphen, slash or dot (`solar-cli`, `src/bot/retry_utils.py`).
_NAME = re.compile(r"(?<![\w./-])[A-Za-z0-9]\w*(?:[-./]\w+)+/?")
#: Stems too common to say what two memories are about.
_WEAK = frozenset("use run make alway never do not don't the a an to for of in on with and or is are be".split())

#: The share of prose words two related memories have in common (of those either has).
WORDS_SHARED = 0.5
#: How alike two texts are once one name of one is swapped for one of the other's (rapidfuzz ratio).
RENAMED_RATIO = 90.0
#: The most words a statement of a job and its tool has ("Lint and format with `make lint`."): a longer
#: text says more than which tool does the job.
JOB_WORDS = 12


@dataclass(frozen=True)
class _Shape:
    label: str | None
    commands: frozenset[str]
    lead: str | None
    words: frozenset[str]
    names: frozenset[str]
    low: str
    #: Folders and files the text names in code (`_blueprint/archive/`), without ./ and a final /.
    paths: frozenset[str] = frozenset()
    #: The code span the text opens with ("`ty check`: Run type checking"), if any.
    opening: str | None = None
    #: What the text says there is none of yet ("no projects yet": the stem "project").
    absent: frozenset[str] = frozenset()
    #: What a command line says it is for, in its comment ("npm run release:minor  # New features": the
    #: stem "featur"); empty for any other text.
    purpose: frozenset[str] = frozenset()
    #: Whether the code span it opens with is what it speaks of ("`main` is …"; not "`id`, `name`, …").
    about_opening: bool = False


_SUBCOMMAND = re.compile(r"[a-z][\w:-]*")
#: Subcommands that make a two-word command of an unknown tool (`prek run`).
_VERBS = frozenset("run test build check lint format install start serve dev deploy".split())


def _heads(command: str, bare: bool = False) -> set[str]:
    """What a command runs: its runner, tool and subcommand (`uv run ruff check`) and the tool and
    subcommand alone (`ruff check`: `prek run -a` is `uv run prek run -a` without uv), or a tool and its
    subcommand (`make lint`, `prek run`). A command of one word gives none (a bare tool says nothing of
    what it is run for). ``bare``: a line of prose that may be a command: only a known tool or runner
    starts one."""
    words = command.lower().split()
    for n in (2, 1):
        if " ".join(words[:n]) in _RUNNERS and len(words) > n:
            rest = [w for w in words[n:] if not w.startswith("-")]
            sub = [w for w in rest[1:2] if _SUBCOMMAND.fullmatch(w)]
            if not rest:
                return set()
            return {" ".join([*words[:n], *rest[:1], *sub])} | ({" ".join([*rest[:1], *sub])} if sub else set())
    if words and words[0] in _TOOLS:  # a known tool's options come before its subcommand: `make -C libs bench-all`
        words = [words[0], *_without_options(words[1:])]
    if len(words) >= 2 and _SCRIPT.fullmatch(words[0]) and _SUBCOMMAND.fullmatch(words[1]):
        return {f"{words[0].replace(chr(92), '/')} {words[1]}"}  # a project's script: `.\treemon.ps1 deploy`
    if len(words) >= 2 and _SUBCOMMAND.fullmatch(words[0]) and _SUBCOMMAND.fullmatch(words[1]) and (
            words[0] in _TOOLS or (not bare and (len(words) > 2 or words[1] in _VERBS))):
        if words[1] == "run" and words[0] not in _TOOLS and len(words) > 2 and _SUBCOMMAND.fullmatch(words[2]):
            return {" ".join(words[:3])}  # a task runner's task: `mise run lint`, `mise run test:unit`
        return {f"{words[0]} {words[1]}"}
    return set()


#: A project's own script run by its path (`./scripts/release.sh`, `.\treemon.ps1`, `bin/dev`): its first
#: argument is its subcommand, as a tool's is.
_SCRIPT = re.compile(r"(?:\.{1,2}[\\/]|bin/)[\w./\\-]+|[\w./\\-]+\.(?:sh|ps1|bat|cmd)")

#: Options of a tool that take the next word as their value: where it runs (`make -C libs`, `git -C repo`,
#: `npm --prefix web`), which file or package (`make -f ci.mk`, `pnpm -F docs`, `cargo -p core`); lowercase, as
#: :func:`_heads` reads a command.
_VALUE_OPTIONS = frozenset("-c -f --file --directory --prefix --dir --cwd --filter -p --package --manifest-path -w"
                           " --workspace".split())


def _without_options(words: list[str]) -> list[str]:
    """``words`` from the first that is not an option (``-C libs bench-all``: ``bench-all``)."""
    k = 0
    while k < len(words) and words[k].startswith("-"):
        k += 2 if words[k] in _VALUE_OPTIONS and "=" not in words[k] else 1
    return words[k:]


@lru_cache(maxsize=TEXT_CACHE)
def _shape(text: str) -> _Shape:
    label_match = _LABEL.match(text)
    label = None
    if label_match:
        raw = (label_match.group("bold") or label_match.group("plain") or "").strip().lower()
        label = raw if 0 < len(raw.split()) <= 6 else None
    codes = _CODE.findall(text)
    # a line that is a command ("uv run ruff check ."), with or without a comment after it
    bare: set[str] = set() if codes else _heads(text.split(" #", 1)[0], bare=True)
    commands = frozenset(h for code in codes for h in _heads(code)) | frozenset(bare)
    prose = text.split(" #", 1)[1] if bare and " #" in text else "" if bare else _CODE.sub(" ", text)
    words = frozenset(w for w in context(prose) if not w.startswith("="))
    opening = [w.lower() for w in _WORDS.findall(re.sub(r"[*_`]", "", text))[:3]]
    lead = None
    # (a command line's first words are its command: "npm run release:minor" / "npm run release:patch" are
    # two commands, which its heads tell apart)
    if not bare and len(opening) == 3 and any(w not in _WEAK and len(w) > 2 and not w.isdigit() for w in opening[:2]):
        lead = " ".join(opening)
    names = frozenset(n.lower().rstrip("./") for n in _NAME.findall(text))
    paths = frozenset(p for code in codes if (p := _path(code)))
    opens = _OPENING.match(text)
    absent = frozenset(_stems(m.group("what")) for m in _NONE_YET.finditer(text)) - {""}
    listed = opens is not None and text[opens.end():].lstrip().startswith(",")  # "`id`, `name`, …": a list
    return _Shape(label, commands, lead, words, names, " ".join(text.lower().split()), paths,
                  opens.group(1).lower() if opens else None, absent,
                  words if bare and " #" in text else frozenset(), opens is not None and not listed)


def commands_in(text: str) -> frozenset[str]:
    """What the commands a text runs run: each as its runner, tool and subcommand (`uv run ruff check`),
    and its tool and subcommand (`ruff check`), from its code spans, or from the line itself where it is
    a bare command ("uv run ruff check .")."""
    return _shape(text).commands


#: "no projects yet", "No tests so far", "none of the services yet": a state that lasts until the thing is made.
_NONE_YET = re.compile(r"\b(?:no|none of the)\s+(?P<what>[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*)?)\s+(?:yet|so far)\b", re.I)


def _stems(phrase: str) -> str:
    return " ".join(stem(w) for w in _WORDS.findall(phrase.lower()))


def _names_of(text: str) -> str:
    """The stems of a text's words, names and paths included, as one string with spaces around."""
    return f" {_stems(text.replace('/', ' ').replace('-', ' '))} "


def _statement(shape: _Shape) -> bool:
    """A sentence of four words or more with no label: not a lead-in ("**Error Handling**:"), a table row
    or a name."""
    text = shape.low.rstrip("*_ ")
    return (shape.label is None and not text.endswith(":") and not text.startswith("|")
            and len(_WORDS.findall(text)) >= 4)


def _path(code: str) -> str | None:
    """A code span that is a path of two parts or more (`_blueprint/archive/`, `src/db/models.py`)."""
    text = code.strip().removeprefix("./").rstrip("/").lower()
    if " " in text or "/" not in text or "://" in text or text.startswith(("/", "~", "$")):
        return None
    return text if all(text.split("/")) else None


def _paths_related(sa: _Shape, sb: _Shape) -> bool:
    """Two texts naming folders of one tree where the other names its parent, or a sibling of it, with
    prose words in common: one, for a folder and what it holds (`_blueprint/archive/` /
    `_blueprint/archive/features/`, "move completed plans"); two for siblings, which are as often two
    subjects side by side (`src/api/` / `src/db/`)."""
    if not sa.paths or not sb.paths or sa.paths & sb.paths:
        return False
    shared = len((sa.words & sb.words) - _WEAK)
    for x in sa.paths:
        for y in sb.paths:
            if shared >= 1 and (y.startswith(x + "/") or x.startswith(y + "/")):
                return True
            if shared >= 2 and x.rsplit("/", 1)[0] == y.rsplit("/", 1)[0]:
                return True
    return False


def related(a: str, b: str) -> str | None:
    """Why two texts may speak of one subject ("label", "command", "lead", "opening", "purpose", "words",
    "paths", "renamed", "yet", "job"), else ``None``. The same fact (the verifier's key) is not a relation: that is a duplicate."""
    sa, sb = _shape(a), _shape(b)
    if _DIGITS.sub("#", sa.low) == _DIGITS.sub("#", sb.low):
        # the same sentence but for its numbers: numbered things ("Service 1" / "Service 2") or a value the
        # verifier judges (a version, a port, a timeout); never a loose relation
        return None
    for none, other in ((sa, sb), (sb, sa)):  # "no projects yet" / a text that names a project
        if none.absent and not other.absent and any(f" {what} " in _names_of(other.low) for what in none.absent):
            return "yet"
    if (sa.label or sb.label) and _narrowed(_head(a), _head(b)) and _words_held(sa, sb):
        return "label"  # one rule, narrowed: "**NEVER use loops** — …" / "**NEVER use loops to build values** — …"
    if sa.label and sb.label:  # two labels name the subjects: "Lint: `make check`" / "Run tests: `make check`"
        return "label" if sa.label == sb.label else "renamed" if _renamed(sa, sb) else None
    if sa.commands & sb.commands:
        return "command"
    if sa.lead and sa.lead == sb.lead and not (sa.opening and sb.opening and sa.opening != sb.opening):
        return "lead"  # (not the words of two code spans: "`mise run test:unit` - …" / "`mise run test:e2e` - …")
    if sa.about_opening and sb.about_opening and sa.opening == sb.opening and _statement(sa) and _statement(sb):
        return "opening"  # two statements about the code each opens with: "`main` is …" / "`main` is …"
    if sa.purpose and sa.purpose == sb.purpose:
        return "purpose"  # two commands said to do one thing: "npm run version:minor  # For new features"
    if _words_shared(sa, sb):
        return "words"
    shared = sa.words & sb.words
    # two commands, or two texts about the code each opens with, are two subjects
    if (_statement(sa) and _statement(sb) and not (sa.commands and sb.commands)
            and not (sa.opening and sb.opening and sa.opening != sb.opening)):
        if len(shared) >= 2 and shared in (sa.words, sb.words):
            return "words"
        if _paths_related(sa, sb):
            return "paths"
    if _renamed(sa, sb):
        return "renamed"
    if _one_job(a, b):
        return "job"
    return None


def named_apart(a: str, b: str) -> bool:
    """Whether two texts name two subjects by their form, whatever their words: two labels ("Run tests:
    `poetry run pytest`" / "Type checking: `poetry run mypy`"; not one narrowed by the other), two commands
    with nothing in common (`uv run pytest -m integration` / `uv run pytest tests/<path>.py`, `make lint` /
    `make test`), two code spans each opens with, one sentence with other numbers (as :func:`related`
    reads it: numbered things, or a value only the verifier may call changed), or two qualifiers ("maximum"
    / "average" chunk size, staging / production: :func:`.updates.qualified_apart`). What relates two memories by meaning alone
    (the semantic stage's nearest pairs) never joins such a pair."""
    sa, sb = _shape(a), _shape(b)
    if _DIGITS.sub("#", sa.low) == _DIGITS.sub("#", sb.low):
        return True  # numbered things ("Service 1" / "Service 2"), or a value the verifier is the judge of
    if sa.label and sb.label and sa.label != sb.label and not _narrowed(_head(a), _head(b)):
        return True
    if sa.commands and sb.commands and not sa.commands & sb.commands:
        return True
    return bool(sa.opening and sb.opening and sa.opening != sb.opening) or qualified_apart(a, b)


def _words_shared(sa: _Shape, sb: _Shape) -> bool:
    """Whether two texts share most of their prose words (:data:`WORDS_SHARED` of those either has, two or more)."""
    shared = sa.words & sb.words
    return len(shared) >= 2 and len(shared) >= WORDS_SHARED * len(sa.words | sb.words)


#: A text's leading bold span, of any length ("**NEVER use loops to build or accumulate values**").
_BOLD_HEAD = re.compile(r"^\s*(?:(?:[-*+]|\d+[.)])\s+)?\*\*([^*`]{2,160}?):?\*\*")


def _head(text: str) -> str:
    """The words of a text's label or leading bold span, lowercase ("" without one)."""
    found = _BOLD_HEAD.match(text) or _LABEL.match(text)
    if found is None:
        return ""
    return " ".join((found.group(1) if found.re is _BOLD_HEAD else found.group("bold") or found.group("plain") or "")
                    .lower().split())


def _words_held(sa: _Shape, sb: _Shape) -> bool:
    """Whether two texts share most of their prose words, or one's, two or more, are all among the other's."""
    shared = sa.words & sb.words
    return _words_shared(sa, sb) or (len(shared) >= 2 and shared in (sa.words, sb.words))


def _narrowed(a: str, b: str) -> bool:
    """Whether one label is the other with words added after it ("never use loops" / "never use loops to
    build or accumulate values"): the same rule, narrowed; "Testing" / "Testing UI" name one subject and a
    part of it, which the caller tells apart by the words that follow."""
    wa, wb = a.split(), b.split()
    short, long_ = (wa, wb) if len(wa) < len(wb) else (wb, wa)
    return len(short) >= 2 and long_[:len(short)] == short and any(w not in _WEAK for w in short)


#: The words a statement of a job opens with, up to the tool: "Lint and format with", "Format code using".
_JOB_LEAD = re.compile(r"^\s*(?:(?:[-*+]|\d+[.)])\s+)?([A-Za-z][A-Za-z -]{1,40}?)\s+(?:with|using|via|through)\s", re.I)
#: Tools that run what a project defines (`make lint`, `just fmt`): they do any job, in any language.
_RUNS_TASKS = "task-runner"


def _one_job(a: str, b: str) -> bool:
    """Two short statements that name one job (formatting, linting, type checking, testing) and a
    different tool for it, of one language or a task runner: "Format code with Black and Flake8
    conventions." / "Lint and format with `make lint`.", each opening with the job. Not "Format with Black"
    / "Lint with Ruff" (two jobs), nor Black / Prettier (two languages)."""
    if len(_WORDS.findall(a)) > JOB_WORDS or len(_WORDS.findall(b)) > JOB_WORDS:
        return False
    # each opens with the job, as a verb ("Format code with …", "Lint and format with …"): a command listed
    # with what it does ("`task test:parallel` - Run tests in parallel"), or a label, is about its command
    lead_a, lead_b = _JOB_LEAD.match(a), _JOB_LEAD.match(b)
    if lead_a is None or lead_b is None:
        return False
    jobs = jobs_of(lead_a.group(1)) & jobs_of(lead_b.group(1))
    if not jobs or not jobs_of(lead_a.group(1).split()[0]) or not jobs_of(lead_b.group(1).split()[0]):
        return False  # (the first word is the job: "Use X with Y" is not a statement of a job)
    ta, tb = tools_in(a), tools_in(b)
    if not ta or not tb or ta.keys() & tb.keys():
        return False

    def doers(tools: dict[str, frozenset[str]]) -> set[str]:
        """The languages of the tools that do one of ``jobs`` ("" for a task runner)."""
        return {"" if role == _RUNS_TASKS else role.removesuffix(job) for roles in tools.values() for role in roles
                for job in jobs if role == _RUNS_TASKS or role == job or role.endswith("-" + job)}

    da, db = doers(ta), doers(tb)
    return bool(da and db and ("" in da or "" in db or da & db))


def _renamed(sa: _Shape, sb: _Shape) -> bool:
    return _swap(sa, sb) is not None


def _swap(sa: _Shape, sb: _Shape) -> tuple[str, str] | None:
    """The name of ``sa`` that, swapped for one of ``sb``'s, makes the two texts nearly the same (each by its
    last path part: `solar-cli` / `home-mcp`), else ``None``."""
    only_a, only_b = sorted(sa.names - sb.names)[:6], sorted(sb.names - sa.names)[:6]
    if not only_a or not only_b or abs(len(sa.low) - len(sb.low)) > 0.5 * max(len(sa.low), len(sb.low)):
        return None
    for x in only_a:
        swapped_pattern = re.compile(rf"(?<![\w-]){re.escape(x)}(?![\w-])")
        for y in only_b:
            if fuzz.ratio(swapped_pattern.sub(y, sa.low), sb.low) >= RENAMED_RATIO:
                return x.rsplit("/", 1)[-1], y.rsplit("/", 1)[-1]
    return None


def _keys(shape: _Shape) -> set[str]:
    keys = {f"w:{w}" for w in shape.words} | {f"c:{c}" for c in shape.commands} | {f"n:{n}" for n in shape.names}
    if shape.label:
        keys.add(f"l:{shape.label}")
    if shape.lead:
        keys.add(f"p:{shape.lead}")
    if shape.about_opening:
        keys.add(f"o:{shape.opening}")
    if shape.purpose:
        keys.add(f"u:{' '.join(sorted(shape.purpose))}")
    for path in shape.paths:  # a folder, and its parent: a folder and its subfolders, and siblings, meet
        keys.update((f"f:{path}", f"f:{path.rsplit('/', 1)[0]}"))
    return keys


@dataclass(frozen=True)
class Relation:
    a: Entry
    b: Entry
    why: str


def related_pairs(entries: Sequence[Entry]) -> list[Relation]:
    """Pairs of ``entries`` in one scope that :func:`related` joins (in no order: which is older is the
    caller's to say). Candidates share one of their rarer subject keys (words, commands, names,
    labels), so that a store of thousands stays quick."""
    usable = [e for e in entries if not is_history(e.content)]
    shapes = [_shape(e.content) for e in usable]
    keys = [_keys(shape) for shape in shapes]
    absent = {what for shape in shapes for what in shape.absent}
    if absent:  # "no projects yet" meets the texts that name a project
        for shape, mine in zip(shapes, keys, strict=True):
            named = _names_of(shape.low)
            mine.update(f"y:{what}" for what in absent if f" {what} " in named)
    out: list[Relation] = []
    # labels, commands and openings first (they say most), then the rarest words and names
    for i, j in rare_key_pairs(keys, cap=min(40, max(12, len(usable) // 10)), per_item=6, min_postings=2,
                               rank=lambda key, held: (int(key[0] not in "lcpyou"), held)):
        a, b = usable[i], usable[j]
        if apart(a, b):
            continue
        why = related(a.content, b.content)
        if why is None or fact_key(a.content) == fact_key(b.content):
            continue
        out.append(Relation(a, b, why))
    out += _renamed_labels(usable, shapes, out)
    out.sort(key=lambda r: (r.a.id, r.b.id))
    return out


def _renamed_labels(entries: Sequence[Entry], shapes: Sequence[_Shape], found: Sequence[Relation]) -> list[Relation]:
    """A thing renamed in one memory is renamed where another names it as its label: "Run solar-cli
    locally: …" / "Run home-mcp locally: …" (one name swapped) relate "**solar-cli** (`projects/solar-cli`) —
    CLI agent …" and "**home-mcp** (`projects/home-mcp`) — MCP server …", in one scope, though their words
    differ; a third label of the same form (`tech-mcp`), never swapped, stays apart from both."""
    swaps: set[frozenset[str]] = set()
    for r in found:
        if r.a.format == "instruction" and r.b.format == "instruction" and r.a.location.path == r.b.location.path:
            continue  # two lines of one file stand side by side: one name beside another, not renamed
        if r.why == "renamed" and (pair := _swap(_shape(r.a.content), _shape(r.b.content))) and pair[0] != pair[1]:
            swaps.add(frozenset(pair))
    if not swaps:
        return []
    by_label: dict[str, list[Entry]] = {}
    for entry, shape in zip(entries, shapes, strict=True):
        if shape.label:
            by_label.setdefault(shape.label, []).append(entry)
    known = {frozenset((r.a.id, r.b.id)) for r in found}
    out: list[Relation] = []
    for pair in sorted(swaps, key=sorted):
        x, y = sorted(pair)
        for a in by_label.get(x, ()):
            for b in by_label.get(y, ()):
                if frozenset((a.id, b.id)) not in known and not apart(a, b):
                    out.append(Relation(a, b, "renamed"))
    return out
