# pyright: standard
"""The verifier of "same fact": the one judge every compaction stage asks before two memories become
one, and the one that recognises a contradiction.

Two statements are the **same fact** when they differ only in case, punctuation, Markdown, function
words ("the", "must", "always"), inflection ("runs"/"run") and the order of their clauses — each
clause keeping its own word order, so a reversal ("orders publishes events that inventory consumes")
is not the same; a phrase moved whole across a comma, or two items of a list swapped across "and",
is (:func:`moved`). Every literal must match exactly: numbers with their unit and sign (``10s``, ``-1``,
``UTC+2``), number words, versions with their operator (``^18.3.1`` is not ``~18.3.1``), operators
(``??``, ``||``), paths and dotfiles, environment variables, code spans and commands, identifiers. A
negation on one side only is a different fact.

A **conflict** is inferred only when everything matches but one value or the polarity: the same
statement with another number, version, tool or setting in its predicate ("Tests run with Jest" /
"... Vitest", "Timeout is 10s" / "... 30s", "Use X" / "Do not use X", "enabled" / "disabled"). A
difference in the subject ("Port 3000 must be free" / "Port 5432 must be free", "free tier" / "paid
tier", "orders" / "payments") is a different fact, not a conflict: both stay. Conflicts are reported for
review and never acted on here.

The verifier is deterministic and needs no model; later stages (embeddings, an LLM) propose pairs and
this module decides (:func:`compare`)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache
from typing import Literal, Protocol

from ..infra.workers import fork_map
from .parse import (
    ANTONYM_STEMS,
    CODE_EXTENSIONS,
    IDENTIFIER_NOUNS,
    PREFERENCE_MARKERS,
    PREFERENCE_STEMS,
    PREFERENCE_VERBS,
    REQUIREMENT_STEMS,
    VALUE_MARKERS,
    WEAK_PREFERENCE_MARKERS,
    Statement,
    Token,
    keys_of,
    lex,
    literal_kind,
    parse,
)
from .updates import disagreement
from .vocabulary import roles_of

Verdict = Literal["same", "conflict", "different"]



@dataclass(frozen=True)
class Comparison:
    verdict: Verdict
    reason: str
    old: str | None = None  # the differing values, for a conflict
    new: str | None = None


def same_fact(a: str, b: str) -> bool:
    return compare(a, b).verdict == "same"


def compatible(a: str, b: str) -> bool:
    """Whether the words both texts write as code match exactly (`stage` is not `staging`, though both
    stem alike); a word written as code on one side only is the plain word."""
    ca, cb = _summary(a)[3], _summary(b)[3]
    if not ca or not cb:
        return True
    da, db = dict(ca), dict(cb)
    return all(da[stem] == db[stem] for stem in da.keys() & db.keys())


def compare(a: str, b: str) -> Comparison:
    """Whether two texts state the same fact, conflict (everything but one value or the polarity
    matches), or are different facts. Symmetric in its verdict; ``old``/``new`` follow ``a``/``b``."""
    verdict = next((v for m in _memories if (v := m.verdict(a, b)) is not None), None) or _compare(a, b)
    for memory in _memories:
        memory.learn_verdict(a, b, verdict)
    return verdict


def compare_all(pairs: list[tuple[str, str]]) -> list[Comparison]:
    """:func:`compare` of each pair, in order; the verdicts no memory holds are computed over worker
    processes when there are many (:func:`.workers.fork_map`), then learnt here, as :func:`compare` does."""
    memories = list(_memories)
    held: list[tuple[Comparison | None, Memory | None]] = []  # the verdict, and the memory that gave it
    for a, b in pairs:
        for memory in memories:
            found = memory.verdict(a, b)
            if found is not None:
                held.append((found, memory))
                break
        else:
            held.append((None, None))
    computed = iter(fork_map(lambda pair: _compare(*pair), [pair for pair, (v, _) in zip(pairs, held, strict=True)
                                                             if v is None], min_items=_PARALLEL_PAIRS))
    out: list[Comparison] = []
    for (a, b), (found, source) in zip(pairs, held, strict=True):
        verdict = found if found is not None else next(computed)
        for memory in memories:
            if memory is not source:  # a memory knows the verdicts it gave
                memory.learn_verdict(a, b, verdict)
        out.append(verdict)
    return out


#: From this many pairs to compare, worker processes share them (a pair costs ~10 times a summary).
_PARALLEL_PAIRS = 500


def _compare(a: str, b: str) -> Comparison:
    sa, sb = parse(a), parse(b)
    if sa.key == sb.key or sa.flat == sb.flat:
        if compatible(a, b):
            return Comparison("same", "the same words and literals")
        ca, cb = sa.code_words, sb.code_words
        stem = next(s for s in sorted(ca.keys() & cb.keys()) if ca[s] != cb[s])
        old, new = "/".join(ca[stem]), "/".join(cb[stem])
        if any(t.subject for t in sa.tokens if t.code and t.text == stem):
            return Comparison("different", f"about another subject (`{old}` / `{new}`)")
        return Comparison("conflict", f"another value (`{old}` / `{new}`)", old, new)
    flat_a, flat_b = _ordered(sa), _ordered(sb)
    texts_a, texts_b = [t.text for t in flat_a], [t.text for t in flat_b]
    if sa.negated != sb.negated:
        if sorted(texts_a) == sorted(texts_b):
            return Comparison("conflict", "the same statement, one negated", "not" if sa.negated else "",
                              "not" if sb.negated else "")
        return _in_other_words(a, b) or Comparison("different", "other words, and one is negated")
    changes = [op for op in SequenceMatcher(None, texts_a, texts_b, autojunk=False).get_opcodes() if op[0] != "equal"]
    if len(changes) == 1 and changes[0][0] == "replace" and changes[0][2] - changes[0][1] == 1 \
            and changes[0][4] - changes[0][3] == 1:
        ta, tb = flat_a[changes[0][1]], flat_b[changes[0][3]]
        return _one_difference(ta, tb, flat_a)
    if Counter(texts_a) == Counter(texts_b):
        if moved(a, b):
            return Comparison("same", "the same words, a phrase or a list item moved")
        if _states_preference(flat_a):
            return Comparison("conflict", "the same words with the preference reversed")
        return Comparison("different", "the same words in other roles (a reversal is another fact)")
    return _in_other_words(a, b) or Comparison("different", "other words or literals")


#: A word, or a code span as written; and the marks at which a phrase may be moved whole.
_MOVE_WORD = re.compile(r"`[^`]+`|[\w'.@/+-]*\w|[,;:]")
#: Words that join two items of a list: either may come first.
_JOINERS = frozenset({"and", "or"})
#: Words that order what they join ("first lint, then test"): no item or phrase is moved across them.
_SEQUENCE = frozenset("then first before after next finally once until later afterwards step".split())


def _move_words(text: str) -> list[str]:
    return [w.lower().strip(".") if not w.startswith("`") else w for w in _MOVE_WORD.findall(text.replace("**", ""))]


def moved(a: str, b: str) -> bool:
    """Whether ``b`` writes the words of ``a`` with a phrase moved whole across a comma, semicolon or
    colon ("In CI, install with `yarn install --frozen-lockfile`." / "Install with `yarn install
    --frozen-lockfile` in CI.") or two items of a list swapped across "and"/"or" ("… require a green
    build on `main` and a change ticket." / "… require a change ticket and a green build on `main`.").
    Each phrase keeps its own word order, so a reversal ("the frontend calls the backend" / "the backend
    calls the frontend") is no move; nor is anything moved across a word that orders ("then", "before")."""
    wa, wb = _move_words(a), _move_words(b)
    words, target = [w for w in wa if w not in ",;:"], [w for w in wb if w not in ",;:"]
    if len(words) < 3 or words == target or sorted(words) != sorted(target) or _SEQUENCE & set(words):
        return False
    if _rotated(wa, target) or _rotated(wb, words):
        return True
    for i, joiner in enumerate(words):
        if joiner in _JOINERS:
            for start in range(i - 1):  # an item of two words or more on each side
                for end in range(i + 3, len(words) + 1):
                    if target == words[:start] + words[i + 1:end] + [joiner] + words[start:i] + words[end:]:
                        return True
    return False


def _rotated(marked: list[str], target: list[str]) -> bool:
    """Whether ``target`` is ``marked``'s words with the part after one of its marks moved first."""
    words = [w for w in marked if w not in ",;:"]
    cuts = {len([w for w in marked[:i] if w not in ",;:"]) for i, w in enumerate(marked) if w in ",;:"}
    return any(0 < k < len(words) and words[k:] + words[:k] == target for k in cuts)


def _in_other_words(older: str, newer: str) -> Comparison | None:
    """An update written as another sentence (see :mod:`.updates`)."""
    found = disagreement(older, newer)
    return Comparison("conflict", found.reason, found.old, found.new) if found else None


def _states_preference(tokens: list[Token]) -> bool:
    if any(t.text in PREFERENCE_MARKERS or t.after in PREFERENCE_MARKERS for t in tokens):
        return True
    weak = any(t.after in WEAK_PREFERENCE_MARKERS for t in tokens)
    return weak and any(t.text in PREFERENCE_STEMS or t.after in PREFERENCE_VERBS for t in tokens)


def _ordered(statement: Statement) -> list[Token]:
    """Tokens with clauses in a canonical order, so that clause order alone never counts as a change."""
    clauses = sorted(statement.clauses, key=lambda c: " ".join(t.text for t in c))
    return [t for clause in clauses for t in clause]


_DIGITS = re.compile(r"[-+]?\d+(?:\.\d+)*")


#: Words that make "Node 22" the JavaScript runtime: its package managers and version managers, the words
#: of a release ("Requires Node 20 LTS", "**CI:** Node 22, pnpm 10").
_NODE_RUNTIME_WORDS = frozenset("npm pnpm yarn bun npx corepack nvm fnm volta lts version runtim engin javascript"
                                " typescript js ts ci requir minimum".split())
#: Words of a cluster, whose "node 3" is one of its machines.
_CLUSTER_WORDS = frozenset("cluster replica shard drain pod kubernetes k8s disk host machin rack vm".split())


def _node_release(ta: Token, tb: Token, context: list[Token]) -> bool:
    """Two major releases of Node.js ("Node 22" / "Node 24"), not two machines of a cluster ("node 3" /
    "node 4"): whole numbers after "node" in a text that names no cluster and names the runtime's tools or
    a release, or numbers of its recent majors (10 to 40: "Use Node 20")."""
    if ta.after != "node" or tb.after != "node" or not (ta.text.isdigit() and tb.text.isdigit()):
        return False
    words = {t.text for t in context}
    majors = all(10 <= int(t.text) <= 40 for t in (ta, tb))
    return (majors or bool(words & _NODE_RUNTIME_WORDS)) and not words & _CLUSTER_WORDS


def _one_difference(ta: Token, tb: Token, context: list[Token]) -> Comparison:
    pair = f"{_show(ta)} / {_show(tb)}"
    conflict = Comparison("conflict", f"another value ({pair})", _show(ta), _show(tb))
    numbers = ta.literal in ("number", "tz", "time") and tb.literal in ("number", "tz", "time")
    if _shared_tool_role(ta, tb):
        return Comparison("conflict", f"another tool for the same job ({pair})", _show(ta), _show(tb))
    if ta.code.startswith("\x03") or tb.code.startswith("\x03"):
        return Comparison("different", f"another command ({pair})")  # `bundle install` / `yarn install`
    if ta.subject or tb.subject:
        # A number in the subject is a value when it is a version ("Python 3.11 is required") or the
        # statement is about what is required or used ("Node 18 is the minimum"); otherwise it names
        # one of several things ("Node 3 in the cluster has a small disk", "HTTP 429 responses ...").
        version = any("." in t.text or t.text[:1] in "^~<>=" for t in (ta, tb))
        about_use = any(t.text in REQUIREMENT_STEMS for t in context if not t.subject)
        if numbers and ta.after not in IDENTIFIER_NOUNS and (version or about_use):
            return conflict
        return Comparison("different", f"about another subject ({pair})")
    kind_a, kind_b = literal_kind(ta), literal_kind(tb)
    if kind_a in _NAMES or kind_b in _NAMES:
        if ta.after in IDENTIFIER_NOUNS or tb.after in IDENTIFIER_NOUNS:
            return Comparison("different", f"another item ({pair})")  # "pushed tag `2.14.22`"
        if ta.after in _COPULA_VALUE and tb.after in _COPULA_VALUE and kind_a == kind_b:
            return conflict  # "The session cookie is named `acme_sid`" / "... `__Host-acme_sid`"
        if kind_a == kind_b == "code" and _LETTERS.sub("", ta.text) == _LETTERS.sub("", tb.text):
            return conflict  # `z-index: -1` / `z-index: 1`; `^2.4.0` / `~2.4.0`; `["-created_at"]`
        parts_a, parts_b = _name_parts(ta.text), _name_parts(tb.text)
        siblings = kind_a == "path" and bool(parts_a - parts_b and parts_b - parts_a)
        if kind_a == kind_b and parts_a & parts_b and not siblings:
            # The same kind of name in the predicate, one the other plus or minus a part: where one
            # setting is read from or lives ("reads the URL from `REDIS_URL`" / "`CACHE_REDIS_URL`";
            # "aliases are in `tsconfig.json`" / "`tsconfig.base.json`"). Two siblings
            # (`src/api/config.ts` / `src/web/config.ts`) are two things.
            if kind_a == "env" or (kind_a == "path" and ta.after in _PLACE_WORDS):
                return conflict
        if kind_a == kind_b == "code" and ta.after in _MEANS_WORDS and tb.after in _MEANS_WORDS:
            return conflict  # "Run the Go tests with `go test ./...`" / "... with `gotestsum -- ./...`"
        return Comparison("different", f"names another thing ({pair})")
    if ta.literal or tb.literal:
        if (numbers and ta.after in IDENTIFIER_NOUNS and tb.after in IDENTIFIER_NOUNS and ta.after not in ("port",)
                and not _node_release(ta, tb, context)):
            return Comparison("different", f"another item ({pair})")
        return conflict
    if frozenset((ta.text, tb.text)) in ANTONYM_STEMS:
        return Comparison("conflict", f"the opposite ({pair})", _show(ta), _show(tb))
    if (ta.after in VALUE_MARKERS or tb.after in VALUE_MARKERS) and _names_something(ta) and _names_something(tb):
        return Comparison("conflict", f"another choice ({pair})", _show(ta), _show(tb))
    return Comparison("different", f"one other word ({pair})")


_NAMES = ("code", "path", "url", "ident", "env")
#: Words right before the one value a subject has ("the class is `db.t4g.medium`", "named `acme_sid`").
_COPULA_VALUE = frozenset("is are was were = : named called".split())
_LETTERS = re.compile(r"[^A-Za-z]")
#: Words before a place (a file, a folder) where something is defined or kept.
_PLACE_WORDS = frozenset("in from at under into inside within to".split())
#: Words before the means by which something is done.
_MEANS_WORDS = frozenset("with using via by through".split())
def _name_parts(text: str) -> set[str]:
    """The words a name is made of (``CACHE_REDIS_URL``: cache, redis, url; ``tsconfig.base.json``:
    tsconfig, base), without extensions and single letters."""
    parts = re.split(r"[^A-Za-z0-9]+", text.strip("`").lower())
    return {p for p in parts if len(p) > 1 and p not in _EXTENSIONS}


_EXTENSIONS = frozenset(CODE_EXTENSIONS) | {"src", "lib"}


def _names_something(token: Token) -> bool:
    """A word that names a thing (a tool, a product, a proper name) rather than describing an action:
    written as code, capitalised inside a sentence, or a known tool. "Tests run with Jest" / "...
    Vitest" name two tools; "the database is wiped" / "... erased" say one thing twice."""
    if token.code or token.literal:
        return True
    shown = token.shown or token.text
    if shown[:1].isupper() and token.after:
        return True
    return bool(roles_of(shown))


def _shared_tool_role(ta: Token, tb: Token) -> bool:
    """Two different tools that do the same job (a command counts as the tool that runs it)."""
    names = []
    for token in ta, tb:
        words = (token.code or token.shown or token.text).strip("`\x03").split()
        names.append(words[0].lower() if words else "")
    return names[0] != names[1] and bool(roles_of(names[0]) & roles_of(names[1]))


def _show(token: Token) -> str:
    return token.shown or token.text


#: What grouping needs of a text: its key, its size, its flat key, its words written as code.
Summary = tuple[str, int, str, tuple[tuple[str, tuple[str, ...]], ...]]



class Memory(Protocol):
    """Where summaries and verdicts of earlier runs are found, and new ones are kept (see
    :mod:`.remembered`). :func:`compare_all` does not tell a memory a verdict it gave."""

    def summary(self, text: str) -> Summary | None: ...
    def verdict(self, a: str, b: str) -> Comparison | None: ...
    def learn_summary(self, text: str, summary: Summary) -> None: ...
    def learn_verdict(self, a: str, b: str, verdict: Comparison) -> None: ...


_memories: list[Memory] = []


def attach(memory: Memory) -> None:
    _memories.append(memory)


def detach(memory: Memory) -> None:
    _memories[:] = [m for m in _memories if m is not memory]


class _Prepared:
    """Summaries computed ahead of their use (:func:`prepared`): a memory that learns nothing."""

    def __init__(self, found: dict[str, Summary]) -> None:
        self.found = found

    def summary(self, text: str) -> Summary | None:
        return self.found.get(text)

    def verdict(self, a: str, b: str) -> Comparison | None:
        return None

    def learn_summary(self, text: str, summary: Summary) -> None:
        return None

    def learn_verdict(self, a: str, b: str, verdict: Comparison) -> None:
        return None


@contextmanager
def prepared(texts: Iterable[str]) -> Iterator[None]:
    """While the block runs, the summaries of ``texts`` are at hand: those no memory holds are computed
    at once, over worker processes for a large store (:func:`.workers.fork_map`), and the others read
    once. Asked first, they are what :func:`_summary` would compute or find, so nothing else changes."""
    found: dict[str, Summary] = {}
    wanted: list[str] = []
    memories = list(_memories)
    for text in dict.fromkeys(texts):
        for memory in memories:
            summary = memory.summary(text)
            if summary is not None:
                found[text] = summary
                break
        else:
            wanted.append(text)
    found.update(zip(wanted, fork_map(_summarize, wanted), strict=True))
    memory = _Prepared(found)
    _memories.insert(0, memory)
    try:
        yield
    finally:
        detach(memory)


@lru_cache(maxsize=1 << 18)
def _summary(text: str) -> Summary:
    """What grouping needs of a text, small enough to keep for every entry of a large store."""
    summary = next((s for m in _memories if (s := m.summary(text)) is not None), None)
    if summary is None:
        summary = _summarize(text)
    for memory in _memories:
        memory.learn_summary(text, summary)
    return summary


def _summarize(text: str) -> Summary:
    """The summary of :func:`parse`'s statement (its key, size, flat key and code words), computed from
    what :func:`lex` reads without building the tokens: grouping needs no roles."""
    groups, negated, guard = lex(text)
    clauses = [[item for item in group if item[1] != "\x01"] for group in groups]  # as _with_roles keeps them
    key, flat = keys_of([[item[0] for item in clause] for clause in clauses], negated, guard)
    forms: dict[str, list[str]] = {}  # as Statement.code_words
    for clause in clauses:
        for item in clause:
            if item[4]:
                forms.setdefault(item[0], []).append(item[4])
    code = tuple((stem, tuple(sorted(found))) for stem, found in sorted(forms.items()))
    return key, sum(len(clause) for clause in clauses), flat, code


def fact_keys(text: str) -> tuple[str, str]:
    """Both keys of a text: two texts that share either one state the same fact, provided the words
    they write as code match (:func:`compatible`). The first ignores clause order, the second
    punctuation ("Before releasing, bump..." / "Before releasing bump...")."""
    key, _, flat, _ = _summary(text)
    return key, flat


def fact_key(text: str) -> str:
    """A key two texts share exactly when they state the same fact (see :func:`compare`). Keys are
    small and cached on their own, so a large store is parsed once."""
    return _summary(text)[0]


def fact_size(text: str) -> int:
    """How many words and literals carry the text's fact (a longer same-fact text is more complete)."""
    return _summary(text)[1]
