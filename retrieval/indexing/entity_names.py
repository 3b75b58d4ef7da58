"""Names whose own words or whose owner's noun say what they name: a place, or the author of a work.

Why: on encyclopaedia passages (MuSiQue, issue #25: benchmarks/data/musique_entity_labels.csv, the tuning sample)
the small model types a place of two capitalised words as a first name and a surname ("Chelsea Creek",
"Filchner-Ronne Ice Shelf", "Sienna Plantation") and the author of a play as a firm ("Dušan Kovačević's play").
The rules read only the name and the document's words, so they hold on any corpus; no list of names (issue #25, branch
wt144, from musique_entity_labels_132.csv: "Au Gres", "Carrock Fell", "Hotel Sidhartha Regency" typed PERSON):
- a several-word PERSON with no person evidence in the document whose last word is the common noun of a kind of
  place ("... Creek", "... Glacier", "... County"), or whose first word is one ("Mount ...", "Lake ..."), is a
  place: a person's name does not end with "Creek". Nouns that are also common surnames ("Hill", "Lane", "Park",
  "Bay", "Street", "Church", "Strait", "Lake" last: "Ricki Lake") are left out, and any person evidence (a role,
  "he", "said") keeps the person;
- the same for a last word that is also a surname ("Strait", "Lake", "Bay": `SURNAME_PLACE_LAST`) when the first
  word is no given name in any locale ("Cook Strait", not "Ricki Lake"), and for a first word that is the noun of an
  administrative division ("Gmina Kwidzyn", "County Kerry"; issue #25, branch wt233, `musique_entity_labels_223.csv`);
- a several-word name the model typed as a thing whose last word is a monarch's title and whose other words are no
  rare in English ("The Shunzhi Emperor", not "Holy Roman Emperor") is a person: Chinese emperors are named so;
- a name the model typed as a thing (not a work or a place: "Rocky II", "Municipio XIX") of one or two words and
  a Roman numeral, each word rare in English or a common English given name, is a monarch ("Ariarathes VI",
  "Ramses II", "Berenice II"; not "World War II", "Grade II", "Article II"), and so is "G of P", G a given name in
  some locale and rare in English, P one capitalised word ("Mikuláš of Kadaň", a person's epithet; not "Archdeaconry
  of Germany", "Bank of England"; issue #25, branch wt241, from `musique_entity_labels_233.csv`);
- a PERSON with no person evidence that the document writes just before the capitalised noun of a kind of place,
  firm or work in more than half its occurrences ("Au Gres Township ... the city of Au Gres") is that place or thing
  (`kind_after`; one only ever written inside a longer name, "Warren Easton High School", is a piece: the
  extractor drops it);
- a several-word name the document writes owning an author's work ("Dušan Kovačević's play", "X's novel") is the
  author, a person: firms release films and records, but plays, novels and poems have writers.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from wordfreq import zipf_frequency

from retrieval.indexing.entity_filter import DocumentWords
from retrieval.indexing.entity_kinds import THING_ENDINGS
from retrieval.indexing.given_names import given_name, given_name_anywhere
from retrieval.indexing.name_edges import ARTICLES, ROMAN

#: Last words that say a name is a place: features of the land and water, divisions, built places.
PLACE_LAST = frozenset(
    {"creek", "river", "glacier", "shelf", "plantation", "mountain", "mountains", "range", "peninsula", "gulf",
     "island", "islands", "falls", "reservoir", "canal", "valley", "county", "district", "province", "township",
     "harbor", "harbour", "avenue", "boulevard", "plaza", "square", "airport", "stadium", "cathedral", "desert",
     "canyon", "plateau", "lagoon", "estuary", "ridge", "peak", "volcano", "glaciers", "pond", "fjord", "fell",
     "fells", "forest", "neighbourhood", "neighborhood"}
)  # fmt: skip
#: First words that say a name is a place ("Mount Bates", "Lake Ladoga", "Cape Dart", "Fort Worth").
PLACE_FIRST = frozenset(
    {"mount", "lake", "cape", "fort", "port", "hotel", "gmina", "powiat", "county", "canton", "municipality"}
)
#: Last words that say a name is a place but are also surnames ("George Strait", "Ricki Lake"): read as a place's
#: only after a first word that is no given name.
SURNAME_PLACE_LAST = frozenset({"strait", "straits", "lake", "bay", "channel"})
#: Titles of monarchs written after the reign's name ("the Shunzhi Emperor", "the Kangxi Emperor").
REGNAL_LAST = frozenset({"emperor", "empress"})
#: Most frequent in English a word before a monarch's title may be: a reign's name is rare ("Shunzhi" 0, "Qianlong"
#: 1.8, "Meiji" 2.7), a title's words are not ("Holy", "Roman" 4.5, "Mask" 4.3).
REGNAL_ZIPF = 3.0
#: Most words of a name before its regnal number: "Ariarathes VI", "Victor Emmanuel III".
MAX_REGNAL_WORDS = 2
#: Types whose names take a Roman numeral of their own: sequels ("Rocky II") and numbered places ("Municipio XIX").
_NUMBERED_KINDS = frozenset({"WORK_OF_ART", "GPE", "LOC", "FAC"})
#: Works that have an author, not a publisher or a studio: whoever owns one in a sentence wrote it.
AUTHORED_WORKS = frozenset({"play", "plays", "novel", "novels", "poem", "poems", "opera", "operas", "memoir", "essay"})
#: A character that continues a name: a name owning a work starts after none of these.
_NAME_CHAR = re.compile(r"[\w'’\-]")
_AUTHOR_OF = re.compile(rf"['’]s?\s+(?:[a-z\-]+\s+){{0,2}}(?:{'|'.join(sorted(AUTHORED_WORKS))})\b")


def place_named(surface: str, kind: str, person_evidence: int) -> str:
    """LOC for a several-word PERSON whose first or last word is the noun of a kind of place and that no mention
    shows acting as a person ("Chelsea Creek", "Mount Bates"); the type otherwise."""
    names = surface.lower().split()
    if kind != "PERSON" or person_evidence or len(names) < 2:
        return kind
    if names[-1] in SURNAME_PLACE_LAST and not given_name_anywhere(surface.split(maxsplit=1)[0]):
        return "LOC"
    return "LOC" if names[-1] in PLACE_LAST or names[0] in PLACE_FIRST else kind


def regnal_named(surface: str, kind: str) -> str:
    """PERSON for a name the model typed as a thing that ends with a monarch's title after words rare in English
    (`REGNAL_ZIPF`: "The Shunzhi Emperor") or with a regnal number after a reign's name ("Ariarathes VI"); the type
    otherwise ("Holy Roman Emperor" is a title, "World War II" an event, "Rocky II" a film)."""
    words = [word for word in surface.split() if word.lower() not in ARTICLES]
    if kind == "PERSON" or len(words) < 2:
        return kind
    if words[-1].lower() in REGNAL_LAST:
        return kind if any(zipf_frequency(word, "en") >= REGNAL_ZIPF for word in words[:-1]) else "PERSON"
    numbered = ROMAN.match(words[-1]) and len(words) == len(surface.split()) <= MAX_REGNAL_WORDS + 1
    if kind in _NUMBERED_KINDS or not numbered or not all(_reign_word(word) for word in words[:-1]):
        return kind
    return "PERSON"


def epithet_named(surface: str, kind: str) -> str:
    """PERSON for "G of P" typed as a thing (not a work, a law or an event), G a given name in some locale and rare
    in English, P one capitalised word ("Mikuláš of Kadaň"); the type otherwise. A body or a division is named by a
    common noun or one no locale gives as a name ("Bank of England", "Archdeaconry of Germany")."""
    words = surface.split()
    if kind in {"PERSON", "WORK_OF_ART", "LAW", "EVENT"} or len(words) != 3 or words[1] != "of":
        return kind
    first, place = words[0], words[2]
    rare = zipf_frequency(first, "en") < REGNAL_ZIPF
    if first[:1].isupper() and place[:1].isupper() and given_name_anywhere(first) and rare:
        return "PERSON"
    return kind


def _reign_word(word: str) -> bool:
    """A word that may stand before a regnal number: capitalised, and rare in English or a common English given
    name ("Ariarathes", "Henry"; not "World", "Grade", "Apollo")."""
    return word[:1].isupper() and word.isalpha() and (zipf_frequency(word, "en") < REGNAL_ZIPF or given_name(word))


def kinds_after(surface: str, words: DocumentWords) -> list[str]:
    """For each occurrence of a name, the kind of thing the capitalised words right after it name: LOC for a place's
    noun ("Au Gres Township"), ORG for a firm's, a work's or an institution's ("Warren Easton High School"), else
    "". Read once per name: `kind_after` and `piece_of_a_name` both decide from it."""
    return [_kind_of(run) for run in words.words_after(surface)]


def kind_after(after: Sequence[str]) -> str:
    """LOC (or ORG) for a PERSON that no mention shows acting as a person and that the document writes, in more than
    half its occurrences (`after`: `kinds_after`), just before the noun of a kind of place (or of a firm, a work, an
    institution): "Au Gres Township ... the city of Au Gres" names a township and a city. The model cut the name
    before its kind noun; a person's name is not the first words of a township's. "PERSON" otherwise."""
    named = [found for found in after if found]
    if 2 * len(named) <= len(after):
        return "PERSON"
    return "LOC" if 2 * named.count("LOC") >= len(named) else "ORG"


def piece_of_a_name(after: Sequence[str]) -> bool:
    """Whether every occurrence of a name (`after`: `kinds_after`) is followed by the noun of a kind of place or
    thing: "Warren Easton" only ever in "Warren Easton High School" is no name of its own in that document."""
    return bool(after) and all(after)


def _kind_of(run: list[str]) -> str:
    """LOC when the words hold a place's noun ("township"), ORG when a firm's, a work's or an institution's
    ("high school"), else ""."""
    for word in run:
        if word in PLACE_LAST:
            return "LOC"
        if word in THING_ENDINGS:
            return "ORG"
    return ""


def author_named(surface: str, kind: str, words: DocumentWords) -> str:
    """PERSON for a several-word name the document writes owning a play, a novel, a poem ("Dušan Kovačević's
    play of the same title"); the type otherwise. One-word owners are `entity_types.possessor`'s."""
    if kind == "PERSON" or " " not in surface.strip() or not surface[:1].isupper():
        return kind
    text = words.text
    for end in _authored_possessives(text):
        start = end - len(surface)
        if start >= 0 and text[start:end] == surface and not (start and _NAME_CHAR.match(text[start - 1])):
            return "PERSON"
    return kind


@functools.lru_cache(maxsize=8)
def _authored_possessives(text: str) -> tuple[int, ...]:
    """Where the text's possessives of an authored work start ("'s play"), found once per document: a document has
    hundreds of names and few such phrases, and a search of the whole text per name cost ~7 ms a name on a novel."""
    return tuple(m.start() for m in re.finditer(r"['’]", text) if _AUTHOR_OF.match(text, m.start()))
