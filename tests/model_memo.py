"""The suite embeds each distinct text once per test process, with the real model.

Why: nearly every graph a test reads is built twice per process, once on each backend (a module runs whole on
one worker, both its halves), from the same documents; the session graphs (Carol, the demo) are built once per
backend too. Embedding is the largest part of a build's CPU and a pure function of the text: the first build
computes each vector with the real ONNX model, later builds read it. Nothing else is cached: extraction, writes
and searches run for real every time (extraction is not memoised: the extraction-process tests kill and break
it on purpose).

Only the process's shared local embedder (`make_embedder`) is memoised. Tests of the embedder itself, and tests
that time the embed stage, build their own `LocalMiniLMEmbedder`.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from retrieval import embed


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


def install() -> None:
    """Memoise the process's shared local embedder for the rest of this process."""
    embed._local_embedder = functools.lru_cache(maxsize=4)(MemoEmbedder)  # type: ignore[assignment]
