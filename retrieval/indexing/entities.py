"""Resolve and describe stage: one entity per normalised title, described by its source sentences.

Why reconcile from mentions: every entity property is a pure function of the HAS_ENTITY mentions
the chunks carry. Recomputing the wanted state and writing only the difference makes edits,
deletions and resumed runs converge to the same graph, and touches nothing when nothing changed.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass

from retrieval.indexing.model import majority_type
from retrieval.store.base import Row

#: Sentences per extractive description (ranked by how often the entity appears in their chunk).
DESCRIPTION_SENTENCES = 3
EMBED_CONTEXT_CHARS = 160


@dataclass(frozen=True)
class Entity:
    id: str
    title: str
    type: str
    #: (sentence, chunk id) pairs, best first: the description and where each sentence came from.
    evidence: tuple[tuple[str, str], ...]
    mentions: int

    @property
    def description(self) -> str:
        return " ".join(sentence for sentence, _chunk in self.evidence)

    @property
    def source_chunks(self) -> tuple[str, ...]:
        return tuple(chunk for _sentence, chunk in self.evidence)

    def embedding_text(self) -> str:
        """Name, type and the start of the best sentence: short texts keep entity embedding cheap."""
        first = self.evidence[0][0][:EMBED_CONTEXT_CHARS] if self.evidence else ""
        return f"{self.title} ({self.type}): {first}"

    def row(self) -> Row:
        return {
            "id": self.id,
            "title": self.title,
            "type": self.type,
            "description": self.description,
            "source_chunks": list(self.source_chunks),
            "mentions": self.mentions,
        }


def _title(surfaces: Counter[str]) -> str:
    """Most frequent surface form, preferring mixed case ('Kevin Scott' over a 'KEVIN SCOTT:' label)."""
    return max(surfaces.items(), key=lambda item: (not item[0].isupper(), item[1], item[0]))[0]


def resolve(mentions: list[Row]) -> dict[str, Entity]:
    """The wanted entities, from rows {chunk, entity, surface, type, count, evidence}."""
    by_entity: dict[str, list[Row]] = defaultdict(list)
    for row in mentions:
        by_entity[row["entity"]].append(row)
    entities = {}
    for entity_id, rows in by_entity.items():
        surfaces: Counter[str] = Counter()
        types: Counter[str] = Counter()
        for row in rows:
            surfaces[row["surface"]] += row["count"]
            types[row["type"]] += row["count"]
        seen: set[str] = set()
        sentences: list[tuple[str, str]] = []
        for row in sorted(rows, key=lambda r: (-r["count"], r["chunk"])):
            key = " ".join(row["evidence"].lower().split())
            if key and key not in seen:
                seen.add(key)
                sentences.append((row["evidence"], row["chunk"]))
            if len(sentences) == DESCRIPTION_SENTENCES:
                break
        entities[entity_id] = Entity(
            id=entity_id,
            title=_title(surfaces),
            type=majority_type(types),
            evidence=tuple(sentences),
            mentions=len({row["chunk"] for row in rows}),
        )
    return entities


def changed(wanted: dict[str, Entity], stored: dict[str, Row]) -> list[Entity]:
    """Entities whose stored properties differ from the wanted ones, or that have no embedding yet."""
    out = []
    for entity_id, entity in sorted(wanted.items()):
        have = stored.get(entity_id)
        if (
            have is None
            or not have.get("embedded")
            or any(have.get(key) != value for key, value in entity.row().items())
        ):
            out.append(entity)
    return out
