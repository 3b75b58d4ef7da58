"""Titles a document writes between quotes, and whether a name is only ever a piece of one.

Why: the small tagger cuts a quoted work's title into names ('"Hitler Bad, Vandals Good"' gives "Hitler Bad" and
"Vandals Good"; '"Curly's Airships"' gives "Curly"), and a piece of a title is no name (issue #25,
musique_entity_labels_144.csv). Quoted speech ("Joe is in Chicago,") and another name given for a thing ('or
"Gardens of Farnese upon the Palatine"') are not titles: the names in them stay.
"""

from __future__ import annotations

import re

from retrieval.text import whole_words

#: Words between double quotes on one line, with no sentence mark inside: a title if `_title_cased`.
_QUOTED = re.compile(r"[\"“]([^\"“”\n.!?]{3,80})[\"”]")
#: A leading article, no part of the name a title is cut from: "The Hollywood Reporter" names "Hollywood Reporter".
_ARTICLE_FIRST = re.compile(r"^(?:The|A|An) ")
#: Words that give another name just before a quote: "or", "as" ("known as"), "called", "named".
_ANOTHER_NAME = re.compile(r"\b(?:or|as|called|named)\s*$")
#: The small words a title writes in lower case: articles, prepositions and conjunctions.
_TITLE_SMALL_WORDS = frozenset(
    {"a", "an", "the", "of", "in", "on", "at", "for", "to", "and", "or", "nor", "but", "by", "with", "from", "upon",
     "as", "into", "over"}
)  # fmt: skip
#: "'s" before a lower-case word: "is" contracted ("Joe's in Seattle"), not a possessive ("Curly's Airships").
_CONTRACTED = re.compile(r"['’]s [a-z]")
#: Words a quoted title has at most.
QUOTED_TITLE_WORDS = 8


def titles_in(text: str) -> tuple[str, ...]:
    """The titles a text writes between quotes (`_title_cased`), but another name given for a thing ('The Farnese
    Gardens, or "Gardens of Farnese upon the Palatine"', 'known as "..."'): that is a name, not a work's title,
    and a name cut from it still names the thing."""
    found = {
        title
        for m in _QUOTED.finditer(text)
        if _title_cased(title := m.group(1).strip(" ,;:"))
        and not _ANOTHER_NAME.search(text[max(0, m.start() - 12) : m.start()])
    }
    return tuple(sorted(found))


def inside_a_title(name: str, titles: tuple[str, ...], text: str) -> bool:
    """Whether every occurrence of a name (as written) in `text` is inside a longer one of its `titles`
    (`titles_in`). One also written outside the title ("the band The Vandals") is a name of its own."""
    longer = [title for title in titles if len(_ARTICLE_FIRST.sub("", title)) > len(name) and name in title]
    if not longer:
        return False
    covers = [span for title in longer for span in whole_words.spans(title, text)]
    found = whole_words.spans(name, text)
    return bool(found) and all(any(a <= start and end <= b for a, b in covers) for start, end in found)


def _title_cased(text: str) -> bool:
    """Whether quoted words read as a title: two to `QUOTED_TITLE_WORDS` words, the first and the last capitalised,
    every other one capitalised or a title's small word ("Never Give Up on You", "Gardens of Farnese upon the
    Palatine"); quoted speech is not ("Hey Kevin, how are you", "Joe is in Chicago": a title capitalises its verbs;
    "Joe's in Seattle": an "'s" before a small word is "is")."""
    words = text.split()
    return (
        1 < len(words) <= QUOTED_TITLE_WORDS
        and words[0][:1].isupper()
        and words[-1][:1].isupper()
        and all(w[:1].isupper() or w in _TITLE_SMALL_WORDS for w in words)
        and not _CONTRACTED.search(text)
    )
