"""Answer quality and confidence on the labelled demo-corpus set (benchmarks/data/demo_questions.jsonl).

Per method (the "5 best sentences of the top-5 vector chunks" baseline, local, drift, and global on the cross-
episode and unanswerable questions, the ones a corpus-wide mode is for) and per split (dev: tune on it; test:
report it), with no language model:
- hit@5 and answer-word recall on the answerable questions, filler share of all key facts (definitions in
  benchmarks/answer_metrics.py);
- confidence: AUROC (correct vs missed or unanswerable), share of unanswerable questions answered "not in these
  documents", share of correct ones flagged so, mean confidence by group, and a reliability table.
A report group is one split or several joined by "+" ("test+test2": both held-out parts as one); only the questions
of the groups asked for are answered.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
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
    episode_recall,
    fmt_num,
    fmt_pct,
    hit,
    is_filler,
    outcome,
    reliability_rows,
    words,
)
from benchmarks.answer_runs import Reply, methods, run_all
from benchmarks.demo_graph import demo_episodes, open_demo_graph
from retrieval.embed import make_embedder
from retrieval.engine import Engine

QUESTIONS = Path(__file__).resolve().parent / "data" / "demo_questions.jsonl"
#: test2 .. test5: held-out parts written later, each before the product was run on it (benchmarks/data/README.md);
#: "test+test2" the two read before test3 as one, "test+test2+test3" the three read before test4. test5 is the one
#: to quote since branch wt94, which fitted the confidence on dev through test4.
SPLITS = ("dev", "test", "test2", "test3", "test4", "test5", "test+test2", "test+test2+test3")
#: Global mode is for corpus-wide questions: it is asked the cross-episode and the unanswerable ones only.
GLOBAL_KINDS = {"cross", "unanswerable"}


@dataclass(frozen=True)
class Labelled:
    id: str
    question: str
    kind: str
    answers: list[str]
    evidence: list[str]
    split: str
    episodes: tuple[str, ...] = ()

    @property
    def answerable(self) -> bool:
        return self.kind != "unanswerable"


def read_questions(path: Path = QUESTIONS) -> list[Labelled]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [
        Labelled(
            r["id"],
            r["question"],
            r["kind"],
            [a for a in [r["answer"], *r.get("aliases", [])] if a],
            [e["sentence"] for e in r["evidence"]],
            r["split"],
            tuple(r["episodes"]),
        )
        for r in rows
    ]


@dataclass(frozen=True)
class Scored:
    question: Labelled
    reply: Reply
    hit: bool
    recall: float
    contains: float
    filler: int
    #: Share of the gold episodes the first five facts come from; cross-episode questions only.
    episodes: float | None = None

    @property
    def judged(self) -> Judged:
        answer = self.reply.answer
        return Judged(
            answerable=self.question.answerable,
            correct=self.question.answerable and self.hit,
            flagged=answer is not None and outcome(answer) == NOT_IN_DOCUMENTS,
            score=None if answer is None else confidence(answer),
        )


def score(question: Labelled, reply: Reply, passages: dict[str, list[set[str]]]) -> Scored:
    contains, recall = answer_scores("\n".join(reply.facts), question.answers)
    return Scored(
        question,
        reply,
        hit=question.answerable and hit(reply.facts, question.evidence),
        recall=recall,
        contains=contains,
        filler=sum(is_filler(f) for f in reply.facts),
        episodes=episode_recall(reply.facts, question.episodes, passages) if question.kind == "cross" else None,
    )


def transcript_passages(episodes: Sequence[Path]) -> dict[str, list[set[str]]]:
    """Each episode's sentences as word sets (`answer_metrics.words`), to tell which episode a key fact comes from.
    Split at sentence ends within each line; a speaker label goes with the line's first sentence and is dropped."""
    return {
        path.stem: [
            words(sentence)
            for line in path.read_text(encoding="utf-8").splitlines()
            for sentence in _SENTENCE_END.split(line)
            if sentence.strip()
        ]
        for path in episodes
    }


_SENTENCE_END = re.compile(r"(?<=[.?!])[\"”’)]?\s+")


