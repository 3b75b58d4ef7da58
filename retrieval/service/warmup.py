"""Warm the graph the service serves before `/health` says it is ready.

Why: a freshly indexed or freshly restarted Neo4j has cold index readers, query plans and a JVM that has compiled
none of the read path yet. Its first minute under load measured 13.3% of searches shed at 50 clients against
0-1.8% once warm (docs/benchmarks.md, "Service on Neo4j"): the first users paid for the warm-up. So the service
searches its own graph first, as its clients will (the search every endpoint starts from, through the Engine:
chunk and entity vector and fulltext indexes, the bridge, the drift-scored walk), `api_max_concurrent` at a time,
until the searches stop getting faster or `api_warmup_s` is spent, and `/health` answers 503 "warming" meanwhile
so that an orchestrator or a load balancer sends no traffic yet. Requests that come anyway are served.

"Stop getting faster" is judged on windows of searches (`Settling`), each against the one four windows before it,
not on single rounds: a freshly indexed Neo4j's searches halve over the first ~60 and then keep falling 3-5% per 32
for several hundred more, in steps and with noise. A rule that waited for a new best round stopped after ~40
searches, one that compared each window with the last after ~100, both well above the warm latency, and left the
rest of the cold start to the first clients (docs/benchmarks.md, "Service on Neo4j").

The questions come from the graph itself, not from a list: the project names first, then the titles of the
entities and documents each search found (a vector search finds neighbours for any text), so the warm-up reads
wherever the graph has data, on any corpus, and needs no read of its own.
"""

from __future__ import annotations

import logging
import statistics
import threading
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from retrieval.engine import Engine
from retrieval.errors import DriftLensError
from retrieval.models import QueryParams
from retrieval.search.graph_search import GraphSearch

log = logging.getLogger("driftlens.service")

#: Searches per window: the median search of each window is compared with the one SPAN windows before it.
WINDOW = 32
#: Windows between the two compared: a cold Neo4j's searches still fall 3-5% a window after the first steep ones
#: (a window against the one just before it stopped there, at 1.5x the level 500 searches later), so the trend is
#: read over four windows.
SPAN = 4
#: A window's median must be this much faster than the one SPAN windows before to count as still warming.
IMPROVEMENT = 0.9
#: Most scopes warmed: the whole graph, and the first projects by name (each scope is its own set of statements).
MAX_SCOPES = 4
#: Questions kept waiting; each search offers a few more than a round uses.
MAX_QUEUED = 256
#: New questions taken from one search's result.
PER_RESULT = 6


class Settling:
    """Whether searches stopped getting faster: each full window of `window` searches is compared with the one
    `span` windows before it, and the graph counts as warm at the first window whose median search is not
    `improvement` times that one's (so `span + 1` windows at least). Medians of whole windows, not single rounds: a
    round is as slow as its slowest search, and on a busy machine one slow search says nothing about the graph."""

    def __init__(self, window: int = WINDOW, improvement: float = IMPROVEMENT, span: int = SPAN) -> None:
        self.window = window
        self.improvement = improvement
        self.span = span
        self.medians_ms: list[float] = []
        self._current: list[float] = []

    def add(self, searches_ms: list[float]) -> bool:
        """Record a round's search times; True once a window ends no faster than the one `span` before it."""
        self._current.extend(searches_ms)
        settled = False
        while len(self._current) >= self.window:
            self.medians_ms.append(statistics.median(self._current[: self.window]))
            del self._current[: self.window]
            medians = self.medians_ms
            settled = settled or (
                len(medians) > self.span and medians[-1] >= self.improvement * medians[-1 - self.span]
            )
        return settled


@dataclass
class Progress:
    """What the warm-up did so far: searches, each round's wall time, when it started and why it stopped."""

    searches: int = 0
    rounds_ms: list[float] = field(default_factory=list)
    settling: Settling = field(default_factory=Settling)
    started: float = 0.0
    seconds: float = 0.0
    stopped: str = ""


