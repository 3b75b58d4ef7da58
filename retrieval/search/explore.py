"""Graph-explorer reads: neighbourhoods, node details, the community tree, evidence graphs, user Cypher.

Why a module of its own: the app's pages and components never write Cypher (docs/architecture.md), and these
reads are what an analyst browsing the graph needs. They return plain `Subgraph`/`NodeDetails` records,
so any front end (Streamlit, a notebook, an HTTP service) can draw them. Neighbourhoods reuse
`search.expand` (the same expansion local search uses), so what the explorer shows is what retrieval sees.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from retrieval.context import Context
from retrieval.models import Hit, Lines, QueryParams
from retrieval.search.expand import expand
from retrieval.search.patterns import entity_props, mention, related
from retrieval.store.labels import Labels

#: Properties never worth showing (vectors are hundreds of floats; relations are raw extraction JSON).
_HIDDEN = frozenset({"embedding", "relations"})
#: Longest text shown per property value in the side panel.
_MAX_VALUE_CHARS = 2000


@dataclass(frozen=True)
class GraphNode:
    """A node to draw: `kind` is entity/chunk/community/document/other; `group` is the type for entities."""

    id: str
    label: str
    kind: str = "entity"
    group: str = ""
    community: str = ""
    degree: int = 0
    description: str = ""


@dataclass(frozen=True)
class GraphEdge:
    source: str
    target: str
    label: str = ""
    weight: float = 1.0
    #: The source says source -> target (an LLM's statement); False for co-occurrence and other links.
    directed: bool = False


@dataclass
class Subgraph:
    """Nodes and edges to draw. `cut` counts nodes known to be left out by a cap; `truncated` says that
    more nodes were within reach than the cap allowed (the expansion stops before counting them all)."""

    nodes: list[GraphNode] = field(default_factory=list)
    edges: list[GraphEdge] = field(default_factory=list)
    cut: int = 0
    truncated: bool = False
    hidden_edges: int = 0

    def ids(self) -> set[str]:
        return {n.id for n in self.nodes}


@dataclass(frozen=True)
class NodeDetails:
    id: str
    kind: str
    title: str
    description: str
    properties: dict[str, Any]
    chunks: list[Hit]
    #: Other names merged into this entity and why (the raw lists: `properties` holds them as display text).
    aliases: tuple[str, ...] = ()
    merge_reasons: tuple[str, ...] = ()


@dataclass(frozen=True)
class CommunityNode:
    id: str
    parent: str
    level: int
    title: str
    size: int
    rank: float


@dataclass(frozen=True)
class CommunityDetail:
    community: CommunityNode
    summary: str
    members: list[GraphNode]
    children: list[CommunityNode]


@dataclass(frozen=True)
class CypherResult:
    rows: list[dict[str, Any]]
    graph: Subgraph
    truncated: bool


def _p(ctx: Context, **extra: Any) -> dict[str, Any]:
    return {"project": ctx.project, **extra}


def _entity_nodes(ctx: Context, ids: Sequence[str]) -> list[GraphNode]:
    """Entities with their type, level-0 community and RELATED degree, in the order of `ids`."""
    if not ids:
        return []
    lab = Labels.of(ctx.settings)
    rows = ctx.store.read(
        f"MATCH (e:{lab.entity}) WHERE e.id IN $ids AND {ctx.in_scope('e')} "
        f"OPTIONAL MATCH (e)-[:IN_COMMUNITY]->(k:{lab.community}) "
        "WITH e, min(k.id) AS community "
        f"OPTIONAL MATCH (e)-[r:{related(ctx.settings)}]-(:{lab.entity}) "
        f"RETURN e.id AS id, {entity_props(ctx.settings)}, "
        "community, count(r) AS degree",
        _p(ctx, ids=list(ids)),
    )
    by_id = {
        r["id"]: GraphNode(
            id=r["id"],
            label=str(r["title"] or r["id"]),
            kind="entity",
            group=str(r["type"] or ""),
            community=str(r["community"] or ""),
            degree=int(r["degree"] or 0),
            description=str(r["description"] or ""),
        )
        for r in rows
    }
    return [by_id[i] for i in ids if i in by_id]


def _related_among(ctx: Context, ids: Sequence[str]) -> list[GraphEdge]:
    if len(ids) < 2:
        return []
    lab = Labels.of(ctx.settings)
    rows = ctx.store.read(
        f"MATCH (a:{lab.entity})-[r:{related(ctx.settings)}]->(b:{lab.entity}) WHERE a.id IN $ids AND b.id IN $ids "
        "RETURN a.id AS source, b.id AS target, coalesce(r.description, type(r)) AS description, r.weight AS weight, "
        "r.directed AS directed",
        {"ids": list(ids)},
    )
    return [
        GraphEdge(
            r["source"],
            r["target"],
            _short(str(r["description"] or "")),
            float(r["weight"] or 1.0),
            bool(r["directed"]),
        )
        for r in rows
    ]


def _short(text: str, limit: int = 40) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def neighbourhood(ctx: Context, seed_ids: Sequence[str], params: QueryParams, cap: int) -> Subgraph:
    """Entities within `params.max_hops` of the seeds (via search.expand), never more than `cap` nodes.

    Seeds come first and are always kept; the expansion's own ranking decides who else fits.
    """
    seeds = list(dict.fromkeys(seed_ids))
    if not seeds:
        return Subgraph()
    expansion = expand(ctx, seeds, params.model_copy(update={"max_nodes": max(cap, len(seeds))}), chunk_limit=0)
    ranked = list(dict.fromkeys([*seeds, *(e.id for e in expansion.entities)]))
    kept = ranked[:cap]
    nodes = _entity_nodes(ctx, kept)
    cut = len(ranked) - len(kept)
    return Subgraph(nodes, _related_among(ctx, [n.id for n in nodes]), cut, expansion.truncated or cut > 0)


def merge(
    views: Iterable[Subgraph], cap: int, keep_first: Sequence[str] = (), max_edges: int | None = None
) -> Subgraph:
    """Union of several neighbourhoods (click-to-expand), capped: earlier views and `keep_first` win.

    `max_edges` thins the relations to the strongest ones (see `strongest_edges`)."""
    nodes: dict[str, GraphNode] = {}
    candidates: dict[str, GraphNode] = {}
    edges: dict[tuple[str, str], GraphEdge] = {}
    cut = 0
    truncated = False
    for view in views:
        cut += view.cut
        truncated = truncated or view.truncated
        for node in view.nodes:
            candidates.setdefault(node.id, node)
        for edge in view.edges:
            edges.setdefault((edge.source, edge.target), edge)
    for node_id in keep_first:
        if node_id in candidates:
            nodes[node_id] = candidates[node_id]
    for node_id, node in candidates.items():
        if len(nodes) >= cap:
            break
        nodes.setdefault(node_id, node)
    cut += len(candidates) - len(nodes)
    kept = [e for e in edges.values() if e.source in nodes and e.target in nodes]
    shown = strongest_edges(kept, max_edges) if max_edges is not None else kept
    return Subgraph(list(nodes.values()), shown, cut, truncated or cut > 0, len(kept) - len(shown))


def strongest_edges(edges: Sequence[GraphEdge], limit: int) -> list[GraphEdge]:
    """At most `limit` edges: each node's strongest edge first (nobody is left floating), then by weight.

    Why: a dense neighbourhood (300 nodes, 2,000 relations) is a hairball to read and slow to draw.
    """
    ranked = sorted(edges, key=lambda e: -e.weight)
    chosen: dict[tuple[str, str], GraphEdge] = {}
    covered: set[str] = set()
    for edge in ranked:
        if len(chosen) >= limit:
            break
        if edge.source not in covered or edge.target not in covered:
            chosen[(edge.source, edge.target)] = edge
            covered.update((edge.source, edge.target))
    for edge in ranked:
        if len(chosen) >= limit:
            break
        chosen.setdefault((edge.source, edge.target), edge)
    return list(chosen.values())


def node_details(ctx: Context, node_id: str, max_chunks: int = 5) -> NodeDetails | None:
    """Properties (no vectors), description and the source chunks of any node the explorer shows."""
    lab = Labels.of(ctx.settings)
    rows = ctx.store.read(
        f"MATCH (n) WHERE n.id = $id AND {ctx.in_scope('n')} RETURN n AS node, labels(n) AS labels LIMIT 1",
        _p(ctx, id=node_id),
    )
    if not rows:
        return None
    props = {k: v for k, v in rows[0]["node"].items() if k not in _HIDDEN and not k.startswith("_")}
    kind = _kind(ctx, rows[0]["labels"] or [])
    chunk_rows = ctx.store.read(
        f"MATCH {mention(ctx.settings, f'(c:{lab.chunk})', '(e {id: $id})', 'm')} "
        f"RETURN c.id AS id, c.{lab.text} AS text, c.document_name AS document, m.evidence AS evidence "
        "ORDER BY m.count DESC LIMIT $k",
        {"id": node_id, "k": max_chunks},
    )
    chunks = [
        Hit(id=r["id"], text=str(r["text"] or ""), document_name=r["document"], metadata={"evidence": r["evidence"]})
        for r in chunk_rows
    ]
    shown = {k: _display(v) for k, v in sorted(props.items())}
    title = str(props.get("title") or props.get("name") or node_id)
    description = str(props.get("description") or props.get("summary") or "")
    return NodeDetails(
        node_id,
        kind,
        title,
        description,
        shown,
        chunks,
        _strings(props.get("aliases")),
        _strings(props.get("merge_reasons")),
    )


def _strings(value: Any) -> tuple[str, ...]:
    """A list property's non-empty items as text; anything else (absent, a scalar) as none."""
    return tuple(str(v) for v in value if str(v)) if isinstance(value, (list, tuple)) else ()


