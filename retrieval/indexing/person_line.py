"""Types checked across the person line: what a name's own mentions say it is, a person or a thing.

Why: on encyclopaedia passages (MuSiQue, issue #25: the labelled errors of every `musique_entity_labels*.csv`,
7 of `_241`'s 23 and 9 of `_233`'s 34) the largest class of wrong types a rule can still reach is a type across the
person line: a synagogue, a hotel, a road, a firm typed PERSON ("a synagogue, Kehilath Anshe Ma'arav", "Edsa
Shangri-La, Manila is a 5-star luxury hotel", "released in 1979 by Tekunon Kougyou"), and people typed as things
("Pierre de Rivaz (1711-1772) was a French clockmaker ... He built a clock", "Trajan's birthplace", "Salandra
offered his resignation"). The other type rules (entity_types.py) read a role or a title before the name and
"he" right after it; these read a little further, and only where the sentence leaves one reading. No name list:
common nouns of kinds of things and of family and life, and the pronouns that refer to people, so the rules hold on
any corpus:
- *for a person*: the name, typed PERSON, ORG or PRODUCT, owns a noun of family or of a life ("Trajan's ancestors",
  "Connor's parents", "Salandra's resignation"; not "Google's founder": a firm has a founder too); "He"/"She" opens
  the next sentence and the name, the subject of its sentence, is the only one in it that could be a person (the
  model's PERSON, ORG or PRODUCT); "his"/"her" owning a noun later in the subject's own clause with no other such
  name before it ("Ace Young's second single, after his 2006 song"; not "appointed him"); the name as the subject
  of "serve as" an occupation ("László Német currently serves as bishop");
- *against a person*: the parse says the name is the lower-case noun of a kind of thing, building or road, as what
  it "is" ("X is an underground metro station"), or, when its first word is neither a given name in any locale nor
  an initial (on people's names these readings come from misparses: "Bette Davis, the rock and roll song"), as its
  appositive or the noun right before its comma that it is apposed to ("a synagogue, X"); such a name is the agent
  of a verb firms do ("released in 1979 by Tekunon Kougyou"; not "by Jerry Lee Lewis") or the subject of a passive
  verb of a made or placed thing ("X was founded in 1898", "X is located in"); or the name's last word is the noun
  of a road, a building or a work ("Grant McConachie Way", "Thrissur KSRTC Bus Station", "William Tell Overture").
A name's type moves across the line only when its document's mentions say so more often than the other way and
never against a title, a role or "he" that entity_types.py counted as strong person evidence.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, NamedTuple

from retrieval.indexing import place_words
from retrieval.indexing.entity_kinds import INSTITUTION_ENDINGS, THING_ENDINGS
from retrieval.indexing.given_names import given_name_anywhere
from retrieval.indexing.person_words import OCCUPATIONS, PERSONAL_POSSESSIVES

#: Nouns of family and of a life that a person's name owns and a firm's or a place's does not.
LIFE_NOUNS = frozenset(
    {"wife", "husband", "widow", "widower", "son", "sons", "daughter", "daughters", "father", "mother", "parents",
     "brother", "brothers", "sister", "sisters", "ancestors", "grandfather", "grandmother", "uncle", "aunt",
     "nephew", "niece", "cousin", "mistress", "fiancée", "fiance", "fiancé", "birthplace", "birth", "death",
     "funeral", "grave", "tomb", "childhood", "boyhood", "girlhood", "resignation", "reign", "marriage", "murder",
     "assassination", "abdication", "coronation", "biographer", "biography", "memoirs", "autobiography"}
)  # fmt: skip
#: Pronouns that refer to a person. As owners ("his alma mater": `PERSONAL_POSSESSIVES`) they refer to the clause's
#: subject, where an object pronoun ("appointed him") refers to someone else.
_PRONOUNS = PERSONAL_POSSESSIVES | {"he", "she", "him"}
#: An initial opening a name ("C. S. Forester", "W. S. Hindman"); not "E.P.", a firm's run-together initials.
_INITIAL = re.compile(r"[A-Z]\.")
#: Forms of "serve" (the pipeline has no lemmatizer): "X serves as bishop".
_SERVE = frozenset({"serve", "serves", "served", "serving"})
#: Dependencies of a clause under a verb: a pronoun there may refer to that clause's own subject.
_CLAUSES = frozenset({"ccomp", "xcomp", "advcl", "relcl", "acl", "parataxis", "conj"})
#: Dependencies of a sentence's subject: a pronoun later in it refers to its subject first.
_SUBJECTS = frozenset({"nsubj", "nsubjpass"})
#: The model's types of a name that may be the person a pronoun refers to (people are often typed ORG or PRODUCT).
_REFERABLE = frozenset({"PERSON", "ORG", "PRODUCT"})
#: Nouns of kinds of things, buildings and roads that a name may be said to be, never a person.
KIND_NOUNS = (
    THING_ENDINGS
    | INSTITUTION_ENDINGS
    | place_words.PLACE_NOUNS
    | frozenset(
        {"station", "hotel", "synagogue", "church", "temple", "mosque", "chapel", "abbey", "monastery", "building",
         "tower", "bridge", "road", "street", "highway", "motorway", "freeway", "expressway", "mall", "park",
         "piece", "composition", "symphony", "overture", "concerto", "opera", "song", "single", "album", "novel",
         "religion", "denomination", "company", "firm", "manufacturer", "airline",
         "carrier", "subsidiary", "brand", "team", "club", "band", "franchise", "network", "channel", "newspaper",
         "ship", "vessel", "locomotive", "aircraft", "car", "vehicle", "river", "tributary", "stream", "language",
         "dialect", "party", "movement", "organization", "organisation", "institution", "school", "campus",
         "venue", "theatre", "theater", "arena", "restaurant", "shop", "store", "retailer", "chain", "label",
         "software", "program", "programme", "product", "game", "event", "tournament", "competition", "race"}
    )
)  # fmt: skip
#: Verbs whose agent ("released by X") is a firm and seldom a person.
_FIRM_AGENTS = frozenset({"released", "manufactured", "distributed", "published", "operated", "marketed"})
#: Passive verbs of a made or placed thing ("X was founded in 1898", "X is located in"): people are born, not built.
_MADE = frozenset(
    {"founded", "built", "established", "located", "situated", "constructed", "erected", "opened", "manufactured",
     "incorporated", "headquartered", "renamed", "demolished"}
)  # fmt: skip
#: Last words of a road's or a work's name, none a common surname ("Grant McConachie Way", "William Tell Overture").
_ROADS = frozenset({"way", "road", "highway", "expressway", "freeway", "parkway", "motorway"})
#: Last words of a building's name, none a common surname ("Thrissur KSRTC Bus Station"; not "Tower": John Tower).
_BUILDINGS = frozenset({"station", "terminal", "terminus", "hospital", "synagogue", "mosque", "mall"})
_WORKS = frozenset({"overture", "symphony", "concerto", "sonata", "requiem", "cantata", "oratorio"})
#: Last words that make a PERSON a facility, and those no person's name ends with (`_person_shaped`).
_FACILITY_LAST = _ROADS | _BUILDINGS
_NO_PERSONS_LAST = KIND_NOUNS | _FACILITY_LAST | _WORKS


class Said(NamedTuple):
    """What one mention says across the person line (see the module docstring)."""

    person: bool
    thing: bool


def said(ent: Any) -> Said:
    """What one spaCy entity span's sentence says of its name: a person's (`person`) or a thing's (`thing`)."""
    person = _owns_a_life(ent) or _referred_to(ent) or _serves_as(ent)
    # A name opening as a person's may be a firm's verb's agent too ("released by Jerry Lee Lewis"), and the subject
    # of a made thing's passive only in a misparse ("graduate W. S. Hindman, the ... stadium was built")
    thing = not person and (_kind_noun(ent) or (not _given(ent) and (_firm_agent(ent) or _made(ent))))
    return Said(person, thing)


