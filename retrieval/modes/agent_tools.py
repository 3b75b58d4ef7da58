"""The agent mode's view of the graph: a schema summary for the prompt and the tools the model may call.

Why: the model writes its own Cypher, so it must see what exists (labels, relationship types, properties,
counts) and every tool must be safe to call with anything — Cypher runs read-only with a row cap and a
timeout, and every failure comes back as a tool result the model can read and correct, never as an
exception that ends the run. Everything a tool returns is remembered so the answer can cite it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from retrieval.context import Context
from retrieval.errors import DriftLensError
from retrieval.models import Citation, Lines, QueryParams
from retrieval.modes.agent_args import (
    DEFAULT_SEARCH_LIMIT,
    ExecuteCypherArgs,
    ExpandNodeArgs,
    InvalidArguments,
    VectorSearchArgs,
    parse_arguments,
)
from retrieval.search.explore import run_cypher
from retrieval.store.records import ident

#: Longest string a tool result carries per value: enough to read, not enough to flood the context.
MAX_VALUE_CHARS = 600

TOOL_SPECS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "execute_cypher",
            "description": "Run a read-only Cypher query on the knowledge graph. Rows are capped; writes are refused.",
            "parameters": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "Read-only Cypher, scoped as the instructions say"},
                    "reasoning": {"type": "string", "description": "why this query helps answer the question"},
                },
                "required": ["query", "reasoning"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "vector_search",
            "description": "Semantic search over text chunks; returns chunk ids, scores and text.",
            "parameters": {
                "type": "object",
                "properties": {
                    "search_text": {"type": "string"},
                    "limit": {"type": "integer", "minimum": 1, "default": DEFAULT_SEARCH_LIMIT},
                },
                "required": ["search_text"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "expand_node",
            "description": "Nodes within `depth` hops of a node id, optionally only over the given relationship types.",
            "parameters": {
                "type": "object",
                "properties": {
                    "node_id": {"type": "string"},
                    "relationship_types": {"type": "array", "items": {"type": "string"}},
                    "depth": {"type": "integer", "minimum": 1, "maximum": 3},
                },
                "required": ["node_id"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "submit_answer",
            "description": "Finish: the answer, a confidence in [0, 1] and the ids of nodes/chunks supporting it.",
            "parameters": {
                "type": "object",
                "properties": {
                    "answer": {"type": "string"},
                    "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                    "supporting_evidence": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {"id": {"type": "string"}, "quote": {"type": "string"}},
                            "required": ["id"],
                        },
                    },
                },
                "required": ["answer", "confidence", "supporting_evidence"],
            },
        },
    },
]


@dataclass(frozen=True)
class Seen:
    """A node or chunk some tool returned: what a citation may point at."""

    id: str
    kind: str  # "chunk" | "node"
    text: str
    document_name: str = ""
    score: float | None = None
    lines: Lines | None = None


@dataclass
class ToolResult:
    """What goes back to the model (`payload`, JSON-serialisable) and the chunk ids it contained."""

    payload: Any
    chunk_ids: list[str] = field(default_factory=list)
    error: str = ""

    def content(self) -> str:
        return json.dumps({"error": self.error} if self.error else self.payload, default=str)


# --- schema ------------------------------------------------------------------------------------
def schema_summary(ctx: Context, sample: int = 100) -> str:
    """Labels with node counts and properties, relationship types with counts and endpoint labels."""
    store = ctx.store
    lines = [f"Scope: {ctx.scope_description}", "Node labels:"]
    labels = sorted(str(r["label"]) for r in store.read("CALL db.labels() YIELD label RETURN label"))
    for label in labels:
        name = ident(label)
        count = store.read(f"MATCH (n:{name}) RETURN count(n) AS c")[0]["c"]
        keys = store.read(
            f"MATCH (n:{name}) WITH n LIMIT $k UNWIND keys(n) AS key RETURN DISTINCT key ORDER BY key", {"k": sample}
        )
        props = [str(r["key"]) for r in keys if r["key"] != ctx.settings.embedding_property]
        lines.append(f"- {label} ({count} nodes): {', '.join(props)}")
    lines.append("Relationship types:")
    types = sorted(
        str(r["relationshipType"])
        for r in store.read("CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType")
    )
    for rel in types:
        name = ident(rel)
        count = store.read(f"MATCH ()-[r:{name}]->() RETURN count(r) AS c")[0]["c"]
        ends = store.read(
            f"MATCH (a)-[r:{name}]->(b) WITH a, b LIMIT $k RETURN DISTINCT labels(a)[0] AS src, labels(b)[0] AS dst",
            {"k": sample},
        )
        patterns = ", ".join(f"(:{r['src']})-[:{rel}]->(:{r['dst']})" for r in ends)
        lines.append(f"- {rel} ({count}): {patterns}")
    return "\n".join(lines)


# --- tools -------------------------------------------------------------------------------------
class AgentTools:
    """Runs the model's tool calls against one project; `seen` collects every node and chunk returned."""

    def __init__(self, ctx: Context, params: QueryParams, *, row_limit: int) -> None:
        self.ctx = ctx
        self.params = params
        self.row_limit = row_limit
        self.seen: dict[str, Seen] = {}

    def call(self, name: str, arguments: Mapping[str, Any]) -> ToolResult:
        """Dispatch one call; unknown tools, ill-typed arguments and database errors become error results."""
        handlers: dict[str, Callable[[Any], ToolResult]] = {
            "execute_cypher": self.execute_cypher,
            "vector_search": self.vector_search,
            "expand_node": self.expand_node,
        }
        handler = handlers.get(name)
        if handler is None:
            return ToolResult(None, error=f"unknown tool {name!r}; use one of {', '.join(sorted(handlers))}")
        try:
            return handler(parse_arguments(name, arguments))
        except (InvalidArguments, DriftLensError) as exc:
            return ToolResult(None, error=str(exc))

    def execute_cypher(self, args: ExecuteCypherArgs) -> ToolResult:
        result = run_cypher(self.ctx, args.query, limit=self.row_limit)
        rows = [{k: self._value(v) for k, v in row.items()} for row in result.rows]
        payload: dict[str, Any] = {"rows": rows, "row_count": len(rows)}
        if result.truncated:
            payload["truncated"] = f"only the first {self.row_limit} rows are shown; add LIMIT or aggregate"
        return ToolResult(payload, self._chunk_ids_in(rows))

    def vector_search(self, args: VectorSearchArgs) -> ToolResult:
        from retrieval.search.hybrid import search_chunks

        params = self.params.model_copy(update={"search_type": "vector", "top_k": args.limit})
        hits = search_chunks(self.ctx, args.search_text, params)
        payload = []
        for hit in hits:
            self.seen[hit.id] = Seen(hit.id, "chunk", hit.text, hit.document_name or "", hit.score, hit.lines)
            payload.append(
                {"id": hit.id, "score": round(hit.score, 3), "document": hit.document_name, "text": _cut(hit.text)}
            )
        return ToolResult(payload, [h.id for h in hits])

    def expand_node(self, args: ExpandNodeArgs) -> ToolResult:
        node_id, hops, types = args.node_id, args.depth, args.relationship_types
        type_filter = "AND all(r IN relationships(p) WHERE type(r) IN $types) " if types else ""
        rows = self.ctx.store.read(
            f"MATCH p = (n)-[*1..{hops}]-(m) WHERE n.id = $id AND {self.ctx.in_scope('n')} "
            f"AND {self.ctx.in_scope('m')} AND m.id <> $id {type_filter}"
            "WITH m, [r IN relationships(p) | type(r)] AS via, length(p) AS hops ORDER BY hops "
            "RETURN m AS node, labels(m) AS labels, collect(via)[0] AS via, min(hops) AS hops LIMIT $limit",
            {"id": node_id, "project": self.ctx.project, "types": types, "limit": self.row_limit},
            timeout_ms=self.ctx.settings.cypher_timeout_ms,  # the model chose the depth: its reads, its limit
        )
        if not rows:
            return ToolResult({"node_id": node_id, "neighbours": [], "note": "no such node or no neighbours"})
        neighbours = [
            {"node": self._value({**r["node"], "_labels": r["labels"]}), "via": r["via"], "hops": r["hops"]}
            for r in rows
        ]
        return ToolResult({"node_id": node_id, "neighbours": neighbours}, self._chunk_ids_in(neighbours))

    # --- evidence -------------------------------------------------------------------------------
    def citation(self, evidence_id: str, quote: str = "") -> Citation | None:
        """A citation for an id a tool returned; the span is the quote only when it really occurs in the text."""
        seen = self.seen.get(evidence_id)
        if seen is None:
            return None
        span = quote if quote and quote in seen.text else _cut(seen.text, 200)
        return Citation(
            chunk_id=seen.id,
            span=span,
            document_name=seen.document_name,
            score=seen.score,
            kind="chunk" if seen.kind == "chunk" else "node",
            lines=seen.lines,
        )

    def _value(self, value: Any) -> Any:
        """Shorten for the model and remember every node (dict with `_labels` and `id`) as citable."""
        if isinstance(value, dict):
            if "_labels" in value and "id" in value:
                self._remember(value)
            return {k: self._value(v) for k, v in value.items() if k != self.ctx.settings.embedding_property}
        if isinstance(value, list):
            return [self._value(v) for v in value]
        return _cut(value) if isinstance(value, str) else value

    def _remember(self, node: Mapping[str, Any]) -> None:
        s = self.ctx.settings
        is_chunk = s.chunk_label in (node.get("_labels") or [])
        text = str(node.get(s.text_property) or node.get("description") or node.get("summary") or "")
        title = str(node.get("title") or node.get("name") or "")
        if not is_chunk and title and title not in text:
            text = f"{title}: {text}" if text else title
        node_id = str(node["id"])
        document = str(node.get("document_name") or "")
        self.seen.setdefault(node_id, Seen(node_id, "chunk" if is_chunk else "node", text, document))

    def _chunk_ids_in(self, value: Any) -> list[str]:
        found: list[str] = []
        if isinstance(value, dict):
            if value.get("id") in self.seen and self.seen[str(value["id"])].kind == "chunk":
                found.append(str(value["id"]))
            for inner in value.values():
                found += self._chunk_ids_in(inner)
        elif isinstance(value, list):
            for inner in value:
                found += self._chunk_ids_in(inner)
        return list(dict.fromkeys(found))


def _cut(text: str, limit: int = MAX_VALUE_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
