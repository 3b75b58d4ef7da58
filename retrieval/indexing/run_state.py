"""What one indexing run carries from stage to stage: the graph, the models, progress and timings.

Its own module so that the stages (documents in pipeline.py, the derived graph in derived.py) share one state
and one way to time a stage, report progress and embed texts, without one importing the other.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from retrieval.config import Settings
from retrieval.embed import Embedder
from retrieval.errors import EmbeddingMismatch
from retrieval.indexing.embed_worker import EmbedWorker
from retrieval.indexing.model import ProgressCallback, StageProgress
from retrieval.indexing.repo_graph import RepoGraph
from retrieval.indexing.report import DocumentCallback, DocumentEvent, IndexReport, Status
from retrieval.llm.client import ChatModel
from retrieval.store.base import GraphStore

#: Texts per embedder call: a progress tick each, small enough for steady feedback.
EMBED_STEP = 64
#: Texts per embedder call in the stages `embedding` runs (entities, communities). Why more: a call runs its
#: batches on the embedder's threads and waits for the last, so at each call's end a thread idles; over 2,048 of
#: MuSiQue's entity texts, 256-text calls took 0.86x the wall and 0.94x the CPU of 64-text ones, the same vectors
#: (docs/benchmarks.md, "Many small documents", branch wt131). A call (a tick, a chance to stop) takes ~2 s of
#: entity texts, ~10 s of community texts on two cores.
STAGE_EMBED_STEP = 256


class RunState:
    """One run's state: the graph, the models, progress reporting and timings; embedding for its stages."""

    def __init__(
        self,
        settings: Settings,
        store: GraphStore,
        embedder: Embedder,
        project: str,
        *,
        on_progress: ProgressCallback | None,
        chat_model: ChatModel | None,
        on_document: DocumentCallback | None = None,
        origin: str | None = None,
    ) -> None:
        self.settings = settings
        self.on_document = on_document
        self.origin = origin  # "upload": the files' own location means nothing to the reader
        self.roots: dict[str, str] = {}
        self.planned: dict[str, Status] = {}  # what writing each document will be: a first write or an update
        self.unstored: set[str] = set()  # paths with no document node in the graph: nothing of theirs to clear
        self.store = store
        self.embedder = embedder
        self.graph = RepoGraph(store, settings, project)
        self.chat = chat_model
        self.on_progress = on_progress
        self.report = IndexReport(project=project)
        #: This run's chunk vectors by text: the title step's passages are chunks, and is spared embedding them again.
        self.chunk_vectors: dict[str, np.ndarray] = {}

    def tick(self, stage: str, done: int, total: int, message: str = "") -> None:
        if self.on_progress is not None:
            self.on_progress(StageProgress(stage, done, total, message))

    @contextmanager
    def stage(self, name: str, total: int = 1) -> Iterator[None]:
        started = time.perf_counter()
        self.tick(name, 0, total)
        yield
        self.add_seconds(name, time.perf_counter() - started)
        self.tick(name, total, total)

    def add_seconds(self, name: str, seconds: float) -> None:
        """Count `seconds` to stage `name`: a stage may run in parts (batches, a worker beside other stages)."""
        self.report.seconds[name] = round(self.report.seconds.get(name, 0.0) + seconds, 3)

    def said(self, path: str, status: Status, reason: str = "") -> None:
        if self.on_document is not None:
            self.on_document(DocumentEvent(path, status, reason))

    def count(self, key: str, n: int) -> None:
        self.report.written[key] = self.report.written.get(key, 0) + n

    # --- setup ------------------------------------------------------------------------------
    def prepare(self) -> dict[str, Any] | None:
        """Refuse a graph built with another embedder, then make sure indexes and the project node exist."""
        info = self.graph.project_info()
        name, dim = self.embedder.name, self.embedder.dim
        if info and (info["embedder"] != name or info["dim"] != dim):
            raise EmbeddingMismatch(info["embedder"], int(info["dim"]), name, dim)
        stored_dim = self.store.vectors.dimension(self.settings.chunk_label)
        if stored_dim is not None and stored_dim != dim:
            raise EmbeddingMismatch(f"(another project, {stored_dim}-d)", stored_dim, name, dim)
        with self.stage("indexes"):
            self.store.ensure_schema(dim)
            self.store.vectors.ensure(dim)
            self.graph.ensure_indexes()
            if info is None:
                self.graph.ensure_project(name, dim)
        return info

    # --- documents ----------------------------------------------------------------------------
    def embed(self, texts: Sequence[str], stage: str) -> np.ndarray:
        """A vector per text, in order (`embedding`, waited for at once)."""
        with self.embedding(texts, stage) as vectors:
            return vectors()

    @contextmanager
    def embedding(self, texts: Sequence[str], stage: str) -> Iterator[Callable[[], np.ndarray]]:
        """Starts embedding `texts` on a worker thread and yields the wait for their vectors, a vector per text in
        order; leaving the block stops the worker (a failed run does not wait for the stage).

        Why a worker: the entity and community stages follow the number of entities (~14x as many per word in
        small documents as in long ones), and the stages between them (titles, summaries, describe, relate) are
        single-threaded Python and graph writes that left a core idle; ONNX Runtime releases the GIL, so they
        run beside the embedding. Each distinct text is embedded once, shortest first: a community that splits
        no further is its own parent, members, title and summary alike, at the next level (604 of 1,545
        community texts over MuSiQue's 1,890 passages repeat), and the embedder pads each batch to its longest
        text but sorts only the STAGE_EMBED_STEP texts of a call, so texts sorted across the whole stage are padded
        less. The vectors are the same in any order and on any thread: a text's does not depend on what it is
        batched with.

        A text that is one of this run's chunks answers from the chunk's vector (`chunk_vectors`), not embedded
        again: the same vector, since a text's does not depend on its batch (a community retold from one passage
        is embedded as that passage: `reports.embedding_text`)."""
        distinct = sorted(self._unembedded(texts), key=len)
        worker = EmbedWorker(self.embedder, distinct, STAGE_EMBED_STEP)
        self.tick(stage, 0, len(distinct))

        @functools.cache  # the stage's seconds are counted once, however often its vectors are asked for
        def wait() -> np.ndarray:
            done = worker.result(lambda n: self.tick(stage, n, len(distinct)))
            # the worker's own wall time, as for the chunks' "embed" stage: it overlaps the stages it ran beside
            self.add_seconds(stage, worker.seconds)
            self.tick(stage, len(distinct), len(distinct))
            return self._in_order(texts, dict(zip(distinct, done, strict=True)))

        try:
            yield wait
        finally:
            worker.close()

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """A vector per text, in order: a chunk this run embedded answers from its vector (the same the embedder
        would give: a text's vector does not depend on what it is batched with), every other text is embedded.
        Why: the title step weighs phrases against the passages of the communities it titles; embedding those
        passages again was half its CPU on MuSiQue's 1,890 passages (12.4 -> 6.2 s), for vectors the run had."""
        missing = self._unembedded(texts)
        return self._in_order(texts, dict(zip(missing, self.embedder.embed(missing), strict=True)) if missing else {})

    def _unembedded(self, texts: Sequence[str]) -> list[str]:
        """The distinct texts, in first order, that are none of this run's chunks (whose vectors it holds)."""
        return [text for text in dict.fromkeys(texts) if text not in self.chunk_vectors]

    def _in_order(self, texts: Sequence[str], found: Mapping[str, np.ndarray]) -> np.ndarray:
        """A vector per text, in order: the run's chunk's where the text is one, else `found`'s."""
        vectors = [self.chunk_vectors[text] if text in self.chunk_vectors else found[text] for text in texts]
        return np.stack(vectors) if vectors else np.zeros((0, self.embedder.dim), dtype=np.float32)
