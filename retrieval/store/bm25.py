"""BM25 re-scoring of fulltext candidates, the same on both stores.

Why: FalkorDB's fulltext procedure scores OR-queries erratically (a document matching a rare term
and a common one can score below one matching the rare term alone), which made the keyword arm of
hybrid search worse than useless. The store keeps RediSearch for candidate generation (it stems and
knows which nodes match) and ranks the candidates with Okapi BM25 using real document frequencies.
The Neo4j store ranks its Lucene candidates the same way, so both backends give the keyword arm the same
scores (Lucene's own BM25 counts differently: another scale for the fusion, other hybrid answers).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any

from retrieval.store.records import Filters, StoreHit, TermCounts, filter_clause, ident

if TYPE_CHECKING:
    from retrieval.config import Settings
    from retrieval.store.base import GraphStore

K1 = 1.2
B = 0.75
#: Index-time stemming makes "computers" match "computer"; a token counts for a term when it extends the
#: term by at most this many characters (plural, -ed, -ing), a cheap stand-in for the same stemmer.
STEM_SLACK = 3
#: ...and only terms this long get stemmed variants ("cat" must not match "cattle").
MIN_STEM = 4
#: Where the indexer stores a chunk's profile (`stored`): its stemmed frequencies as one string, ` word:count` per
#: key with a space after the last, and its length. Why one string and not two parallel lists: the server looks
#: a word up with `CONTAINS ' word:'` and one `split` (native string work), where a list needs the word's position,
#: which Cypher finds only by a list comprehension over the profile's hundreds of keys. The leading underscore keeps
#: them out of the node views (`retrieval/search/explore.py` hides such properties).
TERMS = "_bm25_terms"
LENGTH = "_bm25_length"
#: ...and the size (characters) of the text it was built from: a reader takes the profile only while the text has
#: that size, so a text rewritten by a writer that knows nothing of profiles (an importer's `SET n += ...`) is
#: tokenised, not scored by a stale profile.
SIZE = "_bm25_size"
#: Documents whose token counts stay cached (chunks re-scored by later queries skip tokenising): 1,890 MuSiQue
#: passages' profiles take ~16 MiB (tracemalloc, texts not counted).
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
    """A document's term frequencies, stemmed variants folded in, and its length.

    `frequency[p]`, for `p` at least MIN_STEM long, sums the counts of the words `p` is the stem of (the word
    itself, or it extended by at most STEM_SLACK characters); for a shorter `p`, it is the word's own count (a
    short term gets no variants). The two never share a key (their lengths differ), so a term's frequency is one
    lookup in one table. Why: scoring a search's hundred-odd candidates is the largest part of a hybrid search's
    Python on Neo4j; a lookup per term and document is what is left of it, and a profile the cache lost (a search
    reads more texts than it holds) is built from the token counts with plain dict operations."""

    frequency: Mapping[str, int]
    length: int


@lru_cache(maxsize=PROFILE_CACHE)
def _profile(document: str) -> _Profile:
    """Tokenising dominates scoring; keyed by the text itself, a cached profile can never be stale."""
    words = tokens(document)
    counts = Counter(words)
    frequency: dict[str, int] = {}
    get = frequency.get
    for word, n in counts.items():
        size = len(word)
        if size < MIN_STEM:
            frequency[word] = n
            continue
        for end in range(size, max(MIN_STEM, size - STEM_SLACK) - 1, -1):
            stem = word[:end]
            frequency[stem] = get(stem, 0) + n
    return _Profile(frequency, len(words))


def profiled_fields(settings: Settings) -> dict[str, list[str]]:
    """The labels the indexer stores profiles for, each with the indexed properties the profile is built from (as
    `Neo4jStore` lists an index's: sorted): the chunks' text, the entities' name and description."""
    return {
        settings.chunk_label: [settings.text_property],
        settings.entity_label: sorted([settings.entity_name_property, "description"]),
    }


def stored(props: Mapping[str, Any], fields: Sequence[str]) -> dict[str, object]:
    """The properties (`TERMS`, `LENGTH`, `SIZE`) the indexer writes beside a node's indexed text: its profile, so
    that a search reads each candidate's frequencies of the query's words (`counted`) instead of tokenising the
    text. Built outside the profile cache: indexing reads each text once."""
    document = _text(props, fields)
    profile = _profile.__wrapped__(document)
    terms = " " + "".join(f"{word}:{n} " for word, n in profile.frequency.items())
    return {TERMS: terms, LENGTH: profile.length, SIZE: len(document)}


def _text(props: Mapping[str, Any], fields: Sequence[str]) -> str:
    """What BM25 reads of a node: its indexed properties, joined by a space."""
    return " ".join(str(props.get(f) or "") for f in fields)


def counted(words: Sequence[str], frequencies: Sequence[Any], length: Any) -> TermCounts:
    """A candidate's `TermCounts` from what the server read of its stored profile: `frequencies` in the order of
    `words` (0 where absent), `length` its token count."""
    found = {word: int(n) for word, n in zip(words, frequencies, strict=True) if n}
    return TermCounts(frozenset(words), found, int(length))


def score(document: str, terms: Sequence[str], corpus: Corpus) -> float:
    profile = _profile(document)
    return _scored(profile.frequency, profile.length, _weights(terms, corpus), corpus.mean_length)


def _weights(terms: Sequence[str], corpus: Corpus) -> list[tuple[str, float]]:
    """Each term with its idf: the same for every document, so a pool's scoring computes it once, not per document."""
    return [(term, idf(corpus.documents, max(1, corpus.doc_freq.get(term, 1)))) for term in terms]


def idf(documents: int, df: int) -> float:
    """A word's weight among `documents` when `df` of them hold it."""
    return math.log(1.0 + (documents - df + 0.5) / (df + 0.5))


def _scored(
    frequency: Mapping[str, int], length: int, weights: Sequence[tuple[str, float]], mean_length: float
) -> float:
    """A document's score from its profile's frequencies and length (a `_Profile`'s, or a stored profile's counts:
    `TermCounts`, scored as they are, no profile built from them)."""
    length = length or 1
    norm = K1 * (1.0 - B + B * length / max(mean_length, 1.0))
    total = 0.0
    for term, idf in weights:
        tf = frequency.get(term, 0)
        if tf:
            total += idf * tf * (K1 + 1.0) / (tf + norm)
    return total


def contains(document: str, term: str) -> bool:
    """Whether BM25 would count `term` in the document (itself or a stemmed variant)."""
    return _profile(document).frequency.get(term, 0) > 0


#: Nodes read once per label (until the next write) for the mean length and common terms' frequencies.
SAMPLE = 500
#: A term in more than this share of the label is "common": its matches are not counted (that walks most of the
#: label) but estimated from the sample.
COMMON_SHARE = 0.02


@dataclass
class LabelStats:
    """What a store learns about a label once per write: its size, a sample's token sets, counted frequencies."""

    size: int
    mean_length: float
    sample: list[set[str]]
    freq: dict[str, int]
    #: A word's document count where the store knows it without counting it with the index (Neo4j's table of
    #: the index's own terms, `doc_freq`), else None; None throughout: every new word is counted.
    known: Callable[[str], int | None] | None = None

    @classmethod
    def read(cls, store: GraphStore, label: str, fields: Sequence[str]) -> LabelStats:
        """The label's size and a sample of its texts over `fields`, read from `store`."""
        size = int(store.read(f"MATCH (n:{ident(label)}) RETURN count(n) AS n")[0]["n"])
        text = " + ' ' + ".join(f"coalesce(toString(n.{ident(f)}), '')" for f in fields) or "''"
        rows = store.read(f"MATCH (n:{ident(label)}) WITH n LIMIT {SAMPLE} RETURN {text} AS text")
        sample = [tokens(str(r["text"])) for r in rows]
        mean = sum(len(t) for t in sample) / max(1, len(sample))
        return cls(size, mean, [set(t) for t in sample], {})

    def uncounted(self, words: Sequence[str]) -> list[str]:
        """The distinct `words` the fulltext index must count: those not counted since the last write and not
        `known`."""
        return [w for w in dict.fromkeys(words) if w not in self.freq and self._matches(w) is None]

    def _matches(self, word: str) -> int | None:
        """`word`'s matches up to the cap where `known` (as a fulltext count stops there: a word at the cap is
        estimated from the sample as a counted one is), else None."""
        count = self.known(word) if self.known is not None else None
        return None if count is None else min(count, self.cap)

    @property
    def cap(self) -> int:
        """Matches counted per word at most: a word reaching it is common, its frequency estimated from the sample."""
        return int(COMMON_SHARE * self.size) + 1

    def corpus(self, words: Sequence[str], count_matches: Callable[[str, int], int]) -> Corpus:
        """The corpus for `words`: `count_matches(word, cap)` counts a word's matches up to `cap`, and a word
        reaching the cap gets its frequency estimated from the sample instead."""
        for word in words:
            if word not in self.freq:
                matches = self._matches(word)
                count = count_matches(word, self.cap) if matches is None else matches
                self.freq[word] = self._estimated(word, count)
        return Corpus(self.size, self.mean_length, self.freq)

    def _estimated(self, word: str, count: int) -> int:
        """A word's document count from its counted matches: at the cap, the sample's share of the label."""
        if count >= self.cap and self.sample:
            share = self.sample_holding[word] / len(self.sample)
            return max(self.cap, round(share * self.size))
        return count

    @cached_property
    def sample_holding(self) -> Counter[str]:
        """How many of the sample's texts hold each word: counted once per label's statistics (until the next
        write). Why: a new word's estimate scanned the whole sample (500 token sets) for each word, twice a search
        (the server's idf at the cap, then the corpus): ~0.4 ms of a default search's client time under cProfile
        (issue #26); the count is the same integer either way."""
        return Counter(word for held in self.sample for word in held)

    def idf_of(self, word: str) -> tuple[float, float]:
        """`word`'s idf as `corpus` would make it, for a server that scores BM25 itself (`neo4j_fold`): for a word
        counted already `(its idf, 0.0)`, else `(-1.0, its idf should the server's count reach the cap)` (below it,
        the count's own: `idf_below_cap`; an idf is never negative). So the server picks the value by the count it
        reads and never computes a logarithm (Java's `log` may differ from Python's in the last bit). Counts and
        records nothing: `corpus` does that from the server's reply."""
        if word in self.freq:
            return idf(self.size, max(1, self.freq[word])), 0.0
        if (matches := self._matches(word)) is not None:
            return idf(self.size, max(1, self._estimated(word, matches))), 0.0
        return -1.0, idf(self.size, max(1, self._estimated(word, self.cap)))

    @cached_property
    def idf_below_cap(self) -> list[float]:
        """The idf of a word with each match count below the cap (0 to cap - 1), the same for every such word:
        computed once per label's statistics (until the next write), not per search and word."""
        return [idf(self.size, max(1, n)) for n in range(self.cap)]


def match_counter(
    store: GraphStore,
    procedure: str,
    target: str,
    query: Callable[[str], str],
    filters: Filters | None = None,
) -> Callable[[str, int], int]:
    """Counts a word's matches (up to a cap, among the nodes `filters` keeps) with the backend's fulltext
    `procedure`(`target`, query(word)); a word the query language has no term for matches nothing."""
    where, params = filter_clause("node", filters)
    kept = f"WHERE {where} " if where else ""

    def count(word: str, cap: int) -> int:
        q = query(word)
        if not q:
            return 0
        rows = store.read(
            f"CALL {procedure}($target, $q) YIELD node {kept}WITH node LIMIT $cap RETURN count(node) AS n",
            {"target": target, "q": q, "cap": cap, **params},
        )
        return int(rows[0]["n"]) if rows else 0

    return count


def ranked(
    rows: Iterable[Mapping[str, Any]], fields: Sequence[str], words: Sequence[str], corpus: Corpus, k: int
) -> list[StoreHit]:
    """Candidate rows (`id`, `props`, and `terms` where the store read the stored profile) as hits scored by BM25
    over `fields`, best `k` that match at all. A row's `terms` that cover `words` stand for its text's profile:
    the same frequencies and length, so the same score, without tokenising."""
    weights = _weights(words, corpus)
    wanted = set(words)
    scored = []
    for r in rows:
        props, counts = r["props"], r.get("terms")
        if counts is not None and wanted <= counts.words:
            value = _scored(counts.frequency, counts.length, weights, corpus.mean_length)
        else:
            counts, profile = None, _profile(_text(props, fields))
            value = _scored(profile.frequency, profile.length, weights, corpus.mean_length)
        if value > 0:
            scored.append(StoreHit(str(r["id"]), value, props, counts))
    return sorted(scored, key=lambda hit: -hit.score)[:k]
