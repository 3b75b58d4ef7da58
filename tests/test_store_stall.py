"""A write never waits on a stuck embedded server: the server is restarted (`retrieval/store/stall_watch.py`).

FalkorDB can deadlock (FalkorDB/FalkorDB#2129): all its threads wait and it uses no CPU. The stuck server is
stood in for by one frozen with SIGSTOP, which looks the same from outside (no CPU, no reply). The embedded
server only: Neo4j's writes run in its own transactions, not in a server process DriftLens starts.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import psutil
import pytest

from retrieval.errors import StoreUnavailable
from retrieval.store import open_store
from retrieval.store.embedded_server import EmbeddedServer, Limits
from retrieval.store.falkordb import FalkorDBStore
from tests.conftest import make_settings

STALL_S = 1.0


@pytest.fixture
def store(tmp_path: Path) -> Iterator[FalkorDBStore]:
    with open_store(make_settings(tmp_path, graph_stall_s=STALL_S)) as opened:
        assert isinstance(opened, FalkorDBStore)
        opened.write_batch("UNWIND $rows AS row CREATE (:Probe {id: row.id})", [{"id": i} for i in range(3)])
        yield opened


def _count(store: FalkorDBStore) -> int:
    return int(store.read("MATCH (n:Probe) RETURN count(n) AS c")[0]["c"])


def _frozen(store: FalkorDBStore) -> int:
    pid = store.server.pid()
    os.kill(pid, signal.SIGSTOP)
    return pid


def _in_thread(call: Callable[[], object], seconds: float = 60) -> dict[str, object]:
    """Run `call` where a hang cannot hang the test: its outcome, or nothing if it did not return in time."""
    outcome: dict[str, object] = {}

    def run() -> None:
        started = time.monotonic()
        try:
            outcome["value"] = call()
        except Exception as exc:  # the test reads which error it was
            outcome["error"] = exc
        outcome["seconds"] = time.monotonic() - started

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    return outcome


def test_a_write_to_a_stuck_server_fails_soon_as_unconfirmed_and_the_graph_works_again(
    store: FalkorDBStore,
) -> None:
    frozen = _frozen(store)
    try:
        outcome = _in_thread(lambda: store.query("CREATE (:Probe {id: 99})"))
    finally:
        os.kill(frozen, signal.SIGCONT)  # a no-op once the watch has killed it
    assert isinstance(outcome.get("error"), StoreUnavailable), outcome
    assert "not confirmed" in str(outcome["error"])
    assert float(outcome["seconds"]) < STALL_S + 20, outcome  # type: ignore[arg-type]  # not the 600 s timeout
    assert store.server.pid() not in (0, frozen), "a new server runs"
    assert _count(store) == 3, "what was written before is there; the unconfirmed write is not"


def test_a_read_on_a_stuck_server_is_answered_by_the_restarted_one(store: FalkorDBStore) -> None:
    frozen = _frozen(store)
    try:
        outcome = _in_thread(lambda: _count(store))
    finally:
        os.kill(frozen, signal.SIGCONT)
    assert outcome.get("value") == 3, outcome
    assert float(outcome["seconds"]) < STALL_S + 20, outcome  # type: ignore[arg-type]  # not the read's 32 s
    assert store.server.pid() not in (0, frozen)


def test_an_index_statement_on_a_stuck_server_is_sent_again_and_succeeds(
    store: FalkorDBStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server sticks between the check for the index and the statement that creates it (where CI once hung)."""
    frozen: list[int] = []
    has_index = store._has_index

    def checked_then_stuck(kind: str, label: str, prop: str) -> bool:
        found = has_index(kind, label, prop)
        if not frozen:
            frozen.append(_frozen(store))
        return found

    monkeypatch.setattr(store, "_has_index", checked_then_stuck)
    try:
        outcome = _in_thread(lambda: store.ensure_range_index("Probe", "id"))
    finally:
        for pid in frozen:
            os.kill(pid, signal.SIGCONT)
    assert "error" not in outcome and "seconds" in outcome, outcome
    assert store.server.pid() not in (0, *frozen)
    monkeypatch.undo()
    assert store._has_index("range", "Probe", "id")
    assert _count(store) == 3


