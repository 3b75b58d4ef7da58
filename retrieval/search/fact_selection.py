"""Which scored evidence sentences make an extractive answer: the best one first, then each next for what it adds.

Why not simply the top-scored sentences: the top few are often one passage saying one thing three ways, while a
multi-hop question needs two different passages. "What nationality was the author of Brand?" is answered by
"Brand is a play by Henrik Ibsen." together with "Ibsen was a Norwegian playwright.", and the second sentence
shares almost nothing with the question: it is similar only through a name the first one introduced. So each
next sentence is chosen by its own score plus
- **coverage**: the share of the question's content words it brings that the chosen sentences lack (a question
  about two things gets a sentence on each), and
- **bridge**: whether it names someone or something that a chosen sentence of another document introduced and
  the question does not name (the second hop), credited with that chosen sentence's relevance.
Both are read from the words alone (no model), so the choice is deterministic and cheap.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from retrieval.search.keywords import STOPWORDS, content_terms
from retrieval.store import bm25

#: Weight of the share of the question's content words a sentence adds, next to its 0-1 relevance score.
COVER_WEIGHT = 0.1
#: Weight of naming what a chosen sentence introduced (times that sentence's score relative to the best).
BRIDGE_WEIGHT = 0.1
#: Two sentences this similar say the same thing; the weaker one is dropped.
DUPLICATE_SIMILARITY = 0.92
#: Sentences whose score (with what they add) is below this share of the best one are off-topic filler.
RELATIVE_FLOOR = 0.5
#: A capitalised word: the cheap mark of a name ("Ibsen", "Norwegian", "GPT-4").
_NAME = re.compile(r"\b[A-Z][\w'’\-]*\w")


def names(text: str) -> set[str]:
    """Capitalised words of `text` that are not function words ("The", "He"), lower-cased."""
    return {w.lower() for w in _NAME.findall(text)} - STOPWORDS


def choose(
    question: str,
    spans: Sequence[str],
    scores: Sequence[float],
    vectors: np.ndarray,
    *,
    documents: Sequence[str],
    limit: int,
) -> list[int]:
    """Indices of up to `limit` spans in the order chosen: best score first, then best score plus what it adds.

    `scores` are each span's relevance to the question (0-1 scale), `vectors` their unit embeddings (rows), used
    to skip a sentence that repeats a chosen one, `documents` where each span comes from (a bridge leads from one
    document to another: a sentence naming what its own document's chosen sentence named is no second hop).
    """
    if not spans or limit < 1:
        return []
    wanted = content_terms(question)
    asked = names(question) | set(wanted)
    found_names = [names(span) - asked for span in spans]
    best = max(scores) or 1.0
    floor = RELATIVE_FLOOR * best
    chosen: list[int] = []
    covered: set[str] = set()
    #: name -> (document, relative score) of the chosen sentences introducing it
    introduced: dict[str, list[tuple[str, float]]] = {}
    while len(chosen) < limit:
        gains = {
            i: scores[i] + _cover(spans[i], wanted, covered) + _bridge(found_names[i], documents[i], introduced)
            for i in range(len(spans))
            if i not in chosen and not _repeats(vectors, i, chosen)
        }
        if not gains:
            break
        pick = max(gains, key=lambda i: (gains[i], -i))
        if gains[pick] < floor:
            break
        chosen.append(pick)
        covered |= {t for t in wanted if bm25.contains(spans[pick], t)}
        for name in found_names[pick]:
            introduced.setdefault(name, []).append((documents[pick], scores[pick] / best))
    return chosen


def _cover(span: str, wanted: Sequence[str], covered: set[str]) -> float:
    """Credit for the question's content words the chosen sentences lack and this one has."""
    if not wanted:
        return 0.0
    return COVER_WEIGHT * sum(1 for t in wanted if t not in covered and bm25.contains(span, t)) / len(wanted)


def _bridge(span_names: set[str], document: str, introduced: dict[str, list[tuple[str, float]]]) -> float:
    """Credit for naming what a chosen sentence of another document introduced (its relative score)."""
    return BRIDGE_WEIGHT * max(
        (share for n in span_names for source, share in introduced.get(n, []) if source != document), default=0.0
    )


def _repeats(vectors: np.ndarray, i: int, chosen: Sequence[int]) -> bool:
    return any(float(vectors[i] @ vectors[j]) >= DUPLICATE_SIMILARITY for j in chosen)
