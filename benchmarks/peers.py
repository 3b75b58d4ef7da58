"""Neo4j search next to its peers: DriftLens's modes and the Neo4j retrievers users already have, side by side.

Usage: make bench-peers   (or: .venv-bench/bin/python benchmarks/peers.py [DATASET ...] [--limit N] [--before DIR])
Runs in its own environment (.venv-bench: the project's requirements plus requirements-bench.txt), since the
peers are benchmark dependencies, never product ones. Per dev set it starts a Neo4j 5 (tools/neo4j; or uses the
server NEO4J_URI names, whose database then holds one set at a time), indexes the set's pooled passages with
DriftLens (benchmarks/eval_data.py: one passage = one document), and asks every system each question in turn,
in a rotating order, so that load on the machine hits all systems alike. Every system reads the same Neo4j
database, DriftLens's own chunks and indexes, and gets the same MiniLM query vector (embedding is not timed).
Peers: neo4j-graphrag's VectorRetriever and HybridRetriever, and agent-framework-neo4j's context provider in its
vector, fulltext and hybrid modes (it wraps neo4j-graphrag's retrievers). Scored as benchmarks/eval_retrieval.py
scores: evidence Recall@2/5/10 and all-gold@10 over distinct passages; latency is the client's wall time per call.
Ratios are to neo4j-graphrag's HybridRetriever, the peer the targets name (docs/benchmarks.md).
`--before DIR` adds the DriftLens systems of another checkout (e.g. `git worktree add DIR main`), run by
benchmarks/peers_before.py in a child process and asked in the same rotation: before and after in one run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import backends
from benchmarks._table import print_table
from benchmarks.eval_data import EvalSet, Question, build_graph, read_set
from benchmarks.eval_retrieval import FETCH, passages, score
from retrieval.config import Settings
from retrieval.context import Context
from retrieval.embed import make_embedder
from retrieval.models import Hit, QueryParams
from retrieval.search.hybrid import search_chunks
from retrieval.search.ranking import retrieve

DEV_EVAL = Path(__file__).resolve().parents[2] / "shared" / "data" / "dev-eval"
DEFAULT_SETS = (DEV_EVAL / "hotpotqa_dev200.jsonl", DEV_EVAL / "musique-train100" / "musique_train.json")
#: Questions asked of every system before timing starts (connection pools, plan caches, JIT).
WARMUP = 5
REFERENCE = "neo4j-graphrag HybridRetriever"
#: A system: question and its vector -> document ids, best first.
System = Callable[[Question, list[float]], list[str]]


@dataclass
class Tally:
    metrics: dict[str, float] = field(default_factory=dict)
    ms: list[float] = field(default_factory=list)
    errors: int = 0
    round_trips: int = 0


class RoundTrips:
    """Counts the statements DriftLens's store sends (the driver's `execute_query` and sessions' `run`)."""

    def __init__(self, store: object) -> None:
        self.count = 0
        driver = getattr(store, "_driver", None)
        if driver is None:
            return
        execute, session = driver.execute_query, driver.session

        def counted_execute(*args: Any, **kwargs: Any) -> Any:
            self.count += 1
            return execute(*args, **kwargs)

        def counted_session(*args: Any, **kwargs: Any) -> Any:
            opened = session(*args, **kwargs)
            run = opened.run

            def counted_run(*a: Any, **k: Any) -> Any:
                self.count += 1
                return run(*a, **k)

            opened.run = counted_run
            return opened

        driver.execute_query, driver.session = counted_execute, counted_session


def driftlens_systems(ctx: Context) -> dict[str, System]:
    base = QueryParams.from_settings(ctx.settings, top_k=FETCH, filters={})

    def docs(hits: list[Hit]) -> list[str]:
        return [h.document_id or "" for h in hits]

    def chunks(**overrides: object) -> System:
        params = base.model_copy(update=overrides)
        return lambda q, v: docs(search_chunks(ctx, q.text, params, query_vector=v))

    default = base.model_copy(update={"max_hops": max(1, base.max_hops)})

    def ranked(walk: bool) -> System:
        return lambda q, v: docs(retrieve(ctx, q.text, default, query_vector=v, walk=walk).chunks)

    # The ranking is what is scored; the walk (the neighbours local mode and the service show) does not change it
    # and is what a caller reading `Retrieval.expansion` pays on top: both are timed.
    return {
        "DriftLens default (hybrid + graph)": ranked(walk=False),
        "DriftLens default + walk (expansion read)": ranked(walk=True),
        "DriftLens hybrid, no graph": chunks(),
        "DriftLens vector only": chunks(search_type="vector"),
    }


