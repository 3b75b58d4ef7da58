"""Types checked against evidence: a PERSON must be seen acting like one, a place like a place.

Why: the small spaCy model types by the look of a word, so films, games and products with one capitalised
word ("Arrival", "Spectre", "Webvan") come out as people, "Moore's Law" too, and "AI" as a place. The rule
set is small and holds on any English text (transcripts, encyclopaedia passages, novels); no list of names:
- a mention is *person evidence* when the name speaks (a speaker label, "X said", "said X"), is
  addressed ("Thank you, X", "Hi X"), has a role or honorific ("Dr. X", "my colleague X", "X, the CEO",
  "X, who ..."), or is followed by "he"/"she" ("X, he ...");
- "X, who ..." is strong evidence too: "who" refers to people only ("Copernicus, who ...");
- a one-word name the model did not call a person is one when at least half its mentions have strong
  person evidence (a title, role or address before it, "he"/"she" after it: "professor Knuth");
- a one-word PERSON with no person evidence in the document is retyped as a topic (CONCEPT), which any
  document with evidence outvotes (`majority_type` prefers named types), and which still joins a full name
  ("Tyson" -> "Neil deGrasse Tyson") in resolution; unless it is a common given name never written after "the"
  or a quote ("Jessica, too, were close" is a person, the film "Laura" is not: given_names.py);
- a name with a possessive inside ("Moore's Law", "Wallace's Infinite") is not a person, nor a name of several
  words written in quotes, after "the" or right after a preposition of place ("walk into Best Buy") in at least
  half its mentions, with no strong person evidence ("Kung Fu Panda", "the Kung Fu Panda": a film, a game, a
  ship; "the Jeff Dean example" once is still a person, and so is "at John Smith's");
- a verb before a name is evidence only when it is a speech verb that stands before its speaker ("said X");
  "who wrote Sapiens" names a work. ", who" after a name right after a preposition of place ("in Cambridge,
  who ...") refers to the people there, and after "the" to a character or a thing, not to a person's name;
- a one-word upper-case place ("AI" as GPE) needs "the" before it somewhere ("the US", "the UK");
- a name in a list of people ("Teller and Dirac and Fermi", two other members or more typed PERSON, more
  persons than not) is strong person evidence: surnames of scientists or composers met once, with no verb; not a
  list right after the noun of a kind of thing ("rock bands Aquarium, Kino, Alisa and Strannye Igry");
- a mention that speaks of a thing ("Loopt made its exit", "X, which ...", "X was an interesting company", "a
  product called X") is *thing evidence*: a PERSON whose mentions have
  more of it than of person evidence is not a person; after "by" the name is an author and "which" refers to the
  work ("The Sparrow by Mary Doria Russell, which ...");
- "to" after a verb of going ("moved to Austin") is a preposition of place, and a one-word given name seen there
  with no person evidence is not a person;
- a one-word name, not a place, that the document only ever writes owning a noun ("Maslow's hierarchy", "Rubik's
  cube", "Kennedy's famous comment") is a person: the author of the idea, the work or the saying (`possessor`);
- a several-word PERSON with no person evidence whose last word the document also writes in lower case ("like
  Dennard Scaling is done" beside "scaling laws") is a topic, unless a common given name opens it ("Neil
  Young" beside "young people"): a surname is seldom a word the same text uses as a common noun (`worded`).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, NamedTuple

from retrieval.indexing import person_words, place_words
from retrieval.indexing.entity_filter import DocumentWords, common_word
from retrieval.indexing.entity_kinds import THING_ENDINGS
from retrieval.indexing.entity_names import PLACE_LAST
from retrieval.indexing.given_names import given_name
from retrieval.indexing.model import CONCEPT, majority_type
from retrieval.indexing.resolution import HONORIFICS

PLACES = place_words.PLACE_TYPES
_SPEECH = frozenset(
    {
        "said", "says", "told", "tells", "asked", "asks", "wrote", "writes", "replied", "explained", "argued",
        "thinks", "thought", "believes", "believed", "laughed", "smiled", "founded", "co-founded", "joined",
        "grew", "studied", "married", "cried", "exclaimed", "answered", "whispered", "shouted", "nodded",
    }
)  # fmt: skip
#: The speech verbs that also stand before their speaker ('"...," said Scrooge'); the others take an object
#: there, a work or a firm ("who wrote Sapiens", "joined Google"), and say nothing of a person.
_SPEECH_BEFORE = frozenset({"said", "says", "asked", "asks", "replied", "answered", "cried", "exclaimed"})
#: Prepositions of place: a name right after one is where something is ("in Cambridge, who ..."), even when
#: "who" follows; so is a name after "the" ("the Kung Fu Panda, who ...": a character of a film).
_LOCATIVE = frozenset({"in", "at", "from", "into", "to", "near", "across", "around", "outside", "inside"})
#: Prepositions before where something is, and seldom before a person ("to" and "from" are: "talked to X").
_WHERE = frozenset({"in", "at", "into", "inside", "near", "outside"})
#: Verbs of going somewhere: "to" after one is a destination ("moved to Austin"), not a person talked to.
_MOTION = frozenset(
    {"moved", "move", "moving", "went", "go", "going", "goes", "flew", "fly", "drove", "drive", "travelled",
     "traveled", "relocated", "returned", "emigrated", "immigrated", "headed"}
)  # fmt: skip
_POSSESSIVE = frozenset({"'s", "’s", "'", "’"})
_ADDRESS = frozenset({"thank", "thanks", "hi", "hey", "hello", "welcome", "dear", "congratulations"})
#: Role nouns just before a name ("my colleague Christina", "professor Ng") or after its comma.
ROLES = frozenset(
    {
        "friend", "colleague", "wife", "husband", "son", "daughter", "father", "mother", "brother", "sister",
        "uncle", "aunt", "nephew", "niece", "professor", "advisor", "mentor", "guest", "host", "ceo", "cto",
        "founder", "co-founder", "cofounder", "author", "scientist", "engineer", "president", "director",
        "chairman", "chair", "boss", "partner", "teacher", "student", "astronaut", "physicist", "researcher",
        "writer", "actor", "comedian", "senator", "governor", "king", "queen", "prince", "princess", "who",
    }
)  # fmt: skip
#: Words before an actor's name in a cast list ("starring María Félix and ..."): a film stars people.
_CAST = frozenset({"starring", "co-starring"})
_PRONOUNS = frozenset({"he", "she", "him", "her", "his", "hers"})
_INNER_POSSESSIVE = re.compile(r"\w['’]s\s+\w")
_QUOTES = frozenset({'"', "“", "‘", "'"})
#: Nouns that say what kind of thing a name is ("Loopt was an interesting company"), never a person.
_THING_NOUNS = frozenset(
    {
        "company", "startup", "firm", "business", "product", "app", "game", "movie", "film", "book", "novel",
        "show", "series", "song", "album", "band", "website", "site", "brand", "platform", "device", "machine",
    }
)  # fmt: skip
_COPULAS = frozenset({"is", "was", "'s", "’s"})
#: Lower-case words inside a person's full name: nobiliary and patronymic particles ("Sophie de Condorcet").
NAME_PARTICLES = frozenset(
    {"de", "da", "di", "du", "del", "della", "der", "den", "van", "von", "la", "le", "bin", "ibn"}
)  # fmt: skip
#: Fewest other people a list must name before its other members count as people too.
LIST_PEOPLE = place_words.LIST_KIND


class Evidence(NamedTuple):
    """What one mention says about its name's type (see the module docstring)."""

    person: bool
    strong: bool
    #: "the" or a quote right before: a work's or a thing's name.
    the: bool
    #: A preposition of place right before and no possessive after ("walk into Best Buy").
    where: bool
    #: The mention speaks of a thing ("its" after its verb, ", which", a copula and a thing noun) and not of a person.
    thing: bool = False
    #: Strong evidence before the name or around it, not after: a title, a role or "starring" before, a list of people.
    introduced: bool = False
    #: The sentence says the name is a place: a noun of a kind of place, a place apposed, a list of places.
    place: bool = False


