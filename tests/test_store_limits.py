"""What one read may cost: memory, rows and time are bounded by the database, and the server survives every query.

Backend-independent (the `store` and `backend` fixtures): they run on both backends.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from retrieval.config import Settings
from retrieval.context import Context
from retrieval.embed import Embedder
from retrieval.engine import Engine
from retrieval.errors import ConfigError, QueryError
from retrieval.models import Hit, QueryParams
from retrieval.modes.agent_tools import AgentTools
from retrieval.search.enrich import enrich
from retrieval.search.explore import run_cypher
from retrieval.service.handlers import read_cypher
from retrieval.store import GraphStore, open_store
from retrieval.store.cypher_limits import bound_ranges, bounded
from tests.conftest import make_settings

HUGE = "UNWIND range(1, 2000000000) AS x RETURN count(x) AS n"


def _context(store: GraphStore, embedder: Embedder) -> Context:
    """A context on a graph that exists (a never-written embedded graph answers every read with no rows)."""
    store.query("MERGE (:Probe {id: 'exists'})")
    return Context(store.settings, store, embedder, None, store.settings.project)


def _alive(store: GraphStore) -> bool:
    return store.read("RETURN 1 AS ok") == [{"ok": 1}]


def test_huge_range_in_the_explorer_fails_clearly_and_the_server_survives(
    store: GraphStore, embedder: Embedder
) -> None:
    with pytest.raises(QueryError) as info:
        run_cypher(_context(store, embedder), HUGE)
    if store.backend == "falkordb":
        assert "DRIFTLENS_GRAPH_QUERY_MEMORY_MB" in str(info.value)
    assert _alive(store)


def test_huge_range_from_the_agent_is_a_tool_error_and_the_server_survives(
    store: GraphStore, embedder: Embedder
) -> None:
    tools = AgentTools(_context(store, embedder), QueryParams(), row_limit=50)
    result = tools.call("execute_cypher", {"query": HUGE, "reasoning": "stress"})
    assert result.error and "Query" in result.error
    assert _alive(store)


def test_user_and_model_cypher_stop_at_the_cypher_timeout_setting(settings: Settings, embedder: Embedder) -> None:
    """One setting times the explorer's box, the agent's tools and the service's read_cypher.

    The query makes 400M rows from two short lists: Neo4j streams a long range() fast enough to finish 20M rows
    inside 300 ms, and the embedded store would build a long range() as one list in memory.
    """
    slow = "UNWIND range(1, 20000) AS a UNWIND range(1, 20000) AS b WITH a * b AS x WHERE x % 7919 = -1 RETURN count(x)"
    stopped = r"stopped after 300 ms \(DRIFTLENS_CYPHER_TIMEOUT_MS\)"
    with open_store(settings.model_copy(update={"cypher_timeout_ms": 300})) as store:
        ctx = _context(store, embedder)
        with pytest.raises(QueryError, match=stopped):
            run_cypher(ctx, slow)
        tools = AgentTools(ctx, QueryParams(), row_limit=50)
        assert re.search(stopped, tools.call("execute_cypher", {"query": slow, "reasoning": "slow"}).error or "")
        with pytest.raises(QueryError, match=stopped):
            read_cypher(Engine(store.settings, store=store, embedder=embedder, llm=None), slow, max_rows=10)
        assert _alive(store)


def test_explorer_row_limit_is_applied_by_the_database(
    store: GraphStore, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    received: list[int] = []
    if store.backend == "falkordb":  # the rows the server sent, before any client-side cut
        real_untrusted = store._untrusted  # type: ignore[attr-defined]

        def counting_untrusted(command: Any, timeout: int) -> Any:
            result = real_untrusted(command, timeout)
            received.append(len(getattr(result, "result_set", None) or []))
            return result

        monkeypatch.setattr(store, "_untrusted", counting_untrusted)
    else:
        real_limited = store.read_limited

        def counting_limited(cypher: str, limit: int, **kwargs: Any) -> list[dict[str, Any]]:
            rows = real_limited(cypher, limit, **kwargs)
            received.append(len(rows))  # Neo4j streams: it fetches `limit` rows and ends the transaction
            return rows

        monkeypatch.setattr(store, "read_limited", counting_limited)
    result = run_cypher(_context(store, embedder), "UNWIND range(1, 5000) AS x RETURN x ORDER BY x DESC", limit=200)
    assert result.truncated and len(result.rows) == 200
    assert result.rows[0] == {"x": 5000}, "the query's own order is kept"
    assert max(received) <= 201, f"the client received {max(received)} rows for a 200-row view"


def test_bounded_ranges_keep_every_result_the_memory_cap_allows(store: GraphStore) -> None:
    store.query("MERGE (:Probe {id: 'exists'})")
    cases = {
        "RETURN range(1, 5) AS r": [1, 2, 3, 4, 5],
        "RETURN range(10, 1, -3) AS r": [10, 7, 4, 1],
        "RETURN range(0, 10, 4) AS r": [0, 4, 8],
        "RETURN [x IN range(1, size([1, 2, 3])) | x * 2] AS r": [2, 4, 6],
    }
    for cypher, expected in cases.items():
        assert store.read(cypher)[0]["r"] == expected, cypher
    text = "RETURN 'range(1, 9)' AS s // range(1, 2)"
    assert bound_ranges(text, 10) == text, "strings and comments are left alone"
    assert "LIMIT 5" in bounded("MATCH (n) RETURN n;", 5)
    assert bounded("CALL db.labels()", 5) == "CALL db.labels()", "a standalone procedure call cannot be wrapped"


def test_enrichment_query_has_the_read_timeout(tmp_path: Path, embedder: Embedder, backend: str) -> None:
    slow = (  # 400M rows from two short lists: Neo4j counts a streamed range(1, 20000000) inside 200 ms when warm
        "WITH node, score UNWIND range(1, 20000) AS a UNWIND range(1, 20000) AS b WITH node, score, count(a * b) AS n "
        "RETURN node.text AS text, score"
    )
    settings = make_settings(tmp_path, backend, query_timeout_ms=200, retrieval_query=slow)
    with open_store(settings) as store:
        store.query(f"CREATE (:`{settings.chunk_label}` {{id: 'c1', text: 'Marley was dead.'}})")
        with pytest.raises(ConfigError) as info:
            enrich(_context(store, embedder), [Hit(id="c1", score=1.0)])
        assert "retrieval_query" in str(info.value)
        assert _alive(store)
