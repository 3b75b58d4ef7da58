"""Qdrant as the vector store: entry points found in Qdrant, properties and traversal in the graph store.

Why this split: teams that already keep embeddings in Qdrant search them there (payload filters keep a
filtered top-k filled, a Qdrant server or Cloud scales past one machine) while the graph stays the source
of truth for text, properties and relationships. Each point's id is a UUID derived from the graph node id,
which its payload also carries (`node_id`) with the fields filters use (project, document, type, level);
a hit's properties are then read from the graph in one query, so a point whose node is gone never surfaces.

Local mode (`QdrantClient(path=...)`, no server) allows one client per folder and process: clients are
shared per folder here, and another process needs a Qdrant server (`QDRANT_URL`).
"""

from __future__ import annotations

import atexit
import functools
import threading
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from qdrant_client import QdrantClient, models
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from retrieval.config import Settings
from retrieval.errors import EmbeddingMismatch, VectorStoreUnavailable
from retrieval.store.records import Filters, Row, StoreHit, filter_clause, ident
from retrieval.store.vectors import VectorStore

if TYPE_CHECKING:
    from retrieval.store.base import GraphStore

#: Payload fields copied from the indexer's rows, so that filters on them run inside Qdrant.
PAYLOAD_FIELDS = ("projectId", "document_id", "document_name", "type", "level")
#: A graph `id` filter becomes a filter on this payload field.
NODE_ID = "node_id"
#: Namespace of the point ids: uuid5(namespace, graph node id) is stable across runs and machines.
POINT_NAMESPACE = uuid.UUID("6f1c3f8e-8d0b-4f7a-9a55-2b8e3f0d4c11")
#: Points per upsert or scroll request.
BATCH = 256

#: What the client raises when the server cannot be reached (ResponseHandlingException wraps the transport's
#: error) or refuses the request (UnexpectedResponse: a wrong API key, a server error).
CLIENT_ERRORS = (ResponseHandlingException, UnexpectedResponse)
SERVER_HINT = "Check QDRANT_URL and QDRANT_API_KEY, or unset QDRANT_URL to use Qdrant's local mode."

_local_clients: dict[Path, QdrantClient] = {}
_local_lock = threading.Lock()


def point_id(node_id: str) -> str:
    return str(uuid.uuid5(POINT_NAMESPACE, node_id))


def _local_client(path: Path) -> QdrantClient:
    """One local-mode client per folder in this process (Qdrant locks the folder against a second one)."""
    key = path.resolve()
    with _local_lock:
        if key not in _local_clients:
            key.mkdir(parents=True, exist_ok=True)
            try:
                _local_clients[key] = QdrantClient(path=str(key), force_disable_check_same_thread=True)
            except RuntimeError as exc:  # the folder is locked by another process
                hint = "Another process uses this folder; point QDRANT_URL at a Qdrant server to share the vectors."
                raise VectorStoreUnavailable(f"local {key}", hint, exc) from None
        return _local_clients[key]


