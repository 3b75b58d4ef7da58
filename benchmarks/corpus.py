"""Whole-corpus indexing benchmark: all 60 Behind the Tech episodes, cold, then one episode edited.

What it measures, in one process and one fresh embedded graph (no LLM):
- the cold run: seconds per stage and in all;
- the embedder alone on the very chunk texts the run embedded (the same embedder object, so the same
  ONNX session, batch size and threads, called in the same slices), right after the cold run: the
  limit the run's embed stage is compared with;
- everything that is not chunk embedding (total minus the embed stage), against the embed stage;
- an unchanged re-run, then one episode edited (a sentence added mid-way) and re-indexed: seconds,
  the texts sent to the embedder, and the communities written and deleted out of all there are.
The embed stage runs on its own thread while extraction runs in a process of its own (or, with
`--extract-processes 0`, on the caller's thread; retrieval/indexing/extract_process.py), so the stage seconds
add up to more than the total.

Usage: nice -n 10 .venv/bin/python benchmarks/corpus.py [--episodes N] [--extract-processes N] [--json]
       nice -n 10 .venv/bin/python benchmarks/corpus.py --small [--backend falkordb|neo4j|both]
           [--corpora small,long,joined]
Targets: cold <= 300 s; embed stage <= 1.2x the embedder alone; the rest <= 0.5x the embed stage; one edited
episode re-indexed <= 15 s, only its chunks embedded, only changed communities rewritten.
`--small` (many small documents): the MuSiQue train corpus (1,890 passages, one file each) indexed cold, next to
the same number of words of the podcast as whole episodes (the last one cut), and next to the same passages joined
into as many long documents as the podcast's words fill, each into a fresh graph of the backend, stage by stage,
with each run's CPU seconds (the indexer and its extraction process; not the graph server's), which the machine's
load blurs far less than wall seconds. Target: small documents take <= 2x the time of the long ones. Why the
joined passages too: the podcast holds ~14x fewer entities per word than Wikipedia prose, and the entities' and
communities' embeddings follow them, so "small / long" mixes the cost of small documents with the cost of what
they say; "small / joined" reads the same text both ways, so it is the cost of the documents being small alone.
`--corpora` builds only the named corpora (default all three; a ratio needs "small" and the other one): a
side-by-side of two branches spends its time on the builds it compares.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import backends  # noqa: E402
from benchmarks._table import print_table  # noqa: E402
from retrieval.embed import Embedder  # noqa: E402

ARCHIVE = ROOT.parent / "shared" / "data" / "demo" / "behind-the-tech" / "transcripts.zip"
PASSAGES = ROOT.parent / "shared" / "data" / "dev-eval" / "musique-train100" / "musique_train_corpus.json"
#: The edit: a sentence naming a new organisation, added at the paragraph break nearest the middle.
EDIT = "\n\nKevin later said the Contoso Robotics Institute had followed this work closely.\n\n"


class CountingEmbedder(Embedder):
    """The real embedder, counting the texts it is given (to show what a re-index embedded)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name = inner.name
        self.texts = 0

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.texts += len(texts)
        return self.inner.embed(texts)


def write_episodes(folder: Path, limit: int | None) -> int:
    """The episodes reassembled from the archive's parts (the demo's recipe), the first `limit` by name; words."""
    from scripts.build_demo_data import _slug, episode_texts

    episodes = sorted(episode_texts(ARCHIVE, episodes=None).items())[:limit]
    for episode, text in episodes:
        (folder / f"{_slug(episode)}.txt").write_text(text, encoding="utf-8")
    return sum(len(text.split()) for _e, text in episodes)


def _passages(source: Path) -> list[str]:
    """Each MuSiQue passage of `source` as a small document says it: title, blank line, text."""
    return [f"{row['title']}\n\n{row['text']}\n" for row in json.loads(source.read_text(encoding="utf-8"))]


def write_passages(folder: Path, source: Path = PASSAGES) -> int:
    """One small document per MuSiQue passage; words."""
    words = 0
    for i, text in enumerate(_passages(source)):
        (folder / f"passage-{i:04d}.txt").write_text(text, encoding="utf-8")
        words += len(text.split())
    return words


def write_words(folder: Path, budget: int) -> int:
    """Whole episodes until `budget` words, the last one cut at the budget (on a line break); words."""
    from scripts.build_demo_data import _slug, episode_texts

    words = 0
    for episode, text in sorted(episode_texts(ARCHIVE, episodes=None).items()):
        kept: list[str] = []
        for line in text.splitlines(keepends=True):
            if words >= budget:
                break
            kept.append(line)
            words += len(line.split())
        if kept:
            (folder / f"{_slug(episode)}.txt").write_text("".join(kept), encoding="utf-8")
        if words >= budget:
            break
    return words


