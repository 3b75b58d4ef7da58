"""Plain records passed between indexing stages (no database, no I/O)."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

CONCEPT = "CONCEPT"
_NON_WORD = re.compile(r"[^a-z0-9]+")


def slug(text: str) -> str:
    """Case-, accent-, punctuation- and whitespace-insensitive key: 'Bill  Gates', 'BILL GATES' -> 'bill-gates'."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return _NON_WORD.sub("-", ascii_text.lower()).strip("-")


@dataclass(frozen=True)
class Mention:
    """An entity as seen in one chunk: its surface form, type, how often, and a sentence that shows it."""

    key: str
    surface: str
    type: str
    count: int
    evidence: str


@dataclass(frozen=True)
class Relation:
    """A relationship claimed by one chunk (co-occurrence offline, an extracted statement with an LLM)."""

    source: str
    target: str
    weight: float
    description: str
    #: True when the source says who did what to whom (an LLM's statement), False for co-occurrence.
    directed: bool = False


@dataclass
class ChunkExtraction:
    mentions: list[Mention] = field(default_factory=list)
    relations: list[Relation] = field(default_factory=list)


@dataclass(frozen=True)
class StageProgress:
    """One progress tick: `stage` names the pipeline step; `done`/`total` count its work items."""

    stage: str
    done: int
    total: int
    message: str = ""


ProgressCallback = Callable[[StageProgress], None]


def document_id(project: str, path: str) -> str:
    """A document's id: its project and path, so the same file in two projects is two documents."""
    return hashlib.sha256(f"{project}\n{path}".encode()).hexdigest()[:32]


def entity_id(project: str, key: str) -> str:
    """Entities are shared by every document of a project: one id per normalised title."""
    return f"{project}:{key}"


def majority_type(counter: Counter[str]) -> str:
    """Most frequent named type when the name was ever recognised as one, so 'KEVIN SCOTT:' labels stay a PERSON."""
    return max(_named(counter).items(), key=lambda item: (item[1], item[0]))[0]


def _named(counter: Counter[str]) -> dict[str, int]:
    return {kind: n for kind, n in counter.items() if kind != CONCEPT} or dict(counter)


#: Types of places, which outvote PERSON on a tie across documents (`graph_type`).
_PLACE_TYPES = frozenset({"GPE", "LOC"})


def graph_type(counter: Counter[str]) -> str:
    """`majority_type` of a name's mentions across documents, a tie between a person and a place going to the place.
    Why: each document types a name alone, and the small model calls a place a person where its passage says
    nothing of it ("based in Port Moresby, Papua New Guinea"; issue #25, musique_entity_labels_144.csv: a country
    and a city typed PERSON in as many passages as a place), while the documents that say more type it a place; the
    tie had gone to PERSON only because its name sorts last."""
    named = _named(counter)
    top = max(named.values())
    tied = {kind for kind, n in named.items() if n == top}
    if "PERSON" in tied and tied & _PLACE_TYPES:
        tied.discard("PERSON")
    return max(tied)
