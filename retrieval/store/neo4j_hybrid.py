"""Both arms of a hybrid search on Neo4j in one statement, and at most one more for the kept keyword hits' cosines.

Why: on Neo4j a search's cost was its round trips, not the database's work. Separately, the vector arm, the
keyword arm, the document counts BM25 needs for new words, the keyword scores of vector-only candidates, the
exact cosine of keyword-only candidates and the properties of the kept keyword hits each cost one. Here one
statement returns the vector index's candidates, Lucene's candidate pool and the match counts of the words not
counted yet. Python then ranks the pool with BM25 exactly as `fulltext_search` does and completes each arm with the
other's candidates exactly as `retrieval/search/hybrid.py` does, so results are the same. The exact cosines the
vector arm is completed with (computed by the server: no vector crosses the wire) are read afterwards, for the kept
keyword hits the vector arm lacks only: computed for the whole pool in the first statement, they were two thirds of
its server time once the vector index was rebuilt in one pass (MuSiQue chunks, pool 240: 33.5 ms against 7 ms
without; docs/benchmarks.md), though BM25 keeps 60 of the 240 and the vector arm holds many of those already.
A vector candidate comes with its id, score, the indexed text (what BM25 reads) and the few properties the caller
names (what a hit shows), never every property: their other properties (a chunk's claimed relations, an entity's
source chunks and aliases) cost the server, the wire and the driver more than the rest of the search did. A pool
candidate comes with its id and indexed text only, and without the text when the vector arm holds it already: the
pool is ~240 candidates of which BM25 keeps 60, and the vector arm holds many of those; the kept ones the vector arm
lacks get what a hit shows from the cosine read they need anyway (docs/benchmarks.md, "The plain searches").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from retrieval.store import bm25
from retrieval.store.records import Row, StoreHit, filter_clause, ident
from retrieval.store.text_query import lucene_query, terms


@dataclass(frozen=True)
class HybridPlan:
    """What one hybrid statement needs: the indexes, the filter, the candidate counts and the words to count."""

    label: str
    prop: str
    vector_index: str
    fulltext_index: str
    fetch: int  # hits each arm keeps
    vector_fetch: int  # candidates the vector index is asked for (over-fetched when filtered)
    pool: int  # Lucene candidates BM25 ranks
    cap: int  # matches counted per new word at most
    new_words: Sequence[str]
    returned: Sequence[str]  # the properties each candidate carries: the indexed ones and those the caller names
    fields: Sequence[str]  # the indexed properties (BM25's input), each pool candidate's only ones
    whole: bool  # every node passes the filter: Lucene itself stops at the pool (it need not rank every match)


@dataclass
class HybridArms:
    vector: list[StoreHit]
    keyword: list[StoreHit]


def statement(plan: HybridPlan, filters: Mapping[str, Any] | None) -> tuple[str, Row]:
    """The first read: vector candidates, the fulltext pool, and match counts for the new words.

    Each candidate is a list, not a map: a vector one `[id, score, *returned]` (the index's score), a pool one
    `[id, *fields]`, or `[id]` when the vector arm holds it. Why: the reply holds hundreds of candidates, and a map
    repeats every key in each, which the driver decodes one by one; positions halve the values a search decodes."""
    where, params = filter_clause("node", filters)
    where_clause = f"WHERE {where} " if where else ""
    values = "".join(f", node.{ident(f)}" for f in plan.returned)
    texts = "".join(f", node.{ident(f)}" for f in plan.fields)
    cypher = (
        "CALL { CALL db.index.vector.queryNodes($vector_index, $vector_fetch, $q) YIELD node, score "
        f"{where_clause}WITH node, score ORDER BY score DESC LIMIT $fetch "
        f"RETURN collect([node.id, score{values}]) AS vector }} "
        "CALL { WITH vector WITH [c IN vector | c[0]] AS seen "
        "CALL db.index.fulltext.queryNodes($fulltext_index, $lucene, $lucene_options) YIELD node, score "
        f"{where_clause}WITH seen, node, score ORDER BY score DESC LIMIT $pool "
        f"RETURN collect(CASE WHEN node.id IN seen THEN [node.id] ELSE [node.id{texts}] END) AS pool }} "
        "CALL { UNWIND $words AS w CALL { WITH w "
        "CALL db.index.fulltext.queryNodes($fulltext_index, w.q, {limit: $cap}) YIELD node "
        "WITH node LIMIT $cap RETURN count(node) AS n } RETURN collect([w.word, n]) AS counts } "
        "RETURN vector, pool, counts"
    )
    return cypher, params


def cosine_statement(plan: HybridPlan, filters: Mapping[str, Any] | None) -> tuple[str, Row]:
    """The second read: the exact cosine of the pool's kept hits the vector arm lacks (`$ids`, `$q`), under the
    same filter as the pool, with what a hit shows of them, as one row of `[id, cosine, *returned]` (the cosine
    null where a node has no vector)."""
    where, params = filter_clause("node", filters)
    values = "".join(f", node.{ident(f)}" for f in plan.returned)
    cypher = (
        f"UNWIND $ids AS id MATCH (node:{ident(plan.label)} {{id: id}}) {f'WHERE {where} ' if where else ''}"
        f"RETURN collect([node.id, vector.similarity.cosine(node.{ident(plan.prop)}, $q){values}]) AS cosines"
    )
    return cypher, params


def parameters(plan: HybridPlan, vector: Sequence[float], text: str, filter_params: Row) -> Row:
    return {
        **filter_params,
        "vector_index": plan.vector_index,
        "fulltext_index": plan.fulltext_index,
        "vector_fetch": plan.vector_fetch,
        "fetch": plan.fetch,
        "pool": plan.pool,
        "cap": plan.cap,
        "q": [float(x) for x in vector],
        "lucene": lucene_query(text),
        "lucene_options": {"limit": plan.pool} if plan.whole else {},
        "words": [{"word": w, "q": lucene_query(w)} for w in plan.new_words],
    }


def arms(
    row: Mapping[str, Any],
    plan: HybridPlan,
    text: str,
    *,
    corpus: Callable[[Mapping[str, int]], bm25.Corpus],
    cosines: Callable[[list[str]], Sequence[Sequence[Any]]],
) -> HybridArms:
    """Both completed arms from the statement's row and `cosines` of the ids it names (the second read's
    `[id, cosine, *returned]` rows, asked only for the kept keyword hits the vector arm lacks); each hit's props
    are the plan's `returned` properties."""
    returned, fields = plan.returned, plan.fields
    vector = [StoreHit(str(h[0]), _cosine(h[1]), _props(returned, h[2:])) for h in row["vector"]]
    shown = {h.id: h.props for h in vector}
    counts = {str(word): int(n) for word, n in row["counts"]}
    words = terms(text)
    stats = corpus(counts)
    pool = [{"id": h[0], "props": shown[h[0]] if len(h) == 1 else _props(fields, h[1:])} for h in row["pool"]]
    keyword = bm25.ranked(pool, fields, words, stats, plan.fetch)
    keyword_ids = {h.id for h in keyword}
    only_vector = [{"id": h.id, "props": h.props} for h in vector if h.id not in keyword_ids]
    if only_vector and words:
        keyword += bm25.ranked(only_vector, fields, words, stats, len(only_vector))
    only_keyword = [h.id for h in keyword if h.id not in shown]
    read = {str(c[0]): c for c in cosines(only_keyword)} if only_keyword else {}
    vector += [
        StoreHit(i, _cosine(read[i][1]), _props(returned, read[i][2:]))
        for i in only_keyword
        if i in read and read[i][1] is not None
    ]
    shown.update((i, _props(returned, c[2:])) for i, c in read.items())
    keyword = [StoreHit(h.id, h.score, shown.get(h.id, h.props)) for h in keyword]
    by_score = lambda hit: -hit.score  # noqa: E731 - ranks follow scores once the arms are completed
    return HybridArms(sorted(vector, key=by_score), sorted(keyword, key=by_score))


def _cosine(score: object) -> float:
    """Neo4j's vector similarity is (1 + cos) / 2; callers get plain cosine, as from `_vector_candidates`."""
    return 2.0 * float(score) - 1.0  # type: ignore[arg-type]


def _props(names: Sequence[str], values: Sequence[Any]) -> dict[str, Any]:
    """A candidate's values of `names` as the properties it has (a missing one is null, left out)."""
    return {name: value for name, value in zip(names, values, strict=True) if value is not None}
