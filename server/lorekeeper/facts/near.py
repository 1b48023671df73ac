"""Two texts that state one fact in nearly the same words: "Jekyll configuration" / "Jekyll configuration
(baseurl, title, theme settings)", "**Python**: Use `uv` for package management." / "**Package
Management**: Use `uv` for package management." The same literals, the words of one among the other's
(a few more) or nearly all shared, no word that turns the meaning on one side only, no conflict the
verifier sees. A word and its short form are one ("repo" / "repository"); a text written mostly in
another script is never near (its Latin words are names; the stems compared are English). Instruction
files' repeats (:mod:`lorekeeper.analysis.repeats`) and compaction's merge of entries ask here.

Invariant: pure functions of text (with caches of their answers)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from ..core.text import TEXT_CACHE, other_script
from .parse import FUNCTION_WORDS, parse, stem
from .updates import disagreement
from .verify import compare

#: Fewer words than this, and a text is too short to be found in other words.
NEAR_MIN_WORDS = 3

#: Words whose presence on one side only changes what a text says ("Run X" / "Never run X", "all" /
#: "some", "before" / "after").
_CHANGES_MEANING = frozenset(form for w in (
    "not no never none nor without except unless only avoid don't doesn't isn't shouldn't mustn't cannot can't"
    " instead rather all some any every each most few many more less least before after above below first last"
    " optional required deprecated removed replaced old new previous former until since").split()
    for form in (w, stem(w)))
#: Of those, the words that deny: a longer text that adds one says the opposite of the shorter.
_NEGATING = frozenset(form for w in (
    "not no never none nor without except unless avoid don't doesn't isn't shouldn't mustn't cannot can't instead"
    " deprecated removed replaced").split() for form in (w, stem(w)))
_PART = re.compile(r"[a-z0-9]+")
_SEQUENCE = re.compile(r"[a-z0-9][a-z0-9.+#/-]*")
_EMPHASIS = str.maketrans("", "", "*_`")


@dataclass(frozen=True)
class _Shape:
    words: frozenset[str]  # stems of the words, and of the parts of the literals
    plain: frozenset[str]  # stems of the words alone
    literals: frozenset[str]  # code, paths, numbers... in one spelling (`docs/` = docs)
    negated: bool
    marks: frozenset[str]  # status marks: done, planned, struck through
    sequence: tuple[str, ...] = ()  # the words as written, lower case, without marks and emphasis


#: Short forms written for a word (stems): "copy CLAUDE.md files into repo" / "… into this repository".
#: Only words as prose: a literal's parts stay as written (`.env` is a file, not "environment"; the
#: sequence of words as written, which only orders them, reads both alike); only
#: short forms of one meaning ("auth" may be authentication or authorization, "dev" development or device).
_SHORT_FORMS = {"repo": "repositori", "config": "configur", "dir": "directori", "env": "environ", "dep": "depend",
                "info": "inform", "app": "applic", "db": "databas", "arg": "argument", "impl": "implement",
                "pkg": "packag", "pkgs": "packag", "msg": "messag", "doc": "document", "spec": "specif"}


def _full(word: str) -> str:
    return _SHORT_FORMS.get(word, word)


#: Marks that show an example as what to do and as what not to ("✅ "Create new automation"" / "❌ "Create
#: New Automation""): two such lines contrast, however alike their words.
_DO = re.compile("[✅✔✓☑👍]")
_DONT = re.compile("[❌✗✘❎🚫⛔👎]")


@lru_cache(maxsize=TEXT_CACHE)
def _example_mark(text: str) -> int:
    """1 for a text marked as what to do, -1 as what not to, 0 for neither or both."""
    if text.isascii():
        return 0
    do, dont = _DO.search(text) is not None, _DONT.search(text) is not None
    return 0 if do == dont else 1 if do else -1


def contrasted(a: str, b: str) -> bool:
    """Whether one text is marked as what to do and the other as what not to (✅ / ❌): home-assistant's
    style guide writes "Use sentence case" with a right and a wrong example that differ in case alone."""
    return _example_mark(a) * _example_mark(b) == -1


#: "X must (not) <verb> …": a rule with a subject of its own.
_RULE_OF = re.compile(r"^[\W_]*(?P<subject>[A-Za-z][\w ./-]{0,60}?)\s+(?:must|should|shall|need to|needs to|has to|"
                      r"have to|may|can|cannot|can't|will)\s+(?:(?:not|never|always|only|also)\s+)*(?P<verb>[a-z]+)\b",
                      re.I)
#: "(Always|Never|Do not) <verb> …": a rule for whatever its heading is about.
_IMPERATIVE = re.compile(r"^[\W_]*(?:(?:always|never|do not|don't|please|also)\s+)*(?P<verb>[a-z]+)\b", re.I)
#: Subjects that name no part of the project: "The project must use pnpm" says what "Use pnpm" does.
_ANYONE = frozenset(stem(w) for w in "project repository repo codebase code app application team agent agents claude "
                    "copilot assistant ai model llm developer developers contributor contributors everyone "
                    "anyone".split())


@lru_cache(maxsize=TEXT_CACHE)
def _rule_of(text: str) -> tuple[str, frozenset[str]] | None:
    """The verb of a rule written with a subject ("PR titles must NOT use …"), and the subject's stems
    that name something (not "the project", not the agent)."""
    rule = _RULE_OF.match(text.translate(_EMPHASIS))
    if rule is None:
        return None
    subject = {stem(w) for w in re.findall(r"[a-z0-9]+", rule["subject"].lower())} - FUNCTION_WORDS - _ANYONE
    return stem(rule["verb"].lower()), frozenset(subject)


@lru_cache(maxsize=TEXT_CACHE)
def _bare_verb(text: str) -> str | None:
    """The verb a bare imperative opens with ("Do NOT use …": use)."""
    bare = _IMPERATIVE.match(text.translate(_EMPHASIS))
    return None if bare is None else stem(bare["verb"].lower())


def _narrower(short: str, long_: str) -> bool:
    """Whether ``long_`` gives the rule ``short`` states as a bare imperative a subject ``short`` does not
    name: toolhive's CLAUDE.md says "Do NOT use Conventional Commits (`feat:`, …)" under "Commit
    Guidelines", its PR rules "PR titles must NOT use conventional commit prefixes (`feat:`, …)": the
    same words, about commits in one, PR titles in the other."""
    rule = _rule_of(long_)
    if rule is None or rule[0] != _bare_verb(short):
        return False
    return bool(rule[1] - _shape(short).words)


#: Marks that give an item a status ("✅ Metadata retrieval" is done, "⬜ ..." planned): a copy with a
#: mark the kept one lacks says more than it.
_MARKS = re.compile(r"[✅✔☑⬜☐❌✗]|\[[ xX]\]|~~")


@lru_cache(maxsize=TEXT_CACHE)
def _shape(text: str) -> _Shape:
    statement = parse(text)
    words: set[str] = set()
    plain: set[str] = set()
    literals: set[str] = set()
    for token in statement.tokens:
        if token.literal or token.code:
            spelled = (token.code or token.text).strip("`").rstrip("/").lower()
            literals.add(spelled)
            words.update(stem(part) for part in _PART.findall(spelled))
        else:
            plain.add(_full(token.text))
    marks = frozenset(m.lower() for m in _MARKS.findall(text))
    sequence = tuple(_full(stem(w.strip("./-")))
                     for w in _SEQUENCE.findall(_MARKS.sub("", text.lower()).translate(_EMPHASIS)))
    return _Shape(frozenset(words | plain), frozenset(plain), frozenset(literals), statement.negated, marks, sequence)


@lru_cache(maxsize=TEXT_CACHE)  # an editor's save asks again of every pair but the edited entry's
def near(a: str, b: str) -> bool:
    """Whether two instruction lines state one fact in nearly the same words: the literals of one are
    among the other's, and the words of one are among the other's (a few more: "Jekyll configuration" /
    "Jekyll configuration (baseurl, title, theme settings)") or nearly all shared; no word that turns
    the meaning (not, only, all, before...) on one side only, no conflict the verifier sees."""
    if other_script(a) or other_script(b):
        return False  # its Latin words are a few names: "检查 Cocos Creator 3.8.7 安装路径"
    sa, sb = _shape(a), _shape(b)
    if sa.negated != sb.negated:
        return False
    # the shorter, and of two as long the one with fewer literals ("**complex-projects**: Multi-service
    # projects" / "`complex-projects/` - Multi-service projects": the same either way round)
    short, long_ = (sa, sb) if (len(sa.words), len(sa.literals)) <= (len(sb.words), len(sb.literals)) else (sb, sa)
    if len(short.words) < NEAR_MIN_WORDS or not short.literals <= long_.literals:
        return False
    if _turns(short, long_) or _reversed(sa.sequence, sb.sequence) or contrasted(a, b) or _told_change(a, b) \
            or _narrower(a, b) or _narrower(b, a):
        return False
    # the words not spelled by a literal both name ("`docs/_config.yml`: Jekyll configuration" has two)
    own = short.words - {stem(part) for literal in short.literals for part in _PART.findall(literal)}
    if len(short.plain & long_.plain) < 0.6 * max(len(own), 1):
        return False  # mostly words of a name on one side ("New Relic APM" / `NEW_RELIC_LICENSE_KEY`)
    extra = long_.words - short.words
    # more words on one side: few, unless a literal both name pins what they are about, or the shorter is
    # written in the longer word for word ("Ethereum-based chains (Ethereum, Zora, Base, Arbitrum)" / "Back
    # up NFTs from Ethereum-based chains (Ethereum, Zora, Base, Arbitrum)")
    room = max(3, len(short.words)) if short.literals else max(1, len(short.words) // 3)
    subsumed = short.words <= long_.words and (len(extra) <= room or _written_in(short.sequence, long_.sequence))
    if not subsumed and len(short.words & long_.words) < 0.85 * len(short.words | long_.words):
        return False
    return compare(a, b).verdict != "conflict" and disagreement(a, b) is None and disagreement(b, a) is None


#: Words that put what comes before them first: "batch writes, then read once" is not "batch reads, then
#: writes".
_ORDER = frozenset({"then", "->", "→"})


def _reversed(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Whether two texts that both order steps ("X, then Y") put a word both name on each side of it."""
    ia = next((i for i, w in enumerate(a) if w in _ORDER), None)
    ib = next((i for i, w in enumerate(b) if w in _ORDER), None)
    if ia is None or ib is None:
        return False
    before_a, after_a, before_b, after_b = set(a[:ia]), set(a[ia + 1:]), set(b[:ib]), set(b[ib + 1:])
    return bool((before_a & after_b) - after_a or (after_a & before_b) - before_a)


