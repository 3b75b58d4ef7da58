"""Local search: hybrid hits on chunks and entities -> graph expansion -> evidence -> Answer.

Why two answerers: with no language model the answer is the best evidence sentences (extractive);
with one, the model writes the answer from numbered chunks and cites them, and every citation is
checked against what was retrieved. A malformed reply degrades to the extractive answer with a
note instead of failing the question.
"""

from __future__ import annotations

import time
from typing import Any

from retrieval.context import Context
from retrieval.errors import LLMError
from retrieval.judge.confidence import source_confidence
from retrieval.llm.json_schema import NUMBER, STRING, array, obj
from retrieval.models import Answer, AnsweredBy, Citation, Hit, KeyFact, QueryParams, TraceStep
from retrieval.modes.steps import clamp01, fallback_note
from retrieval.search.boilerplate import project_boilerplate
from retrieval.search.citations import validate_citations
from retrieval.search.evidence import answer_lead, extractive_facts
from retrieval.search.fact_pool import cited_extra, fact_pool
from retrieval.search.ranking import Retrieval, missing_data, retrieve
from retrieval.telemetry.events import RetrievalProgress, aggregation_details
from retrieval.text.readable import nothing_to_search

#: Longer questions are searched by their first characters (the embedder reads ~256 tokens anyway).
MAX_QUESTION_CHARS = 2000
#: Below this cosine similarity and with no keyword match, nothing retrieved is about the question.
MIN_SIMILARITY = 0.2
MAX_FACTS = 5
CONTEXT_CHUNKS = 8

SYSTEM = (
    "You answer questions about a document collection using only the numbered context passages. "
    'Reply with one JSON object: {"answer": string, "confidence": number, "key_facts": [{"fact": string, '
    '"chunk_ids": [passage numbers or ids], "spans": [exact quotes from those passages]}]}. '
    "Every fact cites the passages that support it and quotes them verbatim. Each passage header gives its "
    "retrieval confidence; `confidence` (0-1) is how sure you are that the answer is right. "
    "If the passages do not answer the question, say so in `answer` and return no key_facts."
)
SCHEMA: dict[str, Any] = obj(
    {
        "answer": STRING,
        "confidence": NUMBER,
        "key_facts": array(
            obj(
                {"fact": STRING, "chunk_ids": array({"type": ["string", "integer"]}), "spans": array(STRING)},
                ["fact"],
            )
        ),
    },
    ["answer"],
)


def answer(ctx: Context, question: str, params: QueryParams, progress: RetrievalProgress | None) -> Answer:
    answered_by: AnsweredBy = "llm" if ctx.llm is not None else "extractive"
    question = question.strip()
    notes: list[str] = []
    if len(question) > MAX_QUESTION_CHARS:
        question = question[:MAX_QUESTION_CHARS]
        notes.append(f"The question was longer than {MAX_QUESTION_CHARS} characters; only its start was searched.")
    unsearchable = nothing_to_search(question)
    if unsearchable:
        return Answer.empty(question, "local", answered_by, unsearchable)
    missing = missing_data(ctx)
    if missing:
        return Answer.empty(question, "local", answered_by, missing)
    _emit(progress, "expanding_query", 20, "hybrid search and graph expansion")
    started = time.perf_counter()
    found = retrieve(ctx, question, params, walk=True)  # the answer shows the walk (trace, evidence graph)
    search_ms = (time.perf_counter() - started) * 1000
    hits = found.chunks
    if not _relevant(hits):
        result = Answer.empty(question, "local", answered_by, "Nothing in the graph is relevant to this question.")
        result.notes[:0] = notes
        return result
    _emit(progress, "aggregating_results", 90, f"answering from {len(hits)} chunks")
    result = (
        _llm_answer(ctx, question, params, found, notes)
        if ctx.llm is not None
        else _extractive_answer(ctx, question, params, found, notes)
    )
    result.usage.add_time("search", search_ms)
    result.trace.insert(0, _search_step(question, found, search_ms))
    if progress is not None:
        progress.emit("aggregating_results", 95, "answer written", aggregation_details(result.citations()))
    return result


def _emit(progress: RetrievalProgress | None, phase: Any, pct: int, thought: str) -> None:
    if progress is not None:
        progress.emit(phase, pct, thought)


def _relevant(hits: list[Hit]) -> bool:
    return any(h.sources.get("fulltext", 0) > 0 or h.sources.get("vector", 0) >= MIN_SIMILARITY for h in hits)