def _kind(ctx: Context, labels: Iterable[str]) -> str:
    s = ctx.settings
    names = {
        s.entity_label: "entity",
        s.chunk_label: "chunk",
        s.community_label: "community",
        s.document_label: "document",
    }
    return next((names[label] for label in labels if label in names), "other")


def _display(value: Any) -> Any:
    if isinstance(value, str) and len(value) > _MAX_VALUE_CHARS:
        return value[: _MAX_VALUE_CHARS - 1] + "…"
    if isinstance(value, (list, dict)):
        text = json.dumps(value, default=str)
        return text if len(text) <= _MAX_VALUE_CHARS else text[: _MAX_VALUE_CHARS - 1] + "…"
    return value


def community_tree(ctx: Context) -> list[CommunityNode]:
    """Every community of the project with its parent ("" for roots), level, title, size and rank."""
    lab = Labels.of(ctx.settings)
    rows = ctx.store.read(
        f"MATCH (k:{lab.community}) WHERE {ctx.in_scope('k')} "
        f"OPTIONAL MATCH (k)-[:IN_COMMUNITY]->(parent:{lab.community}) "
        "RETURN k.id AS id, parent.id AS parent, k.level AS level, k.title AS title, k.size AS size, k.rank AS rank "
        "ORDER BY level DESC, id",
        _p(ctx),
    )
    return [
        CommunityNode(
            id=r["id"],
            parent=str(r["parent"] or ""),
            level=int(r["level"] or 0),
            title=str(r["title"] or r["id"]),
            size=int(r["size"] or 0),
            rank=float(r["rank"] or 0.0),
        )
        for r in rows
    ]