def evidence(ent: Any) -> Evidence:
    """What one spaCy entity span says about its name's type, in its document.

    Strong evidence (a title, a role noun or an address before the name, "he"/"she" after it, a list of
    people around it) outweighs the model's type; a speech verb alone ("Google said") does not."""
    doc = ent.doc
    before = [t.lower_ for t in doc[max(ent.sent.start, ent.start - 3) : ent.start]]
    after = [t.lower_ for t in doc[ent.end : min(ent.sent.end, ent.end + 3)]]
    following = [word for word in after[:2] if word != ","]
    placed = bool(before) and before[-1] in _LOCATIVE | {"the"}
    introduced = bool(
        (before and (before[-1].rstrip(".") in HONORIFICS or before[-1] in ROLES | _CAST))
        or _listed_with_people(ent)
        or person_words.occupied(ent, before)  # "pharaoh Ramses II", "X is an American actor"
        or person_words.born(ent, after)  # "X (born 1947)", "X was born in ..."
        or person_words.glossed(after)  # "Deanne Bell (scientist)"
        or person_words.authored(before)  # "directed by Goran Marković"
    )
    strong = bool(
        introduced
        or any(word in _ADDRESS for word in before)
        or (following and following[0] in _PRONOUNS and not _apposed_possessive(after))
        or (after[:2] == [",", "who"] and not placed)
        or person_words.owns_personally(ent)  # "Jarlskog obtained her doctorate"
    )
    spoken = bool((after and after[0] in _SPEECH) or (before and before[-1] in _SPEECH_BEFORE))
    apposed = len(after) > 1 and after[0] == "," and after[1] in ROLES | {"the", "a", "an"} and not placed
    the = bool(before and (before[-1] == "the" or before[-1] in _QUOTES))
    possessive = ent.text.endswith(("'s", "’s")) or bool(after and after[0] in _POSSESSIVE)
    destination = len(before) > 1 and before[-1] == "to" and before[-2] in _MOTION
    where = bool(before and (before[-1] in _WHERE or destination) and not possessive)
    person = strong or spoken or apposed
    thing = _speaks_of_a_thing(ent, after, authored=before[-1:] == ["by"]) or _called(before)
    place = not strong and place_words.place_evidence(ent)
    return Evidence(person, strong, the, where, not person and thing, introduced, place)


