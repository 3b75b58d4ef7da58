"""A candidate's BM25 term counts read on Neo4j from the profile the indexer stored (`bm25.TERMS`, `bm25.LENGTH`).

Why: scoring a search's hundred-odd candidates with BM25 built each text's token profile in Python (~2.6 ms of a
default search's client CPU, issue #26). The indexer now stores that profile beside each chunk's text, and the
statements that read candidates also read, per candidate, its frequencies of the search's words and its length:
a few integers, which `bm25.ranked` scores exactly as the text's own profile (the same numbers in, the same float
out). A node written before the profile was stored, or whose text changed since, reads as null, and BM25
tokenises its text as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from retrieval.store import bm25
from retrieval.store.records import TermCounts, ident

#: Characters of a stored profile read after a word's key: its count and the space after it (counts < 10^11).
_COUNT_WIDTH = 12


def column(node: str, keys: str, fields: Sequence[str]) -> str:
    """A Cypher expression: null when `node` has no stored profile, or one built from a text of another size than
    its `fields` now hold (`bm25.SIZE`), else `[length, [frequency per key]]` for the list parameter `keys` (`keys`
    of the words, in their order). One element bound by a comprehension, so that the profile string is read from
    the store once per node, not once per word."""
    terms, length, size = ident(bm25.TERMS), ident(bm25.LENGTH), ident(bm25.SIZE)
    text = " + ".join(f"size(coalesce(toString({node}.{ident(f)}), ''))" for f in fields)
    found = f"toInteger(split(left(split(t, k)[1], {_COUNT_WIDTH}), ' ')[0])"
    return (
        f"[t IN [{node}.{terms}] | CASE WHEN t IS NULL OR {node}.{size} <> {text} + {len(fields) - 1} THEN null "
        f"ELSE [{node}.{length}, [k IN {keys} | CASE WHEN t CONTAINS k THEN {found} ELSE 0 END]] END][0]"
    )


def keys(words: Sequence[str]) -> list[str]:
    """The `keys` parameter for `words`: each word as the stored profile spells its key (` word:`)."""
    return [f" {word}:" for word in words]


def decoded(value: Sequence[Any] | None, words: Sequence[str]) -> TermCounts | None:
    """`column`'s value for `words` as the node's `TermCounts`; None for a node without a stored profile."""
    if value is None:
        return None
    length, frequencies = value
    return bm25.counted(words, frequencies, length)
