"""Evaluation sets: read HotpotQA/MuSiQue files, pool their passages and index them into a cached scratch graph.

Why the product indexer: the expansion arm is only worth measuring on the graph an analyst gets,
so the passages go through `run_index` (one passage = one small document). The graph lives under
benchmarks/.cache/<set>/ and the indexer is incremental, so a second run writes nothing.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from retrieval.config import Settings, load_settings
from retrieval.embed import make_embedder
from retrieval.indexing import document_id, run_index
from retrieval.indexing.model import StageProgress
from retrieval.store import GraphStore, open_store
from retrieval.tuning.question_sets import Question, QuestionSet, passage_key, read_set

__all__ = ["EvalSet", "Question", "build_graph", "eval_settings", "passage_key", "read_set"]

CACHE = Path(__file__).resolve().parent / ".cache"
PROJECT = "eval"
PASSAGES = "passages"


#: The harness's names for the question-set types (the Tuning lab reads the same files the same way).
EvalSet = QuestionSet


def _file_name(title: str, key: str) -> str:
    return f"{re.sub(r'[^A-Za-z0-9]+', '_', title).strip('_')[:60]}-{key[:6]}.txt"


def eval_settings(folder: Path, **overrides: object) -> Settings:
    """The set's scratch settings: the embedded graph in `folder`, or what `overrides` name (a Neo4j server)."""
    base: dict[str, object] = {
        "graph_path": folder / "graph.db",
        "data_dir": folder,
        "neo4j_uri": None,
        "project": PROJECT,
        "redis_url": None,
    }
    return load_settings(_env_file=None, **{**base, **overrides})


def wait_for_indexes(store: GraphStore, timeout_s: float = 600) -> None:
    """A reopened embedded graph rebuilds its indexes; queries fail until they are operational (Neo4j: online)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and any(s.state not in ("OPERATIONAL", "ONLINE") for s in store.index_states()):
        time.sleep(0.5)


def build_graph(
    data: EvalSet, *, verbose: bool = True, **overrides: object
) -> tuple[GraphStore, Settings, dict[str, str]]:
    """Open (building on first use) the set's graph; returns the store and document id -> passage key.

    `overrides` point the graph elsewhere (`neo4j_uri` and its credentials): a Neo4j graph keeps its data folder
    apart from the embedded one's, since what the indexer remembers must match the graph it wrote."""
    folder = CACHE / (f"{data.name}-neo4j" if overrides.get("neo4j_uri") else data.name)
    docs = folder / PASSAGES
    docs.mkdir(parents=True, exist_ok=True)
    doc_to_key = {}
    for key, passage in data.passages.items():
        name = _file_name(passage.title, key)
        file = docs / name
        if not file.exists():
            file.write_text(f"{passage.title}\n\n{passage.text}\n", encoding="utf-8")
        doc_to_key[document_id(PROJECT, f"{PASSAGES}/{name}")] = key
    settings = eval_settings(folder, **overrides)
    store = open_store(settings)
    last: dict[str, int] = {}

    def show(tick: StageProgress) -> None:
        step = max(1, tick.total // 10)
        if verbose and tick.total > 1 and (tick.done == tick.total or tick.done - last.get(tick.stage, 0) >= step):
            last[tick.stage] = tick.done
            print(f"  index {data.name}: {tick.stage} {tick.done}/{tick.total}", flush=True)

    wait_for_indexes(store)
    report = run_index(settings, store, make_embedder(settings), [docs], project=PROJECT, on_progress=show)
    if verbose and report.changed:
        stages = ", ".join(f"{stage} {s:.0f}" for stage, s in sorted(report.seconds.items(), key=lambda kv: -kv[1]))
        total = sum(report.seconds.values())
        print(f"  indexed {len(report.added)} passages in {total:.0f} s ({stages}): {report.written}")
    return store, settings, doc_to_key
