"""Community stage: hierarchical Leiden over the entity graph (igraph + leidenalg).

Level 0 is the finest partition: Leiden (modularity) on the entity graph, then any community larger
than `max_size` is split again by Leiden on its own subgraph (and, if Leiden cannot split it,
into contiguous slices). Each higher level runs Leiden on the graph of the level below, with
communities as nodes and summed edge weights, until the partition stops shrinking. Every level has
its own cap, `max_size * LEVEL_GROWTH**level` entities, enforced the same way: without it a hub
(a podcast host related to everything) pulls nearly every entity into one top community, and
the primer and global search then see one topic instead of the corpus's real ones. The cap bounds the hub; what
Leiden sees also weighs a host's relationships less (`damped`: a person in most documents, like a word in
every document to IDF), so conversations and topics, not the host, decide which communities form.
A hub of unrelated passages (an encyclopaedia's "Canada") splits the level-0 part it holds together into its
passages' own groups, and is not seen by the levels above (community_hubs.py). In an encyclopaedia a level-0 part
is split by its names' subjects, and the levels above group subjects of one kind (community_subjects.py).
A community's id hashes its member entities, so an unchanged community keeps its id (and its
summary) across runs, and a changed one gets a new id and a new summary. A re-run after an edit
keeps every level-0 community none of whose entities gained, lost or changed a relationship, and
partitions only the rest; higher levels start Leiden from the parents the graph already has
(`Previous`). From scratch, one added entity reorders Leiden's search and reshuffles communities far
from the change (42 of 77 were rewritten after one episode of 11 was edited).
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import igraph as ig
import leidenalg

from retrieval.indexing import community_hubs
from retrieval.indexing.community_hubs import Hubs

if TYPE_CHECKING:  # community_subjects reads titles.py, which reads Community from here
    from retrieval.indexing.community_subjects import Subjects

SEED = 42
#: How much larger a community may be at each level up: 40, 80, 160 entities with the default cap of 40.
LEVEL_GROWTH = 2
#: A person mentioned in more than this share of a collection's documents (a podcast's host) is everywhere: their
#: relationships say they were there, not what a conversation is about...
EVERYWHERE = 0.34
#: ...in a collection of at least this many documents (in one novel every entity is in the one document).
MIN_DOCUMENTS = 3


@dataclass(frozen=True)
class Community:
    id: str
    level: int
    members: tuple[str, ...]  # entity ids (all entities beneath, for higher levels)
    children: tuple[str, ...]  # community ids one level down
    parent: str | None = None


@dataclass(frozen=True)
class Previous:
    """The partition a graph already holds: each entity's level-0 community, each community's parent, and
    the entities whose relationships changed since it was computed."""

    community_of: Mapping[str, str] = field(default_factory=dict)
    parent_of: Mapping[str, str] = field(default_factory=dict)
    changed: frozenset[str] = frozenset()


def _start(keys: Sequence[str], group: Mapping[str, str]) -> list[int] | None:
    """Leiden's initial membership: nodes of one previous group together, every other node alone."""
    if not any(key in group for key in keys):
        return None
    numbers: dict[str, int] = {}
    return [numbers.setdefault(group.get(key, f"\0{i}"), len(numbers)) for i, key in enumerate(keys)]


def _leiden(graph: ig.Graph, resolution: float = 1.0, initial: list[int] | None = None) -> list[list[int]]:
    partition = leidenalg.find_partition(
        graph,
        leidenalg.RBConfigurationVertexPartition,
        initial_membership=initial,
        weights="weight" if graph.ecount() else None,
        resolution_parameter=resolution,
        seed=SEED,
    )
    return [sorted(part) for part in partition if part]


def _capped(
    graph: ig.Graph, nodes: list[int], max_size: int, resolution: float = 1.0, sizes: Sequence[int] | None = None
) -> list[list[int]]:
    """Split `nodes` until no part weighs more than `max_size`; raise the resolution when Leiden keeps it whole.

    A node weighs `sizes[node]` (entities beneath a community node), 1 when no sizes are given.
    """
    weight = sum(sizes[n] for n in nodes) if sizes is not None else len(nodes)
    if weight <= max_size or len(nodes) == 1:
        return [nodes]
    sub = graph.subgraph(nodes)
    parts = _leiden(sub, resolution) if sub.ecount() else [[i] for i in range(len(nodes))]
    if len(parts) == 1:
        if resolution < 64:
            return _capped(graph, nodes, max_size, resolution * 2, sizes)
        return _slices(nodes, max_size, sizes)
    out: list[list[int]] = []
    for part in parts:
        out.extend(_capped(graph, [nodes[i] for i in part], max_size, resolution, sizes))
    return out


