"""The embedded server's lifecycle: one data directory per graph, exclusive open, repair, no leaks, reconnect, timeouts.

Real processes throughout: a second Python process opens the same graph, the real server is killed with SIGKILL or
frozen with SIGSTOP, and redis-server processes are counted by their working folder.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import psutil
import pytest

from retrieval.engine import Engine
from retrieval.errors import QueryMemoryExceeded, StoreUnavailable
from retrieval.store import open_store
from retrieval.store.embedded_server import DamagedLog
from retrieval.store.falkordb import FalkorDBStore
from tests.conftest import make_settings

#: The embedded server's lock, log (AOF) and restarts after kill -9: FalkorDB only, by nature.
pytestmark = pytest.mark.embedded_only

REPO = Path(__file__).resolve().parents[1]


def _data_dir(graph: Path) -> Path:
    return graph.with_name(graph.name + ".data")


def _server_pid(graph: Path) -> int:
    return int(json.loads((_data_dir(graph) / "server.lock").read_text())["server_pid"])


def _servers_under(folder: Path) -> list[int]:
    """Live redis-server processes whose working folder (their data `dir`) is inside `folder`."""
    found = []
    for proc in psutil.process_iter(["name"]):
        try:
            server = "redis-server" in (proc.info["name"] or "") and proc.status() != psutil.STATUS_ZOMBIE
            if server and Path(proc.cwd()).is_relative_to(folder):
                found.append(proc.pid)
        except psutil.Error:
            continue
    return found


def _wait_until_gone(folder: Path, seconds: float = 10) -> None:
    """Until no graph server runs under `folder`: a killed process lingers a moment (longer on a busy machine)."""
    deadline = time.monotonic() + seconds
    while _servers_under(folder) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _servers_under(folder) == [], f"still running {seconds} s after SIGKILL"


def _count(store: FalkorDBStore | object, label: str = "Probe") -> int:
    rows = store.read(f"MATCH (n:{label}) RETURN count(n) AS c")  # type: ignore[attr-defined]
    return int(rows[0]["c"]) if rows else 0  # a graph never written reads as empty


def _write(store: object, n: int, label: str = "Probe") -> None:
    store.write_batch(f"UNWIND $rows AS row CREATE (:{label} {{id: row.id}})", [{"id": i} for i in range(n)])  # type: ignore[attr-defined]


# --- 1. one data directory per graph ---------------------------------------------------------------
def test_two_graphs_in_one_folder_keep_their_own_data(tmp_path: Path) -> None:
    a, b = tmp_path / "a.db", tmp_path / "b.db"
    with open_store(make_settings(tmp_path, graph_path=a)) as store:
        _write(store, 5)
    with open_store(make_settings(tmp_path, graph_path=b)) as store:
        assert _count(store) == 0, "a never-indexed graph must be empty"
        _write(store, 3)
        store.query("MATCH (n:Probe) DETACH DELETE n")
    with open_store(make_settings(tmp_path, graph_path=a)) as store:
        assert _count(store) == 5, "removing from b.db must not touch a.db"
    assert (_data_dir(a) / "appendonlydir").is_dir() and (_data_dir(b) / "appendonlydir").is_dir()
    assert not (tmp_path / "appendonlydir").exists()


def test_closing_stops_the_server_without_waiting_on_retries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SHUTDOWN drops its connection by design: a client that retried would reconnect with growing pauses (the
    close of every graph took 4.5 s of them), so no connection of the close may back off."""
    import redis.retry

    pauses: list[float] = []
    monkeypatch.setattr(redis.retry, "sleep", pauses.append)
    store = open_store(make_settings(tmp_path))
    assert store.server.owner().get("server_pid")  # type: ignore[attr-defined]
    store.close()
    assert pauses == [] and not store.server.owner().get("server_pid")  # type: ignore[attr-defined]


def _as_old_layout(graph: Path) -> None:
    """Turn a graph written by this version into the old layout: snapshot at the graph's path, log in the folder."""
    data = _data_dir(graph)
    shutil.move(data / "appendonlydir", graph.parent / "appendonlydir")
    shutil.move(data / "dump.rdb", graph)
    shutil.rmtree(data)


