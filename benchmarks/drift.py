"""DRIFT and global benchmarks: offline latency, parallel follow-ups, and how global map cost scales.

Usage:
  python benchmarks/drift.py --graph-dir DIR [--project demo] [--x4-graph-dir DIR --x4-project P] [--questions 10]
Without --graph-dir the demo corpus (data/demo/behind-the-tech) is indexed offline into a temp folder first
(a few minutes on 2 cores). The "4x" graph is any project about four times the demo's size (e.g. ~40
episodes of the full transcripts); pass it to get the second row of the global table.
Targets: offline DRIFT p95 <= 1.5 s per question; scripted fixed-delay wall <= 1.2 x critical path;
global map calls growing sub-linearly with the number of communities.
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._table import print_table
from retrieval.config import Settings, load_settings
from retrieval.context import Context
from retrieval.embed import Embedder, make_embedder
from retrieval.llm.client import ChatModel
from retrieval.models import QueryParams
from retrieval.modes import drift, global_mode
from retrieval.store import GraphStore, open_store
from tools.scripted_openai import ScriptedOpenAI, Step, json_reply, reply

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "data" / "demo" / "behind-the-tech"
DELAY = 0.5


def settings_for(graph_dir: Path, project: str, **overrides: Any) -> Settings:
    base: dict[str, Any] = {"graph_path": graph_dir / "graph.db", "data_dir": graph_dir, "project": project}
    base.update({"openai_api_key": None, "openai_base_url": None, "azure_openai_endpoint": None, "redis_url": None})
    base.update(overrides)
    return load_settings(_env_file=None, **base)


def questions(n: int) -> list[str]:
    with (DEMO / "global_questions.csv").open(encoding="utf-8-sig") as handle:
        return [row["question_text"] for row in csv.DictReader(handle)][:n]


def offline_drift(settings: Settings, store: GraphStore, embedder: Embedder, asked: list[str]) -> None:
    ctx = Context(settings, store, embedder, None, settings.project)
    params = QueryParams.from_settings(settings)
    drift.answer(ctx, "warm-up question", params, None)
    times, steps, facts = [], [], []
    for question in asked:
        started = time.perf_counter()
        answer = drift.answer(ctx, question, params, None)
        times.append(time.perf_counter() - started)
        steps.append(len(answer.trace))
        facts.append(len(answer.key_facts))
    p50, p95 = np.percentile(times, 50), np.percentile(times, 95)
    print_table(
        f"Offline DRIFT on project {settings.project} ({len(asked)} questions, rounds 2 x 3 follow-ups)",
        ["p50 s", "p95 s", "max s", "steps/answer", "key facts/answer", "target p95 s", "ok"],
        [[p50, p95, max(times), float(np.mean(steps)), float(np.mean(facts)), 1.5, "yes" if p95 <= 1.5 else "NO"]],
    )


def scripted_route(request: dict[str, Any]) -> Step:
    """Every call takes DELAY; the primer asks 3 follow-ups and each asks one more (so round 2 is full too)."""
    name = request.get("response_format", {}).get("json_schema", {}).get("name", "hyde")
    content = request["messages"][-1]["content"]
    target = content.split("[community ", 1)[1].split("]", 1)[0] if "[community " in content else ""
    if name == "drift_primer":
        ups = [{"question": f"Q{i}?", "target_communities": [target], "priority": 50 + i} for i in range(3)]
        return json_reply({"answer": "A.", "confidence": 0.5, "follow_ups": ups}, delay=DELAY)
    if name == "drift_followup":
        question = content.split("## Follow-up question\n", 1)[1].split("\n", 1)[0]
        child = [{"question": f"{question} more?", "target_communities": [target], "priority": 60}]
        body = {"answer": "B.", "citations": [], "confidence": 0.5, "should_continue": True, "follow_ups": child}
        return json_reply(body, delay=DELAY)
    if name == "drift_aggregate":
        return json_reply({"final_answer": "C.", "key_facts": [], "residual_uncertainty": ""}, delay=DELAY)
    if name == "global_map":
        return json_reply({"points": []}, delay=0.0)
    if name == "global_reduce":
        return json_reply({"final_answer": "", "key_facts": [], "residual_uncertainty": ""})
    return reply("Hypothetical answer.", delay=DELAY)


def scripted_drift(settings: Settings, store: GraphStore, embedder: Embedder, server: ScriptedOpenAI) -> None:
    llm_settings = settings.model_copy(update={"openai_base_url": server.base_url, "llm_concurrency": 4})
    ctx = Context(llm_settings, store, embedder, ChatModel(llm_settings), settings.project)
    params = QueryParams.from_settings(settings, drift_rounds=2, drift_followups_per_round=3)
    started = time.perf_counter()
    answer = drift.answer(ctx, questions(1)[0], params, None)
    wall = time.perf_counter() - started
    sequential = 5  # hyde -> primer -> round 1 -> round 2 -> aggregate
    critical = sequential * DELAY
    print_table(
        f"Scripted LLM, every call {DELAY:g} s (rounds 2 x 3 follow-ups, llm_concurrency 4)",
        ["LLM calls", "all calls serial s", "critical path s", "wall s", "wall / critical", "target", "ok"],
        [
            [
                answer.usage.llm_calls,
                answer.usage.llm_calls * DELAY,
                critical,
                wall,
                wall / critical,
                "<= 1.2",
                "yes" if wall <= 1.2 * critical else "NO",
            ]
        ],
    )


def map_calls(
    graphs: list[tuple[str, Settings, GraphStore]], embedder: Embedder, server: ScriptedOpenAI, n: int
) -> None:
    rows = []
    for label, settings, store in graphs:
        llm_settings = settings.model_copy(update={"openai_base_url": server.base_url})
        ctx = Context(llm_settings, store, embedder, ChatModel(llm_settings), settings.project)
        calls, selected, total = [], [], 0
        for question in questions(n):
            answer = global_mode.answer(ctx, question, QueryParams.from_settings(settings), None)
            select = answer.trace[0].details
            total = select["communities_at_level"]
            selected.append(select["selected"])
            calls.append(answer.usage.phases["map"].calls if "map" in answer.usage.phases else 0)
        batch = settings.global_map_batch
        rows.append(
            [label, total, float(np.mean(selected)), float(np.mean(calls)), max(calls), math.ceil(total / batch)]
        )
    print_table(
        f"Global search map calls (finest level, batch {graphs[0][1].global_map_batch}, {n} questions)",
        ["graph", "communities", "selected (mean)", "map calls (mean)", "map calls (max)", "without selection"],
        rows,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graph-dir", type=Path)
    parser.add_argument("--project", default="demo")
    parser.add_argument("--x4-graph-dir", type=Path)
    parser.add_argument("--x4-project", default="x4")
    parser.add_argument("--questions", type=int, default=10)
    args = parser.parse_args()
    graph_dir = args.graph_dir
    if graph_dir is None:
        from retrieval.indexing import run_index

        graph_dir = Path(tempfile.mkdtemp(prefix="drift-bench-"))
        settings = settings_for(graph_dir, args.project)
        with open_store(settings) as store:
            print(f"indexing {DEMO} into {graph_dir} ...", flush=True)
            run_index(settings, store, make_embedder(settings), [DEMO], project=args.project)
    settings = settings_for(graph_dir, args.project)
    embedder = make_embedder(settings)
    server = ScriptedOpenAI(embedding_dim=embedder.dim).start()
    server.script(router=scripted_route)
    try:
        with open_store(settings) as store:
            offline_drift(settings, store, embedder, questions(args.questions))
            scripted_drift(settings, store, embedder, server)
            graphs = [("demo", settings, store)]
            if args.x4_graph_dir is None:
                map_calls(graphs, embedder, server, args.questions)
            else:
                x4 = settings_for(args.x4_graph_dir, args.x4_project)
                with open_store(x4) as x4_store:
                    map_calls([*graphs, ("4x demo", x4, x4_store)], embedder, server, args.questions)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
