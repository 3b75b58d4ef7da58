"""Names split at an infobox's field labels: a flattened infobox runs each label into its value and the next label.

Why: encyclopaedia passages (MuSiQue, issue #25) often open with an article's infobox written out as plain text,
"Single by Benny Goodman Released 1936 Format 78 rpm vinyl Recorded 1936 Genre Pop", with no punctuation between
the cells. The small model then takes a label with the value beside it as one name: "Format 78", "Gifu Dates",
"Iron Maiden Studio", "Type Ball Inception", "HMV Songwriter", "N Longitude" (the tuning files'
`musique_entity_labels_124/129/144/172/202.csv` hold ten such nodes). A field label is a common noun or participle
from the infobox templates ("Released", "Genre", "Venue"), no name; where at least three distinct labels stand
within a few words of each other the text is an infobox, and a name does not run across a label there: the span is
cut at every label and the pieces are the names. Outside an infobox the same words are left alone ("Studio
Ghibli", "Country Music Hall of Fame"), so prose and transcripts extract as before.
"""

from __future__ import annotations

import itertools
from typing import Any

from spacy.tokens import Span

#: Field labels of encyclopaedia infoboxes (albums, songs, films, places, firms, tournaments, products): common
#: nouns and participles, written capitalised as a cell's label. No names.
FIELD_LABELS = frozenset(
    {"Released", "Recorded", "Format", "Genre", "Genres", "Length", "Label", "Labels", "Producer", "Producers",
     "Songwriter", "Studio", "Venue", "Dates", "Teams", "Type", "Inception", "Manufacturer", "Latitude",
     "Longitude", "Population", "Density", "Starring", "Elevation", "Founded", "Founder", "Founders",
     "Headquarters", "Website", "Industry", "Products", "Revenue", "Employees", "Parent", "Preceded",
     "Succeeded", "Runtime", "Budget", "Cinematography", "Screenplay", "Matches", "Runner", "Chronology",
     "Spouse", "Spouses", "Occupation", "Nationality", "Residence", "Coordinates"}
)  # fmt: skip
#: Tokens on either side of a label searched for the other labels of its infobox.
WINDOW = 30
#: Distinct labels (the label itself included) within WINDOW tokens that make a stretch of text an infobox.
INFOBOX_LABELS = 3


def cells(ent: Span) -> list[Span]:
    """The names a model's span holds once cut at an infobox's field labels: `[ent]` when no token of it is a
    label in an infobox, else the non-empty runs of tokens between the labels ("Gifu Dates" -> "Gifu", "Format
    78" -> "78", which the extractor's filters then drop as no name)."""
    cuts = [token.i for token in ent if _label_in_infobox(token)]
    if not cuts:
        return [ent]
    bounds = [ent.start - 1, *cuts, ent.end]
    return [
        Span(ent.doc, start + 1, end, label=ent.label_) for start, end in itertools.pairwise(bounds) if end > start + 1
    ]


def _label_in_infobox(token: Any) -> bool:
    """Whether the token is a field label with at least INFOBOX_LABELS - 1 other distinct labels near it."""
    if token.text not in FIELD_LABELS:
        return False
    doc = token.doc
    near = {t.text for t in doc[max(0, token.i - WINDOW) : token.i + WINDOW + 1] if t.text in FIELD_LABELS}
    return len(near) >= INFOBOX_LABELS
