"""Consecutive documents grouped by how many chunks they hold: spaCy's groups and the write batches alike.

Why one plan for both: extraction parses documents in groups of about GROUP_CHUNKS chunks (extract_process.py)
and the indexer writes them in batches of about WRITE_BATCH_CHUNKS (pipeline.py), each by the same rule.
Why the write batches are planned before any document is extracted or embedded: the indexer writes a batch as
soon as its documents are extracted and their chunks embedded, while the later documents still are. On Neo4j a
batch's write is mostly the server's work, which the indexer only waits for; written after extraction and chunk
embedding had both ended, it ran with a core idle (docs/benchmarks.md, "Many small documents"). Fixed in advance,
the batches are those the run wrote at the end, the same documents in the same order, so when a batch is written
changes nothing written.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Batch:
    """Documents [start, end) and their chunks [chunks_start, chunks_end), in the documents' chunk order."""

    start: int
    end: int
    chunks_start: int
    chunks_end: int


def plan(chunk_counts: Sequence[int], size: int) -> Iterator[Batch]:
    """Consecutive documents (given by their chunk counts) until a batch holds `size` chunks; the last: the rest."""
    start = chunks_start = chunks_end = 0
    for end, count in enumerate(chunk_counts, start=1):
        chunks_end += count
        if chunks_end - chunks_start >= size or end == len(chunk_counts):
            yield Batch(start, end, chunks_start, chunks_end)
            start, chunks_start = end, chunks_end