def _slices(nodes: list[int], max_size: int, sizes: Sequence[int] | None) -> list[list[int]]:
    """Contiguous runs of `nodes` each weighing at most `max_size` (a node heavier than that stands alone)."""
    out: list[list[int]] = [[]]
    weight = 0
    for node in nodes:
        w = sizes[node] if sizes is not None else 1
        if out[-1] and weight + w > max_size:
            out.append([])
            weight = 0
        out[-1].append(node)
        weight += w
    return out


def _absorb_small(graph: ig.Graph, parts: list[list[int]], max_size: int, min_size: int) -> list[list[int]]:
    """Give entities stranded in too-small parts a community instead of dropping them.

    Splitting a hub (one entity related to hundreds) under the size cap leaves it and its leaves as
    singletons. Taken hubs first, each joins the part of its heaviest placed neighbour while that part has
    room (a node with none seeds a new part); the rest are grouped with the other leaves of that same part,
    which is what they have in common.
    """
    kept = [list(p) for p in parts if len(p) >= min_size]
    owner = {node: i for i, part in enumerate(kept) for node in part}
    overflow: dict[int, list[int]] = {}
    stranded = sorted((n for p in parts if len(p) < min_size for n in p), key=lambda n: (-graph.degree(n), n))
    for node in stranded:  # hubs first, so a stranded hub seeds the part its leaves then join
        weights: dict[int, float] = {}
        for edge in graph.es[graph.incident(node)]:
            other = edge.target if edge.source == node else edge.source
            if other in owner:
                weights[owner[other]] = weights.get(owner[other], 0.0) + float(edge["weight"])
        if not weights:
            owner[node] = len(kept)
            kept.append([node])
            continue
        best = max(sorted(weights), key=lambda i: weights[i])
        if len(kept[best]) < max_size:
            kept[best].append(node)
        else:
            overflow.setdefault(best, []).append(node)
    for leaves in overflow.values():
        kept.extend(part for part in (leaves[i : i + max_size] for i in range(0, len(leaves), max_size)))
    return [sorted(part) for part in kept if len(part) >= min_size]


def _kept(connected: Sequence[str], previous: Previous) -> list[list[int]]:
    """Previous level-0 communities (as node lists) whose entities are all still there, unchanged."""
    size = Counter(previous.community_of.values())
    groups: dict[str, list[int]] = defaultdict(list)
    for node, entity in enumerate(connected):
        if entity in previous.community_of:
            groups[previous.community_of[entity]].append(node)
    return [
        nodes
        for key, nodes in groups.items()
        if len(nodes) == size[key] and not any(connected[node] in previous.changed for node in nodes)
    ]


def _partition(
    graph: ig.Graph,
    nodes: list[int],
    max_size: int,
    min_size: int,
    *,
    entity_of: Sequence[str],
    hubs: Hubs,
    subjects: Subjects | None,
) -> list[list[int]]:
    """Level-0 parts of the subgraph on `nodes`: Leiden, split under the cap, stranded nodes absorbed, a part a hub
    holds together split into its passages' groups, a name only a hub holds there moved to its other names
    (`entity_of`: a node's entity), and in an encyclopaedia (`subjects`) each part split by its names' subjects."""
    sub = graph if len(nodes) == graph.vcount() else graph.subgraph(nodes)
    parts = _absorb_small(sub, [p for top in _leiden(sub) for p in _capped(sub, top, max_size)], max_size, min_size)
    split = [
        group
        for part in parts
        for group in community_hubs.split(graph, [nodes[i] for i in part], entity_of.__getitem__, hubs, min_size)
    ]
    parts = community_hubs.rehome(graph, split, entity_of.__getitem__, hubs, max_size)
    if subjects is None or not subjects.kind:
        return parts
    return subjects.regroup(graph, parts, entity_of.__getitem__, lambda found: _capped(graph, found, max_size))


def _grouped(
    below: Sequence[Community],
    weights: Mapping[tuple[int, int], float],
    sizes: Sequence[int],
    cap: int,
    previous: Previous,
) -> list[list[int]]:
    """The next level's groups of the communities `below`: Leiden on their graph (`weights`: summed edge weights
    between two of them), started from the parents the graph already has, each group split under `cap`."""
    meta = ig.Graph(n=len(below), edges=list(weights))
    meta.es["weight"] = list(weights.values())
    initial = _start([c.id for c in below], previous.parent_of)
    return [part for group in _leiden(meta, initial=initial) for part in _capped(meta, group, cap, sizes=sizes)]


