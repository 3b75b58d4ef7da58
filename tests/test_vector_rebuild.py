"""Vector indexes rebuilt after a bulk write (`GraphStore.rebuild_vector_indexes`, `store/neo4j_rebuild.py`).

On Neo4j a bulk write's index is dropped and created again with the same configuration, and searches find what
they found before; a small write leaves it as written. The embedded store's index grows in place: nothing to do.
"""

from __future__ import annotations

import numpy as np
import pytest

from retrieval.store import GraphStore, neo4j_rebuild
from retrieval.store.records import Row

pytestmark = pytest.mark.fresh_schema

DIM = 16
N = 60


def _write(store: GraphStore) -> np.ndarray:
    """N chunk vectors in transactions of 10 (on Neo4j, a Lucene segment each), clustered around 6 centres."""
    store.ensure_schema(DIM)
    rng = np.random.default_rng(3)
    vectors = rng.normal(size=(6, DIM))[np.arange(N) % 6] + 0.2 * rng.normal(size=(N, DIM))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    label = store.settings.chunk_label
    rows = [{"id": f"c{i}", "v": vectors[i].tolist()} for i in range(N)]
    store.write_batch(
        f"UNWIND $rows AS row MERGE (c:`{label}` {{id: row.id}}) SET c.embedding = {store.vec('row.v')}", rows, 10
    )
    return vectors


def _vector_indexes(store: GraphStore) -> dict[str, Row]:
    rows = store.query("SHOW INDEXES YIELD id, name, type, state, options WHERE type = 'VECTOR' RETURN *")
    return {str(r["name"]): r for r in rows}


def test_a_bulk_write_rebuilds_its_vector_index_and_searches_find_the_same(
    store: GraphStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(neo4j_rebuild, "MIN_VECTORS", N)
    vectors = _write(store)
    s = store.settings
    found = [[h.id for h in store.vector_search(s.chunk_label, v, 5)] for v in vectors[:6]]
    before = _vector_indexes(store) if store.backend == "neo4j" else {}
    rebuilt = store.rebuild_vector_indexes({s.chunk_label: N, s.entity_label: 0})
    assert [[h.id for h in store.vector_search(s.chunk_label, v, 5)] for v in vectors[:6]] == found
    if store.backend != "neo4j":
        assert rebuilt == []  # one HNSW structure that grows in place
        return
    assert rebuilt == [s.chunk_vector_index]
    after = _vector_indexes(store)
    chunk = s.chunk_vector_index
    assert after[chunk]["id"] != before[chunk]["id"] and after[chunk]["state"] == "ONLINE"
    assert after[chunk]["options"]["indexConfig"] == before[chunk]["options"]["indexConfig"]
    entity = s.entity_vector_index  # nothing written there: left as it was
    assert after[entity]["id"] == before[entity]["id"]


def test_a_small_write_leaves_the_index_as_written(store: GraphStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(neo4j_rebuild, "MIN_VECTORS", 10)
    _write(store)
    s = store.settings
    before = _vector_indexes(store) if store.backend == "neo4j" else {}
    # 29 of 60 is under half the label: an update, not a bulk load
    assert store.rebuild_vector_indexes({s.chunk_label: N // 2 - 1}) == []
    if store.backend == "neo4j":
        assert _vector_indexes(store)[s.chunk_vector_index]["id"] == before[s.chunk_vector_index]["id"]


def test_bulk_means_many_vectors_and_most_of_the_label() -> None:
    assert neo4j_rebuild.bulk(neo4j_rebuild.MIN_VECTORS, neo4j_rebuild.MIN_VECTORS)
    assert not neo4j_rebuild.bulk(neo4j_rebuild.MIN_VECTORS - 1, neo4j_rebuild.MIN_VECTORS - 1)  # too few to matter
    assert not neo4j_rebuild.bulk(5_000, 10_001)  # under half of the label
    assert neo4j_rebuild.bulk(5_000, 10_000)
