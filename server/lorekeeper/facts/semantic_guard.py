"""When the embedding may vouch for two texts the verifier calls different: the guard.

Cosine similarity cannot tell "max line length is 100" from "... is 120" (~0.99), nor "Staging uses
cert-manager" from "Production uses cert-manager". The verifier (:mod:`..compaction.verify`) decides
first: "same" merges, "conflict" is reported, never merged. For "different", the embedding may vouch for
the *wording* — voice, clause order, synonyms, a nominalisation — but never for a differing name:

- every literal, code word, number, version, path, e-mail, known tool and proper name of one text must
  appear in the other, or one side must only add some (the keeper is then the side that adds them, and
  it must be the newer one: an older text with more is an update that dropped something); a name written
  in two ways that name one thing counts once (`pnpm run lint` / `pnpm lint`, `reset()` / `reset`, "2-space"
  / "2 spaces"), and names a text gives only as examples ("(e.g. `Azure`, `GitHub`)") may be left out;
- no item joined to a name both write ("`crush.json`" / "`crush.json` and `crushrc`": the list grew), and
  one command is not described as two things (comments that share no word);
- no pair of opposite words ("enabled" / "disabled");
- the same polarity, counting prohibitions ("forbidden", "banned") as negations; a negation on one
  side only is accepted when it is about things the other text does not mention ("use pnpm" / "use
  pnpm, not npm or yarn");
- the same words in another order only as a change of voice ("X manages Y" / "Y is managed by X") or the
  two sides of an "and" swapped, never a reversal of roles ("orders calls payments" / "payments calls orders");
- a restriction ("only", "except", "unless") on both sides or neither;
- no word that says *which* thing ("payments module" / "billing module", "Free-tier" / "Trial"), nor how
  many ("at least one" / "exactly one"), nor another flag or flag value of a command (`--group test` /
  `--group test-optional`).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from ..core.text import other_script
from . import parse, verify
from .subjects import commands_in
from .vocabulary import tools_in


@dataclass(frozen=True)
class Vouch:
    ok: bool
    reason: str  # why not; or, when ok, what was weighed ("the newer says more; cosine 0.57")
    keeper: str = ""  # "a" or "b": the side whose text the merge keeps ("" when either)


_ALNUM = re.compile(r"(?<![\w.-])(?=[\w.-]*\d)(?=[\w.-]*[A-Za-z])[A-Za-z0-9][\w.-]*[A-Za-z0-9]")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
#: The runs of e-mails :data:`_EMAIL` finds one after another (``a@b.com+c@d.com``), each run matched from
#: where a run of its characters starts: a local part is read once (possessive, from its start only),
#: and each domain once (atomic: the one :data:`_EMAIL` takes).
_EMAILS = re.compile(r"(?<![\w.+-])(?:[\w.+-]++@(?>[\w-]+(?:\.[\w-]+)+))+")
_HEADING = re.compile(r"^\s*(?:(?:[-*+]|\d{1,3}[.)])\s+)?(?:[⬜☐✅✔☑]\s*)?\*\*[^*]+\*\*\s*:?")
_CAPITAL = re.compile(r"(?<=[a-z0-9,;)] )[A-Z][A-Za-z]+")
#: A path-like run. It starts only where a run of its characters starts: from any other character of
#: the run it would find the same ``/`` or none (and a run is read once, possessively, not once from
#: each of its characters).
_PATHISH = re.compile(r"(?<![\w./@{}~-])[\w.@{}~-]*+/[\w./@{}~-]+")
#: Capitalised names joined by slashes ("React/TypeScript/Tailwind", "Express/TypeScript/PostgreSQL"): a
#: list of names, each of which the other text may write apart.
_NAME_LIST = re.compile(r"[A-Z][A-Za-z0-9+#]*(?:/[A-Z][A-Za-z0-9+#]*)+")
_PASSIVE = re.compile(r"\b(?:is|are|was|were|be|been|being|gets?|got)\s+(?:\w+ly\s+)?\w+(?:ed|en|wn|t)\b(?:[^.;:]|\.(?=\S)){0,60}?\bby\b",
                      re.I)
#: Opposites the verifier's list lacks that matter for a merge (it only ever makes the guard stricter), and
#: the new against the old ("Uses newer TanStack React Query provider pattern" / "Supports both legacy React
#: Query and TanStack React Query patterns").
_OPPOSITES = {frozenset(p) for p in (("add", "drop"), ("automat", "manual"), ("success", "fail"), ("web", "mobil"),
                                     ("setup", "teardown"), ("creat", "delet"))} | \
    {frozenset((new, old)) for new in ("new", "newer", "newest", "modern", "latest", "current", "activ", "maintain")
     for old in ("old", "older", "oldest", "legaci", "deprec", "outdat", "inact", "archiv", "obsolet", "retir", "unmaintain")}
SUBSUMED_MARGIN = 0.2
#: The most words of a phrase in which one word swapped for another names another thing.
SWAPPED_MAX_WORDS = 4
#: How much closer than the threshold two texts naming the same literals need not be.
LITERALS_MARGIN = 0.1
#: Words that restrict a statement: "runs on Chromium only" is not subsumed by "runs on chromium, firefox".
_RESTRICTION = re.compile(r"\b(?:only|exclusively|solely|except|unless|just|restricted)\b", re.I)
PROHIBITIONS = frozenset("forbidden banned prohibited disallowed".split())
_CLAUSE_SPLIT = re.compile(r"[,;.()—:]|\bbut\b|\band\b")
_WORD_RUN = re.compile(r"\w+")
#: The marker of a list item: its number is where the item stands in its list ("2. ⬜ **IPFS Gateway
#: Improvements**: …"), not a number the text states.
_LIST_MARKER = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+")
#: A character that continues a word or a hyphenated name.
_WORD_CHAR = re.compile(r"[\w-]")
#: Words written in capitals to stress a rule ("you MUST read README.md", "NEVER"), which name nothing.
_EMPHASIS = frozenset("must should shall never always not only do don't important note critical required warning "
                      "all every any no none".split())
#: Abbreviations written with dots, which name nothing ("Adding enums (e.g. `ClineSay`)").
_ABBREVIATIONS = frozenset({"e.g", "e.g.", "i.e", "i.e.", "etc", "etc.", "vs", "vs.", "cf", "cf.", "a.k.a", "a.k.a.",
                            "approx", "approx."})


def names(text: str) -> tuple[set[str], set[str]]:
    """What a text names, as two sets: names that must match exactly (literals, code words,
    alphanumerics, numbers, e-mails, paths) and names another text may write in another form (known
    tools, capitalised words: "Alembic" starting one sentence, "alembic" inside another)."""
    statement = parse.parse(text)
    exact = {t.text.lower() for t in statement.tokens if t.literal and t.literal != "\x01"}
    exact |= {(t.code or "").strip("\x03").lower() for t in statement.tokens if t.code}
    body = _HEADING.sub(" ", text)
    exact |= {m.lower() for m in _ALNUM.findall(body)}
    exact |= {m.lower() for m in _emails(body)}
    listed: set[str] = set()  # "React/TypeScript/Tailwind": names side by side, not a path
    for m in _PATHISH.findall(body):
        if _NAME_LIST.fullmatch(m):
            listed.update(part.lower() for part in m.split("/"))
            exact.discard(m.lower())
        else:
            exact.add(m.lower().rstrip("./"))
    exact |= set(parse.RAW_NUMBER.findall(_LIST_MARKER.sub("", text, count=1)))
    loose = set(tools_in(text)) | {m.lower() for m in _CAPITAL.findall(body) if m.lower() not in _EMPHASIS} | listed
    exact = {_one_spelling(n) for n in exact - _ABBREVIATIONS}
    exact.discard("")
    return exact, loose - exact


#: A package manager that runs a script of the project with or without ``run`` (`pnpm run lint:fix` is
#: `pnpm lint:fix`); npm only for the scripts it has commands of its own for (`npm run test` is `npm test`).
_RUN_SCRIPT = re.compile(r"^(pnpm|yarn|bun) run (?=[\w:.-]+(?:\s|$))|^(npm) run (?=(?:test|start|stop|restart)(?:\s|$))")
#: A call written with its empty parentheses (`testReactResource()`), which names what the bare name does.
_EMPTY_CALL = re.compile(r"(?<=[\w$])\(\)$")


def _one_spelling(name: str) -> str:
    """One spelling of a name written in two ways that name one thing: a call with or without its empty
    parentheses, a script run with or without ``run`` (:data:`_RUN_SCRIPT`)."""
    quote = "`" if len(name) > 2 and name[0] == name[-1] == "`" else ""
    inner = name[1:-1] if quote else name.rstrip(".") if len(name) > 2 and not name.endswith("..") else name
    inner = _RUN_SCRIPT.sub(lambda m: f"{m.group(1) or m.group(2)} ", _EMPTY_CALL.sub("", inner))
    return quote + inner + quote


def _emails(text: str) -> list[str]:
    """What ``_EMAIL.findall(text)`` finds, in time linear in the text: :data:`_EMAIL` is run only over the
    runs of e-mails :data:`_EMAILS` finds, where each of its attempts succeeds."""
    return [found for run in _EMAILS.finditer(text) for found in _EMAIL.findall(text, run.start(), run.end())]


def _only(mine: tuple[set[str], set[str]], theirs: tuple[set[str], set[str]], other: str, own: str = "") -> set[str]:
    """The names of one text the other does not write: exact names missing from its exact names and
    from its text, loose names it does not write in any form ("SSH" / "SSH-key", "Alembic" / "alembic").
    ``own``: the text the names are of, for how it writes them."""
    low = other.lower()
    shared = mine[0] & theirs[0]
    # an exact name the other writes as it is, though not as code ("`complex-projects/` - …" /
    # "**complex-projects**: …"), is written there; a code word with capitals only as it is written
    # ("`Form` component … to wrap forms" does not name `FormField`'s "wrap form fields"); a name that is
    # part of a longer one both write ("from `./test/__helpers` (note the `test/` prefix)") names nothing
    # more; a number and a word joined ("2-space") are written apart in the other ("2 spaces")
    exact = {n for n in mine[0] - theirs[0]
             if (not _written_as_is(n.strip("`").rstrip("/"), low, n.strip("`").endswith("/"))
                 or _cased_elsewhere(n, own, other))
             and not any(_part_of(n, m) for m in shared) and not _number_word_in(n, low)}
    loose = mine[1] - theirs[1] - theirs[0]
    if not loose:
        return exact
    words = sorted(set(_WORD_RUN.findall(low)))

    def written(name: str) -> bool:
        # A name of word characters follows a word boundary exactly when it begins a word: looked up
        # among the words, not searched for in the whole text once for each name.
        if _WORD_RUN.fullmatch(name):
            at = bisect_left(words, name)
            return at < len(words) and words[at].startswith(name)
        return re.search(r"\b" + re.escape(name), low) is not None  # (a few tool names: "next.js")

    return exact | {n for n in loose if not written(n)}


def _part_of(name: str, longer: str) -> bool:
    """Whether ``name`` is a folder or path (written with a ``/``) that is a whole part of the longer path
    ``longer``. (A name without one is not: `Form` the component is not the `form` of `@/components/ui/form`.)"""
    if "/" not in name:
        return False
    part = name.strip("`").rstrip("/").removeprefix("./")
    if len(part) <= 1 or part == longer.strip("`").rstrip("/").removeprefix("./"):
        return False
    at = longer.find(part)
    while at >= 0:  # as whole parts of the path: a folder `.agents/` is no part of the file `AGENTS.md`
        end = at + len(part)
        if (not at or longer[at - 1] in "/`") and (end == len(longer) or longer[end] in "/`"):
            return True
        at = longer.find(part, at + 1)
    return False


#: Units written short in a number joined to its unit ("50-char"), each with the word in full.
_UNIT_WORDS = {"char": "character", "sec": "second", "min": "minute", "hr": "hour", "col": "column", "ln": "line"}
#: A number and a word joined by a hyphen ("2-space", "64-bit"), which prose also writes apart.
_NUMBER_WORD = re.compile(r"(\d+(?:\.\d+)?)-([a-z]+)")


def _number_word_in(name: str, low: str) -> bool:
    """Whether ``low`` writes the number and word ``name`` joins apart, the word whole or in full ("2 spaces"
    for "2-space", "50 characters" for "50-char")."""
    joined = _NUMBER_WORD.fullmatch(name)
    return joined is not None and re.search(
        r"(?<![\w.])" + re.escape(joined[1]) + r"[\s-]+(?:" + re.escape(joined[2]) + "|"
        + re.escape(_UNIT_WORDS.get(joined[2], joined[2])) + r")s?\b", low) is not None


def _cased_elsewhere(name: str, own: str, other: str) -> bool:
    """Whether ``name`` is a code word ``own`` writes with capitals (`Form`, `MyType`) that ``other``
    never writes with the same letters as a word of its own."""
    spelled = next((m.group(1) for m in _CODE_SPAN.finditer(own) if m.group(1).lower() == name), None)
    if spelled is None or spelled == spelled.lower():
        return False
    return re.search(r"(?<![\w./-])" + re.escape(spelled) + r"(?![\w-])", other) is None


_CODE_SPAN = re.compile(r"`([^`\n]+)`")


def _written_as_is(name: str, low: str, folder: bool = False) -> bool:
    """Whether ``low`` writes ``name`` as a word of its own; a ``folder`` (`plans/`) not as a file's name
    (`PLANS.md`)."""
    after = r"(?![\w-]|\.\w)" if folder else r"(?![\w-])"
    return len(name) > 2 and re.search(r"(?<![\w./-])" + re.escape(name) + after, low) is not None


def _clauses(text: str) -> list[str]:
    """The clauses of ``text``; a code span is one word run, never parted (``requirements.lock``)."""
    return _CLAUSE_SPLIT.split(_IN_CODE.sub(lambda m: _CODE_PUNCTUATION.sub(" ", m.group()), text))


_IN_CODE = re.compile(r"`[^`\n]*`")
_CODE_PUNCTUATION = re.compile(r"[,;.()—:]")


#: "non-root" denies as "not root" does.
_NON = re.compile(r"\bnon-(?=[a-z])", re.I)


#: Two names joined by an arrow ("Migration → Runtime", "api -> db"): a direction.
_ARROW = re.compile(r"([\w.-]+)\s*(?:→|->|=>|⇒|⟶)\s*([\w.-]+)")


#: Words that say how many ("at least one", "exactly one", "up to 3"): two of them are two amounts.
_QUANTIFIER = re.compile(r"\b(at least|at most|exactly|up to|no more than|no fewer than|no less than|more than|"
                         r"fewer than|less than|minimum(?: of)?|maximum(?: of)?)\b", re.I)


def _another_amount(a: str, b: str) -> str:
    """Two texts that say how many in other words ("Add at least one method …" / "Add exactly one method …"):
    another amount, whatever number both write ("" when they say it alike, or neither does)."""
    qa = {m.lower() for m in _QUANTIFIER.findall(a)}
    qb = {m.lower() for m in _QUANTIFIER.findall(b)}
    return f"another amount ({sorted(qa - qb)[0]} / {sorted(qb - qa)[0]})" if qa - qb and qb - qa else ""


def _reversed_arrow(a: str, b: str) -> str:
    """What two texts say in opposite directions: "Migration → Runtime imports: denied" / "Runtime →
    Migration imports: denied" ("" when none)."""
    there = {(x.lower(), y.lower()) for x, y in _ARROW.findall(a)}
    for x, y in _ARROW.findall(b):
        if x.lower() != y.lower() and (y.lower(), x.lower()) in there:
            return f"another direction ({y} → {x} / {x} → {y})"
    return ""


