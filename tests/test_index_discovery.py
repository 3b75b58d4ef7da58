"""Graphs built by other tools: DriftLens finds their indexes by the names those tools give them, so NEO4J_URI alone
points it at one, and it says which it chose on Home and in `/health`.

The rules (store/discovery.py) are checked on SHOW INDEXES rows as each tool writes them; the whole path on a real
Neo4j holding the GenAI workshop's graph as its SimpleKGPipeline writes it (`chunkEmbeddings`, 1536-d OpenAI
vectors), with no graph setting at all. The graph's vectors are OpenAI's, so the embedder is an OpenAI one (the
scripted OpenAI-compatible server, 1536-d): that is the embedder's setting, not the graph's.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from retrieval.config import Settings
from retrieval.engine import Engine
from retrieval.indexing.importers.neo4j_kg_native import load_native
from retrieval.search.hybrid import search_chunks
from retrieval.service.app import create_app
from retrieval.store import GraphStore, IndexState, open_store
from retrieval.store.discovery import discover
from tests.backends import Occupant
from tests.conftest import close_app, make_settings
from tests.scripted_openai import ScriptedOpenAI
from tests.service_server import serving
from tests.workshop_kg import REPO, WORKSHOP, exports

WORKSHOP_DIM = 1536  # the workshop pipeline's OpenAI vectors (and text-embedding-3-small's, the default model)


def _vector(name: str, label: str, prop: str = "embedding", dim: int = WORKSHOP_DIM) -> IndexState:
    return IndexState(name, "vector", label, (prop,), "ONLINE", dim)


def _fulltext(name: str, label: str, *props: str) -> IndexState:
    return IndexState(name, "fulltext", label, props, "ONLINE")


def _plain(tmp_path: Path, **explicit: object) -> Settings:
    return make_settings(tmp_path, **explicit)


# --- the rules, on SHOW INDEXES rows --------------------------------------------------------------
def test_workshop_indexes_are_found_by_name(tmp_path: Path) -> None:
    """The workshop's chunkEmbeddings and search_chunks: chunk label and text come from them; no entity index."""
    found = discover(
        _plain(tmp_path), [_vector("chunkEmbeddings", "Chunk"), _fulltext("search_chunks", "Chunk", "text")]
    )
    assert {role: state.name for role, state in found.found.items()} == {
        "chunk_vector": "chunkEmbeddings",
        "chunk_fulltext": "search_chunks",
    }
    assert found.changes == {
        "chunk_vector_index": "chunkEmbeddings",
        "chunk_fulltext_index": "search_chunks",
        "chunk_label": "Chunk",
        "entity_fulltext_index": None,  # none in this graph: keyword search skips it instead of failing
    }
    assert found.describe() == (
        "Indexes found by their names (set an index setting to choose another): chunk vectors chunkEmbeddings "
        "(Chunk.embedding, 1536-d); chunk keywords search_chunks (Chunk.text); none for entity vectors, "
        "entity keywords."
    )


def test_llm_graph_builder_indexes_are_found_with_their_properties(tmp_path: Path) -> None:
    indexes = [
        _vector("vector", "Chunk"),
        _fulltext("keyword", "Chunk", "text"),
        _vector("entity_vector", "__Entity__"),
        _fulltext("entities", "__Entity__", "id", "description"),
        _vector("product_vector", "Product"),  # not a name discovery knows: ignored
    ]
    found = discover(_plain(tmp_path), indexes)
    assert [state.name for state in found.found.values()] == ["vector", "keyword", "entity_vector", "entities"]
    assert found.changes["entity_name_property"] == "id"  # LLM Graph Builder names entities by `id`
    assert "entity_label" not in found.changes  # already __Entity__


def test_other_pipelines_names_and_the_graphrag_family(tmp_path: Path) -> None:
    indexes = [
        _vector("graphrag_chunks", "Chunk", "vec"),
        _vector("entity_embedding_index", "Entity", "vec"),
        _fulltext("ft_entities", "Entity", "name", "description"),
    ]
    found = discover(_plain(tmp_path), indexes)
    assert found.changes == {
        "chunk_vector_index": "graphrag_chunks",
        "chunk_label": "Chunk",
        "embedding_property": "vec",  # the chunk index decides the vector property entities share
        "chunk_fulltext_index": None,
        "entity_vector_index": "entity_embedding_index",
        "entity_fulltext_index": "ft_entities",
        "entity_label": "Entity",
        "entity_name_property": "name",
    }


def test_a_known_name_on_another_label_is_not_taken(tmp_path: Path) -> None:
    assert (
        discover(_plain(tmp_path), [_vector("vector", "Product"), _fulltext("keyword", "Review", "body")]).changes == {}
    )


def test_driftlens_own_graph_and_an_empty_one_change_nothing(tmp_path: Path) -> None:
    """DriftLens's own names come first: a graph it built (or will build) keeps every setting."""
    settings = _plain(tmp_path)
    own = [
        _vector(settings.chunk_vector_index, settings.chunk_label, dim=384),
        _vector("chunkEmbeddings", "Chunk"),  # another tool's graph in the same database does not take over
    ]
    assert discover(settings, own).changes == {}
    assert discover(settings, []).changes == {}
    assert discover(settings, []).describe() == ""


