"""The confidence figures of saved answers, scored again without asking: per mode, AUROC, unanswerable questions
flagged and right answers flagged "not in these documents", by the confidence each answer carries, by a model file,
or by the signals refitted leaving one question out.

Why: a change to the confidence alone (a signal, the model, the cut) moves no key fact, so main and a branch are
compared on the same answers. Asking them takes an hour on the HotpotQA graph; scoring them again takes a minute.
Each round of issue #24 wrote its own scratch script for this (wt125, wt133, wt174, wt213: docs/benchmarks.md).

Usage: python benchmarks/rescore_confidence.py tune --answers TUNE_DEMO.jsonl --with TUNE.jsonl [--drop joint,gap]
       python benchmarks/rescore_confidence.py held [--model FILE] [--split test5+test6 --answers HELD.jsonl]
           [--with TEST.jsonl]
`tune`: the tuning answers (`fit_confidence.py --answers` on the demo tuning split, and the tune half of a saved
HotpotQA run) with the signals (less `--drop`) refitted leaving one question out and the recipe's cut, as
`fit_confidence.py` reads them. `held`: saved held-out answers (a demo split saved by `fit_confidence.py --split
test5+test6 --answers`, the test half of a saved HotpotQA run) by the confidence they carry, or by `--model`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import fit_confidence
from benchmarks._table import print_table
from benchmarks.answer_metrics import Judged, confidence_figures
from benchmarks.fit_confidence import Example
from retrieval.models import Answer, Mode

HEADERS = ["group", "AUROC", "unanswerable flagged", "right flagged"]


def rows(examples: Sequence[Example], scores: np.ndarray, flagged: np.ndarray) -> list[list[str]]:
    """One row per group: AUROC to three places (a flagged answer ranks below every answered one; the target is 0.80,
    and 0.798 is not met), and the counts flagged."""
    out = []
    for group in dict.fromkeys(e.group for e in examples):
        mine = [i for i, e in enumerate(examples) if e.group == group]
        judged = [
            Judged(not examples[i].unanswerable, examples[i].right == 1, bool(flagged[i]), float(scores[i]))
            for i in mine
        ]
        unanswerable = [i for i in mine if examples[i].unanswerable]
        right = [i for i in mine if examples[i].right == 1]
        out.append(
            [
                group,
                "n/a" if (auroc := confidence_figures(judged).auroc) is None else f"{auroc:.3f}",
                f"{int(flagged[unanswerable].sum())}/{len(unanswerable)}",
                f"{int(flagged[right].sum())}/{len(right)}",
            ]
        )
    return out


def empty(answer: Answer) -> bool:
    """An answer `answerability.decide` scores 0 and flags whatever its signals: nothing found, no key facts."""
    return answer.no_data_found or not answer.key_facts


def carried(examples: Sequence[Example]) -> tuple[np.ndarray, np.ndarray]:
    """(scores, flagged) as the answers carry them: the model of the code that answered."""
    scores = np.asarray([e.answer.confidence.score if e.answer.confidence else 0.0 for e in examples])
    flagged = np.asarray([e.answer.no_data_found or e.answer.outcome == "not_in_documents" for e in examples])
    return scores, flagged


def by_model(examples: Sequence[Example], model: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """(scores, flagged) by a model file's weights and cut, the signals read as `fit_confidence.stacked` reads them."""
    x = fit_confidence.stacked(examples)[0]
    weights = np.asarray([float(model["coefficients"].get(name, 0.0)) for name in fit_confidence.SIGNALS])
    empties = np.asarray([empty(e.answer) for e in examples], dtype=np.bool_)
    scores = np.where(empties, 0.0, np.round(fit_confidence.probability(float(model["intercept"]), weights, x), 3))
    return scores, empties | (scores < float(model["threshold"]))


def left_out(examples: Sequence[Example], drop: Sequence[str] = ()) -> tuple[np.ndarray, np.ndarray, float]:
    """(scores, flagged, cut): each answer's probability from a fit without its question, on the signals but `drop`,
    and the recipe's cut over them (`fit_confidence.threshold`)."""
    x, y, _, groups, ids = fit_confidence.stacked(examples)
    keep = [i for i, name in enumerate(fit_confidence.SIGNALS) if name not in drop]
    held = fit_confidence.cross_validated(x[:, keep], y, ids)
    cut = fit_confidence.threshold(held, y, groups)
    empties = np.asarray([empty(e.answer) for e in examples], dtype=np.bool_)
    scores = np.where(empties, 0.0, held)
    return scores, empties | (scores < cut), cut


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("tune", "held"))
    parser.add_argument("--answers", type=Path, default=None, help="saved demo answers (fit_confidence.py --answers)")
    parser.add_argument("--split", default=None, help=f"their split (tune: {fit_confidence.TUNING}; held: test5+test6)")
    parser.add_argument("--with", dest="runs", type=Path, action="append", default=[], help="a saved HotpotQA run")
    parser.add_argument("--modes", default="local,drift,global")
    parser.add_argument("--drop", default="", help="tune: signals left out of the refit, comma-separated")
    parser.add_argument("--model", type=Path, default=None, help="held: a model file (else the answers' own scores)")
    args = parser.parse_args()
    tuning = args.what == "tune"
    split = args.split or (fit_confidence.TUNING if tuning else "test5+test6")
    modes: list[Mode] = args.modes.split(",")
    examples = fit_confidence.collect(split, modes, args.answers) if args.answers else []
    examples += [e for run in args.runs for e in fit_confidence.collect_run(run, "tune" if tuning else "test")]
    if tuning:
        scores, flagged, cut = left_out(examples, [d for d in args.drop.split(",") if d])
        title = f"left out, cut {cut:.4f}" + (f", without {args.drop}" if args.drop else "")
    elif args.model is None:
        (scores, flagged), title = carried(examples), "as the answers carry it"
    else:
        model = json.loads(args.model.read_text(encoding="utf-8"))
        (scores, flagged), title = by_model(examples, model), f"by {args.model}"
    print_table(f"confidence of saved answers, {title}", HEADERS, rows(examples, scores, flagged))


if __name__ == "__main__":
    main()
