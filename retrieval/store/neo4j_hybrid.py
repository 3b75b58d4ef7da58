"""Both arms of a hybrid search on Neo4j in one statement.

Why: on Neo4j a search's cost was its round trips, not the database's work. Separately, the vector arm, the
keyword arm, the document counts BM25 needs for new words, the keyword scores of vector-only candidates, the
exact cosine of keyword-only candidates and the properties of the kept keyword hits each cost one. Here one
statement returns the vector index's candidates, Lucene's candidate pool and the match counts of the words not
counted yet. Python then ranks the pool with BM25 exactly as `fulltext_search` does and completes each arm with the
other's candidates exactly as `retrieval/search/hybrid.py` does. Lucene's pool is smaller than the arm BM25
keeps (`pool`, half of `fetch`: `neo4j.HYBRID_POOL`): larger pools (up to 240 for 60) changed no R@k on either
dev set and cost the reply's texts, the server's cosines and the Python's BM25 (docs/benchmarks.md, "The plain
searches" and "The hybrid search's own time"). So BM25 keeps every pool candidate that matches, and the exact
cosine the vector arm is completed with (computed by the server: no vector crosses the wire) is computed in the
statement for the pool candidates the vector arm lacks, not in a second read for the kept ones.
A vector candidate comes with its id, score, the indexed text (what BM25 reads) and the few properties the caller
names (what a hit shows), never every property: their other properties (a chunk's claimed relations, an entity's
source chunks and aliases) cost the server, the wire and the driver more than the rest of the search did. A pool
candidate the vector arm holds comes as its id alone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from retrieval.store import bm25, neo4j_terms
from retrieval.store.records import Filters, HybridSearch, Row, StoreHit, TermCounts, filter_clause, ident
from retrieval.store.text_query import lucene_query, terms

#: The new words' parameter holds at least this many entries, blanks (`word` "") after the words, which the
#: statement skips. Why: Neo4j's plan cache keys a statement on its parameters' types and each list's size bucket
#: (0, 1, 2-10 and 11 or more, probed: docs/benchmarks.md, branch wt224), and the statement's plan costs ~1 s under
#: load; none, one or a few new words were three plans a search, now one (11 or more new words are another).
NEW_WORDS_FLOOR = 2


@dataclass(frozen=True)
class HybridPlan:
    """What one hybrid statement needs: the indexes, the filter, the candidate counts and the words to count."""

    label: str
    prop: str
    vector_index: str
    fulltext_index: str
    fetch: int  # hits each arm keeps
    pool: int  # Lucene's candidates BM25 ranks
    vector_fetch: int  # candidates the vector index is asked for (over-fetched when filtered)
    cap: int  # matches counted per new word at most
    new_words: Sequence[str]
    returned: Sequence[str]  # the properties each candidate carries: the indexed ones and those the caller names
    fields: Sequence[str]  # the indexed properties (BM25's input)
    whole: bool  # every node passes the filter: Lucene itself stops at the pool (it need not rank every match)
    filters: Filters | None = None  # what a candidate must match
    #: BM25's words, when each candidate's counts of them are read from its stored profile (`neo4j_terms`): the
    #: label's profiles were built from this index's fields (`bm25.profiled_fields`). Empty: BM25 tokenises the
    #: texts.
    counted: Sequence[str] = ()


@dataclass
class HybridArms:
    vector: list[StoreHit]
    keyword: list[StoreHit]


def plan(
    search: HybridSearch,
    words: Sequence[str],
    *,
    stats: bm25.LabelStats,
    fields: Sequence[str],
    whole: bool,
    vector_index: str,
    prop: str,
    fetch_limits: tuple[int, int],
    pool_share: float,
    counted: bool,
) -> HybridPlan:
    """One search's plan: the vector index asked for at least `fetch_limits[0]` candidates, over-fetched (up to
    `fetch_limits[1]`) when a filter may drop some; Lucene's pool `pool_share` of the fetch; the words of `words`
    the label's statistics have not counted yet; `counted`: the candidates' counts of `words` are read from their
    stored profiles."""
    fetch = int(search.fetch)
    min_k, max_overfetch = fetch_limits
    first = fetch if whole else min(max(fetch * 4, fetch, 32), max_overfetch)
    return HybridPlan(
        label=search.label,
        prop=prop,
        vector_index=vector_index,
        fulltext_index=search.index,
        fetch=fetch,
        pool=max(1, round(pool_share * fetch)),
        vector_fetch=max(first, min_k),
        cap=stats.cap,
        new_words=[w for w in stats.uncounted(words) if lucene_query(w)],
        returned=list(dict.fromkeys([*fields, *search.props])),
        fields=fields,
        whole=whole,
        filters=search.filters,
        counted=list(words) if counted else (),
    )


def statement(plans: Sequence[HybridPlan], more: str = "", returned: Sequence[str] = ()) -> tuple[str, Row]:
    """The one read: per plan, vector candidates, the fulltext pool, and match counts for the new words.

    Plan `i`'s columns are `vector{i}`, `pool{i}` and `counts{i}`, its parameters prefixed `h{i}_`; the query
    vector `$q` is shared. Why several plans in one statement: a search's chunk and entity arms (the ranking's
    first step, `retrieval/search/hybrid.py`) then cost one round trip, not two statements on two threads.
    Each candidate is a list, not a map: a vector one `[id, score, *returned]` (the index's score), a pool one
    `[id, cosine, *returned]` (the cosine null where it has no vector), or `[id]` when the vector arm holds it; a
    plan that reads stored profiles adds their counts (`neo4j_terms.column`) after `returned`.
    Why: the reply holds a hundred candidates, and a map repeats every key in each, which the driver decodes one by
    one; positions halve the values a search decodes. `more`: subqueries that follow, adding the columns
    `returned` (`neo4j_fold`)."""
    parts: list[str] = []
    params: Row = {}
    for i, plan in enumerate(plans):
        p = f"$h{i}_"
        where, found = filter_clause("node", plan.filters, prefix=f"h{i}_f_")
        params.update(found)
        where_clause = f"WHERE {where} " if where else ""
        values = "".join(f", node.{ident(f)}" for f in plan.returned)
        if plan.counted:
            values += ", " + neo4j_terms.column("node", f"{p}keys", plan.fields)
        cosine = f"vector.similarity.cosine(node.{ident(plan.prop)}, $q)"
        parts.append(
            f"CALL {{ CALL db.index.vector.queryNodes({p}vector_index, {p}vector_fetch, $q) YIELD node, score "
            f"{where_clause}WITH node, score ORDER BY score DESC LIMIT {p}fetch "
            f"RETURN collect([node.id, score{values}]) AS vector{i} }} "
            f"CALL {{ WITH vector{i} WITH [c IN vector{i} | c[0]] AS seen "
            f"CALL db.index.fulltext.queryNodes({p}fulltext_index, {p}lucene, {p}lucene_options) YIELD node, score "
            f"{where_clause}WITH seen, node, score ORDER BY score DESC LIMIT {p}pool "
            f"RETURN collect(CASE WHEN node.id IN seen THEN [node.id] ELSE [node.id, {cosine}{values}] END) "
            f"AS pool{i} }} "
            f"CALL {{ UNWIND [w IN {p}words WHERE w.word <> ''] AS w CALL {{ WITH w "
            f"CALL db.index.fulltext.queryNodes({p}fulltext_index, w.q, {{limit: {p}cap}}) YIELD node "
            f"WITH node LIMIT {p}cap RETURN count(node) AS n }} RETURN collect([w.word, n]) AS counts{i} }}"
        )
    columns = ", ".join([*(f"vector{i}, pool{i}, counts{i}" for i in range(len(plans))), *returned])
    return " ".join([*parts, more]) + f" RETURN {columns}", params


def parameters(plans: Sequence[HybridPlan], vector: Sequence[float], text: str, filter_params: Row) -> Row:
    """The statement's parameters: each plan's under its prefix, the query vector once."""
    params: Row = {**filter_params, "q": [float(x) for x in vector]}
    lucene = lucene_query(text)
    for i, plan in enumerate(plans):
        p = f"h{i}_"
        params.update(
            {
                f"{p}vector_index": plan.vector_index,
                f"{p}fulltext_index": plan.fulltext_index,
                f"{p}vector_fetch": plan.vector_fetch,
                f"{p}fetch": plan.fetch,
                f"{p}pool": plan.pool,
                f"{p}cap": plan.cap,
                f"{p}lucene": lucene,
                f"{p}lucene_options": {"limit": plan.pool} if plan.whole else {},
                f"{p}words": _padded([{"word": w, "q": lucene_query(w)} for w in plan.new_words]),
                f"{p}keys": neo4j_terms.keys(plan.counted),
            }
        )
    return params


def _padded(words: list[Row]) -> list[Row]:
    """`words` with blanks up to NEW_WORDS_FLOOR entries (one plan-cache signature for few new words or none)."""
    return words + [{"word": "", "q": ""}] * (NEW_WORDS_FLOOR - len(words))


def columns(row: Mapping[str, Any], i: int) -> Row:
    """Plan `i`'s part of the statement's row, as `arms` reads it."""
    return {"vector": row[f"vector{i}"], "pool": row[f"pool{i}"], "counts": row[f"counts{i}"]}


def arms(
    row: Mapping[str, Any], plan: HybridPlan, text: str, *, corpus: Callable[[Mapping[str, int]], bm25.Corpus]
) -> HybridArms:
    """Both completed arms from the statement's row; each hit's props are the plan's `returned` properties."""
    returned, fields, counted = plan.returned, plan.fields, plan.counted
    vector = [_hit(h, _cosine(h[1]), returned, counted) for h in row["vector"]]
    shown = {h.id: h for h in vector}
    cosines: dict[str, object] = {}
    pool = []
    for h in row["pool"]:
        if len(h) == 1:
            held = shown[h[0]]
            pool.append({"id": h[0], "props": held.props, "terms": held.terms})
        else:
            cosines[str(h[0])] = h[1]
            hit = _hit(h, 0.0, returned, counted)
            pool.append({"id": h[0], "props": hit.props, "terms": hit.terms})
    counts = {str(word): int(n) for word, n in row["counts"]}
    words = terms(text)
    stats = corpus(counts)
    keyword = bm25.ranked(pool, fields, words, stats, plan.fetch)
    keyword_ids = {h.id for h in keyword}
    only_vector = [{"id": h.id, "props": h.props, "terms": h.terms} for h in vector if h.id not in keyword_ids]
    if only_vector and words:
        keyword += bm25.ranked(only_vector, fields, words, stats, len(only_vector))
    vector += [
        StoreHit(h.id, _cosine(cosines[h.id]), h.props, h.terms)
        for h in keyword
        if h.id not in shown and cosines.get(h.id) is not None
    ]
    by_score = lambda hit: -hit.score  # noqa: E731 - ranks follow scores once the arms are completed
    return HybridArms(sorted(vector, key=by_score), sorted(keyword, key=by_score))


def exact_part(
    label: str,
    prop: str,
    ids: str,
    filters: Filters | None,
    returned: Sequence[str],
    *,
    counted: Sequence[str],
    fields: Sequence[str],
) -> tuple[str, Row]:
    """A subquery for a statement holding the list `ids` (a variable) of `label` node ids and the query vector `$q`:
    `exact`, each node with a vector that `filters` keeps as `[id, score, *returned]`, best first, and with
    `counted` (words) its stored profile's counts of them (`neo4j_terms.column`, the profile of `fields`), for
    `fulltext_rescore`.

    What `Neo4jStore.exact_vector_search` returns for these ids (`exact_hits` decodes it), read by the statement
    that chose them (the bridge's spread), so their scores cost no round trip of their own."""
    where, params = filter_clause("node", filters, prefix="x_f_")
    kept = f"{where} AND " if where else ""
    values = "".join(f", node.{ident(f)}" for f in returned)
    if counted:
        values += ", " + neo4j_terms.column("node", "$x_keys", fields)
        params["x_keys"] = neo4j_terms.keys(counted)
    cypher = (
        f"CALL {{ WITH {ids} UNWIND {ids} AS id MATCH (node:{ident(label)} {{id: id}}) "
        f"WHERE {kept}node.{ident(prop)} IS NOT NULL "
        f"WITH node, vector.similarity.cosine(node.{ident(prop)}, $q) AS score ORDER BY score DESC "
        f"RETURN collect([node.id, score{values}]) AS exact }}"
    )
    return cypher, params


def exact_hits(exact: Sequence[Sequence[Any]], returned: Sequence[str], counted: Sequence[str]) -> list[StoreHit]:
    """`exact_part`'s column as hits, plain cosine and the `returned` properties each node has."""
    return [_hit(h, _cosine(h[1]), returned, counted) for h in exact]


def _hit(candidate: Sequence[Any], score: float, returned: Sequence[str], counted: Sequence[str]) -> StoreHit:
    """A candidate list `[id, score, *returned]`, with the counts of `counted` after them when read, as a hit."""
    end = 2 + len(returned)
    terms: TermCounts | None = neo4j_terms.decoded(candidate[end], counted) if counted else None
    return StoreHit(str(candidate[0]), score, _props(returned, candidate[2:end]), terms)


def _cosine(score: object) -> float:
    """Neo4j's vector similarity is (1 + cos) / 2; callers get plain cosine, as from `_vector_candidates`."""
    return 2.0 * float(score) - 1.0  # type: ignore[arg-type]


def _props(names: Sequence[str], values: Sequence[Any]) -> dict[str, Any]:
    """A candidate's values of `names` as the properties it has (a missing one is null, left out)."""
    return {name: value for name, value in zip(names, values, strict=True) if value is not None}
