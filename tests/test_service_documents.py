"""`GET /v1/documents` and the MCP tool `list_documents` over the real indexer's graph: one handler, the same
JSON, bounded arguments."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from mcp import Client

from retrieval.config import Settings
from retrieval.embed import Embedder
from retrieval.store import GraphStore
from tests.backends import Occupant
from tests.conftest import CAROL_EXCERPTS, CAROL_PROJECT
from tests.service_server import service


@pytest.fixture(scope="module")
def url(carol_graph: tuple[Settings, GraphStore, Embedder]) -> Iterator[str]:
    with service(carol_graph[1]) as base:
        yield base


def mcp_call(url: str, tool: str, arguments: dict[str, Any]) -> Any:
    async def run() -> Any:
        async with Client(f"{url}/mcp") as client:
            return await client.call_tool(tool, arguments)

    return asyncio.run(run())


def test_documents_are_listed_with_counts_hash_source_and_status(
    url: str, carol_graph: tuple[Settings, GraphStore, Embedder]
) -> None:
    store = carol_graph[1]
    Occupant.ensure(store)
    reply = httpx.get(f"{url}/v1/documents", params={"projectId": CAROL_PROJECT}, timeout=60)
    assert reply.status_code == 200, reply.text
    body = reply.json()
    assert body["projectId"] == CAROL_PROJECT and body["total"] == 2 and not body["truncated"]
    assert [d["path"] for d in body["documents"]] == sorted(f"docs/{name}" for name, _f, _l in CAROL_EXCERPTS)
    chunks = store.query("MATCH (c:__Chunk__ {projectId: $p}) RETURN count(c) AS n", {"p": CAROL_PROJECT})[0]["n"]
    assert sum(d["chunks"] for d in body["documents"]) == chunks
    for doc in body["documents"]:
        assert doc["status"] == "indexed" and doc["reason"] == ""
        assert doc["entities"] > 0 and doc["size"] > 1000 and len(doc["contentHash"]) == 64
        assert doc["source"].endswith("/docs") and doc["indexedAt"].startswith("20")
        assert doc["projectId"] == CAROL_PROJECT

    mcp = mcp_call(url, "list_documents", {"project_id": CAROL_PROJECT})
    assert not mcp.is_error and mcp.structured_content == body

    first = httpx.get(f"{url}/v1/documents", params={"projectId": CAROL_PROJECT, "limit": 1}, timeout=60).json()
    assert first["documents"] == body["documents"][:1] and first["truncated"] and first["total"] == 2


@pytest.mark.parametrize(
    ("params", "where"),
    [({"projectId": "nope"}, "Unknown projectId"), ({"limit": 0}, "limit"), ({"limit": 10**6}, "limit")],
)
def test_bad_arguments_are_422(url: str, params: dict[str, Any], where: str) -> None:
    reply = httpx.get(f"{url}/v1/documents", params=params, timeout=60)
    assert reply.status_code == 422 and where in reply.text


def test_mcp_tool_refuses_an_unbounded_limit(url: str) -> None:
    result = mcp_call(url, "list_documents", {"limit": 10**6})
    assert result.is_error and "limit must be" in result.content[0].text
