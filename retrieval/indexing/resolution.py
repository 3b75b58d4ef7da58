"""Entity resolution across documents: which extracted keys name the same real thing, and why.

Why here and not at extraction: extraction sees one document, where "Lisa" and "Lisa Su" are folded
only when unambiguous there; the graph holds every document. Resolution runs in the reconcile stage on
all stored mentions, so an incremental run resolves a new document against what the graph already has,
and `remove` undoes a merge exactly (the merge is recomputed from the mentions that are left). It runs
on whatever produced the mentions, the offline extractor or a model.

Each rule merges a *variant* key into the key it is a form of, and only with evidence that both name one
thing: the forms must be compatible in type, and for the rules that could join two different things
(name parts, acronyms, plural/possessive forms) the two must be mentioned in the same documents. Every
merge keeps a human-readable reason (see docs/graph-model.md, `aliases` and `merge_reasons`):
- case, spacing and hyphenation ("Fei-Fei Li", "FeiFei Li"): same letters, same name;
- titles and honorifics ("Dr. Lisa Su" -> "Lisa Su");
- possessive and plural forms ("Lisa Sus" -> "Lisa Su", "neural networks" -> "neural network");
- acronyms and their expansions ("AMD" <-> "Advanced Micro Devices") co-mentioned in a document;
- transcript misspellings of one person's surname in a shared document: one letter apart ("Sam Schillaci" ->
  "Sam Schillace"), sounding the same (same Metaphone code: "Theo Vaughn" -> "Theo Von") or cut short
  ("Charles Simon" -> "Charles Simonyi"), and a name cut short by its last letter ("Googl" -> "Google") that is
  much rarer than the whole name;
- an organisation's name with words added inside ("Jen-Hsun & Lori Huang Foundation" -> "Jen-Hsun Huang
  Foundation": same first and last word) or a kind word at its end ("Human-Centered AI Institute"), in one
  document;
- an organisation named with its parent's name in front ("Xerox PARC" -> "PARC") when the parent is an entity
  and both forms are in one document;
- a first name or surname alone ("Lisa" -> "Lisa Su", "Fei-Feis" -> "Fei-Fei Li") when most documents
  mentioning it mention that one person as the only full name with it and no other person of that name comes
  close ("Miller" beside "Kevin Miller" and "Tim Miller" is evidence for neither);
- an everyday word that ends one longer name of its type in a shared document as the head the other words
  qualify ("the Valley" of a conversation about "Silicon Valley"; "Research" beside "Microsoft Research" and
  "Google Research" stays apart, so does "London" beside "City of London"): the longer name shortened;
- across documents (resolution_across.py): a numeral and its ordinal word ("Second World War" -> "World War II"),
  a surname of two words or more of one graph person ("De Niro"), an acronym's only expansion in the graph ("IMF"),
  the last two with an entity other than a hub mentioned beside both;
- across documents (countries.py): two names of one ISO 3166 country ("Swiss Confederation" -> "Switzerland";
  "Russia" read from ISO's "Russian Federation"), and its three-letter code where most of the code's passages name
  the country or a place of it, or where the code also spells the country's ISO name ("USA");
- the other names a passage gives one place, state or event (resolution_names.py), in a shared document: a
  state's formal name ("Republic of Cuba" -> "Cuba"), a feature without its class word ("Atlantic" -> "Atlantic
  Ocean"), an adjective's plural ("Olympics" and "Olympic Games"), the same words reordered, and any other name a
  sentence gives in words ("The Catholic Church, also known as the Roman Catholic Church": the mentions' evidence).

Resolution also keeps apart (resolution_glosses.py) two forms glossed as different kinds ("Monster Truck (band)",
"Monster Trucks (film)"): they are never joined as plural forms.

Resolution also types: a capitalised one-word topic left unmerged that is the first name or surname of a person
of the graph ("Richard", with "Richard Feynman" and "Richard Dawkins") is a person (`person_names`), and so is a
first name of any type but a place said more than once ("Elon" tagged ORG beside "Elon Musk") and a given name
with the rarer surname of a graph person ("Melinda Gates" tagged ORG beside "Bill Gates").
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from retrieval.indexing.countries import country_pairs
from retrieval.indexing.entity_filter import everyday
from retrieval.indexing.given_names import given_name
from retrieval.indexing.model import CONCEPT
from retrieval.indexing.resolution_across import Neighbours, acronym_across, numbered_pairs, surname_pairs
from retrieval.indexing.resolution_glosses import glossed_apart
from retrieval.indexing.resolution_keys import PLACES, Key, compatible, rank, together
from retrieval.indexing.resolution_names import alias_pairs, name_form_pairs
from retrieval.indexing.resolution_people import people_pairs
from retrieval.indexing.resolution_spelling import misspelled_pairs
from retrieval.store.records import Row

#: Leading words that are a title, not part of the name.
HONORIFICS = frozenset(
    {"dr", "mr", "mrs", "ms", "miss", "prof", "professor", "sir", "dame", "lord", "lady", "rev", "saint", "st"}
)
#: Small words skipped when reading an expansion's initials ("Department of Energy" -> DOE keeps "of").
_MINOR = frozenset({"of", "and", "the", "for", "in", "on", "at", "to", "a", "an", "&"})
#: Trailing words that leave an organisation's name the same organisation: "Google Brain Team", "Apple Inc".
ORG_SUFFIXES = frozenset(
    {"inc", "corp", "corporation", "company", "co", "ltd", "llc", "plc", "group", "labs", "team", "project",
     "university", "college"}
)  # fmt: skip
#: Trailing words that say what kind of organisation a name is; they join only a name typed ORG ("Human-Centered
#: AI Institute" and "Human-Centered AI"), never a person's surname ("Gates Foundation" is not Gates).
KIND_SUFFIXES = frozenset({"institute", "foundation", "center", "centre"})
#: Types of a parent whose name may stand in front of an organisation's ("Xerox PARC", "Stanford HAI").
_NAMERS = frozenset({"ORG", "GPE", "LOC"})
#: A name part joins a full name when that person is in at least this share of the documents mentioning it...
NAME_PART_SHARE = 0.5
#: ...and in at least this many times as many of them as the next person sharing the part.
NAME_PART_MARGIN = 2.0


@dataclass(frozen=True)
class Resolution:
    """Raw key id -> the entity id it resolves to, and for each merged key why."""

    canonical: dict[str, str]
    reasons: dict[str, str]
    #: Entity id -> the type the graph's evidence gives it instead of its mentions' majority (`person_names`).
    types: dict[str, str] = field(default_factory=dict)

    def of(self, key: str) -> str:
        return self.canonical.get(key, key)


def keys_of(mentions: list[Row]) -> dict[str, Key]:
    """Per raw key (`key`, else `entity`, of rows {chunk, entity, key, surface, type, count}) its evidence."""
    keys: dict[str, Key] = {}
    for row in mentions:
        raw = str(row.get("key") or row["entity"])
        key = keys.setdefault(raw, Key(raw))
        key.surfaces[row["surface"]] += int(row["count"] or 1)
        key.types[row["type"]] += int(row["count"] or 1)
        document = str(row["chunk"]).rsplit(":", 1)[0]
        key.documents.add(document)
        if row.get("evidence"):
            key.sentences.add((document, str(row["evidence"])))
    return keys


def resolve(keys: dict[str, Key]) -> Resolution:
    """Union the keys the rules pair (each pair with its reason); each group resolves to a key that is no
    other key's variant, the fullest name among those."""
    parent = {k: k for k in keys}
    # Why a key merged: the pair that joined it as the variant, else the first that joined something to it (a
    # head's own form): "Olympics" is "Olympic Games" in the plural, though "Olympic" joined "Olympics" first.
    as_variant: dict[str, str] = {}
    as_target: dict[str, str] = {}

    def find(k: str) -> str:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    pairs = _pairs(keys)
    variants = {variant for variant, _target, _reason in pairs}
    for variant, target, reason in pairs:
        a, b = find(variant), find(target)
        if a != b:
            parent[a] = b
            as_variant.setdefault(variant, reason)
            as_target.setdefault(target, reason)
    groups: dict[str, list[str]] = defaultdict(list)
    for k in keys:
        groups[find(k)].append(k)
    canonical: dict[str, str] = {}
    for members in groups.values():
        head = max(members, key=lambda m: (m not in variants, *rank(keys[m])))
        canonical.update({m: head for m in members})
    reasons = {k: r for k, r in {**as_target, **as_variant}.items() if canonical[k] != k}
    return Resolution(canonical, reasons, person_names(keys, canonical))


