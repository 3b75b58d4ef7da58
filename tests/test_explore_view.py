"""The explorer's growth and filters over plain Subgraphs: a click always adds the clicked node's best unseen
neighbours, evicting the weakest earlier nodes at the cap; filters remove nodes and relations, never a seed."""

from __future__ import annotations

from components import layout
from retrieval.search.explore import GraphEdge, GraphNode, Subgraph
from retrieval.search.explore_view import Filters, apply, grow


def _view(centre: str, others: list[str], group: str = "PERSON") -> Subgraph:
    nodes = [GraphNode(centre, centre, group=group, degree=len(others))]
    nodes += [GraphNode(o, o, group=group, degree=1) for o in others]
    return Subgraph(nodes, [GraphEdge(centre, o, weight=2.0 if o.endswith("1") else 1.0) for o in others])


def test_first_view_leaves_room_and_a_click_adds_its_best_unseen_neighbours() -> None:
    first = _view("s", [f"a{i}" for i in range(1, 9)])
    grown = grow([first], ["s"], 10, first=5, per_click=5, max_edges=50)
    assert [n.id for n in grown.view.nodes] == ["s", "a1", "a2", "a3", "a4"]
    click = _view("a2", ["s", "a1", "b1", "b2", "b3", "b4", "b5", "b6"])
    grown = grow([first, click], ["s", "a2"], 10, first=5, per_click=5, max_edges=50)
    assert grown.added == 5 and grown.replaced == 0
    assert {"b1", "b2", "b3", "b4", "b5"} <= grown.view.ids()


def test_at_the_cap_a_click_replaces_the_weakest_earlier_nodes() -> None:
    first = _view("s", [f"a{i}" for i in range(1, 9)])
    click = _view("a2", ["s", "b1", "b2", "b3"])
    grown = grow([first, click], ["s", "a2"], 6, first=6, per_click=5, max_edges=50)
    ids = [n.id for n in grown.view.nodes]
    assert grown.added == 3 and grown.replaced == 3
    assert set(ids) == {"s", "a1", "a2", "b1", "b2", "b3"}, "a5, a4, a3 (the weakest) made room; seeds stay"


def test_filters_keep_seeds_and_drop_relations_of_removed_nodes() -> None:
    view = _view("s", ["a1", "a2", "a3"])
    view.nodes.append(GraphNode("p", "place", group="GPE", degree=5))
    view.edges.append(GraphEdge("s", "p", weight=3.0, directed=True))
    only_people = apply(view, Filters(types={"PERSON"}, min_degree=1), seeds={"s"})
    assert {n.id for n in only_people.nodes} == {"s", "a1", "a2", "a3"} and all(
        e.target != "p" for e in only_people.edges
    )
    strong = apply(view, Filters(min_weight=2.0), seeds={"s"})
    assert {(e.source, e.target) for e in strong.edges} == {("s", "a1"), ("s", "p")}
    directed = apply(view, Filters(direction="directed", hidden={"a1"}), seeds={"s"})
    assert "a1" not in {n.id for n in directed.nodes} and [e.target for e in directed.edges] == ["p"]


def test_new_nodes_are_laid_out_around_the_expanded_node() -> None:
    canvas = layout.Canvas(640, 520)
    placed = layout.force(["s", "a", "b"], [("s", "a"), ("s", "b")], canvas)
    new = ["n1", "n2", "n3", "n4"]
    grown = layout.force(
        ["s", "a", "b", *new], [("s", "a"), ("s", "b"), *(("a", n) for n in new)], canvas, placed, around="a"
    )
    assert all(grown[k] == placed[k] for k in placed)
    far = max(abs(grown[n][0] - grown["a"][0]) + abs(grown[n][1] - grown["a"][1]) for n in new)
    assert far < 150
