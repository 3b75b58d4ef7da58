"""`repair`: fix an embedded graph whose append-only log cannot be replayed (a write cut off by a crash or a full disk).

Opening such a graph fails with a message that names this command. It copies the log aside first, then runs
Redis's own checker, which keeps every complete entry and cuts the log at the first damaged one.
"""

from __future__ import annotations

import argparse

from retrieval.cli import add_graph_options, settings_from_args
from retrieval.store.embedded_server import EmbeddedServer, Limits


def cmd_repair(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    print(EmbeddedServer(settings.embedded_graph_path, Limits.of(settings)).repair())
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    repair = subparsers.add_parser("repair", help="repair an embedded graph's damaged append-only log (backup first)")
    add_graph_options(repair, per_project=False)
    repair.set_defaults(func=cmd_repair)