def within(short: str, long_: str) -> bool:
    """Whether ``short`` states nothing ``long_`` does not, in nearly its words: its words, literals and
    status marks are all among the longer's, which adds a few words or writes the shorter word for word
    ("Run tests: `uv run pytest`" / "Run tests with `uv run pytest` after making significant changes.";
    "Projects live in `projects/`" / "Projects live in `projects/`, each with its own `pyproject.toml`").
    The longer may add a condition or a scope ("after …", "each …", "only …"): it says more of the same
    fact, not another one; never a word that denies ("not", "instead", "removed"), nor may the shorter
    hold a word that turns the meaning the longer lacks; no conflict the verifier sees."""
    if other_script(short) or other_script(long_):
        return False
    ss, sl = _shape(short), _shape(long_)
    if (ss.negated != sl.negated or not ss.words <= sl.words or not ss.literals <= sl.literals
            or not ss.marks <= sl.marks):
        return False
    if len(ss.words) < NEAR_MIN_WORDS and not (  # a short text: only with a literal, written word for word
            ss.literals and len(ss.words) >= 2 and _written_in(ss.sequence, sl.sequence)):
        return False
    if (set(ss.sequence) - set(sl.sequence)) & _CHANGES_MEANING or _narrower(short, long_) or _told_change(short, long_):
        return False
    if ((sl.words - ss.words) | (set(sl.sequence) - set(ss.sequence))) & _NEGATING:
        return False
    own = ss.words - {stem(part) for literal in ss.literals for part in _PART.findall(literal)}
    if len(ss.plain & sl.plain) < 0.6 * max(len(own), 1):
        return False
    # what the longer adds comes before or after the shorter's words, not between them: "(lint + type +
    # format + test)" / "(lint + type + format + calisthenics + test)" changed a list; "The `billing`
    # service calls `accounts`" / "The `accounts` service calls `billing`" is another fact
    if not _written_in(_content(ss.sequence), _content(sl.sequence), at_least=1):
        return False
    return (compare(short, long_).verdict != "conflict" and disagreement(short, long_) is None
            and disagreement(long_, short) is None)