def damped(
    edges: Sequence[tuple[str, str, float]], documents_of: Mapping[str, Collection[str]], people: Collection[str]
) -> list[tuple[str, str, float]]:
    """`edges` with each end that is a person everywhere (EVERYWHERE: a host, a narrator) weighing its share of the
    documents less, as IDF does for a word in every document; `documents_of` holds each entity's documents
    (`community_hubs.documents_of`), `people` the entities typed PERSON.

    Why: the host of a podcast is related to every guest's topics, and Leiden then builds the host's community
    out of one guest's conversation and joins several conversations above it through the host ("Sam Altman,
    Neil Degrasse Tyson & Lisa Su: YouTube, AMD & role model"). An edge's weight times EVERYWHERE / share for an
    end in a share of the documents above EVERYWHERE (a host in every episode: a third of its weight; both hosts:
    a ninth) keeps the edge, so the host still has a community, while the conversations decide the partition.
    People only: a term every conversation uses ("AI", "Microsoft") damped too leaves its neighbours stranded in
    grab bags of places ("Jen-Hsun Huang Foundation, computer science & Stanford": tried on the demo graph, more
    level-0 titles named no topic). A collection of under MIN_DOCUMENTS has no such person, and nothing changes."""
    total = len({d for documents in documents_of.values() for d in documents})
    if total < MIN_DOCUMENTS:
        return list(edges)
    factor = {
        entity: EVERYWHERE * total / len(documents_of[entity])
        for entity in people
        if len(documents_of.get(entity, ())) > EVERYWHERE * total
    }
    return [(a, b, w * factor.get(a, 1.0) * factor.get(b, 1.0)) for a, b, w in edges]


def _community_id(project: str, level: int, members: Sequence[str]) -> str:
    digest = hashlib.sha1("\n".join(sorted(members)).encode("utf-8")).hexdigest()[:16]
    return f"{project}:c{level}:{digest}"


def hierarchy(
    project: str,
    entity_ids: Sequence[str],
    edges: Sequence[tuple[str, str, float]],
    *,
    max_size: int,
    max_levels: int,
    min_size: int = 2,
    previous: Previous | None = None,
    hubs: Hubs | None = None,
    subjects: Subjects | None = None,
) -> list[Community]:
    """Communities of every level, finest first; entities with no relationship belong to none.

    With `previous`, unchanged level-0 communities are kept as they are and the levels above start from the
    parents the graph already has; with `hubs` (community_hubs.find), a hub's level-0 part is split into its
    passages' groups and the levels above leave its edges out; with `subjects` of an encyclopaedia
    (community_subjects.py), level 0 is split by subject and the levels above group subjects by kind, not by
    Leiden."""
    previous = previous or Previous()
    hubs = hubs or Hubs()
    upper = community_hubs.upper_edges(edges, hubs)
    connected = sorted({e for a, b, _w in edges for e in (a, b)} & set(entity_ids))
    if not connected:
        return []
    index = {entity: i for i, entity in enumerate(connected)}
    graph = ig.Graph(n=len(connected), edges=[(index[a], index[b]) for a, b, _w in edges if a in index and b in index])
    graph.es["weight"] = [w for a, b, w in edges if a in index and b in index]
    kept = _kept(connected, previous)
    placed = {node for part in kept for node in part}
    rest = [node for node in range(len(connected)) if node not in placed]
    found = (
        _partition(graph, rest, max_size, min_size, entity_of=connected, hubs=hubs, subjects=subjects) if rest else []
    )
    parts = kept + found
    groups = sorted((tuple(connected[i] for i in part) for part in parts if len(part) >= min_size), key=lambda g: g[0])
    level0 = [Community(_community_id(project, 0, g), 0, g, ()) for g in groups]
    levels = [level0]
    while len(levels) < max_levels and len(levels[-1]) > 1:
        below = levels[-1]
        where = {entity: i for i, c in enumerate(below) for entity in c.members}
        weights: dict[tuple[int, int], float] = {}
        for a, b, w in upper:
            if a in where and b in where and where[a] != where[b]:
                key = (min(where[a], where[b]), max(where[a], where[b]))
                weights[key] = weights.get(key, 0.0) + w
        level = len(levels)
        sizes = [len(c.members) for c in below]
        cap = max_size * LEVEL_GROWTH**level
        if subjects is not None and subjects.kind:
            grouped = subjects.group([c.members for c in below], weights, sizes, cap)
        elif weights:
            grouped = _grouped(below, weights, sizes, cap, previous)
        else:
            break
        if len(grouped) >= len(below):
            break
        above = []
        for group in sorted(grouped, key=lambda g: below[g[0]].members[0]):
            members = tuple(sorted(e for i in group for e in below[i].members))
            children = tuple(below[i].id for i in group)
            above.append(Community(_community_id(project, level, members), level, members, children))
        parent_of = {child: c.id for c in above for child in c.children}
        levels[-1] = [Community(c.id, c.level, c.members, c.children, parent_of.get(c.id)) for c in below]
        levels.append(above)
    return [c for level in levels for c in level]