def _negated(text: str) -> bool:
    """Whether a clause of ``text`` denies: one with an odd number of negations ("don't not" affirms).
    Clause by clause, since a rule that denies several times ("**Never use `any`.** Not in types, not in
    casts, not in generics.") denies in every clause, not in none."""
    for clause in _clauses(text):
        words = re.findall(r"[A-Za-z']+", _NON.sub("not ", clause.lower()))
        if (sum(w in parse.NEGATIONS or w.endswith("n't") for w in words) + sum(w in PROHIBITIONS for w in words)) % 2:
            return True
    return False


def _after_negations(parts: Iterable[str]) -> set[str]:
    """The stems after the first negation of each part."""
    found: set[str] = set()
    for part in parts:
        low = [w.lower() for w in re.findall(r"[A-Za-z']+", _NON.sub("not ", part))]
        for i, word in enumerate(low):
            if word in parse.NEGATIONS or word.endswith("n't") or word in PROHIBITIONS:
                found |= {parse.stem(w) for w in low[i + 1:] if w not in parse.FUNCTION_WORDS}
                break
    return found


def _negation_scope(text: str) -> set[str]:
    """The stems a negation governs: the rest of its clause."""
    return _after_negations(_clauses(text))


def _negation_reach(text: str) -> set[str]:
    """The stems a negation may govern: the rest of its sentence, a list after it included ("It must never
    push, open or edit a pull request" denies opening one), where :func:`_negation_scope` stops at its
    clause. For a judge that may weigh the rest, the wider reach is the safer."""
    return _after_negations(re.split(r"[.;!?](?:\s|$)", text))


