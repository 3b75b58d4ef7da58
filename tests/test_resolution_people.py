"""One person's nickname and full name, and a surname the tagger typed as a non-person
(retrieval/indexing/resolution_people.py): each joins the full name with its reason; the guards keep apart a
nickname two people of the family may bear, forms in no shared document, a firm named after its founder, a
surname of two people and a surname beside a name led by no given name."""

from __future__ import annotations

from pathlib import Path

from retrieval.context import Context
from retrieval.indexing import run_index
from retrieval.indexing.resolution import keys_of, resolve
from retrieval.indexing.resolution_keys import Key
from retrieval.indexing.resolution_people import nickname_of, people_pairs
from retrieval.search.explore import node_details
from tests.indexing_runs import graph, write_corpus  # noqa: F401 (fixtures)
from tests.resolution_rows import entity, mention


def _together(a: Key, b: Key) -> int:
    return len(a.documents & b.documents)


def test_nickname_list_reads_both_ways() -> None:
    assert nickname_of("Dick", "Richard") and nickname_of("richard", "DICK")
    assert nickname_of("Ron", "Ronald") and not nickname_of("Ron", "Richard")


def test_a_nickname_with_the_full_names_surname_in_one_document_joins_it() -> None:
    rows = [
        mention("a", "richard-feynman", "Richard Feynman", "PERSON", 4),
        mention("a", "dick-feynman", "Dick Feynman", "PERSON"),
        mention("b", "ronald-howard", "Ronald Howard", "PERSON", 2),
        mention("b", "ron-howard", "Ron Howard", "PERSON"),
    ]
    merged = resolve(keys_of(rows))
    assert merged.of("p:dick-feynman") == "p:richard-feynman"
    assert merged.of("p:ron-howard") == "p:ronald-howard"
    assert merged.reasons["p:dick-feynman"] == (
        "Dick Feynman and Richard Feynman: Dick and Richard are one given name and its nickname (both in 1 document)"
    )


def test_a_nickname_two_people_of_the_family_may_bear_or_in_no_shared_document_stays_apart() -> None:
    """ "Ron Smith" beside "Ronald Smith" and "Aaron Smith" (Ron is a nickname of both); "Dick Jones" and
    "Richard Jones" in different documents; "Tom Lee" and "Richard Lee" (no nickname of each other)."""
    rows = [
        mention("a", "ronald-smith", "Ronald Smith", "PERSON", 2),
        mention("a", "aaron-smith", "Aaron Smith", "PERSON", 2),
        mention("a", "ron-smith", "Ron Smith", "PERSON"),
        mention("b", "richard-jones", "Richard Jones", "PERSON", 2),
        mention("c", "dick-jones", "Dick Jones", "PERSON"),
        mention("d", "richard-lee", "Richard Lee", "PERSON", 2),
        mention("d", "tom-lee", "Tom Lee", "PERSON"),
    ]
    merged = resolve(keys_of(rows))
    assert merged.canonical == {key: key for key in merged.canonical}, merged.reasons


def test_a_surname_typed_a_place_or_topic_joins_the_one_person_of_its_documents() -> None:
    rows = [
        mention("a", "carl-sagan", "Carl Sagan", "PERSON", 2),
        mention("a", "sagan", "Sagan", "LOC"),
        mention("b", "joseph-mobutu", "Joseph Mobutu", "PERSON"),
        mention("b", "mobutu", "Mobutu", "CONCEPT", 2),
    ]
    merged = resolve(keys_of(rows))
    assert merged.of("p:sagan") == "p:carl-sagan"
    assert merged.of("p:mobutu") == "p:joseph-mobutu"
    assert merged.reasons["p:sagan"] == (
        "Sagan (typed LOC) is the surname of Carl Sagan, the only person of that surname, in 1 of its 1 documents"
    )


def test_the_surname_rule_leaves_a_firm_a_surname_of_two_people_a_rare_one_and_a_non_given_name() -> None:
    """The new rules alone (the name-part rule joins a lone "Dell" or "Galvez" by its own evidence): "Dell" ORG
    beside "Michael Dell" (a firm named after its founder); "Gates" beside "Bill Gates" and "Melinda Gates";
    "Wolfe" in three documents, one of them "Tom Wolfe"'s; "Galvez" beside "Hotel Galvez" typed PERSON; a
    lower-case topic ("banks"). The same rows with "Sagan" LOC beside "Carl Sagan" do pair (the test can fail)."""
    rows = [
        mention("a", "michael-dell", "Michael Dell", "PERSON"),
        mention("a", "dell", "Dell", "ORG", 3),
        mention("b", "bill-gates", "Bill Gates", "PERSON"),
        mention("b", "melinda-gates", "Melinda Gates", "PERSON"),
        mention("b", "gates", "Gates", "CONCEPT"),
        mention("c", "tom-wolfe", "Tom Wolfe", "PERSON"),
        *[mention(doc, "wolfe", "Wolfe", "LOC") for doc in ("c", "d", "e")],
        mention("f", "hotel-galvez", "Hotel Galvez", "PERSON"),
        mention("f", "galvez", "Galvez", "CONCEPT"),
        mention("g", "iain-banks", "Iain Banks", "PERSON"),
        mention("g", "banks", "banks", "CONCEPT"),
    ]
    assert people_pairs(keys_of(rows), _together, set(), 0.5) == []
    sagan = [mention("h", "carl-sagan", "Carl Sagan", "PERSON"), mention("h", "sagan", "Sagan", "LOC")]
    assert [pair[:2] for pair in people_pairs(keys_of(rows + sagan), _together, set(), 0.5)] == [
        ("p:sagan", "p:carl-sagan")
    ]


PASSAGES = {
    "a.txt": (
        "Richard Feynman taught physics at Caltech for many years. Later Dick Feynman joined the lab in Boston "
        "for a summer and Richard Feynman worked on the Connection Machine there."
    ),
    "b.txt": (
        "Now there is - I was warned about the Sagan syndrome, referring to Carl Sagan, the charismatic astronomer "
        "who hosted the TV series Cosmos."
    ),
}


def test_a_nickname_is_an_alias_of_one_node_in_the_graph(
    graph,  # noqa: F811
    embedder,
    tmp_path: Path,
) -> None:
    """On both backends: the nickname and the full name said in one passage are one node, the nickname among
    its aliases and the nickname reason among its reasons, as the explorer shows them; so is a surname the
    tagger typed as a place ("Sagan" LOC of "the Sagan syndrome", as in a transcript) with its full name's node."""
    settings, store = graph
    run_index(settings, store, embedder, [write_corpus(tmp_path / "corpus", PASSAGES)], project="p")
    feynman = entity(store, "p:richard-feynman")
    assert feynman is not None and entity(store, "p:dick-feynman") is None
    assert "Dick Feynman" in feynman["aliases"]  # type: ignore[operator]
    shown = node_details(Context(settings, store, embedder, None, "p"), "p:richard-feynman")
    assert shown is not None and "Dick Feynman" in shown.aliases
    assert any("one given name and its nickname" in r for r in shown.merge_reasons), shown.merge_reasons
    sagan = node_details(Context(settings, store, embedder, None, "p"), "p:carl-sagan")
    assert sagan is not None and "Sagan" in sagan.aliases and entity(store, "p:sagan") is None
    assert any("is the surname of Carl Sagan" in r for r in sagan.merge_reasons), sagan.merge_reasons
