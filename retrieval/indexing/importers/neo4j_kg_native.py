"""Load neo4j-graphrag SimpleKGPipeline JSON exports into a graph *as the pipeline writes them*.

Why beside `neo4j_kg` (which converts an export into DriftLens's own model): bring-your-own-graph must be
shown on the graph another tool actually leaves in Neo4j, untouched by DriftLens, and pointed at by
settings alone. What neo4j-graphrag's Neo4jWriter writes, and this loader reproduces:

- every node gets the label `__KGBuilder__` and its own label (Document, Chunk, Company, RiskFactor, ...);
  nodes outside the lexical graph (the entities) also get `__Entity__`;
- each node keeps the export's `id` and its properties; vectors (`embedding_properties`) become vector
  properties of the same name (the chunks' 1536-d `embedding`);
- relationships keep their types (FROM_DOCUMENT, NEXT_CHUNK, FROM_CHUNK, FACES_RISK, ...), no properties;
- the writer's lookup index on `__KGBuilder__.id`, and the vector index over `Chunk.embedding` that the
  workshop creates for its retrievers, named as it names it (`chunkEmbeddings`, cosine).

No project node and no `projectId` are written, so DriftLens reads such a graph whole (see search.scope).
Loading again changes nothing (nodes and relationships are merged on id).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from retrieval.indexing.importers.neo4j_kg import CHUNK, DOCUMENT, read_export
from retrieval.store.base import GraphStore
from retrieval.store.records import ident

KG_BUILDER = "__KGBuilder__"
ENTITY = "__Entity__"
#: neo4j-graphrag's LexicalGraphConfig node labels: every other label is an entity.
LEXICAL_LABELS = frozenset({DOCUMENT, CHUNK})
#: The name the workshop gives the chunk vector index (`create_vector_index(..., "chunkEmbeddings", ...)`).
WORKSHOP_VECTOR_INDEX = "chunkEmbeddings"


@dataclass
class NativeLoad:
    """What was written: nodes per label, relationships per type, the vector index and its dimension."""

    nodes: dict[str, int] = field(default_factory=dict)
    relationships: dict[str, int] = field(default_factory=dict)
    vector_index: str | None = None
    dimension: int | None = None


def load_native(
    store: GraphStore, files: Sequence[Path], *, vector_index: str = WORKSHOP_VECTOR_INDEX, batch_size: int = 200
) -> NativeLoad:
    """Write each export's nodes, vectors and relationships, then the pipeline's indexes; returns the counts."""
    exports = [read_export(path) for path in files]  # every file parses before anything is written
    report = NativeLoad()
    store.ensure_range_index(KG_BUILDER, "id")
    for export in exports:
        by_label: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for node in export.nodes.values():
            by_label[node.label].append({"id": node.id, "props": dict(node.props)})
        for label, rows in by_label.items():
            labels = [KG_BUILDER, label] if label in LEXICAL_LABELS else [KG_BUILDER, label, ENTITY]
            pattern = ":".join(ident(name) for name in labels)
            store.write_batch(f"UNWIND $rows AS row MERGE (n:{pattern} {{id: row.id}}) SET n += row.props", rows)
            report.nodes[label] = report.nodes.get(label, 0) + len(rows)
        by_property: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for node_id, vectors in export.vectors.items():
            for prop, vector in vectors.items():
                by_property[prop].append({"id": node_id, "v": [float(x) for x in vector]})
        for prop, rows in by_property.items():
            store.write_batch(
                f"UNWIND $rows AS row MATCH (n:{KG_BUILDER} {{id: row.id}}) SET n.{ident(prop)} = {store.vec('row.v')}",
                rows,
                batch_size,
            )
            report.dimension = len(rows[0]["v"])
        by_type: dict[str, list[dict[str, str]]] = defaultdict(list)
        for start, kind, end in export.edges:
            by_type[kind].append({"s": start, "e": end})
        for kind, edges in by_type.items():
            store.write_batch(
                f"UNWIND $rows AS row MATCH (a:{KG_BUILDER} {{id: row.s}}) MATCH (b:{KG_BUILDER} {{id: row.e}}) "
                f"MERGE (a)-[:{ident(kind)}]->(b)",
                edges,
            )
            report.relationships[kind] = report.relationships.get(kind, 0) + len(edges)
    if report.dimension is not None:
        store.ensure_vector_index(vector_index, CHUNK, "embedding", report.dimension)
        report.vector_index = vector_index
    return report
