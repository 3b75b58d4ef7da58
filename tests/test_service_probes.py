"""The service's start and probes: an empty API key, a hung graph server, a Neo4j that is not there yet, a graph
emptied under a running service."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from retrieval.config import Settings
from retrieval.embed import Embedder
from retrieval.errors import IndexMissing, QueryError
from retrieval.service.app import create_app
from retrieval.store import GraphStore, open_store
from tests.backends import hung
from tests.conftest import SEARCH_PROJECT, build_search_graph
from tests.e2e.conftest import free_port
from tests.service_server import service, serving
from tests.tcp_forward import forwarding

ROOT = Path(__file__).resolve().parents[1]
SEARCH = {"query": "Who discovered polonium?", "projectId": SEARCH_PROJECT}


@pytest.fixture
def graph(store: GraphStore, embedder: Embedder) -> GraphStore:
    build_search_graph(store, embedder)
    return store


@pytest.fixture
def other_client(graph: GraphStore) -> Iterator[GraphStore]:
    """A second connection to the same graph, as another process (an operator's script, a re-index) has one."""
    with open_store(graph.settings) as other:
        yield other


def test_a_graph_emptied_under_the_service_is_no_data_again(graph: GraphStore, other_client: GraphStore) -> None:
    with service(graph) as url, httpx.Client(base_url=url, timeout=60) as client:
        assert client.post("/v1/retrieval/search", json=SEARCH).json()["documents"], "indexes cached"
        other_client.clear()  # every node and index gone
        searched = client.post("/v1/retrieval/search", json=SEARCH)
        asked = client.post("/v1/ask", json={**SEARCH, "mode": "local"})
    assert searched.status_code == 200, searched.text
    assert searched.json()["meta"]["noDataFound"] is True and searched.json()["meta"]["reason"]
    assert asked.status_code == 200 and asked.json()["no_data_found"] is True, asked.text


def test_a_dropped_index_names_what_is_missing_and_the_command(
    graph: GraphStore, other_client: GraphStore, embedder: Embedder
) -> None:
    s = graph.settings
    with service(graph) as url, httpx.Client(base_url=url, timeout=60) as client:
        assert client.post("/v1/retrieval/search", json=SEARCH).status_code == 200
        drop = (
            f"DROP INDEX {s.chunk_vector_index}"
            if graph.backend == "neo4j"
            else f"DROP VECTOR INDEX FOR (n:{s.chunk_label}) ON (n.{s.embedding_property})"
        )
        other_client.query(drop)
        _until_the_index_refuses(other_client, embedder.embed_query(SEARCH["query"]))
        searched = client.post("/v1/retrieval/search", json=SEARCH)
    assert searched.status_code == 500, searched.text
    body = searched.json()
    assert body["error"] == "index missing", body
    assert s.chunk_vector_index in body["detail"] and "python -m retrieval index" in body["detail"], body


def _until_the_index_refuses(other: GraphStore, vector: list[float], timeout_s: float = 10.0) -> None:
    """Wait until the database refuses a search of the dropped index (asked on the other connection, so the
    service's store keeps the index it cached: its search is what meets the drop).

    Why: in one CI run FalkorDB answered the service's search from the dropped index after the other
    connection's DROP had replied (not reproduced in 40 tries under load); Neo4j refuses at once.
    """
    s = other.settings
    probe = (
        "CALL db.index.vector.queryNodes($index, 1, $q) YIELD node RETURN node.id AS id"
        if other.backend == "neo4j"
        else "CALL db.idx.vector.queryNodes($label, $prop, 1, vecf32($q)) YIELD node RETURN node.id AS id"
    )
    params = {"index": s.chunk_vector_index, "label": s.chunk_label, "prop": s.embedding_property, "q": vector}
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            other.read(probe, params)
        except (IndexMissing, QueryError):
            return
        assert time.monotonic() < deadline, "the dropped index still answered searches"
        time.sleep(0.05)


@pytest.mark.parametrize("key", ["", "   "])
def test_an_empty_api_key_is_no_key_and_the_log_says_so(
    store: GraphStore, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, key: str
) -> None:
    """docker-compose passes DRIFTLENS_API_KEY empty when none is set: that shut every route but /health (401)."""
    monkeypatch.setenv("DRIFTLENS_API_KEY", key)
    with caplog.at_level(logging.INFO, logger="driftlens.service"), service(store) as url:
        searched = httpx.post(f"{url}/v1/retrieval/search", json={"query": "polonium"}, timeout=60)
    assert searched.status_code == 200, searched.text
    assert "API key off (DRIFTLENS_API_KEY unset or empty)" in caplog.text


# --- a hung graph ----------------------------------------------------------------------------------------------
def test_health_answers_503_within_its_budget_while_the_graph_hangs(store: GraphStore) -> None:
    """The graph's check has 1.5 s; the reply may take a little longer on a loaded 2-core machine (it once took
    over 2 s at load ~30), but never waits on the hung graph (the client's 10 s)."""
    with service(store) as url, httpx.Client(base_url=url, timeout=10) as client:
        assert client.get("/health").status_code == 200
        with hung(store):
            for _ in range(3):  # the first check hangs; the later probes wait on it rather than start more
                started = time.monotonic()
                response = client.get("/health")
                assert time.monotonic() - started < 4.0
                assert response.status_code == 503, response.text
                graph = response.json()["graph"]
                assert "did not answer within 1.5 s" in graph["message"] and graph["uri"] == store.uri
            assert sum(t.name == "health-check" for t in threading.enumerate()) == 1
        _wait_for(lambda: client.get("/health").status_code == 200, "healthy again once the graph answers")


def _wait_for(condition: object, what: str, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not callable(condition) or not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.5)


# --- a Neo4j that is not there yet -----------------------------------------------------------------------------
def test_serve_starts_without_neo4j_and_names_the_uri_it_waits_for(tmp_path: Path) -> None:
    """`serve` used to exit at start; the README promises /health 503."""
    uri, port = f"bolt://127.0.0.1:{free_port()}", free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NEO4J_URI": uri, "NEO4J_PASSWORD": "none", "DRIFTLENS_API_KEY": ""}
    log = tmp_path / "serve.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "retrieval", "serve", "--port", str(port)],
            cwd=tmp_path,
            env=env,
            stdout=sink,
            stderr=sink,
        )
    try:
        base = f"http://127.0.0.1:{port}"

        def answers() -> bool:
            assert process.poll() is None, log.read_text(encoding="utf-8")[-3000:]
            try:
                return httpx.get(f"{base}/health", timeout=5).status_code > 0
            except httpx.TransportError:
                return False

        _wait_for(answers, "the service answers /health")
        health = httpx.get(f"{base}/health", timeout=5)
        searched = httpx.post(f"{base}/v1/retrieval/search", json={"query": "polonium"}, timeout=10)
    finally:
        process.terminate()
        process.wait(timeout=60)
    assert health.status_code == 503, health.text
    assert health.json()["graph"]["uri"].startswith(uri) and uri in health.json()["graph"]["message"]
    assert searched.status_code == 503 and searched.json()["error"] == "graph unavailable", searched.text
    assert "starting without the graph" in log.read_text(encoding="utf-8")


@pytest.mark.neo4j_only
def test_the_service_serves_once_neo4j_answers(settings: Settings) -> None:
    real = urlsplit(str(settings.neo4j_uri))
    port = free_port()
    waiting = settings.model_copy(update={"neo4j_uri": f"{real.scheme}://127.0.0.1:{port}"})
    with serving(create_app(waiting)) as url, httpx.Client(base_url=url, timeout=60) as client:
        first = client.get("/health")
        assert first.status_code == 503 and f"127.0.0.1:{port}" in first.json()["graph"]["message"], first.text
        assert client.post("/v1/retrieval/search", json={"query": "polonium"}).status_code == 503
        with forwarding(port, (str(real.hostname), int(real.port or 7687))):
            _wait_for(lambda: client.get("/health").status_code == 200, "healthy once Neo4j answers")
            searched = client.post("/v1/retrieval/search", json={"query": "polonium"})
    assert searched.status_code == 200 and searched.json()["meta"]["noDataFound"] is True, searched.text