#: Words that place what a text says in time ("before deploying" / "after deploying"): the parse keeps
#: them out of a text's words, as clause words, so the opposites among them are looked for here.
_WHEN = frozenset("before after until since first last".split())


def _opposed_when(ra: _Text, rb: _Text) -> str:
    """"before / after" where one text places a step before what the other places it after ("Run database
    migrations before deploying the new pods" / "… after deploying …"); "" where they do not."""
    wa = {w for w in ra.tokens if w in _WHEN}
    wb = {w for w in rb.tokens if w in _WHEN}
    antonyms = parse.antonyms()
    return next((f"{x} / {y}" for x in sorted(wa - wb) for y in sorted(wb - wa)
                 if (parse.stem(x), parse.stem(y)) in antonyms), "")


@dataclass(frozen=True)
class _Text:
    """What the guard reads of one text (computed once per text and run)."""

    statement: parse.Statement
    names: tuple[set[str], set[str]]
    words: frozenset[str]
    tokens: Counter[str]
    restricted: bool
    negated: bool
    passive: bool
    #: What pins what the text is about: its code words and numbers.
    pins: frozenset[str] = frozenset()


@lru_cache(maxsize=1 << 16)
def _read(text: str) -> _Text:
    statement = parse.parse(text)
    words = frozenset(t.text for t in statement.tokens if not t.literal) - parse.CLAUSE_WORDS
    pins = frozenset({(t.code or "").strip("\x03").lower() for t in statement.tokens if t.code} - {""}
                     | set(parse.RAW_NUMBER.findall(_LIST_MARKER.sub("", text, count=1))))
    return _Text(statement, names(text), words, Counter(t.text for t in statement.tokens),
                 bool(_RESTRICTION.search(text)), _negated(text), bool(_PASSIVE.search(text)), pins)


