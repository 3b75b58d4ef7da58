"""Offline quality (issue #18): readable extractive answers, a clean entity graph, balanced communities.

Real parts only: spaCy for extraction, the ONNX embedder for evidence ranking, the shared store fixtures
(a real embedded graph) for the modes.
"""

from __future__ import annotations

import itertools
import random
import re

import pytest

from retrieval.config import Settings
from retrieval.context import Context
from retrieval.embed import Embedder, make_embedder
from retrieval.engine import Engine
from retrieval.indexing import communities
from retrieval.indexing.chunking import chunk_text
from retrieval.indexing.entities import resolve
from retrieval.indexing.entity_filter import DocumentWords, alias_map, junk, named_type
from retrieval.indexing.extract_offline import extract_document
from retrieval.models import Hit, QueryParams
from retrieval.modes import drift, global_mode
from retrieval.search import evidence
from retrieval.search.evidence import extractive_facts, sentences, shortlist
from retrieval.search.ranking import retrieve
from retrieval.store import GraphStore
from retrieval.text.readable import NOTHING_TO_SEARCH, boilerplate, clean_spoken, sentence_key
from retrieval.text.speakers import strip_label
from tests.conftest import CAROL_PROJECT

Graph = tuple[Settings, GraphStore, Embedder]

SPOKEN = "MIRA MURATI: Um, I I think that, you know, the the models will uh change how we work."
TRANSCRIPT = (
    "KEVIN SCOTT: Today my guest is Fei-Fei Li, a professor at Stanford University.\n\n"
    "FEI-FEI LI: Likewise. Thank you, Kevin. I grew up in Chengdu and moved to New Jersey.\n\n"
    "KEVIN SCOTT/FEI-FEI LI: Yeah.\n\n"
    "KEVIN SCOTT: Fei-Fei, tell us about ImageNet and the software you built at Stanford University.\n\n"
    "FEI-FEI LI: Correct. ImageNet changed computer vision. In Episode 52 we talked about it for 20 years.\n\n"
    "KEVIN SCOTT: Fei-Fei built ImageNet with students at Princeton University.\n"
)


# --- display text: disfluencies -------------------------------------------------------------------
def test_clean_spoken_drops_fillers_stutters_and_openers() -> None:
    assert clean_spoken("Yeah, so, um, I I think it was, you know, really hard to to do.") == (
        "… I think it was … really hard to do."
    )
    assert clean_spoken("It is.") == "It is."  # nothing to clean: unchanged
    assert clean_spoken("Uh, yeah.") == "Uh, yeah."  # cleaning would leave nothing: the text stays


def test_a_transcript_fact_reads_clean_and_cites_its_verbatim_span(embedder: Embedder) -> None:
    hit = Hit(id="t1", text=f"{SPOKEN}\n\nKEVIN SCOTT: That is a big claim.", score=1.0, document_id="ep")
    facts = extractive_facts("How will models change work?", None, [hit], embedder, 1)

    assert facts[0].fact == "Mira Murati: … I think that … the models will … change how we work."
    span = facts[0].citations[0].span
    assert span == SPOKEN and span in hit.text  # the citation keeps the words as spoken


def test_a_question_naming_a_person_prefers_what_that_person_said(embedder: Embedder) -> None:
    text = (
        "KEVIN SCOTT: Mira Murati grew up in Albania, and her childhood there shaped her.\n\n"
        "MIRA MURATI: Growing up, I loved math and physics puzzles at school in Vlore."
    )
    hit = Hit(id="t2", text=text, score=1.0, document_id="ep")
    facts = extractive_facts("What does Mira Murati say about her childhood?", None, [hit], embedder, 2)

    # Kevin's sentence names her and is closer in meaning; hers is what she said, and comes first.
    assert [f.fact.split(":")[0] for f in facts] == ["Mira Murati", "Kevin Scott"]


# --- boilerplate -----------------------------------------------------------------------------------
def test_sentences_repeated_across_documents_are_boilerplate() -> None:
    intro = "Welcome to Behind the Tech, I am your host."
    pairs = [(f"ep{i}", intro) for i in range(3)] + [("ep0", "Lisa Su runs AMD."), ("ep1", "Lisa Su runs AMD.")]
    assert boilerplate(pairs) == {sentence_key(intro)}


def test_boilerplate_is_never_evidence() -> None:
    intro = "Welcome to Behind the Tech, the show about technology people."
    hits = [
        Hit(id="a", text=f"{intro} Lisa Su leads AMD and its chip designs.", score=1.0, document_id="ep1"),
        Hit(id="b", text=f"{intro} Bill Gates started Microsoft.", score=0.9, document_id="ep2"),
        Hit(id="c", text="Show notes: technology people on the show about AMD chips.", score=0.8, document_id="ep3"),
    ]
    shared = [c.span for c in shortlist("technology show about AMD", hits)]
    assert intro not in shared and "Lisa Su leads AMD and its chip designs." in shared  # shared by two documents
    skipped = [c.span for c in shortlist("technology show AMD", hits[2:], skip={sentence_key(hits[2].text)})]
    assert skipped == []  # the project's known boilerplate


