"""Each term's document count over a label, as BM25 counts it, read once per write (issue #26).

Why: BM25's idf needs a query word's document count. The stores counted a word not seen since the last write with
the fulltext index (one index call per new word and label, capped at `LabelStats.cap` matches): on Neo4j ~0.3-0.5
ms of server CPU each, ~5 of them per label in a fresh question, the largest cost of the hybrid statement that did
not depend on the data. Here the counts come with the label's sample instead, from what BM25 itself scores: each
text's profile keys (its words and every stem BM25 counts a word for). No second copy is kept at index time, so
nothing can fall out of step with an add, a rewrite or a `remove`: the table is read again after any write, as the
sample is.
It is BM25's own count, not the index's: where Lucene's or RediSearch's analyser disagrees (their stemmers differ
from BM25's prefix rule; they drop stop words, which then counted 0 and weighed the most), the scoring's count is
the one its tf means (docs/benchmarks.md, branch wt243).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from retrieval.store import bm25
from retrieval.store.records import ident

if TYPE_CHECKING:
    from retrieval.store.base import GraphStore

#: Labels of more nodes than this count a new word's matches with the fulltext index instead (as before): the
#: table is read after every write, and its read grows with the label (MuSiQue's 2,324 chunks: see the docs).
TABLE_MAX = 20_000


def table(store: GraphStore, label: str, fields: Sequence[str]) -> dict[str, int]:
    """Each term's document count over `label`'s texts of `fields`, as BM25 counts it: a term counts in a text
    whose profile holds it (its words and their stems). Read from the texts on both stores, not from Neo4j's stored
    profiles: the server's own grouping of those profiles' keys took 3.2 s of wall for MuSiQue's 2,324 chunks where
    reading the texts and tokenising them here took 1.0 s (0.3 s of client CPU), at load ~17."""
    counts: Counter[str] = Counter()
    for row in store.read(f"MATCH (n:{ident(label)}) RETURN {bm25.text_of('n', fields)} AS text"):
        counts.update(bm25.profile_keys(str(row["text"])))
    return dict(counts)