def _owns_a_life(ent: Any) -> bool:
    """ "Trajan's ancestors", "Salandra's resignation": the name, one the model typed as may be a person's, owns a
    noun of family or of a life (not a work's title: "Coal Miner's Daughter")."""
    root = ent.root
    return ent.label_ in _REFERABLE and root.dep_ == "poss" and root.head.lower_ in LIFE_NOUNS


def _referred_to(ent: Any) -> bool:
    """Whether the name, the subject of its sentence's main verb (or the owner of its subject or attribute: "Ace
    Young's second single"), is what a pronoun refers to: "He"/"She" opens the next sentence and the name is the
    only name in its sentence that could be a person (`_REFERABLE`), or "his"/"her" (an owner) follows the name in the
    main verb's own clause with no other such name between and no pronoun before the name."""
    doc, sent = ent.doc, ent.sent
    root = ent.root
    owner = root.head if root.dep_ == "poss" else root  # "Ace Young's second single, after his 2006 song"
    verb = owner.head
    if ent.label_ not in _REFERABLE or owner.dep_ not in _SUBJECTS | {"attr"} or verb.dep_ != "ROOT":
        return False
    if any(t.lower_ in _PRONOUNS for t in doc[sent.start : ent.start]):
        return False  # "He returned to Harvard ... his alma mater": the pronoun is the subject's
    names = [e for e in doc.ents if sent.start <= e.start and e.end <= sent.end and e.label_ in _REFERABLE]
    if any(e.text != ent.text and e.start < ent.start for e in names):
        return False
    if all(e.text == ent.text for e in names) and _opens_with_pronoun(doc, sent.end):
        return True
    stop = min([e.start for e in names if e.start > ent.start and e.text != ent.text] + [sent.end])
    return any(
        t.lower_ in PERSONAL_POSSESSIVES and t.dep_ == "poss" and _in_clause(t, verb) for t in doc[ent.end : stop]
    )


