"""Words around a name that only a place's name takes: the noun of a kind of place it is, a list of places.

Why: on encyclopaedia passages (MuSiQue, issue #25: the labelled errors of every `musique_entity_labels*.csv`, the
largest class of which is a type across the person line) the small model types places met once as people: "Glade
Farms is an unincorporated community", "Scafell Pike, the highest mountain in England", "Missouri City is
bordered by ... Stafford to the northwest, Sugar Land to the west". What the sentence says the name is, and the names it
is listed with, are evidence a person's name never has. The words are common nouns of kinds of place, not
names, so the rules hold on any corpus:
- a noun of a kind of place that the parse says the name is, as its appositive or as what it "is", written in lower
  case ("X is a village", "X, the highest mountain in England"), is place evidence;
- a name in a list whose other members the model typed are all places, at least `LIST_KIND` of them ("Paris,
  London, Berlin and Sugar Land"), is; unless a possessor owns it ("Egypt's Gamal Abdel Nasser, India's
  Jawaharlal Nehru and Ghana's Kwame Nkrumah", the model typing two of the leaders as places): that names someone
  or something of a place, not a place among its peers.
A place's name apposed to the name ("Kitty Hawk, North Carolina") is not used: on MuSiQue the parse also apposes
a birthplace in brackets ("Roldano Simeoni (Civitavecchia, ...)"), a film's actor and a country before a title
("Vice President of the United States, Dick Cheney"), and retyped people.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from retrieval.indexing.entity_names import PLACE_LAST

#: The model's types of places.
PLACE_TYPES = frozenset({"GPE", "LOC", "FAC"})
#: Nouns of kinds of places that a name may be said to be ("X is an unincorporated community"), never a person.
PLACE_NOUNS = PLACE_LAST | frozenset(
    {"city", "town", "village", "hamlet", "community", "municipality", "suburb", "borough", "commune",
     "settlement", "parish", "country", "region", "capital", "hill", "lake", "bay", "headland", "seaport",
     "port", "resort", "locality", "neighborhood", "cove", "strait", "archipelago", "atoll", "summit"}
)  # fmt: skip
#: Fewest other members of one kind a list must name before its other members count as that kind too.
LIST_KIND = 2


class Listed(NamedTuple):
    """A list a name is one of: its first member, and the model's types of its other members that have one."""

    head: Any
    others: list[str]


def listed_kinds(root: Any) -> Listed | None:
    """The list ("Teller and Dirac and Fermi", "Tangier, Al Hoceima, and Laayoune") whose member is the name's root
    token, when it has more than `LIST_KIND` members; None otherwise."""
    head = root
    while head.dep_ == "conj" and head.head is not head:
        head = head.head
    members = [head, *(t for t in head.subtree if t.dep_ == "conj" and t.i != head.i)]
    if root not in members or len(members) <= LIST_KIND:
        return None
    return Listed(head, [t.ent_type_ for t in members if t.i != root.i and t.ent_type_])


def said_nouns(root: Any) -> list[Any]:
    """The nouns the parse says a name is: its appositive's head ("X, an English poet") and, when it is the subject
    of "to be", the attribute ("X is an unincorporated community")."""
    nouns = [t for t in root.children if t.dep_ == "appos"]
    if root.dep_ in ("nsubj", "nsubjpass") and root.head.lemma_ == "be":
        nouns += [t for t in root.head.children if t.dep_ == "attr"]
    return nouns


def place_evidence(ent: Any) -> bool:
    """Whether the sentence says the name is a place: the parse makes it a noun of a kind of place ("X is an
    unincorporated community") or lists it with places only."""
    root = ent.root
    kind = any(noun.text.islower() and noun.lower_ in PLACE_NOUNS for noun in said_nouns(root))
    owned = any(t.dep_ == "poss" for t in root.children)  # "Ghana's Kwame Nkrumah": someone of a place, not a place
    return kind or (not owned and _listed_with_places(root))


def _listed_with_places(root: Any) -> bool:
    """Whether the name is one of a list whose other members the model typed are all places, at least `LIST_KIND`
    of them. All, not most: a results table or a list of people with their countries ("Egypt's Gamal Abdel
    Nasser, India's Jawaharlal Nehru") parses as a list that mixes places with other names."""
    listed = listed_kinds(root)
    if listed is None:
        return False
    places = sum(1 for kind in listed.others if kind in PLACE_TYPES)
    return places >= LIST_KIND and places == len(listed.others)
