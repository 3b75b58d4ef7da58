"""Which sentences an extractive answer carries (issue #18's answer quality): each chosen for what it adds.

The choice is a pure function of the sentences, their scores and their vectors: the tests give scores and
vectors by hand so each rule is seen alone (the dev-set effect is measured by benchmarks/eval_answers.py).
"""

from __future__ import annotations

import numpy as np

from retrieval.models import Hit
from retrieval.modes.drift_offline import bridge_topics, question_ranked
from retrieval.search.community_context import EntityRef
from retrieval.search.evidence import shortlist
from retrieval.search.fact_selection import choose, hop_names, leads_to, name_words, names

BRAND_QUESTION = "What nationality was the author of Brand?"
BRAND = [
    "Brand is a verse play written by Henrik Ibsen.",
    "Brand premiered in Stockholm in 1885.",
    "Brand is about a priest whose faith is all or nothing.",
    "Ibsen was a Norwegian playwright.",
]


def _apart(n: int) -> np.ndarray:
    """Unit vectors of `n` sentences that say different things (none repeats another)."""
    return np.eye(n, dtype=np.float32)


def test_a_second_hop_sentence_from_another_document_joins_the_answer() -> None:
    scores = [0.80, 0.76, 0.75, 0.70]
    chosen = choose(BRAND_QUESTION, BRAND, scores, _apart(4), documents=["brand"] * 3 + ["ibsen"], limit=2)
    # Ibsen, whom the first fact names and the question does not, leads to his nationality: the second hop
    # goes ahead of a better-scored sentence that only says more about Brand (the old top-2 was [0, 1]).
    assert chosen == [0, 3]


def test_a_name_repeated_within_one_document_is_no_second_hop() -> None:
    scores = [0.80, 0.76, 0.75, 0.70]
    chosen = choose(BRAND_QUESTION, BRAND, scores, _apart(4), documents=["brand"] * 4, limit=2)
    assert chosen == [0, 1]


def test_a_question_about_two_things_gets_a_sentence_on_each() -> None:
    spans = [
        "Marie Curie was born in Warsaw in 1867.",
        "Marie Curie was born in Warsaw, then in the Russian Empire.",
        "Pierre Curie was born in Paris in 1859.",
    ]
    question = "Where were Marie Curie and Pierre Curie born?"
    chosen = choose(question, spans, [0.80, 0.77, 0.75], _apart(3), documents=["marie", "marie", "pierre"], limit=2)
    assert chosen == [0, 2]  # Pierre's sentence brings the question's word the first one lacks


def test_a_repeat_or_an_off_topic_sentence_is_never_chosen() -> None:
    vectors = _apart(3)
    vectors[1] = vectors[0]  # the same sentence twice (overlapping chunks)
    spans = ["Brand is a verse play written by Henrik Ibsen.", "Brand is a verse play by Henrik Ibsen.", "It rained."]
    assert choose(BRAND_QUESTION, spans, [0.8, 0.79, 0.3], vectors, documents=["a", "b", "c"], limit=3) == [0]


NOBEL_QUESTION = (
    "At what school is the individual who was awarded the 2012 Nobel Prize in Physics, jointly with David J. Wineland?"
)
NOBEL = [
    "He was awarded the 2012 Nobel Prize in Physics, jointly with Serge Haroche, for measuring quantum systems.",
    "David Jeffrey Wineland is an American physicist at the National Institute of Standards and Technology.",
    "The Nobel Prize in Physics is awarded each year by the Royal Swedish Academy of Sciences.",
    "Since 2001, Haroche is a Professor at the Collège de France.",
]
NOBEL_DOCUMENTS = ["wineland", "wineland", "nobel", "haroche"]
#: Document names as the indexer gives a saved passage's file name ("Atlético" loses its accent, a hash follows).
NOBEL_TITLES = {
    "wineland": "David J Wineland-8dc3f8",
    "nobel": "Nobel Prize in Physics-0a1b2c",
    "haroche": "Serge Haroche-815972",
}


def test_the_page_a_chosen_sentence_names_joins_the_answer() -> None:
    """HotpotQA's bridge questions: the first fact names Serge Haroche, whose page holds the school but shares no
    word with the question; five sentences restating Wineland and the prize outscored it (issue #24)."""
    scores = [0.80, 0.75, 0.70, 0.30]
    kwargs = {"documents": NOBEL_DOCUMENTS, "limit": 2}
    assert choose(NOBEL_QUESTION, NOBEL, scores, _apart(4), **kwargs) == [0, 1]  # no names, no hop
    assert choose(NOBEL_QUESTION, NOBEL, scores, _apart(4), titles=NOBEL_TITLES, **kwargs) == [0, 3]


