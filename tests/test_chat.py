"""Terminal chat driven through prompt_toolkit's pipe input: agent answers, numbered citations, /trace, /mode."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from prompt_toolkit import PromptSession
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from retrieval.cli import build_parser
from retrieval.cli.chat import ChatApp
from retrieval.embed import make_embedder
from retrieval.engine import Engine
from retrieval.llm.client import ChatModel
from retrieval.store import open_store
from tests import tiny_graph
from tests.conftest import make_settings
from tests.scripted_openai import ScriptedOpenAI, json_reply, tool_calls


@contextmanager
def _chat_app(tmp_path: Path, server: ScriptedOpenAI, out: io.StringIO) -> Iterator[ChatApp]:
    """A terminal chat over the tiny graph, its model the scripted server, printing into `out`."""
    settings = make_settings(tmp_path, project=tiny_graph.PROJECT, openai_base_url=server.base_url)
    with open_store(settings) as store:
        embedder = make_embedder(settings)
        tiny_graph.build(store, embedder)
        engine = Engine(settings, store=store, embedder=embedder, llm=ChatModel(settings))
        yield ChatApp(engine, mode="local", console=Console(file=out, width=200, color_system=None))


def test_chat_answers_with_numbered_citations_and_shows_the_trace(
    tmp_path: Path, scripted_openai: ScriptedOpenAI
) -> None:
    scripted_openai.script(
        tool_calls(("vector_search", {"search_text": "mission budget", "limit": 1})),
        tool_calls(
            (
                "submit_answer",
                {
                    "answer": "The budget is 420 million euros.",
                    "confidence": 0.9,
                    "supporting_evidence": [{"id": "c3", "quote": "420"}],
                },
            )
        ),
        tool_calls(
            ("submit_answer", {"answer": "It was approved in 2024.", "confidence": 0.8, "supporting_evidence": []})
        ),
    )
    out = io.StringIO()
    with _chat_app(tmp_path, scripted_openai, out) as app, create_pipe_input() as pipe:
        pipe.send_text(
            "/trace\n/mode nonsense\n/mode agent\nWhat is the mission budget?\n/trace\n"
            "When was it approved?\n/quit\nnever read\n"
        )
        session: PromptSession[str] = PromptSession(input=pipe, output=DummyOutput())
        app.loop(session.prompt)
    text = out.getvalue()
    assert "/mode [local|global|drift|agent]" in text and "No trace yet" in text
    assert "Unknown mode 'nonsense'" in text and "Mode is now agent" in text
    assert "The budget is 420 million euros." in text
    assert "[1] budget.md: “420”" in text
    assert "tool_call vector_search" in text and "submit" in text
    # the second question was sent with the first exchange as history
    last = scripted_openai.chat_requests()[-1].json["messages"]
    assert any(m["content"] == "The budget is 420 million euros." for m in last)
    assert "It was approved in 2024." in text
    assert "never read" not in text and scripted_openai.pending == 0


def test_chat_command_is_registered() -> None:
    args = build_parser().parse_args(["chat", "--mode", "agent", "--project", "p"])
    assert args.mode == "agent" and args.project == "p" and args.func.__module__ == "retrieval.cli.chat"


def test_chat_citation_markers_match_the_listed_references_when_one_chunk_has_two_spans(
    tmp_path: Path, scripted_openai: ScriptedOpenAI
) -> None:
    facts = [
        {
            "fact": "The budget is 420 million euros.",
            "chunk_ids": ["c3", "c3"],
            "spans": ["420 million euros", "approved by the ESA council"],
        },
        {"fact": "ESA funds Orion.", "chunk_ids": ["c1"], "spans": ["funded by the European Space Agency"]},
    ]
    scripted_openai.script(json_reply({"answer": "About 420 million euros.", "confidence": 0.8, "key_facts": facts}))
    out = io.StringIO()
    with _chat_app(tmp_path, scripted_openai, out) as app:
        app.handle("What is the mission budget and who funds it?")
    text = out.getvalue()
    assert "• The budget is 420 million euros. [1][2]" in text  # was [2][2]: the chunk's last number
    assert "• ESA funds Orion. [3]" in text
    assert "[1] budget.md: “420 million euros”" in text
    assert "[2] budget.md: “approved by the ESA council”" in text
    assert "[3] launch.md: “funded by the European Space Agency”" in text
    assert re.search(r"^confidence \d+%", text, re.M)


# --- the RAG decision record's switch (issue #28 item 10) -----------------------------------------------------
def test_without_rag_the_model_answers_alone_and_the_chat_says_so(
    tmp_path: Path, scripted_openai: ScriptedOpenAI
) -> None:
    scripted_openai.script("I do not know that mission's budget.", "Still no documents here.")
    out = io.StringIO()
    with _chat_app(tmp_path, scripted_openai, out) as app, create_pipe_input() as pipe:
        app.rag = False
        pipe.send_text("What is the mission budget?\nAnd who funds it?\n/rag on\n/quit\n")
        app.loop(PromptSession(input=pipe, output=DummyOutput()).prompt)
    text = out.getvalue()
    assert text.index("RAG is off: the model answers from its own knowledge") < text.index("Commands:")
    assert "I do not know that mission's budget." in text and "Still no documents here." in text
    assert text.count("note: RAG is off: the model answered from its own knowledge") == 2
    assert "RAG is on: questions are answered from the graph in mode local." in text
    first, second = (r.json for r in scripted_openai.chat_requests())
    assert "tools" not in first and "No documents are available" in first["messages"][0]["content"]
    sent = " ".join(m["content"] for m in first["messages"] + second["messages"])
    assert "420 million euros" not in sent and "European Space Agency" not in sent  # nothing was retrieved
    assert [m["content"] for m in second["messages"][1:]] == [
        "What is the mission budget?",
        "I do not know that mission's budget.",
        "And who funds it?",
    ]


def test_rag_is_on_unless_switched_off() -> None:
    assert build_parser().parse_args(["chat"]).rag is True
    assert build_parser().parse_args(["chat", "--no-rag"]).rag is False


def test_without_rag_and_without_a_model_the_chat_says_there_is_nothing_to_answer_with(
    tmp_path: Path, scripted_openai: ScriptedOpenAI
) -> None:
    out = io.StringIO()
    with _chat_app(tmp_path, scripted_openai, out) as app:
        app.engine.llm, app.rag = None, False
        app.handle("What is the mission budget?")
    assert "error: RAG is off and no language model is configured" in out.getvalue()
    assert scripted_openai.chat_requests() == []
