"""Re-embed a graph's chunks and entities with the configured embedder, into the property and indexes settings name.

Why: a graph built by another tool carries vectors of its own model (neo4j-graphrag's workshop: 1536-d OpenAI
embeddings), which DriftLens cannot produce offline and so cannot compare a question with. Re-embedding
the chunk text (and each entity's name) with DriftLens's embedder into a new property, under new vector
indexes, leaves the other tool's vectors and indexes as they were: both keep working side by side.

Resumable: only nodes without the target property are embedded, so a run stopped half-way is finished by
the next one. The vector and fulltext indexes are created once the vectors are written.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from retrieval.config import Settings
from retrieval.embed import Embedder
from retrieval.errors import ConfigError
from retrieval.store.base import GraphStore
from retrieval.store.records import ident

#: Nodes read, embedded and written per round trip.
BATCH = 64

ReembedProgress = Callable[[str, int], None]


@dataclass
class ReembedReport:
    """Nodes embedded per label in this run, and the indexes that now serve the embedder's vectors."""

    embedded: dict[str, int] = field(default_factory=dict)
    indexes: list[str] = field(default_factory=list)


def reembed(
    settings: Settings, store: GraphStore, embedder: Embedder, *, on_progress: ReembedProgress | None = None
) -> ReembedReport:
    """Embed every chunk's text and every entity's name that lacks `settings.embedding_property`; index them."""
    s = settings
    report = ReembedReport()
    targets = (
        (s.chunk_label, s.text_property, s.chunk_vector_index),
        (s.entity_label, s.entity_name_property, s.entity_vector_index),
    )
    for label, text_property, index in targets:
        existing = store.vector_dimension(label, s.embedding_property)
        if existing is not None and existing != embedder.dim:
            raise ConfigError(
                f"The vector index on {label}.{s.embedding_property} is {existing}-d but the embedder "
                f"{embedder.name} makes {embedder.dim}-d vectors. Set DRIFTLENS_EMBEDDING_PROPERTY to a new "
                "property (e.g. embedding_minilm) so the new vectors go beside the existing ones."
            )
        report.embedded[label] = _embed_label(
            store,
            embedder,
            prop=s.embedding_property,
            label=label,
            text_property=text_property,
            on_progress=on_progress,
        )
        if report.embedded[label] or store.counts([label])[label]:
            store.ensure_vector_index(index, label, s.embedding_property, embedder.dim)
            report.indexes.append(index)
    if s.chunk_fulltext_index:
        store.ensure_fulltext_index(s.chunk_fulltext_index, s.chunk_label, [s.text_property])
        report.indexes.append(s.chunk_fulltext_index)
    if s.entity_fulltext_index:
        store.ensure_fulltext_index(s.entity_fulltext_index, s.entity_label, [s.entity_name_property, "description"])
        report.indexes.append(s.entity_fulltext_index)
    return report


def _embed_label(
    store: GraphStore,
    embedder: Embedder,
    *,
    prop: str,
    label: str,
    text_property: str,
    on_progress: ReembedProgress | None,
) -> int:
    """Embed `label` nodes missing `prop`, a batch at a time (each batch written before the next is read)."""
    node, text, target = ident(label), ident(text_property), ident(prop)
    done = 0
    while True:
        rows = store.read(
            f"MATCH (n:{node}) WHERE n.{target} IS NULL AND n.id IS NOT NULL AND n.{text} IS NOT NULL "
            f"RETURN n.id AS id, n.{text} AS text LIMIT $n",
            {"n": BATCH},
        )
        if not rows:
            return done
        vectors = embedder.embed([str(r["text"]) for r in rows])
        store.write_batch(
            f"UNWIND $rows AS row MATCH (n:{node} {{id: row.id}}) SET n.{target} = {store.vec('row.v')}",
            [{"id": r["id"], "v": v} for r, v in zip(rows, vectors, strict=True)],  # float32 rows, as the indexer
        )
        done += len(rows)
        if on_progress:
            on_progress(label, done)
