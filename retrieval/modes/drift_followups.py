"""DRIFT's open questions: what a follow-up is, and who may ask which (the model's, or offline the entities').

Why its own module: every branch of the tree proposes follow-ups concurrently, and no two may ask the same
question or about the same topic; the planner holds that shared memory for one answer. Offline follow-ups
come from the entities the question's best hits name (the second hop of a multi-hop question) and from the
most-mentioned entities of the target communities.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from retrieval.context import Context
from retrieval.modes.drift_offline import bridge_topics, entity_followups, entity_question
from retrieval.modes.steps import clamp01
from retrieval.search.community_context import EntityRef, entity_refs, top_entities

ENTITIES_PER_COMMUNITY = 6


@dataclass
class FollowUp:
    """An open question in the tree; `priority` (0-1) is the model's, or offline its similarity to the question."""

    question: str
    targets: tuple[str, ...]
    priority: float
    parent_id: str
    seq: int
    topic: str | None = None
    vector: np.ndarray | None = None
    relevance: float = 0.0
    #: Searched with the question (offline: the user's question), so an entity follow-up phrased as a person
    #: would ask it still retrieves what bears on what was asked; the tree shows `question` alone.
    context: str = ""

    @property
    def query(self) -> str:
        return f"{self.question} {self.context}" if self.context else self.question

    def rank_key(self) -> tuple[float, float, int]:
        """Best first; ties go to the one closer to the question, then to the one asked first (never random)."""
        return (-self.priority, -self.relevance, self.seq)


def norm(question: str) -> str:
    return " ".join(question.lower().split())


class FollowUpPlanner:
    """The follow-ups of one answer: new questions only, each topic asked once; thread-safe."""

    def __init__(self, ctx: Context, question: str) -> None:
        self.ctx = ctx
        self.question = question
        self._lock = threading.Lock()
        self._seq = itertools.count()
        self._asked: set[str] = {norm(question)}
        self._topics: set[str] = set()
        self._entities: dict[str, list[EntityRef]] = {}

    def from_model(
        self, items: Sequence[Any], parent_id: str, limit: int, default_targets: tuple[str, ...], known: set[str]
    ) -> list[FollowUp]:
        """The model's follow-ups, new questions only; target ids not in `known` fall back to the parent's targets."""
        made: list[FollowUp] = []
        for item in items:
            if not isinstance(item, dict) or not str(item.get("question", "")).strip() or len(made) >= limit:
                continue
            question = str(item["question"]).strip()
            if not self.claim(question, None):
                continue
            targets = tuple(t for t in map(str, item.get("target_communities") or []) if t in known)
            made.append(
                FollowUp(
                    question=question,
                    targets=targets or default_targets,
                    priority=clamp01(item.get("priority"), default=0.5),
                    parent_id=parent_id,
                    seq=next(self._seq),
                )
            )
        return made

    def from_entities(self, targets: tuple[str, ...], parent_id: str, limit: int) -> list[FollowUp]:
        """Offline follow-ups: the most-mentioned unasked entities of the target communities."""
        if limit < 1 or not targets:
            return []
        entities = self.topics_of(targets)
        with self._lock:
            asked = set(self._topics)
        picked = entity_followups(self.question, entities, targets, asked, limit)
        return [
            self._about(question, entity, parent_id) for question, entity in picked if self.claim(question, entity.id)
        ]

    def from_bridges(self, hit_entities: dict[str, float], parent_id: str, limit: int) -> list[FollowUp]:
        """Offline follow-ups about what the question's best hits name and the question does not: the second hop."""
        ranked = sorted(hit_entities, key=lambda e: -hit_entities[e])
        topics = bridge_topics(self.question, hit_entities, entity_refs(self.ctx, ranked), limit)
        asked = [(entity_question(self.question, entity, []), entity) for entity in topics]
        return [
            self._about(question, entity, parent_id) for question, entity in asked if self.claim(question, entity.id)
        ]

    def _about(self, question: str, entity: EntityRef, parent_id: str) -> FollowUp:
        """A follow-up about one entity, scoped to its own community and searched with the user's question."""
        return FollowUp(
            question, (entity.community,), 0.0, parent_id, next(self._seq), topic=entity.id, context=self.question
        )

    def topics_of(self, targets: tuple[str, ...]) -> dict[str, list[EntityRef]]:
        """Top entities per community, read once per answer for each community."""
        with self._lock:
            missing = [t for t in targets if t not in self._entities]
        if missing:
            found = top_entities(self.ctx, missing, ENTITIES_PER_COMMUNITY)
            with self._lock:
                self._entities.update({t: found.get(t, []) for t in missing})
        with self._lock:
            return {t: self._entities[t] for t in targets}

    def claim(self, question: str, topic: str | None) -> bool:
        """Reserve a question (and its topic) so no two branches ask the same thing."""
        with self._lock:
            if norm(question) in self._asked or (topic is not None and topic in self._topics):
                return False
            self._asked.add(norm(question))
            if topic is not None:
                self._topics.add(topic)
            return True
