"""Which mode fits a question: one about the whole collection goes to global search, one about something named
to local search.

Why: a corpus-wide question ("What recurring topics do tech leaders emphasize?") asked in local mode is answered
by the few chunks nearest its words, often a show's closing line; global mode reads the community summaries that
cover the collection. A question is corpus-wide when it asks about frequency, recurrence, comparison or the
collection's members as a group ("recurring", "most frequently", "which guests", "across episodes") and names no
one by a full name (two or more capitalised words: "Lisa Su"); the words are about questions in general, not
about one corpus.
"""

from __future__ import annotations

import re

from retrieval.conversation.followups import entities
from retrieval.models import Mode

_CORPUS_WIDE = re.compile(
    r"\b(?:recurring|frequently|frequent|often|typically|generally|in general|commonly|common|trends?|themes?"
    r"|overall|across|compared to|different views|discussions|conversations|discussed"
    r"|guests|speakers|episodes|documents|authors|leaders|interviewees|participants)\b",
    re.IGNORECASE,
)


def fitting_mode(question: str) -> Mode:
    """`global` for a question about the whole collection that names no one, else `local`."""
    named = any(len(words := e.name.split()) >= 2 and all(w[:1].isupper() for w in words) for e in entities(question))
    return "global" if _CORPUS_WIDE.search(question) and not named else "local"
