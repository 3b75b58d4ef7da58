"""What lies beneath a community: its chunks, its most-mentioned entities, its report.

Why here: DRIFT scopes follow-up retrieval to target communities and global search maps over
community reports; both need the hierarchy walked (chunks and entities link to level-0
communities, which link child -> parent upwards), and Cypher lives only in store/search/modes.
Every query is scoped to the context's project.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from retrieval.context import Context
from retrieval.store.records import ident

#: Deepest child -> parent chain walked; Settings caps community_levels at 6.
MAX_DEPTH = 6


@dataclass(frozen=True)
class EntityRef:
    """An entity as a follow-up topic: `community` is its own level-0 community, the tightest scope."""

    id: str
    title: str
    mentions: int
    community: str
    type: str = ""


@dataclass(frozen=True)
class CommunityReport:
    id: str
    level: int
    title: str
    summary: str
    rank: float
    full_content: str = ""


def _below(ctx: Context, member_label: str) -> str:
    """Pattern from a member (m) through its level-0 community up to any ancestor (k), k included."""
    s = ctx.settings
    community = ident(s.community_label)
    return (
        f"MATCH (m:{ident(member_label)})-[:IN_COMMUNITY]->(c0:{community})"
        f"-[:IN_COMMUNITY*0..{MAX_DEPTH}]->(k:{community}) WHERE k.id IN $ids AND {ctx.in_scope('m')} "
    )


def community_chunk_ids(ctx: Context, community_ids: Sequence[str]) -> dict[str, list[str]]:
    """Chunk ids under each community (any level); a community with no chunks is absent."""
    if not community_ids:
        return {}
    rows = ctx.store.read(
        _below(ctx, ctx.settings.chunk_label) + "RETURN k.id AS k, collect(DISTINCT m.id) AS chunks",
        {"project": ctx.project, "ids": list(community_ids)},
    )
    return {row["k"]: sorted(row["chunks"]) for row in rows}


def top_entities(ctx: Context, community_ids: Sequence[str], per_community: int) -> dict[str, list[EntityRef]]:
    """Each community's most-mentioned entities (ties by title), the offline source of follow-up topics."""
    if not community_ids or per_community < 1:
        return {}
    rows = ctx.store.read(
        _below(ctx, ctx.settings.entity_label) + "WITH k, m, c0 ORDER BY coalesce(m.mentions, 0) DESC, m.title "
        "RETURN k.id AS k, collect([m.id, m.title, coalesce(m.mentions, 0), c0.id, coalesce(m.type, '')])[..$n] AS top",
        {"project": ctx.project, "ids": list(community_ids), "n": per_community},
    )
    return {
        row["k"]: [
            EntityRef(str(i), str(title or i), int(mentions), str(c0), str(kind))
            for i, title, mentions, c0, kind in row["top"]
        ]
        for row in rows
    }


def entity_refs(ctx: Context, entity_ids: Sequence[str]) -> list[EntityRef]:
    """The entities with these ids that belong to a community, as follow-up topics (in the order asked)."""
    if not entity_ids:
        return []
    s = ctx.settings
    rows = ctx.store.read(
        f"MATCH (m:{ident(s.entity_label)})-[:IN_COMMUNITY]->(c0:{ident(s.community_label)}) "
        f"WHERE m.id IN $ids AND {ctx.in_scope('m')} "
        "RETURN m.id AS id, m.title AS title, coalesce(m.mentions, 0) AS mentions, min(c0.id) AS community, "
        "coalesce(m.type, '') AS type",
        {"project": ctx.project, "ids": list(entity_ids)},
    )
    by_id = {
        str(r["id"]): EntityRef(
            str(r["id"]), str(r["title"] or r["id"]), int(r["mentions"]), str(r["community"]), str(r["type"])
        )
        for r in rows
    }
    return [by_id[i] for i in entity_ids if i in by_id]


def community_sizes(ctx: Context, community_ids: Sequence[str]) -> dict[str, int]:
    """Entities beneath each community (any level)."""
    if not community_ids:
        return {}
    rows = ctx.store.read(
        _below(ctx, ctx.settings.entity_label) + "RETURN k.id AS k, count(DISTINCT m) AS n",
        {"project": ctx.project, "ids": list(community_ids)},
    )
    return {row["k"]: int(row["n"]) for row in rows}


def community_reports(ctx: Context, community_ids: Sequence[str]) -> dict[str, CommunityReport]:
    """Title, summary, rank and level of each community, read fresh (search hits may carry only a snippet)."""
    if not community_ids:
        return {}
    rows = ctx.store.read(
        f"MATCH (k:{ident(ctx.settings.community_label)}) WHERE k.id IN $ids AND {ctx.in_scope('k')} "
        "RETURN k.id AS id, k.level AS level, k.title AS title, k.summary AS summary, k.rank AS rank, "
        "k.full_content AS full_content",
        {"project": ctx.project, "ids": list(community_ids)},
    )
    return {
        row["id"]: CommunityReport(
            id=row["id"],
            level=int(row["level"] or 0),
            title=str(row["title"] or ""),
            summary=str(row["summary"] or ""),
            rank=float(row["rank"] or 0),
            full_content=str(row["full_content"] or ""),
        )
        for row in rows
    }


def count_communities(ctx: Context, level: int | None) -> int:
    """How many communities a global search could map over at `level` (all levels when None)."""
    where = " AND k.level = $level" if level is not None else ""
    rows = ctx.store.read(
        f"MATCH (k:{ident(ctx.settings.community_label)}) WHERE {ctx.in_scope('k')}{where} RETURN count(k) AS n",
        {"project": ctx.project, "level": level},
    )
    return int(rows[0]["n"]) if rows else 0
