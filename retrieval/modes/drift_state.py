"""One DRIFT answer's shared state and the bookkeeping every phase uses.

Why apart from the phases (drift.py): the worker threads of a round all write here (the retrieved set, notes,
citation checks) under one lock, so what they share and how it is guarded reads in one place.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence

import numpy as np

from retrieval.context import Context
from retrieval.models import AnsweredBy, Hit, KeyFact, QueryParams, TraceStep, Usage
from retrieval.modes.drift_followups import FollowUp, FollowUpPlanner
from retrieval.modes.drift_offline import MemoEmbedder, best_sentence
from retrieval.modes.drift_scope import CommunityScope
from retrieval.search.boilerplate import project_boilerplate
from retrieval.search.citations import CitationCheck, validate_citations
from retrieval.search.community_context import CommunityReport
from retrieval.search.evidence import MAX_EMBEDDED, extractive_facts
from retrieval.search.turns import with_opening_speakers
from retrieval.telemetry.events import RetrievalProgress

MIN_PRIMER_FOLLOWUPS, MAX_PRIMER_FOLLOWUPS = 2, 6


class DriftState:
    """The retrieved set, the tree, usage and notes of one DRIFT answer (shared by worker threads)."""

    def __init__(self, ctx: Context, question: str, params: QueryParams, progress: RetrievalProgress | None) -> None:
        self.ctx = ctx
        self.question = question
        self.params = params
        self.progress = progress
        self.llm = ctx.llm
        self.embedder = MemoEmbedder(ctx.embedder)
        self.usage = Usage()
        self.notes: list[str] = []
        self.steps: dict[str, TraceStep] = {}
        self.retrieved: dict[str, Hit] = {}
        self.communities: dict[str, CommunityReport] = {}
        self.community_scores: dict[str, float] = {}
        self.hyde = ""
        self.question_vector = np.zeros(ctx.embedder.dim, dtype=np.float32)
        self.search_vector = self.question_vector
        self._lock = threading.Lock()
        #: Ids of the chunks retrieved for the question itself, whose recorded copy keeps the question's scores.
        self._own: set[str] = set()
        self.planner = FollowUpPlanner(ctx, question)
        self.scopes = CommunityScope(ctx, params)
        #: Offline: the question's own retrieval (what local search reads) and the entities its best hits name.
        self.direct: list[Hit] = []
        self.hit_entities: dict[str, float] = {}
        #: Every citation check of this answer (follow-ups and aggregation), for its one summary event.
        self.citation_check = CitationCheck()

    def answered_by(self, by_llm: bool) -> AnsweredBy:
        return "llm" if by_llm else "extractive"

    # --- phase 1: HyDE ----------------------------------------------------------------------
    # --- helpers --------------------------------------------------------------------------------
    def remember(self, hits: Iterable[Hit], *, own: bool = False) -> None:
        """Record retrieved chunks as evidence; a chunk found more than once keeps its best-scored copy, except that
        a copy found for the question itself (`own`: the primer's) is never replaced by a follow-up's.

        Why: a hit's scores are its similarity to the query that found it, and the answer's confidence reads them
        as the evidence's similarity to the question (`judge.answerability`). A follow-up about an entity the
        passage names scores it far closer than the question does (cosine 0.61 against 0.32 for one passage of an
        unanswerable demo dev question), so keeping the follow-up's copy made DRIFT look answered where local,
        showing the same facts, did not."""
        with self._lock:
            for hit in hits:
                if hit.kind != "chunk" or hit.id in self._own:
                    continue
                if own:
                    self._own.add(hit.id)
                if own or hit.id not in self.retrieved or hit.score > self.retrieved[hit.id].score:
                    self.retrieved[hit.id] = hit

    def validate(self, facts: list[KeyFact]) -> list[KeyFact]:
        """Keep citations to retrieved chunks; bare ids get the chunk's closest sentence.

        Ids never retrieved are dropped, logged and noted; a span the chunk does not contain is noted, and its
        citation kept as the bare chunk id (`validate_citations`).
        """
        with self._lock:
            retrieved = dict(self.retrieved)
        unknown = list(dict.fromkeys(c.chunk_id for f in facts for c in f.citations if c.chunk_id not in retrieved))
        filled = [
            f.model_copy(
                update={
                    "citations": [
                        c.model_copy(update={"span": best_sentence(f.fact, retrieved[c.chunk_id].text)})
                        if c.chunk_id in retrieved and not c.span.strip()
                        else c
                        for c in f.citations
                    ]
                }
            )
            for f in facts
        ]
        kept, check = validate_citations(filled, retrieved)
        with self._lock:
            self.citation_check.add(check)
            if unknown:
                self.notes.append(f"Dropped citation(s) to chunks never retrieved: {', '.join(unknown)}")
            if check.fallback:
                self.notes.append(
                    f"{check.fallback} citation(s) whose quoted span is not in the cited chunk are given by "
                    "chunk id alone"
                )
        return kept

    def facts(
        self, question: str, vector: np.ndarray | None, hits: Sequence[Hit], limit: int, embedded: int = MAX_EMBEDDED
    ) -> list[KeyFact]:
        if not hits:
            return []
        query_vector = vector if vector is not None else self.embedder.embed([question])[0]
        return extractive_facts(
            question,
            [float(x) for x in query_vector],
            with_opening_speakers(self.ctx, hits),
            self.embedder,
            limit,
            embedded=embedded,
            skip=project_boilerplate(self.ctx),
        )

    def community_list(self) -> str:
        return "\n".join(f"- {r.id}: {r.title}" for r in self.communities.values())

    def embed_followups(self, followups: list[FollowUp]) -> None:
        """Vectors for retrieval and ranking; an offline follow-up's priority is its similarity to the question."""
        todo = [f for f in followups if f.vector is None]
        if not todo:
            return
        vectors = self.embedder.embed([f.query for f in todo])
        for followup, vector in zip(todo, vectors, strict=True):
            followup.vector = vector
            followup.relevance = float(vector @ self.question_vector)
            if followup.topic is not None:
                followup.priority = max(followup.relevance, 0.0)
