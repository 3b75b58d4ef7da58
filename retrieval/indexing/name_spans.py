"""A tagger's name that the document only ever writes inside a longer name joined by "of" or "from": the longer one.

Why: on encyclopaedia passages (MuSiQue, issue #25: the fresh samples `musique_entity_labels_124/_129/_130.csv`)
the small model cuts a work's, a body's or a title's name at its joining word: "Jewel" of "The Jewel of the Nile",
"Survival" of "Survival of the Fittest", "G-Men" of "G-Men from Hell", "Scripps Institution" of "... of
Oceanography", "Panamerican Railroad of" (of Guatemala). The piece is no thing of its own; the whole name is:
- a tagger's name whose last word is a joining word runs on over the capitalised words after it, or loses that word;
- a tagger's name the document always writes before a joining word, an optional article and a capitalised word
  opens a longer name: it runs on over those words (and further joined ones: "... of the Mohawk River"). "Only
  ever" is read on the document's whole text, so a name it also writes alone stays the tagger's. A person's, a
  place's or a firm's name runs on over no other name ("Davy Jones of The Monkees", "Sterling Software Ltd. of
  Plano"), nor does any name after "from" ("Democrat from Mississippi", but "G-Men from Hell"); no run takes a date
  ("Fox from March") or more than MAX_RUN capitalised words (a table's cells);
- a capitalised topic (a keyphrase, not the tagger's) that only ever opens such a name, or whose everyday words
  only ever end one ("Good Hope" of "Cape of Good Hope", "Public Safety"), is a piece and is dropped. The tagger's
  names are not read so from the end: there the words before "of" are most often an office ("Member of
  Parliament", "Head of State") and the name after it is one of its own.
No list of names.
"""

from __future__ import annotations

import re

from spacy.tokens import Span, Token

from retrieval.indexing.entity_filter import DocumentWords, everyday
from retrieval.indexing.given_names import given_name
from retrieval.indexing.model import slug
from retrieval.indexing.resolution import ORG_SUFFIXES
from retrieval.text import whole_words

#: Words that join the parts of one name: "Jewel of the Nile", "G-Men from Hell", "Place de la Concorde".
JOINING_WORDS = frozenset({"of", "from", "de", "du", "des", "del", "della", "di"})
#: Articles allowed between a joining word and the capitalised word after it.
_ARTICLES = frozenset({"the", "la", "le", "les"})
#: Types whose names run on over no other name: a person's ("John Smith of Boston"), a place's ("Texas from Mexico").
_NO_RUN_OVER_NAMES = frozenset({"PERSON", "GPE", "LOC", "FAC"})
#: The tagger's types of dates and numbers: "Nicaragua from January" ends before the month.
_COUNTS = frozenset({"DATE", "TIME", "CARDINAL", "ORDINAL", "MONEY", "PERCENT", "QUANTITY"})
#: Nouns of an office or a rank: a name whose head ends in one is a title someone holds (`title_held`).
TITLE_NOUNS = frozenset(
    {"duke", "duchess", "earl", "count", "countess", "baron", "baroness", "marquess", "marquis", "viscount",
     "emperor", "empress", "king", "queen", "prince", "princess", "sultan", "tsar", "czar", "pope", "pharaoh",
     "bishop", "archbishop", "cardinal", "consul", "chancellor", "minister", "mayor", "governor", "senator",
     "secretary", "administrator", "ambassador", "commissioner", "premier", "prefect", "chairman", "khan", "shah",
     "caliph", "emir", "vizier", "abbot", "patriarch"}
)  # fmt: skip
#: Types no title is read from: a work or an event may be named after one ("The Countess of Parma").
_NOT_TITLES = frozenset({"WORK_OF_ART", "PRODUCT", "EVENT", "LAW"})
#: Words after a title's head: what the office is of or for ("Minister for Foreign Affairs").
_TITLE_JOINS = frozenset({"of", "for"})
#: A title written as what someone is or serves as: no article between ("as First Consul", "is Suffragan Bishop").
_HELD_AS = re.compile(r"\b(?:as|is|was|became|become|becomes|named|appointed|elected) $")
#: Capitalised words a joined run may hold: more are a table's cells or a list run together.
MAX_RUN = 3
_JOINING = "|".join(sorted(JOINING_WORDS))
_FOLLOWED = re.compile(rf"^ (?:{_JOINING}) (?:(?:{'|'.join(sorted(_ARTICLES))}) )?[A-Z]")
_PRECEDED = re.compile(rf"[A-Z][\w'’\-]* (?:{_JOINING}) (?:(?:{'|'.join(sorted(_ARTICLES))}) )?$")
#: Marks that join a name to the word beside it: an occurrence beside one is in a longer word.
_NAME_JOINS = "'’-"