def test_an_explicit_setting_always_wins(tmp_path: Path) -> None:
    workshop = [_vector("chunkEmbeddings", "Chunk"), _fulltext("search_chunks", "Chunk", "text")]
    named = discover(_plain(tmp_path, chunk_vector_index="mine", chunk_fulltext_index="myText"), workshop)
    assert named.changes == {}  # names given: nothing is looked up, even where the named index is missing
    labelled = discover(_plain(tmp_path, chunk_label="Passage"), workshop)
    assert labelled.changes == {}  # chunks are Passages: the Chunk indexes are another graph's
    prop = discover(_plain(tmp_path, embedding_property="embedding_minilm"), workshop)
    assert set(prop.found) == {"chunk_fulltext"}  # chunkEmbeddings covers another property than the one given


# --- the whole path on Neo4j: only the URI ----------------------------------------------------------
@pytest.fixture(scope="module")
def native_workshop(tmp_path_factory: pytest.TempPathFactory, backend: str) -> Iterator[GraphStore]:
    """The workshop graph exactly as its pipeline writes it (no re-embedding, no DriftLens index)."""
    if not WORKSHOP.is_dir():
        pytest.skip(f"workshop graph not found at {WORKSHOP}")

    def build(graph: GraphStore) -> None:
        load_native(graph, exports())

    with open_store(make_settings(tmp_path_factory.mktemp("native"), backend)) as store:
        Occupant.own(store, build, fresh_schema=True)  # the workshop's own indexes, none of ours
        yield store
        Occupant.release(store)


@pytest.fixture
def only_the_uri(tmp_path: Path, backend: str, scripted_openai: ScriptedOpenAI) -> Settings:
    """NEO4J_URI (and the session server's password) and an OpenAI embedder; no label, property or index."""
    scripted_openai.embedding_dim = WORKSHOP_DIM
    return make_settings(tmp_path, backend, embedder="openai", openai_base_url=scripted_openai.base_url)


@pytest.mark.neo4j_only
def test_only_the_uri_searches_the_workshop_graph(native_workshop: GraphStore, only_the_uri: Settings) -> None:
    Occupant.ensure(native_workshop)
    engine = Engine(only_the_uri, store=native_workshop)
    try:
        s = engine.settings
        assert (s.chunk_label, s.chunk_vector_index, s.embedding_property) == ("Chunk", "chunkEmbeddings", "embedding")
        question = "What supply chain risks does Apple face?"
        hits = search_chunks(engine.context(), question, engine.params(search_type="vector", top_k=5))
        vector = engine.embedder.embed_query(question)
        expected = native_workshop.read(
            "CALL db.index.vector.queryNodes('chunkEmbeddings', 5, $q) YIELD node, score "
            "RETURN node.id AS id ORDER BY score DESC",
            {"q": vector},
        )
        assert [h.id for h in hits] == [r["id"] for r in expected] and len(hits) == 5
        assert all(h.text for h in hits)  # the chunk's `text`, DriftLens's default text property
        health = engine.health()
        assert "chunk vectors chunkEmbeddings (Chunk.embedding, 1536-d)" in health.message
        assert health.counts["Chunk"] == native_workshop.counts(["Chunk"])["Chunk"] > 0
    finally:
        engine.bus.close()


@pytest.mark.neo4j_only
def test_health_endpoint_names_the_chosen_indexes(native_workshop: GraphStore, only_the_uri: Settings) -> None:
    Occupant.ensure(native_workshop)
    engine = Engine(only_the_uri, store=native_workshop)
    try:
        with serving(create_app(only_the_uri, engine=engine)) as url:
            body = httpx.get(f"{url}/health", timeout=30).json()
        assert body["healthy"]
        assert "chunk vectors chunkEmbeddings (Chunk.embedding, 1536-d)" in body["graph"]["message"]
    finally:
        engine.bus.close()


@pytest.mark.neo4j_only
def test_home_names_the_chosen_indexes(
    native_workshop: GraphStore, only_the_uri: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The app started with NEO4J_URI alone (plus the embedder's endpoint), as a person's .env would say it."""
    from streamlit.testing.v1 import AppTest

    Occupant.ensure(native_workshop)
    password = only_the_uri.neo4j_password.get_secret_value() if only_the_uri.neo4j_password else ""
    environment = {
        "NEO4J_URI": only_the_uri.neo4j_uri or "",
        "NEO4J_PASSWORD": password,
        "DRIFTLENS_EMBEDDER": "openai",
        "OPENAI_BASE_URL": only_the_uri.openai_base_url or "",
        "DRIFTLENS_DATA_DIR": str(only_the_uri.data_dir),
    }
    for key in ("DRIFTLENS_PROJECT", "OPENAI_API_KEY", "AZURE_OPENAI_ENDPOINT", "OAI_BASE_URL", "REDIS_URL"):
        monkeypatch.delenv(key, raising=False)
    for key, value in environment.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(only_the_uri.data_dir)  # no .env of the checkout's
    close_app()
    app = AppTest.from_file(str(REPO / "app.py"), default_timeout=120)
    try:
        app.run()
        assert not app.exception and not app.error, [e.value for e in app.error]
        captions = [str(c.value) for c in app.caption]
        assert any("chunk vectors chunkEmbeddings (Chunk.embedding, 1536-d)" in c for c in captions), captions
    finally:
        close_app()
