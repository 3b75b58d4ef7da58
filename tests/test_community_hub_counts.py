"""The hub rule's counts (`community_hubs.find`) from the mentions the indexer reads back from the graph: an entity
reached more than once in a document (two chunks, two mention keys in one chunk) counts that document once, and a
pair of documents that shares two other entities is one linked pair, not two. Both backends, since the rows are
the store's (`IndexGraph.mentions`: a row per HAS_ENTITY relationship)."""

from __future__ import annotations

from retrieval.config import Settings
from retrieval.indexing import community_hubs
from retrieval.indexing.graph import IndexGraph
from retrieval.store import GraphStore

PROJECT = "hubs"
#: (chunk, entity, mention key): "hub" in four documents, twice in d1 (two chunks) and under two keys in d2:0; d1
#: and d2 share "x" and "y", d3 and d4 share "z": two of the six pairs linked (1/3 < LINKED), where counting a pair
#: once per shared entity would give 3/6, no longer under LINKED. "few" is in five chunks of three documents.
MENTIONS = [
    ("d1:0", "hub", "hub"),
    ("d1:1", "hub", "hub"),
    ("d2:0", "hub", "hub"),
    ("d2:0", "hub", "the-hub"),
    ("d3:0", "hub", "hub"),
    ("d4:0", "hub", "hub"),
    ("d1:0", "x", "x"),
    ("d2:0", "x", "x"),
    ("d1:1", "y", "y"),
    ("d2:0", "y", "y"),
    ("d3:0", "z", "z"),
    ("d4:0", "z", "z"),
    ("e1:0", "few", "few"),
    ("e1:1", "few", "few"),
    ("e2:0", "few", "few"),
    ("e2:0", "few", "a-few"),
    ("e3:0", "few", "few"),
]


def _written(settings: Settings, store: GraphStore) -> list[dict[str, object]]:
    """`MENTIONS` as chunks, entities and HAS_ENTITY relationships (one per row); the rows the indexer reads."""
    chunk, entity = settings.chunk_label, settings.entity_label
    store.write_batch(
        f"UNWIND $rows AS row CREATE (:`{chunk}` {{id: row.id, projectId: '{PROJECT}'}})",
        [{"id": c} for c in sorted({c for c, _e, _k in MENTIONS})],
    )
    store.write_batch(
        f"UNWIND $rows AS row CREATE (:`{entity}` {{id: row.id, projectId: '{PROJECT}'}})",
        [{"id": e} for e in sorted({e for _c, e, _k in MENTIONS})],
    )
    store.write_batch(
        f"UNWIND $rows AS row MATCH (c:`{chunk}` {{id: row.c}}), (e:`{entity}` {{id: row.e}}) "
        "CREATE (c)-[:HAS_ENTITY {key: row.k}]->(e)",
        [{"c": c, "e": e, "k": k} for c, e, k in MENTIONS],
    )
    return IndexGraph(store, settings, PROJECT).mentions()


def test_a_hub_counts_each_document_once_and_each_linked_pair_once(settings: Settings, store: GraphStore) -> None:
    mentions = _written(settings, store)
    assert len(mentions) == len(MENTIONS)  # the store gives a row per relationship: the rule must not count them
    hubs = community_hubs.find(mentions)
    assert hubs.documents["hub"] == frozenset({"d1", "d2", "d3", "d4"})
    assert hubs.documents["few"] == frozenset({"e1", "e2", "e3"})
    assert hubs.counts == {"hub": 4}