class Warmup:
    """Searches the graph in the background until it is warm or `budget_s` is spent; `warming` until then.

    Bounded twice: the thread stops after the round that crosses `budget_s`, and `warming` turns False at
    `budget_s` whatever that round does (a search stuck on a hung graph never holds readiness; `/health`'s graph
    check then says what is wrong)."""

    def __init__(self, budget_s: float, slots: int) -> None:
        self.budget_s = budget_s
        self.slots = slots
        self.progress = Progress()
        self._deadline = 0.0
        self._done = threading.Event()
        self._stop = threading.Event()

    @property
    def warming(self) -> bool:
        """True from `start` until the warm-up ended or its budget is spent."""
        return self._deadline > 0 and not self._done.is_set() and time.monotonic() < self._deadline

    def start(self, engine: Engine) -> None:
        if self.budget_s <= 0:
            return
        self.progress.started = time.monotonic()
        self._deadline = self.progress.started + self.budget_s
        thread = threading.Thread(target=self._run, args=(engine,), name="warm-up", daemon=True)
        thread.start()

    def stop(self) -> None:
        self._stop.set()

    def describe(self) -> str:
        """While warming: what it did so far, for `/health`."""
        p = self.progress
        return (
            f"warming the graph: {p.searches} searches in {time.monotonic() - p.started:.1f} s of at most "
            f"{self.budget_s:g} s (DRIFTLENS_API_WARMUP_S); ready once searches stop getting faster"
        )

    def outcome(self) -> str | None:
        """After warming: how it ended, for `/health`; None when the warm-up is off or never started."""
        p = self.progress
        if not p.started:
            return None
        if not self._done.is_set():
            return f"ready after the warm-up's budget of {self.budget_s:g} s ({p.searches} searches so far)"
        return f"warmed in {p.seconds:.1f} s: {p.searches} searches, {p.stopped}"

    def _run(self, engine: Engine) -> None:
        log.info("warming the graph: searches until they stop getting faster, at most %g s", self.budget_s)
        try:
            self.progress.stopped = self._rounds(engine)
        except DriftLensError as exc:  # the graph's own state: /health's check reports it
            self.progress.stopped = f"a search failed: {exc}"
            log.warning("the warm-up stopped: %s", exc)
        except Exception as exc:  # a warm-up that fails must not leave the service unready: it serves, and logs why
            self.progress.stopped = f"a search failed: {type(exc).__name__}"
            log.error("the warm-up stopped", exc_info=exc)
        finally:
            p = self.progress
            p.seconds = time.monotonic() - p.started
            self._done.set()
            rounds = p.rounds_ms
            log.info(
                "warm-up done in %.1f s: %d searches, %d rounds of %d; first round %.0f ms, last %.0f ms, best %.0f ms;"
                " median search per window of %d: %s ms (%s)",
                p.seconds,
                p.searches,
                len(rounds),
                self.slots,
                rounds[0] if rounds else 0.0,
                rounds[-1] if rounds else 0.0,
                min(rounds, default=0.0),
                p.settling.window,
                ", ".join(f"{m:.0f}" for m in p.settling.medians_ms) or "-",
                p.stopped,
            )

    def _rounds(self, engine: Engine) -> str:
        projects = engine.projects()
        scopes: list[str | None] = [None, *projects[: MAX_SCOPES - 1]]
        questions = Questions(projects or ["warm-up"])
        params = engine.params()
        with ThreadPoolExecutor(max_workers=self.slots, thread_name_prefix="warm-up") as pool:
            while True:
                if self._stop.is_set():
                    return "the service stopped"
                if time.monotonic() >= self._deadline:
                    return f"the budget of {self.budget_s:g} s was spent"
                batch = [
                    (questions.next(), scopes[(self.progress.searches + i) % len(scopes)]) for i in range(self.slots)
                ]
                started = time.perf_counter()
                found = list(pool.map(lambda job: _timed(engine, params, *job), batch))
                rounds = self.progress.rounds_ms
                rounds.append((time.perf_counter() - started) * 1000)
                self.progress.searches += len(batch)
                for result, _ms in found:
                    questions.offer(result)
                if not any(result.chunks for result, _ms in found) and len(rounds) == 1:
                    return "the graph has nothing to search"
                if self.progress.settling.add([ms for _result, ms in found]):
                    return "searches stopped getting faster"


def _timed(engine: Engine, params: QueryParams, question: str, project: str | None) -> tuple[GraphSearch, float]:
    started = time.perf_counter()
    found = engine.search(question, params, project=project, every_project=project is None)
    return found, (time.perf_counter() - started) * 1000


class Questions:
    """The warm-up's questions: the given ones, then titles the searches found, each asked once while new ones
    come (then the asked ones again, in turn)."""

    def __init__(self, first: list[str]) -> None:
        self._waiting: deque[str] = deque(first)
        self._seen = set(first)
        self._asked: deque[str] = deque(maxlen=MAX_QUEUED)

    def next(self) -> str:
        question = self._waiting.popleft() if self._waiting else self._asked.popleft()
        self._asked.append(question)
        return question

    def offer(self, found: GraphSearch) -> None:
        titles = [
            *(str(e.metadata.get("title") or "") for e in [*found.seeds, *found.neighbours]),
            *(c.document_name or "" for c in found.chunks),
        ]
        taken = 0
        for title in titles:
            if taken >= PER_RESULT or len(self._waiting) >= MAX_QUEUED:
                return
            if title and title not in self._seen:
                self._seen.add(title)
                self._waiting.append(title)
                taken += 1
