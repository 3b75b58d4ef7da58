"""Bring your own graph: the Neo4j GenAI workshop's SimpleKGPipeline graph, loaded as that pipeline writes it,
re-embedded locally and searched through settings alone (examples/neo4j-workshop-kg.env), on both backends.

Also the scope rule: a graph that holds no DriftLens project is read whole unless a project is asked for; as soon
as a project exists, every read is confined to one project again.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator

import pytest

from retrieval.config import Settings, load_settings
from retrieval.embed import Embedder
from retrieval.engine import Engine
from retrieval.indexing.importers.neo4j_kg_native import KG_BUILDER, WORKSHOP_VECTOR_INDEX, load_native
from retrieval.indexing.reembed import reembed
from retrieval.search import explore
from retrieval.search.hybrid import search_chunks, search_entities
from retrieval.store import GraphStore, open_store
from tests.backends import Occupant
from tests.conftest import close_app, make_settings
from tests.workshop_kg import REPO, WORKSHOP, WORKSHOP_ENV, exports

APPLE_10K = "data/form10k-sample/0000320193-23-000106.pdf"


def _workshop_settings(base: Settings, **overrides: object) -> Settings:
    """The example .env file's settings, on the backend `base` points at."""
    where = {
        "graph_path": base.graph_path,
        "data_dir": base.data_dir,
        "neo4j_uri": base.neo4j_uri,
        "neo4j_username": base.neo4j_username,
        "neo4j_password": base.neo4j_password,
        "openai_api_key": None,
        "openai_base_url": None,
        "azure_openai_endpoint": None,
        "redis_url": None,
    }
    return load_settings(_env_file=WORKSHOP_ENV, **where, **overrides)


@pytest.fixture(scope="module")
def workshop(
    tmp_path_factory: pytest.TempPathFactory, backend: str, embedder: Embedder
) -> Iterator[tuple[Settings, GraphStore, dict[str, object]]]:
    """The workshop graph as SimpleKGPipeline writes it, re-embedded with the local model (once per backend)."""
    settings = _workshop_settings(make_settings(tmp_path_factory.mktemp("workshop"), backend))
    built: dict[str, object] = {}

    def build(store: GraphStore) -> None:
        built["loaded"] = load_native(store, exports())
        built["reembedded"] = reembed(settings, store, embedder)

    with open_store(settings) as store:
        Occupant.own(store, build)
        yield settings, store, built
        Occupant.release(store)


@pytest.fixture(autouse=True)
def _workshop_in_place(request: pytest.FixtureRequest) -> None:
    """On Neo4j, the one database may have been reset by another fixture since: rebuild the workshop graph then."""
    if "workshop" in request.fixturenames:
        Occupant.ensure(request.getfixturevalue("workshop")[1])


def test_native_load_writes_what_simplekgpipeline_writes(workshop: tuple[Settings, GraphStore, dict]) -> None:
    _settings, store, _ = workshop
    nodes = [n for path in exports() for n in json.loads(path.read_text())["nodes"]]
    relationships = [r for path in exports() for r in json.loads(path.read_text())["relationships"]]
    per_label = store.read(
        f"MATCH (n:{KG_BUILDER}) UNWIND labels(n) AS label RETURN label, count(*) AS n ORDER BY label"
    )
    counts = {r["label"]: r["n"] for r in per_label}
    expected = Counter(n["label"] for n in nodes)
    assert counts[KG_BUILDER] == len(nodes)
    assert {label: counts[label] for label in expected} == dict(expected)
    # Entities (every label outside the lexical graph) also carry __Entity__; documents and chunks do not.
    assert counts["__Entity__"] == len(nodes) - expected["Document"] - expected["Chunk"]
    assert not store.read("MATCH (n:Chunk:__Entity__) RETURN n LIMIT 1")
    per_type = store.read("MATCH ()-[r]->() RETURN type(r) AS type, count(r) AS n")
    assert {r["type"]: r["n"] for r in per_type} == dict(Counter(r["type"] for r in relationships))
    pipeline_index = next(i for i in store.index_states() if i.kind == "vector" and i.properties == ("embedding",))
    assert (pipeline_index.label, pipeline_index.dimension) == ("Chunk", 1536)
    if store.backend == "neo4j":  # FalkorDB indexes carry no names of their own
        assert pipeline_index.name == WORKSHOP_VECTOR_INDEX
    # Another tool's graph: no DriftLens project, no projectId anywhere.
    assert not store.read("MATCH (n) WHERE n:__Project__ OR n.projectId IS NOT NULL RETURN n LIMIT 1")


