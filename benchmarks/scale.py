"""Scale: how load, index build, recall, hybrid + 1-hop latency and server memory grow with the graph.

Usage: python benchmarks/scale.py [--scale 10k 100k 1m] [--queries 100] [--recall-queries 200]
       [--backend falkordb|neo4j|both]
One row per scale and backend, on the synthetic power-law graph `benchmarks/search.py` builds (chunks + 20% as
many entities); the embedded store by default. Targets (2 cores, issue #15) at 1m = 1,000,000 chunks + 200,000
entities: bulk load + index build <= 10 min; vector recall@10 >= 0.98 against exact numpy cosine; hybrid + 1-hop
`retrieve()` p95 <= 50 ms (query embedding excluded); graph server RSS reported.

A built embedded graph is cached under benchmarks/.cache/ with the load and index seconds measured when it was built
(the table says "cached" with them); delete the folder to measure a build again. Neo4j's is built in the run's
server every time, its vector indexes rebuilt after the load as the indexing pipeline does (issue #26's target at
100k: recall@10 >= 0.98 and hybrid + 1-hop p95 within 2x of the embedded store's, both backends in one run).
The exact top-10 runs over the same vectors the build stored (same seed), in blocks, so 1M x 384 float32 never
needs more than one block at a time.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import backends
from benchmarks._table import print_table
from benchmarks.search import PROJECT, chunk_vectors, open_graph
from benchmarks.store import DIM
from retrieval.context import Context
from retrieval.embed import make_embedder
from retrieval.models import QueryParams
from retrieval.search.ranking import retrieve
from retrieval.store import GraphStore, open_store
from retrieval.store.falkordb import FalkorDBStore

SCALES = {"10k": (10_000, 2_000), "100k": (100_000, 20_000), "1m": (1_000_000, 200_000)}
HEADER = ["scale", "backend", "vector k floor", "chunks", "entities", "load s", "index s", "load+index s", "recall@10"]
HEADER += ["1-hop p50 ms", "1-hop p95 ms", "server RSS GB", "load avg", "graph"]
#: Rows of the exact search at a time: 100k x 384 float32 is 150 MB.
EXACT_BLOCK = 100_000


def exact_top10(vectors: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """Ids (row numbers) of the 10 most cosine-similar vectors per query; vectors are unit length."""
    best_ids = np.zeros((len(queries), 0), dtype=np.int64)
    best_sims = np.zeros((len(queries), 0), dtype=np.float32)
    for start in range(0, len(vectors), EXACT_BLOCK):
        sims = queries @ vectors[start : start + EXACT_BLOCK].T
        top = np.argpartition(-sims, min(10, sims.shape[1] - 1), axis=1)[:, :10]
        best_ids = np.hstack([best_ids, top + start])
        best_sims = np.hstack([best_sims, np.take_along_axis(sims, top, axis=1)])
        keep = np.argsort(-best_sims, axis=1)[:, :10]
        best_ids = np.take_along_axis(best_ids, keep, axis=1)
        best_sims = np.take_along_axis(best_sims, keep, axis=1)
    return best_ids


def recall_at_10(store: GraphStore, vectors: np.ndarray, n: int, rng: np.random.Generator) -> float:
    """Queries near stored chunks (as a question is near its passage), top-10 from the index vs exact."""
    picks = rng.integers(0, len(vectors), n)
    queries = vectors[picks] + 0.05 * rng.normal(size=(n, DIM)).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    exact = exact_top10(vectors, queries)
    label = store.settings.chunk_label
    found = [{hit.id for hit in store.vectors.search(label, q, 10)} for q in queries]
    return float(np.mean([len(f & {f"c{i}" for i in ex}) / 10 for f, ex in zip(found, exact, strict=True)]))


def server_rss_gb(store: GraphStore) -> float | None:
    """Resident memory of the embedded graph server process (it is not this process); None on Neo4j, whose JVM
    takes the heap it is given (`backends.neo4j_env`: 2 GB) up front."""
    if not isinstance(store, FalkorDBStore):
        return None
    pid = int(store.server.owner().get("server_pid") or 0)
    return psutil.Process(pid).memory_info().rss / 2**30 if pid else None


def measure(
    scale: str, backend: str, neo4j: dict[str, object], queries_n: int, recall_n: int, *, floors: Sequence[int]
) -> list[list[object]]:
    """One row, or on Neo4j one per vector floor asked (`neo4j_vector_min_k`, issue #26): each floor reads the same
    graph through its own store, and the floors take turns question by question, so load hits them alike."""
    n_chunks, n_entities = SCALES[scale]
    store, settings, built = open_graph(n_chunks, n_entities, backend, neo4j)
    floors = floors if backend == "neo4j" and floors else [settings.neo4j_vector_min_k]
    stores = [store, *(open_store(settings.model_copy(update={"neo4j_vector_min_k": f})) for f in floors[1:])]
    if backend == "neo4j":
        store.settings = settings.model_copy(update={"neo4j_vector_min_k": floors[0]})
    rng = np.random.default_rng(3)
    vectors = chunk_vectors(n_chunks)
    # Every floor's recall on the same queries; `rng` then draws the timed questions, as with one store.
    recalls = [recall_at_10(s, vectors, recall_n, rng if s is store else np.random.default_rng(3)) for s in stores]
    picks = rng.integers(0, n_chunks, queries_n)
    texts = [
        row["text"]
        for row in store.read(
            f"MATCH (c:`{settings.chunk_label}`) WHERE c.id IN $ids RETURN c.text AS text",
            {"ids": [f"c{i}" for i in picks]},
        )
    ]
    query_vectors = vectors[picks[: len(texts)]]
    embedder = make_embedder(settings)
    contexts = [Context(s.settings, s, embedder, None, PROJECT) for s in stores]
    one_hop = QueryParams.from_settings(settings, top_k=10, filters={}).model_copy(update={"max_hops": 1})
    questions = [(" ".join(t.split()[:6]), v) for t, v in zip(texts, query_vectors, strict=True)]
    times: list[list[float]] = [[] for _ in contexts]
    for ctx in contexts:  # warm caches (key projections, index handles), not timed
        retrieve(ctx, questions[0][0], one_hop, query_vector=questions[0][1].tolist(), walk=True)
    for i, (text, vector) in enumerate(questions):
        for j in range(len(contexts)):
            c = (i + j) % len(contexts)  # rotate which floor goes first
            started = time.perf_counter()
            retrieve(contexts[c], text, one_hop, query_vector=vector.tolist(), walk=True)
            times[c].append((time.perf_counter() - started) * 1000)
    rss = server_rss_gb(store)
    for s in stores:
        s.close()
    return [
        [
            scale,
            backend,
            floor if backend == "neo4j" else "n/a",
            n_chunks,
            n_entities,
            built["load_s"],
            built["index_s"],
            built["load_s"] + built["index_s"],
            recall,
            float(np.percentile(ms, 50)),
            float(np.percentile(ms, 95)),
            rss if rss is not None else "n/a",
            f"{os.getloadavg()[0]:.1f}",
            "built now" if built["now"] else f"cached (built under load {built['load_avg']:.1f})",
        ]
        for floor, recall, ms in zip(floors, recalls, times, strict=True)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", nargs="+", choices=sorted(SCALES), default=["10k", "100k"])
    parser.add_argument("--queries", type=int, default=100, help="retrieve() calls timed per scale")
    parser.add_argument("--recall-queries", type=int, default=200, help="queries for recall@10")
    parser.add_argument(
        "--neo4j-vector-min-k",
        type=int,
        nargs="+",
        default=[],
        help="on Neo4j, the vector floors to time side by side (default: the setting's one)",
    )
    backends.add_argument(parser)
    args = parser.parse_args()
    rows = []
    chosen = backends.chosen(args)
    with backends.neo4j_env(chosen) as neo4j:
        for scale in args.scale:
            for backend in chosen:
                started = time.perf_counter()
                measured = measure(
                    scale, backend, neo4j, args.queries, args.recall_queries, floors=args.neo4j_vector_min_k
                )
                rows.extend(measured)
                # Printed as it comes: a 1m build can run for an hour on a shared machine, and may be stopped.
                print(f"{scale} {backend}: measured in {time.perf_counter() - started:.0f} s: {measured}", flush=True)
    print_table(
        "Scale: load and index seconds (Neo4j: with its vector index rebuild), recall@10 vs exact numpy, "
        "hybrid + 1-hop retrieve() (query embedding excluded), graph server RSS; "
        "load avg = 1-min load average on 2 cores",
        HEADER,
        rows,
    )


if __name__ == "__main__":
    main()
