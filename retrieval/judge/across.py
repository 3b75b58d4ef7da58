"""Questions asked across documents ("Which guests went to Stanford?"): the words that name whom they ask about,
and how the key facts' documents state the rest, for the signals of `answerability`.

Why apart from the single-fact reading: the confidence was fitted on questions one passage answers. Asked "What do
the guests say about robots?", it counted "guests" as a topic word the facts fail to state (a transcript quotes a
guest, it never calls them "guests"), and its `focus` signal rewarded facts from one document, the wrong way round
for an answer that should quote several (docs/benchmarks.md, branch wt106: held-out AUROC 0.57-0.61 on such
questions, a third to a half of the right answers flagged). The rules are English grammar, no corpus' words: the
plural noun a "Which"/"What" asks for, or the plural subject of "do ... say", names the many the answer is drawn
from, and is set aside from the words the facts must state.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Sequence

from retrieval.models import Answer

#: "Which guests ...", "What companies ...": the noun the question asks for.
_ASKED_FOR = re.compile(r"^\s*(?:which|what)\s+(?:of\s+the\s+)?([a-z]\w*)", re.IGNORECASE)
#: "What do (the) guests say ...", "How did people see ...": the subject of a plural "do"/"did".
_SUBJECT = re.compile(r"\b(?:do|did)\s+(?:the\s+|these\s+|our\s+)?([a-z]\w*)\s+\w+", re.IGNORECASE)
#: Plurals without an "s" (a closed class of English words, not a corpus' words).
_IRREGULAR = frozenset({"people", "men", "women", "children", "folks"})
#: Words after "What" / "do" that are not nouns naming whom is asked about.
_NOT_NOUNS = frozenset(
    {"is", "are", "was", "were", "does", "did", "do", "has", "have", "had", "can", "could", "would", "should", "will"}
)


def _plural(word: str) -> bool:
    word = word.lower()
    if word in _IRREGULAR:
        return True
    return len(word) >= 4 and word.endswith("s") and not word.endswith(("ss", "us", "is"))


def many_asked(question: str) -> list[str]:
    """The plural words naming whom or what the question asks across ("guests" of "Which guests went to
    Stanford?" and of "What do guests say about robots?"), lower-cased; empty for a question about one thing."""
    found = [m.group(1) for pattern in (_ASKED_FOR, _SUBJECT) for m in pattern.finditer(question)]
    words = [w.lower() for w in found if w[0].islower() and w.lower() not in _NOT_NOUNS and _plural(w)]
    return list(dict.fromkeys(words))


def without_many(question: str, terms: Sequence[str]) -> list[str]:
    """`terms` without the words naming the many asked across (`many_asked`), or all of them when nothing else
    would be left."""
    many = set(many_asked(question))
    return [t for t in terms if t not in many] or list(terms)


def _by_document(answer: Answer, texts: Sequence[str]) -> dict[str, list[str]]:
    """Each key fact's text (`texts`, in key-fact order) grouped by the document its first citation names."""
    grouped: dict[str, list[str]] = defaultdict(list)
    for fact, text in zip(answer.key_facts, texts, strict=True):
        if fact.citations:
            grouped[fact.citations[0].document_name or fact.citations[0].chunk_id].append(text)
    return grouped


def coverage_across(
    answer: Answer, texts: Sequence[str], topic: Sequence[str], share: Callable[[Sequence[str], str], float]
) -> float:
    """The mean, over the documents the key facts come from, of the share of the topic words that document's facts
    state (`share(terms, text)`): each document an answer across documents quotes should speak to what was asked,
    not one document to one word and another to another."""
    grouped = _by_document(answer, texts)
    if not grouped or not topic:
        return 0.0
    return sum(share(topic, " ".join(parts)) for parts in grouped.values()) / len(grouped)


def agreeing(
    answer: Answer, texts: Sequence[str], topic: Sequence[str], share: Callable[[Sequence[str], str], float]
) -> float:
    """Share of the key facts whose document states a topic word that another of the facts' documents states too:
    facts that agree across documents. 0 with fewer than two documents."""
    grouped = _by_document(answer, texts)
    if len(grouped) < 2:
        return 0.0
    stated = {doc: {t for t in topic if share([t], " ".join(parts)) > 0} for doc, parts in grouped.items()}
    agree = [doc for doc, words in stated.items() if any(words & other for o, other in stated.items() if o != doc)]
    return sum(len(grouped[doc]) for doc in agree) / sum(len(parts) for parts in grouped.values())
