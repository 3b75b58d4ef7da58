"""Offline community titles: the topics a community's passages talk about more than the rest of the graph does.

Why class-based TF-IDF over chunks: two member names ("Ed & Grumpy Cat") say who is in a community, not what it
is about, and a member's three description sentences are too little text to find its theme. The passages that
mention a community's members are what the community is about. Each community of a level is one class; its
text is every chunk that mentions one of its members, and the phrases counted are the topics those chunks
mention (the graph's own non-person entities: "machine learning", "Hurricane Irma", "Xerox PARC"; people are
the members the report lists beside the title, never a topic: at most its lead, below). A topic scores by how
many of the class's chunks mention it against how often every class of the level does (c-TF-IDF:
tf * log(1 + A / f), A the mean topic count per class, f the topic's count over all classes), so the host's
everyday words lose to what only this community discusses. A topic must be mentioned in at least two of the
community's chunks; a community with no such topic (two names met once) is titled by its best topic mentioned
once, and by its members only when its passages mention no topic at all.
A community that is one guest's conversation is led by that guest: "Lisa Su: AMD, hardware & compute" is how an
analyst knows that conversation, where "AMD, hardware & compute" alone could be anyone's. In a collection (at
least MIN_DOCUMENTS documents) the lead is the main person of the document most of the community's passages come
from: the person (not everywhere) mentioned in the most of its chunks, at least MAIN_SHARE of them (a document
whose guest the extractor missed has none). That document must hold DOCUMENT_SHARE of the passages ("Reid
Hoffman: RuneQuest, Putney School & Berkeley" is his youth, told in his episode), or its main person must be a
member who holds the community (LEAD_SHARE of its passages) or whose document holds half of them. Nobody else
leads: a person a guest talks about ("Marvin Minsky" in Danny Hillis's conversation, "Peter" of Reid Hoffman's
story) is a topic of the conversation, not whose it is; on ten episodes no rule was written from, such leads
were judged wrong. A community whose passages no document holds DOCUMENT_SHARE of, but two documents or more
hold PART_SHARE each, is a mix of conversations (Leiden joins two guests' talks on machine learning at the
higher levels): naming it after one guest tells an analyst only one of its parts, so it is led by its parts'
main people ("Andrew Ng & Daphne Koller: ..."; by nobody when a part has none), and a topic scores once per part
that mentions it, so the title names what the conversations share before what the larger one says most. Parts
that hold under MIX_COVER of the passages make no mix: the community is a hub of more conversations than its two
largest ("Microsoft, Google Brain & OpenAI" over four episodes, two of them half its passages), and naming two of
its people would hide the rest, so it keeps its topics. In one document (a novel) the lead is the person member
mentioned in the most of the community's chunks, at least LEAD_SHARE of them.
A person mentioned in more than LEAD_DOCUMENTS of the documents (a host, a narrator) is in one community per
level but talks in every conversation: the passages that mention them are not what their community is about,
so they count only when the community has no other passages (the host's hub is then titled by its guest's
topics, "Sam Altman: startups, Loopt & Y Combinator", not by the host's most frequent words).
Names met in one passage ("Ed & Grumpy Cat", "Judy Estrin & CTO Cisco") share no topic the graph knows: what
they have in common is what that passage talks about. Such a community (a person among its members, all of
them mentioned in at most FEW_PASSAGES chunks) is titled by the passage's own key phrases, the common-noun
phrases (spaCy noun chunks, names and everyday words cut) of the sentences that mention a member, ranked with
the graph's topics those chunks mention, both weighed against every chunk of the graph (tf * log(1 + N / df)):
"family pet", "CTO Cisco & serial entrepreneur". Things met in one passage without a person ("Copilot &
Windows", "Tron Legacy & Matrix") are their own topic and keep the topic title. The members are the report's
entity list, beside the title.
A community of several passages none of whose topics is mentioned in more than MIN_CHUNKS of them has no topic
the graph knows ("Neil Degrasse Tyson: curiosity & Bahamas", each named once in nine passages about scientists
as public figures): titling it by its rarest names says what was named in passing. Its title is led by the key
phrases its passages share, each weighed by how many of them say it, against every chunk of the graph, and by how
close it is in meaning to the passages as a whole (the cosine of the phrase's embedding to the mean of theirs):
"Neil Degrasse Tyson: science book, scientists & curiosity". Counts alone favour a rare aside ("budgets",
"certain issues"), closeness alone an everyday word ("book", "hobbies"); the product wants both. Without an
embedder such a community keeps its topics.
A collection of titled passages (an encyclopaedia's: "Gang Related\n\nGang Related is a 1997 American crime
thriller film ...") says what each passage is about in its first line. A community no person leads whose passages
come DOCUMENT_SHARE from one such document is led by that title, as a guest leads their conversation: the names
met in one passage ("James Belushi, Tupac Shakur, Dennis Quaid") are that passage's subject's, and its key phrases
("corrupt cops & crime thriller film") say what it is without naming it ("Gang Related: corrupt cops & crime
thriller film"). A document's title is its first line when a blank line follows it and it is short and no
sentence (TITLE_WORDS, no closing full stop); a transcript's first line is a speaker's turn or a stage direction
("[MUSIC]") and is no title, so conversations keep their guests. Documents of one title are one subject (an
article cut into several: "Crowne Plaza" three times), and a community led by a title is about that title's
passages: a stray passage Leiden joined to its names (Saint Barthélemy's climate beside the Euro's passages) does
not title it ("Euro: sole currency", not "... & rainy season"). A community no one leads whose passages are of
several subjects, most of them one kind of thing as their first sentences say ("WSME (1120 AM) is an Eastern North
Carolina radio station"), is led by that kind: "Radio stations: Wilmington, North Carolina & United States",
"Journals: Springer Science+Business Media" (title_kinds.py): what they share says where, the kind what they are.
A hub of many documents (no document holds PART_SHARE of its passages: an encyclopaedia's "British" community of
75 passages on airlines, colonies and royal houses) is about what most of its passages mention: a topic that
COMMON_SHARE of them mention comes first, place or not ("British, Jersey Airlines & Saxe - Coburg", "South Africa,
United Nations & ..."), where the rule above would put its rare names first. In a conversation places still come
last. A topic that is a piece of a longer name ("LLC", "-country skiers") or an everyday word capitalised
("Notes") names nothing (title_topics.py).
Titles are unique within a level: a title already taken there gets the next topic, then its main member.
"""

