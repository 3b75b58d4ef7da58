"""AgentConversation: multi-turn agent mode, so a follow-up ("and who funded it?") sees the earlier turns.

Why only questions and final answers are kept: earlier tool traffic is large and already summarised by
the answer it led to; replaying it would spend the context window on stale rows.
"""

from __future__ import annotations

from retrieval.context import Context
from retrieval.llm.client import Message
from retrieval.models import Answer, QueryParams
from retrieval.modes.agent import AgentLimits, run_agent
from retrieval.modes.agent_tracer import Tracer
from retrieval.telemetry.events import RetrievalProgress


class AgentConversation:
    """Turns of one conversation with the agent; `last_trace` is the tracer of the latest question."""

    def __init__(
        self, ctx: Context, params: QueryParams, limits: AgentLimits | None = None, max_turns: int = 10
    ) -> None:
        self.ctx = ctx
        self.params = params
        self.limits = limits or AgentLimits()
        self.max_turns = max_turns
        self.history: list[Message] = []
        self.last_trace = Tracer()

    def ask(self, question: str, progress: RetrievalProgress | None = None) -> Answer:
        answer, self.last_trace = run_agent(
            self.ctx, question, self.params, progress, history=self.history[-2 * self.max_turns :], limits=self.limits
        )
        if answer.final_answer:
            self.history += [
                {"role": "user", "content": question},
                {"role": "assistant", "content": answer.final_answer},
            ]
        return answer

    def reset(self) -> None:
        self.history.clear()
        self.last_trace = Tracer()
