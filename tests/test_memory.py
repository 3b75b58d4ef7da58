"""Memory on the embedded store: scope isolation (property-based), invalidation, deletion, paging, recency."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from retrieval.conversation import memory as memory_module
from retrieval.conversation.memory import MemoryMessage, MemoryStore, Scope, by_owner
from retrieval.embed import Embedder, make_embedder
from retrieval.errors import ConfigError
from retrieval.store import GraphStore
from tests.backends import empty
from tests.conftest import make_settings


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return make_embedder(make_settings(Path(tempfile.gettempdir())))


@pytest.fixture
def memory(module_store: GraphStore, embedder: Embedder) -> MemoryStore:
    empty(module_store)
    return MemoryStore(module_store, module_store.settings, embedder)


def _say(*texts: str, role: str = "user") -> list[MemoryMessage]:
    return [MemoryMessage(text=t, role=role) for t in texts]


_ids = st.sampled_from(["a", "b", "c"])
_scopes = st.builds(
    Scope,
    application_id=st.sampled_from(["app", None]),
    agent_id=st.one_of(st.none(), _ids),
    user_id=st.one_of(st.none(), _ids),
    thread_id=st.one_of(st.none(), _ids),
).filter(lambda s: any((s.application_id, s.agent_id, s.user_id, s.thread_id)))
_words = st.sampled_from(["budget", "launch", "graph", "memory", "coffee", "paris", "invoice", "deadline"])
_texts = st.lists(_words, min_size=1, max_size=5).map(" ".join)


def _belongs(record_values: dict[str, str], scope: Scope) -> bool:
    return all(record_values[key] == value for key, value in scope.filters().items())


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    writes=st.lists(st.tuples(_scopes, st.lists(_texts, min_size=1, max_size=3)), min_size=1, max_size=6),
    reader=_scopes,
    query=_texts,
)
def test_search_never_returns_another_scopes_memory(
    module_store: GraphStore, embedder: Embedder, writes: list[tuple[Scope, list[str]]], reader: Scope, query: str
) -> None:
    empty(module_store)
    memory = MemoryStore(module_store, module_store.settings, embedder)
    stored = [record for scope, texts in writes for record in memory.add(scope, _say(*texts))]
    owned = {r.id for r in stored if _belongs(r.model_dump(), reader)}
    recency = MemoryStore(module_store, module_store.settings)
    for exact_limit in (memory_module.EXACT_SCOPE_LIMIT, 0):  # exact scoring of small scopes, then the index
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(memory_module, "EXACT_SCOPE_LIMIT", exact_limit)
            searches = (memory.search(reader, query, k=50), memory.search(reader, query, k=1), recency.search(reader))
            for found in searches:
                assert {r.id for r in found} <= owned
                assert all(_belongs(r.model_dump(), reader) for r in found)
            # within its own scope nothing is lost: all memories (fewer than k) come back
            assert {r.id for r in memory.search(reader, query, k=50)} == owned


def test_unscoped_calls_are_refused_with_a_clear_error(memory: MemoryStore) -> None:
    with pytest.raises(ConfigError, match="at least one of application_id"):
        memory.add(Scope(), _say("hello"))
    with pytest.raises(ConfigError, match="needs a scope"):
        memory.search(Scope(), "hello")
    with pytest.raises(ConfigError, match="thread_id"):
        memory.delete_thread(Scope(user_id="u"))
    with pytest.raises(ConfigError, match="needs a scope"):
        memory.get("any-id", Scope())


def test_vector_search_ranks_by_meaning_and_uses_the_memory_index(memory: MemoryStore) -> None:
    scope = Scope(user_id="u1")
    memory.add(scope, _say("My favourite city is Paris.", "The quarterly budget is 40k euros.", "I drink green tea."))
    found = memory.search(scope, "How much money do we have this quarter?", k=1)
    assert [r.text for r in found] == ["The quarterly budget is 40k euros."]
    assert found[0].score is not None and 0.0 < found[0].score <= 1.0
    s = memory.settings
    assert memory.store.vector_dimension(s.memory_label) == memory.embedder.dim  # type: ignore[union-attr]


def test_only_configured_roles_and_non_empty_texts_are_stored(memory: MemoryStore) -> None:
    scope = Scope(agent_id="x")
    stored = memory.add(
        scope, [*_say("q"), *_say("a", role="assistant"), *_say("tool output", role="tool"), *_say("  ")]
    )
    assert [r.role for r in stored] == ["user", "assistant"]
    assert memory.page(scope).total == 2


def test_without_an_embedder_search_returns_the_most_recent(module_store: GraphStore) -> None:
    empty(module_store)
    memory = MemoryStore(module_store, module_store.settings, embedder=None)
    scope = Scope(thread_id="t")
    memory.add(scope, _say("first", "second", "third"))
    memory.add(Scope(thread_id="other"), _say("elsewhere"))
    assert [r.text for r in memory.search(scope, "anything", k=2)] == ["third", "second"]


def test_invalidated_memory_is_not_retrieved_but_stays_inspectable(memory: MemoryStore) -> None:
    scope = Scope(user_id="u", thread_id="t")
    wrong, right = memory.add(scope, _say("The launch is on Monday.", "The launch moved to Friday."))
    assert memory.invalidate([wrong.id], "launch date changed", Scope(user_id="someone-else")) == 0
    assert memory.invalidate([wrong.id], "launch date changed", scope) == 1
    assert [r.id for r in memory.search(scope, "When is the launch?", k=5)] == [right.id]
    assert [r.id for r in memory.recent(scope, 5)] == [right.id]
    kept = memory.get(wrong.id, scope)
    assert kept is not None and not kept.valid and kept.invalid_reason == "launch date changed"
    page = memory.page(scope)
    assert page.total == 2 and {r.id for r in page.items} == {wrong.id, right.id}
    assert memory.page(scope, include_invalid=False).total == 1
    assert [(p.role, p.count, p.invalid) for p in memory.timeline(scope)] == [("user", 2, 1)]


def test_delete_by_id_thread_and_user(memory: MemoryStore) -> None:
    t1 = Scope(user_id="alice", thread_id="t1")
    a1 = memory.add(t1, _say("a one", "a two"))
    memory.add(Scope(user_id="alice", thread_id="t2"), _say("a three"))
    memory.add(Scope(user_id="bob", thread_id="t3"), _say("b one", "b two"))
    assert memory.delete([a1[0].id], t1) == 1 and memory.get(a1[0].id, t1) is None
    assert memory.delete_thread(t1) == 1
    assert memory.page(Scope(user_id="alice")).total == 1
    assert memory.delete_user(Scope(user_id="alice")) == 1
    assert memory.page(Scope(user_id="alice")).total == 0
    assert memory.page(Scope(user_id="bob")).total == 2
    assert [(s.user_id, s.count) for s in memory.scopes()] == [("bob", 2)]


def test_paging_is_newest_first_and_stable(memory: MemoryStore) -> None:
    scope = Scope(application_id="app")
    memory.add(scope, _say(*(f"note {i}" for i in range(7))))
    first, second = memory.page(scope, limit=4), memory.page(scope, offset=4, limit=4)
    assert [r.text for r in first.items + second.items] == [f"note {i}" for i in reversed(range(7))]
    assert first.total == second.total == 7


def test_three_users_sharing_a_thread_id_only_ever_touch_their_own(store: GraphStore, embedder: Embedder) -> None:
    memory = MemoryStore(store, store.settings, embedder)
    owners = {user: Scope(application_id="app", user_id=user, thread_id="t2") for user in ("u1", "u2", "u3")}
    stored = {user: memory.add(scope, _say(f"{user} hello", f"{user} bye")) for user, scope in owners.items()}
    memory.add(Scope(application_id="app", user_id="u1", thread_id="t1"), _say("u1 elsewhere"))

    def left() -> dict[str, int]:
        items = memory.page(Scope(application_id="app")).items
        return {user: sum(1 for r in items if r.user_id == user and r.valid) for user in owners}

    mine = stored["u1"][0]
    assert memory.get(mine.id, owners["u1"]) == mine.model_copy(update={"score": None})
    for wrong in (owners["u2"], Scope(thread_id="t2"), Scope(application_id="app", thread_id="t2")):
        assert memory.get(mine.id, wrong) is None
        assert memory.invalidate([mine.id], "not yours", wrong) == 0
        assert memory.delete([mine.id], wrong) == 0
    assert memory.delete_thread(Scope(thread_id="t2")) == 0  # a bare thread id names nobody's thread
    assert memory.delete_thread(Scope(application_id="app", thread_id="t2")) == 0
    assert left() == {"u1": 3, "u2": 2, "u3": 2}

    assert memory.delete_thread(owners["u2"]) == 2
    assert left() == {"u1": 3, "u2": 0, "u3": 2}
    assert memory.delete_user(Scope(user_id="u1")) == 0  # u1 of no application is another owner
    assert memory.delete_user(Scope(application_id="app", user_id="u1")) == 3
    assert left() == {"u1": 0, "u2": 0, "u3": 2}
    with pytest.raises(ConfigError, match="no thread_id"):
        memory.delete_user(owners["u3"])


def test_a_mixed_selection_is_grouped_by_each_records_own_scope(memory: MemoryStore) -> None:
    first = memory.add(Scope(user_id="a", thread_id="t"), _say("one"))
    second = memory.add(Scope(user_id="b", thread_id="t"), _say("two", "three"))
    owners = by_owner([*first, *second])
    assert owners == {
        Scope(user_id="a", thread_id="t"): [first[0].id],
        Scope(user_id="b", thread_id="t"): [r.id for r in second],
    }
    assert sum(memory.delete(ids, owner) for owner, ids in owners.items()) == 3


def test_whole_messages_adds_every_part_of_a_message_in_the_same_scope_only(memory: MemoryStore) -> None:
    mine, other = Scope(user_id="a", thread_id="t"), Scope(user_id="b", thread_id="t")
    turn = [
        MemoryMessage(text="q", role="user", message_id="m1"),
        MemoryMessage(text="a", role="assistant", message_id="m1"),
    ]
    question, answer = memory.add(mine, turn)
    memory.add(other, turn)  # the same message id under another user
    memory.add(mine, [MemoryMessage(text="next", role="user", message_id="m2")])
    loose = memory.add(mine, _say("no message id"))

    assert {r.id for r in memory.whole_messages([answer])} == {question.id, answer.id}
    assert {r.id for r in memory.whole_messages([question, *loose])} == {question.id, answer.id, loose[0].id}
