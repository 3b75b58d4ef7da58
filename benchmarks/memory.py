"""Memory benchmark: store and search scoped memories on the embedded graph.

Usage: python benchmarks/memory.py [--quick] [--per-scope 10000] [--scopes 10] [--queries 200]
Target: search p95 <= 20 ms with 10k memories per scope and 100k in total.

Storing uses synthetic 384-d vectors clustered by topic (TopicEmbedder) so the figures measure the graph,
not the model; real MiniLM embedding throughput is reported in its own table. Recall is the share of the exact
in-scope top-k (numpy) that the search returns.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._table import print_table
from retrieval.config import load_settings
from retrieval.conversation.memory import MemoryMessage, MemoryStore, Scope
from retrieval.embed import Embedder, make_embedder
from retrieval.store import open_store

DIM = 384
K = 10


TOPICS = 200


class TopicEmbedder(Embedder):
    """Fast stand-in vectors with the shape of real ones: messages about one topic lie near that topic's centre.

    Uniform random vectors are the worst case for HNSW and unlike any text embedding; conversation memories
    cluster by topic. A text "... topic N ..." gets centre N plus deterministic noise (from its hash).
    """

    name = "bench:topics"
    dim = DIM
    centres = np.random.default_rng(11).normal(size=(TOPICS, DIM)).astype(np.float32)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows = []
        for text in texts:
            seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")
            topic = int(text.rsplit("topic ", 1)[1].split()[0]) % TOPICS if "topic " in text else seed % TOPICS
            rows.append(self.centres[topic] + 0.6 * np.random.default_rng(seed).normal(size=DIM))
        matrix = np.asarray(rows, dtype=np.float32).reshape(len(texts), DIM)
        return matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q)) if values else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="2 scopes x 2k memories")
    parser.add_argument("--per-scope", type=int, default=10_000)
    parser.add_argument("--scopes", type=int, default=10)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    per_scope, n_scopes = (2_000, 2) if args.quick else (args.per_scope, args.scopes)
    rng = np.random.default_rng(7)
    embedder = TopicEmbedder()

    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(_env_file=None, graph_path=Path(tmp) / "graph.db", data_dir=Path(tmp), redis_url=None)
        store = open_store(settings)
        memory = MemoryStore(store, settings, embedder)
        memory.ensure_schema()
        store_rows = []
        texts: dict[str, list[str]] = {}
        for s in range(n_scopes):
            user = f"user-{s}"
            texts[user] = [f"{user} message {i} about topic {rng.integers(TOPICS)}" for i in range(per_scope)]
            started = time.perf_counter()
            memory.add(
                Scope(user_id=user, application_id="bench"), [MemoryMessage(text=t, role="user") for t in texts[user]]
            )
            seconds = time.perf_counter() - started
            if s in (0, n_scopes - 1):
                store_rows.append(
                    [f"store {per_scope:,} (scope {s + 1})", f"{seconds:.2f} s", f"{per_scope / seconds:,.0f}/s"]
                )
        # a small scope (one short thread) inside the big graph: the exact-scoring path
        thread_texts = [f"thread note {i} on topic {i}" for i in range(20)]
        memory.add(
            Scope(user_id="user-0", thread_id="short"), [MemoryMessage(text=t, role="user") for t in thread_texts]
        )
        total = per_scope * n_scopes + len(thread_texts)
        print_table(f"Memory store ({total:,} memories, {n_scopes} scopes)", ["step", "time", "rate"], store_rows)

        search_rows = []
        cases = [
            (
                f"vector, scope of {per_scope:,}",
                Scope(user_id=f"user-{n_scopes - 1}"),
                texts[f"user-{n_scopes - 1}"],
                True,
            ),
            ("vector, thread of 20", Scope(thread_id="short"), thread_texts, True),
            (
                f"recency, scope of {per_scope:,}",
                Scope(user_id=f"user-{n_scopes - 1}"),
                texts[f"user-{n_scopes - 1}"],
                False,
            ),
        ]
        for name, scope, scope_texts, by_vector in cases:
            corpus = embedder.embed(scope_texts)
            latencies, recalls = [], []
            for _ in range(args.queries):
                query = embedder.embed([f"a question about topic {rng.integers(TOPICS)} {rng.integers(1 << 30)}"])[0]
                started = time.perf_counter()
                found = (
                    memory.search(scope, "", K, query_vector=query.tolist()) if by_vector else memory.recent(scope, K)
                )
                latencies.append((time.perf_counter() - started) * 1000)
                if by_vector:
                    exact = {scope_texts[i] for i in np.argsort(-(corpus @ query))[:K]}
                    recalls.append(len(exact & {r.text for r in found}) / min(K, len(scope_texts)))
            recall = f"{np.mean(recalls):.3f}" if recalls else "-"
            search_rows.append([name, f"{percentile(latencies, 50):.2f}", f"{percentile(latencies, 95):.2f}", recall])
        print_table(
            f"Memory search, top-{K}, {args.queries} queries (target p95 <= 20 ms)",
            ["case", "p50 ms", "p95 ms", f"recall@{K}"],
            search_rows,
        )
        started = time.perf_counter()
        store.close()
        print(f"\nclose: {time.perf_counter() - started:.1f} s")

    real = make_embedder(settings)
    real.embed(["warm up"])
    sample = [f"The user said something about topic {i} and asked a follow-up question." for i in range(256)]
    started = time.perf_counter()
    real.embed(sample)
    batch_s = time.perf_counter() - started
    single = []
    for text in sample[:50]:
        started = time.perf_counter()
        real.embed_query(text)
        single.append((time.perf_counter() - started) * 1000)
    print_table(
        f"Embedding ({real.name})",
        ["case", "value"],
        [
            ["batch of 256 messages", f"{len(sample) / batch_s:,.0f} msg/s"],
            ["one query, p95", f"{percentile(single, 95):.1f} ms"],
        ],
    )


if __name__ == "__main__":
    main()
