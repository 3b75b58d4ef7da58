"""Offline community titles (retrieval/indexing/titles.py): the topics a community's passages mention more than
the rest of the graph's do, led by the one person a community is about (never a host), unique within a level;
names met in one passage titled by that passage's key phrases."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from retrieval.indexing.communities import Community
from retrieval.indexing.entities import Entity
from retrieval.indexing.title_topics import cut_names, everyday_words
from retrieval.indexing.titles import community_titles


def _entity(key: str, title: str, kind: str = "CONCEPT", mentions: int = 2) -> Entity:
    return Entity(key, title, kind, ((f"{title} was discussed.", f"d:{key}:0"),), mentions=mentions)


ENTITIES = {
    e.id: e
    for e in (
        _entity("su", "Lisa Su", "PERSON", 9),
        _entity("amd", "AMD", "ORG", 8),
        _entity("chips", "graphics chips"),
        _entity("dc", "data center"),
        _entity("mae", "Mae Jemison", "PERSON", 7),
        _entity("nasa", "NASA", "ORG", 5),
        _entity("shuttle", "space shuttle"),
        _entity("ai", "AI"),  # the host's topic: in every community's passages
        _entity("ed", "Ed", "PERSON"),
        _entity("cat", "Grumpy Cat", "PERSON"),
        _entity("memes", "internet memes"),
        _entity("joe", "Joe", "PERSON"),
        _entity("ann", "Ann", "PERSON"),
    )
}


def _mentions(chunks: dict[str, list[str]]) -> list[dict[str, str]]:
    return [{"chunk": chunk, "entity": entity} for chunk, entities in chunks.items() for entity in entities]


CHUNKS = {
    "a:1": ["su", "amd", "chips", "ai"],
    "a:2": ["su", "chips", "dc"],
    "a:3": ["amd", "dc", "ai"],
    "b:1": ["mae", "nasa", "shuttle", "ai"],
    "b:2": ["mae", "shuttle", "ai"],
    "b:3": ["nasa", "ai"],
    "c:1": ["ed", "cat", "memes"],
    "d:1": ["joe", "ann"],
}


def test_a_title_is_the_topics_its_passages_mention_more_than_the_rest_and_names_no_person() -> None:
    tree = [
        Community("chips", 0, ("su", "amd", "chips", "dc"), ()),
        Community("space", 0, ("mae", "nasa", "shuttle", "ai"), ()),
    ]
    titles = community_titles(tree, ENTITIES, _mentions(CHUNKS))
    # few passages: the two best topics ("X & Y"); more: three ("X, Y & Z")
    assert titles["chips"].replace(" &", ",").startswith(("graphics chips, data center", "data center, graphics chips"))
    assert titles["space"].startswith("space shuttle"), titles
    # AI is in the space community and in its every passage, but the chips passages mention it too
    assert not titles["space"].startswith("AI"), titles
    assert not any(name in title for title in titles.values() for name in ("Lisa Su", "Mae Jemison")), titles


def test_two_names_met_once_are_titled_by_what_their_passage_is_about_not_by_the_names() -> None:
    tree = [Community("pair", 0, ("ed", "cat"), ()), Community("chips", 0, ("su", "amd"), ())]
    titles = community_titles(tree, ENTITIES, _mentions(CHUNKS))
    assert titles["pair"] == "internet memes", titles


def test_passages_without_any_topic_leave_only_the_members_to_name() -> None:
    titles = community_titles([Community("d", 0, ("joe", "ann"), ())], ENTITIES, _mentions(CHUNKS))
    assert titles["d"] == "Ann & Joe", titles


def test_titles_are_unique_within_a_level_and_may_repeat_across_levels() -> None:
    tree = [
        Community("a", 0, ("su",), ()),  # the same passages as "b": the same topics
        Community("b", 0, ("su", "chips"), ()),
        Community("top", 1, ("su", "chips"), ("a", "b")),
    ]
    titles = community_titles(tree, ENTITIES, _mentions(CHUNKS))
    assert titles["a"] != titles["b"], titles
    assert "Lisa Su" in titles["a"] + titles["b"]  # the second one is told apart by its main member
    assert titles["top"] in (titles["a"], titles["b"]), titles


def test_a_person_who_holds_a_community_leads_its_title_but_a_host_in_every_document_does_not() -> None:
    """Lisa Su is in three of her community's four passages and in one document of four: "Lisa Su: ...". The
    host is in as many of his community's passages but in every document: his community keeps its topics."""
    people = {
        **ENTITIES,
        "host": _entity("host", "Kevin Scott", "PERSON", 8),
        "radio": _entity("radio", "radio shows"),
    }
    chunks = {
        "a:1": ["su", "amd", "chips", "host"],
        "a:2": ["su", "chips", "dc"],
        "a:3": ["su", "dc", "amd"],
        "a:4": ["amd", "dc"],
        "b:1": ["mae", "nasa", "shuttle", "host", "radio"],
        "c:1": ["ed", "cat", "memes", "host", "radio"],
        "d:1": ["joe", "ann", "host", "radio"],
    }
    tree = [Community("chips", 0, ("su", "amd", "chips", "dc"), ()), Community("show", 0, ("host", "radio"), ())]
    titles = community_titles(tree, people, _mentions(chunks))
    assert titles["chips"].startswith("Lisa Su: "), titles
    assert "Lisa Su" not in titles["chips"].removeprefix("Lisa Su: "), titles
    assert "Kevin Scott" not in titles["show"] and titles["show"].startswith("radio shows"), titles


