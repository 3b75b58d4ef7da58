"""Issue #25's rules from MuSiQue's two tuning samples: an occupation or a birth says a name is a person's
(retrieval/indexing/person_words.py), and a place written only as the owner in a longer name is a piece of it
(entity_filter.DocumentWords.owner_in_names); an acronym counted before "of" and a negated group are no names
(entity_filter.junk). Other rules of the extractor: test_entity_names.py,
test_entity_rules.py, test_entity_kinds.py."""

from __future__ import annotations

from retrieval.indexing import person_words
from retrieval.indexing.chunking import chunk_text
from retrieval.indexing.entity_filter import DocumentWords
from retrieval.indexing.extract_offline import extract_document


def extracted(text: str) -> dict[str, str]:
    """surface -> type of every entity the offline extractor finds in `text`."""
    found = extract_document(text, chunk_text(text, 400, 0.1))
    return {m.surface: m.type for chunk in found for m in chunk.mentions}


def test_an_occupation_before_a_name_says_it_is_a_person() -> None:
    """ "about pharaoh Ramses II": the model typed the pharaoh a PRODUCT; the occupation before him says who he is.
    A firm after a word that is no occupation keeps its type."""
    text = (
        "Christian Jacq is a French author. He has written several novels about ancient Egypt, notably a five book "
        "series about pharaoh Ramses II, a character whom Jacq admires greatly."
    )
    assert extracted(text)["Ramses II"] == "PERSON"
    firm = extracted("Christian Jacq is a French author. His novels were published by Robert Laffont in Paris.")
    assert firm.get("Robert Laffont") != "CONCEPT"


def test_a_name_said_to_be_born_or_to_be_an_occupation_is_a_person() -> None:
    """ "Signmark (born 1978) is a Finnish rapper" (the model read a topic) and "Trajan was born on ..." (the model
    found no person): only people are born, and a rapper is a person. A thing that "is" a kind of thing stays one."""
    assert extracted("Signmark (born 1978) is a Finnish rapper. Signmark won his qualifying round.")["Signmark"] == (
        "PERSON"
    )
    assert extracted("Trajan was born on 18 September 53 in the province of Hispania Baetica.")["Trajan"] == "PERSON"
    assert extracted("Deep Purple is an English rock band formed in London in 1968.").get("Deep Purple") != "PERSON"
    dog = extracted("Boxer (dog)\n\nThe Boxer is a medium-sized breed of dog. The Boxer was bred from the Bulldog.")
    assert dog.get("Boxer") != "PERSON"  # the name as its own appositive is no occupation


def test_a_place_only_ever_owning_a_longer_name_is_a_piece_of_it() -> None:
    """ "St. Mark" only ever in "St. Mark's Road" is no place of its own; "Regent's Park" beside "Regent" alone keeps
    the lone one, and a place owning a common noun ("Paris's museums") is still the place."""
    road = "The Consulate moved to its premises in the corner of St. Mark's Road and Residency Road near the school."
    assert "St. Mark" not in extracted(road)
    assert DocumentWords.of(road, 1).owner_in_names("St. Mark")
    assert not DocumentWords.of("St. Mark's Road runs north. St. Mark is a parish.", 1).owner_in_names("St. Mark")
    assert not DocumentWords.of("Paris's museums are many.", 1).owner_in_names("Paris")
    city = "Dvořák's opera was first performed at Prague's National Theatre on 25 March 1904."
    assert extracted(city).get("Prague") == "GPE"  # a city owning a theatre is the city, not a saint's piece


def test_an_acronym_counted_before_of_is_a_measure_and_a_negated_group_no_name() -> None:
    """ "with an ERP of 20,000 watts" (a transmitter's effective radiated power) is a kind one counts, like "a CPU,";
    "non-Rohingyas" is everyone but a group. The group itself and an acronym named after a preposition stay."""
    station = extracted("The station is licensed by the FCC to broadcast at 105.5 FM with an ERP of 20,000 watts.")
    assert "ERP" not in station
    assert station.get("FCC") == "ORG"
    group = extracted("The Burmese regime has attempted to expel Rohingya and bring in non-Rohingyas to replace them.")
    assert "non-Rohingyas" not in group
    assert "Rohingya" in group


def test_the_author_of_a_film_or_a_libretto_and_a_bracketed_occupation_say_a_name_is_a_person() -> None:
    """ "directed by Goran Marković", "a libretto by J. D. McClatchy" (the model typed both ORG) and "Ernest de Saisset
    (painter)": a film's director and a libretto's writer are people, and so is a name glossed by an occupation.
    What a firm does ("distributed by", "published by") says nothing, and a name glossed by a thing stays a thing."""
    film = "Sabirni centar is a 1989 Yugoslavian comedy-drama film directed by Goran Marković, starring Rade Marković."
    assert extracted(film)["Goran Marković"] == "PERSON"
    opera = "1984 is an opera by the composer Lorin Maazel, with a libretto by J. D. McClatchy and Thomas Meehan."
    assert extracted(opera)["J. D. McClatchy"] == "PERSON"
    painter = extracted("Ernest de Saisset (painter)\n\nErnest de Saisset painted the missions of California.")
    assert painter["Ernest de Saisset"] == "PERSON"  # a particle inside a full name, glossed by an occupation
    firm = extracted("Deadpool is a 2016 American superhero film distributed by 20th Century Fox in the US.")
    assert firm.get("20th Century Fox") != "PERSON"
    assert person_words.authored(["directed", "by"]) and not person_words.authored(["produced", "by"])
    assert person_words.glossed(["(", "painter", ")"]) and not person_words.glossed(["(", "dog", ")"])
