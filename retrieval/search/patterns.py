"""Cypher patterns for the graph model's relationships, named by settings (bring-your-own-graph).

Why here: DriftLens writes `(chunk)-[:HAS_ENTITY]->(entity)` and `RELATED` between entities; a graph built
by another tool says it otherwise (neo4j-graphrag: `(entity)-[:FROM_CHUNK]->(chunk)` and typed relations
such as `FACES_RISK`). Every read that walks these relationships takes its pattern from here, so a
graph is pointed at by settings alone.
"""

from __future__ import annotations

from retrieval.config import Settings
from retrieval.store.records import ident


def mention(s: Settings, chunk: str, entity: str, rel: str = "") -> str:
    """`chunk` mentions `entity` (both node patterns, e.g. "(c)"), whichever way the graph points the relationship."""
    link = f"[{rel}:{ident(s.mention_relationship)}]"
    return f"{chunk}-{link}->{entity}" if s.mention_from_chunk else f"{chunk}<-{link}-{entity}"


def related(s: Settings) -> str:
    """The entity-to-entity relationship types as a type expression for `[r:...]`."""
    return "|".join(ident(t) for t in s.entity_relationships)


def entity_props(s: Settings, var: str = "e") -> str:
    """`title`, `type` and `description` columns of entity `var`; a graph without `type` gives its own label."""
    return (
        f"{var}.{ident(s.entity_name_property)} AS title, "
        f"coalesce({var}.type, head([l IN labels({var}) WHERE NOT l STARTS WITH '__'])) AS type, "
        f"{var}.description AS description"
    )