def test_names_met_in_one_passage_are_titled_by_that_passages_own_key_phrase() -> None:
    """Ed and Grumpy Cat share no topic the graph knows; the sentence that mentions them is about a family pet
    (everyday words, names and stop words cut from the noun chunks), weighed against the other passages."""
    texts = {
        "c:1": "I would write a show with the typical trope of the talking family pet, like Mr. Ed. "
        "But Grumpy Cat, may she rest in peace, was maybe happy.",
        "a:1": "Lisa Su talked about graphics chips and the family business at AMD.",
        "a:2": "The data center needs graphics chips.",
    }
    chunks = {"c:1": ["ed", "cat"], "a:1": ["su", "amd", "chips"], "a:2": ["chips", "dc"]}
    tree = [Community("pair", 0, ("ed", "cat"), ()), Community("chips", 0, ("su", "amd", "chips", "dc"), ())]
    titles = community_titles(tree, ENTITIES, _mentions(chunks), texts)
    assert titles["pair"] == "family pet", titles
    assert titles["chips"] != "family pet", titles


def test_a_host_in_every_document_does_not_title_his_hub_its_guest_leads_it() -> None:
    """The host is mentioned in every passage of every document; his community's passages are its guest's."""
    people = {
        **ENTITIES,
        "host": _entity("host", "Kevin Scott", "PERSON", 20),
        "sam": _entity("sam", "Sam Altman", "PERSON", 6),
        "yc": _entity("yc", "Y Combinator", "ORG", 3),
        "radio": _entity("radio", "radio shows"),
    }
    chunks = {
        **{f"{d}:{i}": ["host", "radio"] for d in "bcd" for i in range(4)},
        "a:1": ["host", "sam", "yc"],
        "a:2": ["host", "sam", "yc"],
        "a:3": ["host", "sam", "startups"],
        "a:4": ["host", "sam"],
    }
    people["startups"] = _entity("startups", "startups")
    tree = [
        Community("hub", 0, ("host", "sam", "yc", "startups"), ()),
        Community("show", 0, ("radio",), ()),
    ]
    titles = community_titles(tree, people, _mentions(chunks))
    # without the rule, the hub's passages are every passage and its title "radio shows, Y Combinator & ..."
    assert titles["hub"].startswith("Sam Altman: Y Combinator"), titles
    assert "radio shows" not in titles["hub"], titles


#: Reid Hoffman's episode ("r") beside one passage each of two other documents.
REID_EPISODE = {**{f"r:{i}": ["reid", "amd"] for i in range(5)}, "b:1": ["mae", "nasa"], "c:1": ["su", "chips"]}
REID_AND_OTHERS = (
    Community("reid", 0, ("reid", "amd"), ()),
    Community("space", 0, ("mae", "nasa"), ()),
    Community("chips", 0, ("su", "chips"), ()),
)


def test_a_part_of_one_documents_conversation_is_led_by_that_documents_main_person() -> None:
    """No member leads the youth community, but its passages are all from Reid's episode: "Reid Hoffman: ..."."""
    people = {
        **ENTITIES,
        "reid": _entity("reid", "Reid Hoffman", "PERSON", 9),
        "rq": _entity("rq", "RuneQuest", "ORG", 3),
        "putney": _entity("putney", "Putney School", "ORG", 3),
    }
    chunks = {**REID_EPISODE, "r:6": ["rq", "putney"], "r:7": ["rq", "putney"], "r:8": ["rq"], "r:9": ["putney"]}
    tree = [Community("youth", 0, ("rq", "putney"), ()), *REID_AND_OTHERS]
    titles = community_titles(tree, people, _mentions(chunks))
    assert titles["youth"].startswith("Reid Hoffman: "), titles
    assert "RuneQuest" in titles["youth"] and "Putney School" in titles["youth"], titles


def test_a_person_the_guest_talks_about_does_not_lead_a_part_of_the_guests_conversation() -> None:
    """ "Peter" or "Peter Thiel" holds a community of Reid's episode: it is Reid's story, "Reid Hoffman: ...". A
    person a guest talks about is a topic of the conversation, not whose it is ("Marvin Minsky" in Danny Hillis's
    episode, judged wrong as a lead on unseen episodes)."""
    chunks = {**REID_EPISODE, **{f"r:{i}": ["peter", "paypal"] for i in range(5, 9)}}
    tree = [Community("story", 0, ("peter", "paypal"), ()), *REID_AND_OTHERS]
    for name in ("Peter", "Peter Thiel"):
        people = {
            **ENTITIES,
            "reid": _entity("reid", "Reid Hoffman", "PERSON", 9),
            "peter": _entity("peter", name, "PERSON", 4),
            "paypal": _entity("paypal", "PayPal", "ORG", 4),
        }
        titles = community_titles(tree, people, _mentions(chunks))
        assert titles["story"].startswith("Reid Hoffman: ") and "PayPal" in titles["story"], titles


