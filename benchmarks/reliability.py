"""Reliability figures of the embedded store: bounded explorer views, recovery after kill -9, hung-server reads.

Usage: python benchmarks/reliability.py [--rows 2000000]
Targets: a 200-row explorer view of any query receives <= 201 rows and returns in < 1 s; a killed server is
back (first read answered) in < 5 s; a read on a stopped (SIGSTOP) server fails within query_timeout_ms + 3 s.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._table import print_table
from retrieval.config import load_settings
from retrieval.context import Context
from retrieval.embed import make_embedder
from retrieval.errors import StoreUnavailable
from retrieval.search.explore import run_cypher
from retrieval.store import GraphStore, open_store


def _server_pid(store: GraphStore) -> int:
    lock = Path(store.socket_path).parent / "server.lock"  # type: ignore[attr-defined]
    return int(json.loads(lock.read_text())["server_pid"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2_000_000, help="rows the explorer query would return")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="driftlens-reliability-"))
    settings = load_settings(
        _env_file=None, graph_path=folder / "graph.db", data_dir=folder, neo4j_uri=None, query_timeout_ms=2000
    )
    rows: list[list[Any]] = []
    with open_store(settings) as store:
        store.query("CREATE (:Probe {id: 1})")
        ctx = Context(settings, store, make_embedder(settings), None, settings.project)
        received: list[int] = []
        real_read = store.read

        def counting_read(cypher: str, params: Any = None, **kwargs: Any) -> list[dict[str, Any]]:
            result = real_read(cypher, params, **kwargs)
            received.append(len(result))
            return result

        store.read = counting_read  # type: ignore[method-assign]
        started = time.perf_counter()
        view = run_cypher(ctx, f"UNWIND range(1, {args.rows}) AS x RETURN x", limit=200)
        rows.append([f"explorer view of {args.rows:,} rows", time.perf_counter() - started, f"{received[-1]} rows"])
        store.read = real_read  # type: ignore[method-assign]
        assert view.truncated

        pid = _server_pid(store)
        os.kill(pid, signal.SIGKILL)
        started = time.perf_counter()
        store.read("MATCH (n:Probe) RETURN count(n) AS c")
        rows.append(["first read after kill -9 (server restarted)", time.perf_counter() - started, "ok"])

        pid = _server_pid(store)
        os.kill(pid, signal.SIGSTOP)
        started = time.perf_counter()
        try:
            store.read("RETURN 1 AS ok")
            outcome = "answered?"
        except StoreUnavailable:
            outcome = "StoreUnavailable"
        finally:
            os.kill(pid, signal.SIGCONT)
        rows.append(["read on a SIGSTOPped server (timeout 2 s)", time.perf_counter() - started, outcome])
    shutil.rmtree(folder, ignore_errors=True)
    print_table("Embedded store reliability (seconds)", ["case", "seconds", "result"], rows)


if __name__ == "__main__":
    main()
