"""The demo graph for benchmarks: the 11 episodes `python -m retrieval demo` indexes, built offline under
benchmarks/.cache/demo/ on first use (the indexer is incremental, so later runs reuse it and write nothing).

Why its own copy and not the app's: a benchmark must not depend on (or change) the graph a developer has open.

Usage: python benchmarks/demo_graph.py   (builds it; a few minutes, once)
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.eval_data import CACHE, eval_settings, wait_for_indexes
from retrieval.cli.index import DEMO_DIR, DEMO_PROJECT
from retrieval.config import Settings
from retrieval.embed import make_embedder
from retrieval.indexing import run_index
from retrieval.indexing.model import StageProgress
from retrieval.store import GraphStore, open_store

FOLDER = CACHE / "demo"


def demo_settings() -> Settings:
    return eval_settings(FOLDER).model_copy(update={"project": DEMO_PROJECT})


def demo_episodes() -> list[Path]:
    """The transcripts the demo graph is made of, as the `demo` command picks them."""
    return sorted(DEMO_DIR.glob("*.txt"))


def open_demo_graph(*, verbose: bool = True) -> tuple[GraphStore, Settings]:
    """Open the cached demo graph, indexing what is missing (offline, no model: as `retrieval demo` does)."""
    return open_graph(FOLDER, demo_episodes(), DEMO_PROJECT, verbose=verbose)


def open_graph(
    folder: Path, episodes: list[Path], project: str, *, verbose: bool = True
) -> tuple[GraphStore, Settings]:
    """Open the embedded graph in `folder`, indexing what of `episodes` is missing, as the demo graph is built
    (benchmarks/unseen_graph.py builds other episodes the same way)."""
    folder.mkdir(parents=True, exist_ok=True)
    settings = eval_settings(folder).model_copy(update={"project": project})
    store = open_store(settings)
    wait_for_indexes(store)
    last: dict[str, int] = {}

    def show(tick: StageProgress) -> None:
        step = max(1, tick.total // 10)
        if verbose and tick.total > 1 and (tick.done == tick.total or tick.done - last.get(tick.stage, 0) >= step):
            last[tick.stage] = tick.done
            print(f"  index {project}: {tick.stage} {tick.done}/{tick.total}", file=sys.stderr, flush=True)

    report = run_index(settings, store, make_embedder(settings), episodes, project=project, on_progress=show)
    if verbose and report.changed:
        print(
            f"  indexed the {project} graph in {sum(report.seconds.values()):.0f} s: {report.written}", file=sys.stderr
        )
    return store, settings


if __name__ == "__main__":
    graph, _ = open_demo_graph()
    graph.close()