def peer_systems(
    settings: Settings, vectors: dict[str, list[float]]
) -> tuple[dict[str, System], RoundTrips, Callable[[], None]]:
    """The peers over the same database and indexes; returns them, the round trips of neo4j-graphrag's driver
    (agent-framework-neo4j opens its own, not counted) and what closes their connections."""
    import agent_framework
    import neo4j

    if not hasattr(agent_framework, "BaseContextProvider"):
        # agent-framework-neo4j 0.5.4 subclasses the name agent-framework-core had before the project's pinned
        # 1.23 renamed it ContextProvider; only the provider's search step runs here, which does not touch it.
        agent_framework.BaseContextProvider = agent_framework.ContextProvider
    from agent_framework_neo4j import Neo4jContextProvider
    from neo4j_graphrag.embeddings import Embedder
    from neo4j_graphrag.retrievers import HybridRetriever, VectorRetriever
    from neo4j_graphrag.types import RetrieverResultItem

    class Known(Embedder):  # type: ignore[misc]
        """The question's precomputed vector: every system gets the same one and none pays for embedding."""

        def embed_query(self, text: str) -> list[float]:
            return vectors[text]

    password = settings.neo4j_password.get_secret_value() if settings.neo4j_password else ""
    auth = (settings.neo4j_username, password)
    driver = neo4j.GraphDatabase.driver(settings.neo4j_uri or "", auth=auth)
    trips = RoundTrips(SimpleNamespace(_driver=driver))
    vector_index, fulltext_index = settings.chunk_vector_index, settings.chunk_fulltext_index or ""

    def formatter(record: neo4j.Record) -> RetrieverResultItem:
        return RetrieverResultItem(content="", metadata={"document_id": record["node"].get("document_id")})

    common = {"return_properties": ["document_id"], "result_formatter": formatter}
    vector = VectorRetriever(driver, vector_index, Known(), **common)
    hybrid = HybridRetriever(driver, vector_index, fulltext_index, Known(), **common)

    def graphrag(retriever: Any, *, text: bool) -> System:
        def run(q: Question, v: list[float]) -> list[str]:
            found = retriever.search(query_vector=v, top_k=FETCH, **({"query_text": q.text} if text else {}))
            return [str(item.metadata.get("document_id")) for item in found.items]

        return run

    loop = asyncio.new_event_loop()
    providers = {
        mode: Neo4jContextProvider(
            uri=settings.neo4j_uri,
            username=settings.neo4j_username,
            password=password,
            index_name=fulltext_index if mode == "fulltext" else vector_index,
            fulltext_index_name=fulltext_index if mode == "hybrid" else None,
            index_type=mode,
            embedder=Known(),
            top_k=FETCH,
            retrieval_query="RETURN node.document_id AS document_id, score",
        )
        for mode in ("vector", "fulltext", "hybrid")
    }
    for provider in providers.values():
        loop.run_until_complete(provider.__aenter__())

    def agent(provider: Any) -> System:
        def run(q: Question, _v: list[float]) -> list[str]:
            found = loop.run_until_complete(provider._execute_search(q.text))  # its retrieval step
            return [str((item.metadata or {}).get("document_id")) for item in found.items]

        return run

    def close() -> None:
        for provider in providers.values():
            loop.run_until_complete(provider.__aexit__(None, None, None))
        loop.close()
        driver.close()

    systems = {
        "neo4j-graphrag VectorRetriever": graphrag(vector, text=False),
        REFERENCE: graphrag(hybrid, text=True),
        **{f"agent-framework-neo4j {mode}": agent(p) for mode, p in providers.items()},
    }
    return systems, trips, close


