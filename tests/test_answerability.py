""" "Not in these documents" as an outcome of every mode, with and without a model, and a confidence that separates.

On the small search graph (Curie, Paris, baking) on both backends; the model is the scripted OpenAI-compatible
server through the real client.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from retrieval import engine as engine_module
from retrieval.context import Context
from retrieval.embed import Embedder, make_embedder
from retrieval.engine import Engine
from retrieval.judge import answerability
from retrieval.judge.slips import slip_of
from retrieval.llm.client import ChatModel
from retrieval.models import Answer, Citation, Hit, KeyFact, Mode, TraceStep
from retrieval.store import GraphStore
from tests.conftest import SEARCH_PROJECT
from tests.scripted_openai import ScriptedOpenAI, json_reply

OUTSIDE = "What is the capital of Australia?"
#: Outside too, but close enough to retrieve passages (about Marie Curie) and reach the answerer.
NEAR = "What did Marie Curie say about the capital of Australia?"


@pytest.fixture(scope="module")
def engine(search_store: GraphStore) -> Engine:
    s = search_store.settings
    return Engine(s, store=search_store, embedder=make_embedder(s), llm=None)


@pytest.fixture(scope="module")
def server() -> Iterator[ScriptedOpenAI]:
    running = ScriptedOpenAI().start()
    yield running
    running.stop()


@pytest.mark.parametrize("mode", ["local", "global", "drift"])
def test_a_question_the_documents_do_not_answer_is_not_in_these_documents(engine: Engine, mode: Mode) -> None:
    answer = engine.ask(OUTSIDE, mode)
    assert answer.outcome == "not_in_documents"
    assert answer.final_answer.startswith("Not in these documents")
    assert answer.confidence is not None and answer.confidence.score < answerability.fitted()["threshold"]
    assert answer.confidence.limitation.startswith("Not in these documents")


@pytest.mark.parametrize("mode", ["local", "drift"])
def test_a_question_the_documents_answer_is_answered_with_a_higher_confidence(engine: Engine, mode: Mode) -> None:
    answered = engine.ask("Who discovered polonium?", mode)
    outside = engine.ask(OUTSIDE, mode)
    assert answered.outcome == "answered" and "polonium" in " ".join(f.fact for f in answered.key_facts)
    assert answered.confidence is not None and outside.confidence is not None
    assert 0.0 <= outside.confidence.score < answered.confidence.score <= 1.0


def test_the_nearest_material_stays_as_nearest(engine: Engine) -> None:
    answer = engine.ask(NEAR, "local")
    assert answer.outcome == "not_in_documents" and answer.key_facts  # shown as the nearest material
    assert "nearest material" in answer.final_answer and "“australia”" in answer.final_answer


def test_a_confident_model_does_not_make_an_unsupported_answer(
    search_store: GraphStore, server: ScriptedOpenAI
) -> None:
    s = search_store.settings.model_copy(update={"openai_base_url": server.base_url, "retry_max_attempts": 1})
    llm_engine = Engine(s, store=search_store, embedder=make_embedder(s), llm=ChatModel(s))
    claim = {"fact": "Canberra is the capital.", "chunk_ids": [1], "spans": ["in Paris"]}
    server.script(json_reply({"answer": "Canberra.", "confidence": 0.95, "key_facts": [claim]}))
    answer = llm_engine.ask(NEAR, "local")
    assert answer.answered_by == "llm" and answer.outcome == "not_in_documents"
    assert any("Canberra." in note for note in answer.notes)  # the model's answer is kept, as a note
    assert answer.confidence is not None and any(p.name == "model" for p in answer.confidence.parts)


def test_signals_read_coverage_names_and_arms_from_the_answer() -> None:
    hit = Hit(id="c", text="Marie Curie discovered polonium in Paris.", score=1.0, sources={"vector": 0.6})
    fact = KeyFact(fact="Marie Curie discovered polonium in Paris.", citations=[Citation(chunk_id="c", span="")])
    answer = Answer(question="Where did Marie Curie discover radium?", mode="local", answered_by="extractive")
    answer.key_facts, answer.evidence = [fact], [hit]
    values = answerability.signals(answer)
    assert values["coverage"] == pytest.approx(1 / 2)  # of the topic words: discover, but not radium
    assert values["names"] == 1.0 and values["similarity"] == 0.6 and values["arms"] == 0.0  # no keyword arm
    assert answerability.question_names("What did Lisa Su's team build?") == ["lisa", "su"]


def test_the_gap_signal_is_how_far_the_best_hit_stands_above_the_next() -> None:
    answer = Answer(question="Who discovered polonium?", mode="local", answered_by="extractive")
    answer.evidence = [Hit(id=f"c{i}", text="x", score=score) for i, score in enumerate([1.0, 0.5, 0.5, 0.5, 0.5, 0.1])]
    assert answerability.signals(answer)["gap"] == pytest.approx(0.5)  # the next four only
    answer.evidence = [Hit(id=f"c{i}", text="x", score=0.7) for i in range(5)]
    assert answerability.signals(answer)["gap"] == 0.0  # many passages equally near: nothing stands out


def test_whether_a_passage_holds_a_word_is_read_within_the_project(engine: Engine) -> None:
    """ "document" is only in the other project's passage: for `science` no passage holds it (a count over the
    whole graph would tell one project's analyst what another project's documents say)."""
    words = ["polonium", "physicists", "document", "bitcoin"]
    s = engine.settings
    science = Context(s, engine.store, engine.embedder, None, SEARCH_PROJECT)
    assert engine_module._holding(science, words) == {"polonium": 1, "physicists": 1, "document": 0, "bitcoin": 0}
    other = Context(s, engine.store, engine.embedder, None, "other")
    assert engine_module._holding(other, words) == {"polonium": 1, "physicists": 0, "document": 1, "bitcoin": 0}
    assert engine_module._holding(science, []) == {}


def test_a_word_no_passage_holds_is_named_in_the_not_in_these_documents_answer(engine: Engine) -> None:
    answer = engine.ask("What did Marie Curie say about Bitcoin?", "local")
    assert answer.outcome == "not_in_documents"
    assert "no passage of these documents mentions “bitcoin”" in answer.final_answer
    assert answer.confidence is not None
    parts = {p.name: p.value for p in answer.confidence.parts}
    assert parts["complete"] == 0.0 and parts["exists"] == pytest.approx(2 / 3, abs=1e-3)  # marie, curie; not bitcoin


def test_exists_reads_the_documents_counts_and_together_one_passage() -> None:
    hit = Hit(id="c", text="Marie Curie discovered polonium in Paris.", score=1.0)
    fact = KeyFact(fact="Marie Curie discovered polonium in Paris.", citations=[Citation(chunk_id="c", span="")])
    answer = Answer(
        question="What did Marie Curie say about radium and Bitcoin?", mode="local", answered_by="extractive"
    )
    answer.key_facts, answer.evidence = [fact], [hit]
    assert answerability.asked_about(answer.question) == ["marie", "curie", "radium", "bitcoin"]
    alone = answerability.signals(answer)  # no counts: the evidence stands in for the documents
    assert alone["exists"] == 0.5 and alone["complete"] == 0.0
    counted = answerability.signals(answer, {"radium": 1, "bitcoin": 0})
    assert counted["exists"] == 0.75 and counted["complete"] == 0.0  # radium is held by a passage not retrieved
    assert answerability.unheld(answer, {"radium": 1, "bitcoin": 0}).nowhere == ["bitcoin"]
    assert counted["together"] == 0.5  # the one passage holds marie and curie
    assert answerability.signals(answer, {"radium": 1, "bitcoin": 2})["complete"] == 1.0


def test_a_typing_slip_is_a_doubled_letter_or_two_letters_swapped() -> None:
    words = {"which", "research", "spot", "printed", "form"}
    assert slip_of("whiich", words) == "which" and slip_of("reserach", words) == "research"
    assert slip_of("which", words) is None  # the word itself
    assert slip_of("sport", words) is None and slip_of("painted", words) is None  # a letter dropped or changed
    assert slip_of("from", words) is None  # under five letters a swap is too often another word


@pytest.mark.parametrize("mode", ["local", "drift"])
def test_a_mistyped_word_is_not_a_word_the_documents_lack(engine: Engine, mode: Mode) -> None:
    """No passage holds "polonuim", but the evidence holds "polonium": `exists` and `complete` count it, its
    detail says so, and the answer does not say that no passage mentions it."""
    answer = engine.ask("Who discovered polonuim?", mode)
    assert answer.confidence is not None
    parts = {p.name: p for p in answer.confidence.parts}
    assert parts["complete"].value == 1.0 and parts["exists"].value == 1.0
    assert "“polonuim” as “polonium”" in parts["exists"].detail
    assert "mentions “polonuim”" not in answer.final_answer


def test_a_name_or_a_word_one_letter_off_is_no_slip() -> None:
    """ "whiich" is a slip of the evidence's "which"; "sport" is not one of "spot" (a letter dropped), nor "Marrie" of
    "Marie" (a name the documents lack is what says a question is not about them)."""
    hit = Hit(id="c", text="Marie Curie liked one spot in the park, which was where she would play.", score=1.0)
    answer = Answer(question="Whiich sport did Marrie Curie play?", mode="local", answered_by="extractive")
    answer.evidence = [hit]
    assert answerability.unheld(answer, None).slips == {"whiich": "which"}
    assert answerability.unheld(answer, None).nowhere == ["sport", "marrie"]
    values = answerability.signals(answer)
    assert values["exists"] == pytest.approx(3 / 5) and values["complete"] == 0.0


def test_joint_needs_whom_and_what_was_asked_in_one_passage() -> None:
    """ "What did Daphne Koller say about Tesla?": her episode states her (its name, her speaker label), another
    episode states Tesla; `together` reads 2 of 3 words either way, `joint` sees that no passage states both."""
    koller = Hit(
        id="k", text="DAPHNE KOLLER: We train models on proteins.", score=1.0, document_name="ep-daphne-koller"
    )
    gates = Hit(id="g", text="BILL GATES: Tesla built a great car.", score=0.9, document_name="ep-bill-gates")
    answer = Answer(question="What did Daphne Koller say about Tesla?", mode="local", answered_by="extractive")
    answer.evidence = [koller, gates]
    answer.key_facts = [
        KeyFact(fact="Daphne Koller: We train models on proteins.", citations=[Citation(chunk_id="k", span="")]),
        KeyFact(fact="Bill Gates: Tesla built a great car.", citations=[Citation(chunk_id="g", span="")]),
    ]
    answer.key_facts[0].citations[0].document_name = "ep-daphne-koller"
    answer.key_facts[1].citations[0].document_name = "ep-bill-gates"
    values = answerability.signals(answer)
    assert values["together"] == pytest.approx(2 / 3) and values["joint"] == 0.0
    koller.text = "Kevin asked whether a Tesla drives itself; she laughed."  # her episode, no label: its name says who
    assert answerability.signals(answer)["joint"] == 1.0


def test_joint_reads_a_passage_s_title_as_stating_its_subject() -> None:
    """Other text than transcripts: a Wikipedia passage says "She", its title names whom it is about."""
    hit = Hit(id="c", text="She discovered polonium in 1898.", score=1.0, document_name="Marie Curie")
    answer = Answer(question="What did Marie Curie discover?", mode="local", answered_by="extractive")
    answer.evidence = [hit]
    answer.key_facts = [
        KeyFact(fact=hit.text, citations=[Citation(chunk_id="c", span="", document_name="Marie Curie")])
    ]
    assert answerability.signals(answer)["joint"] == 1.0
    hit.document_name = answer.key_facts[0].citations[0].document_name = "Pierre Curie"
    # "who" is only what a title states ("curie"); "marie" then counts with the topic, half of which one passage states
    assert answerability.signals(answer)["joint"] == 0.5


def test_a_set_phrase_does_not_state_or_ask_about_its_content_word() -> None:
    """Bill Gates's "of course" said nothing of golf courses: `joint` read his episode as stating the topic."""
    gates = Hit(id="g", text="BILL GATES: Well, of course, I play golf.", score=1.0, document_name="ep-bill-gates")
    answer = Answer(question="What did Bill Gates say about golf courses?", mode="local", answered_by="extractive")
    answer.evidence = [gates]
    answer.key_facts = [
        KeyFact(fact="Bill Gates: Of course, I play golf.", citations=[Citation(chunk_id="g", span="")])
    ]
    assert answerability.signals(answer)["joint"] == 0.5  # golf, not courses
    gates.text = "BILL GATES: I played golf on three courses."
    answer.key_facts[0].fact = "Bill Gates: I played golf on three courses."
    assert answerability.signals(answer)["joint"] == 1.0
    assert "kind" not in answerability.asked_about("What kind of devices did Lisa Su build?")


