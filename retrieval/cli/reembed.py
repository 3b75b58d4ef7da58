"""`reembed`: give a graph built by another tool vectors of DriftLens's embedder, under new vector indexes."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict

from rich.console import Console

from retrieval.cli import settings_from_args
from retrieval.embed import make_embedder
from retrieval.indexing.reembed import reembed
from retrieval.store import open_store


def cmd_reembed(args: argparse.Namespace) -> int:
    settings = settings_from_args(args, chunk_vector_index=args.index, embedding_property=args.property)
    console = Console(stderr=True)

    def progress(label: str, done: int) -> None:
        if not args.json:
            console.print(f"  {label}: {done} embedded", highlight=False)

    with open_store(settings) as store:
        report = reembed(settings, store, make_embedder(settings), on_progress=progress)
    if args.json:
        print(json.dumps(asdict(report), indent=2))
        return 0
    embedded = ", ".join(f"{n} {label}" for label, n in report.embedded.items())
    Console().print(
        f"Embedded {embedded} into `{settings.embedding_property}`; indexes ready: {', '.join(report.indexes)}"
    )
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "reembed",
        help="embed chunk text and entity names with the configured embedder into a new property and vector index",
    )
    parser.add_argument("--index", default=None, help="chunk vector index to create (default: settings)")
    parser.add_argument(
        "--property", default=None, help="property the vectors go to (default: DRIFTLENS_EMBEDDING_PROPERTY)"
    )
    parser.add_argument("--graph", default=None, help="embedded graph file (same as DRIFTLENS_GRAPH_PATH)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.set_defaults(func=cmd_reembed)
