"""What the indexer derives per entity (RELATED degree, dates from the documents that mention it) is written with
the entity, so a cold run writes each entity once, and stays right after incremental adds and removes; each
distinct entity or community text is embedded once. Both graph backends, the real ONNX embedder."""

# ruff: noqa: F811 (the fixtures imported from tests.indexing_runs are parameters here)
from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from retrieval.indexing import remove_document, run_index
from retrieval.indexing.pipeline import _Run
from retrieval.store import GraphStore
from tests.indexing_runs import RecordingEmbedder, corpus, graph  # noqa: F401 (fixtures)

#: Names the corpus's documents already hold: adding it gives old entities new edges and a later date.
MEETING = "Bill Gates met Lisa Su and Mira Murati at Microsoft in Seattle to talk about AMD chips and OpenAI."


def entity_fields(store: GraphStore) -> dict[str, tuple[object, ...]]:
    """Per entity: (stored degree, RELATED count, stored updated_at, its documents' latest, stored ingested_at,
    its documents' first): what `sync_degrees` and `sync_timestamps` keep equal."""
    rows = store.query(
        "MATCH (e:__Entity__) OPTIONAL MATCH (e)<-[:HAS_ENTITY]-(:__Chunk__)<-[:HAS_CHUNK]-(d:__Document__) "
        "WITH e, max(d.updated_at) AS updated, min(d.ingested_at) AS ingested "
        "RETURN e.id AS id, e.degree AS degree, size([(e)-[:RELATED]-() | 1]) AS related, "
        "e.updated_at AS eu, updated, e.ingested_at AS ei, ingested"
    )
    return {r["id"]: (r["degree"], r["related"], r["eu"], r["updated"], r["ei"], r["ingested"]) for r in rows}


def assert_fields_right(store: GraphStore) -> dict[str, tuple[object, ...]]:
    fields = entity_fields(store)
    assert fields
    wrong = {e: f for e, f in fields.items() if f[0] != f[1] or f[2] != f[3] or f[4] != f[5] or f[2] is None}
    assert wrong == {}
    return fields


def test_a_cold_run_writes_degrees_and_dates_with_the_entities(graph, corpus, embedder) -> None:
    """Nothing is left for the two whole-graph sync statements to set (on FalkorDB each set re-indexes the
    entity's vector and text)."""
    settings, store = graph
    report = run_index(settings, store, embedder, [corpus], project="p")
    assert report.written["entities"] > 10
    assert report.written["degrees"] == 0 and report.written["timestamps"] == 0
    assert any(f[0] for f in assert_fields_right(store).values())


def test_degrees_and_dates_stay_right_after_an_add_and_a_remove(graph, corpus: Path, embedder) -> None:
    settings, store = graph
    run_index(settings, store, embedder, [corpus], project="p")
    before = assert_fields_right(store)
    _next_second()  # documents are dated to the second: the add must fall in a later one than the first run
    (corpus / "meeting.txt").write_text(MEETING, encoding="utf-8")
    added = run_index(settings, store, embedder, [corpus], project="p")
    assert added.added == ["corpus/meeting.txt"]
    after_add = assert_fields_right(store)
    grown = [e for e in before if e in after_add and after_add[e][0] > before[e][0]]
    assert "p:microsoft" in grown  # an entity of the old documents gained edges
    assert after_add["p:microsoft"][2] > before["p:microsoft"][2]  # dated by the new document
    assert after_add["p:microsoft"][4] == before["p:microsoft"][4]  # first seen when it was
    remove_document(settings, store, embedder, "corpus/meeting.txt", project="p")
    assert assert_fields_right(store) == before


def _next_second() -> None:
    start = int(time.time())
    while int(time.time()) == start:
        time.sleep(0.05)


def test_each_distinct_text_is_embedded_once(graph, corpus, embedder) -> None:
    settings, store = graph
    run = _Run(settings, store, RecordingEmbedder(embedder), "p", on_progress=None, chat_model=None)
    vectors = run.embed(["Lisa Su (PERSON)", "AMD (ORG)", "Lisa Su (PERSON)"], "entity embeddings")
    assert sorted(run.embedder.texts) == ["AMD (ORG)", "Lisa Su (PERSON)"]  # type: ignore[attr-defined]  # once each
    assert vectors.shape == (3, embedder.dim)
    assert np.array_equal(vectors[0], vectors[2]) and not np.allclose(vectors[0], vectors[1])
    assert np.allclose(vectors[1], embedder.embed(["AMD (ORG)"])[0], atol=2e-3)
    assert run.embed([], "community embeddings").shape == (0, embedder.dim)
