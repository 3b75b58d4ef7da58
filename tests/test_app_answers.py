"""What an analyst reads in the app (AppTest, the shared demo graph on both backends): a question the documents do
not answer reads "not in these documents", and a suggested corpus-wide question runs in global mode."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from streamlit.testing.v1 import AppTest

from tests.app_session import asked, opened, shown_text, started
from tests.conftest import DemoGraph, close_app


@pytest.fixture
def app(demo: DemoGraph, monkeypatch: pytest.MonkeyPatch) -> Iterator[AppTest]:
    yield started(monkeypatch, demo.env)
    close_app()  # the app closes its graph with the test, and leaves no script as __main__


def test_a_suggested_corpus_wide_question_runs_in_global_mode(app: AppTest) -> None:
    opened(app, "ask")
    suggestion = app.button(key="suggest-0")
    assert "Global" in suggestion.help  # the first suggestions are corpus-wide questions
    suggestion.click().run()
    app.run()  # the pending question is asked on the rerun the click asked for
    assert not app.exception, app.exception
    answer = app.session_state["conversation"].turns()[0].answers[0]
    assert answer.mode == "global" and app.selectbox(key="mode").value == "local"  # the sidebar is not changed


def test_a_question_the_documents_do_not_answer_reads_not_in_these_documents(app: AppTest) -> None:
    opened(app, "ask")
    asked(app, "What is the capital of Australia?")
    answer = app.session_state["conversation"].turns()[0].answers[0]
    assert answer.outcome == "not_in_documents"
    text = shown_text(app)
    assert ":red-badge[not in these documents]" in text and "Not in these documents" in text
    assert "**Key facts**" not in text  # what was found is shown as the nearest material, not as the answer
