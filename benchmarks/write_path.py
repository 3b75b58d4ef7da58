"""Write path: chunk rows per second into the embedded store, the client's own parameter encoding vs ours.

Usage: python benchmarks/write_path.py [--chunks 10000] [--batch 2000]
Each way loads the same 384-d chunk rows into a fresh graph whose vector and fulltext indexes exist (as the indexer
writes), one after the other in one run, so the ratios compare like with like on a shared machine:
- client encoding: the FalkorDB client turns every parameter into Cypher text itself (the write path before #15);
- store, float lists: `GraphStore.write_batch` with vectors as Python float lists (what the indexer sends);
- store, float32 arrays: the same with numpy float32 vectors (9 significant digits, what `benchmarks/scale.py` sends).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from falkordb import FalkorDB

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import backends
from benchmarks._table import print_table
from benchmarks.store import DIM, clustered, words
from retrieval.store.falkordb import FalkorDBStore

WAYS = ("client encoding", "store, float lists", "store, float32 arrays")


def load(way: str, rows: list[dict[str, Any]], batch: int) -> float:
    """Seconds to write `rows` the `way` named, into a fresh graph with its indexes in place."""
    with tempfile.TemporaryDirectory() as tmp:
        store = backends.open_empty(backends.settings_for("falkordb", Path(tmp), {}))
        assert isinstance(store, FalkorDBStore)
        store.ensure_schema(DIM)
        cypher = (
            f"UNWIND $rows AS row CREATE (c:`{store.settings.chunk_label}` {{id: row.id, text: row.text, "
            f"projectId: 'bench'}}) SET c.embedding = vecf32(row.v)"
        )
        graph = FalkorDB(unix_socket_path=store.socket_path).select_graph(store.settings.graph_name)
        prepared = [{**row, "v": row["v"] if way == WAYS[2] else row["v"].tolist()} for row in rows]
        started = time.perf_counter()
        if way == WAYS[0]:
            for start in range(0, len(prepared), batch):
                graph.query(cypher, {"rows": prepared[start : start + batch]})
        else:
            store.write_batch(cypher, prepared, batch_size=batch)
        seconds = time.perf_counter() - started
        count = store.counts([store.settings.chunk_label])[store.settings.chunk_label]
        store.close()
    if count != len(rows):
        raise SystemExit(f"{way}: {count} chunks stored of {len(rows)}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--batch", type=int, default=2000)
    args = parser.parse_args()
    rng = np.random.default_rng(5)
    vectors = clustered(args.chunks, rng)
    rows = [{"id": f"c{i}", "text": words(rng, 40), "v": vectors[i]} for i in range(args.chunks)]
    seconds = {way: load(way, rows, args.batch) for way in WAYS}
    base = seconds[WAYS[0]]
    print_table(
        f"Write path: {args.chunks} chunks (384-d, vector + fulltext indexes in place), batches of {args.batch}; "
        f"load avg {os.getloadavg()[0]:.1f} on 2 cores",
        ["way", "seconds", "chunks/s", "speed-up"],
        [[way, s, args.chunks / s, f"{base / s:.1f}x"] for way, s in seconds.items()],
    )


if __name__ == "__main__":
    main()
