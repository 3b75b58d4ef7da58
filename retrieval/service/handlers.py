"""What each endpoint and MCP tool does, as plain blocking functions over one `Engine`.

Why one module for both faces: the HTTP routes and the MCP tools call these same functions (in a worker
thread), so an agent and a service get the same JSON for the same question. No Cypher here: reads go through
`Engine` and the search layer.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypedDict

from retrieval.config import Settings
from retrieval.engine import Engine
from retrieval.errors import DriftLensError, InvalidInput, StoreUnavailable
from retrieval.indexing.documents import DocumentInfo
from retrieval.models import Answer, Citation, Hit
from retrieval.search import explore
from retrieval.search.expand import expand
from retrieval.service import metrics, schemas
from retrieval.store import Health
from retrieval.telemetry.events import ProgressEvent

#: Longest chunk text returned by the search endpoint (the full text is one `read_cypher` away).
CHUNK_TEXT_CHARS = 2000


def health(engine: Engine) -> schemas.HealthResponse:
    """The graph's counts and indexes; `healthy` is False (and the route answers 503) when it does not answer."""
    return health_response(engine.settings, graph_health(engine.health), engine)


def health_response(
    settings: Settings, graph: schemas.GraphHealth, engine: Engine | None = None
) -> schemas.HealthResponse:
    """The health body around `graph`; without an Engine (the graph never answered yet) the models are not loaded."""
    return schemas.HealthResponse(
        healthy=graph.reachable,
        backend=settings.backend,
        graph=graph,
        embedder=f"{engine.embedder.name} ({engine.embedder.dim}-d)" if engine else NOT_LOADED,
        llm=engine.llm_description if engine else NOT_LOADED,
    )


def graph_check(health: schemas.HealthResponse) -> schemas.GraphCheck:
    """`/health`'s answer in the seed's `/health/neo4j` shape: a status and one sentence (the graph's own message
    when it has one)."""
    graph = health.graph
    if health.healthy:
        where = f" at {graph.uri}" if graph.uri else ""
        message = graph.message or f"The {health.backend} graph{where} answers."
        return schemas.GraphCheck(status="healthy", message=message)
    if health.warming and health.warmup:  # the graph answers; the service is not ready yet
        return schemas.GraphCheck(status="unhealthy", message=health.warmup)
    return schemas.GraphCheck(status="unhealthy", message=graph.message or "The graph does not answer.")


#: What the health body says of the embedder and the model before the graph first answered.
NOT_LOADED = "not loaded yet: it loads once the graph answers"


def graph_health(check: Callable[[], Health]) -> schemas.GraphHealth:
    """`check()` as the health body's `graph` part; a graph that does not answer (unreachable, or a read that timed
    out) is a state here, not an error."""
    try:
        state = check()
    except DriftLensError as exc:
        uri = exc.uri if isinstance(exc, StoreUnavailable) else ""
        return schemas.GraphHealth(reachable=False, uri=uri, message=str(exc))
    return schemas.GraphHealth(
        reachable=state.ok,
        uri=state.uri,
        counts=state.counts,
        indexes=[dataclasses.asdict(i) for i in state.indexes],
        message=state.message,
    )


class Scope(TypedDict):
    """The Engine's scope arguments (`project`, `every_project`), passed on as keywords."""

    project: str | None
    every_project: bool


def scope(engine: Engine, project_id: str | None) -> Scope:
    """The Engine's scope arguments for a request's project: the project if the graph has it, every project when
    none was given (the seed's "not scoped"; the CLI and the app read the configured project instead).

    An empty graph has no projects: any project then finds no data."""
    if project_id is None:
        return {"project": None, "every_project": True}
    known = engine.projects()
    if known and project_id not in known:
        raise InvalidInput(f"Unknown projectId '{project_id}'; projects in this graph: {', '.join(known)}.")
    return {"project": project_id, "every_project": False}


