"""How sure an answer is: a 0-1 score made of parts a reader can check, and one sentence on what is weak.

Why parts and not one number: a low score is only useful if it says what to do about it (ask more
precisely, read the cited chunks, distrust a single source). Each part is measured from the answer
itself, so extractive and model answers are judged the same way:
- similarity: how close the cited evidence is to the question (cosine of its vector arm, else its score);
- coverage: the share of key facts with at least one citation whose span was found in its source;
- agreement: how many distinct passages (chunks or communities) the citations come from: one passage can be
  wrong alone, several that say the same rarely are;
- recency: how recent the cited sources are, when they carry dates (otherwise not judged);
- model: the model's own confidence report, when a model answered and gave one.
A part that cannot be judged weighs nothing, so missing dates never lower a score.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from difflib import SequenceMatcher

from retrieval.models import Answer, Citation, Confidence, ConfidencePart, Hit
from retrieval.search.evidence import shown_quote
from retrieval.text.readable import ELLIPSIS

#: Part weights; they are renormalised over the parts that could be judged.
WEIGHTS: dict[str, float] = {"similarity": 0.3, "coverage": 0.3, "agreement": 0.2, "recency": 0.1, "model": 0.1}
LABELS: dict[str, str] = {
    "similarity": "retrieval similarity",
    "coverage": "citation coverage",
    "agreement": "agreement across sources",
    "recency": "recency",
    "model": "the model's own report",
}
#: Below this an answer states its limitations.
THRESHOLD = 0.7
#: A citation whose span matches its source at least this well counts as verified.
VERIFIED_MATCH = 0.9
#: Distinct cited passages -> agreement (three or more: 1.0).
AGREEMENT = {0: 0.0, 1: 0.5, 2: 0.8}
#: Age (days) at which a source's recency halves.
RECENCY_HALF_LIFE_DAYS = 365.0
_DATE_KEYS = ("updated_at", "ingested_at", "timestamp", "date")
_WORD = re.compile(r"\w+")
#: Trace steps whose confidence is the model's report on the final answer (else: the mean of its step reports).
_FINAL_STEPS = ("answer", "aggregate")


def span_match(span: str, text: str) -> float:
    """Share (0-1) of the span's words that occur as one run in `text` (case and spacing ignored)."""
    words = _WORD.findall(span.lower())
    if not words:
        return 0.0
    source = _WORD.findall(text.lower())
    if f" {' '.join(words)} " in f" {' '.join(source)} ":
        return 1.0
    block = SequenceMatcher(None, source, words, autojunk=False).find_longest_match(0, len(source), 0, len(words))
    return block.size / len(words)


def quote_match(shown: str, text: str) -> float:
    """Share (0-1) of a shown quote's words found in `text`, each part between "…" marks as one run."""
    parts = [_WORD.findall(part.lower()) for part in shown.split(ELLIPSIS)]
    total = sum(len(words) for words in parts)
    if not total:
        return 0.0
    return sum(span_match(" ".join(words), text) * len(words) for words in parts if words) / total


def source_confidence(hit: Hit) -> float:
    """A retrieved item's confidence (0-1): its cosine similarity to the question, else its fused score."""
    value = hit.sources.get("vector", hit.score)
    return min(max(float(value), 0.0), 1.0)


def match_citations(answer: Answer, texts: Mapping[str, str]) -> None:
    """Set each citation's `match` against its source text (cited chunks not in `texts` stay None).

    An extractive fact is a quote, so its match is of the words shown (`quote_match`: a left-out stretch is
    marked "…"); a model's fact is its own wording, so its citation's quoted span is what is matched.
    """
    for fact in answer.key_facts:
        for cite in fact.citations:
            text = texts.get(cite.chunk_id)
            if text is None or not cite.span:
                continue
            quoted = answer.answered_by == "extractive" and cite.kind == "chunk"
            value = quote_match(shown_quote(fact.fact), text) if quoted else span_match(cite.span, text)
            cite.match = round(value, 3)


