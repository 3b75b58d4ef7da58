"""AppTest checks that a thread stays open and answerable on the Ask page whatever its turns hold, on both backends:
a question of common words only gets one clear message, and a turn that lost its answer shows as damaged.

The same demo graph and app as tests/test_app.py; the thread's memories are changed through the app's own store.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from streamlit.testing.v1 import AppTest

from components.untrusted import inert
from retrieval.conversation.thread import Conversation
from retrieval.text.readable import NOTHING_TO_SEARCH
from tests.app_session import asked, opened, shown_text, started
from tests.conftest import DemoGraph, close_app


@pytest.fixture
def ask_page(demo: DemoGraph, monkeypatch: pytest.MonkeyPatch) -> Iterator[AppTest]:
    yield opened(started(monkeypatch, demo.env), "ask")
    close_app()


def _questions(chat: Conversation) -> list[str]:
    return [t.question for t in chat.turns()]


def test_a_question_of_common_words_is_one_clear_message_and_the_thread_keeps_answering(ask_page: AppTest) -> None:
    app = asked(ask_page, "the")
    assert [i.value for i in app.info] == [inert(NOTHING_TO_SEARCH)]  # untrusted text: drawn escaped
    chat: Conversation = app.session_state["conversation"]
    assert app.query_params["thread"] == chat.thread_id

    asked(app, "Who was Marley?")
    assert _questions(chat) == ["the", "Who was Marley?"]
    assert "answered by: extractive" in shown_text(app)
    app.run()  # the thread read back from the store, as a reload or a reopened link reads it
    assert not app.exception, app.exception
    marley = chat.turns()[1].answers[0]
    assert marley.outcome == "answered" and marley.key_facts and marley.confidence is not None
    # no turn is damaged: the only warning is the answer's own limitation sentence, when its confidence is weak
    assert [w.value for w in app.warning] == [marley.confidence.limitation] * bool(marley.confidence.limitation)


def test_a_turn_that_lost_its_answer_shows_as_damaged_and_the_thread_keeps_answering(ask_page: AppTest) -> None:
    app = asked(ask_page, "Who was Marley?")
    chat: Conversation = app.session_state["conversation"]
    assert chat.memory is not None
    answer = next(r for r in chat.memory.page(chat.scope).items if r.role == "assistant")
    assert chat.memory.delete([answer.id], chat.scope) == 1

    app.run()
    assert not app.exception, app.exception
    assert [w.value for w in app.warning] == [
        "This turn is damaged: its answer was deleted. Later answers no longer use it."
    ]
    asked(app, "What did he wear?")  # a follow-up: the damaged turn no longer feeds it
    assert _questions(chat) == ["Who was Marley?", "What did he wear?"]
    assert chat.turns()[1].meta.context_terms == [] and chat.turns()[1].answers
