"""Result types shared by every mode: one `Answer`, whatever produced it.

Why one type: the UI, the CLI and the tests render and check answers without knowing
which mode made them, and comparing modes side by side is a loop, not four code paths.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, Field, computed_field

Mode = Literal["local", "global", "drift", "agent"]
AnsweredBy = Literal["llm", "extractive"]
#: `not_in_documents`: the evidence does not support an answer; the key facts are then the nearest material.
Outcome = Literal["answered", "not_in_documents"]


class Lines(BaseModel):
    """Where a chunk of a repository file (code, Markdown, configuration) sits: path and 1-based line range."""

    path: str
    start: int
    end: int

    def __str__(self) -> str:
        return f"{self.path}:{self.start}" if self.start == self.end else f"{self.path}:{self.start}-{self.end}"

    @classmethod
    def of(cls, chunk: Mapping[str, Any]) -> Lines | None:
        """From a chunk's stored `path`, `line_start` and `line_end` (0 or absent: a prose chunk, no lines)."""
        start, end = chunk.get("line_start") or 0, chunk.get("line_end") or 0
        return cls(path=str(chunk["path"]), start=int(start), end=int(end)) if start and chunk.get("path") else None


class Citation(BaseModel):
    """A pointer into the evidence: a chunk (or community) id with the verbatim span it supports."""

    chunk_id: str
    span: str = ""
    document_name: str = ""
    score: float | None = None
    kind: Literal["chunk", "community", "node"] = "chunk"
    lines: Lines | None = None
    #: Share (0-1) of the span's words found in one run in the cited text; None when that text was not at hand.
    match: float | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def source(self) -> str:
        """How a reader finds it: `path:start-end` for a repository file, else the document's name (or the id)."""
        return str(self.lines) if self.lines else self.document_name or self.chunk_id


class KeyFact(BaseModel):
    fact: str
    citations: list[Citation] = Field(default_factory=list)


class Hit(BaseModel):
    """One retrieved item (chunk, entity or community) with its fused score and provenance."""

    id: str
    kind: Literal["chunk", "entity", "community", "memory"] = "chunk"
    text: str = ""
    score: float = 0.0
    document_id: str | None = None
    document_name: str | None = None
    lines: Lines | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    sources: dict[str, float] = Field(default_factory=dict)  # per-arm scores: vector, fulltext, graph


class TraceStep(BaseModel):
    """One node of a mode's reasoning tree (DRIFT primer/follow-up/aggregation, agent iteration...)."""

    id: str
    parent_id: str | None = None
    kind: str = "step"
    question: str = ""
    answer: str = ""
    confidence: float | None = None
    round: int = 0
    chunk_ids: list[str] = Field(default_factory=list)
    communities: list[str] = Field(default_factory=list)
    duration_ms: float = 0.0
    details: dict[str, Any] = Field(default_factory=dict)


class PhaseUsage(BaseModel):
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    wall_ms: float = 0.0


class Usage(BaseModel):
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    wall_ms: float = 0.0
    phases: dict[str, PhaseUsage] = Field(default_factory=dict)

    def add_call(self, phase: str, prompt_tokens: int, completion_tokens: int, cost_usd: float) -> None:
        entry = self.phases.setdefault(phase, PhaseUsage())
        entry.calls += 1
        entry.prompt_tokens += prompt_tokens
        entry.completion_tokens += completion_tokens
        entry.cost_usd += cost_usd
        self.llm_calls += 1
        self.prompt_tokens += prompt_tokens
        self.completion_tokens += completion_tokens
        self.cost_usd += cost_usd

    def add_time(self, phase: str, wall_ms: float) -> None:
        self.phases.setdefault(phase, PhaseUsage()).wall_ms += wall_ms


class ConfidencePart(BaseModel):
    """One ingredient of an answer's confidence; `value` None means it could not be judged (and weighs nothing)."""

    name: str
    label: str
    value: float | None = None
    weight: float = 0.0
    detail: str = ""