def whole_name(ent: Span, words: DocumentWords) -> Span:
    """The longer name `ent` is only ever a piece of in this document (see the module docstring), or `ent`."""
    if len(ent) > 1 and ent[-1].lower_ in JOINING_WORDS:  # "Panamerican Railroad of": the tagger stopped at "of"
        end = _run_after(ent, words)
        return Span(ent.doc, ent.start, end, label=ent.label_) if end != ent.end else ent
    if opens_longer_name(ent.text.strip(), words) and (end := _run_after(ent, words)) > ent.end:
        return Span(ent.doc, ent.start, end, label=ent.label_)
    return ent


def piece(surface: str, words: DocumentWords) -> bool:
    """Whether a capitalised topic (a keyphrase, no tagger's name) only ever opens or ends a longer name joined by
    "of"/"from": "Survival" of "Survival of the Fittest", "Jewel" of "The Jewel of the Nile"."""
    return opens_longer_name(surface, words) or ends_longer_name(surface, words)


def opens_longer_name(surface: str, words: DocumentWords) -> bool:
    """Whether every occurrence of a capitalised name is followed by a joining word and a capitalised word."""
    found = _occurrences(surface, words)
    return bool(found) and all(_FOLLOWED.match(words.text[end : end + 40]) for _start, end in found)


def ends_longer_name(surface: str, words: DocumentWords) -> bool:
    """Whether a capitalised name of everyday words always follows a capitalised word and a joining word. Places are
    the caller's to leave out: "England" is as frequent a word as "Truth", and "Henry VIII of England" is Henry."""
    plain = [w for w in surface.lower().split() if w not in _ARTICLES]
    found = _occurrences(surface, words)
    return (
        bool(found)
        and bool(plain)
        and all(everyday(w) for w in plain)
        and all(_PRECEDED.search(words.text[max(0, start - 60) : start]) for start, _end in found)
    )


def _occurrences(surface: str, words: DocumentWords) -> list[tuple[int, int]]:
    if not surface[:1].isupper():
        return []
    return whole_words.spans(surface, words.text, before=_NAME_JOINS, after=_NAME_JOINS)


def _capitalised(token: Token) -> bool:
    """A word that may continue a name: capitalised and no function word ("In", "The" open sentences)."""
    return token.text[:1].isupper() and not token.is_stop


def _run_after(ent: Span, words: DocumentWords) -> int:
    """The end of the joined capitalised words right after `ent` ("of the Nile", "of X of the Y"); `ent.end` when
    none follow, or the end before its last word when that is a joining word none follows. A run stops before more
    than MAX_RUN capitalised words (a table's cells run together), a date ("Fox from March"), and, after "from" or
    after a name (`_named`), another name of the tagger's: "Davy Jones of The Monkees", "Democrat from Mississippi".
    The tagger's own last "of" ("the City of") runs on over any name: what follows is its name's."""
    doc = ent.doc
    cut = ent[-1].lower_ in JOINING_WORDS
    end = ent.end - 1 if cut else ent.end
    named = not cut and _named(ent, words)
    while end < len(doc) and doc[end].lower_ in JOINING_WORDS:
        at = end + 1
        if at < len(doc) and doc[at].lower_ in _ARTICLES:
            at += 1
        first = at
        while at < len(doc) and _capitalised(doc[at]):
            at += 1
        run = doc[first:at]
        alone = named or doc[end].lower_ == "from"
        if not run or len(run) > MAX_RUN or any(t.ent_type_ and (alone or t.ent_type_ in _COUNTS) for t in run):
            break
        end = at
    return end


def _named(ent: Span, document: DocumentWords) -> bool:
    """A person's, a place's or a firm's name: typed so, a given name first, a firm's suffix last ("Northeast Sports
    Ltd."), or a last word that is neither everyday English nor written in lower case in the document ("Violetta
    Chamorro", "Prithviraj Chavan" typed ORG; not "Diocese" beside "the diocese"). What follows "of" is where it is,
    not more of its name."""
    words = ent.text.split()
    last = words[-1].lower()
    return (
        ent.label_ in _NO_RUN_OVER_NAMES
        or (len(words) > 1 and given_name(words[0]))
        or slug(last) in ORG_SUFFIXES
        or not (everyday(last) or last in document.lower_case)
    )


def title_held(surface: str, kind: str, words: DocumentWords) -> bool:
    """Whether a name that is no work's or event's is a title someone holds: its head (the words before "of"/"for")
    ends in a noun of an office or a rank (TITLE_NOUNS) and it either names what the office is of ("Duke of
    Głogów", "Bishop of Rockhampton"; not when typed a person) or the document only ever writes it as what someone
    is or serves as ("seized power as First Consul", "is Suffragan Bishop in Europe"). "Burger King" is neither."""
    names = surface.split()
    if kind in _NOT_TITLES or len(names) < 2:
        return False
    cut = next((i for i, w in enumerate(names) if w in _TITLE_JOINS), len(names))
    if cut == 0 or names[cut - 1].lower() not in TITLE_NOUNS:
        return False
    if cut < len(names):
        return kind != "PERSON"  # "Duke of Wellington" typed a person is the man the title names
    found = _occurrences(surface, words)
    return bool(found) and all(_HELD_AS.search(words.text[max(0, start - 20) : start]) for start, _end in found)
