"""Per-request plumbing as plain ASGI middleware: request ids, access log lines and metrics, the API key.

Why plain ASGI rather than `BaseHTTPMiddleware`: the MCP endpoint streams (server-sent events), and plain ASGI
middleware passes a stream through untouched while it still sees the status and the route.
"""

from __future__ import annotations

import hmac
import logging
import re
import time
import uuid

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from retrieval.service import metrics
from retrieval.service.limits import send_json
from retrieval.telemetry.logs import request_id

log = logging.getLogger("driftlens.access")

#: A caller's X-Request-ID is kept when it looks like an id (so a gateway's id follows the request).
_GOOD_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")
#: Routes anyone may call when an API key is set (container health checks carry no key).
OPEN_PATHS = frozenset({"/health", "/health/neo4j"})


class RequestContext:
    """Gives each request an id (response header `X-Request-ID`), logs one line and counts it when done."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = dict(scope["headers"]).get(b"x-request-id", b"").decode("latin-1")
        rid = given if _GOOD_ID.match(given) else uuid.uuid4().hex
        token = request_id.set(rid)
        scope.setdefault("state", {})["request_id"] = rid  # for the 500 handler, which runs outside this middleware
        status = 500
        started = time.perf_counter()

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", []), (b"x-request-id", rid.encode())]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            seconds = time.perf_counter() - started
            route = getattr(scope.get("route"), "path", "unmatched")
            metrics.REQUESTS.labels(route, scope["method"], str(status)).inc()
            metrics.LATENCY.labels(route, scope["method"]).observe(seconds)
            log.info(
                "%s %s %s %.1f ms",
                scope["method"],
                scope["path"],
                status,
                seconds * 1000,
                extra={"route": route, "status": status, "duration_ms": round(seconds * 1000, 3)},
            )
            request_id.reset(token)


class ApiKey:
    """With a key configured, every route but the health checks needs `Authorization: Bearer <key>`.

    The comparison is `hmac.compare_digest` on bytes: its time does not depend on how much of the key matched.
    """

    def __init__(self, app: ASGIApp, key: str) -> None:
        self.app = app
        self.key = key.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        header = dict(scope["headers"]).get(b"authorization", b"")
        scheme, _, given = header.partition(b" ")
        if scheme.lower() == b"bearer" and hmac.compare_digest(given.strip(), self.key):
            await self.app(scope, receive, send)
            return
        await send_json(
            send,
            401,
            {"error": "unauthorized", "detail": "Send the API key as `Authorization: Bearer <key>`."},
            [(b"www-authenticate", b"Bearer")],
        )
