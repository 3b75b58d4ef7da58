"""What a running service shares between requests: the Engine once it is open, one gate, the health probe.

Why the Engine may be missing: a service whose graph does not answer at start (Neo4j still starting, or a network
away) starts anyway, answers `/health` 503 naming the graph it waits for, and opens the Engine in the background
once the graph answers. Exiting instead leaves an orchestrator a crash loop and no probe saying why. Every other
route answers 503 meanwhile (the `engine` property raises the graph's StoreUnavailable).

Once the Engine is open the service warms its graph (`warmup.py`) and `/health` answers 503 "warming" until done.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future

from retrieval.config import Settings
from retrieval.engine import Engine
from retrieval.errors import DriftLensError, StoreUnavailable
from retrieval.service import handlers, schemas
from retrieval.service.limits import Gate
from retrieval.service.warmup import Warmup

log = logging.getLogger("driftlens.service")

#: Seconds between attempts to open a graph that did not answer at start.
REOPEN_INTERVAL_S = 2.0
#: Longest `/health` waits for the graph before it answers 503: a probe that hangs is no probe (a hung embedded
#: server used to hold it 96 s). Under the 2 s a container's health check commonly allows.
HEALTH_DEADLINE_S = 1.5


class Service:
    def __init__(self, settings: Settings, engine: Engine | None = None) -> None:
        #: The service's settings (limits); the engine's may differ when an engine is passed in.
        self.settings = settings
        self.gate = Gate(settings.api_max_concurrent, settings.api_queue_wait_s, settings.api_request_timeout_s)
        self._engine = engine
        self._problem: DriftLensError | None = None
        self._closing = threading.Event()
        self._lock = threading.Lock()
        self._probe = HealthProbe(HEALTH_DEADLINE_S)
        self.warmup = Warmup(settings.api_warmup_s, settings.api_max_concurrent)
        if engine is not None:
            self.warmup.start(engine)

    @classmethod
    def open(cls, engine: Engine, settings: Settings | None = None) -> Service:
        """The gate's limits come from `settings` (the service's), else from the engine's."""
        return cls(settings or engine.settings, engine)

    @classmethod
    def starting(cls, settings: Settings, open_engine: Callable[[], Engine]) -> Service:
        """`open_engine()` now; when the graph does not answer, a service that keeps trying in the background.

        Any other failure (bad settings, another embedder's graph) is raised: it needs the operator, not time."""
        service = cls(settings)
        try:
            service._engine = open_engine()
            service.warmup.start(service._engine)
        except StoreUnavailable as exc:
            log.warning("starting without the graph; /health answers 503 until it answers: %s", exc)
            service._problem = exc
            opener = threading.Thread(target=service._keep_opening, args=(open_engine,), name="engine-opener")
            opener.daemon = True  # an open that hangs never holds up the process's exit
            opener.start()
        return service

    @property
    def engine(self) -> Engine:
        """The open Engine; raises why there is none yet (StoreUnavailable naming the graph: 503)."""
        engine = self._engine
        if engine is None:
            assert self._problem is not None
            raise self._problem.with_traceback(None)
        return engine

    def _keep_opening(self, open_engine: Callable[[], Engine]) -> None:
        while not self._closing.wait(REOPEN_INTERVAL_S):
            try:
                engine = open_engine()
            except StoreUnavailable as exc:
                if str(exc) != str(self._problem):
                    log.warning("the graph still does not answer: %s", exc)
                self._problem = exc
                continue
            except DriftLensError as exc:
                log.error("the graph answers, but the service cannot use it: %s", exc)
                self._problem = exc
                return
            with self._lock:
                if self._closing.is_set():
                    engine.close()
                    return
                self._engine = engine
            log.info("the graph answers: serving")
            self.warmup.start(engine)
            return

    async def health(self) -> schemas.HealthResponse:
        """The graph's health, within HEALTH_DEADLINE_S; before the Engine opened, why it has not; while the
        service warms its graph, unhealthy (503) with `warming` (the graph's own state reported as it is)."""
        engine = self._engine
        if engine is not None:
            state = await self._probe.check(engine)
            if self.warmup.warming:
                return state.model_copy(update={"healthy": False, "warming": True, "warmup": self.warmup.describe()})
            return state.model_copy(update={"warmup": self.warmup.outcome()})
        problem = self._problem
        uri = problem.uri if isinstance(problem, StoreUnavailable) else ""
        graph = schemas.GraphHealth(reachable=False, uri=uri, message=str(problem))
        return handlers.health_response(self.settings, graph)

    def close(self, *, engine_too: bool = True) -> None:
        self._closing.set()
        self.warmup.stop()
        self.gate.close()
        with self._lock:  # an Engine the opener finishes after this is closed by the opener
            engine = self._engine
        if engine_too and engine is not None:
            engine.close()


class HealthProbe:
    """One graph check at a time, in a thread of its own, awaited for at most `deadline_s`.

    Why one at a time: a check the deadline gave up on keeps waiting for the graph (the store's own timeout); a
    probe every few seconds against a hung graph would otherwise pile up a thread per probe. Later probes wait on
    the running check instead. Daemon threads: a hung check never holds up the process's exit.
    """

    def __init__(self, deadline_s: float) -> None:
        self.deadline_s = deadline_s
        self._running: Future[schemas.HealthResponse] | None = None

    async def check(self, engine: Engine) -> schemas.HealthResponse:
        if self._running is None or self._running.done():
            self._running = _in_thread(lambda: handlers.health(engine))
        try:
            return await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(self._running)), self.deadline_s)
        except TimeoutError:
            message = (
                f"The graph did not answer within {self.deadline_s:g} s; the check goes on in the background. "
                "Check that the database process runs and is not overloaded."
            )
            graph = schemas.GraphHealth(reachable=False, uri=engine.store.uri, message=message)
            return handlers.health_response(engine.settings, graph, engine)


def _in_thread[T](work: Callable[[], T]) -> Future[T]:
    future: Future[T] = Future()
    future.set_running_or_notify_cancel()

    def run() -> None:
        try:
            future.set_result(work())
        except BaseException as exc:
            future.set_exception(exc)

    threading.Thread(target=run, name="health-check", daemon=True).start()
    return future
