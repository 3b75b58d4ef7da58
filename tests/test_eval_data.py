"""The evaluation harness skips dataset items that carry no passages and says how many, instead of crashing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.eval_data import read_set
from benchmarks.eval_retrieval import evaluate

HOTPOT_ITEM = {
    "_id": "q1",
    "question": "Who drummed for Rush?",
    "supporting_facts": [["Neil Peart", 0]],
    "context": [["Neil Peart", ["Neil Peart was the drummer of Rush."]], ["Toto", ["Toto is a rock band."]]],
}


def test_items_without_passages_are_skipped_and_counted(tmp_path: Path) -> None:
    rows = [
        HOTPOT_ITEM,
        {"_id": "q2", "question": "No context key at all?"},
        {"_id": "q3", "question": "Empty context?", "supporting_facts": [], "context": []},
        {"_id": "q4", "question": "Passages but no gold?", "supporting_facts": [], "context": [["Toto", ["Toto."]]]},
    ]
    hotpot = tmp_path / "hotpot.jsonl"
    hotpot.write_text("\n".join(json.dumps(row) for row in rows), encoding="utf-8")
    data = read_set(hotpot)
    assert [q.id for q in data.questions] == ["q1", "q4"] and data.skipped_no_passages == 2
    assert data.header(1) == (
        "hotpot: 1 questions, 3 pooled passages; skipped 2 without passages, 1 without a supporting passage"
    )

    musique = tmp_path / "musique.json"
    musique.write_text(json.dumps([{"id": "m1", "question": "?", "paragraphs": []}, {"id": "m2", "question": "?"}]))
    assert read_set(musique).skipped_no_passages == 2


def test_a_set_with_nothing_to_evaluate_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text(json.dumps({"_id": "q", "question": "?"}), encoding="utf-8")
    evaluate(read_set(empty), None)
    assert "empty: 0 questions, 0 pooled passages; skipped 1 without passages" in capsys.readouterr().out