# --- entities ----------------------------------------------------------------------------------------
def test_junk_candidates_are_not_entities() -> None:
    words = DocumentWords.of("likewise we agree. It is correct. Then Microsoft hired her at Microsoft.", 5)
    assert junk("n't", "CONCEPT", words)
    assert junk("Episode 52", "LAW", words)
    assert junk("KEVIN SCOTT/ANDREW NG", "ORG", words)
    assert junk("software", "ORG", words)  # a named entity is written with a capital
    assert junk("I. Thank", "PERSON", words)
    assert junk("Likewise", "PERSON", words) and junk("Correct", "ORG", words)  # lower case elsewhere
    assert junk("point", "CONCEPT", words) and junk("years", "CONCEPT", words)
    assert junk("model", "CONCEPT", words) and not junk("robotics", "CONCEPT", words)  # everyday word vs topic
    assert named_type("OpenAI", "PERSON", words) == "ORG" and named_type("GPT-4", "PERSON", words) == "CONCEPT"
    assert named_type("Lisa Su", "PERSON", words) == "PERSON"
    assert not junk("Microsoft", "ORG", words) and not junk("Lisa Su", "PERSON", words)
    assert not junk("Rush", "ORG", DocumentWords.of("Rush is a Canadian rock band.", 1))  # a name, never lower case


def test_aliases_merge_into_the_one_longer_person_or_company() -> None:
    surfaces = {
        "fei-fei": "Fei-Fei",
        "fei-fei-li": "Fei-Fei Li",
        "lisa": "Lisa",
        "lisa-su": "Lisa Su",
        "microsoft": "Microsoft",
        "microsoft-research": "Microsoft Research",
        "apple": "Apple",
        "apple-inc": "Apple Inc",
        "sam": "Sam",
        "sam-altman": "Sam Altman",
        "sam-schillace": "Sam Schillace",
    }
    types = {key: "ORG" if key.startswith(("microsoft", "apple")) else "PERSON" for key in surfaces}
    aliases = alias_map(surfaces, types)
    assert aliases["fei-fei"] == "fei-fei-li" and aliases["lisa"] == "lisa-su" and aliases["apple"] == "apple-inc"
    assert "microsoft" not in aliases  # a part is not the whole
    assert "sam" not in aliases  # two Sams: ambiguous


def test_speaker_labels_are_people_and_junk_never_becomes_an_entity() -> None:
    found = extract_document(TRANSCRIPT, chunk_text(TRANSCRIPT, 400, 0))
    types = {m.key: m.type for chunk in found for m in chunk.mentions}

    assert types["kevin-scott"] == "PERSON" and types["fei-fei-li"] == "PERSON"
    assert "fei-fei" not in types  # merged into Fei-Fei Li
    assert not {"likewise", "correct", "software", "episode-52", "kevin-scott-fei-fei-li"} & set(types)
    assert not any("/" in key for key in types)
    assert strip_label("KEVIN SCOTT: Today's guest is Andrew Ng. CHRISTINA WARREN:") == "Today's guest is Andrew Ng."


def test_an_entity_description_says_who_it_is_not_what_it_said() -> None:
    rows = [
        {"chunk": "d1:0", "entity": "kevin", "surface": "Kevin Scott", "type": "PERSON", "count": 3,
         "evidence": "And so I went to boarding school in Vermont."},
        {"chunk": "d1:1", "entity": "kevin", "surface": "Kevin Scott", "type": "PERSON", "count": 1,
         "evidence": "Kevin Scott is the CTO of Microsoft and the host of the show."},
    ] + [
        {"chunk": f"d{i}:0", "entity": "kevin", "surface": "Kevin Scott", "type": "PERSON", "count": 1,
         "evidence": "Welcome to Behind the Tech with Kevin Scott."}
        for i in range(2, 5)
    ]  # fmt: skip
    entity = resolve(rows)["kevin"]
    assert entity.description.startswith("Kevin Scott is the CTO of Microsoft")
    assert "Welcome to Behind the Tech" not in entity.description  # said in three documents: boilerplate


# --- communities -------------------------------------------------------------------------------------
def test_every_level_of_the_hierarchy_respects_its_size_cap() -> None:
    """A host related to everyone used to pull nearly every entity into one top community."""
    rng = random.Random(7)
    groups = [[f"g{g}e{i}" for i in range(12)] for g in range(30)]
    edges = [(a, b, 1.0) for group in groups for a, b in itertools.pairwise(group)]
    edges += [(groups[g][0], rng.choice(groups[(g + 1) % 30]), 0.5) for g in range(30)]
    edges += [("host", e, 1.0) for group in groups for e in group[:2]]
    nodes = ["host", *(e for group in groups for e in group)]
    tree = communities.hierarchy("p", nodes, edges, max_size=20, max_levels=4)
    levels = sorted({c.level for c in tree})
    assert len(levels) >= 3
    for level in levels:
        cap = 20 * 2**level  # LEVEL_GROWTH
        assert max(len(c.members) for c in tree if c.level == level) <= cap, level


