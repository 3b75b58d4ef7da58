"""Relate stage: RELATED edges aggregated from what each chunk claims, weighted by how many chunks claim it.

Chunks store their relations (co-occurrence pairs offline, extracted statements with an LLM) as
JSON, so the edge set is a pure function of the chunks and is reconciled like the entities.

Why one edge per pair, directed only where the claims agree: expansion scores a pair once, and a
co-occurrence has no direction. An LLM's statement ("Su leads AMD") has one, so a pair whose directed
claims point one way (by weight) is stored that way with `directed: true`; every other pair is stored
from the lower id to the higher with `directed: false`. Each edge is dated by the documents of the
chunks that claim it (latest `updated_at`, first `ingested_at`).
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterator, Mapping

from retrieval.indexing.entities import Entity
from retrieval.store.records import Row

#: Distinct sentences kept as an edge's description.
DESCRIPTION_SENTENCES = 2

Pair = tuple[str, str]


def claims(
    chunk_relations: list[Row], entities: Mapping[str, object], canonical: Mapping[str, str] | None = None
) -> Iterator[tuple[Row, str, str, float, str, list[object]]]:
    """Each claim between two distinct wanted entities: (the chunk's row, source, target, weight, description,
    flags), its keys resolved by `canonical` (a claim between two keys of one entity is dropped, like any
    self-loop). What `aggregate` weighs, and what the partition weighs without a document's asides
    (community_passing.py)."""
    canonical = canonical or {}
    for row in chunk_relations:
        for raw_source, raw_target, weight, description, *flags in json.loads(row["relations"]):
            source, target = canonical.get(raw_source, raw_source), canonical.get(raw_target, raw_target)
            if source != target and source in entities and target in entities:
                yield row, source, target, float(weight), description, flags


def aggregate(
    chunk_relations: list[Row], entities: dict[str, Entity], canonical: Mapping[str, str] | None = None
) -> dict[Pair, Row]:
    """Wanted edges {(source, target): {source, target, weight, description, directed, updated_at, ingested_at}}.

    Chunks claim relations between the keys they extracted; `canonical` maps each key to the entity it
    resolved to (a claim between two keys of one entity is dropped, like any self-loop)."""
    weights: dict[Pair, float] = defaultdict(float)
    #: Weight of the directed claims lower id -> higher id minus that of the reverse ones, per pair.
    leaning: dict[Pair, float] = {}
    texts: dict[Pair, list[tuple[str, str]]] = defaultdict(list)
    dates: dict[Pair, list[Row]] = defaultdict(list)
    for row, source, target, weight, description, flags in claims(chunk_relations, entities, canonical):
        pair = (source, target) if source < target else (target, source)
        weights[pair] += weight
        if flags and flags[0]:
            leaning[pair] = leaning.get(pair, 0.0) + (weight if pair[0] == source else -weight)
        if description:
            texts[pair].append((row["chunk"], description))
        dates[pair].append(row)
    wanted = {}
    for pair, weight in weights.items():
        distinct = list(dict.fromkeys(text for _chunk, text in sorted(texts[pair])))[:DESCRIPTION_SENTENCES]
        a, b = entities[pair[0]].title, entities[pair[1]].title
        description = " ".join(distinct) or f"{a} and {b} appear in the same passage."
        lean = leaning.get(pair, 0.0)
        source, target = pair if lean >= 0 else (pair[1], pair[0])
        wanted[(source, target)] = {
            "source": source,
            "target": target,
            "weight": round(weight, 4),
            "description": description,
            "directed": lean != 0,
            **_dated(dates[pair]),
        }
    return wanted


def _dated(rows: list[Row]) -> Row:
    updated = [str(r["updated_at"]) for r in rows if r.get("updated_at")]
    ingested = [str(r["ingested_at"]) for r in rows if r.get("ingested_at")]
    return {"updated_at": max(updated, default=None), "ingested_at": min(ingested, default=None)}


def entity_fields(edges: Mapping[Pair, Row], mentions: list[Row], chunk_dates: Mapping[str, Row]) -> dict[str, Row]:
    """{entity: {degree, updated_at, ingested_at}} once `edges` are the graph's RELATED edges and `mentions` (rows
    {chunk, entity}) its HAS_ENTITY ones: what `sync_degrees` and `sync_timestamps` would store, by their rules.

    Why computed here: an entity written with them is not written again by those two statements, and on FalkorDB
    every write of an entity re-indexes its vector and text (~5 ms an entity: 8,361 entities took ~26 s a write).
    `chunk_dates` holds each chunk's document timestamps ({updated_at, ingested_at} by chunk id)."""
    degree: Counter[str] = Counter(entity for pair in edges for entity in pair)
    dates: dict[str, list[Row]] = defaultdict(list)
    for row in mentions:
        if row["chunk"] in chunk_dates:
            dates[row["entity"]].append(chunk_dates[row["chunk"]])
    return {entity: {"degree": degree[entity], **_dated(dates[entity])} for entity in {*degree, *dates}}


#: Edge properties compared to decide whether a stored edge is rewritten.
COMPARED = ("weight", "description", "directed", "updated_at", "ingested_at")


def diff(wanted: dict[Pair, Row], stored: dict[Pair, Row]) -> tuple[list[Row], list[Pair]]:
    """(edges to write, edges to delete); an edge whose direction flipped is one of each."""
    write = [
        row
        for pair, row in sorted(wanted.items())
        if pair not in stored or any(_same(stored[pair].get(key)) != _same(row[key]) for key in COMPARED)
    ]
    return write, sorted(set(stored) - set(wanted))


def _same(value: object) -> object:
    """Stored `directed` is null on graphs written before edges had a direction."""
    return False if value is None else value
