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
Every candidate comes with its id, the indexed text (what BM25 reads) and the few properties the caller names
(what a hit shows), never every property: the pool holds hundreds of candidates of which a search keeps a few,
and their other properties (a chunk's claimed relations, an entity's source chunks and aliases) cost the server,
the wire and the driver more than the rest of the search did.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from retrieval.store import bm25
from retrieval.store.records import Filters, Row, StoreHit, filter_clause, ident
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
    whole: bool  # every node passes the filter: Lucene itself stops at the pool (it need not rank every match)


def statement(plans: Sequence[tuple[HybridPlan, Filters | None]]) -> tuple[str, Row]:
    """The first read of one or more hybrid searches: per plan, vector candidates, the fulltext pool and match counts
    for the new words, as columns `{prefix}vector`, `{prefix}pool`, `{prefix}counts` (`prefix(i)`).

    Each candidate is a list, not a map: `[id, score, *returned]` (the vector index's score; Lucene's, unused).
    Why: the reply holds hundreds of candidates, and a map repeats every key in each, which the driver decodes one
    by one; positions halve the values a search decodes. Why several plans in one statement: a default search asks
    for chunks and for entities at once, and each statement is a round trip (docs/benchmarks.md)."""
    calls, params, columns = [], {}, []
    for i, (plan, filters) in enumerate(plans):
        p = prefix(i)
        where, filter_params = filter_clause("node", filters, f"{p}f_")
        where_clause = f"WHERE {where} " if where else ""
        values = "".join(f", node.{ident(f)}" for f in plan.returned)
        calls.append(
            f"CALL {{ CALL db.index.vector.queryNodes(${p}vector_index, ${p}vector_fetch, ${p}q) YIELD node, score "
            f"{where_clause}WITH node, score ORDER BY score DESC LIMIT ${p}fetch "
            f"RETURN collect([node.id, score{values}]) AS {p}vector }} "
            f"CALL {{ CALL db.index.fulltext.queryNodes(${p}fulltext_index, ${p}lucene, ${p}lucene_options) "
            f"YIELD node, score {where_clause}WITH node, score ORDER BY score DESC LIMIT ${p}pool "
            f"RETURN collect([node.id, score{values}]) AS {p}pool }} "
            f"CALL {{ UNWIND ${p}words AS w CALL {{ WITH w "
            f"CALL db.index.fulltext.queryNodes(${p}fulltext_index, w.q, {{limit: ${p}cap}}) YIELD node "
            f"WITH node LIMIT ${p}cap RETURN count(node) AS n }} RETURN collect([w.word, n]) AS {p}counts }} "
        )
        params.update(filter_params)
        columns += [f"{p}vector", f"{p}pool", f"{p}counts"]
    return "".join(calls) + "RETURN " + ", ".join(columns), params


def cosine_statement(wanted: Sequence[tuple[int, HybridPlan, Filters | None]]) -> tuple[str, Row]:
    """The second read: for each `(i, plan, filters)`, the exact cosine of that plan's kept keyword hits the vector
    arm lacks (`${prefix}ids`, `${prefix}q`), under the same filter as the pool, as column `{prefix}cosines`: one
    row of `[id, cosine]` pairs per plan (null where a node has no vector)."""
    calls, params, columns = [], {}, []
    for i, plan, filters in wanted:
        p = prefix(i)
        where, filter_params = filter_clause("node", filters, f"{p}f_")
        calls.append(
            f"CALL {{ UNWIND ${p}ids AS id MATCH (node:{ident(plan.label)} {{id: id}}) "
            f"{f'WHERE {where} ' if where else ''}"
            f"RETURN collect([node.id, vector.similarity.cosine(node.{ident(plan.prop)}, ${p}q)]) AS {p}cosines }} "
        )
        params.update(filter_params)
        columns.append(f"{p}cosines")
    return "".join(calls) + "RETURN " + ", ".join(columns), params


def prefix(i: int) -> str:
    """The parameter and column prefix of the i-th search of a statement (none for the first: a single search's
    statement reads as it always did)."""
    return f"s{i}_" if i else ""


def parameters(i: int, plan: HybridPlan, vector: Sequence[float], text: str) -> Row:
    """The i-th search's parameters (`prefix(i)`); its filter's come with the statement."""
    p = prefix(i)
    return {
        f"{p}vector_index": plan.vector_index,
        f"{p}fulltext_index": plan.fulltext_index,
        f"{p}vector_fetch": plan.vector_fetch,
        f"{p}fetch": plan.fetch,
        f"{p}pool": plan.pool,
        f"{p}cap": plan.cap,
        f"{p}q": [float(x) for x in vector],
        f"{p}lucene": lucene_query(text),
        f"{p}lucene_options": {"limit": plan.pool} if plan.whole else {},
        f"{p}words": [{"word": w, "q": lucene_query(w)} for w in plan.new_words],
    }


@dataclass
class Candidates:
    """One search's arms before the vector arm is completed: what `cosines` must score (`missing`)."""

    vector: list[StoreHit]
    keyword: list[StoreHit]
    missing: list[StoreHit]  # kept keyword hits the vector arm lacks: their exact cosine completes it


def candidates(
    i: int,
    row: Mapping[str, Any],
    plan: HybridPlan,
    *,
    text: str,
    fields: Sequence[str],
    stats: bm25.LabelStats,
) -> Candidates:
    """The i-th search's arms from the statement's row: BM25 ranks the pool, the keyword arm is completed with the
    vector-only candidates; each hit's props are the plan's `returned` properties."""
    p, returned = prefix(i), plan.returned
    vector = [StoreHit(str(h[0]), _cosine(h[1]), _props(returned, h)) for h in row[f"{p}vector"]]
    counts = {str(word): int(n) for word, n in row[f"{p}counts"]}
    words = terms(text)
    corpus = stats.corpus(words, lambda word, _cap: counts.get(word, 0))  # the statement counted new words
    pool = [{"id": h[0], "props": _props(returned, h)} for h in row[f"{p}pool"]]
    keyword = bm25.ranked(pool, fields, words, corpus, plan.fetch)
    vector_ids = {h.id for h in vector}
    keyword_ids = {h.id for h in keyword}
    only_vector = [{"id": h.id, "props": h.props} for h in vector if h.id not in keyword_ids]
    if only_vector and words:
        keyword += bm25.ranked(only_vector, fields, words, corpus, len(only_vector))
    return Candidates(vector, keyword, [h for h in keyword if h.id not in vector_ids])


def completed(found: Candidates, cosine: Mapping[str, float | None]) -> tuple[list[StoreHit], list[StoreHit]]:
    """Both arms, the vector arm completed by the `cosine` of the missing hits that have a vector; best first."""
    vector = found.vector + [
        StoreHit(h.id, _cosine(cosine[h.id]), h.props) for h in found.missing if cosine.get(h.id) is not None
    ]
    by_score = lambda hit: -hit.score  # noqa: E731 - ranks follow scores once the arms are completed
    return sorted(vector, key=by_score), sorted(found.keyword, key=by_score)


def _cosine(score: object) -> float:
    """Neo4j's vector similarity is (1 + cos) / 2; callers get plain cosine, as from `_vector_candidates`."""
    return 2.0 * float(score) - 1.0  # type: ignore[arg-type]


def _props(names: Sequence[str], candidate: Sequence[Any]) -> dict[str, Any]:
    """A candidate's `[id, score, *values]` as the properties it has (a missing one is null, left out)."""
    return {name: value for name, value in zip(names, candidate[2:], strict=True) if value is not None}
