"""Embedded FalkorDB Lite adapter: the zero-setup default graph, and its searches.

`FalkorDBQueries` (falkordb_queries.py) opens the server and runs statements; this class adds what a search
needs: vector candidates, exact search over an id set, keyword search re-scored with BM25, and properties.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from retrieval.errors import (
    IndexMissing,
    QueryError,
)
from retrieval.store import bm25, falkordb_params
from retrieval.store.base import IndexState
from retrieval.store.falkordb_queries import FalkorDBQueries
from retrieval.store.falkordb_results import similarity
from retrieval.store.records import Row, StoreHit, embedded_nodes, filter_clause, ident
from retrieval.store.text_query import redisearch_query, terms

#: Fulltext candidates per query term re-scored with BM25: enough to hold the top k of any sensible query.
BM25_POOL_PER_TERM = 50
#: Candidates come from the rarest query terms only; common ones (stopwords too) still count in the score.
BM25_CANDIDATE_TERMS = 8
#: A term in more than this share of the label is too common to draw candidates from (RediSearch would score and
#: sort every match); it still counts in the BM25 score of the candidates the rarer terms bring.
BM25_COMMON_SHARE = bm25.COMMON_SHARE
#: ...and a common term with more matches than this never tops the pool up (sorting them costs more than it adds).
BM25_TOPUP_MAX = 5000
#: A query's matches ranked by RediSearch before the best `pool` are kept. Rare terms and conjunctions match
#: fewer; a common term's first matches (in index order) stand in for all of them, as ranking every one of
#: 80k matches costs ~10 ms (a common term adds little to BM25, and the pools of the rarer terms come first).
BM25_SCAN = 5000


class FalkorDBStore(FalkorDBQueries):
    backend = "falkordb"

    # --- search -----------------------------------------------------------------------------
    def _vector_candidates(
        self,
        label: str,
        prop: str,
        fetch: int,
        vector: Sequence[float],
        *,
        where: str = "",
        params: Row | None = None,
        props: Sequence[str] | None = None,
    ) -> list[StoreHit]:
        self._require_index("vector", label, prop)
        params = dict(params or {})
        limit = int(params.pop("limit", fetch))
        projection = ", ".join(f".{ident(p)}" for p in props) if props else self._projection(label, prop)
        with self._index_checked("vector", label, prop):
            rows = self.read(
                "CALL db.idx.vector.queryNodes($label, $prop, $fetch, vecf32($q)) YIELD node, score "
                + (f"WHERE {where} " if where else "")
                + "WITH node, score ORDER BY score LIMIT $limit "  # project only what is kept
                + f"RETURN node.id AS id, score, node {{{projection}}} AS props",
                {
                    **params,
                    "label": label,
                    "prop": prop,
                    "fetch": int(fetch),
                    "limit": limit,
                    "q": falkordb_params.query_vector(vector),
                },
            )
        # FalkorDB returns cosine *distance* (0 = same direction); callers want similarity.
        return [StoreHit(str(r["id"]), 1.0 - float(r["score"]), r["props"]) for r in rows]

    def exact_vector_search(
        self,
        label: str,
        vector: Sequence[float],
        k: int,
        *,
        prop: str | None = None,
        filters: Mapping[str, Any] | None = None,
    ) -> list[StoreHit]:
        """Cosine computed by the server (`vec.cosineDistance`), so only the top k's props travel, never a vector.

        Shipping and parsing 30 vectors of 384 floats took ~4 ms of a ~5 ms restricted search on 100k chunks.
        """
        prop = prop or self.settings.embedding_property
        if k < 1:
            return []
        match, params = embedded_nodes(label, prop, filters)
        rows = self.read(
            f"{match} WITH n, vec.cosineDistance(n.{ident(prop)}, vecf32($q)) AS distance ORDER BY distance LIMIT $k "
            + f"RETURN n.id AS id, distance, n {{{self._projection(label, prop)}}} AS props",
            {**params, "q": falkordb_params.query_vector(vector), "k": int(k)},
        )
        hits = [StoreHit(str(r["id"]), similarity(r["distance"]), r["props"]) for r in rows]
        return sorted(hits, key=lambda hit: -hit.score)  # a zero vector's NaN distance sorts anywhere; 0.0 here

    def fulltext_search(
        self,
        label: str,
        text: str,
        k: int,
        *,
        index: str | None = None,
        filters: Mapping[str, Any] | None = None,
        text_only: bool = False,
    ) -> list[StoreHit]:
        words = terms(text)
        if not words or k < 1:
            return []
        self._require_index("fulltext", label, None)
        where, params = filter_clause("node", filters)
        pool = _pool(k)
        fields = self._fulltext_fields(label)
        corpus = self._corpus(label, fields, words)
        if text_only:
            projection = ", ".join(f".{ident(f)}" for f in ["id", *fields])
        else:
            projection = self._projection(label, self.settings.embedding_property)
        ids = (filters or {}).get("id")
        if isinstance(ids, list) and len(ids) <= pool:  # a known id set: score those nodes, no index walk
            known = self.read(
                f"MATCH (node:{ident(label)}) WHERE {where} RETURN node.id AS id, node {{{projection}}} AS props",
                params,
            )
            return bm25.ranked(known, fields, words, corpus, k)
        common = max(BM25_COMMON_SHARE * corpus.documents, 4 * pool)
        matching = sorted((w for w in words if corpus.doc_freq.get(w, 0)), key=lambda w: corpus.doc_freq[w])
        matching = matching[:BM25_CANDIDATE_TERMS]
        if not matching:
            return []
        # Round 1, mostly one round trip: each rare term's best matches, and conjunctions of the rarest terms.
        singles = [w for w in matching if corpus.doc_freq[w] <= common]
        scope: dict[str, Any] = {"pool": pool, "where": where, "params": params, "projection": projection}
        queries = {redisearch_query(w): corpus.doc_freq[w] for w in singles} | _conjunctions(matching, corpus)
        rows = self._candidates(label, queries, **scope)
        # Round 2, only when round 1 found too few: common terms one by one, rarest first, as before. RediSearch
        # scores and sorts every match of a term, so a term in most of the label costs milliseconds.
        for rank, word in enumerate(matching):
            if len(rows) >= k or (rank and corpus.doc_freq[word] > BM25_TOPUP_MAX):
                break
            if word not in singles:
                rows.update(self._candidates(label, {redisearch_query(word): corpus.doc_freq[word]}, **scope))
        return bm25.ranked(rows.values(), fields, words, corpus, k)

    def _keyword_procedure(self, label: str, index: str | None) -> tuple[str, str, Callable[[str], str]]:
        """FalkorDB has one fulltext index per label, named by the label."""
        self._require_index("fulltext", label, None)
        return "db.idx.fulltext.queryNodes", label, redisearch_query

    def _bm25_basis(self, label: str, index: str | None, words: Sequence[str]) -> tuple[list[str], bm25.Corpus]:
        """`_pool(k)` always holds the k ids of a search, so a rescore never walks the index."""
        self._require_index("fulltext", label, None)
        fields = self._fulltext_fields(label)
        return fields, self._corpus(label, fields, words)

    def properties(self, label: str, ids: Sequence[str]) -> dict[str, Row]:
        if not ids:
            return {}
        rows = self.read(
            f"MATCH (n:{ident(label)}) WHERE n.id IN $ids "
            f"RETURN n.id AS id, n {{{self._projection(label, self.settings.embedding_property)}}} AS props",
            {"ids": list(ids)},
        )
        return {str(r["id"]): r["props"] for r in rows}

    def _candidates(
        self, label: str, queries: Mapping[str, int], *, pool: int, where: str, params: Row, projection: str
    ) -> dict[str, Row]:
        """The `pool` best matches of each RediSearch query (by its own score), deduplicated.

        `queries` maps each query to a bound on its match count. Each query runs on its own, not ORed:
        RediSearch ranks single terms and conjunctions sanely, OR-queries not, and a pool per query keeps a
        common query from crowding out a rare one. Those bounded by BM25_SCAN share one round trip (UNWIND +
        subquery); a larger one runs alone and ranks only its first BM25_SCAN matches, since a LIMIT
        without ORDER BY inside a FalkorDB subquery is not applied per row (FalkorDB 4.x).
        """
        small = [q for q, bound in queries.items() if bound <= BM25_SCAN]
        rows: dict[str, Row] = {}
        ret = f"RETURN node.id AS id, node {{{projection}}} AS props"  # project only the candidates kept
        call = "CALL db.idx.fulltext.queryNodes($label, $q) YIELD node, score " + (f"WHERE {where} " if where else "")
        if small:
            found = self.read(
                f"UNWIND $queries AS q CALL {{ WITH q {call.replace('$q', 'q')}"
                + f"WITH node, score ORDER BY score DESC LIMIT $pool RETURN node }} WITH DISTINCT node {ret}",
                {"label": label, "queries": small, "pool": pool, **params},
            )
            rows.update((str(r["id"]), r) for r in found)
        for query in (q for q in queries if q not in small):
            found = self.read(
                f"{call}WITH node, score LIMIT $scan WITH node, score ORDER BY score DESC LIMIT $pool {ret}",
                {"label": label, "q": query, "pool": pool, "scan": BM25_SCAN, **params},
            )
            rows.update((str(r["id"]), r) for r in found)
        return rows

    def _fulltext_fields(self, label: str) -> list[str]:
        states = self._index_cache if self._index_cache is not None else self.index_states()  # set by _require_index
        return sorted({p for s in states if s.kind == "fulltext" and s.label == label for p in s.properties})

    def _corpus(self, label: str, fields: Sequence[str], words: Sequence[str]) -> bm25.Corpus:
        """Label size, mean length and document frequencies, cached until the next write.

        Counting a common term's matches would walk most of the label, so counts stop at the "common"
        threshold and a common term's frequency is estimated from a sample of the label instead.
        """
        if label not in self._corpus_cache:
            self._corpus_cache[label] = bm25.LabelStats.read(self, label, fields)

        counter = bm25.match_counter(self, *self._keyword_procedure(label, None))
        return self._corpus_cache[label].corpus(words, counter)

    def _projection(self, label: str, vector_prop: str) -> str:
        """Map projection of every stored key except the vector (returning it would ship 1.5 kB per hit)."""
        keys = self._keys(label) - {vector_prop}
        return ", ".join(f".{ident(k)}" for k in sorted(keys)) or ".id"

    def _keys(self, label: str) -> set[str]:
        if label not in self._keys_cache:
            rows = self.read(f"MATCH (n:{ident(label)}) WITH n LIMIT 200 UNWIND keys(n) AS k RETURN DISTINCT k")
            self._keys_cache[label] = {str(r["k"]) for r in rows if _is_ident(str(r["k"]))}
        return self._keys_cache[label]

    def _require_index(self, kind: str, label: str, prop: str | None) -> None:
        """FalkorDB answers a missing fulltext index with no rows; say so instead of pretending nothing matched."""

        def present(states: list[IndexState]) -> bool:
            return any(s.kind == kind and s.label == label and (prop is None or prop in s.properties) for s in states)

        if self._index_cache is None or not present(self._index_cache):
            self._index_cache = self.index_states()  # another process may have built it since
        if not present(self._index_cache):
            name = next(
                (n for (k, lab, _p), n in self._settings_index_names().items() if (k, lab) == (kind, label)), ""
            )
            raise IndexMissing(
                f"{kind} index on {label}" + (f".{prop}" if prop else "") + (f" ({name})" if name else "")
            )

    @contextlib.contextmanager
    def _index_checked(self, kind: str, label: str, prop: str | None) -> Iterator[None]:
        """A query on an index that fails because another process dropped it since says so (IndexMissing)."""
        try:
            yield
        except QueryError:
            self._index_cache = None
            self._require_index(kind, label, prop)
            raise


def _pool(k: int) -> int:
    """Candidates a keyword search ranks for a top `k`; an id set this small is scored without the index."""
    return max(BM25_POOL_PER_TERM, 2 * int(k))


def _conjunctions(matching: Sequence[str], corpus: bm25.Corpus) -> dict[str, int]:
    """AND-queries (with a bound on their matches) over every query term, and over the fewest rarest terms
    expected to match few documents.

    Why: the documents holding several query terms are the ones BM25 ranks first, and the single-term pools
    rarely contain them (a term's pool is its best matches by its own score). The expected count assumes
    independent terms; the query over every term matches no more documents than its rarest term alone.
    """
    if len(matching) < 2:
        return {}
    sizes = {len(matching)}
    expected = float(corpus.documents)
    for size, word in enumerate(matching, start=1):
        expected *= min(1.0, corpus.doc_freq[word] / max(1, corpus.documents))
        if size >= 2 and expected <= BM25_TOPUP_MAX:
            sizes.add(size)  # the fewest rarest terms that narrow the matches enough
            break
    # A conjunction matches no more documents than its rarest term: that bounds its cost whatever the estimate.
    bound = corpus.doc_freq[matching[0]]
    return {" ".join(redisearch_query(w) for w in matching[:size]): bound for size in sorted(sizes)}


def _is_ident(name: str) -> bool:
    try:
        ident(name)
    except ValueError:
        return False
    return True
