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
"""

from __future__ import annotations

from spacy.tokens import Span

#: Words inside a name that link it to the rest of it ("Grand Army of the Republic", "Vincent van Gogh"); no name
#: ends with one.
LINKS = frozenset({"of", "the", "de", "del", "der", "von", "van"})
#: Words that join two names ("Burkina Faso to South Africa", "Congo and Gabon"); no name ends with one either.
JOINS = frozenset({"and", "&", "to", "in", "at", "for", "on"})
#: Articles between a link and the capitalised words it leads to ("of the Republic").
_ARTICLES = frozenset({"the", "a", "an"})
#: Most capitalised words a link leads to: more is cells or a list run together.
MAX_RUN = 4
#: Abbreviations that number what follows them ("Municipal District of Badlands No. 7").
NUMBERING = frozenset({"No", "Nos", "Vol", "Pt"})


def completed(ent: Span) -> Span | None:
    """`ent` when its last word can end a name; else the span carried over the words that finish it, or None
    when none do ("the Mother Church of the worldwide ...") or they run on into another name."""
    last = _last_word(ent)
    if last is None:
        return ent
    doc = ent.doc
    if doc[last].text in NUMBERING:
        after = ent.end
        return Span(doc, ent.start, after + 1, label=ent.label_) if after < len(doc) and doc[after].like_num else ent
    if doc[last].lower_ in JOINS:
        return None
    end = ent.end
    while end < len(doc) and doc[end].lower_ in _ARTICLES:
        end += 1
    run = end
    while end < len(doc) and _capitalised(doc[end].text) and end - run < MAX_RUN:
        end += 1
    ends_there = end < len(doc) and doc[end].lower_ not in LINKS | JOINS and not _capitalised(doc[end].text)
    if run == end or not (ends_there or end == len(doc)):
        return None
    return Span(doc, ent.start, end, label=ent.label_)


def _last_word(ent: Span) -> int | None:
    """Index of the span's last word (trailing full stops skipped) when it is one a name cannot end with; None for a
    span of one word or one whose first word after an article is in lower case ("west of"), which the extractor's
    filters judge as before."""
    words = [token for token in ent if token.text != "."]
    named = [token for token in words if token.lower_ not in _ARTICLES]  # the model's spans often open with "the"
    if len(words) < 2 or not named or not _capitalised(named[0].text):
        return None
    last = words[-1]
    return last.i if last.lower_ in LINKS | JOINS or last.text in NUMBERING else None


def _capitalised(word: str) -> bool:
    return word[:1].isupper()
