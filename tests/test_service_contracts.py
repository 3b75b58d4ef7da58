"""The seeds' wire formats, field by field and type by type, on both backends (issue #28).

Other services and agents already code against the shapes the design documents define; these tests hold the
service to them: `POST /v1/retrieval/search` (entities `{id, name, score}`, documents `{id, title}`, `meta.local.k`,
`meta.drift.expanded`, `meta.global.level`; an omitted `projectId` is not scoped), `GET /health/neo4j`
(`{status, message}`, 200/503), `/retrieve` (a citation whose chunk cannot be enriched is its plain chunk id, with
named `citation_*` log events), and the progress events' document lists. Extra fields may stand beside the seed's.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from retrieval.config import Settings
from retrieval.embed import Embedder, make_embedder
from retrieval.engine import Engine
from retrieval.llm.client import ChatModel
from retrieval.service.app import create_app
from retrieval.store import GraphStore
from retrieval.telemetry.events import ProgressEvent
from retrieval.text.readable import NOTHING_TO_SEARCH
from tests.backends import hung
from tests.conftest import CAROL_PROJECT, SEARCH_CHUNKS, SEARCH_PROJECT
from tests.scripted_model import CHECKED_CITATIONS
from tests.scripted_openai import ScriptedOpenAI, json_reply
from tests.service_server import engine_over, release, service, serving, settings_of

CAROL_QUESTION = "What does Scrooge think of Christmas?"
#: Chunks of the search graph's second project: only a search that is not scoped finds them.
OTHER_CHUNKS = {cid for cid, (project, _d, _t) in SEARCH_CHUNKS.items() if project != SEARCH_PROJECT}


@pytest.fixture(scope="module")
def api(search_store: GraphStore) -> Iterator[httpx.Client]:
    with service(search_store) as url, httpx.Client(base_url=url, timeout=60) as client:
        yield client


def assert_fields(item: dict[str, Any], spec: dict[str, type | tuple[type, ...]]) -> None:
    """`item` has every field of `spec`, each of its type (a bool is not a number here, though Python says so)."""
    for name, kind in spec.items():
        assert name in item, f"missing {name!r} in {item}"
        assert isinstance(item[name], kind) and not isinstance(item[name], bool), f"{name}: {item[name]!r}"


# --- POST /v1/retrieval/search ------------------------------------------------------------------------------
def test_search_speaks_the_seeds_entities_documents_and_meta(api: httpx.Client) -> None:
    response = api.post(
        "/v1/retrieval/search",
        json={
            "projectId": SEARCH_PROJECT,
            "query": "Who discovered polonium with Marie Curie?",
            "local": {"k": 3},
            "global": {"level": 1},
        },
    )
    assert response.status_code == 200, response.text
    body = response.json()
    for entity in [*body["entities"], *body["neighborEntities"]]:
        assert_fields(entity, {"id": str, "name": str, "score": float})
    assert {e["id"]: e["name"] for e in body["entities"]}["marie"] == "Marie Curie"
    assert body["documents"]
    for document in body["documents"]:
        assert_fields(document, {"id": str, "title": str})
    assert body["documents"][0]["id"] == body["documents"][0]["title"] == "Marie Curie"
    meta = body["meta"]
    assert meta["local"] == {"k": 3}
    assert_fields(meta["drift"], {"expanded": int})
    assert meta["drift"]["expanded"] == len(body["neighborEntities"]) > 0
    assert meta["global"] == {"level": 1}, "the level asked for; global itself did not run"
    assert meta["projectId"] == SEARCH_PROJECT


def test_search_meta_global_level_is_the_level_the_global_answer_read(carol_graph: tuple) -> None:
    with service(carol_graph[1]) as url, httpx.Client(base_url=url, timeout=120) as client:
        body = client.post(
            "/v1/retrieval/search",
            json={"projectId": CAROL_PROJECT, "query": CAROL_QUESTION, "global": {"enabled": True}},
        ).json()
    assert body["meta"]["modes"] == ["local", "global"]
    assert_fields(body["meta"]["global"], {"level": int})


def test_an_omitted_project_id_is_not_scoped(api: httpx.Client) -> None:
    """It used to fall back to the configured project (here `science`), hiding the other project's chunks."""
    query = {"query": "Marie Curie discovered polonium", "local": {"k": 10}}
    everywhere = api.post("/v1/retrieval/search", json=query).json()
    scoped = api.post("/v1/retrieval/search", json={**query, "projectId": SEARCH_PROJECT}).json()
    chunks = {c["chunkId"] for d in everywhere["documents"] for c in d["chunks"]}
    assert chunks >= OTHER_CHUNKS and chunks & (set(SEARCH_CHUNKS) - OTHER_CHUNKS)
    assert everywhere["meta"]["projectId"] is None
    assert not OTHER_CHUNKS & {c["chunkId"] for d in scoped["documents"] for c in d["chunks"]}
    assert scoped["meta"]["projectId"] == SEARCH_PROJECT


def test_a_search_of_common_words_finds_nothing_to_search_as_ask_does(api: httpx.Client) -> None:
    """One behaviour on every face: it used to rank hits for "the of and" while `ask` said there was nothing."""
    searched = api.post("/v1/retrieval/search", json={"query": "the of and", "projectId": SEARCH_PROJECT}).json()
    asked = api.post("/v1/ask", json={"query": "the of and", "projectId": SEARCH_PROJECT}).json()
    assert searched["meta"]["noDataFound"] is True and searched["meta"]["reason"] == NOTHING_TO_SEARCH
    assert searched["documents"] == searched["entities"] == []
    assert asked["no_data_found"] is True and asked["notes"] == [NOTHING_TO_SEARCH]


