"""Key facts from interviews: who speaks where a chunk begins, the answer after the host's question, a wider pool.

Pure text rules and the real ONNX embedder over hand-made transcript hits; the reads of the chunks before a chunk
and of the wider pool run on both backends (a few chunk nodes written by the test, or the shared search graph).
"""

from __future__ import annotations

from retrieval.context import Context
from retrieval.embed import Embedder
from retrieval.models import Hit, QueryParams
from retrieval.search.evidence import extractive_facts, shortlist
from retrieval.search.fact_pool import fact_pool
from retrieval.search.hybrid import search_chunks
from retrieval.search.turns import (
    OPENING_SPEAKER,
    addresses,
    opening_speaker,
    prompt,
    speaker_of,
    with_opening_speakers,
)
from retrieval.store import GraphStore
from tests.conftest import SEARCH_PROJECT
from tests.interview_chunks import EARLIER, LATER

INTERVIEW = (
    "KEVIN SCOTT: Today, our guest is Sam Altman, who ran Y Combinator.\n\n"
    "SAM ALTMAN: Thanks for having me, it is great to be here with you all.\n\n"
    "KEVIN SCOTT: And what did Loopt do?\n\n"
    "SAM ALTMAN: We made location-based software for cell phones. And it was early. Later I did other things.\n\n"
    "KEVIN SCOTT: Sam Altman has started a company called Loopt and made a lot of friends in the valley."
)

#: The host says what answers; the guest's own sentences are on the topic but do not say it.
INTRODUCTION = (
    "KEVIN SCOTT: Today our guest is Mira Murati. She worked as an engineer and product manager, most notably "
    "helping to develop the Tesla Model X.\n\n"
    "MIRA MURATI: Tesla was an incredible place to work.\n\n"
    "MIRA MURATI: That was a very exciting time about ten years ago at Tesla.\n\n"
    "MIRA MURATI: I did not necessarily want to become a car person, though."
)


def test_a_chunk_that_opens_mid_turn_is_said_by_the_last_speaker_before_it() -> None:
    assert opening_speaker(LATER, [EARLIER]) == "Daphne Koller"
    # A label inside the overlap is ahead of the chunk's start: the speaker before it counts, not after.
    overlap = "KEVIN SCOTT: Go on.\n\nDAPHNE KOLLER: I steered away from it for years."
    assert opening_speaker(LATER, ["KEVIN SCOTT: Hi.\n\nSAM ALTMAN: Hello. " + overlap]) == "Daphne Koller"
    assert opening_speaker(LATER, ["No labels here at all.", "Nor here."]) is None
    hit = Hit(id="d:1", text=LATER, metadata={OPENING_SPEAKER: "Daphne Koller"})
    assert speaker_of(hit, 0) == "Daphne Koller"
    assert speaker_of(hit, LATER.index("Yeah")) == "Kevin Scott"  # a label in the chunk wins


def test_a_turns_first_sentences_carry_the_question_before_them() -> None:
    asked, weight = prompt(INTERVIEW, INTERVIEW.index("We made"))
    assert asked == ["And what did Loopt do?"] and weight == 1.0
    later, less = prompt(INTERVIEW, INTERVIEW.index("And it was early"))
    assert later == asked and 0 < less < weight
    assert prompt(INTERVIEW, INTERVIEW.index("Today, our guest")) == ([], 0.0)  # no turn before the first


def test_the_answer_to_the_hosts_question_is_a_key_fact(embedder: Embedder) -> None:
    hit = Hit(id="e13:4", text=INTERVIEW, score=1.0, document_id="e13")
    question = "What did Sam Altman's company Loopt make?"
    facts = extractive_facts(question, None, [hit], embedder, 2)
    assert "Sam Altman: We made location-based software for cell phones." in [f.fact for f in facts]
    # The host's question asks, it does not state: it is never ahead of its answer.
    spans = [f.citations[0].span for f in facts]
    assert not any(s.endswith("Loopt do?") for s in spans[:1])
    answer = next(c for c in shortlist(question, [hit]) if "We made" in c.span)
    assert answer.prompt > 0 and answer.lexical == 0  # found by the question it answers, not by its own words


