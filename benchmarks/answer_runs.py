"""Running questions through the product for the answer benchmarks: each method returns key facts and, for the
product's modes, the whole `Answer` (its confidence and outcome), asked through `Engine.ask` as the app asks.

Why through the Engine: the confidence and the outcome are set there (citation checks, `assess`), so a
benchmark that called the mode functions directly would measure an answer no analyst sees.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from retrieval.context import Context
from retrieval.engine import Engine
from retrieval.models import Answer, Mode, QueryParams
from retrieval.search.evidence import sentences
from retrieval.search.hybrid import search_chunks

BASELINE = "baseline (top-5 vector chunks)"
BASELINE_CHUNKS = 5
BASELINE_SENTENCES = 5


@dataclass(frozen=True)
class Reply:
    """One method's reply to one question: the key facts in order, and the product's answer when there is one."""

    facts: list[str]
    answer: Answer | None = None
    ms: float = 0.0


Method = Callable[[str], Reply]


def baseline_facts(ctx: Context, question: str) -> list[str]:
    """The plain baseline: the 5 sentences of the top-5 vector chunks closest (cosine) to the question."""
    params = QueryParams.from_settings(ctx.settings, filters={})
    params = params.model_copy(update={"search_type": "vector", "top_k": BASELINE_CHUNKS})
    vector = ctx.embedder.embed_query(question)
    hits = search_chunks(ctx, question, params, query_vector=vector)[:BASELINE_CHUNKS]
    pool = list(dict.fromkeys(s for h in hits for s in sentences(h.text)))
    if not pool:
        return []
    similarity = ctx.embedder.embed(pool) @ np.asarray(vector)
    best = sorted(range(len(pool)), key=lambda i: -float(similarity[i]))[:BASELINE_SENTENCES]
    return [pool[i] for i in best]


def methods(engine: Engine, modes: Sequence[str]) -> dict[str, Method]:
    """The chosen methods by display name: `baseline` and any product mode (local, drift, global)."""
    ctx = engine.context()

    def baseline(question: str) -> Reply:
        started = time.perf_counter()
        facts = baseline_facts(ctx, question)
        return Reply(facts, None, (time.perf_counter() - started) * 1000)

    def mode(name: Mode) -> Method:
        def run(question: str) -> Reply:
            started = time.perf_counter()
            answer = engine.ask(question, name)
            return Reply([f.fact for f in answer.key_facts], answer, (time.perf_counter() - started) * 1000)

        return run

    chosen: dict[str, Method] = {}
    for name in modes:
        if name == "baseline":
            chosen[BASELINE] = baseline
        else:
            chosen[name] = mode(name)  # type: ignore[arg-type]
    return chosen


def run_all(label: str, method: Method, questions: Sequence[tuple[str, str]]) -> dict[str, Reply]:
    """Question id -> reply, with a progress line per tenth on stderr."""
    replies: dict[str, Reply] = {}
    step = max(1, len(questions) // 10)
    for n, (qid, text) in enumerate(questions, 1):
        replies[qid] = method(text)
        if n % step == 0 or n == len(questions):
            print(f"  {label}: {n}/{len(questions)}", file=sys.stderr, flush=True)
    return replies
