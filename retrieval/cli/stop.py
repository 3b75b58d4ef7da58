"""`stop`: stop the embedded graph server that `DRIFTLENS_GRAPH_KEEP_SERVER` left running after the app closed.

Refuses while a DriftLens (app, service, indexer) still uses the graph: stopping it then would fail their reads.
"""

from __future__ import annotations

import argparse

from retrieval.cli import add_graph_options, settings_from_args
from retrieval.store.embedded_server import EmbeddedServer, Limits


def cmd_stop(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    if settings.backend != "falkordb":
        print("The graph is on Neo4j: its server is not DriftLens's to stop.")
        return 0
    server = EmbeddedServer(settings.embedded_graph_path, Limits.of(settings))
    if server.stop():
        print(f"No server runs for {server.layout.graph} now.")
        return 0
    print(f"The server of {server.layout.graph} is still in use by another DriftLens; close it first.")
    return 1


def register(subparsers: argparse._SubParsersAction) -> None:
    stop = subparsers.add_parser(
        "stop", help="stop an embedded graph server kept running (DRIFTLENS_GRAPH_KEEP_SERVER)"
    )
    add_graph_options(stop, per_project=False)
    stop.set_defaults(func=cmd_stop)
