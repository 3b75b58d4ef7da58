"""Which of the graph's entities may name a community (titles.py): whole names of things, not pieces of one.

Why: the extractor sometimes cuts a name ("cross-country skiers" read as "-country skiers", "the Alzheimer's
Association National Advisory Council" as "Association National Advisory Council", "Jam Media Solutions LLC" as
"LLC", "Codes for the representation of names of countries" as "Codes for the representation of"). Such a piece
is rare elsewhere in the graph, so class-based TF-IDF ranks it first, and a title that starts with a piece says
nothing. What marks a piece, without any list of names: it starts with no letter or digit, it ends with a
lower-case function word, or, in most of the places a passage says it, a capitalised word or a possessive comes
right before it (the rest of the name it was cut from). A word that opens a sentence ("Following World War I") is
no such rest, and only names (titles that start with a capital) are read so: "drama film" after "American" is a
kind of film, not a piece of a name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from spacy.lang.en.stop_words import STOP_WORDS

from retrieval.text import whole_words

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
    sentence, or a possessive: "Alzheimer's Association ...", "Solutions LLC"."""
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
            named = token[0].isupper() and token.lower() not in STOP_WORDS and not opens
            after += possessive or named
    return said > 0 and 2 * after > said