def _called(before: list[str]) -> bool:
    """ "a product called Worlds Away", "a book titled X": the name is the one a kind of thing is given."""
    return len(before) > 1 and before[-1] in ("called", "named", "titled") and _thing_noun(before[-2])


def _thing_noun(word: str) -> bool:
    """A noun of a kind of thing, singular or plural ("book", "books")."""
    return word in _THING_NOUNS or word.removesuffix("s") in _THING_NOUNS


def _apposed_possessive(after: list[str]) -> bool:
    """ ", his first startup" after a name: an appositive about the name (a thing of his), not "he" referring
    back to it."""
    return after[:1] == [","] and after[1:2] in (["his"], ["her"])


def _speaks_of_a_thing(ent: Any, after: list[str], *, authored: bool = False) -> bool:
    """ "Loopt made its exit", "Webvan, which ...", "Loopt was an interesting company", "Loopt, his first
    startup": the sentence speaks of the name as of a thing ("its" and "which" refer to things only; the noun
    that says what the name is names a kind of thing). After "by" (`authored`) the name is a work's author, and
    "which" refers to the work: "The Sparrow by Mary Doria Russell, which I think is a phenomenal book"."""
    which = after[:1] == ["which"] or after[:2] == [",", "which"]
    if (after[:1] != [","] and "its" in after[1:3]) or (which and not authored):
        return True
    return any(noun.lower_ in _THING_NOUNS for noun in _kind_nouns(ent.root))


def _kind_nouns(root: Any) -> list[Any]:
    """The nouns the parse says a name is: its appositive's head ("Loopt, his first startup") and, when it is the
    subject of "to be", the attribute ("Loopt was an interesting company").

    Why the parse and not the next noun after a comma or a copula: "Erik Lee Preminger, based on the novel" and
    "Bradley Christiansen, was in the band" name a novel and a band that the person is not (on HotpotQA passages
    the next-noun reading retyped such people)."""
    nouns = [t for t in root.children if t.dep_ == "appos"]
    if root.dep_ == "nsubj" and root.head.lemma_ == "be":
        nouns += [t for t in root.head.children if t.dep_ == "attr"]
    return nouns


def _listed_with_people(ent: Any) -> bool:
    """Whether the name is one of a list ("Teller and Dirac and Fermi") whose other members are mostly names the
    model typed PERSON, at least `LIST_PEOPLE` of them: a list of names is a list of one kind. A name ending in
    the noun of a kind of place is not ("Hooker Falls, Triple Falls, ... and High Falls", each typed PERSON by the
    model): that list is one of places; nor one after the noun of a kind of thing ("rock bands Aquarium, Kino,
    Alisa and Strannye Igry")."""
    root = ent.root
    if root.lower_ in PLACE_LAST:
        return False
    kinds = place_words.listed_kinds(root)
    if kinds is None or (kinds.head.i > 0 and _thing_noun(root.doc[kinds.head.i - 1].lower_)):
        return False  # "rock bands Aquarium, Kino, Alisa and Strannye Igry": the noun before says what they are
    people = sum(1 for kind in kinds.others if kind == "PERSON")
    return people >= LIST_PEOPLE and 2 * people > len(kinds.others)


