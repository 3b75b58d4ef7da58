"""Names a titled document mentions in passing: they do not join its passages to another document's communities.

Why: in an encyclopaedia every passage is its own document with its subject in its first line ("Gang Related\\n\\n
Gang Related is a 1997 American crime thriller film ..."). A name it mentions once and that is not its subject (a
country or a city named once in a biography, an actor in a film's cast) is an aside; when another document
mentions it too, the co-occurrence edges of that one mention tie this document's names to the other document's,
Leiden joins the two at level 0 and the levels above join more through them, and the community's title becomes a
list of unrelated things. A hub (community_hubs.py) is the same aside in many documents; a name in two or three is
no hub, and joins them all the same.
A name is in passing in a document when the document's first line is a title (`titles.titled_documents`), the name
is not in that title, and the document mentions it once (one chunk, count 1). Its relationships from that document
are left out of what Leiden sees (`partition_edges`): the document keeps its own subjects' links, and the name keeps
those of the documents it is more than an aside in. A name that is an aside in every one of its documents keeps the
relationships of one of them (its home: the first by id), so that it still has a community and joins no two. A
document without a title line (a transcript, a novel) has no subject to tell an aside from, and is left as it is.
The stored RELATED edges are not changed: retrieval walks every relationship a passage states.
The titles read the same rule (`titles.community_titles`): a passage that mentions the community's members only in
passing is not what the community is about.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from retrieval.indexing import relations
from retrieval.indexing.titles import document_of, titled_documents

Pair = tuple[str, str]


@dataclass(frozen=True)
class Passing:
    """Entity -> the documents whose relationships of it Leiden does not see (asides, but for its home)."""

    documents: Mapping[str, frozenset[str]] = field(default_factory=dict)

    @classmethod
    def of(cls, mentions: Iterable[Mapping[str, Any]], texts: Mapping[str, str]) -> Passing:
        """From a graph's chunk -> entity rows (`chunk`, `entity`, `surface`, `count`) and its chunks' texts."""
        subject = {document: title.lower() for document, (title, _rest) in titled_documents(texts).items()}
        if not subject:
            return cls()
        count: dict[tuple[str, str], int] = defaultdict(int)
        surfaces: dict[tuple[str, str], set[str]] = defaultdict(set)
        for row in mentions:
            key = (str(row["entity"]), document_of(str(row["chunk"])))
            count[key] += int(row.get("count") or 1)
            surfaces[key].add(str(row.get("surface") or ""))
        asides: dict[str, set[str]] = defaultdict(set)
        kept: set[str] = set()  # entities more than an aside in some document
        for (entity, document), n in count.items():
            title = subject.get(document)
            if title is not None and n == 1 and not any(_within(s, title) for s in surfaces[(entity, document)]):
                asides[entity].add(document)
            else:
                kept.add(entity)
        found = {
            entity: frozenset(documents if entity in kept else sorted(documents)[1:])
            for entity, documents in asides.items()
        }
        return cls({entity: documents for entity, documents in found.items() if documents})

    def drops(self, entity: str, document: str) -> bool:
        return document in self.documents.get(entity, ())


def _within(surface: str, title: str) -> bool:
    """Whether a mention's surface names the title's subject: its words are a run of the title's ("Chi Chi" of "Chi
    Chi (giant panda)"), not part of a longer word on either side.

    Why `str.find` and not a regex: it runs once per (entity, document) surface, tens of thousands of times on an
    encyclopaedia, and a pattern per surface was compiled anew whenever it fell out of `re`'s cache. A word
    character is what `\\w` matches in a str pattern: alphanumeric (`str.isalnum`) or `_`."""
    phrase = " ".join(surface.lower().split())
    at = title.find(phrase) if phrase else -1
    while at >= 0:
        end = at + len(phrase)
        if not (at > 0 and _word(title[at - 1])) and not (end < len(title) and _word(title[end])):
            return True
        at = title.find(phrase, at + 1)
    return False


def _word(char: str) -> bool:
    return char.isalnum() or char == "_"


def partition_edges(
    edges: Mapping[Pair, Mapping[str, Any]],
    chunk_relations: list[dict[str, Any]],
    entities: Mapping[str, object],
    canonical: Mapping[str, str],
    passing: Passing,
) -> list[tuple[str, str, float]]:
    """The weighted pairs Leiden sees, in a stable order: the stored edges' (`relations.aggregate`), or, when some
    document mentions a name in passing, the same claims weighed again (same order, same rounding) without a
    chunk's claims about a name its document mentions in passing. Why not always the second: a graph without
    titled documents (transcripts, novels) has no asides, and its claims need not be read twice."""
    if not passing.documents:
        return [(a, b, float(row["weight"])) for (a, b), row in sorted(edges.items())]
    weights: dict[Pair, float] = defaultdict(float)
    for row, source, target, weight, *_rest in relations.claims(chunk_relations, entities, canonical):
        document = document_of(str(row["chunk"]))
        if not (passing.drops(source, document) or passing.drops(target, document)):
            weights[(source, target) if source < target else (target, source)] += weight
    return [(a, b, round(weight, 4)) for (a, b), weight in sorted(weights.items())]
