"""Another checkout's DriftLens systems, for `peers.py --before`: each search timed here, in that code.

Started by peers.py as `python benchmarks/peers_before.py CHECKOUT DATASET FOLDER` with the server in NEO4J_URI,
NEO4J_USERNAME and NEO4J_PASSWORD. It imports the checkout's own code (its `benchmarks.peers.driftlens_systems`
over its `retrieval`), never this one's, opens the graph peers.py indexed (`FOLDER` holds what the indexer
remembers) and prints the systems' names as one JSON line; then it answers each "system<TAB>question index" line
with one JSON line: the document ids found, the search's wall time (ms) and the statements it sent. Why a child:
two versions of `retrieval` cannot share one interpreter, and timing inside the child leaves the pipe out.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path


def main() -> None:
    checkout, dataset, folder = (Path(arg).resolve() for arg in sys.argv[1:4])
    sys.path.insert(0, str(checkout))
    from benchmarks.eval_data import eval_settings, read_set
    from benchmarks.peers import RoundTrips, driftlens_systems
    from retrieval.context import Context
    from retrieval.embed import make_embedder
    from retrieval.store import open_store

    settings = eval_settings(
        folder,
        neo4j_uri=os.environ["NEO4J_URI"],
        neo4j_username=os.environ.get("NEO4J_USERNAME", "neo4j"),
        neo4j_password=os.environ.get("NEO4J_PASSWORD", ""),
    )
    store = open_store(settings)
    embedder = make_embedder(settings)
    ctx = Context(settings, store, embedder, None, settings.project)
    questions = [q for q in read_set(dataset).questions if q.gold]
    vectors = [v.tolist() for v in embedder.embed([q.text for q in questions])]
    systems = {f"before: {name}": run for name, run in driftlens_systems(ctx).items()}
    trips = RoundTrips(store)
    print(json.dumps(list(systems)), flush=True)
    for line in sys.stdin:
        name, index = line.rstrip("\n").split("\t")
        i, sent = int(index), trips.count
        started = time.perf_counter()
        docs = systems[name](questions[i], vectors[i])
        ms = (time.perf_counter() - started) * 1000
        print(json.dumps({"docs": docs, "ms": ms, "trips": trips.count - sent}), flush=True)
    store.close()


if __name__ == "__main__":
    main()
