"""Neighbourhood expansion over RELATED from seed entities, with the chunks that mention what it reaches.

Why this scoring ("drift score"): a breadth-first walk reaches hubs first ("the company", "AI"),
and hubs connect everything to everything, so every step multiplies relevance by the edge's
strength and divides it by a logarithmic degree penalty; a hub can be reached but spreads little.
Recently updated nodes get a bounded boost (`recency_weight`). Each node is visited once
(global uniqueness) and the walk stops at `max_nodes`, keeping the best-scoring candidates when
a hop offers more than fit, or once the scores it reached add up to `drift_budget`: a question
whose seeds are strongly connected spends its budget close by and stops early. Directed edges
(an LLM extraction says who did what to whom) are followed by `expansion_direction`. Chunks
mentioning the reached entities come back as evidence, scored by the entities they mention, each
weighted by how specific it is (mentioned by few chunks).

Why the cost is bounded by the cap, not by hub size: degrees and mention counts are read from what
the indexer stores on each entity, each frontier node contributes its strongest few edges out of a
bounded scan, each hop is one query over the whole frontier, and evidence reads a bounded number of
chunks per entity. A hub with 25k edges and 60k mentions then costs what a leaf costs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from retrieval.config import Settings
from retrieval.context import Context
from retrieval.models import Hit, Lines, QueryParams
from retrieval.search.patterns import entity_props, mention, related
from retrieval.store.records import ident, packed, unpacked

#: Relevance kept per hop before edge strength and degree penalty.
HOP_DECAY = 0.5
#: Strongest edges kept per frontier node: what one node can add to a hop.
NEIGHBOURS_PER_NODE = 20
#: Edges read per frontier node before picking the strongest: exact below this degree, a sample of a hub above it.
#: A hub is penalised anyway, so reading all of its thousands of edges buys little and costs linear time.
EDGES_SCANNED = 200
#: Chunks read per evidence entity; a hub's thousands of mentions say little about this question.
CHUNKS_PER_ENTITY = 25
#: Evidence comes from the best-scoring reached entities only (the tail adds cost, not evidence).
EVIDENCE_ENTITIES = 30
#: Whether the walk follows edge `r` from node `a`: an undirected edge always, a directed one by `$direction`.
_FOLLOWS = (
    "($direction = 'both' OR r.directed IS NULL OR r.directed = false OR (startNode(r) = a) = ($direction = 'out'))"
)


def _props(s: Settings, var: str = "e") -> str:
    """Properties of a reached entity `var` (what a hit shows, and the timestamps recency needs)."""
    return f"{entity_props(s, var)}, {var}.updated_at AS updated_at, {var}.ingested_at AS ingested_at"


#: The columns `_props` names.
_PROPS = ("title", "type", "description", "updated_at", "ingested_at")
#: The columns of a row of properties: the node's id, then `_PROPS`.
_PROP_ROW = ("id", *_PROPS)
#: The columns of a hop's rows: the frontier node, the node it reaches, that node's degree and the edge's weight.
_HOP = ("source", "id", "degree", "weight")
#: A hop's read carries the properties of this many times the nodes the hop has room for, its likeliest by score.
LIKELY_FACTOR = 2
#: The columns of a seed's row (`seed_rows`): its id, degree and properties, and its first hop's neighbours.
SEED_COLUMNS = ("id", "degree", *_PROPS, "next")


def seed_rows(ctx: Context, hop: bool) -> str:
    """Cypher from an `id` in scope to the seed's `SEED_COLUMNS` (`next` with `hop` only): the project's entity of
    that id, its properties and its strongest neighbours as `_neighbours` reads them.

    Why a fragment: the walk reads its seeds with it, and so does the bridge's spread, which finds most seeds
    (the entities of the best hits) and reads their rows in the same round trip."""
    s = ctx.settings
    first_hop = (
        f"CALL {{ WITH e WITH e AS a MATCH (a)-[r:{related(s)}]-(b) WHERE {_FOLLOWS} WITH b, r LIMIT $scan "
        "WITH b, r ORDER BY r.weight DESC LIMIT $per "
        "RETURN collect({id: b.id, degree: b.degree, weight: r.weight}) AS next } "
    )
    return (
        f"MATCH (e:{ident(s.entity_label)} {{id: id}}) WHERE {ctx.in_scope('e')} "
        + (first_hop if hop else "")
        + f"WITH id, e.degree AS degree, {_props(s)}"
        + (", next" if hop else "")
    )


def hop_parameters(params: QueryParams) -> dict[str, Any]:
    """The parameters of a hop's read (and of `seed_rows` with its first hop)."""
    return {"scan": EDGES_SCANNED, "per": NEIGHBOURS_PER_NODE, "direction": params.expansion_direction}


