"""The copy that puts a shared graph back into the one Neo4j database must give the graph its builder gave."""

from __future__ import annotations

import pytest

from retrieval.context import Context
from retrieval.embed import Embedder
from retrieval.models import QueryParams
from retrieval.search.ranking import retrieve
from retrieval.store import GraphStore
from retrieval.store.neo4j import Neo4jStore
from tests.conftest import SEARCH_PROJECT, build_search_graph
from tests.neo4j_snapshot import Snapshot

pytestmark = [pytest.mark.neo4j_only, pytest.mark.usefixtures("backend")]


def _graph(store: GraphStore) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    """Every node (labels, properties) and relationship (its ends' ids, type, properties), in a stable order."""
    nodes = store.query("MATCH (n) RETURN labels(n) AS labels, properties(n) AS props")
    relationships = store.query(
        "MATCH (a)-[r]->(b) RETURN a.id AS a, b.id AS b, type(r) AS type, properties(r) AS props"
    )
    return (
        sorted((sorted(r["labels"]), sorted(r["props"].items())) for r in nodes),
        sorted((r["a"], r["b"], r["type"], sorted(r["props"].items())) for r in relationships),
    )


def _search(store: GraphStore, embedder: Embedder) -> list[tuple[str, float]]:
    ctx = Context(store.settings, store, embedder, None, SEARCH_PROJECT)
    hits = retrieve(
        ctx, "Who discovered polonium with Pierre?", QueryParams.from_settings(store.settings), walk=False
    ).chunks
    return [(hit.id, round(hit.score, 9)) for hit in hits]


def test_a_restored_graph_is_the_built_graph(store: GraphStore, embedder: Embedder) -> None:
    build_search_graph(store, embedder)
    built, found = _graph(store), _search(store, embedder)
    snapshot = Snapshot.take(store)
    assert isinstance(store, Neo4jStore)
    store.delete_data()
    assert store.query("MATCH (n) RETURN count(n) AS n")[0]["n"] == 0
    assert snapshot.fits(store)  # emptied, the schema kept

    snapshot.restore(store)

    assert _graph(store) == built
    assert built[0] and built[1]
    assert _search(store, embedder) == found


def test_a_snapshot_does_not_fit_a_database_whose_schema_was_dropped(store: GraphStore, embedder: Embedder) -> None:
    build_search_graph(store, embedder)
    snapshot = Snapshot.take(store)
    store.clear()
    assert not snapshot.fits(store)