def _reported[F: Callable[..., Any]](method: F) -> F:
    """One clear DriftLens error instead of the client's transport exception (the message is redacted)."""

    @functools.wraps(method)
    def call(self: QdrantVectors, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except CLIENT_ERRORS as exc:
            raise VectorStoreUnavailable(self.where, SERVER_HINT, exc) from None

    return cast(F, call)


@atexit.register
def _close_local_clients() -> None:
    """Close while the interpreter still works (the client's own finaliser runs too late and warns)."""
    with _local_lock:
        for client in _local_clients.values():
            client.close()
        _local_clients.clear()


def qdrant_filter(filters: Filters | None) -> tuple[models.Filter | None, dict[str, Any]]:
    """The part of `filters` Qdrant can apply (payload fields and ids), and the rest for the graph."""
    must: list[models.Condition] = []
    rest: dict[str, Any] = {}
    for key, value in (filters or {}).items():
        field = NODE_ID if key == "id" else key
        if field not in (NODE_ID, *PAYLOAD_FIELDS):
            rest[key] = value
        elif isinstance(value, (list, tuple, set, frozenset)):
            must.append(models.FieldCondition(key=field, match=models.MatchAny(any=list(value))))
        elif isinstance(value, Mapping):
            must.append(
                models.FieldCondition(key=field, range=models.Range(gte=value.get("gte"), lte=value.get("lte")))
            )
        else:
            must.append(models.FieldCondition(key=field, match=models.MatchValue(value=value)))
    return (models.Filter(must=must) if must else None), rest


class QdrantVectors(VectorStore):
    name = "qdrant"
    in_graph = False

    def __init__(self, graph: GraphStore, settings: Settings) -> None:
        super().__init__(graph, settings)
        s = settings
        self.local = not s.qdrant_url
        if self.local:
            self.client = _local_client(s.qdrant_local_path)
            self.where = f"local {s.qdrant_local_path}"
        else:
            key = s.qdrant_api_key.get_secret_value() if s.qdrant_api_key else None
            # No version check at construction: it would be a request before the first real one, errors unreported.
            self.client = QdrantClient(url=s.qdrant_url, api_key=key, check_compatibility=False)
            self.where = str(s.qdrant_url)
        self._kinds = {s.chunk_label: "chunk", s.entity_label: "entity", s.community_label: "community"}

    def collection(self, label: str) -> str:
        return f"{self.settings.qdrant_collection_prefix}_{self._kinds[label]}"

    # --- schema ---------------------------------------------------------------------------
    @_reported
    def ensure(self, dim: int) -> None:
        for label in self._kinds:
            name = self.collection(label)
            if self.client.collection_exists(name):
                have = self.dimension(label)
                if have is not None and have != dim:
                    raise EmbeddingMismatch(f"(Qdrant collection {name})", have, "the configured embedder", dim)
                continue
            self.client.create_collection(
                name, vectors_config=models.VectorParams(size=dim, distance=models.Distance.COSINE)
            )
            if not self.local:  # local mode scans payloads anyway; a server uses these indexes for filtered HNSW
                for field in (NODE_ID, "projectId", "document_id", "type"):
                    self.client.create_payload_index(name, field, models.PayloadSchemaType.KEYWORD)
                self.client.create_payload_index(name, "level", models.PayloadSchemaType.INTEGER)

    @_reported
    def dimension(self, label: str) -> int | None:
        name = self.collection(label)
        if not self.client.collection_exists(name):
            return None
        vectors = self.client.get_collection(name).config.params.vectors
        return vectors.size if isinstance(vectors, models.VectorParams) else None

    def _exists(self, label: str) -> bool:
        return self.client.collection_exists(self.collection(label))

    # --- writes ---------------------------------------------------------------------------
    @_reported
    def upsert(self, label: str, rows: Sequence[Row]) -> None:
        points = [
            models.PointStruct(
                id=point_id(row["id"]),
                vector=np.asarray(row["embedding"]).tolist(),  # a float list or the indexer's float32 row
                payload={NODE_ID: row["id"], **{f: row[f] for f in PAYLOAD_FIELDS if row.get(f) is not None}},
            )
            for row in rows
        ]
        for start in range(0, len(points), BATCH):
            self.client.upsert(self.collection(label), points[start : start + BATCH], wait=True)

    @_reported
    def delete(self, label: str, ids: Iterable[str]) -> None:
        points: list[models.ExtendedPointId] = [point_id(i) for i in ids]
        if points and self._exists(label):
            self.client.delete(self.collection(label), models.PointIdsList(points=points), wait=True)

    @_reported
    def delete_document(self, doc_id: str) -> None:
        label = self.settings.chunk_label
        if self._exists(label):
            match = models.FieldCondition(key="document_id", match=models.MatchValue(value=doc_id))
            selector = models.FilterSelector(filter=models.Filter(must=[match]))
            self.client.delete(self.collection(label), selector, wait=True)

    @_reported
    def ids(self, label: str, project: str) -> set[str]:
        if not self._exists(label):
            return set()
        found: set[str] = set()
        offset: models.ExtendedPointId | None = None
        while True:
            records, offset = self.client.scroll(
                self.collection(label),
                scroll_filter=qdrant_filter({"projectId": project})[0],
                limit=BATCH,
                offset=offset,
                with_payload=[NODE_ID],
            )
            found.update(str((r.payload or {})[NODE_ID]) for r in records)
            if offset is None:
                return found

    # --- search ---------------------------------------------------------------------------
    def search(
        self,
        label: str,
        vector: Sequence[float],
        k: int,
        *,
        filters: Filters | None = None,
        fetch: int | None = None,
        props: Sequence[str] | None = None,
    ) -> list[StoreHit]:
        """`props` is not narrowed here: the graph read that keeps the hits returns every property (`_hydrate`)."""
        return self._search(label, vector, k, filters, fetch, exact=False)

    def exact_search(self, label: str, vector: Sequence[float], k: int, *, filters: Filters) -> list[StoreHit]:
        return self._search(label, vector, k, filters, None, exact=True)

    @_reported
    def _search(
        self, label: str, vector: Sequence[float], k: int, filters: Filters | None, fetch: int | None, *, exact: bool
    ) -> list[StoreHit]:
        """Payload filters run in Qdrant; the rest (and points whose node is gone) are dropped by the graph read,
        so the candidate count grows until k hits are kept or Qdrant has no more. Local mode is always exact."""
        if k < 1 or not self._exists(label):
            return []
        where, rest = qdrant_filter(filters)
        limit = max(k, fetch or 0) if rest else k
        while True:
            points = self.client.query_points(
                self.collection(label),
                query=list(vector),
                query_filter=where,
                search_params=models.SearchParams(exact=True) if exact and not self.local else None,
                limit=limit,
                with_payload=[NODE_ID],
            ).points
            scores = {str((p.payload or {})[NODE_ID]): float(p.score) for p in points}
            hits = self._hydrate(label, scores, rest)
            if len(hits) >= k or len(points) < limit or limit >= self.graph.max_overfetch:
                return hits[:k]
            limit = min(limit * 4, self.graph.max_overfetch)

    def _hydrate(self, label: str, scores: Mapping[str, float], rest: Filters) -> list[StoreHit]:
        """Graph properties (without the vector) of the scored ids that exist and pass `rest`, best first."""
        if not scores:
            return []
        condition, params = filter_clause("n", rest)
        where = f"WHERE {condition} " if condition else ""
        rows = self.graph.read(
            f"UNWIND $ids AS id MATCH (n:{ident(label)} {{id: id}}) {where}RETURN id, properties(n) AS props",
            {**params, "ids": list(scores)},
        )
        skip = self.settings.embedding_property
        hits = [StoreHit(r["id"], scores[r["id"]], {p: v for p, v in r["props"].items() if p != skip}) for r in rows]
        return sorted(hits, key=lambda h: -h.score)
