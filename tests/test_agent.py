"""Agent mode through the real openai client against the scripted server: tool calls, refusals, limits, trace."""

from __future__ import annotations

import json

import pytest

from retrieval.context import Context
from retrieval.embed import Embedder
from retrieval.engine import Engine
from retrieval.llm.client import ChatModel
from retrieval.models import QueryParams
from retrieval.modes.agent import AgentLimits, run_agent
from retrieval.modes.agent_args import VectorSearchArgs, parse_arguments
from retrieval.modes.agent_session import AgentConversation
from retrieval.modes.agent_tools import TOOL_SPECS
from retrieval.store import GraphStore
from tests import tiny_graph
from tests.backends import empty
from tests.scripted_openai import ScriptedOpenAI, Step, tool_calls


@pytest.fixture
def graph(module_store: GraphStore, scripted_openai: ScriptedOpenAI, embedder: Embedder) -> tuple[Context, GraphStore]:
    empty(module_store)
    tiny_graph.build(module_store, embedder)
    settings = module_store.settings.model_copy(
        update={"openai_base_url": scripted_openai.base_url, "retry_max_attempts": 1}
    )
    return Context(settings, module_store, embedder, ChatModel(settings), tiny_graph.PROJECT), module_store


def _params(ctx: Context) -> QueryParams:
    return QueryParams.from_settings(ctx.settings, search_type="vector")


def _tool_messages(request_json: dict) -> list[dict]:
    return [m for m in request_json["messages"] if m["role"] == "tool"]


def test_agent_corrects_itself_and_submits_a_cited_answer(
    graph: tuple[Context, GraphStore], scripted_openai: ScriptedOpenAI
) -> None:
    ctx, store = graph
    broken = Step(
        tool_calls=(
            {"id": "bad_args", "type": "function", "function": {"name": "expand_node", "arguments": "[1, 2"}},
            {"id": "bad_tool", "type": "function", "function": {"name": "drop_graph", "arguments": "{}"}},
            {"id": "no_id", "type": "function", "function": {"name": "expand_node", "arguments": '{"depth": 1}'}},
        )
    )
    scripted_openai.script(
        tool_calls(("execute_cypher", {"query": "CREATE (x:Hacked {id: 'x'}) RETURN x", "reasoning": "test"})),
        broken,
        tool_calls(
            ("vector_search", {"search_text": "Who funds the Orion probe?", "limit": 2}),
            ("expand_node", {"node_id": "e1", "relationship_types": ["RELATED"], "depth": 1}),
        ),
        tool_calls(
            (
                "submit_answer",
                {
                    "answer": "The European Space Agency funds Orion.",
                    "confidence": 0.9,
                    "supporting_evidence": [
                        {"id": "c1", "quote": "funded by the European Space Agency"},
                        {"id": "e2"},
                        {"id": "c999"},
                    ],
                },
            )
        ),
    )
    answer, tracer = run_agent(ctx, "Who funds the Orion probe?", _params(ctx))

    assert answer.status == "ok" and answer.answered_by == "llm" and answer.mode == "agent"
    assert answer.final_answer == "The European Space Agency funds Orion."
    cited = {(c.chunk_id, c.kind): c for c in answer.citations()}
    assert cited[("c1", "chunk")].span == "funded by the European Space Agency"
    assert cited[("c1", "chunk")].document_name == "launch.md"
    assert ("e2", "node") in cited and "European Space Agency" in cited[("e2", "node")].span
    assert any("c999" in note for note in answer.notes)
    assert scripted_openai.pending == 0

    # the write was refused by the store and the model was told so; nothing was written
    assert store.read("MATCH (x:Hacked) RETURN count(x) AS n")[0]["n"] == 0
    requests = scripted_openai.chat_requests()
    first_results = _tool_messages(requests[1].json)
    assert "only read queries" in first_results[0]["content"]
    # every malformed call got an error result with its own call id, and the run went on
    second_results = {m["tool_call_id"]: json.loads(m["content"]) for m in _tool_messages(requests[2].json)[1:]}
    assert "not a JSON object" in second_results["bad_args"]["error"]
    assert "unknown tool" in second_results["bad_tool"]["error"]
    assert "invalid arguments for expand_node: node_id is required" in second_results["no_id"]["error"]
    # the model saw the schema with labels, relationship types and counts
    system = requests[0].json["messages"][0]["content"]
    assert "__Chunk__ (5 nodes)" in system and "RELATED (3)" in system and "HAS_ENTITY" in system
    assert requests[0].json["tools"][0]["function"]["name"] == "execute_cypher"

    kinds = [e.kind for e in tracer.events]
    assert kinds.count("llm_response") == 4 and "submit" in kinds
    assert sum(1 for e in tracer.events if e.kind == "error") == 4
    exported = json.loads(tracer.to_json())
    assert {"kind", "iteration", "duration_ms", "arguments"} <= set(exported[0])
    assert any(step.kind == "tool_call" and "c1" in step.chunk_ids for step in answer.trace)
    assert answer.usage.llm_calls == 4


