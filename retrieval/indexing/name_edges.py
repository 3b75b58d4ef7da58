"""A name the model cut short after a word that cannot end one: "Grand Army of", "Municipal District of Badlands No".

Why: the small model sometimes stops a long name at a preposition, an article or the abbreviation "No."
("Grand Army of" from the heading "Grand Army of the Republic", "Municipal District of Badlands No" from "... No.
7", "Mother Church of the" from "the Mother Church of the worldwide Anglican Communion": the tuning files
`musique_entity_labels_132.csv` and `_202.csv`). A name never ends with "of" or "the", and "No." numbers what
follows it, so such a span is cut. The repair reads only the words after the span: after "of", "the" (and the
particles of names, "de", "van") it takes in an article and a short run of capitalised words, "the Republic", when
the run ends there (a mark, a lower-case word); after "No." the number. A run that goes on into another link
("Directorate of Administration Directorate of ...", an infobox's list) or past a few words ("Province of Canada
Leadership Lieutenant Governor Hon", cells run together) would join two names, so the span is dropped instead, as
is a span ending with a word that joins two names ("Burkina Faso to", "Republic of the Congo and"): carried on,
those run two names into one (seen in the scratch graph of this rule's first version, issue #25 branch wt212).

A name the model ended on a word that *can* end one is still cut when the words after it finish it (issue #25,
branch wt233, from `musique_entity_labels_223.csv`): the noun of a kind of institution or place followed by "of"
and its complement ("Institute of Tropical Meteorology"; a person's "James Madison of Virginia" is left alone, no
kind noun ends it), a name with an "of" followed by "and" and one or two capitalised words the model tagged as
nothing ("Greek Trade Union of Cleaners and Housekeepers"), and a French elided particle glued to a capitalised
word ("Conseil d'État"). At the start, a name ending with a kind noun after "X and", X one capitalised word, is the
coordinated name "Liverpool and Manchester Railway", unless X is itself part of a longer capitalised run.

A monarch's regnal number is part of the name (issue #25, branch wt241, from `musique_entity_labels_233.csv`:
"Manuel" of "Manuel I of Portugal"): the model often ends the span before it ("Nicholas" of "Nicholas I", "World
War" of "World War I"), so a Roman numeral right after a span is taken in. "I", "V" and "X" are also a pronoun and
letters, so one of them is taken only when "of" and a capitalised word or a mark closing the phrase follows ("Manuel
I of Portugal", "Albert I, in"; not "Kevin I think").
"""

from __future__ import annotations

import re

from spacy.tokens import Span, Token

from retrieval.indexing.entity_kinds import INSTITUTION_ENDINGS

#: Words inside a name that link it to the rest of it ("Grand Army of the Republic", "Vincent van Gogh"); no name
#: ends with one.
LINKS = frozenset({"of", "the", "de", "del", "der", "von", "van"})
#: Words that join two names ("Burkina Faso to South Africa", "Congo and Gabon"); no name ends with one either.
JOINS = frozenset({"and", "&", "to", "in", "at", "for", "on"})
#: Articles: between a link and the capitalised words it leads to ("of the Republic"), or opening a span ("The
#: Shunzhi Emperor"), where no name word is.
ARTICLES = frozenset({"the", "a", "an"})
#: Most capitalised words a link leads to: more is cells or a list run together.
MAX_RUN = 4
#: Abbreviations that number what follows them ("Municipal District of Badlands No. 7").
NUMBERING = frozenset({"No", "Nos", "Vol", "Pt"})
#: Last words of a name that say it names a body, a firm or a line, and so may take a complement ("Institute of
#: X", "Union of X", "Liverpool and Manchester Railway"): the typers' nouns of institutions and of public bodies.
#: Not a place's (a place's "of X" says where it is: "the Blue Ridge Mountains of North Carolina", and "the Azores
#: and Canary Islands" are two places) nor an event's or a work's ("the New Yam Festival of the Igbo people").
KIND_NOUNS = INSTITUTION_ENDINGS | frozenset(
    {"union", "bank", "board", "court", "army", "navy", "order", "institute", "institution", "society",
     "university", "college", "school", "museum", "library", "council", "committee", "agency", "foundation",
     "company", "corporation"}
)  # fmt: skip
#: Marks that make the words before them an owner: "the Workers' Party" goes on past them.
_POSSESSIVE = frozenset({"'", "’", "'s", "’s"})
#: A French elided particle glued to the capitalised word it links: "d'État", "l'Ouest".
_ELIDED = re.compile(r"^[dl]['’][A-ZÀ-Ý]", re.IGNORECASE)
#: Marks that glue the word before them into a compound ("Commander-in-Chief"): no name ends before one.
_HYPHENS = frozenset({"-", "–"})
#: Most capitalised words after "and" that finish a name with an "of" ("Union of Cleaners and Housekeepers").
MAX_COORDINATED = 2
#: A Roman numeral of one to thirty-nine, as regnal numbers are written ("I", "VI", "XIV", "XXXIX").
ROMAN = re.compile(r"^(?=[IVX])X{0,3}(?:IX|IV|V?I{0,3})$")
#: Numerals that are also a pronoun or a letter ("I", "V", "X"): taken only before one of these marks or "of X".
_LETTER_NUMERALS = frozenset({"I", "V", "X"})
_CLOSING = frozenset({",", ".", ";", ":", "(", ")"})