def _written_in(short: tuple[str, ...], long_: tuple[str, ...], at_least: int = NEAR_MIN_WORDS) -> bool:
    """Whether the words of ``short`` (``at_least`` or more) run, in order, within ``long_``."""
    n = len(short)
    return n >= at_least and any(long_[k:k + n] == short for k in range(len(long_) - n + 1))


#: Words a restatement may put between the words of the text it restates ("Run tests: …" / "Run tests
#: with …"): articles, prepositions, conjunctions, forms of "be".
_GLUE = frozenset("a an the in on at to of for with by from via into as and or is are be it its this that "
                  "these those each".split())


def _content(sequence: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(w for w in sequence if w not in _GLUE)


def may_be_one(a: str, b: str) -> bool:
    """What a pair found in other words must also hold: the same polarity, and no word that turns the
    meaning on one side only ("tokens are processed sequentially rather than concurrently" /
    "Implementing concurrent token processing")."""
    sa, sb = _shape(a), _shape(b)
    return sa.negated == sb.negated and not _turns(sa, sb)


#: A change told in passing: "listens on PORT, default 3000 (changed from 8080 for the Heroku move)" is
#: not "listens on port 8080", though it writes every word of it ("changes" alone is a noun).
_CHANGE_TOLD = re.compile(r"\b(?:changed|switched|moved|migrated|renamed|upgraded|downgraded)\s+(?:from|to|over)\b",
                          re.I)


@lru_cache(maxsize=TEXT_CACHE)
def _tells_change(text: str) -> bool:
    return _CHANGE_TOLD.search(text) is not None


def _told_change(a: str, b: str) -> bool:
    return _tells_change(a) != _tells_change(b)


def _turns(sa: _Shape, sb: _Shape) -> bool:
    """Whether a word that turns the meaning is written on one side only (the parse drops some of them,
    "only" among them: the words as written are asked too)."""
    return bool(((sa.words ^ sb.words) | (set(sa.sequence) ^ set(sb.sequence))) & _CHANGES_MEANING)


def turns_meaning(text: str) -> bool:
    """Whether ``text`` denies or holds a word that turns the meaning (not, only, required, deprecated,
    before...): as a label ("**Don't:**", "**Auto-Reloads (No Restart):**"), it says something of every
    item of the list it introduces."""
    shape = _shape(text)
    return shape.negated or bool((shape.words | set(shape.sequence)) & _CHANGES_MEANING)


def says_more(a: str, b: str) -> bool:
    """Whether ``a`` states something ``b`` does not (a word, literal or status mark ``b`` lacks)."""
    sa, sb = _shape(a), _shape(b)
    return bool(sa.words - sb.words or sa.literals - sb.literals or sa.marks - sb.marks)


def words_of(text: str) -> frozenset[str]:
    """The stems :func:`near` compares (words, and the parts of the literals)."""
    return _shape(text).words



#: Where a text's sentences and clauses part ("… large). Icon-only …", "…; minimum 44x44px …").
_PARTS = re.compile(r"(?<=[.;!?])\s+(?=\S)")


class Said(NamedTuple):
    """Two texts of a list (``i``, ``j``: their indexes) that state one fact, with the words of each that
    state it (``a``, ``b``): the whole text, or the sentence of a longer one that the other restates.
    ``by``: who judged them one fact where no rule did (a model: ``llm:MODEL``); "" for the rules."""

    i: int
    j: int
    a: str
    b: str
    by: str = ""


def sentences(text: str) -> list[str]:
    """The sentences and clauses of ``text`` (parted after ``.``, ``;``, ``!`` or ``?``), whitespace as
    one space."""
    return list(_sentences(text))


@lru_cache(maxsize=TEXT_CACHE)  # every pair a unit is in asks again
def _sentences(text: str) -> tuple[str, ...]:
    return tuple(p for p in (q.strip() for q in _PARTS.split(" ".join(text.split()))) if p)


def near_in_parts(a: str, b: str) -> bool:
    """Whether every sentence or clause of the shorter text is :func:`near` one of the longer's, which
    has two or more ("**External links**: all links to external domains must use `target="_blank" …`"
    / the same, then "Exception: editorially verified source links may drop `nofollow`"): the shorter
    states nothing the longer does not, though the longer's other sentences may turn another way."""
    pa, pb = _sentences(a), _sentences(b)
    if len(pa) < 2 and len(pb) < 2:
        return False  # (the longer has two or more, whichever it is)
    short, long_ = (pa, pb) if len(_shape(a).words) <= len(_shape(b).words) else (pb, pa)
    if len(long_) < 2 or len(short) > len(long_):
        return False
    matched = 0
    for part in short:
        if len(_shape(part).words) < 2:
            continue
        if not any(near(part, other) for other in long_):
            return False
        matched += 1
    return matched >= 1 and sum(len(_shape(p).words) for p in short) >= NEAR_MIN_WORDS
