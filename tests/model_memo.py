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


def _memoise(embedder: embed.LocalMiniLMEmbedder) -> None:
    """Make `embedder.embed` compute each distinct text once (the first time it is asked for)."""
    compute = embedder.embed
    vectors: dict[str, np.ndarray] = {}

    def embed_once(texts: Sequence[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in vectors]
        if missing:
            vectors.update(zip(missing, compute(missing), strict=True))
        return np.array([vectors[t] for t in texts], dtype=np.float32).reshape(len(texts), embedder.dim)

    embedder.embed = embed_once  # type: ignore[method-assign]


def install() -> None:
    """Memoise the process's shared local embedder for the rest of this process.

    The product's own factory still makes and shares the embedder (its one-model-per-process cache stays under
    test); each embedder it hands out is memoised once, the first time."""
    shared = embed._local_embedder

    @functools.wraps(shared)
    def memoised(batch_size: int, threads: int) -> embed.LocalMiniLMEmbedder:
        embedder = shared(batch_size, threads)
        if "embed" not in vars(embedder):  # not memoised yet
            _memoise(embedder)
        return embedder

    embed._local_embedder = memoised  # type: ignore[assignment]
