"""What both importers share: the native document/chunk/mention records and how they are written.

Why native records: an imported chunk carries the same HAS_ENTITY mentions (surface, type, count,
evidence sentence) and relation claims a native run writes, through the indexer's own writers
(IndexGraph). So the imported graph is searchable exactly like a native one, and the indexer's
reconcile stage (entities, RELATED, Leiden communities, summaries) can run on it unchanged.
Ids come from `document_id(project, path)`, so every node is namespaced by project and a second
import MERGEs onto the first instead of duplicating it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from retrieval.config import Settings
from retrieval.embed import Embedder
from retrieval.indexing.graph import IndexGraph
from retrieval.indexing.model import ProgressCallback, StageProgress
from retrieval.indexing.pipeline import IndexReport, run_index
from retrieval.search.evidence import sentences
from retrieval.store.base import GraphStore


@dataclass(frozen=True)
class ImportedMention:
    entity: str  # entity id, entity_id(project, key)
    surface: str
    type: str


@dataclass(frozen=True)
class ImportedChunk:
    n: int
    text: str
    start: int
    end: int
    mentions: tuple[ImportedMention, ...] = ()
    #: [source entity id, target entity id, weight, description], the shape a native chunk stores.
    claims: tuple[tuple[str, str, float, str], ...] = ()


@dataclass(frozen=True)
class ImportedDocument:
    id: str
    path: str
    title: str
    content_hash: str
    chunks: tuple[ImportedChunk, ...]

    def chunk_id(self, n: int) -> str:
        """The native chunk id scheme, so citations look the same whatever built the graph."""
        return f"{self.id}:{n}"


@dataclass
class ImportReport:
    """What an import read and did; `to_dict()` is the `--json` output of the import commands."""

    project: str
    source: str
    kind: str
    read: dict[str, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    #: The indexer's report of the reconcile that derived entities and communities (neo4j-graphrag imports).
    reconcile: IndexReport | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {k: getattr(self, k) for k in ("project", "source", "kind", "read", "seconds", "notes")}
        out["reconcile"] = self.reconcile.to_dict() if self.reconcile else None
        return out


class Importer:
    """One import into one project: the graph writers, the embedder, progress and timings."""

    def __init__(
        self,
        settings: Settings,
        store: GraphStore,
        embedder: Embedder,
        report: ImportReport,
        on_progress: ProgressCallback | None,
    ) -> None:
        self.settings = settings
        self.store = store
        self.embedder = embedder
        self.report = report
        self.graph = IndexGraph(store, settings, report.project)
        self.on_progress = on_progress

    @contextmanager
    def stage(self, name: str, total: int = 1) -> Iterator[None]:
        started = time.perf_counter()
        self.tick(name, 0, total)
        yield
        self.report.seconds[name] = round(time.perf_counter() - started, 3)
        self.tick(name, total, total)

    def tick(self, stage: str, done: int, total: int, message: str = "") -> None:
        if self.on_progress is not None:
            self.on_progress(StageProgress(stage, done, total, message))

    def index_run(self) -> IndexReport:
        """The indexer with no paths: it refuses another embedder, creates the indexes and the project node,
        and reconciles entities, RELATED and communities when the project is marked dirty."""
        return run_index(
            self.settings, self.store, self.embedder, [], project=self.report.project, on_progress=self.on_progress
        )

    def embed(self, texts: Sequence[str], stage: str) -> np.ndarray:
        with self.stage(stage, len(texts)):
            return self.embedder.embed(list(texts))

    def write_documents(self, docs: Sequence[ImportedDocument]) -> None:
        """Documents, chunks (re-embedded with our embedder) and mentions; a re-import replaces a document's chunks."""
        vectors = iter(self.embed([c.text for d in docs for c in d.chunks], "chunk embeddings"))
        with self.stage("write documents", len(docs)):
            for i, doc in enumerate(docs):
                self.graph.begin_document(doc.id, doc.path, doc.title)
                self.graph.write_chunks([_chunk_row(doc, chunk, next(vectors)) for chunk in doc.chunks])
                self.graph.write_mentions([row for chunk in doc.chunks for row in _mention_rows(doc, chunk)])
                self.graph.finish_document(doc.id, doc.content_hash)
                self.tick("write documents", i + 1, len(docs), doc.path)


def _chunk_row(doc: ImportedDocument, chunk: ImportedChunk, vector: np.ndarray) -> dict[str, Any]:
    return {
        "id": doc.chunk_id(chunk.n),
        "text": chunk.text,
        "n": chunk.n,
        "start": chunk.start,
        "end": chunk.end,
        "document_id": doc.id,
        "document_name": doc.title,
        "relations": json.dumps([list(claim) for claim in chunk.claims]),
        "embedding": vector,  # the embedder's float32 row, as the indexer writes it (document_writes)
    }


def _mention_rows(doc: ImportedDocument, chunk: ImportedChunk) -> list[dict[str, Any]]:
    """One row per entity in the chunk; several source nodes with one name become one mention."""
    lowered = chunk.text.lower()
    spans = sentences(chunk.text)
    rows: dict[str, dict[str, Any]] = {}
    for mention in chunk.mentions:
        if mention.entity in rows:
            continue
        needle = mention.surface.lower()
        evidence = next((s for s in spans if needle in s.lower()), "")
        rows[mention.entity] = {
            "chunk": doc.chunk_id(chunk.n),
            "entity": mention.entity,
            "surface": mention.surface,
            "type": mention.type,
            "count": max(1, lowered.count(needle)),
            "evidence": evidence,
        }
    return list(rows.values())
