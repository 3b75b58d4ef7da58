"""The MCP tools through the official SDK's own client: streamable HTTP at /mcp on the running service, and
stdio (`python -m retrieval mcp` started by the client). Same JSON as the HTTP API, reads only; raw Cypher only when
the operator turns it on."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from retrieval.store import GraphStore
from tests.conftest import SEARCH_PROJECT
from tests.service_server import service

REPO = Path(__file__).resolve().parents[1]
TOOLS = {"search_graph", "ask_graph", "expand_entity", "list_communities", "list_documents"}
WITH_CYPHER = TOOLS | {"read_cypher"}


@pytest.fixture(scope="module")
def url(search_store: GraphStore) -> Iterator[str]:
    with service(search_store, api_cypher_max_rows=3, api_raw_cypher=True) as base:
        yield base


def calls(server: Any, *steps: tuple[str, dict[str, Any]]) -> tuple[set[str], list[Any]]:
    """The tool names the server lists, and the result of each (tool, arguments) call, in one session."""
    listed, results = listing(server, *steps)
    return {t.name for t in listed}, results


def listing(server: Any, *steps: tuple[str, dict[str, Any]]) -> tuple[list[Any], list[Any]]:
    """The tools the server lists (name, description...), and the result of each (tool, arguments) call."""

    async def run() -> tuple[list[Any], list[Any]]:
        async with Client(server) as client:
            listed = await client.list_tools()
            return list(listed.tools), [await client.call_tool(name, args) for name, args in steps]

    return asyncio.run(run())


def test_streamable_http_tools_answer_like_the_http_api(url: str) -> None:
    question = {"query": "Who discovered polonium?", "project_id": SEARCH_PROJECT}
    names, (search, ask, communities) = calls(
        f"{url}/mcp",
        ("search_graph", {**question, "k": 3}),
        ("ask_graph", {**question, "mode": "local"}),
        ("list_communities", {"project_id": SEARCH_PROJECT, "level": 0}),
    )
    assert names == WITH_CYPHER
    assert not (search.is_error or ask.is_error or communities.is_error)
    http = httpx.post(
        f"{url}/v1/retrieval/search",
        json={"query": question["query"], "projectId": SEARCH_PROJECT, "local": {"k": 3}},
        timeout=60,
    ).json()
    mcp = search.structured_content
    for body in (mcp, http):
        body["meta"].pop("timingsMs")
    assert mcp == http
    assert ask.structured_content["mode"] == "local" and ask.structured_content["key_facts"]
    assert {c["id"] for c in communities.structured_content["communities"]} == {"k0", "k2"}


def test_expand_entity_walks_related_with_drift_scores(url: str) -> None:
    _names, (found, missing) = calls(
        f"{url}/mcp",
        ("expand_entity", {"entity_id": "marie", "project_id": SEARCH_PROJECT, "max_hops": 1}),
        ("expand_entity", {"entity_id": "nobody", "project_id": SEARCH_PROJECT}),
    )
    body = found.structured_content
    assert body["entity"]["id"] == "marie" and body["entity"]["hop"] == 0
    neighbours = {n["id"]: n for n in body["neighborEntities"]}
    assert {"pierre", "polonium", "science"} <= set(neighbours)
    assert all(n["hop"] == 1 and n["score"] > 0 for n in neighbours.values())
    assert neighbours["science"]["score"] < neighbours["pierre"]["score"], "the hub is penalised"
    assert missing.is_error and "nobody" in missing.content[0].text


def test_read_cypher_is_read_only_row_capped_and_reads_the_whole_graph(url: str, search_store: GraphStore) -> None:
    chunk = search_store.settings.chunk_label
    tools, (rows, projects, write, broken) = listing(
        f"{url}/mcp",
        ("read_cypher", {"cypher": f"MATCH (c:`{chunk}`) RETURN c.id AS id ORDER BY id"}),
        ("read_cypher", {"cypher": f"MATCH (c:`{chunk}`) RETURN DISTINCT c.projectId AS p ORDER BY p"}),
        ("read_cypher", {"cypher": f"MATCH (c:`{chunk}`) DETACH DELETE c"}),
        ("read_cypher", {"cypher": "MATCH (c RETURN c"}),
    )
    assert rows.structured_content == {
        "rows": [{"id": "c1"}, {"id": "c2"}, {"id": "c3"}],
        "truncated": True,
        "maxRows": 3,
    }
    assert projects.structured_content["rows"] == [{"p": "other"}, {"p": SEARCH_PROJECT}], "every project, as said:"
    (described,) = [t for t in tools if t.name == "read_cypher"]
    assert "WHOLE graph" in str(described.description) and "project_id" not in described.input_schema["properties"]
    assert write.is_error and "read" in write.content[0].text.lower()
    assert broken.is_error
    count = search_store.read(f"MATCH (c:`{chunk}`) RETURN count(c) AS n")[0]["n"]
    assert count == 5, "nothing was deleted"


def test_raw_cypher_is_off_unless_the_operator_turns_it_on(search_store: GraphStore) -> None:
    with service(search_store) as base:
        names, (refused,) = calls(f"{base}/mcp", ("read_cypher", {"cypher": "MATCH (n) RETURN n LIMIT 1"}))
    assert names == TOOLS
    assert refused.is_error and "read_cypher" in refused.content[0].text


def test_stdio_server_started_by_the_client_lists_and_runs_tools(search_store: GraphStore) -> None:
    s = search_store.settings
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "DRIFTLENS_GRAPH_PATH": str(s.embedded_graph_path),
        "DRIFTLENS_DATA_DIR": str(s.data_dir),
        "DRIFTLENS_PROJECT": SEARCH_PROJECT,
    }
    if s.neo4j_uri:
        password = s.neo4j_password.get_secret_value() if s.neo4j_password else ""
        env |= {"NEO4J_URI": s.neo4j_uri, "NEO4J_USERNAME": s.neo4j_username, "NEO4J_PASSWORD": password}
    server = StdioServerParameters(command=sys.executable, args=["-m", "retrieval", "mcp"], env=env, cwd=s.data_dir)
    names, (communities,) = calls(server, ("list_communities", {}))
    assert names == TOOLS, "read_cypher is off by default here too"
    # No project_id: every project (the seed's "not scoped"), not DRIFTLENS_PROJECT as before issue #28.
    assert communities.structured_content["projectId"] is None
    assert {c["id"] for c in communities.structured_content["communities"]} == {"k0", "k1", "k2"}
