"""Graph quality of the demo graph, before and after, side by side: precision, duplicates, artefacts, titles, time.

Usage:
  # build both graphs at once (same machine load), time them, score them:
  nice -n 10 python benchmarks/graph_quality.py --build OUT_DIR --before-src ../wt-base [--project demo]
  # score two graphs already built:
  python benchmarks/graph_quality.py --before A/graph.db --after B/graph.db
  # draw items to label from one graph (CSV on stdout):
  python benchmarks/graph_quality.py --graph G --sample 160 --seed 25
  python benchmarks/graph_quality.py --graph G --titles 40 --seed 25
  # score one graph of another corpus on its own labels (a dev set's graph: benchmarks/eval_data.py's cache):
  python benchmarks/graph_quality.py --graph benchmarks/.cache/musique_train/graph.db --project eval \
      --labels benchmarks/data/musique_entity_labels.csv --duplicates benchmarks/data/musique_duplicate_groups.csv
  # the same for the graph of episodes the demo does not hold (benchmarks/unseen_graph.py), with its title labels:
  python benchmarks/graph_quality.py --graph benchmarks/.cache/unseen-102/graph.db --project unseen \
      --labels benchmarks/data/demo_entity_labels_unseen.csv --duplicates benchmarks/data/unseen_duplicate_groups.csv \
      --title-labels benchmarks/data/unseen_community_title_labels.csv

Labels (benchmarks/data/README.md) are kept by title, so a rebuilt graph is scored on the same items where
they still exist: entity precision on the held-out 160-entity sample (target >= 0.92), on the earlier
rounds' held-out, the fresh 160-entity and the older 100-entity ones (all read while tuning); among the 200
highest-degree entities, those that are the same real thing as another entity of the graph (target <= 2%; top-200 titles
no group lists are printed as "not reviewed"); transcript artefacts among all entities, by rule
(`ARTEFACT`, target 0); community titles unique within each level and the judged share of labelled titles
that name their topic (target >= 80%); indexing seconds (target <= 1.2x).
An entity is correct when it is real and its type does not confuse a person with a non-person.
"""

from __future__ import annotations

import argparse
import csv
import os
import random
import re
import subprocess
import sys
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._table import print_table
from retrieval.config import load_settings
from retrieval.store import open_store

DATA = Path(__file__).resolve().parent / "data"
OLD_LABELS = DATA / "demo_entity_labels.csv"
FRESH_LABELS = DATA / "demo_entity_labels_fresh.csv"
#: Drawn from the graph of issue #25's precision round after its rules were written (the fresh sample was read);
#: read while writing the next round's rules, so tuning data since.
TUNED_LABELS = DATA / "demo_entity_labels_heldout.csv"
#: Drawn from the graph of the round after (given names, counted acronyms...), labelled before it was scored;
#: read while writing the next round's rules (thing evidence, lists of people...), so tuning data since.
TUNED2_LABELS = DATA / "demo_entity_labels_heldout2.csv"
#: Drawn from the graph of that next round, labelled before it was scored; read while writing the round after
#: (coordinated names, plural phrases), so tuning data since.
TUNED3_LABELS = DATA / "demo_entity_labels_heldout3.csv"
#: Drawn from the graph of that round after, labelled before it was scored; its errors were listed to the next
#: round (a word inside a title, "moved to X", "a product called X") as the kinds to fix, so tuning data since.
TUNED4_LABELS = DATA / "demo_entity_labels_heldout4.csv"
#: Drawn from the graph of that next round, labelled before it was scored; its errors were listed to the round
#: after (acronyms counted as a kind, people typed as things), so tuning data since.
TUNED5_LABELS = DATA / "demo_entity_labels_heldout5.csv"
#: Drawn from the graph of that round after (people typed as things), labelled before it was scored; its errors
#: were read while writing the next round's rules (full names in lists of people, titles), so tuning data since.
TUNED6_LABELS = DATA / "demo_entity_labels_heldout6.csv"
#: Drawn from the graph of that next round, labelled before it was scored; its errors were listed to the round
#: after (lone plurals, things typed PERSON), so tuning data since.
TUNED7_LABELS = DATA / "demo_entity_labels_heldout7.csv"
#: Drawn from the graph of that round after, labelled before it was scored; its errors were listed to the next
#: round (fragments of titles, acronyms of a kind, people's types), so tuning data since.
TUNED8_LABELS = DATA / "demo_entity_labels_heldout8.csv"
#: Drawn from main's graph while that next round's rules were written, labelled before any score of it.
HELDOUT_LABELS = DATA / "demo_entity_labels_heldout9.csv"
DUPLICATES = DATA / "demo_duplicate_groups.csv"
TITLE_LABELS = DATA / "demo_community_title_labels.csv"
TOP = 200
#: Transcript artefacts: stage directions, show/episode slugs and addresses, upper-case speaker-tag fragments.
ARTEFACT = re.compile(
    r"(?i:crosstalk|voiceover|inaudible|laughter|laughs|applause|\bmusic\b|\bep\b|\bepisode \d|\bpodcast\b|@|"
    r"https?:|www\.|\bep-\d|behind-the-tech)|^[A-Z][A-Z'’.\-]+(?: [A-Z][A-Z'’.\-]+)+$"
)


