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

Two more reports (definitions in benchmarks/answer_metrics.py, tables in docs/benchmarks.md):
- `--demo`: the labelled demo-corpus set (benchmarks/data/demo_questions.jsonl) on the demo graph (built once
  under benchmarks/.cache/demo/): per method and split, hit@5, word recall, filler share and the confidence
  figures (AUROC, unanswerable flagged, correct flagged, reliability table). See benchmarks/demo_answers.py.
- `--unanswerable MUSIQUE.json` with a HotpotQA file: the same confidence figures on that set's graph, with the
  MuSiQue questions whose answer is in no passage as the unanswerable part. See benchmarks/unanswerable.py.

Usage: python benchmarks/eval_answers.py --demo [--methods baseline,local,drift,global] [--splits dev,test3,test+test2]
           [--dump FILE]
       python benchmarks/eval_answers.py HOTPOT.jsonl --unanswerable MUSIQUE.json [--methods local,drift]
           [--part all|tune|test] [--dump FILE]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._table import print_table
from benchmarks.answer_metrics import answer_scores
from benchmarks.answer_runs import BASELINE, baseline_facts
from benchmarks.demo_answers import SPLITS, evaluate_demo
from benchmarks.eval_data import EvalSet, Question, build_graph, eval_settings, read_set, wait_for_indexes
from benchmarks.unanswerable import PARTS, evaluate_confidence, read_golds
from retrieval.config import Settings
from retrieval.context import Context
from retrieval.embed import make_embedder
from retrieval.models import QueryParams
from retrieval.modes import drift, local
from retrieval.store import GraphStore, open_store

Method = Callable[[Question], str]


def gold_answers(path: Path) -> dict[str, list[str]]:
    """Question id -> gold answer and its aliases (HotpotQA `answer`; MuSiQue `answer` + `answer_aliases`), as the
    confidence figures read them (`unanswerable.read_golds`)."""
    return {qid: gold.answers for qid, gold in read_golds(path).items()}


def methods(ctx: Context) -> dict[str, Method]:
    params = QueryParams.from_settings(ctx.settings, filters={})

    def baseline(q: Question) -> str:
        return "\n".join(baseline_facts(ctx, q.text))

    def mode(answer: Callable[..., object]) -> Method:
        def run(q: Question) -> str:
            result = answer(ctx, q.text, params, None)
            return "\n".join(f.fact for f in result.key_facts)  # type: ignore[attr-defined]

        return run

    return {BASELINE: baseline, "local": mode(local.answer), "drift": mode(drift.answer)}


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
            c, r = answer_scores(run(question), golds[question.id])
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
    parser.add_argument("datasets", nargs="*", type=Path)
    parser.add_argument("--demo", action="store_true", help="the labelled demo-corpus set on the demo graph")
    parser.add_argument(
        "--dump",
        type=Path,
        default=None,
        help="write per-question results (JSONL); with --unanswerable, the whole answers for fit_confidence.py --with",
    )
    parser.add_argument(
        "--part", choices=PARTS, default="all", help="with --unanswerable: every question, or the tune or test half"
    )
    parser.add_argument(
        "--splits",
        default=",".join(SPLITS),
        help='with --demo: comma-separated report groups, each a split or splits joined by "+" (test+test2+test3)',
    )
    parser.add_argument(
        "--unanswerable", type=Path, default=None, help="MuSiQue JSON: confidence figures, its questions unanswerable"
    )
    parser.add_argument("--start", type=int, default=0, help="skip the first N questions (settings chosen on them)")
    parser.add_argument("--limit", type=int, default=None, help="evaluate at most N questions (after --start)")
    parser.add_argument(
        "--methods", default=None, help="comma-separated: baseline, local, drift (and global with --demo)"
    )
    parser.add_argument(
        "--graph-dir", type=Path, default=None, help="answer on the graphs under DIR/<set>/ as they are (no indexing)"
    )
    args = parser.parse_args()
    if args.demo:
        evaluate_demo((args.methods or "baseline,local,drift,global").split(","), args.splits.split(","), args.dump)
    for path in args.datasets:
        span = slice(args.start, None if args.limit is None else args.start + args.limit)
        chosen = (args.methods or "baseline,local,drift").split(",")
        if args.unanswerable:
            data = read_set(path)
            graph = open_graph(data, args.graph_dir)
            evaluate_confidence(
                data,
                read_golds(path),
                args.unanswerable,
                graph,
                modes=chosen,
                limit=args.limit,
                part=args.part,
                saved=args.dump,
            )
        else:
            evaluate(read_set(path), gold_answers(path), span, chosen, args.graph_dir)


if __name__ == "__main__":
    main()
