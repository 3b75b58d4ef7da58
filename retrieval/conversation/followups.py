"""Follow-ups without a model: which word refers back, to what, and the question rewritten with it.

Why not "every earlier turn's words join the search": after "What does Neil deGrasse Tyson say about science
literacy?" and "Who is Mira Murati?", the question "and what did she say about DALL-E?" was searched with Tyson's
words too and answered with Tyson's quotes. A pronoun names one thing: the most recent earlier entity of the
kind it can stand for. So:
- **referring words** are person pronouns (he, she, him, his, her, hers), thing words (it, its, that, this, these,
  those), "there" (a place or institution) and they/them/their (either);
- a question **stands alone** when it opens with no connective ("and", "but", "what about") and every referring
  word finds a fitting word in an earlier clause of the question itself ("What is ImageNet and why did Fei-Fei Li
  build it?": "it" is ImageNet). A word in the same clause is no antecedent ("How many images does it contain?"),
  an expletive is no reference ("Is it true that..."), nor is "that" before a name or article (a conjunction);
- the **entities** of an earlier question are its names (runs of capitalised words, "deGrasse" and "AI4ALL"
  included) and the X of "What is X?"; one is a person when asked about as one ("Who is X?") or when it is the
  subject of a verb people do ("What did X say/study/build?"), a thing otherwise;
- the rewrite puts the entity in place of the word ("her foundation" -> "Mae Jemison's foundation", "there" ->
  "at Stanford") and is shown to the reader.
Only the question text is read, so the rules hold for any corpus.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from retrieval.search.keywords import STOPWORDS

Kind = Literal["person", "thing"]
#: Referring word -> the kinds of entity it can stand for.
REFERS: dict[str, tuple[Kind, ...]] = {
    **dict.fromkeys(("he", "she", "him", "his", "her", "hers", "himself", "herself"), ("person",)),
    **dict.fromkeys(("it", "its", "that", "this", "these", "those", "there"), ("thing",)),
    **dict.fromkeys(("they", "them", "their", "theirs"), ("person", "thing")),
}
POSSESSIVE = frozenset({"his", "its", "their", "hers"})
_CONNECTIVE = re.compile(r"^\s*(?:and|but|also|so|what about|how about)\b[,\s]*", re.IGNORECASE)
_TOKEN = re.compile(r"[\w'’.\-]*\w|[^\w\s]")
#: A clause boundary inside a question: a comma or a conjunction.
_CLAUSE = frozenset({",", ";", "and", "but", "or", "because", "so", "while"})
#: Verbs people do: the subject of one in an earlier question is a person.
_PERSON_VERB_TEXT = """
say said says think thinks thought do does did study studied see saw build built found founded grow grew work
worked believe believes learn learned take took want wants feel feels mean meant start started
"""
_PERSON_VERBS = frozenset(_PERSON_VERB_TEXT.split())
_EXPLETIVE = re.compile(r"\b(?:is it|was it|isn't it|it is|it's|it was) (?:true|possible|the case|likely)\b", re.I)
#: A name word: capitalised, or with an inner capital ("deGrasse"), or a number inside a name ("100 Year Starship").
_NAME_WORD = re.compile(r"^(?:[A-Z][\w.\-’']*|[a-z]+[A-Z][\w\-]*|\d+)$")
_WHO_IS = re.compile(r"^\s*who\s+(?:is|was|are|were)\s+(?P<x>.+?)\s*\??\s*$", re.IGNORECASE)
_WHAT_IS = re.compile(r"^\s*what\s+(?:is|was|are|were)\s+(?-i:the\s+|a\s+|an\s+)?(?P<x>[^?]+?)\s*\??\s*$", re.I)


@dataclass(frozen=True)
class Entity:
    name: str
    kind: Kind


@dataclass(frozen=True)
class Rewrite:
    """The question as searched, and which referring word was read as which entity."""

    question: str
    read_as: tuple[tuple[str, str], ...]


def references(question: str) -> list[tuple[int, str]]:
    """(token index, word) of each word of `question` that refers outside itself."""
    tokens = _TOKEN.findall(question)
    lowered = [t.lower() for t in tokens]
    expletive = bool(_EXPLETIVE.search(question))
    found = []
    for i, word in enumerate(lowered):
        if word not in REFERS or (word == "it" and expletive):
            continue
        if word in ("that", "this", "these", "those") and i + 1 < len(tokens) and _opens_clause(tokens[i + 1]):
            continue  # a conjunction ("true that Andrew Ng...") or a determiner of a named thing
        if not _antecedent_in_question(tokens, i, REFERS[word]):
            found.append((i, word))
    return found


def is_follow_up(question: str) -> bool:
    """Whether the question needs the earlier turns: it opens with a connective, or a word refers outside it."""
    return bool(_CONNECTIVE.match(question)) or bool(references(question))


def entities(question: str) -> list[Entity]:
    """The entities an earlier question names, in order, each a person or a thing (see the module docstring)."""
    who, what = _WHO_IS.match(question), _WHAT_IS.match(question)
    if who:
        return [Entity(who.group("x").strip(), "person")]
    if what and not any(w.lower() in _PERSON_VERBS for w in what.group("x").split()):
        return [Entity(what.group("x").strip(), "thing")]
    tokens = _TOKEN.findall(question)
    out: list[Entity] = []
    i = 1  # the first word is capitalised for being first
    while i < len(tokens):
        if not _NAME_WORD.match(tokens[i]) or tokens[i].lower() in STOPWORDS:
            i += 1
            continue
        start = i
        while i < len(tokens) and (_NAME_WORD.match(tokens[i]) or _joins_name(tokens, i)):
            i += 1
        name = " ".join(tokens[start:i]).replace(" ' s", "'s")
        following = tokens[i].lower() if i < len(tokens) else ""
        out.append(Entity(re.sub(r"['’]s$", "", name), "person" if following in _PERSON_VERBS else "thing"))
    return out


def rewrite(question: str, earlier: Sequence[str]) -> Rewrite | None:
    """The question with each referring word replaced by the most recent fitting entity of `earlier` (oldest
    first); None when nothing refers back or nothing fits."""
    wanted = references(question)
    if not wanted:
        return None
    candidates = [e for text in reversed(earlier) for e in entities(text)]
    tokens = _TOKEN.findall(
        _CONNECTIVE.sub("", question) if not question.lower().startswith("what about") else question
    )
    offset = len(_TOKEN.findall(question)) - len(tokens)
    read_as = []
    for index, word in wanted:
        entity = next((e for e in candidates if e.kind in REFERS[word]), None)
        if entity is None:
            continue
        i = index - offset
        tokens[i] = _replacement(word, entity, tokens[i + 1] if i + 1 < len(tokens) else "")
        read_as.append((word, entity.name))
    if not read_as:
        return None
    text = re.sub(r"\s+([?.!,;:])", r"\1", " ".join(tokens)).replace(" 's", "'s")
    return Rewrite(text[:1].upper() + text[1:], tuple(read_as))


def _replacement(word: str, entity: Entity, following: str) -> str:
    if word == "there":
        return f"at {entity.name}"
    possessive = word in POSSESSIVE or (word == "her" and following.isalpha() and following.lower() not in STOPWORDS)
    return f"{entity.name}'s" if possessive else entity.name


def _opens_clause(token: str) -> bool:
    return bool(_NAME_WORD.match(token)) or token.lower() in ("the", "a", "an", "he", "she", "they", "it", "we", "i")


def _joins_name(tokens: Sequence[str], i: int) -> bool:
    """A possessive ('s) inside a name run: "Moore's Law"."""
    return tokens[i] in ("'", "’") and i + 1 < len(tokens) and tokens[i + 1] == "s"


def _antecedent_in_question(tokens: Sequence[str], index: int, kinds: tuple[Kind, ...]) -> bool:
    """Whether an earlier clause of the question has a word the referring word can stand for."""
    boundary = max((i for i in range(index) if tokens[i].lower() in _CLAUSE), default=-1)
    if boundary < 0:
        return False
    earlier = " ".join(tokens[:boundary])
    named = entities(earlier)
    if "person" in kinds and any(e.kind == "person" for e in named):
        return True
    if "thing" not in kinds:
        return False
    people = {w.lower() for e in named if e.kind == "person" for w in e.name.split()}
    words = [t.lower() for t in tokens[1:boundary] if t[0].isalnum()]
    return any(w not in STOPWORDS and w not in _PERSON_VERBS and w not in people for w in words)