def write_joined(folder: Path, documents: int, source: Path = PASSAGES) -> int:
    """The MuSiQue passages in their order, as `write_passages` writes each, joined into `documents` files of about
    the same number of words (a passage is never split); words."""
    passages = _passages(source)
    words = sum(len(p.split()) for p in passages)
    groups: list[list[str]] = [[] for _ in range(documents)]
    seen = 0
    for passage in passages:
        groups[min(seen * documents // words, documents - 1)].append(passage)
        seen += len(passage.split())
    for i, group in enumerate(groups):
        (folder / f"joined-{i:02d}.txt").write_text("\n".join(group), encoding="utf-8")
    return words


CORPORA = ("small", "long", "joined")


def small_documents(chosen: Sequence[str], corpora: Sequence[str] = CORPORA) -> None:
    """Cold indexing of many small documents next to the same number of words in long ones (the podcast's) and
    the same passages joined into long ones, per backend: those of `corpora` (CORPORA's names), in CORPORA's order."""
    from retrieval.embed import make_embedder
    from retrieval.indexing import graph_stats, run_index

    rows: list[list[object]] = []
    load_start = os.getloadavg()
    with backends.neo4j_env(tuple(chosen)) as neo4j, tempfile.TemporaryDirectory() as tmp:
        small, long, joined = Path(tmp) / "small", Path(tmp) / "long", Path(tmp) / "joined"
        for folder in (small, long, joined):
            folder.mkdir()
        words = write_passages(small)
        write_words(long, words)
        write_joined(joined, len(list(long.glob("*.txt"))))
        for backend in chosen:
            built: dict[str, list[object]] = {}
            for name, folder in (("small", small), ("long", long), ("joined", joined)):
                if name not in corpora:
                    continue
                settings = backends.settings_for(backend, Path(tmp) / f"{backend}-{name}", neo4j, project=name)
                store = backends.open_empty(settings)
                try:
                    started, cpu = time.perf_counter(), cpu_seconds()
                    with CoresBusy() as busy:
                        embedder = make_embedder(settings)
                        report = run_index(settings, store, embedder, [folder], project=name, on_progress=busy.heard)
                    seconds, cpu = time.perf_counter() - started, cpu_seconds() - cpu
                    stats = graph_stats(store, settings, name)
                finally:
                    store.close()
                stages = ", ".join(f"{k} {v:.0f}" for k, v in sorted(report.seconds.items(), key=lambda kv: -kv[1]))
                counts = [stats["documents"], stats["chunks"], stats["entities"]]
                built[name] = [backend, name, *counts, seconds, cpu, stages, busy.summary()]
                rows.append(built[name])
            for name in ("long", "joined"):
                if "small" not in built or name not in built:
                    continue
                ratio = [built["small"][i] / built[name][i] for i in (5, 6)]  # type: ignore[operator]
                rows.append([backend, f"small / {name}", "", "", "", *ratio, "target <= 2 (seconds)", ""])
    load = " / ".join(", ".join(f"{x:.1f}" for x in la) for la in (load_start, os.getloadavg()))
    print_table(
        f"Many small documents vs the same {words:,} words in long ones: the podcast's (long) and the same passages "
        f"joined (joined); cold, no LLM; load start / end {load}",
        ["backend", "corpus", "documents", "chunks", "entities", "seconds", "CPU s", "stages (s)", CoresBusy.HEADER],
        rows,
    )


class CoresBusy:
    """Where the wall time goes that the CPU does not explain: the run's CPU (the indexer, its extraction process
    and the graph server, all threads; psutil, sampled every SAMPLE_SECONDS) per stage of the run's own thread,
    the stage it last heard start and not end. Stages on a worker (the embeddings) run beside those; a stage at
    ~1 core of 2 left one idle."""

    HEADER = "by the indexer's stage: wall s / cores busy"
    SAMPLE_SECONDS = 0.5

    def __init__(self) -> None:
        import psutil

        self._me = psutil.Process()
        self._stage = "start"
        self._open: list[str] = []
        self._spent: dict[str, list[float]] = {}  # stage -> [wall s, CPU s]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def heard(self, event: Any) -> None:
        """`run_index`'s progress: a stage starts at done 0 and ends at done == total."""
        if event.done >= event.total:
            self._open = [s for s in self._open if s != event.stage]
        elif event.stage not in self._open:
            self._open.append(event.stage)
        self._stage = self._open[-1] if self._open else "between stages"

    def _cpu(self) -> float:
        import psutil

        total = 0.0
        for proc in [self._me, *self._me.children(recursive=True)]:
            try:
                times = proc.cpu_times()
            except psutil.Error:  # the extraction process ended between the listing and the read
                continue
            total += times.user + times.system + times.children_user + times.children_system
        return total

    def _sample(self) -> None:
        last_wall, last_cpu = time.perf_counter(), self._cpu()
        while not self._stop.wait(self.SAMPLE_SECONDS):
            wall, cpu = time.perf_counter(), self._cpu()
            spent = self._spent.setdefault(self._stage, [0.0, 0.0])
            spent[0] += wall - last_wall
            spent[1] += max(cpu - last_cpu, 0.0)  # a child gone since the last sample takes its CPU with it
            last_wall, last_cpu = wall, cpu

    def __enter__(self) -> CoresBusy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def summary(self) -> str:
        rows = sorted(self._spent.items(), key=lambda kv: -kv[1][0])
        return ", ".join(f"{stage} {wall:.0f} / {cpu / wall:.2f}" for stage, (wall, cpu) in rows if wall >= 1)


def edit_one(folder: Path) -> str:
    """Add a sentence to the middle of the first episode; its file name."""
    path = sorted(folder.glob("*.txt"))[0]
    text = path.read_text(encoding="utf-8")
    breaks = [m.start() for m in re.finditer(r"\n\n", text)] or [len(text) // 2]
    at = min(breaks, key=lambda i: abs(i - len(text) // 2))
    path.write_text(text[:at] + EDIT + text[at:].lstrip("\n"), encoding="utf-8")
    return path.name


def chunk_texts(settings: Any, folder: Path) -> list[str]:
    """The chunk texts the run embedded: loaded and chunked as the pipeline does it."""
    from retrieval.indexing.code_chunking import chunk_source
    from retrieval.indexing.sources import LoadLimits, load

    docs = load([folder], LoadLimits.of(settings)).documents
    return [
        c.text for d in docs for c in chunk_source(d.path, d.text, None, settings.chunk_tokens, settings.chunk_overlap)
    ]


def cpu_seconds() -> float:
    """CPU time of this process, all threads, plus its finished children: the extraction process is joined at
    the end of its run, so it counts; the graph server runs on and does not. On a shared machine it says what
    the run cost, where wall seconds also say how busy the machine was."""
    return sum(
        usage.ru_utime + usage.ru_stime
        for usage in (resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN))
    )


def embed_alone(embedder: Embedder, texts: list[str]) -> float:
    """Seconds for the embedder alone over `texts`, in the pipeline's slices."""
    from retrieval.indexing.run_state import EMBED_STEP

    started = time.perf_counter()
    for start in range(0, len(texts), EMBED_STEP):
        embedder.embed(texts[start : start + EMBED_STEP])
    return time.perf_counter() - started


def measure(limit: int | None, threads: int, extract_processes: int | None) -> dict[str, Any]:
    from retrieval.config import load_settings
    from retrieval.embed import make_embedder
    from retrieval.indexing import graph_stats, run_index
    from retrieval.store import open_store

    out: dict[str, Any] = {"load_average_start": os.getloadavg()}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "behind-the-tech"
        folder.mkdir()
        out["words"] = write_episodes(folder, limit)
        settings = load_settings(
            _env_file=None,
            graph_path=Path(tmp) / "graph.db",
            data_dir=Path(tmp),
            project="btt",
            embedding_threads=threads,
            **({} if extract_processes is None else {"extract_processes": extract_processes}),
        )
        out["extract_processes"] = settings.extract_processes
        out["embedding_threads"] = getattr(make_embedder(settings), "threads", None)
        embedder = CountingEmbedder(make_embedder(settings))
        with open_store(settings) as store:
            started, cpu = time.perf_counter(), cpu_seconds()
            cold = run_index(settings, store, embedder, [folder], project="btt")
            out["cold_seconds"] = time.perf_counter() - started
            out["cold_cpu_seconds"] = cpu_seconds() - cpu
            out["stages"] = cold.seconds
            stats = graph_stats(store, settings, "btt")
            out.update({k: stats[k] for k in ("documents", "chunks", "entities", "relationships", "communities")})
            texts = chunk_texts(settings, folder)
            out["alone_texts"] = len(texts)
            cpu = cpu_seconds()
            out["alone_seconds"] = embed_alone(embedder.inner, texts)
            out["alone_cpu_seconds"] = cpu_seconds() - cpu
            started = time.perf_counter()
            run_index(settings, store, embedder, [folder], project="btt")
            out["rerun_seconds"] = time.perf_counter() - started
            out["edited"] = edit_one(folder)
            embedder.texts = 0
            started = time.perf_counter()
            edit = run_index(settings, store, embedder, [folder], project="btt")
            out["edit_seconds"] = time.perf_counter() - started
            out["edit_stages"] = edit.seconds
            out["edit_written"] = edit.written
            out["edit_embedded_texts"] = embedder.texts
            out["edit_updated"] = edit.updated
            out["communities_after_edit"] = graph_stats(store, settings, "btt")["communities"]
    out["load_average_end"] = os.getloadavg()
    return out


def report(r: dict[str, Any]) -> None:
    stages = r["stages"]
    embed = stages["embed"]
    other = r["cold_seconds"] - embed
    alone_rate = r["alone_texts"] / r["alone_seconds"]
    rows: list[tuple[str, object]] = [
        ("documents / words / chunks", f"{r['documents']} / {r['words']:,} / {r['chunks']:,}"),
        ("entities / relationships", f"{r['entities']:,} / {r['relationships']:,}"),
        ("communities per level", json.dumps(r["communities"])),
        ("embedder threads (ONNX Runtime intra-op)", r["embedding_threads"]),
        ("extraction processes (0: in the indexer's process)", r.get("extract_processes", "")),
        ("cold run, s (target <= 300)", r["cold_seconds"]),
        ("  CPU seconds of the indexer process and its extraction process", r.get("cold_cpu_seconds", "")),
        *((f"  stage {name}, s", stages[name]) for name in sorted(stages, key=lambda s: -stages[s])),
        ("embed stage, chunks/s", r["chunks"] / embed),
        ("embedder alone on the same chunks, s", r["alone_seconds"]),
        ("embedder alone, chunks/s", alone_rate),
        ("  CPU seconds of the embedder alone", r.get("alone_cpu_seconds", "")),
        ("embed stage / embedder alone (target <= 1.2)", embed / r["alone_seconds"]),
        ("everything else (cold - embed stage), s", other),
        ("everything else / embed stage (target <= 0.5)", other / embed),
        ("unchanged re-run, s", r["rerun_seconds"]),
        ("one episode edited: re-index, s (target <= 15)", r["edit_seconds"]),
        ("  texts embedded (chunks of that episode + entities + communities)", r["edit_embedded_texts"]),
        ("  chunks written", r["edit_written"].get("chunks", 0)),
        (
            "  entities written / deleted",
            f"{r['edit_written'].get('entities', 0)} / {r['edit_written'].get('entities_deleted', 0)}",
        ),
        (
            "  communities written / deleted (of all)",
            f"{r['edit_written'].get('communities', 0)} / "
            f"{r['edit_written'].get('communities_deleted', 0)} (of {sum(r['communities_after_edit'].values())})",
        ),
        *((f"  edit stage {name}, s", v) for name, v in sorted(r["edit_stages"].items(), key=lambda kv: -kv[1])[:6]),
        (
            "load average at start / end",
            " / ".join(", ".join(f"{x:.1f}" for x in la) for la in (r["load_average_start"], r["load_average_end"])),
        ),
    ]
    print_table("Whole-corpus indexing (no LLM)", ("measure", "value"), rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=int, help="only the first N episodes (by name), for a quick run")
    parser.add_argument("--threads", type=int, default=0, help="embedding_threads (0: one per core)")
    parser.add_argument(
        "--extract-processes", type=int, help="extract_processes (default: the setting's; 0: extract in-process)"
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--small", action="store_true", help="many small documents vs long ones (see above)")
    parser.add_argument(
        "--corpora", default=",".join(CORPORA), help="with --small: the corpora to build, comma-separated (see above)"
    )
    backends.add_argument(parser)
    args = parser.parse_args()
    if args.small:
        corpora = args.corpora.split(",")
        if unknown := set(corpora) - set(CORPORA):
            parser.error(f"--corpora: unknown {', '.join(sorted(unknown))} (choose from {', '.join(CORPORA)})")
        small_documents(backends.chosen(args), corpora)
        return
    result = measure(args.episodes, args.threads, args.extract_processes)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        report(result)


if __name__ == "__main__":
    main()
