"""Follow-ups without a model: a referring word is read as the most recent fitting entity; stand-alone questions
are left alone. Pure text rules (the conversation tests run them through a thread on both backends)."""

from __future__ import annotations

import pytest

from retrieval.conversation.followups import entities, is_follow_up, rewrite


def test_she_is_the_latest_person_not_every_earlier_turn() -> None:
    earlier = ["What does Neil deGrasse Tyson say about science literacy?", "Who is Mira Murati?"]
    found = rewrite("and what did she say about DALL-E?", earlier)
    assert found is not None and found.question == "What did Mira Murati say about DALL-E?"
    assert "Tyson" not in found.question and found.read_as == (("she", "Mira Murati"),)


@pytest.mark.parametrize(
    ("earlier", "question", "expected"),
    [
        (["What did Mae Jemison study at Stanford?"], "Which other guests studied there?", "at Stanford"),
        (["What is DALL-E?", "What is ImageNet?"], "When was that completed?", "When was ImageNet completed?"),
        (["Who is Mae Jemison?"], "What is her foundation called?", "What is Mae Jemison's foundation called?"),
        (["What is Google Brain?"], "Who did Andrew Ng convince to join it?", "join Google Brain?"),
        (["What did Lisa Su say about chiplets?", "Who is Mira Murati?"], "What about her time at Tesla?", "Murati's"),
    ],
)
def test_each_word_takes_the_latest_entity_of_its_kind(earlier: list[str], question: str, expected: str) -> None:
    found = rewrite(question, earlier)
    assert found is not None and expected in found.question


@pytest.mark.parametrize(
    "question",
    [
        "What is ImageNet and why did Fei-Fei Li build it?",
        "What does Neil deGrasse Tyson think about science communication and is it valued by academia?",
        "Which guests talk about education, and what do they say?",
        "Is it true that Andrew Ng was born in London?",
        "Why did Sam Altman take a year off and what did he learn from it?",
    ],
)
def test_a_question_that_stands_alone_is_not_a_follow_up(question: str) -> None:
    assert not is_follow_up(question)


@pytest.mark.parametrize("question", ["How many images does it contain?", "Where was he born?", "And in 2019?"])
def test_a_word_without_its_own_antecedent_makes_a_follow_up(question: str) -> None:
    assert is_follow_up(question)


def test_entities_are_people_when_asked_about_or_acting_as_one() -> None:
    assert [(e.name, e.kind) for e in entities("What did Mae Jemison study at Stanford?")] == [
        ("Mae Jemison", "person"),
        ("Stanford", "thing"),
    ]
    assert [(e.name, e.kind) for e in entities("What is The Earth We Share?")] == [("The Earth We Share", "thing")]
    assert [(e.name, e.kind) for e in entities("Who is Neil deGrasse Tyson?")] == [("Neil deGrasse Tyson", "person")]