from __future__ import annotations

import html
import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from retrieval.indexing.communities import Community
from retrieval.indexing.entities import Entity
from retrieval.indexing.title_kinds import document_kinds, shared_kind
from retrieval.indexing.title_phrases import (
    BIGRAM_BOOST,
    PASSAGE_PHRASES,
    PHRASE_SHARE,
    STOP,
    central_phrases,
    distinct,
    passage_phrases,
)
from retrieval.indexing.title_topics import WORD, cut_names, everyday_words

PHRASES = 3
#: Topics after a lead person's name ("Lisa Su: AMD, hardware & compute").
LED_PHRASES = 3
#: In one document (a novel), a person leads a community whose chunks mention them in at least this share...
LEAD_SHARE = 0.3
#: ...and in at least this many chunks (a name met once, "Castle Wolfenstein" typed PERSON, leads nothing).
LEAD_MIN_CHUNKS = 3
#: A person mentioned in more than this share of a collection's documents is everywhere (a host, a narrator).
LEAD_DOCUMENTS = 0.34
#: A document's main person (its guest, its subject) is mentioned in at least this share of its chunks: a
#: conversation whose guest the extractor missed (a stage name it does not read as a person) has none, rather
#: than the person its guest mentions most ("Jimmy Iovine" of will.i.am's business stories).
MAIN_SHARE = 0.2
#: A community whose passages come this much from one document is part of that document's conversation, led by
#: its main person...
DOCUMENT_SHARE = 0.6
#: ...in a collection of at least this many documents (in one novel every passage is the same document's).
MIN_DOCUMENTS = 3
#: A community with no such document is a mix of conversations when each of two documents or more holds at least
#: this share of its passages: it is led by its parts' main people ("Andrew Ng & Daphne Koller: machine learning,
#: ..."), at most MAX_PARTS of them, and titled by the topics its parts share.
PART_SHARE = 0.2
MAX_PARTS = 3
#: ...when the parts hold this share of its passages at least: one whose passages come from more conversations
#: than its parts (two of four episodes hold half of "Microsoft, Google & OpenAI") is not theirs to lead.
MIX_COVER = 2 / 3
#: A topic mentioned in at least this share of the passages of a hub (passages of many documents) is what they share.
COMMON_SHARE = 0.5
#: Chunks of a community that must mention a topic for it to name the community.
MIN_CHUNKS = 2
#: Places, nationalities and languages say where a conversation happens, seldom what it is about ("Europe,
#: Japanese & Xerox", "Neil Degrasse Tyson: role model, Bronx & New York"): they count this much of a topic's
#: score, and come after every other topic mentioned in as many chunks (they fill a title only when the
#: community's passages have too few other topics: "North Carolina & Charlotte").
WHERE = frozenset({"GPE", "LOC", "NORP", "LANGUAGE", "FAC"})
WHERE_WEIGHT = 0.5
#: A title lists its topics with commas and "&": a topic with either in its name reads as two ("Brains, Machines &
#: biophysics background", a cut book title), so it names no community.
_LIST_MARKS = re.compile(r"[,&]")
#: A community whose members are mentioned in at most this many chunks is "names met in one passage".
FEW_PASSAGES = 3
#: A document's first line is its title ("Chi Chi (giant panda)") when a blank line follows it and it has at
#: most this many words, starts with a letter or digit and ends with no sentence mark (a few titles that end with
#: an abbreviation, "Tesla, Inc.", are lost with the sentences: "Joe met Ann." is none).
TITLE_WORDS = 10
_TITLE_LINE = re.compile(r"\A([^\W_][^\n]*?)[ \t]*\n[ \t]*\n")


