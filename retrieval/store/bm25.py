"""BM25 re-scoring of fulltext candidates for the embedded store.

Why: FalkorDB's fulltext procedure scores OR-queries erratically (a document matching a rare term
and a common one can score below one matching the rare term alone), which made the keyword arm of
hybrid search worse than useless. The store keeps RediSearch for candidate generation (it stems and
knows which nodes match) and ranks the candidates with Okapi BM25 using real document frequencies.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

K1 = 1.2
B = 0.75
#: Index-time stemming makes "computers" match "computer"; a token counts for a term when it extends the
#: term by at most this many characters (plural, -ed, -ing), a cheap stand-in for the same stemmer.
STEM_SLACK = 3

_TOKEN = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class Corpus:
    """What BM25 needs to know about the whole label: its size, mean length and each term's document count."""

    documents: int
    mean_length: float
    doc_freq: Mapping[str, int]


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def score(document: str, terms: Sequence[str], corpus: Corpus) -> float:
    counts = Counter(tokens(document))
    length = sum(counts.values()) or 1
    norm = K1 * (1.0 - B + B * length / max(corpus.mean_length, 1.0))
    total = 0.0
    for term in terms:
        tf = counts.get(term, 0)
        if len(term) >= 4:  # stemmed variants: "computers", "computing" for "comput..."
            tf += sum(n for word, n in counts.items() if word != term and _extends(word, term))
        if not tf:
            continue
        df = max(1, corpus.doc_freq.get(term, 1))
        idf = math.log(1.0 + (corpus.documents - df + 0.5) / (df + 0.5))
        total += idf * tf * (K1 + 1.0) / (tf + norm)
    return total


def _extends(word: str, term: str) -> bool:
    return word.startswith(term) and len(word) - len(term) <= STEM_SLACK
