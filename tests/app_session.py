"""The Streamlit app under AppTest, as the app tests drive it (test_app.py, test_app_answers.py,
test_app_threads.py): started with an environment, switched to a page, asked a question, and read as text."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from components.sidebar import TUNING_PANEL
from tests.conftest import close_app

APP = str(Path(__file__).resolve().parents[1] / "app.py")
TIMEOUT = 120


def started(monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> AppTest:
    """The app started afresh with `env` in the environment, its sidebar's knobs drawn, after its first run."""
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    close_app()
    app = AppTest.from_file(APP, default_timeout=TIMEOUT)
    app.session_state[TUNING_PANEL] = True  # the sidebar's knobs are drawn only while their panel is open
    app.run()
    return app


def shown_text(app: AppTest) -> str:
    """Every text the page shows (markdown, captions and notices), one per line."""
    parts = [
        e.value for kind in ("markdown", "caption", "info", "warning", "error", "success") for e in getattr(app, kind)
    ]
    return "\n".join(str(p) for p in parts)


def opened(app: AppTest, page: str) -> AppTest:
    """The app switched to `views/<page>.py` and run, without an exception."""
    app.switch_page(f"views/{page}.py")
    app.run()
    assert not app.exception, app.exception
    return app


def asked(app: AppTest, question: str) -> AppTest:
    """The app after `question` was typed in its chat box, without an exception."""
    app.chat_input[0].set_value(question).run()
    assert not app.exception, app.exception
    return app
