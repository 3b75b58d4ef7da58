"""Agent mode: the model explores the graph with tools (its own read-only Cypher included) until it submits.

Why a bounded loop: an LLM with a query language can wander; `max_iterations` caps the cost, and when the cap
is hit the best partial answer comes back with status `max_iterations` rather than nothing. Each LLM call is
one iteration. Without a language model this mode cannot run; it says so and shows the evidence local
search finds instead, so the analyst still gets something to read.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, replace
from typing import Any

from retrieval.context import Context
from retrieval.errors import LLMError
from retrieval.llm.client import ChatModel, Completion, Message, ToolCall
from retrieval.models import Answer, Citation, Hit, KeyFact, QueryParams
from retrieval.modes import local
from retrieval.modes.agent_args import Evidence, InvalidArguments, SubmitAnswerArgs, parse_submission
from retrieval.modes.agent_tools import TOOL_SPECS, AgentTools, ToolResult, schema_summary
from retrieval.modes.agent_tracer import Tracer
from retrieval.modes.steps import fallback_note
from retrieval.telemetry.events import RetrievalProgress, followup_pct

#: Evidence sentences agent mode shows when there is no model.
NEEDS_LLM_FACTS = 5
NEEDS_LLM_NOTE = (
    "Agent mode needs a language model: set OPENAI_API_KEY (or OPENAI_BASE_URL for a compatible server) or "
    "AZURE_OPENAI_ENDPOINT. Shown instead: the best evidence sentences search found for the question."
)

SYSTEM_PROMPT = """You answer questions about a knowledge graph by exploring it with tools.

Graph schema:
{schema}

Rules:
- Use execute_cypher for precise lookups and counts, with a sentence of reasoning saying why the query helps.
  It is read-only and takes no parameters: {scope_rule}
