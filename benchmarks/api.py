"""HTTP service under load: N concurrent clients on loopback against `python -m retrieval serve` on a graph.

Usage: python benchmarks/api.py [--graph .driftlens/graph.db] [--duration 60] [--clients 10 50]
                                [--endpoints search retrieve] [--max-requests 20000] [--neo4j --project eval]
Targets (2 cores, the demo graph, offline: no model): /v1/retrieval/search p95 <= 300 ms at 10 clients;
0 errors at 50 clients. A 503 with Retry-After is load shedding by the answer gate, counted on its own
column, not as an error. `/retrieve` runs offline DRIFT.

The service runs as its own process (as deployed) with its default limits (DRIFTLENS_API_* settings apply);
the clients are asyncio tasks in this process, each sending its next request when the last one returned, until
the duration is over or `--max-requests` were sent. Only 127.0.0.1 is ever contacted. The clients share the
machine with the service, so throughput is a floor. `--neo4j` serves the graph of the Neo4j server NEO4J_URI names
(e.g. a dev set indexed by benchmarks/peers.py or eval_data.py: `--project eval`) instead of the embedded one.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import redis

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._table import print_table
from benchmarks.questions import SERVICE
from retrieval.store.embedded_server import EmbeddedServer, Limits

ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"
QUESTIONS = SERVICE
#: Environment variables that would give the service a model or another graph: removed (offline, this graph).
_UNSET = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "AZURE_OPENAI_ENDPOINT", "OAI_BASE_URL", "NEO4J_URI", "REDIS_URL")


@dataclass
class Run:
    latencies_ms: list[float] = field(default_factory=list)
    errors: int = 0
    shed: int = 0
    sent: int = 0
    seconds: float = 0.0
    error_samples: list[str] = field(default_factory=list)


#: The demo graph's project, named so the figures stay comparable (an omitted projectId reads every project).
PROJECT = "demo"


def request_for(endpoint: str, n: int, project: str = PROJECT) -> tuple[str, dict[str, Any]]:
    question = QUESTIONS[n % len(QUESTIONS)]
    if endpoint == "search":
        return "/v1/retrieval/search", {"query": question, "projectId": project}
    return "/retrieve", {"query": question, "top_k": 10, "projectId": project}


async def client_loop(
    http: httpx.AsyncClient, endpoint: str, run: Run, deadline: float, budget: list[int], *, project: str
) -> None:
    while time.monotonic() < deadline and budget[0] > 0:
        budget[0] -= 1
        path, body = request_for(endpoint, run.sent, project)
        run.sent += 1
        started = time.perf_counter()
        try:
            response = await http.post(path, json=body)
        except httpx.HTTPError as exc:
            run.errors += 1
            run.error_samples.append(type(exc).__name__)
            continue
        elapsed = (time.perf_counter() - started) * 1000
        if response.status_code == 200:
            run.latencies_ms.append(elapsed)
        elif response.status_code == 503 and "retry-after" in response.headers:
            run.shed += 1
            await asyncio.sleep(float(response.headers["retry-after"]))  # a polite client honours it
        else:
            run.errors += 1
            run.error_samples.append(f"{response.status_code} {response.text[:120]}")


async def load(
    base_url: str, endpoint: str, clients: int, duration: float, max_requests: int, *, project: str = PROJECT
) -> Run:
    run = Run()
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=base_url, timeout=300, limits=limits) as http:
        started = time.monotonic()
        deadline = started + duration
        budget = [max_requests]
        await asyncio.gather(
            *(client_loop(http, endpoint, run, deadline, budget, project=project) for _ in range(clients))
        )
        run.seconds = time.monotonic() - started
    return run


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


def start_service(
    graph: Path, port: int, log: Path, workers: int, neo4j: bool = False
) -> tuple[subprocess.Popen[bytes], float, str]:
    """The service's process once `/health` answers 200 (the graph open and warmed), the seconds that took, and
    what its warm-up did."""
    kept = ("NEO4J_URI",) if neo4j else ()
    env = {k: v for k, v in os.environ.items() if k not in _UNSET or k in kept}
    env["PYTHONPATH"] = str(ROOT)
    command = [sys.executable, "-m", "retrieval", "serve", "--host", HOST, "--port", str(port), "--graph", str(graph)]
    command += ["--workers", str(workers)]
    with log.open("wb") as sink:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=sink, stderr=sink)
    started = time.monotonic()
    deadline = started + 300
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"the service exited with {process.returncode}; run the command by hand: {command}")
        try:
            health = httpx.get(f"http://{HOST}:{port}/health", timeout=5)
            if health.status_code == 200:
                return process, time.monotonic() - started, str(health.json().get("warmup") or "no warm-up")
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    process.terminate()
    raise SystemExit("the service did not answer /health within 300 s")


def graph_reads(graph: Path) -> int | None:
    """Read queries the embedded graph server has run so far (its own command statistics), or None when the
    server cannot be reached. Per request, the difference is the search's round trips to the graph."""
    try:
        socket_path = EmbeddedServer(graph, Limits(0, 0, 0.0)).owner()["socket"]
        stats = redis.Redis(unix_socket_path=str(socket_path)).info("commandstats")
    except (OSError, KeyError, redis.RedisError):
        return None
    return sum(int(v.get("calls", 0)) for k, v in stats.items() if k.lower() == "cmdstat_graph.ro_query")


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graph", type=Path, default=ROOT / ".driftlens" / "graph.db")
    parser.add_argument("--duration", type=float, default=60.0, help="seconds per (endpoint, clients) run")
    parser.add_argument("--clients", type=int, nargs="+", default=[10, 50])
    parser.add_argument("--endpoints", nargs="+", choices=("search", "retrieve"), default=["search", "retrieve"])
    parser.add_argument("--max-requests", type=int, default=20_000, help="cap per run, whatever the duration")
    parser.add_argument("--workers", type=int, default=1, help="`serve --workers`: service processes")
    parser.add_argument("--neo4j", action="store_true", help="serve NEO4J_URI's graph instead of --graph")
    parser.add_argument("--project", default=PROJECT, help="the project the requests search")
    args = parser.parse_args()
    if args.neo4j and not os.environ.get("NEO4J_URI"):
        raise SystemExit("--neo4j needs NEO4J_URI (and NEO4J_PASSWORD) naming a server holding the project")
    if not args.neo4j and not args.graph.with_name(args.graph.name + ".data").exists():
        raise SystemExit(f"no graph at {args.graph}: build the demo graph with `python -m retrieval demo`")
    load_before = os.getloadavg()[0]
    port = free_port()
    log = Path(tempfile.gettempdir()) / f"driftlens-api-bench-{port}.log"
    service, ready_s, warmup = start_service(args.graph, port, log, args.workers, args.neo4j)
    print(f"service ready {ready_s:.1f} s after its start; {warmup}; its log: {log}", flush=True)
    base_url = f"http://{HOST}:{port}"
    rows = []
    try:
        for endpoint in args.endpoints:
            asyncio.run(load(base_url, endpoint, 2, 3.0, 20, project=args.project))  # warm-up: caches, first-call costs
            for clients in args.clients:
                reads_before = graph_reads(args.graph)
                run = asyncio.run(
                    load(base_url, endpoint, clients, args.duration, args.max_requests, project=args.project)
                )
                reads_after = graph_reads(args.graph)
                lat = run.latencies_ms
                answered = len(lat) + run.errors
                reads = (
                    round((reads_after - reads_before) / answered, 1)
                    if reads_before is not None and reads_after is not None and answered
                    else "-"
                )
                rows.append(
                    [
                        endpoint,
                        clients,
                        run.sent,
                        round(len(lat) / run.seconds, 2),
                        round(percentile(lat, 50), 1),
                        round(percentile(lat, 95), 1),
                        round(percentile(lat, 99), 1),
                        run.errors,
                        run.shed,
                        reads,
                    ]
                )
                if run.error_samples:
                    print(f"{endpoint} x{clients} errors, first ones: {run.error_samples[:3]}; service log: {log}")
    finally:
        service.terminate()
        service.wait(timeout=60)
    print_table(
        f"HTTP service on {'Neo4j ' + os.environ['NEO4J_URI'] if args.neo4j else args.graph} "
        f"(project {args.project}; {args.duration:g} s per run, offline; {args.workers} worker(s); "
        f"cores: {os.cpu_count()}; load average before: {load_before:.1f}, after: {os.getloadavg()[0]:.1f})",
        ["endpoint", "clients", "requests", "ok/s", "p50 ms", "p95 ms", "p99 ms", "errors", "503 shed", "reads/req"],
        rows,
    )
    print("targets: search p95 <= 300 ms at 10 clients; 0 errors at 50 clients (503 shedding is not an error)")


if __name__ == "__main__":
    main()
