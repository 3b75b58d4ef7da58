"""One name, two things: a place name that documents qualify with different states or countries, kept apart per
document; and two forms of a name that their own documents gloss as different kinds of thing, never joined.

Why: every other rule joins keys, and a key is one node wherever it is written, so "Oakland" of "Oakland, Garrett
County, Maryland" (one MuSiQue passage) and of "Oakland, California" (another) were one node, and so were
"Jackson County" of Florida and of Oregon. A document usually says which place it means: it writes the name with
its state or country after a comma, or, for a county, names its state elsewhere. That evidence is read from the
mentions' sentences (`Key.sentences`) and the document's other places (`Neighbours.in_document`); no list of names:
- explicit: the name written right before ", Q" (places of a lower level may stand between: "Oakland, Garrett
  County, Maryland") where Q is a country or an ISO 3166-2 subdivision (`countries.gazetteer`: Maryland, England),
  the name itself none of them (in "Georgia, Armenia and Azerbaijan" no country qualifies another);
- context: a document with no explicit qualifier that names, as a place, exactly one of the qualifiers other
  documents give the name; for a county's name ("Jackson County"), which is always some state's, also the one
  subdivision of that country it names (a passage about a courthouse in Jacksonville that names Oregon).
Two qualifiers conflict when they differ and neither is the country of the other (Maryland and California do;
Maryland and the United States do not). Only a name with two conflicting qualifiers, one of them written with the
name, is kept apart. The documents of the qualifier with the most documents, and those that give none, keep the
key's node (the name's usual sense there); each other qualifier's documents are a part of their own, titled "Name,
Qualifier" and keyed `<key id>--<qualifier slug>` (a slug never holds "--", so no extracted key can take the id,
and the same documents always give the same id). The part is a function of the mentions like every merge: a
document added later can split a name, and `remove` of it joins the name again.

Glosses: an encyclopaedia writes a name with its kind in brackets where two things share it ("Monster Truck (band)",
"Monster Trucks (film)"); two forms each glossed so, with no gloss in common, are two things (`glossed_apart`),
whatever their spelling says (the plural rule joined the band and the film across their passages).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING

import pycountry

from retrieval.indexing.countries import gazetteer
from retrieval.indexing.model import slug

if TYPE_CHECKING:
    from retrieval.indexing.resolution_across import Neighbours
    from retrieval.indexing.resolution_keys import Key

#: Types of a name that a state or country can qualify.
PLACE_TYPES = frozenset({"GPE", "LOC"})
#: Last words of a name that is always some state's: its documents' one state says which.
COUNTY_WORDS = frozenset({"county", "parish", "borough", "township"})
#: Capitalised words after the name's comma: the qualifier, or lower places and then the qualifier.
_AFTER = r",\s+((?:[A-Z][\w.'’\-]*)(?:,?\s+(?:of\s+|the\s+)?[A-Z][\w.'’\-]*){0,6})"
#: What goes on after the last of several names side by side.
_LIST_AFTER = re.compile(r"\s*,?\s*(?:and|or|&)\b")


@dataclass(frozen=True)
class Place:
    """What ISO 3166 says a qualifier is: its slug, as written, the codes it is a name of (a country's alpha-2, a
    subdivision's 3166-2 code) and the codes of what it lies in (itself, its parents, its country)."""

    slug: str
    written: str
    codes: frozenset[str]
    within: frozenset[str]


@cache
def _places() -> dict[str, tuple[frozenset[str], frozenset[str]]]:
    """Slug -> (codes it names, codes it lies in): countries from the gazetteer, subdivisions from 3166-2."""
    codes: dict[str, set[str]] = defaultdict(set)
    within: dict[str, set[str]] = defaultdict(set)
    for s, record in gazetteer().names.items():
        codes[s].add(record.code)
        within[s].add(record.code)
    for sub in pycountry.subdivisions:
        s = slug(sub.name)
        codes[s].add(sub.code)
        within[s] |= {sub.code, sub.country_code}
        parent = sub.parent_code
        while parent:
            within[s].add(parent)
            up = pycountry.subdivisions.get(code=parent)
            parent = up.parent_code if up is not None else None
    return {s: (frozenset(codes[s]), frozenset(within[s])) for s in codes}


def place(written: str) -> Place | None:
    """The ISO place a written name is, if any."""
    written = written.rstrip(".")
    s = slug(written)
    hit = _places().get(s[4:] if s.startswith("the-") else s)
    return Place(s, written, *hit) if hit else None


def conflict(a: Place, b: Place) -> bool:
    """Two different places, neither in the other (West Sussex is in England, Maryland in the United States)."""
    return a.slug != b.slug and not (a.codes & b.within or b.codes & a.within)


def written_with(name: str, sentence: str) -> Place | None:
    """The state or country a sentence writes after `name` and a comma ("Oakland, Garrett County, Maryland"): the
    first part after the comma that is one, reading each part's longest leading words first, when every part after
    it is a place it lies in ("Maryland, United States"). Not in a list: "Dubai, Istanbul, Frankfurt and London",
    "Texas, California, and Florida" name places side by side."""
    for found in re.finditer(rf"(?<![\w\-]){re.escape(name)}{_AFTER}", sentence):
        if _LIST_AFTER.match(sentence, found.end()):
            continue
        parts = re.split(r",\s*", found.group(1))
        for i, part in enumerate(parts):
            words = part.split()
            hit = next((p for n in range(len(words), 0, -1) if (p := place(" ".join(words[:n]))) is not None), None)
            if hit is not None:
                rest = [place(other) for other in parts[i + 1 :]]
                if all(r is not None and r.codes & hit.within for r in rest):
                    return hit
                break
    return None


@dataclass
class Parts:
    """(head key, document) -> entity id of the part it belongs to; each part's title; why, per entity."""

    of: dict[tuple[str, str], str] = field(default_factory=dict)
    titles: dict[str, str] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)


