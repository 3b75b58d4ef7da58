"""A level-0 community whose summary is one passage's sentences takes that passage's chunk vector, not embedding a
text of its own (`reports.embedding_text`, `RunState.embedding`); every other community is embedded from its title
and summary. Both graph backends, the real ONNX embedder."""

# ruff: noqa: F811 (the fixtures imported from tests.indexing_runs are parameters here)
from __future__ import annotations

import numpy as np

from retrieval.embed import Embedder
from retrieval.indexing import run_index
from retrieval.indexing.reports import Report, embedding_text
from retrieval.indexing.run_state import RunState
from retrieval.store import GraphStore
from tests.indexing_runs import RecordingEmbedder, corpus, graph  # noqa: F401 (fixtures)


def _vectors(store: GraphStore, label: str) -> dict[str, np.ndarray]:
    rows = store.query(f"MATCH (n:{label}) RETURN n.id AS id, n.embedding AS embedding")
    return {row["id"]: np.asarray(row["embedding"], dtype=np.float32) for row in rows}


def _communities(store: GraphStore) -> list[dict]:
    return store.query(
        "MATCH (k:__Community__) RETURN k.id AS id, k.level AS level, k.title AS title, k.summary AS summary, "
        "k.source_chunks AS source_chunks"
    )


def _check(store: GraphStore, embedder: Embedder) -> int:
    """Every one-passage level-0 community's vector is its chunk's, bit for bit; every other's is its title and
    summary's. Returns how many communities took a chunk's vector."""
    chunks, kept = _vectors(store, "__Chunk__"), _vectors(store, "__Community__")
    retold = 0
    for row in _communities(store):
        if row["level"] == 0 and len(row["source_chunks"]) == 1:
            assert kept[row["id"]].tobytes() == chunks[row["source_chunks"][0]].tobytes(), row["id"]
            retold += 1
        else:
            own = embedder.embed([f"{row['title']}\n{row['summary']}"])[0]
            assert kept[row["id"]].tobytes() == own.tobytes(), row["id"]
    return retold


def test_a_one_passage_community_takes_its_chunk_s_vector_without_embedding_it_again(graph, corpus, embedder) -> None:
    """Cold run: at least one level-0 community is retold from one passage; its vector is the chunk's, and no chunk
    text is given to the embedder twice. Then an edit: a retold community of a chunk this run did not embed gets the
    same vector as the stored chunk's, and every other community still its own. Fails on a tree that embeds every
    community's title and summary."""
    settings, store = graph
    recorded = RecordingEmbedder(embedder)
    run_index(settings, store, recorded, [corpus], project="p")
    assert _check(store, embedder) >= 1
    chunk_texts = {row["text"] for row in store.query("MATCH (c:__Chunk__) RETURN c.text AS text")}
    assert sum(text in chunk_texts for text in recorded.texts) == len(chunk_texts)
    (corpus / "murati.txt").write_text("Mira Murati founded Thinking Machines Lab in San Francisco.", encoding="utf-8")
    run_index(settings, store, embedder, [corpus], project="p")
    assert _check(store, embedder) >= 1


def test_a_stage_text_that_is_one_of_the_run_s_chunks_is_not_embedded_again(graph, embedder) -> None:
    """`RunState.embedding`: a text among the run's chunk vectors answers from it, bit for bit, and only the other
    texts reach the embedder, the repeated one once."""
    settings, store = graph
    recorded = RecordingEmbedder(embedder)
    run = RunState(settings, store, recorded, "p", on_progress=None, chat_model=None)
    passage = "Lisa Su is the chief executive of AMD in Santa Clara."
    run.chunk_vectors[passage] = embedder.embed([passage])[0]
    vectors = run.embed(["AMD & Lisa Su\nLisa Su leads AMD.", passage, "AMD & Lisa Su\nLisa Su leads AMD."], "c")
    assert recorded.texts == ["AMD & Lisa Su\nLisa Su leads AMD."]
    assert vectors[1].tobytes() == run.chunk_vectors[passage].tobytes()
    assert vectors[0].tobytes() == vectors[2].tobytes()


def test_the_text_of_a_community_is_its_one_passage_for_an_extractive_report_only() -> None:
    """One source chunk and the chunk texts given: the chunk's text; several chunks, an unknown or empty chunk,
    or no texts given (a model's report): title and summary."""
    passages = {"d:0": "Title\n\nA passage.", "d:1": "Other passage.", "d:2": ""}
    one = Report("T", "A passage.", "# T", 1.0, ("d:0",))
    assert embedding_text(one, passages) == "Title\n\nA passage."
    assert embedding_text(one) == "T\nA passage."
    assert embedding_text(Report("T", "S", "# T", 1.0, ("d:0", "d:1")), passages) == "T\nS"
    assert embedding_text(Report("T", "S", "# T", 1.0, ("d:9",)), passages) == "T\nS"
    assert embedding_text(Report("T", "S", "# T", 1.0, ("d:2",)), passages) == "T\nS"