def test_a_hop_leads_to_a_document_the_question_does_not_name() -> None:
    asked, targets = hop_names(NOBEL_QUESTION, NOBEL_TITLES)
    assert asked == {"wineland", "nobel"} and set(targets) == {"haroche"}  # the question's own pages: its first hop
    assert leads_to(NOBEL[0], "wineland", targets) == {"haroche"}
    assert leads_to(NOBEL[3], "haroche", targets) == set()  # a page does not lead to itself
    assert leads_to("The club plays in Madrid.", "x", {"m": name_words("Atl tico Madrid-f53424")}) == set()
    assert leads_to("He signed for Atlético Madrid.", "x", {"m": name_words("Atl tico Madrid-f53424")}) == {"m"}
    assert name_words("Christopher Walken-0cfcf8") == {"christopher", "walken"}  # a hash is no word of the name
    assert (
        leads_to("a 1954 musical adaptation of Peter Pan", "x", {"p": name_words("Peter Pan 1976 musical-dd71c0")})
        == set()
    )
    # a transcript names no episode: every word of "ep-52-...-bill-gates" is never in one sentence
    episode = name_words("ep-52-behind-the-tech-kevin-scott-podcast-with-bill-gates-qc")
    assert leads_to("Bill Gates: We started Microsoft in 1975.", "x", {"ep": episode}) == set()


def test_the_shortlist_reads_the_page_a_shortlisted_sentence_names() -> None:
    """The word ranking keeps sentences sharing the question's words; Haroche's page shares none, so it is read
    besides them (two sentences of it at most) or the choice never sees it."""
    hits = [
        Hit(
            id="w", text=" ".join(NOBEL[:2]), score=1.0, document_id="wineland", document_name=NOBEL_TITLES["wineland"]
        ),
        Hit(id="n", text=NOBEL[2], score=0.9, document_id="nobel", document_name=NOBEL_TITLES["nobel"]),
        Hit(
            id="h",
            text="Serge Haroche is a French physicist. " + NOBEL[3] + " He was born in Casablanca in 1944.",
            score=0.5,
            document_id="haroche",
            document_name=NOBEL_TITLES["haroche"],
        ),
    ]
    spans = [c.span for c in shortlist(NOBEL_QUESTION, hits, limit=3)]
    assert NOBEL[3] in spans and len(spans) == 5
    assert sum(c.hit.id == "h" for c in shortlist(NOBEL_QUESTION, hits, limit=3)) == 2


def test_names_are_capitalised_words_that_are_not_function_words() -> None:
    assert names("The play was written by Henrik Ibsen in Rome.") == {"henrik", "ibsen", "rome"}


def _hit(hit_id: str, score: float) -> Hit:
    return Hit(id=hit_id, text=hit_id, score=score)


def test_follow_up_material_goes_ahead_of_a_direct_hit_only_when_the_question_scores_it_higher() -> None:
    direct = [_hit("d1", 0.5), _hit("d2", 0.7), _hit("d3", 0.4)]  # bridge re-ranking may lift d2 above d1
    others = [_hit("f1", 0.45), _hit("f2", 0.9), _hit("d3", 0.99)]  # d3 again: a direct hit keeps its own score
    ranked = question_ranked(direct, others, 5)
    assert [h.id for h in ranked] == ["d1", "f2", "d2", "f1", "d3"]  # the best direct hit stays first
    assert [h.id for h in question_ranked(direct, others, 2)] == ["d1", "f2"]


def test_bridge_topics_are_what_the_best_hits_name_and_the_question_does_not() -> None:
    refs = [
        EntityRef("e:brand", "Brand", 3, "c1", "WORK_OF_ART"),
        EntityRef("e:ibsen", "Henrik Ibsen", 40, "c1", "PERSON"),
        EntityRef("e:rome", "Rome", 900, "c2", "GPE"),
        EntityRef("e:skien", "Skien", 2, "c3", "GPE"),
    ]
    hit_entities = {"e:brand": 1.0, "e:ibsen": 1.0, "e:rome": 1.0, "e:skien": 0.4}
    topics = bridge_topics("What nationality was the author of Brand?", hit_entities, refs, 3)
    assert [t.title for t in topics] == ["Henrik Ibsen", "Rome", "Skien"]  # best hit first, rarer names first
