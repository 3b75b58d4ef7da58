"""Extractive answer quality: does the offline answer contain the gold answer? Per mode, on a dev set.

Usage: python benchmarks/eval_answers.py DATASET.jsonl|json [--start N] [--limit N] [--methods baseline,local,drift]
Reads the same HotpotQA/MuSiQue files as eval_retrieval.py (and the same cached graph under
benchmarks/.cache/<set>/, built on first use), answers each question with no language model and
reports, per method:
- contains: share of questions whose gold answer (or one of its aliases) appears in the answer text;
- word recall: share of the gold answer's words found in the answer (best alias), averaged.
Both after SQuAD normalisation (lower case, no punctuation or articles). The answer text is the key
facts only: the extracted sentences. The answer paragraph of an offline answer names the documents the
facts come from, and those names are passage titles here, which would credit a title for the answer.
Methods: `baseline` is a plain "5 best sentences of the top-5 vector chunks" (sentences ranked by
cosine similarity to the question); `local` and `drift` are the product's offline modes.
Target (issue #18): local and DRIFT each >= 5 points above the baseline on both sets.
"""

from __future__ import annotations

import argparse
import json
import re
import string
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._table import print_table
from benchmarks.eval_data import EvalSet, Question, build_graph, eval_settings, read_set, wait_for_indexes
from retrieval.config import Settings
from retrieval.context import Context
from retrieval.embed import make_embedder
from retrieval.models import QueryParams
from retrieval.modes import drift, local
from retrieval.search.evidence import sentences
from retrieval.search.hybrid import search_chunks
from retrieval.store import GraphStore, open_store

BASELINE_CHUNKS = 5
BASELINE_SENTENCES = 5
Method = Callable[[Question], str]
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalise(text: str) -> str:
    """SQuAD answer normalisation: lower case, punctuation and articles removed, whitespace collapsed."""
    text = "".join(c for c in text.lower() if c not in set(string.punctuation))
    return " ".join(_ARTICLES.sub(" ", text).split())


def gold_answers(path: Path) -> dict[str, list[str]]:
    """Question id -> gold answer and its aliases (HotpotQA `answer`; MuSiQue `answer` + `answer_aliases`)."""
    raw = path.read_text(encoding="utf-8")
    rows = (
        [json.loads(line) for line in raw.splitlines() if line.strip()] if path.suffix == ".jsonl" else json.loads(raw)
    )
    return {
        str(row.get("_id") or row.get("id")): [str(a) for a in [row.get("answer"), *row.get("answer_aliases", [])] if a]
        for row in rows
    }


def score(answer_text: str, golds: list[str]) -> tuple[float, float]:
    """(contains, word recall) of one answer against its gold answers (best alias)."""
    text = normalise(answer_text)
    words = set(text.split())
    contains, recall = 0.0, 0.0
    for gold in golds:
        g = normalise(gold)
        if not g:
            continue
        contains = max(contains, float(f" {g} " in f" {text} "))
        tokens = g.split()
        recall = max(recall, sum(1 for t in tokens if t in words) / len(tokens))
    return contains, recall


def methods(ctx: Context) -> dict[str, Method]:
    params = QueryParams.from_settings(ctx.settings, filters={})
    vector_params = params.model_copy(update={"search_type": "vector", "top_k": BASELINE_CHUNKS})

    def baseline(q: Question) -> str:
        vector = ctx.embedder.embed_query(q.text)
        hits = search_chunks(ctx, q.text, vector_params, query_vector=vector)[:BASELINE_CHUNKS]
        pool = list(dict.fromkeys(s for h in hits for s in sentences(h.text)))
        if not pool:
            return ""
        similarity = ctx.embedder.embed(pool) @ np.asarray(vector)
        best = sorted(range(len(pool)), key=lambda i: -float(similarity[i]))[:BASELINE_SENTENCES]
        return "\n".join(pool[i] for i in best)

    def mode(answer: Callable[..., object]) -> Method:
        def run(q: Question) -> str:
            result = answer(ctx, q.text, params, None)
            return "\n".join(f.fact for f in result.key_facts)  # type: ignore[attr-defined]

        return run

    return {"baseline (top-5 vector chunks)": baseline, "local": mode(local.answer), "drift": mode(drift.answer)}


def open_graph(data: EvalSet, graph_dir: Path | None) -> tuple[GraphStore, Settings]:
    """The set's cached graph (built on first use), or an existing one under `graph_dir`, opened as it is."""
    if graph_dir is None:
        store, settings, _doc_to_key = build_graph(data)
        return store, settings
    settings = eval_settings(graph_dir / data.name)
    store = open_store(settings)
    wait_for_indexes(store)
    return store, settings


def evaluate(
    data: EvalSet, golds: dict[str, list[str]], span: slice, chosen: list[str], graph_dir: Path | None
) -> None:
    questions = [q for q in data.questions if golds.get(q.id)][span]
    store, settings = open_graph(data, graph_dir)
    ctx = Context(settings, store, make_embedder(settings), None, settings.project)
    rows = []
    for name, run in methods(ctx).items():
        if not any(name.startswith(c) for c in chosen):
            continue
        contains = recall = 0.0
        started = time.perf_counter()
        for question in questions:
            c, r = score(run(question), golds[question.id])
            contains, recall = contains + c, recall + r
        ms = (time.perf_counter() - started) * 1000 / max(len(questions), 1)
        print(f"  {data.name} {name}: done, {ms:.0f} ms/question", file=sys.stderr, flush=True)
        rows.append([name, contains / len(questions), recall / len(questions), ms])
    first = (span.start or 0) + 1
    store.close()
    print_table(
        f"{data.name}: questions {first}-{first + len(questions) - 1} with gold answers",
        ["method", "contains", "word recall", "ms/q"],
        rows,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datasets", nargs="+", type=Path)
    parser.add_argument("--start", type=int, default=0, help="skip the first N questions (settings chosen on them)")
    parser.add_argument("--limit", type=int, default=None, help="evaluate at most N questions (after --start)")
    parser.add_argument("--methods", default="baseline,local,drift", help="comma-separated: baseline, local, drift")
    parser.add_argument(
        "--graph-dir", type=Path, default=None, help="answer on the graphs under DIR/<set>/ as they are (no indexing)"
    )
    args = parser.parse_args()
    for path in args.datasets:
        span = slice(args.start, None if args.limit is None else args.start + args.limit)
        evaluate(read_set(path), gold_answers(path), span, args.methods.split(","), args.graph_dir)


if __name__ == "__main__":
    main()