def completed(ent: Span) -> Span | None:
    """`ent` when its last word can end a name; else the span carried over the words that finish it, or None
    when none do ("the Mother Church of the worldwide ...") or they run on into another name."""
    last = _last_word(ent)
    if last is None:
        return _continued(ent)
    doc = ent.doc
    if doc[last].text in NUMBERING:
        after = ent.end
        return Span(doc, ent.start, after + 1, label=ent.label_) if after < len(doc) and doc[after].like_num else ent
    if doc[last].lower_ in JOINS:
        return None
    end = ent.end
    while end < len(doc) and doc[end].lower_ in ARTICLES:
        end += 1
    run = end
    while end < len(doc) and _capitalised(doc[end].text) and end - run < MAX_RUN:
        end += 1
    ends_there = end < len(doc) and doc[end].lower_ not in LINKS | JOINS and not _capitalised(doc[end].text)
    if run == end or not (ends_there or end == len(doc)):
        return None
    return Span(doc, ent.start, end, label=ent.label_)


def _continued(ent: Span) -> Span:
    """`ent`, a span whose last word can end a name, carried over the words after it that finish it (the module
    docstring's second paragraph): a kind noun's "of X", an "of" name's "and Y", an elided particle's word."""
    doc, end = ent.doc, ent.end
    named = [token for token in ent if token.lower_ not in ARTICLES]
    if end >= len(doc) or not named or not _capitalised(named[0].text):
        return ent
    if _ELIDED.match(doc[end].text) and doc[end].text[2:3].isupper():
        return Span(doc, ent.start, end + 1, label=ent.label_)
    if doc[end - 1].lower_ in KIND_NOUNS and doc[end].lower_ == "of" and _capitalised(doc[end - 1].text):
        finished = completed(Span(doc, ent.start, end + 1, label=ent.label_))
        owned = finished is not None and finished.end < len(doc) and doc[finished.end].text in _POSSESSIVE
        return finished if finished is not None and finished.end > end + 1 and not owned else ent
    if doc[end].lower_ in {"and", "&"} and any(t.lower_ == "of" for t in ent[1:-1]):
        run = end + 1
        while run < len(doc) and run - end <= MAX_COORDINATED + 1 and _untagged_capital(doc[run]):
            run += 1
        following = doc[run].text if run < len(doc) else ""
        closed = not (_capitalised(following) or following.lower() in LINKS | JOINS or following in _HYPHENS)
        if 1 <= run - end - 1 <= MAX_COORDINATED and closed:
            return Span(doc, ent.start, run, label=ent.label_)
    return ent


def numbered(ent: Span) -> Span:
    """`ent` carried over the regnal number right after it ("Manuel" of "Manuel I of Portugal"); else `ent`. A span
    already ending with a numeral, or one whose last word is not capitalised, is left alone."""
    doc, end = ent.doc, ent.end
    if end >= len(doc) or not ROMAN.match(doc[end].text) or not _capitalised(ent[-1].text) or ROMAN.match(ent[-1].text):
        return ent
    if doc[end].text in _LETTER_NUMERALS:
        following = doc[end + 1] if end + 1 < len(doc) else None
        of_place = (
            following is not None
            and following.lower_ == "of"
            and end + 2 < len(doc)
            and _capitalised(doc[end + 2].text)
        )
        if not (following is None or following.text in _CLOSING or of_place):
            return ent
    return Span(doc, ent.start, end + 1, label=ent.label_)


def regnal_one(surface: str, text: str) -> bool:
    """Whether a several-word name's last word "I" is a regnal number, not the pronoun: the text writes the name
    before "of X" or a mark closing the phrase ("Manuel I of Portugal", "Karel Komzák I (4 ..."), as
    `numbered` takes it in; "Kevin I think" is a name and a pronoun run together."""
    return (
        surface.endswith(" I")
        and re.search(rf"(?<![\w]){re.escape(surface)}(?=\s*[,.;:()]|\s+of\s+[A-Z])", text) is not None
    )


def coordinated(ent: Span) -> Span:
    """`ent` carried back over "X and" when it ends with a kind noun and X is one capitalised word after a word that
    is not ("the Liverpool and Manchester Railway"); else `ent`. Two places joined by "and" name one line, canal or
    firm; a longer capitalised run before "and" would be another name."""
    doc, start = ent.doc, ent.start
    if start < 2 or len(ent) < 2 or ent[-1].lower_ not in KIND_NOUNS or doc[start - 1].lower_ != "and":
        return ent
    first = doc[start - 2]
    before = doc[start - 3] if start >= 3 else None
    lone = (
        before is None or before.lower_ == "the" or (before.is_alpha and before.is_lower and before.lower_ not in JOINS)
    )
    if _capitalised(first.text) and first.is_alpha and lone and _capitalised(ent[0].text):
        return Span(doc, start - 2, ent.end, label=ent.label_)
    return ent


def _last_word(ent: Span) -> int | None:
    """Index of the span's last word (trailing full stops skipped) when it is one a name cannot end with; None for a
    span of one word or one whose first word after an article is in lower case ("west of"), which the extractor's
    filters judge as before."""
    words = [token for token in ent if token.text != "."]
    named = [token for token in words if token.lower_ not in ARTICLES]  # the model's spans often open with "the"
    if len(words) < 2 or not named or not _capitalised(named[0].text):
        return None
    last = words[-1]
    return last.i if last.lower_ in LINKS | JOINS or last.text in NUMBERING else None


def _untagged_capital(token: Token) -> bool:
    """A capitalised word the model put in no name of its own ("Housekeepers", not "Cambridge")."""
    return _capitalised(token.text) and not token.ent_type_


def _capitalised(word: str) -> bool:
    return word[:1].isupper()