class Topic(NamedTuple):
    """An entity a title may name: its title, its weight, and whether it says where (WHERE)."""

    title: str
    weight: float
    where: bool


def _topics(entities: Mapping[str, Entity]) -> dict[str, Topic]:
    """Entity id -> the entities a title may use: topics and names of things, not people (they are listed
    beside), nor a lone everyday word."""
    out: dict[str, Topic] = {}
    for key, entity in entities.items():
        lowered = entity.title.lower()
        if entity.type != "PERSON" and len(lowered) > 2 and lowered not in STOP and not _LIST_MARKS.search(lowered):
            where = entity.type in WHERE
            weight = (BIGRAM_BOOST if " " in lowered else 1.0) * (WHERE_WEIGHT if where else 1.0)
            out[key] = Topic(entity.title, weight, where)
    return out


def community_titles(
    tree: Sequence[Community],
    entities: Mapping[str, Entity],
    mentions: Iterable[Mapping[str, Any]],
    texts: Mapping[str, str] | None = None,
    embed: Callable[[Sequence[str]], np.ndarray] | None = None,
    *,
    asides: Mapping[str, frozenset[str]] | None = None,
    kinds: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """A title per community id of `tree`, unique within each level; `mentions` are the chunk -> entity rows
    (`chunk`, `entity`) the entities were resolved from, `texts` every chunk's text by id (without them a
    community met in one passage is titled by its topic mentioned once, or by its members), `embed` the graph's
    embedder (unit rows; without it a community whose topics are each named in passing keeps them), `asides` each
    entity's documents that mention it in passing (community_passing.py: no passage of theirs is about it),
    `kinds` the texts' `title_kinds.document_kinds` when the caller has parsed them already."""
    chunks_of: dict[str, set[str]] = defaultdict(set)
    for row in mentions:
        chunks_of[str(row["entity"])].add(str(row["chunk"]))
    own = _own_chunks(chunks_of, asides or {})
    topics = _topics(entities)
    named = {k: t.title for k, t in topics.items()}
    for key in cut_names(named, chunks_of, texts or {}) | everyday_words(named, (texts or {}).values()):
        del topics[key]
    topics_in: dict[str, set[str]] = defaultdict(set)
    for key in topics:
        for chunk in chunks_of.get(key, ()):
            topics_in[chunk].add(key)
    documents = {document_of(c) for chunks in chunks_of.values() for c in chunks}
    people = {key for key, entity in entities.items() if entity.type == "PERSON"}
    everywhere = {
        key
        for key in people
        if len({document_of(c) for c in chunks_of.get(key, ())}) > max(1.0, LEAD_DOCUMENTS * len(documents))
    }
    main_person = _main_people(people - everywhere, chunks_of) if len(documents) >= MIN_DOCUMENTS else {}
    titled = titled_documents(texts or {}) if len(documents) >= MIN_DOCUMENTS else {}
    named_documents = {document: title for document, (title, _rest) in titled.items()}
    kinds = (kinds if kinds is not None else document_kinds(titled)) if titled else {}
    by_level: dict[int, list[Community]] = defaultdict(list)
    for community in tree:
        by_level[community.level].append(community)
    passages = {c.id: _own(_passages(c.members, own, chunks_of, everywhere), named_documents) for c in tree}
    counts = {c.id: _counts(passages[c.id], topics_in) for c in tree}
    parts = {c.id: _parts(passages[c.id]) if len(documents) >= MIN_DOCUMENTS else [] for c in tree}
    few = [c for c in tree if len(passages[c.id]) <= FEW_PASSAGES and (people - everywhere).intersection(c.members)]
    chunk_count = max(1, len(texts or {}), len({c for chunks in chunks_of.values() for c in chunks}))
    phrases = passage_phrases(few, passages, entities, texts or {})
    for community in few:  # the graph's topics against the passage's phrases, weighed the same way
        for key, n in counts[community.id].items():
            title, weight, _where = topics[key]
            idf = math.log(1 + chunk_count / max(1, len(chunks_of.get(key, ()))))
            scores = phrases.setdefault(community.id, {})
            scores[title] = max(scores.get(title, 0.0), n * idf * weight)
    unnamed = [
        c
        for c in tree
        if c.id not in phrases
        and len(passages[c.id]) > FEW_PASSAGES
        and max(counts[c.id].values(), default=0) <= MIN_CHUNKS
    ]
    central = central_phrases(unnamed, passages, texts or {}, embed) if embed else {}
    titles: dict[str, str] = {}
    for level_communities in by_level.values():
        totals: Counter[str] = Counter()
        for community in level_communities:
            totals.update(counts[community.id])
        average = sum(totals.values()) / max(1, len(level_communities))
        taken: set[str] = set()
        for community in sorted(level_communities, key=lambda c: (-len(c.members), c.id)):
            if community.id in phrases:
                ranked = distinct(sorted(phrases[community.id], key=lambda p: (-phrases[community.id][p], p)))
                best = phrases[community.id][ranked[0]]
                ranked = [p for p in ranked[:PASSAGE_PHRASES] if phrases[community.id][p] >= PHRASE_SHARE * best]
            else:
                spread = _spread(passages[community.id], parts[community.id], topics_in)
                ranked = _ranked(counts[community.id], totals, average, topics, spread)
                common = _common(passages[community.id], counts[community.id], topics)
                ranked = distinct([*central.get(community.id, ()), *common, *ranked])
            if len(documents) < MIN_DOCUMENTS:
                leads = [_lead(community, passages[community.id], local=people - everywhere, chunks_of=chunks_of)]
            elif parts[community.id]:  # a mix of conversations: whose they are, not the loudest one's
                leads = [main_person.get(document, "") for document in parts[community.id]]
                leads = [] if len([k for k in leads if k]) < len(leads) else leads[:MAX_PARTS]
            else:
                leads = [_teller(community, passages[community.id], main_person, chunks_of)]
            lead = _format([entities[k].title for k in leads if k])
            if not lead and not parts[community.id]:
                lead = _subject(passages[community.id], named_documents) or _kind_of(
                    passages[community.id], named_documents, kinds
                )
            titles[community.id] = _unique(ranked, _main_members(community, entities), taken, lead)
    return titles


def _common(chunks: set[str], count: Counter[str], topics: Mapping[str, Topic]) -> list[str]:
    """The topics most of a hub's passages mention (COMMON_SHARE), most first: what the passages of many documents
    share ("British" of 75 of 90 passages on the British Empire, its airlines and colonies), place or not; none
    when the passages are few or one document holds PART_SHARE of them (a conversation: its places say where)."""
    if len(chunks) <= FEW_PASSAGES or max(Counter(document_of(c) for c in chunks).values()) >= PART_SHARE * len(chunks):
        return []
    found = [k for k in count if count[k] >= COMMON_SHARE * len(chunks)]
    return [topics[k].title for k in sorted(found, key=lambda k: (-count[k], topics[k].title))]


def _own_chunks(chunks_of: Mapping[str, set[str]], asides: Mapping[str, frozenset[str]]) -> dict[str, set[str]]:
    """Each entity's chunks but those of the documents that mention it in passing (`asides`)."""
    return {
        key: {c for c in chunks if document_of(c) not in asides[key]} if key in asides else chunks
        for key, chunks in chunks_of.items()
    }


def _passages(
    members: Iterable[str], own: Mapping[str, set[str]], chunks_of: Mapping[str, set[str]], everywhere: set[str]
) -> set[str]:
    """The chunks a community is about: those mentioning a member (`own`: not in passing), a host's only when there
    is nothing else, and those that mention one in passing only when none does more (`chunks_of`: every mention)."""
    for found in (own, chunks_of):
        chunks: set[str] = set()
        hosts: set[str] = set()
        for member in members:
            (hosts if member in everywhere else chunks).update(found.get(member, ()))
        if chunks or hosts:
            return chunks or hosts
    return set()


def _own(chunks: set[str], named_documents: Mapping[str, str]) -> set[str]:
    """The passages of the title DOCUMENT_SHARE of `chunks` come from (`_subject`), else `chunks`: a stray passage
    Leiden joins to a titled passage's names ("Saint Barthélemy"'s climate beside the Euro's) is not what the
    community is about, and its topics would title it ("Euro: sole currency & rainy season")."""
    title = _subject(chunks, named_documents)
    return {c for c in chunks if named_documents.get(document_of(c)) == title} if title else chunks


def _counts(chunks: Iterable[str], topics_in: Mapping[str, set[str]]) -> Counter[str]:
    """How many of the community's chunks mention each topic."""
    count: Counter[str] = Counter()
    for chunk in chunks:
        count.update(topics_in.get(chunk, ()))
    return count


def _parts(chunks: set[str]) -> list[str]:
    """The documents a mix of conversations is made of (see PART_SHARE), most passages first; none when one
    document holds DOCUMENT_SHARE of the passages (one conversation) or the passages are few."""
    if len(chunks) <= FEW_PASSAGES:
        return []
    # ties by document id: two parts of as many passages are named in the same order on every run
    ranked = sorted(Counter(document_of(c) for c in chunks).items(), key=lambda item: (-item[1], item[0]))
    if ranked[0][1] >= DOCUMENT_SHARE * len(chunks):
        return []
    found = [(document, n) for document, n in ranked if n >= max(LEAD_MIN_CHUNKS, PART_SHARE * len(chunks))]
    if sum(n for _document, n in found) < MIX_COVER * len(chunks):
        return []  # a hub of more conversations than its parts: naming two of them would mislead
    return [document for document, _n in found] if len(found) > 1 else []


def _spread(chunks: set[str], parts: Sequence[str], topics_in: Mapping[str, set[str]]) -> Counter[str]:
    """How many of a mix's parts mention each topic (empty for one conversation): the theme of a mix is what
    its conversations share, not what the largest one says most."""
    if not parts:
        return Counter()
    where: dict[str, set[str]] = defaultdict(set)
    for chunk in chunks:
        if document_of(chunk) in parts:
            for key in topics_in.get(chunk, ()):
                where[key].add(document_of(chunk))
    return Counter({key: len(documents) for key, documents in where.items()})


def _ranked(
    count: Counter[str],
    totals: Counter[str],
    average: float,
    topics: Mapping[str, Topic],
    spread: Mapping[str, int],
) -> list[str]:
    """Topic titles best first, places after the other topics; those mentioned once come only when no topic is
    mentioned in several chunks. In a mix of conversations a topic counts once per part that mentions it
    (`spread`)."""

    def score(key: str) -> float:
        return count[key] * math.log(1 + average / totals[key]) * topics[key].weight * max(1, spread.get(key, 1))

    shared = [k for k in count if count[k] >= MIN_CHUNKS]
    keys = shared or list(count)
    order = sorted(keys, key=lambda k: (topics[k].where, -score(k), topics[k].title))
    return distinct([topics[k].title for k in order])


def document_of(chunk: str) -> str:
    """The document a chunk id (`document:n`) belongs to."""
    return chunk.rsplit(":", 1)[0]


def _lead(community: Community, chunks: set[str], *, local: set[str], chunks_of: Mapping[str, set[str]]) -> str:
    """In one document (a novel, an article), the person member a community is about: the one mentioned in the
    most of its chunks, at least LEAD_SHARE of them; "" when there is none."""
    people = sorted((m for m in community.members if m in local), key=lambda m: (-len(chunks_of.get(m, ())), m))
    found = len(chunks_of.get(people[0], ())) if people else 0
    return people[0] if found >= LEAD_MIN_CHUNKS and found >= LEAD_SHARE * len(chunks) else ""


def _teller(
    community: Community, chunks: set[str], main_person: Mapping[str, str], chunks_of: Mapping[str, set[str]]
) -> str:
    """In a collection, whose conversation a community is: the main person of the document most of its passages
    come from, when that document holds DOCUMENT_SHARE of them, or when that person is a member and either holds
    the community (LEAD_SHARE of its passages) or their document holds half of them ("Eric Horvitz" among the
    topics of his talk that other episodes mention too); "" when the passages are few or there is no such
    person. Nobody else leads: a person a guest talks about ("Marvin Minsky" in Danny Hillis's conversation) is
    a topic of that conversation, not whose it is, and a guest who is one member of a hub of several
    conversations ("Bill Gates" in OpenAI's, a third of it his) is not whose the hub is."""
    if len(chunks) <= FEW_PASSAGES:
        return ""
    count = Counter(document_of(c) for c in chunks)
    document = min(count, key=lambda d: (-count[d], d))
    person = main_person.get(document, "")
    if not person or count[document] >= DOCUMENT_SHARE * len(chunks):
        return person
    holds = len(chunks_of.get(person, ())) >= LEAD_SHARE * len(chunks) or 2 * count[document] >= len(chunks)
    return person if person in community.members and holds else ""


def _main_people(local: set[str], chunks_of: Mapping[str, set[str]]) -> dict[str, str]:
    """Document -> the person (entity id) mentioned in the most of its chunks, at least LEAD_MIN_CHUNKS and
    MAIN_SHARE of them, of those not everywhere: a conversation's guest, an article's subject."""
    size: Counter[str] = Counter(document_of(c) for c in {c for chunks in chunks_of.values() for c in chunks})
    found: dict[str, Counter[str]] = defaultdict(Counter)
    for key in local:
        for chunk in chunks_of.get(key, ()):
            found[document_of(chunk)][key] += 1
    main: dict[str, str] = {}
    for document, people in found.items():
        key, n = min(people.items(), key=lambda item: (-item[1], item[0]))
        if n >= max(LEAD_MIN_CHUNKS, MAIN_SHARE * size[document]):
            main[document] = key
    return main


def titled_documents(texts: Mapping[str, str]) -> dict[str, tuple[str, str]]:
    """Document -> its title, the first line of its first chunk when that line is one (see TITLE_WORDS), and the
    text after that line (where an encyclopaedia says what its subject is: title_kinds.py)."""
    first: dict[str, tuple[int, str]] = {}
    for chunk, text in texts.items():
        document, _sep, index = chunk.rpartition(":")
        n = int(index) if index.isdigit() else 0
        if document not in first or n < first[document][0]:
            first[document] = (n, text)
    titles: dict[str, tuple[str, str]] = {}
    for document, (_n, text) in first.items():
        found = _TITLE_LINE.match(text)
        line = html.unescape(found.group(1)).strip() if found else ""  # "Music &amp; Arts Festival"
        if found and line and len(line.split()) <= TITLE_WORDS and not line.endswith((".", "!", "?", ":", ";", ",")):
            titles[document] = (line, text[found.end() :])
    return titles


def _kind_of(chunks: set[str], named_documents: Mapping[str, str], kinds: Mapping[str, str]) -> str:
    """The kind of thing most of the subjects of a community's passages are (their documents' titles, `kinds` by
    title: title_kinds.shared_kind), as a lead ("Radio stations"); "" when there is none."""
    kind = shared_kind({named_documents.get(document_of(c), document_of(c)) for c in chunks}, kinds)
    return kind[:1].upper() + kind[1:]


def _subject(chunks: set[str], named_documents: Mapping[str, str]) -> str:
    """The title DOCUMENT_SHARE of a community's passages come from, passages of documents of one title counted
    together (an encyclopaedia's article may be several documents, "Crowne Plaza" three); "" when there is none."""
    if not chunks or not named_documents:
        return ""
    count = Counter(named_documents.get(document_of(c), "") for c in chunks)
    title = min(count, key=lambda t: (-count[t], t))
    return title if count[title] >= DOCUMENT_SHARE * len(chunks) else ""


def _main_members(community: Community, entities: Mapping[str, Entity]) -> list[str]:
    present = [entities[m] for m in community.members if m in entities]
    return [e.title for e in sorted(present, key=lambda e: (-e.mentions, e.title))]


def _unique(ranked: list[str], members: list[str], taken: set[str], lead: str = "") -> str:
    """'topic, topic & topic' (after 'Lead: ' when a person or a document's title leads), made unique within the
    level by more topics, then by the main member. A topic whose words are all the lead's says nothing the lead
    does not ("Five Pieces for Orchestra: Orchestra", "Double Agent 73: Double Agent & ..."): it is left out of
    the lead's topics, and no other takes its place (the next would be weaker, often a filler: "United States")."""
    ranked = [t for t in ranked if t != lead]
    if lead and ranked:
        said = set(WORD.findall(lead.lower()))
        said |= {word.removesuffix("s") for word in said}  # a kind leads in the plural: "Drama films", "drama film"
        more = range(max(1, len(ranked) - LED_PHRASES + 1))
        new = [t for t in ranked if not set(WORD.findall(t.lower())) <= said]
        shown = ([t for t in ranked[: LED_PHRASES + extra] if t in new] for extra in more)
        candidates = [f"{lead}: {_format(topics)}" if topics else lead for topics in shown]
    elif lead:
        candidates = [lead, *(f"{lead} & {_format(members[1:n])}" for n in range(2, len(members) + 1))]
    else:
        candidates = [_format(ranked[: PHRASES + extra]) for extra in range(max(1, len(ranked) - PHRASES + 1))]
    if not ranked and not lead:  # passages that mention no topic: the members are all there is to say
        candidates = [_format(members[:n]) for n in range(2, len(members) + 1)] or [_format(members[:1])]
    candidates += [f"{candidates[0]} ({m})" for m in members[:1] if ranked]
    for title in candidates:
        if title not in taken:
            taken.add(title)
            return title
    n = 2
    while f"{candidates[0]} {n}" in taken:
        n += 1
    taken.add(f"{candidates[0]} {n}")
    return f"{candidates[0]} {n}"


def _format(phrases: list[str]) -> str:
    if len(phrases) <= 1:
        return "".join(phrases)
    return ", ".join(phrases[:-1]) + f" & {phrases[-1]}"
