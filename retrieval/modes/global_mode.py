"""Global search: map over the community reports relevant to the question, reduce the best points.

Why select before mapping: GraphRAG's global search maps over every report at a level, so its cost
grows with the graph. Here the reports nearest the question (by embedding) are kept while they stay
within a margin of the best one, capped at `global_max_communities`; the map step then costs
ceil(selected / global_map_batch) calls however large the graph grows. Offline, the map scores each
summary sentence against the question and the reduce answers with themes: the best communities,
each with its title, size, key entities and its two most relevant summary sentences as key facts;
citations point at communities (`Citation.kind == "community"`) with a span verbatim from the summary.
A question that asks for the collection's themes and nothing more selects the communities with the most
evidence instead (`global_themes.py`), and offline each theme's facts are its summary's leading sentences.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any

import numpy as np

from retrieval.context import Context
from retrieval.llm.json_schema import NUMBER, STRING, array, final_answer, obj
from retrieval.models import Answer, AnsweredBy, Citation, Hit, KeyFact, QueryParams, TraceStep, Usage
from retrieval.modes import global_themes
from retrieval.modes.drift_offline import best_sentence
from retrieval.modes.drift_prompts import excerpt, messages
from retrieval.modes.steps import ask_json, emit, timed
from retrieval.search.communities import community_levels, search_communities
from retrieval.search.community_context import (
    CommunityReport,
    community_reports,
    community_sizes,
    count_communities,
    top_entities,
)
from retrieval.search.evidence import distinct, sentences
from retrieval.search.filler import never_a_fact
from retrieval.telemetry.events import PHASE_PCT, RetrievalProgress, aggregation_details, followup_pct
from retrieval.text.readable import clean_spoken

log = logging.getLogger(__name__)

#: Keep a candidate while its similarity is at least this share of the best one's.
RELATIVE_CUTOFF = 0.8
POINTS_PER_COMMUNITY = 3
REDUCE_POINTS = 20
KEY_FACTS = 5
#: Offline themes: communities shown, sentences and key entities per theme.
THEMES = 4
THEME_SENTENCES = 2
THEME_ENTITIES = 5
REPORT_CHARS = 1500

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


@dataclass(frozen=True)
class Point:
    description: str
    score: float
    communities: tuple[str, ...]


def answer(ctx: Context, question: str, params: QueryParams, progress: RetrievalProgress | None) -> Answer:
    return GlobalRun(ctx, question, progress).run(params.global_level)


class GlobalRun:
    """One global answer: select, map in parallel batches, reduce; usage and notes shared by the map threads."""

    def __init__(self, ctx: Context, question: str, progress: RetrievalProgress | None) -> None:
        self.ctx = ctx
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
            evidence=selected,
            trace=[select_step, *map_steps, reduce_step],
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
                selected = select_communities(self.ctx, self.question_vector, level)
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
        pool = [(r.id, s) for r in batch for s in _distinct_sentences(r.summary)]
        if not pool:
            return []
        scores = self.ctx.embedder.embed([s for _id, s in pool]) @ self.question_vector
        best: dict[str, list[Point]] = {}
        for (community, sentence), score in sorted(zip(pool, scores, strict=True), key=lambda item: -item[1]):
            point = Point(sentence, _score(score * 100), (community,))
            if point.score > 0 and len(best.setdefault(community, [])) < POINTS_PER_COMMUNITY:
                best[community].append(point)
        return [p for found in best.values() for p in found]

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
        return self.themes(top, len(points))

    def themes(self, top: list[Point], mapped: int) -> tuple[list[KeyFact], str, str, bool]:
        """The offline reduce: the best communities as titled themes (size, key entities), their best sentences
        as key facts; the answer lists the themes and points at their facts instead of repeating them."""
        kept = [top[i] for i in distinct([p.description for p in top])]
        by_theme: dict[str, list[Point]] = {}
        for point in kept:
            theme = by_theme.setdefault(point.communities[0], [])
            if len(theme) < THEME_SENTENCES and (len(by_theme) <= THEMES or theme):
                theme.append(point)
        by_theme = {c: pts for c, pts in by_theme.items() if pts}
        ids = list(by_theme)[:THEMES]
        sizes = community_sizes(self.ctx, ids)
        entities = top_entities(self.ctx, ids, THEME_ENTITIES)
        documents = global_themes.documents_under(self.ctx, ids) if self.themes_asked else {}
        facts: list[KeyFact] = []
        lines = [
            f"The {len(ids)} main theme(s), the communities with the most evidence:"
            if self.themes_asked
            else f"{len(ids)} theme(s) in the communities closest to the question:"
        ]
        for n, community in enumerate(ids, start=1):
            first = len(facts) + 1
            for p in by_theme[community]:
                facts.append(
                    KeyFact(
                        fact=clean_spoken(p.description),
                        citations=[_citation(self.reports[community], p.description, p.score)],
                    )
                )
            names = ", ".join(e.title for e in entities.get(community, []))
            refs = ", ".join(str(i) for i in range(first, len(facts) + 1))
            size = sizes.get(community, 0)
            lines.append(
                f"{n}. **{self.reports[community].title}** ({size} entities)"
                + (f"; key entities: {names}" if names else "")
                + (f"; from {documents[community]} document(s)" if community in documents else "")
                + f" [facts {refs}]"
            )
        how = (
            "the communities with the most source passages at the coarsest level that has several"
            if self.themes_asked
            else "the communities whose summary sentences are closest to the question"
        )
        uncertainty = (
            f"Answered extractively (no language model): the themes are {how}; {mapped} point(s) from "
            f"{len({c for p in top for c in p.communities})} communities were weighed."
        )
        return facts, "\n".join(lines), uncertainty, False

    def model_fact(self, item: dict[str, Any], mapped: set[str]) -> KeyFact:
        """A reduce fact citing only communities that were mapped; others are dropped, logged and noted."""
        fact = str(item.get("fact", ""))
        cited = [str(c) for c in item.get("communities") or []]
        dropped = [c for c in cited if c not in mapped or c not in self.reports]
        if dropped:
            log.warning("dropped citations to communities never mapped: %s", ", ".join(dropped))
            self.notes.append(f"Dropped {len(dropped)} citation(s) to communities never mapped: {', '.join(dropped)}")
        kept = list(dict.fromkeys(c for c in cited if c not in dropped))
        return KeyFact(fact=fact, citations=[_citation(self.reports[c], fact) for c in kept])


def select_communities(ctx: Context, question_vector: np.ndarray, level: int | None) -> list[Hit]:
    """Nearest reports at `level`, kept while within RELATIVE_CUTOFF of the best: cost tracks relevance, not size."""
    candidates = search_communities(ctx, question_vector.tolist(), ctx.settings.global_max_communities, level=level)
    if not candidates:
        return []
    best = max(h.score for h in candidates)
    return [h for h in candidates if h.score > 0 and h.score >= best * RELATIVE_CUTOFF]


def _distinct_sentences(summary: str) -> list[str]:
    """A summary's sentences, each said once (summaries repeat sentences from overlapping chunks), no filler."""
    found = [s for s in sentences(summary) if not never_a_fact(s)]
    return [found[i] for i in distinct(found)]


def _by(llm: bool) -> AnsweredBy:
    return "llm" if llm else "extractive"


def _citation(report: CommunityReport, claim: str, score: float | None = None) -> Citation:
    """Cites a community with the summary sentence closest in words to the claim, verbatim."""
    span = best_sentence(claim, report.summary)
    return Citation(chunk_id=report.id, span=span, document_name=report.title, score=score, kind="community")


def _score(value: Any) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return 0.0
    return 0.0 if math.isnan(number) else round(min(max(number, 0.0), 100.0), 1)
