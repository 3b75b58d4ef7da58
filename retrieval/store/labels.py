"""The graph's names from Settings, quoted once, for the Cypher the indexer and the explorer write.

Why in the store layer: labels and property names come from configuration (a graph built by another tool is read
through it), and both the indexer and search need them, so they live below both.
"""

from __future__ import annotations

from dataclasses import dataclass

from retrieval.config import Settings
from retrieval.store.records import ident


@dataclass(frozen=True)
class Labels:
    """Backtick-quoted names from Settings, ready to paste into Cypher."""

    document: str
    chunk: str
    entity: str
    community: str
    project: str
    text: str
    embedding: str

    @classmethod
    def of(cls, s: Settings) -> Labels:
        return cls(
            document=ident(s.document_label),
            chunk=ident(s.chunk_label),
            entity=ident(s.entity_label),
            community=ident(s.community_label),
            project=ident(s.project_label),
            text=ident(s.text_property),
            embedding=ident(s.embedding_property),
        )