def _extractive_answer(ctx: Context, question: str, params: QueryParams, found: Retrieval, notes: list[str]) -> Answer:
    started = time.perf_counter()
    pool = fact_pool(ctx, question, params, found.chunks, found.query_vector)
    facts = extractive_facts(question, found.query_vector, pool, ctx.embedder, MAX_FACTS, skip=project_boilerplate(ctx))
    result = Answer(
        question=question,
        mode="local",
        answered_by="extractive",
        final_answer=answer_lead(facts),
        key_facts=facts,
        residual_uncertainty="Extractive answer: the best evidence sentences, not a written synthesis.",
        notes=notes,
        evidence=[*found.chunks, *cited_extra(facts, found.chunks, pool)],
    )
    result.usage.add_time("answer", (time.perf_counter() - started) * 1000)
    return result


def _context_block(hits: list[Hit]) -> str:
    return "\n\n".join(
        f"[{n}] (id: {h.id}; document: {h.lines or h.document_name or h.document_id or 'unknown'}; "
        f"confidence {source_confidence(h):.0%})\n{h.text}"
        for n, h in enumerate(hits, start=1)
    )


def _llm_answer(ctx: Context, question: str, params: QueryParams, found: Retrieval, notes: list[str]) -> Answer:
    assert ctx.llm is not None
    hits = found.chunks[:CONTEXT_CHUNKS]
    result = Answer(question=question, mode="local", answered_by="llm", notes=notes, evidence=found.chunks)
    started = time.perf_counter()
    messages = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": f"Context passages:\n\n{_context_block(hits)}\n\nQuestion: {question}"},
    ]
    try:
        reply = ctx.llm.complete_json(
            messages, schema=SCHEMA, schema_name="local_answer", phase="answer", usage=result.usage
        )
        failure = reply.notes if reply.parsed is None else []
    except LLMError as exc:
        failure = [fallback_note("answer", exc)]
    result.usage.add_time("answer", (time.perf_counter() - started) * 1000)
    if failure:
        fallback = _extractive_answer(ctx, question, params, found, [*notes, *failure])
        fallback.usage = result.usage
        return fallback
    assert reply.parsed is not None
    facts, check = validate_citations(_facts(reply.parsed, hits), {h.id: h for h in found.chunks})
    check.log_summary("local")
    if check.dropped:
        result.notes.append(
            f"{check.dropped} citation(s) the model gave were not in the retrieved text and were dropped."
        )
    if check.fallback:
        result.notes.append(
            f"{check.fallback} citation(s) quote words not in the cited chunk: given by chunk id alone."
        )
    result.final_answer = str(reply.parsed.get("answer") or "")
    result.key_facts = facts
    result.trace.append(
        TraceStep(
            id="answer",
            parent_id="search",
            kind="answer",
            question=question,
            answer=result.final_answer,
            confidence=None if reply.parsed.get("confidence") is None else clamp01(reply.parsed["confidence"]),
            chunk_ids=[c.chunk_id for c in result.citations()],
            details={"citations_dropped": check.dropped, "citations_fallback": check.fallback, "asks": reply.asks},
        )
    )
    return result


def _facts(parsed: dict[str, Any], hits: list[Hit]) -> list[KeyFact]:
    """Model facts as KeyFacts; a cited passage number ("2", 2, "[2]") means the id of that passage."""
    facts = []
    for item in parsed.get("key_facts") or []:
        if not isinstance(item, dict) or not str(item.get("fact") or "").strip():
            continue
        ids = [_chunk_id(ref, hits) for ref in item.get("chunk_ids") or []]
        spans = [str(s) for s in item.get("spans") or []]
        citations = [
            Citation(chunk_id=chunk_id, span=spans[i] if i < len(spans) else "") for i, chunk_id in enumerate(ids)
        ]
        facts.append(KeyFact(fact=str(item["fact"]), citations=citations))
    return facts


def _chunk_id(ref: Any, hits: list[Hit]) -> str:
    text = str(ref).strip().strip("[]")
    if text.isdigit() and 1 <= int(text) <= len(hits):
        return hits[int(text) - 1].id
    return text


def _search_step(question: str, found: Retrieval, search_ms: float) -> TraceStep:
    return TraceStep(
        id="search",
        kind="search",
        question=question,
        chunk_ids=[h.id for h in found.chunks],
        duration_ms=search_ms,
        details={
            "seed_entities": [h.metadata.get("title", h.id) for h in found.seeds],
            "expanded_entities": len(found.expansion.entities),
            "expansion_truncated": found.expansion.truncated,
            "budget_exhausted": found.expansion.budget_exhausted,
            "reached_entities": sum(1 for e in found.expansion.entities if e.metadata.get("hop")),
        },
    )