@dataclass
class Expansion:
    entities: list[Hit] = field(default_factory=list)
    relations: list[dict[str, Any]] = field(default_factory=list)
    chunks: list[Hit] = field(default_factory=list)
    truncated: bool = False
    budget_exhausted: bool = False


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
    relations: bool = False,
    read: Sequence[Mapping[str, Any]] | None = None,
) -> Expansion:
    """Entities within `params.max_hops` of the seeds (seeds first), evidence chunks and, with `relations`,
    the edge that reached each node (with its description: for callers that show the edges). `read`: the seeds'
    rows (`seed_rows`) a caller read already, for these seeds or more.

    Round trips: seeds with their first hop, one per further hop (UNWIND over the frontier, with the properties of
    the nodes it likely keeps), properties of the reached nodes no hop brought, the edges when asked, evidence and
    its texts; each reads a bounded number of rows per node, so a hub costs what a leaf costs.
    """
    seeds = list(dict.fromkeys(seed_entity_ids))
    if not seeds:
        return Expansion()
    walk = _Walk(ctx, params)
    walk.start(seeds, seed_scores or {}, read)
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
    edges = walk.relations() if relations else []
    return Expansion(entities, edges, chunks, walk.truncated, walk.budget_exhausted)


class _Walk:
    """BFS state: visited nodes with their scores, the frontier, and the edges used to reach each node."""

    def __init__(self, ctx: Context, params: QueryParams) -> None:
        self.ctx = ctx
        self.params = params
        self.label = ident(ctx.settings.entity_label)
        self.related = related(ctx.settings)
        self.nodes: dict[str, _Node] = {}
        self.frontier: list[str] = []
        #: The seeds' neighbours, read with the seeds (the rows `_neighbours` gives for the first hop).
        self.first_hop: list[dict[str, Any]] | None = None
        #: Properties a hop's read brought, by node id (`_neighbours`).
        self.read_props: dict[str, dict[str, Any]] = {}
        #: The frontier node each reached node was reached from (its edge is read once, after the walk).
        self.reached_from: dict[str, str] = {}
        self.truncated = False
        #: Drift score gathered by the hops so far, against `params.drift_budget`.
        self.spent = 0.0
        self.budget_exhausted = False

    def start(
        self, seeds: Sequence[str], scores: Mapping[str, float], read: Sequence[Mapping[str, Any]] | None = None
    ) -> None:
        """Seeds of the project only (the walk stays in it), with their properties and, when the walk takes a
        hop, their neighbours as `_neighbours` reads them: the first hop costs no round trip of its own.

        `read`: the seeds' rows as `seed_rows` reads them, already read by the caller (the bridge's spread reads
        them in its own round trip, for a superset of the seeds); kept in the seeds' order, as this read gives."""
        hop = self.params.max_hops > 0
        wanted = list(seeds)[: self.params.max_nodes]
        if read is None:
            columns = SEED_COLUMNS if hop else SEED_COLUMNS[:-1]
            found = self.ctx.store.read(
                f"UNWIND $ids AS id {seed_rows(self.ctx, hop)} {packed(columns)}",
                {"ids": wanted, "project": self.ctx.project, **hop_parameters(self.params)},
            )
            read = unpacked(found, columns)
        by_id = {row["id"]: row for row in read}
        rows = [by_id[seed] for seed in wanted if seed in by_id]
        degrees = self._degrees(rows)
        for row in rows:
            props = {k: v for k, v in row.items() if k != "next"}
            self.nodes[row["id"]] = _Node(row["id"], float(scores.get(row["id"], 1.0)), 0, props, degrees[row["id"]])
        if hop:
            self.first_hop = [{"source": row["id"], **n} for row in rows for n in row["next"]]
        self.truncated = len(seeds) > self.params.max_nodes
        self.frontier = list(self.nodes)

    def step(self, hop: int) -> bool:
        """One hop outward in one query; False when nothing new was reached, or the cap or the budget is hit."""
        room = self.params.max_nodes - len(self.nodes)
        if self.budget_exhausted or not self.frontier or room <= 0:
            self.truncated = self.truncated or bool(self.frontier and room <= 0 and self._has_new_neighbours())
            return False
        if hop == 1 and self.first_hop is not None:
            rows = [row for row in self.first_hop if row["id"] not in self.nodes]  # read with the seeds
        else:
            rows = self._neighbours(self.frontier, room)
        degrees = self._degrees(rows)
        candidates: dict[str, _Node] = {}
        via: dict[str, str] = {}
        for row in rows:
            parent = self.nodes[row["source"]]
            weight = float(row["weight"] if row["weight"] is not None else 1.0)
            degree = degrees[row["id"]]
            score = parent.score * HOP_DECAY * weight / (weight + 1.0)
            score /= 1.0 + self.params.degree_penalty * math.log1p(degree)
            best = candidates.get(row["id"])
            if best is None or score > best.score:
                candidates[row["id"]] = _Node(row["id"], score, hop, self.read_props.get(row["id"], {}), degree)
                via[row["id"]] = row["source"]
        if not candidates:
            return False
        kept = self._within_budget(sorted(candidates.values(), key=lambda n: -n.score)[:room])
        self.truncated = self.truncated or len(candidates) > room
        for node in kept:
            self.nodes[node.id] = node
            self.reached_from[node.id] = via[node.id]
        self.frontier = [n.id for n in kept]
        return bool(kept) and not self.budget_exhausted

    def _within_budget(self, ranked: list[_Node]) -> list[_Node]:
        """The best candidates while the budget lasts; the one whose score crosses it still comes."""
        budget = self.params.drift_budget
        if budget <= 0:
            return ranked
        kept = []
        for node in ranked:
            if self.spent >= budget:
                break
            kept.append(node)
            self.spent += node.score
        self.budget_exhausted = self.spent >= budget
        return kept

    def _has_new_neighbours(self) -> bool:
        """Whether the cap cut the walk short: one unvisited neighbour of the frontier is enough."""
        rows = self.ctx.store.read(
            f"UNWIND $ids AS fid MATCH (a:{self.label} {{id: fid}})-[r:{self.related}]-(b) "
            f"WHERE NOT b.id IN $seen AND {_FOLLOWS} RETURN b.id AS id LIMIT 1",
            {"ids": self.frontier, "seen": list(self.nodes), "direction": self.params.expansion_direction},
        )
        return bool(rows)

    def _neighbours(self, ids: Sequence[str], room: int) -> list[dict[str, Any]]:
        """Strongest of the first EDGES_SCANNED edges per node that `expansion_direction` follows,
        NEIGHBOURS_PER_NODE at most, minus the nodes already visited: ids, degree and weight only. The same read
        brings properties (`read_props`): of the frontier nodes read without them (a first hop's, which came with
        the seeds) and of the reached nodes the walk likely keeps (the `LIKELY_FACTOR * room` best by the score
        `step` gives, computed by the server).

        Why so few columns per row: a hop reads hundreds of rows to keep tens of nodes, and decoding each value
        costs the service more than the server spends finding it. Why the likely nodes' properties: the walk would
        otherwise read the kept nodes' properties after its last hop, one more round trip on the search's longest
        path; every row's properties cost the server more than that round trip (11 ms at load ~15). The server's
        pick only saves the read: `step` keeps what it keeps, and a kept node outside it is read after the walk.
        The kept edges' descriptions are read once, after the walk. The far node carries no label: anchored on the
        id index, the walk then follows the node's own adjacency (a label there makes the planner scan the label
        instead).
        """
        s = self.ctx.settings
        score = (
            "$scores[source] * coalesce(weight, 1.0) / (coalesce(weight, 1.0) + 1.0) "
            "/ (1.0 + $penalty * log(1.0 + coalesce(degree, 0)))"
        )
        found = self.ctx.store.read(
            f"UNWIND $ids AS fid CALL {{ WITH fid MATCH (a:{self.label} {{id: fid}})-[r:{self.related}]-(b) "
            f"WHERE {_FOLLOWS} WITH b, r LIMIT $scan RETURN b.id AS id, b.degree AS degree, r.weight AS weight "
            "ORDER BY weight DESC LIMIT $per } "
            "WITH fid AS source, id, degree, weight WHERE NOT id IN $seen "
            f"WITH collect([{', '.join(_HOP)}]) AS rows, collect([id, {score}]) AS scored "
            "CALL { WITH scored UNWIND scored AS pair WITH pair[0] AS id, max(pair[1]) AS score "
            f"ORDER BY score DESC LIMIT $likely MATCH (b:{self.label} {{id: id}}) WITH id, {_props(s, 'b')} "
            f"RETURN collect([{', '.join(_PROP_ROW)}]) AS likely }} "
            f"CALL {{ WITH rows UNWIND $bare AS id MATCH (e:{self.label} {{id: id}}) WITH id, {_props(s)} "
            f"RETURN collect([{', '.join(_PROP_ROW)}]) AS bare }} RETURN rows, likely + bare AS props",
            {
                "ids": list(ids),
                "seen": list(self.nodes),
                "bare": [node_id for node_id in ids if not self.nodes[node_id].props],
                "scores": {node_id: self.nodes[node_id].score * HOP_DECAY for node_id in ids},
                "penalty": self.params.degree_penalty,
                "likely": LIKELY_FACTOR * room,
                **hop_parameters(self.params),
            },
        )
        for row in unpacked(found, _PROP_ROW, key="props"):
            node_id = row.pop("id")
            if node_id in self.nodes:
                self.nodes[node_id].props = row
            else:
                self.read_props[node_id] = row
        return unpacked(found, _HOP)

    def _degrees(self, rows: Sequence[Mapping[str, Any]]) -> dict[str, int]:
        """Stored degrees by id; a graph written before the indexer stored them is counted instead."""
        degrees = {row["id"]: row["degree"] for row in rows}
        missing = [node_id for node_id, degree in degrees.items() if degree is None]
        if missing:
            counted = self.ctx.store.read(
                f"UNWIND $ids AS id MATCH (e:{self.label} {{id: id}}) "
                f"RETURN id, size([(e)-[:{self.related}]-() | 1]) AS degree",
                {"ids": missing},
            )
            degrees.update({row["id"]: row["degree"] for row in counted})
        return {node_id: int(degree or 0) for node_id, degree in degrees.items()}

    def _properties(self) -> None:
        """Properties of the reached nodes that no hop's read brought (a walk that ended after its first hop), read
        once after the walk (candidates that lost need none)."""
        ids = [n.id for n in self.nodes.values() if not n.props]
        if not ids:
            return
        rows = self.ctx.store.read(
            f"UNWIND $ids AS id MATCH (e:{self.label} {{id: id}}) WITH id, {_props(self.ctx.settings)} "
            + packed(_PROP_ROW),
            {"ids": ids},
        )
        for row in unpacked(rows, _PROP_ROW):
            self.nodes[row["id"]].props = row

    def ranked(self) -> list[_Node]:
        """Seeds first, then by drift score: relevance with the bounded recency boost."""
        self._properties()
        recency = _recency({n.id: _timestamp(n.props) for n in self.nodes.values()})
        weight = self.params.recency_weight
        for node in self.nodes.values():
            node.score *= 1.0 + weight * recency.get(node.id, 0.0)
        return sorted(self.nodes.values(), key=lambda n: (n.hop > 0, -n.score))

    def relations(self) -> list[dict[str, Any]]:
        """The edge each reached node was reached by, oriented as stored: the strongest one the walk may follow
        between the two nodes (the one its score came from).

        Read from the end with fewer edges: the traversal scans that node's adjacency, and a hub's is long."""
        pairs = []
        for node_id, source in self.reached_from.items():
            low, high = sorted((node_id, source), key=lambda n: self.nodes[n].degree)
            pairs.append({"anchor": low, "other": high, "source": source, "id": node_id})
        if not pairs:
            return []
        # `a` is the node the walk came from, as in _FOLLOWS: the direction rule is written once.
        rows = self.ctx.store.read(
            f"UNWIND $pairs AS pair MATCH (x:{self.label} {{id: pair.anchor}})-[r:{self.related}]-(y) "
            "WHERE y.id = pair.other WITH pair, r, CASE WHEN pair.anchor = pair.source THEN x ELSE y END AS a "
            f"WHERE {_FOLLOWS} RETURN pair.source AS source, pair.id AS id, r.weight AS weight, "
            "r.description AS description, startNode(r) = a AS forward, r.directed AS directed",
            {"pairs": pairs, "direction": self.params.expansion_direction},
        )
        edges: dict[str, dict[str, Any]] = {}
        for row in rows:
            forward = row["forward"]  # the edge points away from the node the walk came from
            weight = float(row["weight"] if row["weight"] is not None else 1.0)
            if row["id"] in edges and edges[row["id"]]["weight"] >= weight:
                continue
            edges[row["id"]] = {
                "source": row["source"] if forward else row["id"],
                "target": row["id"] if forward else row["source"],
                "description": row["description"] or "",
                "weight": weight,
                "directed": bool(row["directed"]),
            }
        return [edges[node_id] for node_id in self.reached_from if node_id in edges]


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
    # The chunk end carries no label (the mention implies it), so the LIMIT stops the walk of a hub's mentions.
    rows = ctx.store.read(
        f"UNWIND $ids AS eid MATCH (e:{ident(s.entity_label)} {{id: eid}}) "
        f"CALL {{ WITH e MATCH {mention(s, '(c)', '(e)')} RETURN c.id AS chunk LIMIT $per }} "
        "RETURN eid, e.mentions AS n, collect(chunk) AS chunks",
        {"ids": [n.id for n in nodes], "per": CHUNKS_PER_ENTITY},
    )
    score_of = {n.id: n.score for n in nodes}
    scores: dict[str, float] = {}
    via: dict[str, list[str]] = {}
    for row in rows:
        # `mentions` is stored by the indexer; an older graph falls back to the chunks read (at most the LIMIT).
        specificity = 1.0 / math.log2(1.0 + max(1, int(row["n"] or len(row["chunks"]))))
        for chunk_id in row["chunks"]:
            scores[chunk_id] = scores.get(chunk_id, 0.0) + score_of[row["eid"]] * specificity
            via.setdefault(chunk_id, []).append(row["eid"])
    best = sorted(scores, key=lambda c: -scores[c])[:limit]
    if not best:
        return []
    texts = ctx.store.read(
        f"UNWIND $ids AS id MATCH (c:{ident(s.chunk_label)} {{id: id}}) "
        f"RETURN id, c.{ident(s.text_property)} AS text, c.document_id AS document_id, "
        "c.document_name AS document_name, c.path AS path, c.line_start AS line_start, c.line_end AS line_end",
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
            lines=Lines.of(by_id[chunk_id]),
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
