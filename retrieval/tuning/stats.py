"""Guarding a tuning result against over-fitting: a fixed train/test split and a paired bootstrap interval.

Why both: the best of many settings on one set is biased upwards (it was picked for being best), so it is picked
on the train part and reported on the held-out part; and with few questions two settings' difference can be
noise, which the bootstrap interval of the per-question difference shows (it contains 0: too small to tell).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from retrieval.tuning.grid import SettingResult

TEST_SHARE = 0.3
RESAMPLES = 2000


def split(question_ids: Sequence[str], test_share: float = TEST_SHARE) -> tuple[set[str], set[str]]:
    """(train, test) by a hash of each id: stable across runs and across changes to the rest of the set."""
    test = {q for q in question_ids if int(hashlib.sha1(q.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF < test_share}
    return set(question_ids) - test, test


def best(results: Sequence[SettingResult], metric: str, ids: set[str] | None = None) -> SettingResult:
    """The setting with the highest mean `metric` on `ids` (ties: the earlier setting in the grid)."""
    return max(results, key=lambda r: r.mean(metric, ids))


@dataclass(frozen=True)
class Difference:
    """Mean per-question difference a - b with its 95% bootstrap interval."""

    mean: float
    low: float
    high: float
    questions: int

    @property
    def meaningful(self) -> bool:
        return self.questions > 1 and (self.low > 0 or self.high < 0)

    def describe(self, metric: str) -> str:
        if self.questions < 2:
            return "Too few questions to compare settings."
        verdict = "a real difference" if self.meaningful else "too small to tell apart from noise"
        return (
            f"{metric} difference {self.mean:+.3f} (95% interval {self.low:+.3f} to {self.high:+.3f}, "
            f"{self.questions} questions): {verdict}."
        )


def paired_difference(
    a: Mapping[str, float], b: Mapping[str, float], ids: set[str] | None = None, *, seed: int = 0
) -> Difference:
    """Paired bootstrap over questions: resample question ids with replacement, average a - b each time."""
    keys = sorted((set(a) & set(b)) if ids is None else (set(a) & set(b) & ids))
    if not keys:
        return Difference(0.0, 0.0, 0.0, 0)
    diffs = np.array([a[k] - b[k] for k in keys])
    rng = np.random.default_rng(seed)
    means = diffs[rng.integers(0, len(diffs), size=(RESAMPLES, len(diffs)))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return Difference(float(diffs.mean()), float(low), float(high), len(keys))
