"""Generic words kept out of the entities (entity_filter.junk, entity_kinds.counted_noun): a kind of body written
alone as a longer name's short form ("the Institute"), and a lower-case noun the passage counts before "of" ("a
municipality of Finland"); the same words stay where the passage gives no such evidence."""

from __future__ import annotations

from retrieval.indexing.chunking import chunk_text
from retrieval.indexing.entity_kinds import counted_noun
from retrieval.indexing.extract_offline import extract_document


def extracted(text: str) -> dict[str, str]:
    """Surface -> type of every mention of a passage, as a MuSiQue build extracts it (256 tokens, 0.15)."""
    found = extract_document(text, chunk_text(text, 256, 0.15))
    return {m.surface: m.type for chunk in found for m in chunk.mentions}


NSWIS = (
    "New South Wales Institute of Sport\n\nThe New South Wales Institute of Sport (NSWIS), located at Sydney Olympic "
    "Park, was established as a statutory body under the Institute of Sport Act, 1995, following a review "
    "recommending central coordination and monitoring of high performance sports programs. Operations officially "
    "commenced in 1996. Today, the Institute has almost 700 athletes on squad or individual scholarships and offers "
    "31 sport programs across 24 sports."
)
II = (
    "Ii, Finland\n\nIi (; ) is a municipality of Finland. It is situated by the Bothnian Bay, at the mouth of river "
    "Iijoki, and it is part of the Northern Ostrobothnia region. The municipality has a population of () and covers "
    "an area of of which is water."
)


def test_a_kind_of_body_alone_beside_the_longer_name_it_shortens_is_no_entity() -> None:
    found = extracted(NSWIS)
    assert "Institute" not in found, found
    assert "Sydney Olympic Park" in found


def test_a_lower_case_noun_the_passage_counts_before_of_is_no_topic() -> None:
    assert "municipality" not in extracted(II)
    assert counted_noun("municipality", "Ii is a municipality of Finland. The municipality is small.")
    assert not counted_noun("history", "The history of Finland is long. Its history is told.")


WARSAW = (
    "Warsaw Pact\n\nBefore creation of Warsaw Pact, fearing Germany rearmed, Czechoslovak leadership sought to create "
    "security pact with East Germany and Poland. The Warsaw Pact was primarily put in place as a consequence of the "
    "rearming of West Germany inside NATO. As Soviet Union had already bilateral treaties with all of its eastern "
    "satellites, the Pact has been long considered 'superfluous', and NATO officials labeled it as a 'cardboard "
    "castle'."
)


def test_a_kind_word_alone_goes_only_beside_a_longer_name_with_it() -> None:
    """ "the Pact" beside "Warsaw Pact" is that name's short form (MuSiQue's passage; main kept "Pact" ORG); a word
    that alone names one thing ("the Senate") is no kind word."""
    pact = extracted(WARSAW)
    assert "Pact" not in pact and "Warsaw Pact" in pact, pact
    senate = extracted("The United States Senate voted on the bill. The Senate later passed it with Alaska's votes.")
    assert "Senate" in senate or "United States Senate" in senate, senate
