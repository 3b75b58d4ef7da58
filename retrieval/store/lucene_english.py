"""Neo4j's `english` fulltext analyser (Lucene's EnglishAnalyzer) in Python, for counting what its index holds.

Why: BM25's idf needs each query word's document count as the fulltext index counts it (a word's matches), and
on Neo4j that was one fulltext call per new word and label in every fresh search (issue #26). A label's counts
read once per write (`doc_freq`) give the same numbers only if its texts are analysed as Lucene analyses them:
StandardTokenizer (Unicode UAX#29 word breaks: "U.S." is one token "u.s", "don't" one, "well-known" two),
EnglishPossessiveFilter (a trailing "'s" dropped), LowerCaseFilter (per code point), StopFilter (the 33 English
stop words) and PorterStemFilter (Porter's stemmer on tokens of 3 characters or more). Checked token for token
against Lucene 9.11.1 (Neo4j 5.26's) on both dev corpora (docs/benchmarks.md, branch wt254).
Where this is not trusted to match (`trusted`: a word with a character outside ASCII letters and digits), the
caller counts the word with the index itself.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache, lru_cache

import regex

#: Lucene's EnglishAnalyzer.ENGLISH_STOP_WORDS_SET: the index holds none of them, so each matches nothing.
STOP_WORDS = frozenset([
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no", "not", "of",
    "on", "or", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was", "will", "with",
])  # fmt: skip
#: Apostrophes EnglishPossessiveFilter strips before an "s" at a token's end (ASCII, right single quote, fullwidth).
_APOSTROPHES = "'\u2019\uff07"
#: A Unicode word boundary (UAX#29, the `regex` module's WORD flag); StandardTokenizer keeps the segments between
#: two that hold a letter or a digit (`_KEPT`).
_BOUNDARY = regex.compile(r"\b", regex.WORD | regex.V1)
_KEPT = regex.compile(r"[\p{L}\p{Nd}]")
#: StandardTokenizer's longest token: a longer word comes as pieces of this length.
_MAX_TOKEN = 255
#: Lucene lower-cases one code point at a time (Java's simple case mapping); Python's `str.lower` maps "İ" to two
#: code points and a final sigma to "ς": the two places the mappings differ.
_SIMPLE_LOWER = str.maketrans({"\u0130": "i", "\u03a3": "\u03c3"})
_ASCII_WORD = regex.compile(r"[a-z0-9]+")
#: Lucene stems a token only when it has more than two characters (PorterStemmer.stem: `k > k0 + 1`).
_MIN_STEMMED = 3


def analysed(text: str) -> list[str]:
    """`text`'s terms as the `english` analyser indexes them, in order (repeats kept)."""
    found: list[str] = []
    for segment in _BOUNDARY.split(text):
        found += _terms(segment)
    return found


@lru_cache(maxsize=65536)
def _terms(segment: str) -> tuple[str, ...]:
    """A segment's terms: none for one of no letter or digit (a space, punctuation), else its token's (one per
    `_MAX_TOKEN` characters), none for a stop word. Why cached: a corpus repeats its words and separators, and the
    Python per token was most of a table's build."""
    if not _KEPT.search(segment):
        return ()
    return tuple(
        term for start in range(0, len(segment), _MAX_TOKEN) for term in _term(segment[start : start + _MAX_TOKEN])
    )


def _term(token: str) -> list[str]:
    """One token's term (none for a stop word)."""
    if len(token) >= 2 and token[-1] in "sS" and token[-2] in _APOSTROPHES:
        token = token[:-2]
    word = token.translate(_SIMPLE_LOWER).lower()
    if word in STOP_WORDS:
        return []
    return [_porter()(word) if len(word) >= _MIN_STEMMED else word]


@cache
def _porter() -> Callable[[str], str]:
    """Porter's stemmer as Lucene's PorterStemmer runs it: Porter's own version (NLTK's MARTIN_EXTENSIONS: "bli"
    to "ble", "logi" to "log", no word of two letters stemmed), not the 1980 paper's that PyStemmer's and
    snowballstemmer's "porter" follow (148 of 4,182 dev-corpus texts analysed otherwise: "technologi" for
    "technolog"). Imported on first use: importing NLTK takes seconds, and only a Neo4j table build stems."""
    from nltk.stem.porter import PorterStemmer

    stemmer = PorterStemmer(mode=PorterStemmer.MARTIN_EXTENSIONS)
    return lambda word: stemmer.stem(word, to_lowercase=False)


def trusted(word: str) -> bool:
    """Whether `word` (a query word: lower case, one `\\w+` token) is analysed here as Lucene analyses it: ASCII
    letters and digits only. Others (an accent, an underscore, a script with its own word breaks) are counted by
    the index."""
    return _ASCII_WORD.fullmatch(word) is not None


@lru_cache(maxsize=4096)
def query_term(word: str) -> str | None:
    """The one term the index looks `word` up by ("" for a stop word, which matches nothing); None where the
    word is not `trusted` or analyses into more than one term. Why cached: a search asks it of each new word three
    times per label (its plan, its idf, its corpus), and a pure function of the word can never be stale."""
    if not trusted(word):
        return None
    found = analysed(word)
    if len(found) > 1:
        return None
    return found[0] if found else ""
