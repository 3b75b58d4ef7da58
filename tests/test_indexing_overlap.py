"""The entity vectors are embedded on a worker while the run computes the communities, their titles and summaries
(and both kinds of vectors while it writes the entities, RELATED and the communities, the vectors after them): the
graph it writes is the one the stages one after the other wrote. Both graph backends, the real ONNX embedder."""

# ruff: noqa: F811 (the fixtures imported from tests.indexing_runs are parameters here)
from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pytest

from retrieval.embed import Embedder
from retrieval.indexing import StageProgress, derived, run_index
from retrieval.indexing.graph import IndexGraph
from tests.indexing_runs import DOCS, assert_same_graph, corpus, dump, graph  # noqa: F401 (fixtures)

#: Long enough for any run of the test corpus to reach its summaries; a run that never does fails after it.
WAIT_SECONDS = 30.0


class HeldEmbedder(Embedder):
    """The real embedder, except that a worker's call after the entities are resolved waits until the run's own
    thread has ended stage `until` (the community summaries unless told): it records whether that came (the
    stages overlapped) or the wait timed out (the run waited for the vectors first)."""

    def __init__(self, inner: Embedder, until: str = "summaries") -> None:
        self.inner = inner
        self.name = inner.name
        self.until = until
        self.reconciling = threading.Event()
        self.released = threading.Event()
        self.overlapped: list[bool] = []

    @property
    def dim(self) -> int:
        return self.inner.dim

    def heard(self, event: StageProgress) -> None:
        if event.done >= event.total:
            {"resolve": self.reconciling, self.until: self.released}.get(event.stage, threading.Event()).set()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if self.reconciling.is_set() and threading.current_thread() is not threading.main_thread():
            self.overlapped.append(self.released.wait(WAIT_SECONDS))
        return self.inner.embed(texts)

    def again(self) -> None:
        """Hold the next run's workers as well."""
        self.reconciling.clear()
        self.released.clear()


@pytest.mark.parametrize("until", ["summaries", "community links"])
def test_the_vectors_are_embedded_while_the_communities_are_summarised_and_written_and_the_graph_is_the_same(
    graph, corpus, embedder, until
) -> None:
    """A cold run and one that removes a document (stale entities, dropped edges, communities rewritten), each
    once with the workers held back until the summaries are done (or the entities, RELATED and communities are
    written: their vectors come after), and once as they come: the same graph, every vector included. Fails when
    the run waits for the entity vectors before it summarises, or before it writes the entities (the wait times
    out)."""
    settings, store = graph
    held = HeldEmbedder(embedder, until)
    run_index(settings, store, held, [corpus], project="p", on_progress=held.heard)
    cold = dump(store)
    assert held.overlapped and all(held.overlapped)
    (corpus / "su.txt").unlink()
    held.again()
    report = run_index(settings, store, held, [corpus], project="p", on_progress=held.heard)
    after_removal = dump(store)
    assert all(held.overlapped) and report.written["entities_deleted"] > 0

    store.clear()
    (corpus / "su.txt").write_text(DOCS["su.txt"], encoding="utf-8")
    run_index(settings, store, embedder, [corpus], project="p")
    assert_same_graph(cold, dump(store))
    (corpus / "su.txt").unlink()
    run_index(settings, store, embedder, [corpus], project="p")
    assert_same_graph(after_removal, dump(store))


def test_the_relationships_read_before_the_entity_writes_are_those_left_after_them(
    graph, corpus, embedder, monkeypatch
) -> None:
    """The communities start from the stored RELATED edges, read before the entities are written (so that the
    vectors can be embedded meanwhile): those are the edges the graph holds once the run has deleted its stale
    entities (DETACH DELETE takes their edges), not the ones it held before."""
    settings, store = graph
    run_index(settings, store, embedder, [corpus], project="p")
    (corpus / "su.txt").unlink()
    seen: dict[str, Any] = {}
    diff, delete, related = derived.relations.diff, IndexGraph.delete_nodes, IndexGraph.related

    def diff_spy(edges: Any, stored: dict[tuple[str, str], Any]) -> Any:
        seen["used"] = set(stored)
        return diff(edges, stored)

    def related_spy(self: IndexGraph) -> Any:
        rows = related(self)
        seen.setdefault("stored", set(rows))  # the first read: before any entity is written or deleted
        return rows

    def delete_spy(self: IndexGraph, label: str, ids: Iterable[str]) -> None:
        ids = list(ids)
        delete(self, label, ids)
        if label == self.settings.entity_label:
            seen["deleted"] = set(ids)
            seen["left"] = set(related(self))

    monkeypatch.setattr(derived.relations, "diff", diff_spy)
    monkeypatch.setattr(IndexGraph, "related", related_spy)
    monkeypatch.setattr(IndexGraph, "delete_nodes", delete_spy)
    run_index(settings, store, embedder, [corpus], project="p")
    assert any(seen["deleted"] & set(pair) for pair in seen["stored"])  # the deleted entities had edges
    assert seen["used"] == seen["left"] != seen["stored"]


class FirstWorkerCall(Embedder):
    """The real embedder, noting when a worker thread first embeds after the run's `resolve` stage has started
    (the entity texts: the chunks' worker ran before it)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name = inner.name
        self.resolving = threading.Event()
        self.started = threading.Event()

    @property
    def dim(self) -> int:
        return self.inner.dim

    def heard(self, event: StageProgress) -> None:
        if event.stage == "resolve" and event.done == 0:
            self.resolving.set()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if self.resolving.is_set() and threading.current_thread() is not threading.main_thread():
            self.started.set()
        return self.inner.embed(texts)


def test_the_entity_vectors_are_embedded_while_resolve_reads_the_relationships(
    graph, corpus, embedder, monkeypatch
) -> None:
    """The entity worker starts as soon as the entities are resolved, beside the rest of `resolve` (the chunks'
    claims weighed into edges, the stored RELATED read): the stored RELATED read waits for the worker's first call,
    which on a run that starts the worker after `resolve` never comes (the wait times out). The graph is the one
    a run without the wait writes, every vector included."""
    settings, store = graph
    first = FirstWorkerCall(embedder)
    came: list[bool] = []
    related = IndexGraph.related

    def related_after_the_worker(self: IndexGraph) -> Any:
        came.append(first.started.wait(WAIT_SECONDS))
        return related(self)

    monkeypatch.setattr(IndexGraph, "related", related_after_the_worker)
    run_index(settings, store, first, [corpus], project="p", on_progress=first.heard)
    monkeypatch.setattr(IndexGraph, "related", related)
    assert came == [True]
    overlapped = dump(store)
    store.clear()
    run_index(settings, store, embedder, [corpus], project="p")
    assert_same_graph(overlapped, dump(store))
