# pyright: standard
"""Updates written in other words: the part of the verifier that sees a newer memory change what an
older one states when the two are not the same sentence with one value swapped.

Agents rarely link an update to what it replaces. They write the new state as a new statement:

- **a change, said outright** — "We migrated from Poetry to uv", "`LOG_LEVEL` was renamed to
  `APP_LOG_LEVEL`", "`make lint` was removed", "use `pnpm changeset` instead of `npm version patch`",
  "there is no `setup.py`". The retired value is named; an older memory that states it (and not the new
  one) is outdated.
- **the new value, restated** — "Format Python with black" / "`ruff format` is the only Python
  formatter"; "Use Node 18 for the API" / "The API now requires Node 20". Two tools for one job, two
  versions of one thing, or (when the newer text says it changed: "now", "any more") two quantities,
  ports or opposites about the same subject.

Either way the pair is a **conflict**: reported for review, never acted on. Precision comes first: a
pair is only a conflict when the two texts are about the same subject — they share words beyond the
values, and they do not each name a scope the other lacks ("CI uses Node 20 for the frontend build" /
"CI uses Node 18 for the legacy Lambda functions" both stay) — unless the newer one says that
something changed."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

from ..core.text import TEXT_CACHE, CaseBlind
from .parse import IDENTIFIER_NOUNS, antonyms, literal_kind, parse, stem
from .vocabulary import AMBIGUOUS, roles_of, tools_in

#: Past-tense verbs that, before "from X to Y", say a value changed (not a route: "copy from a to b").
_CHANGE_VERBS = ("moved migrated switched changed upgraded downgraded bumped raised lowered reduced increased"
                 " decreased repartitioned flipped renamed went converted ported transitioned updated shrunk"
                 " grew extended shortened doubled halved cut swapped relocated rotated narrowed widened"
                 " tightened relaxed").split()
_REMOVED = ("removed retired dropped deprecated deleted sunset sunsetted decommissioned discontinued abandoned"
            " gone obsolete replaced").split()
_NO_LONGER = ("used", "needed", "required", "supported", "use", "maintained")  # "X is no longer ___" (in use)
_BE = r"(?:was|were|has\s+been|have\s+been|got|had\s+been|is\s+now|are\s+now)"
_RUN = r"[^\s`,;:()\"]"  # a character of a token's run
#: A token: code, or a run of the characters a value is written with (possessive: whatever follows a
#: token starts with whitespace, or the pattern ends).
_TOKEN = rf"(?:`[^`]+`|{_RUN}++)"
#: :data:`_TOKEN` where a pattern starts with it, so that it is tried at every character: a run is read
#: from its start only. From any later character of it the pattern would find what it found (or did not
#: find) from there; a match can start inside a run only right after an earlier match, and none of the
#: patterns starting with this ends inside a run.
_FIRST_TOKEN = rf"(?:`[^`]+`|(?<!{_RUN}){_RUN}++)"


def _first_token_after(words: Iterable[str]) -> str:
    """:data:`_FIRST_TOKEN` for a pattern that ends with one of ``words``, so that a match may end inside
    a run ("X was removed—Y was removed"): right after one of them, a token may start inside a run too,
    read to at most 255 characters (a bounded read wherever such a word stands, matched or not)."""
    after = "|".join(f"(?<={word})" for word in words)
    return rf"(?:`[^`]+`|(?<!{_RUN}){_RUN}++|(?:{after}){_RUN}{{1,255}}+)"


_PHRASE = rf"{_TOKEN}(?:\s+{_TOKEN}){{0,3}}"
#: Words that end a value phrase ("to uv *in* March", "to 16.2 *on* 2024-05-18").
_STOP = frozenset("in on at for so after because as to with by and or but since when while which that where"
                  " during before via from into across per if".split())
_ARTICLES = frozenset("the a an our its their".split())

_PATTERNS = [
    # "We moved CI from Travis CI to GitHub Actions", "retention was raised from 14 days to 30 days"
    ("changed", re.compile(rf"\b(?:{'|'.join(_CHANGE_VERBS)})\b(?:\s+(?!from\b)\S+){{0,6}}?\s+from\s+"
                           rf"(?P<old>{_PHRASE}?)\s+to\s+(?P<new>{_PHRASE})", re.I)),
    # "renamed `A` to `B`", "moved `src/lib` to `packages/core`"
    ("renamed", re.compile(rf"\b(?:renamed|moved|migrated)\s+(?P<old>`[^`]+`|\S+)\s+to\s+(?P<new>{_PHRASE})", re.I)),
    # "`LOG_LEVEL` was renamed to `APP_LOG_LEVEL`"
    ("renamed", re.compile(rf"(?P<old>{_FIRST_TOKEN})\s+{_BE}\s+(?:now\s+)?(?:renamed|moved)\s+to\s+(?P<new>{_PHRASE})", re.I)),
    # "replaced Redis with Memcached", "Redis was replaced by Memcached"
    ("replaced", re.compile(rf"\breplaced\s+(?P<old>{_PHRASE}?)\s+(?:with|by)\s+(?P<new>{_PHRASE})", re.I)),
    ("replaced", re.compile(rf"(?P<old>{_FIRST_TOKEN}(?:\s+{_TOKEN})?)\s+{_BE}\s+(?:now\s+)?replaced\s+(?:with|by)\s+"
                            rf"(?P<new>{_PHRASE})", re.I)),
    # "`make lint` was removed", "RabbitMQ is deprecated"
    # (past or perfect only: "old logs are deleted after 30 days" is a policy, not a retirement)
    ("removed", re.compile(rf"(?P<old>{_first_token_after(_REMOVED)}(?:\s+{_TOKEN})?)\s+{_BE}\s+(?:{'|'.join(_REMOVED)})\b", re.I)),
    # "We retired RabbitMQ", "stopped using caret constraints", "no longer use Redis"
    ("removed", re.compile(rf"(?:^|\b(?:we|they|team|has|have|i)\s+|[;:]\s*|\*\*\s*)(?:{'|'.join(_REMOVED)}|stopped\s+using|"
                           rf"no\s+longer\s+uses?|got\s+rid\s+of)\s+(?P<old>{_PHRASE})", re.I)),
    # "Migrated off RabbitMQ", "moved away from Heroku"
    ("removed", re.compile(rf"\b(?:migrated|moved|switched|transitioned)\s+(?:off(?:\s+of)?|away\s+from)\s+"
                           rf"(?P<old>{_PHRASE})", re.I)),
    # "use `pnpm changeset` instead of `npm version patch`"
    ("instead", re.compile(rf"\b(?:instead\s+of|rather\s+than)\s+(?P<old>{_PHRASE})", re.I)),
    # "`X` is no longer used"
    ("removed", re.compile(rf"(?P<old>{_first_token_after(_NO_LONGER)})\s+(?:is|are)\s+no\s+longer\s+(?:used|needed|required|supported|"
                           rf"in\s+use|maintained)", re.I)),
    # "there is no `setup.py`"
    ("removed", re.compile(r"\bthere\s+(?:is|are)\s+no(?:\s+longer)?\s+(?:a\s+|an\s+)?(?:[\w-]+\s+){0,2}?(?P<old>`[^`]+`)"
                           r"(?!\s+(?!(?:files?|folders?|director(?:y|ies)|packages?|modules?|any|anymore|anywhere|left|"
                           r"in|on|at|for|under|inside|within|here|there|yet|now|and|or|but|to|of)\b)[a-z])",
                           re.I)),
    # "Do not use `moment` in the dashboard any more"
    ("removed", re.compile(r"\b(?:not|n't|never|no\s+more)\s+(?:\w+\s+){0,2}?(?P<old>`[^`]+`|(?-i:[A-Z])[\w.+-]*)"
                           r"[^.;]*\bany\s?more\b", re.I)),
]
#: "`a` -> `b`": the old token is not possessive (an arrow may stand inside its run: ``a->b``); it starts
#: where :data:`_FIRST_TOKEN` does.
_ARROW = re.compile(rf"(?P<old>`[^`]+`|(?<!{_RUN}){_RUN}+)\s*(?:->|→|=>)\s*(?P<new>{_TOKEN})")

#: Words that say the newer memory describes a change (so the subject, not its wording, must match).
_MARKERS = CaseBlind(r"\b(?:now|any\s?more|no\s+longer|from\s+now\s+on|as\s+of|these\s+days|nowadays|switched|"
                      r"moved|migrated|changed|turned|starting|going\s+forward|effective|back\s+on|"
                      r"back\s+off|bumped|raised|lowered|increased|decreased|reduced|upgraded|downgraded|"
                      r"replaced|renamed|standardi[sz]ed|dropped|retired|removed|deprecated)\b")


@dataclass(frozen=True)
class Change:
    """A change a text states outright: ``old`` is retired, ``new`` (when named) replaces it, in
    ``sentence``."""

    old: str
    new: str | None
    how: str
    sentence: str = ""


def _clean(phrase: str | None) -> str | None:
    """A value phrase cut at its first stop word, without a leading article or trailing punctuation."""
    if not phrase:
        return None
    words = re.findall(r"`[^`]+`|\S+", phrase)
    while words and words[0].lower() in _ARTICLES:
        words.pop(0)
    kept: list[str] = []
    for word in words:
        if kept and word.lower() in _STOP:
            break
        kept.append(word)
    out = " ".join(kept).strip(".,;:!?\"'")
    return out or None


_GERUND = re.compile(r"^(?:invoking|using|running|calling|having|the\s+use\s+of)\s+", re.I)
#: " + ", " & ", a comma, " and ": whitespace before them is read from where it starts (possessive), so
#: a run of it is read once.
_LIST_SEPARATOR = re.compile(r"(?<!\s)\s++(?:[+&]\s+|,\s*|and\s+)|,\s*")


def _alternatives(phrase: str | None) -> list[str]:
    """The values a retired phrase names: "ESLint + Prettier" retires both; "invoking prisma" retires
    prisma."""
    if not phrase:
        return []
    phrase = _GERUND.sub("", phrase)
    if "`" not in phrase:
        parts = [p.strip() for p in _LIST_SEPARATOR.split(phrase) if p.strip()]
        if len(parts) > 1:
            return parts
    return [phrase] if phrase else []


_PRONOUNS = frozenset("it this that they them these those which what he she we you one something everything".split())


@lru_cache(maxsize=TEXT_CACHE)
def changes_in(text: str) -> tuple[Change, ...]:
    """The changes a text states outright, in order."""
    if not (_TRIGGER.occurs(text) and _CHANGE_WORD.occurs(text)):  # a sentence's words are the text's
        return ()
    found: list[Change] = []
    for sentence in _sentences(text):
        found += _changes_in_sentence(sentence)
    return tuple(dict.fromkeys(found))


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.;!?])\s+|\n+", text) if s.strip()]


#: Every pattern below needs one of these words: most texts are ruled out by one search.
_TRIGGER = CaseBlind(r"\b(?:from|renamed|moved|migrated|replaced|instead|rather|longer|stopped|there|any\s?more|"
                      + "|".join(_REMOVED) + r")\b|->|→|=>")


#: Each of :data:`_PATTERNS`, and an arrow, needs one of these words (with "from", a verb of change): a
#: text with none states no change. (:data:`_TRIGGER`, quicker to search, rules out most texts first.)
_CHANGE_WORD = CaseBlind(r"\b(?:" + "|".join(_CHANGE_VERBS + _REMOVED) + r"|renamed|moved|migrated|replaced|instead"
                          r"|rather|longer|stopped|there|any\s?more|got\s+rid)\b|->|→|=>")


def _changes_in_sentence(text: str) -> list[Change]:
    found: list[Change] = []
    if not _TRIGGER.occurs(text):
        return found
    for how, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            new = _clean(match.groupdict().get("new")) if how != "instead" else _name_before(text, match.start())
            for old in _alternatives(_clean(match.group("old"))):
                if old.lower() in _PRONOUNS or old.lower().split()[0] in _PRONOUNS:
                    continue
                if how in ("removed", "instead") and not _name_like(old):
                    continue  # "Removed files are kept": only a named thing is retired
                if how == "instead" and not _one_name(old):
                    continue  # "rather than opening the PR", "instead of Todo": an alternative, not a value retired
                found.append(Change(old, new, how, text))
    arrows = list(_ARROW.finditer(_outside_code(text)))
    if len(arrows) == 1 and re.search(r"\b(?:changed|renamed|moved|migrated|switched|replaced|upgraded|now)\b",
                                       text, re.I):
        found.append(Change(arrows[0].group("old"), arrows[0].group("new"), "changed", text))  # not a chain a → b → c
    return found


#: The place a thing was removed from ("Removed `home-manager` from `nix-env` installation in Dockerfile"):
#: its first word or code span. Not the project, its code or its dependencies, from which it is gone.
_FROM_A_PART = re.compile(r"\s+from\s+(?:(?:the|our|this|its)\s+)?+(?!(?:project|codebase|code\s*base|repo|"
                          r"repository|dependencies|deps|stack|app|application|monorepo)\b)(?P<place>`[^`]+`|[\w.-]+)",
                          re.I)


def _removed_from(change: Change) -> str | None:
    """The place a removal names ("from `nix-env` installation": `nix-env`), or ``None``: the thing is gone."""
    at = change.sentence.find(change.old)
    found = _FROM_A_PART.match(change.sentence, at + len(change.old)) if at >= 0 else None
    return found.group("place") if found else None


def _outside_code(text: str) -> str:
    return re.sub(r"`[^`]*`", " ", text)


def marks_change(text: str) -> bool:
    """Whether a text says that something changed ("now", "any more", "switched"...)."""
    return _MARKERS.occurs(_outside_code(text))


_NAMEISH = re.compile(r"`|[\w-]/[\w-]|\w\.\w|\d|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b")


def _name_like(phrase: str) -> bool:
    """A phrase that names a thing: code, a path, a version or number, an env var, a capitalised name
    or a known tool (not a plain English phrase such as "nested ifs")."""
    if _NAMEISH.search(phrase) or tools_in(phrase):
        return True
    return any(w[:1].isupper() for w in phrase.split())


def _name_before(text: str, at: int) -> str | None:
    """The named value written right before ``at`` ("Use `pnpm changeset` instead of …": `pnpm
    changeset`), if the word there is one ("Edit `package.json` directly instead of …": none)."""
    before = text[:at].rstrip()
    if before.endswith("`"):
        start = before.rfind("`", 0, len(before) - 1)
        word = before[start:] if start >= 0 else ""
    else:
        word = before.rsplit(None, 1)[-1] if before else ""
    word = word.strip(",;:()")
    return word if word and _one_name(word) else None


def _one_name(phrase: str) -> bool:
    """A phrase that is one named value and nothing else: a code span, a path, an environment variable,
    a version, or a tool the vocabulary knows ("`npm version patch`", "Jest", "`pnpm add`"), not words
    around one ("to `<client>/node_modules` like", "shipping a `{}` stub") nor a capitalised word that
    names a state ("Todo", "Home")."""
    phrase = phrase.strip()
    spans = _CODE_SPAN.findall(phrase)
    if spans:
        return len(spans) == 1 and not _outside_code(phrase).strip(" .,;:!?()")
    tokens = parse(phrase).tokens
    if len(tokens) == 1 and tokens[0].literal in ("path", "ident", "env", "url", "version"):
        return True
    return bool(tools_in(phrase)) and len(phrase.split()) <= 2


# -- what a text talks about -------------------------------------------------------------------------

#: Stems that carry no subject: verbs of using and keeping, change words, emphasis.
_GENERIC = frozenset(
    "now current new old latest default onli all here repo repositori project version use run pin declar set"
    " defin configur config live sit serv listen expos bind requir need support instead anymor longer switch"
    " move migrat chang upgrad bump rais lower reduc increas renam replac remov retir drop deprec stop start go"
    " went get got put keep take call note tip gotcha alway never ensur sure make"
    " e g eg etc via exact back turn".split()
) | frozenset("before after instead rather unless if when whenever while until because since so then that which who"
              " whose where but otherwise except".split())  # words that join clauses say nothing of a subject


@lru_cache(maxsize=TEXT_CACHE)
def context(text: str) -> frozenset[str]:
    """What a text is about: its content stems and literals (names split into their parts), without
    generic words."""
    out: set[str] = set()
    for token in parse(text).tokens:
        if token.literal in ("code", "path", "ident", "env", "url"):
            # a name whole ("=" marks it) and by its parts: `apps/web/package.json` and `apps/web` ...
            # `package.json` are one subject
            out.add("=" + token.text.strip("`").lower())
            out.update(_parts(token.text))
        elif token.literal:
            out.add(token.text)
        elif token.text not in _GENERIC and len(token.text) > 1:
            out.add(token.text)
    return frozenset(out)


def _parts(name: str) -> set[str]:
    """The words a name is made of, as written and stemmed (``poetry run`` gives poetry and poetri, so
    that it meets the plain word "Poetry")."""
    parts = {p for p in re.split(r"[^a-z0-9]+", name.strip("`").lower()) if len(p) > 1}
    return parts | {stem(p) for p in parts if not p.isdigit()}


def _tokens(phrase: str) -> frozenset[str]:
    """A value phrase as the tokens :func:`context` would give it (numbers canonicalised, words stemmed)."""
    out: set[str] = set()
    for token in parse(phrase).tokens:
        if token.literal in ("code", "path", "ident", "env", "url"):
            out.add("=" + token.text.strip("`").lower())
        elif token.literal or token.text not in _GENERIC:
            out.add(token.text)
    return frozenset(out)


def _states(text: str, phrase: str) -> bool:
    """Whether ``text`` names the value ``phrase`` (every token of it)."""
    wanted = _tokens(phrase)
    return bool(wanted) and wanted <= context(text)


_NEGATION_NEAR = re.compile(r"\b(?:not|no|never|don't|do\s+not|doesn't|avoid|without|instead\s+of|rather\s+than)\b"
                            r"(?:\W+\w+){0,3}\W+$", re.I)


def _negated_near(text: str, value: str) -> bool:
    """Whether ``value`` is written in ``text`` right after a negation ("don't use `Jest`"), in any of the
    places it is written ("the `V1` arm … There is no `V1` execution path")."""
    first = value.split()[0].strip("`").lower() if value.split() else ""
    if not first:
        return False
    low = text.lower()
    at = low.find(first)
    while at >= 0:
        if _NEGATION_NEAR.search(low[max(0, at - 80):at]):
            return True
        at = low.find(first, at + len(first))
    return False


def _only_numbers(phrase: str) -> bool:
    tokens = parse(phrase).tokens
    return bool(tokens) and all(t.literal in ("number", "tz", "time") for t in tokens)


# -- typed values ------------------------------------------------------------------------------------

_LANGUAGES = frozenset("python node nodejs go golang rust java ruby php typescript kotlin swift elixir scala dotnet"
                       " deno bun postgres postgresql mysql redis react vue angular django rails next nextjs"
                       " terraform helm kubernetes ubuntu debian alpine".split())


_VERSION_NUMBER = re.compile(r"(?<![\w.:/-])(?:[<>=!~^]=?|==)?v?\d+(?:\.\d+){0,3}(?![\w.:/]|-\d)")
#: A word before a version: a name in Latin letters, or a run of letters of another script, which names
#: none but stands between ("**React 組件**: 2 個" counts React components; it gives React no version).
_NAME_WORD = re.compile(r"[A-Za-z][\w.+-]*|(?:(?![A-Za-z\u00c0-\u024f])[^\W\d_])+")


def _known_name(word: str) -> str | None:
    name = word.lower().strip("`'\".:,;()").removesuffix(".js")
    return name if name in _LANGUAGES or roles_of(name) else None


@lru_cache(maxsize=TEXT_CACHE)
def versions_in(text: str) -> dict[str, str]:
    """Versions a text gives to named things: ``{"node": "20", "react": "^19.0.0"}``: each version
    belongs to the nearest known language, runtime or tool named before it in the sentence (within five
    words: "The Rust toolchain is pinned to 1.75.0"). Plain numbers count only right after the name
    ("Node 20"), dotted ones and ranges further away."""
    found: dict[str, str] = {}
    for sentence in re.split(r"(?<=[.;!?])\s+", text):
        # The words before each version, from one reading of the sentence (the last may run on past
        # the version's start: it is cut there, as if read in the sentence up to it).
        words = [m.span() for m in _NAME_WORD.finditer(sentence)]
        starts = [start for start, _ in words]
        for match in _VERSION_NUMBER.finditer(sentence):
            version = match.group(0)
            k = bisect_left(starts, match.start())
            before = [sentence[start : min(end, match.start())] for start, end in words[max(0, k - 5) : k]]
            reach = before if ("." in version or version[:1] in "<>=!~^") else before[-1:]
            name = next((n for n in map(_known_name, reversed(reach)) if n), None)
            if name and name not in found:
                found[name] = version
    return found


def _mentions(text: str, value: str) -> bool:
    """``value`` written in ``text`` as a whole value (``5.4.5`` is not in ``^5.4.5``)."""
    return re.search(rf"(?<![\w.^~<>=!]){re.escape(value)}(?![\w.])", text) is not None


_PORT = re.compile(r"\bport\s+(\d{2,5})\b|(?:localhost|0\.0\.0\.0|127\.0\.0\.1|\w)?:(\d{2,5})\b", re.I)


def ports_in(text: str) -> set[str]:
    return {a or b for a, b in _PORT.findall(text)}


_QUANTITY_UNITS = {"ms": "time", "s": "time", "min": "time", "h": "time", "d": "time", "w": "time",
                   "kb": "size", "mb": "size", "gb": "size", "tb": "size", "kib": "size", "mib": "size", "gib": "size",
                   "%": "percent"}


#: What makes a number the size of a change rather than a value something has: "(~40% reduction)", "by
#: 30%", "2x faster", "cut 200ms".
_CHANGE_AFTER = re.compile(r"\s*(?:(?:\w+\s+)?(?:reductions?|decrease|increase|improvement|gain|drop|cut|savings?|"
                           r"speed-?up)|faster|slower)\b", re.I)
_CHANGE_BEFORE = re.compile(r"\b(?:by|reduced|increased|improved|cut|saved|saving|dropped|lowered|raised)\s*~?$", re.I)


def _change_amounts(text: str) -> set[str]:
    """The numbers of ``text`` written as the size of a change (:data:`_CHANGE_AFTER`, :data:`_CHANGE_BEFORE`):
    two changes of other sizes ("Reduced token usage during mode transitions (~40% reduction)" / "Only
    essential rules loaded at start (~70% token reduction)") are two changes, not two values of one thing."""
    out: set[str] = set()
    for m in re.finditer(r"[<>=!~^+\-]*\d[\d,.]*\s?[a-z%]*", text, re.I):
        if _CHANGE_AFTER.match(text, m.end()) or _CHANGE_BEFORE.search(text, 0, m.start()):
            out.add(m.group(0).strip().lstrip("~"))
    return out


def quantities_in(text: str) -> dict[str, set[str]]:
    """Numbers with their dimension (time, size, percent, count); the size of a change ("~40% reduction",
    "by 30%") is none."""
    out: dict[str, set[str]] = {}
    ports = ports_in(text)
    changes = _change_amounts(text) if re.search(r"\d", text) else set()
    for token in parse(text).tokens:
        if token.literal != "number" or token.text in ports or token.after in IDENTIFIER_NOUNS:
            continue  # "port 3000", "note 17", "step 3" name a thing
        if token.text.lstrip("~") in changes:
            continue
        unit = re.sub(r"^[<>=!~^+\-]*[\d,.]+", "", token.text).lstrip("/")
        dimension = _QUANTITY_UNITS.get(unit, "count" if not unit else unit)
        out.setdefault(dimension, set()).add(token.text)
    return out


# -- the judgement -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Disagreement:
    reason: str
    old: str
    new: str


def _sentence_with(text: str, value: str) -> str:
    """The sentence of ``text`` that holds ``value`` (the whole text when none does alone)."""
    low = value.lower()
    return next((s for s in _sentences(text) if low in s.lower()), text)


#: A list of three items or more ("Python 3.13+, async-first design, and type hints everywhere."): where
#: its items part.
_LIST_ITEM = re.compile(r",\s+(?:and\s+|or\s+)?")
_SCOPING = re.compile(r"\b(?:for|in|on|under|within|inside|throughout|across|per)\b", re.I)


def _item_with(sentence: str, value: str) -> str:
    """The item of a list that holds ``value``, where ``sentence`` is a list of three items or more
    (each of its items is a fact of its own); else the sentence."""
    items = _LIST_ITEM.split(sentence.strip().rstrip(".;!"))
    if len(items) < 3 or "`" in sentence or _SCOPING.search(sentence):
        return sentence  # (a scope may be the whole list's: "Python 3.11+, pandas, and numpy for the notebooks")
    low = value.lower()
    holding = [item for item in items if low in item.lower()]
    return holding[0] if len(holding) == 1 else sentence


def _dropped(values: Iterable[str]) -> set[str]:
    """The context tokens of some values: as parsed, and their name parts as written and stemmed."""
    drop: set[str] = set()
    for value in values:
        drop |= _tokens(value) | _parts(value)
    return drop


#: Words that qualify a quantity or setting: two texts that differ in one of them speak of two
#: settings ("maximum chunk size" / "average chunk size"), however they are worded.
_QUALIFIERS = frozenset("max maximum min minimum averag avg median default p50 p95 p99 upper lower soft hard initi"
                        " read write inbound outbound ingress egress primari replica local remot product prod"
                        " dev test stage".split())


def qualified_apart(a: str, b: str) -> bool:
    """Whether two texts are two settings or scopes however alike the rest, or what only the verifier may
    judge: each qualifies its subject with a word the other does not ("FastCDC maximum chunk size" /
    "FastCDC average chunk size"; "in staging" / "in production"), or both set one setting to two values
    (`connection_limit=10` for the api, `connection_limit=5` for the worker: :func:`_another_setting_value`
    says whether that is a change)."""
    ca, cb = context(a), context(b)
    if (ca - cb) & _QUALIFIERS and (cb - ca) & _QUALIFIERS:
        return True
    sa, sb = assignments_in(a), assignments_in(b)
    return any(sa[key] != sb[key] for key in sa.keys() & sb.keys())


def _same_subject(a: str, b: str, values: Iterable[str], changed: bool, shared: int = 1,
                  names_scope: bool = True) -> bool:
    """Whether two texts speak of the same subject, apart from their ``values``: they share at least
    ``shared`` words, and they do not each name a scope the other lacks. When the newer text says that
    something changed, each may use words the other does not ("sessions expire" / "users are logged
    out"), but not each a name (a component, a file, a product: "apps/web" / "the API") or each a
    qualifier ("maximum" / "average", "staging" / "production")."""
    drop = _dropped(values)
    ca = {t for t in context(a) - drop if not t.startswith("=")}
    cb = {t for t in context(b) - drop if not t.startswith("=")}
    if len(ca & cb) < shared:
        return False
    if not (ca - cb and cb - ca):
        return True
    if not changed:
        return False
    # each side names a scope of its own: two things ("maximum" / "average"; "apps/web" / "the API")
    if (ca - cb) & _QUALIFIERS and (cb - ca) & _QUALIFIERS:
        return False
    return not (names_scope and (ca - cb) & named(a) and (cb - ca) & named(b))


def _about_what_changed(stating: str, changing: str, values: Iterable[str]) -> bool:
    """Whether a text that states a value speaks of what a change statement changed: they share a word
    beyond the values, and they do not each name something the other does not ("Storefront (apps/web)
    dev server: port 3000" is not what "moved the API dev server from port 3000" moved)."""
    drop = _dropped(values)
    cs = {t for t in context(stating) - drop if not t.startswith("=")}
    cc = {t for t in context(changing) - drop if not t.startswith("=")}
    return bool(cs & cc) and not ((cs - cc) & named(stating) and (cc - cs) & named(changing))


@lru_cache(maxsize=TEXT_CACHE)
def named(text: str) -> frozenset[str]:
    """The context tokens that come from names: code, paths, identifiers, capitalised words, tools."""
    out: set[str] = set()
    for token in parse(text).tokens:
        shown = token.shown or token.text
        if token.literal == "code" and " " in token.text.strip("`").strip():
            continue  # a command or an assignment is a value, not a scope
        if token.literal in ("code", "path", "ident", "env", "url"):
            out.update(_parts(token.text))
        elif token.code or (shown[:1].isupper() and token.after) or (roles_of(shown) and shown.lower() not in AMBIGUOUS):
            out.add(token.text)
    return frozenset(out)


_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_FRAME_JOINERS = frozenset(("or", "and", "either"))
#: Sentences that point somewhere or list what exists name many values at once: another code in the same
#: words is another item, not an update ("See `docs/a.md`" / "See `docs/b.md`").
_LISTING_VERBS = frozenset("see read check refer consult also e.g example examples like such include includes"
                           " including".split())


def _frame(text: str) -> tuple[str, ...]:
    """The words of a sentence around its code spans (lower case, without Markdown, punctuation or the
    words that join alternatives)."""
    plain = _CODE_SPAN.sub(" ", text).lower()
    return tuple(w for w in re.findall(r"[a-z0-9][a-z0-9'+-]*", plain) if w not in _FRAME_JOINERS)


def _another_code_in_the_same_frame(older: str, newer: str) -> Disagreement | None:
    """The same words around code that changed: each side names code the other does not, in a sentence
    of at least three words that prohibits nothing and points nowhere."""
    if "\n" in older.strip() or "\n" in newer.strip():
        return None
    frame = _frame(older)
    if len(frame) < 3 or frame != _frame(newer) or _LISTING_VERBS & set(frame):
        return None
    if parse(older).negated or parse(newer).negated:
        return None  # "Do not use `moment`" / "Do not use `lodash`": two prohibitions
    codes_a = {" ".join(c.split()) for c in _CODE_SPAN.findall(older)}
    codes_b = {" ".join(c.split()) for c in _CODE_SPAN.findall(newer)}
    gone, new = sorted(codes_a - codes_b), sorted(codes_b - codes_a)
    if not gone or not new or not (_value_slot(older, codes_b) and _value_slot(newer, codes_a)):
        return None
    return Disagreement(f"the same sentence with other code ({', '.join(gone)} / {', '.join(new)})",
                        ", ".join(gone), ", ".join(new))


#: What the code after it is: the one instrument of a task ("Run tests with `X`", "Deploy using `X`"), or
#: the one value of a subject ("Default branch is `master`", "The session cookie is named `acme_sid`").
_INSTRUMENT_END = re.compile(r"\b(?:with|using|via|(?:is|are)(?:\s+(?:named|called|set\s+to|now))?)\W*$", re.I)
#: A task's label of plain words ("**Run dev server:** `X`", "Run tests: `X`", "Lint: `X`"): it starts with
#: the verb of a task, which one command does. A label naming a thing ("**Entry point**: `src/main.tsx`")
#: may be written once per component (under "Backend" and under "Frontend") and is not one.
_LABEL = re.compile(r"^\W*(?P<verb>[A-Za-z]+)[\w\s'/-]*?[*_]*:[*_]*\s*$")
#: What follows a command that opens a list item: the task it does ("`make publish` - Build wheel and publish
#: to PyPI"); "`make db-migrate` needs Docker running" says something else of the command.
_DEFINED_AS_TASK = re.compile(r"\s*[-–—:]\s*(?P<verb>[A-Za-z]+)")
_TASK_VERBS = frozenset("run start serve build test lint format typecheck type-check check install deploy release"
                        " publish migrate seed bench benchmark debug generate compile bundle package launch".split())


def _value_slot(text: str, others: set[str]) -> bool:
    """Whether the first code of ``text`` that ``others`` lacks is the value of a task: it follows an
    instrument word (with, using, via) or a label of plain words, and no other code differs before it.
    A code in the subject ("The `sync-invoices` job runs...", "`make db-migrate` needs Docker") or an
    item of a listing ("run `bundle install`") names another thing, not another value."""
    start = 0
    for match in _CODE_SPAN.finditer(text):
        if " ".join(match.group(1).split()) not in others:
            before = text[start:match.start()]
            label = _LABEL.match(before) if start == 0 else None
            if label and label.group("verb").lower() in _TASK_VERBS:
                return True
            if start == 0 and not before.strip(" \t-*+>") and (defined := _DEFINED_AS_TASK.match(text, match.end())):
                return defined.group("verb").lower() in _TASK_VERBS  # "`make publish` - Build wheel and publish"
            return bool(_INSTRUMENT_END.search(before))
        start = match.end()
    return False


def _single_fact(text: str) -> bool:
    """A short statement (not a runbook or a layout listing many values)."""
    return len(text.split()) <= 50 and text.strip().count("\n") <= 1


def disagreement(older: str, newer: str) -> Disagreement | None:
    """Why ``newer`` changes what ``older`` states, in other words than the same sentence; ``None`` when
    nothing shows it (the pair may still be different facts: that is the safe answer). The detectors run
    in order, the first that finds evidence answers: a change said outright first (it may retire a value
    of a long text); the others only between two short statements, and the last ones only when the newer
    says something changed."""
    for said in (_a_change_said_outright, _moved_to_a_named_value):
        found = said(older, newer)
        if found is not None:
            return found
    if parse(older).negated and not parse(newer).negated and not changes_in(older):
        return None  # "Don't use X" then "Use Y": a prohibition, not a value
    if not (_single_fact(older) and _single_fact(newer)):
        return None  # a runbook names many values: only a change said outright is evidence against it
    changed = marks_change(newer)
    for restated in _RESTATED:
        found = restated(older, newer, changed)
        if found is not None:
            return found
    return _said_to_change(older, newer) if changed else None


def _a_change_said_outright(older: str, newer: str) -> Disagreement | None:
    """A change said outright, in either text (the newer one usually): "we moved from Jest to Vitest"
    retires the `Jest` an older text states."""
    for said, other, direction in ((newer, older, 1), (older, newer, -1)):
        for change in changes_in(said):
            if not _states(other, change.old) or (change.new and _states(other, change.new)):
                continue
            if change.how in ("instead", "removed") and not _names_whole(other, change.old):
                continue  # `main` retired is not named by `src/main/java` nor by "main.tsp"
            if change.how == "removed" and (place := _removed_from(change)) and not _states(other, place):
                continue  # taken out of one place ("from `nix-env` installation") the other does not speak of
            if _negated_near(other, change.old) or _retires(other, change.old):
                continue  # "Don't use Jest" agrees with "we moved from Jest to Vitest"; so does "Jest was removed"
            if (_only_numbers(change.old) or not _name_like(change.old)) and \
                    not _about_what_changed(other, change.sentence, [change.old, change.new or ""]):
                continue  # a bare number or word needs the same subject around it
            what = f"{change.old} → {change.new}" if change.new else f"{change.old} {change.how}"
            old, new = (change.old, change.new or "") if direction == 1 else (change.new or "", change.old)
            return Disagreement(f"{'the newer' if direction == 1 else 'the older'} says: {what}", old, new)
    return None


def _names_whole(text: str, value: str) -> bool:
    """Whether ``text`` names ``value`` as a name of its own where ``value`` is code or a path: the same
    span or path, or (a command) a run of whole words of one of its spans (`make lint` in `make lint &&
    make type`), never a part of a longer name (`main` in `src/main/java`, `main.tsp`). Any other value
    (a tool, a word) is named as :func:`_states` finds it."""
    spans = _CODE_SPAN.findall(value)
    if spans:
        wanted = " ".join(spans[0].split()).rstrip("/").lower()
    else:
        tokens = parse(value).tokens
        if not (len(tokens) == 1 and tokens[0].literal in ("path", "ident", "env", "url")):
            return True
        wanted = value.strip().strip("`").rstrip("/").lower()
    if wanted in _names(text):
        return True
    words = wanted.split()
    return len(words) > 1 and any(_runs_in(words, span.lower().split()) for span in _CODE_SPAN.findall(text))


def _runs_in(words: list[str], within: list[str]) -> bool:
    n = len(words)
    return any(within[k:k + n] == words for k in range(len(within) - n + 1))


def _retires(text: str, value: str) -> bool:
    """Whether ``text`` itself says ``value`` is gone (two texts that both retire it agree)."""
    wanted = _tokens(value)
    return bool(wanted) and any(_tokens(change.old) == wanted for change in changes_in(text))


def _moved_to_a_named_value(older: str, newer: str) -> Disagreement | None:
    """A change to a named value: "Staging moved to `us-east-1`" retires the `us-west-2` an older memory
    gives the same subject (a name of the same kind, sharing a part)."""
    for sentence in _sentences(newer):
        for match in _MOVED_TO.finditer(sentence):
            new_name = match.group("new").strip("`")
            for old_name in _names_like(older, new_name):
                if not _mentions(newer, old_name) and not _negated_near(older, old_name) and \
                        _same_subject(_sentence_with(older, old_name), sentence, [old_name, new_name], True):
                    return Disagreement(f"the newer says: moved to {new_name} (was {old_name})", old_name, new_name)
    return None


def _the_same_frame(older: str, newer: str, changed: bool) -> Disagreement | None:
    """The same sentence around other code (:func:`_another_code_in_the_same_frame`)."""
    return _another_code_in_the_same_frame(older, newer)


def _two_tools_for_one_job(older: str, newer: str, changed: bool) -> Disagreement | None:
    ta, tb = tools_in(older), tools_in(newer)
    for a_name, a_roles in ta.items():
        if a_name in tb:
            continue
        for b_name, b_roles in tb.items():
            if b_name in ta or not (a_roles & b_roles):
                continue
            said_a, said_b = _sentence_with(older, a_name), _sentence_with(newer, b_name)
            jobs_a, jobs_b = jobs_of(said_a), jobs_of(said_b)
            if jobs_a and jobs_b and not jobs_a & jobs_b:
                continue  # each names another job ("Use Black for formatting" / "Use Ruff for linting")
            # the words that tell the job both name are the subject they share, however each words it
            told = [w for kind in jobs_a & jobs_b for w in _ROLE_WORDS[kind].split()]
            if _same_subject(said_a, said_b, [a_name, b_name], changed) or (
                    told and _same_subject(said_a, said_b, [a_name, b_name, *told], changed, shared=0)):
                role = sorted(a_roles & b_roles)[0]
                return Disagreement(f"another {role.replace('-', ' ')} ({a_name} / {b_name})", a_name, b_name)
    return None


#: What tools of a role are said to do: words that tell the role, not a subject ("`npm run lint` # ESLint
#: validation" / "`npm run lint` (Biome lint/format)" speak of one command).
_ROLE_WORDS = {"linter": "lint linter linting validation validate check checks style",
               "formatter": "format formatter formatting style",
               "type-checker": "type types typecheck typechecking check checks checking",
               "test-runner": "test tests testing",
               "import-sorter": "import imports sort sorting"}


_JOB_STEMS = {kind: frozenset(stem(w) for w in words.split()) for kind, words in _ROLE_WORDS.items()}


def jobs_of(text: str) -> set[str]:
    """The jobs a text says a tool does ("linter", "formatter"...): a text about formatting is not about
    linting."""
    said = context(text)
    return {kind for kind, stems in _JOB_STEMS.items() if said & stems}


def _another_version(older: str, newer: str, changed: bool) -> Disagreement | None:
    """Another version of the same named thing."""
    va, vb = versions_in(older), versions_in(newer)
    for name in va.keys() & vb.keys():
        said_a = _item_with(_sentence_with(older, va[name]), va[name])
        said_b = _item_with(_sentence_with(newer, vb[name]), vb[name])
        if (va[name] != vb[name] and not _mentions(said_b, va[name]) and not _mentions(said_a, vb[name])
                and not _refines(va[name], vb[name])):
            if _same_subject(said_a, said_b, [va[name], vb[name], name], changed, shared=0) and (
                    changed or not _in_passing(said_a, said_b, [va[name], vb[name], name])):
                return Disagreement(f"another version of {name} ({va[name]} / {vb[name]})", va[name], vb[name])
    return None


def _refines(a: str, b: str) -> bool:
    """Whether one of two plain versions is the other written more precisely ("Next.js 15" / "Next.js:
    15.3.3", "Python 3.12" / "3.12.4"): the same release line, no disagreement. A range or a bound
    ("^19.0.0", ">=3.12") is compared as it is."""
    if not (a[:1].isdigit() or a[:1] == "v") or not (b[:1].isdigit() or b[:1] == "v"):
        return False
    pa, pb = a.lstrip("v").split("."), b.lstrip("v").split(".")
    short, long_ = sorted((pa, pb), key=len)
    return len(short) < len(long_) and long_[:len(short)] == short


#: A sentence about something else that names a version on the way says this many words of its own or more.
_PASSING_WORDS = 5


def _in_passing(a: str, b: str, values: Iterable[str]) -> bool:
    """Whether one of two texts states the version alone ("Python 3.12+.") and the other names it on the
    way to another subject ("Keep the supported `numba` lower bound in `pyproject.toml` and pass Python
    3.14 explicitly during deployment sync"): not the project's Python, no disagreement about it."""
    drop = _dropped(values)
    ca, cb = (len({t for t in context(x) - drop if not t.startswith("=")}) for x in (a, b))
    return min(ca, cb) == 0 and max(ca, cb) >= _PASSING_WORDS


def _another_setting_value(older: str, newer: str, changed: bool) -> Disagreement | None:
    """The same setting assigned another value (`MAX_UPLOAD_MB=10` / `MAX_UPLOAD_MB=25`), for the same
    subject (not "api uses `connection_limit=10`" / "worker uses `connection_limit=5`")."""
    sa, sb = assignments_in(older), assignments_in(newer)
    for key in sa.keys() & sb.keys():
        if sa[key] != sb[key] and _same_subject(_sentence_with(older, key), _sentence_with(newer, key),
                                                [key, sa[key], sb[key]], changed, shared=0):
            return Disagreement(f"{key} set to another value ({sa[key]} / {sb[key]})", sa[key], sb[key])
    return None


def _the_opposite_about_the_same_names(older: str, newer: str, changed: bool) -> Disagreement | None:
    """The same names, one of them denied on one side only ("Use `unsafe` in `crates/codec`" /
    "`crates/codec` must contain no `unsafe` code"); the negation must be about what both name: "use
    `uv run` (not `python` directly)" says nothing against "`uv run litestar run`", and a code span is
    one name ("no aggregate `test` script" names no `npm run test`). Where both deny it ("import from
    `@mantine/core`, **not** from `src/theme/`" / "… MUST import from `@mantine/core`, NOT from
    `src/theme/`. … elements do not need to know …"), they agree, however many other negations each
    writes."""
    if parse(older).negated == parse(newer).negated:
        return None
    names = _names(older) & _names(newer)
    if len(names) < 2:
        return None
    if any(_negated_near(older, name) != _negated_near(newer, name) for name in names):
        return Disagreement(f"the opposite about {', '.join(sorted(names))}", "", "not")
    return None


def _another_variable_for_the_same_setting(older: str, newer: str, changed: bool) -> Disagreement | None:
    """Another environment variable for the same setting ("`SENTRY_DSN`" / "`NEXT_PUBLIC_SENTRY_DSN`"),
    when the newer says something changed."""
    ea, eb = (_env_vars(older), _env_vars(newer)) if changed else (set(), set())
    for a_var in ea - eb:
        for b_var in eb - ea:
            if set(a_var.split("_")) & set(b_var.split("_")) - {"URL", "KEY", "ID", "NAME", "PATH", "DIR"} \
                    and _same_subject(_sentence_with(older, a_var), _sentence_with(newer, b_var), [a_var, b_var],
                                      changed):
                return Disagreement(f"another variable for the same setting ({a_var} / {b_var})", a_var, b_var)
    return None


#: The new value restated, between two short statements, in the order they are tried.
_RESTATED: tuple[Callable[[str, str, bool], Disagreement | None], ...] = (
    _the_same_frame, _two_tools_for_one_job, _another_version, _another_setting_value,
    _the_opposite_about_the_same_names, _another_variable_for_the_same_setting)


def _said_to_change(older: str, newer: str) -> Disagreement | None:
    """The newer text says something changed: another port, quantity or the opposite word, about the same
    subject, sentence by sentence ("Refresh tokens expire after 30 days" is not what "Access token TTL
    reduced to 5 minutes; the refresh flow renews it" changed)."""
    for said_a in _sentences(older):
        for said_b in _sentences(newer):
            found = _another_quantity(said_a, said_b)
            if found:
                return found
    for word_a in context(older):
        for word_b in context(newer) - context(older):
            if (word_a, word_b) in antonyms() and word_b not in context(older) and word_a not in context(newer) \
                    and any(_same_subject(said_a, said_b, [word_a, word_b], True, shared=2)
                            for said_a in _sentences(older) if word_a in context(said_a)
                            for said_b in _sentences(newer) if word_b in context(said_b)):
                # (sentence by sentence: "10 files changed (excluding tests)" and "Include issue references"
                # are two sentences about two things, whatever else their texts share)
                return Disagreement(f"the opposite ({word_a} / {word_b})", word_a, word_b)
    return None


def _another_quantity(older: str, newer: str) -> Disagreement | None:
    """Another port or quantity (of one dimension) for the same subject, in two sentences."""
    pa, pb = ports_in(older), ports_in(newer)
    if pa and pb and not pa & pb and _same_subject(older, newer, [*pa, *pb, "port"], True, shared=2):
        return Disagreement(f"another port ({', '.join(sorted(pa))} / {', '.join(sorted(pb))})",
                            ", ".join(sorted(pa)), ", ".join(sorted(pb)))
    qa, qb = quantities_in(older), quantities_in(newer)
    for dimension in qa.keys() & qb.keys():
        only_a, only_b = qa[dimension] - qb[dimension], qb[dimension] - qa[dimension]
        # a bare count says less about its subject than "30s" or "512MB": it needs more words around it
        shared = 3 if dimension == "count" else 2
        if only_a and only_b and _same_subject(older, newer, [*only_a, *only_b], True, shared=shared):
            return Disagreement(f"another value ({', '.join(sorted(only_a))} / {', '.join(sorted(only_b))})",
                                ", ".join(sorted(only_a)), ", ".join(sorted(only_b)))
    return None


_ASSIGNMENT = re.compile(r"`([A-Za-z_][\w.-]*)\s*(?:=|:)\s*([^`\s][^`]*)`|\b([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)=([^\s`,;)]+)")


_ANOTHER_PAIR = re.compile(r"\s[A-Za-z_][\w.-]*[:=]\S")


@lru_cache(maxsize=TEXT_CACHE)
def assignments_in(text: str) -> dict[str, str]:
    """Settings a text assigns in code: ``{"MAX_UPLOAD_MB": "10"}`` from `MAX_UPLOAD_MB=10` or
    `timeout: 30_000`."""
    found: dict[str, str] = {}
    for match in _ASSIGNMENT.finditer(text):
        key, value = (match.group(1), match.group(2)) if match.group(1) else (match.group(3), match.group(4))
        if value.startswith("//"):
            continue  # `https://...` is an address, not a setting
        if match.group(1) and (_ANOTHER_PAIR.search(value) or (" " in value.strip() and
                                                                 text[match.end(1):match.start(2)].strip() == ":")):
            continue  # `filename:CLAUDE.md language:TypeScript` is a search query, not a setting
        found.setdefault(key.lower(), value.strip().strip("'\"").rstrip(",;"))
    return found


_MOVED_VERBS = r"\b(?:moved|migrated|switched|changed|renamed|upgraded|bumped|repointed|pointed|relocated)\b"
#: "moved to `x`": from a verb to the first "to `x`" of its clause, read up to the next verb at most. A
#: verb whose "to" lies past the next verb gives way to that verb: the same "to `x`" (the only group
#: used), but a clause of many verbs and no "to" is read once, not once from each verb.
_MOVED_TO = re.compile(_MOVED_VERBS + r"(?:(?!" + _MOVED_VERBS + r")[^.;])*?\bto\s+(?P<new>`[^`]+`)", re.I)


def _names_like(text: str, name: str) -> list[str]:
    """The names ``text`` writes (code, paths, identifiers) of the same kind as ``name`` and sharing a
    part with it (`us-west-2` for `us-east-1`; `src/lib` for `packages/lib`), other than ``name``."""
    wanted = parse(f"`{name}`").tokens
    if len(wanted) != 1:
        return []
    kind, parts = literal_kind(wanted[0]), _parts(name)
    found = []
    for token in parse(text).tokens:
        if token.literal in ("code", "path", "ident", "env", "url") and literal_kind(token) == kind:
            value = token.text.strip("`")
            if value.lower() != name.lower() and _parts(value) & parts:
                found.append(value)
    return found


_ENV = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b")


def _env_vars(text: str) -> set[str]:
    return set(_ENV.findall(text))


def _names(text: str) -> set[str]:
    """The code spans (each whole: `npm run test` is one name), paths and identifiers a text names; not a
    word written with a slash ("I/O", "CI/CD", "UI/UX")."""
    spans = {" ".join(span.split()).rstrip("/").lower() for span in _CODE_SPAN.findall(text)}
    return spans | {t.text.strip("`").rstrip("/").lower() for t in parse(_outside_code(text)).tokens
                    if t.literal in ("code", "path", "ident", "env") and not _SLASHED_WORD.fullmatch(t.text)}


_SLASHED_WORD = re.compile(r"[A-Za-z]{1,2}(?:/[A-Za-z]{1,2})+")


@lru_cache(maxsize=TEXT_CACHE)
def anchors(text: str) -> frozenset[str]:
    """Keys two texts must share for an update in other words to be possible between them: the role
    of a tool they name, a name they give a version to, a part of an environment variable."""
    out = {f"role:{role}" for roles in tools_in(text).values() for role in roles}
    out |= {f"version:{name}" for name in versions_in(text)}
    out |= {f"env:{part}" for var in _env_vars(text) for part in var.split("_") if len(part) > 2}
    return frozenset(out)


@lru_cache(maxsize=TEXT_CACHE)
def retired(text: str) -> tuple[frozenset[str], ...]:
    """The values a text says are gone, each as the tokens an older text would state it with."""
    return tuple(t for t in (_tokens(change.old) for change in changes_in(text)) if t)
