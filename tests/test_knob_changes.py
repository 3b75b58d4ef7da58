"""The knob-change line compares which passages and entities were cited, not how many; suggested questions run in
the mode that fits them. Pure functions over hand-made answers (the app tests click through the same paths)."""

from __future__ import annotations

import pytest

from retrieval.conversation.question_kind import fitting_mode
from retrieval.models import Answer, Citation, Hit, KeyFact, TraceStep
from retrieval.modes.knobs import changes


def _answer(alpha: float, cited: list[str], seeds: list[str]) -> Answer:
    return Answer(
        question="What did Lisa Su say about chiplets?",
        mode="local",
        answered_by="extractive",
        key_facts=[KeyFact(fact=f"fact {c}", citations=[Citation(chunk_id=c, span="x")]) for c in cited],
        evidence=[Hit(id=c) for c in ["a", "b", "c", "d"]],
        trace=[TraceStep(id="search", kind="search", details={"seed_entities": seeds})],
        params={"alpha": alpha},
    )


def test_the_same_count_of_other_passages_is_a_change() -> None:
    line = changes(_answer(0.6, ["a", "b"], ["Lisa Su"]), _answer(0.0, ["c", "d"], ["Lisa Su", "AMD"]))
    assert line == (
        "Since the previous local answer: alpha 0.6 → 0.0 — cited passages: 2 new, 2 no longer; entities: 1 new."
    )


def test_the_same_passages_and_entities_say_so() -> None:
    line = changes(_answer(0.6, ["a"], ["Lisa Su"]), _answer(0.5, ["a"], ["Lisa Su"]))
    assert line.endswith("— the same passages and entities were cited.")


@pytest.mark.parametrize(
    ("question", "mode"),
    [
        ("What recurring topics do tech leaders emphasize in their discussions?", "global"),
        ("Which guests speak the most about educational technology?", "global"),
        ("What did Lisa Su say about chiplets?", "local"),
        ("What do guests say about Fei-Fei Li?", "local"),  # a named person: local search finds her
    ],
)
def test_a_question_runs_in_the_mode_that_fits_it(question: str, mode: str) -> None:
    assert fitting_mode(question) == mode
