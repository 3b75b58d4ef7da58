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
from retrieval.search.keywords import STOPWORDS

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


#: Words a question about the collection's themes is made of: what it asks for ("themes", "topics"), how it
#: weighs them ("main", "recurring") and what it calls the collection ("episodes", "corpus").
_THEME_ASKED = frozenset({"theme", "themes", "topic", "topics", "subject", "subjects"})
_THEME_WORDS = _THEME_ASKED | frozenset(
    {
        "main", "key", "major", "central", "biggest", "big", "most", "important", "recurring", "common", "overall",
        "general", "broad", "top", "primary", "ideas", "idea", "discussed", "covered", "cover", "covers", "talked",
        "talk", "discuss", "addressed", "explored", "run", "runs", "running", "through", "across", "corpus",
        "collection", "documents", "document", "episodes", "episode", "podcast", "podcasts", "texts", "text",
        "files", "book", "books", "dataset", "data", "set", "graph", "these", "this", "all", "whole", "entire",
        "list", "give", "summarise", "summarize", "summary", "overview", "mostly", "kinds", "kind", "sort",
        "sorts", "come", "comes", "coming", "emerge", "emerges", "appear", "appears"
    }
)  # fmt: skip
_WORD = re.compile(r"[a-z]+")
#: "What is this collection about?": the collection's themes asked without the word.
_ABOUT = re.compile(r"^\s*what\b.*\babout\W*$", re.IGNORECASE)


def theme_question(question: str) -> bool:
    """Whether a question asks for the collection's themes and nothing more ("What are the main themes?",
    "Which topics do these episodes cover?", "What is this corpus about?"); "What are the themes of Scrooge's
    story?" names what it asks about, so it is not one."""
    words = [w for w in _WORD.findall(question.lower()) if w not in STOPWORDS]
    asks = any(w in _THEME_ASKED for w in words) or bool(words and _ABOUT.match(question))
    return asks and all(w in _THEME_WORDS for w in words)
