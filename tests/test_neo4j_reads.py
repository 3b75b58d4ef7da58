"""Neo4j reads as one auto-commit statement (`neo4j_reads`): no BEGIN or COMMIT round trip, the same answers, the
same refusals and timeout, and a read that meets an error a retry may cure still answered through the retried path."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from neo4j.exceptions import ServiceUnavailable

from retrieval.errors import QueryError
from retrieval.store import GraphStore

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
