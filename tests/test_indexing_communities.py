"""Hierarchical Leiden on a moderate real corpus (A Christmas Carol): size cap, levels, stable ids."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from retrieval.indexing import communities, community_hubs, entities, relations
from retrieval.indexing.chunking import chunk_text
from retrieval.indexing.extract_offline import extract_document
from retrieval.indexing.model import entity_id

CAROL = Path(__file__).resolve().parent.parent / "data" / "demo" / "a-christmas-carol" / "a-christmas-carol.txt"


@pytest.fixture(scope="module")
def carol_graph() -> tuple[list[str], list[tuple[str, str, float]]]:
    text = CAROL.read_text(encoding="utf-8")
    chunks = chunk_text(text, 256, 0.15)
    mentions, claims = [], []
    for chunk, found in zip(chunks, extract_document(text, chunks), strict=True):
        cid = f"carol:{chunk.n}"
        for m in found.mentions:
            mentions.append(
                {
                    "chunk": cid,
                    "entity": entity_id("c", m.key),
                    "surface": m.surface,
                    "type": m.type,
                    "count": m.count,
                    "evidence": m.evidence,
                }
            )
        rows = [[entity_id("c", r.source), entity_id("c", r.target), r.weight, r.description] for r in found.relations]
        claims.append({"chunk": cid, "relations": json.dumps(rows)})
    wanted = entities.resolve(mentions)
    edges = relations.aggregate(claims, wanted)
    return sorted(wanted), [(a, b, row["weight"]) for (a, b), row in sorted(edges.items())]


@pytest.mark.parametrize("cap", [40, 10])
def test_level0_respects_the_cap_and_there_are_two_levels(carol_graph, cap: int) -> None:
    ids, edges = carol_graph
    tree = communities.hierarchy("c", ids, edges, max_size=cap, max_levels=3)
    level0 = [c for c in tree if c.level == 0]
    assert level0 and max(len(c.members) for c in level0) <= cap
    assert max(c.level for c in tree) >= 1
    by_id = {c.id: c for c in tree}
    for c in tree:
        if c.parent:
            parent = by_id[c.parent]
            assert parent.level == c.level + 1 and c.id in parent.children
            assert set(c.members) <= set(parent.members)
    members0 = [e for c in level0 for e in c.members]
    assert len(members0) == len(set(members0))  # a partition: no entity in two level-0 communities


def test_ids_are_stable_for_the_same_graph(carol_graph) -> None:
    ids, edges = carol_graph
    first = communities.hierarchy("c", ids, edges, max_size=40, max_levels=3)
    second = communities.hierarchy("c", list(reversed(ids)), list(reversed(edges)), max_size=40, max_levels=3)
    assert [c.id for c in first] == [c.id for c in second]


def test_a_hub_and_its_leaves_are_kept_in_capped_communities() -> None:
    """A star (one entity related to 150) must not lose its leaves when the size cap splits it."""
    nodes = ["hub", *(f"leaf{i}" for i in range(150)), "a", "b", "c"]
    edges = [("hub", f"leaf{i}", 1.0) for i in range(150)] + [("a", "b", 2.0), ("b", "c", 1.0)]
    level0 = [c for c in communities.hierarchy("p", nodes, edges, max_size=40, max_levels=3) if c.level == 0]
    placed = [e for c in level0 for e in c.members]
    assert sorted(placed) == sorted(nodes)  # every related entity has a community, none twice
    assert max(len(c.members) for c in level0) <= 40
    assert any({"a", "b", "c"} == set(c.members) for c in level0)


def test_an_edit_moves_only_the_communities_of_the_changed_entities(carol_graph) -> None:
    """One new entity related to two others: only their level-0 communities and those above are new."""
    ids, edges = carol_graph
    first = communities.hierarchy("c", ids, edges, max_size=10, max_levels=3)
    touched = {"c:zz-new", ids[5], ids[7]}
    previous = communities.Previous(
        community_of={m: c.id for c in first if c.level == 0 for m in c.members},
        parent_of={c.id: c.parent for c in first if c.parent},
        changed=frozenset(touched),
    )
    edited = [*edges, ("c:zz-new", ids[5], 1.0), ("c:zz-new", ids[7], 1.0)]
    second = communities.hierarchy("c", [*ids, "c:zz-new"], edited, max_size=10, max_levels=3, previous=previous)
    before, after = {c.id: c for c in first}, {c.id for c in second}
    untouched = {c.id for c in first if c.level == 0 and not touched & set(c.members)}
    assert untouched <= after  # every level-0 community away from the edit kept its id (and its summary)
    moved = set(before) - after
    assert 0 < len(moved) <= 2 * 3  # the communities of ids[5] and ids[7], and at most their ancestors


def test_an_unchanged_graph_keeps_every_community(carol_graph) -> None:
    ids, edges = carol_graph
    first = communities.hierarchy("c", ids, edges, max_size=10, max_levels=3)
    previous = communities.Previous(
        community_of={m: c.id for c in first if c.level == 0 for m in c.members},
        parent_of={c.id: c.parent for c in first if c.parent},
    )
    again = communities.hierarchy("c", ids, edges, max_size=10, max_levels=3, previous=previous)
    assert [c.id for c in again] == [c.id for c in first]


def _host_and_conversations(host_weight: float) -> tuple[list[str], list[tuple[str, str, float]], list[dict[str, str]]]:
    """Six documents, each a conversation of five related entities, and a host related to all of them in each."""
    edges: list[tuple[str, str, float]] = []
    mentions: list[dict[str, str]] = []
    for d in range(6):
        members = [f"d{d}e{i}" for i in range(5)]
        for i, a in enumerate(members):
            mentions += [{"chunk": f"doc{d}:{i}", "entity": a}, {"chunk": f"doc{d}:{i}", "entity": "host"}]
            edges.append(("host", a, host_weight))
            edges += [(a, b, 1.0) for b in members[i + 1 :]]
    return sorted({e for a, b, _w in edges for e in (a, b)}), edges, mentions


@pytest.mark.parametrize("host_weight", [3.0, 5.0])
def test_a_host_in_every_document_does_not_join_conversations_at_level_0(host_weight: float) -> None:
    """The host's (a person's) relationships weigh its share of the documents less, so each level-0 community is one
    conversation (with the host beside one of them), where the raw weights join two or three through the host."""

    def mixed(edges: list[tuple[str, str, float]]) -> bool:
        tree = communities.hierarchy("p", ids, edges, max_size=40, max_levels=3)
        return any(len({m.split("e")[0] for m in c.members if m != "host"}) > 1 for c in tree if c.level == 0)

    ids, edges, mentions = _host_and_conversations(host_weight)
    assert mixed(edges)  # what the partition does without the damping
    damped = communities.damped(edges, community_hubs.documents_of(mentions), {"host"})
    assert not mixed(damped)
    assert sorted((a, b) for a, b, _w in damped) == sorted((a, b) for a, b, _w in edges)  # no edge dropped
    assert {w for a, b, w in damped if "host" not in (a, b)} == {1.0}


def test_damping_leaves_things_and_a_collection_of_under_three_documents_alone() -> None:
    """A thing in every document ("AI") keeps its weights (damping it strands its neighbours in grab bags); in a
    novel (one document) every character is everywhere and none is a host: nothing changes; nor in two documents
    (MIN_DOCUMENTS)."""
    _ids, edges, mentions = _host_and_conversations(3.0)
    assert communities.damped(edges, community_hubs.documents_of(mentions), set()) == edges
    one_document = [{**row, "chunk": "novel:" + row["chunk"].split(":")[1]} for row in mentions]
    assert communities.damped(edges, community_hubs.documents_of(one_document), {"host"}) == edges
    two_documents = [row for row in mentions if row["chunk"].startswith(("doc0:", "doc1:"))]
    assert communities.damped(edges, community_hubs.documents_of(two_documents), {"host"}) == edges


def _hub_of_passages(documents: int) -> tuple[list[str], list[tuple[str, str, float]], list[dict[str, str]]]:
    """Passages of an encyclopaedia, one document each, with two or three related names of their own and one name
    they all mention ("Canada"), related to every name of every passage and to nothing else they share."""
    edges: list[tuple[str, str, float]] = []
    mentions: list[dict[str, str]] = []
    for d in range(documents):
        names = [f"p{d}n{i}" for i in range(2 + d % 2)]
        mentions += [{"chunk": f"page{d}:0", "entity": e} for e in [*names, "canada"]]
        edges += [("canada", a, 1.0) for a in names]
        edges += [(a, b, 1.0) for i, a in enumerate(names) for b in names[i + 1 :]]
    return sorted({e for a, b, _w in edges for e in (a, b)}), edges, mentions


def _mixed_level0(tree: list[communities.Community]) -> list[set[str]]:
    """The level-0 communities holding names of more than one passage."""
    found = [{m.split("n")[0] for m in c.members if m != "canada"} for c in tree if c.level == 0]
    return [passages for passages in found if len(passages) > 1]


def test_a_hub_of_unrelated_passages_is_split_into_the_passages_own_communities() -> None:
    """Leiden puts "Canada" with the names of several passages that share nothing else (a community with no topic a
    title could name); the hub's part is split into its passages' groups, the hub kept beside one of them."""
    ids, edges, mentions = _hub_of_passages(8)
    plain = communities.hierarchy("p", ids, edges, max_size=40, max_levels=3)
    assert _mixed_level0(plain)  # what the partition does without the hubs
    hubs = community_hubs.find(mentions)
    assert hubs.counts == {"canada": 8}
    tree = communities.hierarchy("p", ids, edges, max_size=40, max_levels=3, hubs=hubs)
    assert not _mixed_level0(tree)
    level0 = [c for c in tree if c.level == 0]
    assert sorted(e for c in level0 for e in c.members) == sorted(ids)  # every name, the hub too, has a community
    assert sum("canada" in c.members for c in level0) == 1


def test_a_name_whose_documents_share_other_names_is_no_hub() -> None:
    """A host in every episode, whose episodes also share a co-host, or a name of a few documents (under
    HUB_DOCUMENTS) is what those documents have in common, not a hub; the split leaves their parts alone."""
    _ids, _edges, mentions = _host_and_conversations(3.0)
    assert community_hubs.find(mentions).counts == {"host": 6}  # six conversations that share only the host
    with_cohost = [*mentions, *({"chunk": f"doc{d}:0", "entity": "cohost"} for d in range(6))]
    assert community_hubs.find(with_cohost).counts == {}
    ids, edges, few = _hub_of_passages(community_hubs.HUB_DOCUMENTS - 1)
    assert community_hubs.find(few).counts == {}
    plain = communities.hierarchy("p", ids, edges, max_size=40, max_levels=3)
    assert communities.hierarchy("p", ids, edges, max_size=40, max_levels=3, hubs=community_hubs.find(few)) == plain


@pytest.mark.parametrize(("linked_documents", "hub"), [(110, True), (160, False)])
def test_a_name_in_many_documents_is_judged_on_drawn_pairs_of_them(linked_documents: int, hub: bool) -> None:
    """Past PAIRS pairs of documents the share that share another name is read from drawn pairs (a podcast's host
    has over a million): 110 of 200 documents sharing a name are 30% of the pairs (a hub), 160 are 64% (none);
    the draw is seeded by the name, so a graph's hubs are the same every run."""
    documents = 200
    assert documents * (documents - 1) // 2 > community_hubs.PAIRS
    mentions = [{"chunk": f"doc{d}:0", "entity": "x"} for d in range(documents)]
    mentions += [{"chunk": f"doc{d}:0", "entity": "shared"} for d in range(linked_documents)]
    mentions += [{"chunk": f"doc{d}:0", "entity": f"own{d}"} for d in range(documents)]
    found = community_hubs.find(mentions)
    assert ("x" in found.counts) is hub
    assert community_hubs.find(mentions).counts == found.counts


