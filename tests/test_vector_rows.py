"""The indexer writes each vector as the embedder's float32 row, and the graph stores exactly the values it stored
when the row went in as a Python float list: bit for bit, on both backends. Why it matters: the rows are the cheap
way in (store/falkordb_params.py), and a vector that moved in its last bit would move every search score with it."""

# ruff: noqa: F811 (the fixtures imported from tests.indexing_runs are parameters here)
from __future__ import annotations

import numpy as np

from retrieval.indexing import run_index
from retrieval.indexing.graph import IndexGraph
from retrieval.store import GraphStore
from tests.indexing_runs import corpus, graph  # noqa: F401 (fixtures)

DIM = 384


def _awkward() -> np.ndarray:
    """Unit rows as the embedder returns them, and a row of the float32 values hardest to write as text: the
    smallest subnormal and normal, the largest, -0.0, thirds, and values whose float64 repr takes 17 digits."""
    rows = np.random.default_rng(7).normal(size=(3, DIM)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    f32 = np.finfo(np.float32)
    edge = np.resize(
        np.array([f32.smallest_subnormal, f32.tiny, f32.max, -0.0, 1 / 3, -2 / 3, 0.1, 1e-7], dtype=np.float32), DIM
    )
    return np.vstack([rows, edge[None, :]])


def _stored(store: GraphStore, ids: list[str]) -> np.ndarray:
    label = store.settings.entity_label
    rows = store.read(f"MATCH (e:`{label}`) WHERE e.id IN $ids RETURN e.id AS id, e.embedding AS v", {"ids": ids})
    by_id = {row["id"]: row["v"] for row in rows}
    return np.array([by_id[i] for i in ids], dtype=np.float32)


def test_a_float32_row_is_stored_bit_for_bit_as_the_same_values_as_a_float_list(graph) -> None:
    """Each vector written twice, once as the float32 row and once as the Python float list the indexer sent
    before: both stored vectors hold the row's very bits (-0.0 and the subnormals included)."""
    settings, store = graph
    vectors = _awkward()
    ids = [f"row{i}" for i in range(len(vectors))] + [f"list{i}" for i in range(len(vectors))]
    store.write_batch(
        f"UNWIND $rows AS row CREATE (:`{settings.entity_label}` {{id: row.id, projectId: 'p'}})",
        [{"id": i} for i in ids],
        100,
    )
    rows = [{"id": f"row{i}", "type": "thing", "embedding": v} for i, v in enumerate(vectors)]
    lists = [{"id": f"list{i}", "type": "thing", "embedding": v.tolist()} for i, v in enumerate(vectors)]
    IndexGraph(store, settings, "p").write_vectors(settings.entity_label, rows + lists)
    as_rows, as_lists = _stored(store, ids[: len(vectors)]), _stored(store, ids[len(vectors) :])
    assert np.array_equal(as_rows.view(np.uint32), vectors.view(np.uint32))
    assert np.array_equal(as_lists.view(np.uint32), vectors.view(np.uint32))


def test_an_indexed_chunk_holds_its_texts_vector_bit_for_bit(graph, corpus, embedder) -> None:
    """Through the whole run: each stored chunk vector is the embedder's vector of the chunk's text, to the bit
    (a text's vector does not depend on the batch it was embedded in: tests/test_embed.py)."""
    settings, store = graph
    run_index(settings, store, embedder, [corpus], project="p")
    rows = store.read(f"MATCH (c:`{settings.chunk_label}`) RETURN c.text AS text, c.embedding AS v ORDER BY c.id")
    assert rows
    stored = np.array([row["v"] for row in rows], dtype=np.float32)
    expected = np.vstack([embedder.embed([row["text"]]) for row in rows])
    assert np.array_equal(stored.view(np.uint32), expected.view(np.uint32))
