"""The embedded server's per-query memory cap, kept above what its vector indexes need to grow.

Why: FalkorDB counts a vector index's growth against the query that inserts the vector, and the index grows
in one piece (its vectors are reallocated together). With a fixed cap, the first write after the largest
index passes about 0.8x the cap fails, whatever its size: with the 1 GB default, a 384-d chunk index stopped
growing at ~590,000 chunks (a one-node write failed), and a 16 MB cap stops one at 8,000. The cap is there
to stop a runaway read (`UNWIND range(1, 2000000000)` asked for 32 GB), not to bound the graph's size: that
is `graph_max_memory_mb`'s job. So when a write hits the cap while the largest vector index holds more than half
of it, the cap is raised to twice that index (room to double before it is raised again) and at least doubled,
never above the server's own memory limit; a write that fails again raises it again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from retrieval.store.base import IndexState

log = logging.getLogger(__name__)

MB = 1024 * 1024
#: How far the cap is set above the largest vector index: the index can double before it is raised again.
GROWTH = 2
#: Bytes per stored vector element (the store keeps `vecf32`).
FLOAT32 = 4


def vector_bytes(indexes: Sequence[IndexState], count: Callable[[str], int]) -> dict[str, int]:
    """Bytes of vectors per vector-indexed label: nodes of the label times the index's dimension."""
    return {i.label: count(i.label) * i.dimension * FLOAT32 for i in indexes if i.kind == "vector" and i.dimension}


def make_room(client: Any, indexes: Sequence[IndexState], count: Callable[[str], int], ceiling_mb: int) -> bool:
    """Raise the server's cap so the largest vector index can grow; False when it cannot go higher."""
    sizes = vector_bytes(indexes, count)
    if not sizes:
        return False
    label, biggest = max(sizes.items(), key=lambda item: item[1])
    current = int(client.execute_command("GRAPH.CONFIG", "GET", "QUERY_MEM_CAPACITY")[1])
    if GROWTH * biggest <= current:  # the indexes already have room: the write itself is too large
        return False
    # At least double: the index's next block can need more than twice its vectors (an 8 MB cap raised to twice
    # a 4.4 MB index failed the same write again), and a write that still fails asks again (`_write`).
    wanted = min(max(GROWTH * biggest, 2 * current), ceiling_mb * MB)
    if wanted <= current:
        return False
    client.execute_command("GRAPH.CONFIG", "SET", "QUERY_MEM_CAPACITY", wanted)
    log.warning(
        "raised the graph server's per-query memory cap from %d to %d MB: the vector index on :%s holds %d MB "
        "and grows in one piece (DRIFTLENS_GRAPH_QUERY_MEMORY_MB is the cap it starts with)",
        current // MB,
        wanted // MB,
        label,
        biggest // MB,
    )
    return True
