"""A person's name the model took without its given names: "Jiménez Castellanos" of "Adolfo Jiménez Castellanos".

Why: the small model, trained on English news, often leaves a given name it does not know out of the person's span
and keeps the surnames ("Adolfo Jiménez Castellanos", "Blanca Estela Jiménez Hernández", "Agha Shahid Ali": the
tuning files `musique_entity_labels_212.csv` and `_124.csv`), so the graph holds a cut name that is no one. The
words it left out are right before the span, tagged as nothing, and are given names, so the span is carried back
over them. What stands before a name and is not part of it is guarded against: a title, a rank or an occupation
("President", "Sir", "Admiral": everyday words, honorifics, `person_words.OCCUPATIONS`, refused), a span that
already opens with a given name ("Rodney Nicholas Lyndhurst", a cast list's role before its actor), a role after
"as", a given name inside a longer name after its particle ("María del Pilar Pereyra": the run would still be cut)
or a dash ("Shipton–Tilman", two surnames), and a longer run of capitalised words (cells or a list run together):
those leave the span as it was.
"""

from __future__ import annotations

from spacy.tokens import Span, Token

from retrieval.indexing.entity_filter import common_word
from retrieval.indexing.given_names import given_name_anywhere
from retrieval.indexing.name_edges import LINKS
from retrieval.indexing.person_words import OCCUPATIONS
from retrieval.indexing.resolution import HONORIFICS

#: Most given names taken in ("Blanca Estela"); more is a list or cells run together.
MAX_GIVEN = 2
#: Words before the given names that make them a role ("Masi Oka as Hiro ...") or a piece of a longer name ("María
#: del Pilar Pereyra", "the Shipton–Tilman Nanda Devi expeditions": two surnames joined by a dash): the span is left
#: as it was.
_NOT_BEFORE = frozenset({"as", "-", "–", "—", "/"}) | (LINKS - {"of", "the"})


def begun(ent: Span) -> Span:
    """`ent` carried back over the given names the model left out before it; `ent` itself when there are none or
    they may be something else (see the module's docstring)."""
    if ent.label_ != "PERSON" or not ent.text[:1].isupper() or given_name_anywhere(ent[0].text):
        return ent
    doc = ent.doc
    start = ent.start
    while start > 0 and ent.start - start < MAX_GIVEN and _left_out_given_name(doc[start - 1]):
        start -= 1
    if start == ent.start:
        return ent
    before = doc[start - 1] if start > 0 else None
    if before is not None and (before.lower_ in _NOT_BEFORE or (before.text[:1].isupper() and not before.is_stop)):
        return ent  # a role, or a longer run of capitalised words
    return Span(doc, start, ent.end, label=ent.label_)


def _left_out_given_name(token: Token) -> bool:
    """A capitalised given name the model tagged as nothing, and no everyday word, title or occupation."""
    word = token.text
    return (
        token.ent_iob_ == "O"
        and word[:1].isupper()
        and given_name_anywhere(word)
        and not common_word(word)
        and word.lower().rstrip(".") not in HONORIFICS | OCCUPATIONS
    )
