"""DRIFT's extractive counterparts: with no language model every step still runs on real evidence.

Why they exist: the tree must be real and inspectable offline, so the primer answers from the
community summaries, follow-ups are asked about the entities the question's best hits name (the
second hop) and the most-mentioned entities of the target communities (phrased from an entity and
its most-mentioned partner of the other kind, as a person would ask: "What does Andrew Ng say about
AGI?"), and answers are ranked evidence sentences with their citations, the question's own hits first.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence

import numpy as np

from retrieval.embed import Embedder
from retrieval.models import Hit, KeyFact
from retrieval.search.community_context import CommunityReport, EntityRef
from retrieval.search.evidence import display, distinct, near_duplicate, sentences

_WORD = re.compile(r"\w+")


class MemoEmbedder(Embedder):
    """The run's embedder with a memory: the same chunks recur across follow-ups and aggregation.

    Sentences embedded for one follow-up are free for the next one and for the final ranking,
    which keeps offline DRIFT within its latency budget. Thread-safe; lives for one answer.
    """

    def __init__(self, inner: Embedder) -> None:
        self._inner = inner
        self.name = inner.name
        self._memo: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()

    @property
    def dim(self) -> int:
        return self._inner.dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        with self._lock:
            missing = list(dict.fromkeys(t for t in texts if t not in self._memo))
        if missing:
            fresh = self._inner.embed(missing)
            with self._lock:
                self._memo.update(zip(missing, fresh, strict=True))
        with self._lock:
            rows = [self._memo[t] for t in texts]
        return np.stack(rows) if rows else np.zeros((0, self.dim), dtype=np.float32)


def best_sentence(claim: str, text: str) -> str:
    """The sentence of `text` sharing most words with `claim` (first on ties): a verbatim span for a bare id."""
    return _by_overlap(claim, sentences(text) or [text.strip()])[0]


def _by_overlap(claim: str, options: Sequence[str]) -> list[str]:
    """`options` by how many words they share with `claim`, most first (stable, so earlier wins ties)."""
    words = set(_WORD.findall(claim.lower()))
    return sorted(options, key=lambda option: -len(words & set(_WORD.findall(option.lower()))))


def primer_answer(question: str, reports: Sequence[CommunityReport], limit: int = 3) -> str:
    """The best communities' summary sentences that share most words with the question, titled by community.

    Lexical on purpose: the communities are already ranked by embedding, and embedding every summary
    sentence again would cost more than the rest of the offline primer. Summaries repeat sentences
    (overlapping chunks, parent and child communities), so a variant of one already said is skipped.
    """
    picked: list[tuple[str, str]] = []
    for report in reports[:limit]:
        options = sentences(report.summary)
        for option in _by_overlap(question, [options[i] for i in distinct(options)]):
            if not any(near_duplicate(option, said) for _title, said in picked):
                picked.append((report.title, option))
                break
    return " ".join(f"[{title}] {display(sentence)}" for title, sentence in picked)


def entity_question(question: str, entity: EntityRef, peers: Sequence[EntityRef]) -> str:
    """A follow-up about one entity, paired with a peer of its community: one the question names, else the
    most-mentioned one of the other kind (person or not).

    A person is asked what they say about a topic, a topic what a person says about it; two of a kind
    are asked how they relate. With no peer, the entity alone.
    """
    person = entity.type == "PERSON"
    others = [p for p in peers if p.id != entity.id]
    named = [p for p in others if p.title.lower() in question.lower()]
    partner = next((p for p in [*named, *others] if (p.type == "PERSON") != person), None)
    if partner is not None:
        speaker, topic = (entity, partner) if person else (partner, entity)
        return f"What does {speaker.title} say about {topic.title}?"
    if others:
        return f"How is {entity.title} related to {others[0].title}?"
    return f"Who is {entity.title}?" if person else f"What is said about {entity.title}?"


def entity_followups(
    question: str, entities: dict[str, list[EntityRef]], order: Sequence[str], asked: set[str], limit: int
) -> list[tuple[str, EntityRef]]:
    """Round-robin over communities (in `order`), most-mentioned entity first, skipping asked topics."""
    picked: list[tuple[str, EntityRef]] = []
    queues = {k: [e for e in entities.get(k, []) if e.id not in asked] for k in order}
    while len(picked) < limit and any(queues.values()):
        for community in order:
            if queues[community] and len(picked) < limit:
                entity = queues[community].pop(0)
                if entity.id not in asked and all(entity.id != e.id for _q, e in picked):
                    picked.append((entity_question(question, entity, entities.get(community, [])), entity))
    return picked


def bridge_topics(
    question: str, hit_entities: dict[str, float], refs: Sequence[EntityRef], limit: int
) -> list[EntityRef]:
    """The entities of the best direct hits that the question does not name, best hit first, rarest first within one.

    Why: a multi-hop question's second hop is about something its first passage names ("Brand is a play by Henrik
    Ibsen" -> Ibsen), not about the most-mentioned entities of a community; a rare name ties two passages, a name
    found everywhere ties none.
    """
    asked = question.lower()
    fresh = [r for r in refs if r.title.lower() not in asked and r.id in hit_entities]
    return sorted(fresh, key=lambda r: (-hit_entities[r.id], r.mentions, r.title))[:limit]


def question_ranked(direct: Sequence[Hit], others: Sequence[Hit], limit: int) -> list[Hit]:
    """The chunks an offline DRIFT answer's key facts come from: the direct hits, and follow-up material only
    where the question itself scores it higher.

    `direct` are the question's own retrieval (best first), `others` the rest of what the follow-ups retrieved,
    scored against the question by the same search. The best direct hit stays first (as in local search); ties go
    to the direct hits. Why: a follow-up about a community's entity retrieves passages that answer the follow-up,
    and ranking them by that search's scores let them crowd out the passages that answer the question.
    """
    if not direct:
        return sorted(others, key=lambda h: -h.score)[:limit]
    seen = {h.id for h in direct}
    rest = sorted([*direct[1:], *(h for h in others if h.id not in seen)], key=lambda h: -h.score)
    return [direct[0], *rest][:limit]


def best_score(facts: Sequence[KeyFact]) -> float:
    return max((c.score or 0.0 for f in facts for c in f.citations), default=0.0)


def offline_confidence(similarity: float) -> float:
    """Offline confidence: the best evidence similarity, clipped to 0..1 (a ranking signal, not a probability)."""
    return round(min(max(similarity, 0.0), 1.0), 3)
