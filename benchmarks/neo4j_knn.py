"""What Neo4j's vector index costs against how many candidates it is asked for, and the recall that buys.

Usage: python benchmarks/neo4j_knn.py [--chunks 100000] [--questions 100] [--fetch 10 20 40 100] [--rounds 2]

Why: a Neo4j vector index has no search-time `ef`; `db.index.vector.queryNodes(index, k, q)` explores as many
candidates as the `k` it is asked for, so the Neo4j adapter asks for at least `neo4j_vector_min_k` (100 until issue
#26's wt109, 40 since) to keep recall, where the embedded store sets ef on the index and asks for what it needs. At
100k chunks that floor is most of a vector call's time (issue #26). This measures it alone: the synthetic chunk
vectors of `benchmarks/search.py`, one vector index populated in one pass (created after the load, as the pipeline's
rebuild leaves it), questions that are stored vectors with a little noise, and for each `k` the recall@10 against
exact cosine, the client's wall time and the server's (`result_available_after + result_consumed_after`).
Neo4j is the server NEO4J_URI names (the run's own label and index are removed after it) or one started for the run
by tools/neo4j.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from neo4j import Driver, GraphDatabase

from benchmarks import backends
from benchmarks._table import print_table
from benchmarks.search import chunk_vectors
from benchmarks.store import DIM
from retrieval.config import load_settings
from retrieval.store.neo4j_params import Vector

INDEX = "knn_probe"
BATCH = 2000
NOISE = 0.02


def questions(vectors: np.ndarray, n: int, seed: int = 11) -> np.ndarray:
    """Unit vectors near `n` stored ones: a question is close to its best chunk, not equal to it."""
    rng = np.random.default_rng(seed)
    near = vectors[rng.choice(len(vectors), n, replace=False)]
    near = near + rng.normal(0.0, NOISE, near.shape).astype(np.float32)
    return near / np.linalg.norm(near, axis=1, keepdims=True)


def exact_top10(vectors: np.ndarray, asked: np.ndarray) -> list[set[int]]:
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    return [set(np.argsort(-(unit @ q))[:10].tolist()) for q in asked]


def load(driver: Driver, vectors: np.ndarray) -> float:
    """Chunks written, then the index created over them as the adapter creates its own (the project's HNSW
    settings, no quantisation); the seconds the index took to come online."""
    settings = load_settings(_env_file=None)
    for start in range(0, len(vectors), BATCH):
        rows = [{"id": start + i, "v": Vector(v.tolist())} for i, v in enumerate(vectors[start : start + BATCH])]
        driver.execute_query("UNWIND $rows AS row CREATE (c:KnnProbe {id: row.id}) SET c.v = row.v", {"rows": rows})
    started = time.perf_counter()
    driver.execute_query(
        f"CREATE VECTOR INDEX {INDEX} FOR (n:KnnProbe) ON n.v OPTIONS {{indexConfig: {{`vector.dimensions`: $dim, "
        "`vector.similarity_function`: 'cosine', `vector.quantization.enabled`: false, "
        "`vector.hnsw.m`: $m, `vector.hnsw.ef_construction`: $ef}}",
        {"dim": DIM, "m": settings.hnsw_m, "ef": settings.hnsw_ef_construction},
    )
    driver.execute_query("CALL db.awaitIndexes(3600)")
    return time.perf_counter() - started


def clear(driver: Driver) -> None:
    driver.execute_query(f"DROP INDEX {INDEX} IF EXISTS")
    batch = "MATCH (c:KnnProbe) WITH c LIMIT 10000 DETACH DELETE c RETURN count(*) AS n"
    while driver.execute_query(batch).records[0]["n"]:  # in batches: one transaction of 100k deletes is heavy
        pass


def measure(driver: Driver, asked: np.ndarray, exact: list[set[int]], k: int) -> list[object]:
    cypher = (
        f"CALL db.index.vector.queryNodes('{INDEX}', $k, $q) YIELD node, score "
        "RETURN node.id AS id ORDER BY score DESC LIMIT 10"
    )
    walls, servers, recalls = [], [], []
    for q, best in zip(asked, exact, strict=True):
        started = time.perf_counter()
        records, summary, _ = driver.execute_query(cypher, {"k": k, "q": Vector(q.tolist())})
        walls.append((time.perf_counter() - started) * 1000)
        servers.append((summary.result_available_after or 0) + (summary.result_consumed_after or 0))
        recalls.append(len(best & {int(r["id"]) for r in records}) / 10)
    return [
        k,
        round(float(np.mean(recalls)), 3),
        round(float(np.percentile(walls, 50)), 1),
        round(float(np.percentile(walls, 95)), 1),
        round(float(np.percentile(servers, 50)), 1),
        round(os.getloadavg()[0], 1),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--fetch", type=int, nargs="+", default=[10, 20, 40, 100])
    parser.add_argument("--rounds", type=int, default=2, help="passes over every k; the first warms the index")
    args = parser.parse_args()
    vectors = chunk_vectors(args.chunks)
    asked = questions(vectors, args.questions)
    exact = exact_top10(vectors, asked)
    with backends.neo4j_env(("neo4j",)) as neo4j:
        auth = (str(neo4j["neo4j_username"]), str(neo4j["neo4j_password"]))
        with GraphDatabase.driver(str(neo4j["neo4j_uri"]), auth=auth) as driver:
            clear(driver)
            try:
                online_s = load(driver, vectors)
                rows = [measure(driver, asked, exact, k) for _ in range(args.rounds) for k in args.fetch]
            finally:
                clear(driver)
    print_table(
        f"Neo4j vector index, {args.chunks} chunks (index online in {online_s:.0f} s), {args.questions} questions, "
        f"last of {args.rounds} rounds",
        ["k asked", "recall@10", "wall p50 ms", "wall p95 ms", "server p50 ms", "load"],
        rows[-len(args.fetch) :],
    )


if __name__ == "__main__":
    main()
