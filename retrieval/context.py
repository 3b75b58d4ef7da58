"""The handles a mode needs, bundled once: settings, store, embedder, optional LLM, project and its scope."""

from __future__ import annotations

from dataclasses import dataclass

from retrieval.config import Settings
from retrieval.embed import Embedder
from retrieval.llm.client import ChatModel
from retrieval.store.base import GraphStore
from retrieval.store.vectors import VectorStore


@dataclass(frozen=True)
class Context:
    settings: Settings
    store: GraphStore
    embedder: Embedder
    llm: ChatModel | None
    project: str
    #: Whether reads are confined to `project`. False for a graph that holds no project at all (built by another
    #: tool: no project node, no `projectId`) when no project was asked for, and for a service request that named
    #: no project (every project is read); see `Engine.context`.
    scoped: bool = True

    @property
    def vectors(self) -> VectorStore:
        """Vector search goes here; properties and traversal go to `store`."""
        return self.store.vectors

    @property
    def project_filter(self) -> dict[str, str]:
        """Property filter for searches: the project's `projectId`, or nothing for a whole-graph scope."""
        return {"projectId": self.project} if self.scoped else {}

    def in_scope(self, var: str) -> str:
        """Cypher condition keeping node `var` inside the scope (reads `$project`); every scoped read uses it.

        Why one helper: a query that spelt out `projectId` itself would return nothing on a graph built by
        another tool, and one that forgot it would read another project's data.
        """
        return f"{var}.projectId = $project" if self.scoped else "true"

    @property
    def scope_description(self) -> str:
        """What a search reads, in words a page can show."""
        if self.scoped:
            return f"project '{self.project}'"
        return "the whole graph (no project was asked for)"
