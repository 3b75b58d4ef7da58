"""Code written for the agent-framework-neo4j package runs on DriftLens with its import changed (#28 item 9).

`answer_with_graph_context` below is shaped like that package's documented usage: the connection from the
environment, the index keywords, graph enrichment through `retrieval_query`, memory on with the four scope ids,
and an Agent Framework agent around it. Only its import names DriftLens; the model is the scripted local
server behind the real openai client, the graph a real embedded FalkorDB or Neo4j.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
from pathlib import Path
from typing import Any

import pytest
from agent_framework import Agent

from retrieval.config import Settings
from retrieval.conversation.memory import MemoryStore, Scope
from retrieval.embed import Embedder, make_embedder
from retrieval.integrations.agent_framework import (
    Neo4jContextProvider,  # written for the package: agent_framework_neo4j
)
from retrieval.store import open_store
from tests import tiny_graph
from tests.conftest import backend_env
from tests.scripted_openai import ScriptedOpenAI

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "agent_framework_provider.py"
RETRIEVAL_QUERY = (
    "MATCH (node)-[:HAS_ENTITY]->(e) WITH node, score, count(e) AS mentions "
    "RETURN node.text AS text, score, node.document_name AS document, mentions"
)


# --- code as written for the design ---------------------------------------------------------------------
async def answer_with_graph_context(client: Any, embedder: Any, questions: list[str]) -> list[str]:
    provider = Neo4jContextProvider(
        uri=os.environ.get("NEO4J_URI") or None,
        username=os.environ.get("NEO4J_USERNAME") or None,
        password=os.environ.get("NEO4J_PASSWORD") or None,
        index_name="chunk_embedding",
        index_type="hybrid",
        fulltext_index_name="chunk_text",
        retrieval_query=RETRIEVAL_QUERY,
        embedder=embedder,
        top_k=3,
        message_history_count=10,
        memory_enabled=True,
        application_id="design-app",
        agent_id="analyst",
        user_id="u1",
        thread_id="t1",
    )
    async with provider:
        agent = Agent(client, "Answer from the knowledge graph context.", context_providers=[provider])
        session = agent.create_session()
        return [(await agent.run(question, session=session)).text for question in questions]


# --- the test -------------------------------------------------------------------------------------------
def _chat_client(server: ScriptedOpenAI) -> Any:
    """The example's Chat Completions client (agent-framework-core ships none) on the scripted server."""
    spec = importlib.util.spec_from_file_location("agent_framework_provider_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.ChatCompletionsClient(base_url=server.base_url, api_key=None, model="scripted")


def test_code_written_for_the_design_runs_with_the_import_changed(
    settings: Settings, scripted_openai: ScriptedOpenAI, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    with open_store(settings) as store:
        tiny_graph.build(store, embedder)
    for name, value in backend_env(settings).items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("DRIFTLENS_DATA_DIR", str(settings.data_dir))
    scripted_openai.script("ESA funds Orion.", "It costs 420 million euros.")

    replies = asyncio.run(
        answer_with_graph_context(
            _chat_client(scripted_openai), make_embedder(settings), ["Who funds the Orion probe?", "And the budget?"]
        )
    )

    assert replies == ["ESA funds Orion.", "It costs 420 million euros."]
    first, second = (r.json["messages"] for r in scripted_openai.chat_requests())
    context = next(m["content"] for m in first if "[Score: " in m["content"])
    assert "European Space Agency" in context
    assert "[document: launch.md]" in context and "[mentions: 2]" in context  # the retrieval_query's columns
    assert "espresso" not in context  # the cafeteria chunk mentions no entity: the query's MATCH drops it
    memories = next(m["content"] for m in second if "[memory: " in m["content"])
    assert "ESA funds Orion." in memories
    with open_store(settings) as store:
        stored = MemoryStore(store, settings).page(Scope("design-app", "analyst", "u1", "t1"))
    assert stored.total == 4
