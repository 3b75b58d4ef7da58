"""Writing a batch of indexed documents: a few statements per batch, each document finished after all of them.

Why batches: one write transaction per statement and document made a corpus of many small documents slow per
word; why finished last: a run killed midway redoes the whole batch, never half a document.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from retrieval.indexing.chunking import Chunk
from retrieval.indexing.model import ChunkExtraction, document_id, entity_id
from retrieval.indexing.repo_facts import DocumentFacts
from retrieval.indexing.repo_graph import RepoGraph
from retrieval.indexing.report import DocumentEvent
from retrieval.indexing.sources import SourceDocument

Row = dict[str, Any]


@dataclass
class WrittenDocument:
    """One document ready to write: its chunks with their vectors and extractions, its repository facts, and what
    writing it does (indexed, updated, or failed with the reason)."""

    doc: SourceDocument
    chunks: list[Chunk]
    vectors: np.ndarray
    found: list[ChunkExtraction]
    facts: DocumentFacts
    outcome: DocumentEvent
    #: False when the graph held no node of the document as the run began: it owns nothing to clear first.
    stored: bool = True


def write_documents(
    graph: RepoGraph, project: str, batch: Sequence[WrittenDocument], source: Mapping[str, str]
) -> dict[str, int]:
    """Write `batch` (`source`: where each path was read from); returns what was written, by kind."""
    ids = [document_id(project, w.doc.path) for w in batch]
    pairs = list(zip(ids, batch, strict=True))
    graph.begin_documents(
        [
            {
                "id": i,
                "path": w.doc.path,
                "title": w.doc.title,
                "source": source.get(w.doc.path, ""),
                "size": len(w.doc.text.encode()),
                "stored": w.stored,
            }
            for i, w in pairs
        ]
    )
    chunk_rows: list[Row] = []
    mention_rows: list[Row] = []
    for doc_id, written in pairs:
        chunks, mentions = document_rows(project, doc_id, written)
        chunk_rows += chunks
        mention_rows += mentions
    graph.write_chunks(chunk_rows)
    graph.write_mentions(mention_rows)
    counts = {"chunks": len(chunk_rows), "mentions": len(mention_rows)}
    for doc_id, written in pairs:
        for key, n in graph.write(doc_id, written.doc.path, written.facts).items():
            counts[key] = counts.get(key, 0) + n
    graph.finish_documents(
        [
            {"id": i, "hash": w.doc.content_hash, "status": w.outcome.status, "reason": w.outcome.reason}
            for i, w in pairs
        ]
    )
    return counts


def document_rows(project: str, doc_id: str, written: WrittenDocument) -> tuple[list[Row], list[Row]]:
    """The chunk rows (with their vectors and claimed relations) and mention rows of one document."""
    doc = written.doc
    chunk_rows: list[Row] = []
    mention_rows: list[Row] = []
    for chunk, vector, extraction in zip(written.chunks, written.vectors, written.found, strict=True):
        chunk_id = f"{doc_id}:{chunk.n}"
        claims = [
            [entity_id(project, r.source), entity_id(project, r.target), r.weight, r.description, r.directed]
            for r in extraction.relations
        ]
        chunk_rows.append(
            {
                "id": chunk_id,
                "text": chunk.text,
                "n": chunk.n,
                "start": chunk.start,
                "end": chunk.end,
                "document_id": doc_id,
                "document_name": doc.title,
                "path": doc.path,
                # 0 for prose: every chunk has the keys, so search projections always include them
                "line_start": chunk.lines[0] if chunk.lines else 0,
                "line_end": chunk.lines[1] if chunk.lines else 0,
                "symbol": chunk.symbol,
                "relations": json.dumps(claims),
                # the embedder's float32 row as it is: the stores write it exactly and cheaper than a float list
                "embedding": vector,
            }
        )
        mention_rows.extend(
            {
                "chunk": chunk_id,
                "entity": entity_id(project, m.key),
                "surface": m.surface,
                "type": m.type,
                "count": m.count,
                "evidence": m.evidence,
            }
            for m in extraction.mentions
        )
    return chunk_rows, mention_rows
