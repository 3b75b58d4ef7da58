"""Global search: map over the community reports relevant to the question, reduce the best points.

Why select before mapping: GraphRAG's global search maps over every report at a level, so its cost
grows with the graph. Here the reports nearest the question (by embedding) are kept while they stay
within a margin of the best one, capped at `global_max_communities`; the map step then costs
ceil(selected / global_map_batch) calls however large the graph grows. Offline, with no model to read a
report, the map searches the passages beneath each batch's communities for the question (`CommunityScope`), and
the reduce quotes their best sentences as local mode chooses them (`extractive_facts`), the first from as many
documents as have one before a second from any (`across_documents`): a question about the corpus ("Which guests
talk about robots?") is answered by what several documents say, grouped under the communities they come from;
citations point at the passages. Why not the summaries' sentences, as before: an offline summary is a community's
leading sentences, mostly introductions ("today, we're continuing our conversation about AI"), so on the demo's
cross-episode tuning questions one answer in 21 quoted a gold sentence (docs/benchmarks.md, branch wt106).
A question that asks for the collection's themes and nothing more selects the communities with the most
evidence instead (`global_themes.py`), and offline each theme's facts are its summary's leading sentences, citing
the community (`Citation.kind == "community"`) with a span verbatim from the summary.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any

import numpy as np

from retrieval.context import Context
from retrieval.llm.json_schema import NUMBER, STRING, array, final_answer, obj
from retrieval.models import Answer, AnsweredBy, Hit, KeyFact, QueryParams, TraceStep, Usage
from retrieval.modes import global_themes
from retrieval.modes.drift_prompts import excerpt, messages
from retrieval.modes.drift_scope import CommunityScope
from retrieval.modes.global_reduce import THEME_SENTENCES, Point, community_citation, passage_answer, theme_answer
from retrieval.modes.steps import ask_json, emit, timed
from retrieval.search.communities import community_levels, search_communities
from retrieval.search.community_context import (
    CommunityReport,
    community_chunk_ids,
    community_reports,
    count_communities,
)
from retrieval.search.evidence import distinct, sentences
from retrieval.search.filler import never_a_fact
from retrieval.telemetry.events import PHASE_PCT, RetrievalProgress, aggregation_details, followup_pct

log = logging.getLogger(__name__)

#: Keep a candidate while its similarity is at least this share of the best one's (a model maps them: each
#: batch is a call). Offline the map costs no call, and a report's summary is a poor guide to what its passages
#: say, so every candidate up to `global_max_communities` is searched (cross-episode tuning questions of the demo:
#: hit@5 0.43 at 0.8, 0.48 at 0.6, 0.62 at 0; docs/benchmarks.md, branch wt106).
RELATIVE_CUTOFF = 0.8
OFFLINE_CUTOFF = 0.0
REDUCE_POINTS = 20
REPORT_CHARS = 1500
#: Offline map: passages searched beneath each batch of communities. Why not 16: it lifted the demo's
#: cross-episode tuning questions (hit@5 0.57 -> 0.62) but held out global stayed at main's 0.43 and its episode
#: recall fell 0.54 -> 0.51 (docs/benchmarks.md, branch wt110).
PASSAGES_PER_BATCH = 8

MAP_SCHEMA: dict[str, Any] = obj(
    {"points": array(obj({"description": STRING, "score": NUMBER, "communities": array(STRING)}))}
)
REDUCE_SCHEMA: dict[str, Any] = final_answer(array(STRING), "communities")
MAP_PROMPT = (
    "You read community reports of a knowledge graph and list the points that help answer the question. "
    "Each point has a description, an importance score from 0 (irrelevant) to 100, and the ids of the "
    "communities (from the [community ...] headers) that support it. Use only the reports."
)
REDUCE_PROMPT = (
    "You write the final answer to the question from the ranked points below (higher score = more important). "
    "Give key facts, each citing the community ids it rests on, and state what remains uncertain. "
    "Use only the points."
)


def answer(ctx: Context, question: str, params: QueryParams, progress: RetrievalProgress | None) -> Answer:
    return GlobalRun(ctx, question, progress, params).run(params.global_level)


class GlobalRun:
    """One global answer: select, map in parallel batches, reduce; usage and notes shared by the map threads."""

    def __init__(self, ctx: Context, question: str, progress: RetrievalProgress | None, params: QueryParams) -> None:
        self.ctx = ctx
        self.scope = CommunityScope(ctx, params)
        #: Offline map: the passages found beneath the communities, by id, and the community each was found under.
        self.passages: dict[str, Hit] = {}
        self.passage_community: dict[str, str] = {}
        self.question = question
        self.progress = progress
        self.usage = Usage()
        self.notes: list[str] = []
        self.question_vector = np.zeros(ctx.embedder.dim, dtype=np.float32)
        self.reports: dict[str, CommunityReport] = {}
        #: The question asks for the collection's themes: the largest communities answer it, not the nearest.
        self.themes_asked = global_themes.theme_question(question)
        self.theme_scores: dict[str, float] = {}
        self._lock = threading.Lock()

    def run(self, level: int | None) -> Answer:
        emit(self.progress, "retrieving_communities", PHASE_PCT["retrieving_communities"], "Selecting communities")
        select_step, selected, batches = self.select(level)
        if not batches:
            empty = Answer.empty(
                self.question, "global", _by(self.ctx.llm is not None), "No relevant communities found."
            )
            empty.usage, empty.trace = self.usage, [select_step]
            return empty
        with timed(self.usage, "map"):
            map_steps, points = self.map(batches)
        emit(self.progress, "aggregating_results", PHASE_PCT["aggregating_results"], f"Reducing {len(points)} points")
        started = time.perf_counter()
        with timed(self.usage, "reduce"):
            facts, final, uncertainty, by_llm = self.reduce(points)
        citations = [c for f in facts for c in f.citations]
        passages = sorted(self.passages.values(), key=lambda h: -h.score)
        search_step = TraceStep(
            id="passages",
            parent_id="select",
            kind="search",
            question=self.question,
            answer=f"{len(passages)} passages beneath the selected communities",
            chunk_ids=[h.id for h in passages],
        )
        reduce_step = TraceStep(
            id="reduce",
            parent_id="select",
            kind="aggregate",
            question=self.question,
            answer=final,
            communities=list(dict.fromkeys(c.chunk_id for c in citations)),
            duration_ms=(time.perf_counter() - started) * 1000,
            details={"points": len(points), "answered_by": _by(by_llm), "themes": self.themes_asked},
        )
        emit(
            self.progress,
            "aggregating_results",
            PHASE_PCT["aggregating_results"],
            f"{len(facts)} key facts",
            details_md=aggregation_details(citations),
            step=reduce_step,
        )
        return Answer(
            question=self.question,
            mode="global",
            answered_by=_by(by_llm),
            final_answer=final,
            key_facts=facts,
            residual_uncertainty=uncertainty,
            no_data_found=not (facts or final),
            notes=self.notes,
            evidence=[*selected, *passages],
            trace=[select_step, *map_steps, *([search_step] if passages else []), reduce_step],
            usage=self.usage,
        )

    def select(self, level: int | None) -> tuple[TraceStep, list[Hit], list[list[CommunityReport]]]:
        """Pick the level (the finest unless asked), then the relevant communities there, in map batches."""
        started = time.perf_counter()
        with timed(self.usage, "select"):
            self.question_vector = self.ctx.embedder.embed([self.question])[0]
            if self.themes_asked:
                if level is None:
                    counts = global_themes.level_counts(self.ctx)
                    level = global_themes.theme_level(sorted(counts), counts)
                selected = global_themes.theme_hits(self.ctx, level, self.ctx.settings.global_max_communities)
            else:
                if level is None:
                    levels = community_levels(self.ctx)
                    level = min(levels) if levels else None
                cutoff = RELATIVE_CUTOFF if self.ctx.llm is not None else OFFLINE_CUTOFF
                selected = select_communities(self.ctx, self.question_vector, level, cutoff)
            self.reports = community_reports(self.ctx, [h.id for h in selected])
            reports = [self.reports[h.id] for h in selected if h.id in self.reports]
            self.theme_scores = {h.id: h.score for h in selected}
            at_level = count_communities(self.ctx, level)
        size = self.ctx.settings.global_map_batch
        batches = [reports[i : i + size] for i in range(0, len(reports), size)]
        step = TraceStep(
            id="select",
            kind="select",
            question=self.question,
            answer=f"{len(reports)} of {at_level} communities at level {level} selected; {len(batches)} map batch(es)",
            communities=[r.id for r in reports],
            duration_ms=(time.perf_counter() - started) * 1000,
            details={
                "level": level,
                "communities_at_level": at_level,
                "selected": len(reports),
                "map_batches": len(batches),
                "scores": {h.id: round(h.score, 4) for h in selected},
            },
        )
        emit(
            self.progress,
            "retrieving_communities",
            PHASE_PCT["retrieving_communities"],
            step.answer,
            details_md="\n".join(f"- {r.title}" for r in reports),
            step=step,
        )
        return step, selected, batches

    def map(self, batches: list[list[CommunityReport]]) -> tuple[list[TraceStep], list[Point]]:
        """One map call per batch, batches in parallel; zero-score points are dropped."""
        steps: dict[int, TraceStep] = {}
        points: list[Point] = []
        workers = max(1, min(self.ctx.settings.llm_concurrency, len(batches)))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="global-map") as pool:
            futures = {pool.submit(self.map_batch, i, batch): i for i, batch in enumerate(batches)}
            for done, future in enumerate(as_completed(futures), start=1):
                step, found = future.result()
                steps[futures[future]] = step
                points.extend(found)
                pct = followup_pct(done, len(batches))
                emit(self.progress, "executing_followup", pct, f"Map batch {done} of {len(batches)}", step=step)
        return [steps[i] for i in sorted(steps)], points

    def map_batch(self, index: int, batch: list[CommunityReport]) -> tuple[TraceStep, list[Point]]:
        started = time.perf_counter()
        found: list[Point] | None = None
        notes: list[str] = []
        if self.ctx.llm is not None:
            found, notes = self.map_with_llm(batch)
        by_llm = found is not None
        if found is None:
            found = self.extractive_points(batch)
        with self._lock:
            self.notes.extend(notes)
        step = TraceStep(
            id=f"m{index + 1}",
            parent_id="select",
            kind="map",
            question=f"Map batch {index + 1}: " + "; ".join(r.title for r in batch),
            answer="\n".join(f"({p.score:g}) {p.description}" for p in sorted(found, key=lambda p: -p.score)),
            communities=[r.id for r in batch],
            duration_ms=(time.perf_counter() - started) * 1000,
            details={"points": len(found), "answered_by": _by(by_llm), "notes": notes},
        )
        return step, found

    def map_with_llm(self, batch: list[CommunityReport]) -> tuple[list[Point] | None, list[str]]:
        assert self.ctx.llm is not None
        ids = {r.id for r in batch}
        block = "\n\n".join(
            f"[community {r.id}] {r.title}\n{excerpt(r.full_content or r.summary, REPORT_CHARS)}" for r in batch
        )
        parsed, notes = ask_json(
            self.ctx.llm,
            messages(MAP_PROMPT, ("Question", self.question), ("Reports", block)),
            schema=MAP_SCHEMA,
            name="global_map",
            phase="map",
            usage=self.usage,
        )
        if parsed is None:
            return None, notes
        found = []
        for item in parsed["points"]:
            if not isinstance(item, dict):
                continue
            cited = tuple(c for c in map(str, item.get("communities") or []) if c in ids)
            score = _score(item.get("score"))
            if score > 0 and cited and str(item.get("description", "")).strip():
                found.append(Point(str(item["description"]).strip(), score, cited))
        return found, notes

    def extractive_points(self, batch: list[CommunityReport]) -> list[Point]:
        """Each report's summary sentences closest to the question, scored 0-100 by cosine similarity; for the
        collection's themes, each report's leading summary sentences, scored by its evidence against the best."""
        if self.themes_asked:
            return [
                Point(sentence, _score(self.theme_scores.get(r.id, 0.0) * 100), (r.id,))
                for r in batch
                for sentence in _distinct_sentences(r.summary)[:THEME_SENTENCES]
            ]
        return self.passage_points(batch)

    def passage_points(self, batch: list[CommunityReport]) -> list[Point]:
        """The batch's passages nearest the question (hybrid search beneath its communities), one point each,
        scored by their similarity to the question; the passages are kept for the reduce to quote."""
        chunk_community = {
            chunk: community
            for community, chunks in community_chunk_ids(self.ctx, [r.id for r in batch]).items()
            for chunk in chunks
        }
        if not chunk_community:  # an empty scope would search every passage
            return []
        found = self.scope.search(self.question, self.question_vector, sorted(chunk_community), PASSAGES_PER_BATCH)
        hits = [h for h in found if h.id in chunk_community]
        with self._lock:
            for hit in hits:
                if hit.id not in self.passages or hit.score > self.passages[hit.id].score:
                    self.passages[hit.id] = hit
                    self.passage_community[hit.id] = chunk_community[hit.id]
        return [
            Point(
                excerpt(hit.text, 200), _score(hit.sources.get("vector", hit.score) * 100), (chunk_community[hit.id],)
            )
            for hit in hits
        ]

    def reduce(self, points: list[Point]) -> tuple[list[KeyFact], str, str, bool]:
        top = sorted(points, key=lambda p: (-p.score, p.description))[:REDUCE_POINTS]
        if not top:
            return [], "", "None of the selected community reports bears on the question.", False
        if self.ctx.llm is not None:
            listing = "\n".join(
                f"[point {i + 1}] (score {p.score:g}; communities: {', '.join(p.communities)}) {p.description}"
                for i, p in enumerate(top)
            )
            parsed, notes = ask_json(
                self.ctx.llm,
                messages(REDUCE_PROMPT, ("Question", self.question), ("Points", listing)),
                schema=REDUCE_SCHEMA,
                name="global_reduce",
                phase="reduce",
                usage=self.usage,
            )
            self.notes.extend(notes)
            if parsed is not None:
                mapped = {c for p in points for c in p.communities}
                facts = [self.model_fact(item, mapped) for item in parsed["key_facts"] if isinstance(item, dict)]
                return facts, str(parsed["final_answer"]), str(parsed["residual_uncertainty"]), True
        if self.passages:
            facts, answer, uncertainty = passage_answer(
                self.ctx,
                self.question,
                self.question_vector,
                passages=self.passages,
                passage_community=self.passage_community,
                reports=self.reports,
                mapped=len(points),
            )
        else:
            facts, answer, uncertainty = theme_answer(self.ctx, top, len(points), self.reports, self.themes_asked)
        return facts, answer, uncertainty, False

    def model_fact(self, item: dict[str, Any], mapped: set[str]) -> KeyFact:
        """A reduce fact citing only communities that were mapped; others are dropped, logged and noted."""
        fact = str(item.get("fact", ""))
        cited = [str(c) for c in item.get("communities") or []]
        dropped = [c for c in cited if c not in mapped or c not in self.reports]
        if dropped:
            log.warning("dropped citations to communities never mapped: %s", ", ".join(dropped))
            self.notes.append(f"Dropped {len(dropped)} citation(s) to communities never mapped: {', '.join(dropped)}")
        kept = list(dict.fromkeys(c for c in cited if c not in dropped))
        return KeyFact(fact=fact, citations=[community_citation(self.reports[c], fact) for c in kept])


def select_communities(
    ctx: Context, question_vector: np.ndarray, level: int | None, cutoff: float = RELATIVE_CUTOFF
) -> list[Hit]:
    """Nearest reports at `level`, kept while within `cutoff` of the best: cost tracks relevance, not size."""
    candidates = search_communities(ctx, question_vector.tolist(), ctx.settings.global_max_communities, level=level)
    if not candidates:
        return []
    best = max(h.score for h in candidates)
    return [h for h in candidates if h.score > 0 and h.score >= best * cutoff]


def _distinct_sentences(summary: str) -> list[str]:
    """A summary's sentences, each said once (summaries repeat sentences from overlapping chunks), no filler."""
    found = [s for s in sentences(summary) if not never_a_fact(s)]
    return [found[i] for i in distinct(found)]


def _by(llm: bool) -> AnsweredBy:
    return "llm" if llm else "extractive"


def _score(value: Any) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return 0.0
    return 0.0 if math.isnan(number) else round(min(max(number, 0.0), 100.0), 1)
