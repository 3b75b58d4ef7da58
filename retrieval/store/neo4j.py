"""Neo4j 5 adapter through the official driver: where most users keep their graphs.

Why `execute_query` for writes: it manages sessions and retries transient errors. Every read runs as one
auto-commit statement in a READ session (`neo4j_reads`: one round trip, retried as `execute_query` retries) with a
server-side timeout, after EXPLAIN's plan was admitted by `read_admission` (only reads of this database:
no administration command, LOAD CSV, write, unlisted procedure or plugin function; `neo4j_admission`), so a refused
statement never runs, and a write is refused again by the server's read access mode. Statements from people and
models (the explorer, the agent, MCP) also get a deadline DriftLens enforces (`deadline`): past it, their
transaction is terminated and the caller set free (`neo4j_untrusted`).
Vector indexes are created without quantisation (scores then match exact cosine) and queried for at least
`neo4j_vector_min_k` candidates (60): Lucene's HNSW search explores as many candidates as it is asked for, and
costs in proportion; 60 keeps every R@k of both dev sets and recall@10 0.993 at 100k in an index of one segment
(docs/benchmarks.md, issue #26).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import neo4j
from neo4j import GraphDatabase, RoutingControl
from neo4j.exceptions import AuthError, ClientError, DriverError, Neo4jError, ServiceUnavailable, SessionExpired

from retrieval.config import Settings
from retrieval.errors import IndexMissing, QueryError, StoreUnavailable
from retrieval.store import bm25, doc_freq, neo4j_fold, neo4j_hybrid, neo4j_rebuild, neo4j_schema, neo4j_untrusted
from retrieval.store.base import ExactPart, GraphStore, Health, IndexState, timed_out
from retrieval.store.deadline import GRACE_S, Deadline
from retrieval.store.discovery import Discovery, discover
from retrieval.store.neo4j_admission import ReadGate
from retrieval.store.neo4j_params import quiet
from retrieval.store.neo4j_reads import auto_commit
from retrieval.store.neo4j_results import connection_error, query_error, rows
from retrieval.store.records import (
    Filters,
    Folded,
    HybridSearch,
    Row,
    StoreHit,
    ThenRead,
    embedded_nodes,
    filter_clause,
    ident,
    packed,
    unpacked,
)
from retrieval.store.text_query import lucene_query, terms

INDEX_WAIT_S = 300
#: How long the driver keeps retrying a query that met a transient error or a lost connection: long enough to ride
#: out a leader switch, short enough that a server that is down fails the page (and its banner shows) quickly.
RETRY_S = 3.0
CONNECT_TIMEOUT_S = 5.0
#: Fulltext candidates Lucene ranks before BM25 re-scores them (at least 4 k) in `fulltext_search`.
BM25_POOL = 200
#: The hybrid statement's Lucene pool, as a share of the candidates each arm keeps (`fetch`: top-k, at least 20):
#: 10 for a top 20 (30 while each arm kept 3 x top-k). Why: each pool candidate the vector arm lacks costs the
#: server its exact cosine (its vector read) and the reply its text, the largest part of the statement past the
#: peers' own; BM25 still scores every vector candidate, so a pool cut only drops keyword-only candidates Lucene
#: ranks low. Pools of 240, 60, 40, 30, 20 and 15 gave the same R@2/5/10 and all-gold@10 on MuSiQue (tuning),
#: and 60, 30 and 20 on HotpotQA (held out): see docs/benchmarks.md, "The hybrid search's own time".
HYBRID_POOL = 0.5
#: Appended to a `{.*, ...}` projection: a node's stored BM25 profile (`bm25.TERMS`, a chunk's ~2-3 kB) is for the
#: server's lookups (`neo4j_terms`), not for the reply.
_NO_TERMS = f", {ident(bm25.TERMS)}: null"
#: Neo4j's words for an index a query names that does not exist (any more).
_GONE_INDEX = re.compile(r"There is no such (?P<kind>vector|fulltext) schema index:? ?'?(?P<name>[\w.-]*)")
_UNREACHABLE = (ServiceUnavailable, SessionExpired, DriverError, OSError)


class Neo4jStore(GraphStore):
    backend = "neo4j"
    parallel_reads = True  # each pooled connection has its own server thread
    stores_term_counts = True  # the hybrid statement and the spread's exact part read them (`neo4j_terms`)

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        if not settings.neo4j_uri:
            raise StoreUnavailable("(unset)", "Set NEO4J_URI to use Neo4j.")
        self._uri = settings.neo4j_uri
        self._index_cache: list[IndexState] | None = None
        self._corpus_cache: dict[tuple[str, str], bm25.LabelStats] = {}  # (label, index)
        self._keeps_all: dict[tuple[str, str], bool] = {}  # (label, filters): every node of the label passes
        self._gate = ReadGate(self._show)  # EXPLAIN's plan admitted once per query text
        self._deadline = Deadline()
        self._discovery = Discovery()  # nothing chosen by name until an Engine adopts the graph's indexes
        password = settings.neo4j_password.get_secret_value() if settings.neo4j_password else ""
        try:
            self._driver = GraphDatabase.driver(
                self._uri,
                auth=(settings.neo4j_username, password),
                notifications_min_severity="OFF",  # deprecation notes on user Cypher belong to no log
                connection_timeout=CONNECT_TIMEOUT_S,
                max_transaction_retry_time=RETRY_S,
            )
        except ValueError as exc:
            raise StoreUnavailable(self.uri, "NEO4J_URI is not a Neo4j address (bolt://, neo4j://).", exc) from exc
        try:
            self._driver.verify_connectivity()  # one attempt: a server that is down fails the open at once
            self._driver.execute_query("RETURN 1", routing_=RoutingControl.READ, database_=self._database)
        except (AuthError, ClientError, *_UNREACHABLE) as exc:
            self._driver.close()
            raise connection_error(self.uri, settings, exc) from exc

    @property
    def uri(self) -> str:
        return f"{self._uri} (database {self.settings.neo4j_database})"

    @property
    def _database(self) -> str:
        return self.settings.neo4j_database

    def close(self) -> None:
        self._driver.close()

    def delete_data(self) -> None:
        """Every node and relationship, in batches; the indexes and constraints stay (and Neo4j's plan cache)."""
        while self.query("MATCH (n) WITH n LIMIT 10000 DETACH DELETE n RETURN count(*) AS c")[0]["c"]:
            pass

    def clear(self) -> None:
        self.delete_data()
        for row in self._show("SHOW CONSTRAINTS YIELD name RETURN name"):
            self.query(f"DROP CONSTRAINT {ident(str(row['name']))} IF EXISTS")
        for row in self._show("SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP' RETURN name"):
            self.query(f"DROP INDEX {ident(str(row['name']))} IF EXISTS")
        self._index_cache = None

    # --- queries ----------------------------------------------------------------------------
    def _vector_literal(self, expr: str) -> str:
        return expr  # Neo4j indexes a LIST<FLOAT> property as it is

    def query(self, cypher: str, params: Mapping[str, Any] | None = None, *, writes: str | None = None) -> list[Row]:
        for key in [key for key in self._corpus_cache if writes is None or key[0] == writes]:
            del self._corpus_cache[key]  # a write may change document counts and lengths
        self._keeps_all.clear()  # ... and which nodes a filter keeps
        return self._execute(cypher, params, RoutingControl.WRITE, None)

    def read(self, cypher: str, params: Mapping[str, Any] | None = None, *, timeout_ms: int | None = None) -> list[Row]:
        """Refused unless EXPLAIN says it only reads; then run in a READ transaction, at most query_timeout_ms."""
        timeout = self._classify(cypher, params, timeout_ms)
        return self._execute(cypher, params, RoutingControl.READ, timeout)

    def read_limited(self, cypher: str, limit: int, *, timeout_ms: int | None = None) -> list[Row]:
        """Streams the first `limit` rows, then ends the transaction (`neo4j_untrusted`: not the default's
        subquery, which Neo4j refuses for unaliased items). Past its timeout and `deadline.GRACE_S`, the statement's
        transaction is terminated and the caller set free."""
        timeout = self._classify(cypher, None, timeout_ms)
        tag = uuid.uuid4().hex

        def fetch() -> list[Row]:
            try:
                found = neo4j_untrusted.first_rows(
                    self._driver, self._database, cypher, limit, timeout_ms=timeout, tag=tag
                )
            except (AuthError, *_UNREACHABLE) as exc:
                raise connection_error(self.uri, self.settings, exc) from exc
            except Neo4jError as exc:
                raise query_error(exc, self.settings, timeout) from exc
            return rows(found)

        def stop() -> str:
            neo4j_untrusted.terminate(self._driver, self._database, tag)
            return timed_out(self.settings, timeout, "DriftLens terminated its transaction")

        return self._deadline.run(fetch, timeout / 1000 + GRACE_S, stop)

    def _classify(self, cypher: str, params: Mapping[str, Any] | None, timeout_ms: int | None) -> int:
        """Refuse anything whose plan is not a pure read of this database (`neo4j_admission`); returns the timeout
        (ms) the read gets."""
        limit = self.settings.query_timeout_ms
        timeout = min(timeout_ms or limit, limit)
        self._gate.admit(
            cypher, self._database, lambda: self._run("EXPLAIN " + cypher, params, RoutingControl.READ, timeout).summary
        )
        return timeout

    def _execute(
        self, cypher: str, params: Mapping[str, Any] | None, routing: RoutingControl, timeout_ms: int | None
    ) -> list[Row]:
        return rows(self._run(cypher, params, routing, timeout_ms).records)

    def _run(
        self, cypher: str, params: Mapping[str, Any] | None, routing: RoutingControl, timeout_ms: int | None
    ) -> neo4j.EagerResult:
        text = neo4j.Query(cypher, timeout=timeout_ms / 1000) if timeout_ms else neo4j.Query(cypher)  # type: ignore[arg-type]
        try:
            if routing == RoutingControl.READ:
                return auto_commit(self._driver, self._database, text, quiet(params))
            return self._driver.execute_query(text, quiet(params), routing_=routing, database_=self._database)
        except (AuthError, *_UNREACHABLE) as exc:
            raise connection_error(self.uri, self.settings, exc) from exc
        except ClientError as exc:
            if exc.code and exc.code.endswith("DatabaseNotFound"):
                raise connection_error(self.uri, self.settings, exc) from exc
            if gone := _GONE_INDEX.search(exc.message or ""):
                # Dropped since its name was cached (another process emptied the graph): look it up afresh next time.
                self._index_cache = None
                hint = neo4j_schema.create_hint(gone["kind"])
                raise IndexMissing(f"{gone['kind']} index {gone['name']}", hint) from exc
            raise query_error(exc, self.settings, timeout_ms) from exc
        except Neo4jError as exc:
            raise query_error(exc, self.settings, timeout_ms) from exc

    def _show(self, cypher: str) -> list[Row]:
        """SHOW commands cannot be EXPLAINed (they never write); a READ transaction with the read timeout."""
        return self._execute(cypher, None, RoutingControl.READ, self.settings.query_timeout_ms)

    # --- search -----------------------------------------------------------------------------
    def _index_name(self, kind: str, label: str, prop: str | None) -> str:
        def find(states: list[IndexState]) -> str | None:
            for state in states:
                if state.kind == kind and state.label == label and (prop is None or prop in state.properties):
                    return state.name
            return None

        name = find(self._index_cache) if self._index_cache is not None else None
        if name is None:
            self._index_cache = self.index_states()  # another process may have built it since
            name = find(self._index_cache)
        if name is None:
            where = f"{label}.{prop}" if prop else label
            raise IndexMissing(f"{kind} index on {where}", neo4j_schema.create_hint(kind))
        return name

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
        """One row of packed candidates (`records.packed`): the driver's cost per record was a tenth of a vector-only
        search on Neo4j (60 records)."""
        params = dict(params or {})
        limit = int(params.pop("limit", fetch))
        projection = ", ".join(f".{ident(p)}" for p in props) if props else f".*, {ident(prop)}: null{_NO_TERMS}"
        reply = self.read(
            "CALL db.index.vector.queryNodes($index, $fetch, $q) YIELD node, score "
            + (f"WHERE {where} " if where else "")
            + "WITH node, score ORDER BY score DESC LIMIT $limit "
            + packed(["node.id", "score", f"node {{{projection}}}"]),
            {
                **params,
                "index": self._index_name("vector", label, prop),
                "fetch": max(int(fetch), self.settings.neo4j_vector_min_k),
                "limit": min(limit, int(fetch)),
                "q": [float(x) for x in vector],
            },
        )
        # Neo4j's cosine score is (1 + cos) / 2; report plain cosine like the embedded store does.
        found = unpacked(reply, ["id", "score", "props"])
        return [StoreHit(str(r["id"]), 2.0 * float(r["score"]) - 1.0, _without_none(r["props"])) for r in found]

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
        """Lucene finds the candidates (its OR-query ranks them well); BM25 scores them as the embedded store does."""
        words = terms(text)
        query = lucene_query(text)
        if not query or k < 1:
            return []
        name = index or self._index_name("fulltext", label, None)
        fields = self._fulltext_fields(name)
        where, params = filter_clause("node", filters)
        emb = ident(self.settings.embedding_property)
        projection = ", ".join(f".{ident(f)}" for f in ["id", *fields]) if text_only else f".*, {emb}: null{_NO_TERMS}"
        rows = self.read(
            "CALL db.index.fulltext.queryNodes($index, $q) YIELD node, score "
            + (f"WHERE {where} " if where else "")
            + "WITH node, score ORDER BY score DESC LIMIT $pool "
            + f"RETURN node.id AS id, node {{{projection}}} AS props",
            {"index": name, "q": query, "pool": max(BM25_POOL, 4 * int(k)), **params},
        )
        candidates = [{"id": r["id"], "props": _without_none(r["props"])} for r in rows]
        return bm25.ranked(candidates, fields, words, self._corpus(label, name, fields, words), k)

    def _fulltext_fields(self, name: str) -> list[str]:
        if self._index_cache is None:
            self._index_cache = self.index_states()
        return sorted({p for s in self._index_cache if s.name == name for p in s.properties})

    def _keyword_procedure(self, label: str, index: str | None) -> tuple[str, str, Callable[[str], str]]:
        return "db.index.fulltext.queryNodes", index or self._index_name("fulltext", label, None), lucene_query

    def _bm25_basis(self, label: str, index: str | None, words: Sequence[str]) -> tuple[list[str], bm25.Corpus]:
        name = index or self._index_name("fulltext", label, None)
        fields = self._fulltext_fields(name)
        return fields, self._corpus(label, name, fields, words)

    def hybrid_arms_then(
        self, vector: Sequence[float], text: str, searches: Sequence[HybridSearch], then: ThenRead | None
    ) -> Folded | None:
        """One statement (`neo4j_hybrid`) for every search; an arm is None when the filter left its vector arm
        short while the index holds more nodes than it was asked for (the caller's `vector_search` then
        over-fetches round by round); with `then`, ranked and continued on the server (`neo4j_fold`) where every
        search reads stored profiles. None when the text has no words."""
        if not searches or any(search.fetch < 1 for search in searches) or not lucene_query(text):
            return None
        words = terms(text)
        planned = [self._hybrid_plan(search, words) for search in searches]
        plans = [plan for plan, _ in planned]
        more: tuple[str, Row, list[str]] = ("", {}, [])
        if then is not None:
            if not neo4j_fold.applies(plans, then):
                return None
            more = neo4j_fold.statement(planned, words, then)
        cypher, filter_params = neo4j_hybrid.statement(plans, more[0], more[2])
        row = self.read(cypher, {**neo4j_hybrid.parameters(plans, vector, text, filter_params), **more[1]})[0]
        return neo4j_fold.folded(row, searches, planned, text, then)

    def _hybrid_plan(
        self, search: HybridSearch, words: Sequence[str]
    ) -> tuple[neo4j_hybrid.HybridPlan, bm25.LabelStats]:
        """What the statement needs for one search, and its label's statistics (read once until the next write)."""
        fields = self._fulltext_fields(search.index)
        stats = self._label_stats(search.label, search.index, fields)
        prop = self.settings.embedding_property
        plan = neo4j_hybrid.plan(
            search,
            words,
            stats=stats,
            fields=fields,
            whole=self._filter_keeps_all(search.label, search.filters),
            vector_index=self._index_name("vector", search.label, prop),
            prop=prop,
            fetch_limits=(self.settings.neo4j_vector_min_k, self.max_overfetch),
            pool_share=HYBRID_POOL,
            counted=self._counted(search.label, fields),
        )
        return plan, stats

    def exact_part(
        self,
        label: str,
        ids: str,
        *,
        index: str | None,
        filters: Filters | None,
        props: Sequence[str],
        words: Sequence[str] = (),
    ) -> ExactPart:
        """The server's cosine for each node (`neo4j_hybrid.exact_part`), with `index`'s properties and `props`, and
        its stored profile's counts of `words` where BM25 reads those (`_counted`)."""
        prop = self.settings.embedding_property
        fields = self._fulltext_fields(index) if index else []
        returned = list(dict.fromkeys([*fields, *props]))
        counted = list(words) if index and self._counted(label, fields) else []
        cypher, params = neo4j_hybrid.exact_part(label, prop, ids, filters, returned, counted=counted, fields=fields)
        return ExactPart(cypher, params, lambda exact: neo4j_hybrid.exact_hits(exact, returned, counted))

    def _counted(self, label: str, fields: Sequence[str]) -> bool:
        """Whether BM25 over `fields` of `label` may read the stored profiles: the indexer builds them from the
        fields `bm25.profiled_fields` names for the label, so only an index over those matches them."""
        return bm25.profiled_fields(self.settings).get(label) == list(fields)

    def _filter_keeps_all(self, label: str, filters: Filters | None) -> bool:
        """Whether every `label` node passes `filters` (one project in the graph, the usual case), read once per
        filter until the next write: then the indexes need not over-fetch for the filter (`vector_search` asks
        for k, `hybrid_arms` for its fetch), and Lucene may stop at the pool it is asked for instead of ranking
        every match."""
        if not filters:
            return True
        key = (label, repr(sorted(filters.items())))
        if key not in self._keeps_all:
            where, params = filter_clause("n", filters)
            row = self.read(
                f"MATCH (n:{ident(label)}) RETURN count(n) AS total, count(CASE WHEN {where} THEN 1 END) AS kept",
                params,
            )[0]
            self._keeps_all[key] = int(row["kept"]) == int(row["total"])
        return self._keeps_all[key]

    def exact_vector_search(
        self, label: str, vector: Sequence[float], k: int, *, prop: str | None = None, filters: Filters | None = None
    ) -> list[StoreHit]:
        """Cosine computed by the server (`vector.similarity.cosine`): only the top k's props travel, no vector."""
        prop = prop or self.settings.embedding_property
        if k < 1:
            return []
        match, params = embedded_nodes(label, prop, filters)
        emb = ident(prop)
        rows = self.read(
            f"{match} WITH n, vector.similarity.cosine(n.{emb}, $q) AS score ORDER BY score DESC LIMIT $k "
            f"RETURN n.id AS id, score, n {{.*, {emb}: null{_NO_TERMS}}} AS props",
            {**params, "q": [float(x) for x in vector], "k": int(k)},
        )
        # (1 + cos) / 2 like the vector index: plain cosine, as `_vector_candidates` reports it.
        return [StoreHit(str(r["id"]), 2.0 * float(r["score"]) - 1.0, _without_none(r["props"])) for r in rows]

    def _label_stats(self, label: str, index: str, fields: Sequence[str]) -> bm25.LabelStats:
        """The label's statistics, read once until the next write, with the index's document counts where they can
        be read (`doc_freq`): a new word is then counted by no fulltext call."""
        if (label, index) not in self._corpus_cache:
            stats = bm25.LabelStats.read(self, label, fields)
            counts = (
                doc_freq.read(self, self._show(doc_freq.SHOW_FULLTEXT), index, label, fields)
                if stats.size <= doc_freq.TABLE_MAX
                else None
            )
            self._corpus_cache[label, index] = replace(stats, known=counts.count) if counts is not None else stats
        return self._corpus_cache[label, index]

    def _corpus(self, label: str, index: str, fields: Sequence[str], words: Sequence[str]) -> bm25.Corpus:
        """Label size, mean length and document frequencies (Lucene match counts), cached until the next write.

        The words neither counted yet nor in the label's table (`doc_freq`) are counted in one round trip (a
        subquery per word), not one each."""
        stats = self._label_stats(label, index, fields)
        new = [w for w in stats.uncounted(words) if lucene_query(w)]
        counted: dict[str, int] = {}
        if new:
            found = self.read(
                "UNWIND $words AS w CALL { WITH w CALL db.index.fulltext.queryNodes($index, w.q, {limit: $cap}) "
                "YIELD node "
                "WITH node LIMIT $cap RETURN count(node) AS n } RETURN w.word AS word, n",
                {"index": index, "cap": stats.cap, "words": [{"word": w, "q": lucene_query(w)} for w in new]},
            )
            counted = {str(r["word"]): int(r["n"]) for r in found}
        return stats.corpus(words, lambda word, _cap: counted.get(word, 0))

    # --- schema -----------------------------------------------------------------------------
    def ensure_vector_index(self, name: str, label: str, prop: str, dim: int) -> None:
        s = self.settings
        self.query(*neo4j_schema.vector_index(name, label, prop, dim, hnsw=(s.hnsw_m, s.hnsw_ef_construction)))
        self._await_indexes()

    def rebuild_vector_indexes(self, written: Mapping[str, int]) -> list[str]:
        """DROP + CREATE the vector indexes a bulk write filled (`neo4j_rebuild`): populated in one pass from the
        store, an index is a few Lucene segments instead of one per write transaction, and queries cost a tenth."""
        written = {label: n for label, n in written.items() if n >= neo4j_rebuild.MIN_VECTORS}
        if not written:
            return []  # a small run, as most are: no index listing nor label counts to read
        indexes = self._show(neo4j_rebuild.SHOW_VECTOR_INDEXES)
        totals = self.counts(list(written))
        chosen = neo4j_rebuild.chosen(indexes, self.settings.embedding_property, written, totals)
        for index in chosen:
            drop, create, params = neo4j_rebuild.statements(index)
            self.query(drop)
            self.query(create, params)
        if chosen:
            self._await_indexes()  # populated side by side; searches name them again once they are online
        return [str(index["name"]) for index in chosen]

    def ensure_fulltext_index(self, name: str, label: str, props: Sequence[str]) -> None:
        self.query(neo4j_schema.fulltext_index(name, label, props))
        self._await_indexes()

    def ensure_range_index(self, label: str, prop: str) -> None:
        self.query(neo4j_schema.range_index(label, prop))
        self._await_indexes()

    def _await_indexes(self) -> None:
        """Block until every index is online (Neo4j populates new indexes in the background)."""
        self._index_cache = None
        try:
            self._driver.execute_query(
                "CALL db.awaitIndexes($s)", {"s": INDEX_WAIT_S}, routing_=RoutingControl.READ, database_=self._database
            )
        except Neo4jError as exc:
            raise QueryError(f"Indexes did not come online within {INDEX_WAIT_S} s: {exc.message}") from exc
        except _UNREACHABLE as exc:
            raise connection_error(self.uri, self.settings, exc) from exc

    def adopt_indexes(self, settings: Settings) -> Settings:
        self._discovery = discover(settings, self.index_states())
        self.settings = self._discovery.adopt(self.settings)
        return self._discovery.adopt(settings)

    def health(self) -> Health:
        self._reachable()
        found = super().health()
        return replace(found, message=self._discovery.describe()) if self._discovery.found else found

    def reconnect(self) -> None:
        self._reachable()

    def _reachable(self) -> None:
        """One connection attempt, without the transaction retries reads get: a server that is down says so at
        once. Through a retried read, `Engine.health` (a read, a reconnect, a read) took 14 s to report one."""
        try:
            self._driver.verify_connectivity()
        except (AuthError, *_UNREACHABLE) as exc:
            raise connection_error(self.uri, self.settings, exc) from exc

    def index_states(self) -> list[IndexState]:
        return [neo4j_schema.index_state(row) for row in self._show(neo4j_schema.SHOW_INDEXES)]


def _without_none(props: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in props.items() if v is not None}
