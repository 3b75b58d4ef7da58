"""Hybrid search + graph: the chunk ranking that local search, the CLI and the evaluation share.

Why two graph steps: the bridge re-ranking (`bridge.py`) is what finds a multi-hop question's second
passage, through the entities the best hits mention; the drift-scored walk over RELATED (`expand.py`)
gathers the entities and relations around the question that the answer's trace and evidence graph
show. With `max_hops` 0 it is plain hybrid search.
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from retrieval.context import Context
from retrieval.errors import IndexMissing
from retrieval.models import Hit, QueryParams
from retrieval.search import bridge
from retrieval.search.expand import Expansion, expand
from retrieval.search.hybrid import search_chunks, search_chunks_and_entities, search_entities
from retrieval.store.records import Folded, ident

#: Entities matched from the question directly (seeds of both graph steps).
QUESTION_SEEDS = 5
#: A search step and the name of its lap in `Retrieval.timings_ms`.
type _Step[T] = tuple[Callable[[], T], str]


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
    ctx: Context, query: str, params: QueryParams, *, query_vector: list[float] | None = None, walk: bool
) -> Retrieval:
    """Top `params.top_k` chunks, re-ranked through the graph, with the expansion around the question when `walk`.

    Why the caller decides, with no default: the RELATED walk does not change the chunk ranking, and on Neo4j it
    was ~40% of a default search's time (its seeds in the spread's statement, a further hop, properties). A caller
    that only ranks chunks (the evaluation, the Tuning lab's grid, DRIFT's follow-ups, the command line's
    `search`) passes False and gets an empty `expansion`; one that shows the walk (local mode, the service's
    neighbours) passes True and gets it computed beside the bridge's scoring, as before. Computing it on first read
    instead would put the walk after the ranking on the path of every caller that shows it."""
    clock = _Clock()
    if query_vector is None and params.search_type != "fulltext":
        query_vector = ctx.embedder.embed_query(query)
        clock.lap("embed")
    if params.max_hops < 1:
        hits = search_chunks(ctx, query, params, query_vector=query_vector)
        clock.lap("chunks")
        return Retrieval(hits, [], Expansion(), query_vector, timings_ms=clock.laps)
    # The spread's statement (with the walk's seed rows) continues the hybrid one where the store can (`bridge.fold`).
    fold = bridge.fold(ctx, params, query_vector, query, QUESTION_SEEDS if walk else 0)
    hits, entity_hits, folded = _chunks_and_seeds(ctx, query, params, query_vector, clock, fold)
    scoring = (params, query_vector, query)
    spread = bridge.spread(ctx, hits, entity_hits, params if walk else None, scoring=scoring, fold=fold, folded=folded)

    def bridged() -> bridge.Bridged:
        return bridge.rerank(ctx, query, params, query_vector=query_vector, hits=hits, spread=spread)

    if not walk:
        ranked = bridged()
        clock.lap("bridge")
        return Retrieval(ranked.chunks, entity_hits, Expansion(), query_vector, ranked.hit_entities, clock.laps)
    seeds = {**spread.hit_entities}
    for hit in entity_hits:
        seeds[hit.id] = max(seeds.get(hit.id, 0.0), hit.score)

    def walk_around() -> Expansion:
        if not seeds:
            return Expansion()
        return expand(ctx, list(seeds), params, seed_scores=seeds, chunk_limit=0, read=spread.seed_rows)

    ranked, expansion = _together(ctx, (bridged, "bridge"), (walk_around, "expand"), clock)
    return Retrieval(ranked.chunks, entity_hits, expansion, query_vector, ranked.hit_entities, clock.laps)


def _chunks_and_seeds(  # noqa: PLR0917 - the search's inputs
    ctx: Context,
    query: str,
    params: QueryParams,
    query_vector: list[float] | None,
    clock: _Clock,
    fold: bridge.Fold | None,
) -> tuple[list[Hit], list[Hit], Folded | None]:
    """The chunk hits and the question's seed entities: one statement where the store folds both hybrid searches
    (`search_chunks_and_entities`: Neo4j), continued by `fold` where it can (its reply the third item), else two
    independent searches (on two threads where reads run in parallel). The one statement's lap is "chunks" (both
    searches, ranked); "entities" is then 0, its key kept for the service's `meta.timings`."""
    then = fold.read if fold else None
    found = search_chunks_and_entities(ctx, query, params, query_vector=query_vector, k=QUESTION_SEEDS, then=then)
    if found is not None:
        clock.lap("chunks")
        clock.lap("entities")
        return found

    def chunks() -> list[Hit]:
        return search_chunks(ctx, query, params, query_vector=query_vector)

    def entities() -> list[Hit]:
        return search_entities(ctx, query, params, query_vector=query_vector, k=QUESTION_SEEDS)

    return (*_together(ctx, (chunks, "chunks"), (entities, "entities"), clock), None)


def _together[A, B](ctx: Context, first: _Step[A], second: _Step[B], clock: _Clock) -> tuple[A, B]:
    """Two independent steps, the second on a worker thread while the caller runs the first, where the store runs
    reads in parallel (`GraphStore.parallel_reads`); one after the other elsewhere. Each step's lap is the time
    until its result was taken: with a thread, the second's lap is the wait for it after the first was done."""
    (run_first, first_lap), (run_second, second_lap) = first, second
    if not ctx.store.parallel_reads:
        a = run_first()
        clock.lap(first_lap)
        b = run_second()
        clock.lap(second_lap)
        return a, b
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="search") as pool:
        pending = pool.submit(contextvars.copy_context().run, run_second)  # its log lines keep the request id
        a = run_first()
        clock.lap(first_lap)
        b = pending.result()
    clock.lap(second_lap)
    return a, b


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
