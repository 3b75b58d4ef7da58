"""Confidence on a dev set with honest unanswerable questions: MuSiQue questions asked of the HotpotQA graph.

Why MuSiQue: its questions are real multi-hop questions about Wikipedia, written by other people, so they sound
like the answerable ones; asked of a graph built from HotpotQA passages they have no answer there. A question is
dropped when it might: when its gold answer or an alias (SQuAD-normalised) occurs in any pooled HotpotQA passage.
The answerable questions are the set's own; "correct" means the key facts contain the gold answer.

Two halves (`PARTS`): the questions at even places of each list (answerable, unanswerable) are `tune`, those at odd
places `test`. `benchmarks/fit_confidence.py --with` fits on a saved `tune` run beside the demo set's dev split, so
the `test` half is the held-out figure on this corpus.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks._table import print_table
from benchmarks.answer_metrics import (
    CONFIDENCE_HEADERS,
    NOT_IN_DOCUMENTS,
    RELIABILITY_HEADERS,
    Judged,
    answer_scores,
    confidence,
    confidence_cells,
    confidence_figures,
    normalise,
    outcome,
    reliability_rows,
)
from benchmarks.answer_runs import Reply, methods, run_all
from benchmarks.eval_data import EvalSet
from retrieval.config import Settings
from retrieval.embed import make_embedder
from retrieval.engine import Engine
from retrieval.store import GraphStore

#: Which questions a run asks: every one, or one half (even or odd places of each list).
PARTS = ("all", "tune", "test")


def half(index: int) -> str:
    """The half the question at `index` of its list (answerable or unanswerable) belongs to."""
    return "tune" if index % 2 == 0 else "test"


def _aliases(row: dict[str, Any]) -> list[str]:
    raw = row.get("answer_aliases") or []
    if isinstance(raw, str):  # the HippoRAG export stores some lists as their Python repr
        raw = ast.literal_eval(raw) if raw.strip().startswith("[") else [raw]
    return [str(a) for a in [row.get("answer"), *raw] if a]


def unanswerable_questions(musique: Path, data: EvalSet) -> tuple[list[tuple[str, str]], int]:
    """(id, question) of the MuSiQue questions whose answer is in no passage of `data`, and how many were dropped."""
    rows = json.loads(musique.read_text(encoding="utf-8"))
    corpus = " " + " ".join(normalise(f"{p.title} {p.text}") for p in data.passages.values()) + " "
    kept, dropped = [], 0
    for row in rows:
        golds = [normalise(a) for a in _aliases(row)]
        if any(g and f" {g} " in corpus for g in golds):
            dropped += 1
            continue
        kept.append((f"musique:{row['id']}", str(row["question"])))
    return kept, dropped


def evaluate_confidence(
    data: EvalSet,
    golds: dict[str, list[str]],
    musique: Path,
    graph: tuple[GraphStore, Settings],
    *,
    modes: Sequence[str],
    limit: int | None = None,
    part: str = "all",
    saved: Path | None = None,
) -> None:
    """Answer the set's questions and the kept MuSiQue ones with each mode (the chosen `part`); print the confidence
    figures. With `saved`, every answer is written there (JSON lines) for `fit_confidence.py --with`."""
    store, settings = graph
    answerable = [(q.id, q.text) for q in data.questions if golds.get(q.id)][:limit]
    unanswerable, dropped = unanswerable_questions(musique, data)
    unanswerable = unanswerable[:limit]
    halves = {qid: half(i) for group in (answerable, unanswerable) for i, (qid, _) in enumerate(group)}
    answerable = [q for q in answerable if part in ("all", halves[q[0]])]
    unanswerable = [q for q in unanswerable if part in ("all", halves[q[0]])]
    engine = Engine(settings, store=store, embedder=make_embedder(settings), llm=None)
    title = (
        f"{data.name} + MuSiQue train questions asked of it ({dropped} dropped: answer string in a passage), "
        f"part {part}: confidence, no model"
    )
    kept: list[str] = []
    try:  # each method's table as soon as it is done: a long run that is stopped still reports what it measured
        for name, method in methods(engine, [m for m in modes if m != "baseline"]).items():
            replies = run_all(f"{data.name} {name}", method, answerable + unanswerable)
            judged, contains = [], 0.0
            for qid, reply in replies.items():
                ok = qid in golds and answer_scores("\n".join(reply.facts), golds[qid])[0] > 0
                contains += ok
                answer = reply.answer
                assert answer is not None
                judged.append(Judged(qid in golds, ok, outcome(answer) == NOT_IN_DOCUMENTS, confidence(answer)))
                kept.append(_saved_row(qid, halves[qid], qid in golds, ok, reply))
            fig = confidence_figures(judged)
            ms = sum(r.ms for r in replies.values()) / max(len(replies), 1)
            n = f"{len(answerable)}+{len(unanswerable)}"
            row = [name, n, f"{contains / max(len(answerable), 1):.3f}", *confidence_cells(fig), f"{ms:.0f}"]
            print_table(title, ["method", "n (ans+unans)", "contains", *CONFIDENCE_HEADERS, "ms/q"], [row])
            print_table(f"reliability, {name} (answered outcomes)", RELIABILITY_HEADERS, reliability_rows(fig))
    finally:
        engine.close()
        if saved is not None:
            saved.write_text("".join(line + "\n" for line in kept), encoding="utf-8")


def _saved_row(qid: str, half: str, answerable: bool, correct: bool, reply: Reply) -> str:
    """One answer as `fit_confidence.py --with` reads it: the whole answer, its half, whether it could be and was
    right."""
    assert reply.answer is not None
    answer = reply.answer.model_dump(mode="json")
    row = {"id": qid, "part": half, "answerable": answerable, "correct": correct, "answer": answer}
    return json.dumps(row, ensure_ascii=False)
