"""Key facts that answer: filler and headings are never facts, and the sentence stating the thing asked comes first.

Pure text rules and the real ONNX embedder over hand-made transcript hits (no graph: the rules read sentences).
"""

from __future__ import annotations

import pytest

from retrieval.embed import Embedder
from retrieval.models import Hit
from retrieval.search.evidence import extractive_facts, shortlist
from retrieval.search.filler import is_filler, is_heading, never_a_fact

FILLER = [
    "Thank you so much, Kevin.",
    "KEVIN SCOTT: Yeah, exactly.",
    "Good luck to your book.",
    "It's never too late.",
    "That was a great conversation.",
    "Well, that does it for us for this episode.",
    "Thanks so much for having me on the show, it was a pleasure.",
]
HEADINGS = [
    "Behind the Tech with Kevin Scott Podcast Episode 52 – Bill Gates",
    "Helios Labs research note",
    "[MUSIC]",
    "Quarterly Report 2023",
]
FACTS = [
    "Ibsen was a Norwegian playwright.",
    "He was born in Warsaw.",
    "Xerox had made lots of money on copying machines.",
    "She won the Nobel Prize in Physics in 1903.",
    "LISA SU: We bet the company on chiplets because they let us mix process nodes.",
    "and then the team moved the whole lab to a new building",  # cut at a chunk edge: not a heading
]


@pytest.mark.parametrize("sentence", FILLER)
def test_conversational_filler_is_never_a_fact(sentence: str) -> None:
    assert is_filler(sentence) and never_a_fact(sentence)


@pytest.mark.parametrize("sentence", HEADINGS)
def test_titles_and_stage_directions_are_headings(sentence: str) -> None:
    assert is_heading(sentence) and never_a_fact(sentence)


@pytest.mark.parametrize("sentence", FACTS)
def test_sentences_that_state_something_are_facts(sentence: str) -> None:
    assert not never_a_fact(sentence)


EPISODE = (
    "Behind the Tech with Kevin Scott Podcast\nEpisode 7 – Lisa Su\n\n"
    "KEVIN SCOTT: Thank you so much for being here, Lisa.\n\n"
    "LISA SU: Thank you so much, Kevin.\n\n"
    "LISA SU: I grew up in New York and studied electrical engineering at MIT.\n\n"
    "LISA SU: Chiplets let us combine small dies made on different process nodes into one processor.\n\n"
    "KEVIN SCOTT: Yeah, exactly.\n"
)


def test_filler_and_headings_never_reach_the_shortlist() -> None:
    hit = Hit(id="e7", text=EPISODE, score=1.0, document_id="ep7")
    spans = [c.span for c in shortlist("What did Lisa Su say about chiplets?", [hit])]
    assert spans and not any(never_a_fact(s) for s in spans)
    assert not any("Episode 7" in s or "Thank you" in s or "exactly" in s for s in spans)


def test_the_sentence_naming_the_asked_thing_comes_first(embedder: Embedder) -> None:
    hit = Hit(id="e7", text=EPISODE, score=1.0, document_id="ep7")
    facts = extractive_facts("What did Lisa Su say about chiplets?", None, [hit], embedder, 5)
    assert facts[0].fact.startswith("Lisa Su: Chiplets let us combine")  # who said it is kept
    assert not any(never_a_fact(f.citations[0].span) for f in facts)
