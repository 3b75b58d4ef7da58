"""Score fusion for hybrid search: linear (alpha-weighted, per-arm normalised) and reciprocal-rank fusion.

Why these normalisations: dividing each arm by its own top score turns the best of a hopeless arm
into a 1.0 and lets it outvote a confident arm. Each arm is instead mapped onto an absolute scale:
- vector: cosine similarity is already absolute; negative similarity means "unrelated" and maps to 0.
- keyword: BM25/TF-IDF scores have no fixed range, so each hit's score is saturated against a
  reference that depends on the query only (`KEYWORD_REFERENCE` per query term: a hit matching
  every term well approaches 1, a hit matching one common word stays near 0), not on the other hits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

#: Raw keyword score per query term at which a hit is half-way to a perfect keyword match.
KEYWORD_REFERENCE = 1.0


@dataclass
class Fused:
    id: str
    score: float
    sources: dict[str, float] = field(default_factory=dict)  # per-arm contributions


def vector_norm(similarity: float) -> float:
    return min(1.0, max(0.0, similarity))


def keyword_reference(n_terms: int) -> float:
    """The keyword score that normalises to 0.5 for a query of `n_terms` terms (`keyword_norm`; the server's fusion,
    `bridge.fold`, is handed the same number)."""
    return KEYWORD_REFERENCE * max(1, n_terms)


def keyword_norm(score: float, n_terms: int) -> float:
    return max(0.0, score) / (max(0.0, score) + keyword_reference(n_terms))


def linear(
    vector: Mapping[str, float], keyword: Mapping[str, float], alpha: float, k: int | None = None
) -> list[Fused]:
    """`alpha * vector + (1 - alpha) * keyword` over normalised scores; a hit missing from an arm scores 0 there.
    With `k`, the best `k` only, and only they get their `sources`: a hybrid search fuses about a hundred candidates
    to keep twenty (`hybrid._fuse`)."""
    scored = [
        (hit_id, alpha * vector.get(hit_id, 0.0) + (1.0 - alpha) * keyword.get(hit_id, 0.0))
        for hit_id in dict.fromkeys([*vector, *keyword])
    ]
    kept = sorted(scored, key=lambda item: -item[1])[:k]  # stable, as `_ranked`: arm order for ties
    return [Fused(hit_id, score, sources(hit_id, vector, keyword)) for hit_id, score in kept]


def sources(hit_id: str, vector: Mapping[str, float], keyword: Mapping[str, float]) -> dict[str, float]:
    """A hit's normalised score on each arm that holds it (`Fused.sources`)."""
    return {name: arm[hit_id] for name, arm in (("vector", vector), ("fulltext", keyword)) if hit_id in arm}


def rrf(rankings: Mapping[str, Sequence[str]], k: int, weights: Mapping[str, float] | None = None) -> list[Fused]:
    """Reciprocal-rank fusion: sum of weight / (k + rank) over arms; ranks start at 1."""
    scores: dict[str, Fused] = {}
    for arm, ids in rankings.items():
        weight = 1.0 if weights is None else weights.get(arm, 1.0)
        for rank, hit_id in enumerate(ids, start=1):
            entry = scores.setdefault(hit_id, Fused(hit_id, 0.0))
            contribution = weight / (k + rank)
            entry.score += contribution
            entry.sources[arm] = contribution
    return _ranked(list(scores.values()))


def _ranked(items: list[Fused]) -> list[Fused]:
    """Highest first; the stable sort keeps arm order for ties, so results are deterministic."""
    return sorted(items, key=lambda f: -f.score)
