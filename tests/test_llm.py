"""ChatModel through the real openai client against the scripted local server."""

from __future__ import annotations

import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from retrieval.errors import LLMError
from retrieval.llm.client import ChatModel, make_chat_model
from retrieval.models import Usage
from tests.conftest import make_settings
from tests.scripted_model import KEY, QUESTION, llm_settings
from tests.scripted_openai import ScriptedOpenAI, Step, error, reply, tool_calls

SCHEMA = {
    "type": "object",
    "properties": {"answer": {"type": "string"}, "confidence": {"type": "number"}},
    "required": ["answer", "confidence"],
}
GOOD = {"answer": "rates rose", "confidence": 0.8}


@pytest.fixture
def model(tmp_path: Path, scripted_openai: ScriptedOpenAI) -> ChatModel:
    return ChatModel(llm_settings(tmp_path, scripted_openai))


def test_completion_reports_text_tokens_and_cost(scripted_openai: ScriptedOpenAI, model: ChatModel) -> None:
    scripted_openai.response_model = "gpt-4o-mini-2024-07-18"  # dated name, priced as gpt-4o-mini
    scripted_openai.script("the answer is forty two")
    usage = Usage()

    completion = model.complete(QUESTION, phase="answer", usage=usage, max_tokens=50)

    assert completion.text == "the answer is forty two"
    assert (completion.prompt_tokens, completion.completion_tokens) == (7, 5)
    assert completion.cost_usd == pytest.approx((7 * 0.15 + 5 * 0.60) / 1_000_000)
    assert completion.latency_ms > 0
    assert usage.llm_calls == 1 and usage.phases["answer"].prompt_tokens == 7
    assert usage.cost_usd == pytest.approx(completion.cost_usd)
    (sent,) = scripted_openai.requests
    assert sent.path == "/v1/chat/completions"
    assert sent.json["model"] == "gpt-4o-mini" and sent.json["messages"] == QUESTION
    assert sent.json["temperature"] == 0.0 and sent.json["max_tokens"] == 50
    assert sent.headers["authorization"] == "<redacted>"


def test_unknown_model_costs_zero_and_is_named(tmp_path: Path, scripted_openai: ScriptedOpenAI) -> None:
    model = ChatModel(llm_settings(tmp_path, scripted_openai, llm_model="local-llama"))
    scripted_openai.script("hi there")

    assert model.complete(QUESTION, phase="answer").cost_usd == 0.0
    assert model.unpriced_models == {"local-llama"}
    assert "no price known for local-llama" in model.describe()


def test_describe_names_endpoint_and_model_but_no_secret(tmp_path: Path, scripted_openai: ScriptedOpenAI) -> None:
    url = scripted_openai.base_url.replace("http://", "http://alice:hunter2@")
    model = ChatModel(llm_settings(tmp_path, scripted_openai, openai_base_url=url))

    assert model.describe() == f"OpenAI-compatible at {scripted_openai.base_url}, model gpt-4o-mini"


def test_no_provider_means_no_model(tmp_path: Path) -> None:
    assert make_chat_model(make_settings(tmp_path)) is None


def test_tool_calls_round_trip(scripted_openai: ScriptedOpenAI, model: ChatModel) -> None:
    scripted_openai.script(tool_calls(("vector_search", {"query": "inflation", "k": 3})), "done")
    tools = [{"type": "function", "function": {"name": "vector_search", "parameters": {"type": "object"}}}]

    first = model.complete(QUESTION, phase="agent", tools=tools)
    (call,) = first.tool_calls
    assert (call.name, call.arguments) == ("vector_search", {"query": "inflation", "k": 3})
    history = [*QUESTION, first.assistant_message(), {"role": "tool", "tool_call_id": call.id, "content": "[]"}]
    assert model.complete(history, phase="agent", tools=tools).text == "done"

    sent_back = scripted_openai.requests[1].json["messages"][2]
    assert sent_back["tool_calls"][0]["function"] == {"name": "vector_search", "arguments": call.raw_arguments}
    assert scripted_openai.requests[0].json["tools"] == tools


