"""The kind of thing a question asks for, and whether a sentence names one (`retrieval/search/answer_type.py`)."""

from __future__ import annotations

import pytest

from retrieval.search import answer_type
from retrieval.search.answer_type import DATE, NUMBER, ORGANISATION, PERSON, PLACE


@pytest.mark.parametrize(
    ("question", "kinds"),
    [
        ("Who wrote the novel?", PERSON),
        ("Whose idea was it?", PERSON),
        ("When did the bridge open?", DATE),
        ("Where did she grow up?", PLACE | ORGANISATION),
        ("How many moons does Jupiter have?", NUMBER | DATE),
        ("Which company bought the studio?", ORGANISATION),
        ("Which game company sent him a check?", ORGANISATION),  # the noun after the next one
        ("What year did the war end?", DATE),
        ("Which guests founded the school?", PERSON),
        ("What did the captain say about the storm?", frozenset()),
        ("Why did he leave?", frozenset()),
    ],
)
def test_the_wh_word_and_its_noun_decide_the_type_asked_for(question: str, kinds: frozenset[str]) -> None:
    assert answer_type.expected(question) == kinds


def test_a_sentence_names_the_type_asked_for_but_not_the_question_s_own_names() -> None:
    question = "Where did Ada Lovelace grow up?"
    assert answer_type.naming_expected(
        ["Ada Lovelace grew up in London with her mother.", "She always loved mathematics and machines."], question
    ) == [True, False]
    who = "Who taught Ada Lovelace mathematics?"
    assert answer_type.naming_expected(
        ["Ada Lovelace loved mathematics.", "Augustus De Morgan taught her mathematics."], who
    ) == [False, True]  # the asked-about person alone does not answer "Who ...?"


def test_every_text_is_typed_when_no_type_is_asked_else_those_naming_one() -> None:
    assert answer_type.typed(["It rained all day."], "What did the captain say about the storm?") == [True]
    facts = ["It rained all day.", "The storm hit Galveston, Texas."]
    assert answer_type.typed(facts, "Where did the storm hit?") == [False, True]