def community_detail(ctx: Context, community_id: str, max_members: int = 200) -> CommunityDetail | None:
    """A community's summary, its member entities (all levels below it) and its child communities."""
    tree = {c.id: c for c in community_tree(ctx)}
    node = tree.get(community_id)
    if node is None:
        return None
    lab = Labels.of(ctx.settings)
    rows = ctx.store.read(f"MATCH (k:{lab.community} {{id: $id}}) RETURN k.summary AS summary", {"id": community_id})
    leaves = _leaf_communities(community_id, tree)
    member_rows = ctx.store.read(
        f"MATCH (e:{lab.entity})-[:IN_COMMUNITY]->(k:{lab.community}) WHERE k.id IN $ids RETURN e.id AS id LIMIT $k",
        {"ids": leaves, "k": max_members},
    )
    members = sorted(_entity_nodes(ctx, [r["id"] for r in member_rows]), key=lambda n: -n.degree)
    children = [c for c in tree.values() if c.parent == community_id]
    return CommunityDetail(node, str(rows[0]["summary"] or "") if rows else "", members, children)


def _leaf_communities(root: str, tree: Mapping[str, CommunityNode]) -> list[str]:
    """Level-0 communities under `root` (entities link to level 0 only)."""
    children: dict[str, list[str]] = {}
    for c in tree.values():
        children.setdefault(c.parent, []).append(c.id)
    out, todo = [], [root]
    while todo:
        current = todo.pop()
        kids = children.get(current, [])
        if kids:
            todo.extend(kids)
        else:
            out.append(current)
    return out