def test_a_yes_or_no_question_whose_facts_quote_the_answer_is_answered(engine: Engine) -> None:
    """Quotes say neither "yes" nor "no", yet they hold what a reader needs to say it: a yes/no question is judged
    by its evidence like any other (branch wt99's `quotable` flagged every one; docs/benchmarks.md, wt100)."""
    answer = engine.ask("Did Marie Curie discover polonium in Paris?", "local")
    assert "polonium" in " ".join(f.fact for f in answer.key_facts).lower()
    assert answer.outcome == "answered" and not answer.final_answer.startswith("Not in these documents")
    assert answer.confidence is not None and "quotable" not in {p.name for p in answer.confidence.parts}


def test_answers_needs_one_fact_stating_what_was_asked_and_naming_the_kind_asked_for() -> None:
    """A near miss spreads the question over sentences: one names a place, another states the topic; neither
    answers "Where ...?" by itself."""
    place = KeyFact(fact="Marie Curie was born in Warsaw.", citations=[Citation(chunk_id="c", span="")])
    topic = KeyFact(fact="She studied physics and discovered polonium.", citations=[Citation(chunk_id="c", span="")])
    both = KeyFact(fact="She discovered polonium in Paris.", citations=[Citation(chunk_id="c", span="")])
    answer = Answer(question="Where did Marie Curie discover polonium?", mode="local", answered_by="extractive")
    answer.key_facts, answer.evidence = [place, topic], [Hit(id="c", text="x", score=1.0)]
    values = answerability.signals(answer)
    assert values["coverage"] == 1.0  # together the facts state discover and polonium
    assert values["answers"] == 0.0  # Warsaw's sentence states no topic word, the topic's sentence names no place
    answer.key_facts = [place, both]
    assert answerability.signals(answer)["answers"] == 1.0
    answer.question = "What did Marie Curie discover?"  # no kind asked: a fact stating a topic word is enough
    answer.key_facts = [topic]
    assert answerability.signals(answer)["answers"] == 1.0


