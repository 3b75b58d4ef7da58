"""Signals for questions asked across documents (retrieval/judge/across.py through `answerability.signals`)."""

from __future__ import annotations

import pytest

from retrieval.judge import answerability
from retrieval.judge.across import many_asked, without_many
from retrieval.models import Answer, Citation, KeyFact


def _answer(question: str, facts: list[tuple[str, str]]) -> Answer:
    """An extractive answer whose key facts are (quote, document) pairs."""
    answer = Answer(question=question, mode="global", answered_by="extractive")
    answer.key_facts = [
        KeyFact(fact=text, citations=[Citation(chunk_id=f"c{i}", span=text, document_name=doc)])
        for i, (text, doc) in enumerate(facts)
    ]
    return answer


@pytest.mark.parametrize(
    ("question", "many"),
    [
        ("Which guests went to Stanford?", ["guests"]),
        ("What do the guests say about robots?", ["guests"]),
        ("How do people see fears about AI?", ["people"]),
        ("What did Bill Gates say about Netflix?", []),  # a name, and one speaker
        ("Which company did Lisa Su join?", []),  # one thing asked for
        ("How does Kevin Scott see AI?", []),
        ("What is the capital of Australia?", []),
    ],
)
def test_the_plural_a_question_asks_across_is_found_by_grammar(question: str, many: list[str]) -> None:
    assert many_asked(question) == many


def test_the_words_naming_the_many_are_set_aside_unless_nothing_else_is_left() -> None:
    assert without_many("What do guests say about robots?", ["guests", "robots"]) == ["robots"]
    assert without_many("Which guests?", ["guests"]) == ["guests"]


def test_coverage_across_documents_does_not_ask_the_facts_to_say_guests() -> None:
    """Before, "guests" was a topic word no quote states, and the facts' words were pooled over documents."""
    answer = _answer(
        "What do the guests say about robots?",
        [("Robots will take over the boring work.", "a.txt"), ("I built robots as a kid.", "b.txt")],
    )
    assert answerability.signals(answer)["coverage"] == 1.0
    one_silent = _answer(
        "What do the guests say about robots and jobs?",
        [("Robots will take jobs.", "a.txt"), ("I grew up in Taipei.", "b.txt")],
    )
    assert answerability.signals(one_silent)["coverage"] == pytest.approx(1 / 2)  # b.txt states neither


def test_focus_does_not_penalise_facts_that_agree_across_documents() -> None:
    facts = [
        ("Robots will take over the boring work.", "a.txt"),
        ("Robots are coming to factories.", "b.txt"),
        ("My favourite robots are small.", "c.txt"),
        ("I grew up in Taipei.", "d.txt"),
    ]
    across = answerability.signals(_answer("What do guests say about robots?", facts))
    assert across["focus"] == pytest.approx(3 / 4)  # three facts agree on robots across documents
    single = answerability.signals(_answer("What does Ada say about robots?", facts))
    assert single["focus"] == pytest.approx(1 / 4)  # one question, one place it is said: scattered facts stay low