def assess(answer: Answer, now: datetime | None = None) -> Confidence:
    """The answer's confidence from its citations, evidence and trace (call `match_citations` first)."""
    evidence = {h.id: h for h in answer.evidence}
    citations = answer.citations()
    cited = [evidence[c] for c in dict.fromkeys(c.chunk_id for c in citations) if c in evidence]
    parts = [
        _similarity(cited, citations),
        _coverage(answer),
        _agreement(citations, evidence),
        _recency(cited, now or datetime.now(UTC)),
        _model(answer),
    ]
    judged = [p for p in parts if p.value is not None]
    total = sum(p.weight for p in judged)
    score = sum(p.weight * (p.value or 0.0) for p in judged) / total if total else 0.0
    result = Confidence(score=round(score, 3), parts=parts)
    if score < THRESHOLD:
        weakest = min(judged, key=lambda p: p.value or 0.0)
        result.limitation = (
            f"Confidence is {score:.0%}, below {THRESHOLD:.0%}: {weakest.label} is the weakest part ({weakest.detail})."
        )
    return result


def _part(name: str, value: float | None, detail: str) -> ConfidencePart:
    return ConfidencePart(
        name=name,
        label=LABELS[name],
        value=None if value is None else round(min(max(value, 0.0), 1.0), 3),
        weight=WEIGHTS[name],
        detail=detail,
    )


def _similarity(cited: list[Hit], citations: list[Citation]) -> ConfidencePart:
    if cited:
        values = [source_confidence(h) for h in cited]
        mean = sum(values) / len(values)
        return _part("similarity", mean, f"mean {mean:.2f} over {len(values)} cited sources")
    scored = [c.score for c in citations if c.score is not None]
    if scored:  # cited items not among the evidence: their own scores, on a 0-1 or 0-100 scale
        values = [min(s / 100 if s > 1 else s, 1.0) for s in scored]
        return _part("similarity", sum(values) / len(values), f"mean citation score over {len(values)} citations")
    return _part("similarity", 0.0, "nothing was cited")


def _coverage(answer: Answer) -> ConfidencePart:
    facts = answer.key_facts
    if not facts:
        return _part("coverage", 0.0, "no key facts")
    verified = sum(1 for f in facts if any(_verified(c) for c in f.citations))
    return _part("coverage", verified / len(facts), f"{verified} of {len(facts)} key facts have a verified span")


def _verified(cite: Citation) -> bool:
    """A span found in its source; a community or node citation has no span to check, its id was validated."""
    if cite.kind != "chunk":
        return True
    return cite.match is not None and cite.match >= VERIFIED_MATCH


def _agreement(citations: list[Citation], evidence: Mapping[str, Hit]) -> ConfidencePart:
    passages = {c.chunk_id for c in citations}
    documents = {_document(c, evidence.get(c.chunk_id)) for c in citations}
    value = AGREEMENT.get(len(passages), 1.0)
    detail = f"{len(passages)} distinct passage{'s' if len(passages) != 1 else ''} cited"
    return _part("agreement", value, f"{detail} from {len(documents)} document{'s' if len(documents) != 1 else ''}")


def _document(cite: Citation, hit: Hit | None) -> str:
    if hit is not None and (hit.document_id or hit.document_name):
        return str(hit.document_id or hit.document_name)
    return cite.document_name or cite.chunk_id


def _recency(cited: list[Hit], now: datetime) -> ConfidencePart:
    ages = [age for h in cited if (age := _age_days(h, now)) is not None]
    if not ages:
        return _part("recency", None, "the cited sources carry no dates")
    values = [math.pow(0.5, age / RECENCY_HALF_LIFE_DAYS) for age in ages]
    return _part("recency", sum(values) / len(values), f"median age {sorted(ages)[len(ages) // 2]:.0f} days")


def _age_days(hit: Hit, now: datetime) -> float | None:
    for key in _DATE_KEYS:
        raw = hit.metadata.get(key)
        if not raw:
            continue
        try:
            when = datetime.fromisoformat(str(raw))
        except ValueError:
            continue
        when = when if when.tzinfo else when.replace(tzinfo=UTC)
        return max((now - when).total_seconds() / 86400, 0.0)
    return None


def _model(answer: Answer) -> ConfidencePart:
    if answer.answered_by != "llm":
        return _part("model", None, "no model answered")
    final = [s.confidence for s in answer.trace if s.kind in _FINAL_STEPS and s.confidence is not None]
    if final:
        return _part("model", final[-1], f"the model reported {final[-1]:.2f}")
    steps = [s.confidence for s in answer.trace if s.confidence is not None]
    if steps:
        mean = sum(steps) / len(steps)
        return _part("model", mean, f"the model's mean report over {len(steps)} steps: {mean:.2f}")
    return _part("model", None, "the model gave no confidence")
