"""The store's vocabulary: a row, a filter, a hit and a safe identifier.

Why a module of its own: the GraphStore port, the VectorStore port, BM25 and every adapter speak these words;
defined here, below all of them, each side imports them without importing the other.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

Row = dict[str, Any]
Filters = Mapping[str, Any]

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def ident(name: str) -> str:
    """Backtick-quote a label/property/index name taken from settings, refusing anything odd."""
    if not _IDENT.match(name):
        raise ValueError(f"not a valid identifier: {name!r}")
    return f"`{name}`"


def packed(columns: Sequence[str]) -> str:
    """`RETURN collect([a, b, ...]) AS rows`: a statement's many rows of these columns as one row of lists.

    Why: the Neo4j driver spends ~50 us on each record it receives, whatever it holds; 306 rows of four values
    took 18-20 ms as records and 4 ms as one row of lists. `unpacked` turns them back into rows."""
    return "RETURN collect([" + ", ".join(columns) + "]) AS rows"


def unpacked(rows: Sequence[Row], columns: Sequence[str], key: str = "rows") -> list[Row]:
    """The rows `packed` folded (or any column `key` of lists), one dict each, in their order (a UNION's packed
    rows one after the other)."""
    return [dict(zip(columns, values, strict=True)) for row in rows for values in row[key]]


@dataclass(frozen=True)
class StoreHit:
    """A node found by an index: its `id` property, similarity (higher is better) and properties."""

    id: str
    score: float
    props: dict[str, Any] = field(default_factory=dict)
    #: The node's BM25 term counts for the search's words, read from what the indexer stored (`bm25.TERMS`), when
    #: the store read them: BM25 then scores it without tokenising its text.
    terms: TermCounts | None = None


@dataclass(frozen=True)
class TermCounts:
    """A node's BM25 statistics for some words: each word's stemmed frequency (`bm25._Profile`'s, zero left out)
    and the node's length in tokens. Valid only for `words`: scoring any other word needs the text."""

    words: frozenset[str]
    frequency: Mapping[str, int]
    length: int


@dataclass(frozen=True)
class HybridSearch:
    """One of the searches `GraphStore.hybrid_arms_together` runs for one query: the label and its fulltext index,
    the hits each arm keeps, the filter and the properties a hit shows (besides the indexed ones)."""

    label: str
    index: str
    fetch: int
    filters: Filters | None = None
    props: Sequence[str] = ()


#: A hybrid search's two arms, each completed with the other's candidates: (vector hits, keyword hits).
Arms = tuple[list[StoreHit], list[StoreHit]]


@dataclass(frozen=True)
class ThenRead:
    """A read that continues `GraphStore.hybrid_arms_then`'s statement from the server's own ranking of each search:
    `cypher` runs with the list `fused{i}` in scope (search `i`'s best `keep[i]` ids by linear fusion, `alpha` of
    the vector arm and the rest of the keyword arm normalised by `reference`, each `[id, score]`, best first) and
    adds `columns` to the statement's reply; `params` are its parameters."""

    cypher: str
    params: Row
    columns: Sequence[str]
    keep: Sequence[int]
    alpha: float
    reference: float


@dataclass(frozen=True)
class Folded:
    """`GraphStore.hybrid_arms_then`'s reply: each search's arms (as `hybrid_arms_together`'s), the hits the server
    ranked best for each, `(id, fused score)` (empty where it could not score every candidate), and the
    continuation's `columns`; `terms`, the first search's candidates' term counts of its words (`StoreHit.terms`,
    where the statement read their stored profiles), by id."""

    arms: list[Arms | None]
    fused: list[list[tuple[str, float]]]
    row: Row
    terms: Mapping[str, TermCounts] = field(default_factory=dict)


def filter_clause(var: str, filters: Filters | None, prefix: str = "f_") -> tuple[str, Row]:
    """`WHERE`-ready conditions for equality (scalar) or membership (list/tuple/set) filters."""
    if not filters:
        return "", {}
    parts: list[str] = []
    params: Row = {}
    for i, (key, value) in enumerate(filters.items()):
        pname = f"{prefix}{i}"
        if isinstance(value, (list, tuple, set, frozenset)):
            parts.append(f"{var}.{ident(key)} IN ${pname}")
            params[pname] = list(value)
        elif isinstance(value, Mapping) and set(value) <= {"gte", "lte"}:
            for op, sym in (("gte", ">="), ("lte", "<=")):
                if op in value:
                    parts.append(f"{var}.{ident(key)} {sym} ${pname}_{op}")
                    params[f"{pname}_{op}"] = value[op]
        else:
            parts.append(f"{var}.{ident(key)} = ${pname}")
            params[pname] = value
    return " AND ".join(parts), params


def embedded_nodes(label: str, prop: str, filters: Filters | None) -> tuple[str, Row]:
    """`MATCH (n) WHERE` for the nodes `filters` selects that carry a vector: what an exact search ranks."""
    condition, params = filter_clause("n", filters)
    where = f"{condition} AND " if condition else ""
    return f"MATCH (n:{ident(label)}) WHERE {where}n.{ident(prop)} IS NOT NULL", params
