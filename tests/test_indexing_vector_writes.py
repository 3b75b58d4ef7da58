"""A run killed after the entities, RELATED and the communities are written but before their vectors (written
after them, so that the graph server's writes run while the vectors are embedded: test_indexing_overlap.py) leaves
no entity with an old vector, and the next run completes the graph. Both graph backends, the real ONNX embedder."""

# ruff: noqa: F811 (the fixtures imported from tests.indexing_runs are parameters here)
from __future__ import annotations

import json
from typing import Any

import pytest

from retrieval.indexing import StageProgress, run_index
from retrieval.store import GraphStore
from tests.indexing_runs import DOCS, Dump, KilledError, assert_same_graph, corpus, dump, graph  # noqa: F401 (fixtures)

EDITED = "Mira Murati founded Thinking Machines Lab in San Francisco after she left OpenAI."


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
