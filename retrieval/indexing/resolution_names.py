"""Merge rules for the other names a passage gives one place, state or event (resolution.py holds the others).

Why apart: an encyclopaedia passage introduces a thing by its formal or full name and then uses the short one
("Cuba, officially the Republic of Cuba"; "the Atlantic Ocean ... across the Atlantic"; "the Winter Olympic
Games ... the Winter Olympics"), so the two forms are in one document but share no words the earlier rules read
(a person's name part, an acronym, a plural "s"). Each rule asks for both forms in a shared document and the same
kind, and names a form only the name itself can make ("Republic of" before a state, a feature's class word after
it, a plural noun and its adjective, the same words reordered); no rule joins a thing and a part or member of it:
- a state's formal name: one word of `FORMAL` and "of" before the name ("Republic of Cuba" -> "Cuba"), not
  "Kingdom of" or "Empire of", which name a former state ("Kingdom of Hungary" beside "Hungary");
- a geographic feature without its class word ("Atlantic" -> "Atlantic Ocean"; `FEATURES`): the class word names
  what the name alone names, unlike a word for the land around it ("Hudson Valley" is not the Hudson);
- a plural name and its adjective before a plural noun ("Olympics" and "Olympic Games", "Philippines" and
  "Philippine Islands");
- the same three or more words in another order ("Olympic Winter Games" and "Winter Olympic Games"), no person;
- any other name the passage says in words (`alias_pairs`: "The Catholic Church, also known as the Roman Catholic
  Church"): the sentence is the evidence, read from the mentions' evidence sentences, where no rule of spelling
  could tell "Roman Catholic Church" from "Free Church of Scotland" beside "Church of Scotland".
Both forms in no shared document stay apart: "Republic of China" (Taiwan) beside "China" never is on MuSiQue, and
a name across passages has no evidence that it means the same thing (the entity vectors do not tell: measured).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from typing import TYPE_CHECKING

from retrieval.indexing.resolution_across import same_kind

if TYPE_CHECKING:
    from retrieval.indexing.resolution_keys import Key

#: The word before "of" in a state's formal name that leaves it the same state ("State of Mississippi").
FORMAL = frozenset({"republic", "state", "commonwealth"})
#: Class words after a geographic feature's name that the name alone also says ("Atlantic Ocean", "Sahara Desert").
FEATURES = frozenset({"ocean", "sea", "river", "mountains", "desert", "peninsula", "islands"})
#: Plural class nouns after an adjective that the adjective's plural also says ("Olympic Games" and "Olympics",
#: "Philippine Islands" and "Philippines"); not any plural noun: "Africans" are not "African Americans".
PLURAL_CLASSES = frozenset({"games", "islands", "mountains", "provinces"})
#: Types of a place: two of them name one place as often as not ("Britain" GPE, "Great Britain" LOC).
_PLACES = frozenset({"GPE", "LOC"})

Pair = tuple[str, str, str]


def name_form_pairs(keys: dict[str, Key], together: Callable[[Key, Key], int]) -> list[Pair]:
    """(variant, target, reason) of the four rules, each pair of keys in a shared document (`together`)."""
    by_slug = {key.slug: key for key in keys.values()}
    by_words: dict[tuple[str, ...], list[Key]] = defaultdict(list)
    by_stem: dict[str, list[Key]] = defaultdict(list)
    tails: set[str] = set()
    for key in keys.values():
        tokens = key.tokens
        tails.update("-".join(tokens[i:]) for i in range(1, len(tokens) - 1))
        if len(tokens) >= 3 and key.type != "PERSON":
            by_words[tuple(sorted(tokens))].append(key)
        if len(tokens) >= 2 and tokens[-1] in PLURAL_CLASSES and key.type != "PERSON":
            by_stem["-".join(tokens[:-1])].append(key)
    out: list[Pair] = []
    for key in sorted(keys.values(), key=lambda k: k.id):
        tokens = key.tokens
        # (variant, target, reason, whether the two must be of one type rather than of one kind)
        found: list[tuple[Key, Key, str, bool]] = []
        if len(tokens) >= 3 and tokens[0] in FORMAL and tokens[1] == "of" and key.slug not in tails:
            short = by_slug.get("-".join(tokens[2:]))
            if short is not None:
                found.append((key, short, f"{key.surface} is the formal name of {short.surface}", True))
        if len(tokens) >= 2 and tokens[-1] in FEATURES and key.type == "LOC":
            short = by_slug.get("-".join(tokens[:-1]))
            if short is not None:
                found.append((short, key, f"{short.surface} is {key.surface} without its class word", True))
        if tokens[-1].endswith("s") and key.type != "PERSON":
            stem = "-".join([*tokens[:-1], tokens[-1][:-1]])
            nouns = [k for k in by_stem.get(stem, []) if k.type != "PERSON" and together(key, k)]
            if len(nouns) == 1:
                found.append((*_lighter(key, nouns[0]), f"{key.surface} is {nouns[0].surface} in the plural", False))
        if len(tokens) >= 3 and key.type != "PERSON":
            reordered = [k for k in by_words[tuple(sorted(tokens))] if k.id < key.id and together(key, k)]
            if len(reordered) == 1:
                other = reordered[0]
                found.append((*_lighter(key, other), f"{key.surface} is {other.surface} in another order", False))
        for variant, target, reason, one_type in found:
            shared = together(variant, target)
            if shared and (variant.type == target.type if one_type else same_kind(variant, target)):
                documents = "1 document" if shared == 1 else f"{shared} documents"
                out.append((variant.id, target.id, f"{reason} (both in {documents})"))
    return out


def _lighter(a: Key, b: Key) -> tuple[Key, Key]:
    """(variant, target): the form mentioned less joins the other."""
    return (a, b) if b.weight >= a.weight else (b, a)


#: Words that say the next name is another name of the one before ("The Catholic Church, also known as the Roman
#: Catholic Church"; "Great Britain (GB) or simply Britain"). Not "formerly known as", "later called", "renamed": a
#: former name may be another thing (a predecessor state, an earlier firm), so the adverb must be one of these;
#: and a comma or an adverb before "called" or "known as": "The Atlantic Magazine called Leiderman" is a verb.
_ALIAS = re.compile(
    r"\s*(?:\([^()]*\)\s*)?(?P<comma>,)?\s*(?:(?P<adverb>also|commonly|better|popularly|often|usually|officially)\s+)?"
    r"(?:(?:known|referred\s+to)\s+as|called|(?P<simply>or\s+simply))\s+(?:the\s+)?"
)

#: A word before the first name that makes it the end of a longer phrase: "... of Great Britain and Northern
#: Ireland, commonly known as the United Kingdom" names the whole, not "Northern Ireland".
_JOINING = frozenset({"and", "or", "of", "&", "for", "de", "in", "at"})
#: The name's first word may be capitalised and still open the phrase.
_ARTICLES = frozenset({"The", "A", "An"})


def alias_pairs(keys: dict[str, Key]) -> list[Pair]:
    """ "The Catholic Church, also known as the Roman Catholic Church": two names a sentence of a passage says are
    one thing's, by words that say so right between them (`_ALIAS`). The evidence is the text itself, so no rule of
    spelling is asked and the two may share no word; both must be names (capitalised), the first a whole phrase
    (`_JOINING`), the second not cut from a longer name, and of one kind (a place and a person never)."""
    in_document: dict[str, list[Key]] = defaultdict(list)
    sentences: dict[str, set[str]] = defaultdict(set)
    for key in keys.values():
        for document in key.documents:
            in_document[document].append(key)
        for document, sentence in key.sentences:
            if _SAYS_ALIAS.search(sentence):  # most say no other name: their documents' names are not looked up
                sentences[document].add(sentence)
    out: list[Pair] = []
    seen: set[tuple[str, str]] = set()
    for document in sorted(sentences):
        named = {s: k for k in in_document[document] for s in k.surfaces if s[:1].isupper()}
        for sentence in sorted(sentences[document]):
            for a, b, words in _aliases(sentence, named):
                if a.id != b.id and (a.id, b.id) not in seen and _kin(a, b) and not _one_persons_name(a, b):
                    seen.add((a.id, b.id))
                    variant, target = _lighter(a, b)
                    out.append((variant.id, target.id, f'{b.surface} is another name of {a.surface} ("{words}")'))
    return out


def _aliases(sentence: str, named: dict[str, Key], width: int = 160) -> list[tuple[Key, Key, str]]:
    """(first, second, the words from one to the other, at most `width` characters) for each "NAME, also known as
    NAME" in the sentence (one `_SAYS_ALIAS` finds), of the names `named` gives."""
    ends: dict[int, tuple[int, Key]] = {}  # where a name ends -> (where the longest one ending there starts, its key)
    for surface, key in named.items():
        for found in re.finditer(rf"(?<!\w){re.escape(surface)}(?!\w)", sentence):
            if found.end() not in ends or found.start() < ends[found.end()][0]:
                ends[found.end()] = (found.start(), key)
    out = []
    for end, (start, first) in sorted(ends.items()):
        said = _ALIAS.match(sentence, end)
        before = sentence[:start].split()
        if (
            said is None
            or not (said["comma"] or said["adverb"] or said["simply"])
            or (before and (before[-1].lower() in _JOINING or _opens_a_name(before[-1])))
        ):
            continue
        rest = sentence[said.end() :]
        second = max((s for s in named if rest.startswith(s)), key=len, default=None)
        if second is not None and not _CONTINUED.match(rest, len(second)):
            words = sentence[start : said.end() + len(second)]
            out.append((first, named[second], words if len(words) <= width else f"{words[: width - 3]}..."))
    return out


