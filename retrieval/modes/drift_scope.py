"""DRIFT's scoped search: hybrid search inside the chunks beneath a few communities.

Why its own module: follow-ups, the primer's representative chunks and the offline final ranking all search
a community scope, and the scopes are cached for one answer (sibling follow-ups often share targets).
"""

from __future__ import annotations

import threading

import numpy as np

from retrieval.context import Context
from retrieval.models import Hit, QueryParams
from retrieval.search.community_context import community_chunk_ids
from retrieval.search.hybrid import search_chunks

#: Scopes up to this many chunks are scored exactly; larger ones use the index, over-fetched and filtered.
EXACT_SCOPE_LIMIT = 300
OVERFETCH = 4
MAX_TOP_K = 200


class CommunityScope:
    """Chunk ids beneath community sets (cached for one answer) and hybrid search inside them; thread-safe."""

    def __init__(self, ctx: Context, params: QueryParams) -> None:
        self.ctx = ctx
        self.params = params
        self._scopes: dict[tuple[str, ...], list[str]] = {}
        self._lock = threading.Lock()

    def chunks(self, community_ids: tuple[str, ...]) -> list[str]:
        """Chunk ids under the target communities."""
        key = tuple(sorted(community_ids))
        if not key:
            return []
        with self._lock:
            cached = self._scopes.get(key)
        if cached is None:
            cached = sorted({c for ids in community_chunk_ids(self.ctx, key).values() for c in ids})
            with self._lock:
                self._scopes[key] = cached
        return cached

    def search(self, query: str, vector: np.ndarray | None, scope: list[str], k: int) -> list[Hit]:
        """Hybrid search inside `scope` (all chunks when empty).

        A small scope is scored exactly (restrict_ids); a large one is nearly the whole graph, where
        reading every vector costs more than an index search over-fetched and filtered to the scope.
        """
        as_list = vector.tolist() if vector is not None else None
        if not scope or len(scope) <= EXACT_SCOPE_LIMIT:
            params = self.params.model_copy(update={"top_k": k})
            return search_chunks(self.ctx, query, params, query_vector=as_list, restrict_ids=scope or None)
        params = self.params.model_copy(update={"top_k": min(OVERFETCH * k, MAX_TOP_K)})
        inside = set(scope)
        found = search_chunks(self.ctx, query, params, query_vector=as_list)
        return [h for h in found if h.id in inside][:k]
