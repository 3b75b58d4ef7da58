"""Every statement from a person or a model has a deadline DriftLens enforces, and the graph heals by itself.

The runaway below is the one that held the service for minutes: neither database checks its own timeout inside
one `reduce`. Past the timeout plus `deadline.GRACE_S` the caller is set free (Neo4j: its transaction is
terminated; the embedded store: the graph server it owns is restarted) and the next read answers, no person
involved.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import threading
import time

import pytest

from retrieval.config import Settings
from retrieval.context import Context
from retrieval.embed import Embedder
from retrieval.engine import Engine
from retrieval.errors import DriftLensError, QueryError
from retrieval.search.explore import run_cypher
from retrieval.store import GraphStore, open_store
from retrieval.store.deadline import Deadline
from tests.conftest import SEARCH_PROJECT

#: Neo4j ends this one by itself some tens of seconds after its timeout (it checks rarely inside `reduce`); the
#: embedded store never does, so there it runs until DriftLens restarts the server.
RUNAWAY = {
    "neo4j": "RETURN size(reduce(s = '', x IN range(1, 180000) | s + 'xxxxxxxxxx')) AS n",
    "falkordb": "RETURN size(reduce(s = '', x IN range(1, 1000000) | s + 'xxxxxxxxxx')) AS n",
}
#: The issue's target: after any single query, the next read answers within this.
HEALED_S = 30.0


def _probe_count(store: GraphStore) -> int:
    return int(store.read("MATCH (p:Probe) RETURN count(p) AS n")[0]["n"])


def test_a_runaway_read_frees_its_caller_and_the_next_search_answers(
    search_store: GraphStore, embedder: Embedder
) -> None:
    engine = Engine(search_store.settings, store=search_store, embedder=embedder, llm=None)
    context = engine.context(SEARCH_PROJECT)
    explorer = dataclasses.replace(context, settings=context.settings.model_copy(update={"cypher_timeout_ms": 500}))
    started = time.monotonic()
    with pytest.raises(QueryError, match=r"stopped after 500 ms .*so DriftLens (terminated|restarted)"):
        run_cypher(explorer, RUNAWAY[search_store.backend])
    freed = time.monotonic() - started
    found = engine.search("What did Marie Curie discover?", engine.params(), project=SEARCH_PROJECT)
    healed = time.monotonic() - started
    assert found.chunks, "the search after the runaway found nothing"
    # Generous bounds that a broken deadline misses by far (minutes: the caller waited for the runaway itself).
    assert freed < 20.0, f"the caller waited {freed:.1f} s"
    assert healed < HEALED_S, f"the next search answered after {healed:.1f} s"


@pytest.mark.embedded_only
def test_a_backticked_range_is_bounded_and_the_server_survives(settings: Settings, embedder: Embedder) -> None:
    """``RETURN size(`range`(1, 2000000000))`` aborted the embedded server ("Out Of Memory allocating 32 GB")."""
    with open_store(settings) as store:
        store.query("CREATE (:Probe {id: 'p'})")
        pid = store.server.owner()["server_pid"]  # type: ignore[attr-defined]
        ctx = Context(store.settings, store, embedder, None, store.settings.project)
        for cypher in ("RETURN size(`range`(1, 2000000000)) AS n", "RETURN size(`RANGE` /* x */ (1, 2000000000)) AS n"):
            with pytest.raises(QueryError, match="DRIFTLENS_GRAPH_QUERY_MEMORY_MB"):
                run_cypher(ctx, cypher)
        assert store.server.owner()["server_pid"] == pid, "the graph server was restarted"  # type: ignore[attr-defined]
        assert _probe_count(store) == 1


@pytest.mark.embedded_only
def test_a_client_closing_after_a_restart_leaves_the_server_to_the_others(settings: Settings) -> None:
    """After a crash, another client restarted the server and closed while the service had not reconnected yet:
    that close stopped the server under the service, whose next request then paid for a restart."""
    with open_store(settings) as service:
        service.query("CREATE (:Probe {id: 'p'})")
        other = open_store(settings)
        os.kill(service.server.owner()["server_pid"], signal.SIGKILL)  # type: ignore[attr-defined]
        assert _probe_count(other) == 1  # the other client's read restarts the server
        restarted = other.server.owner()["server_pid"]  # type: ignore[attr-defined]
        other.close()
        assert service.server.owner()["server_pid"] == restarted, "another client's close stopped the server"  # type: ignore[attr-defined]
        assert _probe_count(service) == 1
        assert service.server.owner()["server_pid"] == restarted, "the service had to restart the server"  # type: ignore[attr-defined]


def test_the_deadline_frees_the_caller_and_refuses_a_flood() -> None:
    """Without a database: an overrunning call is stopped and its caller freed; past the slots the next is refused
    at once, and a slot comes back when the database lets go of the statement."""
    deadline = Deadline(running=1)
    release = threading.Event()
    stopped: list[str] = []

    def stop() -> str:
        stopped.append("stop")
        return "ended by the test"

    with pytest.raises(QueryError, match="ended by the test"):
        deadline.run(lambda: release.wait(30), 0.1, stop)
    assert stopped == ["stop"]
    with pytest.raises(QueryError, match="earlier queries are still running"):
        deadline.run(lambda: 1, 5.0, stop)
    release.set()
    for _ in range(100):  # the worker gives its slot back as soon as the call returns
        try:
            assert deadline.run(lambda: 2, 5.0, stop) == 2
            break
        except DriftLensError:
            time.sleep(0.05)
    else:
        pytest.fail("the slot never came back")
    with pytest.raises(ZeroDivisionError):
        deadline.run(lambda: 1 // 0, 5.0, stop)
