"""Enrichment: the configured `retrieval_query` Cypher turns each chunk hit into the text an answer should see.

Why: a bring-your-own graph keeps its context around the chunk (the document's title, the company
that filed it, neighbouring chunks). neo4j-graphrag's convention is followed: the query receives
`node` and `score` and returns at least `text` and `score`; `document_name`/`document_id` columns name the
hit's document, every other column becomes `[key: value]` metadata on the hit. It always runs read-only,
so a configured query can never change the graph.
"""

from __future__ import annotations

from typing import Any

from retrieval.context import Context
from retrieval.errors import ConfigError, DriftLensError, QueryError
from retrieval.models import Hit
from retrieval.store.records import ident

REQUIRED_COLUMNS = ("text", "score")
#: Optional columns naming the hit's document, for citations (a graph built elsewhere keeps it on another node).
DOCUMENT_COLUMNS = ("document_name", "document_id")


def enrichment_cypher(ctx: Context) -> str:
    """The hit's node bound as `node`, its fused score as `score`, then the configured query."""
    query = ctx.settings.retrieval_query or ""
    return f"MATCH (node:{ident(ctx.settings.chunk_label)}) WHERE node.id = $id WITH node, $score AS score {query}"


def enrich(ctx: Context, hits: list[Hit]) -> list[Hit]:
    """Each hit rewritten by the query's first row (a hit the query returns nothing for is dropped); re-ranked."""
    cypher = enrichment_cypher(ctx)
    enriched = []
    for hit in hits:
        try:
            # The same per-query limit as analyst Cypher: a configured query must not hang a search.
            rows = ctx.store.read(cypher, {"id": hit.id, "score": hit.score}, timeout_ms=ctx.settings.query_timeout_ms)
        except QueryError as exc:
            raise ConfigError(f"The configured retrieval_query failed: {exc}. Fix DRIFTLENS_RETRIEVAL_QUERY.") from exc
        if rows:
            enriched.append(_apply(hit, rows[0]))
    return sorted(enriched, key=lambda h: -h.score)


def _apply(hit: Hit, row: dict[str, Any]) -> Hit:
    missing = [c for c in REQUIRED_COLUMNS if c not in row]
    if missing:
        raise ConfigError(
            f"The configured retrieval_query must return the columns text and score; missing: {', '.join(missing)}."
        )
    document = {key: str(row[key]) for key in DOCUMENT_COLUMNS if row.get(key) not in (None, "")}
    extra = {k: v for k, v in row.items() if k not in REQUIRED_COLUMNS and k not in DOCUMENT_COLUMNS}
    lines = [f"[{key}: {value}]" for key, value in extra.items() if value not in (None, "", [])]
    text = "\n".join([str(row["text"] or ""), *lines]) if lines else str(row["text"] or "")
    score = float(row["score"]) if isinstance(row["score"], (int, float)) else hit.score
    return hit.model_copy(update={"text": text, "score": score, "metadata": {**hit.metadata, **extra}, **document})


def check_retrieval_query(ctx: Context) -> None:
    """Configuration-time check: run the query once, read-only, on any chunk; raises ConfigError with the reason."""
    if not ctx.settings.retrieval_query:
        return
    rows = ctx.store.read(f"MATCH (n:{ident(ctx.settings.chunk_label)}) RETURN n.id AS id LIMIT 1")
    if not rows:
        return
    try:
        enrich(ctx, [Hit(id=str(rows[0]["id"]), score=1.0)])
    except ConfigError:
        raise
    except DriftLensError as exc:
        raise ConfigError(f"The configured retrieval_query cannot be used: {exc}") from exc
