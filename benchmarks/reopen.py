"""Reopen: from opening an existing embedded graph to the first answer, cold and with the server kept alive.

Usage: python benchmarks/reopen.py [--scale 10k|100k|1m]
Uses the synthetic graph `benchmarks/scale.py` builds (cached under benchmarks/.cache/; built first if missing).
Target (issue #15): an existing 100k-chunk graph opened and its first question answered <= 10 s.

Phases, each measured from the previous one:
- server: the graph's server started (or found running) and its data loaded, i.e. it answers a ping;
- indexes: every index of the graph operational (a server that loaded the graph from disk rebuilds them);
- engine: the embedder loaded and the graph checked (`Engine`);
- first answer: one local-mode question, no model (query embedding, hybrid search, 1-hop expansion, answer).
Rows: "cold" starts a stopped server; "kept alive" reopens after an app closed with DRIFTLENS_GRAPH_KEEP_SERVER on.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._table import print_table
from benchmarks.scale import SCALES, server_rss_gb
from benchmarks.search import open_graph
from retrieval.config import Settings
from retrieval.engine import Engine
from retrieval.store.embedded_server import EmbeddedServer, Limits
from retrieval.store.falkordb import FalkorDBStore

QUESTION = "What does the corpus say about w12 and w7?"
HEADER = ["reopen", "server s", "indexes s", "engine s", "first answer s", "total s", "server RSS GB", "load avg"]


def reopen(settings: Settings, label: str) -> list[object]:
    started = time.perf_counter()
    EmbeddedServer(settings.embedded_graph_path, Limits.of(settings)).attach_or_start(lambda _socket: None)
    served = time.perf_counter()
    store = FalkorDBStore(settings)
    indexed = time.perf_counter()
    engine = Engine(settings, store=store)
    ready = time.perf_counter()
    answer = engine.ask(QUESTION)
    answered = time.perf_counter()
    if not answer.evidence:
        raise SystemExit(f"{label}: the first question found no evidence; the graph is not the one expected")
    rss = server_rss_gb(store)
    engine.close()
    return [
        label,
        served - started,
        indexed - served,
        ready - indexed,
        answered - ready,
        answered - started,
        rss if rss is not None else "n/a",
        f"{os.getloadavg()[0]:.1f}",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", choices=sorted(SCALES), default="100k")
    args = parser.parse_args()
    n_chunks, n_entities = SCALES[args.scale]
    store, settings, _built = open_graph(n_chunks, n_entities)
    store.close()  # the last client: the server saves and stops, so the next open is cold
    kept = settings.model_copy(update={"graph_keep_server": True})
    server = EmbeddedServer(settings.embedded_graph_path, Limits.of(settings))
    try:
        # The first "app" starts the server and leaves it running as it closes; the second attaches to it.
        rows = [reopen(kept, "cold: server stopped"), reopen(kept, "server kept alive")]
    finally:
        server.stop()
    print_table(
        f"Reopen {n_chunks} chunks + {n_entities} entities (embedded store): seconds per phase, no LLM",
        HEADER,
        rows,
    )


if __name__ == "__main__":
    main()
