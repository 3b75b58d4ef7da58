"""Merge rules for the other names a passage gives one place, state or event (resolution.py holds the others).

Why apart: an encyclopaedia passage introduces a thing by its formal or full name and then uses the short one
("Cuba, officially the Republic of Cuba"; "the Atlantic Ocean ... across the Atlantic"; "the Winter Olympic
Games ... the Winter Olympics"), so the two forms are in one document but share no words the earlier rules read
(a person's name part, an acronym, a plural "s"). Each rule asks for both forms in a shared document and the same
kind, and names a form only the name itself can make ("Republic of" before a state, a feature's class word after
it, a plural noun and its adjective, the same words reordered); no rule joins a thing and a part or member of it:
- a state's formal name: one word of `FORMAL` and "of" before the name ("Republic of Cuba" -> "Cuba"), not
  "Kingdom of" or "Empire of", which name a former state ("Kingdom of Hungary" beside "Hungary");
- a geographic feature without its class word ("Atlantic" -> "Atlantic Ocean"; `FEATURES`): the class word names
  what the name alone names, unlike a word for the land around it ("Hudson Valley" is not the Hudson);
- a plural name and its adjective before a plural noun ("Olympics" and "Olympic Games", "Philippines" and
  "Philippine Islands");
- the same three or more words in another order ("Olympic Winter Games" and "Winter Olympic Games"), no person.
Both forms in no shared document stay apart: "Republic of China" (Taiwan) beside "China" never is on MuSiQue, and
a name across passages has no evidence that it means the same thing (the entity vectors do not tell: measured).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import TYPE_CHECKING

from retrieval.indexing.resolution_across import same_kind

if TYPE_CHECKING:
    from retrieval.indexing.resolution import Key

#: The word before "of" in a state's formal name that leaves it the same state ("State of Mississippi").
FORMAL = frozenset({"republic", "state", "commonwealth"})
#: Class words after a geographic feature's name that the name alone also says ("Atlantic Ocean", "Sahara Desert").
FEATURES = frozenset({"ocean", "sea", "river", "mountains", "desert", "peninsula", "islands"})
#: Plural class nouns after an adjective that the adjective's plural also says ("Olympic Games" and "Olympics",
#: "Philippine Islands" and "Philippines"); not any plural noun: "Africans" are not "African Americans".
PLURAL_CLASSES = frozenset({"games", "islands", "mountains", "provinces"})

Pair = tuple[str, str, str]


def name_form_pairs(keys: dict[str, Key], together: Callable[[Key, Key], int]) -> list[Pair]:
    """(variant, target, reason) of the four rules, each pair of keys in a shared document (`together`)."""
    by_slug = {key.slug: key for key in keys.values()}
    by_words: dict[tuple[str, ...], list[Key]] = defaultdict(list)
    by_stem: dict[str, list[Key]] = defaultdict(list)
    tails: set[str] = set()
    for key in keys.values():
        tokens = key.tokens
        tails.update("-".join(tokens[i:]) for i in range(1, len(tokens) - 1))
        if len(tokens) >= 3 and key.type != "PERSON":
            by_words[tuple(sorted(tokens))].append(key)
        if len(tokens) >= 2 and tokens[-1] in PLURAL_CLASSES and key.type != "PERSON":
            by_stem["-".join(tokens[:-1])].append(key)
    out: list[Pair] = []
    for key in sorted(keys.values(), key=lambda k: k.id):
        tokens = key.tokens
        # (variant, target, reason, whether the two must be of one type rather than of one kind)
        found: list[tuple[Key, Key, str, bool]] = []
        if len(tokens) >= 3 and tokens[0] in FORMAL and tokens[1] == "of" and key.slug not in tails:
            short = by_slug.get("-".join(tokens[2:]))
            if short is not None:
                found.append((key, short, f"{key.surface} is the formal name of {short.surface}", True))
        if len(tokens) >= 2 and tokens[-1] in FEATURES and key.type == "LOC":
            short = by_slug.get("-".join(tokens[:-1]))
            if short is not None:
                found.append((short, key, f"{short.surface} is {key.surface} without its class word", True))
        if tokens[-1].endswith("s") and key.type != "PERSON":
            stem = "-".join([*tokens[:-1], tokens[-1][:-1]])
            nouns = [k for k in by_stem.get(stem, []) if k.type != "PERSON" and together(key, k)]
            if len(nouns) == 1:
                found.append((*_lighter(key, nouns[0]), f"{key.surface} is {nouns[0].surface} in the plural", False))
        if len(tokens) >= 3 and key.type != "PERSON":
            reordered = [k for k in by_words[tuple(sorted(tokens))] if k.id < key.id and together(key, k)]
            if len(reordered) == 1:
                other = reordered[0]
                found.append((*_lighter(key, other), f"{key.surface} is {other.surface} in another order", False))
        for variant, target, reason, one_type in found:
            shared = together(variant, target)
            if shared and (variant.type == target.type if one_type else same_kind(variant, target)):
                documents = "1 document" if shared == 1 else f"{shared} documents"
                out.append((variant.id, target.id, f"{reason} (both in {documents})"))
    return out


def _lighter(a: Key, b: Key) -> tuple[Key, Key]:
    """(variant, target): the form mentioned less joins the other."""
    return (a, b) if b.weight >= a.weight else (b, a)
