"""No sequence of asks, deletes, invalidations and reopenings leaves a thread that cannot be opened or answered.

Property-based (hypothesis) over operation sequences on a real store, on both backends: two threads of one user
are asked in (content questions, follow-ups, questions of common words only, a blank one), and their memories are
deleted (whole turns the way the Memory page deletes, or half a turn straight through `MemoryStore`), invalidated,
garbled (an answer kept in a form that cannot be read) and reopened. After every step each thread opens, every turn
is whole or says why it is damaged, and at the end each thread still answers.

Real parts: the five-chunk graph of tests/tiny_graph, the ONNX embedder, the Memory store; no model (extractive).
Each example has its own user, so one graph serves them all.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from retrieval.conversation.memory import MemoryMessage, MemoryRecord, MemoryStore
from retrieval.conversation.thread import Conversation, Turn
from retrieval.embed import Embedder
from retrieval.engine import Engine
from retrieval.errors import StoreUnavailable
from retrieval.store import GraphStore, open_store
from retrieval.text.readable import NO_WORDS, NOTHING_TO_SEARCH
from tests import tiny_graph
from tests.backends import Occupant
from tests.conftest import make_settings

#: The module's graph, kept in place on Neo4j by conftest's `_graph_in_place`.
SHARED_GRAPHS = ("tiny",)
QUESTIONS = (
    "Who leads the Orion science team?",
    "Where does the Orion probe launch from?",
    "What did they build for it?",  # a follow-up: refers back
    "How big is the mission budget?",
)
COMMON = ("the", "of the and", "?!", "   ")
#: What a sequence can do; the turn an operation touches is picked by index among the thread's stored turns.
OPERATIONS = (
    "ask",
    "ask_common",
    "delete_turn",
    "delete_question",
    "delete_answer",
    "invalidate_question",
    "invalidate_answer",
    "garble",
    "reopen",
)
THREADS = 2


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory, backend: str, embedder: Embedder) -> Iterator[GraphStore]:
    """The tiny graph on `backend`, built once for the module (rebuilt on Neo4j when another fixture reset it)."""
    settings = make_settings(tmp_path_factory.mktemp("threads"), backend, project=tiny_graph.PROJECT)
    with open_store(settings) as store:
        Occupant.own(store, lambda graph: tiny_graph.build(graph, embedder))
        yield store
        Occupant.release(store)


@pytest.fixture(scope="module")
def engine(tiny: GraphStore, embedder: Embedder) -> Engine:
    return Engine(tiny.settings, store=tiny, embedder=embedder, llm=None)


class Threads:
    """One user's threads and the operations a sequence applies to them."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.user = f"prop-{uuid.uuid4().hex[:8]}"
        self.chats = [Conversation(engine, user=self.user) for _ in range(THREADS)]
        assert self.chats[0].memory is not None
        self.memory: MemoryStore = self.chats[0].memory

    def apply(self, operation: str, thread: int, n: int) -> None:
        chat = self.chats[thread]
        if operation == "ask":
            _answered(chat.ask(QUESTIONS[n % len(QUESTIONS)], ["local"], project=tiny_graph.PROJECT))
        elif operation == "ask_common":
            self.ask_common(chat, COMMON[n % len(COMMON)])
        elif operation == "reopen":
            self.chats[thread] = Conversation(self.engine, user=self.user, thread_id=chat.thread_id)
        else:
            self.change(chat, operation, n)

    @staticmethod
    def ask_common(chat: Conversation, question: str) -> None:
        """Common words only: one clear answer per mode, nothing searched; kept unless the question is blank."""
        before = len(chat.turns())
        turn = chat.ask(question, ["local"], project=tiny_graph.PROJECT)
        [answer] = turn.answers
        assert answer.no_data_found and not answer.key_facts
        blank = not question.strip()
        assert answer.notes == (["Type a question to search the graph."] if blank else [_unsearchable(question)])
        after = chat.turns()
        assert len(after) == before + (not blank)
        assert blank or (after[-1].question == question and after[-1].answers and not after[-1].damaged)

    def change(self, chat: Conversation, operation: str, n: int) -> None:
        """A Memory-page change to one stored turn (picked by `n`); nothing when the thread has none."""
        turns = _by_turn(self.memory.page(chat.scope, limit=500).items)
        if not turns:
            return
        records = turns[sorted(turns)[n % len(turns)]]
        questions = [r for r in records if r.role == "user"]
        answers = [r for r in records if r.role == "assistant"]
        memory, scope = self.memory, chat.scope
        if operation == "delete_turn":  # as the Memory page deletes: picking any part of a turn takes all of it
            whole = memory.whole_messages(records[-1:])
            assert {r.id for r in whole} == {r.id for r in records}
            memory.delete([r.id for r in whole], scope)
        elif operation == "delete_question" and questions:
            memory.delete([questions[0].id], scope)
        elif operation == "delete_answer" and answers:
            memory.delete([answers[0].id], scope)
        elif operation == "invalidate_question" and questions:
            memory.invalidate([questions[0].id], "wrong", scope)
        elif operation == "invalidate_answer" and answers:
            memory.invalidate([answers[0].id], "wrong", scope)
        elif operation == "garble":
            garbled = MemoryMessage(text="garbled", role="assistant", message_id=records[0].message_id, payload="{")
            memory.add(scope, [garbled])

    def check(self) -> None:
        """Every thread opens, and each of its turns is whole or says why it is not."""
        for chat in self.chats:
            for turn in Conversation(self.engine, user=self.user, thread_id=chat.thread_id).turns():
                assert (turn.question and turn.answers) or turn.damaged, turn