def _one_code_swapped(a: str, b: str) -> str:
    """The two code spans, where two texts are word for word the same but for one code span that names
    another thing (`.codex/` / `.agents/`); "" otherwise. A command written with and without its runner's
    ``run`` (`pnpm lint:fix` / `pnpm run lint:fix`) names the same."""
    ca, cb = _CODE_SPAN.findall(a), _CODE_SPAN.findall(b)
    if len(ca) != len(cb) or not ca:
        return ""
    if " ".join(_CODE_SPAN.sub("`", a).lower().split()) != " ".join(_CODE_SPAN.sub("`", b).lower().split()):
        return ""
    apart = [(x, y) for x, y in zip(ca, cb, strict=True) if _as_named(x) != _as_named(y)]
    return f"`{apart[0][0]}` / `{apart[0][1]}`" if len(apart) == 1 else ""


def _as_named(code: str) -> str:
    return " ".join(w for w in code.lower().split() if w != "run")


def vouch(a: str, b: str, cosine: float, threshold: float) -> Vouch:
    """Whether ``a`` and ``b`` (``b`` the newer) may merge as one fact in other words."""
    if other_script(a) or other_script(b):
        return Vouch(False, "written in another script than the model reads")
    ra, rb = _read(a), _read(b)
    only_a, only_b = _only(ra.names, rb.names, b, a), _only(rb.names, ra.names, a, b)
    # names given only as examples ("a proper noun (e.g. `Azure`, `GitHub`)") that the other text leaves
    # out, naming nothing else, say no other rule
    if only_a and not only_b and only_a <= _example_names(a):
        only_a = set[str]()
    elif only_b and not only_a and only_b <= _example_names(b):
        only_b = set[str]()
    sa, sb = ra.statement, rb.statement
    wa, wb = ra.words, rb.words
    xa, xb = _unlike(wa, wb), _unlike(wb, wa)
    # A text whose every word and name the other repeats ("Always use pnpm" / "Package management must
    # use pnpm, not npm or yarn") is subsumed: the embedding of a short text says little, so it needs less.
    subsumed = not xa and not only_a and (xb or only_b) and not ra.restricted and not rb.restricted
    # Two texts that name the same things (a literal, a number or a code word each, none on one side only)
    # may say them in words further apart: the names pin what they are about.
    pinned = bool(ra.pins) and ra.pins == rb.pins and not only_a and not only_b and ra.names[0] == rb.names[0]
    needed = threshold - SUBSUMED_MARGIN if subsumed else threshold - LITERALS_MARGIN if pinned else threshold
    if cosine < needed and not set(verify.fact_keys(a)) & set(verify.fact_keys(b)):
        return Vouch(False, f"not close enough ({cosine:.2f} < {needed:.2f})")
    verdict = verify.compare(a, b)
    if verdict.verdict == "same":
        return Vouch(True, verdict.reason)
    if verdict.verdict == "conflict":
        return Vouch(False, f"a conflict: {verdict.reason}")
    swapped = _one_code_swapped(a, b)
    if swapped:
        # the same words but one code span ("for example, `docs/`, `.codex/`, …" / "… `.agents/`, …"):
        # another value of one thing, or another thing; never the same fact in other words
        return Vouch(False, f"the same words but another name ({swapped})")
    other_name = _another_label(a, b) or _another_flag(a, b) or _another_target(a, b) or _another_subcommand(a, b) \
        or _reversed_arrow(a, b) or _another_amount(a, b)
    if other_name:
        return Vouch(False, other_name)
    if only_a and only_b:
        return Vouch(False, f"each names something the other does not ({sorted(only_a)[0]} / {sorted(only_b)[0]})")
    if ra.restricted != rb.restricted:
        return Vouch(False, "one text restricts what the other does not (only, except, unless)")
    antonyms = parse.antonyms()
    if any((x, y) in antonyms for x in xa for y in xb):
        return Vouch(False, "opposite words")
    if _opposed_when(ra, rb):
        return Vouch(False, f"another order ({_opposed_when(ra, rb)})")
    if ra.negated != rb.negated:
        negated, other = (a, wb) if ra.negated else (b, wa)
        if _negation_scope(negated) & other:
            return Vouch(False, "one negates what the other states")
    if (ra.tokens == rb.tokens and ra.passive == rb.passive and _coordinated(a) != _coordinated(b)
            and [t.text for t in sa.tokens] != [t.text for t in sb.tokens]):
        return Vouch(False, "the same words in other roles")
    if only_a:
        return Vouch(False, f"the newer text drops {sorted(only_a)[0]}: an update, not the same fact")
    if only_b and xa:
        return Vouch(False, f"the newer text names {sorted(only_b)[0]} in other words: another fact")
    kinds = _modified(sa, xa) & _modified(sb, xb)
    if len(xa) == len(xb) == 1 and max(len(wa), len(wb)) <= SWAPPED_MAX_WORDS and not (ra.names[0] or rb.names[0]):
        # a short phrase with one word swapped names another thing ("Task format validation" / "Task
        # format specification"), unless a name pins what both are about
        return Vouch(False, f"another thing of the same kind ({next(iter(xa))} / {next(iter(xb))})")
    if kinds or any(frozenset((x, y)) in _OPPOSITES for x in xa for y in xb):
        return Vouch(False, f"another thing of the same kind ({', '.join(sorted(xa))} / {', '.join(sorted(xb))})")
    shared = (ra.names[0] | ra.names[1]) & (rb.names[0] | rb.names[1])
    grown = (not xa and _item_added(a, b, shared)) or (not xb and _item_added(b, a, shared))
    if grown:
        return Vouch(False, f"{grown}: an update, not the same fact")
    if _redescribed(a, b):
        return Vouch(False, "one command, described in other words: an update, not the same fact")
    if (only_b or xb) and not xa:
        changed = _changed_within(a, b)
        if changed:
            return Vouch(False, changed)
        return Vouch(True, f"the newer says more; cosine {cosine:.2f}", "b")
    if xa and not xb:
        changed = _changed_within(b, a)
        if changed:
            return Vouch(False, changed)
        return Vouch(True, f"the older says more; cosine {cosine:.2f}", "a")
    return Vouch(True, f"cosine {cosine:.2f}")