def _talk(guest_in_community: bool) -> dict[str, str]:
    """Eric's episode ("h", 6 passages about biology and Microsoft, Eric named in 3) beside 5 passages of three
    other episodes on the same topics (too few each to make a mix): his is 6 of the community's 11 passages,
    under DOCUMENT_SHARE."""
    people = {
        **ENTITIES,
        "eric": _entity("eric", "Eric Horvitz", "PERSON", 3),
        "bio": _entity("bio", "biology"),
        "ms": _entity("ms", "Microsoft", "ORG", 11),
    }
    chunks = {
        **{f"h:{i}": ["bio", "ms", *(["eric"] if i < 3 else [])] for i in range(6)},
        **{f"{d}:{i}": ["bio", "ms"] for d, n in (("x", 2), ("y", 2), ("z", 1)) for i in range(n)},
        **{f"{d}:1": ["memes"] for d in "cdef"},
    }
    members = ("bio", "ms", "eric") if guest_in_community else ("bio", "ms")
    tree = [Community("talk", 0, members, ()), Community("pet", 0, ("memes",), ())]
    if not guest_in_community:
        tree.append(Community("guest", 0, ("eric",), ()))
    return community_titles(tree, people, _mentions(chunks))


def test_a_guest_in_a_community_half_of_his_conversation_leads_it() -> None:
    """Half the passages are Eric's and he is a member: his conversation, "Eric Horvitz: ..."; the same passages
    without him among the members are nobody's."""
    assert _talk(guest_in_community=True)["talk"].startswith("Eric Horvitz: "), _talk(True)
    assert ":" not in _talk(guest_in_community=False)["talk"], _talk(False)


def test_a_document_whose_most_named_person_is_in_few_of_its_passages_has_no_main_person() -> None:
    """The guest of episode "w" is no entity (a stage name the extractor misses); the person the guest mentions
    most, in 3 of its 20 passages, is not whose conversation it is. In 5 of 20 he is its main person."""
    for named, lead in ((3, ""), (5, "Jimmy Iovine: ")):
        people = {**ENTITIES, "jimmy": _entity("jimmy", "Jimmy Iovine", "PERSON", named)}
        people["fyi"] = _entity("fyi", "FYI", "ORG", 20)
        chunks = {
            **{f"w:{i}": ["fyi", *(["jimmy"] if i < named else [])] for i in range(20)},
            **{f"{d}:1": ["memes"] for d in "cdef"},
        }
        tree = [Community("w", 0, ("fyi",), ()), Community("j", 0, ("jimmy",), ()), Community("pet", 0, ("memes",), ())]
        title = community_titles(tree, people, _mentions(chunks))["w"]
        assert title.startswith(lead) and (lead or ":" not in title), (named, title)


def test_a_topic_whose_name_has_a_comma_or_ampersand_never_names_a_community() -> None:
    """ "Brains, Machines" (a cut book title) would read as two topics of the list."""
    people = {
        **ENTITIES,
        "bm": _entity("bm", "Brains, Machines", "ORG", 3),
        "rd": _entity("rd", "R&D", "ORG", 3),
        "bp": _entity("bp", "biophysics"),
    }
    chunks = {f"h:{i}": ["bm", "rd", "bp"] for i in range(3)} | {"a:1": ["amd"], "b:1": ["nasa"]}
    tree = [Community("read", 0, ("bm", "rd", "bp"), ()), Community("chips", 0, ("amd", "nasa"), ())]
    assert community_titles(tree, people, _mentions(chunks))["read"] == "biophysics"


def test_a_lone_noun_of_the_passage_does_not_join_the_topic_it_mentions() -> None:
    """Murray Perahia and Chopin: the passage's topic is Chopin; "assertion" is a word of it, not its subject."""
    people = {**ENTITIES, "mp": _entity("mp", "Murray Perahia", "PERSON"), "chopin": _entity("chopin", "Chopin", "ORG")}
    texts = {"p:1": "Murray Perahia plays Chopin, and I make the assertion that Chopin is hard.", "a:1": "AMD chips."}
    chunks = {"p:1": ["mp", "chopin"], "a:1": ["amd"]}
    tree = [Community("piano", 0, ("mp", "chopin"), ()), Community("chips", 0, ("amd",), ())]
    assert community_titles(tree, people, _mentions(chunks), texts)["piano"] == "Chopin"


def test_places_come_after_the_topics_of_a_conversation_but_lead_a_hub_whose_passages_most_name_them() -> None:
    """A place mentioned in every passage ("Bronx") says where a conversation happens: it follows a topic
    mentioned in fewer of them ("telescopes"), which it outscores where topics are common (a large community
    beside); a community whose passages name only places keeps them. Passages of many documents (an
    encyclopaedia's hub) that mostly mention "British" are about the British Empire's things: "British" leads."""
    entities = {
        **ENTITIES,
        "bronx": _entity("bronx", "Bronx", "GPE"),
        "charlotte": _entity("charlotte", "Charlotte", "GPE"),
        "nc": _entity("nc", "North Carolina", "GPE"),
        "scopes": _entity("scopes", "telescopes"),
        **{f"x{i}": _entity(f"x{i}", f"topic {i}") for i in range(4)},
        "british": _entity("british", "British", "NORP"),
        "jersey": _entity("jersey", "Jersey Airlines", "ORG"),
        "saxe": _entity("saxe", "Saxe-Coburg", "ORG"),
        "tea": _entity("tea", "tea trade"),
    }
    chunks = {
        **CHUNKS,
        **{f"g:{i}": ["x0", "x1", "x2", "x3"] for i in range(60)},  # a large community: topics are common
        "e:1": ["bronx", "scopes"],
        "e:2": ["bronx", "scopes"],
        "e:3": ["bronx"],
        "e:4": ["bronx"],
        "e:5": ["bronx"],
        "e:6": ["bronx"],
        "f:1": ["nc", "charlotte"],
        "f:2": ["nc", "charlotte"],
        **{f"h{i}:0": ["british", "jersey" if i < 2 else "saxe"] for i in range(4)},  # four documents
        "h4:0": ["tea"],
        "h5:0": ["tea"],
    }
    tree = [
        Community("sky", 0, ("bronx", "scopes"), ()),
        Community("trip", 0, ("nc", "charlotte"), ()),
        Community("chips", 0, ("su", "amd", "chips", "dc"), ()),
        Community("big", 0, ("x0", "x1", "x2", "x3"), ()),
        Community("hub", 0, ("british", "jersey", "saxe", "tea"), ()),
    ]
    titles = community_titles(tree, entities, _mentions(chunks))
    assert titles["sky"] == "telescopes & Bronx", titles  # Bronx still named, after the topic
    assert titles["hub"].startswith("British, "), titles
    assert set(titles["trip"].replace(" &", ",").split(", ")) == {"North Carolina", "Charlotte"}, titles


