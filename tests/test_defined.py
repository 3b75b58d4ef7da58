"""A name's defining sentence read from the raw text (retrieval/indexing/defined.py): "X is a town", "X (born 1929)
is an architect" decide which side of the person line a name is on, even where the parse runs an encyclopaedia's
title line into that sentence (issue #25, branch wt265, from the MuSiQue tuning label files' errors)."""

from __future__ import annotations

import pytest

from retrieval.indexing import defined
from retrieval.indexing.chunking import chunk_text
from retrieval.indexing.extract_offline import extract_document


def types_of(text: str) -> dict[str, str]:
    """key -> type of every entity the offline extractor finds in `text`."""
    return {m.key: m.type for chunk in extract_document(text, chunk_text(text, 256, 0.15)) for m in chunk.mentions}


@pytest.mark.parametrize(
    ("surface", "text", "said"),
    [
        ("Sant Hilari Sacalm", "Sant Hilari Sacalm\n\nSant Hilari Sacalm is a town in the comarca of Selva.", "thing"),
        ("Concierto Barroco", "Concierto Barroco\n\nConcierto Barroco is a piece of music written in 2007.", "thing"),
        ("Gmina Kwidzyn", "Gmina Kwidzyn\n\nGmina Kwidzyn is a rural gmina (administrative district).", "thing"),
        ("Edsa Shangri-La", "Edsa Shangri-La, Manila is a 5-star luxury hotel located at Ortigas Center.", "thing"),
        ("Frank Gehry", "Frank Gehry (born February 28, 1929) is a Canadian-born American architect.", "person"),
        ("William M. Hobby", "William M. Hobby (1899–1942), was a United States Navy officer.", "person"),
        ("Pierre de Rivaz", "Pierre de Rivaz (1711-1772) was a French clockmaker of the 18th century.", "person"),
        ("Ringo", "Ringo is a member of the band.", None),  # "of" ends the phrase before "band"
        ("Ringo", "The drummer was Ringo. Later Ringo is a band's name.", None),  # "band's" is no kind noun
        ("Frank", "Frank Gehry is an architect.", None),  # a name inside a longer one
        ("Gehry", "He met Gehry is a town?", None),  # not at a sentence's start
        ("Ron Laird", "Ron Laird (born May 31, 1938) was a race walker from the United States.", None),  # the head
        ("Schultz", "Schultz is an American cross-country mountain biker.", None),  # "biker", not "mountain"
        ("Shawn Springs", "Shawn Springs is a former American college and professional football player.", "person"),
        ("Otto Preminger", "Otto Preminger (1905-1986) was an American theatre and film director.", "person"),
        ("Hawley Products", "Hawley Products is the original designer of the M1 helmet liner.", None),  # a firm too
        ("Knapp Airport", "Knapp Airport is a general aviation airport located in Vermont.", "thing"),
        ("Lo Leader", "Lo Leader is the title bestowed upon the elected leader of a party.", None),  # "title"
        # an encyclopaedia's title line: the first sentence defines its subject under another form of the name
        (
            "Juande",
            "Juande\n\nJuan de Dios Prados López (born 1986), known as Juande, is a Spanish footballer.",
            "person",
        ),
        ("Bellas Artes", "Bellas Artes (Santiago)\n\nThe Bellas Artes is an underground metro station.", "thing"),
        ("Juan", "Juande\n\nJuan de Dios Prados López (born 1986), known as Juande, is a Spanish footballer.", None),
    ],
)
def test_the_defining_sentence_says_a_person_or_a_thing(surface: str, text: str, said: str | None) -> None:
    assert defined.defined(surface, text) == said


def test_the_definition_moves_a_type_across_the_person_line_only_without_person_evidence() -> None:
    assert defined.typed("PERSON", "thing", person=0) == "ORG"
    assert defined.typed("PERSON", "thing", person=1) == "PERSON"  # "... hunter Van Helsing" in the film's passage
    assert defined.typed("ORG", "person", person=0) == "PERSON"
    assert defined.typed("GPE", None, person=0) == "GPE"


def test_an_encyclopaedia_passage_is_typed_by_its_first_sentence() -> None:
    """The title line runs into the first sentence in the parse, so no parse rule reads "is a town"."""
    site = (
        "Mound Bottom\n\nMound Bottom is a prehistoric Native American complex in Cheatham County, Tennessee, "
        "located in the Southeastern United States. The complex, which consists of earthen platform and burial "
        "mounds, was occupied between approximately 1000 and 1300."
    )
    assert types_of(site).get("mound-bottom") == "ORG"
    piece = (
        "Concierto Barroco\n\nConcierto Barroco is a piece of music written in 2007 by the Bulgarian composer "
        "Gheorghi Arnaoudov, scored for violin and orchestra."
    )
    assert types_of(piece).get("concierto-barroco") == "ORG"
    gehry = "Frank Gehry\n\nFrank Gehry (born February 28, 1929) is a Canadian-born American architect."
    assert types_of(gehry).get("frank-gehry") == "PERSON"
