"""Neo4j 5 adapter through the official driver: the production backend.

Why `execute_query`: it manages sessions, retries transient errors and routes reads to
followers in a cluster. Reads from users or models are classified with EXPLAIN first and then
run with READ routing, so a write is refused before it can run, and refused again by the server.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import neo4j
from neo4j import GraphDatabase, RoutingControl
from neo4j.exceptions import AuthError, ClientError, Neo4jError, ServiceUnavailable

from retrieval.config import Settings
from retrieval.errors import IndexMissing, QueryError, ReadOnlyViolation, StoreUnavailable
from retrieval.store.base import GraphStore, IndexState, Row, StoreHit, filter_clause, ident
from retrieval.store.text_query import lucene_query

INDEX_WAIT_S = 300
HINT = (
    "Check that Neo4j is running and reachable at that address, that NEO4J_USERNAME/NEO4J_PASSWORD are right, "
    "and that the database named in NEO4J_DATABASE exists."
)


class Neo4jStore(GraphStore):
    backend = "neo4j"

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        if not settings.neo4j_uri:
            raise StoreUnavailable("(unset)", "Set NEO4J_URI to use Neo4j.")
        self._uri = settings.neo4j_uri
        password = settings.neo4j_password.get_secret_value() if settings.neo4j_password else ""
        try:
            self._driver = GraphDatabase.driver(self._uri, auth=(settings.neo4j_username, password))
            self._driver.verify_connectivity()
        except (ServiceUnavailable, AuthError, ValueError, OSError) as exc:
            raise StoreUnavailable(self._uri, HINT, exc) from exc

    @property
    def uri(self) -> str:
        return f"{self._uri} (database {self.settings.neo4j_database})"

    def close(self) -> None:
        self._driver.close()

    def clear(self) -> None:
        while self.query("MATCH (n) WITH n LIMIT 10000 DETACH DELETE n RETURN count(*) AS c")[0]["c"]:
            pass
        for row in self.query("SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP' RETURN name"):
            self.query(f"DROP INDEX {ident(str(row['name']))} IF EXISTS")

    # --- queries ----------------------------------------------------------------------------
    def _vector_literal(self, expr: str) -> str:
        return expr

    def query(self, cypher: str, params: Mapping[str, Any] | None = None) -> list[Row]:
        return self._execute(cypher, params, RoutingControl.WRITE, None)

    def read(self, cypher: str, params: Mapping[str, Any] | None = None, *, timeout_ms: int | None = None) -> list[Row]:
        summary = self._driver.execute_query(
            "EXPLAIN " + cypher, dict(params or {}), routing_=RoutingControl.READ, database_=self._database
        ).summary
        if summary.query_type not in ("r", None):
            raise ReadOnlyViolation("This query writes to the graph; only read queries are allowed here.")
        return self._execute(cypher, params, RoutingControl.READ, timeout_ms)

    @property
    def _database(self) -> str:
        return self.settings.neo4j_database

    def _execute(
        self, cypher: str, params: Mapping[str, Any] | None, routing: RoutingControl, timeout_ms: int | None
    ) -> list[Row]:
        text: Any = neo4j.Query(cypher, timeout=timeout_ms / 1000) if timeout_ms else cypher  # type: ignore[arg-type]
        try:
            result = self._driver.execute_query(text, dict(params or {}), routing_=routing, database_=self._database)
        except ServiceUnavailable as exc:
            raise StoreUnavailable(self._uri, HINT, exc) from exc
        except ClientError as exc:
            if (exc.code and "ForbiddenDueToTransactionType" in exc.code) or "read access mode" in str(exc.message):
                raise ReadOnlyViolation("This query writes to the graph; only read queries are allowed here.") from exc
            raise QueryError(f"Query failed: {exc.message}") from exc
        except Neo4jError as exc:
            raise QueryError(f"Query failed: {exc.message}") from exc
        return [record.data() for record in result.records]

    # --- search -----------------------------------------------------------------------------
    def _index_name(self, kind: str, label: str, prop: str | None) -> str:
        for state in self.index_states():
            if state.kind == kind and state.label == label and (prop is None or prop in state.properties):
                return state.name
        raise IndexMissing(f"{kind} index on {label}" + (f".{prop}" if prop else ""))

    def _vector_candidates(
        self, label: str, prop: str, fetch: int, vector: Sequence[float], *, where: str = "", params: Row | None = None
    ) -> list[StoreHit]:
        params = dict(params or {})
        limit = int(params.pop("limit", fetch))
        rows = self.read(
            "CALL db.index.vector.queryNodes($index, $fetch, $q) YIELD node, score "
            + (f"WHERE {where} " if where else "")
            + "WITH node, score ORDER BY score DESC LIMIT $limit "
            + f"RETURN node.id AS id, score, node {{.*, {ident(prop)}: null}} AS props",
            {
                **params,
                "index": self._index_name("vector", label, prop),
                "fetch": int(fetch),
                "limit": limit,
                "q": [float(x) for x in vector],
            },
        )
        # Neo4j's cosine score is (1 + cos) / 2; report plain cosine like the embedded store does.
        return [StoreHit(str(r["id"]), 2.0 * float(r["score"]) - 1.0, _without_none(r["props"])) for r in rows]

    def fulltext_search(
        self, label: str, text: str, k: int, *, index: str | None = None, filters: Mapping[str, Any] | None = None
    ) -> list[StoreHit]:
        query = lucene_query(text)
        if not query or k < 1:
            return []
        name = index or self._index_name("fulltext", label, None)
        where, params = filter_clause("node", filters)
        emb = ident(self.settings.embedding_property)
        rows = self.read(
            "CALL db.index.fulltext.queryNodes($index, $q) YIELD node, score "
            + (f"WHERE {where} " if where else "")
            + f"RETURN node.id AS id, score, node {{.*, {emb}: null}} AS props ORDER BY score DESC LIMIT $k",
            {"index": name, "q": query, "k": int(k), **params},
        )
        return [StoreHit(str(r["id"]), float(r["score"]), _without_none(r["props"])) for r in rows]

    # --- schema -----------------------------------------------------------------------------
    def ensure_vector_index(self, name: str, label: str, prop: str, dim: int) -> None:
        self.query(
            f"CREATE VECTOR INDEX {ident(name)} IF NOT EXISTS FOR (n:{ident(label)}) ON n.{ident(prop)} "
            "OPTIONS {indexConfig: {`vector.dimensions`: $dim, `vector.similarity_function`: 'cosine'}}",
            {"dim": int(dim)},
        )
        self._wait_online(name)

    def ensure_fulltext_index(self, name: str, label: str, props: Sequence[str]) -> None:
        fields = ", ".join(f"n.{ident(p)}" for p in props)
        self.query(f"CREATE FULLTEXT INDEX {ident(name)} IF NOT EXISTS FOR (n:{ident(label)}) ON EACH [{fields}]")
        self._wait_online(name)

    def ensure_range_index(self, label: str, prop: str) -> None:
        self.query(f"CREATE INDEX IF NOT EXISTS FOR (n:{ident(label)}) ON (n.{ident(prop)})")

    def _wait_online(self, name: str) -> None:
        deadline = time.monotonic() + INDEX_WAIT_S
        while time.monotonic() < deadline:
            if any(s.name == name and s.state == "ONLINE" for s in self.index_states()):
                return
            time.sleep(0.2)
        raise QueryError(f"Index {name} did not come online within {INDEX_WAIT_S} s")

    def index_states(self) -> list[IndexState]:
        rows = self._execute(  # SHOW commands cannot be EXPLAINed; this one never writes
            "SHOW INDEXES YIELD name, type, labelsOrTypes, properties, state, options "
            "WHERE type IN ['VECTOR', 'FULLTEXT', 'RANGE'] RETURN *",
            None,
            RoutingControl.READ,
            None,
        )
        out = []
        for row in rows:
            config = (row.get("options") or {}).get("indexConfig") or {}
            dim = config.get("vector.dimensions")
            out.append(
                IndexState(
                    name=str(row["name"]),
                    kind=str(row["type"]).lower(),
                    label=str((row.get("labelsOrTypes") or [""])[0]),
                    properties=tuple(row.get("properties") or ()),
                    state=str(row["state"]),
                    dimension=int(dim) if dim is not None else None,
                )
            )
        return out


def _without_none(props: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in props.items() if v is not None}
