"""Relate stage: RELATED edges aggregated from what each chunk claims, weighted by how many chunks claim it.

Chunks store their relations (co-occurrence pairs offline, extracted statements with an LLM) as
JSON, so the edge set is a pure function of the chunks and is reconciled like the entities.
"""

from __future__ import annotations

import json
from collections import defaultdict

from retrieval.indexing.entities import Entity
from retrieval.store.base import Row

#: Distinct sentences kept as an edge's description.
DESCRIPTION_SENTENCES = 2

Pair = tuple[str, str]


def aggregate(chunk_relations: list[Row], entities: dict[str, Entity]) -> dict[Pair, Row]:
    """Wanted edges {(source, target): {source, target, weight, description}}; source < target."""
    weights: dict[Pair, float] = defaultdict(float)
    texts: dict[Pair, list[tuple[str, str]]] = defaultdict(list)
    for row in chunk_relations:
        for source, target, weight, description in json.loads(row["relations"]):
            if source == target or source not in entities or target not in entities:
                continue
            pair = (source, target) if source < target else (target, source)
            weights[pair] += float(weight)
            if description:
                texts[pair].append((row["chunk"], description))
    wanted = {}
    for pair, weight in weights.items():
        distinct = list(dict.fromkeys(text for _chunk, text in sorted(texts[pair])))[:DESCRIPTION_SENTENCES]
        a, b = entities[pair[0]].title, entities[pair[1]].title
        description = " ".join(distinct) or f"{a} and {b} appear in the same passage."
        wanted[pair] = {"source": pair[0], "target": pair[1], "weight": round(weight, 4), "description": description}
    return wanted


def diff(wanted: dict[Pair, Row], stored: dict[Pair, Row]) -> tuple[list[Row], list[Pair]]:
    """(edges to write, edges to delete)."""
    write = [
        row
        for pair, row in sorted(wanted.items())
        if pair not in stored
        or stored[pair]["weight"] != row["weight"]
        or stored[pair]["description"] != row["description"]
    ]
    return write, sorted(set(stored) - set(wanted))
