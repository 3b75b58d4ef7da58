"""An encyclopaedia's communities: names with their subject at level 0, subjects of one kind together above."""

from __future__ import annotations

from pathlib import Path

from retrieval.config import Settings
from retrieval.indexing import run_index
from retrieval.indexing.community_passing import Passing
from retrieval.indexing.community_subjects import Subjects, group
from retrieval.store import GraphStore
from tests.community_graphs import graph, members  # noqa: F401 (fixture)
from tests.indexing_runs import write_corpus

#: Two films that both write "Las Vegas" more than once (no aside, so Leiden joins their names through it), the
#: first most; a third film that shares no name with them; a river. Each first sentence says what its subject is.
ARTICLES = {
    "casino.txt": (
        "Casino Nights\n\nCasino Nights is a 1995 American crime film directed by Martin Brody. "
        "Martin Brody filmed Casino Nights in Las Vegas with Sharon Stone. "
        "Las Vegas gave Martin Brody and Sharon Stone the desert light of Casino Nights. Las Vegas loved it."
    ),
    "weekend.txt": (
        "Last Weekend\n\nLast Weekend is a 2013 American comedy film directed by Jon Turteltaub. "
        "Jon Turteltaub shot Last Weekend in Las Vegas with Robert De Niro. "
        "Las Vegas welcomed Robert De Niro and Jon Turteltaub for Last Weekend."
    ),
    "harbour.txt": (
        "Quiet Harbour\n\nQuiet Harbour is a 2001 French drama film directed by Anne Leclerc. "
        "Anne Leclerc shot Quiet Harbour in Brittany with Jean Reno. Jean Reno and Anne Leclerc stayed in Brittany."
    ),
    "river.txt": (
        "Cojedes River\n\nThe Cojedes River is a river in Venezuela. The Cojedes River flows past San Carlos into "
        "the Portuguesa River. San Carlos draws its water from the Cojedes River and the Portuguesa River."
    ),
}


def _titles(store: GraphStore) -> dict[str, str]:
    rows = store.query("MATCH (k:__Community__ {projectId: 'p'}) RETURN k.id AS id, k.title AS title")
    return {str(r["id"]): str(r["title"]) for r in rows}


def test_an_encyclopaedia_s_level_0_keeps_each_subject_s_names_apart_and_the_level_above_groups_its_films(
    graph: tuple[Settings, GraphStore],  # noqa: F811
    tmp_path: Path,
    embedder,
) -> None:
    """Without the rules, Leiden puts Las Vegas with the comedy's names, whose community is then titled by the
    crime film's passages ("Films: Casino Nights, Las Vegas & American"), and the third film, sharing no name, is
    joined to no other; with them Las Vegas is with the crime film that writes it most, the comedy's community is
    led by its own title, and the level above holds the three films (not the river) under a title that says so."""
    settings, store = graph
    run_index(settings, store, embedder, [write_corpus(tmp_path / "corpus", ARTICLES)], project="p")
    found = members(store)
    level0 = [m for level, m in found if level == 0]
    crime = {"American", "Casino Nights", "Las Vegas", "Martin Brody", "Sharon Stone"}
    assert [m for m in level0 if "Las Vegas" in m] == [crime], level0
    titles = _titles(store)
    assert "Last Weekend: comedy film" in titles.values(), titles
    films = [m for level, m in found if level > 0 and {"Martin Brody", "Jon Turteltaub", "Anne Leclerc"} <= m]
    assert films and not any("Cojedes River" in m for m in films), found
    assert any(title.startswith("Films") for title in titles.values()), titles


def test_a_name_s_home_is_the_article_that_mentions_it_most_and_only_an_encyclopaedia_has_homes() -> None:
    texts = {
        "a:0": "Casino Nights\n\nCasino Nights is a 1995 American crime film. Las Vegas, Las Vegas.",
        "b:0": "Last Weekend\n\nLast Weekend is a 2013 comedy film set in Las Vegas.",
        "c:0": "Cojedes River\n\nThe Cojedes River is a river in Venezuela.",
    }
    rows = [("a:0", "vegas", 2), ("b:0", "vegas", 1), ("c:0", "venezuela", 1)]
    mentions = [{"chunk": chunk, "entity": entity, "count": n} for chunk, entity, n in rows]
    subjects = Subjects.of(mentions, texts, Passing())
    assert subjects.home == {"vegas": "Casino Nights", "venezuela": "Cojedes River"}
    assert subjects.kind == {"Casino Nights": "films", "Last Weekend": "films", "Cojedes River": "rivers"}
    assert subjects.kind_of(["vegas", "venezuela", "other"]) == ""  # one of three is a film's: no kind
    assert subjects.kind_of(["vegas", "other"]) == ""
    assert subjects.kind_of(["vegas", "vegas", "venezuela"]) == "films"
    # a title reads a name's home passages only: Las Vegas's community is not about the comedy's passage
    assert subjects.not_about(Passing(), {"vegas": {"a", "b"}}) == {"vegas": frozenset({"b"})}
    # titled documents that say no kind (a repository's Markdown files) make no encyclopaedia
    readme = {k: v.replace(" is a ", " has a ") for k, v in texts.items()}
    assert Subjects.of(mentions, readme, Passing()) == Subjects()


def test_the_level_above_groups_one_kind_in_runs_under_the_cap_keeping_linked_communities_together() -> None:
    kinds = ["films", "films", "", "films", "rivers", "films"]
    sizes = [30, 30, 5, 30, 10, 30]
    # 0-3 share a name: they stay in one run; 1 and 5 fill the next; the kindless and the lone river stand alone
    assert group(kinds, [(0, 3)], sizes, 80) == [[0, 3], [1, 5], [2], [4]]
    assert group(kinds, [], sizes, 200) == [[0, 1, 3, 5], [2], [4]]


def _levels(store: GraphStore) -> list[tuple[int, frozenset[str]]]:
    return sorted((level, frozenset(m)) for level, m in members(store))


def test_an_article_added_later_is_grouped_as_in_a_whole_build_and_its_removal_restores_the_graph(
    graph: tuple[Settings, GraphStore],  # noqa: F811
    tmp_path: Path,
    embedder,
) -> None:
    """An incremental run keeps the communities none of whose entities changed, so the encyclopaedia rules must
    hold across runs too: the comedy added to a graph of the other three articles gets the level-0 community
    and kind group it gets in a build of all four, titles stay unique per level, and removing it again leaves
    the communities of the first build."""
    settings, store = graph
    others = {name: text for name, text in ARTICLES.items() if name != "weekend.txt"}
    corpus = write_corpus(tmp_path / "corpus", others)
    run_index(settings, store, embedder, [corpus], project="p")
    before = _levels(store)
    (corpus / "weekend.txt").write_text(ARTICLES["weekend.txt"], encoding="utf-8")
    run_index(settings, store, embedder, [corpus], project="p")
    found = members(store)
    crime = {"American", "Casino Nights", "Las Vegas", "Martin Brody", "Sharon Stone"}
    assert [m for level, m in found if level == 0 and "Las Vegas" in m] == [crime], found
    films = [m for level, m in found if level > 0 and {"Martin Brody", "Jon Turteltaub", "Anne Leclerc"} <= m]
    assert films and not any("Cojedes River" in m for m in films), found
    rows = store.query("MATCH (k:__Community__ {projectId: 'p'}) RETURN k.level AS level, k.title AS title")
    titled = [(int(r["level"]), str(r["title"])) for r in rows]
    assert len(set(titled)) == len(titled), titled
    (corpus / "weekend.txt").unlink()
    run_index(settings, store, embedder, [corpus], project="p")
    assert _levels(store) == before
