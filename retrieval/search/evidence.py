"""Evidence sentences and citation checks, shared by every mode.

Why extractive facts: with no language model configured an answer is still useful if it is the
few sentences of the retrieved text that best answer the question, each traceable to its chunk.
Why validation: a model can cite a chunk it never saw or "quote" words the chunk does not contain;
a citation is kept only when its id was retrieved and its span occurs in that text (whitespace and
case differences are repaired to the verbatim span, anything else is dropped and counted).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

import numpy as np

from retrieval.embed import Embedder
from retrieval.models import Citation, Hit, KeyFact
from retrieval.store.text_query import terms

CitationKind = Literal["chunk", "community", "node"]
#: Sentence ends (., !, ?, optionally closing quotes/brackets) followed by space, or line breaks.
_SENTENCE = re.compile(r"[^\n.!?]*(?:[.!?]+[\"')\]]*(?=\s|$)|\n|$)")
MIN_WORDS = 4
MAX_SPAN_CHARS = 400
#: Sentences embedded per question: bounds the cost of an extractive answer on a slow CPU.
MAX_CANDIDATES = 120
#: Two evidence sentences this similar say the same thing; the weaker one is dropped.
DUPLICATE_SIMILARITY = 0.92
#: Sentences scoring below this share of the best one are off-topic filler, not evidence.
RELATIVE_FLOOR = 0.5
#: Share of a sentence's score that comes from its chunk's retrieval score (the rest is its own similarity).
HIT_WEIGHT = 0.3


def sentences(text: str) -> list[str]:
    """Verbatim sentence spans of `text` (stripped, at least MIN_WORDS words, at most MAX_SPAN_CHARS)."""
    out = []
    for match in _SENTENCE.finditer(text):
        span = match.group(0).strip()
        if len(span.split()) >= MIN_WORDS:
            out.append(span if len(span) <= MAX_SPAN_CHARS else _clip(span))
    return out


def _clip(span: str) -> str:
    """A long run-on sentence is cut at a word boundary; the prefix is still verbatim."""
    cut = span[:MAX_SPAN_CHARS]
    return cut[: cut.rfind(" ")] if " " in cut else cut


def extractive_facts(
    question: str,
    question_vector: Sequence[float] | None,
    hits: list[Hit],
    embedder: Embedder,
    max_facts: int = 5,
) -> list[KeyFact]:
    """The `max_facts` best evidence sentences of `hits`, de-duplicated, each citing its chunk with a verbatim span."""
    top = max((h.score for h in hits), default=0.0) or 1.0
    candidates = [(hit, span, hit.score / top) for hit in hits for span in sentences(hit.text)][:MAX_CANDIDATES]
    if not candidates or max_facts < 1:
        return []
    qvec = np.asarray(question_vector if question_vector is not None else embedder.embed_query(question))
    vectors = embedder.embed([span for _h, span, _s in candidates])
    similarity = vectors @ qvec
    words = set(terms(question))
    scores = [
        (1 - HIT_WEIGHT) * float(similarity[i]) + HIT_WEIGHT * rank + 0.05 * _overlap(words, span)
        for i, (_h, span, rank) in enumerate(candidates)
    ]
    chosen: list[int] = []
    floor = RELATIVE_FLOOR * max(scores)
    for i in sorted(range(len(candidates)), key=lambda i: -scores[i]):
        if scores[i] < floor:
            break
        if any(float(vectors[i] @ vectors[j]) >= DUPLICATE_SIMILARITY for j in chosen):
            continue
        chosen.append(i)
        if len(chosen) == max_facts:
            break
    return [_fact(candidates[i][0], candidates[i][1], scores[i]) for i in chosen]


def _overlap(words: set[str], span: str) -> float:
    return len(words & set(terms(span, max_terms=200))) / len(words) if words else 0.0


def _fact(hit: Hit, span: str, score: float) -> KeyFact:
    citation = Citation(
        chunk_id=hit.id, span=span, document_name=hit.document_name or "", score=round(score, 4), kind=_kind(hit)
    )
    return KeyFact(fact=span, citations=[citation])


_CITATION_KINDS: dict[str, CitationKind] = {"chunk": "chunk", "community": "community"}


def _kind(hit: Hit) -> CitationKind:
    return _CITATION_KINDS.get(hit.kind, "node")


def validate_citations(key_facts: list[KeyFact], retrieved: dict[str, Hit]) -> tuple[list[KeyFact], int]:
    """Facts with only citations that hold; returns them and how many citations were dropped.

    A fact whose every citation was dropped is dropped too: it claims support it does not have.
    A fact that cited nothing in the first place is kept (the caller decides what uncited text means).
    """
    kept: list[KeyFact] = []
    dropped = 0
    for fact in key_facts:
        valid = []
        for citation in fact.citations:
            hit = retrieved.get(citation.chunk_id)
            span = locate(citation.span, hit.text) if hit is not None else None
            if hit is None or span is None:
                dropped += 1
                continue
            valid.append(
                citation.model_copy(
                    update={
                        "span": span,
                        "document_name": citation.document_name or hit.document_name or "",
                        "kind": _kind(hit),
                    }
                )
            )
        if valid or not fact.citations:
            kept.append(fact.model_copy(update={"citations": valid}))
    return kept, dropped


def locate(span: str, text: str) -> str | None:
    """The verbatim occurrence of `span` in `text`, tolerating whitespace and case; "" for no span; None if absent."""
    span = span.strip()
    if not span:
        return ""
    if span in text:
        return span
    words = span.split()
    pattern = r"\s+".join(re.escape(w) for w in words)
    match = re.search(pattern, text, flags=re.IGNORECASE)
    return match.group(0) if match else None
