"""Graph quality of an indexed project: entity precision on a hand-labelled sample, community sizes per level.

Usage:
  python benchmarks/graph_quality.py --graph data/graph.db --project demo            # both tables
  python benchmarks/graph_quality.py --graph data/graph.db --project demo --sample   # draw a new sample to label

The sample is 100 entity titles drawn with a fixed seed from the graph the labels were made on; the
labels (benchmarks/data/demo_entity_labels.csv, see benchmarks/data/README.md) are kept by title, so
a rebuilt graph is scored on the same titles where they still exist. A label says whether the title is a
real entity and whether it is a person; an entity is correct when it is real and its type in the graph
does not confuse a person with a non-person, so a retyped entity is scored by its new type.
Precision = correct / labelled titles found in the graph; titles the rebuilt graph no longer has are
counted (a filter that removed a real entity shows up as a lost real entity, not as a better score).
"""

from __future__ import annotations

import argparse
import csv
import random
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._table import print_table
from retrieval.config import load_settings
from retrieval.store import GraphStore, open_store
from retrieval.store.base import ident

LABELS = Path(__file__).resolve().parent / "data" / "demo_entity_labels.csv"
SAMPLE_SEED = 18
SAMPLE_SIZE = 100


def entities(store: GraphStore, label: str, project: str) -> dict[str, str]:
    rows = store.read(
        f"MATCH (e:{ident(label)} {{projectId: $project}}) RETURN e.title AS title, e.type AS type",
        {"project": project},
    )
    return {str(r["title"]): str(r["type"]) for r in rows}


def community_sizes(store: GraphStore, entity_label: str, community_label: str, project: str) -> dict[int, list[int]]:
    """Entities beneath each community, by level (level-0 membership walked up the hierarchy)."""
    rows = store.read(
        f"MATCH (e:{ident(entity_label)} {{projectId: $project}})-[:IN_COMMUNITY]->(:{ident(community_label)})"
        f"-[:IN_COMMUNITY*0..6]->(k:{ident(community_label)}) "
        "RETURN k.level AS level, k.id AS id, count(DISTINCT e) AS n",
        {"project": project},
    )
    out: dict[int, list[int]] = {}
    for row in rows:
        out.setdefault(int(row["level"]), []).append(int(row["n"]))
    return {level: sorted(sizes, reverse=True) for level, sizes in sorted(out.items())}


@dataclass(frozen=True)
class Label:
    """A hand label: whether the title names a real entity or topic, and whether that is a person."""

    real: bool
    person: bool

    def correct(self, graph_type: str) -> bool:
        """Right when the entity is real and the graph does not confuse a person with a non-person."""
        return self.real and (graph_type == "PERSON") == self.person


def read_labels(path: Path = LABELS) -> dict[str, Label]:
    with path.open(encoding="utf-8") as f:
        return {row["title"]: Label(row["real"] == "1", row["person"] == "1") for row in csv.DictReader(f)}


def precision_rows(found: dict[str, str], labels: dict[str, Label]) -> list[list[object]]:
    present = {t: label.correct(found[t]) for t, label in labels.items() if t in found}
    correct = sum(present.values())
    return [
        ["labelled titles", len(labels)],
        ["still in the graph", len(present)],
        ["precision on those", correct / len(present) if present else 0.0],
        ["real entities, gone", sum(1 for t, label in labels.items() if label.real and t not in found)],
        ["junk, gone", sum(1 for t, label in labels.items() if not label.real and t not in found)],
        ["entities in the graph", len(found)],
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graph", type=Path, required=True, help="embedded graph file")
    parser.add_argument("--project", default="demo")
    parser.add_argument("--sample", action="store_true", help="print a new sample of titles to label (CSV)")
    args = parser.parse_args()
    settings = load_settings(_env_file=None, graph_path=args.graph, neo4j_uri=None, project=args.project)
    with open_store(settings) as store:
        found = entities(store, settings.entity_label, args.project)
        sizes = community_sizes(store, settings.entity_label, settings.community_label, args.project)
    if args.sample:
        picked = random.Random(SAMPLE_SEED).sample(sorted(found), SAMPLE_SIZE)
        print("title,type_when_labelled,real,person")
        for title in sorted(picked):
            print(f'"{title}",{found[title]},,')
        return
    print_table(f"Entity precision ({LABELS.name})", ["measure", "value"], precision_rows(found, read_labels()))
    print_table(
        "Community sizes (entities beneath) per level",
        ["level", "communities", "largest", "2nd", "median", "smallest", "largest share"],
        [
            [lvl, len(s), s[0], s[1] if len(s) > 1 else "-", statistics.median(s), s[-1], s[0] / len(found)]
            for lvl, s in sizes.items()
        ],
    )


if __name__ == "__main__":
    main()
