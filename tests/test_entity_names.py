"""Issue #25's rules from MuSiQue's tuning labels: a place named like a person, the author of a play typed as a firm,
full names in a cast list typed as firms (retrieval/indexing/entity_names.py, entity_types.py). Other rules of the
extractor: test_entity_rules.py, test_entity_kinds.py."""

from __future__ import annotations

from retrieval.indexing.chunking import chunk_text
from retrieval.indexing.entity_filter import DocumentWords
from retrieval.indexing.entity_names import author_named, epithet_named, place_named, regnal_named
from retrieval.indexing.extract_offline import extract_document


def extracted(text: str) -> dict[str, str]:
    """surface -> type of every entity the offline extractor finds in `text`."""
    found = extract_document(text, chunk_text(text, 400, 0.1))
    return {m.surface: m.type for chunk in found for m in chunk.mentions}


def test_a_person_named_by_a_kind_of_place_is_the_place_unless_it_acts_as_a_person() -> None:
    """ "Morley Glacier", "Mount Bates": a place's common noun first or last; "Ricki Lake" (a surname that is also a
    place noun) and any name with person evidence stay people."""
    assert place_named("Morley Glacier", "PERSON", 0) == "LOC"
    assert place_named("Mount Bates", "PERSON", 0) == "LOC"
    assert place_named("Sienna Plantation", "PERSON", 0) == "LOC"
    assert place_named("Ricki Lake", "PERSON", 0) == "PERSON"
    assert place_named("Morley Glacier", "PERSON", 1) == "PERSON"  # "Morley Glacier said": acts as a person
    assert place_named("Glacier", "PERSON", 0) == "PERSON"  # one word: no kind noun beside a name
    assert place_named("Morley Glacier", "ORG", 0) == "ORG"
    text = "Hicks Ridge is a ridge between Mount Soza and Morley Glacier in the Bowers Mountains."
    assert extracted(text).get("Morley Glacier") == "LOC"


def test_the_owner_of_a_play_or_a_novel_is_its_author() -> None:
    """ "Dušan Kovačević's play" names the playwright (the model typed ORG); a firm owning a film or a record stays
    a firm, and a one-word owner is possessor()'s (test_entity_rules.py)."""
    play = DocumentWords.of("It is based on Dušan Kovačević's play of the same title.", 1)
    assert author_named("Dušan Kovačević", "ORG", play) == "PERSON"
    film = DocumentWords.of("It is based on Warner Bros's film of the same title.", 1)
    assert author_named("Warner Bros", "ORG", film) == "ORG"
    assert author_named("Kovačević", "ORG", DocumentWords.of("Kovačević's play", 1)) == "ORG"
    text = "The Meeting Point is a 1989 film. It is based on Dušan Kovačević's play of the same title."
    assert extracted(text).get("Dušan Kovačević") == "PERSON"


def test_full_names_in_a_cast_are_people_and_teams_stay_groups() -> None:
    """A full name the model typed ORG in a cast list ("starring Matthew Broderick, Denzel Washington, ...") or
    after "starring" is a person; a team whose name ends in a plural ("Kansas City Royals, who won") is not, nor a
    name ending in a firm's noun ("Anita Borg Institute, she was ...": "she" is Anita Borg)."""
    cast = "Glory is a 1989 war film starring Matthew Broderick, Denzel Washington, Cary Elwes and Morgan Freeman."
    assert extracted(cast).get("Denzel Washington") == "PERSON"
    assert extracted("It was remade in 1966 starring María Félix and Eulalio González.").get("María Félix") == "PERSON"
    team = "Game 1 was played between the New York Mets and Kansas City Royals, who won the World Series."
    assert extracted(team).get("Kansas City Royals") != "PERSON"
    institute = "It started out as the Anita Borg Institute, she was a strong advocate. The Anita Borg Institute grew."
    assert extracted(institute).get("Anita Borg Institute") == "ORG"  # a firm's noun last: not retyped
    era = (
        "Born in Chongqing in 1955, Xu grew up in Beijing. In 1975, near the end of the Cultural Revolution, he was "
        "relocated to the countryside for two years as part of Mao Zedong's policy."
    )
    assert extracted(era).get("Cultural Revolution") != "PERSON"  # "he" after an event is the next clause's subject


def test_a_cast_names_a_person_whose_surname_ends_in_s_and_a_list_of_falls_names_no_people() -> None:
    """ "starring Traci Lords": after a common given name a surname ending in "s" is no team's plural. "Hooker Falls,
    Triple Falls, Bridal Veil Falls, and High Falls", each typed PERSON by the model, is a list of places, not of
    people, so the place noun last decides (a team's plural after a place stays a group: the cast test above)."""
    cast = "Boogie Boy is a 1998 film starring Traci Lords and written and directed by Craig Hamann."
    assert extracted(cast)["Traci Lords"] == "PERSON"
    falls = (
        "Some of the waterfalls used in the movie include Hooker Falls, Triple Falls, Bridal Veil Falls, and High "
        "Falls, all located in the DuPont State Recreational Forest."
    )
    found = extracted(falls)
    assert found["Triple Falls"] != "PERSON"
    assert found["Bridal Veil Falls"] != "PERSON"
    squares = (
        "The name was changed to Place Louis XVI under Charles X, then Place Louis XVIII (1821-48), Place de la "
        "Liberté (1848), Place de la République (1848-49) and Place Napoléon (1849-71)."
    )
    assert extracted(squares).get("Place de la République") != "PERSON"  # a particle after a noun: no full name


