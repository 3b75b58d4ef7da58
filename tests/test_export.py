"""Exports are named after their question, record the settings the answer was made with, and cover a conversation."""

from __future__ import annotations

from components.export import conversation_markdown, file_stem, to_markdown
from retrieval.conversation.thread import EarlierMemory, Turn, TurnMeta
from retrieval.models import Answer, Citation, Confidence, KeyFact, QueryParams


def _answer(mode: str = "local") -> Answer:
    return Answer.model_validate(
        {
            "question": "Who was Marley?",
            "mode": mode,
            "answered_by": "extractive",
            "final_answer": "Scrooge's partner.",
            "key_facts": [
                KeyFact(fact="Marley was dead.", citations=[Citation(chunk_id="c1", span="dead", match=1.0)])
            ],
            "confidence": Confidence(score=0.55, limitation="Confidence is 55%, below 70%: recency is weak (old)."),
            "params": QueryParams(top_k=7, max_nodes=40).model_dump(mode="json"),
        }
    )


def test_a_question_with_an_image_link_exports_as_text() -> None:
    answer = _answer()
    answer.question = "Who? ![x](http://203.0.113.9/a.png)"
    heading = to_markdown(answer).splitlines()[0]
    assert "![x](" not in heading and "`http://203.0.113.9/a.png`" in heading


def test_a_question_title_reads_as_typed() -> None:
    answer = _answer()
    answer.question = "Moore's Law? (and *Dennard* scaling)"
    assert to_markdown(answer).splitlines()[0] == "# Moore's Law? (and \\*Dennard\\* scaling)"


def test_file_names_come_from_the_question() -> None:
    assert file_stem("Who was Marley? ![x](http://h/a.png)", "local") == "who-was-marley-x-http-h-a-png-local"
    assert file_stem("???") == "answer"
    assert len(file_stem("word " * 100)) <= 60


def test_markdown_records_the_settings_the_mode_reads_and_the_confidence() -> None:
    text = to_markdown(_answer())
    assert text.startswith("# Who was Marley?\n")  # the question as text, never markup
    assert "confidence 55%" in text and "> Confidence is 55%, below 70%" in text
    settings = next(line for line in text.splitlines() if line.startswith("*Settings:"))
    assert "top_k=7" in settings and "max_nodes=40" in settings and "drift_rounds" not in settings
    assert "span match 100%" in text
    assert "top_k" not in to_markdown(_answer("global"))


def test_a_conversation_exports_every_turn_with_how_it_was_searched() -> None:
    meta = TurnMeta(
        searched_as="What did he wear? Marley",
        context_terms=["Marley"],
        earlier=[
            EarlierMemory(id="m1", text="Who was Marley?", role="user", thread_id="t", timestamp="2026-11-24T07:00")
        ],
    )
    turns = [
        Turn(id="a", question="Who was Marley?", answers=[_answer()]),
        Turn(id="b", question="What did he wear?", answers=[_answer()], meta=meta, valid=False),
    ]
    text = conversation_markdown(turns)
    assert "## 1. Who was Marley?" in text and "## 2. What did he wear? (invalidated)" in text
    assert "*Searched as: What did he wear? Marley*" in text
    assert "[E1] from earlier (user, 2026-11-24T07:00, `m1`): Who was Marley?" in text
    assert text.count("### Who was Marley?") == 2