def homonym_parts(keys: dict[str, Key], heads: set[str], neighbours: Neighbours) -> Parts:
    """The parts of every head key that documents qualify with conflicting places (module docstring)."""
    parts = Parts()
    for key_id in sorted(heads):
        key = keys[key_id]
        if key.type not in PLACE_TYPES or place(key.surface) is not None:
            continue
        given = _qualifiers(key, neighbours)
        if given:
            _split(key, given, parts)
    return parts


def _qualifiers(key: Key, neighbours: Neighbours) -> dict[str, Place]:
    """Document -> the place it says the name is in: written with it, else named beside it (module docstring)."""
    explicit: dict[str, set[Place]] = defaultdict(set)
    for document, sentence in key.sentences:
        for surface in key.surfaces:
            if (hit := written_with(surface, sentence)) is not None:
                explicit[document].add(hit)
    given = {d: next(iter(ps)) for d, ps in explicit.items() if len({p.slug for p in ps}) == 1}
    known = {p.slug: p for p in given.values()}
    county = key.tokens[-1] in COUNTY_WORDS
    if not any(conflict(a, b) for a in known.values() for b in known.values()) and not (known and county):
        return {}
    countries = {c for p in known.values() for c in p.within if "-" not in c}
    for document in sorted(key.documents - set(given)):
        named = []
        for other in neighbours.in_document[document]:
            o = neighbours.keys[other]
            if o.type not in PLACE_TYPES or (p := place(o.surface)) is None:
                continue
            if p.slug in known or (county and p.codes.isdisjoint(countries) and p.within & countries):
                named.append(p)
        if len({p.slug for p in named}) == 1:
            given[document] = named[0]
    qualifiers = {p.slug: p for p in given.values()}
    if not any(conflict(a, b) for a in qualifiers.values() for b in qualifiers.values()):
        return {}
    return given


def _split(key: Key, given: dict[str, Place], parts: Parts) -> None:
    """The most documented qualifier keeps the key's node with the unqualified documents; every other is a part."""
    by_place: dict[str, list[str]] = defaultdict(list)
    places = {}
    for document, p in given.items():
        by_place[p.slug].append(document)
        places[p.slug] = p
    weight = Counter(document for document, _sentence in key.sentences)
    order = sorted(by_place, key=lambda s: (-len(by_place[s]), -sum(weight[d] for d in by_place[s]), s))
    kept, name = order[0], key.surface
    here = f"{name}, {places[kept].written} ({_documents(len(by_place[kept]))})"
    others = "; ".join(f"{name}, {places[o].written} ({_documents(len(by_place[o]))})" for o in order[1:])
    parts.reasons[key.id] = f"{here} and where no place is named with it; kept apart: {others}"
    for s in order[1:]:
        part = f"{key.id}--{s}"
        parts.titles[part] = f"{name}, {places[s].written}"
        parts.reasons[part] = (
            f"{name} of {_documents(len(by_place[s]))} naming {places[s].written} with it; kept apart from {here}"
        )
        for document in by_place[s]:
            parts.of[(key.id, document)] = part


def glosses(key: Key) -> set[str]:
    """The kinds a key's sentences give it in brackets right after its name: "Monster Truck (band)" -> {"band"}."""
    found = set()
    for _document, sentence in key.sentences:
        for surface in key.surfaces:
            found |= {g.strip().lower() for g in re.findall(rf"{re.escape(surface)} \(([^()]{{1,40}})\)", sentence)}
    return found


def glossed_apart(a: Key, b: Key) -> bool:
    """Whether two keys are glossed as different kinds of thing: each has a gloss, none in common."""
    ga, gb = glosses(a), glosses(b)
    return bool(ga and gb) and not ga & gb


def _documents(n: int) -> str:
    return f"{n} document" if n == 1 else f"{n} documents"
