"""Neighbourhood expansion over RELATED from seed entities, with the chunks that mention what it reaches.

Why this scoring ("drift score"): a breadth-first walk reaches hubs first ("the company", "AI"),
and hubs connect everything to everything, so every step multiplies relevance by the edge's
strength and divides it by a logarithmic degree penalty; a hub can be reached but spreads little.
Recently updated nodes get a bounded boost (`recency_weight`). Each node is visited once
(global uniqueness) and the walk stops at `max_nodes`, keeping the best-scoring candidates when
a hop offers more than fit. Chunks mentioning the reached entities come back as evidence, scored
by the entities they mention, each weighted by how specific it is (mentioned by few chunks).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from retrieval.context import Context
from retrieval.models import Hit, QueryParams
from retrieval.store.base import ident

#: Relevance kept per hop before edge strength and degree penalty.
HOP_DECAY = 0.5
#: Neighbours read per frontier node (strongest edges first): bounds the cost of stepping onto a hub.
NEIGHBOURS_PER_NODE = 200
#: Chunks read per reached entity; a hub's thousands of mentions say little about this question.
CHUNKS_PER_ENTITY = 25
#: Evidence comes from the best-scoring reached entities only (the tail adds cost, not evidence).
EVIDENCE_ENTITIES = 30
#: Candidates beyond the free room whose degree is read before the cut (hubs fall out after the penalty).
SHORTLIST_MARGIN = 20


@dataclass
class Expansion:
    entities: list[Hit] = field(default_factory=list)
    relations: list[dict[str, Any]] = field(default_factory=list)
    chunks: list[Hit] = field(default_factory=list)
    truncated: bool = False


@dataclass
class _Node:
    id: str
    score: float
    hop: int
    props: dict[str, Any]
    degree: int = 0


def expand(
    ctx: Context,
    seed_entity_ids: list[str],
    params: QueryParams,
    *,
    seed_scores: Mapping[str, float] | None = None,
    chunk_limit: int | None = None,
) -> Expansion:
    """Entities within `params.max_hops` of the seeds (seeds first), their relations and evidence chunks."""
    seeds = list(dict.fromkeys(seed_entity_ids))
    if not seeds:
        return Expansion()
    walk = _Walk(ctx, params)
    walk.start(seeds, seed_scores or {})
    for hop in range(1, params.max_hops + 1):
        if not walk.step(hop):
            break
    nodes = walk.ranked()
    chunks = _evidence(
        ctx,
        sorted(nodes, key=lambda n: -n.score)[:EVIDENCE_ENTITIES],
        chunk_limit if chunk_limit is not None else params.top_k,
    )
    entities = [_entity_hit(n) for n in nodes]
    return Expansion(entities, walk.relations(), chunks, walk.truncated)


class _Walk:
    """BFS state: visited nodes with their scores, the frontier, and the edges used to reach each node."""

    def __init__(self, ctx: Context, params: QueryParams) -> None:
        self.ctx = ctx
        self.params = params
        self.label = ident(ctx.settings.entity_label)
        self.nodes: dict[str, _Node] = {}
        self.frontier: list[str] = []
        self.edges: dict[tuple[str, str], dict[str, Any]] = {}
        self.truncated = False

    def start(self, seeds: Sequence[str], scores: Mapping[str, float]) -> None:
        details = self._details(list(seeds)[: self.params.max_nodes], project_only=True)
        for node_id, (props, degree) in details.items():
            self.nodes[node_id] = _Node(node_id, float(scores.get(node_id, 1.0)), 0, props, degree)
        self.truncated = len(seeds) > self.params.max_nodes
        self.frontier = list(self.nodes)

    def step(self, hop: int) -> bool:
        """One hop outward; False when nothing new was reached or the cap is hit."""
        room = self.params.max_nodes - len(self.nodes)
        if not self.frontier or room <= 0:
            self.truncated = self.truncated or bool(self.frontier and room <= 0 and self._has_new_neighbours())
            return False
        candidates: dict[str, _Node] = {}
        via: dict[str, dict[str, Any]] = {}
        for row in self._neighbours(self.frontier):
            if row["id"] in self.nodes:
                continue
            parent = self.nodes[row["source"]]
            weight = float(row["weight"] if row["weight"] is not None else 1.0)
            score = parent.score * HOP_DECAY * weight / (weight + 1.0)
            best = candidates.get(row["id"])
            if best is None or score > best.score:
                candidates[row["id"]] = _Node(row["id"], score, hop, {})
                via[row["id"]] = {
                    "source": row["source"],
                    "target": row["id"],
                    "description": row["rel_description"] or "",
                    "weight": weight,
                }
        if not candidates:
            return False
        # Degrees are read only for the most promising candidates: a hop onto a hub can offer thousands.
        shortlist = sorted(candidates.values(), key=lambda n: -n.score)[: room + SHORTLIST_MARGIN]
        details = self._details([n.id for n in shortlist], project_only=False)
        for node in shortlist:
            node.props, node.degree = details.get(node.id, ({}, 0))
            node.score /= 1.0 + self.params.degree_penalty * math.log1p(node.degree)
        kept = sorted(shortlist, key=lambda n: -n.score)[:room]
        self.truncated = self.truncated or len(candidates) > len(kept)
        for node in kept:
            self.nodes[node.id] = node
            self.edges[(via[node.id]["source"], node.id)] = via[node.id]
        self.frontier = [n.id for n in kept]
        return True

    def _has_new_neighbours(self) -> bool:
        return any(row["id"] not in self.nodes for row in self._neighbours(self.frontier))

    def _neighbours(self, ids: Sequence[str]) -> list[dict[str, Any]]:
        """Strongest edges first, at most NEIGHBOURS_PER_NODE per node; scalars only (node maps are costly)."""
        return self.ctx.store.read(
            f"UNWIND $ids AS fid MATCH (a:{self.label} {{id: fid}})-[r:RELATED]-(b:{self.label}) "
            "WITH fid, r.weight AS weight, r.description AS description, b.id AS id ORDER BY weight DESC "
            "WITH fid, collect([id, weight, description])[0..$per] AS found UNWIND found AS f "
            "RETURN fid AS source, f[0] AS id, f[1] AS weight, f[2] AS rel_description",
            {"ids": list(ids), "per": NEIGHBOURS_PER_NODE},
        )

    def _details(self, ids: Sequence[str], *, project_only: bool) -> dict[str, tuple[dict[str, Any], int]]:
        """Properties and RELATED degree of nodes; seeds are checked against the project (the walk stays in it)."""
        if not ids:
            return {}
        where = "WHERE e.projectId = $project " if project_only else ""
        rows = self.ctx.store.read(
            f"UNWIND $ids AS id MATCH (e:{self.label} {{id: id}}) {where}OPTIONAL MATCH (e)-[r:RELATED]-() "
            "RETURN id, e.title AS title, e.type AS type, e.description AS description, "
            "e.updated_at AS updated_at, e.ingested_at AS ingested_at, count(r) AS degree",
            {"ids": list(ids), "project": self.ctx.project},
        )
        return {row["id"]: (row, int(row["degree"])) for row in rows}

    def ranked(self) -> list[_Node]:
        """Seeds first, then by drift score: relevance with the bounded recency boost."""
        recency = _recency({n.id: _timestamp(n.props) for n in self.nodes.values()})
        weight = self.params.recency_weight
        for node in self.nodes.values():
            node.score *= 1.0 + weight * recency.get(node.id, 0.0)
        return sorted(self.nodes.values(), key=lambda n: (n.hop > 0, -n.score))

    def relations(self) -> list[dict[str, Any]]:
        return list(self.edges.values())


def _timestamp(props: Mapping[str, Any]) -> float | None:
    for key in ("updated_at", "ingested_at"):
        value = props.get(key)
        if isinstance(value, (int, float)):
            return float(value)
        if isinstance(value, str):
            try:
                return datetime.fromisoformat(value).timestamp()
            except ValueError:
                continue
    return None


def _recency(stamps: Mapping[str, float | None]) -> dict[str, float]:
    """0 for the oldest (or undated) node, 1 for the newest: relative, so no clock or half-life to tune."""
    known = {k: v for k, v in stamps.items() if v is not None}
    if len(known) < 2:
        return {}
    low, high = min(known.values()), max(known.values())
    span = high - low
    return {k: (v - low) / span for k, v in known.items()} if span > 0 else {}


def _evidence(ctx: Context, nodes: Sequence[_Node], limit: int) -> list[Hit]:
    """Chunks mentioning reached entities, scored by sum(entity score * specificity), best `limit` with text."""
    if not nodes or limit < 1:
        return []
    s = ctx.settings
    rows = ctx.store.read(
        f"UNWIND $ids AS eid MATCH (e:{ident(s.entity_label)} {{id: eid}})<-[:HAS_ENTITY]-(c:{ident(s.chunk_label)}) "
        "WITH eid, collect(c.id) AS chunks RETURN eid, size(chunks) AS n, chunks[0..$per] AS chunks",
        {"ids": [n.id for n in nodes], "per": CHUNKS_PER_ENTITY},
    )
    score_of = {n.id: n.score for n in nodes}
    scores: dict[str, float] = {}
    via: dict[str, list[str]] = {}
    for row in rows:
        specificity = 1.0 / math.log2(1.0 + max(1, int(row["n"])))
        for chunk_id in row["chunks"]:
            scores[chunk_id] = scores.get(chunk_id, 0.0) + score_of[row["eid"]] * specificity
            via.setdefault(chunk_id, []).append(row["eid"])
    best = sorted(scores, key=lambda c: -scores[c])[:limit]
    if not best:
        return []
    texts = ctx.store.read(
        f"MATCH (c:{ident(s.chunk_label)}) WHERE c.id IN $ids "
        f"RETURN c.id AS id, c.{ident(s.text_property)} AS text, c.document_id AS document_id, "
        "c.document_name AS document_name",
        {"ids": best},
    )
    by_id = {row["id"]: row for row in texts}
    return [
        Hit(
            id=chunk_id,
            kind="chunk",
            text=str(by_id[chunk_id]["text"] or ""),
            score=scores[chunk_id],
            document_id=by_id[chunk_id]["document_id"],
            document_name=by_id[chunk_id]["document_name"],
            metadata={"entities": via[chunk_id]},
            sources={"graph": scores[chunk_id]},
        )
        for chunk_id in best
        if chunk_id in by_id
    ]


def _entity_hit(node: _Node) -> Hit:
    props = node.props
    title = str(props.get("title") or node.id)
    description = str(props.get("description") or "")
    return Hit(
        id=node.id,
        kind="entity",
        text=f"{title}: {description}" if description else title,
        score=node.score,
        metadata={"title": title, "type": props.get("type"), "hop": node.hop, "degree": node.degree},
        sources={"graph": node.score},
    )
