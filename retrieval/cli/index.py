"""`index`, `stats`, `remove` and `demo` commands: build and inspect a project's graph from the terminal."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Table

from retrieval.cli import add_graph_options, settings_from_args, text_argument
from retrieval.config import Settings
from retrieval.embed import make_embedder
from retrieval.indexing.stats import graph_stats
from retrieval.llm.client import make_chat_model
from retrieval.store import GraphStore, open_store

if TYPE_CHECKING:  # the pipeline loads when a command runs it: every other command starts without it
    from retrieval.indexing import IndexReport, StageProgress
    from retrieval.indexing.model import ProgressCallback

DEMO_DIR = Path(__file__).resolve().parents[2] / "data" / "demo" / "behind-the-tech"
DEMO_PROJECT = "demo"


@contextmanager
def _progress(console: Console, quiet: bool) -> Iterator[ProgressCallback | None]:
    """A rich progress bar per stage (on stderr, so `--json` output stays clean)."""
    if quiet:
        yield None
        return
    columns = (TextColumn("{task.description:<22}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console) as bars:
        tasks: dict[str, TaskID] = {}

        def update(event: StageProgress) -> None:
            if event.stage not in tasks:
                tasks[event.stage] = bars.add_task(event.stage, total=max(event.total, 1))
            bars.update(tasks[event.stage], completed=event.done, total=max(event.total, 1))

        yield update


def _print_report(console: Console, report: IndexReport, stats: dict[str, Any]) -> None:
    counts = report.to_dict()["counts"]
    console.print(
        f"[bold]{report.project}[/]: {counts['added']} added, {counts['updated']} updated, "
        f"{counts['unchanged']} unchanged, {counts['deleted']} deleted"
    )
    for issue in report.issues:
        console.print(f"  [yellow]skipped[/] {issue.path}: {issue.message}")
    for note in report.notes:
        console.print(f"  [yellow]note[/] {note}")
    _print_stats(console, stats)


def _print_stats(console: Console, stats: dict[str, Any]) -> None:
    table = Table("what", "count", title=f"project {stats['project']}")
    for key in ("documents", "chunks", "entities", "relationships"):
        table.add_row(key, str(stats[key]))
    for key in ("symbols", "references", "links", "mcp_tools"):  # a repository's; absent from a corpus of prose
        if stats[key]:
            table.add_row(key.replace("_", " "), str(stats[key]))
    for level, n in sorted(stats["communities"].items()):
        table.add_row(f"communities level {level}", str(n))
    console.print(table)
    if stats["last_run"]:
        console.print("last changing run: " + ", ".join(f"{k} {v}" for k, v in stats["last_run"].items()))


def _index(settings: Settings, store: GraphStore, paths: list[Path], *, quiet: bool, use_llm: bool) -> IndexReport:
    from retrieval.indexing import run_index

    console = Console(stderr=True)
    with _progress(console, quiet) as on_progress:
        return run_index(
            settings,
            store,
            make_embedder(settings),
            paths,
            project=settings.project,
            on_progress=on_progress,
            chat_model=make_chat_model(settings) if use_llm else None,
        )


def cmd_index(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    with open_store(settings) as store:
        report = _index(settings, store, [Path(p) for p in args.paths], quiet=args.json, use_llm=True)
        return _finish(args, report, graph_stats(store, settings, settings.project))


def _finish(args: argparse.Namespace, report: IndexReport, stats: dict[str, Any]) -> int:
    """Print what a run did and where the graph stands: JSON for scripts, a table for people."""
    if args.json:
        print(json.dumps({**report.to_dict(), "stats": stats}, indent=2))
    else:
        _print_report(Console(), report, stats)
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    with open_store(settings) as store:
        stats = graph_stats(store, settings, settings.project)
    if args.json:
        print(json.dumps(stats, indent=2))
    else:
        _print_stats(Console(), stats)
    return 0


def cmd_remove(args: argparse.Namespace) -> int:
    from retrieval.indexing import remove_document

    settings = settings_from_args(args)
    console = Console(stderr=True)
    with open_store(settings) as store, _progress(console, args.json) as on_progress:
        report = remove_document(
            settings,
            store,
            make_embedder(settings),
            args.document,
            project=settings.project,
            on_progress=on_progress,
            chat_model=make_chat_model(settings),
        )
        return _finish(args, report, graph_stats(store, settings, settings.project))


def cmd_demo(args: argparse.Namespace) -> int:
    """Build the demo graph once, offline (no LLM calls on a first `make run`); later calls only check it is there."""
    settings = settings_from_args(args)
    if not args.project:
        settings = settings.model_copy(update={"project": DEMO_PROJECT})
    console = Console()
    with open_store(settings) as store:
        stats = graph_stats(store, settings, settings.project)
        if stats["documents"] and not stats["unfinished"]:
            console.print(f"Demo graph found in {settings.backend_display} (project '{settings.project}'): reused.")
            return 0
        console.print(f"Building the demo graph from {DEMO_DIR} (a few minutes, once; resumable)...")
        report = _index(settings, store, sorted(DEMO_DIR.glob("*.txt")), quiet=False, use_llm=False)
        _print_report(console, report, graph_stats(store, settings, settings.project))
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    index = subparsers.add_parser("index", help="index files, folders or .zip archives into a project")
    index.add_argument(
        "paths", nargs="+", help="files (text, Markdown, PDF, configuration, code), folders or .zip archives"
    )
    add_graph_options(index)
    index.set_defaults(func=cmd_index)

    stats = subparsers.add_parser("stats", help="counts of documents, chunks, entities, relationships, communities")
    add_graph_options(stats)
    stats.set_defaults(func=cmd_stats)

    remove = subparsers.add_parser("remove", help="delete a document (id, path or title) and what only it supported")
    remove.add_argument("document", type=text_argument)
    add_graph_options(remove)
    remove.set_defaults(func=cmd_remove)

    demo = subparsers.add_parser("demo", help="build the demo graph if it is missing (make run calls this)")
    add_graph_options(demo)
    demo.set_defaults(func=cmd_demo)
