"""Graph layouts and label placement (pure Python): inside the canvas, stable across runs, expansions pinned and
bounded, labels clear of each other, untrusted names drawn as text."""

from __future__ import annotations

import itertools
import json
import random

import igraph
import pytest

from components import graph_view, label_placement, layout, network, trace_tree
from components.layout import Canvas
from retrieval.models import TraceStep
from retrieval.search.explore import GraphEdge, GraphNode, Subgraph

CANVAS = Canvas(640, 520)
#: Labels may touch by this many square pixels (anti-aliasing, rounding of the estimate), no more.
OVERLAP_TOLERANCE = 4.0


def _graph(n: int, seed: int = 7, components: int = 1) -> tuple[list[str], list[tuple[str, str]]]:
    """A scale-free graph of `n` nodes (like a neighbourhood: a few hubs, many leaves), in `components` parts."""
    ids, edges = [], []
    size = n // components
    for part in range(components):
        g = igraph.Graph.Barabasi(size, 2, start_from=None)
        random.Random(seed + part).shuffle(order := list(range(size)))
        names = [f"p{part}-n{order[i]}" for i in range(size)]
        ids += names
        edges += [(names[a], names[b]) for a, b in g.get_edgelist()]
    return ids, edges


def _subgraph(ids: list[str], edges: list[tuple[str, str]]) -> Subgraph:
    degree = {i: sum(i in e for e in edges) for i in ids}
    nodes = [
        GraphNode(i, f"Entity {i}", group=("PERSON", "ORG", "GPE")[int(i.rsplit("n", 1)[1]) % 3], degree=degree[i])
        for i in ids
    ]
    return Subgraph(nodes, [GraphEdge(a, b, "related") for a, b in edges])


@pytest.mark.parametrize(("n", "components"), [(1, 1), (2, 1), (40, 1), (300, 1), (120, 3)])
def test_every_node_lands_inside_the_canvas(n: int, components: int) -> None:
    ids, edges = _graph(n, components=components)

    positions = layout.force(ids, edges, CANVAS)

    assert set(positions) == set(ids)
    assert all(CANVAS.inside(p) for p in positions.values()), [p for p in positions.values() if not CANVAS.inside(p)]


def test_a_layout_fills_the_canvas_even_with_a_detached_part() -> None:
    ids, edges = _graph(60)
    ids += ["lonely-a", "lonely-b"]
    edges += [("lonely-a", "lonely-b")]

    positions = layout.force(ids, edges, CANVAS)

    main = [positions[i] for i in ids[:60]]
    width = max(x for x, _ in main) - min(x for x, _ in main)
    height = max(y for _, y in main) - min(y for _, y in main)
    assert width > 0.7 * (CANVAS.width - 2 * CANVAS.margin) and height > 0.7 * (CANVAS.height - 2 * CANVAS.margin)


def test_the_same_graph_gets_the_same_positions_on_every_run() -> None:
    ids, edges = _graph(150)
    random.seed(1)
    first = layout.force(ids, edges, CANVAS)
    random.seed(2)  # igraph draws from Python's random module: the layout must not
    again = layout.force(ids, edges, CANVAS)

    assert first == again


def test_expanding_keeps_placed_nodes_and_lands_new_ones_inside_the_canvas() -> None:
    ids, edges = _graph(80)
    placed = layout.force(ids, edges, CANVAS)
    border_node = max(placed, key=lambda i: placed[i][0])  # the rightmost node: its new neighbours have no room
    fresh = [f"new-{k}" for k in range(40)]
    grown_edges = [*edges, *((border_node, f) for f in fresh), *((fresh[k], fresh[k + 1]) for k in range(0, 39, 2))]

    grown = layout.force([*ids, *fresh], grown_edges, CANVAS, placed)
    again = layout.force([*ids, *fresh], grown_edges, CANVAS, placed)

    assert all(grown[i] == placed[i] for i in ids), "placed nodes moved"
    assert all(CANVAS.inside(grown[f]) for f in fresh), [grown[f] for f in fresh if not CANVAS.inside(grown[f])]
    assert grown == again
    near = sum(1 for f in fresh if abs(grown[f][0] - placed[border_node][0]) < CANVAS.width / 2)
    assert near > len(fresh) / 2, "new nodes start beside the node they were expanded from"


