"""Which of the graph's entities may name a community (titles.py): whole names of things, not pieces of one.

Why: the extractor sometimes cuts a name ("cross-country skiers" read as "-country skiers", "the Alzheimer's
Association National Advisory Council" as "Association National Advisory Council", "Jam Media Solutions LLC" as
"LLC", "Codes for the representation of names of countries" as "Codes for the representation of"). Such a piece
is rare elsewhere in the graph, so class-based TF-IDF ranks it first, and a title that starts with a piece says
nothing. What marks a piece, without any list of names: it starts with no letter or digit, it ends with a
lower-case function word, or, in most of the places a passage says it, a capitalised word or a possessive comes
right before it (the rest of the name it was cut from). A word that opens a sentence ("Following World War I") is
no such rest, and only names (titles that start with a capital) are read so: "drama film" after "American" is a
kind of film, not a piece of a name. Nor is a title or role before a name ("Emperor Aurangzeb", "Professor
X": TITLE_WORDS, the resolver's honorifics and the typer's roles), nor a full name's possessive before what is
theirs ("Kai-Fu Lee's AI Superpowers", a book after its author), where a one-word name's possessive is often
the start of a longer name ("Alzheimer's Association").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from spacy.lang.en.stop_words import STOP_WORDS

from retrieval.indexing.entity_types import ROLES
from retrieval.indexing.resolution import HONORIFICS
from retrieval.text import whole_words

#: Words that stand before a name as its bearer's title, not as part of the name ("Emperor Aurangzeb"): the
#: resolver's honorifics, the typer's roles and the ranks and offices the roles leave out.
TITLE_WORDS = (
    HONORIFICS
    | ROLES
    | frozenset(
        {"emperor", "empress", "sultan", "tsar", "czar", "pope", "duke", "duchess", "earl", "baron", "general",
         "captain", "admiral", "colonel", "major", "bishop", "archbishop", "cardinal", "chancellor", "minister",
         "mayor", "judge", "justice", "pharaoh", "khan", "shah", "caliph", "emir", "rabbi", "imam", "father"}
    )
)  # fmt: skip

#: The word right before a place a passage says a topic: a capitalised word or a possessive, one space before.
_BEFORE = re.compile(r"(?:^|(?<=[\s(\"“]))([\w.’'-]+) $")
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


def _cut_at_an_end(title: str) -> bool:
    """No letter or digit to start with ("-country skiers"), or a lower-case function word to end with ("Codes for
    the representation of", "Consulate General of")."""
    words = title.split()
    return not words or not words[0][0].isalnum() or (words[-1].islower() and words[-1] in STOP_WORDS)


def _mostly_after_a_name(title: str, passages: Iterable[str]) -> bool:
    """More than half the places the passages say `title` (as written) follow a capitalised word that opens no
    sentence and is no title (TITLE_WORDS), or the possessive of a one-word name: "Alzheimer's Association ...",
    "Solutions LLC"; not "Emperor Aurangzeb" nor "Kai-Fu Lee's AI Superpowers"."""
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
            # a full name's possessive says whose the thing is ("Kai-Fu Lee's"); a one-word name's ("Alzheimer's")
            # often starts a longer name
            if token.endswith(("'s", "’s")):
                owner = _BEFORE.search(before[: len(before) - len(token) - 1][-60:])
                after += not (owner and _capitalised(owner.group(1)))
            else:
                after += _capitalised(token) and token.rstrip(".").lower() not in TITLE_WORDS and not opens
    return said > 0 and 2 * after > said


def _capitalised(word: str) -> bool:
    """A capitalised word that is no stop word ("The" opens a phrase, it is no name)."""
    return word[0].isupper() and word.lower() not in STOP_WORDS