#: A group of examples in parentheses: "(e.g. `Azure`, `GitHub`, `OpenAI`)", "(such as Redis)".
_EXAMPLE_GROUP = re.compile(r"\((?:e\.\s?g\.?|for example|for instance|such as|like)[,:]?\s*([^()]*)\)", re.I)


@lru_cache(maxsize=1 << 14)
def _example_names(text: str) -> frozenset[str]:
    """The names ``text`` gives in groups of examples (:data:`_EXAMPLE_GROUP`)."""
    found: set[str] = set()
    for group in _EXAMPLE_GROUP.findall(text):
        exact, loose = names(group)
        found |= exact | loose
    return frozenset(found)


@lru_cache(maxsize=1 << 14)
def _coordinated(text: str) -> str:
    """``text`` in lower case with the two sides of each "X and Y" / "X or Y" in one order: "crushrc and
    crush.json" reads as "crush.json and crushrc"."""
    return re.sub(r"(\S+) (and|or|&) (\S+)", lambda m: " ".join((min(m[1], m[3]), m[2], max(m[1], m[3]))),
                  " ".join(text.lower().split()))


#: Words (stems) that say one thing, each with the one the guard reads for it ("Adapter tests require
#: Docker" / "Adapter tests need Docker").
_SAME_WORD = {"need": "requir", "util": "use", "permit": "allow", "establish": "exist"}


def _unlike(mine: frozenset[str], theirs: frozenset[str]) -> frozenset[str]:
    """The words of ``mine`` that ``theirs`` writes neither as they are nor as a word of one meaning
    (:data:`_SAME_WORD`)."""
    said = {_SAME_WORD.get(w, w) for w in theirs}
    return frozenset(w for w in mine - theirs if _SAME_WORD.get(w, w) not in said)


