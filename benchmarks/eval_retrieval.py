"""Retrieval evaluation: evidence Recall@2/5/10, all-gold@10 and MRR per search method on a dev set.

Usage: python benchmarks/eval_retrieval.py DATASET.jsonl|json [--limit N]
Reads HotpotQA-style (`context`, `supporting_facts`) and MuSiQue-style (`paragraphs[].is_supporting`) files,
pools every passage of every question into one corpus, indexes it once (cached under benchmarks/.cache/)
and ranks passages (a passage split into several chunks counts once, at its best chunk).
Target: hybrid + graph beats the better of vector-only and fulltext-only by >= 10 points of Recall@5.
"+ graph" is `retrieve()` as local search runs it: hybrid hits re-ranked through the entities they mention
(retrieval/search/bridge.py); the RELATED walk local search also runs feeds the answer's trace, not the
ranking, and is not run here.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._table import print_table
from benchmarks.eval_data import EvalSet, Question, build_graph, read_set
from retrieval.context import Context
from retrieval.embed import make_embedder
from retrieval.models import Hit, QueryParams
from retrieval.search.hybrid import search_chunks
from retrieval.search.ranking import retrieve

#: Chunks fetched per question: enough to fill 10 distinct passages when passages were split.
FETCH = 20
Ranker = Callable[[Question, list[float]], list[Hit]]


def methods(ctx: Context) -> dict[str, Ranker]:
    base = QueryParams.from_settings(ctx.settings, top_k=FETCH, filters={})

    def hybrid(**overrides: object) -> Ranker:
        params = base.model_copy(update=overrides)
        return lambda q, v: search_chunks(ctx, q.text, params, query_vector=v)

    def expanded(**overrides: object) -> Ranker:
        params = base.model_copy(update=overrides)
        return lambda q, v: retrieve(ctx, q.text, params, query_vector=v, walk=False).chunks

    return {
        "fulltext only": hybrid(search_type="fulltext"),
        "vector only": hybrid(search_type="vector"),
        "hybrid linear a=0.3": hybrid(fusion="linear", alpha=0.3),
        "hybrid linear a=0.5": hybrid(fusion="linear", alpha=0.5),
        "hybrid linear a=0.6": hybrid(fusion="linear", alpha=0.6),
        "hybrid linear a=0.7": hybrid(fusion="linear", alpha=0.7),
        "hybrid RRF": hybrid(fusion="rrf", alpha=0.5),
        "hybrid a=0.5 + graph": expanded(fusion="linear", alpha=0.5, max_hops=1),
        "hybrid a=0.6 + graph (default)": expanded(fusion="linear", alpha=0.6, max_hops=1),
        "hybrid a=0.7 + graph": expanded(fusion="linear", alpha=0.7, max_hops=1),
        "hybrid RRF + graph": expanded(fusion="rrf", alpha=0.5, max_hops=1),
    }


def passages(hits: list[Hit], doc_to_key: dict[str, str]) -> list[str]:
    return list(dict.fromkeys(doc_to_key[h.document_id] for h in hits if h.document_id in doc_to_key))


def score(ranked: list[str], gold: frozenset[str]) -> dict[str, float]:
    out = {f"R@{k}": len(gold & set(ranked[:k])) / len(gold) for k in (2, 5, 10)}
    out["all-gold@10"] = float(gold <= set(ranked[:10]))
    out["MRR"] = next((1.0 / (i + 1) for i, key in enumerate(ranked) if key in gold), 0.0)
    return out


def evaluate(data: EvalSet, limit: int | None) -> None:
    questions = [q for q in data.questions if q.gold][:limit]
    if not questions:
        print(f"\n{data.header(0)}: nothing to evaluate")
        return
    store, settings, doc_to_key = build_graph(data)
    embedder = make_embedder(settings)
    ctx = Context(settings, store, embedder, None, settings.project)
    vectors = embedder.embed([q.text for q in questions])
    rows = []
    for name, rank in methods(ctx).items():
        totals: dict[str, float] = {}
        started = time.perf_counter()
        for question, vector in zip(questions, vectors, strict=True):
            for metric, value in score(passages(rank(question, vector.tolist()), doc_to_key), question.gold).items():
                totals[metric] = totals.get(metric, 0.0) + value
        ms = (time.perf_counter() - started) * 1000 / len(questions)
        rows.append([name, *(totals[m] / len(questions) for m in ("R@2", "R@5", "R@10", "all-gold@10", "MRR")), ms])
    store.close()
    print_table(data.header(len(questions)), ["method", "R@2", "R@5", "R@10", "all-gold@10", "MRR", "ms/query"], rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datasets", nargs="+", type=Path)
    parser.add_argument("--limit", type=int, default=None, help="evaluate only the first N questions")
    args = parser.parse_args()
    for path in args.datasets:
        evaluate(read_set(path), args.limit)


if __name__ == "__main__":
    main()