@dataclass
class Graph:
    """What the measures read from one built graph."""

    types: dict[str, str] = field(default_factory=dict)
    degree: dict[str, int] = field(default_factory=dict)
    titles: dict[int, list[str]] = field(default_factory=dict)
    seconds: float | None = None


def read_graph(path: Path, project: str) -> Graph:
    settings = load_settings(_env_file=None, graph_path=path, neo4j_uri=None, project=project)
    graph = Graph()
    with open_store(settings) as store:
        for row in store.read(
            "MATCH (e:__Entity__ {projectId: $p}) RETURN e.title AS t, e.type AS type, e.degree AS d", {"p": project}
        ):
            graph.types[str(row["t"])] = str(row["type"])
            graph.degree[str(row["t"])] = max(graph.degree.get(str(row["t"]), 0), int(row["d"] or 0))
        for row in store.read(
            "MATCH (k:__Community__ {projectId: $p}) RETURN k.level AS l, k.title AS t", {"p": project}
        ):
            graph.titles.setdefault(int(row["l"]), []).append(str(row["t"]))
    return graph


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as f:
        return list(csv.DictReader(f))


def precision(graph: Graph, path: Path, half: str | None = None) -> tuple[float, int, int]:
    """(precision on the labelled titles still in the graph, how many are, real ones gone); with `half`, only the
    rows of that part of a sample split for tuning (the `half` column: "tune" or "heldout")."""
    rows = [r for r in _rows(path) if half is None or r.get("half") == half]
    labels = {r["title"]: (r["real"] == "1", r["person"] == "1") for r in rows}
    present = [t for t in labels if t in graph.types]
    correct = sum(1 for t in present if labels[t][0] and (graph.types[t] == "PERSON") == labels[t][1])
    gone = sum(1 for t, (real, _p) in labels.items() if real and t not in graph.types)
    return (correct / len(present) if present else 0.0), len(present), gone


def duplicates(graph: Graph, path: Path = DUPLICATES) -> tuple[int, int, list[str]]:
    """(top entities that are the same thing as another entity, top entities no group lists, those titles)."""
    reviewed = _rows(path)
    group_of = {r["title"]: r["group"] for r in reviewed if r["group"]}
    members: dict[str, set[str]] = defaultdict(set)
    for title in graph.types:
        if title in group_of:
            members[group_of[title]].add(title)
    top = sorted(graph.degree, key=lambda t: (-graph.degree[t], t))[:TOP]
    dup = sum(1 for t in top if t in group_of and len(members[group_of[t]]) > 1)
    unknown = [t for t in top if t not in {r["title"] for r in reviewed}]
    return dup, len(unknown), unknown


