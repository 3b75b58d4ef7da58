"""What the entity-resolution tests share: a mention row as the resolver reads it from the graph, and an entity as
the graph holds it after a run (its title, aliases, merge reasons and chunk count)."""

from __future__ import annotations

from retrieval.store import GraphStore


def mention(doc: str, key: str, surface: str, kind: str, count: int = 1) -> dict[str, object]:
    """A chunk -> entity row of project `p`: `doc`'s first chunk mentions key `key` as `surface`, `count` times."""
    return {"chunk": f"p:{doc}:0", "entity": f"p:{key}", "surface": surface, "type": kind, "count": count}


def entity(store: GraphStore, entity_id: str) -> dict[str, object] | None:
    rows = store.query(
        "MATCH (e:__Entity__ {id: $id}) OPTIONAL MATCH (c:__Chunk__)-[:HAS_ENTITY]->(e) "
        "RETURN e.title AS title, e.aliases AS aliases, e.merge_reasons AS reasons, count(c) AS chunks",
        {"id": entity_id},
    )
    return rows[0] if rows else None
