"""Hubs of unrelated passages: an entity many documents mention that share nothing else, and what Leiden makes of it.

Why: in an encyclopaedia every passage is its own document, and "Canada", "Earth" or "United States" is mentioned
in dozens of them that have nothing else in common (a museum, a footballer, a TV series). Leiden puts such an
entity in one level-0 community with the passages' groups it touches, and every level above joins more of them
through it: the community's passages then share one name and no topic a title could name ("Canada, South Slave
Divisional Education Council & Pan American Games"). A hub is told from a topic by its documents: those of a
topic ("Summer Olympics" of athletes' passages) or of a conversation's recurring name (the demo's hosts, "AI",
"Microsoft" across episodes) also share other entities; a hub's mostly do not (fewer than LINKED of their pairs).
What is done with a hub: a level-0 part it holds together is split into its passages' own groups (`split`), a
name it alone holds there goes where its passage's other names are (`rehome`), and the levels above do not see its
edges (`upper_edges`).
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import igraph as ig

#: An entity in fewer documents than this is no hub (a name met in a few passages is what they share).
HUB_DOCUMENTS = 4
#: A hub's documents are otherwise unconnected: under this share of their pairs share another entity.
LINKED = 0.5
#: Pairs of a candidate's documents checked at most (drawn beyond): a share drawn from 500 pairs is within ~0.02
#: (one standard error), and on MuSiQue the 223 hubs are the same with 400 pairs or all of them.
PAIRS = 500


@dataclass(frozen=True)
class Hubs:
    """Each entity's documents, and the hubs among the entities with their document counts."""

    documents: Mapping[str, frozenset[str]] = field(default_factory=dict)
    counts: Mapping[str, int] = field(default_factory=dict)


def documents_of(mentions: Iterable[Mapping[str, Any]]) -> dict[str, frozenset[str]]:
    """Each entity's documents from a graph's chunk -> entity rows (`chunk`, `entity`; a chunk id is its document's
    id, a colon and its number): what tells a hub here and a host to `communities.damped`."""
    documents: dict[str, set[str]] = defaultdict(set)
    for row in mentions:
        documents[str(row["entity"])].add(str(row["chunk"]).rsplit(":", 1)[0])
    return {entity: frozenset(found) for entity, found in documents.items()}


def find(mentions: Iterable[Mapping[str, Any]]) -> Hubs:
    """The hubs of a graph from its chunk -> entity rows (`documents_of`)."""
    documents = documents_of(mentions)
    entities_in: dict[str, set[str]] = defaultdict(set)
    for entity, found in documents.items():
        for document in found:
            entities_in[document].add(entity)
    many = {entity: found for entity, found in documents.items() if len(found) >= HUB_DOCUMENTS}
    first = {entity for entity, found in many.items() if _linked(entity, found, entities_in) < LINKED}
    # Documents linked only by another hub are not linked: "Washington"'s passages (a coffee firm, a band, a park)
    # mostly also say "United States", and that made it no hub.
    beside = {document: entities - first for document, entities in entities_in.items()}
    counts = {
        entity: len(found)
        for entity, found in many.items()
        if entity in first or _linked(entity, found, beside) < LINKED
    }
    return Hubs(documents, counts)


def _linked(entity: str, documents: frozenset[str], entities_in: Mapping[str, set[str]]) -> float:
    """The share of pairs of `documents` that share an entity other than `entity`: every pair up to PAIRS of them,
    else PAIRS pairs drawn with the entity's name as the seed (the same hubs every run). Why drawn: a name in
    every part of a podcast (1,600 parts, 1.3 million pairs) or a synthetic hub in 58k chunks made the exact count
    the slowest step of indexing (19 s for one synthetic podcast-sized corpus), and a share is what is asked."""
    ordered = sorted(documents)
    n = len(ordered)
    if n * (n - 1) // 2 <= PAIRS:
        pairs: Iterable[tuple[str, str]] = combinations(ordered, 2)
    else:
        draw = random.Random(entity)
        pairs = [(ordered[i], ordered[j]) for i, j in (draw.sample(range(n), 2) for _ in range(PAIRS))]
    checked = shared = 0
    for a, b in pairs:
        checked += 1
        shared += bool((entities_in[a] & entities_in[b]) - {entity})
    return shared / checked