def test_json_schema_reply_is_parsed(scripted_openai: ScriptedOpenAI, model: ChatModel) -> None:
    scripted_openai.script(GOOD)

    result = model.complete_json(QUESTION, schema=SCHEMA, schema_name="answer", phase="answer")

    assert (result.parsed, result.asks, result.notes) == (GOOD, 1, [])
    fmt = scripted_openai.requests[0].json["response_format"]
    assert fmt == {"type": "json_schema", "json_schema": {"name": "answer", "schema": SCHEMA}}


@pytest.mark.parametrize(
    "sloppy",
    [
        '{"answer": "rates rose", "confidence": 0.8,}',
        "{'answer': 'rates rose', 'confidence': 0.8}",
        '```json\n{"answer": "rates rose", "confidence": 0.8}\n```',
    ],
)
def test_sloppy_json_is_repaired_without_asking_again(
    scripted_openai: ScriptedOpenAI, model: ChatModel, sloppy: str
) -> None:
    scripted_openai.script(sloppy)

    result = model.complete_json(QUESTION, schema=SCHEMA, schema_name="answer", phase="answer")

    assert result.parsed == GOOD and result.asks == 1
    assert len(scripted_openai.requests) == 1


@pytest.mark.parametrize(
    ("bad", "why"),
    [
        ("I would rather not answer that.", "not a JSON object"),
        ({"answer": "rates rose"}, "missing required key(s) confidence"),
        ({"answer": "rates rose", "confidence": "high"}, "confidence should be a number"),
    ],
)
def test_unusable_reply_is_re_asked_once_with_the_reason(
    scripted_openai: ScriptedOpenAI, model: ChatModel, bad: str | dict[str, object], why: str
) -> None:
    scripted_openai.script(bad, GOOD)
    usage = Usage()

    result = model.complete_json(QUESTION, schema=SCHEMA, schema_name="answer", phase="answer", usage=usage)

    assert (result.parsed, result.asks, result.notes) == (GOOD, 2, [])
    assert usage.phases["answer"].calls == 2
    retry_messages = scripted_openai.requests[1].json["messages"]
    assert retry_messages[: len(QUESTION)] == QUESTION
    assert retry_messages[-2]["role"] == "assistant"
    assert why in retry_messages[-1]["content"]


def test_garbage_twice_degrades_with_a_note(scripted_openai: ScriptedOpenAI, model: ChatModel) -> None:
    scripted_openai.script("{{{{ nope", "still ]] not json")

    result = model.complete_json(QUESTION, schema=SCHEMA, schema_name="answer", phase="drift_primer")

    assert result.parsed is None
    assert result.notes == ["model returned malformed JSON twice for drift_primer; used extractive fallback"]
    assert len(scripted_openai.requests) == 2


def test_rate_limit_honours_retry_after(scripted_openai: ScriptedOpenAI, model: ChatModel) -> None:
    scripted_openai.script(error(429, retry_after=0.4), "ok")

    started = time.perf_counter()
    completion = model.complete(QUESTION, phase="answer")
    elapsed = time.perf_counter() - started

    assert completion.text == "ok"
    assert len(scripted_openai.requests) == 2
    assert elapsed >= 0.4  # the scripted backoff alone would be ~0.02 s


def test_retry_after_is_capped_at_backoff_max(tmp_path: Path, scripted_openai: ScriptedOpenAI) -> None:
    model = ChatModel(llm_settings(tmp_path, scripted_openai, retry_backoff_max_sec=0.2))
    scripted_openai.script(error(429, retry_after=30), "ok")

    started = time.perf_counter()
    assert model.complete(QUESTION, phase="answer").text == "ok"
    assert time.perf_counter() - started < 10  # capped at 0.2 s, not the 30 s the server asked for


def test_server_errors_exhaust_retries_without_leaking_the_key(
    scripted_openai: ScriptedOpenAI, model: ChatModel
) -> None:
    scripted_openai.script(*[error(500, message=f"upstream broke; your key {KEY} is fine")] * 3)

    with pytest.raises(LLMError) as raised:
        model.complete(QUESTION, phase="drift_followup")

    message = str(raised.value)
    assert len(scripted_openai.requests) == 3
    assert scripted_openai.endpoint.removeprefix("http://") in message
    assert "HTTP 500" in message and "drift_followup" in message and "after 3 attempts" in message
    assert KEY not in message and "***" in message


