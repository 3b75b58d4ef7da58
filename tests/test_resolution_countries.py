"""Countries' other names from ISO 3166 (retrieval/indexing/countries.py): two names of one country join across
passages with the record in the reason; two countries, a former state and its successor, a person and a
two-letter code never do; a three-letter code joins only where its passages mean the country."""

from __future__ import annotations

from pathlib import Path

from retrieval.context import Context
from retrieval.indexing import run_index
from retrieval.indexing.model import slug
from retrieval.indexing.resolution import keys_of, resolve
from retrieval.search.explore import node_details
from tests.indexing_runs import graph, write_corpus  # noqa: F401 (fixtures)
from tests.resolution_rows import entity, mention


def test_two_names_of_one_iso_country_join_across_passages_with_the_record_in_the_reason() -> None:
    """Short, official and common names of a current country (3166-1), an inverted one read in order ("Korea,
    Republic of"), and the names a former country's record lists (3166-3), each pair in no shared passage."""
    rows = [
        mention("a", "united-states", "United States", "GPE", 9),
        mention("b", "united-states-of-america", "United States of America", "GPE", 2),
        mention("c", "switzerland", "Switzerland", "GPE", 3),
        mention("d", "swiss-confederation", "Swiss Confederation", "ORG"),
        mention("e", "austria", "Austria", "LOC", 2),
        mention("f", "republic-of-austria", "the Republic of Austria", "GPE"),
        mention("g", "south-korea", "South Korea", "GPE", 2),
        mention("h", "republic-of-korea", "Republic of Korea", "GPE"),
        mention("i", "ussr", "USSR", "GPE", 2),
        mention("j", "union-of-soviet-socialist-republics", "Union of Soviet Socialist Republics", "GPE"),
    ]
    merged = resolve(keys_of(rows))
    for variant, head in [
        ("united-states-of-america", "united-states"),
        ("swiss-confederation", "switzerland"),
        ("republic-of-austria", "austria"),
        ("republic-of-korea", "south-korea"),
        ("union-of-soviet-socialist-republics", "ussr"),
    ]:
        assert merged.of(f"p:{variant}") == f"p:{head}", (variant, merged.reasons)
    reason = merged.reasons["p:swiss-confederation"]
    assert reason == "Swiss Confederation and Switzerland name one country in ISO 3166-1 (Switzerland)"
    assert "ISO 3166-3 (USSR)" in merged.reasons["p:union-of-soviet-socialist-republics"]


def test_two_countries_a_former_state_and_its_successor_and_a_person_stay_apart() -> None:
    """Each is its own ISO record: Taiwan is not "Republic of China" in ISO, so it stays apart from China;
    the two Congos, Koreas, Sudans and Guineas; Burma's former record and Myanmar; the former South Yemen and
    Yemen. A name no record gives ("Korea", "Soviet Union") joins nothing, nor does a person named like a
    country ("Chad" beside "Republic of Chad") or a two-letter code ("US")."""
    names = [
        "China", "Republic of China", "Congo", "Democratic Republic of the Congo", "Korea", "North Korea",
        "South Korea", "Sudan", "South Sudan", "Guinea", "Guinea-Bissau", "Burma", "Myanmar", "Yemen",
        "People's Democratic Republic of Yemen", "Soviet Union", "USSR", "US", "United States",
    ]  # fmt: skip
    rows = [mention(f"d{i}", slug(name), name, "GPE", 2) for i, name in enumerate(names)]
    rows += [mention("c", "chad", "Chad", "PERSON", 3), mention("e", "republic-of-chad", "Republic of Chad", "GPE")]
    merged = resolve(keys_of(rows))
    assert merged.canonical == {key: key for key in merged.canonical}, merged.reasons


def _code_rows(extra: list[dict[str, object]]) -> list[dict[str, object]]:
    return [
        mention("a", "united-states", "United States", "GPE", 5),
        mention("b", "usa", "USA", "GPE"),
        mention("b", "california", "California", "GPE"),
        mention("c", "usa", "USA", "GPE"),
        mention("c", "united-states", "United States", "GPE"),
        mention("d", "usa", "USA", "ORG"),
        *extra,
    ]


