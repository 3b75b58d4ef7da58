"""Node positions computed in Python, so a view is drawn at once and nothing jumps on rerun.

Why not the browser's force layout: on 2 cores vis-network needs tens of seconds for a few hundred
nodes with physics on, and it re-lays-out on every rerun. These layouts are deterministic and keep
the positions of nodes already placed (click-to-expand grows the picture around the clicked node).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

Point = tuple[float, float]

RING = 170.0  # distance between BFS rings around a seed
SEED_SPACING = 900.0  # distance between unrelated seeds
NODE_GAP = 45.0  # arc length per node on a ring


def radial(
    node_ids: Sequence[str],
    edges: Iterable[tuple[str, str]],
    seeds: Sequence[str],
    placed: Mapping[str, Point] | None = None,
) -> dict[str, Point]:
    """Place nodes ring by ring around their BFS parent; nodes in `placed` keep their position."""
    positions: dict[str, Point] = {n: p for n, p in (placed or {}).items() if n in set(node_ids)}
    neighbours: dict[str, list[str]] = {n: [] for n in node_ids}
    for a, b in edges:
        if a in neighbours and b in neighbours:
            neighbours[a].append(b)
            neighbours[b].append(a)
    for linked in neighbours.values():
        linked.sort()
    roots = [s for s in seeds if s in neighbours] + sorted(n for n in node_ids if n not in seeds)
    heading: dict[str, float] = {}
    for root in roots:
        fresh_root = root not in positions
        if fresh_root:
            positions[root] = _free_spot(positions) if positions else (0.0, 0.0)
        frontier = [root]
        while frontier:
            nxt: list[str] = []
            for parent in frontier:
                fresh = [c for c in neighbours[parent] if c not in positions]
                _fan(parent, fresh, positions, heading, full_circle=parent == root and fresh_root)
                nxt.extend(fresh)
            frontier = nxt
    return positions


def _fan(
    parent: str, children: list[str], positions: dict[str, Point], heading: dict[str, float], full_circle: bool
) -> None:
    if not children:
        return
    px, py = positions[parent]
    spread = 2 * math.pi if full_circle else min(1.2 * math.pi, 0.35 * len(children) + 0.6)
    start = heading.get(parent, 0.0) - (0 if full_circle else spread / 2)
    step = spread / (len(children) if full_circle else max(len(children) - 1, 1))
    radius = max(RING, len(children) * NODE_GAP / spread)  # arcs long enough for every child
    for i, child in enumerate(children):
        angle = start + step * i if len(children) > 1 or full_circle else heading.get(parent, 0.0)
        positions[child] = (px + radius * math.cos(angle), py + radius * math.sin(angle))
        heading[child] = angle


def _free_spot(positions: Mapping[str, Point]) -> Point:
    """Right of everything placed so far: a new component never lands on top of an old one."""
    max_x = max(x for x, _ in positions.values())
    return (max_x + SEED_SPACING, 0.0)


def tree(nodes: Sequence[tuple[str, str | None]], level_gap: float = 140.0, slot: float = 190.0) -> dict[str, Point]:
    """Tidy top-down tree for (id, parent_id) pairs: leaves on consecutive slots, parents centred above."""
    ids = [n for n, _ in nodes]
    known = set(ids)
    children: dict[str | None, list[str]] = {}
    for node_id, parent in nodes:
        children.setdefault(parent if parent in known else None, []).append(node_id)
    positions: dict[str, Point] = {}
    next_slot = 0.0

    def place(node_id: str, depth: int) -> float:
        nonlocal next_slot
        kids = children.get(node_id, [])
        if not kids:
            x = next_slot * slot
            next_slot += 1
        else:
            xs = [place(k, depth + 1) for k in kids]
            x = (xs[0] + xs[-1]) / 2
        positions[node_id] = (x, depth * level_gap)
        return x

    for root in children.get(None, []):
        place(root, 0)
    return positions
