"""Turn user text into safe fulltext queries for RediSearch (FalkorDB) and Lucene (Neo4j).

Why tokenise instead of passing text through: both engines give meaning to punctuation
(`-` negates, `:` scopes a field, `"` opens a phrase, `~` fuzzes), so a question like
`what's "C++"?` would be a syntax error or a different query. Both index-time analysers split on
punctuation, so word tokens joined by OR match what was indexed; each token is still escaped,
so a character either engine treats specially can never reach it unescaped.
"""

from __future__ import annotations

import functools
import re

_WORD = re.compile(r"\w+", re.UNICODE)
_REDISEARCH_SPECIAL = re.compile(r"([,.<>{}\[\]\"':;!@#$%^&*()\-+=~|/\\?`])")
_LUCENE_SPECIAL = re.compile(r'([+\-!(){}\[\]^"~*?:\\/&|])')

#: A 20 kB paste must not become a 3,000-term query; the first distinct terms carry the intent.
MAX_TERMS = 48


#: Distinct texts whose terms are kept: a search's question and the few texts derived from it, several searches over.
TERMS_CACHE = 256


def terms(text: str, max_terms: int = MAX_TERMS) -> list[str]:
    """Distinct lower-cased word tokens in order of first appearance (a fresh list: the caller may change it)."""
    return list(_terms(text, max_terms))


@functools.lru_cache(maxsize=TERMS_CACHE)
def _terms(text: str, max_terms: int) -> tuple[str, ...]:
    """Why cached: one search on Neo4j asks for its question's terms a dozen times or more (its stores, arms, fusion,
    spread and residual each from the text they were handed); a pure function of its arguments, keyed by the
    text itself, can never be stale."""
    seen: dict[str, None] = {}
    for match in _WORD.finditer(text.lower()):
        seen.setdefault(match.group(0), None)
        if len(seen) >= max_terms:
            break
    return tuple(seen)


def redisearch_query(text: str) -> str:
    """OR-query for FalkorDB's `db.idx.fulltext.queryNodes`; empty when the text has no words."""
    return "|".join(_REDISEARCH_SPECIAL.sub(r"\\\1", t) for t in terms(text))


def lucene_query(text: str) -> str:
    """OR-query for Neo4j's `db.index.fulltext.queryNodes`; lower case keeps AND/OR/NOT from acting as operators."""
    return " OR ".join(_LUCENE_SPECIAL.sub(r"\\\1", t) for t in terms(text))