def test_old_shared_log_moves_into_its_only_graph(tmp_path: Path) -> None:
    a = tmp_path / "a.db"
    with open_store(make_settings(tmp_path, graph_path=a)) as store:
        _write(store, 7)
    _as_old_layout(a)
    with open_store(make_settings(tmp_path, graph_path=tmp_path / "b.db")) as store:
        assert _count(store) == 0, "a graph with no trace of the old layout does not take the shared log"
    with open_store(make_settings(tmp_path, graph_path=a)) as store:
        assert _count(store) == 7
    assert not (tmp_path / "appendonlydir").exists() and not a.exists()


def test_old_log_shared_by_two_graphs_is_refused_with_the_fix(tmp_path: Path) -> None:
    a = tmp_path / "a.db"
    with open_store(make_settings(tmp_path, graph_path=a)) as store:
        _write(store, 4)
    _as_old_layout(a)
    shutil.copy(a, tmp_path / "b.db")  # the old version wrote b.db's snapshot beside it, from the same log
    with pytest.raises(StoreUnavailable) as info:
        open_store(make_settings(tmp_path, graph_path=a))
    assert "shared log" in str(info.value) and "mv " in str(info.value)
    assert (tmp_path / "appendonlydir").is_dir(), "nothing is moved when the owner is ambiguous"
    assert _servers_under(tmp_path) == []


# --- 3. memory caps ------------------------------------------------------------------------------
def test_server_runs_with_the_configured_memory_caps(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, graph_max_memory_mb=300, graph_query_memory_mb=64)
    with open_store(settings) as store:
        assert isinstance(store, FalkorDBStore)
        client = store._writer
        assert client is not None
        assert int(client.config_get("maxmemory")["maxmemory"]) == 300 * 1024 * 1024
        capacity = client.execute_command("GRAPH.CONFIG", "GET", "QUERY_MEM_CAPACITY")
        assert int(capacity[1]) == 64 * 1024 * 1024


def test_a_vector_index_grows_past_the_query_memory_cap_it_started_with(tmp_path: Path) -> None:
    """FalkorDB counts an index's growth against the inserting query: a fixed 16 MB cap stopped a 384-d index
    at 8,000 vectors, each batch far under the cap. The cap follows the index; a runaway read is still stopped.

    The server's cap is set to 8 MB, under what the settings allow, so the index reaches it at ~3,000 vectors (a
    quarter of the writes 16 MB needs). There, raising the cap to twice the 4.4 MB index was not enough for its
    next block and the same write failed again: the cap is now at least doubled, and raised until the write fits.
    """
    rng = np.random.default_rng(1)
    with open_store(make_settings(tmp_path, graph_query_memory_mb=16, graph_max_memory_mb=512)) as store:
        assert isinstance(store, FalkorDBStore) and store._writer is not None
        store._writer.execute_command("GRAPH.CONFIG", "SET", "QUERY_MEM_CAPACITY", 8 * 2**20)
        store.ensure_vector_index("probe_v", "Probe", "v", 384)
        for start in range(0, 6_000, 250):
            rows = [{"id": start + i, "v": rng.random(384, dtype=np.float32)} for i in range(250)]
            store.write_batch("UNWIND $rows AS row CREATE (p:Probe {id: row.id}) SET p.v = vecf32(row.v)", rows, 250)
        assert store.read("MATCH (p:Probe) RETURN count(DISTINCT p.id) AS n") == [{"n": 6_000}]
        capacity = int(store._writer.execute_command("GRAPH.CONFIG", "GET", "QUERY_MEM_CAPACITY")[1])
        assert 8 * 2**20 < capacity <= 512 * 2**20
        with pytest.raises(QueryMemoryExceeded):
            store.read("UNWIND range(1, 100000000) AS x RETURN collect(x) AS xs")


# --- 2. exclusive open -----------------------------------------------------------------------------
OPENER = """
import json, sys, time
from pathlib import Path
from tests.conftest import make_settings
from retrieval.store import open_store
graph, go, n = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
while not go.exists():
    time.sleep(0.005)
with open_store(make_settings(graph.parent, graph_path=graph)) as store:
    pid = store._writer.info("server")["process_id"]
    store.write_batch("UNWIND $rows AS row CREATE (:Probe {id: row.id})", [{"id": i} for i in range(n)], 10)
    print(json.dumps({"pid": pid}), flush=True)
    time.sleep(float(sys.argv[4]))
"""