def quality_row(name: str, split: str, scored: Sequence[Scored]) -> list[Any]:
    answerable = [s for s in scored if s.question.answerable]
    cross = [s.episodes for s in scored if s.episodes is not None]
    facts = sum(len(s.reply.facts) for s in scored)
    fig = confidence_figures([s.judged for s in scored]) if any(s.reply.answer for s in scored) else None
    return [
        name,
        split,
        f"{len(answerable)}+{len(scored) - len(answerable)}",
        fmt_num(sum(s.hit for s in answerable) / len(answerable) if answerable else None),
        fmt_num(sum(s.recall for s in answerable) / len(answerable) if answerable else None),
        fmt_num(sum(cross) / len(cross) if cross else None),
        fmt_pct(sum(s.filler for s in scored) / facts if facts else None),
        *confidence_cells(fig),
        f"{sum(s.reply.ms for s in scored) / max(len(scored), 1):.0f}",
    ]


QUALITY_HEADERS = [
    "method", "split", "n (ans+unans)", "hit@5", "word recall", "ep recall", "filler", *CONFIDENCE_HEADERS, "ms/q"
]  # fmt: skip


def print_reliability(name: str, split: str, scored: Sequence[Scored]) -> None:
    fig = confidence_figures([s.judged for s in scored])
    print_table(f"reliability, {name}, {split} (answered outcomes)", RELIABILITY_HEADERS, reliability_rows(fig))


def same_facts(a: dict[str, Reply], b: dict[str, Reply]) -> int:
    """Questions on which two methods returned exactly the same key facts (DRIFT echoing local, say)."""
    return sum(1 for qid in a if qid in b and a[qid].facts and a[qid].facts == b[qid].facts)


def in_group(question: Labelled, group: str) -> bool:
    """Whether a question belongs to a report group: one split, or several joined by "+"."""
    return question.split in group.split("+")


def evaluate_demo(modes: Sequence[str], splits: Sequence[str] = SPLITS, dump: Path | None = None) -> None:
    questions = [q for q in read_questions() if any(in_group(q, group) for group in splits)]
    store, settings = open_demo_graph()
    engine = Engine(settings, store=store, embedder=make_embedder(settings), llm=None)
    try:
        results: dict[str, dict[str, Reply]] = {}
        for name, method in methods(engine, modes).items():
            asked = [q for q in questions if name != "global" or q.kind in GLOBAL_KINDS]
            results[name] = run_all(f"demo {name}", method, [(q.id, q.question) for q in asked])
    finally:
        engine.close()
    by_id = {q.id: q for q in questions}
    passages = transcript_passages(demo_episodes()) if any(q.kind == "cross" for q in questions) else {}
    rows, scored_by = [], {}
    for name, replies in results.items():
        scored = [score(by_id[qid], reply, passages) for qid, reply in replies.items()]
        scored_by[name] = scored
        for split in splits:
            rows.append(quality_row(name, split, [s for s in scored if in_group(s.question, split)]))
    print_table(
        f"demo set ({len(questions)} questions, {QUESTIONS.name}): answer quality and confidence, no model",
        QUALITY_HEADERS,
        rows,
    )
    for name, scored in scored_by.items():
        if any(s.reply.answer is not None for s in scored):
            for split in splits:
                print_reliability(name, split, [s for s in scored if in_group(s.question, split)])
    if "local" in results and "drift" in results:
        print(
            f"drift returned exactly local's key facts on {same_facts(results['local'], results['drift'])} "
            f"of {len(results['drift'])} questions"
        )
    if dump:
        write_dump(dump, scored_by)


def write_dump(path: Path, scored_by: dict[str, list[Scored]]) -> None:
    """Per question and method: facts, hit, filler flags, outcome, confidence (to read misses one by one)."""
    rows = []
    for name, scored in scored_by.items():
        for s in scored:
            answer = s.reply.answer
            rows.append(
                {
                    "method": name,
                    "id": s.question.id,
                    "split": s.question.split,
                    "kind": s.question.kind,
                    "hit": s.hit,
                    "recall": s.recall,
                    "episode_recall": s.episodes,
                    "facts": [{"fact": f, "filler": is_filler(f)} for f in s.reply.facts],
                    "outcome": None if answer is None else outcome(answer),
                    "confidence": None if answer is None else confidence(answer),
                }
            )
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