def test_loading_again_changes_nothing(workshop: tuple[Settings, GraphStore, dict]) -> None:
    _settings, store, _ = workshop
    before = store.read("MATCH (n) OPTIONAL MATCH (n)-[r]->() RETURN count(DISTINCT n) AS n, count(r) AS r")
    load_native(store, exports())
    after = store.read("MATCH (n) OPTIONAL MATCH (n)-[r]->() RETURN count(DISTINCT n) AS n, count(r) AS r")
    assert after == before


def test_reembed_puts_local_vectors_beside_the_pipeline_ones(
    workshop: tuple[Settings, GraphStore, dict], embedder: Embedder
) -> None:
    settings, store, built = workshop
    report = built["reembedded"]
    chunks = store.counts(["Chunk"])["Chunk"]
    assert report.embedded == {"Chunk": chunks, "__Entity__": store.counts(["__Entity__"])["__Entity__"]}
    assert store.vector_dimension("Chunk", "embedding_minilm") == 384
    assert store.vector_dimension("__Entity__", "embedding_minilm") == 384
    assert store.vector_dimension("Chunk", "embedding") == 1536  # the pipeline's vectors and index are untouched
    again = reembed(settings, store, embedder)  # resumable: only nodes without the property are embedded
    assert again.embedded == {"Chunk": 0, "__Entity__": 0}


def test_local_search_answers_from_the_workshop_graph(workshop: tuple[Settings, GraphStore, dict]) -> None:
    settings, store, _ = workshop
    engine = Engine(settings, store=store)
    ctx = engine.context()
    assert not ctx.scoped and "whole graph" in ctx.scope_description
    answer = engine.ask("What supply chain risks does Apple face from single-source components?", "local")
    assert not answer.no_data_found and answer.answered_by == "extractive"
    top = answer.evidence[0]
    assert top.kind == "chunk" and top.document_name == APPLE_10K  # the retrieval_query walked FROM_DOCUMENT
    assert "APPLE INC" in top.metadata["entities"]  # ... and the FROM_CHUNK entities
    assert any("supply" in fact.fact.lower() for fact in answer.key_facts)
    hits = search_chunks(ctx, "Verde Bio Holdings oil and gas royalty interests", engine.params(top_k=3))
    assert hits[0].document_name == "data/form10k-sample/0001096906-23-001489.pdf"


def test_explorer_searches_and_expands_workshop_entities(workshop: tuple[Settings, GraphStore, dict]) -> None:
    settings, store, _ = workshop
    engine = Engine(settings, store=store)
    ctx = engine.context()
    found = search_entities(ctx, "iPhone", engine.params(), k=5)
    assert found and found[0].metadata["title"] == "iPhone"
    view = explore.neighbourhood(ctx, [found[0].id], engine.params(max_hops=2), cap=30)
    groups = {node.label: node.group for node in view.nodes}
    assert groups["iPhone"] == "Product" and groups["APPLE INC"] == "Company"  # type from the entity's own label
    assert {edge.label for edge in view.edges} <= {"FACES_RISK", "HAS_METRIC", "MENTIONS", "ISSUED_STOCK"}
    assert view.edges  # reached over the typed relations the settings name
    details = explore.node_details(ctx, found[0].id)
    assert details is not None and details.title == "iPhone" and details.kind == "entity"
    assert details.chunks and "iPhone" in details.chunks[0].text  # its source chunk, through FROM_CHUNK


