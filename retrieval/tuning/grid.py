"""A grid of retrieval settings measured against a labelled question set: Recall@k, all-gold@k and MRR.

Why it is cheap enough to run from a page: each question is embedded once for the whole grid; settings that
differ only in top-k share one ranking (it is fetched once, deep enough for the largest k, and cut); and every
labelled passage is located in the graph once per run (`retrieval.search.passages`).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from retrieval.context import Context
from retrieval.errors import ConfigError
from retrieval.models import Hit, QueryParams
from retrieval.search.passages import locate, project_chunks
from retrieval.search.ranking import retrieve
from retrieval.tuning.question_sets import Question, QuestionSet

#: Grid axes a person can name, with how a typed value is read.
AXES: dict[str, Callable[[str], Any]] = {
    "alpha": float,
    "max_hops": int,
    "top_k": int,
    "fusion": str,
    "search_type": str,
    "max_nodes": int,
}
ALIASES = {"hops": "max_hops", "k": "top_k", "topk": "top_k"}
#: Chunks fetched per ranking at the least: enough to fill 10 distinct passages when passages were split
#: (the evaluation harness's depth, so the two agree).
MIN_FETCH = 20
Progress = Callable[[int, int, str], None]


def parse_grid(specs: Sequence[str]) -> dict[str, list[Any]]:
    """`["alpha=0.3,0.5", "hops=0,1"]` -> `{"alpha": [0.3, 0.5], "max_hops": [0, 1]}`; one clear error otherwise."""
    grid: dict[str, list[Any]] = {}
    for spec in specs:
        name, _, values = spec.partition("=")
        axis = ALIASES.get(name.strip().lower(), name.strip().lower())
        if axis not in AXES or not values.strip():
            raise ConfigError(f"grid axis {spec!r}: write NAME=v1,v2 with NAME one of {', '.join(AXES)} (or hops, k)")
        try:
            grid[axis] = [AXES[axis](v.strip()) for v in values.split(",") if v.strip()]
        except ValueError as exc:
            raise ConfigError(f"grid axis {spec!r}: {exc}") from exc
    return grid


def expand_grid(grid: Mapping[str, Sequence[Any]]) -> list[dict[str, Any]]:
    axes = list(grid)
    return [dict(zip(axes, values, strict=True)) for values in itertools.product(*(grid[a] for a in axes))]


def label(setting: Mapping[str, Any]) -> str:
    short = {"max_hops": "hops", "top_k": "k"}
    return " ".join(f"{short.get(k, k)}={v}" for k, v in setting.items())


@dataclass
class QuestionOutcome:
    """One question under one setting: the labelled passages it found and where the first relevant one ranked."""

    question_id: str
    found: list[str]  # relevant passage keys within the top k
    recall: float
    all_gold: bool
    reciprocal_rank: float


@dataclass
class SettingResult:
    setting: dict[str, Any]
    outcomes: list[QuestionOutcome]
    ms_per_question: float
    #: The knobs as they were when the run started (the sidebar's values): what a better setting is compared to.
    current: bool = False

    @property
    def label(self) -> str:
        return label(self.setting)

    def mean(self, metric: str, ids: set[str] | None = None) -> float:
        rows = [o for o in self.outcomes if ids is None or o.question_id in ids]
        if not rows:
            return 0.0
        values = {"recall": [o.recall for o in rows], "all_gold": [float(o.all_gold) for o in rows],
                  "mrr": [o.reciprocal_rank for o in rows]}[metric]  # fmt: skip
        return sum(values) / len(values)

    def per_question(self, metric: str) -> dict[str, float]:
        pick: dict[str, Callable[[QuestionOutcome], float]] = {
            "recall": lambda o: o.recall, "all_gold": lambda o: float(o.all_gold), "mrr": lambda o: o.reciprocal_rank,
        }  # fmt: skip
        return {o.question_id: pick[metric](o) for o in self.outcomes}


@dataclass
class GridRun:
    question_set: str
    results: list[SettingResult]
    questions: int
    unlocated: int  # labelled passages found in no chunk of this graph
    seconds: float
    notes: list[str] = field(default_factory=list)


def units(hits: Sequence[Hit], gold_of: Mapping[str, str], by_document: bool) -> list[str]:
    """The ranking as counted: a chunk holding a labelled passage counts as that passage; other chunks count
    per document (passage sets) or per chunk (chunk sets); each unit once, at its best rank."""
    ranked = (gold_of.get(h.id) or (f"doc:{h.document_id}" if by_document else f"chunk:{h.id}") for h in hits)
    return list(dict.fromkeys(ranked))


def outcome(question: Question, ranked: Sequence[str], k: int) -> QuestionOutcome:
    top = ranked[:k]
    found = [key for key in top if key in question.gold]
    first = next((i for i, key in enumerate(ranked) if key in question.gold), None)
    return QuestionOutcome(
        question.id,
        found,
        len(found) / len(question.gold),
        set(found) == set(question.gold),
        0.0 if first is None else 1.0 / (first + 1),
    )


def run_grid(
    ctx: Context,
    question_set: QuestionSet,
    grid: Mapping[str, Sequence[Any]],
    *,
    base: QueryParams | None = None,
    on_progress: Progress | None = None,
) -> GridRun:
    """Measure every setting of `grid` (over `base`, the current knobs) on the set's labelled questions."""
    started = time.perf_counter()
    questions = question_set.labelled
    base = base or QueryParams.from_settings(ctx.settings)
    base = base.model_copy(update={"filters": {}})
    settings = expand_grid(grid) or [{}]
    current = {axis: getattr(base, axis) for axis in grid}
    if current not in settings:
        settings.append(current)
    located = locate({key: f"{p.title}\n\n{p.text}" for key, p in question_set.passages.items()}, project_chunks(ctx))
    gold_of = {chunk_id: key for key, chunk_ids in located.items() for chunk_id in chunk_ids}
    wanted = {key for q in questions for key in q.gold}
    unlocated = sum(1 for key in wanted if not located.get(key))
    vectors = ctx.embedder.embed([q.text for q in questions]) if questions else None
    by_ranking: dict[tuple[tuple[str, Any], ...], list[dict[str, Any]]] = {}
    for setting in settings:
        ranking_key = tuple(sorted((k, v) for k, v in setting.items() if k != "top_k"))
        by_ranking.setdefault(ranking_key, []).append(setting)
    results = {label(s): SettingResult(s, [], 0.0, current=s == current) for s in settings}
    total, done = len(questions) * len(by_ranking), 0
    for ranking_key, members in by_ranking.items():
        deepest = max(int(s.get("top_k", base.top_k)) for s in members)
        params = base.model_copy(update={**dict(ranking_key), "top_k": max(MIN_FETCH, 2 * deepest)})
        params = QueryParams.model_validate(params.model_dump())  # validates the grid's values (ranges, names)
        ranking_started = time.perf_counter()
        for i, question in enumerate(questions):
            vector = vectors[i].tolist() if vectors is not None else None
            hits = retrieve(ctx, question.text, params, query_vector=vector, walk=False).chunks
            ranked = units(hits, gold_of, question_set.unit == "passage")
            for s in members:
                results[label(s)].outcomes.append(outcome(question, ranked, int(s.get("top_k", base.top_k))))
            done += 1
            if on_progress:
                on_progress(done, total, label(dict(ranking_key)))
        per_question = (time.perf_counter() - ranking_started) * 1000 / max(1, len(questions))
        for s in members:
            results[label(s)].ms_per_question = per_question
    notes = []
    if unlocated:
        notes.append(f"{unlocated} labelled passages are in no chunk of this graph (re-indexed or another graph?)")
    return GridRun(question_set.name, list(results.values()), len(questions), unlocated,
                   time.perf_counter() - started, notes)  # fmt: skip
