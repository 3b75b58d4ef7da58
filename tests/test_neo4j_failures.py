"""Neo4j's own failure modes, each one clear message that names what to change and never a secret.

Server down at start and mid-session (and `Engine.health()` recovering once it is back on the same port), wrong
password, unknown database, a missing index, a vector index of another dimension, a runaway read, and writes
through every read path. They run on the session's Neo4j (behind a forwarder for the restart test).
"""

from __future__ import annotations

import socket
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from retrieval.config import Settings
from retrieval.context import Context
from retrieval.embed import Embedder
from retrieval.engine import Engine
from retrieval.errors import EmbeddingMismatch, IndexMissing, QueryError, ReadOnlyViolation, StoreUnavailable
from retrieval.models import QueryParams
from retrieval.search.explore import run_cypher
from retrieval.search.hybrid import search_chunks
from retrieval.store import GraphStore, open_store
from tests.backends import SESSION
from tests.conftest import make_settings
from tests.tcp_forward import forwarding

pytestmark = [pytest.mark.neo4j_only, pytest.mark.usefixtures("backend")]


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _password(settings: Settings) -> str:
    return settings.neo4j_password.get_secret_value() if settings.neo4j_password else ""


def test_server_down_at_start_names_the_uri_and_what_to_check(settings: Settings) -> None:
    uri = f"bolt://127.0.0.1:{_closed_port()}"
    with pytest.raises(StoreUnavailable) as caught:
        open_store(make_settings(settings.data_dir, "neo4j", neo4j_uri=uri))
    message = str(caught.value)
    assert uri in message and "NEO4J_URI" in message and _password(settings) not in message


def test_wrong_password_is_one_line_without_the_password(settings: Settings) -> None:
    wrong = "definitely-not-the-password-9431"
    with pytest.raises(StoreUnavailable) as caught:
        open_store(make_settings(settings.data_dir, "neo4j", neo4j_password=wrong))
    message = str(caught.value)
    assert "refused the credentials of user 'neo4j'" in message and "NEO4J_PASSWORD" in message
    assert wrong not in message and _password(settings) not in message


def test_unknown_database_names_it_and_the_setting(settings: Settings) -> None:
    with pytest.raises(StoreUnavailable, match=r"no database 'research'.*NEO4J_DATABASE"):
        open_store(make_settings(settings.data_dir, "neo4j", neo4j_database="research"))


@pytest.mark.fresh_schema  # about indexes: none may be left from another module's graph
def test_missing_index_says_which_and_how_to_create_it(store: GraphStore, embedder: Embedder) -> None:
    s = store.settings
    store.query(f"CREATE (:`{s.chunk_label}` {{id: 'x', text: 'hello world', projectId: 'demo'}})")
    ctx = Context(s, store, embedder, None, "demo")
    with pytest.raises(IndexMissing) as caught:
        search_chunks(ctx, "hello", QueryParams.from_settings(s))
    message = str(caught.value)
    assert f"index on {s.chunk_label}" in message and "CREATE VECTOR INDEX" in message
    assert "python -m retrieval index" in message


@pytest.mark.fresh_schema  # about indexes: none may be left from another module's graph
def test_vector_index_of_another_dimension_is_refused_at_start(store: GraphStore, embedder: Embedder) -> None:
    s = store.settings
    store.ensure_vector_index(s.chunk_vector_index, s.chunk_label, s.embedding_property, 1536)
    store.query(f"CREATE (:`{s.chunk_label}` {{id: 'x', text: 'hello', projectId: 'demo'}})")
    with pytest.raises(EmbeddingMismatch, match=rf"index {s.chunk_vector_index}.*1536-d.*{embedder.dim}-d"):
        Engine(s, store=store, embedder=embedder, llm=None)


def test_runaway_read_stops_at_the_transaction_timeout(tmp_path: Path, settings: Settings) -> None:
    runaway = "UNWIND range(1, 2000000000) AS x WITH x WHERE x % 7919 = -1 RETURN count(x) AS n"
    with open_store(make_settings(tmp_path, "neo4j", query_timeout_ms=800)) as store:
        with pytest.raises(QueryError, match="stopped after 800 ms"):
            store.read(runaway)
        with pytest.raises(QueryError, match="stopped after 300 ms"):
            store.read(runaway, timeout_ms=300)  # a caller's tighter limit wins, a looser one never does
        assert store.read("RETURN 1 AS ok") == [{"ok": 1}]  # the server is free again


