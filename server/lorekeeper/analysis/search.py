# pyright: standard
"""Search over entries: BM25 (bm25s) over content and tags, with query words expanded to the
vocabulary's near spellings (rapidfuzz) and prefixes, so "stripe chrage" still finds
"charges go through StripeClient.create_charge" (typos within the AUTO edit distance)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import OSA

from ..core.model import Entry
from ..core.text import terms

#: Tags count as much as this many mentions in the content.
TAG_WEIGHT = 2
PREFIX_WEIGHT = 0.8
FUZZY_WEIGHT = 0.9


def max_edits(word: str) -> int:
    """How many typos a query word may carry (insertions, deletions, substitutions, transpositions):
    none for words of up to 3 characters, one up to 7, two beyond; the rule search engines call AUTO."""
    return 0 if len(word) <= 3 else 1 if len(word) <= 7 else 2


@dataclass
class Hit:
    entry: Entry
    score: float
    matched: list[str]


class SearchIndex:
    """A BM25 index over a list of entries; build once, query many times."""

    def __init__(self, entries: list[Entry]):
        import bm25s  # imported here: it costs ~0.3 s and only search needs it

        self.entries = entries
        corpus = []
        for entry in entries:
            doc = terms(entry.content)
            for tag in entry.tags:
                doc.extend(terms(tag) * TAG_WEIGHT)
            if entry.section:
                doc.extend(terms(entry.section))
            corpus.append(doc or ["\x00empty"])
        self.vocabulary = sorted({t for doc in corpus for t in doc})
        self._bm25 = bm25s.BM25()
        if entries:
            self._bm25.index(corpus, show_progress=False)

    def expand(self, word: str) -> dict[str, float]:
        """Vocabulary terms a query word stands for, with weights: itself (1.0), words it is a prefix
        of, and near spellings."""
        out: dict[str, float] = {}
        if word in self.vocabulary:
            out[word] = 1.0
        if len(word) >= 3:
            for term in self.vocabulary:
                if term != word and term.startswith(word):
                    out[term] = max(out.get(term, 0.0), PREFIX_WEIGHT)
        edits = max_edits(word)
        if edits:
            for term, distance, _ in process.extract(word, self.vocabulary, scorer=OSA.distance,
                                                     score_cutoff=edits, limit=8):
                if distance:
                    out[term] = max(out.get(term, 0.0), FUZZY_WEIGHT * (1 - distance / max(len(word), len(term))))
        return out

    def search(self, query: str, limit: int = 10) -> list[Hit]:
        """Entries matching ``query``, best first. Each query word scores a document by its best
        expansion, so a typo and its correction are not counted twice."""
        if not self.entries:
            return []
        words = list(dict.fromkeys(terms(query)))
        total = np.zeros(len(self.entries))
        matched: list[list[str]] = [[] for _ in self.entries]
        for word in words:
            best = np.zeros(len(self.entries))
            best_term: list[str | None] = [None] * len(self.entries)
            for term, weight in self.expand(word).items():
                scores = np.asarray(self._bm25.get_scores([term])) * weight
                better = scores > best
                best = np.where(better, scores, best)
                for i in np.nonzero(better)[0]:
                    best_term[i] = term
            total += best
            for i, term in enumerate(best_term):
                if term is not None and term not in matched[i]:
                    matched[i].append(term)
        order = np.argsort(-total, kind="stable")
        return [Hit(self.entries[i], float(total[i]), matched[i]) for i in order[:limit] if total[i] > 0]
