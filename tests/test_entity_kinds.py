"""Issue #25's rules from the tuning draw of unseen episodes: nouns one counts, a show named after a person, cut
names of several words and two titles run together (retrieval/indexing/entity_kinds.py, entity_filter.py,
extract_offline.py). Other rules of the extractor: test_entity_rules.py."""

from __future__ import annotations

from retrieval.indexing.chunking import chunk_text
from retrieval.indexing.entity_filter import DocumentWords, junk
from retrieval.indexing.entity_kinds import counted_noun, thing_named
from retrieval.indexing.extract_offline import extract_document


def extracted(text: str) -> dict[str, str]:
    """surface -> type of every entity the offline extractor finds in `text`."""
    found = extract_document(text, chunk_text(text, 400, 0.1))
    return {m.surface: m.type for chunk in found for m in chunk.mentions}


def test_a_noun_the_text_counts_is_a_kind_of_thing_and_a_subject_stays() -> None:
    """ "robots" beside "a robot." is a kind of thing; "robot" too when a third of its mentions are "a robot";
    "blockchain" said "a blockchain." once beside "the blockchain" five times stays a topic, and "a physics
    professor" puts the article on another noun."""
    robots = "We built a robot. Then a robot that could walk. Robots are hard. The robots fell."
    assert counted_noun("robots", robots) and counted_noun("robot", robots)
    chain = "It runs on a blockchain. " + "The blockchain is public. " * 5
    assert not counted_noun("blockchain", chain)
    assert not counted_noun("physics", "My dad was a physics professor. I loved physics.")
    assert not counted_noun("Robots", robots)  # a capitalised name is no keyphrase of this rule
    assert junk("robots", "CONCEPT", DocumentWords.of(robots, 1))
    assert not junk("physics", "CONCEPT", DocumentWords.of("a physics professor taught physics", 1))


def test_a_person_named_like_a_show_is_the_show() -> None:
    """ "Harry Connick Show": a name ending with a kind of work names the work; "Harry Connick" stays a person, and
    a one-word "Show" or another type is left alone."""
    assert thing_named("Harry Connick Show", "PERSON") == "CONCEPT"
    assert thing_named("Harry Connick", "PERSON") == "PERSON"
    assert thing_named("Show", "PERSON") == "PERSON"
    assert thing_named("Tom Daniel Lab", "ORG") == "ORG"
    assert thing_named("Davis Media", "PERSON") == "CONCEPT"  # a firm's noun: "through licensee Davis Media, LLC"
    assert thing_named("Candlewood Suites", "PERSON") == "CONCEPT"
    text = "I saw you on the Harry Connick Show last year. It was great."
    assert extracted(text).get("Harry Connick Show") == "CONCEPT"  # kept as a topic when said once


def test_a_several_word_name_only_ever_joined_to_another_capitalised_word_is_a_piece_of_it() -> None:
    """ "Radio Shack Color" only ever before "Computer" is cut from the longer name; "Radio Shack" written alone
    elsewhere stays."""
    text = "My first was a Radio Shack Color Computer 2. I bought it at Radio Shack. The Radio Shack Color Computer won"
    words = DocumentWords.of(text, 1)
    assert junk("Radio Shack Color", "ORG", words)
    assert not junk("Radio Shack", "ORG", words)
    book = DocumentWords.of("Go read Kai-Fu Lee's AI Superpowers book.", 1)
    assert not junk("AI Superpowers", "WORK_OF_ART", book)  # a possessive before is its author, no longer name


def test_two_titles_of_several_words_run_together_are_two_names() -> None:
    """ "Shadows of the Apt and Children of Time" (a work, so its "and" used to stay whole) is two series when the
    text writes one of them alone (one-word sides, "Pride and Prejudice", stay whole: test_entity_rules.py)."""
    text = (
        "He is known best for his series, Shadows of the Apt and Children of Time. I loved Children of Time. "
        "Children of Time won a prize."
    )
    found = extracted(text)
    assert "Shadows of the Apt and Children of Time" not in found, found
    assert "Children of Time" in found and "Shadows of the Apt" in found, found
