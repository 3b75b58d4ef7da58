"""One name, two things: two forms of a name that their own documents gloss as different kinds are never joined.

Why: the possessive/plural rule joins a multi-word name and its plural across documents by the spelling alone, and
an encyclopaedia gives two things of one name their own articles, each headed by the name with its kind in brackets
("Monster Truck (band)" and "Monster Trucks (film)", two MuSiQue passages the rule made one node: issue #25, branch
wt262, `musique_entity_labels_251.csv`). Two forms each glossed so, with no kind in common, are two things, whatever
their spelling says; one gloss alone says nothing ("The Chess Olympiad (tournament)" beside "Chess Olympiads"). The
glosses are read from the mentions' sentences (`Key.sentences`), so the rule holds on any corpus that writes them.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from retrieval.indexing.resolution_keys import Key

#: Characters of a bracketed gloss: a kind ("band", "film", "2016 film"), not a bracketed sentence.
MAX_GLOSS = 40


def glosses(key: Key) -> set[str]:
    """The kinds a key's sentences give it in brackets right after its name: "Monster Truck (band)" -> {"band"}."""
    found = set()
    for _document, sentence in key.sentences:
        for surface in key.surfaces:
            pattern = rf"{re.escape(surface)} \(([^()]{{1,{MAX_GLOSS}}})\)"
            found |= {gloss.strip().lower() for gloss in re.findall(pattern, sentence)}
    return found


def glossed_apart(a: Key, b: Key) -> bool:
    """Whether two keys are glossed as different kinds of thing: each has a gloss, none in common."""
    ga, gb = glosses(a), glosses(b)
    return bool(ga and gb) and not ga & gb
