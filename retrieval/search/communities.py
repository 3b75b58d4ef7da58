"""Community search: the report summaries nearest a query vector, optionally at one hierarchy level.

Why a level filter: global and DRIFT modes reason at one granularity (a few broad themes or many
narrow ones); the store over-fetches a filtered vector search so k stays filled.
"""

from __future__ import annotations

from retrieval.context import Context
from retrieval.models import Hit
from retrieval.store.records import ident


def search_communities(ctx: Context, query_vector: list[float], k: int, *, level: int | None = None) -> list[Hit]:
    filters: dict[str, object] = dict(ctx.project_filter)
    if level is not None:
        filters["level"] = level
    found = ctx.vectors.search(ctx.settings.community_label, query_vector, k, filters=filters)
    return [
        Hit(
            id=hit.id,
            kind="community",
            text=str(hit.props.get("summary") or ""),
            score=hit.score,
            metadata={
                "level": hit.props.get("level"),
                "title": hit.props.get("title") or hit.id,
                "rank": hit.props.get("rank"),
            },
            sources={"vector": hit.score},
        )
        for hit in found
    ]


def community_levels(ctx: Context) -> list[int]:
    """Levels present in the project, lowest (finest) first."""
    rows = ctx.store.read(
        f"MATCH (k:{ident(ctx.settings.community_label)}) WHERE {ctx.in_scope('k')} AND k.level IS NOT NULL "
        "RETURN DISTINCT k.level AS level",
        {"project": ctx.project},
    )
    return sorted(int(r["level"]) for r in rows)