def _hub_with_strays() -> tuple[list[str], list[tuple[str, str, float]], list[dict[str, str]]]:
    """`_hub_of_passages(8)`, and four passages more of one name beside the hub each ("Saxe-Coburg" of a passage on
    a bank), whose other names Leiden puts elsewhere: a tight group of a topic ("t0"-"t3") each stray is related to
    once."""
    _ids, edges, mentions = _hub_of_passages(8)
    topic = [f"t{i}" for i in range(4)]
    edges += [(a, b, 3.0) for i, a in enumerate(topic) for b in topic[i + 1 :]]
    for s in range(4):
        mentions += [{"chunk": f"stray{s}:0", "entity": e} for e in (f"s{s}", "canada", topic[s])]
        edges += [("canada", f"s{s}", 2.0), (f"s{s}", topic[s], 1.0)]
    mentions += [{"chunk": f"topic{i}:0", "entity": e} for i in range(2) for e in topic]
    return sorted({e for a, b, _w in edges for e in (a, b)}), edges, mentions


def test_a_name_only_the_hub_holds_in_its_community_goes_where_its_passage_s_other_names_are() -> None:
    """A stray related to the hub more than to anything else is left beside the hub by the split (its community is
    then the passages of every stray); it goes to the community of its passage's other names."""
    ids, edges, mentions = _hub_with_strays()
    hubs = community_hubs.find(mentions)
    assert "canada" in hubs.counts
    tree = communities.hierarchy("p", ids, edges, max_size=40, max_levels=3, hubs=hubs)
    home = {m: c.members for c in tree if c.level == 0 for m in c.members}
    for s in range(4):
        assert f"t{s}" in home[f"s{s}"], home[f"s{s}"]
    assert sorted(home) == sorted(ids)  # every name, the hub too, still has a community


def test_the_levels_above_do_not_join_a_hub_s_passages_through_it() -> None:
    """The groups split off a hub share nothing but the hub: no community above level 0 joins two of them."""
    ids, edges, mentions = _hub_of_passages(8)
    tree = communities.hierarchy("p", ids, edges, max_size=40, max_levels=3, hubs=community_hubs.find(mentions))
    above = [{m.split("n")[0] for m in c.members if m != "canada"} for c in tree if c.level > 0]
    assert not [passages for passages in above if len(passages) > 1]


def test_a_name_whose_documents_share_only_another_hub_is_a_hub() -> None:
    """Washington's passages (a coffee firm, a band, a park) share nothing but it and "United States", itself a
    hub of many more passages: that they share a hub does not make them related."""
    mentions = [{"chunk": f"doc{d}:0", "entity": e} for d in range(40) for e in ("us", f"own{d}")]
    mentions += [{"chunk": f"doc{d}:0", "entity": "washington"} for d in range(6)]
    assert set(community_hubs.find(mentions).counts) == {"us", "washington"}
    mentions += [{"chunk": f"doc{d}:0", "entity": "seattle"} for d in range(6)]
    assert set(community_hubs.find(mentions).counts) == {"us"}  # a name they share besides
