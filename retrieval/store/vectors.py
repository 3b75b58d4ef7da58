"""The VectorStore port: where chunk, entity and community vectors live and are searched.

Two adapters: `GraphVectors` (the vectors are properties of the graph nodes and the graph store's own
vector indexes search them: the default) and `QdrantVectors` (Qdrant collections whose points carry the
graph node id; `store/qdrant.py`). Either way a hit is a `StoreHit` whose id is the graph node id and whose
props come from the graph, so fusion, the bridge and expansion run unchanged on top of any adapter.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, ClassVar

from retrieval.config import Settings
from retrieval.store.records import Filters, Row, StoreHit, ident

if TYPE_CHECKING:
    from retrieval.store.base import GraphStore


class VectorStore(ABC):
    """Port for vector search over the graph's chunks, entities and communities, addressed by graph label."""

    name: ClassVar[str]
    #: True when the graph nodes themselves hold the vectors (the indexer then writes them with the node).
    in_graph: ClassVar[bool]

    def __init__(self, graph: GraphStore, settings: Settings) -> None:
        self.graph = graph
        self.settings = settings

    @abstractmethod
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
        """Top-k nodes of `label` by cosine similarity (higher is better); with filters, top-k stays filled.

        `props`: the properties the caller reads of a hit (None: every one but the vector); a store may return
        more, never fewer of those a node has."""

    @abstractmethod
    def exact_search(self, label: str, vector: Sequence[float], k: int, *, filters: Filters) -> list[StoreHit]:
        """Exact cosine top-k over the nodes `filters` selects (a small id set), best first."""

    @abstractmethod
    def dimension(self, label: str) -> int | None:
        """Dimension of the stored vectors of `label`, or None when there are none yet."""

    @abstractmethod
    def upsert(self, label: str, rows: Sequence[Row]) -> None:
        """Store `row["embedding"]` for each row's `id`, with the payload fields of `row` used by filters."""

    @abstractmethod
    def delete(self, label: str, ids: Iterable[str]) -> None:
        """Forget the vectors of these node ids (missing ids are fine)."""

    @abstractmethod
    def delete_document(self, doc_id: str) -> None:
        """Forget the vectors of every chunk of this document."""

    @abstractmethod
    def ids(self, label: str, project: str) -> set[str]:
        """Node ids of `project` that have a vector: what the graph and the vector store must agree on."""

    @abstractmethod
    def ensure(self, dim: int) -> None:
        """Create what vectors of `dim` dimensions need; refuse stored vectors of another dimension."""


class GraphVectors(VectorStore):
    """Vectors on the graph nodes, deleted with them: a chunk's written in the same statement as the node, an
    entity's or community's in one just after (`IndexGraph.write_vectors`)."""

    name = "graph"
    in_graph = True

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
        return self.graph.vector_search(label, vector, k, filters=filters, fetch=fetch, props=props)

    def exact_search(self, label: str, vector: Sequence[float], k: int, *, filters: Filters) -> list[StoreHit]:
        return self.graph.exact_vector_search(label, vector, k, filters=filters)

    def ensure(self, dim: int) -> None:
        """Nothing to do: the graph's vector indexes come with its schema (`GraphStore.ensure_schema`)."""

    def dimension(self, label: str) -> int | None:
        return self.graph.vector_dimension(label)

    def upsert(self, label: str, rows: Sequence[Row]) -> None:
        """Nothing to do: the indexer's node write already set the vector property."""

    def delete(self, label: str, ids: Iterable[str]) -> None:
        """Nothing to do: deleting the node deleted its vector."""

    def delete_document(self, doc_id: str) -> None:
        """Nothing to do: deleting the chunks deleted their vectors."""

    def ids(self, label: str, project: str) -> set[str]:
        rows = self.graph.read(
            f"MATCH (n:{ident(label)}) WHERE n.projectId = $project "
            f"AND n.{ident(self.settings.embedding_property)} IS NOT NULL RETURN n.id AS id",
            {"project": project},
        )
        return {str(row["id"]) for row in rows}
