"""Import knowledge graphs written by neo4j-graphrag's SimpleKGPipeline (its JSON export) into a project.

The export is a lexical graph (Document <-FROM_DOCUMENT- Chunk, NEXT_CHUNK) plus entities under
their own labels (Company, RiskFactor, ...) tied to the chunk they came from by FROM_CHUNK, and
typed relationships between entities. Entities are not resolved (one APPLE INC node per chunk) and
there are no communities, so the import writes only what a native run extracts -- chunks with
their mentions (type = source label) and relation claims (the type in the description) -- and then
lets the indexer's own reconcile stage resolve entities, aggregate RELATED, run Leiden and write
extractive community reports. The project is marked dirty before the first write, so an import
killed half-way is finished by the next import or index run.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from retrieval.config import Settings
from retrieval.embed import Embedder
from retrieval.errors import DriftLensError
from retrieval.indexing.importers.common import (
    ImportedChunk,
    ImportedDocument,
    ImportedMention,
    Importer,
    ImportReport,
)
from retrieval.indexing.model import ProgressCallback, document_id, entity_id, slug
from retrieval.indexing.sources import content_hash
from retrieval.store.base import GraphStore

#: neo4j-graphrag's lexical graph names (its LexicalGraphConfig defaults).
DOCUMENT, CHUNK = "Document", "Chunk"
FROM_DOCUMENT, FROM_CHUNK, NEXT_CHUNK = "FROM_DOCUMENT", "FROM_CHUNK", "NEXT_CHUNK"


@dataclass(frozen=True)
class _Node:
    id: str
    label: str
    props: dict[str, Any]

    @property
    def name(self) -> str:
        return str(self.props.get("name") or self.id)


def _overlap(before: str, after: str) -> int:
    """Characters `after` repeats from the end of `before` (the splitter's overlap)."""
    for size in range(min(len(before), len(after)), 0, -1):
        if before.endswith(after[:size]):
            return size
    return 0


def _offsets(texts: list[str]) -> list[tuple[int, int]]:
    """Document offsets of consecutive, overlapping chunks, derived from the verbatim overlap."""
    out: list[tuple[int, int]] = []
    start = 0
    for i, text in enumerate(texts):
        if i:
            start = out[-1][1] - _overlap(texts[i - 1], text)
        out.append((start, start + len(text)))
    return out


@dataclass(frozen=True)
class Export:
    """A SimpleKGPipeline JSON export as written: nodes with their vectors, typed relationships."""

    nodes: dict[str, _Node]
    vectors: dict[str, dict[str, list[float]]]  # node id -> embedding property -> vector
    edges: list[tuple[str, str, str]]  # (start id, type, end id)


def read_export(path: Path) -> Export:
    """Parse one export, or raise DriftLensError naming the file and what is wrong with it."""
    try:
        raw = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DriftLensError(f"Cannot read {path}: {exc}") from exc
    try:
        data = json.loads(raw)
        nodes = {n["id"]: _Node(n["id"], n["label"], n.get("properties") or {}) for n in data["nodes"]}
        vectors = {n["id"]: dict(n["embedding_properties"]) for n in data["nodes"] if n.get("embedding_properties")}
        edges = [(r["start_node_id"], r["type"], r["end_node_id"]) for r in data["relationships"]]
    except (ValueError, KeyError, TypeError) as exc:
        raise DriftLensError(
            f"{path} is not a neo4j-graphrag graph export ({type(exc).__name__}: {exc}); "
            "expected JSON with `nodes` (id, label, properties) and `relationships` (start_node_id, type, end_node_id)."
        ) from exc
    return Export(nodes, vectors, edges)


def read_kg(path: Path, project: str, limit: int | None = None) -> tuple[list[ImportedDocument], dict[str, int]]:
    """Documents with their first `limit` chunks (all when None), and what the file held."""
    export = read_export(path)
    nodes, edges = export.nodes, export.edges
    chunks_of: dict[str, list[_Node]] = defaultdict(list)
    entities_of: dict[str, list[_Node]] = defaultdict(list)
    for start, kind, end in edges:
        if kind == FROM_DOCUMENT:
            chunks_of[end].append(nodes[start])
        elif kind == FROM_CHUNK:
            entities_of[end].append(nodes[start])
    chunk_of_entity = {e.id: chunk for chunk, found in entities_of.items() for e in found}
    claims: dict[str, list[tuple[str, str, float, str]]] = defaultdict(list)
    for start, kind, end in edges:
        if kind not in (FROM_DOCUMENT, FROM_CHUNK, NEXT_CHUNK) and start in chunk_of_entity and end in chunk_of_entity:
            a, b = nodes[start], nodes[end]
            claim = (
                entity_id(project, slug(a.name)),
                entity_id(project, slug(b.name)),
                1.0,
                f"{a.name} {kind} {b.name}.",
            )
            for chunk in {chunk_of_entity[start], chunk_of_entity[end]}:
                claims[chunk].append(claim)
    docs = []
    for node in (n for n in nodes.values() if n.label == DOCUMENT):
        source_path = str(node.props.get("path") or node.id)
        doc_id = document_id(project, source_path)
        ordered = sorted(chunks_of[node.id], key=lambda c: int(c.props.get("index", 0)))
        texts = [str(c.props.get("text") or "") for c in ordered]
        chunks = [
            ImportedChunk(
                n,
                text,
                start,
                end,
                tuple(
                    ImportedMention(entity_id(project, slug(e.name)), e.name, e.label)
                    for e in entities_of[c.id]
                    if slug(e.name)
                ),
                tuple(claims[c.id]),
            )
            for n, (c, text, (start, end)) in enumerate(zip(ordered, texts, _offsets(texts), strict=True))
        ][:limit]
        title = PurePosixPath(source_path).stem
        docs.append(ImportedDocument(doc_id, source_path, title, content_hash("\n".join(texts)), tuple(chunks)))
    held = {
        "documents": len(docs),
        "chunks": sum(len(c) for c in chunks_of.values()),
        "entity_nodes": sum(len(e) for e in entities_of.values()),
        "relationships": sum(1 for _s, kind, _e in edges if kind not in (FROM_DOCUMENT, FROM_CHUNK, NEXT_CHUNK)),
    }
    return docs, held


def import_kg(
    settings: Settings,
    store: GraphStore,
    embedder: Embedder,
    files: Sequence[Path],
    *,
    project: str | None = None,
    limit: int | None = None,
    on_progress: ProgressCallback | None = None,
) -> ImportReport:
    """Import (or re-import, idempotently) SimpleKGPipeline exports; `limit` keeps each document's first chunks."""
    if limit is not None and limit < 1:
        raise DriftLensError(f"limit must be at least 1 chunk per document, got {limit}.")
    report = ImportReport(project=project or settings.project, source=", ".join(map(str, files)), kind="neo4j-kg")
    run = Importer(settings, store, embedder, report, on_progress)
    docs: list[ImportedDocument] = []
    with run.stage("read", len(files)):
        for path in files:
            found, held = read_kg(path, report.project, limit)
            docs.extend(found)
            report.read = {k: report.read.get(k, 0) + v for k, v in held.items()}
    report.read["chunks_imported"] = sum(len(d.chunks) for d in docs)
    run.index_run()
    run.graph.set_dirty(True)
    run.write_documents(docs)
    report.reconcile = run.index_run()
    return report
