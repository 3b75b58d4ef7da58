"""The suite keeps the real models' outputs per input within a test process, so the same work is not done twice.

Why: nearly every graph a test reads is built twice per process, once on each backend (a module runs whole on
one worker, both its halves), from the same documents; the session graphs (Carol, the demo) are built once per
backend too. Embedding those texts with the real ONNX model and extracting them with spaCy are most of a build's
CPU, and both are pure functions of their input. The first build computes with the real model; later builds of
the same texts read what it computed. Nothing else is cached: each store still writes and searches for real.

Only the process's shared local embedder (`make_embedder`) and in-process extraction are memoised. Tests of the
embedder itself build their own `LocalMiniLMEmbedder`, and a test that replaces extraction (to make it fail) sees
its own replacement. Outputs are copied on the way out: callers may change what they receive.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Sequence

import numpy as np

from retrieval import embed
from retrieval.indexing import extract_process
from retrieval.indexing.chunking import Chunk
from retrieval.indexing.model import ChunkExtraction


class MemoEmbedder(embed.LocalMiniLMEmbedder):
    """The local MiniLM embedder that embeds each distinct text once per process."""

    def __init__(self, batch_size: int = 16, threads: int = 0) -> None:
        super().__init__(batch_size=batch_size, threads=threads)
        self._vectors: dict[str, np.ndarray] = {}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        if missing:
            for text, vector in zip(missing, super().embed(missing), strict=True):
                self._vectors[text] = vector
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            out[row] = self._vectors[text]
        return out


def _memo_extract(
    extract: Callable[[str, list[Chunk]], list[ChunkExtraction]],
) -> Callable[[str, list[Chunk]], list[ChunkExtraction]]:
    done: dict[tuple[str, tuple[Chunk, ...]], list[ChunkExtraction]] = {}

    @functools.wraps(extract)
    def extract_document(text: str, chunks: list[Chunk]) -> list[ChunkExtraction]:
        key = (text, tuple(chunks))
        if key not in done:
            done[key] = extract(text, chunks)
        return copy.deepcopy(done[key])

    return extract_document


def install() -> None:
    """Memoise the shared embedder and in-process extraction for the rest of this process."""
    embed._local_embedder = functools.lru_cache(maxsize=4)(MemoEmbedder)  # type: ignore[assignment]
    extract_process.extract_document = _memo_extract(extract_process.extract_document)  # type: ignore[assignment]