def test_a_chunk_opening_mid_turn_reads_its_speaker_from_the_chunks_before(
    store: GraphStore, embedder: Embedder
) -> None:
    s = store.settings
    store.write_batch(
        f"UNWIND $rows AS row CREATE (:`{s.chunk_label}` {{id: row.id, text: row.text, projectId: 'p', n: row.n}})",
        [{"id": "doc:0", "text": EARLIER, "n": 0}, {"id": "doc:1", "text": LATER, "n": 1}],
    )
    ctx = Context(s, store, embedder, None, "p")
    first, second, other = with_opening_speakers(
        ctx, [Hit(id="doc:0", text=EARLIER), Hit(id="doc:1", text=LATER), Hit(id="elsewhere", text=LATER)]
    )
    assert OPENING_SPEAKER not in first.metadata  # opens with a label: nothing to read
    assert second.metadata[OPENING_SPEAKER] == "Daphne Koller"
    assert OPENING_SPEAKER not in other.metadata  # not an indexer's chunk id: left as it is
    fact = extractive_facts("Why did Daphne Koller move into biology and medicine?", None, [second], embedder, 1)
    assert fact[0].fact.startswith("Daphne Koller: ")


def test_the_fact_pool_adds_chunks_below_the_retrieved_ones(search_store: GraphStore, embedder: Embedder) -> None:
    s = search_store.settings
    ctx = Context(s, search_store, embedder, None, SEARCH_PROJECT)
    params = QueryParams.from_settings(s, filters={}).model_copy(update={"top_k": 1})
    question = "Who discovered polonium?"
    vector = embedder.embed_query(question)
    retrieved = search_chunks(ctx, question, params, query_vector=vector)
    pool = fact_pool(ctx, question, params, retrieved, vector)
    assert [h.id for h in pool[: len(retrieved)]] == [h.id for h in retrieved]
    assert len(pool) > len(retrieved) and len({h.id for h in pool}) == len(pool)
    weakest = min(h.score for h in retrieved)
    assert all(h.score <= weakest for h in pool[len(retrieved) :])
    assert {h.document_id for h in pool} == {h.document_id for h in retrieved}  # further in the same documents


def test_an_unlabelled_text_has_no_prompt() -> None:
    text = "Loopt made software. It was early. What did it do? It made maps."
    question = "What did Sam Altman's company Loopt make?"
    assert all(c.prompt == 0 for c in shortlist(question, [Hit(id="x", text=text, score=1.0)]))


def test_what_the_host_says_of_the_guest_answers_a_question_about_her(embedder: Embedder) -> None:
    """Her own sentences get the named speaker's bonus; the host's sentence about her ("She worked ...") is credited
    with naming her, so the one that says which car is a key fact too (uncredited, it fell under the share of the
    best score that `fact_selection.choose` keeps, behind her three sentences about Tesla in general)."""
    said = "She worked as an engineer and product manager, most notably helping to develop the Tesla Model X."
    assert addresses(said, INTRODUCTION, {"Mira Murati"})
    assert not addresses(said, INTRODUCTION, {"Lisa Su"})  # the passage is not about her
    assert not addresses("Tesla was an incredible place to work.", INTRODUCTION, {"Mira Murati"})  # about no one
    hit = Hit(id="e55:1", text=INTRODUCTION, score=1.0, document_id="e55")
    facts = extractive_facts("Which Tesla car did Mira Murati help develop?", None, [hit], embedder, 5)
    assert f"Kevin Scott: {said}" in [f.fact for f in facts]


#: Her short lines say little but her name, which the embedded text puts first ("Mira Murati: ..."); her answer
#: to the question says what is asked in many more words.
SHORT_LINES = (
    "KEVIN SCOTT: Mira, welcome to the show.\n\n"
    "MIRA MURATI: We are working on something that will change everything.\n\n"
    "MIRA MURATI: It was a wild time.\n\n"
    "MIRA MURATI: That changed my life.\n\n"
    "MIRA MURATI: I loved it so much.\n\n"
    "MIRA MURATI: Students could have a personal tutor that helps them learn, and that can really change the way "
    "that people absorb the world in school."
)


def test_a_named_speakers_line_that_says_almost_nothing_gets_no_speakers_bonus(embedder: Embedder) -> None:
    """Her words are preferred only when they say something: a line of two content words is close to the question
    by her name alone, and with the bonus on top it outranked her answer."""
    hit = Hit(id="e55:9", text=SHORT_LINES, score=1.0, document_id="e55")
    facts = extractive_facts("How does Mira Murati think AI can change education?", None, [hit], embedder, 1)
    assert [f.fact for f in facts] == [f"Mira Murati: {SHORT_LINES.rsplit('MIRA MURATI: ', 1)[1]}"]
