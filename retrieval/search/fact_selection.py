"""Which scored evidence sentences make an extractive answer: the best one first, then each next for what it adds.

Why not simply the top-scored sentences: the top few are often one passage saying one thing three ways, while a
multi-hop question needs two different passages. "What nationality was the author of Brand?" is answered by
"Brand is a play by Henrik Ibsen." together with "Ibsen was a Norwegian playwright.", and the second sentence
shares almost nothing with the question: it is similar only through a name the first one introduced. So each
next sentence is chosen by its own score plus
- **coverage**: the share of the question's content words it brings that the chosen sentences lack (a question
  about two things gets a sentence on each), and
- **bridge**: whether it names someone or something that a chosen sentence of another document introduced and
  the question does not name (the second hop), credited with that chosen sentence's relevance, and
- **hop**: whether it comes from a document whose name a chosen sentence of another document, or any sentence
  of a document the question names, states, and which the question does not name (`leads_to`). "The Joggers'
  singer is the son of a chemist who received the highest what?" is answered by the page the band's sentence
  leads to (George M. Whitesides'), and "At what school is the 2012 Nobel laureate jointly with David Wineland?" by
  Serge Haroche's page: their sentences share no word with the question and lost to five sentences restating the
  first hop. Credited once per document: its best sentence, not five of them. On HotpotQA's tune half one or two
  more right answers, not more (docs/benchmarks.md, branch wt174).
All are read from the words alone (no model), so the choice is deterministic and cheap.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np

from retrieval.search.keywords import STOPWORDS, content_terms
from retrieval.store import bm25

#: Weight of the share of the question's content words a sentence adds, next to its 0-1 relevance score.
COVER_WEIGHT = 0.1
#: Weight of naming what a chosen sentence introduced (times that sentence's score relative to the best).
BRIDGE_WEIGHT = 0.1
#: Weight of coming from a document a chosen sentence names (times that sentence's score relative to the best).
HOP_WEIGHT = 0.4
#: Two sentences this similar say the same thing; the weaker one is dropped.
DUPLICATE_SIMILARITY = 0.92
#: Sentences whose score (with what they add) is below this share of the best one are off-topic filler.
RELATIVE_FLOOR = 0.5
#: A capitalised word: the cheap mark of a name ("Ibsen", "Norwegian", "GPT-4").
_NAME = re.compile(r"\b[A-Z][\w'’\-]*\w")
#: A longer number in a document's name is an id or a hash, not a word of the name.
MAX_NAME_DIGITS = 4
#: Runs of ASCII letters or of digits: a file name loses its accents ("Atlético Madrid" is saved as
#: "Atl_tico_Madrid"), so a document's name and a sentence are compared by these runs on both sides.
_RUNS = re.compile(r"[a-z]+|[0-9]+")
_TOKEN = re.compile(r"\w+")


def names(text: str) -> set[str]:
    """Capitalised words of `text` that are not function words ("The", "He"), lower-cased."""
    return {w.lower() for w in _NAME.findall(text)} - STOPWORDS


def name_words(name: str) -> frozenset[str]:
    """The words a sentence must state to name a document: its name's numbers of up to four digits ("Peter Pan
    1976 musical" is not the 1954 one) and letter runs of three or more that are not function words. A word mixing
    letters and digits, a file's hash ("-0cfcf8", "-815972") or "MP4", is left out: a sentence never states a hash.
    """
    words = [t for t in _TOKEN.findall(name.lower()) if (t.isdigit() and len(t) <= MAX_NAME_DIGITS) or t.isalpha()]
    runs = [r for t in words for r in _RUNS.findall(t)]
    return frozenset(r for r in runs if r.isdigit() or (len(r) > 2 and r not in STOPWORDS))


def leads_to(span: str, own: str, named: Mapping[str, frozenset[str]]) -> set[str]:
    """The documents of `named` (document -> `name_words`) other than `own` whose every name word `span` states."""
    said = set(_RUNS.findall(span.lower()))
    return {document for document, words in named.items() if document != own and words and words <= said}


def choose(
    question: str,
    spans: Sequence[str],
    scores: Sequence[float],
    vectors: np.ndarray,
    *,
    documents: Sequence[str],
    limit: int,
    titles: Mapping[str, str] | None = None,
) -> list[int]:
    """Indices of up to `limit` spans in the order chosen: best score first, then best score plus what it adds.

    `scores` are each span's relevance to the question (0-1 scale), `vectors` their unit embeddings (rows), used
    to skip a sentence that repeats a chosen one, `documents` where each span comes from (a bridge leads from one
    document to another: a sentence naming what its own document's chosen sentence named is no second hop), and
    `titles` those documents' names (document -> name), for the hop: none, no hop.
    """
    if not spans or limit < 1:
        return []
    wanted = content_terms(question)
    asked = names(question) | set(wanted)
    found_names = [names(span) - asked for span in spans]
    asked_documents, hop_targets = hop_names(question, titles or {})
    best = max(scores) or 1.0
    floor = RELATIVE_FLOOR * best
    chosen: list[int] = []
    covered: set[str] = set()
    #: name -> (document, relative score) of the chosen sentences introducing it
    introduced: dict[str, list[tuple[str, float]]] = {}
    #: document that a chosen sentence of another document, or any sentence of a document the question names, names
    #: -> that sentence's relative score (until one of its sentences is chosen)
    led: dict[str, float] = {}
    for i in (i for i in range(len(spans)) if documents[i] in asked_documents):
        for document in leads_to(spans[i], documents[i], hop_targets):
            led[document] = max(led.get(document, 0.0), scores[i] / best)
    while len(chosen) < limit:
        gains = {
            i: scores[i]
            + _cover(spans[i], wanted, covered)
            + _bridge(found_names[i], documents[i], introduced)
            + HOP_WEIGHT * led.get(documents[i], 0.0)
            for i in range(len(spans))
            if i not in chosen and not _repeats(vectors, i, chosen)
        }
        if not gains:
            break
        pick = max(gains, key=lambda i: (gains[i], -i))
        if gains[pick] < floor:
            break
        chosen.append(pick)
        covered |= {t for t in wanted if bm25.contains(spans[pick], t)}
        for name in found_names[pick]:
            introduced.setdefault(name, []).append((documents[pick], scores[pick] / best))
        led.pop(documents[pick], None)
        for document in leads_to(spans[pick], documents[pick], hop_targets):
            if document not in {documents[j] for j in chosen}:
                led[document] = max(led.get(document, 0.0), scores[pick] / best)
    return chosen


def hop_names(question: str, titles: Mapping[str, str]) -> tuple[set[str], dict[str, frozenset[str]]]:
    """The documents the question names itself (every word of the name is one of its words: its first hop, found
    by their similarity to it), and document -> `name_words` of the others, where a hop may lead."""
    said = set(_RUNS.findall(question.lower()))
    named = {document: name_words(title) for document, title in titles.items()}
    asked = {document for document, words in named.items() if words and words <= said}
    return asked, {document: words for document, words in named.items() if words and document not in asked}


def _cover(span: str, wanted: Sequence[str], covered: set[str]) -> float:
    """Credit for the question's content words the chosen sentences lack and this one has."""
    if not wanted:
        return 0.0
    return COVER_WEIGHT * sum(1 for t in wanted if t not in covered and bm25.contains(span, t)) / len(wanted)


def _bridge(span_names: set[str], document: str, introduced: dict[str, list[tuple[str, float]]]) -> float:
    """Credit for naming what a chosen sentence of another document introduced (its relative score)."""
    return BRIDGE_WEIGHT * max(
        (share for n in span_names for source, share in introduced.get(n, []) if source != document), default=0.0
    )


def _repeats(vectors: np.ndarray, i: int, chosen: Sequence[int]) -> bool:
    return any(float(vectors[i] @ vectors[j]) >= DUPLICATE_SIMILARITY for j in chosen)
