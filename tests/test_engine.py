"""Engine guards: a graph built with another embedder is refused with the fix; empty input answers cleanly."""

from __future__ import annotations

import pytest

from retrieval.embed import make_embedder
from retrieval.engine import Engine
from retrieval.errors import EmbeddingMismatch
from retrieval.store import GraphStore
from retrieval.telemetry.events import ProgressEvent


def test_graph_from_another_embedder_is_refused_with_the_fix(store: GraphStore) -> None:
    s = store.settings
    store.query(
        f"CREATE (:`{s.project_label}` {{id: 'p', name: 'p', embedder: 'openai:text-embedding-3-small', dim: 1536}})"
    )
    with pytest.raises(EmbeddingMismatch) as info:
        Engine(s, store=store, embedder=make_embedder(s), llm=None)
    text = str(info.value)
    assert "openai:text-embedding-3-small" in text and "1536" in text and "384" in text
    assert "re-index" in text and "switch back" in text


@pytest.mark.fresh_schema
def test_vector_index_of_another_dimension_is_refused(store: GraphStore) -> None:
    s = store.settings
    store.ensure_vector_index(s.chunk_vector_index, s.chunk_label, s.embedding_property, 768)
    with pytest.raises(EmbeddingMismatch, match="768"):
        Engine(s, store=store, embedder=make_embedder(s), llm=None)


def test_matching_embedder_opens_and_empty_question_is_no_data(store: GraphStore) -> None:
    s = store.settings
    embedder = make_embedder(s)
    store.query(
        f"CREATE (:`{s.project_label}` {{id: 'p', name: 'p', embedder: $name, dim: $dim}})",
        {"name": embedder.name, "dim": embedder.dim},
    )
    engine = Engine(s, store=store, embedder=embedder, llm=None)
    events = []
    answer = engine.ask("   ", "local", on_progress=events.append)
    assert answer.no_data_found and answer.final_answer == "" and answer.answered_by == "extractive"
    assert [e.phase for e in events] == ["initializing", "completed"]
    assert engine.projects() == ["p"]


def test_broken_retrieval_query_is_refused_at_start(store: GraphStore) -> None:
    from retrieval.errors import ConfigError
    from tests.conftest import make_settings

    s = make_settings(
        store.settings.data_dir,
        store.backend,
        retrieval_query="WITH node, score CREATE (:X) RETURN node.text AS text, score",
    )
    store.query(f"CREATE (:`{s.chunk_label}` {{id: 'c1', text: 'hello', projectId: 'demo'}})")
    with pytest.raises(ConfigError, match="retrieval_query"):
        Engine(s, store=store, embedder=make_embedder(s), llm=None)


def test_any_failure_ends_the_run_with_a_redacted_error_event(store: GraphStore) -> None:
    from retrieval.text.redact import register_secrets

    s = store.settings
    engine = Engine(s, store=store, embedder=make_embedder(s), llm=None)
    secret = "engine-test-secret-8d41"
    register_secrets([secret])
    events: list[ProgressEvent] = []

    with pytest.raises(ValueError, match="unknown mode"):
        engine.ask("Who is Marley?", f"mode-{secret}", on_progress=events.append)  # type: ignore[arg-type]

    assert [e.phase for e in events] == ["initializing", "error"]
    assert events[-1].progress_pct == 100 and "ValueError: unknown mode" in events[-1].thought_summary
    assert secret not in events[-1].model_dump_json()
