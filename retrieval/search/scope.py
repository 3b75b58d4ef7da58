"""Whether a graph holds DriftLens projects: what decides between project scope and whole-graph scope.

Why: a graph written by another tool (neo4j-graphrag's SimpleKGPipeline, a Microsoft GraphRAG import) has
no project node and no `projectId`, so a project-scoped search finds nothing in it. Such a graph is
searched whole; as soon as any project exists, every read is confined to one project again.
"""

from __future__ import annotations

from retrieval.config import Settings
from retrieval.store.base import GraphStore
from retrieval.store.records import ident


def graph_has_projects(store: GraphStore, settings: Settings) -> bool:
    """A project node, or failing that any chunk carrying `projectId` (two LIMIT 1 reads)."""
    if store.read(f"MATCH (p:{ident(settings.project_label)}) RETURN 1 AS found LIMIT 1"):
        return True
    return bool(
        store.read(f"MATCH (c:{ident(settings.chunk_label)}) WHERE c.projectId IS NOT NULL RETURN 1 AS found LIMIT 1")
    )


def whole_graph_scope(store: GraphStore, settings: Settings, project: str | None) -> bool:
    """Search the whole graph: no project asked for beyond the unconfigured default, and none in the graph."""
    asked = project not in (None, settings.project) or "project" in settings.model_fields_set
    return not asked and not graph_has_projects(store, settings)