def test_user_cypher_stops_after_ten_seconds_by_default(store: GraphStore, embedder: Embedder) -> None:
    """run_cypher (the explorer's box, the agent's tool) gives the transaction 10 s, under the 30 s read limit."""
    ctx = Context(store.settings, store, embedder, None, "demo")
    with pytest.raises(QueryError, match="stopped after 10000 ms"):
        run_cypher(ctx, "UNWIND range(1, 2000000000) AS x WITH x WHERE x % 7919 = -1 RETURN count(x) AS n")


WRITES = [
    "CREATE (n:Probe) RETURN n",
    "MERGE (n:Probe {id: 1}) RETURN n",
    "MATCH (n:Seed) SET n.touched = true RETURN n",
    "MATCH (n:Seed) DETACH DELETE n",
    "MATCH (n:Seed) REMOVE n.id RETURN n",
    "CALL { CREATE (n:Probe) } RETURN 1",
    "MATCH (n:Seed) CALL { WITH n CREATE (:Probe) } RETURN n",
    "CREATE INDEX probe_id IF NOT EXISTS FOR (n:Probe) ON (n.id)",
    "LOAD CSV FROM 'http://127.0.0.1:9/x.csv' AS line RETURN line",
    "match (n:Seed) /* a comment */ set n.x = 1",
]


@pytest.mark.parametrize("cypher", WRITES)
def test_writes_are_refused_through_every_read_path(store: GraphStore, embedder: Embedder, cypher: str) -> None:
    store.query("CREATE (:Seed {id: 1})")
    ctx = Context(store.settings, store, embedder, None, "demo")
    with pytest.raises(ReadOnlyViolation):
        store.read(cypher)
    with pytest.raises(ReadOnlyViolation):
        run_cypher(ctx, cypher)
    assert store.read("MATCH (n:Probe) RETURN count(n) AS n") == [{"n": 0}]
    assert store.read("MATCH (n:Seed) RETURN n.id AS id, n.touched AS t, n.x AS x") == [{"id": 1, "t": None, "x": None}]
    assert not [i for i in store.index_states() if i.label == "Probe"]


def test_server_down_mid_session_then_health_recovers_on_the_same_port(
    settings: Settings, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The session's server behind a forwarder that goes away under an open store and engine (every connection
    cut, the port refusing), then comes back on the same port. While it is down, health says so from one
    connection attempt, without a read (a read retries for seconds: health took 14 s through two of them)."""
    real = urlsplit(str(settings.neo4j_uri))
    target = (str(real.hostname), int(real.port or 7687))
    port = _closed_port()
    uri = f"{real.scheme}://127.0.0.1:{port}"
    password = _password(settings)
    forwarded = settings.model_copy(update={"neo4j_uri": uri})
    with forwarding(port, target):
        store = open_store(forwarded)
        engine = Engine(forwarded, store=store, embedder=embedder, llm=None)
        healthy = engine.health().ok
    with store:
        assert healthy
        with pytest.raises(StoreUnavailable) as caught:
            store.read("MATCH (n) RETURN count(n) AS n")
        assert uri in str(caught.value) and password not in str(caught.value)
        reads: list[str] = []
        read = store.read
        monkeypatch.setattr(store, "read", lambda cypher, *a, **k: reads.append(cypher) or read(cypher, *a, **k))
        with pytest.raises(StoreUnavailable):
            engine.health()
        assert reads == []
        with forwarding(port, target):
            health = engine.health()  # the same engine and store, no restart of the app
            assert health.ok and health.backend == "neo4j"


def test_the_session_server_leaves_no_file_in_the_system_temporary_folder(store: GraphStore) -> None:
    """Each start wrote a log4j configuration naming its folder to /tmp and left it there (~100 after a day)."""
    if SESSION.server is None:
        pytest.skip("an external Neo4j (NEO4J_URI) is not started by the tests")
    folder = str(SESSION.server.workdir)
    left = [p for p in Path(tempfile.gettempdir()).glob("log4j-*.xml") if folder in p.read_text(errors="replace")]
    assert not left, f"left in the system temporary folder: {left}"