# --- answers -----------------------------------------------------------------------------------------
def test_a_stop_word_question_has_nothing_to_search_for(search_store: GraphStore) -> None:
    s = search_store.settings
    engine = Engine(s, store=search_store, embedder=make_embedder(s), llm=None)
    for mode in ("local", "global", "drift"):
        answer = engine.ask("the of and", mode)
        assert answer.no_data_found and answer.notes == [NOTHING_TO_SEARCH] and not answer.key_facts


def _said_twice(final_answer: str, facts: list[str]) -> list[str]:
    said = {sentence_key(s) for s in sentences(final_answer)}
    return [f for f in facts if any(sentence_key(s) in said for s in sentences(f))]


# Local and DRIFT are two tests: Neo4j's one database holds one shared fixture's graph at a time, so a test
# that used both the search graph and the Carol graph would read one of them from a database holding the other.
def test_the_local_answer_paragraph_never_repeats_a_key_fact(search_store: GraphStore) -> None:
    s = search_store.settings
    local = Engine(s, store=search_store, embedder=make_embedder(s), llm=None).ask("Who discovered polonium?")
    assert local.key_facts and local.final_answer
    assert _said_twice(local.final_answer, [f.fact for f in local.key_facts]) == []
    assert re.search(r"\[1(, \d)*\]", local.final_answer)  # it points at the facts instead


def test_the_drift_answer_paragraph_never_repeats_a_key_fact(carol_graph: Graph) -> None:
    settings, store, embedder = carol_graph
    ctx = Context(settings, store, embedder, None, CAROL_PROJECT)
    params = QueryParams.from_settings(settings, drift_rounds=1, drift_followups_per_round=2)
    answer = drift.answer(ctx, "What did Scrooge see of Marley's ghost?", params, None)
    assert answer.key_facts and _said_twice(answer.final_answer, [f.fact for f in answer.key_facts]) == []


def test_offline_drift_followups_are_phrased_from_entities(carol_graph: Graph) -> None:
    settings, store, embedder = carol_graph
    ctx = Context(settings, store, embedder, None, CAROL_PROJECT)
    params = QueryParams.from_settings(settings, drift_rounds=1, drift_followups_per_round=3)
    answer = drift.answer(ctx, "How does Scrooge change?", params, None)
    questions = [s.question for s in answer.trace if s.kind == "followup"]
    assert questions
    for question in questions:
        assert "in relation to" not in question and "How does Scrooge change?" not in question
        assert re.fullmatch(
            r"What does .+ say about .+\?|How is .+ related to .+\?|Who is .+\?|What is said about .+\?", question
        ), question


def test_offline_global_answers_with_titled_themes(carol_graph: Graph) -> None:
    settings, store, embedder = carol_graph
    ctx = Context(settings, store, embedder, None, CAROL_PROJECT)
    answer = global_mode.answer(ctx, "What are the main themes?", QueryParams.from_settings(settings), None)

    themes = [line for line in answer.final_answer.splitlines() if re.match(r"\d+\. \*\*", line)]
    assert themes, answer.final_answer
    for line in themes:
        assert re.search(r"\(\d+ entities\)", line) and re.search(r"\[facts \d+(, \d+)*\]", line)
    assert all(c.kind == "community" for c in answer.citations())
    assert _said_twice(answer.final_answer, [f.fact for f in answer.key_facts]) == []


def test_offline_drift_answers_from_the_questions_own_hits_first(carol_graph: Graph) -> None:
    settings, store, embedder = carol_graph
    ctx = Context(settings, store, embedder, None, CAROL_PROJECT)
    params = QueryParams.from_settings(settings, drift_rounds=1, drift_followups_per_round=3)
    question = "What did Scrooge see of Marley's ghost?"
    answer = drift.answer(ctx, question, params, None)
    direct = retrieve(ctx, question, params, walk=False).chunks
    primer = next(s for s in answer.trace if s.kind == "primer")
    # The primer reads what local search reads, and the best direct hit leads the final answer's evidence:
    # follow-ups about a community's entities used to crowd it out of the key facts.
    assert {h.id for h in direct} <= set(primer.chunk_ids)
    assert answer.key_facts[0].citations[0].chunk_id in {h.id for h in direct}


def test_a_where_question_prefers_the_sentence_that_names_a_place(
    embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = "Ada Lovelace grew up as a girl fascinated by machines. "
    text += "As a girl Ada Lovelace lived in London with her mother."
    hit = Hit(id="t3", text=text, score=1.0, document_id="bio")
    question = "Where did Ada Lovelace grow up as a girl?"
    first = extractive_facts(question, None, [hit], embedder, 1)[0].fact
    assert "London" in first
    monkeypatch.setattr(evidence, "TYPE_WEIGHT", 0.0)  # without the answer-type bonus the other sentence wins
    assert "London" not in extractive_facts(question, None, [hit], embedder, 1)[0].fact
