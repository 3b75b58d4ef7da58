"""The entities, RELATED and the communities are written while their vectors are still being embedded, the vectors
after them: the graph is the one the writes with their vectors gave, and a run killed between the two leaves no
entity with an old vector. Both graph backends, the real ONNX embedder.

Why: those writes are the graph server's work; written after the vectors, they ran with a core idle
(docs/benchmarks.md, "Many small documents")."""

# ruff: noqa: F811 (the fixtures imported from tests.test_indexing are parameters here)
from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from retrieval.embed import Embedder
from retrieval.indexing import StageProgress, run_index
from retrieval.store import GraphStore
from tests.test_indexing import (  # noqa: F401 (fixtures)
    DOCS,
    Dump,
    KilledError,
    assert_same_graph,
    corpus,
    dump,
    embedder,
    graph,
)

#: Long enough for any run of the test corpus to write its communities; a run that never does fails after it.
WAIT_SECONDS = 30.0
EDITED = "Mira Murati founded Thinking Machines Lab in San Francisco after she left OpenAI."


class HeldEmbedder(Embedder):
    """The real embedder, except that a worker's call after the entities are resolved (the entity and community
    vectors) waits until the run's own thread has written the communities and their links: it records whether
    that came (the writes went ahead of the vectors) or the wait timed out (the run waited for the vectors)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name = inner.name
        self.resolved = threading.Event()
        self.linked = threading.Event()
        self.ahead: list[bool] = []

    @property
    def dim(self) -> int:
        return self.inner.dim

    def heard(self, event: StageProgress) -> None:
        if event.done >= event.total:
            {"resolve": self.resolved, "community links": self.linked}.get(event.stage, threading.Event()).set()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if self.resolved.is_set() and threading.current_thread() is not threading.main_thread():
            self.ahead.append(self.linked.wait(WAIT_SECONDS))
        return self.inner.embed(texts)


def test_the_graph_is_written_before_its_entity_and_community_vectors_and_is_the_same(graph, corpus, embedder) -> None:
    """A cold run and an edit, each once with the vector workers held back until the communities are linked, and
    once as they come: the same graph, every vector included. Fails when the run waits for the entity vectors
    before it writes the entities (the held workers' wait times out)."""
    settings, store = graph
    held = HeldEmbedder(embedder)
    run_index(settings, store, held, [corpus], project="p", on_progress=held.heard)
    cold = dump(store)
    assert held.ahead and all(held.ahead)
    (corpus / "murati.txt").write_text(EDITED, encoding="utf-8")
    held.resolved.clear()
    held.linked.clear()
    report = run_index(settings, store, held, [corpus], project="p", on_progress=held.heard)
    edited = dump(store)
    assert all(held.ahead) and report.written["entities"] > 0

    store.clear()
    (corpus / "murati.txt").write_text(DOCS["murati.txt"], encoding="utf-8")
    run_index(settings, store, embedder, [corpus], project="p")
    assert_same_graph(cold, dump(store))
    (corpus / "murati.txt").write_text(EDITED, encoding="utf-8")
    run_index(settings, store, embedder, [corpus], project="p")
    assert_same_graph(edited, dump(store))


def _entities(store: GraphStore) -> dict[str, Any]:
    """Each entity's description and whether it has a vector, by id."""
    rows = store.query(
        "MATCH (e:__Entity__) RETURN e.id AS id, e.description AS description, e.embedding IS NOT NULL AS embedded"
    )
    return {row["id"]: row for row in rows}


def _entity_part(graph: Dump) -> Dump:
    """The entities with their vectors and the RELATED edges of a dump: what the mentions alone decide (a resumed
    run recomputes the communities from scratch, an uninterrupted edit keeps the unchanged ones)."""
    nodes, rels, vectors = graph
    entities = [node for node in nodes if "__Entity__" in node[0]]
    ids = {json.loads(props)["id"] for _labels, props in entities}
    return entities, [r for r in rels if r[1] == "RELATED"], {i: v for i, v in vectors.items() if i in ids}


def test_a_run_killed_before_the_vectors_leaves_no_rewritten_entity_with_its_old_vector(
    graph, corpus, embedder
) -> None:
    """An edit rewrites entities that had vectors; killed after the entities, RELATED and communities are written
    but before their vectors, the rewritten entities have none (so the next run embeds them again) and the new
    communities are written without theirs; the resumed run's entities, vectors and RELATED are those of the edit
    run uninterrupted, and every community has its vector. Fails when a rewrite keeps the entity's old vector (the
    resumed run would keep it too)."""
    settings, store = graph

    def kill(event: StageProgress) -> None:
        if event.stage == "vectors" and event.done == 0:
            raise KilledError(event.stage)

    run_index(settings, store, embedder, [corpus], project="p")
    (corpus / "murati.txt").write_text(EDITED, encoding="utf-8")
    run_index(settings, store, embedder, [corpus], project="p")
    uninterrupted = _entity_part(dump(store))

    store.clear()
    (corpus / "murati.txt").write_text(DOCS["murati.txt"], encoding="utf-8")
    run_index(settings, store, embedder, [corpus], project="p")
    before = _entities(store)
    assert all(row["embedded"] for row in before.values())
    (corpus / "murati.txt").write_text(EDITED, encoding="utf-8")
    with pytest.raises(KilledError):
        run_index(settings, store, embedder, [corpus], project="p", on_progress=kill)
    killed = _entities(store)
    rewritten = [i for i, row in killed.items() if i in before and row["description"] != before[i]["description"]]
    assert rewritten and not any(killed[i]["embedded"] for i in rewritten)
    assert store.query("MATCH (k:__Community__) WHERE k.embedding IS NULL RETURN k.id AS id")
    run_index(settings, store, embedder, [corpus], project="p")
    assert_same_graph(uninterrupted, _entity_part(dump(store)))
    assert not store.query("MATCH (k:__Community__) WHERE k.embedding IS NULL RETURN k.id AS id")
