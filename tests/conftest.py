"""Shared fixtures: real graphs on both backends (embedded FalkorDB in temp folders, one real Neo4j per session),
settings that touch no .env.

Every test that asks for a graph fixture (`settings`, `store`, `module_store`, `search_store`, `carol_graph`,
`backend`) runs once per backend: `-m neo4j` selects the Neo4j half, `-m "not neo4j"` the embedded one. Tests of
the embedded server itself (its lock, log, kill and restart) are marked `embedded_only` and run on FalkorDB alone.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

from retrieval.config import Settings, load_settings
from retrieval.embed import Embedder, make_embedder
from retrieval.store import GraphStore, open_store
from tests import model_memo
from tests.backends import BACKENDS, FALKORDB, NEO4J, SESSION, Occupant
from tools.neo4j.server import Neo4jUnavailable

#: Each distinct text is embedded once per test process (tests/model_memo.py).
model_memo.install()

#: Shared test-support modules whose asserts compare what the tests compare: rewritten as test modules are, so that
#: a failure shows both sides (pytest rewrites only test modules, conftests and plugins of its own accord).
pytest.register_assert_rewrite("tests.app_session", "tests.curie_corpus", "tests.indexing_runs")

#: The data-folder, default-folder and process guards (tests/hermetic.py), and pytester to prove they fail.
pytest_plugins = ["tests.hermetic", "pytester"]


def make_settings(tmp: Path, backend: str = FALKORDB, **overrides: object) -> Settings:
    """Settings for an isolated graph on `backend`: no .env, LLM/Redis unset and no service warm-up unless a test
    sets them.

    On Neo4j the graph is the session server's one database; `settings`/`store` fixtures reset it.
    """
    base: dict[str, object] = {
        "graph_path": tmp / "graph.db",
        "data_dir": tmp,
        "neo4j_uri": None,
        "openai_api_key": None,
        "openai_base_url": None,
        "azure_openai_endpoint": None,
        "redis_url": None,
        # The service's warm-up searches (~20 at start) would add about a second to each of the suite's ~70 service
        # starts and mix their reads with the tests' own; tests/test_service_warmup.py turns it on.
        "api_warmup_s": 0,
    }
    if backend == NEO4J:
        base.update(SESSION.neo4j().settings())
    base.update(overrides)
    return load_settings(_env_file=None, **base)


def count_reads(store: GraphStore, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The statements `store` reads from now on, in order (the store still runs each): how tests count round trips
    without timing them."""
    reads: list[str] = []
    read = store.read

    def counted(cypher: str, *args: object, **kwargs: object) -> object:
        reads.append(cypher)
        return read(cypher, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(store, "read", counted)
    return reads


def backend_env(settings: Settings) -> dict[str, str]:
    """Environment pointing a CLI or app process at `settings`' graph (NEO4J_* empty for the embedded one)."""
    env = {"DRIFTLENS_GRAPH_PATH": str(settings.embedded_graph_path), "NEO4J_URI": settings.neo4j_uri or ""}
    if settings.neo4j_uri:
        password = settings.neo4j_password.get_secret_value() if settings.neo4j_password else ""
        env.update(NEO4J_USERNAME=settings.neo4j_username, NEO4J_PASSWORD=password)
    return env


#: pytest's own `__main__`: AppTest leaves the app's script module in its place (see `close_app`).
PYTEST_MAIN = sys.modules["__main__"]


def close_app() -> None:
    """Close the Engine an in-process app (AppTest) opened, forget the app's caches, and give `__main__` back.

    The app closes its engine only at exit, so without this the graph server a test's app opened would outlive
    the test (and the session's end would find it running). AppTest runs app.py as `sys.modules["__main__"]` and
    leaves it there: every process spawned later (the indexer's extraction processes) ran app.py again on start,
    opening a graph in the default data folder whose server outlived the process. Every AppTest test ends here.
    """
    import streamlit as st

    from components import session

    if session.engine_open():
        session.engine().close()
    st.cache_resource.clear()
    st.cache_data.clear()
    sys.modules["__main__"] = PYTEST_MAIN


# --- backends -------------------------------------------------------------------------------------
def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Run every test that needs `backend` on both; `embedded_only` tests on FalkorDB alone, and tests that
    test Neo4j alone or against an embedded graph they open themselves (`neo4j_only`) once, as Neo4j tests."""
    if "backend" not in metafunc.fixturenames:
        return
    wanted = list(BACKENDS)
    if metafunc.definition.get_closest_marker("embedded_only"):
        wanted = [FALKORDB]
    elif metafunc.definition.get_closest_marker("neo4j_only"):
        wanted = [NEO4J]
    params = [pytest.param(b, marks=pytest.mark.neo4j, id=b) if b == NEO4J else pytest.param(b, id=b) for b in wanted]
    metafunc.parametrize("backend", params, indirect=True, scope="session")


@pytest.fixture(scope="session")
def backend(request: pytest.FixtureRequest) -> Iterator[str]:
    """The backend this test runs on; the Neo4j server starts with the first Neo4j test and stops with the session.

    Not when this fixture's Neo4j value is torn down: pytest does that whenever the next test runs on the other
    backend, which on an xdist worker (modules handed out whole, each its FalkorDB half then its Neo4j half) was
    at every module, and each restart cost a JVM start and every module graph built in the old server."""
    if request.param == NEO4J:
        try:
            SESSION.neo4j()
        except Neo4jUnavailable as exc:
            if SESSION.unavailable:
                from tests.hermetic import skip_missing_tool  # here: pytest_plugins imports it first, rewritten

                skip_missing_tool(str(exc))
            pytest.skip(f"Neo4j unavailable: {exc}")
    yield request.param


@pytest.hookimpl(optionalhook=True)  # an xdist hook: pytest without xdist does not know it
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """`--dist loadscope` shares the suite by our scopes (tests/scheduling.py); other modes as xdist does."""
    if config.getvalue("dist") != "loadscope":
        return None
    from tests.scheduling import BackendScopes

    return BackendScopes(config, log)  # type: ignore[arg-type]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Reports carry each test's backend to xdist's controller, which collects nothing, for the summary's counts."""
    for item in items:
        backend = getattr(item, "callspec", None) and item.callspec.params.get("backend")  # type: ignore[attr-defined]
        if backend:
            item.user_properties.append(("backend", backend))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Count passes per backend (in xdist's controller too, which collects nothing: reports carry the backend)."""
    backend = dict(report.user_properties).get("backend")
    if report.when == "call" and report.passed and backend:
        SESSION.ran[backend] += 1


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say how many tests passed on each backend, and loudly when the Neo4j half could not run."""
    ran = ", ".join(f"{count} passed on {name}" for name, count in SESSION.ran.items())
    terminalreporter.write_sep("=", f"backends: {ran}")
    if SESSION.unavailable:
        terminalreporter.write_sep(
            "!", f"NEO4J HALF SKIPPED: {SESSION.unavailable}; install Java 17 and Maven to run it", red=True, bold=True
        )


def pytest_sessionfinish() -> None:
    SESSION.stop()  # also after a crash or Ctrl-C, where session fixtures' teardown may not run


# --- graph fixtures -------------------------------------------------------------------------------
def fresh_schema(request: pytest.FixtureRequest) -> bool:
    """Whether the test (or its module) asks for a Neo4j database without indexes (`fresh_schema` marker)."""
    return request.node.get_closest_marker("fresh_schema") is not None


@pytest.fixture
def settings(tmp_path: Path, backend: str, request: pytest.FixtureRequest) -> Settings:
    """Settings for a fresh, empty graph on `backend` (on Neo4j: the database reset for this test)."""
    settings = make_settings(tmp_path, backend)
    if backend == NEO4J:
        with open_store(settings) as graph:
            Occupant.own(graph, fresh_schema=fresh_schema(request))
            Occupant.release(graph)
    return settings


@pytest.fixture
def offline_settings(tmp_path: Path) -> Settings:
    """Settings for tests that never open a graph (one run, no backend parameter)."""
    return make_settings(tmp_path)


@pytest.fixture
def store(settings: Settings, request: pytest.FixtureRequest) -> Iterator[GraphStore]:
    with open_store(settings) as graph:
        Occupant.own(graph, fresh_schema=fresh_schema(request))
        yield graph
        Occupant.release(graph)


@pytest.fixture(scope="module")
def embedder(tmp_path_factory: pytest.TempPathFactory) -> Embedder:
    return make_embedder(make_settings(tmp_path_factory.getbasetemp()))


@pytest.fixture(scope="module")
def module_store(
    tmp_path_factory: pytest.TempPathFactory, backend: str, request: pytest.FixtureRequest
) -> Iterator[GraphStore]:
    """One graph per test module: closing an embedded server takes seconds, clearing it takes milliseconds."""
    with open_store(make_settings(tmp_path_factory.mktemp("module"), backend, project="demo")) as store:
        Occupant.own(store, fresh_schema=fresh_schema(request))
        yield store
        Occupant.release(store)


#: Fixtures that keep a graph across tests; a test module names its own in `SHARED_GRAPHS`.
SHARED_GRAPHS = ("carol_graph", "search_store", "module_store", "demo")


@pytest.fixture(autouse=True)
def _graph_in_place(request: pytest.FixtureRequest) -> None:
    """On Neo4j, give each test the graph its shared fixtures built (another fixture may have reset it since).

    The one database holds one such graph at a time, so a test asking for two of them on Neo4j fails here, by
    name, instead of reading one graph from a database that holds the other.
    """
    in_place: list[str] = []
    for name in (*SHARED_GRAPHS, *getattr(request.module, "SHARED_GRAPHS", ())):
        if name in request.fixturenames:
            value = request.getfixturevalue(name)
            for part in value if isinstance(value, tuple) else (value,):
                if isinstance(part, GraphStore):
                    Occupant.ensure(part)
                    in_place += [name] if part.backend == NEO4J else []
    if len(in_place) > 1:
        pytest.fail(f"{', '.join(in_place)}: Neo4j holds one shared graph at a time; split the test")


# Re-exported so every test module can use the scripted OpenAI-compatible server fixture.
from tests.scripted_openai import scripted_openai  # noqa: E402, F401

# --- a small, exactly known search graph (search and local-mode tests) -----------------------------
SEARCH_PROJECT = "science"
SEARCH_CHUNKS: dict[str, tuple[str, str, str]] = {  # id -> (project, document, text)
    "c1": (
        SEARCH_PROJECT,
        "Marie Curie",
        "Marie Curie discovered polonium and radium together with Pierre Curie in Paris.",
    ),
    "c2": (
        SEARCH_PROJECT,
        "Marie Curie",
        "She won the Nobel Prize in Physics in 1903. She won a second Nobel Prize in 1911.",
    ),
    "c3": (
        SEARCH_PROJECT,
        "Pierre Curie",
        "Pierre Curie was a French physicist who studied piezoelectricity in crystals.",
    ),
    "c4": (
        SEARCH_PROJECT,
        "Baking",
        "Bake the sourdough bread at 220 degrees for thirty minutes until the crust is golden.",
    ),
    "c5": ("other", "Elsewhere", "Marie Curie discovered polonium, says a document of another project."),
}
#: id -> (title, type, updated_at)
SEARCH_ENTITIES: dict[str, tuple[str, str, str]] = {
    "marie": ("Marie Curie", "PERSON", "2024-01-01T00:00:00"),
    "pierre": ("Pierre Curie", "PERSON", "2024-06-01T00:00:00"),
    "polonium": ("Polonium", "CONCEPT", "2020-01-01T00:00:00"),
    "paris": ("Paris", "GPE", "2020-01-01T00:00:00"),
    "science": ("Science", "CONCEPT", "2020-01-01T00:00:00"),
    "bread": ("Sourdough bread", "CONCEPT", "2020-01-01T00:00:00"),
}
SEARCH_RELATED = [("marie", "pierre"), ("marie", "polonium"), ("pierre", "paris"), ("bread", "science")]
#: "science" is a hub: related to every other entity, and to twenty filler entities.
SEARCH_HUB_FILLERS = 20
SEARCH_MENTIONS = [
    ("c1", "marie"), ("c1", "polonium"), ("c1", "pierre"), ("c2", "marie"), ("c3", "pierre"), ("c3", "paris"),
    ("c4", "bread"),
]  # fmt: skip


def build_search_graph(store: GraphStore, embedder: Embedder) -> None:
    """Documents -> chunks -> entities -> RELATED -> communities, with real embeddings, for project `science`."""
    s = store.settings
    store.ensure_schema(embedder.dim)
    texts = [text for _p, _d, text in SEARCH_CHUNKS.values()]
    vectors = embedder.embed(texts).tolist()
    store.write_batch(
        f"UNWIND $rows AS row CREATE (c:`{s.chunk_label}` {{id: row.id, text: row.text, projectId: row.project, "
        f"document_id: row.doc, document_name: row.doc, n: 0}}) SET c.embedding = {store.vec('row.v')}",
        [
            {"id": cid, "text": text, "project": project, "doc": doc, "v": v}
            for (cid, (project, doc, text)), v in zip(SEARCH_CHUNKS.items(), vectors, strict=True)
        ],
    )
    fillers = {f"filler{i}": (f"Filler topic {i}", "CONCEPT", "2020-01-01T00:00:00") for i in range(SEARCH_HUB_FILLERS)}
    entities = {**SEARCH_ENTITIES, **fillers}
    entity_vectors = embedder.embed([title for title, _t, _u in entities.values()]).tolist()
    store.write_batch(
        f"UNWIND $rows AS row CREATE (e:`{s.entity_label}` {{id: row.id, title: row.title, type: row.type, "
        f"description: row.title, updated_at: row.updated, projectId: row.project}}) "
        f"SET e.embedding = {store.vec('row.v')}",
        [
            {"id": eid, "title": title, "type": kind, "updated": updated, "v": v, "project": SEARCH_PROJECT}
            for (eid, (title, kind, updated)), v in zip(entities.items(), entity_vectors, strict=True)
        ],
    )
    hub_edges = [("science", e) for e in entities if e not in ("science", "bread")]
    store.write_batch(
        f"UNWIND $rows AS row MATCH (a:`{s.entity_label}` {{id: row.a}}), (b:`{s.entity_label}` {{id: row.b}}) "
        "CREATE (a)-[:RELATED {weight: 1.0, description: row.a + ' relates to ' + row.b}]->(b)",
        [{"a": a, "b": b} for a, b in [*SEARCH_RELATED, *hub_edges]],
    )
    store.write_batch(
        f"UNWIND $rows AS row MATCH (c:`{s.chunk_label}` {{id: row.c}}), (e:`{s.entity_label}` {{id: row.e}}) "
        "CREATE (c)-[:HAS_ENTITY]->(e)",
        [{"c": c, "e": e} for c, e in SEARCH_MENTIONS],
    )
    community_vectors = embedder.embed(["Curie family research", "Physics and chemistry", "Baking"]).tolist()
    store.write_batch(
        f"UNWIND $rows AS row CREATE (k:`{s.community_label}` {{id: row.id, level: row.level, title: row.title, "
        f"summary: row.title, rank: 1.0, projectId: '{SEARCH_PROJECT}'}}) SET k.embedding = {store.vec('row.v')}",
        [
            {"id": "k0", "level": 0, "title": "Curie family research", "v": community_vectors[0]},
            {"id": "k1", "level": 1, "title": "Physics and chemistry", "v": community_vectors[1]},
            {"id": "k2", "level": 0, "title": "Baking", "v": community_vectors[2]},
        ],
    )
    for project in (SEARCH_PROJECT, "other"):
        store.query(
            f"CREATE (:`{s.project_label}` {{id: $p, name: $p, projectId: $p, embedder: $name, dim: $dim}})",
            {"p": project, "name": embedder.name, "dim": embedder.dim},
        )


@pytest.fixture(scope="module")
def search_store(tmp_path_factory: pytest.TempPathFactory, backend: str) -> Iterator[GraphStore]:
    """One search graph per test module (built once: embedding is the slow part)."""
    settings = make_settings(tmp_path_factory.mktemp("search"), backend, project=SEARCH_PROJECT)
    embedder = make_embedder(settings)
    with open_store(settings) as graph:
        Occupant.own(graph, lambda g: build_search_graph(g, embedder))
        yield graph
        Occupant.release(graph)


# --- a small real indexed graph: two excerpts of A Christmas Carol (DRIFT and global tests) ---------
CAROL_PROJECT = "carol"
CAROL = Path(__file__).resolve().parents[1] / "data" / "demo" / "a-christmas-carol" / "a-christmas-carol.txt"
#: (file name, first line, last line) of the excerpts: the start of Stave One and of Stave Five.
CAROL_EXCERPTS = (("marleys-ghost.txt", 195, 560), ("the-end-of-it.txt", 3280, 3520))


#: What `carol_graph` gives a test: the graph's settings, its store and the embedder it was built with.
CarolGraph = tuple[Settings, GraphStore, Embedder]


@pytest.fixture(scope="session")
def carol_graph(tmp_path_factory: pytest.TempPathFactory, backend: str) -> Iterator[CarolGraph]:
    """The real offline indexer over two Christmas Carol excerpts (~40 chunks), built once per session."""
    from retrieval.indexing import run_index

    root = tmp_path_factory.mktemp("carol")
    docs = root / "docs"
    docs.mkdir()
    lines = CAROL.read_text(encoding="utf-8").splitlines()
    for name, first, last in CAROL_EXCERPTS:
        (docs / name).write_text("\n".join(lines[first - 1 : last]), encoding="utf-8")
    settings = make_settings(root, backend, project=CAROL_PROJECT)
    embedder = make_embedder(settings)
    with open_store(settings) as graph:
        Occupant.own(graph, lambda g: run_index(settings, g, embedder, [docs], project=CAROL_PROJECT))
        yield settings, graph, embedder
        Occupant.release(graph)


# --- the app's demo graph (AppTest and the browser tests) -----------------------------------------
class DemoGraph(NamedTuple):
    """The demo graph on one backend, as an app process sees it (a tuple: `_graph_in_place` finds its store)."""

    env: dict[str, str]  # environment of an app on it
    where: str  # where the Home page says the graph lives: the embedded file or the Neo4j URI
    data_dir: Path  # the app's data folder (one of its index roots)
    store: GraphStore | None  # on Neo4j, kept open to say when the one database must be rebuilt for it


@pytest.fixture(scope="session")
def demo(tmp_path_factory: pytest.TempPathFactory, backend: str) -> Iterator[DemoGraph]:
    """A Christmas Carol excerpt indexed offline, plus memories: the embedded file the browser tests share, or
    the same graph built in the session's Neo4j."""
    from tests.e2e.graph import app_env, build_demo, demo_graph

    if backend != NEO4J:
        path = demo_graph(tmp_path_factory.getbasetemp() / "app-graph")
        # Held open for the session: each test's app (closed with its test) attaches to this running server
        # instead of starting it and reloading the graph, which tripled test_app.py's time.
        with open_store(make_settings(path.parent, graph_path=path)):
            yield DemoGraph(app_env(path), str(path), path.parent, None)
        return
    root = tmp_path_factory.mktemp("demo-neo4j")
    settings = make_settings(root, backend)
    with open_store(settings) as store:
        Occupant.own(store, lambda graph: build_demo(settings, graph, root))
        env = {**app_env(settings.embedded_graph_path), **backend_env(settings)}
        yield DemoGraph(env, settings.neo4j_uri or "", root, store)
        Occupant.release(store)