- Use vector_search to find passages by meaning, expand_node to walk from a node to its neighbours.
- If a tool returns an error, read it and try a corrected call.
- When you know the answer, call submit_answer with the answer, your confidence (0 to 1) and the ids of the
  chunks or nodes that support it (with a short verbatim quote where you can; an empty list if none). Answer only
  from the tool results."""


@dataclass(frozen=True)
class AgentLimits:
    """Bounds for one agent run: LLM calls (10, the agent design's default) and rows per Cypher result (how long
    one query may run is Settings.cypher_timeout_ms, as for the explorer's Cypher box)."""

    max_iterations: int = 10
    row_limit: int = 50


def answer(ctx: Context, question: str, params: QueryParams, progress: RetrievalProgress | None) -> Answer:
    return run_agent(ctx, question, params, progress)[0]


def run_agent(
    ctx: Context,
    question: str,
    params: QueryParams,
    progress: RetrievalProgress | None = None,
    *,
    history: list[Message] | None = None,
    limits: AgentLimits | None = None,
) -> tuple[Answer, Tracer]:
    """One question through the tool loop; `history` holds earlier turns of a multi-turn session."""
    tracer = Tracer()
    started = time.perf_counter()
    if ctx.llm is None:
        answer = _needs_llm(ctx, question, params)
    else:
        answer = _AgentRun(
            ctx, ctx.llm, question, params, progress=progress, limits=limits or AgentLimits(), tracer=tracer
        ).run(history or [])
    answer.usage.wall_ms = (time.perf_counter() - started) * 1000
    return answer, tracer


class _AgentRun:
    def __init__(
        self,
        ctx: Context,
        llm: ChatModel,
        question: str,
        params: QueryParams,
        *,
        progress: RetrievalProgress | None,
        limits: AgentLimits,
        tracer: Tracer,
    ) -> None:
        self.ctx = ctx
        self.llm = llm
        self.question = question
        self.params = params
        self.progress = progress
        self.limits = limits
        self.tracer = tracer
        self.tools = AgentTools(ctx, params, row_limit=limits.row_limit)
        self.answer = Answer(question=question, mode="agent", answered_by="llm")

    def run(self, history: list[Message]) -> Answer:
        self._emit("expanding_query", 20, "reading the graph schema")
        system = SYSTEM_PROMPT.format(schema=schema_summary(self.ctx), scope_rule=_scope_rule(self.ctx))
        messages: list[Message] = [
            {"role": "system", "content": system},
            *history,
            {"role": "user", "content": self.question},
        ]
        partial = ""
        for iteration in range(1, self.limits.max_iterations + 1):
            self._emit(
                "executing_followup", followup_pct(iteration - 1, self.limits.max_iterations), f"step {iteration}"
            )
            try:
                with self.tracer.span("llm_response", iteration, name="llm") as event:
                    completion = self.llm.complete(messages, phase="agent", usage=self.answer.usage, tools=TOOL_SPECS)
                    event.result = {"text": completion.text, "tool_calls": [c.name for c in completion.tool_calls]}
            except LLMError as exc:
                return self._degraded(exc)
            messages.append(completion.assistant_message())
            partial = completion.text.strip() or partial
            if not completion.tool_calls:
                messages.append({"role": "user", "content": "Continue with tools, or call submit_answer to finish."})
                continue
            submitted = self._run_tools(completion, iteration, messages)
            if submitted is not None:
                return self._finish(submitted, iteration)
        return self._out_of_iterations(partial)

    def _run_tools(self, completion: Completion, iteration: int, messages: list[Message]) -> SubmitAnswerArgs | None:
        """Answer every call (the API requires a reply per call id); return a valid submission if there was one."""
        submitted: SubmitAnswerArgs | None = None
        for call in completion.tool_calls:
            submission = self._submission(call)
            if isinstance(submission, SubmitAnswerArgs):
                submitted = submitted or submission
                content = json.dumps({"status": "received"})
                self.tracer.record("submit", iteration, name=call.name, arguments=call.arguments, result="received")
            else:
                with self.tracer.span("tool_call", iteration, name=call.name, arguments=call.arguments) as event:
                    result = submission or self._call(call)
                    event.result, event.error, event.chunk_ids = result.payload, result.error, result.chunk_ids
                if result.error:
                    self.tracer.record("error", iteration, name=call.name, error=result.error)
                content = result.content()
            messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
        return submitted

    def _submission(self, call: ToolCall) -> SubmitAnswerArgs | ToolResult | None:
        """A valid submit_answer's arguments, an error result for an invalid one, None for other tools."""
        if call.name != "submit_answer":
            return None
        try:
            return parse_submission(call.arguments)
        except InvalidArguments as exc:
            return ToolResult(None, error=str(exc))

    def _call(self, call: ToolCall) -> ToolResult:
        if _malformed(call):
            return ToolResult(None, error=f"arguments for {call.name} are not a JSON object: {call.raw_arguments!r}")
        return self.tools.call(call.name, call.arguments)

    def _finish(self, args: SubmitAnswerArgs, iteration: int) -> Answer:
        citations, unknown = self._citations(args.supporting_evidence)
        if unknown:
            self.answer.notes.append(f"ignored evidence ids no tool returned: {', '.join(unknown)}")
        if not citations and self.tools.seen:
            self.answer.notes.append("the model cited no valid evidence; listing what its tools returned")
            citations = [c for c in (self.tools.citation(i) for i in list(self.tools.seen)[:10]) if c]
        confidence = args.confidence
        text = args.answer.strip()
        self.answer.final_answer = text
        self.answer.key_facts = [KeyFact(fact=text, citations=citations)] if text else []
        self.answer.no_data_found = not text
        if confidence < 0.5:
            self.answer.residual_uncertainty = f"The agent's own confidence is low ({confidence:.2f})."
        self._close(confidence, f"answer submitted after {iteration} step(s)")
        return self.answer

    def _out_of_iterations(self, partial: str) -> Answer:
        n = self.limits.max_iterations
        self.tracer.record("max_iterations", n, name="max_iterations", result=f"no answer after {n} steps")
        self.answer.status = "max_iterations"
        self.answer.final_answer = partial or "The agent did not reach an answer within its step limit."
        self.answer.notes.append(f"stopped after {n} iterations without submit_answer; this is a partial answer")
        self.answer.residual_uncertainty = "The agent ran out of steps before submitting an answer."
        citations = [c for c in (self.tools.citation(i) for i in list(self.tools.seen)[:10]) if c]
        self.answer.key_facts = [KeyFact(fact=self.answer.final_answer, citations=citations)] if partial else []
        self.answer.no_data_found = not partial and not citations
        self._close(None, "step limit reached")
        return self.answer

    def _degraded(self, exc: LLMError) -> Answer:
        """The model failed after its retries: local mode's extractive answer instead, keeping the usage so far."""
        note = fallback_note("agent", exc)
        fallback = local.answer(replace(self.ctx, llm=None), self.question, self.params, None)
        fallback.mode = "agent"
        fallback.notes.insert(0, note)
        fallback.usage = self.answer.usage
        fallback.trace = [*self.tracer.steps(), *fallback.trace]
        self._emit("aggregating_results", 90, "model failed; showing the evidence local search found")
        return fallback

    def _citations(self, evidence: list[Evidence]) -> tuple[list[Citation], list[str]]:
        citations: list[Citation] = []
        unknown: list[str] = []
        for item in evidence:
            citation = self.tools.citation(item.id, item.quote)
            if citation is None:
                unknown.append(item.id)
            elif citation.chunk_id not in {c.chunk_id for c in citations}:
                citations.append(citation)
        return citations, unknown

    def _close(self, confidence: float | None, summary: str) -> None:
        self.answer.trace = self.tracer.steps()
        if self.answer.trace:
            self.answer.trace[0].question = self.question
        self.answer.evidence = [
            Hit(
                id=x.id,
                kind="chunk" if x.kind == "chunk" else "entity",
                text=x.text,
                score=x.score or 0.0,
                document_name=x.document_name or None,
                lines=x.lines,
            )
            for x in self.tools.seen.values()
        ]
        if confidence is not None and self.answer.trace:
            self.answer.trace[-1].confidence = confidence
        self._emit("aggregating_results", 90, summary)

    def _emit(self, phase: Any, pct: int, thought: str) -> None:
        if self.progress is not None:
            self.progress.emit(phase, pct, thought)


def _malformed(call: ToolCall) -> bool:
    """Arguments that are neither a JSON object nor repairable into one (`{}` and empty are fine)."""
    if call.arguments or not call.raw_arguments.strip():
        return False
    try:
        return not isinstance(json.loads(call.raw_arguments), dict)
    except json.JSONDecodeError:
        return True


def _needs_llm(ctx: Context, question: str, params: QueryParams) -> Answer:
    """No model: the best evidence sentences of a hybrid search (whole sentences, never text cut mid-word)."""
    from retrieval.search.evidence import extractive_facts
    from retrieval.search.hybrid import search_chunks

    hits = search_chunks(ctx, question, params)
    facts = extractive_facts(question, None, hits, ctx.embedder, NEEDS_LLM_FACTS) if hits else []
    return Answer(
        question=question,
        mode="agent",
        answered_by="extractive",
        status="needs_llm",
        final_answer="\n".join(f"- {f.fact}" for f in facts),
        notes=[NEEDS_LLM_NOTE],
        key_facts=facts,
        evidence=hits,
        no_data_found=not hits,
    )


def _scope_rule(ctx: Context) -> str:
    """How the model's Cypher stays inside the context's scope (it sees no parameters, so the value is literal)."""
    if ctx.scoped:
        literal = f"WHERE n.projectId = '{ctx.project}'"
        return f"every node\n  carries projectId, so filter with the literal value, e.g. {literal}."
    return "the question is not confined to a project,\n  so query the graph whole (no projectId filter)."
