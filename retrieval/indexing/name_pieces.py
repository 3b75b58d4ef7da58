"""A name the model cut at its start, read back over the words the document always writes before it.

Why: on encyclopaedia passages the small model often tags only the end of a name and leaves its first word
untagged ("Avenue South" of "24th Avenue South", "Lo Chun" of the island "Ap Lo Chun", "Terror" of "the Reign of
Terror", "Biscuit World" of "Tudor's Biscuit World": issue #25, branch wt252, from `musique_entity_labels_241.csv`
and the earlier tuning files), so the graph holds a piece that names nothing. When the document writes the piece
*only ever* right after the same words, those words are part of the name: the span is carried back over them. The
words read back are one of:
- an ordinal ("24th"), as streets and districts are numbered; not before an event's name, which the ordinal counts
  ("the 123rd IOC Session" is one session of the IOC Session, a name of its own);
- one capitalised word the model tagged as nothing ("Ap"), that is no function word, honorific or occupation (a
  title before a person: "President", "Admiral") and, before a person or at a sentence's start, no everyday English
  word ("General Grant", "American Bob Dylan", "Visiting Paris");
- a capitalised word and "of" ("Reign of"), before a name that is no person's or place's ("the Duke of Wellington",
  "the Bank of England": the place is a thing of its own);
- a capitalised word's possessive ("Tudor's") the document never writes without it, before a name that is no
  person's ("Microsoft's Kevin Scott" is Kevin Scott).
A word before a longer run of capitalised words (cells or a list run together) is not read back, and a name the
document also writes without those words is left as it is: the words then say which one, not what it is called
("Thank you, Kevin" does not make "you, Kevin" a name either, a mark stands between).
"""

from __future__ import annotations

import re

from spacy.lang.en.stop_words import STOP_WORDS
from spacy.tokens import Span, Token

from retrieval.indexing.entity_filter import DocumentWords, common_word
from retrieval.indexing.given_names import given_name_anywhere
from retrieval.indexing.infobox import FIELD_LABELS
from retrieval.indexing.person_words import OCCUPATIONS
from retrieval.indexing.resolution import HONORIFICS

#: An ordinal as streets and districts are numbered ("24th", "1st").
_ORDINAL = re.compile(r"^\d+(?:st|nd|rd|th)$")
#: Possessive marks as the parser splits them off their owner ("Tudor" "'s"); a plural's bare apostrophe ("the
#: Allies' Manhattan Project") owns a thing, it does not name it.
_POSSESSIVE = frozenset({"'s", "’s"})
#: Infobox field labels the infobox module does not cut at, written before a cell's value ("Country United
#: Kingdom", "Location Western United States"): no name's first word.
_LABELS = FIELD_LABELS | frozenset({"Country", "Location", "Origin", "Born", "Died", "Status"})
#: Words before a read-back word that make it a piece of a longer name: a particle ("María del Pilar Pereyra") or a
#: dash ("Shipton–Tilman").
_INSIDE = frozenset({"de", "del", "der", "von", "van", "da", "di", "du", "la", "le", "-", "–", "—", "/"})
#: Types a word and "of" are not read back before: a person's or a place's name is a thing of its own after a title
#: or a body's noun ("Duke of Wellington", "Bank of England").
_OWN_AFTER_OF = frozenset({"PERSON", "GPE", "LOC", "NORP"})
#: Nouns of an office or a rank held over a body or a place: "Member of Parliament", "President of Sony" name a role.
_OFFICES = OCCUPATIONS | frozenset(
    {"member", "members", "president", "minister", "head", "secretary", "governor", "chairman", "director", "king",
     "queen", "prince", "princess", "leader", "speaker", "deputy", "chief", "commissioner", "ambassador", "count",
     "countess", "marquess", "viscount", "bishop", "dean", "rector", "mayor", "senator", "captain", "general"}
)  # fmt: skip
#: Most words of a thing's name that a given name before it turns into a person's name ("Antoine Bernard").
MAX_SHORT = 2
#: Part-of-speech tags of a proper noun: a capitalised word read back is one ("Ap"), not an adverb opening the
#: sentence ("Formally"), a verb ("Activate") or a common noun ("Moderator").
_PROPER = frozenset({"NNP", "NNPS"})


def extended(ent: Span, words: DocumentWords) -> Span:
    """`ent` carried back over the words the document always writes right before it (the module's docstring);
    `ent` itself when there are none, they may be something else, or the document writes it without them."""
    if not ent.text[:1].isupper() or ent.start == 0:
        return ent
    start = _prefix_start(ent)
    if start is None:
        return ent
    doc = ent.doc
    prefix = doc[start : ent.start].text
    if not _always_after(ent.text, prefix, doc[ent.start - 1].whitespace_ != "", words.text):
        return ent
    if not _ORDINAL.match(doc[start].text) and not _never_alone(doc[start : ent.start], words.text):
        return ent
    return Span(doc, start, ent.end, label=ent.label_)


