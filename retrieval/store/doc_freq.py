"""Each term's document count in a Neo4j fulltext index, read once per write, not one fulltext call per new word
(issue #26).

Why: BM25's idf needs each query word's document count as the fulltext index counts it. Neo4j counted a word not
seen since the last write with one fulltext call per word and label inside the hybrid statement: ~0.15 ms of
server CPU each at load ~17, ~5 of them per label in a fresh question (docs/benchmarks.md, branch wt243). Here a
label's texts are read with its sample (after every write, as the sample is) and analysed as the index's own
analyser does (`lucene_english`: Lucene's EnglishAnalyzer), so a word's count is the index's to the document,
and every ranking is what the fulltext calls gave. A word the analysis is not trusted for, or that analyses into
several terms, is still counted by the index (`Counts.count` answers None). FalkorDB's RediSearch analyses
differently and keeps its count calls.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from retrieval.store import lucene_english
from retrieval.store.records import ident

if TYPE_CHECKING:
    from retrieval.store.base import GraphStore

#: Labels of more nodes than this count a new word with the index instead: the table is read after every write,
#: and its read grows with the label (MuSiQue's 2,324 chunks: see the docs).
TABLE_MAX = 20_000
#: The fulltext indexes and their configuration (a store's admin read: a SHOW command is no data read).
SHOW_FULLTEXT = "SHOW FULLTEXT INDEXES YIELD name, labelsOrTypes, properties, options"
#: The analyser `lucene_english` reproduces: an index configured otherwise (a graph another tool built) keeps its
#: count calls.
ANALYZER = "english"


@dataclass(frozen=True)
class Counts:
    """Each analysed term's document count over a label (`terms`)."""

    terms: Mapping[str, int]

    def count(self, word: str) -> int | None:
        """`word`'s document count as a fulltext query of it counts it (0 for a stop word: the index holds none);
        None where the analysis is not trusted to match the index's (`lucene_english.query_term`)."""
        term = lucene_english.query_term(word)
        if term is None:
            return None
        return self.terms.get(term, 0) if term else 0


def read(
    store: GraphStore, indexes: Sequence[Mapping[str, Any]], index: str, label: str, fields: Sequence[str]
) -> Counts | None:
    """The document counts of fulltext `index` (its row among `indexes`, what `SHOW_FULLTEXT` lists) over
    `label`'s `fields`; None where the index is not one this module counts as it does (another analyser, other
    labels, eventually consistent: it would lag the writes). The caller reads no table for a label of more than
    `TABLE_MAX` nodes."""
    rows = [row for row in indexes if row.get("name") == index]
    if len(rows) != 1 or not _counted_here(rows[0], label, fields):
        return None
    values = ", ".join(f"n.{ident(f)}" for f in fields)
    terms: Counter[str] = Counter()
    for row in store.read(f"MATCH (n:{ident(label)}) RETURN [{values}] AS values"):
        terms.update(set(lucene_english.analysed(" ".join(_indexed(row["values"])))))
    return Counts(dict(terms))


def _counted_here(row: Mapping[str, Any], label: str, fields: Sequence[str]) -> bool:
    """Whether the index (a `SHOW FULLTEXT INDEXES` row) covers exactly `label`'s `fields`, analysed in English,
    updated as it is written."""
    config = (row.get("options") or {}).get("indexConfig") or {}
    return (
        list(row.get("labelsOrTypes") or []) == [label]
        and sorted(row.get("properties") or []) == sorted(fields)
        and config.get("fulltext.analyzer") == ANALYZER
        and not config.get("fulltext.eventually_consistent")
    )


def _indexed(values: Sequence[Any]) -> list[str]:
    """What the index reads of a node's fields: its strings (a field of another type is not indexed)."""
    return [value for value in values if isinstance(value, str)]
