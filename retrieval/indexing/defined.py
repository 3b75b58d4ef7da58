"""What a document's defining sentence says a name is, read from the text itself: a person's noun or a thing's.

Why: encyclopaedia passages open by saying what their subject is ("Sant Hilari Sacalm is a town", "Frank Gehry ...
is a Canadian-born American architect"), and that sentence is the best evidence across the person line a document
holds. The parse often misses it: MuSiQue passages open "Title\\n\\nTitle is a ...", and the small parser runs the
title line into that sentence, so no parse-based "X is a ..." rule (person_words, place_words, person_line) reads it
(issue #25, wt251's finding: the largest single cause of the person-line errors left). Read from the raw text with
no parse, the sentence holds on any corpus that defines its names this way, and the words are common nouns
(`person_words.OCCUPATIONS`, `person_line.KIND_NOUNS`), not names.

The rule: a sentence (or a line) that opens with the name, optionally a bracket or one comma-clause after it ("X
(born 1929)", "X, also known as Y,"), then "is/was a/an/the", then up to six words before any preposition, comma
or relative word: the first of those words that is an occupation says a person, a kind noun says a thing. "X is a
member of the band" says nothing (stops at "of"); "X is a piece of music" says a thing ("piece" before "of").
"""

from __future__ import annotations

import re
from typing import Literal

from retrieval.indexing.person_line import KIND_NOUNS
from retrieval.indexing.person_words import OCCUPATIONS

#: Kind nouns a defining sentence uses that `KIND_NOUNS` (kept for the parse rules) lacks.
_MORE_THINGS = frozenset(
    {"site", "painting", "complex", "sculpture", "monument", "mountain", "peak", "glacier", "airport"}
)
#: Less "manufacturer": a person's trade as often as a firm ("a brassiere manufacturer").
_THINGS = (KIND_NOUNS | _MORE_THINGS) - {"manufacturer"}
#: Nouns of a person a defining sentence uses that `OCCUPATIONS` (kept for the parse rules) lacks; not "designer"
#: or "producer", which firms are too ("Hawley Products is the original designer of the M1 steel helmet liner").
_MORE_PEOPLE = frozenset(
    {"clockmaker", "hostess", "player", "coach", "manager", "artist", "director",
     "ruler", "king", "queen", "prince", "princess", "leader", "saint", "martyr", "goddess", "deity", "god",
     "character", "protagonist", "heroine", "hero", "villain", "man", "woman", "boy", "girl", "child", "person",
     "politician", "scholar", "teacher", "professor", "businessperson", "executive", "industrialist", "banker",
     "merchant", "farmer", "criminal", "spy", "commander", "navigator", "philanthropist"}
)  # fmt: skip
_PEOPLE = OCCUPATIONS | _MORE_PEOPLE
#: Words that end the noun phrase of what the name is: a preposition, a relative word, a conjunction.
_STOPS = frozenset(
    {"of", "in", "on", "at", "from", "for", "by", "with", "who", "which", "that", "whose", "to", "as",
     "upon", "near", "based", "known", "since", "during", "between", "under", "where", "than"}
)  # fmt: skip
_COPULA = r"(?:is|was)\s+(?:a|an|the)\s+"
#: After the name: a bracket ("(born 1929)") or one comma-clause ("X, also known as Y,"), then the copula.
_AFTER = r"(?:\s*\([^()\n]{0,80}\))?(?:,[^,.\n]{1,80})?,?\s+" + _COPULA + r"([^.\n;:]{0,120})"
_AFTER_NAME = re.compile(_AFTER)
#: A title line, a blank line, and the first sentence's words up to its first "is/was a/an/the".
_TITLE = re.compile(r"\s*([^\n]{1,120})\n\s*\n[^.\n]{0,200}?\s" + _COPULA + r"([^.\n;:]{0,120})")
_DISAMBIGUATION = re.compile(r"\s*\([^()]*\)$|,[^,]*$")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*|[,()]")
#: What a sentence opening just before a name ends with (a line break, a full stop, a closing quote after one).
_OPENERS = ".!?\n\"')”’"

Definition = Literal["person", "thing"] | None


def defined(surface: str, text: str) -> Definition:
    """What the first defining sentence of `surface` in `text` says it is: "person", "thing", or None. Found with
    `str.find` rather than one regex over the text: a long document (a novel) holds a thousand names."""
    start = text.find(surface)
    while start >= 0:
        before = text[max(0, start - 20) : start].rstrip(" \t")  # a run of blanks that long is a break too
        if not before or before[-1] in _OPENERS:
            match = _AFTER_NAME.match(text, start + len(surface))
            said = _noun_says(match.group(1), surface) if match else None
            if said is not None:
                return said
        start = text.find(surface, start + 1)
    return _titled(surface, text)


def _titled(surface: str, text: str) -> Definition:
    """What the first sentence says when the document opens with `surface` as its title line ("Juande\\n\\nJuan de
    Dios Prados López (born 12 August 1986), known as Juande, is a Spanish professional footballer"): an
    encyclopaedia's first sentence defines its title's subject under whatever form of the name it opens with. A
    bracket or ", State" after the title is its disambiguation ("Frank Gehry (architect)", "Au Gres, Michigan")."""
    match = _TITLE.match(text)
    if match is None or _DISAMBIGUATION.sub("", match.group(1)).strip() != surface:
        return None
    return _noun_says(match.group(2), surface)


def _noun_says(phrase: str, surface: str) -> Definition:
    """What the head noun of the phrase says: the last word before the first word that ends the noun phrase (a
    preposition, a relative word, a comma, a bracket, a participle: "architect residing in"), within eight words.
    The head, not any noun in it: "a race walker", "a mountain biker", "a college and professional football player",
    "a theatre and film director" are people ("and" joins modifiers of one head, so it ends nothing). A lower-case
    word of the name itself is a kind too ("Gmina Kwidzyn is a rural gmina", "Sandy Lake is a lake"): a person's name
    is not what the person is."""
    words = _WORD.findall(phrase)[:9]
    end = next((i for i, w in enumerate(words) if _ends_phrase(w)), len(words) if len(words) < 9 else 0)
    head = words[end - 1] if end else ""
    lower = head.lower()
    if not head.islower():
        return None
    if lower in _PEOPLE:
        return "person"
    if lower in _THINGS or lower in {w.lower() for w in surface.split()}:
        return "thing"
    return None


def _ends_phrase(word: str) -> bool:
    """Whether `word` ends the noun phrase of what a name is (see `_noun_says`)."""
    lower = word.lower()
    return (
        lower in _STOPS or word in ",()" or (word.islower() and lower.endswith(("ing", "ed")) and lower not in _PEOPLE)
    )


def typed(kind: str, said: Definition, *, person: int) -> str:
    """The type a name's defining sentence gives it across the person line: PERSON for a thing defined by an
    occupation; ORG (person_line's thing side) for a PERSON defined by a kind noun when no mention in the document
    has person evidence (`person`: entity_types' and person_line's; "Van Helsing is a 2004 ... film. It stars Hugh
    Jackman as vigilante monster hunter Van Helsing" may speak of both); `kind` otherwise."""
    if said == "person" and kind != "PERSON":
        return "PERSON"
    if said == "thing" and kind == "PERSON" and not person:
        return "ORG"
    return kind
