"""The two graph backends every backend-facing test runs on: embedded FalkorDB and a real Neo4j 5.

Neo4j: one server per test session, started by `tools/neo4j/server.py` (Java 17 + Maven) or, when TEST_NEO4J_URI
is set in the environment, a scratch server the tests are pointed at (its database is wiped test by test). Not
NEO4J_URI: that is the product's own setting, which a person's shell may hold for their real graph (`make neo4j`
prints an `export NEO4J_URI=...` line); tests/hermetic.py drops it before any test runs.

Neo4j Community has a single user database, so fixtures that keep a graph alive across tests (module- and
session-scoped) cannot each own one as they own a FalkorDB file. `Occupant` tracks whose data the database holds:
a fixture that needs its graph rebuilds it (reset + build) when another fixture has reset the database since;
a rebuild puts back the copy taken after the first build (`tests/neo4j_snapshot.py`) instead of indexing again.
"""

from __future__ import annotations

import atexit
import os
import signal
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import ClassVar

import pytest

from retrieval.config.embedding_models import LOCAL_MINILM_DIM
from retrieval.store import GraphStore
from retrieval.store.falkordb import FalkorDBStore
from retrieval.store.neo4j import Neo4jStore
from tests.neo4j_snapshot import Snapshot
from tools.neo4j.server import SHORT_LIVED, Neo4jServer, Neo4jUnavailable, missing_tools, start

FALKORDB = "falkordb"
NEO4J = "neo4j"
BACKENDS = (FALKORDB, NEO4J)


@dataclass(frozen=True)
class Neo4jTarget:
    """Where the Neo4j half of the suite connects: `external` when TEST_NEO4J_URI pointed the tests at a server."""

    uri: str
    user: str
    password: str
    external: bool

    def settings(self) -> dict[str, object]:
        return {"neo4j_uri": self.uri, "neo4j_username": self.user, "neo4j_password": self.password}

    def env(self) -> dict[str, str]:
        return {"NEO4J_URI": self.uri, "NEO4J_USERNAME": self.user, "NEO4J_PASSWORD": self.password}


@dataclass
class Session:
    """This process's Neo4j: the target once started, why it is unavailable otherwise, tests run per backend."""

    target: Neo4jTarget | None = None
    server: Neo4jServer | None = None
    unavailable: str | None = None
    ran: dict[str, int] = field(default_factory=lambda: dict.fromkeys(BACKENDS, 0))

    def neo4j(self) -> Neo4jTarget:
        """The session's server, started on first use; raises Neo4jUnavailable (Java/Maven missing)."""
        if self.target is not None:
            return self.target
        if self.unavailable is not None:
            raise Neo4jUnavailable(self.unavailable)
        if (external := external_target(os.environ)) is not None:
            self.target = external
            return self.target
        if missing := missing_tools():
            self.unavailable = f"{', '.join(missing)} not found on PATH (Neo4j needs Java 17 and Maven)"
            raise Neo4jUnavailable(self.unavailable)
        self.server = start(jvm_options=SHORT_LIVED)
        atexit.register(self.stop)  # a process that never reaches pytest's session end stops it too
        self.target = Neo4jTarget(self.server.uri, self.server.user, self.server.password, external=False)
        return self.target

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
            self.server = None
            self.target = None


SESSION = Session()


def external_target(environ: Mapping[str, str]) -> Neo4jTarget | None:
    """The scratch server `TEST_NEO4J_URI` (with `TEST_NEO4J_USERNAME`, `TEST_NEO4J_PASSWORD`) names, if any; never
    the product's NEO4J_URI."""
    if not (uri := environ.get("TEST_NEO4J_URI")):
        return None
    user = environ.get("TEST_NEO4J_USERNAME", "neo4j")
    return Neo4jTarget(uri, user, environ.get("TEST_NEO4J_PASSWORD", ""), external=True)


