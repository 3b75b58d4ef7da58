"""Counts of what a project's graph holds, for `python -m retrieval stats`, the app and the benchmark."""

from __future__ import annotations

import json
from typing import Any

from retrieval.config import Settings
from retrieval.indexing.repo_graph import SYMBOL, TOOL, URL
from retrieval.store.base import GraphStore
from retrieval.store.labels import Labels


def graph_stats(store: GraphStore, settings: Settings, project: str | None = None) -> dict[str, Any]:
    """Documents, chunks, entities, relationships, repository symbols/references/links/MCP tools, communities per
    level (with sizes), and the last changing run."""
    project = project or settings.project
    lab = Labels.of(settings)
    params = {"project": project}

    def count(cypher: str) -> int:
        rows = store.read(cypher, params)
        return int(rows[0]["n"]) if rows else 0

    levels = store.read(
        f"MATCH (k:{lab.community} {{projectId: $project}}) RETURN k.level AS level, k.size AS size "
        "ORDER BY level, size DESC",
        params,
    )
    sizes: dict[str, list[int]] = {}
    for row in levels:
        sizes.setdefault(str(row["level"]), []).append(int(row["size"] or 0))
    project_rows = store.read(
        f"MATCH (p:{lab.project} {{id: $project}}) "
        "RETURN p.last_run AS last_run, p.embedder AS embedder, p.communities_dirty AS dirty",
        params,
    )
    last_run = project_rows[0]["last_run"] if project_rows else None
    return {
        "project": project,
        "embedder": project_rows[0]["embedder"] if project_rows else None,
        **core_counts(store, settings, project),
        # repository ingestion (0 for a project of documents)
        "symbols": count(f"MATCH (s:{SYMBOL} {{projectId: $project}}) RETURN count(s) AS n"),
        "references": count(
            f"MATCH (d:{lab.document} {{projectId: $project}})-[r:REFERS_TO]->(:{SYMBOL}) RETURN count(r) AS n"
        ),
        "links": count(f"MATCH (u:{URL} {{projectId: $project}}) RETURN count(u) AS n"),
        "mcp_tools": count(f"MATCH (t:{TOOL} {{projectId: $project}}) RETURN count(t) AS n"),
        "communities": {level: len(values) for level, values in sizes.items()},
        "community_sizes": sizes,
        "last_run": json.loads(last_run) if last_run else None,
        "unfinished": bool(project_rows and project_rows[0]["dirty"]),
    }


def core_counts(store: GraphStore, settings: Settings, project: str) -> dict[str, int]:
    """Documents, chunks, entities and relationships of one project (Home shows them on every visit)."""
    lab = Labels.of(settings)
    queries = {
        "documents": f"MATCH (d:{lab.document} {{projectId: $project}}) RETURN count(d) AS n",
        "chunks": f"MATCH (c:{lab.chunk} {{projectId: $project}}) RETURN count(c) AS n",
        "entities": f"MATCH (e:{lab.entity} {{projectId: $project}}) RETURN count(e) AS n",
        "relationships": (
            f"MATCH (a:{lab.entity} {{projectId: $project}})-[r:RELATED]->(:{lab.entity}) RETURN count(r) AS n"
        ),
    }
    counts = {}
    for key, cypher in queries.items():
        rows = store.read(cypher, {"project": project})
        counts[key] = int(rows[0]["n"]) if rows else 0
    return counts
