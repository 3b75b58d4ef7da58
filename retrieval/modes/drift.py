"""DRIFT search: a community primer, follow-up questions answered in parallel rounds, one aggregation.

Why this shape (Microsoft's DRIFT, adapted): community reports give a broad first answer and tell
where the gaps are; follow-ups then search only the chunks of the communities that should hold
the answer (vector + fulltext, plus neighbourhood expansion), so each local answer is focused and
cheap. Every step has an extractive counterpart, so the tree is real with or without a model.

Citations are checked against everything any step retrieved (not just what fit a prompt): an id
never retrieved is dropped and logged, and spans are verified against the chunk text (a span the chunk does not
hold leaves the citation as its bare chunk id). One `citation_summary` event per answer counts all the checks.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any

import numpy as np

from retrieval.context import Context
from retrieval.models import Answer, Citation, Hit, KeyFact, QueryParams, TraceStep
from retrieval.modes import drift_prompts as prompts
from retrieval.modes.drift_followups import FollowUp
from retrieval.modes.drift_offline import best_score, offline_confidence, primer_answer, question_ranked
from retrieval.modes.drift_state import DriftState
from retrieval.modes.steps import ask_json, ask_text, clamp01, emit, timed
from retrieval.search.boilerplate import project_boilerplate
from retrieval.search.communities import community_levels, search_communities
from retrieval.search.community_context import CommunityReport, community_reports
from retrieval.search.evidence import (
    answer_lead,
    shortlist,
)
from retrieval.search.expand import expand
from retrieval.search.fact_pool import cited_extra, fact_pool
from retrieval.search.hybrid import search_chunks, search_entities
from retrieval.search.ranking import retrieve
from retrieval.search.turns import with_opening_speakers
from retrieval.telemetry.events import PHASE_PCT, RetrievalProgress, aggregation_details, followup_details, followup_pct

MIN_PRIMER_FOLLOWUPS, MAX_PRIMER_FOLLOWUPS = 2, 6
MAX_CHILD_FOLLOWUPS = 3
CHUNKS_PER_COMMUNITY = 3
FOLLOWUP_TOP_K = 6
EXPANSION_CHUNKS = 3
#: Follow-ups are already scoped to their communities: a one-hop neighbourhood adds context cheaply.
EXPANSION_HOPS = 1
EXPANSION_NODES = 25
#: Chunks whose sentences an offline follow-up ranks (embedding sentences dominates its cost).
FACT_POOL = 3
SEED_ENTITIES = 3
FOLLOWUP_FACTS = 3
#: Sentences an offline follow-up embeds: its three facts come from the best few of a lexical shortlist.
FOLLOWUP_EMBEDDED = 8
KEY_FACTS = 5
#: Offline primer follow-ups about the entities the best direct hits name (the second hop), before community ones.
BRIDGE_FOLLOWUPS = 3
#: Chunks the final step reads (cited ones first); the model may still cite any retrieved chunk.
AGGREGATE_POOL = 12


@dataclass(frozen=True)
class Gathered:
    """A follow-up's retrieval: when it started, its scope's size, the expansion seeds and the evidence."""

    started: float
    scoped: int
    seeds: list[str]
    evidence: list[Hit]


def answer(ctx: Context, question: str, params: QueryParams, progress: RetrievalProgress | None) -> Answer:
    return DriftRun(ctx, question, params, progress).run()


class DriftRun(DriftState):
    """The phases of one DRIFT answer (HyDE, primer, follow-up rounds, aggregation) over its `DriftState`."""

    # --- the run ----------------------------------------------------------------------------
    def run(self) -> Answer:
        self.expand_query()
        reports, primer_hits = self.primer_evidence()
        if not reports and not primer_hits:
            empty = Answer.empty(
                self.question, "drift", self.answered_by(False), "No relevant data found in the graph."
            )
            empty.usage = self.usage
            return empty
        open_followups = self.prime(reports, primer_hits)
        with timed(self.usage, "followup"):
            leftover = self.explore(open_followups)
        answer = self.aggregate(leftover)
        if self.citation_check.checked:
            self.citation_check.log_summary("drift")
        return answer

    def expand_query(self) -> None:
        thought = (
            "Writing a hypothetical answer (HyDE)" if self.llm else "Embedding the question (no LLM: HyDE skipped)"
        )
        emit(self.progress, "expanding_query", PHASE_PCT["expanding_query"], thought)
        with timed(self.usage, "hyde"):
            if self.llm is not None:
                self.hyde, notes = ask_text(
                    self.llm, prompts.messages(prompts.HYDE_PROMPT, ("Question", self.question)), "hyde", self.usage
                )
                self.notes.extend(notes)
            vectors = self.embedder.embed([self.question, self.hyde] if self.hyde else [self.question])
        self.question_vector = vectors[0]
        combined = vectors.sum(axis=0)
        self.search_vector = (combined / max(float(np.linalg.norm(combined)), 1e-12)).astype(np.float32)

    # --- phase 2: primer ----------------------------------------------------------------------
    def select_communities(self) -> list[Hit]:
        """Top-k by embedding, coarsest level first; one level finer while fewer than k/2 were found."""
        k = self.params.drift_primer_communities
        vector = self.search_vector.tolist()
        levels = sorted(community_levels(self.ctx), reverse=True)
        if len(levels) <= 1:
            return search_communities(self.ctx, vector, k)
        found: list[Hit] = []
        for level in levels:
            found.extend(search_communities(self.ctx, vector, k, level=level))
            if len(found) >= k / 2:
                break
        return found[:k]

    def primer_evidence(self) -> tuple[list[CommunityReport], list[Hit]]:
        emit(self.progress, "retrieving_communities", PHASE_PCT["retrieving_communities"], "Ranking communities")
        with timed(self.usage, "primer"):
            selected = self.select_communities()
            self.community_scores = {h.id: h.score for h in selected}
            by_id = community_reports(self.ctx, [h.id for h in selected])
            reports = [by_id[h.id] for h in selected if h.id in by_id]
            self.communities.update((r.id, r) for r in reports)
            hits = self.representative_chunks(reports)
            if self.llm is None:  # the extractive answer starts from the question's own hits, as local search does
                vector = self.question_vector.tolist()
                found = retrieve(self.ctx, self.question, self.params, query_vector=vector, walk=False)
                self.direct, self.hit_entities = found.chunks, found.hit_entities
                hits = [*self.direct, *hits]
            elif not reports:  # a graph without communities: the primer reads the best chunks instead
                params = self.params.model_copy(update={"top_k": FOLLOWUP_TOP_K})
                hits = search_chunks(self.ctx, self.question, params, query_vector=self.search_vector.tolist())
        return reports, _unique(hits)

    def representative_chunks(self, reports: list[CommunityReport]) -> list[Hit]:
        """Up to 3 chunks per community, its best matches from one search over all their chunks."""
        scopes = {r.id: set(self.scopes.chunks((r.id,))) for r in reports}
        union = sorted(set().union(*scopes.values())) if scopes else []
        if not union:
            return []
        ranked = self.scopes.search(
            self.question, self.search_vector, union, min(len(union), 4 * CHUNKS_PER_COMMUNITY * len(reports))
        )
        picked: list[Hit] = []
        for report in reports:
            picked.extend([h for h in ranked if h.id in scopes[report.id]][:CHUNKS_PER_COMMUNITY])
        return picked

    def prime(self, reports: list[CommunityReport], hits: list[Hit]) -> list[FollowUp]:
        started = time.perf_counter()
        self.remember(hits, own=True)
        parsed: dict[str, Any] | None = None
        notes: list[str] = []
        with timed(self.usage, "primer"):
            if self.llm is not None:
                parsed, notes = ask_json(
                    self.llm,
                    prompts.messages(
                        prompts.PRIMER_PROMPT,
                        ("Question", self.question),
                        ("Community reports", prompts.community_block(reports)),
                        ("Excerpts", prompts.chunk_block(hits)),
                    ),
                    schema=prompts.PRIMER_SCHEMA,
                    name="drift_primer",
                    phase="primer",
                    usage=self.usage,
                )
            targets = tuple(r.id for r in reports)
            if parsed is not None:
                text, confidence = str(parsed["answer"]), clamp01(parsed["confidence"])
                followups = self.planner.from_model(
                    parsed["follow_ups"], "primer", MAX_PRIMER_FOLLOWUPS, targets, set(self.communities)
                )
            else:
                facts = [] if reports else self.facts(self.question, self.question_vector, hits, FOLLOWUP_FACTS)
                text = primer_answer(self.question, reports) or " ".join(f.fact for f in facts)
                scores = [self.community_scores.get(r.id, 0.0) for r in reports]
                confidence = offline_confidence(max(scores) if scores else best_score(facts))
                followups = self.planner.from_bridges(self.hit_entities, "primer", BRIDGE_FOLLOWUPS)
            if len(followups) < MIN_PRIMER_FOLLOWUPS:
                followups += self.planner.from_entities(targets, "primer", MAX_PRIMER_FOLLOWUPS - len(followups))
        self.notes.extend(notes)
        step = TraceStep(
            id="primer",
            kind="primer",
            question=self.question,
            answer=text,
            confidence=confidence,
            round=0,
            chunk_ids=[h.id for h in hits],
            communities=list(targets),
            duration_ms=(time.perf_counter() - started) * 1000,
            details={
                "hyde": self.hyde,
                "answered_by": "llm" if parsed is not None else "extractive",
                "follow_ups": [f.question for f in followups],
                "notes": notes,
            },
        )
        self.steps[step.id] = step
        emit(
            self.progress,
            "retrieving_communities",
            PHASE_PCT["retrieving_communities"],
            f"Initial answer from {len(reports)} communities; {len(followups)} follow-ups",
            details_md="\n".join(f"- {r.title}" for r in reports),
            step=step,
        )
        return followups

    # --- phase 3: follow-ups in rounds ----------------------------------------------------------
    def explore(self, open_followups: list[FollowUp]) -> list[FollowUp]:
        """Up to `drift_rounds` rounds; each runs the best-ranked open follow-ups concurrently."""
        rounds, cap = self.params.drift_rounds, self.params.drift_followups_per_round
        done = 0
        for round_no in range(1, rounds + 1):
            if not open_followups:
                break
            self.embed_followups(open_followups)
            open_followups.sort(key=FollowUp.rank_key)
            batch, open_followups = open_followups[:cap], open_followups[cap:]
            planned = done + len(batch) + cap * (rounds - round_no)
            ids = [f"f{len(self.steps) + i}" for i in range(len(batch))]
            for step_id in ids:  # reserve the tree order now: steps finish in any order
                self.steps[step_id] = TraceStep(id=step_id)
            workers = max(1, min(self.ctx.settings.llm_concurrency, len(batch)))
            with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="drift") as pool:
                if self.llm is None:  # search concurrently, embed the round's sentences at once, then answer
                    gathered = list(pool.map(self.gather, batch))
                    self.prefetch(batch, gathered)
                    futures = [
                        pool.submit(self.answer_followup, f, g, i, round_no)
                        for f, g, i in zip(batch, gathered, ids, strict=True)
                    ]
                else:
                    futures = [pool.submit(self.follow, f, i, round_no) for f, i in zip(batch, ids, strict=True)]
                for future in as_completed(futures):
                    step, children = future.result()
                    self.steps[step.id] = step
                    done += 1
                    citations = [Citation(**c) for c in step.details.get("citations", [])]
                    emit(
                        self.progress,
                        "executing_followup",
                        followup_pct(done, planned),
                        f"Follow-up {done} of {planned}: {step.question}",
                        details_md=followup_details(citations),
                        step=step,
                    )
                    open_followups.extend(children)
        return open_followups

    def follow(self, followup: FollowUp, step_id: str, round_no: int) -> tuple[TraceStep, list[FollowUp]]:
        """Retrieval and the answer in one worker thread, so one follow-up's search overlaps another's model call."""
        return self.answer_followup(followup, self.gather(followup), step_id, round_no)

    def gather(self, followup: FollowUp) -> Gathered:
        """Scoped retrieval, plus neighbourhood expansion when the answer can use it (runs in a worker thread).

        Offline, the answer reads only the best FACT_POOL scoped chunks: when the scope already
        supplies them, expansion would cost two searches whose chunks nobody reads, so it is skipped.
        """
        started = time.perf_counter()
        params = self.params.model_copy(update={"top_k": min(self.params.top_k, FOLLOWUP_TOP_K)})
        scope = self.scopes.chunks(followup.targets)
        hits = self.scopes.search(followup.query, followup.vector, scope, params.top_k)
        seeds: list[Hit] = []
        chunks: list[Hit] = []
        if self.llm is not None or len(hits) < FACT_POOL:
            vector = followup.vector.tolist() if followup.vector is not None else None
            seeds = search_entities(self.ctx, followup.query, params, query_vector=vector, k=SEED_ENTITIES)
            light = params.model_copy(
                update={
                    "max_hops": min(params.max_hops, EXPANSION_HOPS),
                    "max_nodes": min(params.max_nodes, EXPANSION_NODES),
                }
            )
            chunks = expand(self.ctx, [s.id for s in seeds], light, chunk_limit=EXPANSION_CHUNKS).chunks
        evidence = with_opening_speakers(self.ctx, _unique([*hits, *chunks]))
        self.remember(evidence)
        return Gathered(started, len(scope), [s.id for s in seeds], evidence)

    def prefetch(self, followups: Sequence[FollowUp], gathered: Sequence[Gathered]) -> None:
        """Embed every offline answer's shortlisted sentences of a round in one call (they are memoised).

        One batch of ~50 sentences runs at about twice the rate of three concurrent batches of ~16.
        """
        self.embedder.embed(
            [
                c.said
                for followup, found in zip(followups, gathered, strict=True)
                for c in shortlist(
                    followup.query, found.evidence[:FACT_POOL], FOLLOWUP_EMBEDDED, project_boilerplate(self.ctx)
                )
            ]
        )

    def answer_followup(
        self, followup: FollowUp, found: Gathered, step_id: str, round_no: int
    ) -> tuple[TraceStep, list[FollowUp]]:
        """A local answer with citations and 0-3 new follow-ups, from the gathered evidence."""
        evidence = found.evidence
        parsed: dict[str, Any] | None = None
        notes: list[str] = []
        if self.llm is not None:
            parsed, notes = ask_json(
                self.llm,
                prompts.messages(
                    prompts.FOLLOWUP_PROMPT,
                    ("Original question", self.question),
                    ("Follow-up question", followup.question),
                    ("Communities you may target", self.community_list()),
                    ("Excerpts", prompts.chunk_block(evidence)),
                ),
                schema=prompts.FOLLOWUP_SCHEMA,
                name="drift_followup",
                phase="followup",
                usage=self.usage,
            )
        if parsed is not None:
            text, confidence = str(parsed["answer"]), clamp01(parsed["confidence"])
            kept = self.validate(
                [KeyFact(fact=text, citations=[Citation(chunk_id=str(i)) for i in parsed["citations"]])]
            )
            citations = kept[0].citations if kept else []
            go_on = bool(parsed["should_continue"])
            children = self.planner.from_model(
                parsed["follow_ups"], step_id, MAX_CHILD_FOLLOWUPS, followup.targets, set(self.communities)
            )
            children = children if go_on else []
        else:
            facts = self.facts(followup.query, followup.vector, evidence[:FACT_POOL], FOLLOWUP_FACTS, FOLLOWUP_EMBEDDED)
            text = " ".join(f.fact for f in facts)
            citations = [c for f in facts for c in f.citations]
            confidence = offline_confidence(best_score(facts))
            children = self.planner.from_entities(followup.targets, step_id, MAX_CHILD_FOLLOWUPS)
            go_on = bool(children)
        with self._lock:
            self.notes.extend(notes)
        step = TraceStep(
            id=step_id,
            parent_id=followup.parent_id,
            kind="followup",
            question=followup.question,
            answer=text,
            confidence=confidence,
            round=round_no,
            chunk_ids=[h.id for h in evidence],
            communities=list(followup.targets),
            duration_ms=(time.perf_counter() - found.started) * 1000,
            details={
                "priority": followup.priority,
                "relevance": followup.relevance,
                "scoped_chunks": found.scoped,
                "expanded_from": found.seeds,
                "citations": [c.model_dump() for c in citations],
                "should_continue": go_on,
                "follow_ups": [c.question for c in children],
                "answered_by": "llm" if parsed is not None else "extractive",
                "notes": notes,
            },
        )
        return step, children

    # --- phase 4: aggregation -----------------------------------------------------------------
    def aggregate(self, leftover: list[FollowUp]) -> Answer:
        emit(self.progress, "aggregating_results", PHASE_PCT["aggregating_results"], "Combining the answers")
        started = time.perf_counter()
        tree = [s for s in self.steps.values() if s.answer]
        parsed: dict[str, Any] | None = None
        notes: list[str] = []
        with timed(self.usage, "aggregate"):
            if self.llm is not None:
                parsed, notes = ask_json(
                    self.llm,
                    prompts.messages(
                        prompts.AGGREGATE_PROMPT,
                        ("Question", self.question),
                        ("Answer tree", prompts.tree_block(tree)),
                        ("Excerpts", prompts.chunk_block(self.aggregation_pool(tree))),
                    ),
                    schema=prompts.AGGREGATE_SCHEMA,
                    name="drift_aggregate",
                    phase="aggregate",
                    usage=self.usage,
                )
            open_note = _open_note(leftover)
            if parsed is not None:
                facts = self.validate([prompts.model_fact(f) for f in parsed["key_facts"] if isinstance(f, dict)])
                final = str(parsed["final_answer"])
                uncertainty = " ".join(p for p in (str(parsed["residual_uncertainty"]), open_note) if p)
            else:
                vector = self.question_vector.tolist()
                pool = fact_pool(self.ctx, self.question, self.params, self.offline_pool(), vector)
                facts = self.facts(self.question, self.question_vector, pool, KEY_FACTS)
                self.remember(cited_extra(facts, list(self.retrieved.values()), pool))  # every cited chunk is evidence
                final = answer_lead(facts)
                uncertainty = " ".join(
                    p
                    for p in (
                        "Answered extractively (no language model): the key facts are the evidence sentences "
                        "closest to the question, not a synthesis; check them against the sources.",
                        open_note,
                    )
                    if p
                )
        self.notes.extend(notes)
        citations = [c for f in facts for c in f.citations]
        step = TraceStep(
            id="aggregate",
            kind="aggregate",
            question=self.question,
            answer=final,
            round=max((s.round for s in tree), default=0),
            chunk_ids=list(dict.fromkeys(c.chunk_id for c in citations)),
            duration_ms=(time.perf_counter() - started) * 1000,
            details={
                "answered_by": "llm" if parsed is not None else "extractive",
                "open_follow_ups": [f.question for f in sorted(leftover, key=FollowUp.rank_key)],
                "retrieved_chunks": len(self.retrieved),
                "notes": notes,
            },
        )
        self.steps[step.id] = step
        emit(
            self.progress,
            "aggregating_results",
            PHASE_PCT["aggregating_results"],
            f"{len(facts)} key facts from {len(tree)} answers",
            details_md=aggregation_details(citations),
            step=step,
        )
        return Answer(
            question=self.question,
            mode="drift",
            answered_by=self.answered_by(parsed is not None),
            final_answer=final,
            key_facts=facts,
            residual_uncertainty=uncertainty,
            notes=self.notes,
            evidence=sorted(self.retrieved.values(), key=lambda h: -h.score),
            trace=[s for s in self.steps.values() if s.kind != "step"],
            usage=self.usage,
        )

    def aggregation_pool(self, tree: Sequence[TraceStep]) -> list[Hit]:
        """The model's excerpts for the aggregation: chunks the steps cited first, then the best-scored rest."""
        cited = [
            str(c["chunk_id"])
            for step in tree
            for c in step.details.get("citations", [])
            if str(c["chunk_id"]) in self.retrieved
        ]
        first = [self.retrieved[i] for i in dict.fromkeys(cited)]
        rest = sorted((h for h in self.retrieved.values() if h.id not in set(cited)), key=lambda h: -h.score)
        return [*first, *rest][:AGGREGATE_POOL]

    def offline_pool(self) -> list[Hit]:
        """The direct hits and, ranked among them by the question's own search, what the follow-ups retrieved."""
        with self._lock:
            direct = {h.id for h in self.direct}
            others = [i for i in self.retrieved if i not in direct]
        rescored: list[Hit] = []
        if others:
            params = self.params.model_copy(update={"top_k": len(others)})
            vector = self.question_vector.tolist()
            rescored = search_chunks(self.ctx, self.question, params, query_vector=vector, restrict_ids=others)
        return question_ranked(self.direct, rescored, AGGREGATE_POOL)


def _unique(hits: Iterable[Hit]) -> list[Hit]:
    seen: dict[str, Hit] = {}
    for hit in hits:
        seen.setdefault(hit.id, hit)
    return list(seen.values())


def _open_note(leftover: Sequence[FollowUp]) -> str:
    if not leftover:
        return ""
    best = sorted(leftover, key=FollowUp.rank_key)[:3]
    return f"{len(leftover)} follow-up(s) left unexplored, e.g.: " + "; ".join(f.question for f in best)
