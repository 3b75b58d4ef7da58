"""HTTP routes: parse the body (FastAPI + the schemas), run the handler through the gate, map errors.

Every failure answers `{error, detail, request_id}`: 422 for a value the caller can fix, 503 when the graph does
not answer (with what to check), 503 + `Retry-After` when every answer slot is busy, 504 past the timeout, 500
for an infrastructure failure (model, missing index) naming what to check. Messages are redacted.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from retrieval.errors import (
    DriftLensError,
    IndexMissing,
    InvalidInput,
    LLMError,
    LLMNotConfigured,
    QueryError,
    ReadOnlyViolation,
    StoreUnavailable,
)
from retrieval.service import handlers, metrics, schemas
from retrieval.service.limits import Busy, TimedOut
from retrieval.service.state import Service
from retrieval.telemetry.logs import request_id
from retrieval.text.redact import redact

log = logging.getLogger("driftlens.service")
router = APIRouter()

_ERRORS: dict[int | str, dict[str, Any]] = {
    422: {"model": schemas.ErrorBody, "description": "A value the caller can fix (unknown project, bad embedding)."},
    500: {"model": schemas.ErrorBody, "description": "Model or index failure; `detail` says what to check."},
    503: {"model": schemas.ErrorBody, "description": "Graph unreachable, or every answer slot busy (Retry-After)."},
    504: {"model": schemas.ErrorBody, "description": "The answer took longer than the request timeout."},
}


def service(request: Request) -> Service:
    state: Service = request.app.state.service
    return state


async def answer[T](request: Request, work: Callable[..., T], *args: Any) -> T:
    """`work(engine, *args)` through the service's gate."""
    svc = service(request)
    return await svc.gate.run(work, svc.engine, *args)


@router.get("/health", response_model=schemas.HealthResponse, responses={503: {"model": schemas.HealthResponse}})
async def health(request: Request) -> JSONResponse:
    """200 when the graph answers, 503 when it does not or not within 1.5 s (never gated: it must answer under load)."""
    result = await service(request).health()
    return JSONResponse(result.model_dump(mode="json"), status_code=200 if result.healthy else 503)


@router.get("/health/neo4j", response_model=schemas.GraphCheck, responses={503: {"model": schemas.GraphCheck}})
async def health_neo4j(request: Request) -> JSONResponse:
    """The seed's graph check, `{status, message}`: 200 healthy, 503 unhealthy (whichever backend is configured)."""
    result = handlers.graph_check(await service(request).health())
    return JSONResponse(result.model_dump(mode="json"), status_code=200 if result.status == "healthy" else 503)


@router.post("/v1/retrieval/search", response_model=schemas.SearchResponse, responses=_ERRORS)
async def search(request: Request, body: schemas.SearchRequest) -> schemas.SearchResponse:
    """Seed entities, drift-scored neighbours, documents with per-arm scores; `global.enabled` adds an answer."""
    return await answer(request, handlers.search, body)


@router.post("/retrieve", response_model=schemas.RetrieveResponse, responses=_ERRORS)
async def retrieve(request: Request, body: schemas.RetrieveRequest) -> schemas.RetrieveResponse:
    """An answer (DRIFT by default) with cited key facts; progress on the Redis channel `ui:retrieval_progress`."""
    return await answer(request, handlers.retrieve, body)


@router.post("/v1/ask", responses=_ERRORS)
async def ask(request: Request, body: schemas.AskRequest) -> dict[str, Any]:
    """An answer in any mode, as the project's `Answer` JSON."""
    result = await answer(request, handlers.ask, body)
    return schemas.answer_json(result, include_trace=body.include_trace)


@router.get("/v1/documents", response_model=schemas.DocumentsResponse, responses=_ERRORS)
async def documents(
    request: Request,
    project_id: Annotated[str | None, Query(alias="projectId", min_length=1, max_length=200)] = None,
    limit: Annotated[int, Query(ge=1, le=schemas.MAX_DOCUMENTS)] = schemas.DEFAULT_DOCUMENTS,
) -> schemas.DocumentsResponse:
    """The project's documents (every project's without `projectId`): source, size, chunks, entities, when indexed,
    content hash and what the last run did to each."""
    return await answer(request, lambda engine: handlers.list_documents(engine, project_id=project_id, limit=limit))


@router.get("/metrics", include_in_schema=False)
async def prometheus_metrics() -> Response:
    return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)


def install_error_handlers(app: FastAPI) -> None:
    def body(status: int, error: str, detail: str, headers: dict[str, str] | None = None) -> JSONResponse:
        payload = schemas.ErrorBody(error=error, detail=redact(detail), request_id=request_id.get())
        return JSONResponse(payload.model_dump(), status_code=status, headers=headers)

    async def busy(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, Busy)
        metrics.SHED.labels(_route(request)).inc()
        return body(503, "busy", str(exc), {"Retry-After": str(exc.retry_after_s)})

    async def timed_out(request: Request, exc: Exception) -> JSONResponse:
        metrics.TIMEOUTS.labels(_route(request)).inc()
        return body(504, "timeout", str(exc))

    async def product_error(request: Request, exc: Exception) -> JSONResponse:
        status, error, hint = _classify(exc)
        if status >= 500:
            log.warning("%s: %s", error, exc)
        return body(status, error, f"{exc}{hint}")

    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        rid = getattr(request.state, "request_id", "-")
        log.error("unexpected failure (request %s)", rid, exc_info=exc)
        detail = f"{type(exc).__name__}: {exc}. The service log has the traceback (request {rid})."
        payload = schemas.ErrorBody(error="internal error", detail=redact(detail), request_id=rid)
        return JSONResponse(payload.model_dump(), status_code=500, headers={"X-Request-ID": rid})

    async def invalid_body(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'][1:]) or 'body'}: {e['msg']}" for e in exc.errors())
        return body(422, "invalid request", problems)

    app.add_exception_handler(RequestValidationError, invalid_body)
    app.add_exception_handler(Busy, busy)
    app.add_exception_handler(TimedOut, timed_out)
    app.add_exception_handler(DriftLensError, product_error)
    app.add_exception_handler(Exception, unexpected)


def _classify(exc: Exception) -> tuple[int, str, str]:
    if isinstance(exc, StoreUnavailable):
        return 503, "graph unavailable", " Check that the graph database runs and that GET /health answers 200."
    if isinstance(exc, (InvalidInput, ReadOnlyViolation, QueryError)):
        return 422, "invalid request", ""
    if isinstance(exc, (LLMError, LLMNotConfigured)):
        return 500, "language model failed", " Check the model endpoint settings (OPENAI_BASE_URL, keys, OAI_MODEL)."
    if isinstance(exc, IndexMissing):
        return 500, "index missing", ""
    return 500, "retrieval failed", ""


def _route(request: Request) -> str:
    return getattr(request.scope.get("route"), "path", "unmatched")
