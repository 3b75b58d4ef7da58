"""Offline community titles: the topics a community's passages talk about more than the rest of the graph does.

Why class-based TF-IDF over chunks: two member names ("Ed & Grumpy Cat") say who is in a community, not what it
is about, and a member's three description sentences are too little text to find its theme. The passages that
mention a community's members are what the community is about. Each community of a level is one class; its
text is every chunk that mentions one of its members, and the phrases counted are the topics those chunks
mention (the graph's own non-person entities: "machine learning", "Hurricane Irma", "Xerox PARC"; people are
the members the report lists beside the title, never a topic: at most its lead, below). A topic scores by how
many of the class's chunks mention it against how often every class of the level does (c-TF-IDF:
tf * log(1 + A / f), A the mean topic count per class, f the topic's count over all classes), so the host's
everyday words lose to what only this community discusses. A topic must be mentioned in at least two of the
community's chunks; a community with no such topic (two names met once) is titled by its best topic mentioned
once, and by its members only when its passages mention no topic at all.
A community held together by one person who is not everywhere (a guest, a character, not a show's host) is
led by that person: "Lisa Su: AMD, hardware & compute" is how an analyst knows that conversation, where
"AMD, hardware & compute" alone could be anyone's. The lead is the person member mentioned in the most of the
community's chunks, when those are at least LEAD_SHARE of them and the person is mentioned in at most
LEAD_DOCUMENTS of the graph's documents (a host mentioned in every episode leads nothing).
Titles are unique within a level: a title already taken there gets the next topic, then its main member.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from spacy.lang.en.stop_words import STOP_WORDS

from retrieval.indexing.communities import Community
from retrieval.indexing.entities import Entity
from retrieval.indexing.entity_filter import DISCOURSE_WORDS, GENERIC_NOUNS
from retrieval.indexing.entity_types import ROLES

PHRASES = 3
#: Topics after a lead person's name ("Lisa Su: AMD, hardware & compute").
LED_PHRASES = 3
#: A person leads a community whose chunks mention them in at least this share...
LEAD_SHARE = 0.3
#: ...when they are mentioned in at most this share of the graph's documents (more: a host, a narrator)...
LEAD_DOCUMENTS = 0.34
#: ...and in at least this many chunks (a name met once, "Castle Wolfenstein" typed PERSON, leads nothing).
LEAD_MIN_CHUNKS = 3
#: Chunks of a community that must mention a topic for it to name the community.
MIN_CHUNKS = 2
#: A topic of several words is worth more than one word: "machine learning" over "learning".
BIGRAM_BOOST = 1.5
#: Places, nationalities and languages say where a conversation happens, seldom what it is about ("Europe,
#: Japanese & Xerox"): they count this much of a topic's score.
WHERE = frozenset({"GPE", "LOC", "NORP", "LANGUAGE", "FAC"})
WHERE_WEIGHT = 0.5
#: Words of spoken English that say nothing about a topic, on top of spaCy's stop words.
_FILLERS = frozenset(
    {
        "like", "know", "think", "really", "just", "going", "gonna", "actually", "mean", "want", "got", "said",
        "say", "says", "lot", "kind", "sort", "stuff", "thing", "things", "pretty", "little", "big", "good",
        "great", "maybe", "probably", "able", "look", "looking", "talk", "talking", "come", "came", "went",
        "let", "sure", "way", "ways", "years", "year", "time", "times", "people", "person", "today", "new",
        "tell", "told", "feel", "felt", "guess", "interesting", "important", "different", "starting", "started",
        "thank", "thanks", "wanted", "trying", "try", "lots", "bunch", "doing", "make", "makes", "making",
    }
)  # fmt: skip
_STOP = STOP_WORDS | _FILLERS | GENERIC_NOUNS | DISCOURSE_WORDS | ROLES | {"phd"}


def _topics(entities: Mapping[str, Entity]) -> dict[str, tuple[str, float]]:
    """Entity id -> (title, weight) of the entities a title may use: topics and names of things, not people
    (they are listed beside), nor a lone everyday word."""
    out: dict[str, tuple[str, float]] = {}
    for key, entity in entities.items():
        lowered = entity.title.lower()
        if entity.type != "PERSON" and len(lowered) > 2 and lowered not in _STOP:
            weight = (BIGRAM_BOOST if " " in lowered else 1.0) * (WHERE_WEIGHT if entity.type in WHERE else 1.0)
            out[key] = (entity.title, weight)
    return out


def community_titles(
    tree: Sequence[Community], entities: Mapping[str, Entity], mentions: Iterable[Mapping[str, Any]]
) -> dict[str, str]:
    """A title per community id of `tree`, unique within each level; `mentions` are the chunk -> entity rows
    (`chunk`, `entity`) the entities were resolved from."""
    topics = _topics(entities)
    chunks_of: dict[str, set[str]] = defaultdict(set)
    topics_in: dict[str, set[str]] = defaultdict(set)
    for row in mentions:
        chunk, entity = str(row["chunk"]), str(row["entity"])
        chunks_of[entity].add(chunk)
        if entity in topics:
            topics_in[chunk].add(entity)
    documents = {_document(c) for chunks in chunks_of.values() for c in chunks}
    local = {
        key
        for key, entity in entities.items()
        if entity.type == "PERSON"
        and len({_document(c) for c in chunks_of.get(key, ())}) <= max(1.0, LEAD_DOCUMENTS * len(documents))
    }
    by_level: dict[int, list[Community]] = defaultdict(list)
    for community in tree:
        by_level[community.level].append(community)
    titles: dict[str, str] = {}
    for level_communities in by_level.values():
        counts = {c.id: _counts(c.members, chunks_of, topics_in) for c in level_communities}
        totals: Counter[str] = Counter()
        for count in counts.values():
            totals.update(count)
        average = sum(totals.values()) / max(1, len(counts))
        taken: set[str] = set()
        for community in sorted(level_communities, key=lambda c: (-len(c.members), c.id)):
            ranked = _ranked(counts[community.id], totals, average, topics)
            lead = _lead(community, local, chunks_of, entities)
            titles[community.id] = _unique(ranked, _main_members(community, entities), taken, lead)
    return titles


def _counts(
    members: Iterable[str], chunks_of: Mapping[str, set[str]], topics_in: Mapping[str, set[str]]
) -> Counter[str]:
    """How many of the community's chunks (those mentioning a member) mention each topic."""
    chunks: set[str] = set()
    for member in members:
        chunks |= chunks_of.get(member, set())
    count: Counter[str] = Counter()
    for chunk in chunks:
        count.update(topics_in.get(chunk, ()))
    return count


