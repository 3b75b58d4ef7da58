"""Confidence on a dev set with honest unanswerable questions: MuSiQue questions asked of the HotpotQA graph.

Why MuSiQue: its questions are real multi-hop questions about Wikipedia, written by other people, so they sound
like the answerable ones; asked of a graph built from HotpotQA passages they have no answer there. A question is
dropped when it might: when its gold answer or an alias (SQuAD-normalised) occurs in any pooled HotpotQA passage.
The answerable questions are the set's own.

"Correct" (`is_correct`): the key facts contain the gold answer (SQuAD-normalised), except when the gold answer is
"yes" or "no" (`POLAR`): then the key facts must hold every gold supporting sentence (HotpotQA's
`supporting_facts`), each matched by some key fact as the demo set's hit@5 matches gold evidence
(`answer_metrics.matches`). Why: an extractive answer quotes the documents, and no quote contains "yes" or "no", so
"contains the gold answer" called every such answer wrong however well its facts answered; a signal fitted to that
label learned to flag every yes/no question (branch wt99's `quotable`). The supporting sentences are what a reader
needs to say yes or no. `python benchmarks/unanswerable.py HOTPOT.jsonl SAVED.jsonl...` relabels saved runs by
this rule in place and says how many labels moved.

Two halves (`PARTS`): the questions at even places of each list (answerable, unanswerable) are `tune`, those at odd
places `test`. `benchmarks/fit_confidence.py --with` fits on a saved `tune` run beside the demo set's dev split, so
the `test` half is the held-out figure on this corpus.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

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
    matches,
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
#: Gold answers no quote contains: a question answered so is judged by its supporting sentences.
POLAR = frozenset({"yes", "no"})


@dataclass(frozen=True)
class Gold:
    """What an answerable question's key facts are judged against: the gold answer and its aliases, and the
    supporting sentences (HotpotQA's `supporting_facts`; none for a set without them)."""

    answers: list[str]
    supporting: list[str]


def is_correct(facts: Sequence[str], gold: Gold) -> bool:
    """Whether the key facts answer: they contain the gold answer, or, for a yes/no gold answer, each supporting
    sentence is matched by a key fact (module docstring). A yes/no question without supporting sentences is never
    correct: nothing says what would answer it."""
    if gold.answers and normalise(gold.answers[0]) in POLAR:
        return bool(gold.supporting) and all(any(matches(f, s) for f in facts) for s in gold.supporting)
    return answer_scores("\n".join(facts), gold.answers)[0] > 0


def read_golds(path: Path) -> dict[str, Gold]:
    """Question id -> `Gold` of a HotpotQA (JSON lines or JSON) or MuSiQue file: a supporting fact is (title,
    sentence index) into the row's `context`; an index past its passage (a few HotpotQA rows) is skipped."""
    raw = path.read_text(encoding="utf-8")
    rows = [json.loads(x) for x in raw.splitlines() if x.strip()] if path.suffix == ".jsonl" else json.loads(raw)
    golds = {}
    for row in rows:
        passages = {str(title): sentences for title, sentences in row.get("context") or []}
        supporting = [
            str(passages[title][index]).strip()
            for title, index in row.get("supporting_facts") or []
            if title in passages and 0 <= index < len(passages[title])
        ]
        golds[str(row.get("_id") or row.get("id"))] = Gold(_aliases(row), supporting)
    return golds


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
    golds: dict[str, Gold],
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
    answerable = [(q.id, q.text) for q in data.questions if q.id in golds and golds[q.id].answers][:limit]
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
                ok = qid in golds and is_correct(reply.facts, golds[qid])
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


def relabel(golds: dict[str, Gold], path: Path) -> tuple[int, int, int]:
    """Rewrite each answerable row's `correct` of a saved run by `is_correct`, in place: (rows relabelled, wrong ->
    correct, correct -> wrong)."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    up = down = 0
    for row in rows:
        if row["answerable"]:
            now = is_correct([f["fact"] for f in row["answer"]["key_facts"]], golds[row["id"]])
            up, down = up + (now and not row["correct"]), down + (row["correct"] and not now)
            row["correct"] = now
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    return len(rows), up, down


def main() -> None:
    parser = argparse.ArgumentParser(description="Relabel saved runs (eval_answers.py --dump) by `is_correct`.")
    parser.add_argument("dataset", type=Path, help="the HotpotQA file the run asked")
    parser.add_argument("saved", type=Path, nargs="+", help="saved runs, rewritten in place")
    args = parser.parse_args()
    golds = read_golds(args.dataset)
    for path in args.saved:
        rows, up, down = relabel(golds, path)
        print(f"{path}: {rows} rows, {up} wrong -> correct, {down} correct -> wrong")


if __name__ == "__main__":
    main()