def person_names(keys: dict[str, Key], canonical: dict[str, str]) -> dict[str, str]:
    """Entity id -> PERSON for a capitalised one-word topic that is the first name or surname of a person of the
    graph it was not merged into ("Richard" beside "Richard Feynman" and "Richard Dawkins"; "Elon" of an
    interview that never says "Musk"): a name with no person evidence in its own documents is still a name.
    Any surname only for topics (CONCEPT): a one-word organisation named like a person ("Dell", "Disney") keeps its
    type; a first name and a given name with a graph person's surname for more types (the two rules below)."""
    people = [
        key for key in keys.values() if canonical[key.id] == key.id and key.type == "PERSON" and len(key.tokens) > 1
    ]
    firsts = {key.tokens[0] for key in people}
    lasts = {key.tokens[-1] for key in people}
    return {
        key.id: "PERSON"
        for key in keys.values()
        if canonical[key.id] == key.id
        and key.type != "PERSON"
        and key.surface[:1].isupper()
        and not key.surface.isupper()
        and (
            (len(key.tokens) == 1 and key.type == CONCEPT and key.slug in firsts | lasts)
            or _first_name_of_a_person(key, firsts)
            or _given_name_and_surname(key, lasts)
        )
    }


def _first_name_of_a_person(key: Key, firsts: set[str]) -> bool:
    """A one-word name of any type but a place, said more than once, that opens a person's full name in the graph
    ("Elon" typed ORG, "Joe" typed WORK_OF_ART beside "Elon Musk", "Joe Rogan"): firms and works are named after
    surnames ("Dell", "Disney"), seldom after a first name alone, and a place may be ("Georgia", "Washington").
    Once is not enough: "a teacher at Bradley and Bellwood schools" names a school beside "Bradley Christiansen";
    a conversation calls a person it knows by the first name again and again."""
    return len(key.tokens) == 1 and key.weight > 1 and key.type not in PLACES | {"NORP"} and key.slug in firsts


