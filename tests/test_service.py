"""The HTTP API against the real app (uvicorn on loopback) over the real search graph: shapes, no data, 422, 503,
and `/retrieve`'s progress events received over Redis."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis

from retrieval.config import Settings
from retrieval.embed import Embedder
from retrieval.store import GraphStore
from retrieval.telemetry.events import PROGRESS_CHANNEL
from tests.conftest import CAROL_PROJECT, SEARCH_CHUNKS, SEARCH_PROJECT
from tests.service_server import service

REPO = Path(__file__).resolve().parents[1]
SCIENCE_CHUNKS = {cid for cid, (project, _d, _t) in SEARCH_CHUNKS.items() if project == SEARCH_PROJECT}


@pytest.fixture(scope="module")
def api(search_store: GraphStore) -> Iterator[httpx.Client]:
    with service(search_store) as url, httpx.Client(base_url=url, timeout=60) as client:
        yield client


@pytest.fixture(scope="module")
def carol_api(carol_graph: tuple[Settings, GraphStore, Embedder]) -> Iterator[httpx.Client]:
    """The real indexer's graph (communities with summaries): what DRIFT and global need to answer offline."""
    with service(carol_graph[1]) as url, httpx.Client(base_url=url, timeout=120) as client:
        yield client


CAROL_QUESTION = "What does Scrooge think of Christmas?"


def test_health_names_backend_counts_indexes_and_models(api: httpx.Client, search_store: GraphStore) -> None:
    """`/health` only: `/health/neo4j` answers the seed's `{status, message}` (test_service_contracts.py)."""
    response = api.get("/health")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["healthy"] is True and body["backend"] == search_store.backend
    assert body["graph"]["reachable"] is True
    assert body["graph"]["counts"][search_store.settings.chunk_label] == len(SEARCH_CHUNKS)
    assert {i["name"] for i in body["graph"]["indexes"]} >= {search_store.settings.chunk_vector_index}
    assert body["embedder"].startswith("local") or "MiniLM" in body["embedder"]
    assert body["llm"] is None
    assert response.headers["x-request-id"]