def test_a_person_written_before_a_kind_noun_is_the_place_and_one_only_inside_a_longer_name_is_a_piece() -> None:
    """ "Au Gres Township ... the city of Au Gres": a name the document writes before a place's noun in more than half
    its occurrences, with no person evidence, names the place (the model typed PERSON); "Warren Easton" only
    ever in "Warren Easton High School" is a piece of the school's name, and any person evidence keeps the
    person. A fell, a state forest and a hotel ("Carrock Fell", "Hotel Sidhartha Regency") are places too."""
    township = (
        "Au Gres Township, Michigan\n\nAu Gres Township is a civil township of Arenac County in the U.S. state of "
        "Michigan. As of the 2010 census, "
        "the township population was 953. The city of Au Gres borders the township to the east."
    )
    assert extracted(township).get("Au Gres") == "LOC"
    school = "He attended Booker T. Washington High School & Warren Easton High School in New Orleans."
    assert "Warren Easton" not in extracted(school)
    born = "Warren Easton (born 1850) was an educator. Warren Easton High School is named after him."
    assert extracted(born).get("Warren Easton") == "PERSON"
    assert place_named("Carrock Fell", "PERSON", 0) == "LOC"
    assert place_named("William Thomas State Forest", "PERSON", 0) == "LOC"
    assert place_named("Hotel Sidhartha Regency", "PERSON", 0) == "LOC"
    fells = "Other tops in this region include High Pike, Carrock Fell and Great Calva. The fell's slopes are smooth."
    assert extracted(fells).get("Carrock Fell") != "PERSON"


def test_a_list_right_after_the_noun_of_a_kind_of_thing_names_no_people() -> None:
    """ "rock bands Aquarium, Kino, Alisa and Strannye Igry" lists bands, not people: the model typed three of them
    PERSON, which made each one a member of a list of people (a list of people still names people:
    test_entity_rules.py)."""
    bands = (
        "Red Wave is a double album released in 1986 and featuring Russian rock bands Aquarium, Kino, Alisa, and "
        "Strannye Igry (Strange Games), all from Leningrad."
    )
    assert "PERSON" not in {extracted(bands).get(name) for name in ("Kino", "Aquarium")}


def test_a_reign_name_with_a_regnal_number_is_a_person() -> None:
    """ "Ariarathes VI" typed PRODUCT, "Berenice II" typed EVENT: a Roman numeral after a reign's name (rare in
    English, or a common given name) numbers a monarch (issue #25, wt241, `musique_entity_labels_233.csv`). "World
    War II", "Grade II", "Article II" (everyday words), "Rocky II" (a work), "Municipio XIX" (a place) keep theirs."""
    assert regnal_named("Ariarathes VI", "PRODUCT") == "PERSON"
    assert regnal_named("Berenice II", "EVENT") == "PERSON"
    assert regnal_named("Henry VIII", "ORG") == "PERSON"
    for surface, kind in [("World War II", "EVENT"), ("Grade II", "FAC"), ("Article II", "LAW"), ("Apollo XI", "ORG")]:
        assert regnal_named(surface, kind) == kind
    assert regnal_named("Rocky II", "WORK_OF_ART") == "WORK_OF_ART"
    assert regnal_named("Municipio XIX", "GPE") == "GPE"
    assert regnal_named("The Criminal Investigator II", "ORG") == "ORG"  # an article: a title, not a monarch
    text = "Gordius was employed by him, in 116 BC, to murder Ariarathes VI, king of Cappadocia."
    assert extracted(text).get("Ariarathes VI") == "PERSON"


def test_a_given_name_of_place_is_a_person() -> None:
    """ "Mikuláš of Kadaň" typed ORG: a given name rare in English, then "of" and a place, is a person's epithet; a body
    or a division is named by a common noun or one no locale gives ("Bank of England", "Archdeaconry of Germany")."""
    assert epithet_named("Mikuláš of Kadaň", "ORG") == "PERSON"
    assert epithet_named("Bank of England", "ORG") == "ORG"
    assert epithet_named("Archdeaconry of Germany", "LOC") == "LOC"
    assert epithet_named("Rose of Tralee", "EVENT") == "EVENT"
    assert epithet_named("Duke of Głogów", "ORG") == "ORG"  # a given name somewhere, but an everyday word