def _given_name_and_surname(key: Key, lasts: set[str]) -> bool:
    """Two words, a common given name and the surname of a person of the graph ("Melinda Gates" typed ORG beside
    "Bill Gates"): a person of that family, whatever the tagger made of "Melinda Gates and ... Foundation". Not
    when the "surname" is an everyday word: "Hunter College" beside "Magdalene College" (a college typed PERSON)
    names a college."""
    return (
        len(key.tokens) == 2
        and key.type not in PLACES
        and given_name(key.surface.split()[0])
        and key.tokens[-1] in lasts
        and not everyday(key.tokens[-1])
    )


def _documents(n: int) -> str:
    return f"{n} document" if n == 1 else f"{n} documents"


def _pairs(keys: dict[str, Key]) -> list[tuple[str, str, str]]:
    """(variant, target, reason) for every merge the rules support, in a fixed order."""
    by_slug = {key.slug: key for key in keys.values()}
    out: list[tuple[str, str, str]] = []
    compact: dict[str, list[Key]] = defaultdict(list)
    for key in keys.values():
        compact[key.slug.replace("-", "")].append(key)
    for group in compact.values():
        group.sort(key=rank, reverse=True)
        for variant in group[1:]:
            if compatible(variant, group[0]):
                out.append((variant.id, group[0].id, f"same name, spelled differently: {group[0].surface}"))
    for key in sorted(keys.values(), key=lambda k: k.id):
        out.extend(_form_pairs(key, by_slug))
    neighbours = Neighbours(keys)
    out.extend(_acronym_pairs(keys, neighbours))
    out.extend(numbered_pairs(keys))
    out.extend(name_form_pairs(keys, together))
    out.extend(alias_pairs(keys))
    out.extend(country_pairs(keys, _initials))  # after: a passage's own evidence is the reason kept
    out.extend(surname_pairs(keys, neighbours, {variant for variant, _t, _r in out}))
    out.extend(_longer_name_pairs(keys))
    out.extend(misspelled_pairs(keys))
    out.extend(_qualified_org_pairs(keys, by_slug))
    out.extend(_shortened_pairs(keys))
    out.extend(_name_part_pairs(keys, {variant for variant, _t, _r in out}))
    out.extend(people_pairs(keys, together, {variant for variant, _t, _r in out}, NAME_PART_SHARE))
    return out


