"""DRIFT's model-facing text: system prompts, JSON schemas and evidence blocks.

Why real ids in prompts: the model cites what it sees, and every cited id is checked against the
retrieved set afterwards, so an invented or mistyped id is dropped rather than trusted.
Excerpts are cut to fit the prompt; citations are still validated against the full chunk text.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from retrieval.judge.confidence import source_confidence
from retrieval.llm.client import Message
from retrieval.llm.json_schema import BOOLEAN, NUMBER, STRING, array, final_answer, obj
from retrieval.models import Citation, Hit, KeyFact, TraceStep
from retrieval.search.community_context import CommunityReport

EXCERPT_CHARS = 900
SUMMARY_CHARS = 700

_FOLLOW_UP_ITEM: dict[str, Any] = obj({"question": STRING, "target_communities": array(STRING), "priority": NUMBER})

PRIMER_SCHEMA: dict[str, Any] = obj(
    {"answer": STRING, "confidence": NUMBER, "follow_ups": array(_FOLLOW_UP_ITEM, minItems=2, maxItems=6)}
)

FOLLOWUP_SCHEMA: dict[str, Any] = obj(
    {
        "answer": STRING,
        "citations": array(STRING),
        "confidence": NUMBER,
        "should_continue": BOOLEAN,
        "follow_ups": array(_FOLLOW_UP_ITEM, maxItems=3),
    }
)

AGGREGATE_SCHEMA: dict[str, Any] = final_answer(
    array(obj({"chunk_id": STRING, "span": STRING}, ["chunk_id", "span"])), "citations"
)

HYDE_PROMPT = (
    "Write one short paragraph (3-5 sentences) that could plausibly answer the question, as if quoted from "
    "a document about it. It is used only to search; do not hedge."
)
PRIMER_PROMPT = (
    "You start a DRIFT search over a knowledge graph. Using only the community reports and excerpts given, "
    "write an initial answer, a confidence (0-1), and 2-6 follow-up questions that would fill the gaps. "
    "Each follow-up names target_communities (ids from the [community ...] headers) where its answer likely "
    "lies and a priority (0-100: how much answering it would improve the answer)."
)
FOLLOWUP_PROMPT = (
    "You answer one follow-up question of a DRIFT search using only the excerpts given. Cite the chunk ids "
    "(from the [chunk ...] headers) that support the answer. Give a confidence (0-1); set should_continue "
    "when the answer opens questions worth pursuing, and then give 0-3 new follow-ups with target_communities "
    "(ids from the community list) and a priority (0-100)."
)
AGGREGATE_PROMPT = (
    "You combine the answers of a DRIFT search tree into the final answer to the original question. Use only "
    "the tree and the excerpts. Give key facts, each with citations: chunk_id (any chunk id shown in the tree "
    "or the excerpts) and span (a verbatim quote from that chunk). State what remains uncertain."
)


def excerpt(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def chunk_block(hits: Iterable[Hit]) -> str:
    return "\n\n".join(
        f"[chunk {h.id}] ({h.document_name or h.document_id or 'unknown document'}; "
        f"confidence {source_confidence(h):.0%})\n{excerpt(h.text, EXCERPT_CHARS)}"
        for h in hits
    )


def community_block(reports: Sequence[CommunityReport]) -> str:
    return "\n\n".join(
        f"[community {r.id}] {r.title} (level {r.level})\n{excerpt(r.summary, SUMMARY_CHARS)}" for r in reports
    )


def messages(system: str, *sections: tuple[str, str]) -> list[Message]:
    """A system prompt plus one user message of titled sections; empty sections are left out."""
    body = "\n\n".join(f"## {title}\n{text}" for title, text in sections if text.strip())
    return [{"role": "system", "content": system}, {"role": "user", "content": body}]


def model_fact(item: dict[str, Any]) -> KeyFact:
    """A key fact of the aggregation reply; its citations are checked by the caller."""
    citations = []
    for c in item.get("citations") or []:
        if isinstance(c, dict) and c.get("chunk_id"):
            citations.append(Citation(chunk_id=str(c["chunk_id"]), span=str(c.get("span") or "")))
        elif isinstance(c, str) and c:
            citations.append(Citation(chunk_id=c))
    return KeyFact(fact=str(item.get("fact", "")), citations=citations)


def tree_block(steps: Sequence[TraceStep]) -> str:
    """The answer tree as the aggregation prompt reads it: each step's question, answer and citations."""
    lines = []
    for step in steps:
        cited = ", ".join(str(c["chunk_id"]) for c in step.details.get("citations", []))
        confidence = f"{step.confidence:.2f}" if step.confidence is not None else "n/a"
        lines.append(
            f"[{step.id}] {step.kind}, round {step.round}, confidence {confidence}\n"
            f"Q: {step.question}\nA: {step.answer}\nCited: {cited or 'none'}"
        )
    return "\n\n".join(lines)
