"""A five-chunk, four-entity graph written directly (no indexing run): enough for agent and provider tests."""

from __future__ import annotations

from retrieval.embed import Embedder
from retrieval.store import GraphStore

PROJECT = "demo"
CHUNKS = {
    "c1": ("launch.md", "The Orion probe launches from Kourou on 14 March, funded by the European Space Agency."),
    "c2": ("launch.md", "Orion carries a magnetometer built by Delft University to map the solar wind."),
    "c3": ("budget.md", "The mission budget is 420 million euros, approved by the ESA council in 2024."),
    "c4": ("cafe.md", "The project cafeteria serves espresso and croissants every morning."),
    "c5": ("team.md", "Dr. Ana Ruiz leads the Orion science team and reports to the ESA council."),
}
ENTITIES = {
    "e1": ("Orion", "MISSION", ["c1", "c2", "c5"]),
    "e2": ("European Space Agency", "ORGANIZATION", ["c1", "c3"]),
    "e3": ("Delft University", "ORGANIZATION", ["c2"]),
    "e4": ("Ana Ruiz", "PERSON", ["c5"]),
}
RELATED = [("e1", "e2", "funded by"), ("e1", "e3", "instrument from"), ("e4", "e1", "leads")]


def build(store: GraphStore, embedder: Embedder) -> None:
    s = store.settings
    store.ensure_schema(embedder.dim)
    vectors = embedder.embed([text for _, text in CHUNKS.values()])
    chunk_rows = [
        {"id": cid, "text": text, "document_name": doc, "v": vectors[i].tolist()}
        for i, (cid, (doc, text)) in enumerate(CHUNKS.items())
    ]
    store.write_batch(
        f"UNWIND $rows AS row CREATE (c:`{s.chunk_label}` {{id: row.id, text: row.text, "
        f"document_name: row.document_name, projectId: '{PROJECT}'}}) SET c.embedding = {store.vec('row.v')}",
        chunk_rows,
    )
    entity_rows = [
        {"id": eid, "title": title, "type": kind, "chunks": chunks} for eid, (title, kind, chunks) in ENTITIES.items()
    ]
    store.write_batch(
        f"UNWIND $rows AS row CREATE (e:`{s.entity_label}` {{id: row.id, title: row.title, type: row.type, "
        f"description: row.title + ' (' + row.type + ')', projectId: '{PROJECT}'}}) "
        f"WITH e, row UNWIND row.chunks AS cid MATCH (c:`{s.chunk_label}` {{id: cid}}) CREATE (c)-[:HAS_ENTITY]->(e)",
        entity_rows,
    )
    store.write_batch(
        f"UNWIND $rows AS row MATCH (a:`{s.entity_label}` {{id: row.a}}), (b:`{s.entity_label}` {{id: row.b}}) "
        "CREATE (a)-[:RELATED {description: row.d, weight: 1.0}]->(b)",
        [{"a": a, "b": b, "d": d} for a, b, d in RELATED],
    )
