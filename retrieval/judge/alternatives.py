"""The alternatives a question offers ("Summer Wars or The Secret of Kells", "Sutera and Rhodotypos both"), each of
which its answer must speak of.

Why: a question that offers two things to choose between or compare is answered only by facts on each. Facts on
one of them state every word of the question (both names are in it) and read, to every word signal, like an
answer; on HotpotQA's tune half such answers were most of the right answers a `chain`-like signal moved either
way (docs/benchmarks.md, branch wt113). Read from the question's wording alone: two names joined by "or", or by
"and" when the question compares ("both", "same", "in common", "between", "which of"); a plain word on a side that
has no name ("golf or tennis").
"""

from __future__ import annotations

import re

from retrieval.search.keywords import STOPWORDS

#: Words in a question that make "X and Y" a pair to compare rather than one thing ("War and Peace") or a list.
_COMPARES = re.compile(r"\b(?:both|same|common|between|which of|differ\w*)\b", re.IGNORECASE)
#: A question's tokens: words (with inner dots, hyphens and apostrophes: "v.", "CP-400", "O'Neil") or punctuation.
_TOKEN = re.compile(r"[\w][\w.\-'’]*|[^\w\s]")
#: Short lower-case words that may stand inside a name ("The Secret of Kells", "Craig v. Boren", "Race to Nowhere"),
#: never at its ends.
_INNER = frozenset(
    {
        "of",
        "the",
        "v",
        "vs",
        "by",
        "to",
        "for",
        "at",
        "on",
        "in",
        "de",
        "da",
        "del",
        "du",
        "la",
        "le",
        "von",
        "van",
        "y",
    }
)
_ARTICLES = frozenset({"a", "an", "the"})


def offered(question: str) -> list[list[str]]:
    """The alternatives the question offers, each as its lower-case words (none when it offers none)."""
    tokens = _TOKEN.findall(question)
    compares = bool(_COMPARES.search(question))
    found: list[list[str]] = []
    for i, token in enumerate(tokens):
        word = token.lower()
        if word not in ("or", "and") or (word == "and" and not compares) or i == 0:
            continue
        left, right = _side(tokens, i - 1, -1), _side(tokens, i + 1, 1)
        if left and right and left != right:
            found += [side for side in (left, right) if side not in found]
    return found


def _side(tokens: list[str], start: int, step: int) -> list[str]:
    """The alternative next to a connective: the name run at `start` (read towards the question's start when
    `step` is -1), else the one content word there. The question's first word is never a name (it is "Which")."""
    i = start
    while 0 <= i < len(tokens) and tokens[i].lower() in _ARTICLES and step == 1:
        i += step
    run: list[str] = []
    while 1 <= i < len(tokens) and (_capitalised(tokens[i]) or (run and tokens[i].lower().rstrip(".") in _INNER)):
        run.append(tokens[i])
        i += step
    while run and not _capitalised(run[-1]):
        run.pop()
    if not run and 1 <= start < len(tokens) and tokens[start].isalpha():
        run = [tokens[start]]
    words = [w for w in (t.lower().strip(".'’") for t in run) if w and w not in STOPWORDS]
    return words if step == 1 else words[::-1]


def _capitalised(token: str) -> bool:
    """A name's word: it starts with a capital or a digit ("Commodore 16")."""
    return token[:1].isupper() or token[:1].isdigit()
