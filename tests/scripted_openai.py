"""The scripted OpenAI-compatible server (tools/scripted_openai.py) as a pytest fixture, and its helpers
re-exported so tests import everything about it from one place."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tools.scripted_openai import ScriptedOpenAI, Step, error, json_reply, raw, reply, tool_calls

__all__ = ["ScriptedOpenAI", "Step", "error", "json_reply", "raw", "reply", "scripted_openai", "tool_calls"]


@pytest.fixture
def scripted_openai() -> Iterator[ScriptedOpenAI]:
    server = ScriptedOpenAI().start()
    try:
        yield server
    finally:
        server.stop()
