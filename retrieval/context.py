"""The handles a mode needs, bundled once: settings, store, embedder, optional LLM, project."""

from __future__ import annotations

from dataclasses import dataclass

from retrieval.config import Settings
from retrieval.embed import Embedder
from retrieval.llm import ChatModel
from retrieval.store.base import GraphStore
from retrieval.store.vectors import VectorStore


@dataclass(frozen=True)
class Context:
    settings: Settings
    store: GraphStore
    embedder: Embedder
    llm: ChatModel | None
    project: str

    @property
    def vectors(self) -> VectorStore:
        """Vector search goes here; properties and traversal go to `store`."""
        return self.store.vectors

    @property
    def project_filter(self) -> dict[str, str]:
        """Every node carries projectId; every search is scoped by it."""
        return {"projectId": self.project}
