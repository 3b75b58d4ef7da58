"""What kind of thing a titled passage is about (retrieval/indexing/title_kinds.py), read from its own words."""

from __future__ import annotations

from retrieval.indexing.title_kinds import document_kinds, plural, shared_kind


def test_a_passage_says_its_kind_in_its_first_sentence_or_its_titles_bracket() -> None:
    """An "X is a ... radio station" sentence says a kind (with its compound noun), as a title's lower-case bracket does
    ("(1995 film)"); a place in the bracket ("(Jamaica)"), a first sentence about something else (a later passage
    of an article) or none of either say no kind."""
    passages = [
        "WSME\n\nWSME (1120 AM) is an Eastern North Carolina radio station broadcasting an oldies format.",
        "Casino (1995 film)\n\nCasino follows a gambling expert.",
        "Leader of the Opposition (Jamaica)\n\nThe leader sits in the House.",
        "Evel Knievel\n\nKnievel, 29, used his own money. He is a stuntman.",
        "Tucson, Arizona\n\nTucson is a city in Pima County.",
        "Tucson, Arizona\n\nTucson's climate is dry.",
    ]
    split = [text.partition("\n\n") for text in passages]
    kinds = document_kinds({f"d{i}": (title, rest) for i, (title, _blank, rest) in enumerate(split)})
    assert kinds == {"WSME": "radio station", "Casino (1995 film)": "film", "Tucson, Arizona": "city"}, kinds


def test_a_kind_is_shared_by_more_than_half_of_the_subjects_and_said_in_the_plural() -> None:
    """Three films and a song are films; two radio stations of four subjects are no majority; one subject is too
    few; forms of one head noun that differ ("crime film", "comedy film") are said by the noun alone."""
    kinds = {
        "a": "crime film",
        "b": "comedy film",
        "c": "film",
        "d": "song",
        "e": "radio station",
        "f": "radio station",
    }
    assert shared_kind({"a", "b", "c", "d"}, kinds) == "films"
    assert shared_kind({"e", "f", "a", "d"}, kinds) == ""
    assert shared_kind({"e", "f", "x"}, kinds) == "radio stations"
    assert shared_kind({"e"}, kinds) == ""
    assert [plural(w) for w in ("church", "community", "day", "series", "box")] == [
        "churches",
        "communities",
        "days",
        "series",
        "boxes",
    ]
