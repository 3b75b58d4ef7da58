"""Key phrases of a community's passages, for its title (titles.py): the common-noun phrases of the sentences
that mention its members (a community of names met in one passage), and the phrases its passages share, weighed by
how close they are in meaning to them (a community whose topics are each named in passing). Why each is needed is
in titles.py's docstring; this module holds the text side of it (sentences, noun chunks, document frequencies).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
from spacy.lang.en.stop_words import STOP_WORDS

from retrieval.indexing.communities import Community
from retrieval.indexing.entities import Entity
from retrieval.indexing.entity_filter import DISCOURSE_WORDS, GENERIC_NOUNS, common_word
from retrieval.indexing.entity_types import ROLES

#: A topic of several words is worth more than one word: "machine learning" over "learning".
BIGRAM_BOOST = 1.5
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
STOP = STOP_WORDS | _FILLERS | GENERIC_NOUNS | DISCOURSE_WORDS | ROLES | {"phd"}
#: A passage's key phrase has at most this many words ("parallel distributed processing")...
PASSAGE_PHRASE_WORDS = 3
#: ...and a community met in one passage is titled by this many of them.
PASSAGE_PHRASES = 2
#: A second phrase joins the first only when it scores this share of it ("CNC & automation"); a weak one
#: would make a mixed list ("Chopin & assertion").
PHRASE_SHARE = 0.75
#: Parts of speech a key phrase is made of: nouns and their modifiers ("evolutionary biologist").
_PHRASE_POS = frozenset({"NOUN", "ADJ", "VERB"})
_WORD = re.compile(r"[a-z0-9]+")
#: Where a sentence ends: enough to find the sentences that mention a member before anything is parsed.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
#: A capitalised word of at most three letters before a full stop: a title or an abbreviation, no sentence end.
_ABBREVIATION = re.compile(r"(?<![\w.])[A-Z][a-z]{0,2}\.$")


def passage_phrases(
    communities: Sequence[Community],
    passages: Mapping[str, set[str]],
    entities: Mapping[str, Entity],
    texts: Mapping[str, str],
) -> dict[str, dict[str, float]]:
    """Community id -> the score of each key phrase of the sentences its passages mention a member in (see the
    module docstring); none for a community whose passages have no text or no such phrase."""
    near: dict[str, list[str]] = {}
    for community in communities:
        names = _member_words(community, entities)
        for chunk in sorted(passages[community.id] & texts.keys()):
            sentences = _sentences(texts[chunk])
            about = [s for s in sentences if names.intersection(_WORD.findall(s.lower()))] or sentences
            near.setdefault(community.id, []).extend(about)
    wanted = sorted({sentence for sentences in near.values() for sentence in sentences})
    if not wanted:
        return {}
    from retrieval.text.nlp import parses  # spaCy is loaded only when a title needs it

    # Only the sentences about the members are parsed, not whole chunks: a corpus of many small communities
    # (encyclopaedia passages) would otherwise parse most of its text a second time.
    parsed = dict(zip(wanted, parses(wanted), strict=True))
    found: dict[str, Counter[str]] = {}
    shown: dict[str, str] = {}
    for community_id, sentences in near.items():
        count: Counter[str] = Counter()
        for sentence in sentences:
            for span in parsed[sentence].noun_chunks:
                phrase = _key_phrase(span)
                key = " ".join(_WORD.findall(phrase.lower()))
                if key:
                    count[key] += 1
                    shown.setdefault(key, phrase)
        if count:
            found[community_id] = count
    chunks_with = _chunk_frequency({key for count in found.values() for key in count}, texts)
    return {
        community_id: {
            shown[key]: n * math.log(1 + len(texts) / max(1, chunks_with[key])) * (BIGRAM_BOOST if " " in key else 1.0)
            for key, n in count.items()
        }
        for community_id, count in found.items()
    }


def _chunk_frequency(keys: set[str], texts: Mapping[str, str]) -> Counter[str]:
    """How many chunks of the graph say each phrase (lower-case words joined by spaces)."""
    found: Counter[str] = Counter()
    for text in texts.values():
        words = _WORD.findall(text.lower())
        grams = {
            " ".join(words[i : i + n]) for n in range(1, PASSAGE_PHRASE_WORDS + 1) for i in range(len(words) - n + 1)
        }
        found.update(grams & keys)
    return found


def central_phrases(
    communities: Sequence[Community],
    passages: Mapping[str, set[str]],
    texts: Mapping[str, str],
    embed: Callable[[Sequence[str]], np.ndarray],
) -> dict[str, list[str]]:
    """Community id -> the key phrases its passages share, best first (see the module docstring): at most
    PASSAGE_PHRASES of them, each scoring PHRASE_SHARE of the best at least; none for a community whose passages
    have no text or no phrase."""
    chunks = {c.id: sorted(passages[c.id] & texts.keys()) for c in communities}
    wanted = sorted({chunk for found in chunks.values() for chunk in found})
    if not wanted:
        return {}
    from retrieval.text.nlp import parses  # spaCy is loaded only when a title needs it

    parsed = dict(zip(wanted, parses(texts[chunk] for chunk in wanted), strict=True))
    said: dict[str, Counter[str]] = {}
    shown: dict[str, str] = {}
    for community_id, found in chunks.items():
        count: Counter[str] = Counter()
        for chunk in found:  # a phrase counts once per passage that says it
            here: set[str] = set()
            for span in parsed[chunk].noun_chunks:
                phrase = _key_phrase(span, shortest=1)
                key = " ".join(_WORD.findall(phrase.lower()))
                if key:
                    here.add(key)
                    shown.setdefault(key, phrase)
            count.update(here)
        if count:
            said[community_id] = count
    chunks_with = _chunk_frequency({key for count in said.values() for key in count}, texts)
    # Each passage and each phrase is embedded once for all the communities (a passage is in its community and
    # every level above it, a phrase in many), in one call each: the pipeline's embedder answers a passage it
    # embedded as a chunk from that vector (a text's vector does not depend on what it is batched with).
    passages_needed = sorted({chunk for community_id in said for chunk in chunks[community_id]})
    passage_row = {chunk: i for i, chunk in enumerate(passages_needed)}
    passage_vectors = embed([texts[chunk] for chunk in passages_needed])
    keys_needed = sorted({key for count in said.values() for key in count})
    key_row = {key: i for i, key in enumerate(keys_needed)}
    key_vectors = embed([shown[key] for key in keys_needed])
    out: dict[str, list[str]] = {}
    for community_id, count in said.items():
        keys = sorted(count)
        centre = passage_vectors[[passage_row[chunk] for chunk in chunks[community_id]]].mean(axis=0)
        unit_centre = centre / max(float(np.linalg.norm(centre)), 1e-12)
        closeness = key_vectors[[key_row[key] for key in keys]] @ unit_centre
        score = {
            shown[key]: count[key] * math.log(1 + len(texts) / max(1, chunks_with[key])) * max(0.0, float(near))
            for key, near in zip(keys, closeness, strict=True)
        }
        ranked = distinct(sorted(score, key=lambda p: (-score[p], p)))
        if ranked and score[ranked[0]] > 0:
            best = score[ranked[0]]
            out[community_id] = [p for p in ranked[:PASSAGE_PHRASES] if score[p] >= PHRASE_SHARE * best]
    return out


def _sentences(text: str) -> list[str]:
    """The text cut where a sentence ends, not after an abbreviation ("Mr. Ed", "Dr. Su", "St. Louis")."""
    out: list[str] = []
    for piece in _SENTENCE_END.split(text):
        if out and _ABBREVIATION.search(out[-1]):
            out[-1] += " " + piece
        elif piece.strip():
            out.append(piece)
    return out


def _member_words(community: Community, entities: Mapping[str, Entity]) -> set[str]:
    """Lower-case words of the members' names (and aliases) long enough to find the sentences about them."""
    words: set[str] = set()
    for member in community.members:
        entity = entities.get(member)
        if entity is not None:
            for name in (entity.title, *entity.aliases):
                words.update(w for w in _WORD.findall(name.lower()) if len(w) > 1 and w not in STOP_WORDS)
    return words


