"""Structured search: the ranked chunks and the graph around a question, as data rather than an answer.

Why next to `ranking.retrieve`: services and agents (the HTTP API, the MCP tools) want what local search sees —
the entities the question matched, the neighbours the drift-scored walk reached with their hop, the chunks with
each arm's score — to build their own answer or to show why one was given. This is that view of the same
retrieval the modes use, plus timings and the flags that say where a cap cut the result short.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from retrieval.context import Context
from retrieval.models import Hit, QueryParams
from retrieval.search.ranking import missing_data, retrieve
from retrieval.text.readable import nothing_to_search


@dataclass
class GraphSearch:
    """Seeds (hop 0) and neighbours (hop >= 1) are entity hits whose `score` is the drift score and whose
    `metadata` holds `hop`, `title`, `type` and `degree`; chunks carry per-arm scores in `sources`."""

    seeds: list[Hit] = field(default_factory=list)
    neighbours: list[Hit] = field(default_factory=list)
    chunks: list[Hit] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    #: `expansion`: the walk hit `max_nodes`; `budget`: it stopped at `drift_budget`; `chunks`: top_k was full.
    truncated: dict[str, bool] = field(default_factory=dict)
    #: Why nothing was found (no words, unknown or empty project), or None.
    no_data: str | None = None
    #: The project searched (the scope decided once per search; callers need not decide it again).
    project: str = ""


def graph_search(
    ctx: Context,
    query: str,
    params: QueryParams,
    *,
    query_vector: list[float] | None = None,
    walk: bool = True,
) -> GraphSearch:
    """Hybrid search + bridge re-ranking + the drift-scored expansion, for `query` in `ctx.project`.

    A query of common words only ("the of and") finds nothing, as a question of them does (`nothing_to_search`,
    the one test every face uses): ranking hits for it would only rank noise. A query vector is searched as given.
    `walk=False`, for a caller that shows the chunks only: the same chunks without the walk (`ranking.retrieve`),
    so no neighbours, and the seeds are the entities matching the question.
    """
    unsearchable = nothing_to_search(query) if query_vector is None else None
    if unsearchable:
        return GraphSearch(no_data=unsearchable, project=ctx.project)
    found = retrieve(ctx, query, params, query_vector=query_vector, walk=walk)
    entities = found.expansion.entities
    seeds = [e for e in entities if not e.metadata.get("hop")] or found.seeds
    neighbours = [e for e in entities if e.metadata.get("hop")]
    no_data = None if found.chunks else missing_data(ctx) or "No matching chunks."
    return GraphSearch(
        seeds=seeds,
        neighbours=neighbours,
        chunks=found.chunks,
        timings_ms=found.timings_ms,
        truncated={
            "expansion": found.expansion.truncated,
            "budget": found.expansion.budget_exhausted,
            "chunks": len(found.chunks) >= params.top_k,
        },
        no_data=no_data,
        project=ctx.project,
    )