def test_a_long_write_the_server_works_on_is_left_alone(tmp_path: Path) -> None:
    """36M rows counted: ~3 s of server CPU on a quiet machine, longer under load; a narrow window, so the write
    outlasts it whatever the load, and still several of the watch's steps wide."""
    stall_s = 0.5
    with open_store(make_settings(tmp_path, graph_stall_s=stall_s)) as store:
        assert isinstance(store, FalkorDBStore)
        pid = store.server.pid()
        started = time.monotonic()
        store.query("UNWIND range(1, 6000) AS a UNWIND range(1, 6000) AS b WITH count(*) AS c CREATE (:Busy {c: c})")
        assert time.monotonic() - started > 2 * stall_s, "the write must outlast the stall window to test anything"
        assert store.server.pid() == pid, "a busy server is not taken for stuck"
        assert store.read("MATCH (n:Busy) RETURN n.c AS c") == [{"c": 36_000_000}]


def _frozen_while_loading(monkeypatch: pytest.MonkeyPatch, starts: int) -> list[int]:
    """The next `starts` servers started are frozen (SIGSTOP) as soon as their socket exists, before they have
    answered anything: FalkorDB#2129's deadlock while replaying the log, as seen from outside. Returns their pids."""
    frozen: list[int] = []
    await_pid = EmbeddedServer._await_pid

    def await_then_freeze(server: EmbeddedServer, log_start: int) -> int:
        pid = await_pid(server, log_start)
        if len(frozen) < starts:
            os.kill(pid, signal.SIGSTOP)
            frozen.append(pid)
        return pid

    monkeypatch.setattr(EmbeddedServer, "_await_pid", await_then_freeze)
    return frozen


def _written_and_closed(tmp_path: Path) -> None:
    """A graph with three Probe nodes whose server stopped when it closed: the next open starts and loads it."""
    with open_store(make_settings(tmp_path, graph_stall_s=STALL_S)) as store:
        store.write_batch("UNWIND $rows AS row CREATE (:Probe {id: row.id})", [{"id": i} for i in range(3)])


def test_a_server_stuck_while_loading_is_killed_and_started_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _written_and_closed(tmp_path)
    frozen = _frozen_while_loading(monkeypatch, starts=1)

    def opened_count() -> tuple[int, int]:
        with open_store(make_settings(tmp_path, graph_stall_s=STALL_S)) as store:
            assert isinstance(store, FalkorDBStore)
            return _count(store), store.server.pid()

    try:
        outcome = _in_thread(opened_count)
    finally:
        for pid in frozen:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
    assert len(frozen) == 1
    value = outcome.get("value")
    assert isinstance(value, tuple), outcome
    count, pid = value
    assert count == 3, outcome
    assert pid != frozen[0], "the stuck server was replaced"
    assert not psutil.pid_exists(frozen[0]) or psutil.Process(frozen[0]).status() == psutil.STATUS_ZOMBIE
    assert float(outcome["seconds"]) < STALL_S + 30, outcome  # type: ignore[arg-type]  # not the 600 s load timeout


def test_a_server_stuck_twice_while_loading_is_reported_and_none_is_left_running(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _written_and_closed(tmp_path)
    frozen = _frozen_while_loading(monkeypatch, starts=2)
    try:
        outcome = _in_thread(lambda: open_store(make_settings(tmp_path, graph_stall_s=STALL_S)).close())
    finally:
        for pid in frozen:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
    assert len(frozen) == 2, "started once more after the first stall, and not a third time"
    assert isinstance(outcome.get("error"), StoreUnavailable), outcome
    assert "stopped working twice while loading" in str(outcome["error"])
    assert float(outcome["seconds"]) < 2 * STALL_S + 60, outcome  # type: ignore[arg-type]
    server = EmbeddedServer(tmp_path / "graph.db", Limits.of(make_settings(tmp_path)))
    assert server.pid() == 0, "no stuck server is left holding the graph's files"
    monkeypatch.undo()
    with open_store(make_settings(tmp_path, graph_stall_s=STALL_S)) as store:
        assert isinstance(store, FalkorDBStore)
        assert _count(store) == 3, "nothing written was lost to the kills"
