"""Another name a sentence gives (retrieval/indexing/resolution_names.py, `alias_pairs`): "X, also known as Y"
joins the two names with the sentence in the reason; a former name, a numbered instance, the last part of a
longer name, a name cut from a longer one, a common noun and a person beside a place never do."""

from __future__ import annotations

from pathlib import Path

from retrieval.context import Context
from retrieval.indexing import run_index
from retrieval.indexing.resolution import keys_of, resolve
from retrieval.search.explore import node_details
from tests.indexing_runs import graph, write_corpus  # noqa: F401 (fixtures)
from tests.resolution_rows import entity, mention


def _said(doc: str, sentence: str, *names: tuple[str, str, str]) -> list[dict[str, object]]:
    """Mentions of (key, surface, type) in one passage, each with the sentence as its evidence."""
    return [{**mention(doc, key, surface, kind), "evidence": sentence} for key, surface, kind in names]


CATHOLIC = "The Catholic Church, also known as the Roman Catholic Church, is the largest Christian church."
BRITAIN = (
    "The United Kingdom of Great Britain and Northern Ireland, commonly known as the United Kingdom (UK) and "
    "colloquially Great Britain (GB) or simply Britain, is a sovereign country."
)


def test_a_sentence_that_gives_another_name_joins_the_two_with_the_sentence_as_the_reason() -> None:
    """ "also known as", "or simply" after a bracketed abbreviation; the two share no word a rule of spelling
    reads, and each is also written alone in other passages (the name the graph mentions more is the title)."""
    rows = [
        *_said(
            "a",
            CATHOLIC,
            ("catholic-church", "Catholic Church", "ORG"),
            ("roman-catholic-church", "Roman Catholic Church", "ORG"),
        ),
        *_said("b", "He was a bishop of the Catholic Church.", ("catholic-church", "Catholic Church", "ORG")),
        *_said(
            "c",
            BRITAIN,
            ("great-britain", "Great Britain", "LOC"),
            ("britain", "Britain", "GPE"),
            ("united-kingdom", "United Kingdom", "GPE"),
            ("northern-ireland", "Northern Ireland", "GPE"),
        ),
        *_said("d", "The song topped the charts in Britain.", ("britain", "Britain", "GPE")),
        *_said(
            "e",
            "The Bubye River, also known as Bubi River, flows south.",
            ("bubye-river", "Bubye River", "LOC"),
            ("bubi-river", "Bubi River", "LOC"),
        ),
    ]
    merged = resolve(keys_of(rows))
    assert merged.of("p:roman-catholic-church") == "p:catholic-church"
    assert merged.reasons["p:roman-catholic-church"] == (
        "Roman Catholic Church is another name of Catholic Church "
        '("Catholic Church, also known as the Roman Catholic Church")'
    )
    assert merged.of("p:great-britain") == "p:britain"
    assert '("Great Britain (GB) or simply Britain")' in merged.reasons["p:great-britain"]
    assert merged.of("p:bubi-river") == merged.of("p:bubye-river")
    # "... and Northern Ireland, commonly known as the United Kingdom": the alias names the whole long name
    assert merged.of("p:northern-ireland") == "p:northern-ireland"
    assert merged.of("p:united-kingdom") == "p:united-kingdom"


def test_a_former_name_an_instance_a_part_a_cut_name_a_noun_and_a_person_beside_a_place_stay_apart() -> None:
    """Each sentence puts an alias word between two names of the graph, but the first is not the thing named:
    "formerly known as" (a predecessor), a numbered Games of the series, the end of "East -- West Schism" or of
    "Holy Roman Empire", a common noun; or the second is cut from a longer name; or a person and a place."""
    rows = [
        *_said(
            "a",
            "Zaire, formerly known as the Belgian Congo, became independent.",
            ("zaire", "Zaire", "GPE"),
            ("belgian-congo", "Belgian Congo", "GPE"),
        ),
        *_said(
            "b",
            "The 2018 Winter Olympics, officially known as the XXIII Olympic Winter Games, were held in Korea.",
            ("winter-olympics", "Winter Olympics", "EVENT"),
            ("xxiii-olympic-winter-games", "XXIII Olympic Winter Games", "EVENT"),
        ),
        *_said(
            "c",
            "The East -- West Schism, also called the Great Schism, split the church.",
            ("west-schism", "West Schism", "EVENT"),
            ("great-schism", "Great Schism", "EVENT"),
        ),
        *_said(
            "d",
            "The Holy Roman Empire, also called the First Reich, lasted long.",
            ("roman-empire", "Roman Empire", "GPE"),
            ("first-reich", "First Reich", "GPE"),
        ),
        *_said(
            "e",
            "A Process, also called Diffusion Bonding, joins metals.",
            ("process", "process", "CONCEPT"),
            ("diffusion", "Diffusion", "CONCEPT"),
        ),
        *_said(
            "f",
            "The Bank, also known as the Bank of England, sets rates.",
            ("bank", "Bank", "ORG"),
            ("bank-of", "Bank", "ORG"),
        ),
        *_said(
            "g",
            "The Old Firm, also known as the Glasgow Rangers Football Club, won.",
            ("old-firm", "Old Firm", "ORG"),
            ("glasgow", "Glasgow", "GPE"),
        ),
        *_said(
            "h",
            "Georgia, also known as Georgia Smith, lives in Georgia.",
            ("georgia-smith", "Georgia Smith", "PERSON"),
            ("georgia", "Georgia", "GPE"),
        ),
    ]
    merged = resolve(keys_of(rows))
    assert merged.canonical == {key: key for key in merged.canonical}, merged.reasons


def test_an_alias_is_kept_on_one_node_in_the_graph(
    graph,  # noqa: F811
    embedder,
    tmp_path: Path,
) -> None:
    """On both backends: the two names of a sentence are one node, the other name among its aliases and the
    sentence in its reasons, as the explorer shows them."""
    settings, store = graph
    corpus = {
        "a.txt": "The Boulder Dam Hotel, also known as the Boulder City Inn, opened in 1933 in Nevada.",
        "b.txt": "Guests of the Boulder Dam Hotel came from Las Vegas. The Boulder Dam Hotel had a famous lobby.",
    }
    run_index(settings, store, embedder, [write_corpus(tmp_path / "corpus", corpus)], project="p")
    hotel = entity(store, "p:boulder-dam-hotel")
    assert hotel is not None and entity(store, "p:boulder-city-inn") is None, hotel
    assert "Boulder City Inn" in hotel["aliases"]  # type: ignore[operator]
    shown = node_details(Context(settings, store, embedder, None, "p"), "p:boulder-dam-hotel")
    assert shown is not None and "Boulder City Inn" in shown.aliases
    assert any("also known as the Boulder City Inn" in r for r in shown.merge_reasons), shown.merge_reasons