def test_placed_positions_outside_the_canvas_are_brought_back_in() -> None:
    positions = layout.force(["a", "b", "c"], [("a", "b"), ("b", "c")], CANVAS, {"a": (5000.0, -300.0)})

    assert all(CANVAS.inside(p) for p in positions.values())


def _overlaps(drawing: network.Drawing, positions: dict[str, tuple[float, float]], dots: list[network.Dot]) -> list:
    by_id = {d.id: d for d in dots}
    boxes = {
        i: label_placement.label_box(
            positions[i], by_id[i].size + (6 if by_id[i].selected else 0), by_id[i].label, side
        )
        for i, side in drawing.labelled.items()
    }
    return [(a, b) for a, b in itertools.combinations(boxes, 2) if boxes[a].overlap(boxes[b]) > OVERLAP_TOLERANCE]


@pytest.mark.parametrize("n", [30, 120, 300])
def test_labelled_nodes_never_overlap_and_the_important_ones_are_named(n: int) -> None:
    ids, edges = _graph(n)
    graph = _subgraph(ids, edges)
    positions = layout.force(ids, edges, CANVAS)
    seed, picked = ids[0], ids[-1]

    drawing = graph_view.drawing(graph, positions, CANVAS, strong=frozenset({seed}), selected=picked)
    dots = graph_view.dots(graph, strong=frozenset({seed}), selected=picked)

    assert {seed, picked} <= set(drawing.labelled)
    assert 0 < len(drawing.labelled) <= network.MAX_LABELS
    assert _overlaps(drawing, positions, dots) == []
    hub = max(graph.nodes, key=lambda node: node.degree).id
    assert hub in drawing.labelled or n > 100, "with room to spare the best-connected node is named"


def test_label_boxes_stay_on_the_canvas_and_off_other_markers() -> None:
    positions = {"a": (20.0, 260.0), "b": (320.0, 260.0), "c": (320.0, 283.0)}
    sizes = {"a": 12.0, "b": 12.0, "c": 12.0}

    placed = label_placement.place(
        ["a", "b", "c"], positions, sizes, {k: "A long entity name" for k in positions}, CANVAS
    )

    assert placed["a"] in ("bottom center", "top center", "middle right")  # left of it is off the canvas
    boxes = {k: label_placement.label_box(positions[k], sizes[k], "A long entity name", s) for k, s in placed.items()}
    for k, box in boxes.items():
        assert box.x0 >= 0 and box.x1 <= CANVAS.width
        for other in positions.keys() - {k}:
            assert box.overlap(label_placement.marker_box(positions[other], sizes[other])) == 0


def test_labels_near_the_edges_of_a_figure_drawn_narrower_face_inward() -> None:
    """A compare column draws a figure at part of its design width: positions shrink, text does not."""
    name, positions, sizes = (
        "A long entity name",
        {"left": (80.0, 200.0), "right": (560.0, 300.0)},
        {"left": 12.0, "right": 12.0},
    )
    narrow = Canvas(640, 520, narrowest=0.5)

    wide = label_placement.place(["left", "right"], positions, sizes, {k: name for k in positions}, CANVAS)
    placed = label_placement.place(["left", "right"], positions, sizes, {k: name for k in positions}, narrow)

    assert wide == {"left": "bottom center", "right": "bottom center"}  # room enough at the design width
    assert placed == {"left": "middle right", "right": "middle left"}
    for k, side in placed.items():  # drawn at half the width, each label still lies inside the plot
        x, y = positions[k]
        box = label_placement.label_box((x * 0.5, y), sizes[k], name, side)
        assert box.x0 >= 0 and box.x1 <= CANVAS.width * 0.5, (k, box)


