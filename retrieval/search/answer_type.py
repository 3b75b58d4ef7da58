"""What kind of thing a question asks for, and whether a sentence names one: "Who ...?" wants a person, "When ...?" a
date, "Where ...?" a place, "How many ...?" a number, "Which company ...?" an organisation.

Why: a sentence can share every word of the question and still not answer it. "Where did Mira Murati finish high
school?" is near "I went to high school in Albania." and "Mira Murati finished high school in Vancouver." alike by
its words; only the second names a place. So the key facts prefer a sentence that names a thing of the asked type
other than the question's own names, and the confidence reads whether one key fact both names one and states what
was asked (a "who" question answered by five sentences that name no one else is most likely a near miss).

The types are spaCy's named-entity labels (the small English model the offline indexer loads); the question's wh-word
and the noun after "which"/"what" decide the type by a fixed table of English words, not by any corpus' names. A
question of no recognised type ("What did Lisa Su say about chiplets?") asks for none, and every sentence is
neutral for it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from retrieval.text.nlp import nlp

PERSON = frozenset({"PERSON"})
PLACE = frozenset({"GPE", "LOC", "FAC"})
DATE = frozenset({"DATE", "TIME"})
NUMBER = frozenset({"CARDINAL", "QUANTITY", "MONEY", "PERCENT"})
ORGANISATION = frozenset({"ORG"})
#: The noun after "which"/"what" that names the type asked for ("Which company ...", "What year ...").
_TYPED_NOUNS: dict[str, frozenset[str]] = {
    **dict.fromkeys(("company", "companies", "startup", "firm", "organization", "organisation"), ORGANISATION),
    **dict.fromkeys(("university",), ORGANISATION),
    **dict.fromkeys(("person", "guest", "guests", "people", "scientist", "founder", "author", "writer"), PERSON),
    **dict.fromkeys(("year", "decade", "date", "month", "century"), DATE),
    **dict.fromkeys(("city", "country", "state", "town", "place"), PLACE),
}
_WH = re.compile(
    r"\b(who|whom|whose|when|where|how\s+(?:many|much|old|long)|which|what)\b((?:\s+\w+){0,2})", re.IGNORECASE
)


def expected(question: str) -> frozenset[str]:
    """The entity labels an answer to `question` names (empty when it asks for no recognisable type).

    The first wh-word decides: "Who"/"Whom"/"Whose" a person, "When" a date, "Where" a place, "How many/much/old/
    long" a number or date, "Which X"/"What X" the type of the noun X (or of the word after it) when the table knows
    it ("Which company" and "Which game company" an organisation, "What year" a date)."""
    match = _WH.search(question)
    if match is None:
        return frozenset()
    word, nouns = match.group(1).lower(), match.group(2).lower().split()
    if word in ("who", "whom", "whose"):
        return PERSON
    if word == "when":
        return DATE
    if word == "where":
        return PLACE | ORGANISATION  # "Where was her first job?": a company is an answer too
    if word.startswith("how"):
        return NUMBER | DATE
    return next((_TYPED_NOUNS[n] for n in nouns if n in _TYPED_NOUNS), frozenset())


#: Texts whose entities are kept (a key fact is read twice: choosing it, then rating the answer).
CACHE_SIZE = 4096
#: The only pipes entities need: the parser and tagger cost ~3x as much and change no entity.
_NER_PIPES = ("tok2vec", "ner")
_read: dict[str, tuple[tuple[str, str], ...]] = {}


def _entities(texts: Sequence[str]) -> list[tuple[tuple[str, str], ...]]:
    """(lower-cased text, label) of the named entities spaCy finds in each of `texts`.

    Why one batch with the recogniser alone: an answer checks its ~24 candidate sentences, and parsing them one by
    one with the full pipeline took ~110 ms where one `pipe` call without the parser takes ~30 ms (the same
    entities). `disable` applies to this call only: the shared pipeline stays whole for the indexer."""
    missing = list(dict.fromkeys(t for t in texts if t not in _read))
    if missing:
        if len(_read) + len(missing) > CACHE_SIZE:
            _read.clear()
        model = nlp()
        skip = [name for name in model.pipe_names if name not in _NER_PIPES]
        for text, doc in zip(missing, model.pipe(missing, disable=skip), strict=True):
            _read[text] = tuple((e.text.lower(), e.label_) for e in doc.ents)
    return [_read[t] for t in texts]


def naming_expected(texts: Sequence[str], question: str, kinds: frozenset[str] | None = None) -> list[bool]:
    """For each of `texts`, whether it names an entity of the asked type that the question itself does not name.

    The question's own names do not count: "Who is Mira Murati?" is not answered by a sentence naming her."""
    kinds = expected(question) if kinds is None else kinds
    if not kinds:
        return [False] * len(texts)
    asked = question.lower()
    return [any(label in kinds and name not in asked for name, label in found) for found in _entities(texts)]


def typed(texts: Sequence[str], question: str) -> list[bool]:
    """For each of `texts`, whether it could be the answer by its kind: True for every text when the question asks
    for no type, else whether it names a thing of that type (`naming_expected`). The confidence's `answers` signal
    reads it together with the question's topic words, sentence by sentence."""
    kinds = expected(question)
    return naming_expected(texts, question, kinds) if kinds else [True] * len(texts)
