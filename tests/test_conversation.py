"""Conversations kept as memory threads: follow-ups resolved against earlier turns, reopened by id, recalled.

Real parts: the offline-indexed Christmas Carol graph, the ONNX embedder, the Memory store; the model paths go
through the scripted OpenAI-compatible server. Each test has its own user, so threads never mix.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from retrieval.config import Settings
from retrieval.conversation.memory import MemoryStore
from retrieval.conversation.thread import Conversation, find_run, threads
from retrieval.embed import Embedder
from retrieval.engine import Engine
from retrieval.llm.client import ChatModel
from retrieval.store import GraphStore
from tests.backends import FALKORDB, NEO4J
from tests.conftest import CAROL_PROJECT, make_settings
from tests.scripted_openai import ScriptedOpenAI, json_reply, reply, tool_calls

Graph = tuple[Settings, GraphStore, Embedder]


def _engine(graph: Graph) -> Engine:
    settings, store, embedder = graph
    return Engine(settings, store=store, embedder=embedder, llm=None)


def _llm_engine(graph: Graph, server: ScriptedOpenAI, tmp_path: Path) -> Engine:
    graph_settings, store, embedder = graph
    backend = NEO4J if graph_settings.neo4j_uri else FALKORDB
    llm = {"openai_base_url": server.base_url, "openai_api_key": "sk-test"}
    settings = make_settings(tmp_path, backend, project=CAROL_PROJECT, **llm)
    return Engine(settings, store=store, embedder=embedder, llm=ChatModel(settings))


def test_offline_follow_up_reads_the_pronoun_as_the_earlier_entity_and_says_so(carol_graph: Graph) -> None:
    engine = _engine(carol_graph)
    chat = Conversation(engine, user="follow-up")
    first = chat.ask("Who was Marley?", ["local"], project=CAROL_PROJECT)
    assert first.meta.searched_as == "Who was Marley?" and not first.meta.context_terms
    second = chat.ask("What did he wear?", ["local"], project=CAROL_PROJECT)
    assert second.meta.context_terms == ["Marley"] and second.meta.rewritten
    assert second.meta.searched_as == "What did Marley wear?"
    answer = second.answers[0]
    assert answer.question == "What did he wear?"
    assert answer.notes[0] == "Follow-up: read “he” as “Marley”; searched as “What did Marley wear?”."
    assert any("Marley" in f.fact for f in answer.key_facts)  # the first turn's subject reached the second answer
    assert any(m.text == "Who was Marley?" for m in second.meta.earlier)  # recalled "from earlier"

    reopened = Conversation(engine, user="follow-up", thread_id=chat.thread_id).turns()
    assert [t.question for t in reopened] == ["Who was Marley?", "What did he wear?"]
    assert reopened[1].meta == second.meta
    assert reopened[1].answers[0].final_answer == answer.final_answer
    assert reopened[1].answers[0].confidence == answer.confidence is not None
    assert Conversation(engine, user="someone-else", thread_id=chat.thread_id).turns() == []


def test_an_invalidated_turn_no_longer_feeds_the_next_follow_up(carol_graph: Graph) -> None:
    engine = _engine(carol_graph)
    chat = Conversation(engine, user="invalidate")
    chat.ask("Who was Marley?", ["local"], project=CAROL_PROJECT)
    memory = MemoryStore(engine.store, engine.settings, engine.embedder)
    question = next(r for r in memory.page(chat.scope).items if r.role == "user")
    assert memory.invalidate([question.id], "asked about the wrong person", chat.scope) == 1

    turns = chat.turns()
    assert len(turns) == 1 and not turns[0].valid
    follow_up = chat.ask("What did he wear?", ["local"], project=CAROL_PROJECT)
    assert follow_up.meta.context_terms == [] and follow_up.meta.searched_as == "What did he wear?"
    assert all(m.id != question.id for m in follow_up.meta.earlier)


def test_a_follow_up_is_rewritten_by_the_model_and_prompts_list_each_sources_confidence(
    carol_graph: Graph, scripted_openai: ScriptedOpenAI, tmp_path: Path
) -> None:
    fact = {"fact": "Marley was dead.", "chunk_ids": [1], "spans": []}
    scripted_openai.script(
        json_reply({"answer": "Marley was Scrooge's late partner.", "confidence": 0.9, "key_facts": [fact]}),
        reply("What did Marley wear as a ghost?"),
        json_reply({"answer": "A chain.", "confidence": 0.3, "key_facts": []}),
    )
    engine = _llm_engine(carol_graph, scripted_openai, tmp_path)
    chat = Conversation(engine, user="rewrite")
    first = chat.ask("Who was Marley?", ["local"], project=CAROL_PROJECT)
    second = chat.ask("What did he wear?", ["local"], project=CAROL_PROJECT)

    first_prompt, rewrite, second_prompt = (r.json["messages"] for r in scripted_openai.chat_requests())
    sources = re.findall(
        r"^\[\d+\] \(id: [^;]+; document: [^;]+; confidence (\d+)%\)$", first_prompt[1]["content"], re.M
    )
    assert len(sources) >= 2 and all(0 <= int(p) <= 100 for p in sources)
    assert [m["content"] for m in rewrite[1:]] == [
        "Who was Marley?",
        "Marley was Scrooge's late partner.",
        "What did he wear?",
    ]
    assert "Question: What did Marley wear as a ghost?" in second_prompt[1]["content"]
    assert second.meta.rewritten and second.meta.searched_as == "What did Marley wear as a ghost?"
    answer = second.answers[0]
    assert "Follow-up rewritten by the model as: “What did Marley wear as a ghost?”." in answer.notes
    assert answer.usage.phases["rewrite"].calls == 1 and answer.usage.llm_calls == 2
    assert first.answers[0].confidence is not None and second.answers[0].confidence is not None
    model_part = {p.name: p for p in answer.confidence.parts}["model"]  # type: ignore[union-attr]
    assert model_part.value == 0.3
    # The model gave no key facts: nothing supports "A chain.", which stays as a note.
    assert answer.outcome == "not_in_documents" and "A chain." in answer.notes[-1]
    assert answer.confidence.limitation.startswith("Not in these documents")  # type: ignore[union-attr]


def test_agent_mode_is_multi_turn_through_the_thread(
    carol_graph: Graph, scripted_openai: ScriptedOpenAI, tmp_path: Path
) -> None:
    scripted_openai.script(
        tool_calls(
            ("submit_answer", {"answer": "Marley was Scrooge's partner.", "confidence": 0.9, "supporting_evidence": []})
        ),
        tool_calls(("submit_answer", {"answer": "He wore a chain.", "confidence": 0.9, "supporting_evidence": []})),
    )
    engine = _llm_engine(carol_graph, scripted_openai, tmp_path)
    chat = Conversation(engine, user="agent")
    first = chat.ask("Who was Marley?", ["agent"], project=CAROL_PROJECT)
    chat.ask("What did he wear?", ["agent"], project=CAROL_PROJECT)
    second: list[dict[str, Any]] = scripted_openai.chat_requests()[-1].json["messages"]
    contents = [m.get("content") for m in second]
    # The history holds the answer as shown: with no supporting evidence that is "not in these documents".
    shown = first.answers[0].final_answer
    assert "Who was Marley?" in contents and shown in contents
    assert contents.index(shown) < contents.index("What did he wear?")
    assert len(scripted_openai.chat_requests()) == 2  # agent turns are not rewritten: the agent reads the thread


def test_threads_are_listed_per_user_and_a_drift_run_is_found_by_its_id(carol_graph: Graph) -> None:
    engine = _engine(carol_graph)
    chat = Conversation(engine, user="runs")
    turn = chat.ask("How does Scrooge treat his clerk?", ["drift"], project=CAROL_PROJECT)
    other = Conversation(engine, user="runs")
    other.ask("Who was Marley?", ["local"], project=CAROL_PROJECT)

    listed = threads(engine, user="runs")
    assert [t.thread_id for t in listed] == [other.thread_id, chat.thread_id]
    assert listed[1].title == "How does Scrooge treat his clerk?" and listed[1].turns == 1
    assert threads(engine, user="nobody") == []

    found = find_run(engine, turn.id, user="runs")
    assert found is not None
    thread_id, answer = found
    assert thread_id == chat.thread_id and answer.mode == "drift"
    assert [s.id for s in answer.trace] == [s.id for s in turn.answers[0].trace]
    assert find_run(engine, turn.id, user="nobody") is None
    assert find_run(engine, "no-such-run", user="runs") is None
