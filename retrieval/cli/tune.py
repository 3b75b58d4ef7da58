"""`tune` command: measure a grid of retrieval settings against a labelled question set, as the Tuning page does.

python -m retrieval tune SET.jsonl --grid alpha=0.3,0.5,0.7 hops=0,1,2 [--metric recall] [--json]
python -m retrieval tune --set NAME --grid ...        # a set saved in the graph (from the Ask page's labels)
python -m retrieval tune SET.jsonl --save NAME        # import a file as a saved set (no run without --grid)
python -m retrieval tune --set NAME --export OUT.jsonl
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.console import Console

from retrieval.cli import add_graph_options, settings_from_args, text_argument
from retrieval.engine import Engine
from retrieval.errors import ConfigError
from retrieval.tuning.grid import parse_grid, run_grid
from retrieval.tuning.question_sets import QuestionSet, read_set, write_set
from retrieval.tuning.report import METRIC_NAMES, METRICS, Summary, summarise
from retrieval.tuning.set_store import Owner, QuestionSetStore


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    tune = sub.add_parser("tune", help="measure retrieval settings against a labelled question set")
    tune.add_argument("set_file", nargs="?", type=Path, help="question set (JSONL/JSON, HotpotQA or MuSiQue shape)")
    tune.add_argument("--set", dest="set_name", type=text_argument, help="a question set saved in the graph")
    tune.add_argument("--grid", nargs="*", default=[], help="NAME=v1,v2 ... (alpha, hops, top_k, fusion, ...)")
    tune.add_argument("--metric", choices=METRICS, default="recall", help="what picks the best setting")
    tune.add_argument("--save", type=text_argument, help="save the file's questions as a set with this name")
    tune.add_argument("--export", type=Path, help="write the set as JSONL (the harness's format)")
    add_graph_options(tune)
    tune.set_defaults(func=run_tune)


def run_tune(args: argparse.Namespace) -> int:
    if (args.set_file is None) == (args.set_name is None):
        raise ConfigError("Name one question set: a file (SET.jsonl) or --set NAME.")
    grid = parse_grid(args.grid)
    engine = Engine(settings_from_args(args))
    try:
        ctx = engine.context()
        owner = Owner(ctx.project, engine.settings.user)
        sets = QuestionSetStore(engine.store)
        question_set: QuestionSet = read_set(args.set_file) if args.set_file else sets.load(owner, args.set_name)
        if args.save:
            saved = sets.save(owner, QuestionSet(args.save, question_set.questions, question_set.passages,
                                                 unit=question_set.unit))  # fmt: skip
            print(f"Saved {saved} questions as set {args.save!r} in project {ctx.project!r}.")
        if args.export:
            write_set(question_set, args.export)
            print(f"Wrote {len(question_set.questions)} questions to {args.export}.")
        if not grid:
            if not (args.save or args.export):
                raise ConfigError("Nothing to do: give --grid NAME=v1,v2 ... (or --save / --export).")
            return 0
        console = Console(stderr=True)
        with console.status("Running the grid…") as status:
            run = run_grid(
                ctx, question_set, grid, on_progress=lambda done, total, what: status.update(f"{done}/{total} {what}")
            )
    finally:
        engine.close()
    summary = summarise(run, args.metric)
    if args.json:
        print(json.dumps(summary.as_json(), indent=2, ensure_ascii=False))
    else:
        _print(summary)
    return 0


def _print(summary: Summary) -> None:
    console = Console()
    run = summary.run
    console.print(f"[bold]{run.question_set}[/]: {run.questions} labelled questions, {run.seconds:.1f} s", markup=True)
    metric = summary.metric
    header = ["setting", *(METRIC_NAMES[m] for m in ("recall", "all_gold", "mrr")), f"{metric} train",
              f"{metric} test", "ms/q"]  # fmt: skip
    console.print(" | ".join(header), markup=False)
    for row in summary.rows():
        marks = (" *current" if row["current"] else "") + (" *best" if row["best"] else "")
        scores = [row[m] for m in ("recall", "all_gold", "mrr")] + [row[f"{metric}_train"], row[f"{metric}_test"]]
        cells = [row["setting"] + marks, *(f"{v:.3f}" for v in scores), f"{row['ms_per_question']:.0f}"]
        console.print(" | ".join(cells), markup=False)
    console.print(summary.verdict(), markup=False)
    for note in run.notes:
        console.print(f"[yellow]note[/] {note}", markup=True)
