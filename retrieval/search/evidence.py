"""Evidence sentences and citation checks, shared by every mode.

Why extractive facts: with no language model configured an answer is still useful if it is the
few sentences of the retrieved text that best answer the question, each traceable to its chunk.
Why validation: a model can cite a chunk it never saw or "quote" words the chunk does not contain;
a citation is kept only when its id was retrieved and its span occurs in that text (whitespace and
case differences are repaired to the verbatim span, anything else is dropped and counted).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from retrieval.embed import Embedder
from retrieval.models import Citation, Hit, KeyFact

CitationKind = Literal["chunk", "community", "node"]
#: Sentence ends (., !, ?, optionally closing quotes/brackets) followed by space, or line breaks.
#: A sentence runs to . ! ? (with closing quotes) or to a blank line; single newlines are hard wraps inside one.
_SENTENCE = re.compile(r"(?:[^.!?\n]|\n(?!\s*\n))+(?:[.!?]+[\"')\]]*(?=\s|$)|(?=\n\s*\n)|$)")
MIN_WORDS = 4
MAX_SPAN_CHARS = 400
#: Sentences read per question (cheap: they are ranked by words first).
MAX_CANDIDATES = 120
#: Sentences embedded per question after the lexical shortlist: embedding dominates an extractive answer's cost.
MAX_EMBEDDED = 16
#: Two evidence sentences this similar say the same thing; the weaker one is dropped.
DUPLICATE_SIMILARITY = 0.92
#: Sentences scoring below this share of the best one are off-topic filler, not evidence.
RELATIVE_FLOOR = 0.5
#: Share of a sentence's score that comes from its chunk's retrieval score (the rest is its own similarity).
HIT_WEIGHT = 0.3
#: A small bonus for sharing the question's words (ties between equally similar sentences).
LEXICAL_WEIGHT = 0.05
#: Two sentences sharing this share of the shorter one's distinct words are variants of one sentence...
NEAR_DUPLICATE_OVERLAP = 0.85
#: ...when the shorter one has at least this many distinct words (short sentences differ by one word).
NEAR_DUPLICATE_MIN_WORDS = 8
BM25_K1, BM25_B = 1.2, 0.75
_WORD = re.compile(r"\w+")
#: Titles whose period does not end a sentence.
_ABBREVIATION = re.compile(r"(?:^|\W)(?:Mr|Mrs|Ms|Dr|St|Jr|Sr|Prof|vs)\.$")


def sentences(text: str) -> list[str]:
    """Verbatim sentence spans of `text` (stripped, at least MIN_WORDS words, at most MAX_SPAN_CHARS).

    A period after a title ("Mr.", "Dr.") does not end a sentence: "like Mr." alone is a fragment.
    """
    out = []
    start: int | None = None
    matches = list(_SENTENCE.finditer(text))
    for n, match in enumerate(matches):
        start = match.start() if start is None else start
        if _ABBREVIATION.search(match.group(0)) and n + 1 < len(matches):
            continue
        span = text[start : match.end()].strip()
        start = None
        if len(span.split()) >= MIN_WORDS:
            out.append(span if len(span) <= MAX_SPAN_CHARS else _clip(span))
    return out


def _clip(span: str) -> str:
    """A long run-on sentence is cut at a word boundary; the prefix is still verbatim."""
    cut = span[:MAX_SPAN_CHARS]
    return cut[: cut.rfind(" ")] if " " in cut else cut


def display(text: str) -> str:
    """Text as an answer shows it: hard wraps and runs of spaces collapsed (citation spans stay verbatim)."""
    return " ".join(text.split())


def distinct(spans: Sequence[str]) -> list[int]:
    """Indices of `spans` without near-duplicates, in order; of two variants the complete sentence wins.

    Why: overlapping chunks (and summaries built from them) hold the same sentence twice, once whole
    and once cut at a chunk edge or glued to a neighbour; an answer must say it once.
    """
    words = [_words(s) for s in spans]
    kept: list[int] = []
    for i in range(len(spans)):
        twin = next((k for k, j in enumerate(kept) if _near_duplicate(words[i], words[j])), None)
        if twin is None:
            kept.append(i)
        elif _complete(spans[i]) and not _complete(spans[kept[twin]]):
            kept[twin] = i
    return sorted(kept)


def near_duplicate(a: str, b: str) -> bool:
    """Whether two spans are variants of one sentence (see `distinct`)."""
    return _near_duplicate(_words(a), _words(b))


def _words(span: str) -> list[str]:
    return _WORD.findall(span.lower())


def _near_duplicate(a: list[str], b: list[str]) -> bool:
    """One is a run of the other's words, or they share NEAR_DUPLICATE_OVERLAP of the shorter one's words."""
    short, long = sorted((a, b), key=len)
    if f" {' '.join(short)} " in f" {' '.join(long)} ":
        return True
    distinct_short = set(short)
    shared = len(distinct_short & set(long)) / max(len(distinct_short), 1)
    return len(distinct_short) >= NEAR_DUPLICATE_MIN_WORDS and shared >= NEAR_DUPLICATE_OVERLAP


def _complete(span: str) -> bool:
    """Starts like a sentence (capital, digit or quote) and ends with its punctuation."""
    return bool(span) and not span[0].islower() and span.rstrip("\"')]").endswith((".", "!", "?"))


@dataclass(frozen=True)
class Candidate:
    """An evidence sentence before embedding: `rank` is its chunk's score relative to the best, `lexical` 0-1."""

    hit: Hit
    span: str
    rank: float
    lexical: float


