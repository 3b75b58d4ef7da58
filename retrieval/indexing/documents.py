"""The documents a project holds, as the Documents page, `GET /v1/documents` and the MCP tool list them; and a
re-index of one of them.

Why one read per count rather than one query with every OPTIONAL MATCH: counting chunks and distinct entities per
document in one pattern multiplies rows (chunks x mentions) before aggregating; three flat reads stay linear in
the project's size on both backends.
"""

from __future__ import annotations

from dataclasses import dataclass

from retrieval.config import Settings
from retrieval.embed import Embedder
from retrieval.errors import DriftLensError
from retrieval.indexing.graph import IndexGraph
from retrieval.indexing.model import ProgressCallback
from retrieval.indexing.pipeline import run_index
from retrieval.indexing.report import DocumentCallback, IndexReport
from retrieval.indexing.roots import allowed_source
from retrieval.llm.client import ChatModel
from retrieval.store.base import GraphStore
from retrieval.store.labels import Labels

UPLOAD = "upload"
#: Where a document written before this listing existed came from, and what its status was: unknown.
UNKNOWN = ""


@dataclass(frozen=True)
class DocumentInfo:
    """One stored document. `status` is what the last run that touched it did (`failed` with an unfinished write:
    the next run redoes it); `source` is the folder, file or archive it was read from, or `upload`."""

    id: str
    project: str
    title: str
    path: str
    source: str
    size: int
    chunks: int
    entities: int
    indexed_at: str
    content_hash: str
    status: str
    reason: str


def list_documents(store: GraphStore, settings: Settings, project: str | None) -> list[DocumentInfo]:
    """Every document of `project` (None: of every project), by path."""
    lab = Labels.of(settings)
    where = "WHERE $project IS NULL OR d.projectId = $project"
    params = {"project": project}
    rows = store.read(
        f"MATCH (d:{lab.document}) {where} RETURN d.id AS id, d.projectId AS project, d.title AS title, "
        "d.path AS path, d.source AS source, d.size AS size, d.content_hash AS hash, d.status AS status, "
        "d.status_reason AS reason, coalesce(d.indexed_at, d.updated_at, d.ingested_at) AS indexed_at",
        params,
    )
    chunk_where = "WHERE $project IS NULL OR c.projectId = $project"
    chunks = store.read(
        f"MATCH (c:{lab.chunk}) {chunk_where} RETURN c.document_id AS id, count(c) AS n",
        params,
    )
    entities = store.read(
        f"MATCH (c:{lab.chunk})-[:HAS_ENTITY]->(e:{lab.entity}) {chunk_where} "
        "RETURN c.document_id AS id, count(DISTINCT e) AS n",
        params,
    )
    chunk_count = {r["id"]: int(r["n"]) for r in chunks}
    entity_count = {r["id"]: int(r["n"]) for r in entities}
    out = [
        DocumentInfo(
            id=str(r["id"]),
            project=str(r["project"] or ""),
            title=str(r["title"] or r["path"] or r["id"]),
            path=str(r["path"] or ""),
            source=str(r["source"] or UNKNOWN),
            size=int(r["size"] or 0),
            chunks=chunk_count.get(r["id"], 0),
            entities=entity_count.get(r["id"], 0),
            indexed_at=str(r["indexed_at"] or ""),
            content_hash=str(r["hash"] or ""),
            status=_status(r["hash"], r["status"]),
            reason=_reason(r["hash"], r["reason"]),
        )
        for r in rows
    ]
    return sorted(out, key=lambda d: (d.project, d.path))


def _status(content_hash: str | None, status: str | None) -> str:
    if not content_hash:
        return "failed"
    return status or "indexed"  # written before statuses were recorded


def _reason(content_hash: str | None, reason: str | None) -> str:
    return reason or "" if content_hash else "the write did not finish; the next run over its source redoes it"


def reindex_document(
    settings: Settings,
    store: GraphStore,
    embedder: Embedder,
    document: DocumentInfo,
    *,
    on_progress: ProgressCallback | None = None,
    on_document: DocumentCallback | None = None,
    chat_model: ChatModel | None = None,
) -> IndexReport:
    """Write `document` again from its source, even if its text did not change (the rest of the source is
    indexed incrementally, as any run over it). Uploads have no source to read again: upload the file again."""
    if document.source in (UPLOAD, UNKNOWN):
        raise DriftLensError(
            f"'{document.path}' was uploaded (or indexed before sources were recorded): upload it again."
        )
    source = allowed_source(settings, document.source)  # the same roots rule as any run from a page; it exists
    IndexGraph(store, settings, document.project).forget_hash(document.id)
    return run_index(
        settings,
        store,
        embedder,
        [source],
        project=document.project,
        on_progress=on_progress,
        on_document=on_document,
        chat_model=chat_model,
    )