def test_a_mix_of_two_conversations_is_led_by_both_and_titled_by_the_topic_they_share() -> None:
    """Andrew's episode ("n") and Daphne's ("k") fell into one community: neither holds 60% of its passages, so
    it is led by both and its first topic is the one both talk about ("machine learning"), not the loudest
    one's ("Google Brain", tied on chunks); a member both conversations talk about is no guest and leads neither."""
    chunks = {
        **{f"n:{i}": ["andrew", "brain"] for i in range(4)},
        **{f"n:{i}": ["andrew", "ml"] for i in (4, 5)},
        **{f"k:{i}": ["daphne", "bio"] for i in range(3)},
        **{f"k:{i}": ["daphne", "ml"] for i in (3, 4)},
        "b:1": ["mae", "nasa"],
        "b:2": ["mae", "shuttle"],
        "b:3": ["nasa", "shuttle"],
        **{f"{d}:1": ["memes"] for d in "cdef"},  # enough documents that two of them are not "everywhere"
    }
    people = {
        **ENTITIES,
        "andrew": _entity("andrew", "Andrew Ng", "PERSON", 6),
        "daphne": _entity("daphne", "Daphne Koller", "PERSON", 5),
        "charles": _entity("charles", "Charles Simonyi", "PERSON", 8),
        "brain": _entity("brain", "Google Brain", "ORG", 4),
        "bio": _entity("bio", "biology"),
        "ml": _entity("ml", "machine learning"),
    }
    members = ("andrew", "daphne", "brain", "bio", "ml")
    tree = [Community("mix", 0, members, ()), Community("space", 0, ("mae", "nasa", "shuttle"), ())]
    titles = community_titles(tree, people, _mentions(chunks))
    assert titles["mix"].startswith("Andrew Ng & Daphne Koller: machine learning, "), titles
    talked_about = {**chunks, **{c: [*chunks[c], "charles"] for c in ("n:0", "n:1", "n:2", "n:3", "k:0", "k:1", "k:2")}}
    tree = [Community("mix", 0, (*members, "charles"), ()), tree[1]]
    titles = community_titles(tree, people, _mentions(talked_about))
    assert titles["mix"].startswith("Andrew Ng & Daphne Koller: machine learning, "), titles


def test_a_mix_with_a_part_whose_guest_is_no_entity_is_led_by_nobody() -> None:
    """Andrew's episode ("n") and one whose guest the extractor missed ("w": no person in it) fell into one
    community: naming Andrew alone would say it is his, so nobody leads it."""
    chunks = {
        **{f"n:{i}": ["andrew", "ml"] for i in range(4)},
        **{f"w:{i}": ["ml", "bio"] for i in range(4)},
        **{f"{d}:1": ["memes"] for d in "cdef"},
    }
    people = {
        **ENTITIES,
        "andrew": _entity("andrew", "Andrew Ng", "PERSON", 4),
        "ml": _entity("ml", "machine learning"),
    }
    people["bio"] = _entity("bio", "biology")
    tree = [Community("mix", 0, ("andrew", "ml", "bio"), ()), Community("pet", 0, ("memes",), ())]
    title = community_titles(tree, people, _mentions(chunks))["mix"]
    assert ":" not in title and title.startswith("machine learning"), title


def _hub_chunks(others: int) -> dict[str, list[str]]:
    """Andrew's ("n") and Daphne's ("k") four passages each about Microsoft, and `others` more episodes of two."""
    return {
        **{f"n:{i}": ["andrew", "ms", "brain"] for i in range(4)},
        **{f"k:{i}": ["daphne", "ms", "bio"] for i in range(4)},
        **{f"{d}:{i}": ["ms", "openai"] for d in "xyz"[:others] for i in range(2)},
        **{f"{d}:1": ["memes"] for d in "cdef"},  # enough documents that Andrew and Daphne are not "everywhere"
    }


HUB_PEOPLE = {
    **ENTITIES,
    "andrew": _entity("andrew", "Andrew Ng", "PERSON", 4),
    "daphne": _entity("daphne", "Daphne Koller", "PERSON", 4),
    "ms": _entity("ms", "Microsoft", "ORG", 14),
    "openai": _entity("openai", "OpenAI", "ORG", 6),
    "brain": _entity("brain", "Google Brain", "ORG", 4),
    "bio": _entity("bio", "biology"),
}


