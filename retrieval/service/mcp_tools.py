"""MCP tools for agents (the official MCP Python SDK): the HTTP API's answers as tools.

Served two ways: streamable HTTP at `/mcp` on the HTTP service's app, and stdio (`python -m retrieval mcp`) for
clients that start the server themselves. Each tool returns the same JSON as the matching HTTP endpoint, runs
through the same gate (concurrency, timeout) and never writes to the graph. A failure the caller can act on
(unknown project, a writing or bad Cypher query, a busy service) comes back as a tool error with its message.

`read_cypher` is listed only when the operator turns it on (DRIFTLENS_API_RAW_CYPHER): Cypher cannot be confined to
one project, so the tool reads the whole graph, and its description says so.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import ValidationError

from retrieval.errors import DriftLensError
from retrieval.models import Mode
from retrieval.service import handlers, schemas
from retrieval.service.limits import Busy, TimedOut
from retrieval.service.state import Service
from retrieval.text.redact import redact

log = logging.getLogger("driftlens.service")

INSTRUCTIONS = (
    "DriftLens answers questions over a knowledge graph built from documents. search_graph returns the matching "
    "entities, their drift-scored neighbours and evidence chunks; ask_graph writes a cited answer (modes local, "
    "global, drift, agent); expand_entity walks around one entity; list_communities shows the topic clusters; "
    "list_documents lists what was indexed. Without project_id a tool reads every project in the graph; with it, "
    "that project only."
)
RAW_CYPHER_INSTRUCTIONS = (
    " read_cypher runs read-only Cypher over the whole graph, every project in it (row-capped, time-limited)."
)


def build_mcp(get_service: Callable[[], Service], *, raw_cypher: bool = False) -> MCPServer:
    """The MCP server; `get_service` returns the running service (created at start-up, after this is built).

    `raw_cypher` (the api_raw_cypher setting) adds the read_cypher tool."""
    server: MCPServer = MCPServer(
        "driftlens", instructions=INSTRUCTIONS + (RAW_CYPHER_INSTRUCTIONS if raw_cypher else "")
    )

    async def call(work: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        svc = get_service()
        try:
            return await svc.gate.run(lambda: work(svc.engine, *args, **kwargs))
        except (DriftLensError, Busy, TimedOut) as exc:
            raise ToolError(redact(str(exc))) from None

    @server.tool()
    async def search_graph(
        query: str,
        *,
        project_id: str | None = None,
        k: int = 10,
        max_hops: int = 2,
        max_nodes: int = 100,
        drift_budget: float | None = None,
    ) -> dict[str, Any]:
        """Entities matching the query, their neighbours with drift scores and hop, and the evidence documents."""
        try:
            request = schemas.SearchRequest.model_validate(
                {
                    "projectId": project_id,
                    "query": query,
                    "local": {"k": k},
                    "drift": {"maxHops": max_hops, "maxNodes": max_nodes, "driftBudget": drift_budget},
                }
            )
        except ValidationError as exc:
            raise ToolError(_problems(exc)) from None
        result: schemas.SearchResponse = await call(handlers.search, request)
        return result.model_dump(mode="json", by_alias=True)

    @server.tool()
    async def ask_graph(query: str, mode: Mode = "local", project_id: str | None = None) -> dict[str, Any]:
        """A cited answer in one mode: local, global, drift or agent (the project's Answer JSON)."""
        try:
            request = schemas.AskRequest.model_validate({"query": query, "mode": mode, "projectId": project_id})
        except ValidationError as exc:
            raise ToolError(_problems(exc)) from None
        return schemas.answer_json(await call(handlers.ask, request), include_trace=False)

    @server.tool()
    async def expand_entity(
        entity_id: str, project_id: str | None = None, max_hops: int = 1, max_nodes: int = 50
    ) -> dict[str, Any]:
        """An entity's neighbourhood over RELATED: neighbours with drift score and hop, and the relations used."""
        if not 0 <= max_hops <= 5 or not 1 <= max_nodes <= 5000:
            raise ToolError("max_hops must be 0..5 and max_nodes 1..5000.")
        result: dict[str, Any] = await call(
            handlers.expand_entity, entity_id, project_id=project_id, max_hops=max_hops, max_nodes=max_nodes
        )
        return result

    async def read_cypher(cypher: str) -> dict[str, Any]:
        """Run read-only Cypher over the WHOLE graph: every project in it, not one. A query is not confined to a
        project; to read one, filter on the `projectId` property every node carries. Writes are refused, rows are
        capped and the query is time-limited."""
        limits = get_service().settings
        result: dict[str, Any] = await call(handlers.read_cypher, cypher, max_rows=limits.api_cypher_max_rows)
        return result

    if raw_cypher:
        log.warning("read_cypher is on (DRIFTLENS_API_RAW_CYPHER): MCP clients can read every project in the graph")
        server.add_tool(read_cypher)

    @server.tool()
    async def list_communities(project_id: str | None = None, level: int | None = None) -> dict[str, Any]:
        """The project's communities (topic clusters) with parent, level, title, size and rank."""
        result: dict[str, Any] = await call(handlers.list_communities, project_id=project_id, level=level)
        return result

    @server.tool()
    async def list_documents(project_id: str | None = None, limit: int = schemas.DEFAULT_DOCUMENTS) -> dict[str, Any]:
        """The project's documents: title, path, source, size, chunks, entities, when indexed, content hash, and
        what the last indexing run did to each (indexed, updated, unchanged, failed or skipped, with the reason)."""
        result: schemas.DocumentsResponse = await call(handlers.list_documents, project_id=project_id, limit=limit)
        return result.model_dump(mode="json", by_alias=True)

    return server


def _problems(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in exc.errors())
