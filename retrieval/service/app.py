"""The service's app factory: FastAPI routes, the MCP endpoint at `/mcp`, middleware, one Engine per process.

`create_app(settings)` opens the Engine when the app starts (uvicorn's lifespan), or starts without it while the
graph does not answer (see `Service.starting`), and closes it when it stops; tests and embedders may pass an Engine
of their own. The log says at start whether the API key is on. Middleware, outermost first: request id + access log +
metrics, CORS (only when origins are configured), API key (only when one is set), request size cap.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from starlette.concurrency import run_in_threadpool

from retrieval.config import Settings
from retrieval.engine import Engine
from retrieval.service import routes
from retrieval.service.access import ApiKey, RequestContext
from retrieval.service.limits import BodyLimit
from retrieval.service.mcp_tools import build_mcp
from retrieval.service.state import Service

log = logging.getLogger("driftlens.service")

DESCRIPTION = (
    "GraphRAG retrieval over a DriftLens graph: structured search (seed entities, drift-scored neighbours, "
    "evidence), answers in every mode, health and metrics. MCP tools for agents at `/mcp` (streamable HTTP)."
)


def create_app(settings: Settings, *, engine: Engine | None = None, host: str = "127.0.0.1") -> FastAPI:
    """The ASGI app. `host` is where it listens: on loopback, the MCP endpoint refuses other Host headers."""
    holder: dict[str, Service] = {}

    def current() -> Service:
        return holder["service"]

    mcp = build_mcp(current, raw_cypher=settings.api_raw_cypher)
    mcp_routes = mcp.streamable_http_app(
        streamable_http_path="/mcp",
        stateless_http=True,  # every call stands alone: no session to pin to one worker
        json_response=True,
        max_request_body_size=settings.api_max_body_bytes,
        host=host,
    ).routes

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        own = engine is None
        if engine is None:  # a graph that does not answer yet: start anyway, /health says so (see Service)
            service = await run_in_threadpool(Service.starting, settings, lambda: Engine(settings))
        else:
            service = Service.open(engine, settings)
        holder["service"] = app.state.service = service
        log.info(
            "API key %s",
            "on: every route but /health and /health/neo4j needs `Authorization: Bearer <key>`"
            if settings.api_key is not None
            else "off (DRIFTLENS_API_KEY unset or empty): every route is open to whoever reaches this address",
        )
        try:
            async with mcp.session_manager.run():
                yield
        finally:
            service.close(engine_too=own)  # an engine passed in belongs to the caller

    app = FastAPI(title="DriftLens retrieval service", description=DESCRIPTION, version="1", lifespan=lifespan)
    app.include_router(routes.router)
    app.router.routes.extend(mcp_routes)
    routes.install_error_handlers(app)
    app.add_middleware(BodyLimit, max_bytes=settings.api_max_body_bytes)
    if settings.api_key is not None:
        app.add_middleware(ApiKey, key=settings.api_key.get_secret_value())
    if settings.api_cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(settings.api_cors_origins),
            allow_methods=["GET", "POST"],
            allow_headers=["Authorization", "Content-Type", "X-Request-ID"],
        )
    app.add_middleware(RequestContext)
    return app
