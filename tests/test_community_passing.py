"""A name a titled document mentions in passing joins no documents: not in the partition, not in the titles."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from retrieval.config import Settings
from retrieval.indexing import run_index
from retrieval.indexing.community_passing import Passing, _within
from retrieval.store import GraphStore
from tests.community_graphs import graph, members  # noqa: F401 (fixture)
from tests.indexing_runs import write_corpus

#: Two encyclopaedia articles of unrelated subjects, each naming Portugal once in passing.
ARTICLES = {
    "lopes.txt": (
        "Maria Lopes\n\nMaria Lopes is a painter who studied with Joao Silva at the Lisbon Academy. "
        "Maria Lopes showed her work at the Gulbenkian Museum with Joao Silva. Maria Lopes was born in Portugal."
    ),
    "bridge.txt": (
        "Harbour Bridge\n\nThe Harbour Bridge in Sydney was built by Dorman Long for the New South Wales Government. "
        "Dorman Long finished the Harbour Bridge in 1932 for the New South Wales Government. "
        "Some of its steel came from Portugal."
    ),
}


def test_a_name_two_articles_mention_in_passing_joins_them_in_no_community(
    graph: tuple[Settings, GraphStore],  # noqa: F811
    tmp_path: Path,
    embedder,
) -> None:
    """Without the rule, Portugal's co-occurrences tie the painter's names to the bridge's at some level, and that
    community's title lists both; with it each article's names stay apart at every level, and Portugal keeps one
    home."""
    settings, store = graph
    run_index(settings, store, embedder, [write_corpus(tmp_path / "corpus", ARTICLES)], project="p")
    found = members(store)
    assert any("Maria Lopes" in members for _level, members in found)
    assert any("Dorman Long" in members for _level, members in found)
    joined = [(level, m) for level, m in found if {"Maria Lopes", "Dorman Long"} <= m]
    assert not joined, joined
    assert sum("Portugal" in m for level, m in found if level == 0) == 1


def test_an_aside_is_a_name_mentioned_once_outside_the_title_and_one_of_its_documents_is_its_home() -> None:
    texts = {
        "a:0": "Maria Lopes\n\nMaria Lopes was born in Portugal. Lopes met Silva.",
        "b:0": "Harbour Bridge\n\nIts steel came from Portugal.",
        "c:0": "Portugal\n\nPortugal is a country. Silva lives there.",
        "t:0": "a transcript with no title line. Portugal, Silva.",
    }
    mentions = [
        {"chunk": "a:0", "entity": "lopes", "surface": "Maria Lopes", "count": 1},
        {"chunk": "a:0", "entity": "portugal", "surface": "Portugal", "count": 1},
        {"chunk": "a:0", "entity": "silva", "surface": "Silva", "count": 1},
        {"chunk": "b:0", "entity": "portugal", "surface": "Portugal", "count": 1},
        {"chunk": "c:0", "entity": "silva", "surface": "Silva", "count": 1},
        {"chunk": "t:0", "entity": "silva", "surface": "Silva", "count": 1},
    ]
    # Maria Lopes is the subject of "a" (named in its title): no aside, though named once; Silva is more than an
    # aside in the transcript (no title to tell), Portugal nowhere and keeps its first document
    assert Passing.of(mentions, texts).documents == {"portugal": {"b"}, "silva": {"a", "c"}}
    # once Portugal is the subject of "c", both the biography and the bridge mention it in passing
    subject = [*mentions, {"chunk": "c:0", "entity": "portugal", "surface": "Portugal", "count": 2}]
    assert Passing.of(subject, texts).documents["portugal"] == {"a", "b"}
    # a name mentioned twice is no aside; without titled documents nothing is
    assert Passing.of([*mentions, {**mentions[2], "count": 1}], texts).documents["silva"] == {"c"}
    assert Passing.of(mentions, {k: v.replace("\n\n", " ") for k, v in texts.items()}).documents == {}


@pytest.mark.parametrize(
    ("surface", "title", "within"),
    [
        ("Chi Chi", "chi chi (giant panda)", True),
        ("Chi   Chi", "chi chi (giant panda)", True),  # the surface's own spacing does not count
        ("chi", "chichi", False),  # part of a longer word
        ("york", "new_york", False),  # `_` is a word character, as `\w` has it
        ("café", "le café", True),
        ("caf", "le café", False),  # é is a word character
        ("a", "ab a", True),  # the second occurrence stands alone
        ("", "anything", False),
        ("2", "apollo 2", True),
        ("apollo", "apollo-soyuz", True),
    ],
)
def test_a_surface_is_within_a_title_when_its_words_are_a_run_of_whole_words(
    surface: str, title: str, within: bool
) -> None:
    """`_within` without a regex (it runs per entity and document) answers as the regex it replaced."""
    pattern = rf"(?<!\w){re.escape(' '.join(surface.lower().split()))}(?!\w)"
    by_regex = bool(surface.split()) and re.search(pattern, title) is not None
    assert (_within(surface, title), by_regex) == (within, within)
