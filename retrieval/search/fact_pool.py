"""The chunks an extractive answer reads its key facts from: the retrieved ones, then the next best further down.

Why wider than the retrieved chunks: chunk search ranks a whole passage, and in an interview the passages that
name the guest most (the introduction, the sign-off) outrank the one where the guest answers the question:
"What did Mira Murati study in college?" retrieved ten chunks of her episode, none holding "I studied mechanical
engineering.", which sat 35th. Sentences are cheap to rank by their words, so the pool takes the hybrid search's
next chunks of the documents it retrieved (read further in what the search found; other documents' chunks cost
HotpotQA 2 points of contains-gold), each scored below every retrieved one, and the sentence ranking decides.
Tuned on the demo questions' dev split: with 40 more chunks the gold sentence was in the pool for all but one of
its 36 answerable questions (with the 10 retrieved alone, six missed).
"""

from __future__ import annotations

from collections.abc import Sequence

from retrieval.context import Context
from retrieval.models import Hit, KeyFact, QueryParams
from retrieval.search.hybrid import search_chunks
from retrieval.search.turns import with_opening_speakers

#: Chunks of the hybrid search read for key facts besides the retrieved ones (those it shares are read once).
POOL_CHUNKS = 40


def fact_pool(
    ctx: Context, question: str, params: QueryParams, hits: Sequence[Hit], query_vector: list[float] | None
) -> list[Hit]:
    """`hits`, then those of the hybrid search's best POOL_CHUNKS that `hits` lack but whose documents `hits`
    have, with the speaker at each one's start.

    A further chunk's score is its search score scaled below the weakest retrieved hit's, so no further chunk
    outranks a retrieved one.
    """
    pool = list(hits)
    if pool:
        wider = search_chunks(
            ctx, question, params.model_copy(update={"top_k": POOL_CHUNKS}), query_vector=query_vector
        )
        seen = {h.id for h in pool}
        weakest = min(h.score for h in pool)
        best = max((h.score for h in wider), default=0.0) or 1.0
        documents = {h.document_id for h in pool}
        pool += [
            h.model_copy(update={"score": weakest * h.score / best})
            for h in wider
            if h.id not in seen and h.document_id in documents
        ]
    return with_opening_speakers(ctx, pool)


def cited_extra(facts: Sequence[KeyFact], hits: Sequence[Hit], pool: Sequence[Hit]) -> list[Hit]:
    """The pool's chunks that a fact cites and `hits` lack: added to the answer's evidence, so every cited chunk
    can be opened and checked."""
    have = {h.id for h in hits}
    cited = {c.chunk_id for f in facts for c in f.citations}
    return [h for h in pool if h.id in cited and h.id not in have]