def test_two_processes_opening_one_graph_share_one_server(tmp_path: Path) -> None:
    graph, go = tmp_path / "graph.db", tmp_path / "go"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", OPENER, str(graph), str(go), "50", "2"], cwd=REPO, stdout=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    go.touch()  # both start opening at the same moment
    outputs = [p.communicate(timeout=180)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0]
    pids = {json.loads(out.strip().splitlines()[-1])["pid"] for out in outputs}
    assert len(pids) == 1, f"two servers on one graph: {pids}"
    assert _servers_under(tmp_path) == [], "the last client to close stops the server"
    with open_store(make_settings(tmp_path)) as store:
        assert _count(store) == 100


def test_second_process_attaches_to_the_running_server(tmp_path: Path) -> None:
    graph, go = tmp_path / "graph.db", tmp_path / "go"
    go.touch()
    with open_store(make_settings(tmp_path)) as store:
        _write(store, 5)
        out = subprocess.run(
            [sys.executable, "-c", OPENER, str(graph), str(go), "10", "0"],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        ).stdout
        assert json.loads(out.strip().splitlines()[-1])["pid"] == _server_pid(graph)
        assert _count(store) == 15, "the other process's writes are visible at once, and ours are kept"
        assert len(_servers_under(tmp_path)) == 1


def _damage_log(graph: Path) -> None:
    """Write 10 nodes, then 5 more, then break the log where the second batch starts."""
    with open_store(make_settings(graph.parent, graph_path=graph)) as store:
        _write(store, 10)
    incr = max((_data_dir(graph) / "appendonlydir").glob("*.incr.aof"), key=lambda p: p.stat().st_mtime)
    good = incr.stat().st_size
    with open_store(make_settings(graph.parent, graph_path=graph)) as store:
        _write(store, 5, label="Late")
    data = bytearray(incr.read_bytes())
    assert len(data) > good
    data[good] = ord("!")  # a command must start with '*': the log is unreadable from here on
    incr.write_bytes(bytes(data))