def _form_pairs(key: Key, by_slug: dict[str, Key]) -> list[tuple[str, str, str]]:
    """Honorific and possessive/plural forms of another key."""
    out = []
    tokens = key.tokens
    if len(tokens) > 1 and tokens[0] in HONORIFICS:
        target = by_slug.get("-".join(tokens[1:]))
        if target is not None and compatible(key, target):
            out.append((key.id, target.id, f"title dropped: {key.surface} is {target.surface}"))
    if key.slug.endswith("s") and len(tokens[-1]) >= 3:
        stem = by_slug.get(key.slug[:-1])
        if (
            stem is not None
            and compatible(key, stem)
            and (together(key, stem) or (len(tokens) > 1 and not glossed_apart(key, stem)))
        ):
            variant, target = (key, stem) if stem.weight >= key.weight else (stem, key)
            shared = together(key, stem)
            out.append(
                (
                    variant.id,
                    target.id,
                    f"possessive or plural form of {target.surface} (both in {_documents(shared)})",
                )
            )
    return out


def _initials(key: Key) -> set[str]:
    """The initials of a name of words ("united-states" -> "us"), also read from its written words, where a
    hyphenated word or an acronym inside is one letter ("Human-Centered AI Institute" -> "hai"); none when a
    part is no word ("Apple II")."""
    found = set()
    words = [t for t in key.tokens if t not in _MINOR]
    if all(len(t) >= 3 and t.isalpha() for t in words):
        found.add("".join(t[0] for t in words))
    written = [w for w in key.surface.split() if w.lower() not in _MINOR]
    if len(written) > 1 and all(_word(w) for w in written):
        found.add("".join(w[0] for w in written).lower())
    return found


def _word(written: str) -> bool:
    """A word of letters (hyphens allowed), or an acronym; a Roman numeral ("Apple II") is a number."""
    letters = written.replace("-", "")
    return letters.isalpha() and (len(letters) >= 3 or letters.isupper()) and not set(letters) <= set("IVXLC")