def test_a_three_letter_code_joins_its_country_only_where_its_passages_mean_that_country() -> None:
    """ "USA" in passages naming the country or a state of it joins "United States"; one passage expanding it as
    "Union of South Africa" keeps it apart (the acronym rule joins it there: joining both would make two
    countries one); so do passages that mostly name neither."""
    merged = resolve(keys_of(_code_rows([])))
    assert merged.of("p:usa") == "p:united-states"
    assert merged.reasons["p:usa"] == (
        "USA is the ISO 3166 code of United States "
        "(2 of its 3 passages name the country or a place of it, none another name it spells)"
    )
    south_africa = [mention("d", "union-of-south-africa", "Union of South Africa", "GPE")]
    merged = resolve(keys_of(_code_rows(south_africa)))
    assert merged.of("p:united-states") == "p:united-states"
    assert merged.of("p:union-of-south-africa") != "p:united-states"
    assert merged.of("p:usa") != "p:united-states"
    elsewhere = [mention(doc, "usa", "USA", "ORG") for doc in ("e", "f", "g")]
    assert resolve(keys_of(_code_rows(elsewhere))).of("p:usa") == "p:usa"


def test_a_code_that_spells_its_countrys_iso_name_and_an_iso_name_read_as_an_adjective_join() -> None:
    """ "USA" tagged a place, in passages that name no place of the country, still joins: it is both the ISO code
    and the initials of "United States of America"; typed ORG, or a code that is no initials of its country's name
    ("PRI", Puerto Rico's code and Mexico's party), it stays. ISO's short name "Russian Federation" gives "Russia",
    its adjective's noun; "Dominican Republic" gives no "Dominica", itself a country of ISO."""
    rows = [
        mention("a", "united-states", "United States", "GPE", 5),
        *(mention(doc, "usa", "USA", "GPE") for doc in ("b", "c", "d")),
        mention("e", "puerto-rico", "Puerto Rico", "GPE", 2),
        mention("f", "pri", "PRI", "GPE"),
        mention("g", "russia", "Russia", "GPE", 4),
        mention("h", "russian-federation", "Russian Federation", "GPE"),
        mention("i", "dominica", "Dominica", "GPE", 2),
        mention("j", "dominican-republic", "Dominican Republic", "GPE"),
    ]
    merged = resolve(keys_of(rows))
    assert merged.of("p:usa") == "p:united-states"
    assert "also the initials of its ISO name" in merged.reasons["p:usa"]
    assert merged.of("p:russian-federation") == "p:russia"
    assert "the adjective of one and a word for a state" in merged.reasons["p:russian-federation"]
    assert merged.of("p:pri") == "p:pri"
    assert merged.of("p:dominican-republic") != merged.of("p:dominica")
    organisation = [{**row, "type": "ORG"} if row["entity"] == "p:usa" else row for row in rows]
    assert resolve(keys_of(organisation)).of("p:usa") == "p:usa"


PASSAGES = {
    "a.txt": "Heidi Klum moved to the United States of America in 1992 and works in New York.",
    "b.txt": "The Swiss Confederation signed the treaty. Bern is the capital of the Swiss Confederation.",
    "c.txt": "Switzerland borders Austria. Zurich is the largest city of Switzerland.",
    "d.txt": "The United States and Canada share a border. The United States has fifty states.",
}


def test_a_countrys_other_name_is_an_alias_of_one_node_in_the_graph(
    graph,  # noqa: F811
    embedder,
    tmp_path: Path,
) -> None:
    """On both backends: the formal name in one passage and the short name in another are one node, with the
    other name among its aliases and the ISO record in its reasons, as the explorer shows them."""
    settings, store = graph
    run_index(settings, store, embedder, [write_corpus(tmp_path / "corpus", PASSAGES)], project="p")
    swiss = entity(store, "p:switzerland")
    assert swiss is not None and entity(store, "p:swiss-confederation") is None
    assert "Swiss Confederation" in swiss["aliases"]  # type: ignore[operator]
    shown = node_details(Context(settings, store, embedder, None, "p"), "p:switzerland")
    assert shown is not None and "Swiss Confederation" in shown.aliases
    assert any("ISO 3166-1 (Switzerland)" in r for r in shown.merge_reasons), shown.merge_reasons
    states = entity(store, "p:united-states")
    assert states is not None and "United States of America" in states["aliases"]  # type: ignore[operator]
