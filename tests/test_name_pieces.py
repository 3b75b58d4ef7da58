"""A name the model cut at its start, read back over the words the document always writes before it (issue #25,
branch wt252: "Avenue South" of "24th Avenue South", "Biscuit World" of "Tudor's Biscuit World"), and the guards
that leave a title, an office, an owner or a word also written alone outside the name. Extraction only, no store."""

from __future__ import annotations

from spacy.tokens import Span

from retrieval.indexing.chunking import chunk_text
from retrieval.indexing.entity_filter import DocumentWords
from retrieval.indexing.extract_offline import extract_document
from retrieval.indexing.name_pieces import extended
from retrieval.text.nlp import nlp

GARDEN = (
    "Highline Botanical Garden\n\nHighline Botanical Garden is a community botanical garden located at 13735 24th "
    "Avenue South, SeaTac, Washington. It is open daily without charge.\n"
)
TUDOR = (
    "Tudor's Biscuit World\n\nTudor's Biscuit World is a restaurant chain and franchise based in Huntington, West "
    "Virginia, most commonly found in West Virginia. In 2016 a franchise was opened in Panama City, Florida.\n"
)
KEATLEY = (
    "Greg Keatley\n\nGregory Steven Keatley (born September 12, 1953 in Princeton, West Virginia) is a former Major "
    "League Baseball catcher who played for one season.\n"
)


def _keys(text: str) -> set[str]:
    return {m.key for chunk in extract_document(text, chunk_text(text, 256, 0.15)) for m in chunk.mentions}


def _read_back(text: str, name: str, label: str) -> tuple[str, Span]:
    """`extended` of `name` in `text` as a span of type `label`, and the span before it (to check the model's tags)."""
    doc = nlp()(text)
    start = text.index(name)
    span = doc.char_span(start, start + len(name), label=label)
    assert span is not None
    return extended(span, DocumentWords.of(text, 1)).text, doc[max(0, span.start - 3) : span.start]


def test_a_piece_is_read_back_over_the_words_always_before_it() -> None:
    """An ordinal, an owner's possessive and a given name on a title line run into the text: the whole name is the
    node, the piece is none."""
    assert {"24th-avenue-south"} <= _keys(GARDEN) and "avenue-south" not in _keys(GARDEN)
    keys = _keys(TUDOR)
    assert "biscuit-world" not in keys and any(key.startswith("tudor") and "biscuit-world" in key for key in keys)
    keys = _keys(KEATLEY)
    assert "gregory-steven-keatley" in keys and "steven-keatley" not in keys
    words = "Portugal led the Age of Discovery. The Age of Discovery ended in the 1600s."
    assert _read_back(words, "Discovery.", "PRODUCT")[0] == "Age of Discovery."


def test_a_title_an_office_or_a_mark_before_a_name_is_not_read_back() -> None:
    """ "President Obama", "CEO of WANdisco", "the 123rd IOC Session" (one of a recurring event), "Thank you,
    Kevin": the words before say who or which one, they are no part of the name."""
    assert _read_back("He met President Obama in Paris.", "Obama", "PERSON")[0] == "Obama"
    assert _read_back("He is the CEO of WANdisco, a firm.", "WANdisco", "ORG")[0] == "WANdisco"
    assert _read_back("It was elected at the 123rd IOC Session in 2011.", "IOC Session", "EVENT")[0] == "IOC Session"
    assert _read_back("Thank you, Kevin. It was good.", "Kevin", "PERSON")[0] == "Kevin"
    assert _read_back("It is the Bank of England, in London.", "England", "GPE")[0] == "England"


def test_a_name_or_a_word_written_alone_elsewhere_is_not_read_back() -> None:
    """The document writes the name without the word, or the word without the name ("The Woman spoke", "Gregory
    retired"): the word is then a name or a word of its own, as is an owner the model tagged ("Tudor" GPE, in one
    sentence)."""
    union = "She led the Woman's Christian Temperance Union in 1887."
    whole, before = _read_back(union, "Christian Temperance Union", "ORG")
    assert whole == "Woman's Christian Temperance Union" and before[-2].ent_iob_ == "O"
    assert (
        _read_back(union + " The Woman spoke.", "Christian Temperance Union", "ORG")[0] == "Christian Temperance Union"
    )
    reign = "He led the Reign of Terror in France."
    assert _read_back(reign, "Terror", "ORG")[0] == "Reign of Terror"
    assert _read_back(reign + " His Reign was short.", "Terror", "ORG")[0] == "Terror"
    owned = "He ate at Tudor's Biscuit World in May."
    whole, before = _read_back(owned, "Biscuit World", "ORG")
    assert whole == "Biscuit World" and before[-2].ent_type_  # an owner the model tagged is a name of its own
    alone = "Ap Lo Chun is an island. Lo Chun has a beach."
    assert _read_back(alone, "Lo Chun", "LOC")[0] == "Lo Chun"
    assert _read_back(KEATLEY, "Steven Keatley", "PERSON")[0] == "Gregory Steven Keatley"
    retired = KEATLEY + "Gregory retired in 1990.\n"
    assert _read_back(retired, "Steven Keatley", "PERSON")[0] == "Steven Keatley"