def test_answers_counts_a_topic_word_a_fact_states_by_meaning(embedder: Embedder) -> None:
    """ "My dad was a mathematician" answers "What was her father's profession?" with no word of it by spelling."""
    fact = KeyFact(fact="My dad was a mathematician.", citations=[Citation(chunk_id="c", span="")])
    answer = Answer(question="What was Marie Curie's father's profession?", mode="local", answered_by="extractive")
    answer.key_facts, answer.evidence = [fact], [Hit(id="c", text="x", score=1.0)]
    meanings = answerability.Meanings(embedder)
    assert answerability.signals(answer)["answers"] == 0.0  # by spelling alone
    assert answerability.signals(answer, meanings=meanings)["answers"] == 1.0
    assert meanings.stated(["father", "profession"], "My dad was a mathematician.") == {"father"}
    assert meanings.stated(["tennis"], "I play golf on weekends.") == set()  # another sport, not the one asked
    assert meanings.stated(["linux"], "We shipped it on Windows first.") == set()


def test_answers_reads_a_model_s_cited_passages_not_its_wording() -> None:
    hit = Hit(id="c", text="Marie Curie studied physics.", score=1.0)
    fact = KeyFact(fact="She worked in Paris.", citations=[Citation(chunk_id="c", span="")])
    answer = Answer(question="Where did Marie Curie work?", mode="local", answered_by="llm")
    answer.key_facts, answer.evidence = [fact], [hit]
    assert answerability.signals(answer)["answers"] == 0.0  # "Paris" is the model's word, no cited passage's
    answer.answered_by = "extractive"
    assert answerability.signals(answer)["answers"] == 1.0


