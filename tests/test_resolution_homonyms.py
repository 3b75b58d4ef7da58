"""One name, two things (retrieval/indexing/resolution_homonyms.py): a place name that documents qualify with
conflicting states or countries is kept apart per document, named with its qualifier and saying why; two forms of a
name glossed as different kinds of thing never join; and on both backends a document added later splits a node and
`remove` of it joins the node again."""

from __future__ import annotations

from pathlib import Path

from retrieval.context import Context
from retrieval.indexing import remove_document, run_index
from retrieval.indexing.entities import resolve as resolve_entities
from retrieval.indexing.resolution import keys_of, resolve
from retrieval.indexing.resolution_homonyms import written_with
from retrieval.search.explore import node_details
from tests.indexing_runs import graph, write_corpus  # noqa: F401 (fixtures)
from tests.resolution_rows import entity, mention


def said(doc: str, key: str, surface: str, kind: str, sentence: str) -> dict[str, object]:
    """A mention row with its evidence sentence, as the resolver reads it."""
    return {**mention(doc, key, surface, kind), "evidence": sentence}


MARYLAND = "The Garrett County Courthouse is a historic courthouse located at Oakland, Garrett County, Maryland."
CALIFORNIA = "He transferred to Merritt College in Oakland, California to major in business administration."


def test_a_place_two_documents_qualify_with_different_states_is_kept_apart_per_document() -> None:
    rows = [
        said("a", "oakland", "Oakland", "GPE", MARYLAND),
        said("b", "oakland", "Oakland", "GPE", CALIFORNIA),
        said("c", "oakland", "Oakland", "GPE", "Oakland has a port."),
        said("d", "oakland", "Oakland", "GPE", "She was born in Oakland."),
        said("d", "california", "California", "GPE", "She moved to California."),
    ]
    merged = resolve(keys_of(rows))
    assert merged.of("p:oakland", "p:a:0") == "p:oakland--maryland"
    assert merged.of("p:oakland", "p:b:0") == "p:oakland", "the qualifier of most documents keeps the node"
    assert merged.of("p:oakland", "p:d:0") == "p:oakland", "a document naming one of the qualifiers is of it"
    assert merged.of("p:oakland", "p:c:0") == "p:oakland", "a document that names no state keeps the node"
    wanted = resolve_entities(rows, merged)
    part = wanted["p:oakland--maryland"]
    assert part.title == "Oakland, Maryland" and part.mentions == 1 and "Oakland" in part.aliases
    assert any("naming Maryland with it" in r for r in part.merge_reasons), part.merge_reasons
    kept = wanted["p:oakland"]
    assert kept.title == "Oakland" and any("kept apart: Oakland, Maryland" in r for r in kept.merge_reasons)


def test_a_county_is_of_the_one_state_its_document_names() -> None:
    rows = [
        said("a", "jackson-county", "Jackson County", "GPE", "Glisson was born in Jackson County, Florida."),
        said("b", "jackson-county", "Jackson County", "GPE", "The museum was owned by Jackson County."),
        said("b", "oregon", "Oregon", "GPE", "Jacksonville is a city in Oregon."),
        said("c", "jackson-county", "Jackson County", "GPE", "Jackson County grew."),
        said("c", "oregon", "Oregon", "GPE", "It borders Oregon."),
        said("c", "california", "California", "GPE", "It borders California."),
    ]
    merged = resolve(keys_of(rows))
    assert merged.of("p:jackson-county", "p:a:0") == "p:jackson-county"
    assert merged.of("p:jackson-county", "p:b:0") == "p:jackson-county--oregon"
    assert merged.of("p:jackson-county", "p:c:0") == "p:jackson-county", "two states named: no evidence"


def test_one_place_named_at_two_levels_a_list_and_a_town_named_with_its_state_once_stay_one_node() -> None:
    rows = [
        said("a", "portland", "Portland", "GPE", "The band formed in Portland, Oregon in 1990."),
        said("b", "portland", "Portland", "GPE", "They live in Portland, Oregon, United States."),
        said("c", "portland", "Portland", "GPE", "Portland, United States, is rainy."),
        said("d", "crawley", "Crawley", "GPE", "He was born in Crawley, West Sussex."),
        said("e", "crawley", "Crawley", "GPE", "Crawley, England is a town."),
        said("f", "dubai", "Dubai", "GPE", "Flights go to Dubai, Istanbul, Frankfurt and London."),
        said("g", "dubai", "Dubai", "GPE", "Dubai, United Arab Emirates is a city."),
        said("h", "georgia", "Georgia", "GPE", "Georgia, Armenia and Azerbaijan lie in the Caucasus."),
        said("i", "georgia", "Georgia", "GPE", "Atlanta is the capital of Georgia, United States."),
    ]
    merged = resolve(keys_of(rows))
    assert not merged.parts.of, merged.parts.reasons
    assert written_with("Dubai", "Flights go to Dubai, Istanbul and London.") is None
    found = written_with("Oakland", MARYLAND)
    assert found is not None and found.written == "Maryland"


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


COURTHOUSE = (
    "The Garrett County Courthouse is a historic courthouse located at Oakland, Garrett County, Maryland. "
    "It was designed by James Riely Gordon."
)
COLLEGE = "Percy Miller transferred to Merritt College in Oakland, California to major in business."


def test_a_document_added_later_splits_a_place_and_remove_joins_it_again(
    graph,  # noqa: F811
    embedder,
    tmp_path: Path,
) -> None:
    """On both backends: Oakland of Maryland is one node; a document about Oakland, California added by an
    incremental run makes it two, each named and saying why (as the explorer shows it); removing that document
    leaves one again."""
    settings, store = graph
    folder = write_corpus(tmp_path / "corpus", {"a.txt": COURTHOUSE})
    run_index(settings, store, embedder, [folder], project="p")
    alone = entity(store, "p:oakland")
    assert alone is not None and alone["title"] == "Oakland" and not alone["reasons"]
    write_corpus(folder, {"b.txt": COLLEGE})
    run_index(settings, store, embedder, [folder], project="p")
    kept, part = entity(store, "p:oakland"), entity(store, "p:oakland--maryland")
    assert kept is not None and part is not None, store.query("MATCH (e:__Entity__) RETURN e.id AS id")
    assert kept["title"] == "Oakland" and kept["chunks"] == 1
    assert part["title"] == "Oakland, Maryland" and part["chunks"] == 1
    shown = node_details(Context(settings, store, embedder, None, "p"), "p:oakland--maryland")
    assert shown is not None and "Oakland" in shown.aliases
    assert any("naming Maryland with it" in r for r in shown.merge_reasons), shown.merge_reasons
    remove_document(settings, store, embedder, "corpus/b.txt", project="p")
    assert entity(store, "p:oakland--maryland") is None
    again = entity(store, "p:oakland")
    assert again is not None and again["chunks"] == 1 and not again["reasons"]
