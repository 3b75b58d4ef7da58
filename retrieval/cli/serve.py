"""`serve`, `mcp` and `health`: the HTTP service, the MCP server on stdio, and a graph check for containers."""

from __future__ import annotations

import argparse
import asyncio
import json

from retrieval.cli import settings_from_args
from retrieval.engine import Engine
from retrieval.logs import configure_logging


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    serve = sub.add_parser("serve", help="HTTP API + MCP (streamable HTTP at /mcp) over the graph")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=None, help="port (default: API_PORT, else 8000)")
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

    settings = settings_from_args(args)
    configure_logging(settings.log_level)
    port = args.port or settings.api_port
    app = create_app(settings, host=args.host)
    uvicorn.run(  # access_log off: our JSON access lines (retrieval/service/access.py) replace uvicorn's
        app,
        host=args.host,
        port=port,
        access_log=False,
        log_config=None,
        timeout_keep_alive=settings.api_keep_alive_s,
    )
    return 0


def run_mcp(args: argparse.Namespace) -> int:
    from retrieval.service.mcp_tools import build_mcp
    from retrieval.service.state import Service

    settings = settings_from_args(args)
    configure_logging(settings.log_level)  # on stderr: stdout carries the protocol
    service = Service.open(Engine(settings))
    try:
        asyncio.run(build_mcp(lambda: service).run_stdio_async())
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
