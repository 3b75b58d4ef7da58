"""Neo4j reads as one auto-commit statement (`neo4j_reads`): no BEGIN or COMMIT round trip, the same answers, the
same refusals and timeout, and a read that meets an error a retry may cure still answered through the retried path."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from neo4j import RoutingControl
from neo4j.exceptions import ServiceUnavailable

import retrieval.store.neo4j as neo4j_store
from retrieval.config import Settings
from retrieval.context import Context
from retrieval.embed import Embedder
from retrieval.errors import QueryError
from retrieval.indexing import run_index
from retrieval.models import QueryParams
from retrieval.search.hybrid import search_chunks
from retrieval.search.ranking import retrieve
from retrieval.store import GraphStore
from tests.curie_corpus import DOCUMENTS, PROJECT, QUESTION, assert_same, written

pytestmark = [pytest.mark.neo4j_only, pytest.mark.usefixtures("backend")]


def _sent(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The Bolt messages the driver logged sending (`C: BEGIN`, `C: RUN`, ...), by name."""
    return [r.getMessage().split("C: ", 1)[1].split(" ", 1)[0] for r in caplog.records if "C: " in r.getMessage()]


def test_a_read_sends_no_transaction_of_its_own(store: GraphStore, caplog: pytest.LogCaptureFixture) -> None:
    """A managed read was BEGIN + RUN + PULL, then a COMMIT round trip with nothing to commit."""
    store.query("CREATE (:Probe {id: 'p1', n: 7})")
    store.read("MATCH (p:Probe) RETURN p.n AS n")  # its plan admitted (an EXPLAIN) before the messages are counted
    with caplog.at_level(logging.DEBUG, logger="neo4j"):
        found = store.read("MATCH (p:Probe) RETURN p.n AS n")
    sent = _sent(caplog)
    assert found == [{"n": 7}]
    assert "RUN" in sent and "PULL" in sent
    assert "BEGIN" not in sent and "COMMIT" not in sent


def test_a_lost_connection_is_read_again_through_the_retried_path(
    store: GraphStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    driver: Any = vars(store)["_driver"]
    session, execute = driver.session, driver.execute_query
    retried: list[str] = []

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise ServiceUnavailable("connection lost")

    def counted(*args: Any, **kwargs: Any) -> Any:
        retried.append(str(args[0].text))
        return execute(*args, **kwargs)

    store.read("RETURN 41 + 1 AS n")  # admitted before the session breaks
    monkeypatch.setattr(driver, "session", broken)
    monkeypatch.setattr(driver, "execute_query", counted)
    assert store.read("RETURN 41 + 1 AS n") == [{"n": 42}]
    assert retried == ["RETURN 41 + 1 AS n"]
    monkeypatch.setattr(driver, "session", session)
    with pytest.raises(QueryError):  # an error no retry cures is not sent again
        store.read("RETURN 1 / 0 AS n")
    assert retried == ["RETURN 41 + 1 AS n"]


@pytest.mark.parametrize("walk", [False, True])
def test_searches_rank_bitwise_as_through_managed_transactions(  # noqa: PLR0917 - fixtures and a parameter
    settings: Settings,
    store: GraphStore,
    embedder: Embedder,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    walk: bool,
) -> None:
    """The default ranking (with and without the walk) and the plain hybrid search: chunks, scores, sources, seeds,
    hit entities and walk the same whether each read is an auto-commit statement or `execute_query`'s managed
    transaction, and every read of the first went the auto-commit way."""
    run_index(settings, store, embedder, [written(tmp_path, DOCUMENTS)], project=PROJECT)
    ctx = Context(settings, store, embedder, None, PROJECT)
    params = QueryParams.from_settings(settings, top_k=3, max_hops=2)
    retrieve(ctx, QUESTION, params, walk=walk)  # index names, label statistics, admitted plans: read once before
    search_chunks(ctx, QUESTION, params)
    ways: list[str] = []
    auto = neo4j_store.auto_commit

    def auto_counted(*args: Any) -> Any:
        ways.append("auto")
        return auto(*args)

    def managed(driver: Any, database: str, query: Any, params: dict[str, Any]) -> Any:
        ways.append("managed")
        return driver.execute_query(query, params, routing_=RoutingControl.READ, database_=database)

    found = {}
    for name, way in (("auto", auto_counted), ("managed", managed)):
        monkeypatch.setattr(neo4j_store, "auto_commit", way)
        found[name] = (retrieve(ctx, QUESTION, params, walk=walk), search_chunks(ctx, QUESTION, params))
    assert_same(found["auto"][0], found["managed"][0])
    assert found["auto"][0].chunks and found["auto"][0].seeds
    assert [(h.id, h.score, h.sources, h.text) for h in found["auto"][1]] == [
        (h.id, h.score, h.sources, h.text) for h in found["managed"][1]
    ]
    half = len(ways) // 2
    assert half and ways == ["auto"] * half + ["managed"] * half
