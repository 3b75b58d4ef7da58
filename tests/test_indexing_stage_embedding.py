"""The entity and community embedding stages (`RunState.embedding`) call the embedder with STAGE_EMBED_STEP texts,
not the chunk worker's EMBED_STEP, and give every text the vector the embedder gives it alone. Both graph
backends (the run state opens the project's graph), the real ONNX embedder."""

# ruff: noqa: F811 (the fixtures imported from tests.indexing_runs are parameters here)
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from retrieval.embed import Embedder
from retrieval.indexing.run_state import EMBED_STEP, STAGE_EMBED_STEP, RunState
from tests.indexing_runs import RecordingEmbedder, graph  # noqa: F401 (fixtures)


class CallSizes(RecordingEmbedder):
    """The real embedder, recording how many texts each call carries."""

    def __init__(self, inner: Embedder) -> None:
        super().__init__(inner)
        self.sizes: list[int] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.sizes.append(len(texts))
        return super().embed(texts)


def test_a_stage_embeds_in_calls_of_its_own_step_and_each_text_gets_its_own_vector(graph, embedder) -> None:
    """300 entity-like texts, one repeated: two calls (256 and the 43 others), not five of EMBED_STEP; the
    repeat embedded once; every vector, in input order, within 1e-6 of the text embedded alone. Fails on a tree
    that calls the embedder with EMBED_STEP texts in these stages."""
    settings, store = graph
    texts = [f"Entity {i} (ORG): founded in {1900 + i} by {'the' * (i % 7)} people of town {i}." for i in range(299)]
    texts.append(texts[5])
    counted = CallSizes(embedder)
    run = RunState(settings, store, counted, "p", on_progress=None, chat_model=None)
    vectors = run.embed(texts, "entity embeddings")
    assert STAGE_EMBED_STEP > EMBED_STEP
    assert counted.sizes == [STAGE_EMBED_STEP, 299 - STAGE_EMBED_STEP]
    alone = np.stack([embedder.embed([text])[0] for text in texts[:40]])
    assert float(np.abs(vectors[:40] - alone).max()) <= 1e-6
    assert np.array_equal(vectors[5], vectors[299])
