"""A model reply holding a lone surrogate (`"\\ud800"` in its JSON) through the real openai client: every mode
answers, in-process, over HTTP, through MCP's ask_graph and on the command line.

Why this is a test of its own: Python decodes `"\\ud800"` into a str no UTF-8 encoder accepts, so the reply used
to crash whoever encoded it next: the openai client sending it back (local, global, agent), the tokenizer
embedding a follow-up (DRIFT), the JSON response (HTTP 500) or the terminal (a traceback). The surrogate arrives
at two depths: in the completion body itself (plain text, raw tool arguments) and inside the JSON text the model
writes (structured answers, tool arguments), which is decoded a second time.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client

from retrieval.config import Settings
from retrieval.embed import Embedder
from retrieval.engine import Engine
from retrieval.llm.client import ChatModel
from retrieval.models import Mode
from retrieval.service.app import create_app
from retrieval.store import GraphStore
from tests.conftest import CAROL_PROJECT, backend_env
from tests.scripted_model import KEY, QUESTION, ids_in, llm_settings
from tests.scripted_openai import ScriptedOpenAI, Step, reply
from tests.service_server import serving

Graph = tuple[Settings, GraphStore, Embedder]
LONE = "\ud800"
REPLACED = "\ufffd"
ROOT = Path(__file__).resolve().parents[1]
CAROL_QUESTION = "Why does Marley's ghost visit Scrooge?"
#: "json": the surrogate inside the JSON text the model writes; "text": in the completion body, so a structured
#: answer is not JSON and is sent back to the model with a request to try again.
DEPTHS = pytest.mark.parametrize("depth", ["json", "text"])


def tainted(value: dict[str, Any], communities: list[str], key: str = "") -> Any:
    """A value of JSON-schema `value` whose strings carry a lone surrogate; every array holds one item.

    Community ids are real ones from the prompt: global mode keeps only points that cite a community it showed."""
    kind = value.get("type")
    kind = kind[0] if isinstance(kind, list) else kind
    if kind == "object":
        return {name: tainted(spec, communities, name) for name, spec in value.get("properties", {}).items()}
    if kind == "array":
        return [tainted(value.get("items", {"type": "string"}), communities, key)]
    if "communit" in key and communities:
        return communities[0]
    return {"number": 0.5, "integer": 1, "boolean": False}.get(str(kind), f"Marley {LONE} was dead")


def route(depth: str) -> Any:
    """Router answering any chat request with a surrogate: structured, plain or as tool calls (agent)."""

    def answer(request: dict[str, Any]) -> Step:
        if request.get("tools"):
            return _tool_step(request)
        schema = (request.get("response_format") or {}).get("json_schema", {}).get("schema")
        if schema and depth == "json":
            return Step(
                content=json.dumps(tainted(schema, ids_in(request, "community")))
            )  # json.dumps writes the surrogate as `\ud800`
        return reply(f"Marley {LONE} was dead to begin with.")

    return answer


def _tool_step(request: dict[str, Any]) -> Step:
    """First a search whose raw arguments hold the surrogate itself, then an answer with it in its JSON text."""
    searched = any(m.get("role") == "tool" for m in request["messages"])
    if not searched:
        arguments = '{"search_text": "Marley ' + LONE + ' ghost"}'  # the body's JSON encoding escapes it
        call = {"id": "call_0", "type": "function", "function": {"name": "vector_search", "arguments": arguments}}
        return Step(content=f"Searching {LONE}", tool_calls=(call,))
    submit = {"answer": f"Marley {LONE} visits to warn Scrooge.", "confidence": 0.5, "supporting_evidence": []}
    call = {"id": "call_1", "type": "function", "function": {"name": "submit_answer", "arguments": json.dumps(submit)}}
    return Step(tool_calls=(call,))


def encodable(value: Any) -> str:
    """`value` as UTF-8 JSON text, as the HTTP response writes it (raises on a lone surrogate)."""
    return json.dumps(value, ensure_ascii=False).encode("utf-8").decode("utf-8")


@pytest.fixture
def engine(carol_graph: Graph, scripted_openai: ScriptedOpenAI, tmp_path: Path) -> Engine:
    _settings, store, embedder = carol_graph
    settings = llm_settings(tmp_path, scripted_openai, project=CAROL_PROJECT, retry_max_attempts=1)
    return Engine(settings, store=store, embedder=embedder, llm=ChatModel(settings))


def test_a_lone_surrogate_becomes_the_replacement_character(scripted_openai: ScriptedOpenAI, tmp_path: Path) -> None:
    model = ChatModel(llm_settings(tmp_path, scripted_openai))
    schema = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}
    pair = json.dumps({"answer": "\U0001f600"})  # a valid pair, as JSON spells an emoji: kept
    scripted_openai.script(reply(f"six {LONE} seven"), Step(content=json.dumps({"answer": f"a{LONE}"})), pair)

    assert model.complete(QUESTION, phase="answer").text == f"six {REPLACED} seven"
    assert model.complete_json(QUESTION, schema=schema, schema_name="a", phase="a").parsed == {"answer": "a\ufffd"}
    assert model.complete_json(QUESTION, schema=schema, schema_name="a", phase="a").parsed == {"answer": "\U0001f600"}
    assert KEY not in repr(scripted_openai.requests)


@pytest.mark.parametrize("mode", ["local", "global", "drift", "agent"])
@DEPTHS
def test_every_mode_answers_a_reply_holding_a_lone_surrogate(
    engine: Engine, scripted_openai: ScriptedOpenAI, mode: Mode, depth: str
) -> None:
    scripted_openai.script(router=route(depth))

    answer = engine.ask(CAROL_QUESTION, mode)

    assert scripted_openai.chat_requests(), "the model was never asked"
    text = encodable(answer.model_dump(mode="json"))
    assert LONE not in text and answer.final_answer.strip()
    if depth == "json":  # the model's words made it into the answer, cleaned
        assert REPLACED in text
    if mode == "agent" or depth == "text":  # the reply went back to the model: cleaned
        assert any(REPLACED in json.dumps(r.json, ensure_ascii=False) for r in scripted_openai.chat_requests())


def test_http_and_mcp_answer_200_not_500(engine: Engine, scripted_openai: ScriptedOpenAI) -> None:
    scripted_openai.script(router=route("json"))
    question = {"query": CAROL_QUESTION, "projectId": CAROL_PROJECT}
    with serving(create_app(engine.settings, engine=engine)) as url:
        asked = httpx.post(f"{url}/v1/ask", json={**question, "mode": "local"}, timeout=120)
        retrieved = httpx.post(f"{url}/retrieve", json={"query": CAROL_QUESTION, "mode": "drift"}, timeout=120)
        tool = asyncio.run(_ask_graph(f"{url}/mcp"))
    # The scripted reply does not answer the question, so the answer may be "not in these documents", with the
    # model's cleaned text kept in its notes: either way the reply's text arrives, cleaned.
    assert asked.status_code == 200, asked.text
    assert REPLACED in _said(asked.json())
    assert retrieved.status_code == 200, retrieved.text
    assert not tool.is_error, tool.content
    assert REPLACED in _said(tool.structured_content)


def _said(answer: dict[str, Any]) -> str:
    return " ".join([answer["final_answer"], *answer.get("notes", [])])


async def _ask_graph(url: str) -> Any:
    async with Client(url) as client:
        return await client.call_tool("ask_graph", {"query": CAROL_QUESTION, "mode": "agent"})


@pytest.mark.parametrize("mode", ["local", "agent"])
def test_cli_ask_prints_the_answer_without_a_traceback(
    carol_graph: Graph, scripted_openai: ScriptedOpenAI, mode: str
) -> None:
    settings = carol_graph[0]
    scripted_openai.script(router=route("json"))
    env = {
        **os.environ,
        **backend_env(settings),
        "PYTHONPATH": str(ROOT),
        "DRIFTLENS_DATA_DIR": str(settings.data_dir),
        "DRIFTLENS_PROJECT": CAROL_PROJECT,
        "OPENAI_BASE_URL": scripted_openai.base_url,
        "OPENAI_API_KEY": KEY,
        "RETRY_MAX_ATTEMPTS": "1",
    }
    done = subprocess.run(
        [sys.executable, "-m", "retrieval", "ask", CAROL_QUESTION, "--mode", mode],
        cwd=settings.data_dir,
        env=env,
        capture_output=True,
        timeout=300,
        check=False,
    )
    out, err = done.stdout.decode("utf-8"), done.stderr.decode("utf-8", "replace")
    assert done.returncode == 0 and "Traceback" not in err, err[-3000:]
    assert REPLACED in out and "Marley" in out
