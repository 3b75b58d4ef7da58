"""Offline community titles: the community's distinctive key phrases, with its main members beside.

Why class-based TF-IDF: two member names ("Ed & Grumpy Cat") say who is in a community, not what it is
about, and the most frequent words of any community of a podcast are the same fillers. The phrases are the
graph's own topics and names of things (every entity title that is not a person: "machine learning",
"Hurricane Irma", "Xerox PARC"), so a title is made of noun phrases, not word pairs such as "irma goes".
Each community of a level is one class; a phrase scores by how many of the community's members use it (as
their name or in their description), against how often every community of that level does (c-TF-IDF:
tf * log(1 + A / f), A the mean phrase count per class, f the phrase's count over all classes). A phrase
counts only when at least two members use it, so a title is a theme several members share.
Titles are unique within a level: a title already taken there gets the next phrase, then a member.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence

from spacy.lang.en.stop_words import STOP_WORDS

from retrieval.indexing.communities import Community
from retrieval.indexing.entities import Entity
from retrieval.indexing.entity_filter import DISCOURSE_WORDS, GENERIC_NOUNS

PHRASES = 3
MEMBERS_BESIDE = 2
#: Members that must use a phrase for it to name their community.
MIN_MEMBERS = 2
#: A phrase of several words is worth more than one word: "machine learning" over "learning".
BIGRAM_BOOST = 1.5
MAX_PHRASE_WORDS = 4
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
_STOP = STOP_WORDS | _FILLERS | GENERIC_NOUNS | DISCOURSE_WORDS
_WORD = re.compile(r"[a-z0-9][a-z0-9\-'’.]*[a-z0-9]|[a-z0-9]")


def _vocabulary(entities: Mapping[str, Entity]) -> dict[str, str]:
    """Phrases a title may use, lower case -> as written: the graph's topics and names of things, not people
    (people are the members listed beside), nor a lone everyday word."""
    out: dict[str, str] = {}
    for entity in entities.values():
        lowered = entity.title.lower()
        if entity.type != "PERSON" and len(lowered) > 2 and lowered not in _STOP:
            out.setdefault(lowered, entity.title)
    return out


def _phrases(text: str, vocabulary: Mapping[str, str]) -> set[str]:
    """The vocabulary's phrases (one to four words) that `text` uses."""
    words = _WORD.findall(text.lower())
    found = set()
    for n in range(1, MAX_PHRASE_WORDS + 1):
        for i in range(len(words) - n + 1):
            phrase = " ".join(words[i : i + n])
            if phrase in vocabulary:
                found.add(phrase)
    return found


def community_titles(tree: Sequence[Community], entities: Mapping[str, Entity]) -> dict[str, str]:
    """A title per community id of `tree`, unique within each level."""
    vocabulary = _vocabulary(entities)
    per_member = {}
    for key, entity in entities.items():
        own = _phrases(entity.description, vocabulary)
        if entity.title.lower() in vocabulary:
            own.add(entity.title.lower())
        per_member[key] = own
    titles: dict[str, str] = {}
    by_level: dict[int, list[Community]] = defaultdict(list)
    for community in tree:
        by_level[community.level].append(community)
    for level_communities in by_level.values():
        counts = {c.id: _counts(c.members, per_member) for c in level_communities}
        totals: Counter[str] = Counter()
        for count in counts.values():
            totals.update(count)
        average = sum(totals.values()) / max(1, len(counts))
        taken: set[str] = set()
        for community in sorted(level_communities, key=lambda c: (-len(c.members), c.id)):
            ranked = [vocabulary[p] for p in _ranked(counts[community.id], totals, average)]
            members = _main_members(community, entities)
            titles[community.id] = _unique(ranked, members, taken)
    return titles


def _counts(members: Iterable[str], per_member: Mapping[str, set[str]]) -> Counter[str]:
    """How many members use each phrase, kept only where several do."""
    count: Counter[str] = Counter()
    for member in members:
        count.update(per_member.get(member, ()))
    return Counter({p: n for p, n in count.items() if n >= MIN_MEMBERS})


def _ranked(count: Counter[str], totals: Counter[str], average: float) -> list[str]:
    scores = {p: n * math.log(1 + average / totals[p]) * (BIGRAM_BOOST if " " in p else 1.0) for p, n in count.items()}
    chosen: list[str] = []
    for phrase in sorted(scores, key=lambda p: (-scores[p], p)):
        if any(phrase in c.split() or set(phrase.split()) <= set(c.split()) for c in chosen):
            continue  # a word of a phrase already chosen
        chosen.append(phrase)
    return chosen


def _main_members(community: Community, entities: Mapping[str, Entity]) -> list[str]:
    present = [entities[m] for m in community.members if m in entities]
    return [e.title for e in sorted(present, key=lambda e: (-e.mentions, e.title))]


def _unique(ranked: list[str], members: list[str], taken: set[str]) -> str:
    """'phrase, phrase & phrase (Member, Member)', made unique within the level by more phrases or members."""
    beside = members[:MEMBERS_BESIDE]
    for extra in range(max(1, len(ranked) - PHRASES + 1)):
        title = _format(ranked[: PHRASES + extra], beside)
        if title not in taken:
            taken.add(title)
            return title
    for n in range(MEMBERS_BESIDE + 1, len(members) + 1):
        title = _format(ranked[:PHRASES], members[:n])
        if title not in taken:
            taken.add(title)
            return title
    title, n = _format(ranked[:PHRASES], beside), 2
    while f"{title} {n}" in taken:
        n += 1
    taken.add(f"{title} {n}")
    return f"{title} {n}"


def _format(phrases: list[str], members: list[str]) -> str:
    named = ", ".join(members)
    if not phrases:
        return named
    head = phrases[0] if len(phrases) == 1 else ", ".join(phrases[:-1]) + f" & {phrases[-1]}"
    return f"{head} ({named})" if named else head
