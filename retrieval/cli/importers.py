"""`import-graphrag` and `import-kg`: bring a graph built elsewhere into a project, searchable like a native one."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from retrieval.cli import add_graph_options, settings_from_args
from retrieval.cli.index import _print_stats, _progress
from retrieval.config import Settings
from retrieval.embed import Embedder, make_embedder
from retrieval.indexing.model import ProgressCallback
from retrieval.indexing.stats import graph_stats
from retrieval.store import GraphStore, open_store

if TYPE_CHECKING:  # the importers (pandas, pyarrow) load when an import runs: other commands start without them
    from retrieval.indexing.importers.common import ImportReport

Importer = Callable[[Settings, GraphStore, Embedder, ProgressCallback | None], "ImportReport"]


def _run(args: argparse.Namespace, importer: Importer) -> int:
    settings = settings_from_args(args)
    with open_store(settings) as store, _progress(Console(stderr=True), args.json) as on_progress:
        report = importer(settings, store, make_embedder(settings), on_progress)
        stats = graph_stats(store, settings, settings.project)
    if args.json:
        print(json.dumps({**report.to_dict(), "stats": stats}, indent=2))
    else:
        _print_report(Console(), report)
        _print_stats(Console(), stats)
    return 0


def cmd_import_graphrag(args: argparse.Namespace) -> int:
    from retrieval.indexing.importers.graphrag import import_graphrag

    return _run(
        args, lambda s, store, e, progress: import_graphrag(s, store, e, Path(args.folder), on_progress=progress)
    )


def cmd_import_kg(args: argparse.Namespace) -> int:
    from retrieval.indexing.importers.neo4j_kg import import_kg

    files = [Path(f) for f in args.files]
    if args.native:
        return _load_native(args, files)
    return _run(
        args, lambda s, store, e, progress: import_kg(s, store, e, files, limit=args.limit, on_progress=progress)
    )


def _load_native(args: argparse.Namespace, files: list[Path]) -> int:
    """`--native`: the graph as SimpleKGPipeline writes it (its own labels and index), no project, no conversion."""
    from retrieval.indexing.importers.neo4j_kg_native import WORKSHOP_VECTOR_INDEX, load_native

    with open_store(settings_from_args(args)) as store:
        loaded = load_native(store, files, vector_index=args.vector_index or WORKSHOP_VECTOR_INDEX)
    if args.json:
        print(json.dumps(asdict(loaded), indent=2))
        return 0
    console = Console()
    nodes = ", ".join(f"{n} {label}" for label, n in loaded.nodes.items())
    console.print(f"Loaded as SimpleKGPipeline writes it: {nodes}")
    console.print("Relationships: " + ", ".join(f"{n} {kind}" for kind, n in loaded.relationships.items()))
    if loaded.vector_index:
        console.print(f"Vector index {loaded.vector_index} over Chunk.embedding ({loaded.dimension}-d, cosine)")
    console.print("Point DriftLens at it with settings: docs/bring-your-own-graph.md.")
    return 0


def _print_report(console: Console, report: ImportReport) -> None:
    read = ", ".join(f"{n} {what.replace('_', ' ')}" for what, n in report.read.items())
    console.print(f"[bold]{report.project}[/]: imported {report.kind} from {report.source} ({read})")
    for note in report.notes:
        console.print(f"  [yellow]note[/] {note}")


def register(subparsers: argparse._SubParsersAction) -> None:
    graphrag = subparsers.add_parser(
        "import-graphrag", help="import a Microsoft GraphRAG index output folder (parquet), re-embedded"
    )
    graphrag.add_argument(
        "folder", help="the output folder of `graphrag index` (documents.parquet, entities.parquet...)"
    )
    add_graph_options(graphrag)
    graphrag.set_defaults(func=cmd_import_graphrag)

    kg = subparsers.add_parser(
        "import-kg", help="import neo4j-graphrag SimpleKGPipeline JSON exports, then build communities"
    )
    kg.add_argument("files", nargs="+", help="JSON exports with `nodes` and `relationships`")
    kg.add_argument("--limit", type=int, default=None, help="import only the first N chunks of each document")
    kg.add_argument(
        "--native",
        action="store_true",
        help="load the graph as SimpleKGPipeline writes it (its labels, relationships and vector index), unconverted",
    )
    kg.add_argument(
        "--vector-index",
        default=None,
        help="with --native: name of the chunk vector index (default: chunkEmbeddings, as the workshop names it)",
    )
    add_graph_options(kg)
    kg.set_defaults(func=cmd_import_kg)
