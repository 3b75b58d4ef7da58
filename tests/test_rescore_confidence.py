"""Saved answers scored again without asking (benchmarks/rescore_confidence.py): the held-out half of a saved run,
scored by the confidence it carries or by a model file, with the figures counted per group."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from benchmarks import fit_confidence, rescore_confidence
from benchmarks.fit_confidence import Example
from retrieval.judge import answerability
from retrieval.models import Answer, Confidence, KeyFact


def _answer(i: int, score: float, flagged: bool, facts: bool = True) -> Answer:
    answer = Answer(question=f"Who founded the company number {i}?", mode="local", answered_by="extractive")
    answer.key_facts = [KeyFact(fact=f"Ada founded company number {i}.")] if facts else []
    answer.confidence = Confidence(score=score)
    answer.outcome = "not_in_documents" if flagged else "answered"
    return answer


def test_the_test_half_of_a_saved_run_is_read_with_the_confidence_it_carries(tmp_path: Path) -> None:
    """`held` reads the run's test half only (the tune half is what the model was fitted on), and scores it as the
    answering code did."""
    rows = [
        ("tune", True, True, _answer(0, 0.9, False)),
        ("test", True, True, _answer(1, 0.8, False)),
        ("test", True, True, _answer(2, 0.3, True)),
        ("test", False, False, _answer(3, 0.2, True)),
    ]
    run = tmp_path / "hotpot.jsonl"
    lines = [
        json.dumps({"id": f"q{i}", "part": part, "answerable": a, "correct": c, "answer": answer.model_dump()})
        for i, (part, a, c, answer) in enumerate(rows)
    ]
    run.write_text("\n".join(lines) + "\n", encoding="utf-8")
    examples = fit_confidence.collect_run(run, "test")
    assert [e.qid for e in examples] == ["hotpot:q1", "hotpot:q2", "hotpot:q3"]
    scores, flagged = rescore_confidence.carried(examples)
    assert scores.tolist() == [0.8, 0.3, 0.2] and flagged.tolist() == [False, True, True]
    table = rescore_confidence.rows(examples, scores, flagged)
    assert table == [["local (hotpot)", "1.000", "1/1", "1/2"]]  # flagged, 0.3 still outranks the flagged 0.2


def test_a_model_file_rescores_and_an_answer_without_facts_is_flagged_whatever_its_signals() -> None:
    """`--model`: the file's weights and cut, over the signals as the fit reads them; an answer with no key facts
    scores 0 and is flagged, as `answerability.decide` does."""
    examples = [
        Example(_answer(0, 0.9, False), 1.0, False, "local", "a"),
        Example(_answer(1, 0.9, False, facts=False), 0.0, False, "local", "b"),
    ]
    model = {**answerability.fitted(), "intercept": 30.0, "threshold": 0.5}  # every answer with facts scores ~1
    scores, flagged = rescore_confidence.by_model(examples, model)
    assert scores.tolist() == [1.0, 0.0] and flagged.tolist() == [False, True]
    assert isinstance(flagged, np.ndarray)
