"""Words around a name that only a person's name takes: an occupation or a rank, and a birth.

Why: on encyclopaedia passages (MuSiQue, issue #25: benchmarks/data/musique_entity_labels.csv and
musique_entity_labels_112.csv, the tuning samples) the small model types people met once as things when the only
word that says who they are is an occupation or a rank ("about pharaoh Ramses II" typed PRODUCT) or a birth ("X
(born 1947) is ...", "X was born in ..."). Wikipedia-style first sentences say what a name is ("X is an American
actor", "X, an English poet, ..."), and what they say is a person's noun. The words are common nouns of occupations
and ranks, not names, so the rules hold on any corpus:
- an occupation or a rank just before a name ("pharaoh Ramses II", "poet Dylan Thomas") is strong person evidence,
  as `entity_types.ROLES` is (that list also feeds community titles' stop words, so this one is kept apart);
- an occupation the parse says the name is, as its appositive or as what it "is" ("X, an English poet",
  "X is an American actor"), is strong person evidence too;
- "(born" right after a name, or the name as the subject of "was born", is: only people are born in these texts;
- an occupation in brackets right after a name, as an encyclopaedia's title tells two namesakes apart ("Deanne Bell
  (scientist)"), is;
- a participle of personal authorship or the noun of a work a person writes, then "by", just before a name
  ("directed by Goran Marković", "a libretto by J. D. McClatchy") is: films are directed and librettos written by
  people. Verbs a firm does too ("produced by", "published by", "distributed by") are not among them;
- the name as the subject of a verb whose object "his" or "her" owns ("Jarlskog obtained her doctorate", "Signmark
  won his qualifying round") is: those pronouns refer to people, and the owner of a subject's own object is the
  subject (issue #25: the people typed as things of the MuSiQue label files).
"""

from __future__ import annotations

from typing import Any

from retrieval.indexing import place_words

#: Occupations and ranks that a person holds and a thing never is: nouns of a person, singular.
OCCUPATIONS = frozenset(
    {"actor", "actress", "singer", "songwriter", "musician", "rapper", "guitarist", "drummer", "pianist",
     "violinist", "composer", "poet", "novelist", "playwright", "screenwriter", "painter",
     "sculptor", "photographer", "journalist", "broadcaster", "politician", "diplomat", "economist",
     "philosopher", "historian", "mathematician", "chemist", "biologist", "botanist", "astronomer", "inventor",
     "entrepreneur", "businessman", "businesswoman", "footballer", "cricketer", "athlete", "boxer", "wrestler",
     "cyclist", "swimmer", "sprinter", "jockey", "pharaoh", "emperor", "empress", "pope", "bishop", "archbishop",
     "priest", "rabbi", "imam", "monk", "nun", "missionary", "theologian", "admiral", "colonel",
     "lieutenant", "sergeant", "duke", "duchess", "earl", "baron", "baroness", "sultan", "tsar", "czar",
     "monarch", "chancellor", "mayor", "lawyer", "judge", "architect", "dancer", "comedienne", "filmmaker",
     "presenter", "illustrator", "cartoonist", "explorer", "aviator",
     "astronaut", "physician", "surgeon", "nurse", "soldier", "officer", "statesman", "activist", "socialite",
     "scientist", "physicist", "engineer", "writer", "author"}
)  # fmt: skip


#: Words before "by" whose agent is a person: participles of personal authorship and the works people write.
AUTHORSHIP = frozenset(
    {"directed", "co-directed", "written", "co-written", "composed", "painted", "sculpted", "illustrated",
     "narrated", "choreographed", "authored", "penned", "libretto", "screenplay", "novel", "poem", "memoir",
     "biography", "painting", "sculpture", "essay"}
)  # fmt: skip


def occupied(ent: Any, before: list[str]) -> bool:
    """Whether an occupation stands just before the name ("pharaoh Ramses II") or the parse says the name is one
    ("X, an English poet", "X is an American actor"), written in lower case as a common noun is."""
    if before and before[-1] in OCCUPATIONS:
        return True
    nouns = place_words.said_nouns(ent.root)
    return any(noun.text.islower() and noun.lower_ in OCCUPATIONS for noun in nouns)  # not "Boxer (dog), the Boxer"


def born(ent: Any, after: list[str]) -> bool:
    """Whether the text says the name was born: "X (born 28 April 1947)", "X was born in ..."."""
    if after[:2] == ["(", "born"]:
        return True
    root = ent.root
    return root.dep_ == "nsubjpass" and root.head.lower_ == "born"


def glossed(after: list[str]) -> bool:
    """Whether an occupation in brackets follows the name, as a title that tells namesakes apart: "Deanne Bell
    (scientist)"."""
    return len(after) > 2 and after[0] == "(" and after[1] in OCCUPATIONS and after[2] == ")"


def authored(before: list[str]) -> bool:
    """Whether "by" after a word of personal authorship stands just before the name: "directed by X", "a libretto
    by X"."""
    return len(before) > 1 and before[-1] == "by" and before[-2] in AUTHORSHIP


#: Possessive pronouns that refer to a person only ("its" and "their" do not).
PERSONAL_POSSESSIVES = frozenset({"his", "her"})


def owns_personally(ent: Any) -> bool:
    """Whether the name is the subject of a verb whose direct object "his" or "her" owns: "Jarlskog obtained her
    doctorate", "Signmark won his qualifying round"."""
    root = ent.root
    if root.dep_ != "nsubj":
        return False
    objects = [t for t in root.head.children if t.dep_ == "dobj"]
    return any(t.dep_ == "poss" and t.lower_ in PERSONAL_POSSESSIVES for obj in objects for t in obj.children)