def _key_phrase(span: Any, shortest: int = 2) -> str:
    """A noun chunk's key phrase: its common-noun part, everyday modifiers, names and stop words cut from the
    front ("the talking family pet" -> "family pet"); "" for a pronoun, a name or, unless `shortest` is 1, a
    lone noun (met in one passage it seldom says what the passage is about; the graph's one-word topics are its
    entities, ranked beside these phrases)."""
    tokens = list(span)
    if not tokens or tokens[-1].pos_ != "NOUN":
        return ""
    while tokens and (
        tokens[0].pos_ not in _PHRASE_POS
        or tokens[0].lower_ in STOP
        or (tokens[0].pos_ != "NOUN" and common_word(tokens[0].lower_))
    ):
        tokens = tokens[1:]
    if not shortest <= len(tokens) <= PASSAGE_PHRASE_WORDS:
        return ""
    if any(t.pos_ == "PROPN" or t.lower_ in STOP or t.text != t.lower_ or _not_a_word(t) for t in tokens):
        return ""
    return "".join(t.text_with_ws for t in tokens).strip()


def _not_a_word(token: Any) -> bool:
    """A number or a punctuation mark other than a hyphen ("9th) bishop" of an encyclopaedia's list)."""
    return bool(token.like_num or (token.is_punct and token.text != "-"))


def distinct(phrases: Iterable[str]) -> list[str]:
    """The phrases in order, less those inside one already kept or the other way round: "AMD" and "AMD chips"."""
    chosen: list[str] = []
    for phrase in phrases:
        words = set(phrase.lower().split())
        if not any(words <= set(c.lower().split()) or set(c.lower().split()) <= words for c in chosen):
            chosen.append(phrase)
    return chosen