def _in_clause(token: Any, verb: Any) -> bool:
    """Whether `token` belongs to `verb`'s own clause, not to a clause under it ("X says he left ... his
    grandmother": the pronoun is the reported clause's subject's)."""
    while token.i != verb.i and token.dep_ not in _CLAUSES and token.head.i != token.i:
        token = token.head
    return token.i == verb.i


def _opens_with_pronoun(doc: Any, start: int) -> bool:
    """Whether the sentence starting at token `start` opens with "He" or "She"."""
    first = next((t for t in doc[start : start + 3] if not t.is_space), None)
    return first is not None and first.text in ("He", "She")


def _serves_as(ent: Any) -> bool:
    """ "László Német currently serves as bishop": the subject of "serve as" an occupation."""
    root = ent.root
    if root.dep_ != "nsubj" or root.head.lower_ not in _SERVE:
        return False
    preps = [t for t in root.head.children if t.dep_ == "prep" and t.lower_ == "as"]
    return any(obj.lower_ in OCCUPATIONS for prep in preps for obj in prep.children if obj.dep_ == "pobj")


def _kind_noun(ent: Any) -> bool:
    """ "X is an underground metro station", "a synagogue, X": the parse says the name is the lower-case noun of a
    kind of thing, building or road (as its appositive, what it "is", or the noun right before its comma that it is
    apposed to). Not any noun right before the name: "songwriting team Lou Adler", "talk show Joe Pyne"."""
    root = ent.root
    nouns = list(place_words.said_nouns(root))
    if _given(ent):  # "Bette Davis, the rock and roll song", "graduate W. S. Hindman, the ... stadium": misparses
        nouns = [noun for noun in nouns if noun.dep_ == "attr"]
    apposed = root.dep_ == "appos" and root.head.i == ent.start - 2 and ent.doc[ent.start - 1].text == ","
    if apposed and not _given(ent):
        nouns.append(root.head)  # "a synagogue, Kehilath Anshe Ma'arav"; not "her debut album, Carly Simon"
    return any(noun.text.islower() and noun.lower_ in KIND_NOUNS for noun in nouns)


def _firm_agent(ent: Any) -> bool:
    """ "released in 1979 by Tekunon Kougyou": the agent of a verb firms do (`said` reads it only of a name whose
    first word is no given name nor an initial: a musician releases a record, "published by C. S. Forester")."""
    root = ent.root
    by = root.head if root.dep_ == "pobj" else None
    return bool(by is not None and by.lower_ == "by" and by.dep_ == "agent" and by.head.lower_ in _FIRM_AGENTS)


def _given(ent: Any) -> bool:
    """Whether the name opens as a person's does: a given name in some locale or an initial ("C. S. Forester")."""
    first = ent.text.split()[0]
    return given_name_anywhere(first) or bool(_INITIAL.fullmatch(first))


def _made(ent: Any) -> bool:
    """ "X was founded in 1898", "X is located in": the subject of a passive verb of a made or placed thing."""
    root = ent.root
    return root.dep_ == "nsubjpass" and root.head.lower_ in _MADE


def lined(surface: str, kind: str, said_counts: Counter[str], *, strong: int, mentions: int) -> str:
    """The type of a name in its document across the person line: PERSON for a name typed as a thing whose mentions
    say a person's more often than a thing's (`said_counts`: how many of its mentions `said` a "person" and a
    "thing") and in at least half of them (`mentions`); a thing's type for a PERSON whose mentions say a thing more
    often than a person, with no strong person evidence (`strong`: entity_types' title, role, "he" after), or whose
    last word is a road's or a work's noun; `kind` otherwise."""
    words = surface.split()
    person, thing = said_counts["person"], said_counts["thing"]
    if kind == "PERSON":
        if strong:
            return kind
        last = words[-1].lower()
        if last in _FACILITY_LAST and len(words) > 1 and not person:
            return "FAC"
        if last in _WORKS and len(words) > 1 and not person:
            return "WORK_OF_ART"
        return "ORG" if thing > person else kind
    if person > thing and 2 * person >= mentions and _person_shaped(words):
        return "PERSON"
    return kind


def _person_shaped(words: list[str]) -> bool:
    """Capitalised words (a particle inside: "Pierre de Rivaz"), the last no noun of a kind of thing."""
    return (
        bool(words)
        and all(w[:1].isupper() or (0 < i < len(words) - 1 and w.islower()) for i, w in enumerate(words))
        and words[-1].lower() not in _NO_PERSONS_LAST
    )