# --- GET /health/neo4j -----------------------------------------------------------------------------------------
def test_health_neo4j_is_status_and_message_200_or_503(search_store: GraphStore) -> None:
    with service(search_store) as url, httpx.Client(base_url=url, timeout=10) as client:
        healthy = client.get("/health/neo4j")
        assert healthy.status_code == 200, healthy.text
        assert set(healthy.json()) == {"status", "message"} and healthy.json()["status"] == "healthy"
        assert_fields(healthy.json(), {"message": str})
        with hung(search_store):
            unhealthy = client.get("/health/neo4j")
        assert unhealthy.status_code == 503, unhealthy.text
        assert set(unhealthy.json()) == {"status", "message"} and unhealthy.json()["status"] == "unhealthy"
        assert "did not answer" in unhealthy.json()["message"]
        deadline = time.monotonic() + 120  # the check given up on finishes once the graph answers again
        while client.get("/health/neo4j").status_code != 200:
            assert time.monotonic() < deadline, "healthy again once the graph answers"
            time.sleep(0.5)


# --- POST /retrieve ----------------------------------------------------------------------------------------------
def test_retrieve_speaks_the_seeds_fields(carol_graph: tuple) -> None:
    with service(carol_graph[1]) as url, httpx.Client(base_url=url, timeout=120) as client:
        response = client.post("/retrieve", json={"query": CAROL_QUESTION, "project_id": CAROL_PROJECT})
    assert response.status_code == 200, response.text
    body = response.json()
    assert_fields(body, {"final_answer": str, "key_facts": list, "residual_uncertainty": str, "retrieval_id": str})
    assert body["no_data_found"] is False and body["key_facts"]
    for fact in body["key_facts"]:
        assert_fields(fact, {"fact": str, "citations": list})
        for citation in fact["citations"]:
            if not isinstance(citation, str):
                assert_fields(citation, {"chunk_id": str, "span": str, "document_name": str})


@pytest.fixture
def llm_engine(search_store: GraphStore) -> Iterator[tuple[Engine, ScriptedOpenAI]]:
    server = ScriptedOpenAI().start()
    settings = settings_of(search_store, openai_base_url=server.base_url, retry_max_attempts=1, llm_timeout_sec=5.0)
    engine = Engine(settings, store=search_store, embedder=make_embedder(settings), llm=ChatModel(settings))
    try:
        yield engine, server
    finally:
        release(engine)
        server.stop()


def test_retrieve_gives_an_unenrichable_citation_as_its_plain_chunk_id_and_logs_the_checks(
    llm_engine: tuple[Engine, ScriptedOpenAI], caplog: pytest.LogCaptureFixture
) -> None:
    """The misquote used to be dropped with its fact; the invented id still is (the model never saw that chunk)."""
    engine, server = llm_engine
    server.script(json_reply(CHECKED_CITATIONS))
    question = {"query": "Who discovered polonium?", "mode": "local", "project_id": SEARCH_PROJECT}
    with (
        caplog.at_level(logging.DEBUG, logger="retrieval.search.citations"),
        serving(create_app(engine.settings, engine=engine)) as url,
    ):
        response = httpx.post(f"{url}/retrieve", json=question, timeout=60)
    assert response.status_code == 200, response.text
    facts = {f["fact"]: f["citations"] for f in response.json()["key_facts"]}
    assert set(facts) == {"Marie Curie discovered polonium.", "Misquoted."}
    assert facts["Misquoted."] == ["c1"]
    enriched = facts["Marie Curie discovered polonium."][0]
    assert enriched == {"chunk_id": "c1", "span": "discovered polonium", "document_name": "Marie Curie"}
    events = [r for r in caplog.records if r.getMessage().startswith("citation_")]
    assert [(r.getMessage(), getattr(r, "chunk_id", None)) for r in events[:-1]] == [
        ("citation_matched", "c1"),
        ("citation_dropped", "c999"),
        ("citation_fallback", "c1"),
    ]
    summary = events[-1]
    assert summary.getMessage() == "citation_summary" and getattr(summary, "event", None) == "citation_summary"
    counts = {k: getattr(summary, k) for k in ("checked", "matched", "dropped", "fallback")}
    assert counts == {"checked": 3, "matched": 1, "dropped": 1, "fallback": 1}


# --- progress events ---------------------------------------------------------------------------------------------
def test_progress_lists_documents_as_the_design_shows(carol_graph: tuple[Settings, GraphStore, Embedder]) -> None:
    """Aggregation: `doc1, doc2`; completion: `[doc1], [doc2]` (they were Markdown lists, `- doc1`)."""
    engine = engine_over(carol_graph[1])
    events: list[ProgressEvent] = []
    try:
        answer = engine.ask(CAROL_QUESTION, "drift", project=CAROL_PROJECT, on_progress=events.append)
    finally:
        release(engine)
    wire = [json.loads(e.model_dump_json()) for e in events]  # what the Redis channel carries
    documents = list(dict.fromkeys(c.document_name for c in answer.citations()))
    assert len(documents) >= 1 and all(documents)
    aggregated = next(e for e in wire if e["phase"] == "aggregating_results" and e["details_md"])
    assert aggregated["step"]["kind"] == "aggregate" and aggregated["details_md"] == ", ".join(documents)
    assert wire[-1]["phase"] == "completed" and wire[-1]["details_md"] == ", ".join(f"[{d}]" for d in documents)
