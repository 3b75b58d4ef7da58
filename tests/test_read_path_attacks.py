"""The read paths under attack: statements a hostile analyst or model would send, refused on both backends.

Every statement below goes through each read path a person or a model reaches: `store.read` (the Python API),
`run_cypher` (the explorer's Cypher box and the service's `read_cypher`) and the agent's `execute_cypher` tool. None
may be accepted; afterwards the graph must be exactly as it was and a listener on 127.0.0.1 must have received
nothing (LOAD CSV would have fetched it). The explorer's own examples and ordinary reads must still answer.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import neo4j
import pytest

from retrieval.context import Context
from retrieval.embed import Embedder
from retrieval.errors import DriftLensError, ReadOnlyViolation
from retrieval.models import QueryParams
from retrieval.modes.agent_tools import AgentTools
from retrieval.search.explore import example_cypher, run_cypher
from retrieval.store import GraphStore
from tests.conftest import SEARCH_PROJECT


class _Listener(BaseHTTPRequestHandler):
    hits: list[str] = []  # noqa: RUF012 - one listener per module, read by the tests

    def do_GET(self) -> None:
        type(self).hits.append(self.path)
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"a,b\n1,2\n")

    def log_message(self, *_args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def listener() -> Iterator[str]:
    """A web server on 127.0.0.1 that records every request: a LOAD CSV that got through would reach it."""
    _Listener.hits = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Listener)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _load_csv(url: str) -> list[str]:
    """LOAD CSV in every spelling seen to beat a text filter, for one URL."""
    u = f"'{url}'"
    return [
        f"LOAD CSV FROM {u} AS row RETURN row",
        f"load csv from {u} as row return row",
        f"LoAd CsV FROM {u} AS row RETURN row",
        f"LOAD/**/CSV FROM {u} AS row RETURN row",
        f"LOAD /* x */ CSV FROM {u} AS row RETURN row",
        f"LOAD // c\nCSV FROM {u} AS row RETURN row",
        f"LOAD\tCSV FROM {u} AS row RETURN row",
        f"LOAD\n\nCSV FROM {u} AS row RETURN row",
        f"LOAD CSV WITH HEADERS FROM {u} AS row RETURN row",
        f"LOAD CSV FROM {u} AS row FIELDTERMINATOR ';' RETURN row",
        f"CALL {{ LOAD CSV FROM {u} AS row RETURN row }} RETURN row",
        f"MATCH (n) WITH n LIMIT 1 LOAD CSV FROM {u} AS row RETURN row",
        f"RETURN [1] AS row UNION LOAD CSV FROM {u} AS row RETURN row",
        f"WITH {u} AS u LOAD CSV FROM u AS row RETURN row",
        f"UNWIND [{u}] AS u LOAD CSV FROM u AS row RETURN count(row) AS n",
        f"PROFILE LOAD CSV FROM {u} AS row RETURN row",
        f"EXPLAIN LOAD CSV FROM {u} AS row RETURN row",
        f"LOAD\u00a0CSV FROM {u} AS row RETURN row",
    ]


ADMINISTRATION = [
    "SHOW TRANSACTIONS",
    "SHOW TRANSACTIONS YIELD *",
    "SHOW TRANSACTIONS YIELD currentQuery, parameters",
    "SHOW TRANSACTION YIELD transactionId WHERE true RETURN transactionId",
    "show transactions yield currentQuery return currentQuery",
    "TERMINATE TRANSACTIONS 'neo4j-transaction-1'",
    "TERMINATE TRANSACTION 'neo4j-transaction-1'",
    "terminate transactions 'neo4j-transaction-1'",
    "SHOW TRANSACTIONS YIELD transactionId AS id TERMINATE TRANSACTIONS id",
    "TERMINATE/**/TRANSACTIONS 'neo4j-transaction-1'",
    "TERMINATE\u00a0TRANSACTIONS 'neo4j-transaction-1'",
    "SHOW USERS",
    "SHOW CURRENT USER",
    "SHOW ROLES",
    "SHOW PRIVILEGES",
    "SHOW DATABASES",
    "SHOW DATABASE neo4j",
    "SHOW DEFAULT DATABASE",
    "SHOW HOME DATABASE",
    "SHOW PROCEDURES",
    "SHOW FUNCTIONS",
    "SHOW SETTINGS",
    "SHOW SETTINGS YIELD name, value RETURN name, value",
    "SHOW INDEXES",
    "SHOW CONSTRAINTS",
    "SHOW SERVERS",
    "SHOW ALIASES FOR DATABASE",
    "CREATE USER mallory SET PASSWORD 'secret-secret' CHANGE NOT REQUIRED",
    "ALTER USER neo4j SET PASSWORD 'secret-secret'",
    "ALTER CURRENT USER SET PASSWORD FROM 'a' TO 'secret-secret'",
    "DROP USER neo4j",
    "CREATE DATABASE evil",
    "DROP DATABASE neo4j",
    "STOP DATABASE neo4j",
    "CREATE ROLE evil",
    "GRANT ROLE admin TO mallory",
    "CREATE INDEX evil FOR (n:Evil) ON (n.x)",
    "DROP INDEX evil",
    "CREATE CONSTRAINT evil FOR (n:Evil) REQUIRE n.x IS UNIQUE",
    "CREATE FULLTEXT INDEX evil FOR (n:Evil) ON EACH [n.x]",
    "CREATE VECTOR INDEX evil FOR (n:Evil) ON n.v OPTIONS {indexConfig: {`vector.dimensions`: 3}}",
    "CREATE INDEX ON :Evil(x)",
    "DROP INDEX ON :Chunk(id)",
]

PROCEDURES = [
    "CALL dbms.listConfig()",
    "CALL dbms.listConfig() YIELD name, value RETURN name, value",
    "CALL dbms.showCurrentUser()",
    "CALL dbms.components()",
    "CALL db.stats.retrieve('QUERIES')",
    "CALL db.stats.retrieve('GRAPH COUNTS')",
    "CALL db.stats.collect('QUERIES')",
    "CALL db.stats.clear('QUERIES')",
    "CALL dbms.setConfigValue('db.logs.query.enabled', 'OFF')",
    "CALL db.createLabel('Evil')",
    "CALL db.createProperty('evil')",
    "CALL db.createRelationshipType('EVIL')",
    "CALL db.clearQueryCaches()",
    "CALL db.checkpoint()",
    "CALL db.info()",
    "CALL dbms.info()",
    "CALL dbms.listConnections()",
    "CALL dbms.killConnection('bolt-1')",
    "CALL dbms.listCapabilities()",
    "CALL db.resampleOutdatedIndexes()",
    "CALL db.prepareForReplanning()",
    "CALL dbms.routing.getRoutingTable({})",
    "CALL tx.setMetaData({a: 1})",
    "CALL db.awaitIndexes(1)",
    "CALL db.index.fulltext.awaitEventuallyConsistentIndexRefresh()",
    "CALL db.idx.fulltext.createNodeIndex('Evil', 'name')",
    "CALL db.idx.fulltext.drop('Chunk')",
    "CALL `dbms`.`listConfig`()",
    "CALL `dbms.listConfig`()",
    "CALL dbms . listConfig ( )",
    "CALL dbms/* x */.listConfig()",
    "MATCH (n) WITH n LIMIT 1 CALL dbms.listConfig() YIELD name RETURN name",
    "CALL { CALL dbms.listConfig() YIELD name RETURN name } RETURN name",
    "RETURN 'x' AS name UNION CALL dbms.components() YIELD name RETURN name",
    "CALL dbms.listConfig\u200b()",
]

WRITES = [
    "CREATE (:Evil)",
    "CREATE (n:Evil) RETURN n",
    "MERGE (n:Evil {id: 'x'}) RETURN n",
    "MATCH (n) SET n.evil = 1",
    "MATCH (n) SET n.evil = 1 RETURN count(n) AS n",
    "MATCH (n) REMOVE n.id RETURN count(n) AS n",
    "MATCH (n) SET n:Evil RETURN n",
    "MATCH (n) DETACH DELETE n",
    "MATCH (n) DELETE n",
    "MATCH ()-[r]->() DELETE r",
    "MATCH (n) WITH n LIMIT 1 CREATE (n)-[:EVIL]->(:Evil) RETURN n",
    "FOREACH (x IN [1] | CREATE (:Evil))",
    "UNWIND [1, 2] AS x CREATE (:Evil {x: x}) RETURN x",
    "CALL { CREATE (n:Evil) RETURN n } RETURN n",
    "MATCH (n) CALL { WITH n SET n.evil = 1 } RETURN count(*) AS n",
    "MATCH (n) CALL { WITH n DETACH DELETE n } IN TRANSACTIONS RETURN 1 AS n",
    "RETURN 1 AS x UNION CREATE (n:Evil) RETURN 2 AS x",
    "OPTIONAL MATCH (n:Nope) MERGE (:Evil) RETURN 1 AS n",
    "/* read */ CREATE (:Evil)",
    "// read\nCREATE (:Evil)",
    "cReAtE (:Evil)",
    "MATCH (n) RETURN n; CREATE (:Evil)",
    "MATCH (n) RETURN n ; MATCH (m) DETACH DELETE m",
    "EXPLAIN CREATE (:Evil)",
    "PROFILE CREATE (:Evil)",
    "PROFILE MATCH (n) DETACH DELETE n",
    "WITH 1 AS x CREATE (:Evil)",
    "MATCH (n) WHERE n.id IS NOT NULL SET n += {evil: 1}",
    "MATCH (n) SET n = {}",
    "MERGE (a:Evil) ON CREATE SET a.x = 1 ON MATCH SET a.x = 2 RETURN a",
    "CREATE (a:Evil)-[:R]->(b:Evil) RETURN a, b",
    "MATCH (c:Chunk) WITH c LIMIT 1 SET c.text = 'defaced' RETURN c.id",
]

CROSS_DATABASE = [
    "USE system SHOW USERS",
    "USE system MATCH (n) RETURN n",
    "USE neo4j CREATE (:Evil)",
    "USE other MATCH (n) RETURN n",
    "CALL { USE system MATCH (n) RETURN n } RETURN n",
]

UNICODE = [
    "ＣＲＥＡＴＥ (:Evil)",
    "CREATE\u00a0(:Evil)",
    "CRE\u200bATE (:Evil)",
    "\u0421REATE (:Evil)",  # a Cyrillic С
    "M\u0410TCH (n) DETACH DELETE n",  # a Cyrillic А
    "MATCH (n) DETACH\u3000DELETE n",
    "MATCH (n) DETACH\u2003DELETE n",
    "CREATE (:`Evil\u202e`)",
]


def harmful(url: str) -> list[str]:
    return [
        *ADMINISTRATION,
        *PROCEDURES,
        *_load_csv(url),
        *_load_csv("file:///etc/passwd"),
        *WRITES,
        *CROSS_DATABASE,
        *UNICODE,
    ]


def legitimate(store: GraphStore, ctx: Context, vector: list[float]) -> list[str]:
    """Reads an analyst writes in the explorer: each must answer on both backends."""
    s = store.settings
    chunk = s.chunk_label
    reads = [
        example_cypher(ctx),
        "WITH 1 AS n RETURN n",
        "WITH 1 AS n\nRETURN n + 1 AS m",
        "RETURN 1 AS one",
        f"MATCH (c:{chunk}) RETURN c.id AS id ORDER BY id LIMIT 3",
        f"MATCH (c:{chunk}) RETURN count(c) AS n",
        f"MATCH (c:{chunk})-[:HAS_ENTITY]->(e) RETURN e.title AS title, count(c) AS n ORDER BY n DESC LIMIT 5",
        f"MATCH (c:{chunk}) WHERE c.text CONTAINS 'Curie' RETURN c.id AS id",
        f"MATCH (e:{s.entity_label}) OPTIONAL MATCH (e)-[:RELATED]->(f) RETURN e.id AS id, count(f) AS n LIMIT 5",
        f"MATCH p = (a:{s.entity_label})-[:RELATED*1..2]-(b) RETURN length(p) AS hops LIMIT 5",
        "UNWIND range(1, 5) AS x RETURN sum(x) AS total",
        f"MATCH (e:{s.entity_label}) WITH DISTINCT e.type AS type RETURN type ORDER BY type",
        f"CALL {{ MATCH (c:{chunk}) RETURN c.id AS id }} RETURN id ORDER BY id LIMIT 2",
        f"MATCH (c:{chunk}) RETURN c.id AS id UNION MATCH (e:{s.entity_label}) RETURN e.id AS id",
        "CALL db.labels() YIELD label RETURN label",
        "CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType",
        "CALL db.propertyKeys() YIELD propertyKey RETURN propertyKey",
        f"MATCH (k:{s.community_label}) RETURN k.title AS title ORDER BY k.level",
        "RETURN size(range(1, 10)) AS n",
        "MATCH (n)\nRETURN labels(n) AS labels, count(*) AS n",
    ]
    if store.backend == "neo4j":
        vector_index = next(i.name for i in store.index_states() if i.kind == "vector" and i.label == chunk)
        text_index = next(i.name for i in store.index_states() if i.kind == "fulltext" and i.label == chunk)
        reads += [
            f"CALL db.index.vector.queryNodes('{vector_index}', 3, {vector}) YIELD node, score RETURN node.id, score",
            f"CALL db.index.fulltext.queryNodes('{text_index}', 'Curie') YIELD node RETURN node.id AS id",
        ]
    else:
        reads += [
            f"CALL db.idx.vector.queryNodes('{chunk}', 'embedding', 3, vecf32({vector})) YIELD node RETURN node.id",
            f"CALL db.idx.fulltext.queryNodes('{chunk}', 'Curie') YIELD node RETURN node.id AS id",
            "CALL db.indexes() YIELD label RETURN label",
        ]
    return reads


def _fingerprint(store: GraphStore) -> dict[str, Any]:
    """What a write would change: counts, labels, properties, indexes."""
    return {
        "nodes": store.read("MATCH (n) RETURN count(n) AS n")[0]["n"],
        "relationships": store.read("MATCH ()-[r]->() RETURN count(r) AS n")[0]["n"],
        "labels": sorted(str(r["label"]) for r in store.read("CALL db.labels() YIELD label RETURN label")),
        "text": sorted(str(r["t"]) for r in store.read("MATCH (c:Chunk) RETURN c.text AS t")),
        "props": store.read("MATCH (n) UNWIND keys(n) AS k RETURN count(k) AS n")[0]["n"],
        "indexes": sorted((i.name, i.kind, i.label) for i in store.index_states()),
    }


@pytest.fixture
def ctx(search_store: GraphStore, embedder: Embedder) -> Context:
    return Context(search_store.settings, search_store, embedder, None, SEARCH_PROJECT)


def test_no_harmful_statement_is_accepted_on_any_read_path(
    search_store: GraphStore, ctx: Context, listener: str
) -> None:
    statements = harmful(listener)
    assert len(statements) >= 150
    before = _fingerprint(search_store)
    tools = AgentTools(ctx, QueryParams(), row_limit=20)
    accepted: list[str] = []
    for cypher in statements:
        for path, attempt in (
            ("store.read", lambda c=cypher: search_store.read(c)),
            ("run_cypher", lambda c=cypher: run_cypher(ctx, c)),
        ):
            try:
                attempt()
                accepted.append(f"{path}: {cypher!r}")
            except DriftLensError:
                pass
        if tools.call("execute_cypher", {"query": cypher, "reasoning": "attack"}).error is None:
            accepted.append(f"agent: {cypher!r}")
    assert not accepted, f"{len(accepted)} harmful statements accepted:\n" + "\n".join(accepted)
    assert _fingerprint(search_store) == before, "a read path changed the graph"
    assert _Listener.hits == [], f"a read path made the server fetch {_Listener.hits}"


@pytest.mark.parametrize(
    ("cypher", "named"),
    [
        ("LOAD/**/CSV FROM 'file:///etc/passwd' AS row RETURN row", "LOAD CSV"),
        ("LOAD // c\nCSV FROM 'file:///etc/passwd' AS row RETURN row", "LOAD CSV"),
        ("MATCH (n) CREATE (:Evil)", "writes"),
    ],
)
def test_refusals_name_what_was_refused(search_store: GraphStore, ctx: Context, cypher: str, named: str) -> None:
    with pytest.raises(ReadOnlyViolation, match=named):
        run_cypher(ctx, cypher)


def test_every_legitimate_read_still_answers(search_store: GraphStore, ctx: Context, embedder: Embedder) -> None:
    vector = [round(float(x), 6) for x in embedder.embed(["Curie"])[0]]
    failed = []
    for cypher in legitimate(search_store, ctx, vector):
        try:
            run_cypher(ctx, cypher)
            search_store.read(cypher)
        except DriftLensError as exc:
            failed.append(f"{cypher!r}: {exc}")
    assert not failed, "\n".join(failed)
    assert run_cypher(ctx, "WITH 1 AS n RETURN n").rows == [{"n": 1}]


def test_a_syntax_error_names_the_line_the_analyst_wrote(ctx: Context) -> None:
    with pytest.raises(DriftLensError) as info:
        run_cypher(ctx, "MATCH (n)\nRETURN n ORDR BY n.id")
    assert "line 2" in str(info.value).replace(":", ""), str(info.value)


@pytest.mark.embedded_only
def test_the_embedded_plan_gate_refuses_procedures_it_has_not_vetted(search_store: GraphStore, ctx: Context) -> None:
    """FalkorDB's plan does not name a call's procedure: calls pass only while the server offers none unvetted."""
    gate = search_store._plans  # type: ignore[attr-defined]
    assert gate.unvetted() == frozenset(), "this FalkorDB offers read procedures nobody has looked at"
    gate._unvetted = frozenset({"algo.newThing"})
    try:
        with pytest.raises(ReadOnlyViolation, match=r"algo\.newThing"):
            run_cypher(ctx, "CALL db.propertyKeys() YIELD propertyKey RETURN propertyKey AS k ORDER BY k LIMIT 1")
    finally:
        gate._unvetted = None


@pytest.mark.neo4j_only
def test_no_read_path_can_see_or_end_another_sessions_transaction(store: GraphStore, embedder: Embedder) -> None:
    """The attack that worked: TERMINATE TRANSACTIONS from the explorer rolled back another session's write."""
    settings = store.settings
    ctx = Context(settings, store, embedder, None, settings.project)
    password = settings.neo4j_password.get_secret_value() if settings.neo4j_password else ""
    with (
        neo4j.GraphDatabase.driver(str(settings.neo4j_uri), auth=(settings.neo4j_username, password)) as driver,
        driver.session(database=settings.neo4j_database) as victim,
    ):
        tx = victim.begin_transaction(metadata={"victim": True})
        tx.run("CREATE (:Victim {id: 'v'})").consume()
        found = driver.execute_query("SHOW TRANSACTIONS YIELD transactionId, metaData RETURN *").records
        victim_id = next(r["transactionId"] for r in found if r["metaData"].get("victim"))
        for cypher in (f"TERMINATE TRANSACTIONS '{victim_id}'", f"TERMINATE TRANSACTION '{victim_id}'"):
            with pytest.raises(ReadOnlyViolation, match="TerminateTransactions"):
                run_cypher(ctx, cypher)
            with pytest.raises(ReadOnlyViolation, match="TerminateTransactions"):
                store.read(cypher)
        with pytest.raises(ReadOnlyViolation, match="ShowTransactions"):
            run_cypher(ctx, "SHOW TRANSACTIONS YIELD currentQuery, parameters")
        tx.commit()
    assert store.read("MATCH (v:Victim) RETURN count(v) AS n")[0]["n"] == 1, "the other session's write was lost"
