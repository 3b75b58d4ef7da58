"""Global search's reduce without a model: the passages' best sentences across documents, or titled themes.

Why a module of its own: `global_mode` runs the select, map and reduce steps and the model's prompts; what an
offline answer is made of (which sentences, in which order, how the answer lists them) is a separate decision,
measured on its own (docs/benchmarks.md, branches wt106 and wt110).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from retrieval.context import Context
from retrieval.models import Citation, Hit, KeyFact
from retrieval.modes import global_themes
from retrieval.modes.drift_offline import best_sentence
from retrieval.search.boilerplate import project_boilerplate
from retrieval.search.community_context import CommunityReport, community_sizes, top_entities
from retrieval.search.evidence import distinct, extractive_facts
from retrieval.search.turns import with_opening_speakers
from retrieval.text.readable import clean_spoken

KEY_FACTS = 5
#: Offline themes: communities shown, sentences and key entities per theme.
THEMES = 4
THEME_SENTENCES = 2
THEME_ENTITIES = 5
#: The offline reduce weighs this many facts (best first) before ordering them across documents.
FACT_CANDIDATES = 3 * KEY_FACTS
#: A fact takes part in the rounds across documents when it scores at least this share of the best fact.
NEAR_BEST = 0.9


@dataclass(frozen=True)
class Point:
    """One point of the map step: what it says, how much it matters (0-100), the communities behind it."""

    description: str
    score: float
    communities: tuple[str, ...]


def passage_answer(
    ctx: Context,
    question: str,
    question_vector: np.ndarray,
    *,
    passages: Mapping[str, Hit],
    passage_community: Mapping[str, str],
    reports: Mapping[str, CommunityReport],
    mapped: int,
) -> tuple[list[KeyFact], str, str]:
    """The offline reduce over passages: local mode's fact choice over every passage the map found, then
    ordered across documents (`across_documents`); the answer names the communities the facts come from.
    Each passage that opens mid-turn is given its speaker first, as local's pool is (`with_opening_speakers`):
    otherwise a guest's answer is nobody's, the fact choice cannot credit its speaker, and the fact does not
    say who said it."""
    pool = with_opening_speakers(ctx, sorted(passages.values(), key=lambda h: -h.score))
    chosen = extractive_facts(
        question, question_vector.tolist(), pool, ctx.embedder, FACT_CANDIDATES, skip=project_boilerplate(ctx)
    )
    facts = across_documents(chosen)[:KEY_FACTS]
    by_community: dict[str, list[int]] = {}
    for n, fact in enumerate(facts, start=1):
        chunk = fact.citations[0].chunk_id if fact.citations else ""
        by_community.setdefault(passage_community.get(chunk, ""), []).append(n)
    documents = {c.document_name for f in facts for c in f.citations[:1]}
    lines = [f"{len(facts)} key fact(s) from {len(documents)} document(s), in the communities closest to the question:"]
    for n, (community, refs) in enumerate(by_community.items(), start=1):
        title = reports[community].title if community in reports else "other passages"
        lines.append(f"{n}. **{title}** [facts {', '.join(map(str, refs))}]")
    uncertainty = (
        "Answered extractively (no language model): the best sentences of the passages beneath the communities "
        f"closest to the question, one document's first before another's second; {len(pool)} passage(s) from "
        f"{mapped} map point(s) were weighed."
    )
    return facts, "\n".join(lines), uncertainty


def theme_answer(
    ctx: Context, top: Sequence[Point], mapped: int, reports: Mapping[str, CommunityReport], themes_asked: bool
) -> tuple[list[KeyFact], str, str]:
    """The offline reduce over summaries: the best communities as titled themes (size, key entities), their best
    sentences as key facts; the answer lists the themes and points at their facts instead of repeating them."""
    kept = [top[i] for i in distinct([p.description for p in top])]
    by_theme: dict[str, list[Point]] = {}
    for point in kept:
        theme = by_theme.setdefault(point.communities[0], [])
        if len(theme) < THEME_SENTENCES and (len(by_theme) <= THEMES or theme):
            theme.append(point)
    by_theme = {c: pts for c, pts in by_theme.items() if pts}
    ids = list(by_theme)[:THEMES]
    sizes = community_sizes(ctx, ids)
    entities = top_entities(ctx, ids, THEME_ENTITIES)
    documents = global_themes.documents_under(ctx, ids) if themes_asked else {}
    facts: list[KeyFact] = []
    lines = [
        f"The {len(ids)} main theme(s), the communities with the most evidence:"
        if themes_asked
        else f"{len(ids)} theme(s) in the communities closest to the question:"
    ]
    for n, community in enumerate(ids, start=1):
        first = len(facts) + 1
        for p in by_theme[community]:
            facts.append(
                KeyFact(
                    fact=clean_spoken(p.description),
                    citations=[community_citation(reports[community], p.description, p.score)],
                )
            )
        names = ", ".join(e.title for e in entities.get(community, []))
        refs = ", ".join(str(i) for i in range(first, len(facts) + 1))
        lines.append(
            f"{n}. **{reports[community].title}** ({sizes.get(community, 0)} entities)"
            + (f"; key entities: {names}" if names else "")
            + (f"; from {documents[community]} document(s)" if community in documents else "")
            + f" [facts {refs}]"
        )
    how = (
        "the communities with the most source passages at the coarsest level that has several"
        if themes_asked
        else "the communities whose summary sentences are closest to the question"
    )
    uncertainty = (
        f"Answered extractively (no language model): the themes are {how}; {mapped} point(s) from "
        f"{len({c for p in top for c in p.communities})} communities were weighed."
    )
    return facts, "\n".join(lines), uncertainty


def across_documents(facts: list[KeyFact], near: float = NEAR_BEST) -> list[KeyFact]:
    """The facts in rounds: among those scoring at least `near` of the best, each document's first (in the given
    order) before any document's second; the weaker ones after, in their order. Why: a question about the corpus
    is answered by what several documents say, and five sentences of the one document nearest the question answer
    it for that document only; but a weak sentence of another document is no answer either (on the demo's
    cross-episode tuning questions, rounds over all facts put "I was born in Taiwan" among the facts on the brain).
    """
    best = max((_fact_score(f) for f in facts), default=0.0)
    rounds: dict[str, int] = {}
    keyed = []
    for order, fact in enumerate(facts):
        if best > 0 and _fact_score(fact) >= near * best:
            document = fact.citations[0].document_name if fact.citations else ""
            rounds[document] = rounds.get(document, -1) + 1
            keyed.append((rounds[document], order, fact))
        else:
            keyed.append((len(facts), order, fact))
    return [fact for _round, _order, fact in sorted(keyed, key=lambda item: item[:2])]


def community_citation(report: CommunityReport, claim: str, score: float | None = None) -> Citation:
    """Cites a community with the summary sentence closest in words to the claim, verbatim."""
    span = best_sentence(claim, report.summary)
    return Citation(chunk_id=report.id, span=span, document_name=report.title, score=score, kind="community")


def _fact_score(fact: KeyFact) -> float:
    return max((c.score or 0.0 for c in fact.citations), default=0.0)
