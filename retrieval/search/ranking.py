"""Hybrid search + graph: the chunk ranking that local search, the CLI and the evaluation share.

Why two graph steps: the bridge re-ranking (`bridge.py`) is what finds a multi-hop question's second
passage, through the entities the best hits mention; the drift-scored walk over RELATED (`expand.py`)
gathers the entities and relations around the question that the answer's trace and evidence graph
show. With `max_hops` 0 it is plain hybrid search.
"""

from __future__ import annotations

import contextvars
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from retrieval.context import Context
from retrieval.errors import IndexMissing
from retrieval.models import Hit, QueryParams
from retrieval.search import bridge
from retrieval.search.expand import Expansion, expand
from retrieval.search.hybrid import search_chunks, search_entities
from retrieval.store.records import ident

#: Entities matched from the question directly (seeds of both graph steps).
QUESTION_SEEDS = 5


@dataclass
class Retrieval:
    chunks: list[Hit]
    seeds: list[Hit] = field(default_factory=list)
    expansion: Expansion = field(default_factory=Expansion)
    query_vector: list[float] | None = None
    #: Entities the best hits mention (id -> the hit's score): a multi-hop question's bridges to its second hop.
    hit_entities: dict[str, float] = field(default_factory=dict)
    #: Wall time of each phase (embed, chunks, entities, bridge, expand), for the service's `meta.timings`.
    timings_ms: dict[str, float] = field(default_factory=dict)


def retrieve(
    ctx: Context, query: str, params: QueryParams, *, query_vector: list[float] | None = None, walk: bool = True
) -> Retrieval:
    """Top `params.top_k` chunks, re-ranked through the graph, with the expansion around the question.

    `walk=False` skips the RELATED walk, which does not change the chunk ranking: for callers that only rank
    (the Tuning lab's grid), it is work nobody reads."""
    clock = _Clock()
    if query_vector is None and params.search_type != "fulltext":
        query_vector = ctx.embedder.embed_query(query)
        clock.lap("embed")
    if params.max_hops < 1:
        hits = search_chunks(ctx, query, params, query_vector=query_vector)
        clock.lap("chunks")
        return Retrieval(hits, [], Expansion(), query_vector, timings_ms=clock.laps)
    hits, entity_hits = _chunks_and_seeds(ctx, query, params, query_vector, clock)
    bridged = bridge.rerank(ctx, query, params, query_vector=query_vector, hits=hits, entity_hits=entity_hits)
    clock.lap("bridge")
    seeds = {**bridged.hit_entities}
    for hit in entity_hits:
        seeds[hit.id] = max(seeds.get(hit.id, 0.0), hit.score)
    walked = walk and seeds
    expansion = expand(ctx, list(seeds), params, seed_scores=seeds, chunk_limit=0) if walked else Expansion()
    clock.lap("expand")
    return Retrieval(bridged.chunks, entity_hits, expansion, query_vector, bridged.hit_entities, clock.laps)


def _chunks_and_seeds(
    ctx: Context, query: str, params: QueryParams, query_vector: list[float] | None, clock: _Clock
) -> tuple[list[Hit], list[Hit]]:
    """The chunk hits and the question's seed entities: two independent searches, sent at once where the store
    runs reads in parallel (Neo4j: each is mostly the server's vector index call, so together they cost about
    one). The "entities" lap is then the wait for the entities after the chunks came."""

    def entities() -> list[Hit]:
        return search_entities(ctx, query, params, query_vector=query_vector, k=QUESTION_SEEDS)

    if not ctx.store.parallel_reads:
        hits = search_chunks(ctx, query, params, query_vector=query_vector)
        clock.lap("chunks")
        entity_hits = entities()
        clock.lap("entities")
        return hits, entity_hits
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="seeds") as pool:
        seeds = pool.submit(contextvars.copy_context().run, entities)  # its log lines keep the request id
        hits = search_chunks(ctx, query, params, query_vector=query_vector)
        clock.lap("chunks")
        entity_hits = seeds.result()
    clock.lap("entities")
    return hits, entity_hits


class _Clock:
    """Milliseconds per named phase, each measured from the end of the previous one."""

    def __init__(self) -> None:
        self.laps: dict[str, float] = {}
        self._last = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.laps[name] = round((now - self._last) * 1000, 3)
        self._last = now


def missing_data(ctx: Context) -> str | None:
    """A clear reason when the project has nothing to search (no data is an answer, not an error)."""
    s = ctx.settings
    rows = ctx.store.read(
        f"MATCH (c:{ident(s.chunk_label)}) WHERE {ctx.in_scope('c')} RETURN count(c) AS n", {"project": ctx.project}
    )
    if rows and int(rows[0]["n"]):
        if ctx.vectors.dimension(s.chunk_label) is None:
            if ctx.vectors.in_graph:
                raise IndexMissing(s.chunk_vector_index)
            raise IndexMissing(
                f"{s.qdrant_collection_prefix}_chunk (Qdrant)",
                "The chunks are indexed but their vectors are not in Qdrant: re-index the project with "
                "DRIFTLENS_VECTOR_STORE=qdrant, or unset it to search the vectors kept in the graph.",
            )
        return None
    if not ctx.scoped:
        return f"The graph has no {s.chunk_label} nodes to search."
    projects = ctx.store.read(f"MATCH (p:{ident(s.project_label)}) RETURN p.id AS id ORDER BY id")
    known = ", ".join(str(p["id"]) for p in projects) or "none yet"
    return f"Project '{ctx.project}' has no indexed documents (projects in this graph: {known})."