def search(engine: Engine, request: schemas.SearchRequest) -> schemas.SearchResponse:
    where = scope(engine, request.project_id)
    params = engine.params(
        top_k=request.local.k,
        alpha=request.local.weights.alpha,
        max_hops=request.drift.max_hops,
        max_nodes=request.drift.max_nodes,
        global_level=request.global_.level,
        drift_budget=request.drift.drift_budget,
    )
    found = engine.search(request.query, params, query_vector=request.embedding, **where)
    metrics.observe_search(found.timings_ms)
    modes, notes, final, level = ["local"], [], None, request.global_.level
    timings = dict(found.timings_ms)
    if request.global_.enabled:
        answer = engine.ask(
            request.query,
            "global",
            params,
            max_communities=request.global_.limit_communities,
            **where,
        )
        metrics.observe_answer(answer)
        modes.append("global")
        notes.extend(answer.notes)
        final = None if answer.no_data_found else answer.final_answer
        timings["global"] = round(answer.usage.wall_ms, 3)
        level = next((s.details["level"] for s in answer.trace if s.details.get("level") is not None), level)
    return schemas.SearchResponse(
        entities=[_entity(e) for e in found.seeds],
        neighbor_entities=[_entity(e) for e in found.neighbours],
        documents=_documents(found.chunks),
        final_answer=final,
        meta=schemas.SearchMeta(
            project_id=None if where["every_project"] else found.project,
            local=schemas.LocalMeta(k=request.local.k),
            drift=schemas.DriftMeta(expanded=len(found.neighbours)),
            **{"global": schemas.GlobalMeta(level=level)},  # a keyword Python reserves: passed by its alias
            modes=modes,
            timings_ms=timings,
            truncated=found.truncated,
            no_data_found=found.no_data is not None,
            reason=found.no_data,
            notes=notes,
        ),
    )


def _entity(hit: Hit) -> schemas.EntityOut:
    meta = hit.metadata
    title = str(meta.get("title") or hit.id)
    description = hit.text.removeprefix(f"{title}: ") if hit.text != title else ""
    return schemas.EntityOut(
        id=hit.id,
        name=title,
        title=title,
        type=meta.get("type"),
        description=description,
        score=round(hit.score, 6),
        hop=int(meta.get("hop") or 0),
        degree=int(meta.get("degree") or 0),
    )


def _documents(chunks: list[Hit]) -> list[schemas.DocumentOut]:
    """Chunks grouped by document, documents in the order of their best chunk."""
    grouped: dict[str, schemas.DocumentOut] = {}
    for hit in chunks:
        key = hit.document_id or hit.document_name or hit.id
        doc = grouped.setdefault(
            key,
            schemas.DocumentOut(
                id=key,
                title=hit.document_name or key,
                document_id=hit.document_id,
                document_name=hit.document_name,
                score=round(hit.score, 6),
                chunks=[],
            ),
        )
        doc.chunks.append(
            schemas.ChunkOut(
                chunk_id=hit.id,
                text=hit.text[:CHUNK_TEXT_CHARS],
                score=round(hit.score, 6),
                scores={k: round(v, 6) for k, v in hit.sources.items()},
            )
        )
    return list(grouped.values())


def retrieve(engine: Engine, request: schemas.RetrieveRequest) -> schemas.RetrieveResponse:
    """An answer in the seed's shape; progress goes to `ui:retrieval_progress` (see ProgressBus)."""
    ids: list[str] = []
    answer = engine.ask(
        request.query,
        request.mode,
        engine.params(top_k=request.top_k),
        on_progress=_first_id(ids),
        **scope(engine, request.project_id),
    )
    metrics.observe_answer(answer)
    return schemas.RetrieveResponse(
        final_answer="" if answer.no_data_found else answer.final_answer,
        key_facts=[
            schemas.KeyFactOut(
                fact=f.fact,
                citations=[_citation(c) for c in f.citations],
            )
            for f in answer.key_facts
        ],
        residual_uncertainty=answer.residual_uncertainty,
        no_data_found=answer.no_data_found,
        retrieval_id=ids[0] if ids else "",
    )