def test_a_hub_of_more_conversations_than_its_two_largest_is_not_led_by_those_two() -> None:
    """Two episodes hold 8 of the hub's 14 passages, three more hold the rest: naming Andrew's and Daphne's
    conversations would hide the others, so the hub keeps its topics; with one more episode of two passages
    (8 of 10) it is their mix and both lead."""
    members = ("andrew", "daphne", "ms", "openai", "brain", "bio")
    tree = [Community("hub", 0, members, ())]
    titles = community_titles(tree, HUB_PEOPLE, _mentions(_hub_chunks(3)))
    assert ":" not in titles["hub"] and titles["hub"].startswith("Microsoft"), titles
    titles = community_titles(tree, HUB_PEOPLE, _mentions(_hub_chunks(1)))
    lead, _, topics = titles["hub"].partition(": ")
    assert set(lead.split(" & ")) == {"Andrew Ng", "Daphne Koller"} and topics.startswith("Microsoft"), titles


def test_two_parts_of_as_many_passages_are_named_in_the_same_order_on_every_run() -> None:
    """Which of two equal parts is named first must not follow Python's string hashing (PYTHONHASHSEED): a
    rebuilt graph would get another title for the same community, and its labels would no longer match."""
    script = (
        "import sys; sys.path.insert(0, 'tests'); import test_titles as t; "
        "from retrieval.indexing.communities import Community; "
        "tree = [Community('hub', 0, ('andrew', 'daphne', 'ms', 'brain', 'bio'), ())]; "
        "print(t.community_titles(tree, t.HUB_PEOPLE, t._mentions(t._hub_chunks(0)))['hub'])"
    )
    root = Path(__file__).resolve().parents[1]
    seen = {
        subprocess.run(
            [sys.executable, "-c", script],
            cwd=root,
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        for seed in range(6)
    }
    assert len(seen) == 1 and " & " in next(iter(seen)).partition(":")[0], seen


def _stems(text: str) -> list[str]:
    return [word.removesuffix("s") for word in re.findall(r"[a-z]+", text.lower())]


def _word_vectors(texts: Sequence[str]) -> np.ndarray:
    """A stand-in embedder: each text's words (plurals folded) counted over the test's words, as unit rows."""
    vocabulary = sorted({stem for text in SCIENCE_TEXTS.values() for stem in _stems(text)})
    rows = np.array([[_stems(text).count(stem) for stem in vocabulary] for text in texts], dtype=np.float32)
    return rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12)


SCIENCE_TEXTS = {
    "s:1": "Famous scientists like him spoke to Congress about the budgets.",
    "s:2": "Scientists were public figures then, and the scientists wrote books.",
    "s:3": "People trusted scientists, even on a trip to the Bahamas.",
    "s:4": "We talked about scientists and their curiosity for hours.",
    "a:1": "Lisa Su talked about graphics chips at AMD.",
    "a:2": "The data center needs graphics chips.",
    "a:3": "AMD sells chips to the data center.",
}


def test_a_community_whose_topics_are_each_named_in_passing_is_titled_by_the_phrase_its_passages_share() -> None:
    """Four passages about scientists as public figures, each naming one thing in passing (Congress, the Bahamas,
    curiosity): no topic is in more than one of them, so its title leads with what they all say, "scientists";
    without an embedder it keeps the things named. A community with a topic in three passages is left alone."""
    entities = {
        **ENTITIES,
        "congress": _entity("congress", "Congress", "ORG"),
        "bahamas": _entity("bahamas", "Bahamas", "GPE"),
        "curiosity": _entity("curiosity", "curiosity"),
        "books": _entity("books", "Sagan books", "WORK_OF_ART"),
    }
    chunks = {
        "s:1": ["congress"],
        "s:2": ["books"],
        "s:3": ["bahamas"],
        "s:4": ["curiosity"],
        "a:1": ["su", "amd", "chips"],
        "a:2": ["chips", "dc"],
        "a:3": ["amd", "chips", "dc"],
    }
    tree = [
        Community("sci", 0, ("congress", "bahamas", "curiosity", "books"), ()),
        Community("chips", 0, ("su", "amd", "chips", "dc"), ()),
    ]
    titles = community_titles(tree, entities, _mentions(chunks), SCIENCE_TEXTS, _word_vectors)
    assert titles["sci"].startswith("scientists, "), titles
    assert titles["chips"] == community_titles(tree, entities, _mentions(chunks), SCIENCE_TEXTS)["chips"], titles
    assert "scientists" not in community_titles(tree, entities, _mentions(chunks), SCIENCE_TEXTS)["sci"]


