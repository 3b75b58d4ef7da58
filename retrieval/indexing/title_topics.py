"""Which of the graph's entities may name a community (titles.py): whole names of things, not pieces of one.

Why: the extractor sometimes cuts a name ("cross-country skiers" read as "-country skiers", "the Alzheimer's
Association National Advisory Council" as "Association National Advisory Council", "Jam Media Solutions LLC" as
"LLC", "Codes for the representation of names of countries" as "Codes for the representation of"). Such a piece
is rare elsewhere in the graph, so class-based TF-IDF ranks it first, and a title that starts with a piece says
nothing. What marks a piece, without any list of names: it starts with no letter or digit, it ends with a
lower-case function word, or, in most of the places a passage says it, a capitalised word or a possessive comes
right before it (the rest of the name it was cut from). A word that opens a sentence ("Following World War I") is
no such rest, and only names (titles that start with a capital) are read so: "drama film" after "American" is a
kind of film, not a piece of a name, nor is a title or role before a name ("Emperor Aurangzeb", "Professor
X": RANK_WORDS, the resolver's honorifics and the typer's roles). A possessive before a name is read as its
rest even after a full name: "Mrs. Knott's Chicken Dinner Restaurant", "Ventura County Sheriff's Office ..." are
pieces, at the cost of a book after its author ("Kai-Fu Lee's AI Superpowers"). A lone organisation suffix
("LLC", "Inc": the resolver's ORG_SUFFIXES and KIND_SUFFIXES) is the end of some firm's name, whichever.
Nor may an everyday word name a community, capitalised as a heading or a name's first word ("Notes" of an
encyclopaedia's notes section, "Original", "Series"): a one-word title that is everyday English (COMMON_WORD_ZIPF,
as the entity filter reads it) and that the passages write in lower case at least as often as capitalised
(`everyday_words`) is no name; "Canada" and "American" are never written so, and a rare word a speaker says
both ways ("Blitzscaling") is not everyday English.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping

from spacy.lang.en.stop_words import STOP_WORDS

from retrieval.indexing.entity_filter import common_word
from retrieval.indexing.entity_types import ROLES
from retrieval.indexing.resolution import HONORIFICS, KIND_SUFFIXES, ORG_SUFFIXES
from retrieval.text import whole_words

#: Words that stand before a name as its bearer's title, not as part of the name ("Emperor Aurangzeb"): the
#: resolver's honorifics, the typer's roles and the ranks and offices the roles leave out.
RANK_WORDS = (
    HONORIFICS
    | ROLES
    | frozenset(
        {"emperor", "empress", "sultan", "tsar", "czar", "pope", "duke", "duchess", "earl", "baron", "general",
         "captain", "admiral", "colonel", "major", "bishop", "archbishop", "cardinal", "chancellor", "minister",
         "mayor", "judge", "justice", "pharaoh", "khan", "shah", "caliph", "emir", "rabbi", "imam"}
    )
)  # fmt: skip

#: The word right before a place a passage says a topic: a capitalised word or a possessive, one space before.
_BEFORE = re.compile(r"(?:^|(?<=[\s(\"“]))([\w.’'-]+) $")
#: A word as the passages write it (`everyday_words`), and a title's words (titles.py).
WORD = re.compile(r"\w+")
#: Where a sentence ends (a word after it opens a sentence and is capitalised as any sentence's first word).
_SENTENCE_END = re.compile(r"(?:[.!?][\"”’)]*\s+|\n\s*)$")


def cut_names(titles: Mapping[str, str], chunks_of: Mapping[str, Iterable[str]], texts: Mapping[str, str]) -> set[str]:
    """The ids of `titles` (entity id -> title) that are pieces of a longer name (see the module docstring),
    judged on the passages (`texts`) that mention each (`chunks_of`)."""
    return {
        key
        for key, title in titles.items()
        if _cut_at_an_end(title)
        or (title[0].isupper() and _mostly_after_a_name(title, (texts.get(c, "") for c in chunks_of.get(key, ()))))
    }


def everyday_words(titles: Mapping[str, str], texts: Iterable[str]) -> set[str]:
    """The ids of `titles` (entity id -> title) that are one capitalised everyday word, which the passages
    (`texts`) write in lower case at least as often as capitalised ("Notes", "Series"; see the module docstring)."""
    single = {
        key: title
        for key, title in titles.items()
        if WORD.fullmatch(title)
        and title[0].isupper()
        and not title.isupper()  # an acronym is a name ("BASIC"), however the passages write the word
        and common_word(title)
    }
    if not single:
        return set()
    wanted = set(single.values()) | {title.lower() for title in single.values()}
    said: Counter[str] = Counter()
    for text in texts:
        said.update(word for word in WORD.findall(text) if word in wanted)
    return {key for key, title in single.items() if said[title.lower()] >= max(1, said[title])}


def _cut_at_an_end(title: str) -> bool:
    """No letter or digit to start with ("-country skiers"), a lower-case function word to end with ("Codes for
    the representation of", "Consulate General of"), or a lone organisation suffix ("LLC")."""
    words = title.split()
    return (
        not words
        or not words[0][0].isalnum()
        or (words[-1].islower() and words[-1] in STOP_WORDS)
        or title.lower().rstrip(".") in ORG_SUFFIXES | KIND_SUFFIXES
    )


def _mostly_after_a_name(title: str, passages: Iterable[str]) -> bool:
    """More than half the places the passages say `title` (as written) follow a capitalised word that opens no
    sentence and is no title (RANK_WORDS), or a possessive: "Alzheimer's Association ...", "Solutions LLC"; not
    "Emperor Aurangzeb"."""
    said = after = 0
    for text in passages:
        for start, _end in whole_words.spans(title, text, before="-", after="-"):
            said += 1
            before = text[:start]
            word = _BEFORE.search(before[-60:])
            if word is None:
                continue
            token = word.group(1)
            opens = _SENTENCE_END.search(before[: len(before) - len(token) - 1]) or len(before) == len(token) + 1
            possessive = token.endswith(("'s", "’s"))
            named = token[0].isupper() and token.rstrip(".").lower() not in STOP_WORDS | RANK_WORDS and not opens
            after += possessive or named
    return said > 0 and 2 * after > said