def test_client_errors_are_not_retried(scripted_openai: ScriptedOpenAI, model: ChatModel) -> None:
    scripted_openai.script(error(401, message="Incorrect API key provided"), "never sent")

    with pytest.raises(LLMError, match=r"HTTP 401.*Check the API key"):
        model.complete(QUESTION, phase="answer")
    assert scripted_openai.pending == 1


def test_timeout_is_retried_then_succeeds(tmp_path: Path, scripted_openai: ScriptedOpenAI) -> None:
    model = ChatModel(llm_settings(tmp_path, scripted_openai, llm_timeout_sec=0.3))
    scripted_openai.script(reply("too late", delay=1.0), "in time")

    assert model.complete(QUESTION, phase="answer").text == "in time"
    assert len(scripted_openai.requests) == 2


def test_timeouts_exhaust_retries(tmp_path: Path, scripted_openai: ScriptedOpenAI) -> None:
    model = ChatModel(llm_settings(tmp_path, scripted_openai, llm_timeout_sec=0.3, retry_max_attempts=2))
    scripted_openai.script(reply("too late", delay=8.0), reply("too late", delay=8.0))

    started = time.perf_counter()
    with pytest.raises(LLMError, match=r"timed out \(0.3s\).*after 2 attempts"):
        model.complete(QUESTION, phase="answer")
    assert len(scripted_openai.requests) == 2
    assert time.perf_counter() - started < 8  # given up after two short timeouts, not after a reply


def test_connection_refused_becomes_llm_error(tmp_path: Path, scripted_openai: ScriptedOpenAI) -> None:
    with socket.socket() as probe:  # a port nobody listens on once the probe closes
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    model = ChatModel(llm_settings(tmp_path, scripted_openai, openai_base_url=f"http://127.0.0.1:{port}/v1"))

    with pytest.raises(LLMError, match=f"Could not connect to OpenAI-compatible endpoint 127.0.0.1:{port}"):
        model.complete(QUESTION, phase="answer")


def test_azure_uses_deployment_path_and_api_version(tmp_path: Path, scripted_openai: ScriptedOpenAI) -> None:
    settings = llm_settings(
        tmp_path,
        scripted_openai,
        azure_openai_endpoint=scripted_openai.endpoint,
        azure_openai_api_key=KEY,
        azure_chat_deployment="chat-dep",
        azure_openai_api_version="2024-10-21",
    )
    model = ChatModel(settings)
    scripted_openai.response_model = "gpt-4o-mini-2024-07-18"  # Azure answers with the deployed model's name
    scripted_openai.script("hello from azure")

    completion = model.complete(QUESTION, phase="answer")
    assert completion.text == "hello from azure" and completion.cost_usd > 0
    (sent,) = scripted_openai.requests
    assert sent.path == "/openai/deployments/chat-dep/chat/completions"
    assert sent.query["api-version"] == "2024-10-21"
    assert sent.headers["api-key"] == "<redacted>"
    assert model.describe() == (
        f"Azure OpenAI at {scripted_openai.endpoint}, deployment chat-dep (api-version 2024-10-21)"
    )


def test_parallel_calls_overlap_and_count_exactly(scripted_openai: ScriptedOpenAI, model: ChatModel) -> None:
    all_in_flight = threading.Barrier(4, timeout=30)  # each reply waits until all four requests have arrived

    def route(request: dict[str, Any]) -> Step:
        all_in_flight.wait()
        return reply("one two three")

    scripted_openai.script(router=route)
    usage = Usage()
    questions = [[{"role": "user", "content": " ".join(["word"] * n)}] for n in (1, 2, 3, 4)]

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda q: model.complete(q, phase="drift_followup", usage=usage), questions))

    assert [r.prompt_tokens for r in results] == [1, 2, 3, 4]
    assert (usage.llm_calls, usage.prompt_tokens, usage.completion_tokens) == (4, 10, 12)
    assert usage.phases["drift_followup"].calls == 4
