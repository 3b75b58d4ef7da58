"""The service's start and probes: an empty API key, a hung graph server, a Neo4j that is not there yet, a graph
emptied under a running service."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from retrieval.embed import Embedder
from retrieval.store import GraphStore, open_store
from tests.conftest import SEARCH_PROJECT, build_search_graph
from tests.service_server import service

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


def test_a_dropped_index_names_what_is_missing_and_the_command(graph: GraphStore, other_client: GraphStore) -> None:
    s = graph.settings
    with service(graph) as url, httpx.Client(base_url=url, timeout=60) as client:
        assert client.post("/v1/retrieval/search", json=SEARCH).status_code == 200
        drop = (
            f"DROP INDEX {s.chunk_vector_index}"
            if graph.backend == "neo4j"
            else f"DROP VECTOR INDEX FOR (n:{s.chunk_label}) ON (n.{s.embedding_property})"
        )
        other_client.query(drop)
        searched = client.post("/v1/retrieval/search", json=SEARCH)
    assert searched.status_code == 500, searched.text
    body = searched.json()
    assert body["error"] == "index missing", body
    assert s.chunk_vector_index in body["detail"] and "python -m retrieval index" in body["detail"], body
