"""DriftLens as an Agent Framework context provider: graph search + conversation memory for any agent.

Run it against a real endpoint (any OpenAI-compatible server works, including a local llama.cpp one):

    OPENAI_BASE_URL=https://api.openai.com/v1 OPENAI_API_KEY=sk-... OPENAI_MODEL=gpt-4o-mini \
        python examples/agent_framework_provider.py "Who funds the Orion probe?"

or, fully offline, against the scripted server the test suite also uses (it answers with a canned reply):

    python examples/agent_framework_provider.py --scripted "Who funds the Orion probe?"

The graph is the embedded one from the settings (DRIFTLENS_GRAPH_PATH, default .driftlens/graph.db); index
documents first with `python -m retrieval index PATH`, or pass `--demo` to write a five-chunk demo graph
into a temporary folder. Every turn's question and answer are stored as Memory nodes of user `--user`.

agent-framework-core ships no OpenAI client of its own (that is the separate agent-framework-openai
package), so this example includes a small Chat Completions client for it: text in, text out.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import openai
from agent_framework import Agent, BaseChatClient, ChatResponse, Message

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from retrieval.config import Settings, load_settings
from retrieval.embed import make_embedder
from retrieval.integrations.agent_framework import GraphContextProvider


class ChatCompletionsClient(BaseChatClient):
    """The smallest Agent Framework chat client for an OpenAI-compatible `/v1/chat/completions` endpoint."""

    OTEL_PROVIDER_NAME = "openai"

    def __init__(self, *, base_url: str | None, api_key: str | None, model: str) -> None:
        super().__init__()
        self.model = model
        self._client = openai.AsyncOpenAI(base_url=base_url, api_key=api_key or "not-needed", max_retries=2)

    async def _inner_get_response(  # type: ignore[override]
        self, *, messages: Sequence[Message], stream: bool, options: Mapping[str, Any], **kwargs: Any
    ) -> ChatResponse:
        if stream:
            raise NotImplementedError("this example client does not stream; call agent.run(..., stream=False)")
        instructions = options.get("instructions")
        wire = [{"role": "system", "content": instructions}] if instructions else []
        wire += [{"role": str(m.role), "content": m.text} for m in messages if m.text]
        reply = await self._client.chat.completions.create(model=self.model, messages=wire)  # type: ignore[arg-type]
        text = reply.choices[0].message.content or ""
        return ChatResponse(messages=[Message("assistant", [text])], response_id=reply.id, model=reply.model)


async def ask(settings: Settings, questions: Sequence[str], *, user_id: str, model: str) -> list[str]:
    """Ask each question in one session; returns the agent's replies."""
    client = ChatCompletionsClient(base_url=settings.openai_base_url, api_key=_key(settings), model=model)
    provider = GraphContextProvider(
        settings,
        embedder=make_embedder(settings),
        index_type="hybrid" if settings.chunk_fulltext_index else "vector",
        user_id=user_id,
        application_id="driftlens-example",
        top_k=3,
        memory_enabled=True,
    )
    replies = []
    async with provider:
        agent = Agent(
            client, "Answer from the context you are given; say so when it is not there.", context_providers=[provider]
        )
        session = agent.create_session()
        for question in questions:
            response = await agent.run(question, session=session)
            replies.append(response.text)
    return replies


def _key(settings: Settings) -> str | None:
    return settings.openai_api_key.get_secret_value() if settings.openai_api_key else None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("questions", nargs="+")
    parser.add_argument("--user", default="example-user")
    parser.add_argument("--scripted", action="store_true", help="answer from a local scripted model server")
    parser.add_argument("--demo", action="store_true", help="use a small demo graph in a temporary folder")
    args = parser.parse_args(argv)
    model = os.environ.get("OPENAI_MODEL", "gpt-4o-mini")
    with tempfile.TemporaryDirectory() as tmp:
        overrides: dict[str, Any] = {}
        if args.demo:
            overrides.update(graph_path=Path(tmp) / "graph.db", project="demo")
        server = None
        if args.scripted:
            from tools.scripted_openai import ScriptedOpenAI

            server = ScriptedOpenAI().start()
            server.script(router=lambda body: f"(scripted reply; the model was sent {len(body['messages'])} messages)")
            overrides["openai_base_url"] = server.base_url
        settings = load_settings(**overrides)
        if args.demo:
            _write_demo_graph(settings)
        try:
            for question, reply in zip(
                args.questions, asyncio.run(ask(settings, args.questions, user_id=args.user, model=model)), strict=True
            ):
                print(f"> {question}\n{reply}\n")
        finally:
            if server is not None:
                server.stop()
    return 0


def _write_demo_graph(settings: Settings) -> None:
    from retrieval.store import open_store
    from tests import tiny_graph

    with open_store(settings) as store:
        tiny_graph.build(store, make_embedder(settings))


if __name__ == "__main__":
    raise SystemExit(main())
