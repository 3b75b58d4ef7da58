"""The k DriftLens asks of Neo4j's vector indexes, against recall: one dev set, several `neo4j_vector_min_k` floors.

Usage: NEO4J_URI=bolt://... NEO4J_PASSWORD=... python benchmarks/neo4j_vector_k.py DATASET [--floors 100 60 40 1]
The set must be indexed into that server already (`peers.py` does it, or `eval_data.build_graph`). Why: a Neo4j
vector index has no search-time ef, so the k a call asks for is both the candidates its HNSW search explores and
the rows it returns, and the call costs in proportion to it; fewer candidates can move rankings. Per floor it opens
its own store on the same database and asks `peers.py`'s three DriftLens searches (default, hybrid without graph,
vector only) every question, floors and searches in a rotating order so load hits all alike. It prints R@2/5/10 and
all-gold@10 (`eval_retrieval.py`'s scoring), p50/p95 wall ms, how many top-20s equal the first floor's, and the k
each search asked of the vector indexes (one value per vector call of a search, most frequent first).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import backends
from benchmarks._table import print_table
from benchmarks.eval_data import build_graph, read_set
from benchmarks.eval_retrieval import score
from benchmarks.peers import WARMUP, driftlens_systems, passages_of, percentile
from retrieval.context import Context
from retrieval.embed import make_embedder
from retrieval.store import GraphStore, open_store

METRICS = ("R@2", "R@5", "R@10", "all-gold@10")


class AskedK:
    """Records the k of every vector index call a store sends (the statements' `fetch` / `vector_fetch`)."""

    def __init__(self, store: GraphStore) -> None:
        self.asked: list[int] = []
        read = store.read

        def recorded(cypher: str, params: Mapping[str, Any] | None = None, **kwargs: Any) -> Any:
            if "db.index.vector.queryNodes" in cypher and params:
                self.asked.append(int(params.get("vector_fetch", params.get("fetch", -1))))
            return read(cypher, params, **kwargs)

        store.read = recorded  # type: ignore[method-assign]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--floors", type=int, nargs="+", default=[100, 60, 40, 1])
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_args()
    data = read_set(args.dataset)
    questions = [q for q in data.questions if q.gold][: args.limit]
    first, settings, doc_to_key = build_graph(data, verbose=False, **backends.required_neo4j())
    first.close()
    embedder = make_embedder(settings)
    vectors = [v.tolist() for v in embedder.embed([q.text for q in questions])]
    systems, recorders, stores = {}, {}, []
    for floor in args.floors:
        store = open_store(settings.model_copy(update={"neo4j_vector_min_k": floor}))
        stores.append(store)
        recorders[floor] = AskedK(store)
        ctx = Context(store.settings, store, embedder, None, settings.project)
        for name, run in driftlens_systems(ctx).items():
            systems[(floor, name)] = run
    keys = list(systems)
    ranked: dict[tuple[int, str], list[list[str]]] = {key: [] for key in keys}
    ms: dict[tuple[int, str], list[float]] = {key: [] for key in keys}
    asked: dict[tuple[int, str], Counter[tuple[int, ...]]] = {key: Counter() for key in keys}
    warmup = min(WARMUP, len(questions))
    for i, index in enumerate([*range(warmup), *range(len(questions))]):
        for j in range(len(keys)):
            key = keys[(i + j) % len(keys)]
            recorder = recorders[key[0]]
            recorder.asked.clear()
            started = time.perf_counter()
            docs = systems[key](questions[index], vectors[index])
            elapsed = (time.perf_counter() - started) * 1000
            if i >= warmup:
                ranked[key].append(docs)
                ms[key].append(elapsed)
                asked[key][tuple(sorted(recorder.asked))] += 1
    for store in stores:
        store.close()
    rows = []
    for key in keys:
        totals = Counter[str]()
        for docs, q in zip(ranked[key], questions, strict=True):
            totals.update(score(passages_of(docs, doc_to_key), q.gold))
        same = sum(a == b for a, b in zip(ranked[key], ranked[(args.floors[0], key[1])], strict=True))
        ks = "; ".join(f"{list(k)} x{n}" for k, n in asked[key].most_common(2))
        metrics = [totals[m] / len(questions) for m in METRICS]
        rows.append([key[0], key[1], *metrics, percentile(ms[key], 50), percentile(ms[key], 95), same, ks])
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    header = ["floor", "search", *METRICS, "p50 ms", "p95 ms", f"top 20 as floor {args.floors[0]}", "k asked"]
    print_table(f"{data.header(len(questions))}; load {load}", header, rows)


if __name__ == "__main__":
    main()