def test_each_passage_and_phrase_is_embedded_once_for_every_community_it_titles() -> None:
    """A community that splits no further is its own parent at the next level: both are titled by their passages'
    shared phrases, from one embedding of each passage and each phrase (the pipeline answers the passages from
    the chunk vectors it has), and the two get the titles each would get alone."""
    entities = {
        **ENTITIES,
        "congress": _entity("congress", "Congress", "ORG"),
        "bahamas": _entity("bahamas", "Bahamas", "GPE"),
        "curiosity": _entity("curiosity", "curiosity"),
        "books": _entity("books", "Sagan books", "WORK_OF_ART"),
    }
    chunks = {"s:1": ["congress"], "s:2": ["books"], "s:3": ["bahamas"], "s:4": ["curiosity"], "a:1": ["su", "amd"]}
    members = ("congress", "bahamas", "curiosity", "books")
    tree = [Community("sci", 0, members, (), "sci-up"), Community("sci-up", 1, members, ("sci",))]
    embedded: list[str] = []

    def counting(texts: Sequence[str]) -> np.ndarray:
        embedded.extend(texts)
        return _word_vectors(texts)

    titles = community_titles(tree, entities, _mentions(chunks), SCIENCE_TEXTS, counting)
    assert titles["sci"].startswith("scientists, ") and titles["sci-up"].startswith("scientists, "), titles
    assert all(SCIENCE_TEXTS[c] in embedded for c in ("s:1", "s:2", "s:3", "s:4")), embedded
    assert len(embedded) == len(set(embedded)), embedded  # no passage or phrase twice
    for community in tree:
        alone = community_titles([community], entities, _mentions(chunks), SCIENCE_TEXTS, _word_vectors)
        assert alone[community.id] == titles[community.id]


def test_a_key_phrase_has_no_number_or_punctuation_in_it() -> None:
    """Encyclopaedia passages write "a 25% minority holding" and "the 9th) bishop": neither "%" nor "9th)" is a
    word of a topic, so neither phrase titles the names met there (left with nothing else, their members do)."""
    for text in (
        "Joe and Ann bought a 25% minority holding in the regional airline.",
        "Joe became the 9th) bishop of the city, and Ann his dean.",
    ):
        texts = {"d:1": text, "a:1": "AMD chips.", "a:2": "The data center."}
        chunks = {"d:1": ["joe", "ann"], "a:1": ["amd"], "a:2": ["dc"]}
        tree = [Community("d", 0, ("joe", "ann"), ()), Community("chips", 0, ("amd",), ())]
        assert community_titles(tree, ENTITIES, _mentions(chunks), texts)["d"] == "Ann & Joe", text


FILM_TEXTS = {
    "film:0": "Gang Related\n\nGang Related is a 1997 crime thriller film starring Joe and Ann about two corrupt cops.",
    "tesla:0": "Tesla Roadster\n\nThe company sold the AMD-powered Roadster in 31 countries.",
    "mae:0": "Mae Jemison\n\nMae Jemison flew on the space shuttle for NASA.",
    "talk:0": "[MUSIC]\n\nJOE: Ann and I met on a film set about two corrupt cops.",
    "note:0": "Joe met Ann.\n\nThey talked about corrupt cops in a crime thriller film.",
}


def test_a_community_of_one_titled_passage_is_led_by_the_passages_title() -> None:
    """Encyclopaedia passages open with their title ("Gang Related\\n\\n..."): the names met in one are that
    passage's subject's, so its title leads ("Gang Related: ..."). A first line that is a stage direction
    ("[MUSIC]") or a sentence ("Joe met Ann.") is no title: those communities keep their key phrases alone."""
    film = {**FILM_TEXTS, "talk:0": "", "note:0": ""}
    chunks = {"film:0": ["joe", "ann"], "tesla:0": ["amd"], "mae:0": ["mae", "nasa", "shuttle"]}
    tree = [
        Community("film", 0, ("joe", "ann"), ()),
        Community("tesla", 0, ("amd",), ()),
        Community("space", 0, ("mae", "nasa", "shuttle"), ()),
    ]
    titles = community_titles(tree, ENTITIES, _mentions(chunks), film)
    assert titles["film"].startswith("Gang Related: ") and "corrupt cops" in titles["film"], titles
    assert titles["tesla"] == "Tesla Roadster: AMD", titles
    assert titles["space"].startswith("Mae Jemison: "), titles  # the title, not a person lead: the same words
    for first in ("talk:0", "note:0"):
        texts = {**FILM_TEXTS, "film:0": "", first: FILM_TEXTS[first]}
        moved = {first if c == "film:0" else c: e for c, e in chunks.items()}
        title = community_titles(tree, ENTITIES, _mentions(moved), texts)["film"]
        assert ":" not in title and ("corrupt cops" in title or "crime thriller film" in title), (first, title)


def test_a_community_whose_passages_no_titled_document_holds_is_not_led_by_a_title() -> None:
    """Two titled passages of as many documents, one each: neither holds DOCUMENT_SHARE of them, so neither
    title leads (naming one would hide the other)."""
    chunks = {"film:0": ["joe", "ann"], "mae:0": ["mae", "ann"], "tesla:0": ["amd"]}
    tree = [Community("both", 0, ("joe", "ann", "mae"), ()), Community("tesla", 0, ("amd",), ())]
    title = community_titles(tree, ENTITIES, _mentions(chunks), FILM_TEXTS)["both"]
    assert not title.startswith(("Gang Related", "Mae Jemison:")), title


