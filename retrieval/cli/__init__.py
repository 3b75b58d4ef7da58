"""Command line: `python -m retrieval <command>`.

Each module in this package registers one or more sub-commands through `register(subparsers)`,
so a command lives next to nothing but its own argument parsing and printing.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
from pathlib import Path
from typing import Any

from retrieval.config import Settings, load_settings
from retrieval.errors import DriftLensError
from retrieval.text.clean import clean_text
from retrieval.text.redact import redact

#: argparse `type=` for words a user types (questions, project and document names); paths stay raw, so a file
#: whose name is not UTF-8 still opens.
text_argument = clean_text


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m retrieval", description="DriftLens GraphRAG workbench")
    sub = parser.add_subparsers(dest="command", required=True)
    for module in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        importlib.import_module(f"{__name__}.{module.name}").register(sub)
    return parser


def add_graph_options(parser: argparse.ArgumentParser, *, per_project: bool = True) -> None:
    """Options every graph command shares: which embedded graph file and, for a command that reads or writes a
    project's data (`per_project`), which project and whether to print JSON. `repair` and `stop` act on the graph
    file's server as a whole and print one line, so they take neither."""
    if per_project:
        parser.add_argument(
            "--project", type=text_argument, default=None, help="project name (default: settings.project)"
        )
    parser.add_argument("--graph", default=None, help="embedded graph file (same as DRIFTLENS_GRAPH_PATH)")
    if per_project:
        parser.add_argument("--json", action="store_true", help="print JSON instead of text")


def settings_from_args(args: argparse.Namespace, **extra: object) -> Settings:
    """Settings with the shared --graph and --project options, and the `extra` ones given (not None), applied."""
    overrides: dict[str, Any] = {key: value for key, value in extra.items() if value is not None}
    if args.graph:
        overrides["graph_path"] = Path(args.graph)
    if getattr(args, "project", None):
        overrides["project"] = args.project
    return load_settings(**overrides)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        code = int(args.func(args) or 0)
        sys.stdout.flush()  # inside the try: a reader that left early (`| head`) is noticed here, not at exit
        return code
    except DriftLensError as exc:
        print(f"error: {redact(str(exc))}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return _reader_gone()


def _reader_gone() -> int:
    """`stats --json | head -1`: the reader has what it wanted. Point stdout at /dev/null so the interpreter's
    final flush cannot fail again, and exit 1 without a traceback (as the Python documentation advises)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 1