def test_damaged_log_is_named_and_repaired_after_a_backup(tmp_path: Path) -> None:
    graph = tmp_path / "graph.db"
    _damage_log(graph)
    with pytest.raises(DamagedLog) as info:
        open_store(make_settings(tmp_path))
    message = str(info.value)
    assert "damaged" in message and f"repair --graph {graph}" in message
    assert "writable" not in message, "a damaged log is not a permissions problem"
    assert _servers_under(tmp_path) == []

    repaired = subprocess.run(
        [sys.executable, "-m", "retrieval", "repair", "--graph", str(graph)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert repaired.returncode == 0, repaired.stderr
    backups = list(_data_dir(graph).glob("appendonlydir.backup-*"))
    assert len(backups) == 1 and any(backups[0].glob("*.incr.aof"))
    with open_store(make_settings(tmp_path)) as store:
        assert _count(store) == 10, "every complete entry before the damage is kept"


# --- 5. no leaked servers --------------------------------------------------------------------------
def test_unwritable_folder_fails_clearly_and_leaves_no_server(tmp_path: Path) -> None:
    folder = tmp_path / "readonly"
    with open_store(make_settings(folder, graph_path=folder / "graph.db")) as store:
        _write(store, 2)  # a graph that exists, in a folder that later becomes read-only
    for path in (folder, *folder.glob("*.data")):
        path.chmod(0o555)
    code = textwrap.dedent(
        f"""
        from pathlib import Path
        from tests.conftest import make_settings
        from retrieval.errors import QueryMemoryExceeded, StoreUnavailable
        from retrieval.store import open_store
        for attempt in range(3):
            try:
                open_store(make_settings(Path({str(folder)!r}), graph_path=Path({str(folder / "graph.db")!r})))
            except StoreUnavailable as exc:
                print(exc)
            else:
                raise SystemExit("opened a graph in a folder it cannot write")
        """
    )
    # Root writes anywhere: without the capability to override file modes, the folder is read-only to it too.
    prefix = ["setpriv", "--bounding-set", "-dac_override", "--"] if os.geteuid() == 0 else []
    proc = subprocess.run(
        [*prefix, sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120, check=False
    )
    time.sleep(0.5)
    leaked = _servers_under(folder)
    for pid in leaked:
        os.kill(pid, signal.SIGKILL)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("folder is writable") == 3, proc.stdout
    assert leaked == [], "a failed open must stop every server it started"


# --- 4. reconnect after the server dies --------------------------------------------------------------
def test_engine_reopens_a_killed_server_without_a_restart(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    graph = settings.embedded_graph_path
    engine = Engine(settings)
    try:
        _write(engine.store, 12)
        first = _server_pid(graph)
        os.kill(first, signal.SIGKILL)
        _wait_until_gone(tmp_path)
        assert engine.health().ok
        assert _count(engine.store) == 12
        second = _server_pid(graph)
        assert second != first and _servers_under(tmp_path) == [second]
    finally:
        engine.close()


def test_threads_sharing_a_store_recover_together_with_one_server(tmp_path: Path) -> None:
    """The app's sessions share one store: after a kill, their reads reconnect once, and every one succeeds."""
    with open_store(make_settings(tmp_path, query_timeout_ms=3000)) as store:
        _write(store, 4)
        os.kill(_server_pid(store.settings.embedded_graph_path), signal.SIGKILL)
        counts: list[int | str] = []

        def read() -> None:
            try:
                counts.append(_count(store))
            except Exception as exc:  # any failure is what this test reports
                counts.append(repr(exc))

        workers = [threading.Thread(target=read) for _ in range(6)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(timeout=60)
        assert counts == [4] * 6, counts
        assert len(_servers_under(tmp_path)) == 1


# --- 6. per-query timeout --------------------------------------------------------------------------
def test_hung_server_fails_a_read_within_the_query_timeout(tmp_path: Path) -> None:
    with open_store(make_settings(tmp_path, query_timeout_ms=1000)) as store:
        _write(store, 3)
        pid = _server_pid(store.settings.embedded_graph_path)
        outcome: dict[str, object] = {}

        def read() -> None:
            started = time.monotonic()
            try:
                store.read("MATCH (n:Probe) RETURN count(n) AS c")
            except StoreUnavailable as exc:
                outcome["error"] = str(exc)
            outcome["seconds"] = time.monotonic() - started

        os.kill(pid, signal.SIGSTOP)
        try:
            worker = threading.Thread(target=read, daemon=True)
            worker.start()
            worker.join(timeout=20)
        finally:
            os.kill(pid, signal.SIGCONT)
        worker.join(timeout=30)
        assert "did not answer within 1 s" in str(outcome.get("error")), outcome
        assert float(outcome["seconds"]) < 10  # type: ignore[arg-type]
        assert _count(store) == 3, "once the server runs again, reads work again"


def test_kept_server_outlives_its_last_client_until_stopped(tmp_path: Path) -> None:
    """DRIFTLENS_GRAPH_KEEP_SERVER: the next open attaches to the same server (no reload, no index rebuild)."""
    graph = tmp_path / "graph.db"
    kept = make_settings(tmp_path, graph_keep_server=True)
    with open_store(kept) as store:
        _write(store, 7)
    pid = _server_pid(graph)
    assert _servers_under(tmp_path) == [pid], "closing with the setting on leaves the server running"
    with open_store(kept) as store:
        assert _count(store) == 7 and _server_pid(graph) == pid
        refused = _cli("stop", "--graph", str(graph))  # a DriftLens still uses it: not stopped under it
        assert refused.returncode == 1 and "still in use" in refused.stdout and _servers_under(tmp_path) == [pid]
    stopped = _cli("stop", "--graph", str(graph))
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    assert _servers_under(tmp_path) == []
    with open_store(make_settings(tmp_path)) as store:
        assert _count(store) == 7, "stopping saved the graph"
    assert _servers_under(tmp_path) == [], "without the setting the last client stops the server, as before"


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NEO4J_URI": ""}
    return subprocess.run(
        [sys.executable, "-m", "retrieval", *args],
        check=False,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
