"""Store benchmark: load, index build, vector/fulltext/filtered latency and HNSW recall, per graph backend.

Usage: python benchmarks/store.py [--backend falkordb|neo4j|both] [--quick] [--sizes 10000 100000] [--queries 200]
Targets (2 cores): recall@10 >= 0.98 at 100k on both backends; vector top-10 p95 <= 10 ms at 100k (embedded).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import backends
from benchmarks._table import print_table
from retrieval.store import GraphStore

DIM = 384
HEADER = ["chunks", "backend", "load/s", "index s", "vec p50", "vec p95", "recall@10", "filt p50", "filt p95"]
HEADER += ["ft p50", "ft p95"]
#: Zipf-distributed synthetic vocabulary: a few very common words, a long tail of rare ones, like real text.
VOCABULARY = [f"w{i}" for i in range(5000)]
ZIPF = 1.0 / np.arange(1, len(VOCABULARY) + 1)
ZIPF /= ZIPF.sum()


def words(rng: np.random.Generator, n: int) -> str:
    return " ".join(rng.choice(VOCABULARY, n, p=ZIPF))


def clustered(n: int, rng: np.random.Generator, clusters: int = 200) -> np.ndarray:
    centres = rng.normal(size=(clusters, DIM)).astype(np.float32)
    vectors = centres[rng.integers(0, clusters, n)] + 0.6 * rng.normal(size=(n, DIM)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def load(store: GraphStore, vectors: np.ndarray, rng: np.random.Generator, batch: int = 2000) -> float:
    label = store.settings.chunk_label
    cypher = (
        f"UNWIND $rows AS row CREATE (c:`{label}` {{id: row.id, text: row.text, grp: row.grp, projectId: 'bench'}}) "
        f"SET c.embedding = {store.vec('row.v')}"
    )
    started = time.perf_counter()
    for start in range(0, len(vectors), batch):
        rows = [
            {
                "id": f"c{i}",
                "text": words(rng, 40),
                "grp": f"g{i % 10}",
                "v": vectors[i].tolist(),
            }
            for i in range(start, min(start + batch, len(vectors)))
        ]
        store.query(cypher, {"rows": rows})
    return time.perf_counter() - started


def timed(fn, repeats: list) -> tuple[float, float, list]:  # type: ignore[no-untyped-def,type-arg]
    times, results = [], []
    for arg in repeats:
        started = time.perf_counter()
        results.append(fn(arg))
        times.append((time.perf_counter() - started) * 1000)
    return float(np.percentile(times, 50)), float(np.percentile(times, 95)), results


def run(n: int, queries: int, backend: str, neo4j: dict[str, object]) -> list[object]:
    rng = np.random.default_rng(n)
    vectors = clustered(n, rng)
    with tempfile.TemporaryDirectory() as tmp:
        settings = backends.settings_for(backend, Path(tmp), neo4j)
        store = backends.open_empty(settings)
        label = settings.chunk_label
        load_s = load(store, vectors, rng)
        started = time.perf_counter()
        store.ensure_vector_index(settings.chunk_vector_index, label, settings.embedding_property, DIM)
        store.ensure_fulltext_index(settings.chunk_fulltext_index or "chunk_text", label, [settings.text_property])
        index_s = time.perf_counter() - started
        picks = rng.integers(0, n, queries)
        qs = vectors[picks] + 0.05 * rng.normal(size=(queries, DIM)).astype(np.float32)
        qs = qs / np.linalg.norm(qs, axis=1, keepdims=True)
        store.vector_search(label, qs[0].tolist(), 10)  # warm the projection cache
        v50, v95, results = timed(lambda q: store.vector_search(label, q.tolist(), 10), list(qs))
        exact = np.argsort(-(qs @ vectors.T), axis=1)[:, :10]
        recall = float(
            np.mean(
                [len({h.id for h in res} & {f"c{i}" for i in ex}) / 10 for res, ex in zip(results, exact, strict=True)]
            )
        )
        f50, f95, _ = timed(
            lambda q: store.vector_search(label, q.tolist(), 10, filters={"grp": "g3"}), list(qs[: queries // 2])
        )
        texts = [words(rng, 4) for _ in range(queries)]
        t50, t95, _ = timed(lambda t: store.fulltext_search(label, t, 10), texts)
        store.clear()
        store.close()
    return [n, backend, n / load_s, index_s, v50, v95, recall, f50, f95, t50, t95]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="10k chunks only (under a minute)")
    parser.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    backends.add_argument(parser)
    args = parser.parse_args()
    sizes = [10_000] if args.quick else args.sizes
    chosen = backends.chosen(args)
    with backends.neo4j_env(chosen) as neo4j:
        rows = [run(n, args.queries, backend, neo4j) for n in sizes for backend in chosen]
    print_table(
        "Store: 384-d clustered vectors, top-10 latencies (ms); recall vs exact numpy cosine; load in chunks/s",
        HEADER,
        rows,
    )


if __name__ == "__main__":
    main()