def test_a_piece_of_a_longer_name_never_names_a_community() -> None:
    """The extractor's cut names ("-country skiers" of "cross-country skiers", "Codes for the representation of",
    "LLC" of "Sea Media LLC") say nothing as a title: the whole names and topics the passages say name it."""
    entities = {
        **ENTITIES,
        "llc": _entity("llc", "LLC", "ORG", 3),
        "ski": _entity("ski", "-country skiers", "CONCEPT", 2),
        "iso": _entity("iso", "Codes for the representation of", "WORK_OF_ART", 2),
        "radio": _entity("radio", "radio station"),
        "cumulus": _entity("cumulus", "Cumulus Media", "ORG"),
        "wilm": _entity("wilm", "Wilmington", "GPE"),
    }
    texts = {
        "r:1": "WAAA is a radio station in Wilmington owned by Cumulus Media and Sea Media LLC. Cross-country skiers "
        "listen to it.",
        "r:2": "WBBB is a radio station of Wilmington. Its licensee is Sun Radio LLC. Codes for the representation of "
        "names of countries list it.",
        "r:3": "WCCC plays rock. Cumulus Media bought it from Star Broadcasting LLC. Cross-country skiers like it, "
        "and Codes for the representation of names of countries list it.",
    }
    chunks = {
        "r:1": ["llc", "ski", "radio", "cumulus", "wilm"],
        "r:2": ["llc", "iso", "radio", "wilm"],
        "r:3": ["llc", "ski", "iso", "cumulus"],
        "a:1": ["amd"],
    }
    tree = [
        Community("radio", 0, ("llc", "ski", "iso", "radio", "cumulus", "wilm"), ()),
        Community("chips", 0, ("amd",), ()),
    ]
    title = community_titles(tree, entities, _mentions(chunks), texts)["radio"]
    assert set(title.replace(" &", ",").split(", ")) == {"radio station", "Cumulus Media", "Wilmington"}, title


def test_a_name_is_a_piece_only_when_most_places_that_say_it_follow_a_name_that_opens_no_sentence() -> None:
    """ "Following World War I" opens a sentence and "the Ohio River" follows a lower-case word: neither is the
    rest of a cut name; "Alzheimer's Association Council" is, as is a name that ends with "of"."""
    names = {"war": "World War I", "ohio": "Ohio River", "council": "Association Council", "of": "Consulate of"}
    texts = {
        "p:0": "Following World War I, towns on the Ohio River grew. She sits on the Alzheimer's Association Council.",
        "p:1": "After World War I the Ohio River flooded. Ohio River towns moved. The Rotary Association Council met.",
        "p:2": "The Consulate of Peru opened.",
    }
    chunks_of = {"war": {"p:0", "p:1"}, "ohio": {"p:0", "p:1"}, "council": {"p:0", "p:1"}, "of": {"p:2"}}
    assert cut_names(names, chunks_of, texts) == {"council", "of"}


def test_a_title_word_before_a_name_is_no_rest_of_it_and_a_lone_company_suffix_is_a_piece() -> None:
    """ "Emperor Aurangzeb": a title before a name is its bearer's, not the rest of a longer name, so the name
    stays a topic; "LLC" is the end of some firm's name wherever it stands ("Sun Radio, LLC")."""
    names = {"aurangzeb": "Aurangzeb", "llc": "LLC", "delhi": "Delhi"}
    texts = {
        "p:0": "In 1680 Emperor Aurangzeb left Delhi. The station is owned by Sun Radio, LLC.",
        "p:1": "The court of Emperor Aurangzeb moved from Delhi.",
    }
    chunks_of = {"aurangzeb": {"p:0", "p:1"}, "llc": {"p:0"}, "delhi": {"p:0", "p:1"}}
    assert cut_names(names, chunks_of, texts) == {"llc"}


def test_an_everyday_word_capitalised_is_no_name() -> None:
    """ "Notes" heads an encyclopaedia's notes section and the passages write "notes" in lower case as often: an
    everyday word, no name. "Canada" is never written in lower case, "BASIC" is an acronym, "Blitzscaling" no
    everyday English word however a speaker writes it."""
    names = {"notes": "Notes", "canada": "Canada", "basic": "BASIC", "blitz": "Blitzscaling"}
    texts = [
        "Notes\n\nThe notes list Canada's finals. He wrote BASIC, and basic basic tools.",
        "blitzscaling is what Blitzscaling says.",
    ]
    assert everyday_words(names, texts) == {"notes"}


def test_a_titled_passage_is_led_by_its_title_without_the_topics_that_repeat_it_or_an_everyday_word() -> None:
    """ "1999 Currie Cup: Currie Cup, Notes & Western Province" says the competition three times and its notes
    section once: the lead names it, "Currie Cup" repeats the lead, "Notes" is a heading. What is left is what the
    passages add to the lead, and nothing weaker takes the dropped topics' places."""
    entities = {
        **ENTITIES,
        "cup": _entity("cup", "Currie Cup", "EVENT", 3),
        "notes": _entity("notes", "Notes", "WORK_OF_ART", 2),
        "wp": _entity("wp", "Western Province", "ORG", 2),
        "sa": _entity("sa", "South Africa", "GPE", 2),
    }
    texts = {
        "cup:0": "1999 Currie Cup\n\nThe 1999 Currie Cup was the rugby competition's 61st season. Western Province "
        "played in it. Notes\n\nThe notes give each match's score.",
        "cup:1": "Western Province lost the Currie Cup final. Notes on the final: the notes were written later.",
        "a:1": "AMD makes chips in South Africa.",
        "b:1": "AMD sells chips in South Africa.",
    }
    chunks = {"cup:0": ["cup", "notes", "wp"], "cup:1": ["cup", "notes", "wp"], "a:1": ["amd", "sa"], "b:1": ["sa"]}
    tree = [Community("cup", 0, ("cup", "notes", "wp"), ()), Community("chips", 0, ("amd", "sa"), ())]
    assert community_titles(tree, entities, _mentions(chunks), texts)["cup"] == "1999 Currie Cup: Western Province"


