"""What every resolution rule reads of one extracted key: its surfaces, types and documents across the graph.

Its own module so that the rule modules (resolution_*.py) and the resolver share one `Key` and the three
judgements most rules make of a pair (which of two names leads, whether their types can be one thing, in how
many documents both are mentioned) without importing the resolver.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from retrieval.indexing.model import graph_type

#: Types that can never be the same thing as a person.
PLACES = frozenset({"GPE", "LOC", "FAC"})


@dataclass
class Key:
    """What the mentions say about one extracted key across the graph."""

    id: str
    surfaces: Counter[str] = field(default_factory=Counter)
    types: Counter[str] = field(default_factory=Counter)
    documents: set[str] = field(default_factory=set)
    #: (document, sentence) of each mention's evidence: what a passage says of the name (`alias_pairs`).
    sentences: set[tuple[str, str]] = field(default_factory=set)

    @property
    def slug(self) -> str:
        return self.id.rsplit(":", 1)[-1]

    @property
    def tokens(self) -> list[str]:
        return self.slug.split("-")

    @property
    def type(self) -> str:
        return graph_type(self.types)

    @property
    def weight(self) -> int:
        return sum(self.surfaces.values())

    @property
    def surface(self) -> str:
        return max(self.surfaces.items(), key=lambda item: (not item[0].isupper(), item[1], item[0]))[0]


def rank(key: Key) -> tuple[bool, int, int, str]:
    """The group's title: a person's full name, else the most mentioned form, else the shorter key."""
    return (key.type == "PERSON" and len(key.tokens) > 1, key.weight, -len(key.slug), key.slug)


def compatible(a: Key, b: Key) -> bool:
    """A person is never a place; otherwise types differ often for one thing (ORG/PRODUCT, CONCEPT/NORP)."""
    kinds = {a.type, b.type}
    return not ("PERSON" in kinds and kinds & PLACES)


def together(a: Key, b: Key) -> int:
    """How many documents mention both: the evidence most merges need."""
    return len(a.documents & b.documents)