def chunks(ctx: Context, chunk_ids: Sequence[str]) -> dict[str, Hit]:
    """Chunk texts by id (citations whose chunk is not in an answer's evidence list)."""
    if not chunk_ids:
        return {}
    lab = Labels.of(ctx.settings)
    rows = ctx.store.read(
        f"MATCH (c:{lab.chunk}) WHERE c.id IN $ids AND {ctx.in_scope('c')} "
        f"RETURN c.id AS id, c.{lab.text} AS text, c.document_name AS document, c.document_id AS document_id, "
        "c.path AS path, c.line_start AS line_start, c.line_end AS line_end",
        _p(ctx, ids=list(chunk_ids)),
    )
    return {
        r["id"]: Hit(
            id=r["id"],
            text=str(r["text"] or ""),
            document_name=r["document"],
            document_id=r["document_id"],
            lines=Lines.of(r),
        )
        for r in rows
    }


def evidence_graph(ctx: Context, chunk_ids: Sequence[str], max_entities: int = 60) -> Subgraph:
    """Cited chunks, the entities they mention (most mentioned first, capped) and the relations among those."""
    ids = list(dict.fromkeys(chunk_ids))
    if not ids:
        return Subgraph()
    lab = Labels.of(ctx.settings)
    rows = ctx.store.read(
        f"MATCH {mention(ctx.settings, f'(c:{lab.chunk})', f'(e:{lab.entity})', 'm')} "
        f"WHERE c.id IN $ids AND {ctx.in_scope('c')} "
        "RETURN c.id AS chunk, c.document_name AS document, c.n AS n, e.id AS entity, m.count AS count "
        "ORDER BY count DESC",
        _p(ctx, ids=ids),
    )
    chunk_nodes = {
        r["chunk"]: GraphNode(r["chunk"], f"{r['document']} #{r['n']}", kind="chunk", group="chunk") for r in rows
    }
    for chunk_id in ids:
        chunk_nodes.setdefault(chunk_id, GraphNode(chunk_id, chunk_id, kind="chunk", group="chunk"))
    entity_ids = list(dict.fromkeys(r["entity"] for r in rows))
    kept = entity_ids[:max_entities]
    entities = _entity_nodes(ctx, kept)
    kept_set = {e.id for e in entities}
    mentions = [GraphEdge(r["chunk"], r["entity"], "mentions") for r in rows if r["entity"] in kept_set]
    cut = len(entity_ids) - len(kept)
    return Subgraph(
        [*chunk_nodes.values(), *entities], [*mentions, *_related_among(ctx, [e.id for e in entities])], cut, cut > 0
    )


def example_cypher(ctx: Context) -> str:
    """A first query for the Cypher box that works on this graph's labels."""
    entity = Labels.of(ctx.settings).entity
    return f"MATCH (a:{entity})-[r:{related(ctx.settings)}]->(b:{entity}) RETURN a, r, b LIMIT 25"


def run_cypher(ctx: Context, cypher: str, limit: int = 200) -> CypherResult:
    """Run analyst or model Cypher through the store's read-only path (a write raises ReadOnlyViolation), stopped
    after Settings.cypher_timeout_ms.

    Rows are cleaned for display (no vectors); nodes found in a row become graph nodes, and
    consecutive nodes of a row are joined by an edge named after the relationship between them.
    """
    # The server stops at limit + 1 rows.
    rows = ctx.store.read_limited(cypher, limit + 1, timeout_ms=ctx.settings.cypher_timeout_ms)
    truncated = len(rows) > limit
    shown = [{k: _clean(v) for k, v in row.items()} for row in rows[:limit]]
    return CypherResult(shown, _rows_graph(ctx, rows[:limit]), truncated)


def _clean(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items() if k not in _HIDDEN}
    if isinstance(value, list) and len(value) > 32 and all(isinstance(v, float) for v in value):
        return f"[{len(value)} floats]"
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


def _rows_graph(ctx: Context, rows: Sequence[Mapping[str, Any]]) -> Subgraph:
    nodes: dict[str, GraphNode] = {}
    edges: dict[tuple[str, str], GraphEdge] = {}
    for row in rows:
        previous: str | None = None
        relation = ""
        for value in row.values():
            if not (isinstance(value, dict) and "_labels" in value):
                continue
            if "id" not in value:
                relation = str((value["_labels"] or [""])[0])
                continue
            node_id = str(value["id"])
            kind = _kind(ctx, value["_labels"])
            nodes.setdefault(
                node_id,
                GraphNode(
                    node_id,
                    str(value.get("title") or value.get("name") or node_id),
                    kind=kind,
                    group=str(value.get("type") or kind),
                ),
            )
            if previous and previous != node_id:
                edges.setdefault((previous, node_id), GraphEdge(previous, node_id, relation))
            previous, relation = node_id, ""
    return Subgraph(list(nodes.values()), list(edges.values()))
