"""Tuning lab: grid time for a question set, and its figures beside the evaluation harness's for the same settings.

Usage: python benchmarks/tuning.py [DATASET.jsonl] [--grid alpha=0.3,0.5,0.7 hops=0,1,2 k=5,10] [--limit N]
Default: HotpotQA dev-200 (../shared/data/dev-eval), its pooled-passage graph built and cached as
benchmarks/eval_retrieval.py builds it. Target: 200 questions x 18 settings in <= 120 s on 2 cores.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._table import print_table
from benchmarks.eval_data import build_graph, read_set
from benchmarks.eval_retrieval import FETCH, passages, score
from retrieval.context import Context
from retrieval.embed import make_embedder
from retrieval.models import QueryParams
from retrieval.search.ranking import retrieve
from retrieval.tuning.grid import expand_grid, parse_grid, run_grid
from retrieval.tuning.question_sets import QuestionSet

HOTPOT = Path(__file__).resolve().parents[2] / "shared" / "data" / "dev-eval" / "hotpotqa_dev200.jsonl"
DEFAULT_GRID = ["alpha=0.3,0.5,0.7", "hops=0,1,2", "k=5,10"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", nargs="?", type=Path, default=HOTPOT)
    parser.add_argument("--grid", nargs="*", default=DEFAULT_GRID)
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_args()
    data = read_set(args.dataset)
    questions = data.labelled[: args.limit]
    data = QuestionSet(data.name, questions, data.passages, unit=data.unit)
    store, settings, doc_to_key = build_graph(data)
    ctx = Context(settings, store, make_embedder(settings), None, settings.project)
    grid = parse_grid(args.grid)
    load = os.getloadavg()[0]
    started = time.perf_counter()
    run = run_grid(ctx, data, grid)
    seconds = time.perf_counter() - started
    settings_n = len(expand_grid(grid))
    print_table(
        f"{data.name}: grid run ({len(questions)} questions x {settings_n} settings; load average {load:.1f})",
        ["questions", "settings", "seconds", "target s"],
        [[len(questions), settings_n, seconds, 120]],
    )
    rows = []
    vectors = ctx.embedder.embed([q.text for q in questions])
    for result in run.results:
        s = result.setting
        if s.get("top_k") != 5 or "alpha" not in s or "max_hops" not in s:
            continue
        params = QueryParams.from_settings(settings, top_k=FETCH, filters={}, alpha=s["alpha"], max_hops=s["max_hops"])
        harness = [
            score(
                passages(retrieve(ctx, q.text, params, query_vector=v.tolist(), walk=False).chunks, doc_to_key), q.gold
            )
            for q, v in zip(questions, vectors, strict=True)
        ]
        r5 = sum(h["R@5"] for h in harness) / len(harness)
        mrr = sum(h["MRR"] for h in harness) / len(harness)
        rows.append([result.label, r5, result.mean("recall"), mrr, result.mean("mrr")])
    print_table(
        f"{data.name}: the tuning grid beside the harness (same settings, Recall@5 and MRR)",
        ["setting", "harness R@5", "tuning R@5", "harness MRR", "tuning MRR"],
        rows,
    )
    store.close()


if __name__ == "__main__":
    main()
