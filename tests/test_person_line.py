"""Types checked across the person line from a name's own mentions (retrieval/indexing/person_line.py): what the
sentence says a name is, a person or a thing, moves the small model's type only where one reading is left (issue
#25, branch wt251, from the MuSiQue tuning label files' errors)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from retrieval.indexing import person_line
from retrieval.indexing.chunking import chunk_text
from retrieval.indexing.extract_offline import extract_document
from retrieval.text.nlp import nlp


def types_of(text: str) -> dict[str, str]:
    """key -> type of every entity the offline extractor finds in `text`."""
    return {m.key: m.type for chunk in extract_document(text, chunk_text(text, 256, 0.15)) for m in chunk.mentions}


def mention(text: str, name: str) -> Any:
    """The model's entity span `name` in `text`."""
    doc = nlp()(text)
    return next(ent for ent in doc.ents if ent.text == name)


def test_a_name_owning_a_noun_of_a_life_is_said_a_person() -> None:
    """ "Salandra's resignation", "Trajan's ancestors": a firm has a founder too, but no resignation or ancestors."""
    text = "It is possible that Trajan's ancestors married local women and lost their citizenship."
    assert person_line.said(mention(text, "Trajan")).person


def test_he_opening_the_next_sentence_refers_to_the_only_name_that_can_be_a_person() -> None:
    """ "Pierre de Rivaz ... was a French clockmaker ... He built a clock": the passage's subject, typed ORG, is a
    person; the same pronoun after a sentence that names two candidates says nothing of either."""
    text = (
        "Pierre de Rivaz (1711-1772) was a French clockmaker of the 18th century, from Saint-Gingolph. "
        "He built a clock in 1740 that was said to run for years."
    )
    assert types_of(text).get("pierre-de-rivaz") == "PERSON"
    two = "Google was founded by Larry Page in a garage. He wanted to organise the web."
    google = mention(two, "Google")
    assert not person_line.said(google).person


def test_a_pronoun_in_another_clause_or_after_another_subject_says_nothing() -> None:
    """ "He returned to Harvard ... his alma mater": the pronoun is the subject's; "X says he left ... his
    grandmother": it is the reported clause's."""
    harvard = "He returned to Harvard in 1933 as a Professor and then returned to his alma mater."
    assert not person_line.said(mention(harvard, "Harvard")).person
    watch = "North Korea Leadership Watch says he left North Korea to visit his grandmother in Moscow."
    assert not person_line.said(mention(watch, "North Korea Leadership Watch")).person


def test_serving_as_an_occupation_is_a_person() -> None:
    text = "The Diocese is centered in the city of Zrenjanin. László Német currently serves as bishop."
    assert types_of(text).get("laszlo-nemet") == "PERSON"


def test_a_kind_noun_said_of_a_person_type_makes_it_a_thing() -> None:
    """ "a synagogue, Kehilath Anshe Ma'arav": typed PERSON by the model, apposed to a building's noun; not "her
    debut album, Carly Simon" (a work named after its singer)."""
    text = (
        "The landmarked building was originally constructed for a synagogue, Kehilath Anshe Ma'arav. "
        "The church is notable as an architectural landmark."
    )
    assert types_of(text).get("kehilath-anshe-ma-arav") not in (None, "PERSON")
    album = "The song was released as the lead single from her self-titled debut album, Carly Simon, in 1971."
    assert not person_line.said(mention(album, "Carly Simon")).thing


def test_a_firm_agent_is_a_thing_unless_a_given_name_opens_it() -> None:
    """ "released in 1979 by Tekunon Kougyou": a game's maker; "released in April 1957 by Jerry Lee Lewis": a
    musician releases a record too."""
    text = "Beam Invader is a shoot 'em up arcade game released in 1979 by Tekunon Kougyou."
    assert types_of(text).get("tekunon-kougyou") not in (None, "PERSON")
    record = "It'll Be Me is a song first released in April 1957 by Jerry Lee Lewis."
    assert not person_line.said(mention(record, "Jerry Lee Lewis")).thing


def test_a_road_or_a_work_by_its_last_word() -> None:
    """ "Grant McConachie Way", "William Tell Overture": no person's name ends so; person evidence keeps a person."""
    assert person_line.lined("Grant McConachie Way", "PERSON", Counter(), strong=0, mentions=1) == "FAC"
    assert person_line.lined("William Tell Overture", "PERSON", Counter(), strong=0, mentions=1) == "WORK_OF_ART"
    assert person_line.lined("Thrissur KSRTC Bus Station", "PERSON", Counter(), strong=0, mentions=1) == "FAC"
    said = Counter({"person": 1})
    assert person_line.lined("Grant McConachie Way", "PERSON", said, strong=0, mentions=1) == "PERSON"
    assert person_line.lined("Jerry Way", "PERSON", Counter(), strong=1, mentions=1) == "PERSON"


def test_a_type_moves_only_on_more_evidence_than_against() -> None:
    """A thing becomes a person on person evidence in at least half its mentions, and a name ending in a kind noun
    never does ("Rochester Jeffersons Club")."""
    said = Counter({"person": 1})
    assert person_line.lined("Trajan", "ORG", said, strong=0, mentions=2) == "PERSON"
    assert person_line.lined("Trajan", "ORG", said, strong=0, mentions=3) == "ORG"
    assert person_line.lined("Trajan", "ORG", Counter({"person": 1, "thing": 1}), strong=0, mentions=2) == "ORG"
    assert person_line.lined("Jeffersons Club", "ORG", said, strong=0, mentions=1) == "ORG"
    assert person_line.lined("Edsa Shangri-La", "PERSON", Counter({"thing": 1}), strong=0, mentions=1) == "ORG"
    assert person_line.lined("Edsa Shangri-La", "PERSON", Counter({"thing": 1}), strong=1, mentions=1) == "PERSON"


def test_guards_read_from_hotpotqa_firings() -> None:
    """An object pronoun refers to someone else ("appointed him"); a work's title owns no life ("Coal Miner's
    Daughter"); a name opening with a given name or an initial takes no apposed kind noun, firm's verb or made
    thing's passive, which on these names come from misparses or from people ("Bette Davis, the rock and roll
    song", "published by C. S. Forester", "graduate W. S. Hindman, the ... stadium was built")."""
    appointed = "The Government of India has also recently appointed him as a member of the Law Commission of India."
    assert not person_line.said(mention(appointed, "The Government of India")).person
    duet = 'Burton also sang a duet with Bette Davis, the rock and roll song "What Ever Happened to Baby Jane?".'
    assert not person_line.said(mention(duet, "Bette Davis")).thing
    novel = "The Happy Return was the first of the Horatio Hornblower novels published by C. S. Forester."
    assert not person_line.said(mention(novel, "C. S. Forester")).thing
    stadium = (
        "Designed by University of Pittsburgh graduate W. S. Hindman, the US$2.1 million stadium was built after "
        "the seating capacity was deemed inadequate."
    )
    assert not person_line.said(mention(stadium, "W. S. Hindman")).thing