#: A cheap test before the names are looked for: most sentences say no other name.
_SAYS_ALIAS = re.compile(r"known as|called|or simply")
#: What after a name shows it was cut from a longer one: another capitalised word, or "of"/"and" and one.
_CONTINUED = re.compile(r"\w|\s+(?:(?:of|de|and|&)\s+)?[A-Z0-9]")


def _opens_a_name(word: str) -> bool:
    """A word before a name that makes it the end of a longer one: a capitalised word that is no article ("Roman"
    before "Catholic Church"), a number ("The 2018 Winter Olympics, officially known as the XXIII Olympic Winter
    Games": one of the Games, not all) or a dash ("The East -- West Schism")."""
    return (
        (word[:1].isupper() and word not in _ARTICLES) or any(c.isdigit() for c in word) or word[-1:] in "-\u2013\u2014"
    )


def _one_persons_name(a: Key, b: Key) -> bool:
    """Two person's names, one with the other's words and more ("Edward Snyder, also known as Edward J. Snyder"):
    the rules of a person's name read those, and joining them here again would make the fuller name a variant
    too, leaving "Snyder" alone no full name to join."""
    if a.type != "PERSON" or b.type != "PERSON":
        return False
    words_a, words_b = set(a.tokens), set(b.tokens)
    return words_a <= words_b or words_b <= words_a


def _kin(a: Key, b: Key) -> bool:
    """One kind (`same_kind`), or two place types (the tagger makes "Britain" GPE and "Great Britain" LOC)."""
    return same_kind(a, b) or {a.type, b.type} <= _PLACES
