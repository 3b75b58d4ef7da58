"""BM25 re-scoring of fulltext candidates for the embedded store.

Why: FalkorDB's fulltext procedure scores OR-queries erratically (a document matching a rare term
and a common one can score below one matching the rare term alone), which made the keyword arm of
hybrid search worse than useless. The store keeps RediSearch for candidate generation (it stems and
knows which nodes match) and ranks the candidates with Okapi BM25 using real document frequencies.
"""

from __future__ import annotations

import bisect
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

K1 = 1.2
B = 0.75
#: Index-time stemming makes "computers" match "computer"; a token counts for a term when it extends the
#: term by at most this many characters (plural, -ed, -ing), a cheap stand-in for the same stemmer.
STEM_SLACK = 3
#: ...and only terms this long get stemmed variants ("cat" must not match "cattle").
MIN_STEM = 4
#: Documents whose token counts stay cached (a few MB; chunks re-scored by later queries skip tokenising).
PROFILE_CACHE = 2048

_TOKEN = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class Corpus:
    """What BM25 needs to know about the whole label: its size, mean length and each term's document count."""

    documents: int
    mean_length: float
    doc_freq: Mapping[str, int]


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


@dataclass(frozen=True)
class _Profile:
    """A document's term counts, its length and its distinct words sorted (a term's extensions are adjacent)."""

    counts: Mapping[str, int]
    words: Sequence[str]
    length: int


@lru_cache(maxsize=PROFILE_CACHE)
def _profile(document: str) -> _Profile:
    """Tokenising dominates scoring; keyed by the text itself, a cached profile can never be stale."""
    counts = Counter(tokens(document))
    return _Profile(counts, sorted(counts), sum(counts.values()))


def score(document: str, terms: Sequence[str], corpus: Corpus) -> float:
    profile = _profile(document)
    length = profile.length or 1
    norm = K1 * (1.0 - B + B * length / max(corpus.mean_length, 1.0))
    total = 0.0
    for term in terms:
        tf = _frequency(profile, term)
        if not tf:
            continue
        df = max(1, corpus.doc_freq.get(term, 1))
        idf = math.log(1.0 + (corpus.documents - df + 0.5) / (df + 0.5))
        total += idf * tf * (K1 + 1.0) / (tf + norm)
    return total


def contains(document: str, term: str) -> bool:
    """Whether BM25 would count `term` in the document (itself or a stemmed variant)."""
    return _frequency(_profile(document), term) > 0


def _frequency(profile: _Profile, term: str) -> int:
    tf = profile.counts.get(term, 0)
    if len(term) >= MIN_STEM:  # stemmed variants: "computers", "computing" for "comput..."
        tf += _extensions(profile, term)
    return tf


def _extensions(profile: _Profile, term: str) -> int:
    """Occurrences of words extending `term` by 1..STEM_SLACK characters: they follow it in sorted order."""
    words, found = profile.words, 0
    for i in range(bisect.bisect_right(words, term), len(words)):
        word = words[i]
        if not word.startswith(term):
            break
        if len(word) - len(term) <= STEM_SLACK:
            found += profile.counts[word]
    return found