def _acronym_pairs(keys: dict[str, Key], neighbours: Neighbours) -> list[tuple[str, str, str]]:
    """An upper-case acronym and the one expansion whose initials it spells, mentioned in a shared document, or
    else the graph's only expansion when the two share context (`acronym_across`)."""
    expansions: dict[str, list[Key]] = defaultdict(list)
    for key in keys.values():
        if len(key.tokens) > 1:
            for initials in _initials(key):
                expansions[initials].append(key)
    out = []
    for key in sorted(keys.values(), key=lambda k: k.id):
        surface = key.surface
        if len(key.tokens) != 1 or not (2 <= len(surface) <= 6 and surface.isupper() and surface.isalpha()):
            continue
        spelled = expansions.get(key.slug, [])
        found = [e for e in spelled if together(key, e) and compatible(key, e)]
        if len(found) == 1:
            e = found[0]
            evidence = f"together in {_documents(together(key, e))}"
        elif not found and (across := acronym_across(key, spelled, neighbours)) is not None:
            e = across
            evidence = f"the graph's only expansion, {neighbours.shared(key, e)} entities mentioned beside both"
        else:
            continue
        variant, target = (e, key) if key.weight >= e.weight else (key, e)
        out.append((variant.id, target.id, f"{key.surface} is short for {e.surface} ({evidence})"))
    return out


def _longer_name_pairs(keys: dict[str, Key]) -> list[tuple[str, str, str]]:
    """A person's name without a middle name ("Neil Tyson" of "Neil deGrasse Tyson"), an organisation's name
    with words added inside ("Jen-Hsun & Lori Huang Foundation" of "Jen-Hsun Huang Foundation"), and an
    organisation without a suffix ("Google Brain" of "Google Brain Team"), when both are in one document."""
    by_ends: dict[tuple[bool, str, str], list[Key]] = defaultdict(list)
    by_slug = {key.slug: key for key in keys.values()}
    out = []
    for key in keys.values():
        if len(key.tokens) > 2:
            by_ends[(key.type == "PERSON", key.tokens[0], key.tokens[-1])].append(key)
    for key in sorted(keys.values(), key=lambda k: k.id):
        tokens = key.tokens
        if key.type == "PERSON" and len(tokens) == 2:
            longer = [k for k in by_ends.get((True, tokens[0], tokens[-1]), []) if together(key, k)]
            if len(longer) == 1:
                out.append((key.id, longer[0].id, f"{key.surface} is {longer[0].surface} without a middle name"))
        if key.type == "ORG" and len(tokens) > 2:
            inside = [
                k
                for k in by_ends.get((False, tokens[0], tokens[-1]), [])
                if k.type == "ORG" and len(k.tokens) > len(tokens) and _within(tokens, k.tokens) and together(key, k)
            ]
            if len(inside) == 1:
                added = inside[0]
                out.append((added.id, key.id, f"{added.surface} is {key.surface} with words added"))
        if len(tokens) > 1 and tokens[-1] in ORG_SUFFIXES | KIND_SUFFIXES and key.type != "PERSON":
            short = by_slug.get("-".join(tokens[:-1]))
            kind_ok = short is not None and (short.type == "ORG" or tokens[-1] in ORG_SUFFIXES)
            if short is not None and kind_ok and short.type not in PLACES | {"PERSON"} and together(key, short):
                out.append((key.id, short.id, f"{key.surface} is {short.surface} with a suffix"))
    return out


def _within(short: list[str], long: list[str]) -> bool:
    """Whether the words of `short` are those of `long` in order, with some left out."""
    rest = iter(long)
    return all(word in rest for word in short)


def _qualified_org_pairs(keys: dict[str, Key], by_slug: dict[str, Key]) -> list[tuple[str, str, str]]:
    """ "Xerox PARC" -> "PARC": a name whose first word is another organisation or place of the graph and whose
    rest is an organisation's acronym or several-word name, all three in one document."""
    out = []
    for key in sorted(keys.values(), key=lambda k: k.id):
        tokens = key.tokens
        if len(tokens) < 2 or key.type == "PERSON":
            continue
        parent, rest = by_slug.get(tokens[0]), by_slug.get("-".join(tokens[1:]))
        if parent is None or rest is None or parent.type not in _NAMERS or rest.type in PLACES | {"PERSON", CONCEPT}:
            continue  # "AI Machine Learning" is not machine learning named with a parent
        named = len(rest.tokens) > 1 or (rest.surface.isupper() and len(rest.surface) >= 3)
        if named and together(key, rest) and together(key, parent):
            out.append((key.id, rest.id, f"{key.surface} is {rest.surface} named with {parent.surface}"))
    return out


