"""The deadline DriftLens itself enforces on statements written by people or models.

Why not trust the database's own timeout: neither database checks it inside a single expression. A
`reduce(s = '', x IN range(1, 1000000) | s + 'xxxxxxxxxx')` ran for minutes past its timeout on both, holding the
caller (and with it an answer slot of the service) the whole time. So the caller waits at most the timeout plus
`GRACE_S`; past that the backend's `stop` ends the statement its own way (Neo4j: terminate the transaction; the
embedded store: restart the graph server it owns, whose data is on disk) and the caller gets a `QueryError`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

from retrieval.errors import QueryError

T = TypeVar("T")

#: How much longer than its timeout a statement may run before DriftLens stops it: long enough for the database's
#: own (clearer) timeout error to arrive first whenever the database does stop the statement.
GRACE_S = 2.0
#: Statements written by people or models running at once per store, including any the database is still ending.
MAX_RUNNING = 4


class Deadline:
    """Runs calls with a deadline on a worker thread; a call that overruns is stopped and its caller set free."""

    def __init__(self, running: int = MAX_RUNNING) -> None:
        self._slots = threading.BoundedSemaphore(running)

    def run(self, call: Callable[[], T], seconds: float, stop: Callable[[], str]) -> T:
        """`call()`'s value or error within `seconds`; otherwise `stop()`, and a QueryError with the message it returns.

        The worker keeps its slot until the database lets go of the statement, so a flood of runaway statements
        cannot pile up: past MAX_RUNNING the next one is refused at once instead of queueing.
        """
        if not self._slots.acquire(blocking=False):
            raise QueryError(
                f"{MAX_RUNNING} earlier queries are still running or being stopped by the database; "
                "try again in a moment."
            )
        outcome: list[T] = []
        failure: list[BaseException] = []
        done = threading.Event()

        def work() -> None:
            try:
                outcome.append(call())
            except BaseException as exc:
                failure.append(exc)
            finally:
                self._slots.release()
                done.set()

        threading.Thread(target=work, name="driftlens-deadline", daemon=True).start()
        if not done.wait(seconds):
            raise QueryError(stop())
        if failure:
            raise failure[0]
        return outcome[0]
