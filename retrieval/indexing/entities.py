"""Resolve and describe stage: one entity per normalised title, described by its source sentences.

Why reconcile from mentions: every entity property is a pure function of the HAS_ENTITY mentions
the chunks carry. Recomputing the wanted state and writing only the difference makes edits,
deletions and resumed runs converge to the same graph, and touches nothing when nothing changed.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass

from retrieval.indexing.model import graph_type
from retrieval.indexing.resolution import Resolution
from retrieval.store.records import Row
from retrieval.text.readable import boilerplate, sentence_key

#: Sentences per extractive description (ranked by how often the entity appears in their chunk).
DESCRIPTION_SENTENCES = 3
#: Characters of the best sentence embedded with an entity's name and type. Why not fewer: entity embedding is
#: the largest stage that many small documents add and its cost follows the tokens, but 80 characters (0.66x of the
#: stage's CPU on MuSiQue's entities) cost HotpotQA dev-200 R@5 0.007 (0.865 -> 0.858, side by side) for MuSiQue's
#: +0.003 (docs/benchmarks.md, "Many small documents", branch wt67).
EMBED_CONTEXT_CHARS = 160
#: A copula right after the name: "Mira Murati is the CTO ...".
_COPULA = re.compile(r"\s*(?:is|was|are|were|'s|’s)\s+(?:the|a|an|our|my|one|now|currently|also)\b", re.IGNORECASE)
#: Words that introduce a guest just before the name.
_INTRODUCTION = re.compile(r"\b(?:guest|joined by|welcome|introduce|with us|meet)\b[^.]{0,40}$", re.IGNORECASE)
#: Words that say what someone or something is.
_ROLE = re.compile(
    r"\b(?:founder|co-founder|CEO|CTO|chief|president|professor|director|head|author|host|chair|scientist|"
    r"engineer|researcher|astronaut|investor|partner|inventor|company|university|organization|institute)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Entity:
    id: str
    title: str
    type: str
    #: (sentence, chunk id) pairs, best first: the description and where each sentence came from.
    evidence: tuple[tuple[str, str], ...]
    mentions: int
    #: Other names the merged keys were written as, and why each merged key is this entity (resolution.py).
    aliases: tuple[str, ...] = ()
    merge_reasons: tuple[str, ...] = ()

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
            "aliases": list(self.aliases),
            "merge_reasons": list(self.merge_reasons),
        }


def _title(surfaces: Counter[str]) -> str:
    """Most frequent surface form, preferring mixed case ('Kevin Scott' over a 'KEVIN SCOTT:' label)."""
    return max(surfaces.items(), key=lambda item: (not item[0].isupper(), item[1], item[0]))[0]


#: An appositive right after the name: "Lisa Su, the CEO of AMD", "Mae Jemison, who flew ...".
_APPOSITIVE = re.compile(
    r",\s*(?:the|a|an|who|which|our|my|one of|now|then|former|co-?founder|CEO|CTO)\b", re.IGNORECASE
)
#: Words just before a name that address the person ("Thank you, Kevin."): a reply, not a description.
_ADDRESSED = re.compile(r"\b(?:thank you|thanks|hi|hey|hello|yes|yeah|well|oh|so|and|right)[,!]?\s*$", re.IGNORECASE)
_FIRST_PERSON = re.compile(r"^(?:I|I'm|I’m|I've|I’ve|We|My|Me)\b")


def defining(sentence: str, title: str) -> int:
    """How well a sentence says who or what `title` is: 2 for "Title is the ..."/"Title, the CTO of ...", 1 for
    an introduction ("Today's guest is Title") or the title with a role word ("founder", "professor"), else 0
    (also when the title is only addressed: "Thank you, Title")."""
    lowered, name = sentence.lower(), title.lower()
    at = lowered.find(name)
    if at < 0 or _ADDRESSED.search(sentence[:at]):
        return 0
    after = sentence[at + len(name) : at + len(name) + 40]
    if _APPOSITIVE.match(after) or _COPULA.match(after):
        return 2
    return 1 if _INTRODUCTION.search(sentence[:at]) or _ROLE.search(sentence) else 0


def _defines(sentence: str, names: tuple[str, ...]) -> int:
    """The best `defining` score over an entity's names (a merged "Lisa" sentence can define Lisa Su)."""
    return max((defining(sentence, name) for name in names), default=0)


def _document(chunk_id: str) -> str:
    return chunk_id.rsplit(":", 1)[0]


def resolve(mentions: list[Row], merged: Resolution | None = None) -> dict[str, Entity]:
    """The wanted entities, from rows {chunk, entity, key, surface, type, count, evidence}.

    Rows are grouped by the entity their raw key resolves to (`merged`; each key its own entity without).
    Descriptions prefer sentences that define the entity, and skip boilerplate: a sentence repeated in
    many documents (a show's intro) is not about any entity in it.
    """
    merged = merged or Resolution({}, {})
    repeated = boilerplate((_document(row["chunk"]), row["evidence"]) for row in mentions if row["evidence"])
    by_entity: dict[str, list[Row]] = defaultdict(list)
    for row in mentions:
        by_entity[merged.of(_key(row))].append(row)
    entities = {}
    for entity_id, rows in by_entity.items():
        surfaces: Counter[str] = Counter()
        types: Counter[str] = Counter()
        for row in rows:
            surfaces[row["surface"]] += row["count"]
            types[row["type"]] += row["count"]
        own = Counter({s: n for s, n in surfaces.items() if s in _surfaces(rows, entity_id)})
        title = _title(own or surfaces)  # the resolved key's own name, not a merged first name
        seen: set[str] = set()
        sentences: list[tuple[str, str]] = []
        names = (title, *_aliases(surfaces, title))
        for row in sorted(
            rows,
            key=lambda r: (
                -_defines(r["evidence"], names),
                bool(_FIRST_PERSON.match(r["evidence"])),  # a quote says what its speaker thinks, not who
                -r["count"],
                r["chunk"],
            ),
        ):
            key = sentence_key(row["evidence"])
            if key and key not in seen and key not in repeated:
                seen.add(key)
                sentences.append((row["evidence"], row["chunk"]))
            if len(sentences) == DESCRIPTION_SENTENCES:
                break
        entities[entity_id] = Entity(
            id=entity_id,
            title=title,
            type=merged.types.get(entity_id, graph_type(types)),
            evidence=tuple(sentences),
            mentions=len({row["chunk"] for row in rows}),
            aliases=_aliases(surfaces, title),
            merge_reasons=tuple(
                sorted(
                    {
                        f"{_title(_surfaces(rows, key))}: {merged.reasons[key]}"
                        for key in _keys(rows)
                        if key in merged.reasons
                    }
                )
            ),
        )
    return entities


#: Aliases kept per entity (the most frequent first).
MAX_ALIASES = 12


def _key(row: Row) -> str:
    """The raw key a mention was extracted as (graphs written before resolution have only the entity id)."""
    return str(row.get("key") or row["entity"])


def _keys(rows: list[Row]) -> set[str]:
    return {_key(row) for row in rows}


def _surfaces(rows: list[Row], key: str) -> Counter[str]:
    return Counter(row["surface"] for row in rows if _key(row) == key)


def _aliases(surfaces: Counter[str], title: str) -> tuple[str, ...]:
    """Distinct other spellings, ignoring case and upper-case speaker labels of the title itself."""
    seen = {title.lower()}
    out = []
    for surface, _n in sorted(surfaces.items(), key=lambda item: (-item[1], item[0])):
        if surface.lower() not in seen:
            seen.add(surface.lower())
            out.append(surface)
    return tuple(out[:MAX_ALIASES])


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