def test_a_loop_that_never_submits_stops_at_max_iterations_with_a_partial_answer(
    graph: tuple[Context, GraphStore], scripted_openai: ScriptedOpenAI
) -> None:
    ctx, _ = graph
    scripted_openai.script(Step(content="Orion seems to be funded by ESA, still checking."))
    scripted_openai.script(
        router=lambda body: tool_calls(
            ("execute_cypher", {"query": "MATCH (c:__Chunk__) RETURN c.id AS id LIMIT 2", "reasoning": "list chunks"})
        )
    )
    answer, tracer = run_agent(ctx, "Who funds Orion?", _params(ctx), limits=AgentLimits(max_iterations=3))
    assert answer.status == "max_iterations"
    assert answer.final_answer == "Orion seems to be funded by ESA, still checking."
    assert len(scripted_openai.chat_requests()) == 3
    assert tracer.events[-1].kind == "max_iterations"
    assert any("partial answer" in note for note in answer.notes)


def test_cypher_results_are_capped(graph: tuple[Context, GraphStore], scripted_openai: ScriptedOpenAI) -> None:
    ctx, _ = graph
    scripted_openai.script(
        tool_calls(
            ("execute_cypher", {"query": "MATCH (c:__Chunk__) RETURN c.id AS id ORDER BY id", "reasoning": "count"})
        ),
        tool_calls(("submit_answer", {"answer": "five chunks", "confidence": 0.9, "supporting_evidence": []})),
    )
    answer, _ = run_agent(ctx, "How many chunks?", _params(ctx), limits=AgentLimits(row_limit=2))
    result = json.loads(_tool_messages(scripted_openai.chat_requests()[1].json)[0]["content"])
    assert result["rows"] == [{"id": "c1"}, {"id": "c2"}] and "first 2 rows" in result["truncated"]
    assert answer.final_answer == "five chunks"


def test_conversation_sends_earlier_turns(graph: tuple[Context, GraphStore], scripted_openai: ScriptedOpenAI) -> None:
    ctx, _ = graph
    scripted_openai.script(
        tool_calls(("submit_answer", {"answer": "ESA funds Orion.", "confidence": 0.9, "supporting_evidence": []})),
        tool_calls(("submit_answer", {"answer": "420 million euros.", "confidence": 0.9, "supporting_evidence": []})),
    )
    conversation = AgentConversation(ctx, _params(ctx))
    conversation.ask("Who funds Orion?")
    conversation.ask("How much money is that?")
    second = scripted_openai.chat_requests()[1].json["messages"]
    assert [m["content"] for m in second[1:4]] == ["Who funds Orion?", "ESA funds Orion.", "How much money is that?"]
    assert conversation.last_trace.events[-1].kind == "submit"


def test_engine_agent_mode_without_an_llm_says_so_and_shows_evidence(
    graph: tuple[Context, GraphStore], embedder: Embedder
) -> None:
    _, store = graph
    settings = store.settings.model_copy(update={"search_type": "vector"})  # no LLM configured
    answer = Engine(settings, store=store, embedder=embedder, llm=None).ask("What is the mission budget?", "agent")
    assert answer.status == "needs_llm" and answer.answered_by == "extractive"
    assert "needs a language model" in answer.notes[0]
    assert answer.evidence and answer.evidence[0].id == "c3"
    assert answer.citations()[0].chunk_id == "c3"


