"""Merge rules for two keys that name one person by forms the other rules do not read (resolution.py holds those).

Why apart: a conversation calls a person by a nickname and the full name in one breath ("Ronald Howard ... Ron
Howard", "Richard Feynman ... Dick Feynman"), and the tagger may type a bare surname as a place or a topic
("Sagan" LOC beside "Carl Sagan"), which the name-part rule leaves alone (it never joins a place, and it asks for
a person-typed name). Two rules, each backed by a shared document:
- a nickname: two person keys with the same surname whose given names are one name and its nickname in the
  `nicknames` package (Old Dominion University's hand-curated English given-name list, Apache-2.0), read both
  ways ("Dick" is a nickname of "Richard"; "Ron" of "Ronald", also of "Aaron"), in a shared document. Never when
  the graph holds another person of that surname whose given name the nickname may also stand for ("Ron Smith"
  beside "Ronald Smith" and "Aaron Smith"): which one is meant is not in the names. Both forms in one passage is
  the evidence here, not a sign of two people: a transcript says the nickname beside the full name ("Dick
  Feynman" in the passage that says "Richard Feynman"), and keys know documents, not the words between names;
- a surname typed as a non-person: a capitalised one-word key typed a topic or a place (`SURNAME_MISTYPES`) that
  is the surname of exactly one person key of its documents, with the evidence the name-part rule asks of a
  person-typed surname (most of its documents are that person's; no other person of the surname is in any of
  them), the person's name led by a given name of either list ("Galvez" beside "Hotel Galvez", a hotel typed
  PERSON, stays apart). Not organisations, products or countries: a firm is named after its founder ("Dell"
  beside "Michael Dell"), a state after a person ("Washington"), and the tagger's type is then right.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Callable
from typing import TYPE_CHECKING

from retrieval.indexing.given_names import given_name

if TYPE_CHECKING:
    from retrieval.indexing.resolution_keys import Key

Pair = tuple[str, str, str]
#: Types a bare surname may be given by mistake: a topic and a natural place ("Sagan" LOC). Organisations, products,
#: countries and nationalities are named after people and keep their own node.
SURNAME_MISTYPES = frozenset({"CONCEPT", "LOC", "FAC", "WORK_OF_ART", "EVENT"})


@functools.cache
def _nicknames() -> dict[str, frozenset[str]]:
    """Given name (lower case) -> the names it is a nickname of or has as a nickname, per the `nicknames` list."""
    from nicknames import NickNamer

    related: dict[str, set[str]] = defaultdict(set)
    for name, nicks in NickNamer().nickname_lookup.items():
        for nick in nicks:
            related[name].add(nick)
            related[nick].add(name)
    return {name: frozenset(others) for name, others in related.items()}


def known_given_name(word: str) -> bool:
    """Whether `word` is a given name in either list (Faker's, or the `nicknames` list's names and nicknames)."""
    return given_name(word) or word.lower() in _nicknames()


def nickname_of(a: str, b: str) -> bool:
    """Whether one given name is the other's nickname ("Dick" and "Richard"; any case), per the `nicknames` list."""
    return b.lower() in _nicknames().get(a.lower(), frozenset())


def people_pairs(
    keys: dict[str, Key],
    together: Callable[[Key, Key], int],
    variants: set[str],
    share: float,
) -> list[Pair]:
    """(variant, target, reason) of the two rules. `together`: documents two keys share; `variants`: keys another
    rule already joined (a full name that is one does not take a surname); `share`: the name-part rule's evidence
    for a lone surname (the share of its documents that must be the person's)."""
    people: dict[str, list[Key]] = defaultdict(list)
    for key in keys.values():
        if key.type == "PERSON" and len(key.tokens) > 1 and key.id not in variants:
            people["-".join(key.tokens[1:])].append(key)
    return [*_nickname_pairs(people, together), *_surname_pairs(keys, people, together, share)]


def _nickname_pairs(people: dict[str, list[Key]], together: Callable[[Key, Key], int]) -> list[Pair]:
    out: list[Pair] = []
    for family in people.values():
        for short in sorted(family, key=lambda k: k.id):
            given = short.tokens[0]
            matches = [k for k in family if k.tokens[0] != given and nickname_of(given, k.tokens[0])]
            if len(matches) != 1:
                continue  # none, or two people the nickname may stand for
            full = matches[0]
            shared = together(short, full)
            # One direction per pair: the more mentioned form is the target.
            if not shared or (short.weight, short.id) > (full.weight, full.id):
                continue
            documents = "1 document" if shared == 1 else f"{shared} documents"
            reason = (
                f"{short.surface} and {full.surface}: {short.tokens[0].capitalize()} and "
                f"{full.tokens[0].capitalize()} are one given name and its nickname (both in {documents})"
            )
            out.append((short.id, full.id, reason))
    return out


def _surname_pairs(
    keys: dict[str, Key],
    people: dict[str, list[Key]],
    together: Callable[[Key, Key], int],
    share: float,
) -> list[Pair]:
    out: list[Pair] = []
    for key in sorted(keys.values(), key=lambda k: k.id):
        surface = key.surface
        if len(key.tokens) != 1 or key.type not in SURNAME_MISTYPES or not surface[:1].isupper() or surface.isupper():
            continue
        family = [p for p in people.get(key.slug, []) if together(key, p)]
        if len(family) != 1:
            continue
        person = family[0]
        if not known_given_name(person.surface.split()[0]):
            continue  # "Hotel Galvez" typed PERSON: a name led by no given name is no evidence of a family name
        # The name-part rule's evidence: most of the surname's documents are this person's (no other person of the
        # surname is in any of them, so none comes close).
        best = together(key, person)
        if best >= share * len(key.documents):
            out.append(
                (
                    key.id,
                    person.id,
                    f"{surface} (typed {key.type}) is the surname of {person.surface}, the only person of that "
                    f"surname, in {best} of its {len(key.documents)} documents",
                )
            )
    return out