def _prefix_start(ent: Span) -> int | None:
    """Where the words before `ent` that may belong to its name start, or None (see the module's docstring)."""
    doc, start = ent.doc, ent.start
    before = doc[start - 1]
    if _untagged(before) and _ORDINAL.match(before.text):
        return start - 1 if ent.label_ != "EVENT" else None  # "the 123rd IOC Session": which one of a recurring event
    if before.lower_ == "of" and start >= 2 and ent.label_ not in _OWN_AFTER_OF:
        word = doc[start - 2]
        office = word.lower_ in _OFFICES or word.is_upper  # "CEO of WANdisco": an office's abbreviation
        return start - 2 if _free_capital(word) and not office and _run_ends(doc, start - 2) else None
    if before.text in _POSSESSIVE and start >= 2 and ent.label_ != "PERSON":
        owner = doc[start - 2]
        named = owner.text[:1].isupper() and owner.is_alpha and _untagged(owner) and _run_ends(doc, start - 2)
        return start - 2 if named else None
    if _free_capital(before) and _run_ends(doc, start - 1):
        given = given_name_anywhere(before.text) and not common_word(before.text)
        if ent.label_ == "PERSON":
            return start - 1 if given else None  # a given name the model left out, not a role ("CEO", "Sheriff")
        if given and len(ent) <= MAX_SHORT:
            return None  # "André" before "Antoine Bernard" ORG: a person's name typed as a thing, no thing's name
        return None if before.is_sent_start and common_word(before.text) else start - 1
    return None


def _free_capital(token: Token) -> bool:
    """A capitalised word the model tagged as nothing and that is no function word, honorific or occupation."""
    lowered = token.lower_.rstrip(".")
    return (
        _untagged(token)
        and token.is_alpha
        and token.text[:1].isupper()
        and token.tag_ in _PROPER
        and token.text not in _LABELS
        and lowered not in STOP_WORDS
        and lowered not in HONORIFICS | _OFFICES
    )


def _untagged(token: Token) -> bool:
    """Whether the model put `token` in no name, or only in a span that runs across lines, which the extractor skips
    (a title line run into the text: "Greg Keatley\n\nGregory" before "Steven Keatley", "Biscuit World\n\nTudor's"
    before "Biscuit World")."""
    return token.ent_iob_ == "O" or any(e.start <= token.i < e.end and "\n" in e.text for e in token.doc.ents)


def _run_ends(doc: object, index: int) -> bool:
    """Whether the word before `doc[index]` is no capitalised word other than a function word: a longer run is
    cells or a list run together, whose words are no one name's."""
    if index == 0:
        return True
    before: Token = doc[index - 1]  # type: ignore[index]
    capital = before.text[:1].isupper() and before.is_alpha and before.lower_ not in STOP_WORDS
    return not capital and before.lower_ not in _INSIDE


def _never_alone(prefix: Span, text: str) -> bool:
    """Whether every occurrence of the prefix's first word in the text goes on as the prefix does: a possessive's
    owner never without its possessive ("Britain" beside "Britain's Royal Navy" is a name of its own), a word before
    "of" never without "of", a capitalised word never without a capitalised word after it ("Rodney" alone in a
    cast list is a character, not the first word of "Rodney Nicholas Lyndhurst")."""
    first = prefix[0].text
    follows = prefix[1].text if len(prefix) > 1 else ""
    if follows in _POSSESSIVE:
        after = r"['’]"
    elif follows == "of":
        after = r"\s+of\b"
    else:
        after = r"\s+[A-Z]"
    occurrences = list(re.finditer(rf"(?<![\w'’\-]){re.escape(first)}(?![\w\-])", text))
    return all(re.match(after, text[m.end() : m.end() + 4]) for m in occurrences)


def _always_after(name: str, prefix: str, spaced: bool, text: str) -> bool:
    """Whether every occurrence of `name` in the document's text is written right after `prefix` (a space between
    when `spaced`), and there is one at least."""
    gap = r"\s+" if spaced else ""
    occurrences = list(re.finditer(rf"(?<![\w'’\-]){re.escape(name)}(?![\w\-])", text))
    return bool(occurrences) and all(
        re.search(rf"(?<![\w'’\-]){re.escape(prefix)}{gap}$", text[max(0, m.start() - len(prefix) - 8) : m.start()])
        for m in occurrences
    )