def _shortened_pairs(keys: dict[str, Key]) -> list[tuple[str, str, str]]:
    """ "Valley" -> "Silicon Valley": a one-word name (no person) that is an everyday English word and the last
    word of exactly one longer name of the same type mentioned in one of its documents, where it is the head
    the other words qualify: in "City of London" or "Kingdom of Hungary" the last word names a thing of its own
    (word lists ignore case: "London" is as frequent as "valley")."""
    by_last: dict[tuple[str, str], list[Key]] = defaultdict(list)
    for key in keys.values():
        if len(key.tokens) > 1 and key.type != "PERSON" and key.tokens[-2] not in _MINOR:
            by_last[(key.tokens[-1], key.type)].append(key)
    out = []
    for key in sorted(keys.values(), key=lambda k: k.id):
        if len(key.tokens) != 1 or key.type in ("PERSON", CONCEPT) or not everyday(key.slug):
            continue
        longer = [k for k in by_last.get((key.slug, key.type), []) if together(key, k)]
        if len(longer) == 1:
            out.append((key.id, longer[0].id, f"{key.surface} is {longer[0].surface} shortened (in one document)"))
    return out


def _name_part_pairs(keys: dict[str, Key], variants: set[str]) -> list[tuple[str, str, str]]:
    """A lone first name or surname, or its possessive ("Fei-Feis"), -> the full name of the person found in
    most of its documents (full names that are themselves another name's variant do not compete), counting only
    documents where that person is the one full name with the part (`_crowded`)."""
    people: dict[str, list[Key]] = defaultdict(list)
    for key in keys.values():
        if key.type == "PERSON" and len(key.tokens) > 1 and key.id not in variants:
            parts = {key.tokens[0], key.tokens[-1]}
            if len(key.tokens) > 2:
                parts.add("-".join(key.tokens[:-1]))  # a hyphenated first name: "Fei-Fei" of "Fei-Fei Li"
            for part in parts:
                people[part].append(key)
    out = []
    for key in sorted(keys.values(), key=lambda k: k.id):
        surface = key.surface
        part = key.slug if key.slug in people else key.slug[:-1] if key.slug.endswith("s") else ""
        if part not in people or surface.isupper() or key.type in PLACES:
            continue
        if key.type == CONCEPT and not surface[:1].isupper():
            continue  # a topic word; a capitalised one may be a name with no person evidence of its own
        rivals = [p for p in people[part] if p.id != key.id]
        crowded = _crowded(key, rivals)
        alone = {p.id: len(key.documents & p.documents - crowded) for p in rivals}
        ranked = sorted(rivals, key=lambda p: (alone[p.id], p.weight), reverse=True)
        if not ranked:
            continue
        best = alone[ranked[0].id]
        runner_up = alone[ranked[1].id] if len(ranked) > 1 else 0
        if best >= NAME_PART_SHARE * len(key.documents) and best >= NAME_PART_MARGIN * runner_up and best:
            person = ranked[0]
            out.append(
                (
                    key.id,
                    person.id,
                    f"{surface} alone is {person.surface} in {best} of its {len(key.documents)} documents",
                )
            )
    return out


def _crowded(part: Key, people: list[Key]) -> set[str]:
    """The documents of `part` that mention two or more of `people` (the full names with the part). Why: in a
    document naming "Kevin Miller" and "Tim Miller", "Miller" alone may be either, so it is evidence for neither.
    Such a document still counts in the share's denominator: the merge moves every mention of the key, those of
    that document too, so a key whose documents are mostly ambiguous stays apart."""
    seen = Counter(document for person in people for document in part.documents & person.documents)
    return {document for document, n in seen.items() if n > 1}