STATION_TEXTS = {
    "wsme:0": "WSME\n\nWSME (1120 AM) is an Eastern North Carolina radio station broadcasting an oldies format.",
    "wero:0": "WERO\n\nWERO (93.3 FM) is a contemporary hit radio station licensed to Wilmington.",
    "wilm:0": "WILM (AM)\n\nWILM is a sports radio station licensed to Wilmington, North Carolina.",
    "ilm:0": "Wilmington International Airport\n\nWilmington International Airport is a public airport.",
    "film:0": FILM_TEXTS["film:0"],
    "mae:0": FILM_TEXTS["mae:0"],
}
STATIONS = {
    **ENTITIES,
    "wil": _entity("wil", "Wilmington", "GPE", 4),
    "fcc": _entity("fcc", "Federal Communications Commission", "ORG", 3),
    "oldies": _entity("oldies", "oldies format"),
}


def test_several_passages_whose_subjects_are_mostly_one_kind_are_led_by_that_kind() -> None:
    """Encyclopaedia passages say what their subject is in their first sentence ("WSME ... is an Eastern North
    Carolina radio station"): three radio stations and an airport that share "Wilmington" are "Radio stations:
    Wilmington, ...", not a place alone. Subjects of as many kinds as there are of them (a film, a person, an
    airport) are led by no kind, nor is one subject (its title leads it)."""
    chunks = {
        "wsme:0": ["wil", "fcc", "oldies"],
        "wero:0": ["wil", "fcc"],
        "wilm:0": ["wil", "fcc"],
        "ilm:0": ["wil"],
        "film:0": ["joe", "ann"],
        "mae:0": ["mae", "nasa"],
    }
    tree = [Community("wil", 0, ("wil", "fcc", "oldies"), ()), Community("mix", 0, ("joe", "ann", "mae", "nasa"), ())]
    titles = community_titles(tree, STATIONS, _mentions(chunks), STATION_TEXTS)
    assert titles["wil"].startswith("Radio stations: ") and "Wilmington" in titles["wil"], titles
    assert ":" not in titles["mix"], titles
    mixed = {**chunks, "wero:0": ["joe"], "wilm:0": ["mae"], "film:0": ["wil", "ann"], "mae:0": ["wil", "nasa"]}
    assert not community_titles(tree, STATIONS, _mentions(mixed), STATION_TEXTS)["wil"].startswith("Radio")


def test_a_community_led_by_a_title_is_titled_by_that_titles_passages_not_a_stray_one() -> None:
    """Leiden joins a stray passage to a titled article's names (Saint Barthélemy's climate to the Euro's
    passages): the article leads ("Euro: ..."), and what the stray says ("rainy season") is not what the community
    is about, so it does not title it."""
    texts = {
        "euro:0": "Euro\n\nThe euro is the sole currency of Monaco and Andorra.",
        "euro:1": "Monaco and Andorra use the euro as their sole currency.",
        "euro:2": "Kosovo uses the euro as its sole currency too.",
        "climate:0": "Climate of Saint Barthélemy\n\nThe rainy season of Saint Barthélemy runs to November.",
        "climate:1": "Its rainy season brings storms.",
        "film:0": FILM_TEXTS["film:0"],
    }
    entities = {
        **ENTITIES,
        "monaco": _entity("monaco", "Monaco", "GPE"),
        "andorra": _entity("andorra", "Andorra", "GPE"),
        "kosovo": _entity("kosovo", "Kosovo", "GPE"),
        "barth": _entity("barth", "Saint Barthélemy", "GPE"),
        "currency": _entity("currency", "sole currency"),
        "rain": _entity("rain", "rainy season"),
    }
    chunks = {
        "euro:0": ["monaco", "andorra", "currency"],
        "euro:1": ["monaco", "andorra", "currency"],
        "euro:2": ["kosovo", "currency"],
        "climate:0": ["barth", "rain"],
        "climate:1": ["barth", "rain"],
        "film:0": ["joe", "ann"],
    }
    tree = [Community("euro", 0, ("monaco", "andorra", "kosovo", "barth"), ()), Community("f", 0, ("joe", "ann"), ())]
    title = community_titles(tree, entities, _mentions(chunks), texts)["euro"]
    assert title.startswith("Euro: sole currency") and "rainy season" not in title, title


def test_passages_of_several_documents_of_one_title_are_one_subject_and_it_leads() -> None:
    """An encyclopaedia's article may come as several documents of one title ("Crowne Plaza" three times): none
    holds DOCUMENT_SHARE of the passages alone, but together they are all of them, and their title leads."""
    texts = {
        f"crowne{i}:0": f"Crowne Plaza\n\nCrowne Plaza is a hotel chain of InterContinental Hotels. Part {i}."
        for i in range(3)
    }
    texts["film:0"] = FILM_TEXTS["film:0"]
    entities = {
        **ENTITIES,
        "ihg": _entity("ihg", "InterContinental Hotels", "ORG", 3),
        "inn": _entity("inn", "Hotel Indigo", "ORG"),
    }
    chunks = {"crowne0:0": ["ihg", "inn"], "crowne1:0": ["ihg"], "crowne2:0": ["ihg", "inn"], "film:0": ["joe", "ann"]}
    tree = [Community("ihg", 0, ("ihg", "inn"), ()), Community("f", 0, ("joe", "ann"), ())]
    title = community_titles(tree, entities, _mentions(chunks), texts)["ihg"]
    assert title.startswith("Crowne Plaza: InterContinental Hotels"), title
