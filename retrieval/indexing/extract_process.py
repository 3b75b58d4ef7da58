"""Offline extraction in a process of its own, so extraction and chunk embedding use both cores.

Why a process: the embedder runs on a worker thread (retrieval/indexing/embed_worker.py) and ONNX
Runtime releases the GIL, but spaCy and yake are mostly pure Python that holds it, so on the same
process the two stages together got one core's worth of CPU. A child process extracts documents
while the indexer's process embeds. Why "spawn" (never fork): the parent has ONNX Runtime threads,
a graph server's sockets and maybe a Streamlit server; a forked copy of those is unsafe.

Why bounded and in order: a few documents are in flight at once (their texts are pickled to the
child, their extractions pickled back), and results are handed out in document order, so the
caller's thread reports progress per document as it does when extracting itself, and while it
waits it calls `on_wait` (the embed stage's progress). A run that stops (an error, or a progress
callback that raises to cancel) terminates the child instead of waiting for its current document.

Why in groups: spaCy's `pipe` has a fixed cost per call (one pass of each pipeline component's batching),
which one call per document paid 1,890 times over MuSiQue's short passages; documents are parsed together
until a group holds GROUP_CHUNKS chunks, in the child and in-process alike, each document's extraction the
same as alone (tests/test_indexing_extract_process.py compares them).

Small runs extract in-process: a child's start-up took ~1.7 s on the 2-core target (measured to its first
result: interpreter, ~1.1 s of imports through the retrieval.indexing package, ~0.35 s loading the spaCy
model), about what overlapping the two stages saves on one ~12k-word episode.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from typing import Any

from retrieval.errors import DriftLensError
from retrieval.indexing import batches
from retrieval.indexing.chunking import Chunk
from retrieval.indexing.embed_worker import WAIT_TICK_SECONDS
from retrieval.indexing.extract_offline import SPACY_BATCH, extract_document, extract_parsed
from retrieval.indexing.model import ChunkExtraction
from retrieval.text.nlp import nlp

#: One document's text and its chunks.
Job = tuple[str, list[Chunk]]
#: One document's extractions, or what extracting it raised (one bad document must not end the run).
Outcome = list[ChunkExtraction] | Exception
#: Groups of documents in flight per process: one being extracted, one queued so the child never waits.
IN_FLIGHT_PER_PROCESS = 2
#: Chunks parsed in one spaCy `pipe` call: documents join a group until it holds this many. Measured on 400
#: MuSiQue passages (489 chunks): spaCy took 12.5 s called per document, 7.1 s called once (load ~6).
GROUP_CHUNKS = 64


def _start_child() -> None:
    """In the child: load spaCy once, and leave Ctrl-C to the parent (which stops the child itself)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    nlp()


def groups(jobs: Sequence[Job], size: int = GROUP_CHUNKS) -> Iterator[Sequence[Job]]:
    """Consecutive runs of `jobs` holding at least `size` chunks between them (the last: whatever is left)."""
    for batch in batches.plan([len(chunks) for _text, chunks in jobs], size):
        yield jobs[batch.start : batch.end]


def extract_documents(jobs: Sequence[Job]) -> list[Outcome]:
    """Each job's outcome, all their chunks parsed in one spaCy `pipe` call. When parsing raises (a text spaCy
    refuses), each document is extracted on its own instead, so only the one at fault gets the exception."""
    try:
        parsed = list(nlp().pipe([c.text for _text, chunks in jobs for c in chunks], batch_size=SPACY_BATCH))
    except Exception:  # spaCy raises many types on odd input
        return [_outcome(extract_document, text, chunks) for text, chunks in jobs]
    outcomes: list[Outcome] = []
    start = 0
    for text, chunks in jobs:
        mine = parsed[start : start + len(chunks)]
        outcomes.append(_outcome(extract_parsed, text, chunks, mine))
        start += len(chunks)
    return outcomes


def _outcome(extract: Callable[..., list[ChunkExtraction]], *args: Any) -> Outcome:
    try:
        return extract(*args)
    except Exception as exc:  # spaCy and yake raise many types on odd input; the run goes on
        return exc


def _in_process(jobs: Sequence[Job]) -> Iterator[Outcome]:
    for group in groups(jobs):
        yield from extract_documents(group)


class ExtractProcesses:
    """`processes` child processes that extract documents; `close()` always (it stops them)."""

    def __init__(self, processes: int) -> None:
        self._window = processes * IN_FLIGHT_PER_PROCESS
        self._pool = ProcessPoolExecutor(
            max_workers=processes, mp_context=multiprocessing.get_context("spawn"), initializer=_start_child
        )

    def results(self, jobs: Sequence[Job], on_wait: Callable[[], None]) -> Iterator[Outcome]:
        """Each job's outcome in job order; `on_wait()` every WAIT_TICK_SECONDS while the next group is pending."""
        pending = groups(jobs)
        in_flight: deque[tuple[Future[list[Outcome]], int]] = deque()
        while True:
            while len(in_flight) < self._window and (group := next(pending, None)) is not None:
                in_flight.append((self._pool.submit(extract_documents, group), len(group)))
            if not in_flight:
                return
            future, size = in_flight.popleft()
            while True:
                try:
                    error = future.exception(timeout=WAIT_TICK_SECONDS)
                    break
                except FutureTimeout:
                    on_wait()
            if isinstance(error, BrokenProcessPool):  # the child died (killed, out of memory): not one document's fault
                raise DriftLensError(f"The extraction process stopped unexpectedly ({error}); run the index again.")
            if error is not None and not isinstance(error, Exception):  # SystemExit and the like end the run
                raise error
            yield from future.result() if error is None else [error] * size  # (pickling its result, say)

    def close(self, *, now: bool) -> None:
        """Wait for the children to exit; `now` (the run stopped): drop queued documents and terminate them."""
        # ProcessPoolExecutor has no public way to stop a busy worker before Python 3.14 (terminate_workers).
        children = list((getattr(self._pool, "_processes", None) or {}).values()) if now else []
        for child in children:
            child.terminate()
        self._pool.shutdown(wait=True, cancel_futures=now)
        for child in children:
            child.join()  # reaped: neither running nor left a zombie


@contextmanager
def offline_extractions(
    jobs: Sequence[Job], processes: int, min_words: int, on_wait: Callable[[], None]
) -> Iterator[Iterator[Outcome]]:
    """Outcomes of `jobs` in order: from `processes` child processes, or in this process when `processes` is
    0 or the jobs have fewer than `min_words` words between them (settings `extract_processes`,
    `extract_process_min_words`)."""
    if processes == 0 or sum(len(text.split()) for text, _chunks in jobs) < min_words:
        yield _in_process(jobs)
        return
    pool = ExtractProcesses(processes)
    try:
        yield pool.results(jobs, on_wait)
    except BaseException:
        pool.close(now=True)
        raise
    pool.close(now=False)
