"""Countries' other names from ISO 3166 (`pycountry`): "United States" and "United States of America" across
passages (resolution.py holds the other rules).

Why a gazetteer here and not a rule of spelling: a state's short and formal names share no form a rule can read
without also joining two things ("Switzerland" / "Swiss Confederation" beside "Virginia" / "West Virginia"), and
on a corpus of short passages (MuSiQue) the two are seldom in one passage, so the name itself must be the
evidence. ISO 3166 is a kept record of exactly that: each country's `name`, `official_name` and `common_name`
(3166-1) and the former countries (3166-3, "USSR, Union of Soviet Socialist Republics"), kept by Debian's
iso-codes, so no list here is written by hand and the rule holds on any corpus.

What joins: two keys typed GPE, LOC or ORG whose names (case, accents, punctuation and a leading "the" aside) are
two names of one ISO record. What never joins: two records, however close ("Republic of China" is Taiwan's name,
"China" the People's Republic's; "Congo" and "Democratic Republic of the Congo"; "Sudan" and "South Sudan"), and a
former country and its successor (Burma 1989 and Myanmar are two records); a name two records give ("Yemen", a
former and a current state) is nobody's, unless a current country gives it, which keeps it.

Codes: a three-letter ISO code written in capitals ("USA") joins only with evidence in its passages that the
text means that country: most of them name the country or one of its ISO 3166-2 subdivisions ("California"), and
none names another thing the code spells ("Union of South Africa" in a passage about South Africa's history):
that passage's "USA" is one key with the others, and the acronym rule joins it to "Union of South Africa", so
a code joined to its country there would join two countries.
Two-letter codes ("US", "IN", "IT") are words or pronouns in running text and never join.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

import pycountry

from retrieval.indexing.model import slug

if TYPE_CHECKING:
    from retrieval.indexing.resolution_keys import Key

#: Types a country's name is tagged with: the land (GPE, LOC) or its state as an actor (ORG).
KINDS = frozenset({"GPE", "LOC", "ORG"})
#: ...of which a place: a code read by its initials alone must be one ("PNG" the image format is no country).
PLACES = frozenset({"GPE", "LOC"})
#: A code joins its country when at least this share of its passages name the country or a place of it.
CODE_SHARE = 0.5
#: Words for a state after a country's adjective in its ISO name ("Russian Federation").
STATE_WORDS = frozenset({"federation", "republic", "confederation"})
#: Small words left out of a name's initials ("United States of America" -> USA).
_MINOR = frozenset({"of", "the", "and"})

Pair = tuple[str, str, str]


@dataclass(frozen=True)
class Record:
    """One ISO 3166 country as the reasons cite it."""

    code: str
    name: str
    part: str  # "3166-1" or "3166-3" (a former country)


def _name(text: str) -> str:
    """A name's slug without a leading article ("the State of Palestine", "The Gambia") and with an apostrophe
    joining its word ("People's" and "Peoples" alike)."""
    s = slug(text.replace("'", "").replace("\u2019", ""))
    return s[4:] if s.startswith("the-") else s


def _record(key: Key, names: dict[str, Record]) -> Record | None:
    """The ISO country a key names by its written form or its key, if it is typed as a country can be."""
    if key.type not in KINDS:
        return None
    return names.get(_name(key.surface)) or names.get(_name(key.slug))


def _names_of(name: str, former: bool) -> list[str]:
    """The names one ISO `name` field gives. An inverted name ("Korea, Republic of") is read in order ("Republic
    of Korea"); a former country's name lists its names with commas ("USSR, Union of Soviet Socialist Republics",
    "Czechoslovakia, Czechoslovak Socialist Republic"), a current one's a part after the comma that is no name of
    the country ("Bonaire, Sint Eustatius and Saba"; "Virgin Islands, British"). A name with a bracket is left."""
    if "(" in name:
        return []
    first, *rest = [p.strip() for p in name.split(",")]
    found = [] if rest and not former else [first]
    for part in rest:
        if part.endswith((" of", " of the")):
            found.append(f"{part} {first}")
        elif former and " " in part:
            found.append(part)
    return found


def _noun_of(name: str) -> str | None:
    """The country a two-word ISO name of its adjective and a word for a state names ("Russian Federation" ->
    "Russia"), when the adjective is the noun and an "n"."""
    words = name.split()
    if len(words) == 2 and words[1].lower() in STATE_WORDS and words[0].endswith("n") and len(words[0]) > 4:
        return words[0][:-1]
    return None


def _initials(name: str) -> str:
    return "".join(w[0] for w in name.lower().split() if w not in _MINOR)


@dataclass(frozen=True)
class Gazetteer:
    """What ISO 3166 says, read once (`gazetteer`)."""

    names: dict[str, Record]  # name slug -> its record (a name two records give belongs to neither)
    codes: dict[str, Record]  # alpha-3 code slug -> its record
    places: dict[Record, frozenset[str]]  # record -> slugs of its names and subdivisions
    initials: dict[Record, frozenset[str]]  # record -> the initials of its names ("usa")
    #: Name slugs read from an ISO name, not written there: "russia" of "Russian Federation" (`_noun_of`).
    nouns: frozenset[str]


@cache
def gazetteer() -> Gazetteer:
    """ISO 3166 read once: a current country's name is never a former one's, and a name two records give (current or
    former) is nobody's. ISO's short name of a country may be its formal name with no common one beside it
    ("Russian Federation"): the adjective's noun ("Russia") is then read as a name too, unless a record has it."""
    current: dict[str, set[Record]] = defaultdict(set)
    codes: dict[str, Record] = {}
    places: dict[Record, set[str]] = defaultdict(set)
    initials: dict[Record, set[str]] = defaultdict(set)
    nouns: dict[str, Record] = {}
    for country in pycountry.countries:
        plain = _names_of(country.name, former=False)
        title = getattr(country, "common_name", None) or (plain[0] if plain else country.name)
        record = Record(country.alpha_2, title, "3166-1")
        codes[country.alpha_3.lower()] = record
        for field in ("name", "official_name", "common_name"):
            for name in _names_of(getattr(country, field, None) or "", former=False):
                current[_name(name)].add(record)
                initials[record].add(_initials(name))
        if not getattr(country, "common_name", None) and (noun := _noun_of(country.name)):
            nouns[_name(noun)] = record
        places[record] = {_name(s.name) for s in pycountry.subdivisions.get(country_code=country.alpha_2) or []}
    former: dict[str, set[Record]] = defaultdict(set)
    for country in pycountry.historic_countries:
        record = Record(country.alpha_2, country.name.split(",")[0], "3166-3")
        for name in _names_of(country.name, former=True):
            if _name(name) not in current:
                former[_name(name)].add(record)
    read = {s: r for s, r in nouns.items() if s not in current and s not in former}
    names = {s: next(iter(rs)) for s, rs in {**former, **current}.items() if len(rs) == 1} | read
    for s, record in names.items():
        places[record].add(s)
    return Gazetteer(
        names,
        codes,
        {r: frozenset(p) for r, p in places.items()},
        {r: frozenset(i) for r, i in initials.items()},
        frozenset(read),
    )


