"""Keyword queries without function words.

Why: the embedded store's fulltext index keeps English stopwords, so an OR query built from a
whole question ranks passages by how often they say "the", "of" and "was". Only content words
go to the keyword arm; a question made only of function words has no keyword arm at all.
"""

from __future__ import annotations

from retrieval.store.text_query import terms

_STOPWORD_TEXT = """
a about above after again against all also am an and any are as at be because been before being below between
both but by can could did do does doing down during each few for from further had has have having he her here hers
herself him himself his how i if in into is it its itself just me more most my myself no nor not now of off on once
only or other our ours ourselves out over own same she should so some such than that the their theirs them
themselves then there these they this those through to too under until up very was we were what when where which
while who whom whose why will with would you your yours yourself yourselves
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())


def content_terms(text: str) -> list[str]:
    """Distinct lower-cased word tokens of `text` that carry meaning, in order of first appearance."""
    return [t for t in terms(text, max_terms=200) if t not in STOPWORDS][:48]


def keyword_query(text: str) -> str:
    """The text the fulltext arm searches for: its content words, space-separated (the store ORs them)."""
    return " ".join(content_terms(text))