def title_scores(graph: Graph) -> tuple[str, dict[str, tuple[float, int]]]:
    """('unique/total' per level, per label set (the `graph` column: which graph's titles were drawn) the judged
    share of its labelled titles this graph has, and how many it has)."""
    sets: dict[str, dict[tuple[int, str], bool]] = defaultdict(dict)
    for r in _rows(TITLE_LABELS):
        sets[r["graph"]][(int(r["level"]), r["title"])] = r["names_topic"] == "1"
    unique = " ".join(f"L{lvl} {len(set(t))}/{len(t)}" for lvl, t in sorted(graph.titles.items()))
    shares = {}
    for name, labels in sets.items():
        found = [ok for (lvl, title), ok in labels.items() if title in graph.titles.get(lvl, [])]
        shares[name] = (sum(found) / len(found) if found else 0.0, len(found))
    return unique, shares


def build(out: Path, sources: dict[str, Path], project: str) -> dict[str, float]:
    """Build the demo graph from each source tree at the same time (one machine load for both); seconds each."""

    def one(name: str) -> float:
        folder = out / name
        folder.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "DRIFTLENS_DATA_DIR": str(folder)}
        env.pop("NEO4J_URI", None)
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "retrieval", "demo", "--project", project],
            cwd=sources[name],
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        return time.perf_counter() - started

    with ThreadPoolExecutor(len(sources)) as pool:
        return dict(zip(sources, pool.map(one, sources), strict=True))


def report(graphs: dict[str, Graph]) -> None:
    names = list(graphs)
    rows: list[list[object]] = []

    def add(measure: str, target: str, values: list[object]) -> None:
        rows.append([measure, target, *values])

    tuning = (
        TUNED8_LABELS,
        TUNED7_LABELS,
        TUNED6_LABELS,
        TUNED5_LABELS,
        TUNED4_LABELS,
        TUNED3_LABELS,
        TUNED2_LABELS,
        TUNED_LABELS,
        FRESH_LABELS,
        OLD_LABELS,
    )
    for path, target in ((HELDOUT_LABELS, ">= 0.92"), *((p, "") for p in tuning)):
        scored = [precision(g, path) for g in graphs.values()]
        add(f"precision, {path.name}", target, [f"{p:.3f} (n={n})" for p, n, _g in scored])
        add("  real entities gone", "", [g for _p, _n, g in scored])
    add("entities", "", [len(g.types) for g in graphs.values()])
    dups = [duplicates(g) for g in graphs.values()]
    add(f"duplicates in top {TOP}", "<= 2%", [f"{d} ({d / TOP:.1%})" for d, _u, _l in dups])
    add(f"  top {TOP} not reviewed", "", [u for _d, u, _l in dups])
    add("artefacts (rule)", "0", [sum(1 for t in g.types if ARTEFACT.search(t)) for g in graphs.values()])
    scores = [title_scores(g) for g in graphs.values()]
    add("community titles unique", "all", [u for u, _s in scores])
    for label_set in scores[0][1]:
        add(
            f"titles naming the topic, labels '{label_set}'",
            ">= 80%",
            [f"{s[label_set][0]:.0%} (n={s[label_set][1]})" if s[label_set][1] else "-" for _u, s in scores],
        )
    seconds = [g.seconds for g in graphs.values()]
    if all(s is not None for s in seconds):
        add("demo build seconds", "", [f"{s:.0f}" for s in seconds if s is not None])
        first = seconds[0] or 1.0
        add("  ratio to before", "<= 1.2x", [f"{(s or 0) / first:.2f}x" for s in seconds])
    print_table("Graph quality of the demo graph", ["measure", "target", *names], rows)
    for name, (_d, _u, unknown) in zip(names, dups, strict=True):
        if unknown:
            print(f"{name}: top-{TOP} titles no duplicate group lists (review): {', '.join(unknown)}")
    print(f"load: {os.getloadavg()}")


