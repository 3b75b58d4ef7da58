"""What one `/v1/retrieval/search` costs, without HTTP or other clients: wall time, this process's CPU time, the
embedded graph server's CPU time and its read queries (round trips), per search.

Usage: python benchmarks/search_cost.py [--graph .driftlens/graph.db] [--rounds 6]
Why beside `api.py`: on a shared machine the load test's latencies follow the other processes' load; the CPU one
search needs does not, and it bounds the throughput (a process's Python runs on one core at a time: the GIL).
The service's own handler runs in this process on the embedded graph, offline, with the endpoint's defaults.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._table import print_table
from benchmarks.api import PROJECT, graph_reads
from benchmarks.questions import SERVICE
from retrieval.config import load_settings
from retrieval.engine import Engine
from retrieval.service import handlers, schemas
from retrieval.store.embedded_server import EmbeddedServer, Limits


def server_cpu_s(graph: Path) -> float:
    """User + system CPU seconds of the graph's server process so far (Linux /proc)."""
    pid = int(EmbeddedServer(graph, Limits(0, 0, 0.0)).owner().get("server_pid") or 0)
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graph", type=Path, default=Path(".driftlens/graph.db"))
    parser.add_argument("--rounds", type=int, default=6, help="times each question is asked")
    args = parser.parse_args()
    settings = load_settings(graph_path=args.graph, neo4j_uri=None, openai_api_key=None, openai_base_url=None)
    engine = Engine(settings)
    requests = [schemas.SearchRequest.model_validate({"query": q, "projectId": PROJECT}) for q in SERVICE]
    try:
        for request in requests:  # warm-up: caches, first-call costs
            handlers.search(engine, request)
        n = len(requests) * args.rounds
        reads, server, cpu, wall = graph_reads(args.graph), server_cpu_s(args.graph), time.process_time(), time.time()
        for i in range(n):
            handlers.search(engine, requests[i % len(requests)])
        wall, cpu = time.time() - wall, time.process_time() - cpu
        server = server_cpu_s(args.graph) - server
        after = graph_reads(args.graph)
    finally:
        engine.close()
    round_trips = (after - reads) / n if reads is not None and after is not None else float("nan")
    print_table(
        f"One search on {args.graph} ({n} searches, offline; load average before: {os.getloadavg()[0]:.1f})",
        ["wall ms", "service CPU ms", "graph server CPU ms", "graph reads"],
        [[round(wall / n * 1000, 1), round(cpu / n * 1000, 1), round(server / n * 1000, 1), round(round_trips, 1)]],
    )


if __name__ == "__main__":
    main()