def run_set(data: EvalSet, path: Path, neo4j: dict[str, object], limit: int | None, before: Path | None) -> None:
    questions = [q for q in data.questions if q.gold][:limit]
    store, settings, doc_to_key = build_graph(data, **neo4j)
    embedder = make_embedder(settings)
    ctx = Context(settings, store, embedder, None, settings.project)
    vectors = {q.text: v.tolist() for q, v in zip(questions, embedder.embed([q.text for q in questions]), strict=True)}
    peers, peer_trips, close = peer_systems(settings, vectors)
    systems = {**driftlens_systems(ctx), **peers}
    earlier = Before(before, path, settings) if before else None
    names = [*(earlier.names if earlier else []), *systems]
    tallies = {name: Tally() for name in names}
    own_trips = RoundTrips(store)

    def sent() -> int:
        return own_trips.count + peer_trips.count

    warmup = min(WARMUP, len(questions))
    for i, index in enumerate([*range(warmup), *range(len(questions))]):
        timed, question = i >= warmup, questions[index]
        for j in range(len(names)):
            name = names[(i + j) % len(names)]  # rotate who goes first
            if earlier and name in earlier.names:
                docs, elapsed, trips = earlier.search(name, index)
            else:
                before_trips, started = sent(), time.perf_counter()
                try:
                    docs = systems[name](question, vectors[question.text])
                except Exception as exc:  # a peer refusing a question (Lucene syntax) is a result, not a crash
                    docs = []
                    tallies[name].errors += timed
                    if timed and tallies[name].errors == 1:
                        print(f"  {name}: {type(exc).__name__}: {str(exc)[:160]}")
                elapsed, trips = (time.perf_counter() - started) * 1000, sent() - before_trips
            if timed:
                tally = tallies[name]
                tally.ms.append(elapsed)
                tally.round_trips += trips
                for metric, value in score(passages_of(docs, doc_to_key), question.gold).items():
                    tally.metrics[metric] = tally.metrics.get(metric, 0.0) + value
    if earlier:
        earlier.close()
    close()
    store.close()
    report(data, len(questions), tallies)


class Before:
    """Another checkout's DriftLens systems in a child process (`peers_before.py`), asked in the same rotation:
    a change measured before and after in one run, on one database, under the same load."""

    def __init__(self, checkout: Path, dataset: Path, settings: Settings) -> None:
        password = settings.neo4j_password.get_secret_value() if settings.neo4j_password else ""
        env = {**os.environ, "NEO4J_URI": settings.neo4j_uri or "", "NEO4J_USERNAME": settings.neo4j_username}
        self._child = subprocess.Popen(
            [sys.executable, str(Path(__file__).with_name("peers_before.py")), str(checkout), str(dataset),
             str(settings.data_dir)],
            env={**env, "NEO4J_PASSWORD": password}, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        self.names: list[str] = json.loads(self._line())

    def _line(self) -> str:
        assert self._child.stdout is not None
        line = self._child.stdout.readline()
        if not line:
            raise RuntimeError(f"the --before child stopped (exit {self._child.wait()})")
        return line

    def search(self, name: str, index: int) -> tuple[list[str], float, int]:
        """The document ids, the search's own wall time (ms) and its statements."""
        assert self._child.stdin is not None
        self._child.stdin.write(f"{name}\t{index}\n")
        self._child.stdin.flush()
        found = json.loads(self._line())
        return [str(d) for d in found["docs"]], float(found["ms"]), int(found["trips"])

    def close(self) -> None:
        assert self._child.stdin is not None
        self._child.stdin.close()
        self._child.wait()


def passages_of(docs: list[str], doc_to_key: dict[str, str]) -> list[str]:
    return passages([Hit(id=d, kind="chunk", text="", score=0.0, document_id=d) for d in docs], doc_to_key)


def report(data: EvalSet, n: int, tallies: dict[str, Tally]) -> None:
    ref = tallies[REFERENCE]
    ref50, ref95 = percentile(ref.ms, 50), percentile(ref.ms, 95)
    rows = []
    for name, t in tallies.items():
        p50, p95 = percentile(t.ms, 50), percentile(t.ms, 95)
        m = [t.metrics.get(k, 0.0) / n for k in ("R@2", "R@5", "R@10", "all-gold@10")]
        trips = f"{t.round_trips / n:.1f}" if t.round_trips else "-"
        rows.append([name, *m, p50, p95, p50 / ref50, p95 / ref95, trips, t.errors])
    header = ["system", "R@2", "R@5", "R@10", "all-gold@10", "p50 ms", "p95 ms", "p50 x ref", "p95 x ref"]
    header += ["round trips", "errors"]
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print_table(f"{data.header(n)}; ref = {REFERENCE}; load {load}", header, rows)


def percentile(values: list[float], pct: int) -> float:
    if len(values) < 2:
        return values[0] if values else 0.0
    return statistics.quantiles(values, n=100, method="inclusive")[pct - 1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datasets", nargs="*", type=Path, default=list(DEFAULT_SETS))
    parser.add_argument("--limit", type=int, default=None, help="only the first N questions of each set")
    parser.add_argument(
        "--before",
        type=Path,
        default=None,
        help="a checkout of an earlier DriftLens: its systems too, as 'before: ...'",
    )
    args = parser.parse_args()
    for path in args.datasets:
        with backends.neo4j_env(("neo4j",)) as neo4j:
            run_set(read_set(path), path, neo4j, args.limit, args.before)


if __name__ == "__main__":
    main()