def test_legend_lists_each_type_once_and_clicks_return_node_ids() -> None:
    ids, edges = _graph(30)
    graph = _subgraph(ids, edges)
    positions = layout.force(ids, edges, CANVAS)

    figure = graph_view.drawing(graph, positions, CANVAS).figure

    legend = [t.name for t in figure.data if t.showlegend is not False and t.name]
    assert sorted(legend) == ["organisation", "person", "place (GPE)"]
    nodes = [t for t in figure.data if t.customdata is not None]
    assert sorted(i for t in nodes for i in t.customdata) == sorted(ids)
    click = {"selection": {"points": [{"curve_number": 3, "point_index": 0, "customdata": nodes[0].customdata[0]}]}}
    assert network.picked(click) == nodes[0].customdata[0]
    assert network.picked({"selection": {"points": [{"curve_number": 0, "point_index": 4}]}}) is None
    assert network.picked(None) is None


def test_names_with_markup_are_drawn_as_text() -> None:
    hostile = '<a href="http://203.0.113.9/x">click</a> & <b>bold</b>'
    graph = Subgraph([GraphNode("x", hostile, group="PERSON", degree=3, description=hostile)], [])
    positions = layout.force(["x"], [], CANVAS)

    spec = json.loads(graph_view.drawing(graph, positions, CANVAS, selected="x").figure.to_json())

    drawn = json.dumps([(t.get("text"), t.get("hovertext"), t.get("name")) for t in spec["data"]])
    assert "<a" not in drawn and "<b>" not in drawn and "&lt;a href" in drawn


def test_the_drift_outline_gives_every_step_its_own_row_and_a_full_label() -> None:
    steps = [
        TraceStep(id="primer", kind="primer", question="How does Scrooge treat his clerk?", confidence=0.5),
        *(
            TraceStep(id=f"f{i}", parent_id="primer", kind="followup", round=1, question=f"What about clerk {i}?")
            for i in range(12)
        ),
        TraceStep(id="f12", parent_id="f3", kind="followup", round=2, question="And the fire? " * 20),
        TraceStep(id="aggregate", kind="aggregate", question="How does Scrooge treat his clerk?", round=2),
        TraceStep(id="empty"),  # a reserved follow-up that never ran: no row
    ]

    drawing = trace_tree.drawing(steps, selected="f12")
    positions = layout.outline([(s.id, s.parent_id) for s in steps[:-1]], indent=trace_tree.INDENT, row=trace_tree.ROW)

    assert set(drawing.labelled) == {s.id for s in steps[:-1]}
    rows = sorted(y for _, y in positions.values())
    assert all(b - a == trace_tree.ROW for a, b in itertools.pairwise(rows))
    assert positions["f12"][0] > positions["f3"][0] > positions["primer"][0]
    assert max(rows) == positions["aggregate"][1], "the aggregation closes the outline"
    texts = [t for trace in drawing.figure.data if trace.text for t in trace.text]
    assert all(label_placement.text_width(t) + 40 <= trace_tree.WIDTH for t in texts), (
        "labels are cut to fit the column"
    )
    assert drawing.figure.layout.hovermode == "y", "a click anywhere on a row picks its step"


def test_directed_relations_get_an_arrowhead_turned_towards_their_target() -> None:
    nodes = [GraphNode(id=i, label=i, kind="entity") for i in ("a", "b", "c")]
    edges = [GraphEdge("a", "b", "founded", directed=True), GraphEdge("b", "c", "co-occurs")]
    positions = {"a": (100.0, 100.0), "b": (300.0, 100.0), "c": (300.0, 300.0)}
    fig = network.figure(
        [network.Dot(n.id, n.label, (), "entity", "#888", 10) for n in nodes],
        positions,
        CANVAS,
        graph_view.lines(Subgraph(nodes, edges), positions),
    ).figure
    heads = [t for t in fig.data if t.marker is not None and t.marker.symbol == "arrow"]
    assert len(heads) == 1 and list(heads[0].x) == [250.0] and list(heads[0].y) == [100.0]
    assert list(heads[0].marker.angle) == [90.0]  # a -> b runs to the right: the arrow turns a quarter clockwise
