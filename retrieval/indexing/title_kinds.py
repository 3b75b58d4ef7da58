"""What kind of thing each titled passage is about ("radio station", "journal", "film"), for titles (titles.py).

Why: a community of several encyclopaedia passages whose subjects are one kind of thing is titled by what they share
("Wilmington, North Carolina & United States", "Springer Science+Business Media"), and a reader does not learn from
it that the passages are five radio stations or three journals. The kind is in the passage's own first sentence,
as an encyclopaedia writes it: "WSME (1120 AM) is an Eastern North Carolina radio station ...", "Casino is a 1995
American crime film ...", or in the title's bracket, "Casino (1995 film)". Read from the document's own words, no
list of kinds: the head noun of the noun phrase right after "is a" / "was an" / "are the" (with the noun before it
when that is part of a compound: "radio station", not "station"), or the bracket's last word when it is a
lower-case word ("film"; "Leader of the Opposition (Jamaica)" has none). A first sentence whose words before the
verb do not say the title's first word (a later passage of an article, "Knievel, 29, used his own money ...")
says no kind.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Mapping
from typing import Any

from retrieval.indexing.title_phrases import STOP

#: "is a", "was an", "are the", "is one of the": where an encyclopaedia's first sentence says what its subject is.
_COPULA = re.compile(r"\b(?:is|was|are|were)\s+(?:one\s+of\s+)?(?:an?|the)\s+", re.IGNORECASE)
#: The first sentence of a passage: up to the first full stop, question or exclamation mark followed by a space.
_FIRST_SENTENCE = re.compile(r"\A(.+?[.!?])(?:\s|\Z)", re.DOTALL)
#: A title's closing bracket ("Chi Chi (giant panda)", "Casino (1995 film)"): what the encyclopaedia calls its kind.
_BRACKET = re.compile(r"\(([^()]*)\)\s*\Z")
#: The first sentence is read up to this many characters after the copula (a kind comes right after it).
_READ = 120
#: A title's first word: the sentence before the copula must say it ("Tucson, Arizona": "Tucson is a city ...").
_WORD = re.compile(r"\w+")


def document_kinds(titled: Mapping[str, tuple[str, str]]) -> dict[str, str]:
    """Document title -> the kind of thing its subject is (lower case, singular as written); `titled` holds each
    titled document's title and its first passage's text after the title line. Documents of one title (an
    article cut into several) are one subject, whose kind the first of them (by id) whose first sentence reads as
    saying one says. Titles whose documents say no kind are left out."""
    kinds: dict[str, str] = {}
    wanted: dict[str, tuple[str, int]] = {}  # title -> its first sentence, where the copula ends
    for _document, (title, text) in sorted(titled.items()):
        if title in kinds or title in wanted:
            continue
        bracket = _BRACKET.search(title)
        last = bracket.group(1).split()[-1] if bracket and bracket.group(1).split() else ""
        if last.isalpha() and last.islower() and last not in STOP:  # "(1995 film)", not "(Jamaica)"
            kinds[title] = last
            continue
        sentence = _FIRST_SENTENCE.match(text.strip())
        copula = _COPULA.search(sentence.group(1)) if sentence else None
        subject = _WORD.search(title)
        if sentence and copula and subject and subject.group().lower() in sentence.group(1)[: copula.start()].lower():
            wanted[title] = (sentence.group(1)[: copula.end() + _READ], copula.end())
    if wanted:
        from retrieval.text.nlp import parses  # spaCy is loaded only when a title needs it

        order = sorted(wanted)
        for title, parsed in zip(order, parses(wanted[t][0] for t in order), strict=True):
            kind = _kind(parsed, wanted[title][1])
            if kind:
                kinds[title] = kind
    return kinds


def _kind(parsed: Any, after: int) -> str:
    """The head noun of the noun phrase right after the copula (which ends at character `after`), with the noun
    before it when it is that noun's compound; the whole sentence is parsed, as a fragment misleads the parser."""
    chunk = next((c for c in parsed.noun_chunks if c.end_char > after), None)
    if chunk is None or chunk.start_char > after + 1:
        return ""
    root = chunk.root
    if root.pos_ != "NOUN" or not root.text.isalpha() or root.text.lower() in STOP:
        return ""
    before = parsed[root.i - 1] if root.i > chunk.start else None
    compound = before is not None and before.dep_ == "compound" and before.pos_ == "NOUN" and before.text.isalpha()
    return f"{before.text.lower()} {root.text.lower()}" if compound and before is not None else root.text.lower()


def shared_kind(subjects: Collection[str], kinds: Mapping[str, str]) -> str:
    """The kind more than half of `subjects` (document titles, two at least) are, plural: its most common form when
    that is shared so, else its head noun ("films" of "crime film", "comedy film", "film"); "" when there is none."""
    heads = Counter(kinds[d].split()[-1] for d in subjects if d in kinds)
    if not heads:
        return ""
    head, n = min(heads.items(), key=lambda item: (-item[1], item[0]))
    if n < 2 or 2 * n <= len(subjects):
        return ""
    forms = Counter(kinds[d] for d in subjects if d in kinds and kinds[d].split()[-1] == head)
    form, m = min(forms.items(), key=lambda item: (-item[1], item[0]))
    return plural(form if 2 * m > len(subjects) else head)


def plural(phrase: str) -> str:
    """The phrase with its last word in the plural, by English's regular endings ("radio stations", "journals",
    "communities", "churches"); a word already ending in "s" ("series", "species") is left as it is."""
    words = phrase.split()
    last = words[-1]
    if last.endswith("s"):
        return phrase
    if last.endswith(("x", "z", "ch", "sh")):
        last += "es"
    elif last.endswith("y") and last[-2:-1] not in ("a", "e", "i", "o", "u"):
        last = last[:-1] + "ies"
    else:
        last += "s"
    return " ".join([*words[:-1], last])
