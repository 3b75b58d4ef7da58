"""Each batch of documents is written as soon as its documents are extracted and their chunks embedded, while the
rest still are, and the graph is the one the writes after extraction gave. Both graph backends, the real embedder.

Why: on Neo4j a batch's write is mostly the server's work; written after extraction and chunk embedding it ran with
a core idle (docs/benchmarks.md, "Many small documents")."""

# ruff: noqa: F811 (the fixtures imported from tests.indexing_runs are parameters here)
from __future__ import annotations

import threading
import time
from collections.abc import Sequence

import numpy as np
import pytest

from retrieval.embed import Embedder
from retrieval.indexing import StageProgress, pipeline, run_index
from retrieval.indexing.batches import Batch, plan
from retrieval.indexing.embed_worker import EmbedWorker
from tests.indexing_runs import assert_same_graph, corpus, dump, graph  # noqa: F401 (fixtures)

#: Long enough for the test corpus's chunks to embed; a run that never gets there fails after it.
WAIT_SECONDS = 30.0


class PacedEmbedder(Embedder):
    """The real embedder, pacing the chunk worker against extraction: `ahead`, the run's thread waits at the last
    document's extraction until the worker has embedded every chunk; else the worker waits until extraction ended.
    Records the run's progress events in order. (An in-process extraction: the test corpus is small.)"""

    def __init__(self, inner: Embedder, *, ahead: bool) -> None:
        self.inner = inner
        self.name = inner.name
        self.ahead = ahead
        self.events: list[tuple[str, int, int]] = []
        self.chunks = 0  # the chunk texts the run will embed (its first "embed" event says)
        self.embedded = 0  # texts embedded on a worker before extraction ended
        self.extract_ends = 0
        self.extracted = threading.Event()

    @property
    def dim(self) -> int:
        return self.inner.dim

    def heard(self, event: StageProgress) -> None:
        self.events.append((event.stage, event.done, event.total))
        if event.stage == "embed" and event.done == 0:
            self.chunks = event.total
        if event.stage == "extract" and event.done == event.total:
            self.extract_ends += 1  # the last document's, then the stage's end
            if self.ahead and self.extract_ends == 1:
                deadline = time.monotonic() + WAIT_SECONDS
                while self.embedded < self.chunks:  # the worker may have started before the run's first event
                    assert time.monotonic() < deadline, "the worker did not embed the chunks"
                    time.sleep(0.05)
            elif not self.ahead and self.extract_ends == 2:
                self.extracted.set()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        on_worker = threading.current_thread() is not threading.main_thread()
        if on_worker and not self.ahead:
            assert self.extracted.wait(WAIT_SECONDS), "extraction did not end"
        vectors = self.inner.embed(texts)
        if on_worker and not self.extracted.is_set():
            self.embedded += len(texts)
        return vectors

    def written_before_extraction_ended(self) -> bool:
        last_extract = max(i for i, (stage, done, total) in enumerate(self.events) if stage == "extract")
        return any(stage == "write" and done > 0 for stage, done, _t in self.events[:last_extract])


def test_batches_are_written_while_extraction_runs_and_the_graph_is_the_same(
    graph, corpus, embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One document per batch. With every chunk embedded before the last document's extraction, the batches are
    written before extraction ends; with the chunk worker held until it ends, after: the same graph, vectors
    included. Fails when the documents are written only after extraction."""
    settings, store = graph
    monkeypatch.setattr(pipeline, "WRITE_BATCH_CHUNKS", 1)
    ahead = PacedEmbedder(embedder, ahead=True)
    run_index(settings, store, ahead, [corpus], project="p", on_progress=ahead.heard)
    assert ahead.written_before_extraction_ended()
    overlapped = dump(store)

    store.clear()
    behind = PacedEmbedder(embedder, ahead=False)
    run_index(settings, store, behind, [corpus], project="p", on_progress=behind.heard)
    assert not behind.written_before_extraction_ended()
    assert_same_graph(overlapped, dump(store))


def test_a_batch_plan_closes_each_batch_at_the_size_and_keeps_every_document_in_order() -> None:
    assert list(plan([2, 1, 3, 1, 1], 3)) == [Batch(0, 2, 0, 3), Batch(2, 3, 3, 6), Batch(3, 5, 6, 8)]
    assert list(plan([5], 3)) == [Batch(0, 1, 0, 5)]
    assert list(plan([], 3)) == []


def test_the_embed_worker_hands_out_its_first_vectors_before_it_ends(embedder) -> None:
    """`rows(start, end)` returns those vectors (as `result` holds them) while the worker still has texts to go,
    also when they straddle two slices."""
    texts = [f"passage number {i} about the Analytical Engine" for i in range(12)]
    release = threading.Event()

    class Gated(Embedder):
        name = embedder.name
        dim = embedder.dim

        def embed(self, batch: Sequence[str]) -> np.ndarray:
            if batch[0] == texts[4]:  # the second slice waits until the first was handed out
                assert release.wait(WAIT_SECONDS)
            return embedder.embed(batch)

    worker = EmbedWorker(Gated(), texts, 4)
    try:
        head = worker.rows(0, 3, lambda _done: None)
        assert worker.done == 4
        release.set()
        straddling = worker.rows(3, 9, lambda _done: None)
        everything = worker.result(lambda _done: None)
    finally:
        worker.close()
    assert np.array_equal(head, everything[:3])
    assert np.array_equal(straddling, everything[3:9])
    assert worker.rows(5, 5, lambda _done: None).shape == (0, embedder.dim)
    assert np.array_equal(everything, np.concatenate([embedder.embed(texts[s : s + 4]) for s in range(0, 12, 4)]))
