"""Community reports: what a community's view holds of the graph's relationships."""

from __future__ import annotations

from retrieval.indexing.communities import Community
from retrieval.indexing.entities import Entity
from retrieval.indexing.reports import CommunityView, extractive_report, index_relations


def _entity(key: str, sentence: str) -> Entity:
    return Entity(key, key.upper(), "ORG", ((sentence, f"d:{key}"),), 1)


def _edge(source: str, target: str, weight: float) -> dict[str, object]:
    return {"source": source, "target": target, "weight": weight, "description": f"{source} with {target}"}


def test_a_view_holds_exactly_the_relationships_between_its_members_whichever_end_a_key_starts_with() -> None:
    entities = {key: _entity(key, f"{key.upper()} met A and B.") for key in "abcde"}
    edges = {
        ("a", "b"): _edge("a", "b", 1.0),
        ("c", "a"): _edge("c", "a", 3.0),  # a directed edge: its key starts with the higher id
        ("b", "c"): _edge("b", "c", 2.0),
        ("a", "d"): _edge("a", "d", 9.0),  # to a member of another community
        ("e", "b"): _edge("e", "b", 8.0),
        ("d", "e"): _edge("d", "e", 7.0),
    }
    view = CommunityView.of(Community("p:c0:x", 0, ("a", "b", "c"), ()), entities, index_relations(edges))
    assert [(r["source"], r["target"]) for r in view.relations] == [("c", "a"), ("b", "c"), ("a", "b")]
    assert [e.id for e in view.ranked] == ["c", "a", "b"]  # strength 5, 4, 3: the inner edges only
    other = CommunityView.of(Community("p:c0:y", 0, ("d", "e"), ()), entities, index_relations(edges))
    assert [(r["source"], r["target"]) for r in other.relations] == [("d", "e")]
    assert extractive_report(view).title == "C, A & B"