#: What joins one more item to a name ("`crush.json` and `crushrc`", "Docker & Redis").
_JOIN = re.compile(r"`?\s*,?\s*(?:\band\b|\bor\b|&|\+)\s*`?")
#: A word as an item of a list is written (`crushrc`, `crush.json`, `docs/api`'s parts).
_ITEM = re.compile(r"\w[\w.-]*")
_LAST_ITEM = re.compile(r"\w[\w.-]*$")


@lru_cache(maxsize=1 << 14)
def _items_of(text: str) -> frozenset[str]:
    """The words of ``text`` (lower case) as items are written, with and without a closing full stop."""
    found = _ITEM.findall(text.lower())
    return frozenset(found) | {w.rstrip(".") for w in found}


@lru_cache(maxsize=1 << 14)
def _joins(text: str) -> tuple[tuple[str, str], ...]:
    """What ``text`` (lower case) writes before and after each "and" / "or" / "&" / "+" that joins two
    items, backticks aside."""
    low = text.lower()
    return tuple((low[:m.start()].rstrip("` "), low[m.end():].lstrip("` ")) for m in _JOIN.finditer(low))


def _item_added(fewer: str, more: str, shared: set[str]) -> str:
    """What ``more`` joins with "and" / "or" to a name both texts write that ``fewer`` never writes ("crush.json
    loading and validation" / "crush.json and crushrc loading and validation"): one item more in what the
    statement is about, a list that grew; "" when none. (A longer list written with commas is
    :func:`_items`'.)"""
    joins = _joins(more)
    if not joins or not shared:
        return ""
    written = _items_of(fewer)
    names = [n.strip("`").rstrip(".") for n in shared]
    for before, after in joins:
        right = _ITEM.match(after)
        left = _LAST_ITEM.search(before)
        for name in names:
            if not name:
                continue
            # the name right before the join, the new item right after it; or the other way round
            if (right is not None and before.endswith(name) and not _WORDY.match(before[-len(name) - 1:-len(name)] or " ")
                    and (item := right.group().rstrip(".")) and _new_item(item, written)):
                return f"one text names {item} beside what both name"
            if (left is not None and after.startswith(name) and not _WORD_CHAR.match(after[len(name):len(name) + 1] or " ")
                    and (item := left.group().rstrip(".")) and _new_item(item, written)):
                return f"one text names {item} beside what both name"
    return ""


_WORDY = re.compile(r"[\w.-]")


def _new_item(item: str, written: frozenset[str]) -> bool:
    return item not in parse.FUNCTION_WORDS and item not in parse.NEGATIONS and item not in written


#: A command line with a comment after it ("pnpm test:all   # Run all tests").
_COMMENTED = re.compile(r"^\s*(?:\$\s+)?(?P<command>[a-z][\w.@:/=-]*(?:[ \t]+[^\s#`|][^\s#`|]*)+)[ \t]+#[ \t]*"
                        r"(?P<comment>\S.*)$")


def _redescribed(a: str, b: str) -> bool:
    """Whether two lines run one command (two words or more, the same but for white space) with comments
    that share no word: "npm run release:minor    # New features" / "…    # API breaking changes" say what
    the command does, and they say two things. The command alone brings their embeddings close."""
    ca, cb = _COMMENTED.match(a.strip()), _COMMENTED.match(b.strip())
    if ca is None or cb is None or ca["command"].split() != cb["command"].split():
        return False

    def words(comment: str) -> set[str]:
        return {parse.stem(w) for w in re.findall(r"[a-z0-9]+", comment.lower())} - parse.FUNCTION_WORDS

    wa, wb = words(ca["comment"]), words(cb["comment"])
    return bool(wa and wb and not wa & wb)


def refusal(a: str, b: str) -> str:
    """Why ``a`` and ``b`` are never one fact, whoever judges them (a model asked whether two lines state
    the same fact, :func:`.analysis.compaction.semantic.paraphrases`): "" when nothing here tells them
    apart. What the model may weigh is left to it: how close they are, a name or a detail one side adds,
    a word swapped for another ("Use TOML for configuration files" / "Support for configuration via TOML
    files"). What it may not overrule: a name on each side that the other does not write
    (`REDIS_URL` / `REDIS_JOBS_URL`, "Claude Code" / "GitHub Copilot"), a conflict the verifier sees,
    another label, flag, target or subcommand, opposite words, a negation, a restriction or a contrast
    ("rather than") on one side only, the same words in other roles, one side planned and the other done,
    a list with an item more, a name joined to one both write, one command described otherwise."""
    if other_script(a) or other_script(b):
        return "written in another script than the model reads"
    ra, rb = _read(a), _read(b)
    only_a, only_b = _only(ra.names, rb.names, b, a), _only(rb.names, ra.names, a, b)
    if only_a and only_b:
        return f"each names something the other does not ({sorted(only_a)[0]} / {sorted(only_b)[0]})"
    verdict = verify.compare(a, b)
    if verdict.verdict == "conflict":
        return f"a conflict: {verdict.reason}"
    other_name = ("" if _labels_told(a, b) else _another_label(a, b)) or _another_flag(a, b) or _another_target(a, b) \
        or _another_subcommand(a, b) or _reversed_arrow(a, b) or _another_amount(a, b)
    if other_name:
        return other_name
    if ra.restricted != rb.restricted:
        return "one text restricts what the other does not (only, except, unless)"
    if bool(_CONTRAST.search(a)) != bool(_CONTRAST.search(b)):
        return "one text sets what it says against another (rather than, instead of)"
    wa, wb = ra.words, rb.words
    xa, xb = wa - wb, wb - wa
    antonyms = parse.antonyms()
    if any((x, y) in antonyms for x in xa for y in xb) or any(frozenset((x, y)) in _OPPOSITES for x in xa for y in xb):
        return "opposite words"
    if _opposed_when(ra, rb):
        return f"another order ({_opposed_when(ra, rb)})"
    if ra.negated != rb.negated:
        negated, other = (a, wb) if ra.negated else (b, wa)
        if _negation_reach(negated) & other:
            return "one negates what the other states"
    if (ra.tokens == rb.tokens and ra.passive == rb.passive and _coordinated(a) != _coordinated(b)
            and [t.text for t in ra.statement.tokens] != [t.text for t in rb.statement.tokens]):
        return "the same words in other roles"
    if _redescribed(a, b):
        return "one command, described in other words"
    shared = (ra.names[0] | ra.names[1]) & (rb.names[0] | rb.names[1])
    return _changed_within(a, b) or _item_added(a, b, shared) or _item_added(b, a, shared)