def score_one(graph: Graph, labels: Path, groups: Path | None, title_labels: Path | None = None) -> None:
    """One graph of another corpus (or other episodes) on its own labels: the demo's held-out sets and titles do
    not apply; `title_labels` (`level,title,names_topic`, as carol_community_title_labels.csv) are its titles'."""
    rows: list[list[object]] = []
    halves = sorted({r.get("half") or "" for r in _rows(labels)} - {""}, reverse=True)
    for half in (None, *halves):
        p, n, gone = precision(graph, labels, half)
        rows.append([f"precision, {labels.name}" + (f", {half} half" if half else ""), ">= 0.92", f"{p:.3f} (n={n})"])
        rows.append(["  real entities gone", "", gone])
    rows.append(["entities", "", len(graph.types)])
    unknown: list[str] = []
    if groups:
        dup, _u, unknown = duplicates(graph, groups)
        rows += [
            [f"duplicates in top {TOP}", "<= 2%", f"{dup} ({dup / TOP:.1%})"],
            [f"  top {TOP} not reviewed", "", len(unknown)],
        ]
    rows.append(["artefacts (rule)", "0", sum(1 for t in graph.types if ARTEFACT.search(t))])
    rows.append(
        [
            "community titles unique",
            "all",
            " ".join(f"L{k} {len(set(t))}/{len(t)}" for k, t in sorted(graph.titles.items())),
        ]
    )
    if title_labels:
        judged = [
            r["names_topic"] == "1" for r in _rows(title_labels) if r["title"] in graph.titles.get(int(r["level"]), [])
        ]
        share = sum(judged) / len(judged) if judged else 0.0
        rows.append([f"titles naming the topic, {title_labels.name}", ">= 80%", f"{share:.0%} (n={len(judged)})"])
    print_table("Graph quality of one graph", ["measure", "target", "graph"], rows)
    if unknown:
        print(f"top-{TOP} titles no duplicate group lists (review): {', '.join(unknown)}")
    print(f"load: {os.getloadavg()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="embedded graph built by the old code")
    parser.add_argument("--after", type=Path, help="embedded graph built by this code")
    parser.add_argument("--build", type=Path, help="folder to build both graphs in (needs --before-src)")
    parser.add_argument("--before-src", type=Path, help="source tree of the old code (a git worktree)")
    parser.add_argument("--graph", type=Path, help="graph to draw a sample from")
    parser.add_argument("--sample", type=int, help="print this many entity titles to label")
    parser.add_argument("--titles", type=int, help="print this many community titles to label")
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument("--label-set", default="after", help="`graph` column of the title sample printed")
    parser.add_argument("--project", default="demo")
    parser.add_argument("--labels", type=Path, help="entity labels to score --graph on (CSV as the demo's)")
    parser.add_argument("--duplicates", type=Path, help="duplicate groups of --graph's corpus (with --labels)")
    parser.add_argument("--title-labels", type=Path, help="community title labels of --graph (with --labels)")
    args = parser.parse_args()
    if args.graph and args.labels:
        score_one(read_graph(args.graph, args.project), args.labels, args.duplicates, args.title_labels)
        return
    if args.graph:
        graph = read_graph(args.graph, args.project)
        out = csv.writer(sys.stdout, lineterminator="\n")
        if args.sample:
            for title in sorted(random.Random(args.seed).sample(sorted(graph.types), args.sample)):
                out.writerow([title, graph.types[title], "", ""])
        for level, title in _title_sample(graph, args.titles or 0, args.seed):
            out.writerow([args.label_set, level, title, ""])
        return
    seconds: dict[str, float] = {}
    if args.build:
        here = Path(__file__).resolve().parents[1]
        seconds = build(args.build, {"before": args.before_src, "after": here}, args.project)
        args.before, args.after = args.build / "before" / "graph.db", args.build / "after" / "graph.db"
    graphs = {"before": read_graph(args.before, args.project), "after": read_graph(args.after, args.project)}
    for name, s in seconds.items():
        graphs[name].seconds = s
    report(graphs)


def _title_sample(graph: Graph, n: int, seed: int) -> list[tuple[int, str]]:
    every = sorted((level, title) for level, titles in graph.titles.items() for title in titles)
    return sorted(random.Random(seed).sample(every, min(n, len(every)))) if n else []


if __name__ == "__main__":
    main()
