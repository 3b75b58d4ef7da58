"""BM25 re-scoring of fulltext candidates for the embedded store.

Why: FalkorDB's fulltext procedure scores OR-queries erratically (a document matching a rare term
and a common one can score below one matching the rare term alone), which made the keyword arm of
hybrid search worse than useless. The store keeps RediSearch for candidate generation (it stems and
knows which nodes match) and ranks the candidates with Okapi BM25 using real document frequencies.
"""

from __future__ import annotations

import math
import re
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


def _matches(token: str, term: str) -> bool:
    return token == term or (token.startswith(term) and len(token) - len(term) <= STEM_SLACK and len(term) >= 4)


def score(document: str, terms: Sequence[str], corpus: Corpus) -> float:
    words = tokens(document)
    length = len(words) or 1
    total = 0.0
    for term in terms:
        tf = sum(1 for w in words if _matches(w, term))
        if not tf:
            continue
        df = max(1, corpus.doc_freq.get(term, 1))
        idf = math.log(1.0 + (corpus.documents - df + 0.5) / (df + 0.5))
        norm = K1 * (1.0 - B + B * length / max(corpus.mean_length, 1.0))
        total += idf * tf * (K1 + 1.0) / (tf + norm)
    return total