def split(
    graph: ig.Graph, part: list[int], entity_of: Callable[[int], str], hubs: Hubs, min_size: int
) -> list[list[int]]:
    """`part` (nodes of `graph`, a level-0 community) split into its passages' own groups when its member of most
    documents is a hub and, without it, its other members fall into groups that share no document (what joins
    them is the hub alone). A group too small to be a community stays with the hub; a hub left alone joins the
    group it weighs most with. Otherwise `part` as it is."""
    if len(part) <= 2 or not hubs.counts:
        return [part]
    entities = [entity_of(node) for node in part]
    hub = max(range(len(part)), key=lambda i: (len(hubs.documents.get(entities[i], ())), -i))
    if entities[hub] not in hubs.counts:
        return [part]
    rest = [i for i in range(len(part)) if i != hub]
    groups = [[part[rest[i]] for i in found] for found in graph.subgraph(part).subgraph(rest).connected_components()]
    if len(groups) < 2 or _share_a_document(groups, entity_of, hubs):
        return [part]
    kept = [sorted(group) for group in groups if len(group) >= min_size]
    stranded = [node for group in groups if len(group) < min_size for node in group]
    if not kept:
        return [part]
    if len(stranded) + 1 >= min_size:
        return [*kept, sorted([part[hub], *stranded])]
    weights = _weights(graph, part[hub], {node: i for i, group in enumerate(kept) for node in group})
    home = max(range(len(kept)), key=lambda i: (weights.get(i, 0.0), -i))
    kept[home] = sorted([*kept[home], part[hub]])
    return kept


def _share_a_document(groups: Sequence[list[int]], entity_of: Callable[[int], str], hubs: Hubs) -> bool:
    """Whether two groups have a document in common: then they are one conversation's parts, not a hub's passages."""
    seen: dict[str, int] = {}
    for i, group in enumerate(groups):
        for node in group:
            for document in hubs.documents.get(entity_of(node), ()):
                if seen.setdefault(document, i) != i:
                    return True
    return False


def rehome(
    graph: ig.Graph, parts: list[list[int]], entity_of: Callable[[int], str], hubs: Hubs, max_size: int
) -> list[list[int]]:
    """`parts` (level 0) with each name a hub alone holds in its part (related to no other name of it but hubs)
    moved to the part its other relationships weigh most with, a part with room. Why: `split` leaves such a name
    beside the hub ("British" with "Saxe-Coburg" of one passage, "Whatever Happened" of another), and the hub's
    community is then dozens of unrelated passages; the name's own passage's other names are elsewhere, and that
    is where it belongs. A name related to nothing but the hub stays with it."""
    if not hubs.counts:
        return parts
    hub = [entity_of(node) in hubs.counts for node in range(graph.vcount())]
    owner = {node: i for i, part in enumerate(parts) for node in part}
    moves: dict[int, int] = {}
    for i, part in enumerate(parts):
        if not any(hub[node] for node in part):
            continue
        for node in part:
            weights = {} if hub[node] else _weights(graph, node, owner, hub)
            if weights and i not in weights:
                moves[node] = max(sorted(weights), key=lambda k: weights[k])
    out = [[node for node in part if node not in moves] for part in parts]
    for node, home in sorted(moves.items()):
        (out[home] if len(out[home]) < max_size else out[owner[node]]).append(node)
    owner = {node: i for i, part in enumerate(out) for node in part}
    for i, part in enumerate(out):  # a hub left alone joins the part it weighs most with, as in `split`
        if len(part) == 1 and len(parts[i]) > 1:
            weights = _weights(graph, part[0], owner)
            weights.pop(i, None)
            if weights:
                out[max(sorted(weights), key=lambda j: weights[j])].append(part.pop())
    return [sorted(part) for part in out if part]


def _weights(graph: ig.Graph, node: int, owner: Mapping[int, int], skip: Sequence[bool] = ()) -> dict[int, float]:
    """The summed weight of `node`'s edges into each part (`owner`: a node's part), leaving out neighbours `skip`
    marks."""
    weights: dict[int, float] = defaultdict(float)
    for edge in graph.es[graph.incident(node)]:
        other = edge.target if edge.source == node else edge.source
        if other in owner and not (skip and skip[other]):
            weights[owner[other]] += float(edge["weight"])
    return weights


def upper_edges(edges: Sequence[tuple[str, str, float]], hubs: Hubs) -> list[tuple[str, str, float]]:
    """`edges` as the levels above 0 see them: without a hub's, so that the groups split off a hub are joined by
    what they share, not through it. Weighing them 2 / the hub's documents (as IDF would) still joined the groups
    that share nothing else, at level 1 ("Washington, Klondike Gold Rush National Historical Park & Loghouse
    Museum": 28 passages of 24 documents), since any weight is more than none."""
    return [(a, b, w) for a, b, w in edges if a not in hubs.counts and b not in hubs.counts]