def checked(
    surface: str,
    kinds: Counter[str],
    person_evidence: int,
    the_before: int,
    *,
    strong: int = 0,
    placed: int = 0,
    thing: int = 0,
    introduced: int = 0,
) -> str:
    """The document's type for a name, from the model's votes (`kinds`) and the evidence counted for it
    (`placed`: mentions right after a preposition of place; `thing`: mentions that speak of a thing; `introduced`:
    mentions with strong evidence before the name, not after it)."""
    kind = majority_type(kinds)
    named = {k: n for k, n in kinds.items() if k != CONCEPT}
    word = surface.strip()
    one_name = " " not in word and word[:1].isupper() and not word.isupper()
    total = sum(kinds.values())
    if kind != "PERSON" and one_name and strong and 2 * strong >= total:
        return "PERSON"  # "Knuth" tagged ORG, but "professor Knuth ... he"
    if kind != "PERSON" and _full_name(word, kind, the_before) and introduced and 2 * introduced >= total:
        return "PERSON"  # "starring Matthew Broderick, Denzel Washington, ...": "he" after a firm is another subject
    if kind == "PERSON":
        titled = " " in word and 2 * (the_before + placed) >= sum(kinds.values()) and not strong
        if _INNER_POSSESSIVE.search(surface) or titled:
            return CONCEPT
        a_thing = thing > person_evidence and not strong  # "Loopt made its exit"
        lone = " " not in word and not person_evidence
        if a_thing or (lone and (the_before or placed or not given_name(word))):  # "moved to Austin"
            others = {k: n for k, n in named.items() if k != "PERSON"}
            return max(others.items(), key=lambda item: (item[1], item[0]))[0] if others else CONCEPT
    if kind in PLACES and surface.isupper() and " " not in surface and not the_before:
        return CONCEPT
    return kind


def _full_name(word: str, kind: str, the_before: int) -> bool:
    """Whether a several-word name may be a person's when strong evidence says so ("starring Matthew Broderick,
    Denzel Washington, ...", the model typed ORG): every word capitalised but a name particle inside ("Ernest de
    Saisset", "Ludwig van Beethoven"), not a place, never after "the" (a group: "the Rolling Stones, who ...") and
    not ending in a plural, as teams and bands do ("Kansas City Royals, who ..."), nor in the noun of a work or a
    firm ("Anita Borg Institute, who ...": entity_kinds.THING_ENDINGS). A surname ending in "s" counts only after a
    common given name ("starring Traci Lords"): teams are named after places and animals, not first names."""
    names = word.split()
    plural = names[-1].endswith("s") and not given_name(names[0])
    # A particle follows a first name ("Juan de Dios"), not an everyday noun ("Place de la République").
    particled = given_name(names[0]) or not common_word(names[0])
    return (
        len(names) > 1
        and names[0][:1].isupper()
        and names[-1][:1].isupper()
        and all(name[:1].isupper() or (particled and name in NAME_PARTICLES) for name in names[1:-1])
        and kind not in PLACES
        and not the_before
        and not plural
        and names[-1].lower() not in THING_ENDINGS
    )


def placed(kind: str, place: int, person_evidence: int, strong: int) -> str:
    """GPE for a PERSON that the other rules left a person, with no strong person evidence and more mentions whose
    sentence says it is a place (`place_words.place_evidence`: "Glade Farms is an unincorporated community", a list
    of places only) than mentions with person evidence; the type otherwise. Run last, so a name another rule made a
    place ("Chelsea Creek": LOC) or a topic keeps that type."""
    return "GPE" if kind == "PERSON" and not strong and place > person_evidence else kind


def possessor(surface: str, kind: str, words: DocumentWords) -> str:
    """PERSON for a one-word name, not a place, that the document only ever writes as owning a noun: "Maslow's
    hierarchy", "Rubik's cube", "Kennedy's famous comment", "Chopin's G minor ballad" (tagged ORG or a topic). A
    surname met once, as the owner of an idea, a work or a saying, names its author; a firm is named on its own
    somewhere ("at Google" beside "Google's ad systems"). Places own things too ("Regent's Park"), so they keep
    their type."""
    one_name = " " not in surface and surface[:1].isupper() and not surface.isupper()
    if kind in PLACES or kind == "PERSON" or not one_name or not words.only_possessive(surface):
        return kind
    return "PERSON"


def worded(surface: str, kind: str, words: DocumentWords, person_evidence: int) -> str:
    """CONCEPT for a several-word PERSON that no mention shows acting as one and whose last word the document also
    writes in lower case: "like Dennard Scaling is done" beside "scaling laws", "Metlako Falls" beside "falls",
    "Biysky District" beside "district". The model reads two capitalised words as a first name and a surname; a
    surname is seldom a word the same text uses as a common noun, and when it is ("Neil Young" beside "young
    people") a common given name opens the name (given_names.py)."""
    names = surface.split()
    if kind != "PERSON" or person_evidence or len(names) < 2 or given_name(names[0]):
        return kind
    last = names[-1]
    return CONCEPT if last[:1].isupper() and last.lower() in words.lower_case else kind
