"""Where a DriftLens search on Neo4j spends its time: statements per search, each one's wall and server time.

Usage (a server holding a dev set's index, as benchmarks/peers.py builds it):
    NEO4J_URI=bolt://... NEO4J_PASSWORD=... .venv/bin/python benchmarks/search_profile.py DATASET [--limit N]

Why: the peers' search is one statement; DriftLens's default search is several, and whether its time goes to the
database, the round trips or the Python around them decides what to fold. Each statement the store sends through
the driver (`Neo4jStore._run`) is timed on the client and read back from its summary (`result_available_after` +
`result_consumed_after`: the server's part); EXPLAINs (sent once per query text) are left out. Printed per search
kind: the wall p50, the time inside the driver, the server's part and the statements; then the client's CPU per
search (mean ms of `time.process_time`: every thread of this process) and the share of it inside the driver's
calls (`time.thread_time` around `_run`: encoding, decoding, the driver's bookkeeping); then per statement kind.
Why CPU too: under the other processes' load, wall time moves by more than a change's effect, while the CPU
time a search costs the client moves least. `--only NAME` profiles one search kind (by a word of its name);
`--cprofile FILE` writes a cProfile of the timed searches (`python -m pstats FILE`).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import backends
from benchmarks.eval_data import build_graph, read_set
from benchmarks.peers import driftlens_systems
from retrieval.context import Context
from retrieval.embed import make_embedder

#: A statement's kind, by a marker in its text (first match wins); anything else is "other".
KINDS = (
    ("fused0, fused1", "hybrid: chunks + entities, ranked, + spread + reached chunks' cosines"),
    ("$h1_vector_index", "hybrid: chunks + entities"),
    ("$h0_vector_index", "hybrid (both arms)"),
    ("db.index.vector.queryNodes($index", "vector search"),
    ("RETURN parts, picked, exact", "bridge: spread + reached chunks' cosines"),
    ("RETURN parts, rows AS seeds, picked", "bridge: spread + walk seeds + reached chunks' cosines"),
    ("UNWIND $hits AS source", "bridge: spread"),
    ("vector.similarity.cosine(n.", "bridge: reached chunks' cosines"),
    ("AS next", "walk: seeds + first hop"),
    ("UNWIND $ids AS fid CALL", "walk: further hop"),
    ("WITH id, e.", "walk: properties"),
)
WARMUP = 5


class Profiler:
    """Wraps the store's one way to the driver (`Neo4jStore._run`, whatever driver call it makes): each statement's
    kind, client wall and server time (ms), per search."""

    def __init__(self, store: Any) -> None:
        self.statements: list[tuple[str, float, float]] = []
        self.driver_cpu = 0.0  # ms of CPU inside `_run`, on the calling threads
        execute = store._run

        def timed(text: str, *args: Any, **kwargs: Any) -> Any:
            started, cpu = time.perf_counter(), time.thread_time()
            result = execute(text, *args, **kwargs)
            wall = (time.perf_counter() - started) * 1000
            self.driver_cpu += (time.thread_time() - cpu) * 1000
            if not text.startswith("EXPLAIN "):
                summary = result.summary
                server = (summary.result_available_after or 0) + (summary.result_consumed_after or 0)
                self.statements.append((kind(text), wall, float(server)))
            return result

        store._run = timed


def kind(text: str) -> str:
    return next((name for marker, name in KINDS if marker in text), "other")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--limit", type=int, default=100)
    parser.add_argument("--only", default=None, help="profile only the search kinds whose name holds this word")
    parser.add_argument("--cprofile", type=Path, default=None, help="write a cProfile of the timed searches here")
    args = parser.parse_args()
    data = read_set(args.dataset)
    questions = [q for q in data.questions if q.gold][: args.limit]
    store, settings, _ = build_graph(data, verbose=False, **backends.required_neo4j())
    embedder = make_embedder(settings)
    ctx = Context(settings, store, embedder, None, settings.project)
    vectors = [v.tolist() for v in embedder.embed([q.text for q in questions])]
    systems = {name: run for name, run in driftlens_systems(ctx).items() if not args.only or args.only in name}
    profiler = Profiler(store)
    profile = cProfile.Profile()
    cpu: dict[str, list[tuple[float, float]]] = defaultdict(list)
    walls: dict[str, list[float]] = defaultdict(list)
    per_search: dict[str, list[tuple[float, float, int]]] = defaultdict(list)
    per_kind: dict[tuple[str, str], list[tuple[float, float]]] = defaultdict(list)
    for i, index in enumerate([*range(min(WARMUP, len(questions))), *range(len(questions))]):
        for name, system in systems.items():
            profiler.statements.clear()
            profiler.driver_cpu = 0.0
            counted = i >= WARMUP
            if counted and args.cprofile:
                profile.enable()
            started, used = time.perf_counter(), time.process_time()
            system(questions[index], vectors[index])
            wall, used = (time.perf_counter() - started) * 1000, (time.process_time() - used) * 1000
            profile.disable()
            if not counted:
                continue
            walls[name].append(wall)
            cpu[name].append((used, profiler.driver_cpu))
            sent = profiler.statements
            per_search[name].append((sum(s[1] for s in sent), sum(s[2] for s in sent), len(sent)))
            for statement, ms, server in sent:
                per_kind[(name, statement)].append((ms, server))
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"{data.name}, {len(questions)} questions, load {load}; p50 ms (statements: mean per search)")
    for name, times in walls.items():
        rows = per_search[name]
        driver = statistics.median(r[0] for r in rows)
        server = statistics.median(r[1] for r in rows)
        count = statistics.fmean(r[2] for r in rows)
        print(f"{name}: wall {statistics.median(times):.1f}, driver {driver:.1f}, server {server:.1f}, {count:.1f}")
        used = statistics.fmean(c[0] for c in cpu[name])
        in_driver = statistics.fmean(c[1] for c in cpu[name])
        print(f"    client CPU {used:.2f} ms a search (mean), {in_driver:.2f} of it inside the driver's calls")
        for (owner, statement), timed in sorted(per_kind.items()):
            if owner == name:
                wall_ms = statistics.median(t[0] for t in timed)
                server_ms = statistics.median(t[1] for t in timed)
                print(f"    {statement}: {len(timed) / len(rows):.1f} per search, {wall_ms:.1f} / {server_ms:.1f}")
    store.close()
    if args.cprofile:
        profile.dump_stats(args.cprofile)


if __name__ == "__main__":
    main()