def test_asking_for_a_project_keeps_the_scope_strict(workshop: tuple[Settings, GraphStore, dict]) -> None:
    settings, store, _ = workshop
    engine = Engine(settings, store=store)
    ctx = engine.context("acme")
    assert ctx.scoped
    assert search_chunks(ctx, "Apple supply chain", engine.params()) == []
    answer = engine.ask("What supply chain risks does Apple face?", "local", project="acme")
    assert answer.no_data_found
    configured = Engine(_workshop_settings(settings, project="acme"), store=store)
    assert configured.context().scoped


def test_once_a_project_exists_every_read_is_confined_again(workshop: tuple[Settings, GraphStore, dict]) -> None:
    settings, store, _ = workshop
    engine = Engine(settings, store=store)
    iphone = search_entities(engine.context(), "iPhone", engine.params(), k=1)[0].id
    store.query("CREATE (:__Project__ {id: 'acme', name: 'acme'})")
    try:
        ctx = engine.context()
        assert ctx.scoped and ctx.project == settings.project
        assert search_chunks(ctx, "Apple supply chain", engine.params()) == []
        assert search_entities(ctx, "iPhone", engine.params()) == []
        assert explore.node_details(ctx, iphone) is None
        assert explore.neighbourhood(ctx, [iphone], engine.params(), cap=10).nodes == []
    finally:
        store.query("MATCH (p:__Project__ {id: 'acme'}) DELETE p")
    assert not engine.context().scoped


def test_home_says_the_whole_graph_is_searched(
    workshop: tuple[Settings, GraphStore, dict], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The app on the workshop graph, configured by the example file: Home names the active scope."""
    from streamlit.testing.v1 import AppTest

    settings, _store, _ = workshop
    _point_environment_at(settings, monkeypatch)
    close_app()
    app = AppTest.from_file(str(REPO / "app.py"), default_timeout=120)
    try:
        app.run()
        assert not app.exception and not app.error
        captions = [str(c.value) for c in app.caption]
        assert any("Searches read the whole graph" in c for c in captions), captions
    finally:
        close_app()


def _point_environment_at(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    """The example file's settings in the environment, on `settings`' backend (as a person's .env would be)."""
    from dotenv import dotenv_values

    for key in ("NEO4J_URI", "NEO4J_PASSWORD", "DRIFTLENS_PROJECT", "OPENAI_API_KEY", "OPENAI_BASE_URL", "REDIS_URL"):
        monkeypatch.delenv(key, raising=False)
    for key in ("AZURE_OPENAI_ENDPOINT", "OAI_BASE_URL"):
        monkeypatch.delenv(key, raising=False)
    for key, value in dotenv_values(WORKSHOP_ENV).items():
        monkeypatch.setenv(key, value or "")
    monkeypatch.setenv("DRIFTLENS_GRAPH_PATH", str(settings.embedded_graph_path))
    monkeypatch.setenv("DRIFTLENS_DATA_DIR", str(settings.data_dir))
    if settings.neo4j_uri and settings.neo4j_password:
        monkeypatch.setenv("NEO4J_URI", settings.neo4j_uri)
        monkeypatch.setenv("NEO4J_PASSWORD", settings.neo4j_password.get_secret_value())


def test_a_person_loads_reembeds_and_searches_from_the_command_line(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The recipe in docs/bring-your-own-graph.md, step by step, through `python -m retrieval`, on an empty graph."""
    from retrieval.cli import main

    _point_environment_at(settings, monkeypatch)
    verde = WORKSHOP / "0001096906-23-001489.json"
    assert main(["import-kg", "--native", str(verde), "--json"]) == 0
    loaded = json.loads(capsys.readouterr().out)
    assert (loaded["nodes"]["Chunk"], loaded["vector_index"], loaded["dimension"]) == (5, WORKSHOP_VECTOR_INDEX, 1536)
    assert main(["reembed", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["embedded"] == {"Chunk": 5, "__Entity__": 14}
    assert main(["search", "oil and gas royalty interests", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows and rows[0]["document"] == "data/form10k-sample/0001096906-23-001489.pdf"
