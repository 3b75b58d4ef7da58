"""The GraphStore port: what retrieval needs from a graph database, nothing more.

Two adapters implement it (embedded FalkorDB Lite, Neo4j 5). Shared Cypher is written in the
common subset of both dialects; where they differ (vector literals, index procedures, score
direction) the adapter hides it, so callers always get a *similarity* where higher is better.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from retrieval.config import Settings
from retrieval.store import bm25
from retrieval.store.records import (
    Arms,
    Filters,
    Folded,
    HybridSearch,
    Row,
    StoreHit,
    ThenRead,
    embedded_nodes,
    filter_clause,
    ident,
)
from retrieval.store.text_query import terms
from retrieval.store.vectors import GraphVectors, VectorStore


@dataclass(frozen=True)
class IndexState:
    name: str
    kind: str  # "vector" | "fulltext" | "range"
    label: str
    properties: tuple[str, ...]
    state: str  # "ONLINE"/"OPERATIONAL"/"POPULATING"...
    dimension: int | None = None


@dataclass(frozen=True)
class Health:
    backend: str
    uri: str
    ok: bool
    counts: dict[str, int]
    indexes: list[IndexState]
    message: str = ""

    @property
    def empty(self) -> bool:
        return not any(self.counts.values())


def timed_out(s: Settings, timeout_ms: int | None, ended_by: str = "") -> str:
    """What a read stopped by its time limit tells the user: how long it ran, which setting set that, and (when the
    database did not stop it and DriftLens had to, see `deadline`) how it was ended."""
    waited = timeout_ms or s.query_timeout_ms
    knob = "DRIFTLENS_CYPHER_TIMEOUT_MS" if waited == s.cypher_timeout_ms else "DRIFTLENS_QUERY_TIMEOUT_MS"
    how = f": the database did not stop it in time, so {ended_by}" if ended_by else ""
    return f"Query stopped after {waited} ms ({knob}){how}; narrow it."


@dataclass(frozen=True)
class ExactPart:
    """`GraphStore.exact_part`: the subquery, its parameters and the decoder of its `exact` column."""

    cypher: str
    params: Row
    hits: Callable[[Sequence[Sequence[Any]]], list[StoreHit]]


class GraphStore(ABC):
    """Port for the graph database. Adapters must honour every docstring here (contract tests check)."""

    backend: ClassVar[str]
    #: Largest k an over-fetching filtered vector search will request before giving up.
    max_overfetch: ClassVar[int] = 4096
    #: Whether a search gains by sending its independent reads from two threads at once: on Neo4j a search's time
    #: is the server's (its vector index calls), and each connection has a server thread; the embedded store's
    #: searches spend theirs in client-side Python, under one GIL.
    parallel_reads: ClassVar[bool] = False
    #: Whether the indexer stores each chunk's BM25 profile beside its text (`bm25.stored`) for this store's searches
    #: to read instead of tokenising texts (Neo4j: `neo4j_terms`). Elsewhere it would be memory no read uses.
    stores_term_counts: ClassVar[bool] = False

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._vectors: VectorStore | None = None

    @property
    def vectors(self) -> VectorStore:
        """Where this graph's chunk, entity and community vectors live (`settings.vector_store`); opened once."""
        if self._vectors is None:
            self._vectors = open_vectors(self, self.settings)
        return self._vectors

    # --- identity ---------------------------------------------------------------------------
    @property
    @abstractmethod
    def uri(self) -> str:
        """Where the data lives, safe to display (never contains credentials)."""

    @property
    def pubsub_url(self) -> str | None:
        """A Redis URL on the database's own server for progress pub/sub, when it is a Redis (else None)."""
        return None

    # --- dialect ----------------------------------------------------------------------------
    def vec(self, expr: str) -> str:
        """Cypher storing a list of floats as a vector: `vec("q")` for param $q, `vec("row.v")` for an expression."""
        return self._vector_literal(expr if ("." in expr or expr.startswith("$")) else f"${expr}")

    @abstractmethod
    def _vector_literal(self, expr: str) -> str:
        """Wrap a Cypher expression holding a list of floats the way this backend stores vectors."""

    # --- queries ----------------------------------------------------------------------------
    @abstractmethod
    def query(self, cypher: str, params: Mapping[str, Any] | None = None, *, writes: str | None = None) -> list[Row]:
        """Run any Cypher (reads and writes) and return rows as dicts keyed by column name.

        `writes`: the one label the statement writes, when the caller knows it (conversation memory). Why: a write
        drops the keyword statistics the searches cache (document counts, lengths: a read per label, on Neo4j a
        whole table of the index's terms), and a turn's memory write would otherwise make the next question read
        the chunks' and entities' again though it changed neither. None: any label may have changed."""

    @abstractmethod
    def read(self, cypher: str, params: Mapping[str, Any] | None = None, *, timeout_ms: int | None = None) -> list[Row]:
        """Run Cypher that must not write; a writing query raises ReadOnlyViolation and changes nothing."""

    @abstractmethod
    def read_limited(self, cypher: str, limit: int, *, timeout_ms: int | None = None) -> list[Row]:
        """At most `limit` rows of a read written by a person or a model, the database stopping at the limit,
        admitted by its plan like `read` and ended by the deadline DriftLens enforces (`deadline`)."""

    def write_batch(
        self, cypher: str, rows: Sequence[Mapping[str, Any]], batch_size: int = 500, *, writes: str | None = None
    ) -> int:
        """Run `cypher` (which reads `UNWIND $rows AS row`) over `rows` in batches; returns rows sent. `writes`: as
        `query`'s."""
        sent = 0
        for start in range(0, len(rows), batch_size):
            batch = [dict(r) for r in rows[start : start + batch_size]]
            self.query(cypher, {"rows": batch}, writes=writes)
            sent += len(batch)
        return sent

    # --- search -----------------------------------------------------------------------------
    @abstractmethod
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
        """The `fetch` nearest nodes by cosine similarity (higher is better), then `where` (on `node`) applied
        in the database, best first, at most `params["limit"]` (default: all that pass); each with `props` only
        (None: every property but the vector)."""

    def vector_search(
        self,
        label: str,
        vector: Sequence[float],
        k: int,
        *,
        prop: str | None = None,
        filters: Filters | None = None,
        fetch: int | None = None,
        props: Sequence[str] | None = None,
    ) -> list[StoreHit]:
        """Top-k by similarity; with filters, over-fetch until k matches are found or the index is exhausted.

        `fetch` is the first round's candidate count: a caller that knows its filter keeps ~1/n of the
        label passes ~k*n and saves the rounds that would otherwise discover that. `props`: the only properties
        read of each hit (None: every one but the vector); a vector-only search shows a few of each hit, and the
        rest (a chunk's claimed relations, an entity's sources) were most of its reply on Neo4j.
        """
        prop = prop or self.settings.embedding_property
        if k < 1:
            return []
        if not filters:
            return self._vector_candidates(label, prop, k, vector, props=props)
        where, params = filter_clause("node", filters)
        params["limit"] = int(k)
        if fetch is None and self._filter_keeps_all(label, filters):
            fetch = k  # the filter drops nothing: the k nearest are the answer, no over-fetch
        else:
            fetch = min(max(fetch or k * 4, k, 32), self.max_overfetch)
        population: int | None = None
        while True:
            hits = self._vector_candidates(label, prop, fetch, vector, where=where, params=params, props=props)
            if len(hits) >= k or fetch >= self.max_overfetch:
                return hits
            if population is None:
                population = self.counts([label])[label]
            if fetch >= population:
                return hits
            fetch = min(fetch * 4, self.max_overfetch)

    def _filter_keeps_all(self, label: str, filters: Filters) -> bool:
        """Whether every `label` node passes `filters`, where the adapter can tell cheaply; then a filtered
        `vector_search` asks its index for k, not 4k. Why it matters: on Neo4j the k asked is the HNSW search's own
        work (a vector-only top 20 asked for 240). False here: an adapter that cannot tell cheaply over-fetches."""
        return False

    def exact_vector_search(
        self, label: str, vector: Sequence[float], k: int, *, prop: str | None = None, filters: Filters | None = None
    ) -> list[StoreHit]:
        """Exact cosine top-k over the nodes `filters` selects (a small id set), best first; props without the vector.

        Why not `vector_search`: an approximate index search filtered afterwards can miss a small set entirely.
        This default ships every selected vector and ranks them here; an adapter whose database computes
        cosine overrides it so that no vector crosses the wire (384 floats per node cost more than the query).
        """
        prop = prop or self.settings.embedding_property
        if k < 1:
            return []
        match, params = embedded_nodes(label, prop, filters)
        rows = self.read(f"{match} RETURN properties(n) AS props", params)
        if not rows:
            return []
        matrix = np.asarray([r["props"][prop] for r in rows], dtype=np.float32)
        query = np.asarray(vector, dtype=np.float32)
        sims = matrix @ query / np.maximum(np.linalg.norm(matrix, axis=1) * np.linalg.norm(query), 1e-12)
        order = np.argsort(-sims)[:k]
        return [
            StoreHit(
                str(rows[i]["props"]["id"]), float(sims[i]), {p: v for p, v in rows[i]["props"].items() if p != prop}
            )
            for i in order
        ]

    @abstractmethod
    def fulltext_search(
        self,
        label: str,
        text: str,
        k: int,
        *,
        index: str | None = None,
        filters: Filters | None = None,
        text_only: bool = False,
    ) -> list[StoreHit]:
        """Keyword search over a fulltext index; `text` is user text (any characters), matched as OR of terms.

        Hits' props are every stored property but the vector; with `text_only`, only `id` and the indexed
        fields. Why: a keyword arm ranks dozens of candidates and keeps a few, and building and parsing every
        candidate's full property map cost more than the search itself (hybrid search reads the rest for the
        hits it keeps)."""

    def fulltext_rescore(
        self,
        label: str,
        text: str,
        hits: Sequence[StoreHit],
        *,
        index: str | None = None,
        filters: Filters | None = None,
    ) -> list[StoreHit]:
        """The keyword hits `fulltext_search` restricted to these nodes' ids would return, best first.

        `hits` come from another search under the same `filters`, with every property but the vector (a vector
        arm's hits), so BM25 scores them from their own properties against the index's corpus statistics,
        without a round trip for the hits themselves.
        """
        words = terms(text)
        unique = list({h.id: h for h in hits}.values())
        if not words or not unique:
            return []
        fields, corpus = self._bm25_basis(label, index, words)
        rows = [{"id": h.id, "props": h.props, "terms": h.terms} for h in unique]
        return bm25.ranked(rows, fields, words, corpus, len(rows))

    def holds(
        self, label: str, words: Sequence[str], *, index: str | None = None, filters: Filters | None = None
    ) -> dict[str, bool]:
        """Whether any `label` node under `filters` matches each word in the fulltext index (its analyser's
        stemming: "physicists" finds "physicist"). One bounded read per word.

        Why a question of its own: whether the documents mention a word at all is not which passages rank best
        for it ("What does Bill Gates think about Bitcoin?": no passage says Bitcoin). Under the caller's filters
        (its project), never over the whole label: another project's documents are not the caller's to probe.
        """
        count = bm25.match_counter(self, *self._keyword_procedure(label, index), filters=filters)
        return {word: count(word, 1) > 0 for word in words}

    @abstractmethod
    def _keyword_procedure(self, label: str, index: str | None) -> tuple[str, str, Callable[[str], str]]:
        """How this backend's keyword index is called: the procedure, its index argument for `label`, and the
        function writing a word in the procedure's query language."""

    @abstractmethod
    def _bm25_basis(self, label: str, index: str | None, words: Sequence[str]) -> tuple[list[str], bm25.Corpus]:
        """The fulltext index's fields over `label` and its corpus statistics for `words` (BM25's inputs)."""

    def hybrid_arms(
        self,
        label: str,
        vector: Sequence[float],
        text: str,
        fetch: int,
        *,
        index: str,
        filters: Filters | None = None,
        props: Sequence[str] = (),
    ) -> Arms | None:
        """Both arms of a hybrid search, each completed with the other's candidates, in one round trip.

        What `vector_search(label, vector, fetch, filters=...)` and `fulltext_search(label, text, fetch, ...)` find,
        the vector arm then extended by the exact cosine of the keyword-only hits that have a vector, and the
        keyword arm by `fulltext_rescore` of the vector-only hits; each best first, each hit with the indexed
        properties (BM25's input) and `props` (what the caller shows of a hit) only: never the rest.
        None when the adapter has no such statement (`hybrid_arms_together` of this search alone is None): the
        caller then runs the steps one by one.
        """
        found = self.hybrid_arms_together(vector, text, [HybridSearch(label, index, fetch, filters, props)])
        return found[0] if found else None

    def hybrid_arms_together(
        self, vector: Sequence[float], text: str, searches: Sequence[HybridSearch]
    ) -> list[Arms | None] | None:
        """`hybrid_arms` of several searches for one query (one vector, one text) in one round trip, in order;
        an item is None where that search's filter left its vector arm short (its caller then runs its steps).

        Why: a ranking searches chunks and entities for the same question; one statement for both saves a round
        trip on its path. None when the adapter has no such statement (`hybrid_arms_then`)."""
        found = self.hybrid_arms_then(vector, text, searches, None)
        return found.arms if found else None

    def hybrid_arms_then(
        self, vector: Sequence[float], text: str, searches: Sequence[HybridSearch], then: ThenRead | None
    ) -> Folded | None:
        """`hybrid_arms_together`'s statement (its arms in `Folded.arms`); with `then`, ranked on the server as well
        (linear fusion of the same arms) and continued there by `then` from that ranking: one statement. The
        server's ranking is its own (floats summed in another order, ties broken otherwise): a caller uses the
        continuation only where its own ranking agrees.

        Why: a ranking's next read (the bridge's spread) depends on the first only through its best hits; reading
        it in the same statement saves a round trip. None (this default) when the adapter has no such statement,
        or with `then` when it cannot rank these searches itself (it then has sent nothing)."""
        return None

    def exact_part(
        self,
        label: str,
        ids: str,
        *,
        index: str | None,
        filters: Filters | None,
        props: Sequence[str],
        words: Sequence[str] = (),
    ) -> ExactPart | None:
        """A subquery another read may end with: for the list variable `ids` of `label` node ids and the query
        vector `$q`, the column `exact` holding what `exact_vector_search(label, $q, len(ids), filters=...)` finds,
        each hit with the indexed properties of `index` and `props` only (and, where the store keeps them, its term
        counts of `words`: `StoreHit.terms`); with its parameters and the decoder of `exact` into hits. Why: a
        statement that chooses nodes (the bridge's spread) then scores them too, without a round trip. None (this
        default) where a read cannot compute cosines: the caller reads them itself."""
        return None

    def properties(self, label: str, ids: Sequence[str]) -> dict[str, Row]:
        """Every property but the vector of the `label` nodes with these ids, by id (absent ids are left out)."""
        if not ids:
            return {}
        prop = ident(self.settings.embedding_property)
        rows = self.read(
            f"MATCH (n:{ident(label)}) WHERE n.id IN $ids "
            f"RETURN n.id AS id, n {{.*, {prop}: null, {ident(bm25.TERMS)}: null}} AS props",
            {"ids": list(ids)},
        )
        return {str(r["id"]): {k: v for k, v in r["props"].items() if v is not None} for r in rows}

    # --- schema -----------------------------------------------------------------------------
    @abstractmethod
    def ensure_vector_index(self, name: str, label: str, prop: str, dim: int) -> None:
        """Create the cosine vector index if missing and wait until it can serve queries."""

    @abstractmethod
    def ensure_fulltext_index(self, name: str, label: str, props: Sequence[str]) -> None:
        """Create the fulltext index if missing and wait until it can serve queries."""

    @abstractmethod
    def ensure_range_index(self, label: str, prop: str) -> None:
        """Create a lookup index on `label.prop` if missing (ids, projectId)."""

    @abstractmethod
    def index_states(self) -> list[IndexState]:
        """Every index with its state and, for vector indexes, its dimension."""

    def ensure_schema(self, dim: int) -> None:
        """Create every index Settings names for the graph model (idempotent)."""
        s = self.settings
        for label in (s.document_label, s.chunk_label, s.entity_label, s.community_label, s.project_label):
            self.ensure_range_index(label, "id")
        self.ensure_vector_index(s.chunk_vector_index, s.chunk_label, s.embedding_property, dim)
        self.ensure_vector_index(s.entity_vector_index, s.entity_label, s.embedding_property, dim)
        self.ensure_vector_index(s.community_vector_index, s.community_label, s.embedding_property, dim)
        if s.chunk_fulltext_index:
            self.ensure_fulltext_index(s.chunk_fulltext_index, s.chunk_label, [s.text_property])
        if s.entity_fulltext_index:
            self.ensure_fulltext_index(s.entity_fulltext_index, s.entity_label, [s.entity_name_property, "description"])

    def rebuild_vector_indexes(self, written: Mapping[str, int]) -> list[str]:
        """Rebuild the vector indexes of labels a bulk write filled (`written`: vectors written per label);
        returns the names rebuilt.

        This default rebuilds none: the embedded store's HNSW index is one structure that grows in place, where
        Neo4j's is one Lucene segment per write (`neo4j_rebuild`)."""
        return []

    def vector_dimension(self, label: str, prop: str | None = None) -> int | None:
        """Dimension of the vector index on `label.prop`, or None when there is none."""
        prop = prop or self.settings.embedding_property
        for state in self.index_states():
            if state.kind == "vector" and state.label == label and prop in state.properties:
                return state.dimension
        return None

    # --- health -----------------------------------------------------------------------------
    def counts(self, labels: Iterable[str] | None = None) -> dict[str, int]:
        s = self.settings
        wanted = list(labels or (s.document_label, s.chunk_label, s.entity_label, s.community_label, s.memory_label))
        out: dict[str, int] = {}
        for label in wanted:
            rows = self.read(f"MATCH (n:{ident(label)}) RETURN count(n) AS c")
            out[label] = int(rows[0]["c"]) if rows else 0
        return out

    def health(self) -> Health:
        return Health(self.backend, self.uri, True, self.counts(), self.index_states())

    def adopt_indexes(self, settings: Settings) -> Settings:
        """`settings` with the indexes of a graph another tool built, found by their names (`store/discovery.py`);
        the store then counts and reads under them too, and its health says which it chose.

        This default changes nothing: an embedded graph is DriftLens's own, and its indexes carry no names to find.
        """
        return settings

    def reconnect(self) -> None:
        """Reach the database again after StoreUnavailable; raises StoreUnavailable while it is still down.

        This default suits a driver that reconnects by itself: one trivial read says whether it is back. An
        adapter that runs its own server (the embedded one) overrides it to start the server again.
        """
        self.read("RETURN 1 AS ok")

    @abstractmethod
    def clear(self) -> None:
        """Delete every node, relationship and index (tests and scratch graphs only)."""

    @abstractmethod
    def close(self) -> None:
        """Release connections; an embedded server is saved and stopped by its last client."""

    def __enter__(self) -> GraphStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_vectors(graph: GraphStore, settings: Settings) -> VectorStore:
    """The vector store `settings.vector_store` names, over `graph` (Qdrant's client loads only when chosen)."""
    if settings.vector_store == "qdrant":
        from retrieval.store.qdrant import QdrantVectors

        return QdrantVectors(graph, settings)
    return GraphVectors(graph, settings)
