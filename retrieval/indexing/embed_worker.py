"""Chunk embedding on a worker thread, so extraction runs on the caller's thread at the same time.

Why: embedding (ONNX Runtime) and offline extraction (spaCy, yake) are the two big stages and both are
CPU-bound; one after the other, one of them often leaves a core idle. ONNX Runtime releases the GIL
while it computes, so a plain thread overlaps the two without a second process or a second model.
Progress is counted here and reported by the caller's thread: progress callbacks (a Streamlit page,
a rich bar, a test that stops the run) expect to be called from the thread that started the run.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

import numpy as np

from retrieval.embed import Embedder

#: How often the caller, once it only waits, reports the worker's progress.
WAIT_TICK_SECONDS = 0.5


class Cancelled(Exception):
    """The run that asked for the vectors stopped; the worker stops after its current slice."""


class EmbedWorker:
    """Embeds `texts` in slices of `step` on one thread; `done` and `seconds` are read by the caller."""

    def __init__(self, embedder: Embedder, texts: Sequence[str], step: int) -> None:
        self.total = len(texts)
        self.done = 0
        #: Wall seconds of the worker from its first slice to its last: the embed stage's time.
        self.seconds = 0.0
        self._embedder = embedder
        self._texts = texts
        self._step = step
        self._stop = threading.Event()
        self._empty = np.zeros((0, embedder.dim), dtype=np.float32)
        self._parts: list[np.ndarray] = []  # slice k holds texts [k * step, (k + 1) * step)
        self._progress = threading.Condition()  # notified after each slice: `first` waits on it
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="driftlens-embed")
        self._future = self._pool.submit(self._run)

    def _run(self) -> np.ndarray:
        started = time.perf_counter()
        for start in range(0, self.total, self._step):
            if self._stop.is_set():
                raise Cancelled
            part = self._embedder.embed(list(self._texts[start : start + self._step]))
            with self._progress:
                self._parts.append(part)
                self.done = min(start + self._step, self.total)
                self._progress.notify_all()
        self.seconds = time.perf_counter() - started
        return np.concatenate([self._empty, *self._parts])

    def progress(self) -> int:
        """Texts embedded so far; raises the worker's error as soon as it failed (not after extraction)."""
        if self._future.done() and self._future.exception() is not None:
            self._future.result()
        return self.done

    def rows(self, start: int, end: int, on_wait: Callable[[int], None]) -> np.ndarray:
        """The vectors of texts [start, end) as soon as they are embedded, while the worker goes on with the rest;
        while waiting, `on_wait(done)` after each slice or WAIT_TICK_SECONDS. Raises the worker's error. Only the
        slices that hold those rows are joined: a batch of a 100k-chunk run copies its own vectors, not all
        those before it."""
        while True:
            with self._progress:
                if self.done < end and not self._future.done():
                    self._progress.wait(WAIT_TICK_SECONDS)
                done, parts = self.done, self._parts[start // self._step : -(-end // self._step)]
            if done >= end:
                offset = start - start // self._step * self._step
                return np.concatenate([self._empty, *parts])[offset : offset + end - start]
            if self._future.done():
                self._future.result()  # failed (or cancelled) before the end-th vector: raises why
            on_wait(done)

    def result(self, on_wait: Callable[[int], None]) -> np.ndarray:
        """The vectors, in input order; while waiting, `on_wait(done)` every WAIT_TICK_SECONDS."""
        while True:
            try:
                return self._future.result(timeout=WAIT_TICK_SECONDS)
            except FutureTimeout:
                on_wait(self.done)

    def close(self) -> None:
        """Stop after the current slice (when the run failed) and release the thread."""
        self._stop.set()
        self._pool.shutdown(wait=True)