def _ranked(
    count: Counter[str], totals: Counter[str], average: float, topics: Mapping[str, tuple[str, float]]
) -> list[str]:
    """Topic titles best first; those mentioned once come only when no topic is mentioned in several chunks."""

    def score(key: str) -> float:
        return count[key] * math.log(1 + average / totals[key]) * topics[key][1]

    shared = [k for k in count if count[k] >= MIN_CHUNKS]
    keys = shared or list(count)
    chosen: list[str] = []
    for key in sorted(keys, key=lambda k: (-score(k), topics[k][0])):
        title = topics[key][0]
        words = set(title.lower().split())
        if any(words <= set(c.lower().split()) or set(c.lower().split()) <= words for c in chosen):
            continue  # a topic inside one already chosen, or the other way round: "AMD" and "AMD chips"
        chosen.append(title)
    return chosen


def _document(chunk: str) -> str:
    return chunk.rsplit(":", 1)[0]


def _lead(
    community: Community, local: set[str], chunks_of: Mapping[str, set[str]], entities: Mapping[str, Entity]
) -> str:
    """The person the community is about (see the module docstring), or "" when there is none."""
    chunks: set[str] = set()
    for member in community.members:
        chunks |= chunks_of.get(member, set())
    people = sorted(
        (m for m in community.members if m in local), key=lambda m: (-len(chunks_of.get(m, ())), entities[m].title)
    )
    found = len(chunks_of.get(people[0], ())) if people else 0
    if found >= LEAD_MIN_CHUNKS and found >= LEAD_SHARE * len(chunks):
        return entities[people[0]].title
    return ""


def _main_members(community: Community, entities: Mapping[str, Entity]) -> list[str]:
    present = [entities[m] for m in community.members if m in entities]
    return [e.title for e in sorted(present, key=lambda e: (-e.mentions, e.title))]


def _unique(ranked: list[str], members: list[str], taken: set[str], lead: str = "") -> str:
    """'topic, topic & topic' (after 'Lead: ' when a person leads), made unique within the level by more
    topics, then by the main member."""
    ranked = [t for t in ranked if t != lead]
    if lead and ranked:
        more = range(max(1, len(ranked) - LED_PHRASES + 1))
        candidates = [f"{lead}: {_format(ranked[: LED_PHRASES + extra])}" for extra in more]
    elif lead:
        candidates = [lead, *(f"{lead} & {_format(members[1:n])}" for n in range(2, len(members) + 1))]
    else:
        candidates = [_format(ranked[: PHRASES + extra]) for extra in range(max(1, len(ranked) - PHRASES + 1))]
    if not ranked and not lead:  # passages that mention no topic: the members are all there is to say
        candidates = [_format(members[:n]) for n in range(2, len(members) + 1)] or [_format(members[:1])]
    candidates += [f"{candidates[0]} ({m})" for m in members[:1] if ranked]
    for title in candidates:
        if title not in taken:
            taken.add(title)
            return title
    n = 2
    while f"{candidates[0]} {n}" in taken:
        n += 1
    taken.add(f"{candidates[0]} {n}")
    return f"{candidates[0]} {n}"


def _format(phrases: list[str]) -> str:
    if len(phrases) <= 1:
        return "".join(phrases)
    return ", ".join(phrases[:-1]) + f" & {phrases[-1]}"
