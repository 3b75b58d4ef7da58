"""A grid run as a table and a verdict: the same summary for the Tuning page, the CLI and `--json`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from retrieval.tuning.grid import GridRun, SettingResult
from retrieval.tuning.stats import Difference, best, paired_difference, split

METRICS = ("recall", "all_gold", "mrr")
METRIC_NAMES = {"recall": "Recall@k", "all_gold": "all-gold@k", "mrr": "MRR"}


@dataclass(frozen=True)
class Summary:
    run: GridRun
    metric: str
    train: set[str]
    test: set[str]
    best: SettingResult  # picked on the train part
    current: SettingResult | None
    difference: Difference | None  # best - current on the test part

    def rows(self) -> list[dict[str, Any]]:
        out = []
        for r in self.run.results:
            row: dict[str, Any] = {"setting": r.label, **r.setting, "current": r.current, "best": r is self.best}
            for m in METRICS:
                row[m] = round(r.mean(m), 4)
            row[f"{self.metric}_train"] = round(r.mean(self.metric, self.train), 4)
            row[f"{self.metric}_test"] = round(r.mean(self.metric, self.test), 4)
            row["ms_per_question"] = round(r.ms_per_question, 1)
            out.append(row)
        return out

    def verdict(self) -> str:
        name = METRIC_NAMES[self.metric]
        head = (
            f"Best on the train part ({len(self.train)} questions): {self.best.label} — {name} "
            f"{self.best.mean(self.metric, self.train):.3f} train, {self.best.mean(self.metric, self.test):.3f} test."
        )
        if self.current is None or self.difference is None:
            return head
        if self.current is self.best:
            return head + " That is the current setting."
        return f"{head} Against the current setting ({self.current.label}) on the test part: " + (
            self.difference.describe(name)
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "question_set": self.run.question_set,
            "questions": self.run.questions,
            "train": len(self.train),
            "test": len(self.test),
            "metric": self.metric,
            "seconds": round(self.run.seconds, 2),
            "best": self.best.label,
            "current": self.current.label if self.current else None,
            "difference": None if self.difference is None else vars(self.difference),
            "verdict": self.verdict(),
            "notes": self.run.notes,
            "rows": self.rows(),
        }


def summarise(run: GridRun, metric: str = "recall") -> Summary:
    ids = sorted({o.question_id for r in run.results for o in r.outcomes})
    train, test = split(ids)
    if not train or not test:  # a tiny set: pick and report on all of it, and say so through the interval
        train = test = set(ids)
    winner = best(run.results, metric, train)
    current = next((r for r in run.results if r.current), None)
    difference = paired_difference(winner.per_question(metric), current.per_question(metric), test) if current else None
    return Summary(run, metric, train, test, winner, current, difference)
