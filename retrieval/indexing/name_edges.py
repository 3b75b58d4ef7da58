"""A name the model cut short after a word that cannot end one: "Grand Army of", "Municipal District of Badlands No".

Why: the small model sometimes stops a long name at a preposition, an article or the abbreviation "No."
("Grand Army of" from the heading "Grand Army of the Republic", "Municipal District of Badlands No" from "... No.
7", "Mother Church of the" from "the Mother Church of the worldwide Anglican Communion": the tuning files
`musique_entity_labels_132.csv` and `_202.csv`). A name never ends with "of" or "the", and "No." numbers what
follows it, so such a span is cut. The repair reads only the words after the span: it takes in the capitalised
words (and the articles and prepositions between them) that follow up to the first other word or mark, or the
number after "No."; a span still ending with such a word after that is no name and is dropped.
"""

from __future__ import annotations

from spacy.tokens import Span

#: Words a name does not end with; inside one they join its capitalised words ("Grand Army of the Republic").
DANGLING = frozenset({"of", "the", "and", "for", "in", "on", "at", "to", "de", "del", "der", "von", "van", "&"})
#: Abbreviations that number what follows them ("Municipal District of Badlands No. 7").
NUMBERING = frozenset({"No", "Nos", "Vol", "Pt"})


def completed(ent: Span) -> Span | None:
    """`ent` when its last word can end a name; else the span carried over the words that finish it, or None
    when they do not ("the Mother Church of the worldwide ...")."""
    last = _last_word(ent)
    if last is None:
        return ent
    doc = ent.doc
    if doc[last].text in NUMBERING:
        after = ent.end
        return Span(doc, ent.start, after + 1, label=ent.label_) if after < len(doc) and doc[after].like_num else ent
    end = ent.end
    while end < len(doc) and (doc[end].lower_ in DANGLING or _capitalised(doc[end].text)):
        end += 1
    while end > ent.end and doc[end - 1].lower_ in DANGLING:
        end -= 1
    return Span(doc, ent.start, end, label=ent.label_) if end > ent.end else None


def _last_word(ent: Span) -> int | None:
    """Index of the span's last word (trailing full stops skipped) when it is one a name cannot end with."""
    words = [token for token in ent if token.text != "."]
    if len(words) < 2:
        return None
    last = words[-1]
    return last.i if last.lower_ in DANGLING or last.text in NUMBERING else None


def _capitalised(word: str) -> bool:
    return word[:1].isupper()
