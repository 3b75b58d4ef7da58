"""Evaluation sets: read HotpotQA/MuSiQue files, pool their passages and index them into a cached scratch graph.

Why the product indexer: the expansion arm is only worth measuring on the graph an analyst gets,
so the passages go through `run_index` (one passage = one small document). The graph lives under
benchmarks/.cache/<set>/ and the indexer is incremental, so a second run writes nothing.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from retrieval.config import Settings, load_settings
from retrieval.embed import make_embedder
from retrieval.indexing import document_id, run_index
from retrieval.indexing.model import StageProgress
from retrieval.store import GraphStore, open_store

CACHE = Path(__file__).resolve().parent / ".cache"
PROJECT = "eval"
PASSAGES = "passages"


@dataclass(frozen=True)
class Question:
    id: str
    text: str
    gold: frozenset[str]  # passage keys


@dataclass(frozen=True)
class EvalSet:
    name: str
    questions: list[Question]
    passages: dict[str, tuple[str, str]]  # key -> (title, text)
    #: Items left out because they carry no passages at all (no `context`/`paragraphs`, or an empty one).
    skipped_no_passages: int = 0

    def header(self, evaluated: int) -> str:
        """The results table's title: what was measured and what was left out, so a score is never read alone."""
        without_gold = sum(1 for q in self.questions if not q.gold)
        return (
            f"{self.name}: {evaluated} questions, {len(self.passages)} pooled passages; skipped "
            f"{self.skipped_no_passages} without passages, {without_gold} without a supporting passage"
        )


def passage_key(title: str, text: str) -> str:
    return hashlib.sha1(f"{title}\n{text.strip()}".encode()).hexdigest()[:16]


def _pairs(row: dict[str, Any]) -> list[tuple[str, str, bool]]:
    """(title, text, supporting) per passage of one item; empty when the item has none."""
    if "paragraphs" in row:
        return [(p["title"], p["paragraph_text"], bool(p.get("is_supporting"))) for p in row["paragraphs"] or []]
    gold_titles = {title for title, _n in row.get("supporting_facts") or []}
    return [(t, "".join(sentences), t in gold_titles) for t, sentences in row.get("context") or []]


def read_set(path: Path) -> EvalSet:
    """HotpotQA rows carry `context` + `supporting_facts`; MuSiQue rows carry `paragraphs[].is_supporting`.

    Items with no passages (some dataset exports drop `context` for unanswerable or test items) are counted and
    skipped: they cannot be retrieved against, and one of them used to end the run with a KeyError."""
    raw = path.read_text(encoding="utf-8")
    rows = (
        [json.loads(line) for line in raw.splitlines() if line.strip()] if path.suffix == ".jsonl" else json.loads(raw)
    )
    passages: dict[str, tuple[str, str]] = {}
    questions = []
    skipped = 0
    for row in rows:
        pairs = _pairs(row)
        if not pairs:
            skipped += 1
            continue
        gold = set()
        for title, text, supporting in pairs:
            key = passage_key(title, text)
            passages.setdefault(key, (title, text.strip()))
            if supporting:
                gold.add(key)
        questions.append(Question(str(row.get("_id") or row.get("id")), row["question"], frozenset(gold)))
    return EvalSet(path.stem, questions, passages, skipped)


def _file_name(title: str, key: str) -> str:
    return f"{re.sub(r'[^A-Za-z0-9]+', '_', title).strip('_')[:60]}-{key[:6]}.txt"


def eval_settings(folder: Path) -> Settings:
    return load_settings(
        _env_file=None, graph_path=folder / "graph.db", data_dir=folder, neo4j_uri=None, project=PROJECT, redis_url=None
    )


def wait_for_indexes(store: GraphStore, timeout_s: float = 600) -> None:
    """A reopened embedded graph rebuilds its indexes; queries fail until they are operational again."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and any(s.state != "OPERATIONAL" for s in store.index_states()):
        time.sleep(0.5)


def build_graph(data: EvalSet, *, verbose: bool = True) -> tuple[GraphStore, Settings, dict[str, str]]:
    """Open (building on first use) the set's graph; returns the store and document id -> passage key."""
    folder = CACHE / data.name
    docs = folder / PASSAGES
    docs.mkdir(parents=True, exist_ok=True)
    doc_to_key = {}
    for key, (title, text) in data.passages.items():
        name = _file_name(title, key)
        file = docs / name
        if not file.exists():
            file.write_text(f"{title}\n\n{text}\n", encoding="utf-8")
        doc_to_key[document_id(PROJECT, f"{PASSAGES}/{name}")] = key
    settings = eval_settings(folder)
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
        print(f"  indexed {len(report.added)} passages in {sum(report.seconds.values()):.0f} s: {report.written}")
    return store, settings, doc_to_key
