"""GraphContextProvider: config validation, thread scoping, context lines, memory writes, and a real agent run."""

from __future__ import annotations

import asyncio
import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest
from agent_framework import Message

from retrieval.conversation.memory import MemoryStore, Scope
from retrieval.embed import Embedder
from retrieval.errors import ConfigError
from retrieval.integrations.agent_framework import GraphContextProvider, format_line
from retrieval.store import GraphStore
from tests import tiny_graph
from tests.backends import empty
from tests.conftest import make_settings
from tests.scripted_openai import ScriptedOpenAI

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "agent_framework_provider.py"
LINE = re.compile(r"^\[Score: \d\.\d{3}\] (\[[a-z_]+: [^\]]+\] )*\S")


@pytest.fixture
def demo_store(module_store: GraphStore, embedder: Embedder) -> GraphStore:
    empty(module_store)
    tiny_graph.build(module_store, embedder)
    return module_store


def _load_example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("agent_framework_provider_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"index_type": "hybrid", "user_id": "u"}, "needs an embedder"),
        ({"index_type": "vector", "user_id": "u"}, "needs an embedder"),
        ({"index_type": "fulltext", "top_k": 0, "user_id": "u"}, "top_k"),
        ({"index_type": "fulltext", "message_history_count": 0, "user_id": "u"}, "message_history_count"),
        ({"index_type": "fulltext", "memory_enabled": True}, "needs a scope"),
        ({"index_type": "fulltext", "user_id": "u", "colour": "red"}, "colour"),
    ],
)
def test_invalid_configuration_is_refused(tmp_path: Path, config: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        GraphContextProvider(make_settings(tmp_path), **config)


def test_hybrid_needs_a_fulltext_index_name(tmp_path: Path, embedder: Embedder) -> None:
    settings = make_settings(tmp_path, chunk_fulltext_index=None, search_type="vector")
    with pytest.raises(ConfigError, match="fulltext index name"):
        GraphContextProvider(settings, embedder=embedder, index_type="hybrid", user_id="u")
    GraphContextProvider(settings, embedder=embedder, index_type="vector", user_id="u")


def test_format_line() -> None:
    assert (
        format_line(0.8923, {"source": "a.md", "empty": ""}, "some\n text") == "[Score: 0.892] [source: a.md] some text"
    )


@pytest.mark.parametrize("index_type", ["vector", "fulltext", "hybrid"])
def test_invoking_returns_scored_graph_and_memory_lines(
    demo_store: GraphStore, embedder: Embedder, index_type: str
) -> None:
    async def scenario() -> None:
        provider = GraphContextProvider(
            demo_store.settings,
            store=demo_store,
            embedder=embedder,
            index_type=index_type,
            user_id="ana",
            top_k=1,
            memory_enabled=True,
        )
        with pytest.raises(ConfigError, match="async with"):
            await provider.invoking([Message("user", ["hi"])])
        async with provider:
            await provider.invoked(
                [Message("user", ["My budget question is about the Orion mission."])],
                [Message("assistant", ["Noted: Orion budget."])],
            )
            conversation = [
                Message("system", ["You are terse."]),
                Message("user", ["Tell me about the cafeteria."]),
                Message("assistant", ["It serves espresso."]),
                Message("user", ["What is the mission budget in euros?"]),
            ]
            provider.config.message_history_count = 1
            context = await provider.invoking(conversation)
        assert len(context) == 1 and context[0].role == "user"
        lines = context[0].text.splitlines()[2:]
        assert lines and all(LINE.match(line) for line in lines), lines
        assert "420 million euros" in lines[0]  # the last user message alone drove the search
        assert not any("espresso" in line for line in lines)
        assert any("[memory: user]" in line and "Orion mission" in line for line in lines)

    asyncio.run(scenario())


def test_memories_are_stored_in_scope_and_other_users_never_see_them(
    demo_store: GraphStore, embedder: Embedder
) -> None:
    async def scenario() -> None:
        ana, bob = (
            GraphContextProvider(
                demo_store.settings,
                store=demo_store,
                embedder=embedder,
                user_id=user,
                memory_top_k=5,
                memory_enabled=True,
            )
            for user in ("ana", "bob")
        )
        async with ana, bob:
            await ana.invoked(Message("user", ["My cat is called Pixel."]), Message("assistant", ["Nice name."]))
            bob_context = await bob.invoking(Message("user", ["What is my cat called?"]))
            ana_context = await ana.invoking(Message("user", ["What is my cat called?"]))
            stored = MemoryStore(ana.store, ana.settings).page(Scope(user_id="ana"))
        assert "Pixel" in ana_context[0].text
        assert not any("Pixel" in m.text for m in bob_context)
        assert [(r.role, r.user_id) for r in stored.items] == [("assistant", "ana"), ("user", "ana")]

    asyncio.run(scenario())


def test_per_operation_thread_id_is_captured_and_a_different_one_refused(
    demo_store: GraphStore, embedder: Embedder
) -> None:
    async def scenario() -> None:
        provider = GraphContextProvider(
            demo_store.settings,
            store=demo_store,
            embedder=embedder,
            scope_to_per_operation_thread_id=True,
            memory_enabled=True,
        )
        async with provider:
            await provider.thread_created("t-1")
            await provider.thread_created("t-1")
            await provider.invoked(Message("user", ["Remember the launch is in March."]))
            with pytest.raises(ValueError, match="t-2"):
                await provider.thread_created("t-2")
            stored = provider.memory.page(Scope(thread_id="t-1")).items  # type: ignore[union-attr]
        assert [r.thread_id for r in stored] == ["t-1"]

    asyncio.run(scenario())


def test_example_runs_an_agent_with_the_provider_through_the_openai_client(
    demo_store: GraphStore, scripted_openai: ScriptedOpenAI
) -> None:
    scripted_openai.script("ESA funds Orion.", "It costs 420 million euros.")
    settings = demo_store.settings.model_copy(update={"openai_base_url": scripted_openai.base_url})
    example = _load_example()
    replies = example.asyncio.run(
        example.ask(settings, ["Who funds the Orion probe?", "And the budget?"], user_id="u1", model="scripted")
    )
    assert replies == ["ESA funds Orion.", "It costs 420 million euros."]
    first, second = (r.json["messages"] for r in scripted_openai.chat_requests())
    context = next(m["content"] for m in first if "[Score: " in m["content"])
    assert "European Space Agency" in context
    # the second turn sees the first exchange as memories of user u1
    context = next(m["content"] for m in second if "[memory: " in m["content"])
    assert "ESA funds Orion." in context
    assert MemoryStore(demo_store, settings).page(Scope(user_id="u1")).total == 4


# --- the design's keywords and defaults (issue #28 items 6 and 9) --------------------------------------------
def test_memory_is_off_and_ten_messages_are_read_by_default(demo_store: GraphStore) -> None:
    async def scenario() -> None:
        provider = GraphContextProvider(demo_store.settings, store=demo_store, index_type="fulltext")
        assert (provider.config.memory_enabled, provider.config.message_history_count) == (False, 10)
        async with provider:
            assert provider.memory is None
            await provider.invoked(Message("user", ["Remember my cat Pixel."]), Message("assistant", ["Sure."]))
            talk = [Message("user", ["What is the mission budget in euros?"])]
            talk += [Message("user" if n % 2 else "assistant", ["hello there"]) for n in range(9)]
            ten_back = await provider.invoking(talk)
            eleven_back = await provider.invoking([*talk, Message("user", ["hello there"])])
        label = demo_store.settings.memory_label
        assert demo_store.read(f"MATCH (m:`{label}`) RETURN count(m) AS n")[0]["n"] == 0
        assert "420 million euros" in ten_back[0].text
        assert eleven_back == []  # the budget question fell out of the ten messages searched

    asyncio.run(scenario())


def test_index_keywords_name_the_indexes_searched(tmp_path: Path, embedder: Embedder) -> None:
    settings = make_settings(tmp_path)
    hybrid = GraphContextProvider(
        settings, embedder=embedder, index_name="chunkEmbeddings", index_type="hybrid", fulltext_index_name="chunkText"
    )
    fulltext = GraphContextProvider(settings, index_name="search_chunks", index_type="fulltext")
    assert (hybrid.settings.chunk_vector_index, hybrid.settings.chunk_fulltext_index) == (
        "chunkEmbeddings",
        "chunkText",
    )
    assert (fulltext.settings.chunk_vector_index, fulltext.settings.chunk_fulltext_index) == (
        settings.chunk_vector_index,
        "search_chunks",
    )