def test_ill_typed_tool_arguments_are_returned_to_the_model_and_the_run_goes_on(
    graph: tuple[Context, GraphStore], scripted_openai: ScriptedOpenAI
) -> None:
    ctx, _ = graph
    scripted_openai.script(
        tool_calls(
            ("expand_node", {"node_id": "e1", "depth": "abc"}),
            ("vector_search", {"search_text": "Orion", "limit": "ten"}),
            ("expand_node", {"node_id": "e1", "relationship_types": None, "depth": 9}),
        ),
        tool_calls(("submit_answer", {"answer": "ESA.", "confidence": 0.5, "supporting_evidence": [None, 5]})),
        tool_calls(
            ("submit_answer", {"answer": "ESA funds Orion.", "confidence": "0.8", "supporting_evidence": ["e2"]})
        ),
    )

    answer, tracer = run_agent(ctx, "Who funds Orion?", _params(ctx))

    assert answer.status == "ok" and answer.final_answer == "ESA funds Orion."
    assert [c.chunk_id for c in answer.citations()] == ["e2"]
    requests = scripted_openai.chat_requests()
    depth, limit, clamped = (json.loads(m["content"]) for m in _tool_messages(requests[1].json))
    assert "invalid arguments for expand_node: depth" in depth["error"] and "'abc'" in depth["error"]
    assert "invalid arguments for vector_search: limit" in limit["error"] and "'ten'" in limit["error"]
    assert clamped["neighbours"]  # out-of-range depth is clamped, a null list means no filter
    evidence = json.loads(_tool_messages(requests[2].json)[-1]["content"])["error"]
    assert "supporting_evidence.0" in evidence and "supporting_evidence.1" in evidence
    assert sum(1 for e in tracer.events if e.kind == "error") == 3


# --- the agent design's arguments and defaults (issue #28 item 6) -----------------------------------------
def test_cypher_without_reasoning_and_a_bare_submission_are_sent_back_to_the_model(
    graph: tuple[Context, GraphStore], scripted_openai: ScriptedOpenAI
) -> None:
    ctx, _ = graph
    scripted_openai.script(
        tool_calls(
            ("execute_cypher", {"query": "MATCH (c:__Chunk__) RETURN count(c) AS n"}),
            ("submit_answer", {"answer": "Five."}),
        ),
        tool_calls(
            ("execute_cypher", {"query": "MATCH (c:__Chunk__) RETURN count(c) AS n", "reasoning": "count the chunks"})
        ),
        tool_calls(("submit_answer", {"answer": "Five.", "confidence": 0.7, "supporting_evidence": []})),
    )

    answer, tracer = run_agent(ctx, "How many chunks?", _params(ctx))

    assert answer.status == "ok" and answer.final_answer == "Five."
    cypher, submit = (
        json.loads(m["content"])["error"] for m in _tool_messages(scripted_openai.chat_requests()[1].json)
    )
    assert "invalid arguments for execute_cypher: reasoning is required" in cypher
    assert "confidence is required" in submit and "supporting_evidence is required" in submit
    assert json.loads(_tool_messages(scripted_openai.chat_requests()[2].json)[-1]["content"])["rows"] == [{"n": 5}]
    specs = {spec["function"]["name"]: spec["function"]["parameters"] for spec in TOOL_SPECS}
    assert specs["execute_cypher"]["required"] == ["query", "reasoning"]
    assert specs["submit_answer"]["required"] == ["answer", "confidence", "supporting_evidence"]
    assert sum(1 for e in tracer.events if e.kind == "error") == 2


def test_the_step_limit_defaults_to_ten(graph: tuple[Context, GraphStore], scripted_openai: ScriptedOpenAI) -> None:
    ctx, _ = graph
    scripted_openai.script(router=lambda body: Step(content="still thinking"))

    answer, _ = run_agent(ctx, "Who funds Orion?", _params(ctx))

    assert AgentLimits().max_iterations == 10
    assert answer.status == "max_iterations" and len(scripted_openai.chat_requests()) == 10


def test_vector_search_returns_ten_rows_unless_told_otherwise() -> None:
    assert parse_arguments("vector_search", {"search_text": "Orion"}) == VectorSearchArgs(search_text="Orion", limit=10)
    spec = next(s for s in TOOL_SPECS if s["function"]["name"] == "vector_search")
    assert spec["function"]["parameters"]["properties"]["limit"]["default"] == 10
