"""Extract stage without an LLM: spaCy named entities plus keyphrase concepts, co-occurrence relations.

Why this mix: the small spaCy model finds people, organisations and places well enough, but the
topics an analyst asks about ("machine learning", "fusion energy") are not named entities. yake
ranks a document's keyphrases; those that also appear as noun chunks become CONCEPT entities.
Aliases are resolved per document, where they are unambiguous: a lone "Gates" (or "Fei-Fei") in a
document whose only longer person ending (or starting) with those words is "Bill Gates" means Bill
Gates. Transcript speaker labels are PERSON evidence, and junk is filtered (retrieval/indexing/entity_filter.py).
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter, defaultdict
from typing import Any

from spacy.tokens import Span

from retrieval.indexing import defined, entity_types, person_line
from retrieval.indexing.chunking import Chunk
from retrieval.indexing.entity_filter import GENERIC_NOUNS, DocumentWords, alias_map, junk, named_type, too_rare
from retrieval.indexing.entity_kinds import thing_named
from retrieval.indexing.entity_names import (
    author_named,
    epithet_named,
    kind_after,
    kinds_after,
    piece_of_a_name,
    place_named,
    regnal_named,
)
from retrieval.indexing.infobox import cells
from retrieval.indexing.model import CONCEPT, ChunkExtraction, Mention, Relation, slug
from retrieval.indexing.name_edges import completed, coordinated, numbered
from retrieval.indexing.name_pieces import extended
from retrieval.indexing.name_starts import begun
from retrieval.text.nlp import nlp
from retrieval.text.speakers import labels, strip_label

ENTITY_TYPES = frozenset(
    {"PERSON", "ORG", "GPE", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART", "NORP", "FAC", "LAW", "LANGUAGE"}
)
#: Noise the small model tags as entities in conversational text.
_STOP_KEYS = frozenset({"mm-hmm", "uh-huh", "yeah", "okay", "ok", "um", "uh", "hmm", "music", "laughter"})
_OPENING_QUOTES = frozenset({'"', "“"})
_CLOSING_QUOTES = frozenset({'"', "”"})
_LEADING = ("the ", "a ", "an ", "this ", "that ", "these ", "those ", "my ", "our ", "your ", "their ", "his ", "her ")
#: Per chunk, only the most-mentioned entities pair up, so a list-like passage does not make a clique of 40.
MAX_PAIRED_PER_CHUNK = 12
MAX_EVIDENCE_CHARS = 400
SPACY_BATCH = 32
#: Words that join two names in one span ("Windows and Mac").
_JOINS = frozenset({"and", "&"})
#: Types whose names join words with "and" as one name: places, works, laws and events.
_WHOLE_COORDINATIONS = frozenset({"GPE", "LOC", "FAC", "WORK_OF_ART", "LAW", "EVENT"})
#: A speaker label outweighs any tag the model gives the name: it says outright the name is a person's.
LABEL_TYPE_WEIGHT = 5


def _clean(surface: str) -> str:
    """A mention's name without the words and marks around it. An opening quote left after a leading article
    ('the "Big Bang of evolution', 'the “People of Philadelphia') is no part of the name unless the name closes
    it ('"Modern Drummer" Hall of Fame')."""
    text = " ".join(surface.split()).strip(" .,:;!?\"'`()[]-")
    lowered = text.lower()
    for lead in _LEADING:
        if lowered.startswith(lead):
            text, lowered = text[len(lead) :], lowered[len(lead) :]
    if text[:1] in _OPENING_QUOTES and not any(mark in text[1:] for mark in _CLOSING_QUOTES):
        text = text[1:]
    return text.removesuffix("'s").removesuffix("’s").strip()


def _usable(key: str) -> bool:
    return len(key) > 1 and any(c.isalpha() for c in key) and key not in _STOP_KEYS


def _keyphrases(text: str, words: int) -> set[str]:
    top = max(10, min(60, words // 250))
    return {slug(_clean(phrase)) for phrase, _score in _keyword_extractor(top).extract_keywords(text)}


@functools.cache
def _keyword_extractor(top: int) -> Any:
    """yake's extractor of `top` phrases, made once per process. Why: making one reads yake's stop-word file
    (~0.3 ms a document, ~0.5 CPU s over MuSiQue's 1,890 passages); what it holds between documents is its
    stop words and a cache of string similarities, so every document's phrases are those of a fresh one
    (tests/test_extract_offline_keyphrases.py)."""
    import yake

    return yake.KeywordExtractor(lan="en", n=3, top=top, dedup_lim=0.7)


def _sentence(span: Any, cut: tuple[int, int]) -> str:
    """The span's sentence as evidence; "" when the chunk boundary cut it (the neighbour chunk holds it whole)."""
    sentence = span.sent
    if sentence.start < cut[0] or sentence.end > cut[1]:
        return ""
    text = strip_label(" ".join(sentence.text.split()))
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


def extract_document(text: str, chunks: list[Chunk]) -> list[ChunkExtraction]:
    """One extraction per chunk, in chunk order; entity keys are document-resolved slugs."""
    return extract_parsed(text, chunks, list(nlp().pipe([c.text for c in chunks], batch_size=SPACY_BATCH)))


def extract_parsed(text: str, chunks: list[Chunk], parsed: list[Any]) -> list[ChunkExtraction]:
    """`extract_document` with the chunks already parsed by `nlp()` (`parsed[i]` is `chunks[i]`'s spaCy doc), so
    a caller can parse many documents' chunks in one `pipe` call (see extract_process.extract_documents)."""
    keyphrases = _keyphrases(text, len(text.split()))
    words = DocumentWords.of(text, len(chunks))
    raw: list[list[tuple[str, str, str, str]]] = []  # per chunk: (key, surface, type, evidence)
    kinds: dict[str, Counter[str]] = defaultdict(Counter)
    surfaces: dict[str, Counter[str]] = defaultdict(Counter)
    person: Counter[str] = Counter()  # mentions with person evidence (entity_types.py)
    the_before: Counter[str] = Counter()
    placed: Counter[str] = Counter()  # mentions right after a preposition of place ("into Best Buy")
    strong: Counter[str] = Counter()
    introduced: Counter[str] = Counter()  # strong evidence before the name ("starring X"), not after it
    thing: Counter[str] = Counter()  # mentions that speak of a thing ("Loopt made its exit")
    place: Counter[str] = Counter()  # mentions whose sentence says the name is a place ("X is a village")
    line: dict[str, Counter[str]] = defaultdict(Counter)  # mentions saying a person's or a thing's (person_line.py)
    for chunk, doc in zip(chunks, parsed, strict=True):
        cut = _cut_sentences(text, chunk, len(doc))
        found: list[tuple[str, str, str, str]] = []
        named_spans: set[tuple[int, int]] = set()
        spoken = labels(chunk.text)
        markup = [*((lb.start, lb.end) for lb in spoken), *words.slug_lines(chunk.start, chunk.end)]
        for label in spoken:
            for name in label.names:
                key = slug(name)
                found.append((key, name, "PERSON", ""))
                kinds[key]["PERSON"] += LABEL_TYPE_WEIGHT
                surfaces[key][name] += 1
                person[key] += 1
        for ent in (name for span in doc.ents for cell in _repaired(span, words) for name in _names(cell, words)):
            surface = _clean(ent.text)
            key = slug(surface)
            if "\n" in ent.text.strip() or _inside(ent.start_char, markup):
                continue  # a label (counted above as the speaker), a slug line, or two lines' names run together
            kind = named_type(surface, ent.label_, words)
            if ent.label_ in ENTITY_TYPES and _usable(key) and not junk(surface, kind, words):
                found.append((key, surface, kind, _sentence(ent, cut)))
                kinds[key][kind] += 1
                surfaces[key][surface] += 1
                named_spans.add((ent.start, ent.end))
                seen = entity_types.evidence(ent)
                person[key] += seen.person
                strong[key] += seen.strong
                introduced[key] += seen.introduced
                the_before[key] += seen.the
                placed[key] += seen.where
                thing[key] += seen.thing
                place[key] += seen.place
                line[key].update(person_line.said(ent)._asdict())
        for np_span in doc.noun_chunks:
            surface = _clean(np_span.text)
            key = slug(surface)
            root = np_span.root
            generic = root.is_stop or root.pos_ == "PRON" or root.lower_ in GENERIC_NOUNS
            if (
                key in keyphrases
                and _usable(key)
                and not generic
                and not _overlaps(np_span, named_spans)
                and not _inside(np_span.start_char, markup)
                and not junk(surface, CONCEPT, words)
            ):
                found.append((key, surface, CONCEPT, _sentence(np_span, cut)))
                kinds[key][CONCEPT] += 1
                surfaces[key][surface] += 1
        raw.append(found)
    types: dict[str, str] = {}
    named_topics: set[str] = set()  # names `worded` made topics: names, not keyphrases, so kept when said once
    pieces: set[str] = set()  # people with no person evidence only ever written inside a longer name
    for key, counter in kinds.items():
        surface = surfaces[key].most_common(1)[0][0]
        kind = entity_types.checked(
            surface,
            counter,
            person[key],
            the_before[key],
            strong=strong[key],
            introduced=introduced[key],
            placed=placed[key],
            thing=thing[key],
        )
        # "Harry Connick Show": a show, not a person; a named topic, kept when said once
        if (topic := entity_types.worded(surface, thing_named(surface, kind), words, person[key])) != kind:
            kind = topic
            named_topics.add(key)
        kind = author_named(surface, place_named(surface, kind, person[key]), words)  # "Chelsea Creek", "X's play"
        kind = epithet_named(surface, regnal_named(surface, kind))  # "The Shunzhi Emperor", "Mikuláš of Kadaň"
        if kind == "PERSON" and not person[key]:
            after = kinds_after(surface, words)
            if piece_of_a_name(after):
                pieces.add(key)  # "Warren Easton" only ever in "Warren Easton High School": a piece, not a person
            kind = kind_after(after)  # "Au Gres Township ... the city of Au Gres"
        kind = entity_types.placed(kind, place[key], person[key], strong[key])  # "X is an unincorporated community"
        kind = person_line.lined(surface, kind, line[key], strong=strong[key], mentions=sum(counter.values()))
        evidence = person[key] + line[key]["person"]
        kind = defined.typed(kind, defined.defined(surface, text), person=evidence)  # "X is a town"
        types[key] = entity_types.possessor(surface, kind, words)
    mentions = Counter(key for found in raw for key, _s, _k, _e in found)
    dropped = {
        key
        for key, kind in types.items()
        if (kind == CONCEPT and mentions[key] < 2 and key not in named_topics)
        or too_rare(kind, mentions[key], words)
        or key in pieces
    }  # a keyphrase seen once in the whole document is noise, not a topic
    named = {key: (surfaces[key].most_common(1)[0][0] if surfaces[key] else key) for key in types if key not in dropped}
    aliases = alias_map(named, types, frozenset(key for key, n in placed.items() if n))
    return [_chunk_result(found, types, aliases, dropped) for found in raw]


def _names(ent: Any, words: DocumentWords) -> list[Any]:
    """The names a model's entity span holds: itself, or the two names it joins with "and" when the document
    also writes each of them alone ("Windows and Mac", "Windows and Office"). Why: the small model runs two
    names into one; a name that is a coordination of two is two names. A name whose parts are not names of
    their own ("Procter and Gamble", "Bill and Melinda Gates Foundation") stays whole, and so do places and
    works, whose names join words ("Trinidad and Tobago", "Pride and Prejudice"). Two sides of several words each
    are two names when the document writes one of them alone ("Shadows of the Apt and Children of Time" beside
    "Children of Time": two series; "Applied Minds and Applied Invention")."""
    joins = [t.i for t in ent if t.lower_ in _JOINS and ent.start < t.i < ent.end - 1]
    if len(joins) != 1:
        return [ent]
    cut = joins[0]
    parts = [Span(ent.doc, ent.start, cut, label=ent.label_), Span(ent.doc, cut + 1, ent.end, label=ent.label_)]
    whole = _clean(ent.text)
    alone = [_clean(p.text)[:1].isupper() and words.written_alone(_clean(p.text), whole) for p in parts]
    if ent.label_ not in _WHOLE_COORDINATIONS and all(alone):
        return parts
    several = all(len(_clean(p.text).split()) > 1 and _clean(p.text)[:1].isupper() for p in parts)
    if ent.label_ in _WHOLE_COORDINATIONS and several and any(alone):
        return parts  # two names of several words, one written alone too: "Shadows of the Apt and Children of Time"
    return [ent]


def _repaired(ent: Span, words: DocumentWords) -> list[Span]:
    """The model's span with its edges mended: cut at an infobox's field labels (infobox.py), then each piece
    carried over the words that finish a name cut after "of" or "No." or before a kind noun's complement, and back
    over the "X and" of a coordinated name and its regnal number (name_edges.py), a piece no words finish dropped,
    a person's piece carried back over the given names the model left out (name_starts.py), and a piece carried back
    over the words the document always writes before it (name_pieces.py)."""
    return [
        extended(begun(coordinated(numbered(whole))), words)
        for cell in cells(ent)
        if (whole := completed(cell)) is not None
    ]


def _overlaps(np_span: Any, named: set[tuple[int, int]]) -> bool:
    """Whether a noun chunk is a name kept from the chunk or the first words of one.

    Why: the parse cuts a name's noun chunk at its preposition ("The Indian Institute" of "the Indian Institute of
    Tropical Meteorology": the name goes on past the chunk), and yake ranks the piece as a topic (issue #25,
    `musique_entity_labels_223.csv`). The words after a name's "of" often name a thing of their own ("the
    Annunciation" of "the Church of the Annunciation"), and a chunk holding a name inside it whole ("Gila monster",
    "Dutch language") is a topic as before."""
    return any(
        (start, end) == (np_span.start, np_span.end) or (start <= np_span.start and end > np_span.end)
        for start, end in named
    )


def _inside(offset: int, spans: list[tuple[int, int]]) -> bool:
    return any(start <= offset < end for start, end in spans)


def _chunk_result(
    found: list[tuple[str, str, str, str]],
    types: dict[str, str],
    aliases: dict[str, str],
    dropped: set[str],
) -> ChunkExtraction:
    counts: Counter[str] = Counter()
    first: dict[str, tuple[str, str]] = {}
    sentences: dict[str, set[str]] = defaultdict(set)
    for key, surface, _kind, evidence in found:
        if key in dropped:
            continue
        key = aliases.get(key, key)
        counts[key] += 1
        if key not in first or (evidence and not first[key][1]):
            first[key] = (surface, evidence)
        if evidence:
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
