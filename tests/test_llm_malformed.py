"""A broken model server (HTML page, cut-off JSON, no choices, `message: null`, integer ids) through the real
openai client: each becomes an `LLMError` after the retries, or a repaired value, and every mode degrades."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from retrieval.engine import Engine
from retrieval.errors import LLMError
from retrieval.llm.client import ChatModel
from retrieval.models import Mode
from tests.conftest import CAROL_PROJECT, CarolGraph
from tests.scripted_model import KEY, QUESTION, llm_settings
from tests.scripted_openai import ScriptedOpenAI, Step, raw

_HEAD = {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4o-mini"}
MALFORMED: dict[str, Step] = {
    "html page": raw("<html><body><h1>502 Bad Gateway</h1></body></html>", content_type="text/html"),
    "truncated json": raw('{"id": "chatcmpl-1", "choices": [{"index": 0, "message": {"role": "assistant", "cont'),
    "no choices": raw(_HEAD),
    "empty choices": raw({**_HEAD, "choices": []}),
    "null message": raw({**_HEAD, "choices": [{"index": 0, "message": None, "finish_reason": "stop"}]}),
}
SHAPES = pytest.mark.parametrize("shape", list(MALFORMED))


@pytest.fixture
def model(tmp_path: Path, scripted_openai: ScriptedOpenAI) -> ChatModel:
    return ChatModel(llm_settings(tmp_path, scripted_openai, retry_max_attempts=2))


@SHAPES
def test_malformed_body_is_retried_then_becomes_an_llm_error(
    scripted_openai: ScriptedOpenAI, model: ChatModel, shape: str
) -> None:
    scripted_openai.script(MALFORMED[shape], MALFORMED[shape])

    with pytest.raises(LLMError) as raised:
        model.complete(QUESTION, phase="answer")

    message = str(raised.value)
    assert "returned a malformed response for answer after 2 attempts" in message
    assert len(scripted_openai.chat_requests()) == 2
    assert raised.value.__cause__ is None and raised.value.__context__ is None


@SHAPES
def test_one_malformed_body_then_a_good_one_is_a_normal_completion(
    scripted_openai: ScriptedOpenAI, model: ChatModel, shape: str
) -> None:
    scripted_openai.script(MALFORMED[shape], "forty two")

    assert model.complete(QUESTION, phase="answer").text == "forty two"


def test_integer_ids_and_object_arguments_are_repaired(scripted_openai: ScriptedOpenAI, model: ChatModel) -> None:
    call = {"id": 7, "type": "function", "function": {"name": "vector_search", "arguments": {"search_text": "x"}}}
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    scripted_openai.script(raw({**_HEAD, "id": 5, "choices": [{"index": 0, "message": message}], "usage": "n/a"}))

    completion = model.complete(QUESTION, phase="agent")

    (repaired,) = completion.tool_calls
    assert (repaired.id, repaired.name, repaired.arguments) == ("7", "vector_search", {"search_text": "x"})
    assert completion.assistant_message()["tool_calls"][0]["id"] == "7"
    assert completion.prompt_tokens == 0


def test_an_echoed_key_is_not_quoted_from_a_malformed_body(scripted_openai: ScriptedOpenAI, model: ChatModel) -> None:
    scripted_openai.script(*[raw(f"<html>bad gateway for key {KEY}</html>", content_type="text/html")] * 2)

    with pytest.raises(LLMError) as raised:
        model.complete(QUESTION, phase="answer")

    assert "bad gateway" in str(raised.value) and KEY not in str(raised.value)


@pytest.mark.parametrize("mode", ["local", "global", "drift", "agent"])
@SHAPES
def test_every_mode_degrades_to_an_extractive_answer_with_a_note(
    carol_graph: CarolGraph, scripted_openai: ScriptedOpenAI, tmp_path: Path, mode: Mode, shape: str
) -> None:
    _settings, store, embedder = carol_graph
    llm = llm_settings(tmp_path, scripted_openai, project=CAROL_PROJECT, retry_max_attempts=1)
    engine = Engine(llm, store=store, embedder=embedder, llm=ChatModel(llm))
    scripted_openai.script(router=lambda request: _always(MALFORMED[shape], request))

    answer = engine.ask("Why does Marley's ghost visit Scrooge?", mode)

    assert scripted_openai.chat_requests(), "the model was never asked"
    assert any("malformed response" in note for note in answer.notes), answer.notes
    assert answer.final_answer.strip() and answer.citations()


def _always(step: Step, _request: dict[str, Any]) -> Step:
    return step
