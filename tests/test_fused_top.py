"""A hybrid search's linear fusion keeps its best k without building every candidate's sources
(`fusion.linear` with `k`, `hybrid._fuse`): the same ids, scores to the bit, order (ties in the arms' order) and kept
sources as fusing every candidate with its sources, then cutting."""

from __future__ import annotations

import random

import pytest

from retrieval.models import QueryParams
from retrieval.search import fusion
from retrieval.search.hybrid import _fuse
from retrieval.store.records import StoreHit


def _every_candidate(
    vector: dict[str, float], keyword: dict[str, float], alpha: float
) -> list[tuple[str, float, dict[str, float]]]:
    """Linear fusion as it was written before: each candidate fused with its sources, then ranked (stable)."""
    fused = []
    for hit_id in dict.fromkeys([*vector, *keyword]):
        v, k = vector.get(hit_id, 0.0), keyword.get(hit_id, 0.0)
        sources = {name: s for name, s, arm in (("vector", v, vector), ("fulltext", k, keyword)) if hit_id in arm}
        fused.append((hit_id, alpha * v + (1.0 - alpha) * k, sources))
    return sorted(fused, key=lambda item: -item[1])


@pytest.mark.parametrize("alpha", [0.0, 0.3, 0.5, 1.0])
def test_the_kept_hits_are_every_candidate_fused_then_cut(alpha: float) -> None:
    params = QueryParams(alpha=alpha, fusion="linear", search_type="hybrid")
    for seed in range(40):
        rng = random.Random(seed)
        ids = [f"c{i}" for i in range(60)]
        # Repeated scores make ties, which must keep the arms' order.
        vector = [StoreHit(i, rng.choice([0.5, 0.25, rng.uniform(-0.2, 1.0)])) for i in rng.sample(ids, 40)]
        keyword = [StoreHit(i, rng.choice([0.0, 1.5, rng.uniform(0.0, 12.0)])) for i in rng.sample(ids, 30)]
        v = {h.id: fusion.vector_norm(h.score) for h in vector}
        k = {h.id: fusion.keyword_norm(h.score, 5) for h in keyword}
        want = _every_candidate(v, k, alpha)
        for keep in (1, 20, 100):
            got = _fuse(params, vector, keyword, 5, keep)
            assert [(f.id, f.score, f.sources) for f in got] == want[:keep]
        assert [(f.id, f.score, f.sources) for f in fusion.linear(v, k, alpha)] == want