class Confidence(BaseModel):
    """How sure an answer is (0-1), the parts it is made of, and one sentence on what is weak when it is low."""

    score: float = 0.0
    parts: list[ConfidencePart] = Field(default_factory=list)
    limitation: str = ""


class Answer(BaseModel):
    """What every mode returns; `answered_by` tells the reader whether a model wrote it."""

    question: str
    mode: Mode
    answered_by: AnsweredBy
    final_answer: str = ""
    key_facts: list[KeyFact] = Field(default_factory=list)
    residual_uncertainty: str = ""
    no_data_found: bool = False
    #: Set with the confidence (`retrieval.judge.answerability.decide`), in every mode.
    outcome: Outcome = "answered"
    status: str = "ok"
    notes: list[str] = Field(default_factory=list)
    evidence: list[Hit] = Field(default_factory=list)
    trace: list[TraceStep] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    confidence: Confidence | None = None
    #: The knobs the answer was made with (QueryParams as a dict): exports record them, the UI compares them.
    params: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def empty(cls, question: str, mode: Mode, answered_by: AnsweredBy, note: str = "No data found") -> Answer:
        return cls(question=question, mode=mode, answered_by=answered_by, no_data_found=True, notes=[note])

    def citations(self) -> list[Citation]:
        return [c for fact in self.key_facts for c in fact.citations]


class RetrievalKnobs(BaseModel):
    """The tunable retrieval knobs, declared once: Settings holds their defaults, QueryParams a question's values."""

    #: Chunk search: `vector`, `fulltext` or `hybrid` (both, fused).
    search_type: Literal["vector", "fulltext", "hybrid"] = "hybrid"
    #: How hybrid search fuses the two rankings: `linear` (weighted scores) or `rrf` (reciprocal rank).
    fusion: Literal["linear", "rrf"] = "linear"
    #: 0.6: the best hybrid R@5 on both dev sets, alone and with the graph (benchmarks/eval_retrieval.py).
    alpha: float = Field(0.6, ge=0.0, le=1.0)
    #: The k of reciprocal rank fusion.
    rrf_k: int = Field(60, ge=1)
    #: Chunks a search returns.
    top_k: int = Field(10, ge=1, le=200)
    #: Graph expansion hops around the question's entities (0: plain hybrid search).
    max_hops: int = Field(2, ge=0, le=5)
    #: Most entities a graph expansion visits.
    max_nodes: int = Field(100, ge=1, le=5000)
    #: How much graph expansion discounts hub entities (by log degree).
    degree_penalty: float = Field(0.5, ge=0.0)
    #: Weight of an entity's recency in graph expansion.
    recency_weight: float = Field(0.1, ge=0.0, le=1.0)
    #: Graph expansion stops once the drift scores of the entities it reached add up to this (0: no budget).
    drift_budget: float = Field(0.0, ge=0.0)
    #: Which RELATED edges expansion follows from an entity: `out` (source to target), `in`, or `both`;
    #: an edge without a direction (co-occurrence) is followed either way.
    expansion_direction: Literal["out", "in", "both"] = "both"
    #: DRIFT follow-up rounds after the primer.
    drift_rounds: int = Field(2, ge=0, le=5)
    #: DRIFT follow-up questions per round.
    drift_followups_per_round: int = Field(3, ge=1, le=10)
    #: Communities the DRIFT primer reads.
    drift_primer_communities: int = Field(5, ge=1, le=50)
    #: Community level global mode reads; unset: chosen per question.
    global_level: int | None = None


class QueryParams(RetrievalKnobs):
    """Per-question knobs (the UI sliders); defaults come from Settings, each call may override any."""

    filters: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def from_settings(cls, settings: Any, **overrides: Any) -> QueryParams:
        values = {name: getattr(settings, name) for name in cls.model_fields if hasattr(settings, name)}
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)
