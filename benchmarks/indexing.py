"""Indexing benchmark: seconds per stage, chunks/s, graph counts and peak RSS, cold and unchanged re-run.

Each corpus runs in its own process (fresh graph in a temp folder) so peak RSS is that corpus's own
(the indexer process; the embedded graph server runs as a separate process).
Usage: .venv/bin/python benchmarks/indexing.py [--corpus demo|carol] [--json]
The whole 60-episode corpus, the embedder alone beside it and a one-episode edit: benchmarks/corpus.py.
Targets on 2 cores without an LLM (issue 3): demo cold <= 180 s, unchanged re-run <= 5 s, peak RSS <= 2 GB.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CORPORA = {
    "demo": sorted((ROOT / "data" / "demo" / "behind-the-tech").glob("*.txt")),
    "carol": [ROOT / "data" / "demo" / "a-christmas-carol" / "a-christmas-carol.txt"],
}


def measure(corpus: str) -> dict[str, Any]:
    from retrieval.config import load_settings
    from retrieval.embed import make_embedder
    from retrieval.indexing import graph_stats, run_index
    from retrieval.store import open_store

    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(_env_file=None, graph_path=Path(tmp) / "graph.db", data_dir=Path(tmp), project=corpus)
        embedder = make_embedder(settings)
        out: dict[str, Any] = {"corpus": corpus, "documents": len(CORPORA[corpus])}
        with open_store(settings) as store:
            for run in ("cold", "rerun"):
                started = time.perf_counter()
                report = run_index(settings, store, embedder, CORPORA[corpus], project=corpus)
                out[run] = {"seconds": round(time.perf_counter() - started, 2), "stages": report.seconds}
                out[run]["written"] = report.written
            stats = graph_stats(store, settings, corpus)
        out.update({k: stats[k] for k in ("chunks", "entities", "relationships", "communities")})
        out["chunks_per_s"] = round(stats["chunks"] / out["cold"]["seconds"], 2)
        out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
        return out


def table(results: list[dict[str, Any]]) -> None:
    from rich.console import Console
    from rich.table import Table

    stages = sorted(
        {s for r in results for s in r["cold"]["stages"]}, key=lambda s: -results[0]["cold"]["stages"].get(s, 0)
    )
    grid = Table("measure", *(r["corpus"] for r in results), title="Indexing benchmark (no LLM)")
    rows: list[tuple[str, list[str]]] = [
        ("documents", [str(r["documents"]) for r in results]),
        ("cold run, s", [str(r["cold"]["seconds"]) for r in results]),
        ("unchanged re-run, s", [str(r["rerun"]["seconds"]) for r in results]),
        ("chunks", [str(r["chunks"]) for r in results]),
        ("chunks/s (cold, end to end)", [str(r["chunks_per_s"]) for r in results]),
        ("entities", [str(r["entities"]) for r in results]),
        ("relationships", [str(r["relationships"]) for r in results]),
        ("communities per level", [json.dumps(r["communities"]) for r in results]),
        ("peak RSS (indexer), MB", [str(r["peak_rss_mb"]) for r in results]),
    ]
    rows += [(f"  stage {s}, s", [str(r["cold"]["stages"].get(s, "")) for r in results]) for s in stages]
    for name, values in rows:
        grid.add_row(name, *values)
    Console().print(grid)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", choices=sorted(CORPORA))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.corpus:
        result = measure(args.corpus)
        print(json.dumps(result) if args.json else result)
        return
    results = []
    for corpus in ("demo", "carol"):
        done = subprocess.run(
            [sys.executable, __file__, "--corpus", corpus, "--json"], check=True, capture_output=True, text=True
        )
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        table(results)


if __name__ == "__main__":
    main()
