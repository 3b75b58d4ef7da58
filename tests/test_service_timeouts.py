"""`serve`'s connection timeouts with real sockets on 127.0.0.1: slow-header clients (slowloris), a silent
connection and an idle kept-alive one are disconnected; the service answers others meanwhile.

Timeouts are 1 s here; every wait is bounded at several times that, so a loaded machine passes and a server that
never disconnects fails (it held 300 slow-header connections 40 s and more).
"""

from __future__ import annotations

import http.client
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from retrieval.store import GraphStore
from tests.conftest import backend_env
from tests.e2e.conftest import free_port

ROOT = Path(__file__).resolve().parents[1]
#: Longest wait for a disconnect the 1 s timeouts should cause.
BOUND_S = 8.0


@pytest.fixture(scope="module")
def served(module_store: GraphStore, tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """`python -m retrieval serve` over the module's graph, header and keep-alive timeouts of 1 s; yields its port."""
    port, log = free_port(), tmp_path_factory.mktemp("serve") / "serve.log"
    env = {
        **os.environ,
        **backend_env(module_store.settings),
        "PYTHONPATH": str(ROOT),
        "DRIFTLENS_DATA_DIR": str(module_store.settings.data_dir),
        "DRIFTLENS_API_HEADER_TIMEOUT_S": "1",
        "DRIFTLENS_API_KEEP_ALIVE_S": "1",
    }
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "retrieval", "serve", "--port", str(port)],
            cwd=module_store.settings.data_dir,
            env=env,
            stdout=sink,
            stderr=sink,
        )
    try:
        deadline = time.monotonic() + 240
        while not _healthy(port):
            assert process.poll() is None and time.monotonic() < deadline, log.read_text(encoding="utf-8")[-3000:]
            time.sleep(0.5)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=60)


def _healthy(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/health", timeout=5).status_code == 200
    except httpx.TransportError:
        return False


def closed(sock: socket.socket) -> bool:
    """Whether the server closed `sock` (without waiting); bytes it sent are read and dropped."""
    sock.setblocking(False)
    try:
        return sock.recv(65536) == b""
    except BlockingIOError:
        return False
    except OSError:  # reset
        return True


def trickle_until_closed(clients: list[socket.socket]) -> list[socket.socket]:
    """One more header byte to each client every 0.2 s until the server closed them all or BOUND_S passed; the
    clients still open."""
    still = list(clients)
    deadline = time.monotonic() + BOUND_S
    while still and time.monotonic() < deadline:
        for sock in list(still):
            try:
                sock.sendall(b"x")
            except OSError:
                still.remove(sock)
                continue
            if closed(sock):
                still.remove(sock)
        time.sleep(0.2)
    return still


def test_slow_header_clients_are_disconnected_while_others_are_served(served: int) -> None:
    clients = [socket.create_connection(("127.0.0.1", served), timeout=5) for _ in range(50)]
    try:
        for sock in clients:
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        assert _healthy(served), "an ordinary request is answered meanwhile"
        still = trickle_until_closed(clients)
        assert not still, f"{len(still)} of {len(clients)} slow-header connections still open after {BOUND_S} s"
    finally:
        for sock in clients:
            sock.close()


def test_a_silent_connection_is_disconnected(served: int) -> None:
    with socket.create_connection(("127.0.0.1", served), timeout=5) as sock:
        deadline = time.monotonic() + BOUND_S
        while not closed(sock):
            assert time.monotonic() < deadline, "a connection that sends nothing is held"
            time.sleep(0.1)


def test_a_kept_alive_connection_closes_when_idle_and_when_its_next_headers_crawl(served: int) -> None:
    idle, crawling = (http.client.HTTPConnection("127.0.0.1", served, timeout=5) for _ in range(2))
    for connection in (idle, crawling):
        connection.request("GET", "/health")
        response = connection.getresponse()
        assert response.status == 200 and response.getheader("connection") != "close"
        response.read()
    try:
        assert crawling.sock is not None and idle.sock is not None
        crawling.sock.sendall(b"GET /health HTTP/1.1\r\nX-Slow: ")  # data: the keep-alive timer stops here
        assert not trickle_until_closed([crawling.sock]), "the next request's headers crawl on"
        deadline = time.monotonic() + BOUND_S
        while not closed(idle.sock):
            assert time.monotonic() < deadline, "an idle kept-alive connection is held"
            time.sleep(0.1)
    finally:
        idle.close()
        crawling.close()
