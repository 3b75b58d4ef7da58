"""`serve`, `mcp` and `health`: the HTTP service, the MCP server on stdio, and a graph check for containers."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from retrieval.cli import settings_from_args
from retrieval.engine import Engine
from retrieval.service.heap import freeze_startup_objects
from retrieval.telemetry.logs import configure_logging

if TYPE_CHECKING:
    from fastapi import FastAPI


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    serve = sub.add_parser("serve", help="HTTP API + MCP (streamable HTTP at /mcp) over the graph")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=None, help="port (default: API_PORT, else 8000)")
    serve.add_argument(
        "--workers",
        type=int,
        default=1,
        help=(
            "worker processes, each with its own Engine "
            "(default 1; one per core lifts throughput, see docs/benchmarks.md)"
        ),
    )
    _graph_option(serve)
    serve.set_defaults(func=run_serve)

    for name, help_text, func in (
        ("mcp", "MCP server on stdin/stdout, for agents that start it themselves", run_mcp),
        ("health", "check the graph answers (exit 0) or not (exit 1): container checks", run_health),
    ):
        _graph_option(sub.add_parser(name, help=help_text)).set_defaults(func=func)


def _graph_option(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument("--graph", default=None, help="embedded graph file (same as DRIFTLENS_GRAPH_PATH)")
    parser.set_defaults(project=None)
    return parser


def run_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from retrieval.service.app import create_app
    from retrieval.service.protocol import header_deadline

    settings = settings_from_args(args)
    configure_logging(settings.log_level)
    port = args.port or settings.api_port
    options: dict[str, Any] = {  # access_log off: our JSON access lines (retrieval/service/access.py) replace uvicorn's
        "host": args.host,
        "port": port,
        "access_log": False,
        "log_config": None,
        "timeout_keep_alive": settings.api_keep_alive_s,
        "http": header_deadline(settings.api_header_timeout_s),
    }
    if args.workers > 1:
        # Why processes: a search is CPU-bound Python (parsing graph replies, scoring), so threads of one process
        # share one core through the GIL. Each worker builds its app from the environment, so the options
        # given here travel there.
        if args.graph:
            os.environ["DRIFTLENS_GRAPH_PATH"] = str(Path(args.graph).resolve())
        os.environ[HOST_VARIABLE] = args.host
        uvicorn.run("retrieval.cli.serve:app_from_environment", factory=True, workers=args.workers, **options)
        return 0
    app = create_app(settings, host=args.host)
    freeze_startup_objects()
    uvicorn.run(app, **options)
    return 0


#: Where `serve --workers` leaves the listening address for its workers (the MCP endpoint checks Host by it).
HOST_VARIABLE = "DRIFTLENS_SERVE_HOST"


def app_from_environment() -> FastAPI:
    """One worker's app, with the settings from the environment (`serve --workers` starts several)."""
    from retrieval.config import load_settings
    from retrieval.service.app import create_app

    settings = load_settings()
    configure_logging(settings.log_level)
    # Uvicorn silenced its access logger before loading this app; configure_logging re-attached it to the root.
    logging.getLogger("uvicorn.access").propagate = False
    app = create_app(settings, host=os.environ.get(HOST_VARIABLE, "127.0.0.1"))
    freeze_startup_objects()
    return app


def run_mcp(args: argparse.Namespace) -> int:
    from retrieval.service.mcp_tools import build_mcp
    from retrieval.service.state import Service

    settings = settings_from_args(args)
    configure_logging(settings.log_level)  # on stderr: stdout carries the protocol
    service = Service.open(Engine(settings))
    freeze_startup_objects()
    try:
        asyncio.run(build_mcp(lambda: service, raw_cypher=settings.api_raw_cypher).run_stdio_async())
    finally:
        service.close()
    return 0


def run_health(args: argparse.Namespace) -> int:
    """Exit 0 when the graph answers, 1 when not; prints the `graph` part of GET /health.

    Only the store is opened (no embedder, no model): a container runs this every half minute.
    """
    from retrieval.errors import StoreUnavailable
    from retrieval.service.handlers import graph_health
    from retrieval.service.schemas import GraphHealth
    from retrieval.store import open_store

    settings = settings_from_args(args)
    try:
        with open_store(settings) as store:
            graph = graph_health(store.health)
    except StoreUnavailable as exc:
        graph = GraphHealth(reachable=False, message=str(exc))
    print(json.dumps({"healthy": graph.reachable, "backend": settings.backend, "graph": graph.model_dump(mode="json")}))
    return 0 if graph.reachable else 1
