"""The graph backends a benchmark compares: `--backend falkordb|neo4j|both`.

Neo4j is the server NEO4J_URI names (its database is wiped) or, without it, one started for the run by
tools/neo4j (Java 17 + Maven). Both columns measure the same synthetic graph through the same GraphStore port.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path

from retrieval.config import Settings, load_settings
from retrieval.store import GraphStore, open_store

CHOICES = {"falkordb": ("falkordb",), "neo4j": ("neo4j",), "both": ("falkordb", "neo4j")}


def add_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--backend", choices=sorted(CHOICES), default="falkordb", help="graph backend(s) to measure")


def chosen(args: argparse.Namespace) -> tuple[str, ...]:
    return CHOICES[args.backend]


def configured_neo4j() -> dict[str, object]:
    """The settings for NEO4J_URI's server and its credentials from the environment; {} when NEO4J_URI is unset."""
    if not (uri := os.environ.get("NEO4J_URI")):
        return {}
    return {
        "neo4j_uri": uri,
        "neo4j_username": os.environ.get("NEO4J_USERNAME", "neo4j"),
        "neo4j_password": os.environ.get("NEO4J_PASSWORD", ""),
    }


def required_neo4j() -> dict[str, object]:
    """`configured_neo4j()`, or exit saying what to set: for scripts that read a set already indexed there."""
    if not (configured := configured_neo4j()):
        sys.exit("set NEO4J_URI (and NEO4J_PASSWORD) to the server that holds the set's index")
    return configured


@contextlib.contextmanager
def neo4j_env(backends: tuple[str, ...], heap: str = "2g") -> Iterator[dict[str, object]]:
    """Settings pointing at Neo4j for the run (NEO4J_URI's server, or one started now); {} without Neo4j."""
    if "neo4j" not in backends:
        yield {}
        return
    if configured := configured_neo4j():
        yield configured
        return
    from tools.neo4j.server import start

    with start(heap=heap) as server:
        yield {"neo4j_uri": server.uri, "neo4j_username": server.user, "neo4j_password": server.password}


def settings_for(backend: str, folder: Path, neo4j: dict[str, object], **overrides: object) -> Settings:
    base: dict[str, object] = {
        "graph_path": folder / "graph.db",
        "data_dir": folder,
        "neo4j_uri": None,
        "redis_url": None,
    }
    if backend == "neo4j":
        base.update(neo4j)
    return load_settings(_env_file=None, **{**base, **overrides})


def open_empty(settings: Settings) -> GraphStore:
    store = open_store(settings)
    store.clear()
    return store
