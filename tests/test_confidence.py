"""Answer confidence: the parts are measured from the answer itself, and a weak answer names its weakest part."""

from __future__ import annotations

from datetime import UTC, datetime

from retrieval.judge.confidence import THRESHOLD, assess, match_citations, source_confidence, span_match
from retrieval.models import Answer, Citation, Hit, KeyFact, TraceStep

TEXT = "Marley was dead, to begin with. There is no doubt whatever about that."


def _answer(facts: list[KeyFact], evidence: list[Hit], **fields: object) -> Answer:
    answer = Answer.model_validate(
        {"question": "Who was Marley?", "mode": "local", "answered_by": "extractive", **fields}
    )
    answer.key_facts, answer.evidence = facts, evidence
    return answer


def _hit(chunk_id: str, vector: float, text: str = TEXT, **metadata: str) -> Hit:
    return Hit(id=chunk_id, text=text, score=0.9, document_name="carol", sources={"vector": vector}, metadata=metadata)


def test_span_match_is_the_share_of_words_found_in_one_run() -> None:
    assert span_match("marley  WAS dead", TEXT) == 1.0
    assert span_match("Marley was dead, to end with", TEXT) == 4 / 6  # "marley was dead to" in one run
    assert span_match("nothing here matches", TEXT) == 0.0
    assert span_match("", TEXT) == 0.0


def test_a_well_supported_answer_is_confident_and_states_no_limitation() -> None:
    evidence = [_hit(f"c{i}", 0.8) for i in range(3)]
    facts = [
        KeyFact(fact="Marley was dead.", citations=[Citation(chunk_id=f"c{i}", span="Marley was dead")])
        for i in range(3)
    ]
    answer = _answer(facts, evidence)
    match_citations(answer, {h.id: h.text for h in evidence})
    judged = assess(answer)
    parts = {p.name: p for p in judged.parts}
    assert parts["coverage"].value == 1.0 and parts["agreement"].value == 1.0
    assert parts["similarity"].value == 0.8
    assert parts["recency"].value is None and parts["model"].value is None  # not judged, weigh nothing
    assert judged.score == round((0.3 * 0.8 + 0.3 * 1 + 0.2 * 1) / 0.8, 3) and judged.score >= THRESHOLD
    assert judged.limitation == ""
    assert all(c.match == 1.0 for c in answer.citations())


def test_a_weak_answer_states_its_weakest_part_in_one_sentence() -> None:
    evidence = [_hit("c1", 0.7)]
    facts = [
        KeyFact(fact="Marley was dead.", citations=[Citation(chunk_id="c1", span="Marley was dead")]),
        KeyFact(fact="Marley sang.", citations=[Citation(chunk_id="c1", span="Marley sang loudly at night")]),
        KeyFact(fact="Unsupported.", citations=[]),
    ]
    answer = _answer(facts, evidence, answered_by="llm")  # a model's facts: their quoted spans are matched
    match_citations(answer, {"c1": TEXT})
    judged = assess(answer)
    assert judged.score < THRESHOLD
    assert judged.limitation.startswith(f"Confidence is {judged.score:.0%}, below 70%: citation coverage")
    assert "1 of 3 key facts have a verified span" in judged.limitation
    assert judged.limitation.count(".") == 1 and judged.limitation.endswith(").")
    assert [c.match for c in answer.citations()] == [1.0, 0.2]


def test_recency_and_the_models_report_count_when_present() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    evidence = [_hit("c1", 0.9, updated_at="2025-01-01T00:00:00")]
    facts = [KeyFact(fact="Marley was dead.", citations=[Citation(chunk_id="c1", span="Marley was dead")])]
    answer = _answer(facts, evidence, answered_by="llm", trace=[TraceStep(id="answer", kind="answer", confidence=0.4)])
    match_citations(answer, {"c1": TEXT})
    parts = {p.name: p for p in assess(answer, now=now).parts}
    assert parts["recency"].value == 0.5  # one half-life old
    assert parts["model"].value == 0.4 and "0.40" in parts["model"].detail


def test_nothing_cited_is_not_confident() -> None:
    judged = assess(_answer([], []))
    assert judged.score == 0.0 and "nothing was cited" in judged.limitation


def test_source_confidence_prefers_the_vector_similarity() -> None:
    assert source_confidence(Hit(id="a", score=3.0, sources={"vector": 0.42})) == 0.42
    assert source_confidence(Hit(id="a", score=3.0)) == 1.0