def country_pairs(keys: dict[str, Key], spells: Callable[[Key], set[str]]) -> list[Pair]:
    """(variant, target, reason): the keys naming one ISO country join its most mentioned name, and a code joins
    it with evidence (`_code_evidence`). `spells` gives the acronyms a key's initials spell."""
    iso = gazetteer()
    names = iso.names
    by_record: dict[Record, list[Key]] = defaultdict(list)
    for key in keys.values():
        if (record := _record(key, names)) is not None:
            by_record[record].append(key)
    out: list[Pair] = []
    for record, group in sorted(by_record.items(), key=lambda item: item[0].code):
        if len(group) < 2:
            continue
        target = max(group, key=lambda k: (k.weight, -len(k.slug), k.slug))
        for variant in sorted(group, key=lambda k: k.id):
            if variant is not target:
                reason = f"{variant.surface} and {target.surface} name one country in ISO {record.part} ({record.name})"
                if {_name(variant.surface), _name(target.surface)} & iso.nouns:
                    reason = f"{reason[:-1]}: the adjective of one and a word for a state)"
                out.append((variant.id, target.id, reason))
    for key in sorted(keys.values(), key=lambda k: k.id):
        record = iso.codes.get(key.slug) if key.surface.isupper() and len(key.surface) == 3 else None
        if record is None or key.type not in KINDS or _record(key, names) is not None:
            continue
        named = [k for k in by_record.get(record, []) if k.id != key.id]
        if named and (evidence := _code_evidence(key, record, keys, iso, spells)):
            target = max(named, key=lambda k: (k.weight, -len(k.slug), k.slug))
            out.append((key.id, target.id, f"{key.surface} is the ISO 3166 code of {record.name} ({evidence})"))
    return out


def _code_evidence(
    code: Key, record: Record, keys: dict[str, Key], iso: Gazetteer, spells: Callable[[Key], set[str]]
) -> str | None:
    """Why a code means its country in this graph, or None: none of its passages mentions another name the code
    spells, and most of them mention a name or subdivision of the country, or the code is also the initials of
    one of the country's ISO names ("USA": United States of America) and tagged a place, two readings of ISO that
    agree ("PRI" is Puerto Rico's code but not its initials: Mexico's party keeps its own)."""
    places = iso.places[record]
    by_document: dict[str, list[Key]] = defaultdict(list)
    for key in keys.values():
        if key.id != code.id:
            for document in key.documents & code.documents:
                by_document[document].append(key)
    country = otherwise = 0
    for document in code.documents:
        found = by_document.get(document, [])
        country += any(_name(k.surface) in places for k in found)
        otherwise += any(code.slug in spells(k) and _name(k.surface) not in places for k in found)
    total = len(code.documents)
    if otherwise:
        return None
    if country >= CODE_SHARE * total:
        return f"{country} of its {total} passages name the country or a place of it, none another name it spells"
    if code.slug in iso.initials[record] and code.type in PLACES:
        return f"also the initials of its ISO name; none of its {total} passages names another thing it spells"
    return None
