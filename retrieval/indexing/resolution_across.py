"""Merge rules that join two names found in different documents (resolution.py holds the others).

Why apart: the rules of resolution.py want both forms in one document, which holds on a podcast transcript
but not on a corpus of short passages (MuSiQue, HotpotQA), where "World War II" and "Second World War", or
"Robert De Niro" and "De Niro", are in different paragraphs. Without a shared document the evidence is the name
itself and, where the name alone could join two things, shared context:
- a numeral and the ordinal word saying the same number around the same words ("Second World War" -> "World
  War II"): the whole name is in both forms, so the name is the evidence;
- a name of two or more words tagged a person that is the last words of exactly one longer person's name of the
  graph ("De Niro" -> "Robert De Niro"), with an entity other than a hub mentioned beside both (`Neighbours`);
- an acronym of three letters or more whose only expansion in the graph it spells ("IMF"), with the same.
Uniqueness is counted over the whole graph: a surname of two persons ("Maria Smith" of "Anna Maria Smith" and
"Joan Maria Smith") stays apart, and so does an acronym of two expansions.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from retrieval.indexing.resolution_keys import Key

#: Numerals (Roman, digits, number words) by the ordinal word that says the same number.
_ORDINALS = {
    "first": ("i", "1", "one"),
    "second": ("ii", "2", "two"),
    "third": ("iii", "3", "three"),
    "fourth": ("iv", "4", "four"),
    "fifth": ("v", "5", "five"),
    "sixth": ("vi", "6", "six"),
    "seventh": ("vii", "7", "seven"),
    "eighth": ("viii", "8", "eight"),
    "ninth": ("ix", "9", "nine"),
    "tenth": ("x", "10", "ten"),
}
_NUMERAL = {numeral: ordinal for ordinal, numerals in _ORDINALS.items() for numeral in numerals}
#: Types that name a place: a place and a non-place never join across documents ("Georgia" the state and the
#: person), nor does a person with anything else.
_PLACES = frozenset({"GPE", "LOC"})
#: Two keys in no shared document join only when at least this many other entities are mentioned beside both.
MIN_SHARED = 1
#: ...and a neighbour counts as shared context only when it is mentioned in at most this share of the documents:
#: a hub every passage names ("United States") is no evidence that two names mean one thing.
HUB_SHARE = 0.01


def same_kind(a: Key, b: Key) -> bool:
    """Same type, or two types a tagger confuses for one thing that is neither a person nor a place ("World Chess
    Olympiad" FAC beside "Chess Olympiad" ORG)."""
    if a.type == b.type:
        return True
    kinds = {a.type, b.type}
    return not kinds & (_PLACES | {"PERSON"})


class Neighbours:
    """Which keys are mentioned in the same documents as a key: the shared context that backs a merge of two
    names never written in one document."""

    def __init__(self, keys: dict[str, Key]) -> None:
        self.keys = keys
        self.in_document: dict[str, set[str]] = defaultdict(set)
        for key in keys.values():
            for document in key.documents:
                self.in_document[document].add(key.id)
        self.hub = max(2, int(HUB_SHARE * len(self.in_document)))
        self._of: dict[str, set[str]] = {}

    def of(self, key: Key) -> set[str]:
        if key.id not in self._of:
            found: set[str] = set()
            for document in key.documents:
                found |= self.in_document[document]
            self._of[key.id] = {k for k in found if len(self.keys[k].documents) <= self.hub} - {key.id}
        return self._of[key.id]

    def shared(self, a: Key, b: Key) -> int:
        """How many entities other than the two, none of them a hub, are mentioned beside each of them."""
        return len((self.of(a) & self.of(b)) - {a.id, b.id})


def numbered_pairs(keys: dict[str, Key]) -> list[tuple[str, str, str]]:
    """ "Second World War" -> "World War II": an ordinal word before a name of two or more words, and the same
    words with the same number written after them (Roman numeral, digits or a number word), of the same kind. The
    whole name is in both forms, so no shared context is asked (MuSiQue's two forms share none: other passages)."""
    by_slug = {key.slug: key for key in keys.values()}
    out = []
    for key in sorted(keys.values(), key=lambda k: k.id):
        tokens = key.tokens
        if len(tokens) < 3 or tokens[-1] not in _NUMERAL:
            continue
        other = by_slug.get("-".join([_NUMERAL[tokens[-1]], *tokens[:-1]]))
        if other is not None and same_kind(key, other):
            variant, target = (other, key) if key.weight >= other.weight else (key, other)
            out.append((variant.id, target.id, f"{other.surface} and {key.surface} say the same number"))
    return out


def surname_pairs(keys: dict[str, Key], neighbours: Neighbours, variants: set[str]) -> list[tuple[str, str, str]]:
    """ "De Niro" -> "Robert De Niro": a name of two or more words tagged a person at least once (the tagger
    often makes a bare surname a topic) that is the last words of exactly one
    longer person's name of the graph ("Van Gogh", "Todd Smith" of "James Todd Smith"), the two sharing context.
    Only persons: the last words of an organisation or place name are often a class of their own ("Anglican
    Church" of "Bergen Anglican Church", "Rocky Mountains" of "Northern Rocky Mountains", read on MuSiQue), and a
    one-word name never ("London" of "City of London"). A longer name that is itself a variant does not count
    ("Dr. Lisa Su" is "Lisa Su" with a title)."""
    longer: dict[str, list[Key]] = defaultdict(list)
    for key in keys.values():
        if key.type == "PERSON" and key.id not in variants:
            for i in range(1, len(key.tokens) - 1):
                longer["-".join(key.tokens[i:])].append(key)
    out = []
    for key in sorted(keys.values(), key=lambda k: k.id):
        found = longer.get(key.slug, [])
        if "PERSON" not in key.types or key.type in _PLACES or len(key.tokens) < 2 or len(found) != 1:
            continue
        whole = found[0]
        shared = neighbours.shared(key, whole)
        if shared >= MIN_SHARED:
            reason = f"{key.surface} is {whole.surface} without the first name ({shared} entities beside both)"
            out.append((key.id, whole.id, reason))
    return out


def acronym_across(key: Key, expansions: list[Key], neighbours: Neighbours) -> Key | None:
    """The one expansion of the graph an acronym of at least three letters spells, of the same kind and sharing
    context, when none is in a document with it ("USA" and "United States of America" in different passages)."""
    if len(key.surface) < 3 or len(expansions) != 1:
        return None
    e = expansions[0]
    return e if same_kind(key, e) and neighbours.shared(key, e) >= MIN_SHARED else None