def shortlist(question: str, hits: Sequence[Hit], limit: int = MAX_EMBEDDED) -> list[Candidate]:
    """The `limit` distinct sentences of `hits` most likely to answer `question`, judged without a model.

    Why: embedding a sentence costs ~10-30 ms on a CPU and an answer reads up to MAX_CANDIDATES of
    them; BM25 word overlap with the question (document frequencies from these sentences) plus the
    chunk's retrieval score picks the few worth embedding. Deterministic, so a caller can embed the
    same shortlist ahead of time (DRIFT batches a whole round into one call).
    """
    top = max((h.score for h in hits), default=0.0) or 1.0
    pool = [(hit, span, hit.score / top) for hit in hits for span in sentences(hit.text)][:MAX_CANDIDATES]
    pool = [pool[i] for i in distinct([span for _h, span, _r in pool])]
    lexical = _bm25(question, [span for _h, span, _r in pool])
    best = max(lexical, default=0.0) or 1.0
    candidates = [Candidate(h, span, rank, lex / best) for (h, span, rank), lex in zip(pool, lexical, strict=True)]
    order = sorted(
        range(len(candidates)),
        key=lambda i: -((1 - HIT_WEIGHT) * candidates[i].lexical + HIT_WEIGHT * candidates[i].rank),
    )
    return [candidates[i] for i in sorted(order[:limit])]


def _bm25(query: str, spans: Sequence[str]) -> list[float]:
    """Okapi BM25 of each span for the query's words, with document frequencies over `spans` themselves."""
    docs = [_WORD.findall(span.lower()) for span in spans]
    if not docs:
        return []
    mean = sum(len(d) for d in docs) / len(docs)
    counts = [Counter(d) for d in docs]
    query_words = set(_WORD.findall(query.lower()))
    freq = {w: sum(1 for c in counts if w in c) for w in query_words}
    idf = {w: math.log(1.0 + (len(docs) - n + 0.5) / (n + 0.5)) for w, n in freq.items() if n}
    return [
        sum(
            idf[w] * c[w] * (BM25_K1 + 1) / (c[w] + BM25_K1 * (1 - BM25_B + BM25_B * len(d) / max(mean, 1.0)))
            for w in idf
            if w in c
        )
        for d, c in zip(docs, counts, strict=True)
    ]


def extractive_facts(
    question: str,
    question_vector: Sequence[float] | None,
    hits: list[Hit],
    embedder: Embedder,
    max_facts: int = 5,
    *,
    embedded: int = MAX_EMBEDDED,
) -> list[KeyFact]:
    """The `max_facts` best evidence sentences of `hits`, de-duplicated, each citing its chunk with a verbatim span.

    Only the `embedded` best of a lexical shortlist are embedded and ranked by similarity.
    """
    candidates = shortlist(question, hits, embedded)
    if not candidates or max_facts < 1:
        return []
    qvec = np.asarray(question_vector if question_vector is not None else embedder.embed_query(question))
    vectors = embedder.embed([c.span for c in candidates])
    similarity = vectors @ qvec
    scores = [
        (1 - HIT_WEIGHT) * float(similarity[i]) + HIT_WEIGHT * c.rank + LEXICAL_WEIGHT * c.lexical
        for i, c in enumerate(candidates)
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
    return [_fact(candidates[i].hit, candidates[i].span, scores[i]) for i in chosen]


def _fact(hit: Hit, span: str, score: float) -> KeyFact:
    citation = Citation(
        chunk_id=hit.id,
        span=span,
        document_name=hit.document_name or "",
        score=round(score, 4),
        kind=_kind(hit),
        lines=hit.lines,
    )
    return KeyFact(fact=display(span), citations=[citation])


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
                        "lines": citation.lines or hit.lines,
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