def test_arms_compare_the_best_passages_of_each_arm_and_focus_where_the_facts_come_from() -> None:
    """Both arms found all six passages; four of the five nearest in meaning are among the five best by keywords.
    Three of the four facts quote one document."""
    answer = Answer(question="Who discovered polonium?", mode="local", answered_by="extractive")
    answer.evidence = [
        Hit(id=f"c{i}", text="x", score=1.0, sources={"vector": 1.0 - i / 10, "fulltext": float(i)}) for i in range(6)
    ]
    answer.key_facts = [
        KeyFact(fact=f"Fact {n}.", citations=[Citation(chunk_id="c", span="", document_name=name)])
        for n, name in enumerate(["curie.txt", "curie.txt", "nobel.txt", "curie.txt"])
    ]
    values = answerability.signals(answer)
    assert values["arms"] == pytest.approx(4 / 5)  # nearest c0-c4, best by keywords c1-c5
    assert values["focus"] == pytest.approx(3 / 4)
    answer.evidence = [
        Hit(id=f"c{i}", text="x", score=1.0, sources={"vector": 1.0 - i / 10, "fulltext": float(10 - i)})
        for i in range(10)
    ]
    assert answerability.signals(answer)["arms"] == 1.0  # the same five first by both
    answer.evidence = [
        Hit(id=f"c{i}", text="x", score=1.0, sources={"vector": 1.0 - i / 10, "fulltext": float(i)}) for i in range(10)
    ]
    assert answerability.signals(answer)["arms"] == 0.0  # meaning's five best are keywords' five worst


def test_the_search_signals_read_what_the_question_s_own_search_retrieved() -> None:
    """DRIFT's evidence also holds what its follow-ups retrieved, scored against their own questions: the
    similarity, gap, arms and together signals read only the passages of the question's own search step."""
    own = Hit(id="own", text="Scrooge kept a counting-house.", score=0.4, sources={"vector": 0.3, "fulltext": 0.5})
    followup = Hit(id="f", text="Tokyo is the capital of Japan.", score=0.9, sources={"vector": 0.9, "fulltext": 0.8})
    answer = Answer(question="What is the capital of Japan?", mode="drift", answered_by="extractive")
    answer.evidence = [followup, own]
    unjudged = answerability.signals(answer)  # no search step recorded: all the evidence, as for global or agent
    assert unjudged["similarity"] == 0.9 and unjudged["together"] == 1.0
    answer.trace = [
        TraceStep(id="primer", kind="primer", question=answer.question, chunk_ids=["own"]),
        TraceStep(id="f1", kind="followup", question="What is said about Tokyo?", chunk_ids=["f"]),
    ]
    values = answerability.signals(answer)
    assert values["similarity"] == 0.3 and values["together"] == 0.0 and values["gap"] == 0.0
    assert answerability.searched_for_question(answer) == [own]
