"""A watch on the embedded graph server while statements wait for it: a server that has stopped working is killed.

Why: FalkorDB can deadlock (FalkorDB/FalkorDB#2129, open upstream): every server thread waits on a lock, the
process uses no CPU, and nothing it was sent is ever answered: a write would wait the whole loading timeout (10
minutes), and every read after it would time out, until someone restarted the server by hand. A short socket
timeout cannot tell this apart from work (a large batch legitimately takes minutes), but a server working on a
statement uses CPU. So while any statement waits, this watch reads the server process's CPU time; if it has not
moved for `stall_s`, the server is taken for stuck and killed. Each waiting caller then sees its connection drop,
which is the lost-connection path the store already has: the server is started again under the graph's lock, a
read is sent again, and a write is reported unconfirmed (or sent again where that is safe). SIGKILL loses
nothing confirmed: every write reached the append-only log before it was confirmed.

One watch per open store, with one thread that sleeps while nothing waits: entering and leaving a statement is a
counter under a lock, cheap enough for every read of a search.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Iterator

import psutil

from retrieval.store.server_process import kill_pid

log = logging.getLogger(__name__)


class StallWatch:
    """Kills server `pid` when statements have waited on it for `stall_s` during which it used no CPU."""

    def __init__(self, stall_s: float, is_server: Callable[[int], bool]) -> None:
        """`is_server` checks that a pid still is the graph's server before it is killed (pids are reused). It
        must not hold the store: the watch's thread would keep a store dropped unclosed alive."""
        #: The server the store talks to now; the store sets it on every (re)connect.
        self.pid = 0
        self._is_server = is_server
        self.stall_s = stall_s
        self._waiting = 0
        self._lock = threading.Lock()
        self._busy = threading.Condition(self._lock)
        self._closed = False
        self._thread: threading.Thread | None = None

    @contextlib.contextmanager
    def waiting(self) -> Iterator[None]:
        """The block sends a statement to the server and waits for its reply."""
        with self._lock:
            self._waiting += 1
            if self._thread is None:
                self._thread = threading.Thread(target=self._watch, name="graph-stall-watch", daemon=True)
                self._thread.start()
            self._busy.notify()
        try:
            yield
        finally:
            with self._lock:
                self._waiting -= 1

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._busy.notify()

    def _watch(self) -> None:
        step = min(1.0, self.stall_s / 5)
        while True:
            with self._lock:
                while not self._waiting and not self._closed:
                    self._busy.wait()
                if self._closed:
                    return
            self._watch_busy_spell(step)

    def _watch_busy_spell(self, step: float) -> None:
        """From the moment something waits until nothing does, the server changes, or it is killed."""
        pid = self.pid
        progress = CpuProgress(pid, self.stall_s)
        while True:
            time.sleep(step)
            with self._lock:
                if not self._waiting or self._closed:
                    return
            if progress.gone or self.pid != pid:
                return  # gone (the callers hear it from their sockets) or restarted: the next spell watches anew
            if progress.stalled():
                self._kill(pid)
                return

    def _kill(self, pid: int) -> None:
        if not self._is_server(pid):
            return
        log.warning(
            "embedded graph server (pid %d) used no CPU for %g s while statements waited for it: taken for stuck "
            "(FalkorDB#2129) and restarted",
            pid,
            self.stall_s,
        )
        kill_pid(pid)


class CpuProgress:
    """Whether process `pid` has used any CPU within the last `stall_s`, read each time `stalled` is asked.

    Why a class of its own: the statement watch above and the server's start (`embedded_server`, which can
    deadlock while replaying its log) both tell a stuck server from a busy one by its CPU time."""

    def __init__(self, pid: int, stall_s: float) -> None:
        self.pid = pid
        self.stall_s = stall_s
        self._last = _cpu_seconds(pid)
        self._since = time.monotonic()

    @property
    def gone(self) -> bool:
        """The process had exited when it was first read."""
        return self._last is None

    def stalled(self) -> bool:
        """True once the process's CPU time has not moved for `stall_s` (or it has exited meanwhile)."""
        now = _cpu_seconds(self.pid)
        if now is not None and now != self._last:
            self._last, self._since = now, time.monotonic()
            return False
        return now is None or time.monotonic() - self._since >= self.stall_s


def _cpu_seconds(pid: int) -> float | None:
    """The process's user + system CPU time (all its threads), None when there is no such process."""
    if not pid:
        return None
    try:
        times = psutil.Process(pid).cpu_times()
    except psutil.Error:
        return None
    return float(times.user + times.system)