def test_search_returns_seeds_drift_scored_neighbours_and_documents(api: httpx.Client) -> None:
    response = api.post(
        "/v1/retrieval/search",
        json={"projectId": SEARCH_PROJECT, "query": "Who discovered polonium with Marie Curie?", "local": {"k": 3}},
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert "marie" in {e["id"] for e in body["entities"]}
    assert all(e["hop"] == 0 for e in body["entities"])
    neighbours = body["neighborEntities"]
    assert neighbours and all(n["hop"] >= 1 and n["score"] > 0 for n in neighbours)
    assert [n["score"] for n in neighbours if n["hop"] == 1] == sorted(
        (n["score"] for n in neighbours if n["hop"] == 1), reverse=True
    )
    chunks = [c for d in body["documents"] for c in d["chunks"]]
    assert chunks[0]["chunkId"] == "c1" and {c["chunkId"] for c in chunks} <= SCIENCE_CHUNKS
    assert {"vector", "fulltext"} <= set(chunks[0]["scores"])  # each arm's own score, next to the fused one
    meta = body["meta"]
    assert meta["projectId"] == SEARCH_PROJECT and meta["modes"] == ["local"] and not meta["noDataFound"]
    assert {"embed", "chunks", "entities", "bridge", "expand"} <= set(meta["timingsMs"])
    assert set(meta["truncated"]) == {"expansion", "budget", "chunks"}
    assert body["finalAnswer"] is None


def test_drift_budget_stops_the_walk_early_and_says_so(api: httpx.Client) -> None:
    """`driftBudget` is the drift_budget knob: the accumulated drift score at which the walk stops."""

    def search(budget: float | None) -> dict:
        drift = {"maxHops": 2, **({"driftBudget": budget} if budget is not None else {})}
        return api.post(
            "/v1/retrieval/search", json={"projectId": SEARCH_PROJECT, "query": "Marie Curie", "drift": drift}
        ).json()

    free, tight = search(None), search(0.1)  # each neighbour here scores about 0.03
    assert not free["meta"]["truncated"]["budget"] and tight["meta"]["truncated"]["budget"]
    assert len(tight["neighborEntities"]) < len(free["neighborEntities"])


def test_search_with_global_merges_the_global_answer(carol_api: httpx.Client) -> None:
    question = {"query": CAROL_QUESTION, "projectId": CAROL_PROJECT}
    body = carol_api.post("/v1/retrieval/search", json={**question, "global": {"enabled": True}}).json()
    alone = carol_api.post("/v1/ask", json={**question, "mode": "global"}).json()
    assert body["meta"]["modes"] == ["local", "global"] and "global" in body["meta"]["timingsMs"]
    assert body["finalAnswer"] and body["finalAnswer"] == alone["final_answer"]
    assert body["documents"], "the local part is there too"


def test_retrieve_answers_with_drift_and_cites_chunks(carol_api: httpx.Client, carol_graph: tuple) -> None:
    response = carol_api.post("/retrieve", json={"query": CAROL_QUESTION, "top_k": 5, "project_id": CAROL_PROJECT})
    assert response.status_code == 200, response.text
    body = response.json()
    assert set(body) == {"final_answer", "key_facts", "residual_uncertainty", "no_data_found", "retrieval_id"}
    assert body["final_answer"] and body["no_data_found"] is False and body["retrieval_id"]
    citations = [c for f in body["key_facts"] for c in f["citations"]]
    assert citations and all(set(c) == {"chunk_id", "span", "document_name"} for c in citations)
    rows = carol_graph[1].read(
        "MATCH (c:__Chunk__) WHERE c.id IN $ids RETURN c.id AS id, c.text AS text",
        {"ids": [c["chunk_id"] for c in citations]},
    )
    texts = {row["id"]: row["text"] for row in rows}
    for citation in citations:
        assert citation["span"] in texts[citation["chunk_id"]], "spans are verbatim evidence"


@pytest.mark.parametrize("mode", ["local", "global", "drift", "agent"])
def test_ask_answers_every_mode_as_answer_json(api: httpx.Client, mode: str) -> None:
    response = api.post("/v1/ask", json={"query": "Who discovered polonium?", "mode": mode, "projectId": "science"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["mode"] == mode and body["answered_by"] == "extractive"
    assert "trace" not in body and "usage" in body
    with_trace = api.post("/v1/ask", json={"query": "Who discovered polonium?", "mode": mode, "includeTrace": True})
    assert "trace" in with_trace.json()


@pytest.mark.parametrize(
    ("path", "payload", "where"),
    [
        ("/retrieve", {}, "query"),
        ("/retrieve", {"query": "x", "top_k": 0}, "top_k"),
        ("/retrieve", {"query": "x", "mode": "psychic"}, "mode"),
        ("/retrieve", {"query": "x", "surprise": 1}, "surprise"),
        ("/v1/retrieval/search", {"query": ""}, "query"),
        ("/v1/retrieval/search", {"query": "x", "local": {"weights": {"vector": 0, "keyword": 0}}}, "weights"),
        ("/v1/retrieval/search", {"query": "x", "drift": {"maxHops": 9}}, "maxHops"),
        ("/v1/ask", {"query": "x", "mode": "local", "topK": 10_000}, "topK"),
    ],
)
def test_invalid_bodies_get_422_naming_the_field(api: httpx.Client, path: str, payload: dict, where: str) -> None:
    response = api.post(path, json=payload)
    assert response.status_code == 422, response.text
    body = response.json()
    assert body["error"] == "invalid request" and where in body["detail"]


def test_unknown_project_and_wrong_embedding_size_are_422(api: httpx.Client) -> None:
    unknown = api.post("/retrieve", json={"query": "polonium", "project_id": "nope"})
    assert unknown.status_code == 422 and "science" in unknown.json()["detail"]
    wrong = api.post("/v1/retrieval/search", json={"query": "polonium", "embedding": [0.1, 0.2, 0.3]})
    assert wrong.status_code == 422 and "3 dimensions" in wrong.json()["detail"]


def test_empty_graph_answers_200_no_data(module_store: GraphStore) -> None:
    with service(module_store) as url, httpx.Client(base_url=url, timeout=60) as client:
        retrieved = client.post("/retrieve", json={"query": "Who discovered polonium?"})
        searched = client.post("/v1/retrieval/search", json={"query": "polonium"})
        in_project = client.post("/v1/retrieval/search", json={"query": "polonium", "projectId": "science"})
    assert retrieved.status_code == 200, retrieved.text
    assert retrieved.json() | {"retrieval_id": ""} == {
        "final_answer": "",
        "key_facts": [],
        "residual_uncertainty": "",
        "no_data_found": True,
        "retrieval_id": "",
    }
    assert searched.status_code == 200
    body = searched.json()
    # No projectId reads the whole graph (the seed's "not scoped"; it used to mean the configured project).
    assert body["meta"]["noDataFound"] is True and "The graph has no" in body["meta"]["reason"]
    assert body["entities"] == body["neighborEntities"] == body["documents"] == []
    assert "Project 'science' has no indexed documents" in in_project.json()["meta"]["reason"]


@pytest.mark.embedded_only  # Neo4j has no Redis of its own; progress needs REDIS_URL there
def test_retrieve_progress_arrives_on_the_embedded_redis(carol_api: httpx.Client, carol_graph: tuple) -> None:
    store: GraphStore = carol_graph[1]
    assert store.pubsub_url is not None
    listener = redis.Redis.from_url(store.pubsub_url)
    subscription = listener.pubsub()
    subscription.subscribe(PROGRESS_CHANNEL)
    assert subscription.get_message(timeout=5)["type"] == "subscribe"  # type: ignore[index]
    try:
        body = carol_api.post("/retrieve", json={"query": CAROL_QUESTION, "project_id": CAROL_PROJECT}).json()
        events: list[dict] = []
        deadline = time.monotonic() + 10
        while not (events and events[-1]["phase"] == "completed") and time.monotonic() < deadline:
            message = subscription.get_message(timeout=0.5)
            if message and message["type"] == "message":
                event = json.loads(message["data"])
                if event["retrieval_id"] == body["retrieval_id"]:
                    events.append(event)
    finally:
        subscription.close()
        listener.close()
    phases = [e["phase"] for e in events]
    assert phases[0] == "initializing" and phases[-1] == "completed", phases
    assert "retrieving_communities" in phases and "aggregating_results" in phases
    assert [e["progress_pct"] for e in events] == sorted(e["progress_pct"] for e in events)
    assert {e["project_id"] for e in events} == {CAROL_PROJECT}


@pytest.mark.embedded_only  # stops the embedded server's process; the session's Neo4j is not stopped by tests
def test_stopped_graph_is_503_with_what_to_check_and_recovers(store: GraphStore) -> None:
    data = Path(str(store.settings.embedded_graph_path) + ".data")
    with service(store) as url, httpx.Client(base_url=url, timeout=60) as client:
        assert client.get("/health").status_code == 200
        os.kill(int(json.loads((data / "server.lock").read_text())["server_pid"]), signal.SIGKILL)
        (data / "redis.sock").unlink(missing_ok=True)
        (data / "redis.sock").mkdir()  # the socket's place is taken: the server cannot start again for now
        try:
            health = client.get("/health")
            assert health.status_code == 503
            assert health.json()["healthy"] is False and health.json()["graph"]["reachable"] is False
            assert str(store.settings.embedded_graph_path) in health.json()["graph"]["message"]
            answer = client.post("/retrieve", json={"query": "polonium"})
            assert answer.status_code == 503, answer.text
            assert answer.json()["error"] == "graph unavailable" and "/health" in answer.json()["detail"]
            cli = _cli_health(store)
            assert cli.returncode != 0, cli.stdout
        finally:
            (data / "redis.sock").rmdir()
        deadline = time.monotonic() + 60  # the first probe may give up (1.5 s) while the server starts again
        while (health := client.get("/health")).status_code != 200 and time.monotonic() < deadline:
            time.sleep(0.5)
        assert health.status_code == 200, "the service reconnects once the graph is back"
    assert _cli_health(store).returncode == 0


def _cli_health(store: GraphStore) -> subprocess.CompletedProcess[str]:
    """`python -m retrieval health`, the container check, against the same graph."""
    env = {
        **os.environ,
        "DRIFTLENS_GRAPH_PATH": str(store.settings.embedded_graph_path),
        "DRIFTLENS_DATA_DIR": str(store.settings.data_dir),
    }
    return subprocess.run(
        [sys.executable, "-m", "retrieval", "health"],
        cwd=store.settings.data_dir,
        env={**env, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize(
    ("bad", "says"),
    [("NaN", "finite"), ("Infinity", "finite"), ("-Infinity", "finite"), ("1e308", "1000"), ("-1e39", "1000")],
)
def test_embedding_values_are_checked_before_the_database_sees_them(api: httpx.Client, bad: str, says: str) -> None:
    """Python's JSON reader takes NaN and Infinity; float32 vectors overflow far below 1e308."""
    values = ", ".join([bad, *["0.05"] * 383])
    body = f'{{"query": "polonium", "projectId": "{SEARCH_PROJECT}", "embedding": [{values}]}}'
    response = api.post("/v1/retrieval/search", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 422, response.text
    detail = response.json()["detail"]
    assert detail.startswith("embedding.0:") and says in detail, detail


def test_an_all_zero_embedding_is_422_it_points_nowhere(api: httpx.Client) -> None:
    response = api.post("/v1/retrieval/search", json={"query": "polonium", "embedding": [0.0] * 384})
    assert response.status_code == 422 and "all zero" in response.json()["detail"], response.text