def _citation(citation: Citation) -> schemas.CitationOut | str:
    """The seed's enriched citation; its plain chunk id when no verified span enriches it (the citation check
    clears a span the chunk does not hold, `search.citations.validate_citations`)."""
    if not citation.span:
        return citation.chunk_id
    return schemas.CitationOut(chunk_id=citation.chunk_id, span=citation.span, document_name=citation.document_name)


def _first_id(ids: list[str]) -> Callable[[ProgressEvent], None]:
    def remember(event: ProgressEvent) -> None:
        if not ids:
            ids.append(event.retrieval_id)

    return remember


def ask(engine: Engine, request: schemas.AskRequest) -> Answer:
    params = engine.params(top_k=request.top_k, max_hops=request.max_hops)
    answer = engine.ask(request.query, request.mode, params, **scope(engine, request.project_id))
    metrics.observe_answer(answer)
    return answer


# --- MCP-only reads --------------------------------------------------------------------------------------------
def expand_entity(
    engine: Engine, entity_id: str, *, project_id: str | None = None, max_hops: int = 1, max_nodes: int = 50
) -> dict[str, Any]:
    """The entity's neighbourhood as the search endpoint shows it: entities with drift score and hop, relations."""
    ctx = engine.context(**scope(engine, project_id))
    params = engine.params(max_hops=max_hops, max_nodes=max_nodes)
    found = expand(ctx, [entity_id], params, chunk_limit=0, relations=True)
    if not found.entities:
        raise InvalidInput(f"No entity with id '{entity_id}' in {ctx.scope_description}.")
    return {
        "entity": _entity(found.entities[0]).model_dump(by_alias=True),
        "neighborEntities": [_entity(e).model_dump(by_alias=True) for e in found.entities[1:]],
        "relations": found.relations,
        "truncated": found.truncated,
    }


def read_cypher(engine: Engine, cypher: str, *, max_rows: int) -> dict[str, Any]:
    """Read-only Cypher (a write raises ReadOnlyViolation), at most `max_rows` rows, stopped after cypher_timeout_ms.

    No project: Cypher reads whatever it matches, so a project argument would only pretend to confine it."""
    ctx = engine.context()
    result = explore.run_cypher(ctx, cypher, limit=max_rows)
    return {"rows": result.rows, "truncated": result.truncated, "maxRows": max_rows}


def list_communities(engine: Engine, *, project_id: str | None = None, level: int | None = None) -> dict[str, Any]:
    ctx = engine.context(**scope(engine, project_id))
    tree = explore.community_tree(ctx)
    return {
        "projectId": ctx.project if ctx.scoped else None,
        "communities": [dataclasses.asdict(c) for c in tree if level is None or c.level == level],
    }


def list_documents(
    engine: Engine, *, project_id: str | None = None, limit: int = schemas.DEFAULT_DOCUMENTS
) -> schemas.DocumentsResponse:
    """The project's documents by path, at most `limit` (the HTTP route and the MCP tool `list_documents`)."""
    if not 1 <= limit <= schemas.MAX_DOCUMENTS:
        raise InvalidInput(f"limit must be 1..{schemas.MAX_DOCUMENTS}.")
    where = scope(engine, project_id)
    found = engine.documents(where["project"], every_project=where["every_project"])
    return schemas.DocumentsResponse(
        project_id=project_id,
        documents=[_document(d) for d in found[:limit]],
        total=len(found),
        truncated=len(found) > limit,
    )


def _document(doc: DocumentInfo) -> schemas.DocumentItem:
    fields = dataclasses.asdict(doc)
    fields["project_id"] = fields.pop("project")
    return schemas.DocumentItem(**fields)
