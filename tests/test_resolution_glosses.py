"""Two forms of a name glossed as different kinds of thing never join (retrieval/indexing/resolution_glosses.py):
"Monster Truck (band)" and "Monster Trucks (film)" stay two nodes; one gloss alone joins as before."""

from __future__ import annotations

from retrieval.indexing.resolution import keys_of, resolve
from tests.resolution_rows import mention


def said(doc: str, key: str, surface: str, kind: str, sentence: str) -> dict[str, object]:
    """A mention row with its evidence sentence, as the resolver reads it."""
    return {**mention(doc, key, surface, kind), "evidence": sentence}


def test_two_forms_glossed_as_different_kinds_never_join_across_documents() -> None:
    rows = [
        said("a", "monster-truck", "Monster Truck", "ORG", "Monster Truck (band) Monster Truck are a rock band."),
        said("b", "monster-trucks", "Monster Trucks", "ORG", "Monster Trucks (film) Terravex Oil is drilling."),
        said("c", "chess-olympiad", "Chess Olympiad", "EVENT", "The Chess Olympiad (tournament) began."),
        said("d", "chess-olympiads", "Chess Olympiads", "EVENT", "Chess Olympiads are held every two years."),
    ]
    merged = resolve(keys_of(rows))
    assert merged.of("p:monster-trucks") == "p:monster-trucks" and merged.of("p:monster-truck") == "p:monster-truck"
    assert merged.of("p:chess-olympiads") == "p:chess-olympiad", "one gloss alone says nothing"
