"""Embedded FalkorDB Lite specifics: durability across restarts and kills, orphaned servers, clear failures."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import psutil
import pytest

from retrieval.errors import StoreUnavailable
from retrieval.store import open_store
from retrieval.store.falkordb import FalkorDBStore
from tests.conftest import make_settings

#: The embedded server's own files, processes and lock: nothing to run on Neo4j (its failures: test_neo4j_failures).
pytestmark = pytest.mark.embedded_only

REPO = Path(__file__).resolve().parents[1]


def _count(store: FalkorDBStore) -> int:
    return int(store.read("MATCH (n:Probe) RETURN count(n) AS c")[0]["c"])


def _write_then_die(graph: Path, n: int) -> None:
    """A child process writes `n` nodes, then is SIGKILLed: no close, no save, no atexit."""
    code = textwrap.dedent(
        f"""
        import os, signal
        from tests.conftest import make_settings
        from retrieval.store import open_store
        from pathlib import Path
        store = open_store(make_settings(Path({str(graph.parent)!r})))
        store.write_batch("UNWIND $rows AS row CREATE (:Probe {{id: row.id}})", [{{"id": i}} for i in range({n})])
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, timeout=120, check=False)
    assert proc.returncode == -9, proc.stderr.decode()


def _server_pid(graph: Path) -> int:
    return int(json.loads((graph.with_name(graph.name + ".data") / "server.lock").read_text())["server_pid"])


def test_data_survives_close_and_reopen(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    with open_store(settings) as store:
        store.write_batch("UNWIND $rows AS row CREATE (:Probe {id: row.id})", [{"id": i} for i in range(250)], 100)
    with open_store(settings) as store:
        assert isinstance(store, FalkorDBStore)
        assert _count(store) == 250


def test_killed_owner_leaves_a_server_we_attach_to_without_loss(tmp_path: Path) -> None:
    graph = tmp_path / "graph.db"
    _write_then_die(graph, 40)
    orphan = _server_pid(graph)
    assert psutil.pid_exists(orphan)
    with open_store(make_settings(tmp_path)) as store:
        assert isinstance(store, FalkorDBStore)
        assert _count(store) == 40
    if psutil.pid_exists(orphan):
        psutil.Process(orphan).wait(timeout=30)
    assert not psutil.pid_exists(orphan), "the last client closing must stop the orphaned server"
    with open_store(make_settings(tmp_path)) as store:
        assert _count(store) == 40  # and the append-only file kept every write


def test_unreachable_orphan_is_stopped_and_data_kept(tmp_path: Path) -> None:
    graph = tmp_path / "graph.db"
    _write_then_die(graph, 25)
    orphan = _server_pid(graph)
    os.unlink(graph.with_name(graph.name + ".data") / "redis.sock")  # as if it had been deleted
    with open_store(make_settings(tmp_path)) as store:
        assert not psutil.pid_exists(orphan) or psutil.Process(orphan).status() == psutil.STATUS_ZOMBIE
        assert _count(store) == 25


def test_unwritable_path_names_it_and_what_to_check(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(StoreUnavailable) as info:
        open_store(make_settings(tmp_path, graph_path=blocker / "graph.db"))
    assert str(blocker / "graph.db") in str(info.value)
    assert "writable" in str(info.value)


def test_neo4j_down_names_the_uri_and_what_to_check(tmp_path: Path) -> None:
    # A real driver against a closed local port: no server needed to prove the message.
    settings = make_settings(tmp_path, neo4j_uri="bolt://127.0.0.1:9", neo4j_password="pw-secret-value")
    with pytest.raises(StoreUnavailable) as info:
        open_store(settings)
    text = str(info.value)
    assert "bolt://127.0.0.1:9" in text and "NEO4J_URI" in text
    assert "pw-secret-value" not in text
