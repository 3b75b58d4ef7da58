"""A document's yake phrases do not depend on the documents extracted before it in the process: the extractor is
made once per process (extract_offline._keyword_extractor), and what it keeps between documents (its similarity
cache) must not change what it finds."""

from __future__ import annotations

import yake

from retrieval.indexing import extract_offline
from retrieval.indexing.extract_offline import _clean, _keyphrases
from retrieval.indexing.model import slug

DOCUMENTS = [
    "Alan Turing was a British mathematician. Turing machines model computation; the Turing test asks whether "
    "a machine can think. He worked at Bletchley Park on the Enigma cipher during the Second World War.",
    "Marie Curie won the Nobel Prize in Physics and the Nobel Prize in Chemistry. Her research on radioactivity, "
    "with Pierre Curie, found polonium and radium in Paris.",
    "The Amazon river flows through Brazil, Peru and Colombia. The Amazon rainforest holds a tenth of the known "
    "species; deforestation of the rainforest threatens them.",
]


def _fresh(text: str) -> set[str]:
    """What a newly made extractor finds, as the extractor made per document found before."""
    top = max(10, min(60, len(text.split()) // 250))
    extractor = yake.KeywordExtractor(lan="en", n=3, top=top, dedup_lim=0.7)
    return {slug(_clean(phrase)) for phrase, _score in extractor.extract_keywords(text)}


def test_each_documents_phrases_are_a_fresh_extractors_whatever_ran_before() -> None:
    extract_offline._keyword_extractor.cache_clear()
    long = " ".join(DOCUMENTS * 60)  # past 2,000 words, and past 250 words a phrase: another extractor's `top`
    order = [*DOCUMENTS, long, *reversed(DOCUMENTS), long, DOCUMENTS[0]]
    assert [_keyphrases(text, len(text.split())) for text in order] == [_fresh(text) for text in order]
    assert extract_offline._keyword_extractor.cache_info().currsize == 2  # one per `top`, shared by the documents