def _unsearchable(question: str) -> str:
    return NOTHING_TO_SEARCH if any(c.isalnum() for c in question) else NO_WORDS


def _answered(turn: Turn) -> None:
    assert [a.mode for a in turn.answers] == ["local"]


def _by_turn(records: list[MemoryRecord]) -> dict[str, list[MemoryRecord]]:
    """A thread's memories by the turn (message id) they belong to, keyed so that sorting is oldest first."""
    grouped: dict[str, list[MemoryRecord]] = {}
    first: dict[str, str] = {}
    for record in sorted(records, key=lambda r: r.timestamp):
        first.setdefault(record.message_id, record.timestamp)
        grouped.setdefault(record.message_id, []).append(record)
    return {f"{first[key]} {key}": group for key, group in grouped.items()}


_steps = st.tuples(st.sampled_from(OPERATIONS), st.integers(0, THREADS - 1), st.integers(0, 7))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(_steps, min_size=1, max_size=8))
def test_every_thread_opens_and_answers_after_any_sequence(engine: Engine, steps: list[tuple[str, int, int]]) -> None:
    threads = Threads(engine)
    for operation, thread, n in steps:
        threads.apply(operation, thread, n)
        threads.check()
    for chat in threads.chats:
        _answered(chat.ask(QUESTIONS[0], ["local"], project=tiny_graph.PROJECT))
        last = Conversation(engine, user=threads.user, thread_id=chat.thread_id).turns()[-1]
        assert last.question == QUESTIONS[0] and last.answers and not last.damaged


def test_a_common_words_question_is_one_clear_answer_kept_in_the_thread(engine: Engine) -> None:
    chat = Conversation(engine, user=f"common-{uuid.uuid4().hex[:8]}")
    Threads.ask_common(chat, "the")
    [turn] = Conversation(engine, user=chat.user, thread_id=chat.thread_id).turns()
    assert turn.question == "the" and not turn.damaged
    assert turn.answers[0].notes == [NOTHING_TO_SEARCH]
    assert turn.meta.earlier == []  # nothing searched, nothing recalled
    _answered(chat.ask(QUESTIONS[0], ["local"], project=tiny_graph.PROJECT))


def test_half_a_turn_reads_back_as_damaged_and_the_rest_of_the_thread_as_stored(engine: Engine) -> None:
    chat = Conversation(engine, user=f"half-{uuid.uuid4().hex[:8]}")
    for question in QUESTIONS[:3]:
        chat.ask(question, ["local"], project=tiny_graph.PROJECT)
    memory = chat.memory
    assert memory is not None
    turns = _by_turn(memory.page(chat.scope, limit=500).items)
    first, second, third = (turns[key] for key in sorted(turns))
    memory.delete([r.id for r in first if r.role == "assistant"], chat.scope)
    memory.delete([r.id for r in second if r.role == "user"], chat.scope)
    memory.add(chat.scope, [MemoryMessage(text="x", role="assistant", message_id=third[0].message_id, payload="{")])

    read = chat.turns()
    assert [t.damaged for t in read] == [
        "its answer was deleted",
        "its question was deleted",
        "1 of its memories could not be read",
    ]
    assert read[0].question == QUESTIONS[0] and read[1].question == "" and len(read[1].answers) == 1
    assert read[2].question == QUESTIONS[2] and len(read[2].answers) == 1
    follow_up = chat.ask("What did they build for it?", ["local"], project=tiny_graph.PROJECT)
    assert follow_up.meta.context_terms == []  # damaged turns no longer feed later answers


def test_each_answer_is_in_the_thread_before_it_is_returned(engine: Engine) -> None:
    """A face may never get past drawing an answer (a new question stops a Streamlit run): the answer is kept when
    it is made, the first with its question, a later mode's in the same turn."""
    chat = Conversation(engine, user=f"kept-{uuid.uuid4().hex[:8]}")
    turn = chat.begin(QUESTIONS[0], ["local", "global"])
    reader = Conversation(engine, user=chat.user, thread_id=chat.thread_id)
    assert reader.turns() == []
    chat.answer(turn, "local", project=tiny_graph.PROJECT)
    [kept] = reader.turns()
    assert (kept.id, kept.question, kept.damaged) == (turn.id, QUESTIONS[0], "")
    assert [a.mode for a in kept.answers] == ["local"]
    chat.answer(turn, "global", project=tiny_graph.PROJECT)
    [kept] = reader.turns()
    assert [a.mode for a in kept.answers] == ["local", "global"] and not kept.damaged
    assert turn.kept and turn.unkept is None


def test_an_answer_the_store_refuses_is_returned_with_why_and_the_next_one_brings_its_question(engine: Engine) -> None:
    chat = Conversation(engine, user=f"refused-{uuid.uuid4().hex[:8]}")
    kept_by = chat.memory
    closed = open_store(engine.settings)
    closed.close()
    turn = chat.begin(QUESTIONS[1], ["local", "global"])
    chat.memory = MemoryStore(closed, engine.settings, engine.embedder)  # gone between asking and answering
    answer = chat.answer(turn, "local", project=tiny_graph.PROJECT)
    assert answer.key_facts and isinstance(turn.unkept, StoreUnavailable) and not turn.kept
    chat.memory = kept_by  # the store is back: the next answer keeps the question with it, so the turn is whole
    chat.answer(turn, "global", project=tiny_graph.PROJECT)
    [kept] = Conversation(engine, user=chat.user, thread_id=chat.thread_id).turns()
    assert (kept.question, [a.mode for a in kept.answers], kept.damaged) == (QUESTIONS[1], ["global"], "")