class Occupant:
    """Which store's graph the one Neo4j database holds, and how to build each store's graph again.

    Every fixture opens its own store object, so the store stands for its fixture's data. On FalkorDB each store
    has its own file and nothing is ever rebuilt.
    """

    current: GraphStore | None = None
    builders: ClassVar[dict[int, Callable[[GraphStore], None]]] = {}
    fresh_schema: ClassVar[dict[int, bool]] = {}
    snapshots: ClassVar[dict[int, Snapshot]] = {}

    @classmethod
    def own(
        cls, store: GraphStore, build: Callable[[GraphStore], None] | None = None, *, fresh_schema: bool = False
    ) -> None:
        """Give the database to `store`: on Neo4j reset it (see `reset`); then `build` its graph."""
        build = build or _nothing
        cls.builders[id(store)] = build
        cls.fresh_schema[id(store)] = fresh_schema
        if store.backend == NEO4J:
            reset(store, fresh_schema=fresh_schema)
            cls.current = store
        build(store)
        if store.backend == NEO4J and build is not _nothing:
            cls.snapshots[id(store)] = Snapshot.take(store)

    @classmethod
    def ensure(cls, store: GraphStore) -> None:
        """Before a test: put `store`'s graph back if another fixture reset the Neo4j database since (its copy when
        the schema is still the one it was built with, else its builder again)."""
        if store.backend == NEO4J and cls.current is not store and id(store) in cls.builders:
            reset(store, fresh_schema=cls.fresh_schema[id(store)])
            cls.current = store
            snapshot = cls.snapshots.get(id(store))
            if snapshot is not None and snapshot.fits(store):
                snapshot.restore(store)
            else:
                cls.builders[id(store)](store)

    @classmethod
    def release(cls, store: GraphStore) -> None:
        cls.builders.pop(id(store), None)
        cls.fresh_schema.pop(id(store), None)
        cls.snapshots.pop(id(store), None)
        if cls.current is store:
            cls.current = None


def _nothing(_store: GraphStore) -> None:
    """An empty graph needs no building."""


def reset(store: GraphStore, *, fresh_schema: bool = False) -> None:
    """Empty the one Neo4j database for the next graph: always its data; its schema only when it differs from the
    one every default graph builds, or when the test is about the schema itself (`fresh_schema`).

    Why keep the schema: dropping and creating indexes empties Neo4j's query-plan cache, so every statement of the
    next test was planned again (60-90 ms each); that was most of the Neo4j half's time. A kept schema is the one
    the product would find in a database it has written before, which is what a graph in use looks like.
    """
    if fresh_schema or not _default_schema(store):
        store.clear()
    else:
        assert isinstance(store, Neo4jStore)
        store.delete_data()


def empty(store: GraphStore) -> None:
    """Empty `store` for the next test or example the cheapest way its backend allows: on Neo4j `reset` (its data;
    its schema only when that is not the default one), elsewhere `clear()`.

    Why not `clear()` on Neo4j too: dropping the indexes means creating them again and waiting for them to come
    online, seconds per call; a property-based test that cleared per example spent ~40 s of a run doing that.
    """
    if store.backend == NEO4J:
        reset(store)
    else:
        store.clear()


def _default_schema(store: GraphStore) -> bool:
    """Whether every vector and full-text index is one `store`'s settings name, at the default embedder's size."""
    s = store.settings
    names = {
        s.chunk_vector_index,
        s.entity_vector_index,
        s.community_vector_index,
        s.memory_vector_index,
        s.chunk_fulltext_index,
        s.entity_fulltext_index,
    }
    found = store.query(
        "SHOW INDEXES YIELD name, type, options WHERE type IN ['VECTOR', 'FULLTEXT'] "
        "RETURN name, options.indexConfig['vector.dimensions'] AS dim"
    )
    return all(r["name"] in names and r["dim"] in (None, LOCAL_MINILM_DIM) for r in found)


@contextmanager
def hung(store: GraphStore) -> Iterator[None]:
    """The graph's server process stopped (SIGSTOP) for the block: connections stay open, nothing answers."""
    if isinstance(store, FalkorDBStore):
        pid = int(store.server.owner()["server_pid"])
    elif SESSION.server is not None:
        pid = SESSION.server.process.pid
    else:
        pytest.skip("an external Neo4j (NEO4J_URI) is not stopped by tests")
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(pid, signal.SIGCONT)
