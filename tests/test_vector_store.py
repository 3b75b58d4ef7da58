"""The vector half of the store contract, on every VectorStore adapter: the graph's own indexes and Qdrant's
local mode (real qdrant-client, no server), each over the shared graph store fixture."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from pydantic import SecretStr

from retrieval.errors import EmbeddingMismatch, VectorStoreUnavailable
from retrieval.store import GraphStore
from retrieval.store.base import open_vectors
from retrieval.store.vectors import VectorStore
from retrieval.text.redact import register_secrets
from tests import test_store_contract as contract

pytestmark = pytest.mark.fresh_schema  # the contract's 16-dimensional vectors in the module graph
DIM, N = contract.DIM, contract.N
#: The store contract's clustered unit vectors (10 clusters, so nearest neighbours are meaningful and filters bite).
corpus = contract.corpus


@pytest.fixture(scope="module", params=["graph", "qdrant"])
def vectors(
    request: pytest.FixtureRequest,
    module_store: GraphStore,
    corpus: np.ndarray,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[VectorStore]:
    """300 chunk nodes of project `vc-<adapter>` in the graph, their vectors in the adapter under test."""
    settings = module_store.settings.model_copy(
        update={"vector_store": request.param, "qdrant_path": tmp_path_factory.mktemp("qdrant")}
    )
    store = open_vectors(module_store, settings)
    project = f"vc-{request.param}"
    label = settings.chunk_label
    module_store.ensure_schema(DIM)
    store.ensure(DIM)
    rows = [
        {
            "id": f"{project}:c{i}",
            "text": f"passage {i}",
            "group": f"g{i % 3}",
            "n": i,
            "document_id": f"d{i % 4}",
            "type": "chunk",
            "projectId": project,
            "embedding": corpus[i].tolist(),
        }
        for i in range(N)
    ]
    vector_set = f", c.embedding = {module_store.vec('row.embedding')}" if store.in_graph else ""
    module_store.write_batch(
        f"UNWIND $rows AS row MERGE (c:`{label}` {{id: row.id}}) SET c.text = row.text, c.group = row.group, "
        f"c.n = row.n, c.document_id = row.document_id, c.projectId = row.projectId{vector_set}",
        rows,
        batch_size=100,
    )
    store.upsert(label, rows)
    yield store
    module_store.query(f"MATCH (c:`{label}` {{projectId: $p}}) DETACH DELETE c", {"p": project})


def project_of(store: VectorStore) -> str:
    return f"vc-{store.name}"


def n_of(hit_id: str) -> int:
    return int(hit_id.rsplit(":c", 1)[1])


def test_search_returns_graph_ids_with_similarity_matching_exact_cosine(vectors: VectorStore, corpus) -> None:
    label, project = vectors.settings.chunk_label, project_of(vectors)
    query = corpus[42]
    hits = vectors.search(label, query.tolist(), 10, filters={"projectId": project})
    exact = corpus @ query
    assert hits[0].id == f"{project}:c42" and hits[0].score == pytest.approx(1.0, abs=1e-3)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert all(h.score == pytest.approx(float(exact[n_of(h.id)]), abs=1e-3) for h in hits)
    recall = len({n_of(h.id) for h in hits} & set(np.argsort(-exact)[:10].tolist())) / 10
    assert recall >= 0.9
    # Properties come from the graph, without the vector.
    assert hits[0].props["text"] == "passage 42" and "embedding" not in hits[0].props


def test_filtered_search_fills_top_k_with_payload_and_graph_filters(vectors: VectorStore, corpus) -> None:
    label, project = vectors.settings.chunk_label, project_of(vectors)
    # Cluster 0 is c0, c10, ...; document_id cycles over 4 values, so the filter drops 3/4 of the nearest.
    hits = vectors.search(label, corpus[0].tolist(), 20, filters={"projectId": project, "document_id": "d1"})
    assert len(hits) == 20 and all(h.props["document_id"] == "d1" for h in hits)
    # `group` and `n` are graph properties only: the graph applies them and top-k still fills.
    mixed = {"projectId": project, "document_id": ["d1", "d2"], "group": "g1", "n": {"gte": 100}}
    hits = vectors.search(label, corpus[0].tolist(), 5, filters=mixed)
    assert len(hits) == 5
    assert all(h.props["group"] == "g1" and h.props["n"] >= 100 and h.props["document_id"] != "d0" for h in hits)
    assert vectors.search(label, corpus[0].tolist(), 5, filters={"projectId": project, "document_id": "nope"}) == []
    assert vectors.search(label, corpus[0].tolist(), 5, filters={"projectId": "no-such-project"}) == []


def test_exact_search_ranks_an_id_set(vectors: VectorStore, corpus) -> None:
    label, project = vectors.settings.chunk_label, project_of(vectors)
    picked = list(range(5, N, 7))
    query = corpus[12]
    hits = vectors.exact_search(label, query.tolist(), 10, filters={"id": [f"{project}:c{i}" for i in picked]})
    exact = {i: float(corpus[i] @ query) for i in picked}
    assert [n_of(h.id) for h in hits] == sorted(exact, key=lambda i: -exact[i])[:10]
    assert vectors.exact_search(label, query.tolist(), 3, filters={"id": ["nope"]}) == []


def test_ids_and_delete(vectors: VectorStore, corpus) -> None:
    label, project = vectors.settings.chunk_label, project_of(vectors)
    assert vectors.ids(label, project) == {f"{project}:c{i}" for i in range(N)}
    if vectors.in_graph:
        return  # the graph adapter's vectors go with their nodes; deleting nodes is the graph's contract
    vectors.delete(label, [f"{project}:c0", f"{project}:c1"])
    vectors.delete_document("d3")
    left = {f"{project}:c{i}" for i in range(N) if i > 1 and i % 4 != 3}
    assert vectors.ids(label, project) == left
    assert vectors.search(label, corpus[0].tolist(), 1, filters={"projectId": project})[0].id != f"{project}:c0"


@pytest.mark.parametrize("vectors", ["qdrant"], indirect=True)  # the graph's own index: the indexer checks it
def test_qdrant_refuses_vectors_of_another_dimension(vectors: VectorStore) -> None:
    assert not vectors.in_graph
    with pytest.raises(EmbeddingMismatch):
        vectors.ensure(DIM * 2)


def test_an_unreachable_qdrant_server_is_one_clear_error_without_the_key(module_store: GraphStore) -> None:
    key = "qdrant-test-key-do-not-print"
    settings = module_store.settings.model_copy(
        update={"vector_store": "qdrant", "qdrant_url": "https://127.0.0.1:9", "qdrant_api_key": SecretStr(key)}
    )
    register_secrets([key])
    store = open_vectors(module_store, settings)
    for call in (lambda: store.ensure(DIM), lambda: store.search(settings.chunk_label, [0.1] * DIM, 3)):
        with pytest.raises(VectorStoreUnavailable) as caught:
            call()
        assert "127.0.0.1:9" in str(caught.value) and "QDRANT_API_KEY" in str(caught.value)
        assert key not in str(caught.value)
