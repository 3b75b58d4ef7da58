"""Quotes are quotes: a left-out stretch of a transcript sentence is shown as "…", and a citation's match is of
the words shown. The real ONNX embedder over a hand-made transcript hit (no graph is read)."""

from __future__ import annotations

from retrieval.embed import Embedder
from retrieval.judge.confidence import match_citations, quote_match
from retrieval.models import Answer, Citation, Hit, KeyFact
from retrieval.search.evidence import extractive_facts
from retrieval.text.readable import clean_spoken

SAID = "LISA SU: You know, Moore's Law, I mean, we've been talking about it slowing down for a long time."


def test_left_out_words_are_marked_with_an_ellipsis() -> None:
    assert clean_spoken("Yeah, so, um, I I think it was, you know, really hard to to do.") == (
        "… I think it was … really hard to do."
    )
    assert clean_spoken("It is.") == "It is."  # nothing left out: no mark


def test_a_transcript_fact_shows_its_cuts_and_matches_what_it_shows(embedder: Embedder) -> None:
    hit = Hit(id="s1", text=SAID, score=1.0, document_id="ep")
    facts = extractive_facts("What did Lisa Su say about Moore's Law?", None, [hit], embedder, 1)
    assert facts[0].fact == "Lisa Su: … Moore's Law … we've been talking about it slowing down for a long time."
    answer = Answer(question="Moore's Law?", mode="local", answered_by="extractive", key_facts=facts)
    match_citations(answer, {"s1": SAID})
    assert facts[0].citations[0].match == 1.0  # every shown part is verbatim


def test_a_shown_fact_that_differs_from_its_source_does_not_match_fully() -> None:
    span = "Moore's Law, I mean, we've been talking about it"
    fact = KeyFact(
        fact="Lisa Su: Moore's Law is over, we've been talking", citations=[Citation(chunk_id="s1", span=span)]
    )
    answer = Answer(question="Moore's Law?", mode="local", answered_by="extractive", key_facts=[fact])
    match_citations(answer, {"s1": SAID})
    # The span alone is verbatim (it used to give 100%); the shown words "is over" are not in the source.
    assert fact.citations[0].match is not None and fact.citations[0].match < 0.8
    assert quote_match("Moore's Law … we've been talking", SAID) == 1.0