#: Words that say a statement is planned, or done: one side planned, the other done, is an update.
_PLANNED = frozenset("will planned todo future soon later ⬜ ☐".split())  # as written: "implementing" is neither
_DONE = frozenset("implemented done completed fixed resolved shipped ✅ ✔ ☑".split())
_STATUS_WORDS = re.compile(r"[a-z]+|[⬜☐✅✔☑]")
_GROUP = re.compile(r"\(([^()]*)\)")
#: What opens a list of examples ("e.g.", "i.e.", "such as"), and what ends one ("etc.", "…", "and more").
_EXAMPLE_MARK = re.compile(r"^(?:e\.\s?g\.?|i\.\s?e\.?|eg\.|for example|for instance|such as|including)(?![\w])[,:]?\s*", re.I)
_MORE = re.compile(r"(?:and\s+)?(?:etc\.?|…|\.\.\.|so on|more|others)", re.I)
_CLAUSE_END = re.compile(r"[.;:!?](?:\s|$)")
_LAST_JOIN = re.compile(r",[^,]*\b(?:and|or)\s+\S[^,]*$|\b(?:and|or)\s+[^,]*$")
_LIST_JOIN = re.compile(r",\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+")


def _items(text: str) -> list[frozenset[str]]:
    """The lists a text gives, each as the set of its items: a group in parentheses of two items or more
    ("(lint + type + test)", "(achievements, streaks, XP)"), and a run of three or more joined by "+".
    What only says the list gives examples is no item ("(e.g., annotation types, transport types)",
    "(annotation types, transport types, …)", "etc.")."""
    def item(raw: str) -> str:
        raw = _EXAMPLE_MARK.sub("", raw.strip())
        return "" if _MORE.fullmatch(raw.strip()) else " ".join(parse.stem(w) for w in re.findall(r"[a-z0-9]+", raw.lower()))

    groups = [re.split(r"[,+]", g) for g in _GROUP.findall(text)]
    bare = _GROUP.sub(" ", text)
    groups += [parts for parts in [bare.split("+")] if len(parts) >= 3]
    # a run of three or more in a clause, joined by commas, the last by "and"/"or" ("do not post PR titles,
    # issues, review replies, or changelog entries")
    groups += [parts for clause in _CLAUSE_END.split(bare) if clause.count(",") >= 2 and _LAST_JOIN.search(clause)
               for parts in [_LIST_JOIN.split(clause)]]
    return [frozenset(filter(None, map(item, g))) for g in groups if len(g) >= 2]


def _changed_within(older: str, newer: str) -> str:
    """Why a text that says more than another (``newer`` here; also asked the other way round) is an
    update rather than the same fact with more said: one is planned and the other done ("Status endpoints
    will allow …" / "… allow … (implemented)"), or one's list has an item more than the same list in
    the other ("(lint + type + format + test)" / "(lint + type + format + calisthenics + test)"). ""
    when neither."""
    def status(text: str) -> set[str]:
        words = set(_STATUS_WORDS.findall(text.lower()))
        said: set[str] = set()
        if words & _PLANNED:
            said.add("planned")
        if words & _DONE:
            said.add("done")
        return said

    sa, sb = status(older), status(newer)
    if ("planned" in sa and "done" in sb and "done" not in sa) or ("done" in sa and "planned" in sb and "planned" not in sa):
        return "one text says planned, the other done: an update, not the same fact"
    for la in _items(older):
        for lb in _items(newer):
            if len(la & lb) >= 2 and (la < lb or lb < la):
                return "one text has an item more in a list the other gives: an update, not the same fact"
    return ""


#: A label of a few plain words that opens a line ("**Initialize database:** ...", "Migrations: ...").
_LABEL = re.compile(r"^\W*(?P<label>[A-Za-z][A-Za-z /&+-]{0,40}?)[*_]*:[*_]*(?!\S)")
#: A command-line flag ("--fix", "-v").
_FLAG = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*")
#: A task runner and the target it runs, written without code spans ("just release 0.2.0", "make test").
_RUNNER_TARGET = re.compile(r"\b(just|make|npm run|pnpm run|pnpm|yarn|bun run|uv run|poetry run|cargo|task|rake|mix)"
                            r"\s+([A-Za-z][\w:.-]*)")


def _another_label(a: str, b: str) -> str:
    """Both lines open with a label, and the labels say different things: "**Initialize database:**
    `uv run alembic upgrade head`" and "**Apply migrations:** `uv run alembic upgrade head`" are one
    command for two purposes, "**Migrations:** Alembic" is the tool, not the command."""
    la, lb = _LABEL.match(a), _LABEL.match(b)
    if la is None or lb is None:
        return ""
    wa = {parse.stem(w) for w in re.findall(r"[a-z]+", la.group("label").lower())}
    wb = {parse.stem(w) for w in re.findall(r"[a-z]+", lb.group("label").lower())}
    # labels that share no word name two things ("Model Gating" / "Model-level gating" name one); so do
    # labels one of which adds an action ("Migrations" is the tool, "Apply migrations" the command), and
    # labels that each have a word the other lacks, before other words ("MCP Connections: Manages
    # connections to …" / "MCP Tools & Resources: Capabilities exposed by …"; not "Verify token: `GET …`" /
    # "Verify quickly: `GET …`")
    own = bool(wa - wb and wb - wa) and _rest(a, la.end()) != _rest(b, lb.end())
    if not wa & wb or (wa ^ wb) & _ACTIONS or own:
        return f"another label ({la.group('label').strip()} / {lb.group('label').strip()})"
    return ""


#: A statement set against another: "tokens are processed sequentially rather than concurrently" is not
#: the plan to process them concurrently.
_CONTRAST = re.compile(r"\b(?:rather than|instead of|as opposed to)\b", re.I)


def _labels_told(a: str, b: str) -> bool:
    """Whether each of two labelled lines says the other's label in its own words ("**Async Runtime**:
    Using Tokio for asynchronous operations" / "**tokio**: Async runtime for handling concurrent
    operations"): one thing labelled by what it is and by its name, which a judge may weigh. Two purposes
    of one command ("**Initialize database:**" / "**Apply migrations:**") are not."""
    la, lb = _LABEL.match(a), _LABEL.match(b)
    if la is None or lb is None:
        return False

    def stems(text: str) -> set[str]:
        return {parse.stem(w) for w in re.findall(r"[a-z]+", text.lower())} - parse.FUNCTION_WORDS

    return (bool(stems(la.group("label"))) and stems(la.group("label")) <= stems(b[lb.end():])
            and bool(stems(lb.group("label"))) and stems(lb.group("label")) <= stems(a[la.end():]))


def _rest(text: str, at: int) -> str:
    """What a text says after its label, white space and a closing stop aside."""
    return " ".join(text[at:].lower().split()).rstrip(" .;")


#: Verbs that, added to a label, make it name a task rather than a thing ("Apply migrations").
_ACTIONS = frozenset(parse.stem(w) for w in (
    "apply run initialize initialise build install start stop deploy create update upgrade test lint format"
    " generate reset seed setup configure add remove delete check serve release publish").split())


def _another_flag(a: str, b: str) -> str:
    """A command-line flag on one side only: `ruff check .` and `ruff check --fix .` are two commands; so
    are one flag with two values (`uv run --group test pytest` / `uv run --group test-optional pytest`)."""
    fa, fb = set(_FLAG.findall(a)), set(_FLAG.findall(b))
    if fa ^ fb:
        return f"another command ({', '.join(sorted(fa ^ fb))})"
    va, vb = _flag_values(a), _flag_values(b)
    other = sorted(flag for flag in va.keys() & vb.keys() if va[flag] != vb[flag])
    return f"another command ({other[0]} {va[other[0]]} / {vb[other[0]]})" if other else ""


#: A flag and the value written after it (`--group test`, `-m integration`, `--port=8080`).
_FLAG_VALUE = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*)(?:=|[ \t]+)(?!-)([^\s`|#]+)")


@lru_cache(maxsize=1 << 14)
def _flag_values(text: str) -> dict[str, str]:
    """Each flag of ``text`` written once with a value, and that value (a flag written twice is left out)."""
    found: dict[str, set[str]] = {}
    for flag, value in _FLAG_VALUE.findall(text):
        found.setdefault(flag, set()).add(value.rstrip(".,;:)"))
    return {flag: next(iter(values)) for flag, values in found.items() if len(values) == 1}


def _another_target(a: str, b: str) -> str:
    """One task runner, another target: `just release` is not `just start-release`."""
    ta, tb = set(_RUNNER_TARGET.findall(a)), set(_RUNNER_TARGET.findall(b))
    for runner, target in ta - tb:
        other = sorted(t for r, t in tb - ta if r == runner)
        if other:
            return f"another target of {runner} ({target} / {other[0]})"
    return ""


def _another_subcommand(a: str, b: str) -> str:
    """One tool, another subcommand: `uv run ruff check .` is not `uv run ruff format .`, nor `git push`
    `git commit`."""
    ca, cb = commands_in(a), commands_in(b)
    for x in sorted(ca - cb):
        tool, _, sub = x.rpartition(" ")
        other = sorted(y.rpartition(" ")[2] for y in cb - ca if y.rpartition(" ")[0] == tool)
        if tool and other and sub not in other:
            return f"another command of {tool} ({sub} / {other[0]})"
    return ""


def _modified(statement: parse.Statement, words: frozenset[str]) -> set[str]:
    """The plain words that one of ``words`` modifies, written right before it ("payments module",
    "web client", "Free-tier workspaces"): such a word says *which* thing, not how it is said."""
    tokens = statement.tokens
    found: set[str] = set()
    for token, nxt in zip(tokens, tokens[1:], strict=False):
        if token.text in words and not token.literal and not nxt.literal and not nxt.code \
                and nxt.text not in words and nxt.after == (token.shown or token.text).lower():
            found.add(nxt.text)
    return found
